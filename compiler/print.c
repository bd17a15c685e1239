/* print.c: dumps of the typed functional IR and the kernel IR (--emit-ir, -d). */
#include "compiler.h"

#include <string.h>

static void bname(StrBuf *b, const Binder *x)
{
    const char *t = strchr(x->name, '`');
    if (t) sb_printf(b, "%.*s_%d", (int)(t - x->name), x->name, x->id);
    else sb_printf(b, "%s_%d", x->name, x->id);
}

/* Typed IR in source syntax, each primitive application annotated with its type. */
void expr_print(StrBuf *b, const Expr *e)
{
    switch (e->kind) {
    case E_VAR: bname(b, e->var.b); return;
    case E_LIT:
        switch (e->ty->sk) {
        case SK_F32: sb_printf(b, "%gf", e->lit.f); return;
        case SK_F64: sb_printf(b, "%g", e->lit.f); return;
        case SK_BOOL: sb_puts(b, e->lit.b ? "true" : "false"); return;
        case SK_U32: case SK_U64: sb_printf(b, "%lluu", (unsigned long long)e->lit.u); return;
        case SK_I32: case SK_I64: sb_printf(b, "%lld", (long long)e->lit.i); return;
        case SK_COUNT: break;
        }
        unreachable();
    case E_NAT: sb_putc(b, '<'); nat_print(b, e->nat.n); sb_putc(b, '>'); return;
    case E_LAM:
        sb_puts(b, "fun(");
        bname(b, e->lam.param);
        sb_puts(b, ": ");
        ty_print(b, e->lam.param->ty);
        sb_puts(b, " => ");
        expr_print(b, e->lam.body);
        sb_putc(b, ')');
        return;
    case E_LET:
        sb_puts(b, "let ");
        bname(b, e->let.x);
        sb_puts(b, " = ");
        expr_print(b, e->let.value);
        sb_puts(b, " in ");
        expr_print(b, e->let.body);
        return;
    case E_BIN:
        sb_putc(b, '(');
        expr_print(b, e->bin.l);
        sb_printf(b, " %s ", binop_spelling[e->bin.op]);
        expr_print(b, e->bin.r);
        sb_putc(b, ')');
        return;
    case E_UN:
        sb_puts(b, unop_spelling[e->un.op]);
        expr_print(b, e->un.e);
        return;
    case E_PRIM: {
        const PrimInfo *pi = &prim_info[e->prim.p];
        sb_puts(b, pi->name);
        if (pi->has_dim) sb_printf(b, "('%c')", "xyz"[e->prim.dim]);
        for (int i = 0; i < pi->nnats; i++) {
            sb_putc(b, '(');
            nat_print(b, e->prim.nats[i]);
            sb_putc(b, ')');
        }
        for (int i = 0; i < pi->nargs; i++) {
            sb_putc(b, '(');
            expr_print(b, e->prim.args[i]);
            sb_putc(b, ')');
        }
        sb_puts(b, " : ");
        ty_print(b, e->ty);
        return;
    }
    }
}

static const char *const mo_name[] = {"", "relaxed", "release", "acquire", "acq_rel"};

