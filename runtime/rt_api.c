/* rt_api.c: the public API of patc.h on top of the front end, codegen, NVRTC and the
 * driver layer.
 *
 * Ownership: a context owns its programs and buffers (kept on lists so that
 * patc_destroy releases whatever the caller left alive); a program owns its arena (the
 * kernel metadata, Nat launch rules included, lives there), its CUDA text, its module
 * and its kernel handles. */
#include "patc.h"
#include "rt_internal.h"
#include "../codegen/codegen.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert((int)PATC_F32 == (int)SK_F32 && (int)PATC_BOOL == (int)SK_BOOL,
               "patc_type mirrors ScalarKind");

#define DEFAULT_ARCH 90

struct patc_ctx {
    int device;
    unsigned flags;
    RtDriver *drv;          /* NULL without a driver or device */
    patc_status drv_status; /* why drv is NULL */
    char *drv_why;
    int arch;
    char *cache_dir;        /* NULL when the cache is off */
    char **include_dirs;
    int ninclude_dirs;
    StrBuf err;
    patc_compile_stats stats;
    patc_program *programs;
    patc_buffer *buffers;
    void *stream;           /* CUstream of launches and timing events; NULL: the default stream */
};

struct patc_kernel {
    patc_program *prog;
    Kernel *k;
    void *fn;      /* CUfunction, NULL without a device */
    int env_n;     /* NatEnv size: 1 + the largest NatVar id of the kernel's nats */
    int64_t *vals;
    bool *has;
    RtDevPtr *scratch;     /* the kernel's scratch buffers (k->scratch), allocated on first launch */
    size_t *scratch_bytes; /* and grown when a launch needs more; zeroed when (re)allocated */
};

struct patc_program {
    patc_ctx *ctx;
    Arena *arena;
    Diag diag;
    Compilation comp;
    char *cuda;
    void *module;
    int arch;       /* the sm_XY its cubin was built for */
    patc_kernel *kernels;
    int nkernels;
    patc_program *prev, *next;
};

struct patc_buffer {
    patc_ctx *ctx;
    RtDevPtr ptr;
    size_t bytes;
    bool wrapped;           /* memory the caller owns (patc_buffer_wrap): never freed here */
    patc_buffer *prev, *next;
};

/* ---------------------------------------------------------------- errors */

/* The context's last error becomes the formatted message. */
static void set_error(patc_ctx *c, const char *fmt, va_list ap)
{
    c->err.len = 0;
    if (c->err.s) c->err.s[0] = 0;
    sb_vprintf(&c->err, fmt, ap);
}

/* Record the message of a failed call; returns `s` so callers write `return fail(...)`. */
static patc_status fail(patc_ctx *c, patc_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static patc_status fail(patc_ctx *c, patc_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(c, fmt, ap);
    va_end(ap);
    return s;
}

/* A driver call's result: PATC_OK, or PATC_ERR_DRIVER naming the CUresult. */
static patc_status drv_check(patc_ctx *c, int r, const char *what)
{
    if (r == 0) return PATC_OK;
    return fail(c, PATC_ERR_DRIVER, "%s: %s", what, rt_driver_error_name(c->drv, r));
}

/* Calls that touch the device first check that there is one and bind its context. */
static patc_status need_device(patc_ctx *c)
{
    if (!c->drv) return fail(c, c->drv_status, "%s", c->drv_why ? c->drv_why : "no CUDA device");
    return drv_check(c, rt_driver_bind(c->drv), "cuCtxSetCurrent");
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
    }
    return "unknown status";
}

const char *patc_version(void) { return PATC_VERSION; }

int rt_fail(patc_ctx *c, int s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(c, fmt, ap);
    va_end(ap);
    return s;
}

bool rt_kernel_roles(const patc_kernel *k, int *len_nat, int *grid_nat)
{
    const Kernel *kk = k->k;
    *len_nat = *grid_nat = -1;
    if (kk->ninputs != 1 || kk->inputs[0]->count->kind != N_VAR || !kk->grid[0]) return false;
    int64_t v;
    bool fixed = nat_is_const(kk->grid[0], &v);
    if (!fixed && kk->grid[0]->kind != N_VAR) return false;
    for (int d = 1; d < 3; d++)
        if (kk->grid[d] && (!nat_is_const(kk->grid[d], &v) || v != 1)) return false;
    for (int i = 0; i < kk->def->nnats; i++) {
        if (kk->def->nats[i] == kk->inputs[0]->count->var) *len_nat = i;
        if (!fixed && kk->def->nats[i] == kk->grid[0]->var) *grid_nat = i;
    }
    if (fixed) return *len_nat >= 0 && kk->def->nnats == 1;
    return *len_nat >= 0 && *grid_nat >= 0 && *len_nat != *grid_nat && kk->def->nnats == 2;
}

int rt_ctx_sm_count(patc_ctx *c)
{
    int n = 0;
    if (!c->drv || rt_driver_bind(c->drv) != 0 || rt_driver_sm_count(c->drv, &n) != 0) return 0;
    return n;
}

const char *patc_last_error(const patc_ctx *c)
{
    return c && c->err.s ? c->err.s : "";
}

/* ---------------------------------------------------------------- context */

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* The driver is optional: its absence is remembered, not returned, so that compiling
 * works on machines without a GPU. PATC_COMPILE_ONLY skips even trying. */
