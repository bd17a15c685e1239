/* driver.c: runs the pipeline  parse -> expand -> typecheck -> lower -> loops -> smem
 * -> barrier -> version -> width -> role -> describe, with -d dumps after each pass. */
#include "compiler.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void dump_kernel(Arena *a, const CompileOptions *opt, const char *pass, const Kernel *k)
{
    StrBuf b = {.a = a};
    kernel_print(&b, k);
    fprintf(opt->dump_out ? opt->dump_out : stderr, "=== %s: %s ===\n%s\n", pass, k->name, sb_str(&b));
}

/* Each kernel: expand, check, lower, then the passes over the kernel IR. */
static void compile_program(Compilation *c, const CompileOptions *opt)
{
    Arena *a = c->arena;
    Diag *d = c->diag;
    FILE *df = opt->dump_out ? opt->dump_out : stderr;
    int nk = 0;
    /* names are indexed once (expand looks definitions up here too), so a program of
     * many declarations costs time linear in their number */
    c->prog.by_name = namemap_new(a);
    for (Decl *x = c->prog.decls; x; x = x->next) {
        Decl *y = namemap_put(c->prog.by_name, x->name, x);
        if (y) diag_error2(d, x->sp, y->sp, "first defined here", "'%s' is defined twice", x->name);
        if (prim_lookup(x->name) >= 0 && x->kind == D_KERNEL)
            diag_error(d, x->sp, "kernel name '%s' is a primitive", x->name);
        if (x->kind == D_KERNEL) nk++;
    }
    if (opt->only_kernel) {
        Decl *x = namemap_get(c->prog.by_name, opt->only_kernel);
        if (!x || x->kind != D_KERNEL) diag_error_nopos(d, "no kernel named '%s' in this program", opt->only_kernel);
    }
    c->defs = ANEWN(a, KernelDef *, nk + 1);
    c->kernels = ANEWN(a, Kernel *, nk + 1);
    c->descs = ANEWN(a, LdKernel *, nk + 1);
    /* a -D that names no nat parameter of any compiled kernel is a mistake, not a no-op */
    bool *define_used = ANEWN(a, bool, opt->ndefines + 1);
    for (Decl *x = c->prog.decls; x; x = x->next) {
        if (x->kind != D_KERNEL) continue;
        if (opt->only_kernel && strcmp(x->name, opt->only_kernel) != 0) continue;
        c->current = x;
        nat_at(x->sp);
        Ast *closed = expand_kernel(a, d, &c->prog, x);
        if (opt->dump.expand) {
            StrBuf b = {.a = a};
            ast_print(&b, closed);
            fprintf(df, "=== expand: %s ===\n%s\n\n", x->name, sb_str(&b));
        }
        for (Ast *l = closed; l->kind == A_NLAM; l = l->lam.body) {
            const char *tick = strchr(l->lam.param, '`');
            size_t len = tick ? (size_t)(tick - l->lam.param) : strlen(l->lam.param);
            for (int i = 0; i < opt->ndefines; i++)
                if (strlen(opt->defines[i].name) == len && !strncmp(opt->defines[i].name, l->lam.param, len))
                    define_used[i] = true;
        }
        int id_base = arena_next_id(a);
        KernelDef *kd = typecheck_kernel(a, d, x, closed, opt->defines, opt->ndefines);
        kd->id_base = id_base;
        if (opt->dump.types) {
            StrBuf b = {.a = a};
            expr_print(&b, kd->body);
            fprintf(df, "=== typecheck: %s ===\n%s\n\n", x->name, sb_str(&b));
        }
        c->defs[c->ndefs++] = kd;
        Kernel *k = lower_kernel(a, d, kd, opt->bins_in_result, opt->min_blocks);
        for (int i = 0; i <= k->npre; i++) {
            Kernel *s = i < k->npre ? k->pre[i] : k;
            Decl *y = namemap_get(c->prog.by_name, s->name);
            if (s != k && y) diag_error2(d, x->sp, y->sp, "defined here", "kernel '%s' runs %d launches, and the "
                                         "name of launch %d, '%s', is taken", x->name, k->npre + 1, i, s->name);
            if (opt->dump.lower) dump_kernel(a, opt, "lower", s);
            loops_specialise(a, d, s);
            if (opt->dump.loops) dump_kernel(a, opt, "loops", s);
            smem_layout(a, d, s);
            if (opt->dump.smem) dump_kernel(a, opt, "smem", s);
            barrier_place(a, d, s);
            if (opt->dump.barrier) dump_kernel(a, opt, "barrier", s);
            version_tiles(a, s);
            if (opt->dump.version) dump_kernel(a, opt, "version", s);
            width_decide(a, s);
            s->min_blocks = kernel_min_blocks(s);
            s->evict_first = opt->evict_first;
        }
        width_unify(k);
        kernel_set_role(k);
        c->descs[c->nkernels] = ld_describe(a, k);
        c->kernels[c->nkernels++] = k;
    }
    c->current = NULL;
    for (int i = 0; i < opt->ndefines && !opt->defines_unchecked; i++)
        if (!define_used[i])
            diag_error_nopos(d, "-D %s: no %skernel has a nat parameter named '%s'", opt->defines[i].name,
                             opt->only_kernel ? "selected " : "", opt->defines[i].name);
}

