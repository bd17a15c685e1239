/* rt_nvrtc.c: CUDA C -> cubin with NVRTC, through the disk cache.
 *
 * NVRTC is loaded with dlopen on the first compile, never linked: libnvrtc is over
 * 100 MB, and loading it at start-up cost every run of patc about 10 ms, --emit-cuda
 * included, which never needs it. nvrtc.h is included for its types only. NVRTC works
 * without a GPU, so compile-only use needs no driver. A cubin for an exact sm_XY is
 * requested, not PTX, so loading it costs no JIT in the driver and the cache holds what
 * is finally run. */
#define _GNU_SOURCE /* dladdr */
#include "rt_internal.h"
#include "../lang/lang.h" /* PATC_VERSION */

#include <dlfcn.h>
#include <errno.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The toolkit's library directory and NVRTC's soname, as CMake found them. */
#ifndef PATC_NVRTC_DIR
#define PATC_NVRTC_DIR ""
#endif
#ifndef PATC_NVRTC_SONAME
#define PATC_NVRTC_SONAME "libnvrtc.so"
#endif

/* X(field, symbol, return, parameters) */
#define NVRTC_FUNCS(X)                                                                               \
    X(Version, "nvrtcVersion", nvrtcResult, (int *, int *))                                          \
    X(GetErrorString, "nvrtcGetErrorString", const char *, (nvrtcResult))                            \
    X(CreateProgram, "nvrtcCreateProgram", nvrtcResult,                                              \
      (nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *))  \
    X(DestroyProgram, "nvrtcDestroyProgram", nvrtcResult, (nvrtcProgram *))                          \
    X(CompileProgram, "nvrtcCompileProgram", nvrtcResult, (nvrtcProgram, int, const char *const *)) \
    X(GetProgramLogSize, "nvrtcGetProgramLogSize", nvrtcResult, (nvrtcProgram, size_t *))            \
    X(GetProgramLog, "nvrtcGetProgramLog", nvrtcResult, (nvrtcProgram, char *))                      \
    X(GetCUBINSize, "nvrtcGetCUBINSize", nvrtcResult, (nvrtcProgram, size_t *))                      \
    X(GetCUBIN, "nvrtcGetCUBIN", nvrtcResult, (nvrtcProgram, char *))

static struct {
    void *lib; /* set once, never closed: the process keeps NVRTC once it has it */
#define X(f, s, r, p) r(*f) p;
    NVRTC_FUNCS(X)
#undef X
} nv;
static pthread_mutex_t nv_lock = PTHREAD_MUTEX_INITIALIZER;

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = lang_malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* Append "; " and s to buf (size n), truncating. */
static void append(char *buf, size_t n, const char *s)
{
    size_t k = strlen(buf);
    if (k + 1 < n) snprintf(buf + k, n - k, "%s%s", k ? "; " : "", s);
}

/* Look every entry point up in `lib`; false (and the missing name) if one is absent. */
static bool load_symbols(void *lib, const char **missing)
{
#define X(f, s, r, p)                                                                  \
    if (!(nv.f = (r(*) p)dlsym(lib, s))) {                                             \
        *missing = s;                                                                  \
        return false;                                                                  \
    }
    NVRTC_FUNCS(X)
#undef X
    return true;
}

enum { MAX_PATHS = 24, PATH_LEN = 1100 };

/* The files that may hold NVRTC, as full paths, in the order they are tried, existing
 * ones only: the toolkit's library directory found at build time (libpatrt has no
 * rpath), each directory of LD_LIBRARY_PATH, then the usual toolkit directories. Both
 * the load and the cache key (nvrtc_identity) take the first, so that the key names
 * the file that compiles without loading it. */
static int nvrtc_paths(char out[][PATH_LEN], int max)
{
    const char *dirs[MAX_PATHS];
    int nd = 0, n = 0;
    char ld[4096] = "";
    if (*PATC_NVRTC_DIR) dirs[nd++] = PATC_NVRTC_DIR;
    const char *lp = getenv("LD_LIBRARY_PATH");
    if (lp) snprintf(ld, sizeof ld, "%s", lp);
    for (char *save = NULL, *d = strtok_r(ld, ":", &save); d && nd < MAX_PATHS - 2; d = strtok_r(NULL, ":", &save))
        if (*d) dirs[nd++] = d;
    dirs[nd++] = "/usr/local/cuda/lib64";
    dirs[nd++] = "/usr/local/cuda/lib";
    for (int i = 0; i < nd && n < max; i++) {
        struct stat sb;
        snprintf(out[n], PATH_LEN, "%s/%s", dirs[i], PATC_NVRTC_SONAME);
        if (stat(out[n], &sb) == 0 && S_ISREG(sb.st_mode)) n++;
    }
    return n;
}

/* The search: $PATC_NVRTC_PATH alone when it is set (an explicit choice is not second-
 * guessed); else the full paths of nvrtc_paths, then the loader's own search
 * (ld.so.cache) for the soname and for the unversioned name. A failure is not
 * remembered, so a later call retries; a success is kept for the life of the process. */