patc_status patc_create(patc_ctx **out, int device, unsigned flags)
{
    if (!out) return PATC_ERR_INVALID;
    *out = NULL;
    patc_ctx *c = calloc(1, sizeof *c);
    if (!c) return PATC_ERR_NO_MEMORY;
    c->device = device;
    c->flags = flags;
    c->arch = DEFAULT_ARCH;
    if (flags & PATC_COMPILE_ONLY) {
        c->drv_status = PATC_ERR_NO_DRIVER;
        c->drv_why = dupstr("context created with PATC_COMPILE_ONLY: no device access");
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
    return need_device(c);
}

int patc_get_arch(const patc_ctx *c) { return c ? c->arch : 0; }

patc_status patc_set_arch(patc_ctx *c, int arch)
{
    if (!c) return PATC_ERR_INVALID;
    if (arch < 50 || arch > 1000) return fail(c, PATC_ERR_INVALID, "bad architecture sm_%d", arch);
    c->arch = arch;
    return PATC_OK;
}

patc_status patc_add_include_dir(patc_ctx *c, const char *dir)
{
    if (!c || !dir) return PATC_ERR_INVALID;
    char **v = realloc(c->include_dirs, sizeof *v * (size_t)(c->ninclude_dirs + 1));
    if (!v) return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    c->include_dirs = v;
    if (!(v[c->ninclude_dirs] = dupstr(dir))) return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    c->ninclude_dirs++;
    return PATC_OK;
}

const char *patc_cache_dir(const patc_ctx *c) { return c ? c->cache_dir : NULL; }

void patc_get_compile_stats(const patc_ctx *c, patc_compile_stats *out)
{
    if (c && out) *out = c->stats;
}

/* ---------------------------------------------------------------- programs */

static int max_var_id(const Nat *x)
{
    if (!x) return -1;
    int m = -1, t;
    switch (x->kind) {
    case N_CST: return -1;
    case N_VAR: return x->var->id;
    case N_SUM:
        for (int i = 0; i < x->sum.n; i++)
            if ((t = max_var_id(x->sum.terms[i])) > m) m = t;
        return m;
    case N_PROD:
        for (int i = 0; i < x->prod.n; i++)
            if ((t = max_var_id(x->prod.factors[i])) > m) m = t;
        return m;
    case N_DIV: case N_MIN: case N_MAX:
        m = max_var_id(x->bin.l);
        return (t = max_var_id(x->bin.r)) > m ? t : m;
    }
    return m;
}

static void unlink_program(patc_program *p)
{
    patc_ctx *c = p->ctx;
    if (p->prev) p->prev->next = p->next;
    else if (c->programs == p) c->programs = p->next;
    if (p->next) p->next->prev = p->prev;
    p->prev = p->next = NULL;
}

void patc_program_free(patc_program *p)
{
    if (!p) return;
    if (p->module && p->ctx->drv && rt_driver_bind(p->ctx->drv) == 0)
        rt_driver_module_unload(p->ctx->drv, p->module);
    unlink_program(p);
    for (int i = 0; i < p->nkernels; i++) {
        patc_kernel *k = &p->kernels[i];
        for (int j = 0; k->scratch && j < k->k->nscratch; j++)
            if (k->scratch[j] && p->ctx->drv && rt_driver_bind(p->ctx->drv) == 0)
                rt_driver_mem_free(p->ctx->drv, k->scratch[j]);
        free(k->scratch);
        free(k->scratch_bytes);
        free(k->vals);
        free(k->has);
    }
    free(p->kernels);
    free(p->cuda);
    if (p->arena) arena_free(p->arena);
    free(p);
}

/* Front end in-process: compile_string with a fresh arena and a Diag that writes into
 * a StrBuf; a rejected program leaves its diagnostics text as the last error. */
static patc_status front_end(patc_ctx *c, patc_program *p, const char *name, const char *text,
                             const patc_define *defs, int ndefs)
{
    double t0 = rt_now_ms();
    if (!(p->arena = arena_new())) return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    StrBuf diagtext = {0};
    diag_init(&p->diag, NULL, &diagtext);
    p->comp.arena = p->arena;
    p->comp.diag = &p->diag;
    p->comp.prog.tail = &p->comp.prog.decls;
    CompileOptions opt;
    memset(&opt, 0, sizeof opt);
    opt.lang.include_dirs = (const char **)c->include_dirs;
    opt.lang.ninclude_dirs = c->ninclude_dirs;
    Define *d = ndefs > 0 ? ANEWN(p->arena, Define, ndefs) : NULL;
    for (int i = 0; i < ndefs; i++) {
        if (!defs[i].name) return fail(c, PATC_ERR_INVALID, "define %d has no name", i);
        d[i].name = arena_strdup(p->arena, defs[i].name);
        d[i].value = defs[i].value;
    }
    opt.defines = d;
    opt.ndefines = ndefs;
    /* The front end keeps pointers into the source (spans): give it a copy we own. */
    size_t len = strlen(text);
    char *own = arena_strndup(p->arena, text, len);
    const char *path = arena_strdup(p->arena, name);
    bool ok = compile_string(&p->comp, &opt, path, own, len);
    p->diag.buf = NULL;
    if (!ok) {
        patc_status s = fail(c, PATC_ERR_COMPILE, "%s",
                             diagtext.s && diagtext.s[0] ? diagtext.s : "patc: error: program rejected\n");
        sb_free(&diagtext);
        return s;
    }
    sb_free(&diagtext);
    p->nkernels = p->comp.nkernels;
    p->kernels = calloc((size_t)(p->nkernels ? p->nkernels : 1), sizeof *p->kernels);
    if (!p->kernels) return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    for (int i = 0; i < p->nkernels; i++) {
        patc_kernel *k = &p->kernels[i];
        k->prog = p;
        k->k = p->comp.kernels[i];
        int m = -1;
        for (int j = 0; j < k->k->def->nnats; j++)
            if (k->k->def->nats[j]->id > m) m = k->k->def->nats[j]->id;
        for (int j = 0; j < 3; j++) {
            int t = max_var_id(k->k->block[j]);
            if (t > m) m = t;
            if ((t = max_var_id(k->k->grid[j])) > m) m = t;
        }
        k->env_n = m + 1;
        k->vals = calloc((size_t)(k->env_n ? k->env_n : 1), sizeof *k->vals);
        k->has = calloc((size_t)(k->env_n ? k->env_n : 1), sizeof *k->has);
        if (!k->vals || !k->has) return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    }
    c->stats.frontend_ms = rt_now_ms() - t0;
    return PATC_OK;
}

/* CUDA C -> cubin (cache or NVRTC) -> module and functions when there is a device. */
static patc_status build(patc_ctx *c, patc_program *p, const char *name)
{
    void *cubin = NULL;
    size_t n = 0;
    char *log = NULL;
    RtBuildStats st;
    c->stats.arch = p->arch = c->arch;
    c->stats.load_ms = 0;
    if (!rt_nvrtc_compile(p->cuda, name, c->arch, c->cache_dir, &cubin, &n, &log, &st)) {
        patc_status s = fail(c, PATC_ERR_NVRTC, "%s", log ? log : "nvrtc: compile failed");
        free(log);
        return s;
    }
    c->stats.cache_hit = st.cache_hit;
    c->stats.cache_corrupt = st.cache_corrupt;
    c->stats.compile_ms = st.ms;
    patc_status s = PATC_OK;
    /* A cubin for another arch (patc_set_arch) is a compile-only cross-check: loading it
     * would fail, so its kernels stay unloaded and launching them says why. */
    if (c->drv && c->arch == rt_driver_arch(c->drv)) {
        double t0 = rt_now_ms();
        if ((s = need_device(c)) == PATC_OK)
            s = drv_check(c, rt_driver_module_load(c->drv, cubin, &p->module), "cuModuleLoadData");
        for (int i = 0; s == PATC_OK && i < p->nkernels; i++) {
            int r = rt_driver_get_function(c->drv, p->module, p->kernels[i].k->name, &p->kernels[i].fn);
            if (r) s = fail(c, PATC_ERR_DRIVER, "cuModuleGetFunction(%s): %s", p->kernels[i].k->name,
                            rt_driver_error_name(c->drv, r));
        }
        c->stats.load_ms = rt_now_ms() - t0;
    }
    free(cubin);
    return s;
}

static patc_program *new_program(patc_ctx *c)
{
    patc_program *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->ctx = c;
    p->next = c->programs;
    if (c->programs) c->programs->prev = p;
    c->programs = p;
    return p;
}

/* from_string = front end + cu_emit_module + build. */
static patc_status program_make(patc_ctx *c, const char *name, const char *text, const char *cuda,
                                const patc_define *defs, int ndefs, patc_program **out)
{
    patc_program *p = new_program(c);
    if (!p) return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    patc_status s = front_end(c, p, name, text, defs, ndefs);
    if (s == PATC_OK) {
        if (cuda) {
            p->cuda = dupstr(cuda);
        } else {
            StrBuf cu = {0};
            cu_emit_module(p->arena, &cu, p->comp.kernels, p->comp.nkernels);
            p->cuda = cu.s ? sb_take(&cu) : dupstr("");
        }
        s = p->cuda ? build(c, p, name) : fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    }
    if (s != PATC_OK) {
        patc_program_free(p);
        return s;
    }
    *out = p;
    return PATC_OK;
}

patc_status patc_program_from_string(patc_ctx *c, const char *name, const char *text,
                                     const patc_define *defs, int ndefs, patc_program **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out || !text || ndefs < 0 || (ndefs > 0 && !defs))
        return fail(c, PATC_ERR_INVALID, "patc_program_from_string: bad argument");
    *out = NULL;
    return program_make(c, name ? name : "<string>", text, NULL, defs, ndefs, out);
}

