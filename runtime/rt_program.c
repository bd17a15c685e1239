/* rt_program.c: programs (front end in-process, CUDA C, NVRTC, module load) and the
 * kernel metadata of patc.h: nat parameters, buffer sizes and launch rules of each
 * kernel's launch descriptor (compiler.h, LdKernel) evaluated for given nat values. */
#include "patc.h"
#include "rt_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((int)PATC_F32 == (int)SK_F32 && (int)PATC_BOOL == (int)SK_BOOL,
               "patc_type mirrors ScalarKind");
_Static_assert(PATC_DEFINE_MAX == NAT_SIZE_MAX, "a -D value is a size");

/* ---------------------------------------------------------------- programs */

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
    for (int v = 0; v < 2; v++)
        if (p->module[v] && p->ctx->drv && rt_driver_bind(p->ctx->drv) == 0)
            rt_driver_module_unload(p->ctx->drv, p->module[v]);
    unlink_program(p);
    for (int i = 0; i < p->nkernels; i++) {
        patc_kernel *k = &p->kernels[i];
        for (int j = 0; k->scratch && j < k->d->nscratch; j++)
            if (k->scratch[j] && p->ctx->drv && rt_driver_bind(p->ctx->drv) == 0)
                rt_driver_mem_free(p->ctx->drv, k->scratch[j]);
        free(k->scratch);
        if (k->last) rt_launch_free(k->last);
        free(k->last);
        free(k->key); /* and last_key, its second half */
        free(k->pfn[0]);
        free(k->pfn[1]);
        free(k->scratch_bytes);
        free(k->vals);
        free(k->has);
        free(k->d);
    }
    free(p->kernels);
    free(p->cuda);
    free(p->cuda_name);
    free(p->ir);
    if (p->arena) arena_free(p->arena);
    free(p->src.name);
    free(p->src.text);
    for (int i = 0; i < p->src.ndefs; i++) free((char *)p->src.defs[i].name);
    free(p->src.defs);
    free(p->src.kernel);
    free(p);
}

/* The compilation's arena and what points into it, dropped once the descriptors and
 * the CUDA text are copied out. */
static void drop_compilation(patc_program *p)
{
    if (p->arena) arena_free(p->arena);
    p->arena = NULL;
    memset(&p->comp, 0, sizeof p->comp);
    memset(&p->diag, 0, sizeof p->diag);
}

static const char dump_letters[] = "aetlosbv";

const char *patc_dump_letters(void) { return dump_letters; }

/* -d letters as the compiler's dump flags; false for a letter that names no pass. */
static bool parse_dump(const char *s, DumpFlags *f)
{
    for (; s && *s; s++) switch (*s) {
        case 'a': f->ast = true; break;
        case 'e': f->expand = true; break;
        case 't': f->types = true; break;
        case 'l': f->lower = true; break;
        case 'o': f->loops = true; break;
        case 's': f->smem = true; break;
        case 'b': f->barrier = true; break;
        case 'v': f->version = true; break;
        default: return false;
        }
    return true;
}

/* Rule: a name is defined once, and its value is a nat parameter's: 1 to 2^62. */
static patc_status check_defines(patc_ctx *c, const patc_define *defs, int ndefs)
{
    for (int i = 0; i < ndefs; i++) {
        if (!defs[i].name || !defs[i].name[0]) return rt_fail(c, PATC_ERR_INVALID, "define %d has no name", i);
        for (int j = 0; j < i; j++)
            if (!strcmp(defs[i].name, defs[j].name))
                return rt_fail(c, PATC_ERR_INVALID, "-D %s is given twice (%lld and %lld)", defs[i].name,
                               defs[j].value, defs[i].value);
        if (defs[i].value < 1 || defs[i].value > PATC_DEFINE_MAX)
            return rt_fail(c, PATC_ERR_SIZE, "-D %s=%lld: a nat parameter is at least 1 and at most 2^62 (%lld)",
                           defs[i].name, defs[i].value, PATC_DEFINE_MAX);
    }
    return PATC_OK;
}

/* What the front end is given, copied (p->src), so that rt_program_typed can give it
 * again. */
static bool keep_source(patc_program *p, const char *name, const char *text, const patc_define *defs, int ndefs,
                        const patc_compile_options *o)
{
    RtSource *r = &p->src;
    if (!(r->name = lang_strdup(name)) || (text && !(r->text = lang_strdup(text)))) return false;
    if (o && o->kernel && !(r->kernel = lang_strdup(o->kernel))) return false;
    if (ndefs > 0 && !(r->defs = lang_calloc((size_t)ndefs, sizeof *r->defs))) return false;
    for (; r->ndefs < ndefs; r->ndefs++) {
        r->defs[r->ndefs].value = defs[r->ndefs].value;
        if (!(r->defs[r->ndefs].name = lang_strdup(defs[r->ndefs].name))) return false;
    }
    r->min_blocks = o ? o->min_blocks : 0;
    r->evict_first = o && o->evict_first;
    r->bins_in_result = o && o->bins_in_result;
    return true;
}