static void xprint(StrBuf *b, const X *x)
{
    switch (x->kind) {
    case X_LIT:
        if (scalar_info[x->sk].is_float) sb_printf(b, "%g", x->lit.f);
        else if (x->sk == SK_BOOL) sb_puts(b, x->lit.b ? "true" : "false");
        else sb_printf(b, "%lld", (long long)x->lit.i);
        return;
    case X_NAT: nat_print(b, x->nat.n); return;
    case X_LOAD:
        if (x->load.order != MO_PLAIN) sb_printf(b, "%s ", mo_name[x->load.order]);
        if (x->load.buf->scalar) sb_puts(b, x->load.buf->name);
        else {
            sb_printf(b, "%s[", x->load.buf->name);
            nat_print(b, x->load.index);
            sb_putc(b, ']');
        }
        return;
    case X_BIN:
        sb_putc(b, '(');
        xprint(b, x->bin.l);
        sb_printf(b, " %s ", binop_spelling[x->bin.op]);
        xprint(b, x->bin.r);
        sb_putc(b, ')');
        return;
    case X_MINMAX:
        sb_puts(b, x->bin.op == OP_GT ? "max(" : "min(");
        xprint(b, x->bin.l);
        sb_puts(b, ", ");
        xprint(b, x->bin.r);
        sb_putc(b, ')');
        return;
    case X_UN:
        sb_puts(b, unop_spelling[x->un.op]);
        xprint(b, x->un.e);
        return;
    case X_SELECT:
        sb_putc(b, '(');
        xprint(b, x->sel.c);
        sb_puts(b, " ? ");
        xprint(b, x->sel.a);
        sb_puts(b, " : ");
        xprint(b, x->sel.b);
        sb_putc(b, ')');
        return;
    case X_SHFL: {
        static const char *const k[] = {"shfl.down", "shfl.up", "shfl.xor", "shfl.idx", "ballot", "any", "all", "redmin", "match", "votebit"};
        sb_printf(b, "%s(", k[x->shfl.k]);
        xprint(b, x->shfl.val);
        if (x->shfl.arg) {
            sb_puts(b, ", ");
            xprint(b, x->shfl.arg);
        }
        sb_putc(b, ')');
        return;
    }
    case X_BITCAST:
        sb_printf(b, "bits.%s", scalar_info[x->sk].name);
        xprint(b, x->un.e);
        return;
    case X_CAST:
        sb_printf(b, "(%s)", scalar_info[x->sk].name);
        xprint(b, x->un.e);
        return;
    case X_IDX:
        sb_puts(b, "(uidx)");
        xprint(b, x->un.e);
        return;
    case X_CALL:
        sb_printf(b, "%s(", prim_info[x->call.p].name);
        for (int i = 0; i < x->call.n; i++) {
            if (i) sb_puts(b, ", ");
            xprint(b, x->call.args[i]);
        }
        sb_putc(b, ')');
        return;
    case X_MBTEST:
        sb_printf(b, "mbtest(%s[", x->mbtest.buf->name);
        nat_print(b, x->mbtest.index);
        sb_puts(b, "], ");
        xprint(b, x->mbtest.parity);
        sb_putc(b, ')');
        return;
    case X_ATOMIC:
        sb_printf(b, "atomic %s%s%s(%s[", atom_info[x->atomic.op].name, x->atomic.order ? "." : "",
                  mo_name[x->atomic.order], x->atomic.buf->name);
        nat_print(b, x->atomic.index);
        sb_puts(b, "], ");
        xprint(b, x->atomic.val);
        sb_putc(b, ')');
        return;
    }
}

static void pad(StrBuf *b, int n)
{
    for (int i = 0; i < n; i++) sb_puts(b, "  ");
}