bool rt_nvrtc_load(char **why)
{
    *why = NULL;
    pthread_mutex_lock(&nv_lock);
    if (nv.lib) {
        pthread_mutex_unlock(&nv_lock);
        return true;
    }
    const char *names[MAX_PATHS + 2];
    static _Thread_local char paths[MAX_PATHS][PATH_LEN];
    int nnames = 0;
    const char *env = getenv("PATC_NVRTC_PATH");
    if (env && *env) names[nnames++] = env;
    else {
        int np = nvrtc_paths(paths, MAX_PATHS);
        for (int i = 0; i < np; i++) names[nnames++] = paths[i];
        names[nnames++] = PATC_NVRTC_SONAME;
        if (strcmp(PATC_NVRTC_SONAME, "libnvrtc.so") != 0) names[nnames++] = "libnvrtc.so";
    }
    char tried[2048] = "";
    for (int i = 0; i < nnames; i++) {
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char *e = dlerror();
            append(tried, sizeof tried, e ? e : names[i]);
            continue;
        }
        const char *missing = NULL;
        if (load_symbols(lib, &missing)) {
            nv.lib = lib;
            pthread_mutex_unlock(&nv_lock);
            return true;
        }
        char buf[1200];
        snprintf(buf, sizeof buf, "%s lacks %s (NVRTC older than CUDA 11.1)", names[i], missing);
        append(tried, sizeof tried, buf);
        dlclose(lib);
    }
    pthread_mutex_unlock(&nv_lock);
    char msg[3072];
    if (env && *env)
        snprintf(msg, sizeof msg,
                 "cannot load NVRTC, the CUDA runtime compiler, from PATC_NVRTC_PATH=%s: %s; "
                 "point PATC_NVRTC_PATH at the toolkit's %s, or unset it to search the usual places",
                 env, tried, PATC_NVRTC_SONAME);
    else
        snprintf(msg, sizeof msg,
                 "cannot load NVRTC, the CUDA runtime compiler (%s), which compiling kernels needs: %s; "
                 "install the CUDA toolkit's NVRTC, add the directory holding %s (e.g. "
                 "/usr/local/cuda/lib64) to LD_LIBRARY_PATH, or set PATC_NVRTC_PATH to the library's "
                 "path (emitting CUDA C needs no NVRTC)",
                 PATC_NVRTC_SONAME, tried, PATC_NVRTC_SONAME);
    *why = dupstr(msg);
    return false;
}

double rt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void rt_nvrtc_version(int *major, int *minor)
{
    char *why = NULL;
    *major = *minor = 0;
    if (!rt_nvrtc_load(&why)) {
        free(why);
        return;
    }
    if (nv.Version(major, minor) != NVRTC_SUCCESS) *major = *minor = 0;
}

/* Which NVRTC compiles, for the cache key: the library file a compile uses (its real
 * path, size, modification time and inode: another NVRTC is another file, and may give
 * another cubin). Found without loading it where its path is known (PATC_NVRTC_PATH, or
 * nvrtc_paths), so that a cache hit does not pay the
 * 5-10 ms of loading 100 MB of NVRTC; otherwise NVRTC is loaded and asked where it
 * came from. False (with *why) when no NVRTC can be found. */