/* Front end in-process on p->src: compile_string (compile_file when there is no text:
 * the compiler reads the file as the patc command does) with a fresh arena (p->arena,
 * p->comp) and a Diag that writes into a StrBuf; a rejected program leaves its
 * diagnostics text as the last error. */
__attribute__((noinline)) /* its setjmp stays out of its callers */
static patc_status run_front_end(patc_ctx *c, patc_program *p, const DumpFlags *dump, FILE *dump_out)
{
    const RtSource *r = &p->src;
    const char *name = r->name;
    CompileOptions opt;
    memset(&opt, 0, sizeof opt);
    if (dump) opt.dump = *dump;
    opt.dump_out = dump_out;
    if (!(p->arena = arena_new())) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory while compiling %s", name);
    /* memory running out in the arena lands here (the compiler's own catch passes it
     * on); the diagnostics so far are dropped. No return between here and the
     * compile's end but through this handler. */
    jmp_buf jb;
    arena_catch(p->arena, &jb);
    if (setjmp(jb)) {
        arena_catch(p->arena, NULL);
        p->diag.buf = NULL;
        sb_free(&p->buf);
        drop_compilation(p);
        return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory while compiling %s", name);
    }
    diag_init(&p->diag, NULL, &p->buf);
    p->comp.arena = p->arena;
    p->comp.diag = &p->diag;
    p->comp.prog.tail = &p->comp.prog.decls;
    opt.lang.include_dirs = (const char **)c->include_dirs;
    opt.lang.ninclude_dirs = c->ninclude_dirs;
    rt_patterns_options(&opt.lang);
    opt.min_blocks = r->min_blocks;
    opt.evict_first = r->evict_first;
    opt.bins_in_result = r->bins_in_result;
    opt.only_kernel = r->kernel;
    Define *d = r->ndefs > 0 ? ANEWN(p->arena, Define, r->ndefs) : NULL;
    for (int i = 0; i < r->ndefs; i++) {
        d[i].name = r->defs[i].name;
        d[i].value = r->defs[i].value;
    }
    opt.defines = d;
    opt.ndefines = r->ndefs;
    bool ok;
    if (r->text) {
        ok = compile_string(&p->comp, &opt, name, r->text, strlen(r->text)); /* it copies the text */
    } else {
        ok = compile_file(&p->comp, &opt, name);
    }
    arena_catch(p->arena, NULL);
    p->diag.buf = NULL;
    if (!ok && (arena_failed(p->arena) || p->buf.oom || p->diag.oom)) {
        sb_free(&p->buf);
        drop_compilation(p);
        return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory while compiling %s", name);
    }
    if (!ok) {
        patc_status s = rt_fail(c, PATC_ERR_COMPILE, "%s", p->buf.len ? p->buf.s : "patc: error: program rejected\n");
        sb_free(&p->buf);
        drop_compilation(p);
        return s;
    }
    sb_free(&p->buf);
    return PATC_OK;
}

/* The front end, then each kernel's handle with a copy of its launch descriptor. */
__attribute__((noinline)) /* program_make has a setjmp of its own */
static patc_status front_end(patc_ctx *c, patc_program *p, const char *name, const char *text,
                             const patc_define *defs, int ndefs, const patc_compile_options *o)
{
    double t0 = rt_now_ms();
    patc_status s = check_defines(c, defs, ndefs);
    if (s != PATC_OK) return s;
    DumpFlags dump;
    memset(&dump, 0, sizeof dump);
    if (o && !parse_dump(o->dump, &dump))
        return rt_fail(c, PATC_ERR_INVALID, "unknown dump letters '%s' (the letters are %s)", o->dump, dump_letters);
    if (o && (o->min_blocks < 0 || o->min_blocks > 32))
        return rt_fail(c, PATC_ERR_INVALID, "min_blocks %d: want 0 (none) to 32", o->min_blocks);
    if (!keep_source(p, name, text, defs, ndefs, o))
        return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory while compiling %s", name);
    p->name = p->src.name;
    if ((s = run_front_end(c, p, &dump, o ? o->dump_out : NULL)) != PATC_OK) return s;
    p->kernels = lang_calloc((size_t)p->comp.nkernels, sizeof *p->kernels);
    if (!p->kernels) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory while compiling %s", name);
    p->nkernels = p->comp.nkernels; /* patc_program_free's loop: only once kernels exist */
    for (int i = 0; i < p->nkernels; i++) {
        patc_kernel *k = &p->kernels[i];
        k->prog = p;
        k->index = i;
        if (!(k->d = ld_copy(p->comp.descs[i]))) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
        int npre = rt_npre(k), nslots = k->d->nnats + LD_HW_SLOTS;
        if (npre && !(k->pfn[0] = lang_calloc((size_t)npre, sizeof *k->pfn[0])))
            return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
        if (npre && !(k->pfn[1] = lang_calloc((size_t)npre, sizeof *k->pfn[1])))
            return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
        for (int l = 0; l <= npre; l++) p->launch_width |= k->d->launches[l].iw == IW_LAUNCH;
        k->vals = lang_calloc((size_t)nslots, sizeof *k->vals);
        k->has = lang_calloc((size_t)nslots, sizeof *k->has);
        if (!k->vals || !k->has) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    }
    c->stats.frontend_ms = rt_now_ms() - t0;
    return PATC_OK;
}