static patc_status read_text(patc_ctx *c, const char *path, char **text)
{
    size_t len;
    *text = lang_read_file(path, &len);
    if (!*text) return fail(c, PATC_ERR_IO, "patc: error: cannot read %s: %s\n", path, lang_read_error(errno));
    if (strlen(*text) != len) {
        free(*text);
        *text = NULL;
        return fail(c, PATC_ERR_IO, "patc: error: %s contains a NUL byte\n", path);
    }
    return PATC_OK;
}

patc_status patc_program_from_file(patc_ctx *c, const char *path, const patc_define *defs, int ndefs,
                                   patc_program **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out || !path || ndefs < 0 || (ndefs > 0 && !defs))
        return fail(c, PATC_ERR_INVALID, "patc_program_from_file: bad argument");
    *out = NULL;
    char *text;
    patc_status s = read_text(c, path, &text);
    if (s != PATC_OK) return s;
    s = program_make(c, path, text, NULL, defs, ndefs, out);
    free(text);
    return s;
}

/* The .cu argument is a file when one of that name exists, else the CUDA text. */
patc_status patc_program_from_cuda(patc_ctx *c, const char *rise_path, const char *cu_path_or_text,
                                   const patc_define *defs, int ndefs, patc_program **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out || !rise_path || !cu_path_or_text || ndefs < 0 || (ndefs > 0 && !defs))
        return fail(c, PATC_ERR_INVALID, "patc_program_from_cuda: bad argument");
    *out = NULL;
    char *rise, *cu = NULL;
    patc_status s = read_text(c, rise_path, &rise);
    if (s != PATC_OK) return s;
    if (!strchr(cu_path_or_text, '\n') && access(cu_path_or_text, R_OK) == 0)
        s = read_text(c, cu_path_or_text, &cu);
    else if (!strchr(cu_path_or_text, '\n'))
        s = fail(c, PATC_ERR_IO, "patc: error: cannot read %s: %s\n", cu_path_or_text, strerror(errno));
    if (s == PATC_OK) s = program_make(c, rise_path, rise, cu ? cu : cu_path_or_text, defs, ndefs, out);
    free(rise);
    free(cu);
    return s;
}

const char *patc_program_cuda(const patc_program *p) { return p ? p->cuda : NULL; }
int patc_program_num_kernels(const patc_program *p) { return p ? p->nkernels : 0; }
const char *patc_program_kernel_name(const patc_program *p, int i)
{
    return p && i >= 0 && i < p->nkernels ? p->kernels[i].k->name : NULL;
}

/* ---------------------------------------------------------------- kernels */

patc_status patc_get_kernel(patc_program *p, const char *name, patc_kernel **k)
{
    if (!p) return PATC_ERR_INVALID;
    if (!name || !k) return fail(p->ctx, PATC_ERR_INVALID, "patc_get_kernel: bad argument");
    for (int i = 0; i < p->nkernels; i++)
        if (strcmp(p->kernels[i].k->name, name) == 0) {
            *k = &p->kernels[i];
            return PATC_OK;
        }
    StrBuf names = {0};
    for (int i = 0; i < p->nkernels; i++) sb_printf(&names, "%s%s", i ? ", " : "", p->kernels[i].k->name);
    patc_status s = fail(p->ctx, PATC_ERR_NOT_FOUND, "no kernel named '%s' (the program has: %s)", name,
                         names.s ? names.s : "none");
    sb_free(&names);
    return s;
}

const char *patc_kernel_name(const patc_kernel *k) { return k ? k->k->name : NULL; }
int patc_kernel_num_inputs(const patc_kernel *k) { return k ? k->k->ninputs : 0; }
int patc_kernel_num_nats(const patc_kernel *k) { return k ? k->k->def->nnats : 0; }
const char *patc_kernel_nat_name(const patc_kernel *k, int i)
{
    return k && i >= 0 && i < k->k->def->nnats ? k->k->def->nats[i]->name : NULL;
}

