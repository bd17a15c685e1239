/* rt_driver.c: the CUDA driver API, loaded with dlopen("libcuda.so.1") at run time.
 *
 * libpatrt is never linked against libcuda, so a program using it starts (and can
 * compile kernels) on a machine without the NVIDIA driver. cuda.h is included for
 * its types and constants only; each entry point is looked up by the symbol name the
 * header maps it to (the _v2 names where it #defines them). */
#include "rt_internal.h"

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* X(field, symbol, return, parameters) */
#define DRIVER_FUNCS(X)                                                                     \
    X(Init, "cuInit", (unsigned))                                                           \
    X(DeviceGetCount, "cuDeviceGetCount", (int *))                                          \
    X(DeviceGet, "cuDeviceGet", (CUdevice *, int))                                          \
    X(DeviceGetAttribute, "cuDeviceGetAttribute", (int *, CUdevice_attribute, CUdevice))    \
    X(DeviceTotalMem, "cuDeviceTotalMem_v2", (size_t *, CUdevice))                          \
    X(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *, CUdevice))                \
    X(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice))                        \
    X(CtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                                        \
    X(CtxSynchronize, "cuCtxSynchronize", (void))                                           \
    X(ModuleLoadData, "cuModuleLoadData", (CUmodule *, const void *))                       \
    X(ModuleUnload, "cuModuleUnload", (CUmodule))                                           \
    X(ModuleGetFunction, "cuModuleGetFunction", (CUfunction *, CUmodule, const char *))     \
    X(FuncSetAttribute, "cuFuncSetAttribute", (CUfunction, CUfunction_attribute, int))      \
    X(LaunchKernel, "cuLaunchKernel",                                                       \
      (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,    \
       CUstream, void **, void **))                                                         \
    X(MemAlloc, "cuMemAlloc_v2", (CUdeviceptr *, size_t))                                   \
    X(MemFree, "cuMemFree_v2", (CUdeviceptr))                                               \
    X(MemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr, const void *, size_t))                   \
    X(MemsetD8, "cuMemsetD8_v2", (CUdeviceptr, unsigned char, size_t))                      \
    X(MemsetD8Async, "cuMemsetD8Async", (CUdeviceptr, unsigned char, size_t, CUstream))     \
    X(MemcpyDtoH, "cuMemcpyDtoH_v2", (void *, CUdeviceptr, size_t))                         \
    X(EventCreate, "cuEventCreate", (CUevent *, unsigned))                                  \
    X(EventDestroy, "cuEventDestroy_v2", (CUevent))                                         \
    X(EventRecord, "cuEventRecord", (CUevent, CUstream))                                    \
    X(EventSynchronize, "cuEventSynchronize", (CUevent))                                    \
    X(EventElapsedTime, "cuEventElapsedTime", (float *, CUevent, CUevent))                  \
    X(GetErrorName, "cuGetErrorName", (CUresult, const char **))

struct RtDriver {
    void *lib;
#define X(f, s, p) CUresult (*f) p;
    DRIVER_FUNCS(X)
#undef X
    CUdevice dev;
    CUcontext ctx;
    int arch;
    char errbuf[64];
};

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = lang_malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* Look up every entry point; cuEventElapsedTime_v2 (CUDA 12.8+) is preferred when the
 * driver has it, the older name otherwise (same signature). */
static bool load_symbols(RtDriver *d, char **why)
{
#define X(f, s, p)                                                                 \
    d->f = (CUresult(*) p)dlsym(d->lib, s);                                        \
    if (!d->f) {                                                                   \
        char buf[160];                                                             \
        snprintf(buf, sizeof buf, "libcuda.so.1 lacks %s: the NVIDIA driver is too old", s); \
        *why = dupstr(buf);                                                        \
        return false;                                                              \
    }
    DRIVER_FUNCS(X)
#undef X
    void *v2 = dlsym(d->lib, "cuEventElapsedTime_v2");
    if (v2) d->EventElapsedTime = (CUresult(*)(float *, CUevent, CUevent))v2;
    return true;
}

/* dlopen -> cuInit(0) -> device count check -> primary context of `device`. */
RtDriver *rt_driver_open(int device, char **why, bool *no_device)
{
    *why = NULL;
    *no_device = false;
    RtDriver *d = lang_calloc(1, sizeof *d);
    if (!d) {
        *why = dupstr("out of memory");
        return NULL;
    }
    d->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!d->lib) {
        *why = dupstr("libcuda.so.1 not found: no NVIDIA driver on this machine");
        free(d);
        return NULL;
    }
    if (!load_symbols(d, why)) goto fail;
    char buf[200];
    CUresult r = d->Init(0);
    if (r != CUDA_SUCCESS) {
        snprintf(buf, sizeof buf, "cuInit failed: %s (no usable NVIDIA GPU on this machine?)",
                 rt_driver_error_name(d, r));
        *why = dupstr(buf);
        *no_device = true;
        goto fail;
    }
    int count = 0;
    if (d->DeviceGetCount(&count) != CUDA_SUCCESS) count = 0;
    if (device < 0 || device >= count) {
        snprintf(buf, sizeof buf, "no CUDA device %d: this machine has %d", device, count);
        *why = dupstr(buf);
        *no_device = true;
        goto fail;
    }
    int maj = 0, min = 0;
    if ((r = d->DeviceGet(&d->dev, device)) != CUDA_SUCCESS ||
        (r = d->DeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev)) != CUDA_SUCCESS ||
        (r = d->DeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev)) != CUDA_SUCCESS ||
        (r = d->PrimaryCtxRetain(&d->ctx, d->dev)) != CUDA_SUCCESS) {
        snprintf(buf, sizeof buf, "CUDA device %d: %s", device, rt_driver_error_name(d, r));
        *why = dupstr(buf);
        goto fail;
    }
    d->arch = maj * 10 + min;
    if ((r = d->CtxSetCurrent(d->ctx)) != CUDA_SUCCESS) {
        snprintf(buf, sizeof buf, "cuCtxSetCurrent: %s", rt_driver_error_name(d, r));
        *why = dupstr(buf);
        d->PrimaryCtxRelease(d->dev);
        goto fail;
    }
    return d;