/* The typed IR is the compilation's: made again from p->src, which must give the same
 * kernels (a file changed since would not). */
patc_status rt_program_typed(patc_program *p)
{
    if (p->arena) return PATC_OK;
    patc_status s = run_front_end(p->ctx, p, NULL, NULL);
    if (s != PATC_OK) return s;
    bool same = p->comp.nkernels == p->nkernels;
    for (int i = 0; same && i < p->nkernels; i++) same = !strcmp(p->comp.descs[i]->name, p->kernels[i].d->name);
    if (same) return PATC_OK;
    drop_compilation(p);
    return rt_fail(p->ctx, PATC_ERR_COMPILE, "%s compiled again (for its typed IR) gives other kernels: "
                   "did the file change since it was compiled?", p->src.name);
}

/* Build 0 of a program with kernels sized at launch defines PATC_INDEX32 ahead of the
 * text (so the cache keys of the two builds differ by their source), and `#line 1` so
 * that NVRTC's messages give the text's own line numbers; build 1 is the text as
 * emitted, whose patc_int is long long. */
char *rt_program_build_source(const patc_program *p, int variant)
{
    StrBuf src = {0};
    if (variant == 0 && p->launch_width) sb_puts(&src, "#define PATC_INDEX32\n#line 1\n");
    sb_puts(&src, p->cuda);
    return sb_take(&src); /* NULL when memory ran out */
}

/* The cubin's module and its functions (launch l of each kernel) as build `variant`. */
static patc_status load_module(patc_ctx *c, patc_program *p, const void *cubin, int variant, int *err)
{
    *err = 0;
    patc_status s = rt_need_device(c);
    if (s != PATC_OK) return s;
    if ((*err = rt_driver_module_load(c->drv, cubin, &p->module[variant])) != 0)
        return rt_drv_check(c, *err, "cuModuleLoadData");
    for (int i = 0; s == PATC_OK && i < p->nkernels; i++) {
        patc_kernel *k = &p->kernels[i];
        for (int l = 0; s == PATC_OK && l <= rt_npre(k); l++) {
            const char *fname = k->d->launches[l].name;
            int r = rt_driver_get_function(c->drv, p->module[variant], fname,
                                           l < rt_npre(k) ? &k->pfn[variant][l] : &k->fn[variant]);
            if (r) s = rt_fail(c, PATC_ERR_DRIVER, "cuModuleGetFunction(%s): %s", fname, rt_driver_error_name(c->drv, r));
        }
    }
    return s;
}

/* CUDA C -> cubin -> module and functions when there is a device. The cubin is the one
 * built into libpatrt for this very text and arch when there is one (rt_embed_find: no
 * NVRTC, no cache), else the cache's or NVRTC's (rt_nvrtc_compile). An embedded cubin
 * that the driver refuses as an image (one from a newer toolkit than the driver knows)
 * is replaced by NVRTC's, as if none were embedded. */
patc_status rt_program_build(patc_ctx *c, patc_program *p, const char *name, int variant)
{
    void *cubin = NULL;
    size_t n = 0;
    char *log = NULL;
    RtBuildStats st = {0};
    c->stats.arch = p->arch = c->arch;
    c->stats.load_ms = 0;
    char *src = rt_program_build_source(p, variant);
    if (!src) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    double t0 = rt_now_ms();
    bool embedded = rt_embed_find(src, c->arch, &cubin, &n);
    st.ms = rt_now_ms() - t0;
    /* A cubin for another arch (patc_set_arch) is a compile-only cross-check: loading it
     * would fail, so its kernels stay unloaded and launching them says why. */
    bool load = c->drv && c->arch == rt_driver_arch(c->drv);
    patc_status s = PATC_OK;
    for (int tries = 0; tries < 2; tries++) {
        if (!embedded && !rt_nvrtc_compile(src, name, c->arch, c->cache_dir, &cubin, &n, &log, &st)) {
            s = rt_fail(c, PATC_ERR_NVRTC, "%s", log ? log : "nvrtc: compile failed");
            free(log);
            break;
        }
        c->stats.cache_hit = st.cache_hit;
        c->stats.cache_corrupt = st.cache_corrupt;
        c->stats.embedded = embedded;
        c->stats.compile_ms = st.ms;
        if (!load) break;
        double t1 = rt_now_ms();
        int err;
        s = load_module(c, p, cubin, variant, &err);
        c->stats.load_ms = rt_now_ms() - t1;
        if (s == PATC_OK || !embedded || !rt_driver_image_refused(err)) break;
        free(cubin);
        cubin = NULL;
        embedded = false;
        s = PATC_OK;
    }
    free(src);
    free(cubin);
    return s;
}