static bool nvrtc_identity(char *out, size_t n, char **why)
{
    char buf[1][PATH_LEN], real[4096];
    const char *path = NULL;
    const char *env = getenv("PATC_NVRTC_PATH");
    Dl_info di;
    struct stat sb;
    if (nv.lib && dladdr((void *)nv.Version, &di) && di.dli_fname) path = di.dli_fname;
    else if (env && *env) path = env;
    else if (nvrtc_paths(buf, 1) == 1) path = buf[0];
    if (!path || stat(path, &sb) != 0) {
        if (!rt_nvrtc_load(why)) return false;
        path = dladdr((void *)nv.Version, &di) && di.dli_fname ? di.dli_fname : NULL;
        if (!path || stat(path, &sb) != 0) { /* cannot tell the file: its version will do */
            int maj, min;
            rt_nvrtc_version(&maj, &min);
            snprintf(out, n, "nvrtc %d.%d", maj, min);
            return true;
        }
    }
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
    snprintf(out, n, "nvrtc %s size %lld mtime %lld.%09ld inode %llu", real, (long long)sb.st_size,
             (long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec, (unsigned long long)sb.st_ino);
    return true;
}

/* The log of a failed compile, prefixed with what failed; never NULL unless OOM. */
static char *program_log(nvrtcProgram p, nvrtcResult r)
{
    size_t n = 0;
    const char *what = nv.GetErrorString(r);
    if (nv.GetProgramLogSize(p, &n) != NVRTC_SUCCESS) n = 0;
    char *log = lang_malloc(n + strlen(what) + 32);
    if (!log) return NULL;
    int k = sprintf(log, "nvrtc: %s\n", what);
    if (n > 0 && nv.GetProgramLog(p, log + k) != NVRTC_SUCCESS) log[k] = 0;
    return log;
}

/* NVRTC loaded and a program of the text made, or false with the reason in *log. */
static bool create_program(const char *src, const char *name, nvrtcProgram *prog, char **log)
{
    if (!rt_nvrtc_load(log)) return false;
    nvrtcResult r = nv.CreateProgram(prog, src, name, 0, NULL, NULL);
    if (r == NVRTC_SUCCESS) return true;
    char buf[128];
    snprintf(buf, sizeof buf, "nvrtc: %s", nv.GetErrorString(r));
    *log = dupstr(buf);
    return false;
}

/* One list for every compile and every key made of it (the disk cache's, the embedded
 * cubins'): a cubin is what these options make of the text. */
int rt_nvrtc_options(int arch, char archopt[48], const char *opts[RT_NVRTC_MAX_OPTIONS])
{
    snprintf(archopt, 48, "--gpu-architecture=sm_%d", arch);
    opts[0] = archopt;
    opts[1] = "-default-device";
    opts[2] = "--std=c++17";
    opts[3] = "-lineinfo";
    return 4;
}

/* cache hit -> its cubin; else NVRTC with
 *   --gpu-architecture=sm_XY -default-device --std=c++17 -lineinfo
 * and the result stored under the key (patc version, NVRTC version, arch, options,
 * source). A damaged entry is rebuilt and overwritten. The key names the NVRTC library
 * file (nvrtc_identity), so a cache hit does not load NVRTC where its path is known. A
 * store that fails warns once (rt_cache_store) and costs only a rebuild next time. */
bool rt_nvrtc_compile(const char *src, const char *name, int arch, const char *cache_dir,
                      void **cubin, size_t *cubin_len, char **log, RtBuildStats *st)
{
    double t0 = rt_now_ms();
    char archopt[48];
    const char *opts[RT_NVRTC_MAX_OPTIONS];
    int nopts = rt_nvrtc_options(arch, archopt, opts);
    char key[65];
    *cubin = NULL;
    *cubin_len = 0;
    *log = NULL;
    memset(st, 0, sizeof *st);
    if (cache_dir) {
        char id[4400];
        if (!nvrtc_identity(id, sizeof id, log)) return false;
        rt_cache_key(PATC_VERSION, id, arch, opts, nopts, src, key);
        RtCacheResult r = rt_cache_load(cache_dir, key, cubin, cubin_len);
        if (r == RT_CACHE_HIT) {
            st->cache_hit = true;
            st->ms = rt_now_ms() - t0;
            return true;
        }
        st->cache_corrupt = r == RT_CACHE_CORRUPT;
    }
    nvrtcProgram prog;
    if (!create_program(src, name, &prog, log)) return false;
    bool ok = false;
    nvrtcResult r = nv.CompileProgram(prog, nopts, opts);
    if (r != NVRTC_SUCCESS) {
        *log = program_log(prog, r);
        goto out;
    }
    size_t n = 0;
    if ((r = nv.GetCUBINSize(prog, &n)) != NVRTC_SUCCESS || n == 0) {
        *log = program_log(prog, r);
        goto out;
    }
    *cubin = lang_malloc(n);
    if (!*cubin) {
        *log = dupstr("out of memory");
        goto out;
    }
    if ((r = nv.GetCUBIN(prog, *cubin)) != NVRTC_SUCCESS) {
        *log = program_log(prog, r);
        free(*cubin);
        *cubin = NULL;
        goto out;
    }
    *cubin_len = n;
    ok = true;
    if (cache_dir) rt_cache_store(cache_dir, key, *cubin, n); /* a failure has warned */
out:
    nv.DestroyProgram(&prog);
    st->ms = rt_now_ms() - t0;
    return ok;
}

/* The text through NVRTC's front end alone (--fdevice-syntax-only, for the virtual
 * architecture compute_<arch>, with rt_nvrtc_compile's other options): every error of
 * the language and its types, and no code generated. The tests' check of texts whose
 * code generation is checked elsewhere: a build that differs from a checked cubin's only
 * in a typedef (PATC_INDEX32), and the examples, which tests/nvcc_warnings.sh compiles to
 * cubins. NVVM and ptxas took 2.24 s of radixsort.rise's compile, the front end 0.09. */
bool rt_nvrtc_front(const char *src, const char *name, int arch, char **log)
{
    char archopt[48];
    const char *opts[RT_NVRTC_MAX_OPTIONS];
    int nopts = rt_nvrtc_options(arch, archopt, opts);
    snprintf(archopt, sizeof archopt, "--gpu-architecture=compute_%d", arch);
    opts[nopts++] = "--fdevice-syntax-only";
    *log = NULL;
    nvrtcProgram prog;
    if (!create_program(src, name, &prog, log)) return false;
    nvrtcResult r = nv.CompileProgram(prog, nopts, opts);
    if (r != NVRTC_SUCCESS) *log = program_log(prog, r);
    nv.DestroyProgram(&prog);
    return r == NVRTC_SUCCESS;
}