const char *patc_type_name(patc_type t)
{
    return (unsigned)t < SK_COUNT ? scalar_info[t].name : "?";
}
size_t patc_type_size(patc_type t)
{
    return (unsigned)t < SK_COUNT ? (size_t)scalar_info[t].size : 0;
}

/* Evaluate a launch rule under the bound nats; an unbound variable or a divisor <= 0
 * is reported with the rule printed. */
static patc_status eval(patc_kernel *k, const Nat *x, const char *what, int64_t *out)
{
    if (!x) {
        *out = 0;
        return PATC_OK;
    }
    NatEnv env = {k->vals, k->has, k->env_n};
    if (nat_eval(x, &env, out)) return PATC_OK;
    StrBuf b = {0};
    nat_print(&b, x);
    patc_status s = fail(k->prog->ctx, PATC_ERR_SIZE,
                         "kernel %s: cannot evaluate %s = %s for the given nat values", k->k->name, what,
                         b.s ? b.s : "?");
    sb_free(&b);
    return s;
}

/* k->def->nats[i] gets nat_values[i]; each value must respect the variable's bounds
 * (lb <= v < ub) and fit an int, the C type of nat parameters. */
static patc_status bind_nats(patc_kernel *k, const long long *nats)
{
    patc_ctx *c = k->prog->ctx;
    KernelDef *d = k->k->def;
    if (d->nnats > 0 && !nats) return fail(c, PATC_ERR_INVALID, "kernel %s has %d nat parameters but none were given",
                                           k->k->name, d->nnats);
    memset(k->has, 0, sizeof *k->has * (size_t)k->env_n);
    for (int i = 0; i < d->nnats; i++) {
        NatVar *v = d->nats[i];
        if (nats[i] < v->lb || nats[i] > INT_MAX)
            return fail(c, PATC_ERR_SIZE, "kernel %s: nat %s = %lld is out of range [%lld, %d]", k->k->name,
                        v->name, nats[i], (long long)v->lb, INT_MAX);
        k->vals[v->id] = nats[i];
        k->has[v->id] = true;
    }
    for (int i = 0; i < d->nnats; i++) {
        NatVar *v = d->nats[i];
        int64_t ub;
        if (v->ub && eval(k, v->ub, "an upper bound", &ub) == PATC_OK && nats[i] >= ub)
            return fail(c, PATC_ERR_SIZE, "kernel %s: nat %s = %lld must be below %lld", k->k->name, v->name,
                        nats[i], (long long)ub);
    }
    return PATC_OK;
}

static patc_status buffer_info(patc_kernel *k, const Buffer *b, const char *what, patc_type *type,
                               long long *count, size_t *bytes)
{
    int64_t n;
    patc_status s = eval(k, b->count, what, &n);
    if (s != PATC_OK) return s;
    if (n < 0) return fail(k->prog->ctx, PATC_ERR_SIZE, "kernel %s: %s has %lld elements", k->k->name, what,
                           (long long)n);
    if (type) *type = (patc_type)b->sk;
    if (count) *count = n;
    if (bytes) *bytes = (size_t)n * (size_t)(b->flagged ? 8 : scalar_info[b->sk].size); /* a flagged word is 64 bits */
    return PATC_OK;
}

patc_status patc_kernel_input_info(patc_kernel *k, int i, const long long *nats, patc_type *type,
                                   long long *count, size_t *bytes)
{
    if (!k) return PATC_ERR_INVALID;
    if (i < 0 || i >= k->k->ninputs)
        return fail(k->prog->ctx, PATC_ERR_INVALID, "kernel %s has no data parameter %d", k->k->name, i);
    patc_status s = bind_nats(k, nats);
    return s != PATC_OK ? s : buffer_info(k, k->k->inputs[i], "an input's size", type, count, bytes);
}

patc_status patc_kernel_output_info(patc_kernel *k, const long long *nats, patc_type *type, long long *count,
                                    size_t *bytes)
{
    if (!k) return PATC_ERR_INVALID;
    patc_status s = bind_nats(k, nats);
    return s != PATC_OK ? s : buffer_info(k, k->k->out, "the output size", type, count, bytes);
}

/* grid, block and dynamic shared memory from the kernel's rules (nats already bound). */
static patc_status derive(patc_kernel *k, patc_launch_config *o)
{
    static const char *const bn[3] = {"block.x", "block.y", "block.z"};
    static const char *const gn[3] = {"grid.x", "grid.y", "grid.z"};
    patc_ctx *c = k->prog->ctx;
    int64_t v;
    patc_status s;
    for (int i = 0; i < 3; i++) {
        if (!k->k->block[i]) v = 1;
        else if ((s = eval(k, k->k->block[i], bn[i], &v)) != PATC_OK) return s;
        if (v < 1 || v > 1024) return fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s: %s = %lld", k->k->name, bn[i], (long long)v);
        o->block[i] = (unsigned)v;
        if (!k->k->grid[i]) v = 1;
        else if ((s = eval(k, k->k->grid[i], gn[i], &v)) != PATC_OK) return s;
        if (v < 0 || v > INT_MAX) return fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s: %s = %lld", k->k->name, gn[i], (long long)v);
        o->grid[i] = (unsigned)v;
    }
    if ((s = eval(k, k->k->shared_bytes, "the shared memory size", &v)) != PATC_OK) return s;
    if (v < 0 || v > INT_MAX) return fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s: shared memory %lld bytes", k->k->name, (long long)v);
    o->shared_bytes = v;
    return PATC_OK;
}

patc_status patc_kernel_launch_dims(patc_kernel *k, const long long *nats, patc_launch_config *out)
{
    if (!k) return PATC_ERR_INVALID;
    if (!out) return fail(k->prog->ctx, PATC_ERR_INVALID, "patc_kernel_launch_dims: no output");
    patc_status s = bind_nats(k, nats);
    return s != PATC_OK ? s : derive(k, out);
}

/* ---------------------------------------------------------------- buffers */

