/* fakecuda.c: a stand-in for the CUDA driver (libcuda.so.1) for tests on machines
 * without a GPU.
 *
 * libpatrt dlopens "libcuda.so.1" (runtime/rt_driver.c); a test run with this library's
 * directory first in LD_LIBRARY_PATH gets this one. It runs no kernel: it checks what
 * the runtime hands the driver (launch shapes, shared memory, device memory ranges,
 * handles) the way the real driver would refuse it, and lets a test see every launch
 * (fakecuda_on_launch) and make the n-th call of an entry point fail
 * (fakecuda_fail_at, or FAKECUDA_FAIL=symbol:n in the environment). So libpatrt's host
 * side (argument arrays, scratch buffers, launch checks, error paths, freeing) is
 * tested in CI; whether a kernel computes the right thing is tests/gpu/all.sh's job.
 *
 * With FAKECUDA_EMULATE=LIB.so[:LIB2.so...] in the environment (libraries
 * tests/emu/build.sh made from the kernels' CUDA C), cuLaunchKernel runs the kernel on
 * the CPU (tests/emu).
 *
 * "Device memory" is host memory from posix_memalign, 256-byte aligned as cuMemAlloc's;
 * a CUdeviceptr is its address. Not thread-safe: the tests call it from one thread. */
#include "fakecuda.h"

#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

enum { SM_COUNT = 132, SMEM_OPTIN = 232448, SMEM_DEFAULT = 49152 };

typedef struct Alloc {
    unsigned char *p;
    size_t n;
    struct Alloc *next;
} Alloc;

/* Modules and events are kept on lists while they live, as the driver holds them: one
 * whose unload or destroy was made to fail stays reachable, not a leak to LeakSanitizer. */
typedef struct Module {
    unsigned char *image;      /* a copy of the cubin (ELF) */
    size_t bytes;
    struct CUfunc_st *functions; /* handed out; freed with the module */
    struct Module *next;
} Module;

struct CUfunc_st {
    char name[256];
    int max_dynamic_smem;
    struct CUfunc_st *next;
};

struct CUevent_st {
    long long stamp; /* 0: not recorded */
    struct CUevent_st *next;
};

/* A stream only has to exist: the emulation runs every launch and copy when it is made. */
struct CUstream_st {
    struct CUstream_st *next;
};

static struct {
    bool init;
    Alloc *allocs;
    Module *modules;
    struct CUevent_st *events;
    struct CUstream_st *streams;
    long long live;       /* device allocations not yet freed */
    long long stamp;      /* events: one "microsecond" per record */
    fakecuda_launch_hook hook;
    void *hook_ud;
    char fail_fn[64];     /* the entry point to fail, its call number counted down */
    int fail_left;
    CUresult fail_with;
    bool env_read;
    int calls[32];
    const char *names[32];
    int nnames;
} S;

/* Count a call of fn; true when it is the one chosen to fail. */
static bool failing(const char *fn)
{
    if (!S.env_read) { /* FAKECUDA_FAIL=cuMemAlloc_v2:3 fails the third cuMemAlloc */
        S.env_read = true;
        const char *e = getenv("FAKECUDA_FAIL");
        const char *colon = e ? strchr(e, ':') : NULL;
        char name[sizeof S.fail_fn];
        if (colon && (size_t)(colon - e) < sizeof name) {
            memcpy(name, e, (size_t)(colon - e));
            name[colon - e] = 0;
            fakecuda_fail_at(name, atoi(colon + 1), CUDA_ERROR_UNKNOWN);
        }
    }
    int i = 0;
    while (i < S.nnames && strcmp(S.names[i], fn) != 0) i++;
    if (i == S.nnames && S.nnames < 32) S.names[S.nnames++] = fn;
    if (i < 32) S.calls[i]++;
    if (S.fail_left > 0 && strcmp(S.fail_fn, fn) == 0 && --S.fail_left == 0) return true;
    return false;
}
#define ENTER(fn)                                                     \
    do {                                                              \
        if (failing(fn)) return S.fail_with;                          \
        if (!S.init && strcmp(fn, "cuInit") != 0 && strcmp(fn, "cuGetErrorName") != 0) \
            return CUDA_ERROR_NOT_INITIALIZED;                        \
    } while (0)

