/* rt_ctx.c: contexts (driver, architecture, cache directory, include directories,
 * stream) and the error state every call of patc.h reports through. */
#include "patc.h"
#include "rt_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ARCH 90

/* ---------------------------------------------------------------- errors */

/* The context's last error becomes the formatted message. */
static void set_error(patc_ctx *c, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    c->err.len = 0;
    c->err.oom = false;
    if (c->err.s) c->err.s[0] = 0;
    sb_vprintf(&c->err, fmt, ap);
    /* with no memory for the whole message, its start (an out-of-memory error says
     * so in its first words) */
    c->err_short[0] = 0;
    static const char cut[] = " [message cut short: out of memory]";
    if (c->err.oom && vsnprintf(c->err_short, sizeof c->err_short, fmt, ap2) >= (int)sizeof c->err_short)
        memcpy(c->err_short + sizeof c->err_short - sizeof cut, cut, sizeof cut);
    va_end(ap2);
}

/* A driver call's result: PATC_OK, or PATC_ERR_DRIVER naming the CUresult. */
patc_status rt_drv_check(patc_ctx *c, int r, const char *what)
{
    if (r == 0) return PATC_OK;
    return rt_fail(c, PATC_ERR_DRIVER, "%s: %s", what, rt_driver_error_name(c->drv, r));
}

/* Calls that touch the device first check that there is one and bind its context. */
patc_status rt_need_device(patc_ctx *c)
{
    if (!c->drv) return rt_fail(c, c->drv_status, "%s", c->drv_why ? c->drv_why : "no CUDA device");
    return rt_drv_check(c, rt_driver_bind(c->drv), "cuCtxSetCurrent");
}

const char *patc_status_string(patc_status s)
{
    switch (s) {
    case PATC_OK: return "success";
    case PATC_ERR_INVALID: return "invalid argument";
    case PATC_ERR_NO_MEMORY: return "out of memory";
    case PATC_ERR_IO: return "file error";
    case PATC_ERR_COMPILE: return "program rejected";
    case PATC_ERR_NVRTC: return "NVRTC compile failed";
    case PATC_ERR_NO_DRIVER: return "no NVIDIA driver";
    case PATC_ERR_NO_DEVICE: return "no such CUDA device";
    case PATC_ERR_DRIVER: return "CUDA driver error";
    case PATC_ERR_NOT_FOUND: return "no such kernel";
    case PATC_ERR_SIZE: return "size mismatch";
    case PATC_ERR_LAUNCH_CONFIG: return "bad launch configuration";
    case PATC_ERR_INTERP: return "run-time error in the interpreter";
    }
    return "unknown status";
}

const char *patc_version(void) { return PATC_VERSION; }

/* Record the message of a failed call; returns `s` so callers write `return rt_fail(...)`. */
patc_status rt_fail(patc_ctx *c, patc_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(c, fmt, ap);
    va_end(ap);
    return s;
}

/* Asked of the driver once per context (a context has one device): a scanPipe kernel's
 * launch rule needs it at every launch */
int rt_ctx_sm_count(patc_ctx *c)
{
    int n = 0;
    if (c->sms > 0) return c->sms;
    if (!c->drv || rt_driver_bind(c->drv) != 0 || rt_driver_sm_count(c->drv, &n) != 0) return 0;
    c->sms = n;
    return n;
}

size_t rt_ctx_total_mem(patc_ctx *c)
{
    size_t b = 0;
    if (!c->drv || rt_driver_bind(c->drv) != 0 || rt_driver_total_mem(c->drv, &b) != 0) return 0;
    return b;
}

const char *patc_last_error(const patc_ctx *c)
{
    if (!c) return "";
    return c->err.oom ? c->err_short : sb_str(&c->err);
}

/* ---------------------------------------------------------------- context */

char *rt_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = lang_malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* The driver is optional: its absence is remembered, not returned, so that compiling
 * works on machines without a GPU. PATC_COMPILE_ONLY skips even trying. */
patc_status patc_create(patc_ctx **out, int device, unsigned flags)
{
    if (!out) return PATC_ERR_INVALID;
    *out = NULL;
    lang_fault_env(); /* the out-of-memory tests' switch (PATC_FAULT_ALLOC, docs/internals.md) */
    patc_ctx *c = lang_calloc(1, sizeof *c);
    if (!c) return PATC_ERR_NO_MEMORY;
    c->device = device;
    /* the environment's switch, for running test suites on the 64-bit builds */
    const char *force = getenv("PATC_FORCE_INDEX64");
    if (force && *force && strcmp(force, "0") != 0) flags |= PATC_INDEX64;
    c->flags = flags;
    c->arch = DEFAULT_ARCH;
    if (flags & PATC_COMPILE_ONLY) {
        c->drv_status = PATC_ERR_NO_DRIVER;
        c->drv_why = rt_strdup("context created with PATC_COMPILE_ONLY: no device access");
    } else {
        bool no_device = false;
        c->drv = rt_driver_open(device, &c->drv_why, &no_device);
        if (c->drv) c->arch = rt_driver_arch(c->drv);
        else c->drv_status = no_device ? PATC_ERR_NO_DEVICE : PATC_ERR_NO_DRIVER;
    }
    if (!(flags & PATC_NO_CACHE)) c->cache_dir = rt_cache_default_dir();
    c->stats.arch = c->arch;
    *out = c;
    return PATC_OK;
}

void patc_destroy(patc_ctx *c)
{
    if (!c) return;
    while (c->sorters) patc_sorter_free(c->sorters); /* before the programs and buffers they own */
    while (c->algos) patc_algo_free(c->algos); /* before the programs: they own some */
    while (c->programs) patc_program_free(c->programs);
    while (c->buffers) patc_buffer_free(c->buffers);
    rt_driver_close(c->drv);
    free(c->drv_why);
    free(c->cache_dir);
    for (int i = 0; i < c->ninclude_dirs; i++) free(c->include_dirs[i]);
    free(c->include_dirs);
    sb_free(&c->err);
    free(c);
}

patc_status patc_device_status(patc_ctx *c)
{
    if (!c) return PATC_ERR_INVALID;
    return rt_need_device(c);
}

int patc_get_arch(const patc_ctx *c) { return c ? c->arch : 0; }

patc_status patc_set_arch(patc_ctx *c, int arch)
{
    if (!c) return PATC_ERR_INVALID;
    if (arch < 50 || arch > 1000) return rt_fail(c, PATC_ERR_INVALID, "bad architecture sm_%d", arch);
    c->arch = arch;
    return PATC_OK;
}

patc_status patc_add_include_dir(patc_ctx *c, const char *dir)
{
    if (!c || !dir) return PATC_ERR_INVALID;
    char **v = lang_realloc(c->include_dirs, sizeof *v * (size_t)(c->ninclude_dirs + 1));
    if (!v) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    c->include_dirs = v;
    if (!(v[c->ninclude_dirs] = rt_strdup(dir))) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    c->ninclude_dirs++;
    return PATC_OK;
}

const char *patc_cache_dir(const patc_ctx *c) { return c ? c->cache_dir : NULL; }

void patc_get_compile_stats(const patc_ctx *c, patc_compile_stats *out)
{
    if (c && out) *out = c->stats;
}

void patc_set_stream(patc_ctx *c, void *stream)
{
    if (c) c->stream = stream;
}

int patc_device_sm_count(patc_ctx *c) { return c ? rt_ctx_sm_count(c) : 0; }