patc_status patc_buffer_alloc(patc_ctx *c, size_t bytes, patc_buffer **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out) return fail(c, PATC_ERR_INVALID, "patc_buffer_alloc: no output");
    *out = NULL;
    patc_status s = need_device(c);
    if (s != PATC_OK) return s;
    patc_buffer *b = calloc(1, sizeof *b);
    if (!b) return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    int r = rt_driver_mem_alloc(c->drv, &b->ptr, bytes);
    if (r) {
        free(b);
        return fail(c, PATC_ERR_DRIVER, "cuMemAlloc(%zu bytes): %s", bytes, rt_driver_error_name(c->drv, r));
    }
    b->ctx = c;
    b->bytes = bytes;
    b->next = c->buffers;
    if (c->buffers) c->buffers->prev = b;
    c->buffers = b;
    *out = b;
    return PATC_OK;
}

patc_status patc_buffer_upload(patc_buffer *b, const void *host, size_t bytes)
{
    if (!b) return PATC_ERR_INVALID;
    if (!host && bytes) return fail(b->ctx, PATC_ERR_INVALID, "patc_buffer_upload: no host data");
    if (bytes > b->bytes)
        return fail(b->ctx, PATC_ERR_SIZE, "upload of %zu bytes into a buffer of %zu", bytes, b->bytes);
    patc_status s = need_device(b->ctx);
    return s != PATC_OK ? s : drv_check(b->ctx, rt_driver_htod(b->ctx->drv, b->ptr, host, bytes), "cuMemcpyHtoD");
}

patc_status patc_buffer_download(patc_buffer *b, void *host, size_t bytes)
{
    if (!b) return PATC_ERR_INVALID;
    if (!host && bytes) return fail(b->ctx, PATC_ERR_INVALID, "patc_buffer_download: no host memory");
    if (bytes > b->bytes)
        return fail(b->ctx, PATC_ERR_SIZE, "download of %zu bytes from a buffer of %zu", bytes, b->bytes);
    patc_status s = need_device(b->ctx);
    /* cuMemcpyDtoH waits for the legacy default stream only: work enqueued on a stream
     * of patc_set_stream (patc_reducer_enqueue) must be waited for first */
    if (s == PATC_OK && b->ctx->stream) s = drv_check(b->ctx, rt_driver_sync(b->ctx->drv), "kernel execution");
    return s != PATC_OK ? s : drv_check(b->ctx, rt_driver_dtoh(b->ctx->drv, host, b->ptr, bytes), "cuMemcpyDtoH");
}

size_t patc_buffer_size(const patc_buffer *b) { return b ? b->bytes : 0; }

patc_status patc_buffer_wrap(patc_ctx *c, unsigned long long device_ptr, size_t bytes, patc_buffer **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out || !device_ptr) return fail(c, PATC_ERR_INVALID, "patc_buffer_wrap: no pointer or no output");
    *out = NULL;
    patc_status s = need_device(c);
    if (s != PATC_OK) return s;
    patc_buffer *b = calloc(1, sizeof *b);
    if (!b) return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    b->ctx = c;
    b->ptr = device_ptr;
    b->bytes = bytes;
    b->wrapped = true;
    b->next = c->buffers;
    if (c->buffers) c->buffers->prev = b;
    c->buffers = b;
    *out = b;
    return PATC_OK;
}

void patc_set_stream(patc_ctx *c, void *stream)
{
    if (c) c->stream = stream;
}

patc_status patc_buffer_zero(patc_buffer *b)
{
    if (!b) return PATC_ERR_INVALID;
    patc_status s = need_device(b->ctx);
    return s != PATC_OK ? s : drv_check(b->ctx, rt_driver_memset0(b->ctx->drv, b->ptr, b->bytes), "cuMemsetD8");
}

int patc_device_sm_count(patc_ctx *c) { return c ? rt_ctx_sm_count(c) : 0; }

void patc_buffer_free(patc_buffer *b)
{
    if (!b) return;
    patc_ctx *c = b->ctx;
    if (!b->wrapped && c->drv && rt_driver_bind(c->drv) == 0) rt_driver_mem_free(c->drv, b->ptr);
    if (b->prev) b->prev->next = b->next;
    else c->buffers = b->next;
    if (b->next) b->next->prev = b->prev;
    free(b);
}

/* ---------------------------------------------------------------- launches */

/* A launch, checked and ready: the configuration and the kernel's argument array. */
typedef struct Launch {
    patc_launch_config cfg;
    bool empty;     /* a zero grid: nothing to run */
    void **args;
    RtDevPtr *ptrs;
    int *natv;
} Launch;

static void launch_free(Launch *L)
{
    free(L->args);
    free(L->ptrs);
    free(L->natv);
}

/* Overrides: grid freely; block only when the code does not assume its block size;
 * shared memory only upwards (the kernel's buffers need what the rule says). */
static patc_status apply_override(patc_kernel *k, const patc_launch_config *o, patc_launch_config *L)
{
    patc_ctx *c = k->prog->ctx;
    if (o->block[0]) {
        unsigned b[3] = {o->block[0], o->block[1] ? o->block[1] : 1, o->block[2] ? o->block[2] : 1};
        if (k->k->block_fixed && (b[0] != L->block[0] || b[1] != L->block[1] || b[2] != L->block[2]))
            return fail(c, PATC_ERR_LAUNCH_CONFIG,
                        "kernel %s assumes exactly %ux%ux%u threads per block (its code is specialised "
                        "for that block size); a block of %ux%ux%u was requested",
                        k->k->name, L->block[0], L->block[1], L->block[2], b[0], b[1], b[2]);
        if ((unsigned long long)b[0] * b[1] * b[2] > 1024)
            return fail(c, PATC_ERR_LAUNCH_CONFIG, "a block of %ux%ux%u has more than 1024 threads", b[0], b[1], b[2]);
        memcpy(L->block, b, sizeof b);
    }
    if (o->grid[0]) {
        L->grid[0] = o->grid[0];
        L->grid[1] = o->grid[1] ? o->grid[1] : 1;
        L->grid[2] = o->grid[2] ? o->grid[2] : 1;
    }
    if (o->shared_bytes > 0) {
        if (o->shared_bytes < L->shared_bytes)
            return fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s needs %lld bytes of shared memory; %lld were requested",
                        k->k->name, L->shared_bytes, o->shared_bytes);
        L->shared_bytes = o->shared_bytes;
    }
    return PATC_OK;
}