static void sprint(StrBuf *b, const Stmt *s, int ind)
{
    static const char *const lv[] = {"seq", "global", "block", "threads", "warp", "lane"};
    static const char *const form[] = {"loop", "once", "guarded"};
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->seq.n; i++) sprint(b, s->seq.items[i], ind);
        return;
    case S_DECL:
        pad(b, ind);
        sb_printf(b, "%s %s %s", s->decl.buf->scalar ? "reg" : "private", scalar_info[s->decl.buf->sk].name, s->decl.buf->name);
        if (!s->decl.buf->scalar) {
            sb_putc(b, '[');
            nat_print(b, s->decl.buf->count);
            sb_putc(b, ']');
        }
        if (s->decl.init) {
            sb_puts(b, " = ");
            xprint(b, s->decl.init);
        }
        sb_putc(b, '\n');
        return;
    case S_STORE:
        pad(b, ind);
        if (s->store.buf->scalar) sb_puts(b, s->store.buf->name);
        else {
            sb_printf(b, "%s[", s->store.buf->name);
            nat_print(b, s->store.index);
            sb_putc(b, ']');
        }
        if (s->store.order != MO_PLAIN) sb_printf(b, " (%s)", mo_name[s->store.order]);
        if (s->store.atom != ATOM_NONE) {
            static const char *const name[] = {"", "+", "min", "max", "|", "&", "^"};
            sb_printf(b, " atomic%s= ", name[s->store.atom]);
        } else {
            sb_puts(b, " := ");
        }
        xprint(b, s->store.val);
        sb_putc(b, '\n');
        return;
    case S_FOR:
        pad(b, ind);
        sb_printf(b, "for.%s", lv[s->loop.level]);
        if (s->loop.level != LVL_SEQ) sb_printf(b, "('%c')", "xyz"[s->loop.dim]);
        sb_printf(b, " %s < ", s->loop.var->name);
        nat_print(b, s->loop.extent);
        if (s->loop.draw) sb_printf(b, " (drawn: %s)", s->loop.draw->name);
        sb_printf(b, " [%s%s%s%s]\n", form[s->loop.form], s->loop.unroll ? ", unroll" : "", s->loop.unroll_full ? " fully" : "",
                  s->loop.var_used || s->loop.form == LF_LOOP ? "" : ", index unused");
        sprint(b, s->loop.body, ind + 1);
        return;
    case S_IF:
        pad(b, ind);
        sb_puts(b, s->cond.role ? "role if " : s->cond.block_uniform ? "if (per block) " : "if ");
        xprint(b, s->cond.c);
        sb_putc(b, '\n');
        sprint(b, s->cond.then, ind + 1);
        if (s->cond.els) {
            pad(b, ind);
            sb_puts(b, "else\n");
            sprint(b, s->cond.els, ind + 1);
        }
        return;
    case S_BARRIER:
        pad(b, ind);
        sb_puts(b, s->barrier.level == LVL_WARP ? "barrier.warp\n" : s->barrier.level == LVL_GLOBAL ? "fence.gpu\n" : "barrier.block\n");
        return;
    case S_COMMENT:
        pad(b, ind);
        sb_printf(b, "-- %s\n", s->comment.text);
        return;
    case S_WHILE:
        pad(b, ind);
        sb_puts(b, "while");
        if (s->wloop.var) sb_printf(b, " %s = 0, 1, ...", s->wloop.var->name);
        if (s->wloop.cond) {
            sb_puts(b, " while ");
            xprint(b, s->wloop.cond);
        }
        sb_putc(b, '\n');
        sprint(b, s->wloop.body, ind + 1);
        return;
    case S_JUMP:
        pad(b, ind);
        sb_puts(b, s->jump.k == JK_BREAK ? "break\n" : s->jump.k == JK_CONTINUE ? "continue\n" : "return\n");
        return;
    case S_LET:
        pad(b, ind);
        sb_printf(b, "let %s = ", s->let.var->name);
        xprint(b, s->let.val);
        sb_putc(b, '\n');
        return;
    case S_SLEEP:
        pad(b, ind);
        sb_printf(b, "sleep %d ns\n", s->sleep.ns);
        return;
    case S_VLOAD:
        pad(b, ind);
        sb_printf(b, "%s[0..%d) := vector %s[", s->vload.dst->name, s->vload.width, s->vload.src->name);
        nat_print(b, s->vload.index);
        sb_printf(b, " ..+%d]", s->vload.width);
        if (s->vload.guard) {
            sb_puts(b, " unless ");
            xprint(b, s->vload.guard);
            sb_puts(b, ", else elementwise");
        }
        sb_putc(b, '\n');
        return;
    case S_MBAR: {
        static const char *const op[] = {"mbar.init", "mbar.arrive", "mbar.expect", "mbar.wait", "fence.proxy.async"};
        pad(b, ind);
        sb_puts(b, op[s->mbar.op]);
        if (s->mbar.buf) {
            sb_printf(b, " %s[", s->mbar.buf->name);
            nat_print(b, s->mbar.index);
            sb_putc(b, ']');
        }
        if (s->mbar.arg) {
            sb_puts(b, ", ");
            xprint(b, s->mbar.arg);
        }
        sb_putc(b, '\n');
        return;
    }
    case S_VSTORE:
        pad(b, ind);
        sb_printf(b, "vector %s[", s->vstore.dst->name);
        nat_print(b, s->vstore.index);
        sb_printf(b, " ..+%d] := %s[0..%d)\n", s->vstore.width, s->vstore.src->name, s->vstore.width);
        return;
    case S_BULK:
        pad(b, ind);
        sb_printf(b, "bulk %s[", s->bulk.dst->name);
        nat_print(b, s->bulk.dst_index);
        sb_printf(b, " ..] := %s[", s->bulk.src->name);
        nat_print(b, s->bulk.src_index);
        sb_puts(b, " ..], bytes ");
        xprint(b, s->bulk.bytes);
        sb_printf(b, ", completing %s[", s->bulk.bar->name);
        nat_print(b, s->bulk.bar_index);
        sb_puts(b, "]\n");
        return;
    case S_PREFETCH:
        pad(b, ind);
        sb_printf(b, "prefetch %s[", s->prefetch.src->name);
        nat_print(b, s->prefetch.lo);
        sb_puts(b, " .. ");
        nat_print(b, s->prefetch.hi);
        sb_puts(b, ") into L2\n");
        return;
    }
}