static patc_program *new_program(patc_ctx *c)
{
    patc_program *p = lang_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->ctx = c;
    p->next = c->programs;
    if (c->programs) c->programs->prev = p;
    c->programs = p;
    return p;
}

/* from_string = front end + cu_emit_module + build (no build with no_cubin, neither with
 * check_only). `cuda` is hand-written CUDA C in place of the generated, named cuda_name
 * to NVRTC. */
static patc_status program_make(patc_ctx *c, const char *name, const char *text, const char *cuda,
                                const char *cuda_name, const patc_define *defs, int ndefs,
                                const patc_compile_options *o, patc_program **out)
{
    patc_program *p = new_program(c);
    if (!p) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    bool check_only = o && o->check_only && !cuda;
    p->no_cubin = (o && o->no_cubin) || check_only;
    patc_status s = front_end(c, p, name, text, defs, ndefs, o);
    if (s == PATC_OK && !check_only) {
        jmp_buf jb;
        arena_catch(p->arena, &jb);
        if (setjmp(jb) == 0) {
            if (cuda) {
                p->cuda = lang_strdup(cuda);
            } else {
                cu_emit_module(p->arena, &p->buf, p->comp.kernels, p->comp.nkernels);
                p->cuda = sb_take(&p->buf);
            }
        }
        arena_catch(p->arena, NULL);
        sb_free(&p->buf);
        p->cuda_name = lang_strdup(cuda ? cuda_name : p->name);
        if (!p->cuda || !p->cuda_name) s = rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory while generating the CUDA C of %s", name);
        else if (!p->no_cubin) s = rt_program_build(c, p, p->cuda_name, 0);
    }
    /* launches need the descriptors alone: the compilation goes (rt_program_typed
     * makes it again for the interpreter) */
    drop_compilation(p);
    if (s != PATC_OK) {
        patc_program_free(p);
        return s;
    }
    *out = p;
    return PATC_OK;
}

patc_status rt_program_from_text(patc_ctx *c, const char *name, const char *text, const patc_define *defs, int ndefs,
                                 const patc_compile_options *opts, patc_program **out)
{
    *out = NULL;
    return program_make(c, name, text, NULL, NULL, defs, ndefs, opts, out);
}

patc_status patc_program_from_string(patc_ctx *c, const char *name, const char *text,
                                     const patc_define *defs, int ndefs, patc_program **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out || !text || ndefs < 0 || (ndefs > 0 && !defs))
        return rt_fail(c, PATC_ERR_INVALID, "patc_program_from_string: bad argument");
    *out = NULL;
    return program_make(c, name ? name : "<string>", text, NULL, NULL, defs, ndefs, NULL, out);
}

/* The CUDA text goes to NVRTC under this name, as a file's goes under its path. */
static const char cuda_text_name[] = "<cuda text>";

patc_status patc_program_compile_string(patc_ctx *c, const char *name, const char *text, const patc_define *defs,
                                        int ndefs, const patc_compile_options *opts, patc_program **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out || !text || ndefs < 0 || (ndefs > 0 && !defs))
        return rt_fail(c, PATC_ERR_INVALID, "patc_program_compile_string: bad argument");
    *out = NULL;
    if (opts && opts->cuda_file)
        return rt_fail(c, PATC_ERR_INVALID, "patc_program_compile_string: give the hand-edited CUDA C as cuda (its "
                       "text), not cuda_file");
    return program_make(c, name ? name : "<string>", text, opts ? opts->cuda : NULL, cuda_text_name, defs, ndefs, opts,
                        out);
}

static patc_status read_text(patc_ctx *c, const char *path, char **text)
{
    size_t len;
    *text = lang_read_file(path, &len);
    if (!*text) return rt_fail(c, PATC_ERR_IO, "patc: error: cannot read %s: %s\n", path, lang_read_error(errno));
    if (strlen(*text) != len) {
        free(*text);
        *text = NULL;
        return rt_fail(c, PATC_ERR_IO, "patc: error: %s contains a NUL byte\n", path);
    }
    return PATC_OK;
}