static patc_status check_buffer(patc_kernel *k, const Buffer *b, const patc_buffer *pb, const char *what)
{
    size_t need = 0;
    patc_status s = buffer_info(k, b, what, NULL, NULL, &need);
    if (s != PATC_OK) return s;
    if (!pb) return fail(k->prog->ctx, PATC_ERR_INVALID, "kernel %s: no buffer given for %s", k->k->name, what);
    if (pb->ctx != k->prog->ctx)
        return fail(k->prog->ctx, PATC_ERR_INVALID, "kernel %s: %s belongs to another context", k->k->name, what);
    if (pb->bytes < need)
        return fail(k->prog->ctx, PATC_ERR_SIZE, "kernel %s: %s needs %zu bytes, the buffer has %zu", k->k->name,
                    what, need, pb->bytes);
    return PATC_OK;
}

/* Scratch buffers (the partials and ticket of lastBlock): one set per kernel handle,
 * grown to what these nats need. A fresh one is zeroed; the kernel leaves its ticket
 * at zero and its flagged partials unflagged, so later launches reuse them without a
 * memset. */
static patc_status ensure_scratch(patc_kernel *k)
{
    patc_ctx *c = k->prog->ctx;
    int ns = k->k->nscratch;
    if (!ns) return PATC_OK;
    if (!k->scratch) {
        k->scratch = calloc((size_t)ns, sizeof *k->scratch);
        k->scratch_bytes = calloc((size_t)ns, sizeof *k->scratch_bytes);
        if (!k->scratch || !k->scratch_bytes) return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    }
    for (int i = 0; i < ns; i++) {
        size_t need = 0;
        patc_status s = buffer_info(k, k->k->scratch[i], "a scratch buffer", NULL, NULL, &need);
        if (s != PATC_OK) return s;
        if (need <= k->scratch_bytes[i] && k->scratch[i]) continue;
        if (k->scratch[i]) rt_driver_mem_free(c->drv, k->scratch[i]);
        k->scratch[i] = 0;
        k->scratch_bytes[i] = 0;
        if ((s = drv_check(c, rt_driver_mem_alloc(c->drv, &k->scratch[i], need), "cuMemAlloc (scratch)")) != PATC_OK ||
            (s = drv_check(c, rt_driver_memset0(c->drv, k->scratch[i], need), "cuMemsetD8 (scratch)")) != PATC_OK ||
            /* a stream set with patc_set_stream may not wait for the null stream's memset */
            (s = drv_check(c, rt_driver_sync(c->drv), "cuMemsetD8 (scratch)")) != PATC_OK)
            return s;
        k->scratch_bytes[i] = need;
    }
    return PATC_OK;
}

/* Check everything and build the argument array (out, in0.., scratch0.., nat0..). */
static patc_status prepare(patc_kernel *k, const long long *nats, patc_buffer *const *inputs, patc_buffer *output,
                           const patc_launch_config *cfg, Launch *L)
{
    patc_ctx *c = k->prog->ctx;
    memset(L, 0, sizeof *L);
    patc_status s = need_device(c);
    if (s != PATC_OK) return s;
    if (!k->fn)
        return fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s was compiled for sm_%d, the device is sm_%d: not loaded",
                    k->k->name, k->prog->arch, rt_driver_arch(c->drv));
    if ((s = bind_nats(k, nats)) != PATC_OK || (s = derive(k, &L->cfg)) != PATC_OK) return s;
    if (cfg && (s = apply_override(k, cfg, &L->cfg)) != PATC_OK) return s;
    int ni = k->k->ninputs, nn = k->k->def->nnats;
    if (ni > 0 && !inputs) return fail(c, PATC_ERR_INVALID, "kernel %s takes %d inputs; none were given", k->k->name, ni);
    if ((s = check_buffer(k, k->k->out, output, "the output")) != PATC_OK) return s;
    for (int i = 0; i < ni; i++) {
        char what[48];
        snprintf(what, sizeof what, "input %d", i);
        if ((s = check_buffer(k, k->k->inputs[i], inputs[i], what)) != PATC_OK) return s;
    }
    int ns = k->k->nscratch;
    if ((s = ensure_scratch(k)) != PATC_OK) return s;
    L->args = calloc((size_t)(1 + ni + ns + nn), sizeof *L->args);
    L->ptrs = calloc((size_t)(1 + ni + ns), sizeof *L->ptrs);
    L->natv = calloc((size_t)(nn ? nn : 1), sizeof *L->natv);
    if (!L->args || !L->ptrs || !L->natv) {
        launch_free(L);
        return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    }
    L->ptrs[0] = output->ptr;
    L->args[0] = &L->ptrs[0];
    for (int i = 0; i < ni; i++) {
        L->ptrs[1 + i] = inputs[i]->ptr;
        L->args[1 + i] = &L->ptrs[1 + i];
    }
    for (int i = 0; i < ns; i++) {
        L->ptrs[1 + ni + i] = k->scratch[i];
        L->args[1 + ni + i] = &L->ptrs[1 + ni + i];
    }
    for (int i = 0; i < nn; i++) {
        L->natv[i] = (int)nats[i];
        L->args[1 + ni + ns + i] = &L->natv[i];
    }
    L->empty = !L->cfg.grid[0] || !L->cfg.grid[1] || !L->cfg.grid[2];
    return PATC_OK;
}

static patc_status fire(patc_kernel *k, Launch *L)
{
    if (L->empty) return PATC_OK;
    patc_ctx *c = k->prog->ctx;
    int r = rt_driver_launch(c->drv, k->fn, L->cfg.grid, L->cfg.block, (unsigned)L->cfg.shared_bytes, c->stream, L->args);
    if (r)
        return fail(c, PATC_ERR_DRIVER, "launching %s (grid %ux%ux%u, block %ux%ux%u, %lld B shared): %s", k->k->name,
                    L->cfg.grid[0], L->cfg.grid[1], L->cfg.grid[2], L->cfg.block[0], L->cfg.block[1],
                    L->cfg.block[2], L->cfg.shared_bytes, rt_driver_error_name(c->drv, r));
    return PATC_OK;
}