/* Kernel IR: buffers with their spaces and sizes, the launch rule, then the body. */
void kernel_print(StrBuf *b, const Kernel *k)
{
    sb_printf(b, "kernel %s\n", k->name);
    for (int i = 0; i < k->ninputs; i++) {
        if (k->inputs[i]->scalar) {
            sb_printf(b, "  in  %s: %s by value\n", k->inputs[i]->name, scalar_info[k->inputs[i]->sk].name);
            continue;
        }
        sb_printf(b, "  in  %s: global %s[", k->inputs[i]->name, scalar_info[k->inputs[i]->sk].name);
        nat_print(b, k->inputs[i]->count);
        sb_puts(b, "]\n");
    }
    for (int j = 0; j < k->nouts; j++) {
        sb_printf(b, "  out %s: global %s[", k->outs[j]->name, scalar_info[k->outs[j]->sk].name);
        nat_print(b, k->outs[j]->count);
        sb_puts(b, "]\n");
    }
    for (int i = 0; i < k->nscratch; i++) {
        sb_printf(b, "  scratch %s: global %s[", k->scratch[i]->name, scalar_info[k->scratch[i]->sk].name);
        nat_print(b, k->scratch[i]->count);
        sb_puts(b, k->scratch[i]->flagged ? "] flagged (u64 words)\n" : "]\n");
    }
    for (int i = 0; i < k->nshared; i++) {
        const Buffer *s = k->shared[i];
        sb_printf(b, "  shared %s: %s[", s->name, scalar_info[s->sk].name);
        nat_print(b, s->count);
        sb_puts(b, "]");
        if (s->offset) {
            sb_puts(b, " at byte ");
            nat_print(b, s->offset);
        }
        sb_putc(b, '\n');
    }
    if (k->block[0]) {
        sb_puts(b, "  launch block (");
        for (int d = 0; d < 3; d++) {
            if (d) sb_puts(b, ", ");
            nat_print(b, k->block[d]);
        }
        sb_puts(b, ") grid (");
        for (int d = 0; d < 3; d++) {
            if (d) sb_puts(b, ", ");
            nat_print(b, k->grid[d]);
        }
        sb_puts(b, ")\n");
    }
    sprint(b, k->body, 1);
}

/* The format of `patc --emit-ir` and patc_program_ir: per kernel its typed IR, then
 * its kernel IR, launch by launch. */
void compilation_print_ir(StrBuf *b, const Compilation *c)
{
    for (int i = 0; i < c->nkernels; i++) {
        sb_printf(b, "%s--- typed IR: %s\n", i ? "\n" : "", c->kernels[i]->name);
        expr_print(b, c->defs[i]->body);
        sb_puts(b, "\n--- kernel IR\n");
        const Kernel *k = c->kernels[i];
        for (int l = 0; l < k->npre; l++) { /* its launches, in order */
            kernel_print(b, k->pre[l]);
            sb_putc(b, '\n');
        }
        kernel_print(b, k);
    }
}