patc_status patc_program_from_file(patc_ctx *c, const char *path, const patc_define *defs, int ndefs,
                                   patc_program **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out || !path || ndefs < 0 || (ndefs > 0 && !defs))
        return rt_fail(c, PATC_ERR_INVALID, "patc_program_from_file: bad argument");
    *out = NULL;
    char *text;
    patc_status s = read_text(c, path, &text);
    if (s != PATC_OK) return s;
    s = program_make(c, path, text, NULL, NULL, defs, ndefs, NULL, out);
    free(text);
    return s;
}

patc_status patc_program_from_cuda(patc_ctx *c, const char *rise_path, const char *cuda,
                                   const patc_define *defs, int ndefs, patc_program **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out || !rise_path || !cuda || ndefs < 0 || (ndefs > 0 && !defs))
        return rt_fail(c, PATC_ERR_INVALID, "patc_program_from_cuda: bad argument");
    *out = NULL;
    char *rise;
    patc_status s = read_text(c, rise_path, &rise);
    if (s != PATC_OK) return s;
    s = program_make(c, rise_path, rise, cuda, cuda_text_name, defs, ndefs, NULL, out);
    free(rise);
    return s;
}

patc_status patc_program_compile(patc_ctx *c, const char *path, const patc_define *defs, int ndefs,
                                 const patc_compile_options *opts, patc_program **out)
{
    if (!c) return PATC_ERR_INVALID;
    if (!out || !path || ndefs < 0 || (ndefs > 0 && !defs))
        return rt_fail(c, PATC_ERR_INVALID, "patc_program_compile: bad argument");
    *out = NULL;
    if (opts && opts->cuda && opts->cuda_file)
        return rt_fail(c, PATC_ERR_INVALID, "patc_program_compile: give the hand-edited CUDA C as cuda (its text) "
                       "or as cuda_file (a path), not both");
    char *cu = NULL;
    patc_status s = opts && opts->cuda_file ? read_text(c, opts->cuda_file, &cu) : PATC_OK;
    if (s != PATC_OK) return s;
    if (cu) s = program_make(c, path, NULL, cu, opts->cuda_file, defs, ndefs, opts, out);
    else s = program_make(c, path, NULL, opts ? opts->cuda : NULL, cuda_text_name, defs, ndefs, opts, out);
    free(cu);
    return s;
}

const char *patc_program_cuda(const patc_program *p) { return p ? p->cuda : NULL; }

/* The format of `patc --emit-ir`: per kernel its typed IR, then its kernel IR. */
const char *patc_program_ir(patc_program *p)
{
    if (!p) return NULL;
    if (p->ir) return p->ir;
    if (rt_program_typed(p) != PATC_OK) return NULL;
    StrBuf b = {0};
    compilation_print_ir(&b, &p->comp);
    p->ir = sb_take(&b); /* NULL when memory ran out */
    return p->ir;
}
int patc_program_num_kernels(const patc_program *p) { return p ? p->nkernels : 0; }
const char *patc_program_kernel_name(const patc_program *p, int i)
{
    return p && i >= 0 && i < p->nkernels ? p->kernels[i].d->name : NULL;
}

/* ---------------------------------------------------------------- kernels */

patc_status patc_get_kernel(patc_program *p, const char *name, patc_kernel **k)
{
    if (!p) return PATC_ERR_INVALID;
    if (!name || !k) return rt_fail(p->ctx, PATC_ERR_INVALID, "patc_get_kernel: bad argument");
    for (int i = 0; i < p->nkernels; i++)
        if (strcmp(p->kernels[i].d->name, name) == 0) {
            *k = &p->kernels[i];
            return PATC_OK;
        }
    StrBuf names = {0};
    for (int i = 0; i < p->nkernels; i++) sb_printf(&names, "%s%s", i ? ", " : "", p->kernels[i].d->name);
    patc_status s = rt_fail(p->ctx, PATC_ERR_NOT_FOUND, "no kernel named '%s' (the program has: %s)", name,
                         names.s ? names.s : "none");
    sb_free(&names);
    return s;
}

const char *patc_kernel_name(const patc_kernel *k) { return k ? k->d->name : NULL; }
int patc_kernel_num_inputs(const patc_kernel *k) { return k ? k->d->ninputs : 0; }
int patc_kernel_num_nats(const patc_kernel *k) { return k ? k->d->nnats : 0; }
const char *patc_kernel_nat_name(const patc_kernel *k, int i)
{
    return k && i >= 0 && i < k->d->nnats ? k->d->nats[i].name : NULL;
}

patc_kernel_role patc_kernel_get_role(const patc_kernel *k)
{
    if (!k) return PATC_KERNEL_PLAIN;
    switch (k->d->role) {
    case KR_PLAIN: return PATC_KERNEL_PLAIN;
    case KR_REDUCE_PASS: return PATC_KERNEL_REDUCTION_PASS;
    }
    return PATC_KERNEL_PLAIN;
}