patc_status patc_launch(patc_kernel *k, const long long *nats, patc_buffer *const *inputs, patc_buffer *output,
                        const patc_launch_config *cfg)
{
    if (!k) return PATC_ERR_INVALID;
    Launch L;
    patc_status s = prepare(k, nats, inputs, output, cfg, &L);
    if (s == PATC_OK && (s = fire(k, &L)) == PATC_OK)
        s = drv_check(k->prog->ctx, rt_driver_sync(k->prog->ctx->drv), "kernel execution");
    launch_free(&L);
    return s;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* A timer: one event pair, reused for every rep (each rep waits on its stop event). */
typedef struct Timer {
    void *start, *stop;
    float *ms;
} Timer;

static patc_status timer_open(patc_ctx *c, Timer *t, int reps)
{
    memset(t, 0, sizeof *t);
    if (!(t->ms = calloc((size_t)reps, sizeof *t->ms))) return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    patc_status s = drv_check(c, rt_driver_event_create(c->drv, &t->start), "cuEventCreate");
    if (s == PATC_OK) s = drv_check(c, rt_driver_event_create(c->drv, &t->stop), "cuEventCreate");
    return s;
}

static void timer_close(patc_ctx *c, Timer *t)
{
    if (t->start) rt_driver_event_destroy(c->drv, t->start);
    if (t->stop) rt_driver_event_destroy(c->drv, t->stop);
    free(t->ms);
}

static float median(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

patc_status patc_time_launch(patc_kernel *k, const long long *nats, patc_buffer *const *inputs, patc_buffer *output,
                             const patc_launch_config *cfg, int warmup, int reps, float *median_ms)
{
    if (!k) return PATC_ERR_INVALID;
    patc_ctx *c = k->prog->ctx;
    if (warmup < 0 || reps < 1 || !median_ms) return fail(c, PATC_ERR_INVALID, "patc_time_launch: bad warmup/reps/result");
    Launch L;
    Timer t;
    patc_status s = prepare(k, nats, inputs, output, cfg, &L);
    if (s != PATC_OK) return s;
    if ((s = timer_open(c, &t, reps)) == PATC_OK) {
        for (int i = 0; s == PATC_OK && i < warmup; i++) s = fire(k, &L);
        for (int i = 0; s == PATC_OK && i < reps; i++) {
            if ((s = drv_check(c, rt_driver_event_record(c->drv, t.start, c->stream), "cuEventRecord")) != PATC_OK) break;
            if ((s = fire(k, &L)) != PATC_OK) break;
            if ((s = drv_check(c, rt_driver_event_record(c->drv, t.stop, c->stream), "cuEventRecord")) != PATC_OK) break;
            s = drv_check(c, rt_driver_event_elapsed(c->drv, t.start, t.stop, &t.ms[i]), "kernel execution");
        }
        if (s == PATC_OK) *median_ms = median(t.ms, reps);
    }
    timer_close(c, &t);
    launch_free(&L);
    return s;
}

/* ---------------------------------------------------------------- multi-launch reduction */

/* The passes of one reduction, checked and ready to fire: pass i reads src(i) and
 * writes tmp[i % 2]; the sizes only depend on n, so they are planned once and a timed
 * run does nothing on the host but the launches. */
typedef struct Chain {
    long long *nats;  /* a copy of the caller's, the length nat rewritten each pass */
    int len_nat;      /* index of the length nat among the kernel's nats */
    size_t elem;      /* bytes of one element */
    patc_buffer *tmp[2];
    Launch *pass;
    int npass;
    patc_buffer *last; /* where the last pass writes */
} Chain;

static void chain_close(Chain *ch)
{
    for (int i = 0; i < ch->npass; i++) launch_free(&ch->pass[i]);
    free(ch->pass);
    patc_buffer_free(ch->tmp[0]);
    patc_buffer_free(ch->tmp[1]);
    free(ch->nats);
}

/* Requires: one data parameter whose count is a single nat variable of the kernel, an
 * output of the same element type, and an output count that shrinks each pass. The
 * last pass writes to `final` when it is given, else to a ping-pong buffer. */
static patc_status chain_open(patc_kernel *k, const long long *nats, patc_buffer *input, long long n,
                              patc_buffer *final, Chain *ch)
{
    patc_ctx *c = k->prog->ctx;
    memset(ch, 0, sizeof *ch);
    ch->len_nat = -1;
    if (!input || n < 1) return fail(c, PATC_ERR_INVALID, "patc_reduce_to_one: need an input of at least one element");
    if (k->k->ninputs != 1 || k->k->inputs[0]->count->kind != N_VAR)
        return fail(c, PATC_ERR_INVALID, "kernel %s is not a reduction pass: it must take one array whose length is a nat parameter",
                    k->k->name);
    for (int i = 0; i < k->k->def->nnats; i++)
        if (k->k->def->nats[i] == k->k->inputs[0]->count->var) ch->len_nat = i;
    if (ch->len_nat < 0)
        return fail(c, PATC_ERR_INVALID, "kernel %s: the input length %s is fixed (-D); a reduction needs it free",
                    k->k->name, k->k->inputs[0]->count->var->name);
    if (k->k->out->sk != k->k->inputs[0]->sk)
        return fail(c, PATC_ERR_INVALID, "kernel %s: output type %s differs from input type %s", k->k->name,
                    scalar_info[k->k->out->sk].name, scalar_info[k->k->inputs[0]->sk].name);
    ch->elem = (size_t)scalar_info[k->k->out->sk].size;
    if (input->bytes < (size_t)n * ch->elem)
        return fail(c, PATC_ERR_SIZE, "patc_reduce_to_one: %lld elements need %zu bytes, the buffer has %zu", n,
                    (size_t)n * ch->elem, input->bytes);
    if (final && final->bytes < ch->elem)
        return fail(c, PATC_ERR_SIZE, "the result buffer has %zu bytes; one element needs %zu", final->bytes, ch->elem);
    int nn = k->k->def->nnats;
    if (nn > 1 && !nats) return fail(c, PATC_ERR_INVALID, "kernel %s has %d nat parameters but none were given", k->k->name, nn);
    if (!(ch->nats = calloc((size_t)nn, sizeof *ch->nats)) || !(ch->pass = calloc(64, sizeof *ch->pass)))
        return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    for (int i = 0; i < nn; i++) ch->nats[i] = nats ? nats[i] : 0;
    /* The first pass has the largest output: both ping-pong buffers get its size. */
    ch->nats[ch->len_nat] = n;
    long long m = 1;
    patc_status s = n > 1 ? patc_kernel_output_info(k, ch->nats, NULL, &m, NULL) : PATC_OK;
    for (int i = 0; s == PATC_OK && i < 2; i++) s = patc_buffer_alloc(c, (size_t)(m ? m : 1) * ch->elem, &ch->tmp[i]);
    patc_buffer *src = input;
    while (s == PATC_OK && n > 1) {
        ch->nats[ch->len_nat] = n;
        if ((s = patc_kernel_output_info(k, ch->nats, NULL, &m, NULL)) != PATC_OK) break;
        if (m < 1 || m >= n || ch->npass == 64) {
            s = fail(c, PATC_ERR_SIZE, "kernel %s maps %lld elements to %lld: not a reduction pass", k->k->name, n, m);
            break;
        }
        patc_buffer *dst = m == 1 && final ? final : ch->tmp[ch->npass % 2], *in[1] = {src};
        if ((s = prepare(k, ch->nats, in, dst, NULL, &ch->pass[ch->npass])) != PATC_OK) break;
        ch->npass++;
        ch->last = src = dst;
        n = m;
    }
    return s;
}

/* Fire the planned passes; the result is in last_buffer(ch, input). */
static patc_status chain_fire(patc_kernel *k, Chain *ch)
{
    patc_status s = PATC_OK;
    for (int i = 0; s == PATC_OK && i < ch->npass; i++) s = fire(k, &ch->pass[i]);
    return s;
}

static patc_buffer *chain_last(Chain *ch, patc_buffer *input)
{
    return ch->npass ? ch->last : input;
}

patc_status patc_reduce_to_one(patc_kernel *k, const long long *nats, patc_buffer *input, long long n,
                               void *host_result, int *launches)
{
    if (!k) return PATC_ERR_INVALID;
    patc_ctx *c = k->prog->ctx;
    if (!host_result) return fail(c, PATC_ERR_INVALID, "patc_reduce_to_one: no result pointer");
    Chain ch;
    patc_status s = need_device(c);
    if (s != PATC_OK) return s;
    if ((s = chain_open(k, nats, input, n, NULL, &ch)) == PATC_OK && (s = chain_fire(k, &ch)) == PATC_OK &&
        (s = drv_check(c, rt_driver_sync(c->drv), "kernel execution")) == PATC_OK)
        s = patc_buffer_download(chain_last(&ch, input), host_result, ch.elem);
    if (s == PATC_OK && launches) *launches = ch.npass;
    chain_close(&ch);
    return s;
}

int rt_time_reduce(patc_kernel *k, const long long *nats, patc_buffer *input, long long n, int warmup,
                   int reps, float *median_ms, float *each_ms)
{
    if (!k) return PATC_ERR_INVALID;
    patc_ctx *c = k->prog->ctx;
    if (warmup < 0 || reps < 1 || !median_ms) return fail(c, PATC_ERR_INVALID, "patc_time_reduce_to_one: bad warmup/reps/result");
    RtPlan *p;
    patc_status s = (patc_status)rt_plan_open(k, nats, input, n, NULL, &p);
    if (s == PATC_OK) s = (patc_status)rt_time_plans(c, &p, 1, warmup, reps, median_ms, each_ms);
    rt_plan_close(p);
    return s;
}

patc_status patc_time_reduce_to_one(patc_kernel *k, const long long *nats, patc_buffer *input, long long n,
                                    int warmup, int reps, float *median_ms)
{
    return (patc_status)rt_time_reduce(k, nats, input, n, warmup, reps, median_ms, NULL);
}

/* ---------------------------------------------------------------- plans (rt_tune.c) */

struct RtPlan {
    patc_kernel *k;
    Chain ch;
};

int rt_plan_open(patc_kernel *k, const long long *nats, patc_buffer *input, long long n, patc_buffer *output,
                 RtPlan **out)
{
    patc_ctx *c = k->prog->ctx;
    *out = NULL;
    patc_status s = need_device(c);
    if (s != PATC_OK) return s;
    RtPlan *p = calloc(1, sizeof *p);
    if (!p) return fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    p->k = k;
    if ((s = chain_open(k, nats, input, n, output, &p->ch)) != PATC_OK) {
        chain_close(&p->ch);
        free(p);
        return s;
    }
    if (!p->ch.npass && output) /* n == 1: the input is the result */
        s = fail(c, PATC_ERR_INVALID, "a one-element reduction has nothing to launch");
    if (s != PATC_OK) {
        rt_plan_close(p);
        return s;
    }
    *out = p;
    return PATC_OK;
}

int rt_plan_fire(RtPlan *p) { return chain_fire(p->k, &p->ch); }

void rt_plan_close(RtPlan *p)
{
    if (!p) return;
    chain_close(&p->ch);
    free(p);
}

/* Interleaved timing: every round times each plan once, in turn, so that a drift of the
 * host or the clocks during the measurement affects all plans alike. */
int rt_time_plans(struct patc_ctx *c, RtPlan *const *plans, int count, int warmup, int reps, float *median_ms,
                  float *all_ms)
{
    if (count < 1 || reps < 1 || warmup < 0) return fail(c, PATC_ERR_INVALID, "rt_time_plans: bad arguments");
    Timer t = {0};
    float *all = calloc((size_t)count * (size_t)reps, sizeof *all);
    patc_status s = all ? timer_open(c, &t, 1) : fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    for (int i = 0; s == PATC_OK && i < warmup; i++)
        for (int j = 0; s == PATC_OK && j < count; j++) s = rt_plan_fire(plans[j]);
    if (s == PATC_OK) s = drv_check(c, rt_driver_sync(c->drv), "kernel execution");
    for (int i = 0; s == PATC_OK && i < reps; i++)
        for (int j = 0; s == PATC_OK && j < count; j++) {
            if ((s = drv_check(c, rt_driver_event_record(c->drv, t.start, c->stream), "cuEventRecord")) != PATC_OK) break;
            if ((s = rt_plan_fire(plans[j])) != PATC_OK) break;
            if ((s = drv_check(c, rt_driver_event_record(c->drv, t.stop, c->stream), "cuEventRecord")) != PATC_OK) break;
            s = drv_check(c, rt_driver_event_elapsed(c->drv, t.start, t.stop, &all[(size_t)j * (size_t)reps + (size_t)i]),
                          "kernel execution");
        }
    if (s == PATC_OK && all_ms) memcpy(all_ms, all, sizeof *all * (size_t)count * (size_t)reps);
    for (int j = 0; s == PATC_OK && j < count; j++) median_ms[j] = median(all + (size_t)j * (size_t)reps, reps);
    timer_close(c, &t);
    free(all);
    return s;
}