/* The live allocation holding [p, p + n), or NULL. */
static Alloc *holding(CUdeviceptr p, size_t n)
{
    for (Alloc *a = S.allocs; a; a = a->next)
        if (p >= (CUdeviceptr)a->p && p - (CUdeviceptr)a->p <= a->n && n <= a->n - (p - (CUdeviceptr)a->p)) return a;
    return NULL;
}

/* ---------------------------------------------------------------- the test's side */

FAKE_EXPORT bool fakecuda_is_fake(void) { return true; }

FAKE_EXPORT void fakecuda_on_launch(fakecuda_launch_hook hook, void *ud)
{
    S.hook = hook;
    S.hook_ud = ud;
}

FAKE_EXPORT void fakecuda_fail_at(const char *fn, int nth, int result)
{
    snprintf(S.fail_fn, sizeof S.fail_fn, "%s", fn);
    S.fail_left = nth;
    S.fail_with = (CUresult)result;
    S.env_read = true;
}

FAKE_EXPORT int fakecuda_calls(const char *fn)
{
    for (int i = 0; i < S.nnames; i++)
        if (strcmp(S.names[i], fn) == 0) return S.calls[i];
    return 0;
}

FAKE_EXPORT long long fakecuda_live_allocations(void) { return S.live; }

FAKE_EXPORT size_t fakecuda_allocation_size(unsigned long long ptr)
{
    Alloc *a = holding((CUdeviceptr)ptr, 0);
    return a && (CUdeviceptr)a->p == ptr ? a->n : 0;
}

/* ---------------------------------------------------------------- the driver API */