int patc_kernel_length_nat(const patc_kernel *k) { return k ? k->d->role_len_nat : -1; }

const char *patc_type_name(patc_type t)
{
    return (unsigned)t < SK_COUNT ? scalar_info[t].name : "?";
}
size_t patc_type_size(patc_type t)
{
    return (unsigned)t < SK_COUNT ? (size_t)scalar_info[t].size : 0;
}

/* The kernel's slots: nat parameters first, then the launch's hardware sizes. */
static int nslots(const patc_kernel *k) { return k->d->nnats + LD_HW_SLOTS; }

/* Evaluate a launch rule under the bound nats; an unbound slot or a divisor <= 0 is
 * reported with the rule printed. No rule is 0. */
static patc_status eval(patc_kernel *k, const LdRule *x, const char *what, int64_t *out)
{
    if (!x->n) {
        *out = 0;
        return PATC_OK;
    }
    if (rt_ld_eval(x, k->vals, k->has, nslots(k), out)) return PATC_OK;
    StrBuf b = {0};
    rt_ld_print(&b, x, k->d);
    patc_status s = rt_fail(k->prog->ctx, PATC_ERR_SIZE,
                         "kernel %s: cannot evaluate %s = %s for the given nat values", k->d->name, what,
                         b.s ? b.s : "?");
    sb_free(&b);
    return s;
}

/* Nat parameter i gets nats[i]; each value must respect the variable's bounds
 * (lb <= v < ub). Whether it fits the kernel's index type is rt_index_bits()'s question. */
patc_status rt_bind_nats(patc_kernel *k, const long long *nats)
{
    patc_ctx *c = k->prog->ctx;
    const LdKernel *d = k->d;
    if (d->nnats > 0 && !nats) return rt_fail(c, PATC_ERR_INVALID, "kernel %s has %d nat parameters but none were given",
                                           d->name, d->nnats);
    memset(k->has, 0, sizeof *k->has * (size_t)nslots(k));
    for (int i = 0; i < d->nnats; i++) {
        const LdNat *v = &d->nats[i];
        if (nats[i] < v->lb)
            return rt_fail(c, PATC_ERR_SIZE, "kernel %s: nat %s = %lld is below its least value %lld", d->name,
                           v->name, nats[i], (long long)v->lb);
        if (nats[i] > PATC_DEFINE_MAX) /* as a -D value: the launch arithmetic has room below 2^63 */
            return rt_fail(c, PATC_ERR_SIZE, "kernel %s: nat %s = %lld is above 2^62 (%lld)"
                           ", the largest size patc handles", d->name, v->name, nats[i], PATC_DEFINE_MAX);
        k->vals[i] = nats[i];
        k->has[i] = true;
    }
    for (int i = 0; i < d->nnats; i++) {
        const LdNat *v = &d->nats[i];
        int64_t ub;
        if (v->ub.n && eval(k, &v->ub, "an upper bound", &ub) == PATC_OK && nats[i] >= ub)
            return rt_fail(c, PATC_ERR_SIZE, "kernel %s: nat %s = %lld must be below %lld", d->name, v->name,
                        nats[i], (long long)ub);
    }
    return PATC_OK;
}

patc_status rt_buffer_info(patc_kernel *k, const LdBuf *b, const char *what, patc_type *type,
                               long long *count, size_t *bytes)
{
    int64_t n;
    patc_status s = eval(k, &b->count, what, &n);
    if (s != PATC_OK) return s;
    if (n < 0) return rt_fail(k->prog->ctx, PATC_ERR_SIZE, "kernel %s: %s has %lld elements", k->d->name, what,
                           (long long)n);
    int64_t nb;
    if (__builtin_mul_overflow(n, (int64_t)b->elem_size, &nb))
        return rt_fail(k->prog->ctx, PATC_ERR_SIZE, "kernel %s: %s has %lld elements: more than 2^63 bytes", k->d->name,
                       what, (long long)n);
    if (type) *type = (patc_type)b->sk;
    if (count) *count = n;
    if (bytes) *bytes = (size_t)nb;
    return PATC_OK;
}

patc_status patc_kernel_input_info(patc_kernel *k, int i, const long long *nats, patc_type *type,
                                   long long *count, size_t *bytes)
{
    if (!k) return PATC_ERR_INVALID;
    if (i < 0 || i >= k->d->ninputs)
        return rt_fail(k->prog->ctx, PATC_ERR_INVALID, "kernel %s has no data parameter %d", k->d->name, i);
    patc_status s = rt_bind_nats(k, nats);
    return s != PATC_OK ? s : rt_buffer_info(k, &k->d->inputs[i], "an input's size", type, count, bytes);
}

