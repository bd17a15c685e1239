// host cost of a launch: raw driver calls vs patc_launch_args_enqueue (saxpy, n=1024)
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
#include "patc.h"
typedef int (*f_init)(unsigned);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static const char *ptx =
".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry empty(.param .u64 p){ ret; }\n";
int main(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    int (*cuInit)(unsigned) = dlsym(h, "cuInit");
    int (*cuDeviceGet)(int *, int) = dlsym(h, "cuDeviceGet");
    int (*cuDevicePrimaryCtxRetain)(void **, int) = dlsym(h, "cuDevicePrimaryCtxRetain");
    int (*cuCtxSetCurrent)(void *) = dlsym(h, "cuCtxSetCurrent");
    int (*cuCtxGetCurrent)(void **) = dlsym(h, "cuCtxGetCurrent");
    int (*cuModuleLoadData)(void **, const void *) = dlsym(h, "cuModuleLoadData");
    int (*cuModuleGetFunction)(void **, void *, const char *) = dlsym(h, "cuModuleGetFunction");
    int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **) = dlsym(h, "cuLaunchKernel_ptsz") ? dlsym(h, "cuLaunchKernel") : dlsym(h, "cuLaunchKernel");
    int (*cuFuncSetAttribute)(void *, int, int) = dlsym(h, "cuFuncSetAttribute");
    int (*cuCtxSynchronize)(void) = dlsym(h, "cuCtxSynchronize");
    int dev; void *ctx, *mod, *fn;
    cuInit(0); cuDeviceGet(&dev, 0); cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
    if (cuModuleLoadData(&mod, ptx) || cuModuleGetFunction(&fn, mod, "empty")) { printf("ptx load failed\n"); return 1; }
    enum { N = 20000 };
    unsigned long long arg = 0; void *args[] = {&arg};
    double t;
    for (int r = 0; r < 3; r++) {
        t = now(); for (int i = 0; i < N; i++) cuCtxSetCurrent(ctx); printf("cuCtxSetCurrent       %.3f us\n", (now() - t) / N);
        void *cur; t = now(); for (int i = 0; i < N; i++) cuCtxGetCurrent(&cur); printf("cuCtxGetCurrent       %.3f us\n", (now() - t) / N);
        t = now(); for (int i = 0; i < N; i++) cuFuncSetAttribute(fn, 8, 1024); printf("cuFuncSetAttribute    %.3f us\n", (now() - t) / N);
        cuCtxSynchronize();
        t = now(); for (int i = 0; i < N; i++) cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL); printf("cuLaunchKernel        %.3f us (host)\n", (now() - t) / N);
        cuCtxSynchronize();
        t = now(); for (int i = 0; i < N; i++) cuLaunchKernel(fn, 4, 1, 1, 128, 1, 1, 0, NULL, args, NULL); cuCtxSynchronize(); printf("cuLaunchKernel+sync   %.3f us (throughput)\n", (now() - t) / N);
    }
    patc_ctx *c; patc_program *p; patc_kernel *k;
    if (patc_create(&c, 0, 0) || patc_program_compile(c, "examples/saxpy.rise", NULL, 0, NULL, &p) || patc_get_kernel(p, "saxpy", &k)) { printf("patc: %s\n", patc_last_error(c)); return 1; }
    patc_buffer *x, *y, *o; long long n = 1024; float a = 2.0f;
    patc_buffer_alloc(c, 4096, &x); patc_buffer_alloc(c, 4096, &y); patc_buffer_alloc(c, 4096, &o);
    patc_arg in[3] = {{NULL, &a}, {x, NULL}, {y, NULL}};
    patc_buffer *outs[1] = {o};
    for (int r = 0; r < 3; r++) {
        patc_launch_args_enqueue(k, &n, in, outs, NULL);
        t = now(); for (int i = 0; i < N; i++) patc_launch_args_enqueue(k, &n, in, outs, NULL); printf("patc_launch_args_enqueue %.3f us (host)\n", (now() - t) / N);
        cuCtxSynchronize();
    }
    return 0;
}
