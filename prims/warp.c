/* warp.c: the warp shuffles and the grid-wide lastBlock (PF_WARP, PF_GRID).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

#include <string.h>

/* ---------------------------------------------------------------- the warp shuffles */

/* shflDownWarp(d), shflUpWarp(d), shflXorWarp(m) : 32.t -> 32.t  (t a scalar, d and m
 * constants in 0..31) */
static Expr *infer_shfl(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    const PrimInfo *pi = &prim_info[ap->p];
    Ast **nat = ap->nat;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Expr *e;
    Nat *d = tc_nat_of(t, nat[0], sc);
    int64_t c;
    if (!nat_is_const(d, &c) || c < 0 || c > 31)
        diag_error(t->d, nat[0]->sp, "%s: the %s must be a constant in 0..31", pi->name, p == P_SHFLXOR ? "lane mask" : "delta");
    Expr *x = tc_infer(t, arg[0], sc, NULL);
    Type *tx = tc_want_array(t, x, pi->name);
    if (!nat_is_const(tx->arr.n, &c) || c != 32 || !tc_is_scalar(tx->arr.elem))
        diag_error(t->d, x->sp, "%s expects a 32-element warp array of scalars, but this has type %s", pi->name, tc_tstr(t, tx));
    e = tc_prim_expr(t, p, tx, sp);
    e->prim.nats[0] = d;
    e->prim.args[0] = x;
    return e;
}

/* shflWarp : 32.idx[32] -> 32.t -> 32.t  (the source lane of each lane; t a scalar) */
static Expr *infer_shfl_warp(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Nat *n32 = nat_cst(a, 32);
    Expr *src = tc_infer(t, arg[0], sc, ty_array(a, n32, ty_idx(a, n32)));
    Expr *x = tc_infer(t, arg[1], sc, NULL);
    int64_t c;
    Type *ts = tc_want_array(t, src, "shflWarp");
    if (!nat_is_const(ts->arr.n, &c) || c != 32 ||
        !(ts->arr.elem->kind == T_IDX || (ts->arr.elem->kind == T_SCALAR && (ts->arr.elem->sk == SK_I32 || ts->arr.elem->sk == SK_U32))))
        diag_error(t->d, src->sp, "shflWarp expects 32 lane indices (32.idx[32]), but this has type %s", tc_tstr(t, ts));
    Type *tx = tc_want_array(t, x, "shflWarp");
    if (!nat_is_const(tx->arr.n, &c) || c != 32 || !tc_is_scalar(tx->arr.elem))
        diag_error(t->d, x->sp, "shflWarp expects a 32-element warp array of scalars, but this has type %s", tc_tstr(t, tx));
    e = tc_prim_expr(t, p, tx, sp);
    e->prim.args[0] = src;
    e->prim.args[1] = x;
    return e;
}

/* a shuffle of a warp array (one element per lane) inside mapWarp: a V_SHFL view, read at
 * the lane's own index (view_at in lower.c); the data argument is shflWarp's second */
static LwVal *lower_shfl(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    Prim p = e->prim.p;
    View *v;
    LwVal *in = lw_lower_exp(w, arg[p == P_SHFLWARP ? 1 : 0]);
    int64_t off;
    if (!lw_inside(w, LVL_WARP) || lw_inside(w, LVL_LANE) || !lw_lanes_offset(w, in->v, &off) || off != 0)
        diag_error(w->d, e->sp, "%s is only supported on a warp array (one element per lane, e.g. from "
                   "mapLane or toPrivate inside mapWarp)", prim_info[p].name);
    v = lw_view(w, V_SHFL, e->ty, in->v);
    v->shfl = (ShflKind)prim_info[p].shfl;
    if (p == P_SHFLWARP) v->src = lw_lower_exp(w, arg[0])->v;
    else v->n1 = e->prim.nats[0];
    return lw_array(w, v);
}

/* The 32-lane shuffles as a permutation view: lane i reads lane perm[i]. */
static void eval_shuffle(IpCtx *c, const Code *e, IpVal *res)
{
    IpVal a, src, s;
    ip_eval(c, e->args[e->p == P_SHFLWARP ? 1 : 0], &a);
    int64_t n = a.ty->n, d = e->k[0];
    int64_t *perm = ip_pool_alloc(c, sizeof(int64_t) * (size_t)(n ? n : 1), false);
    if (e->p == P_SHFLWARP) ip_eval(c, e->args[0], &src);
    for (int64_t i = 0; i < n; i++) {
        switch ((ShflKind)prim_info[e->p].shfl) {
        case SHFL_DOWN: /* a[i+d] if i+d <= 31 else a[i] */
            perm[i] = i + d <= n - 1 ? i + d : i;
            break;
        case SHFL_UP: /* a[i-d] if i-d >= 0 else a[i] */
            perm[i] = i - d >= 0 ? i - d : i;
            break;
        case SHFL_XOR: /* a[i xor m] */
            if (d < 0 || d >= 32 || (i ^ d) >= n)
                ip_fail(c, e->sp, "shflXorWarp mask %lld is outside the warp", (long long)d);
            perm[i] = i ^ d;
            break;
        case SHFL_IDX: { /* a[src[i]] */
            ip_val_sel(c, &src, i, src.ty->elem, &s);
            int64_t v = s.s.i;
            if (v < 0 || v >= n)
                ip_fail(c, e->sp, "shflWarp: lane %lld reads lane %lld, outside the warp of %lld",
                     (long long)i, (long long)v, (long long)n);
            perm[i] = v;
            break;
        }
        }
    }
    Node *nd = ip_node_new(c, N_PERM, &a, NULL);
    nd->perm = perm;
    ip_val_node(res, e->ty, nd);
}