int patc_kernel_input_by_value(const patc_kernel *k, int i)
{
    if (!k || i < 0 || i >= k->d->ninputs) return -1;
    return k->d->inputs[i].scalar;
}

int patc_kernel_num_outputs(const patc_kernel *k) { return k ? k->d->nouts : 0; }

/* compactTo/partitionTo's elements are counted by the output lowering made just before */
int patc_kernel_output_count_of(const patc_kernel *k, int j)
{
    if (!k || j < 0 || j >= k->d->nouts) return -1;
    return k->d->outs[j].counted_by;
}

patc_status patc_kernel_output_info(patc_kernel *k, const long long *nats, patc_type *type, long long *count,
                                    size_t *bytes)
{
    if (!k) return PATC_ERR_INVALID;
    if (k->d->nouts != 1)
        return rt_fail(k->prog->ctx, PATC_ERR_INVALID, "kernel %s has %d outputs: use patc_kernel_output_info_at",
                       k->d->name, k->d->nouts);
    return patc_kernel_output_info_at(k, 0, nats, type, count, bytes);
}

patc_status patc_kernel_output_info_at(patc_kernel *k, int j, const long long *nats, patc_type *type,
                                       long long *count, size_t *bytes)
{
    if (!k) return PATC_ERR_INVALID;
    if (j < 0 || j >= k->d->nouts)
        return rt_fail(k->prog->ctx, PATC_ERR_INVALID, "kernel %s has no output %d (it has %d)", k->d->name, j,
                       k->d->nouts);
    patc_status s = rt_bind_nats(k, nats);
    return s != PATC_OK ? s : rt_buffer_info(k, &k->d->outs[j], "the output size", type, count, bytes);
}

int rt_npre(const patc_kernel *k) { return k->d->nlaunches - 1; }

/* CUDA's launch limits (compiler.h): a launch past one would come back from the driver
 * as CUDA_ERROR_INVALID_VALUE, which names nothing; this names the kernel, the dimension
 * and the limit. `whose` is "" for the kernel's rule, else the override's words. */
patc_status rt_check_launch_limits(patc_ctx *c, const char *kernel, const int64_t grid[3], const int64_t block[3],
                                   const char *whose)
{
    static const char xyz[] = "xyz";
    for (int d = 0; d < 3; d++) {
        int64_t gmax = d ? CUDA_MAX_GRID_YZ : CUDA_MAX_GRID_X, bmax = d == 2 ? CUDA_MAX_BLOCK_Z : CUDA_MAX_BLOCK;
        if (grid[d] > gmax)
            return rt_fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s: %sgrid.%c = %lld is above CUDA's limit %lld", kernel,
                           whose, xyz[d], (long long)grid[d], (long long)gmax);
        if (block[d] > bmax)
            return rt_fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s: %sblock.%c = %lld is above CUDA's limit %lld", kernel,
                           whose, xyz[d], (long long)block[d], (long long)bmax);
    }
    int64_t threads = block[0] * block[1] * block[2]; /* each at most 1024: no overflow */
    if (threads > CUDA_MAX_BLOCK)
        return rt_fail(c, PATC_ERR_LAUNCH_CONFIG,
                       "kernel %s: %sblock of %lldx%lldx%lld = %lld threads is above CUDA's limit %d", kernel, *whose ? whose : "a ",
                       (long long)block[0], (long long)block[1], (long long)block[2], (long long)threads, CUDA_MAX_BLOCK);
    return PATC_OK;
}

/* grid, block and dynamic shared memory from the kernel's rules (nats already bound). */
patc_status rt_derive(patc_kernel *k, patc_launch_config *o) { return rt_derive_launch(k, rt_npre(k), o); }

patc_status rt_derive_launch(patc_kernel *k, int l, patc_launch_config *o)
{
    const LdLaunch *K = &k->d->launches[l];
    static const char *const bn[3] = {"block.x", "block.y", "block.z"};
    static const char *const gn[3] = {"grid.x", "grid.y", "grid.z"};
    patc_ctx *c = k->prog->ctx;
    int64_t v, grid[3], block[3];
    patc_status s;
    for (int i = 0; i < 3; i++) {
        if (!K->block[i].n) block[i] = 1;
        else if ((s = eval(k, &K->block[i], bn[i], &block[i])) != PATC_OK) return s;
        if (block[i] < 1)
            return rt_fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s: %s = %lld", K->name, bn[i], (long long)block[i]);
        if (!K->grid[i].n) grid[i] = 1;
        else if ((s = eval(k, &K->grid[i], gn[i], &grid[i])) != PATC_OK) return s;
        if (grid[i] < 0) return rt_fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s: %s = %lld", K->name, gn[i], (long long)grid[i]);
    }
    /* a scanPipe kernel's blocks loop over the tiles: one per SM (its shared memory
     * leaves room for no second), where a device says how many */
    int sms = K->persistent ? rt_ctx_sm_count(c) : 0;
    if (sms > 0 && grid[0] > sms) grid[0] = sms;
    if ((s = rt_check_launch_limits(c, K->name, grid, block, "")) != PATC_OK) return s;
    for (int i = 0; i < 3; i++) {
        o->grid[i] = (unsigned)grid[i];
        o->block[i] = (unsigned)block[i];
    }
    if ((s = eval(k, &K->shared, "the shared memory size", &v)) != PATC_OK) return s;
    if (v < 0) return rt_fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s: shared memory %lld bytes", K->name, (long long)v);
    if ((s = rt_check_shared_launch(k, l, v, "with these nat values it needs")) != PATC_OK) return s;
    o->shared_bytes = v;
    return PATC_OK;
}

