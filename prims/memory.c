/* memory.c: the materialisation in an address space, and scatter (PF_MEMORY).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

#include <string.h>

/* ---------------------------------------------------------------- toGlobal, toShared, toPrivate */

/* toGlobal, toShared, toPrivate : t -> t, and their meaning is x itself: view.c's
 * prim_infer_same and prim_eval_same */

/* toPrivate(x): a register for a scalar; one register per lane for a warp array inside
 * mapWarp (a V_LANES view); else a private array of a size known at compile time,
 * written through an acceptor and read as memory */
static LwVal *lower_to_private(Lw *w, Expr *e)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args;
    View *v;
    if (arg[0]->ty->kind == T_SCALAR || arg[0]->ty->kind == T_IDX)
        return lw_scalar(w, lw_materialise(w, lw_lower_exp(w, arg[0])->x, "p"));
    int64_t n32;
    if (lw_inside(w, LVL_WARP) && !lw_inside(w, LVL_LANE) && nat_is_const(arg[0]->ty->arr.n, &n32) && n32 == 32) {
        /* private memory of a warp: one element per lane, in a register */
        LwVal *xs = lw_lower_exp(w, arg[0]);
        int64_t off;
        if (lw_lanes_offset(w, xs->v, &off) && off == 0 && xs->v->kind == V_LANES) return xs;
        LwVal *mine = lw_view_at(w, xs->v, nat_var(a, w->k->hw.lane));
        if (mine->k != VAL_SCALAR) diag_error(w->d, e->sp, "toPrivate of a warp array of %s is not supported", ty_str(a, arg[0]->ty->arr.elem));
        v = lw_view(w, V_LANES, arg[0]->ty, NULL);
        v->mine = lw_materialise(w, mine->x, "r");
        return lw_array(w, v);
    }
    Nat *cnt;
    const Type *in = ty_innermost(a, arg[0]->ty, &cnt);
    int64_t c;
    if (!in) diag_error(w->d, e->sp, "toPrivate of %s: only arrays of scalars can be stored", ty_str(a, arg[0]->ty));
    if (!nat_is_const(cnt, &c))
        diag_error(w->d, e->sp, "toPrivate needs a size known at compile time, but this array has %s elements "
                   "(specialise it with -D)", nat_str(a, cnt));
    Buffer *b = lw_new_buffer(w, "p", AS_PRIVATE, lw_sk_of(in), cnt);
    b->scalar = c == 1; /* a one-element private array is a scalar */
    Stmt *d = lw_snew(w, S_DECL);
    d->decl.buf = b;
    lw_emit(w, d);
    Acc *c0 = lw_mem_acc(w, arg[0]->ty, b);
    lw_lower_acc(w, arg[0], c0);
    v = lw_mem_view(w, arg[0]->ty, b);
    return lw_array(w, v);
}

/* toShared(x): a shared buffer of the block (laid out by smem.c), written through an
 * acceptor and read as memory; not inside a per-thread map */
static LwVal *lower_to_shared(Lw *w, Expr *e)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args;
    View *v;
    if (lw_inside(w, LVL_THREADS) || lw_inside(w, LVL_LANE) || lw_inside(w, LVL_GLOBAL) || lw_inside(w, LVL_WARP))
        diag_error(w->d, e->sp, "toShared inside a per-thread map is not supported: materialise the whole "
                   "mapThreads/mapWarp result at block level instead");
    Nat *cnt;
    const Type *in = ty_innermost(a, arg[0]->ty, &cnt);
    if (!in) diag_error(w->d, e->sp, "toShared of %s: only scalars and arrays of scalars can be stored", ty_str(a, arg[0]->ty));
    Buffer *b = lw_shared_buffer(w, "s", lw_sk_of(in), cnt, e->sp);
    Type *aty = arg[0]->ty->kind == T_ARRAY ? arg[0]->ty : ty_array(a, nat_cst(a, 1), arg[0]->ty);
    Acc *c0 = lw_mem_acc(w, aty, b);
    if (arg[0]->ty->kind == T_ARRAY) lw_lower_acc(w, arg[0], c0);
    else lw_store(w, b, nat_cst(a, 0), lw_lower_exp(w, arg[0])->x);
    if (arg[0]->ty->kind != T_ARRAY) return lw_scalar(w, lw_xload(w, b, nat_cst(a, 0)));
    v = lw_mem_view(w, arg[0]->ty, b);
    return lw_array(w, v);
}

/* toGlobal(x) anywhere but at the kernel's top level, where lower.c's lower_launches
 * takes it (a launch ends there): inside a launch no grid-wide barrier exists */
static LwVal *lower_to_global(Lw *w, Expr *e)
{
    diag_error(w->d, e->sp, "toGlobal ends a launch, so it must be at the kernel's top level, outside every map, "
               "as `v |> toGlobal |> fun(x => ...)`; inside a launch there is no grid-wide barrier");
}