fail:
    dlclose(d->lib);
    free(d);
    return NULL;
}

void rt_driver_close(RtDriver *d)
{
    if (!d) return;
    d->PrimaryCtxRelease(d->dev);
    dlclose(d->lib);
    free(d);
}

int rt_driver_arch(const RtDriver *d) { return d->arch; }

/* The driver's name for a CUresult ("CUDA_ERROR_OUT_OF_MEMORY"), or its number. */
const char *rt_driver_error_name(RtDriver *d, int err)
{
    const char *s = NULL;
    if (d->GetErrorName && d->GetErrorName((CUresult)err, &s) == CUDA_SUCCESS && s) return s;
    snprintf(d->errbuf, sizeof d->errbuf, "CUresult %d", err);
    return d->errbuf;
}

/* Make the context current on the calling thread: the caller may use several threads
 * (one at a time), and the primary context is current on none of them by default. */
int rt_driver_bind(RtDriver *d) { return d->CtxSetCurrent(d->ctx); }

int rt_driver_mem_alloc(RtDriver *d, RtDevPtr *p, size_t bytes)
{
    CUdeviceptr q = 0;
    CUresult r = d->MemAlloc(&q, bytes ? bytes : 1);
    *p = q;
    return r;
}
int rt_driver_mem_free(RtDriver *d, RtDevPtr p) { return d->MemFree((CUdeviceptr)p); }
int rt_driver_memset0(RtDriver *d, RtDevPtr p, size_t n) { return n ? d->MemsetD8((CUdeviceptr)p, 0, n) : 0; }
int rt_driver_memset0_async(RtDriver *d, RtDevPtr p, size_t n, void *stream)
{
    return n ? d->MemsetD8Async((CUdeviceptr)p, 0, n, (CUstream)stream) : 0;
}
int rt_driver_sm_count(RtDriver *d, int *n)
{
    return d->DeviceGetAttribute(n, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev);
}
int rt_driver_total_mem(RtDriver *d, size_t *bytes) { return d->DeviceTotalMem(bytes, d->dev); }
int rt_driver_smem_optin(RtDriver *d, int *n)
{
    return d->DeviceGetAttribute(n, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d->dev);
}
int rt_driver_htod(RtDriver *d, RtDevPtr dst, const void *src, size_t n)
{
    return n ? d->MemcpyHtoD((CUdeviceptr)dst, src, n) : 0;
}
int rt_driver_dtoh(RtDriver *d, void *dst, RtDevPtr src, size_t n)
{
    return n ? d->MemcpyDtoH(dst, (CUdeviceptr)src, n) : 0;
}
int rt_driver_module_load(RtDriver *d, const void *image, void **module)
{
    CUmodule m = NULL;
    CUresult r = d->ModuleLoadData(&m, image);
    *module = m;
    return r;
}
/* The image itself is refused: not one this driver reads (a cubin of a newer toolkit's
 * format) or none for this GPU. Other failures (memory, a lost context) are not the
 * image's. */
bool rt_driver_image_refused(int err)
{
    return err == CUDA_ERROR_INVALID_IMAGE || err == CUDA_ERROR_NO_BINARY_FOR_GPU ||
           err == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || err == CUDA_ERROR_INVALID_PTX;
}
int rt_driver_module_unload(RtDriver *d, void *module) { return d->ModuleUnload((CUmodule)module); }
int rt_driver_get_function(RtDriver *d, void *module, const char *name, void **fn)
{
    CUfunction f = NULL;
    CUresult r = d->ModuleGetFunction(&f, (CUmodule)module, name);
    *fn = f;
    return r;
}

/* Kernels may use more than the 48 KiB of shared memory a function gets by default only
 * after opting in per function: CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES starts at
 * 48 KiB less the function's static __shared__ and may be raised to the device's opt-in
 * maximum less that (cuda.h, cuFuncSetAttribute). patc's static __shared__ is at most
 * lastBlock's one-byte flag, so raising it from 47 KiB on covers every kernel. */
int rt_driver_launch(RtDriver *d, void *fn, const unsigned grid[3], const unsigned block[3],
                     unsigned shared, void *stream, void **args)
{
    CUresult r;
    if (shared > 47 * 1024 &&
        (r = d->FuncSetAttribute((CUfunction)fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 (int)shared)) != CUDA_SUCCESS)
        return r;
    return d->LaunchKernel((CUfunction)fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                           shared, (CUstream)stream, args, NULL);
}
int rt_driver_sync(RtDriver *d) { return d->CtxSynchronize(); }
int rt_driver_event_create(RtDriver *d, void **ev)
{
    CUevent e = NULL;
    CUresult r = d->EventCreate(&e, CU_EVENT_DEFAULT);
    *ev = e;
    return r;
}
int rt_driver_event_destroy(RtDriver *d, void *ev) { return d->EventDestroy((CUevent)ev); }
int rt_driver_event_record(RtDriver *d, void *ev, void *stream) { return d->EventRecord((CUevent)ev, (CUstream)stream); }
int rt_driver_event_elapsed(RtDriver *d, void *start, void *stop, float *ms)
{
    CUresult r = d->EventSynchronize((CUevent)stop);
    if (r != CUDA_SUCCESS) return r;
    return d->EventElapsedTime(ms, (CUevent)start, (CUevent)stop);
}