/* An error ends the compilation; one about nat parameters that no -D fixes gets
 * hint.c's note after it, which may compile the text again (quietly, with values). */
/* compile_string, with the text in c's arena already when in_arena (compile_file reads
 * it there: a large program is not held twice). */
static bool compile_text(Compilation *c, const CompileOptions *opt, const char *path, const char *text, size_t len,
                         bool in_arena)
{
    c->diag->jump_armed = true;
    c->diag->fact = NULL;
    c->current = NULL;
    /* memory running out jumps to the same handler as an error (the arena is marked
     * failed: the caller reports it as such, and no hint is searched for) */
    jmp_buf *outer = arena_catch(c->arena, &c->diag->on_error);
    if (setjmp(c->diag->on_error)) {
        nat_disarm_overflow();
        c->diag->jump_armed = false;
        if (!arena_failed(c->arena)) hint_report(c, opt, path, text, len);
        arena_catch(c->arena, outer);
        return false;
    }
    nat_arm_overflow(c->diag, (Span){0});
    c->prog.decls = NULL;
    c->prog.tail = &c->prog.decls;
    lang_parse_text(c->arena, c->diag, &opt->lang, &c->prog, path, text, len, in_arena);
    if (opt->dump.ast) {
        FILE *df = opt->dump_out ? opt->dump_out : stderr;
        for (Decl *x = c->prog.decls; x; x = x->next) {
            StrBuf b = {.a = c->arena};
            ast_print(&b, x->body);
            fprintf(df, "=== ast: %s %s ===\n%s\n\n", x->kind == D_KERNEL ? "kernel" : "def", x->name, sb_str(&b));
        }
    }
    compile_program(c, opt);
    nat_disarm_overflow();
    c->diag->jump_armed = false;
    arena_catch(c->arena, outer);
    return true;
}

bool compile_string(Compilation *c, const CompileOptions *opt, const char *path, const char *text, size_t len)
{
    return compile_text(c, opt, path, text, len, false);
}

bool compile_file(Compilation *c, const CompileOptions *opt, const char *path)
{
    c->diag->jump_armed = true;
    jmp_buf *outer = arena_catch(c->arena, &c->diag->on_error);
    if (setjmp(c->diag->on_error)) {
        c->diag->jump_armed = false;
        arena_catch(c->arena, outer);
        return false;
    }
    size_t len;
    /* memory running out while reading is the arena's failure, not the file's */
    char *text = lang_read_file_in(c->arena, path, &len);
    if (!text) diag_error_nopos(c->diag, "cannot read '%s': %s", path, lang_read_error(errno));
    c->diag->jump_armed = false;
    arena_catch(c->arena, outer);
    return compile_text(c, opt, path, text, len, true);
}
