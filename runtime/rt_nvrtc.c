/* rt_nvrtc.c: CUDA C -> cubin with NVRTC, through the disk cache.
 *
 * NVRTC is linked normally (it works without a GPU, so compile-only use needs no
 * driver). A cubin for an exact sm_XY is requested, not PTX, so loading it costs no
 * JIT in the driver and the cache holds what is finally run. */
#include "rt_internal.h"
#include "../lang/lang.h" /* PATC_VERSION */

#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double rt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void rt_nvrtc_version(int *major, int *minor)
{
    if (nvrtcVersion(major, minor) != NVRTC_SUCCESS) *major = *minor = 0;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* The log of a failed compile, prefixed with what failed; never NULL unless OOM. */
static char *program_log(nvrtcProgram p, nvrtcResult r)
{
    size_t n = 0;
    const char *what = nvrtcGetErrorString(r);
    if (nvrtcGetProgramLogSize(p, &n) != NVRTC_SUCCESS) n = 0;
    char *log = malloc(n + strlen(what) + 32);
    if (!log) return NULL;
    int k = sprintf(log, "nvrtc: %s\n", what);
    if (n > 0 && nvrtcGetProgramLog(p, log + k) != NVRTC_SUCCESS) log[k] = 0;
    return log;
}

/* cache hit -> its cubin; else NVRTC with
 *   --gpu-architecture=sm_XY -default-device --std=c++17 -lineinfo
 * and the result stored under the key (patc version, NVRTC version, arch, options,
 * source). A damaged entry is rebuilt and overwritten. */
bool rt_nvrtc_compile(const char *src, const char *name, int arch, const char *cache_dir,
                      void **cubin, size_t *cubin_len, char **log, RtBuildStats *st)
{
    double t0 = rt_now_ms();
    char archopt[48];
    snprintf(archopt, sizeof archopt, "--gpu-architecture=sm_%d", arch);
    const char *opts[] = {archopt, "-default-device", "--std=c++17", "-lineinfo"};
    int nopts = (int)(sizeof opts / sizeof opts[0]);
    char key[65];
    *cubin = NULL;
    *cubin_len = 0;
    *log = NULL;
    memset(st, 0, sizeof *st);
    if (cache_dir) {
        int maj, min;
        rt_nvrtc_version(&maj, &min);
        rt_cache_key(PATC_VERSION, maj, min, arch, opts, nopts, src, key);
        RtCacheResult r = rt_cache_load(cache_dir, key, cubin, cubin_len);
        if (r == RT_CACHE_HIT) {
            st->cache_hit = true;
            st->ms = rt_now_ms() - t0;
            return true;
        }
        st->cache_corrupt = r == RT_CACHE_CORRUPT;
    }
    nvrtcProgram prog;
    nvrtcResult r = nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        char buf[128];
        snprintf(buf, sizeof buf, "nvrtc: %s", nvrtcGetErrorString(r));
        *log = dupstr(buf);
        return false;
    }
    bool ok = false;
    r = nvrtcCompileProgram(prog, nopts, opts);
    if (r != NVRTC_SUCCESS) {
        *log = program_log(prog, r);
        goto out;
    }
    size_t n = 0;
    if ((r = nvrtcGetCUBINSize(prog, &n)) != NVRTC_SUCCESS || n == 0) {
        *log = program_log(prog, r);
        goto out;
    }
    *cubin = malloc(n);
    if (!*cubin) {
        *log = dupstr("out of memory");
        goto out;
    }
    if ((r = nvrtcGetCUBIN(prog, *cubin)) != NVRTC_SUCCESS) {
        *log = program_log(prog, r);
        free(*cubin);
        *cubin = NULL;
        goto out;
    }
    *cubin_len = n;
    ok = true;
    /* A failed store only costs a rebuild next time; compiling still succeeded. */
    if (cache_dir) (void)rt_cache_store(cache_dir, key, *cubin, n);
out:
    nvrtcDestroyProgram(&prog);
    st->ms = rt_now_ms() - t0;
    return ok;
}