FAKE_EXPORT CUresult CUDAAPI cuInit(unsigned flags)
{
    ENTER("cuInit");
    if (flags) return CUDA_ERROR_INVALID_VALUE;
    S.init = true;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuDeviceGetCount(int *n)
{
    ENTER("cuDeviceGetCount");
    *n = 1;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice *d, int ordinal)
{
    ENTER("cuDeviceGet");
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *d = 0;
    return CUDA_SUCCESS;
}

/* an H100 SXM's 80 GB */
FAKE_EXPORT CUresult CUDAAPI cuDeviceTotalMem(size_t *b, CUdevice d)
{
    ENTER("cuDeviceTotalMem_v2");
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    *b = (size_t)81559 << 20;
    return CUDA_SUCCESS;
}

/* an sm_90 device of 132 SMs (an H100 SXM's) */
FAKE_EXPORT CUresult CUDAAPI cuDeviceGetAttribute(int *v, CUdevice_attribute attr, CUdevice d)
{
    ENTER("cuDeviceGetAttribute");
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    switch ((int)attr) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = SM_COUNT; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = SMEM_OPTIN; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}

static int the_context;

FAKE_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    ENTER("cuDevicePrimaryCtxRetain");
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    *c = (CUcontext)&the_context;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice d)
{
    ENTER("cuDevicePrimaryCtxRelease_v2");
    return d == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

FAKE_EXPORT CUresult CUDAAPI cuCtxSetCurrent(CUcontext c)
{
    ENTER("cuCtxSetCurrent");
    return c == NULL || c == (CUcontext)&the_context ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

FAKE_EXPORT CUresult CUDAAPI cuCtxSynchronize(void)
{
    ENTER("cuCtxSynchronize");
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuMemAlloc(CUdeviceptr *p, size_t bytes)
{
    ENTER("cuMemAlloc_v2");
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    Alloc *a = malloc(sizeof *a);
    void *v = NULL;
    /* exactly bytes: under AddressSanitizer (tests/emu) the byte after is a redzone */
    unsigned char *q = posix_memalign(&v, 256, bytes) == 0 ? v : NULL;
    if (!a || !q) {
        free(a);
        free(q);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memset(q, 0xA5, bytes); /* device memory starts with whatever it held */
    *a = (Alloc){q, bytes, S.allocs};
    S.allocs = a;
    S.live++;
    *p = (CUdeviceptr)q;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuMemFree(CUdeviceptr p)
{
    ENTER("cuMemFree_v2");
    for (Alloc **a = &S.allocs; *a; a = &(*a)->next)
        if ((CUdeviceptr)(*a)->p == p) {
            Alloc *d = *a;
            *a = d->next;
            free(d->p);
            free(d);
            S.live--;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n)
{
    ENTER("cuMemcpyHtoD_v2");
    if (!holding(dst, n)) return CUDA_ERROR_INVALID_VALUE;
    memcpy((void *)dst, src, n);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n)
{
    ENTER("cuMemcpyDtoH_v2");
    if (!holding(src, n)) return CUDA_ERROR_INVALID_VALUE;
    memcpy(dst, (const void *)src, n);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuMemsetD8(CUdeviceptr p, unsigned char v, size_t n)
{
    ENTER("cuMemsetD8_v2");
    if (!holding(p, n)) return CUDA_ERROR_INVALID_VALUE;
    memset((void *)p, v, n);
    return CUDA_SUCCESS;
}

/* nothing is ever pending: the same as cuMemsetD8, on a live stream or the null one */
FAKE_EXPORT CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream st)
{
    ENTER("cuMemsetD8Async");
    struct CUstream_st *x = S.streams;
    while (st && x && x != st) x = x->next;
    if (st && !x) return CUDA_ERROR_INVALID_HANDLE;
    if (!holding(p, n)) return CUDA_ERROR_INVALID_VALUE;
    memset((void *)p, v, n);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    ENTER("cuMemcpyDtoD_v2");
    if (!holding(dst, n) || !holding(src, n)) return CUDA_ERROR_INVALID_VALUE;
    memmove((void *)dst, (const void *)src, n);
    return CUDA_SUCCESS;
}

/* The size of an ELF64 image: its section header table comes last in a cubin. */
static size_t elf_size(const unsigned char *im)
{
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, im + 0x28, 8);
    memcpy(&shentsize, im + 0x3A, 2);
    memcpy(&shnum, im + 0x3C, 2);
    return (size_t)(shoff + (uint64_t)shentsize * shnum);
}

FAKE_EXPORT CUresult CUDAAPI cuModuleLoadData(CUmodule *m, const void *image)
{
    ENTER("cuModuleLoadData");
    const unsigned char *im = image;
    if (!im || memcmp(im, "\177ELF", 4) != 0 || im[4] != 2) return CUDA_ERROR_INVALID_IMAGE;
    Module *mod = calloc(1, sizeof *mod);
    size_t n = elf_size(im);
    if (!mod || n < 64 || n > (1u << 30) || !(mod->image = malloc(n))) {
        free(mod);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    memcpy(mod->image, im, n);
    mod->bytes = n;
    mod->next = S.modules;
    S.modules = mod;
    *m = (CUmodule)mod;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule m)
{
    ENTER("cuModuleUnload");
    Module **at = &S.modules;
    while (*at && *at != (Module *)m) at = &(*at)->next;
    if (!*at) return CUDA_ERROR_INVALID_HANDLE;
    Module *mod = *at;
    *at = mod->next;
    while (mod->functions) {
        struct CUfunc_st *f = mod->functions;
        mod->functions = f->next;
        free(f);
    }
    free(mod->image);
    free(mod);
    return CUDA_SUCCESS;
}

/* A function the image names (its symbol's string, NUL-terminated, is in the image). */
FAKE_EXPORT CUresult CUDAAPI cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    ENTER("cuModuleGetFunction");
    Module *mod = (Module *)m;
    size_t len = strlen(name) + 1;
    if (!mod || len > sizeof((*f)->name)) return CUDA_ERROR_INVALID_HANDLE;
    bool found = false;
    for (size_t i = 0; !found && i + len <= mod->bytes; i++) found = memcmp(mod->image + i, name, len) == 0;
    if (!found) return CUDA_ERROR_NOT_FOUND;
    struct CUfunc_st *fn = calloc(1, sizeof *fn); /* valid as long as its module */
    if (!fn) return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(fn->name, name, len);
    fn->next = mod->functions;
    mod->functions = fn;
    fn->max_dynamic_smem = SMEM_DEFAULT;
    *f = fn;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuFuncSetAttribute(CUfunction f, CUfunction_attribute attr, int v)
{
    ENTER("cuFuncSetAttribute");
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (attr != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return CUDA_ERROR_INVALID_VALUE;
    if (v < 0 || v > SMEM_OPTIN) return CUDA_ERROR_INVALID_VALUE;
    f->max_dynamic_smem = v;
    return CUDA_SUCCESS;
}

/* FAKECUDA_EMULATE's kernels run the launch (tests/emu/cuda_emu.h, patc_emu_launch):
 * LIB.so, or several separated by ':' (one per program), asked in turn. A kernel none
 * has is "not found" (the libraries were built from other code). */
static CUresult emulate(const char *name, const unsigned grid[3], const unsigned block[3], unsigned shared, void **args)
{
    typedef int (*run_fn)(const char *, const unsigned *, const unsigned *, unsigned, void **);
    static run_fn run[8];
    static int nrun = -1;
    const char *libs = getenv("FAKECUDA_EMULATE");
    if (!libs || !*libs) return CUDA_SUCCESS;
    if (nrun < 0) {
        nrun = 0;
        for (const char *p = libs; *p && nrun < 8;) {
            const char *e = strchr(p, ':');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            char path[4096];
            if (len < sizeof path) {
                memcpy(path, p, len);
                path[len] = 0;
                void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
                void *f = h ? dlsym(h, "patc_emu_launch") : NULL;
                if (f) memcpy(&run[nrun++], &f, sizeof f);
                else fprintf(stderr, "fakecuda: FAKECUDA_EMULATE: %s: %s\n", path, h ? "no patc_emu_launch" : dlerror());
            }
            p += len + (e != NULL);
        }
    }
    if (!nrun) return CUDA_ERROR_INVALID_IMAGE;
    for (int i = 0; i < nrun; i++) {
        int r = run[i](name, grid, block, shared, args);
        if (r != -1) return r == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_ERROR_NOT_FOUND;
}

/* The launch limits of an sm_90 device: grid x < 2^31, y and z < 2^16; a block of at
 * most 1024 threads (z at most 64); dynamic shared memory up to the function's limit. */
FAKE_EXPORT CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                            unsigned by, unsigned bz, unsigned shared, CUstream stream, void **args,
                                            void **extra)
{
    ENTER("cuLaunchKernel");
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (!gx || !gy || !gz || !bx || !by || !bz || gx >= (1u << 31) || gy >= 65536 || gz >= 65536 || bz > 64 ||
        (unsigned long long)bx * by * bz > 1024 || extra)
        return CUDA_ERROR_INVALID_VALUE;
    if (shared > (unsigned)f->max_dynamic_smem) return CUDA_ERROR_INVALID_VALUE;
    if (S.hook) {
        FakecudaLaunch L = {f->name, {gx, gy, gz}, {bx, by, bz}, shared, stream, args};
        S.hook(&L, S.hook_ud);
    }
    return emulate(f->name, (unsigned[3]){gx, gy, gz}, (unsigned[3]){bx, by, bz}, shared, args);
}

FAKE_EXPORT CUresult CUDAAPI cuStreamCreate(CUstream *st, unsigned flags)
{
    ENTER("cuStreamCreate");
    (void)flags;
    if (!(*st = calloc(1, sizeof **st))) return CUDA_ERROR_OUT_OF_MEMORY;
    (*st)->next = S.streams;
    S.streams = *st;
    return CUDA_SUCCESS;
}

/* the null stream or a live one; nothing is ever pending */
FAKE_EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream st)
{
    ENTER("cuStreamSynchronize");
    struct CUstream_st *x = S.streams;
    while (st && x && x != st) x = x->next;
    return !st || x ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

FAKE_EXPORT CUresult CUDAAPI cuStreamDestroy(CUstream st)
{
    ENTER("cuStreamDestroy_v2");
    struct CUstream_st **at = &S.streams;
    while (*at && *at != st) at = &(*at)->next;
    if (!*at) return CUDA_ERROR_INVALID_HANDLE;
    *at = st->next;
    free(st);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuEventCreate(CUevent *e, unsigned flags)
{
    ENTER("cuEventCreate");
    (void)flags;
    if (!(*e = calloc(1, sizeof **e))) return CUDA_ERROR_OUT_OF_MEMORY;
    (*e)->next = S.events;
    S.events = *e;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuEventDestroy(CUevent e)
{
    ENTER("cuEventDestroy_v2");
    struct CUevent_st **at = &S.events;
    while (*at && *at != e) at = &(*at)->next;
    if (!*at) return CUDA_ERROR_INVALID_HANDLE;
    *at = e->next;
    free(e);
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuEventRecord(CUevent e, CUstream s)
{
    ENTER("cuEventRecord");
    (void)s;
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    e->stamp = ++S.stamp;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuEventSynchronize(CUevent e)
{
    ENTER("cuEventSynchronize");
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* one microsecond per record between the two; exported under both names (cuda.h maps
 * cuEventElapsedTime to the _v2 of CUDA 12.8, and the runtime looks up both) */
FAKE_EXPORT CUresult CUDAAPI cuEventElapsedTime_v1(float *ms, CUevent a, CUevent b) __asm__("cuEventElapsedTime");
FAKE_EXPORT CUresult CUDAAPI cuEventElapsedTime_v1(float *ms, CUevent a, CUevent b)
{
    return cuEventElapsedTime(ms, a, b);
}
FAKE_EXPORT CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
    ENTER("cuEventElapsedTime");
    if (!a || !b) return CUDA_ERROR_INVALID_HANDLE;
    if (!a->stamp || !b->stamp) return CUDA_ERROR_INVALID_HANDLE;
    *ms = (float)(b->stamp - a->stamp) * 1e-3f;
    return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult CUDAAPI cuGetErrorName(CUresult r, const char **s)
{
    ENTER("cuGetErrorName");
    switch (r) {
    case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_INITIALIZED: *s = "CUDA_ERROR_NOT_INITIALIZED"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_DEVICE: *s = "CUDA_ERROR_INVALID_DEVICE"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_IMAGE: *s = "CUDA_ERROR_INVALID_IMAGE"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_CONTEXT: *s = "CUDA_ERROR_INVALID_CONTEXT"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_HANDLE: *s = "CUDA_ERROR_INVALID_HANDLE"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; return CUDA_SUCCESS;
    case CUDA_ERROR_LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; return CUDA_SUCCESS;
    case CUDA_ERROR_UNKNOWN: *s = "CUDA_ERROR_UNKNOWN"; return CUDA_SUCCESS;
    default: *s = NULL; return CUDA_ERROR_INVALID_VALUE;
    }
}

/* NVRTC opens libcuda.so.1 too, when it is there, and asks it for its private tables;
 * it must find none here, as on a machine without the driver. */
FAKE_EXPORT CUresult CUDAAPI cuGetExportTable(const void **table, const CUuuid *id)
{
    (void)id;
    *table = NULL;
    return CUDA_ERROR_NOT_SUPPORTED;
}