/* ---------------------------------------------------------------- lastBlock */

/* lastBlock(f)(ys) : t  for ys : n.s computed by the whole grid and f : n.s -> t, typed as
 * if inside a mapBlock; not inside a map */
static Expr *infer_last_block(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Type *expected = ap->expected;
    Span sp = ap->sp;
    Expr *e;
    /* lastBlock(f)(ys) = f(ys); ys is computed by all blocks, f runs in the last one */
    if (t->ctx.n)
        diag_error2(t->d, sp, t->ctx.sp[t->ctx.n - 1], "the enclosing map is here",
                    "lastBlock runs after the whole grid; it cannot be inside a map");
    Expr *x = tc_infer(t, arg[1], sc, NULL);
    tc_want_array(t, x, "lastBlock");
    t->ctx.lv[0] = LVL_BLOCK;
    t->ctx.dim[0] = 0;
    t->ctx.sp[0] = sp;
    t->ctx.n = 1;
    Expr *f = tc_check_fun(t, arg[0], &x->ty, 1, sc, expected, sp);
    t->ctx.n = 0;
    e = tc_prim_expr(t, p, tc_fun_result(f, 1), sp);
    e->prim.args[0] = f;
    e->prim.args[1] = x;
    return e;
}

/* lastBlock read as a value: an error. Its lowering writes the kernel's result
 * (lower_last_block below) */
static LwVal *lower_last_block_read(Lw *w, Expr *e)
{
    diag_error(w->d, e->sp, "lastBlock must produce the kernel's result (it ends the kernel)");
}

/* lastBlock(f)(ys) = f(ys) */
static void eval_last_block(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    ip_eval(c, e->args[1], &a);
    ip_apply(c, e->args[0], &a, r);
    r->ty = e->ty;
}

/* A global buffer of the kernel's own (a parameter after the inputs, which the runtime
 * allocates and zeroes once; kernels leave it reusable) */
static Buffer *scratch_buffer(Lw *w, const char *prefix, ScalarKind sk, Nat *count)
{
    Kernel *k = w->k;
    Buffer *b = lw_new_buffer(w, prefix, AS_GLOBAL, sk, count);
    b->param = -3 - k->nscratch;
    Buffer **nb = ANEWN(w->a, Buffer *, k->nscratch + 1);
    if (k->nscratch) memcpy(nb, k->scratch, sizeof(Buffer *) * (size_t)k->nscratch);
    nb[k->nscratch++] = b;
    k->scratch = nb;
    return b;
}

/* acc(lastBlock(f)(ys), out) = acc(ys, partials); hand-over protocol;
 *                             in the last block: acc(f(partials), out)
 * ys is computed by the whole grid into a global scratch buffer; one block sees all
 * of it and computes f at block level. No second launch is needed. Partials of at most
 * 32 bits are flagged words, which the grid's last block waits for as it reads them;
 * wider ones are handed over by a ticket that every block takes after its writes
 * (codegen/cuda.c). */
static void lower_last_block(Lw *w, Expr *e, Acc *c)
{
    Arena *a = w->a;
    if (w->ndepth) die("lastBlock inside a map passed the type checker");
    Expr *ys = e->prim.args[1], *f = e->prim.args[0];
    Nat *cnt;
    const Type *in = ty_innermost(a, ys->ty, &cnt);
    if (!in) diag_error(w->d, ys->sp, "lastBlock of %s: the grid's result must be an array of scalars", ty_str(a, ys->ty));
    Buffer *part = scratch_buffer(w, "partial", lw_sk_of(in), cnt);
    part->flagged = scalar_info[part->sk].size <= 4;
    part->coherent = !part->flagged;
    Buffer *ticket = part->flagged ? NULL : scratch_buffer(w, "ticket", SK_U32, nat_cst(a, 1));
    Acc *c0 = lw_acceptor(w, W_MEM, ys->ty, NULL);
    c0->buf = part;
    c0->base = nat_cst(a, 0);
    lw_lower_acc(w, ys, c0);
    Stmt *s = lw_snew(w, S_LASTBLOCK), *saved = w->cur;
    s->last.ticket = ticket;
    s->last.part = part;
    s->last.body = stmt_seq(a);
    lw_emit(w, s);
    w->cur = s->last.body;
    w->lv[w->ndepth++] = LVL_BLOCK;
    View *pv = lw_view(w, V_MEM, ys->ty, NULL);
    pv->buf = part;
    pv->base = nat_cst(a, 0);
    lw_bind(w, f->lam.param, lw_array(w, pv));
    lw_lower_acc(w, f->lam.body, c);
    w->ndepth--;
    w->cur = saved;
}

const PrimOps prims_warp[P_COUNT] = {
    [P_SHFLDOWN] = {infer_shfl, lower_shfl, eval_shuffle, NULL},
    [P_SHFLUP] = {infer_shfl, lower_shfl, eval_shuffle, NULL},
    [P_SHFLXOR] = {infer_shfl, lower_shfl, eval_shuffle, NULL},
    [P_SHFLWARP] = {infer_shfl_warp, lower_shfl, eval_shuffle, NULL},
    [P_LASTBLOCK] = {infer_last_block, lower_last_block_read, eval_last_block, lower_last_block},
};