/* toPrivateFun(f)(x), toSharedFun(f)(x): expand.c desugars them to fun(x => toPrivate(f(x)))
 * before type checking, so neither the type checker nor lowering meets them */
static Expr *infer_fun_form(Tc *t, const TcApp *ap)
{
    (void)t;
    die("%s reached the type checker: expand.c desugars it", prim_info[ap->p].name);
}

static LwVal *lower_fun_form(Lw *w, Expr *e)
{
    (void)w;
    die("%s reached lowering: expand.c desugars it", prim_info[e->prim.p].name);
}

/* toPrivateFun(f)(x) = f(x) where it is not desugared (the interpreter's own tests) */
static void eval_fun_form(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    ip_eval(c, e->args[1], &a);
    ip_apply(c, e->args[0], &a, r);
    r->ty = e->ty;
}

/* ---------------------------------------------------------------- scatter */

/* scatter(is)(vs): n.idx[m] -> n.t -> m.t; the output length m is the index type's */
static Expr *infer_scatter(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Expr *is = tc_infer(t, arg[0], sc, NULL);
    if (is->ty->kind != T_ARRAY || is->ty->arr.elem->kind != T_IDX)
        diag_error(t->d, is->sp, "scatter expects the output positions as an array of type n.idx[m] (m is the "
                   "output's length), but this has type %s", tc_tstr(t, is->ty));
    Expr *v = tc_infer(t, arg[1], sc, NULL);
    Type *tv = tc_want_array(t, v, "scatter");
    if (!nat_equal(tv->arr.n, is->ty->arr.n))
        diag_error(t->d, sp, "scatter: %s positions for %s values", tc_nstr(t, is->ty->arr.n), tc_nstr(t, tv->arr.n));
    e = tc_prim_expr(t, p, ty_array(a, is->ty->arr.elem->idx.n, tv->arr.elem), sp);
    e->prim.args[0] = is;
    e->prim.args[1] = v;
    return e;
}

/* scatter read without being stored: an error (scatter is lowered where it is written:
 * write_scatter below) */
static LwVal *lower_scatter_read(Lw *w, Expr *e)
{
    diag_error(w->d, e->sp, "the result of scatter is read here without being stored: scatter writes to memory; "
               "make it the kernel's result, or store it with toShared or toPrivate");
}

/* scatter(is)(vs): a fresh store where position is[i] holds vs[i]. Two writes to one
 * position are an error (on the GPU the result is undefined); a position no index
 * names holds no value, and reading it is an error. */
static void eval_scatter(IpCtx *c, const Code *e, IpVal *res)
{
    IpVal is, vs, s, x;
    ip_eval(c, e->args[0], &is);
    ip_eval(c, e->args[1], &vs);
    const RType *rt = e->ty;
    Node *out = ip_store_new(c, rt, NULL);
    int64_t *by = ip_pool_alloc(c, sizeof(int64_t) * (size_t)(rt->n ? rt->n : 1), false);
    for (int64_t j = 0; j < rt->n; j++) by[j] = -1;
    for (int64_t i = 0; i < is.ty->n; i++) {
        ip_val_sel(c, &is, i, is.ty->elem, &s);
        int64_t j = ip_check_index(c, e, s.s, i, rt->n);
        if (by[j] >= 0)
            ip_fail(c, e->sp, "scatter: elements %lld and %lld of the indices both write position %lld",
                 (long long)by[j], (long long)i, (long long)j);
        by[j] = i;
        ip_val_sel(c, &vs, i, vs.ty->elem, &x);
        ip_store_put(c, out, j, &x);
    }
    IpVal whole;
    ip_val_node(&whole, rt, out);
    Node *nd = ip_node_new(c, N_WRITTEN, &whole, NULL);
    nd->perm = by;
    nd->sp = e->sp;
    ip_val_node(res, rt, nd);
}

/* acc(scatter(is)(vs), out) = acc(vs, SCATTER(out, is)): element i of vs goes to position is[i] */
static void write_scatter(Lw *w, Expr *e, Acc *c)
{
        /* vs written where is says: element i of vs goes to position is[i] */
        Acc *r = lw_acceptor(w, W_SCATTER, e->prim.args[1]->ty, c);
        r->iv = lw_lower_exp(w, e->prim.args[0])->v;
        lw_lower_acc(w, e->prim.args[1], r);
}

const PrimOps prims_memory[P_COUNT] = {
    [P_TOGLOBAL] = {prim_infer_same, lower_to_global, prim_eval_same, NULL},
    [P_TOSHARED] = {prim_infer_same, lower_to_shared, prim_eval_same, NULL},
    [P_TOPRIVATE] = {prim_infer_same, lower_to_private, prim_eval_same, NULL},
    [P_TOPRIVATEFUN] = {infer_fun_form, lower_fun_form, eval_fun_form, NULL},
    [P_TOSHAREDFUN] = {infer_fun_form, lower_fun_form, eval_fun_form, NULL},
    [P_SCATTER] = {infer_scatter, lower_scatter_read, eval_scatter, write_scatter},
};