/* bytes <= the device's opt-in maximum less the launch's static shared memory (the
 * compiler's smem_budget, as static_smem). Every device allows 48 KiB, so
 * the device is asked only above that; without one, sm_90's maximum stands in (the
 * compiler's check), since only patc_kernel_launch_dims gets here without a device. */
patc_status rt_check_shared(patc_kernel *k, long long bytes, const char *what)
{
    return rt_check_shared_launch(k, rt_npre(k), bytes, what);
}

patc_status rt_check_shared_launch(patc_kernel *k, int l, long long bytes, const char *what)
{
    const LdLaunch *K = &k->d->launches[l];
    patc_ctx *c = k->prog->ctx;
    if (bytes <= SMEM_DEFAULT_MAX - K->static_smem) return PATC_OK;
    int optin = 0;
    bool asked = c->drv && rt_driver_bind(c->drv) == 0 && rt_driver_smem_optin(c->drv, &optin) == 0 && optin > 0;
    int64_t max = asked ? optin : SMEM_OPTIN_MAX, budget = max - K->static_smem;
    if (bytes <= budget) return PATC_OK;
    return rt_fail(c, PATC_ERR_LAUNCH_CONFIG,
                   "kernel %s: %s %lld bytes of shared memory per block, more than the %lld bytes a block can have "
                   "(%s %lld%s)",
                   K->name, what, bytes, (long long)budget,
                   asked ? "the device's opt-in maximum is" : "no device: sm_90's opt-in maximum,", (long long)max,
                   K->static_note);
}

patc_status patc_kernel_launch_dims(patc_kernel *k, const long long *nats, patc_launch_config *out)
{
    if (!k) return PATC_ERR_INVALID;
    if (!out) return rt_fail(k->prog->ctx, PATC_ERR_INVALID, "patc_kernel_launch_dims: no output");
    patc_status s = rt_bind_nats(k, nats);
    return s != PATC_OK ? s : rt_derive(k, out);
}

/* The index width of a launch (nats bound, cfg its configuration): 64 for an IW_64
 * kernel; for the others, 32 when the kernel's index bound, evaluated with these nats
 * and launch dimensions, is below 2^31, else 64 (an IW_32 kernel then cannot run:
 * an override made its indices pass 2^31). nwarps is blockDim.x / 32, as the kernel
 * computes it. PATC_INDEX64 makes it 64 for kernels sized at launch. */
int rt_index_bits(patc_kernel *k, const patc_launch_config *cfg) { return rt_index_bits_launch(k, rt_npre(k), cfg); }

int rt_index_bits_launch(patc_kernel *k, int l, const patc_launch_config *cfg)
{
    const LdLaunch *kk = &k->d->launches[l];
    if (kk->iw == IW_64 || !kk->index_bound.n || (kk->iw == IW_LAUNCH && (k->prog->ctx->flags & PATC_INDEX64))) return 64;
    int n = k->d->nnats;
    for (int d = 0; d < 3; d++) {
        k->vals[n + LD_SLOT_BDIM + d] = cfg->block[d];
        k->vals[n + LD_SLOT_GDIM + d] = cfg->grid[d];
        k->has[n + LD_SLOT_BDIM + d] = k->has[n + LD_SLOT_GDIM + d] = true;
    }
    k->vals[n + LD_SLOT_NWARPS] = cfg->block[0] / 32;
    k->has[n + LD_SLOT_NWARPS] = true;
    int64_t b;
    return rt_ld_eval(&kk->index_bound, k->vals, k->has, nslots(k), &b) && b <= INT32_MAX ? 32 : 64;
}

int patc_kernel_index_bits(patc_kernel *k, const long long *nats)
{
    patc_launch_config cfg;
    if (!k || rt_bind_nats(k, nats) != PATC_OK || rt_derive(k, &cfg) != PATC_OK) return 0;
    return rt_index_bits(k, &cfg);
}
