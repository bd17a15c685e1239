/* ir_walk.c: the one read-only walk over the kernel IR (statements and the scalar
 * expressions in them), for the passes' analyses. Walks that rebuild or mutate the
 * IR are written by hand in their passes. */
#include "compiler.h"

/* Pre-order: x itself, then its nats and loads, then its operands left to right. */
bool ir_walk_x(const X *x, const IrVisitor *v, void *ctx)
{
    if (!x) return false;
    if (v->x && v->x(ctx, x)) return true;
    switch (x->kind) {
    case X_LIT: return false;
    case X_NAT: return v->nat && v->nat(ctx, x->nat.n);
    case X_LOAD:
        return (v->access && v->access(ctx, x->load.buf, false)) || (v->nat && v->nat(ctx, x->load.index));
    case X_BIN:
    case X_MINMAX: return ir_walk_x(x->bin.l, v, ctx) || ir_walk_x(x->bin.r, v, ctx);
    case X_UN:
    case X_CAST:
    case X_IDX:
    case X_BITCAST: return ir_walk_x(x->un.e, v, ctx);
    case X_SELECT: return ir_walk_x(x->sel.c, v, ctx) || ir_walk_x(x->sel.a, v, ctx) || ir_walk_x(x->sel.b, v, ctx);
    case X_SHFL: return ir_walk_x(x->shfl.val, v, ctx) || (x->shfl.arg && ir_walk_x(x->shfl.arg, v, ctx));
    case X_CALL:
        for (int i = 0; i < x->call.n; i++)
            if (ir_walk_x(x->call.args[i], v, ctx)) return true;
        return false;
    case X_MBTEST:
        return (v->access && v->access(ctx, x->mbtest.buf, false)) || (v->nat && v->nat(ctx, x->mbtest.index)) ||
               ir_walk_x(x->mbtest.parity, v, ctx);
    case X_ATOMIC: /* reads and writes its cell, after its operand */
        return (v->nat && v->nat(ctx, x->atomic.index)) || ir_walk_x(x->atomic.val, v, ctx) ||
               (v->access && (v->access(ctx, x->atomic.buf, false) || v->access(ctx, x->atomic.buf, true)));
    }
    unreachable();
}

/* Pre-order: the statement, then its parts in the order the C text has them (see
 * compiler.h); a store's or vector load's write comes after what it reads. */
bool ir_walk(const Stmt *s, const IrVisitor *v, void *ctx)
{
    if (v->stmt) {
        WalkStep st = v->stmt(ctx, s);
        if (st == WALK_STOP) return true;
        if (st == WALK_SKIP) return false;
    }
    bool exprs = v->x || v->nat || v->access; /* only statements wanted: skip the expressions */
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->seq.n; i++)
            if (ir_walk(s->seq.items[i], v, ctx)) return true;
        return false;
    case S_DECL:
        if (!exprs) return false;
        return (v->nat && !s->decl.buf->scalar && v->nat(ctx, s->decl.buf->count)) || ir_walk_x(s->decl.init, v, ctx);
    case S_STORE:
        if (!exprs) return false;
        return (v->nat && v->nat(ctx, s->store.index)) || ir_walk_x(s->store.val, v, ctx) ||
               (v->access && v->access(ctx, s->store.buf, true));
    case S_FOR: return (v->nat && v->nat(ctx, s->loop.extent)) || ir_walk(s->loop.body, v, ctx);
    case S_IF:
        return (exprs && ir_walk_x(s->cond.c, v, ctx)) || ir_walk(s->cond.then, v, ctx) ||
               (s->cond.els && ir_walk(s->cond.els, v, ctx));
    case S_WHILE: return (exprs && s->wloop.cond && ir_walk_x(s->wloop.cond, v, ctx)) || ir_walk(s->wloop.body, v, ctx);
    case S_LET: return exprs && ir_walk_x(s->let.val, v, ctx);
    case S_BARRIER:
    case S_JUMP:
    case S_SLEEP:
    case S_COMMENT: return false;
    case S_VLOAD:
        if (!exprs) return false;
        if ((v->access && v->access(ctx, s->vload.src, false)) || (v->nat && v->nat(ctx, s->vload.index))) return true;
        if (s->vload.guard) {
            if (ir_walk_x(s->vload.guard, v, ctx)) return true;
            for (int i = 0; i < s->vload.width; i++)
                if (ir_walk_x(s->vload.fallback[i], v, ctx)) return true;
        }
        return v->access && v->access(ctx, s->vload.dst, true);
    case S_MBAR:
        /* an initialisation or arrival changes the barrier (a write); a wait reads it */
        if (!exprs || s->mbar.op == MB_FENCE) return false;
        return (v->nat && v->nat(ctx, s->mbar.index)) || ir_walk_x(s->mbar.arg, v, ctx) ||
               (v->access && v->access(ctx, s->mbar.buf, s->mbar.op != MB_WAIT));
    case S_VSTORE:
        if (!exprs) return false;
        return (v->access && v->access(ctx, s->vstore.src, false)) || (v->nat && v->nat(ctx, s->vstore.index)) ||
               (v->access && v->access(ctx, s->vstore.dst, true));
    case S_BULK:
        if (!exprs) return false;
        return (v->nat && (v->nat(ctx, s->bulk.src_index) || v->nat(ctx, s->bulk.dst_index) ||
                           v->nat(ctx, s->bulk.bar_index))) ||
               ir_walk_x(s->bulk.bytes, v, ctx) ||
               (v->access && (v->access(ctx, s->bulk.src, false) || v->access(ctx, s->bulk.dst, true) ||
                              v->access(ctx, s->bulk.bar, true)));
    case S_PREFETCH:
        if (!exprs) return false;
        return (v->nat && (v->nat(ctx, s->prefetch.lo) || v->nat(ctx, s->prefetch.hi))) ||
               (v->access && v->access(ctx, s->prefetch.src, false));
    }
    unreachable();
}

static bool nat_is_v(void *ctx, Nat *n)
{
    const NatVar *const *v = ctx;
    return nat_mentions(n, *v);
}

/* A variable is mentioned when some nat the C text of s evaluates mentions it. */
bool stmt_mentions_var(const Stmt *s, const NatVar *v)
{
    static const IrVisitor mention = {.nat = nat_is_v};
    return ir_walk(s, &mention, &v);
}
