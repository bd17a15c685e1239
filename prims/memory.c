/* memory.c: the materialisation in an address space, scatter, and the results of a
 * data-dependent length, compactTo and partitionTo (PF_MEMORY).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

#include <string.h>

/* ---------------------------------------------------------------- toGlobal, toShared, toPrivate */

/* toGlobal, toShared, toPrivate : t -> t, and their meaning is x itself: view.c's
 * prim_infer_same and prim_eval_same */

/* What toPrivate's buffers share: the thread dimensions the value is spread over (each
 * side's buffer holds one thread's part) */
typedef struct PrivSpec {
    Nat *spread; /* the elements of the spread dimensions (1: not spread) */
    int nd, ddim[3];
    Span sp;
} PrivSpec;

/* A private array for one side of toPrivate's value (all of it, unless it is an array
 * of pairs), declared here */
static Buffer *private_buffer(Lw *w, void *ctx, ScalarKind sk, Nat *count)
{
    const PrivSpec *ps = ctx;
    Arena *a = w->a;
    Nat *cnt = ps->nd ? nat_div(a, count, ps->spread) : count; /* a thread holds its part */
    int64_t c;
    if (!nat_is_const(cnt, &c)) {
        hint_const(w->d, a, cnt, 1, INT64_MAX);
        diag_error(w->d, ps->sp, "toPrivate needs a size known at compile time, but this array has %s elements "
                   "(specialise it with -D)", nat_str(a, cnt));
    }
    Buffer *b = lw_new_buffer(w, "p", AS_PRIVATE, sk, cnt);
    b->scalar = c == 1; /* a one-element private array is a scalar */
    b->ndist = ps->nd;
    memcpy(b->ddim, ps->ddim, sizeof(int) * (size_t)ps->nd);
    b->dsp = ps->sp;
    Stmt *d = lw_snew(w, S_DECL);
    d->decl.buf = b;
    lw_emit(w, d);
    return b;
}

/* A shared array for one side of toShared's value */
static Buffer *shared_buffer(Lw *w, void *ctx, ScalarKind sk, Nat *count)
{
    return lw_shared_buffer(w, "s", sk, count, *(const Span *)ctx);
}

/* toPrivate of a pair of scalars: a register per leaf */
static LwVal *private_leaves(Lw *w, LwVal *v)
{
    if (v->k == VAL_PAIR) {
        LwVal *l = private_leaves(w, v->a); /* left leaf first */
        return lw_pairv(w, l, private_leaves(w, v->b));
    }
    return lw_scalar(w, lw_materialise(w, v->x, "p"));
}

/* toPrivate(x): a register for a scalar; one register per lane for a warp array inside
 * mapWarp (a V_LANES view); else a private array of a size known at compile time,
 * written through an acceptor and read as memory. At block level, toPrivate of a
 * mapThreads is spread over the threads (Buffer.ndist): each thread's part is the
 * elements it computed, and only it reads them (lower.c's own_index) */
static LwVal *lower_to_private(Lw *w, Expr *e)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args;
    View *v;
    if (arg[0]->ty->kind == T_SCALAR || arg[0]->ty->kind == T_IDX)
        return lw_scalar(w, lw_materialise(w, lw_lower_exp(w, arg[0])->x, "p"));
    if (arg[0]->ty->kind == T_PAIR) {
        if (!ty_scalar_leaves(arg[0]->ty))
            diag_error(w->d, e->sp, "toPrivate of %s: a pair is kept in registers, one per scalar; store a side that "
                       "is an array with a toPrivate of its own", ty_str(a, arg[0]->ty));
        return private_leaves(w, lw_lower_exp(w, arg[0]));
    }
    int64_t n32;
    if (lw_inside(w, LVL_WARP) && !lw_inside(w, LVL_LANE) && nat_is_const(arg[0]->ty->arr.n, &n32) && n32 == 32) {
        /* private memory of a warp: one element per lane, in a register */
        LwVal *xs = lw_lower_exp(w, arg[0]);
        int64_t off;
        if (lw_lanes_offset(w, xs->v, &off) && off == 0 && (xs->v->kind == V_LANES || (xs->v->kind == V_ZIP && xs->v->soa)))
            return xs;
        LwVal *mine = lw_view_at(w, xs->v, nat_var(a, w->k->hw.lane));
        if (mine->k == VAL_ARRAY) diag_error(w->d, e->sp, "toPrivate of a warp array of %s is not supported", ty_str(a, arg[0]->ty->arr.elem));
        return lw_array(w, lw_lanes_of(w, arg[0]->ty, mine, e->sp));
    }
    /* toPrivate(mapThreads(f)(xs)) at block level (nested mapThreads along other
     * dimensions alike): each thread keeps the elements it computes, and only they are
     * its part of the buffer */
    int nd = 0, ddim[3];
    Type *part = arg[0]->ty;
    if (!lw_per_thread(w))
        for (const Expr *m = arg[0]; m->kind == E_PRIM && m->prim.p == P_MAPTHREADS && nd < 3;) {
            ddim[nd++] = m->prim.dim;
            part = part->arr.elem;
            for (m = m->prim.args[0]->lam.body; m->kind == E_LET;) m = m->let.body;
        }
    /* the spread dimensions: a thread holds 1/spread of each side */
    Nat *spread = nat_cst(a, 1);
    for (const Type *pt = arg[0]->ty; pt != part; pt = pt->arr.elem) spread = nat_mul(a, spread, pt->arr.n);
    PrivSpec ps = {.spread = spread, .nd = nd, .sp = e->sp};
    memcpy(ps.ddim, ddim, sizeof(int) * (size_t)nd);
    Acc *c0;
    if (!lw_soa(w, arg[0]->ty, private_buffer, &ps, &c0, &v))
        diag_error(w->d, e->sp, "toPrivate of %s: only arrays of scalars or of pairs of scalars can be stored",
                   ty_str(a, arg[0]->ty));
    lw_lower_acc(w, arg[0], c0);
    return lw_array(w, v);
}

/* toShared(x): a shared buffer of the block (laid out by smem.c), written through an
 * acceptor and read as memory; not inside a per-thread map */
static LwVal *lower_to_shared(Lw *w, Expr *e)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args;
    View *v;
    if (lw_per_thread(w))
        diag_error(w->d, e->sp, "toShared inside a per-thread map is not supported: materialise the whole "
                   "mapThreads/mapWarp result at block level instead");
    Nat *cnt;
    const Type *in = ty_innermost(a, arg[0]->ty, &cnt);
    if (!in) {
        /* pairs: one shared array per side (a pair alone as an array of one) */
        bool arr = arg[0]->ty->kind == T_ARRAY;
        Type *aty = arr ? arg[0]->ty : ty_array(a, nat_cst(a, 1), arg[0]->ty);
        Acc *c0;
        if (!lw_soa(w, aty, shared_buffer, &e->sp, &c0, &v))
            diag_error(w->d, e->sp, "toShared of %s: only scalars, pairs of scalars and arrays of them can be stored",
                       ty_str(a, arg[0]->ty));
        if (arr) {
            lw_lower_acc(w, arg[0], c0);
            return lw_array(w, v);
        }
        lw_acc_store(w, lw_acc_at(w, c0, nat_cst(a, 0)), lw_lower_exp(w, arg[0]), e->sp);
        return lw_view_at(w, v, nat_cst(a, 0));
    }
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
    if (!nat_equal(tv->arr.n, is->ty->arr.n)) {
        hint_fact(t->d, a, HINT_EQ, is->ty->arr.n, tv->arr.n);
        diag_error(t->d, sp, "scatter: %s positions for %s values", tc_nstr(t, is->ty->arr.n), tc_nstr(t, tv->arr.n));
    }
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

/* ---------------------------------------------------------------- compactTo, partitionTo, partitionStableTo */

/* compactTo(ws), partitionTo(ws) : n.(bool, (c, t)) -> (1.c, n.t), c an integer type and
 * t a scalar. Element i of ws is a record (f_i, (c_i, x_i)): whether x_i is selected,
 * and how many elements before it are (c_i, the exclusive count, which the kernel has
 * computed: a look-back scan of the flags). The result is the count m and the elements:
 * compactTo's first m are the selected ones in order (RISE's dependent pair
 * (m: nat ** m.t) with room for n); partitionTo's are those, then the others in reverse
 * order, all n written.
 * partitionStableTo(ms)(ws) : 1.c -> n.(bool, (c, t)) -> (1.c, n.t) is partitionTo with
 * the others in order: it must know where they start, so it takes the count m (ms, one
 * element, which an earlier launch computed); a wrong m is an error in the interpreter. */
static Expr *infer_compact(Tc *t, const TcApp *ap)
{
    Arena *a = t->a;
    const char *name = prim_info[ap->p].name;
    bool stable = ap->p == P_PARTITIONSTABLETO;
    Expr *m = stable ? tc_infer(t, ap->arg[0], ap->sc, NULL) : NULL;
    Expr *ws = tc_infer(t, ap->arg[stable ? 1 : 0], ap->sc, NULL);
    Type *tw = tc_want_array(t, ws, name);
    Type *r = tw->arr.elem;
    if (r->kind != T_PAIR || r->pair.a->kind != T_SCALAR || r->pair.a->sk != SK_BOOL || r->pair.b->kind != T_PAIR ||
        r->pair.b->pair.a->kind != T_SCALAR || scalar_info[r->pair.b->pair.a->sk].is_float ||
        r->pair.b->pair.a->sk == SK_BOOL || r->pair.b->pair.b->kind != T_SCALAR)
        diag_error(t->d, ws->sp, "%s expects records (selected, (count before, element)) of type n.(bool, (u32, t)) "
                   "(the count of an integer type, t a scalar), but this has type %s", name, tc_tstr(t, tw));
    Type *ct = r->pair.b->pair.a;
    if (stable) {
        Type *want = ty_array(a, nat_cst(a, 1), ct);
        if (!ty_equal(m->ty, want))
            diag_error(t->d, m->sp, "partitionStableTo's first argument is the number of selected records, of type %s "
                       "(the records' count type), but this has type %s", tc_tstr(t, want), tc_tstr(t, m->ty));
    }
    Expr *e = tc_prim_expr(t, ap->p, ty_pair(a, ty_array(a, nat_cst(a, 1), ct), ty_array(a, tw->arr.n, r->pair.b->pair.b)),
                           ap->sp);
    e->prim.args[0] = stable ? m : ws;
    if (stable) e->prim.args[1] = ws;
    return e;
}

/* Only a kernel's result: its count is known when the whole grid has run */
static LwVal *lower_compact_read(Lw *w, Expr *e)
{
    diag_error(w->d, e->sp, "the result of %s is read here: its length depends on the data, so it can only be "
               "the kernel's result (the count and the elements, two outputs)", prim_info[e->prim.p].name);
}

static int64_t count_of(Scalar s, ScalarKind sk) { return scalar_info[sk].is_signed ? s.i : (int64_t)s.u; }

/* The records in order; a count that is not the number of selected records before it is
 * an error (the GPU would write elsewhere). Elements past compactTo's count stay 0. */
static void eval_compact(IpCtx *c, const Code *e, IpVal *res)
{
    IpVal ws, rec, f, cnt;
    bool stable = e->p == P_PARTITIONSTABLETO, part = e->p == P_PARTITIONTO;
    ip_eval(c, e->args[stable ? 1 : 0], &ws);
    const RType *rt = e->ty, *et = ws.ty->elem;
    int64_t n = ws.ty->n, m = 0, rej = 0, given = 0;
    if (stable) {
        /* the count the kernel computed (a launch before), checked against the flags
         * before anything is written at a place it gives */
        IpVal mv, m0;
        ip_eval(c, e->args[0], &mv);
        ip_val_sel(c, &mv, 0, mv.ty->elem, &m0);
        given = count_of(m0.s, mv.ty->elem->sk);
        int64_t sel = 0;
        for (int64_t i = 0; i < n; i++) {
            Mark mk = ip_pool_mark(c);
            ip_val_sel(c, &ws, i, et, &rec);
            ip_val_sel(c, &rec, 0, et->a, &f);
            sel += f.s.b;
            ip_pool_release(c, mk);
        }
        if (given != sel)
            ip_fail(c, e->sp, "partitionStableTo: the count given is %lld, but %lld of the %lld records are selected",
                    (long long)given, (long long)sel, (long long)n);
    }
    Node *out = ip_store_new(c, rt->b, NULL);
    for (int64_t i = 0; i < n; i++) {
        Mark mk = ip_pool_mark(c);
        ip_val_sel(c, &ws, i, et, &rec);
        ip_val_sel(c, &rec, 0, et->a, &f);
        IpVal rest;
        ip_val_sel(c, &rec, 1, et->b, &rest);
        ip_val_sel(c, &rest, 0, et->b->a, &cnt);
        int64_t k = count_of(cnt.s, et->b->a->sk);
        if (k != m)
            ip_fail(c, e->sp, "%s: record %lld says %lld selected records come before it, but %lld do",
                    prim_info[e->p].name, (long long)i, (long long)k, (long long)m);
        IpVal x;
        ip_val_sel(c, &rest, 1, et->b->b, &x);
        if (f.s.b) ip_store_put(c, out, m++, &x);
        else if (part) ip_store_put(c, out, n - 1 - rej++, &x);
        else if (stable) ip_store_put(c, out, given + rej++, &x);
        ip_pool_release(c, mk);
    }
    Node *cn = ip_store_new(c, rt->a, NULL);
    IpVal mv;
    Scalar ms = {.i = m};
    ip_val_scalar(&mv, rt->a->elem, ms);
    ip_store_put(c, cn, 0, &mv);
    IpVal cv, ev;
    ip_val_node(&cv, rt->a, cn);
    ip_val_node(&ev, rt->b, out);
    ip_val_node(res, rt, ip_node_new(c, N_PAIR, &cv, &ev));
}

/* acc(compactTo(ws), (count, out)) = acc(ws, COMPACT(out, count)); the elements' output
 * acceptor c holds the count's buffer (lower.c's lower_result makes both outputs) */
static void write_compact(Lw *w, Expr *e, Acc *c)
{
    bool stable = e->prim.p == P_PARTITIONSTABLETO;
    Expr *ws = e->prim.args[stable ? 1 : 0];
    Acc *r = lw_acceptor(w, W_COMPACT, ws->ty, c);
    r->buf = c->cnt;
    r->n1 = ws->ty->arr.n;
    r->part = e->prim.p == P_PARTITIONTO;
    if (stable) r->iv = lw_lower_exp(w, e->prim.args[0])->v;
    lw_lower_acc(w, ws, r);
}

/* Record i = (f, (k, x)) written (c: the W_COMPACTEL acceptor of record i, under the
 * guards of the acceptors it came through):
 *   compactTo:   if (f) out[k] = x
 *   partitionTo: out[f ? k : (n-1-i) + k] = x        (the others from the end, i - k of them before)
 *   partitionStableTo(ms): out[f ? k : min(ms[0] + (i - k), n - 1)] = x   (the others after the m
 *                          selected; the min keeps a wrong ms inside the output)
 *   both:        if (i == n-1) count[0] = k + f      (the last record knows the total) */
void prims_compact_store(Lw *w, Acc *c, LwVal *v, Span sp)
{
    Acc *all = c->in;
    if (v->k != VAL_PAIR || v->b->k != VAL_PAIR || v->a->k != VAL_SCALAR || v->b->a->k != VAL_SCALAR)
        die("compactTo: record is not (bool, (count, element))");
    Stmt *outer = NULL, *inner;
    if (c->guard) lw_open_if(w, c->guard, &outer);
    X *f = lw_materialise(w, v->a->x, "sel");
    X *k = lw_materialise(w, v->b->a->x, "before");
    ScalarKind ck = k->sk;
    Nat *n = all->n1, *i = c->n1, *last = nat_sub(w->a, n, nat_cst(w->a, 1));
    Nat *elems = all->in->ty->arr.n;
    if (all->part || all->iv) {
        /* an unselected record's place: partitionTo's (n-1-i) + k, counted from the end,
         * or partitionStableTo's m + (i - k), after the m selected */
        X *rk = lw_xnew(w, X_CAST, ck);
        rk->un.e = lw_xnat(w, all->iv ? i : nat_sub(w->a, last, i));
        X *other = all->iv ? lw_xbin(w, OP_ADD, ck, lw_materialise(w, lw_view_at(w, all->iv, nat_cst(w->a, 0))->x, "given"),
                                     lw_xbin(w, OP_SUB, ck, rk, k))
                           : lw_xbin(w, OP_ADD, ck, rk, k);
        if (all->iv) {
            /* a count given wrongly (another predicate's) must not send the others past
             * the output: the interpreter stops on it, the kernel keeps to its n places
             * (a place past the end becomes the last; no test, no branch) */
            X *last_k = lw_xnew(w, X_CAST, ck), *m = lw_xnew(w, X_MINMAX, ck);
            last_k->un.e = lw_xnat(w, last);
            m->bin.op = OP_LT;
            m->bin.l = other;
            m->bin.r = last_k;
            other = m;
        }
        X *pos = lw_xnew(w, X_SELECT, ck);
        pos->sel.c = f;
        pos->sel.a = k;
        pos->sel.b = other;
        lw_acc_store(w, lw_acc_at(w, all->in, lw_data_index(w, pos, elems)), v->b->b, sp);
    } else {
        lw_open_if(w, f, &inner);
        lw_acc_store(w, lw_acc_at(w, all->in, lw_data_index(w, k, elems)), v->b->b, sp);
        w->cur = inner;
    }
    lw_open_if(w, lw_xbin(w, OP_EQ, SK_BOOL, lw_xnat(w, i), lw_xnat(w, last)), &inner);
    X *one = lw_xnew(w, X_CAST, ck);
    one->un.e = f;
    lw_store(w, all->buf, nat_cst(w->a, 0), lw_xbin(w, OP_ADD, ck, k, one));
    w->cur = outer ? outer : inner;
}

/* ---------------------------------------------------------------- accumulate */

/* The atomic operator f is: fun(a => fun(b => a op b)) or b op a, op one of + | & ^ or
 * add, min, max (all commutative and associative, so any order of the updates gives one
 * result); ATOM_NONE for any other function */
static AtomOp atom_of(const Expr *f)
{
    const Binder *x = f->lam.param, *y = f->lam.body->lam.param;
    const Expr *b = f->lam.body->lam.body, *l, *r;
    AtomOp op = ATOM_NONE;
    if (b->kind == E_BIN) {
        switch (b->bin.op) {
        case OP_ADD: op = ATOM_ADD; break;
        case OP_BOR: op = ATOM_OR; break;
        case OP_BAND: op = ATOM_AND; break;
        case OP_BXOR: op = ATOM_XOR; break;
        case OP_SUB: case OP_MUL: case OP_DIV: case OP_MOD: case OP_SHL: case OP_SHR: case OP_LT: case OP_GT:
        case OP_LE: case OP_GE: case OP_EQ: case OP_NE: case OP_AND: case OP_OR: case OP_COUNT: return ATOM_NONE;
        }
        l = b->bin.l;
        r = b->bin.r;
    } else if (b->kind == E_PRIM && (b->prim.p == P_ADD || b->prim.p == P_MIN || b->prim.p == P_MAX)) {
        op = b->prim.p == P_ADD ? ATOM_ADD : b->prim.p == P_MIN ? ATOM_MIN : ATOM_MAX;
        l = b->prim.args[0];
        r = b->prim.args[1];
    } else {
        return ATOM_NONE;
    }
    if (l->kind != E_VAR || r->kind != E_VAR) return ATOM_NONE;
    if ((l->var.b == x && r->var.b == y) || (l->var.b == y && r->var.b == x)) return op;
    return ATOM_NONE;
}


/* Does CUDA have an atomic of op on sk? atomicAdd: int, unsigned, unsigned long long,
 * float, double (long long through unsigned long long: the same bits); atomicMin/Max:
 * the four integer types, no floats; atomicOr/And/Xor: the integers (bool has none) */
static bool atom_has(AtomOp op, ScalarKind sk)
{
    if (sk == SK_BOOL) return false;
    if (op == ATOM_ADD) return true;
    return !scalar_info[sk].is_float;
}

/* accumulate(k)(op)(init)(ps) : k.t  for ps : n.(b, t), op : t -> t -> t, init : t,
 * b an integer type or idx[m]. op must be a commutative and associative operator that
 * CUDA has an atomic for on t (atom_of, atom_has) */
static Expr *infer_accumulate(Tc *t, const TcApp *ap)
{
    Arena *a = t->a;
    Ast **arg = ap->arg;
    Nat *k = tc_pos_nat_of(t, ap->nat[0], ap->sc, "accumulate's number of bins");
    Expr *ps = tc_infer(t, arg[2], ap->sc, NULL);
    Type *tp = tc_want_array(t, ps, "accumulate");
    Type *r = tp->arr.elem;
    if (r->kind != T_PAIR || r->pair.b->kind != T_SCALAR)
        diag_error(t->d, ps->sp, "accumulate expects pairs (bin, value) of type n.(u32, t) (t a scalar), but this has "
                   "type %s", tc_tstr(t, tp));
    Type *bt = r->pair.a, *vt = r->pair.b;
    if (!(bt->kind == T_IDX || (bt->kind == T_SCALAR && !scalar_info[bt->sk].is_float && bt->sk != SK_BOOL)))
        diag_error(t->d, ps->sp, "accumulate: a bin must be an index (an integer type or idx[k]), but the pairs' first "
                   "component has type %s", tc_tstr(t, bt));
    Expr *init = tc_infer(t, arg[1], ap->sc, vt);
    if (!ty_equal(init->ty, vt))
        diag_error(t->d, arg[1]->sp, "accumulate: the initial value has type %s but the values have type %s",
                   tc_tstr(t, init->ty), tc_tstr(t, vt));
    Type *fps[2] = {vt, vt};
    Expr *f = tc_check_fun(t, arg[0], fps, 2, ap->sc, vt, ap->sp);
    Type *rt = tc_fun_result(f, 2);
    if (!ty_equal(rt, vt))
        diag_error(t->d, arg[0]->sp, "accumulate: the operator returns %s but the values have type %s", tc_tstr(t, rt),
                   tc_tstr(t, vt));
    AtomOp op = atom_of(f);
    if (op == ATOM_NONE)
        diag_error(t->d, arg[0]->sp, "accumulate needs an operator that the GPU applies atomically and whose result does "
                   "not depend on the order of the updates (commutative and associative): add, min, max, or "
                   "fun(a => fun(b => a + b)) with +, |, & or ^");
    if (!atom_has(op, vt->sk))
        diag_error(t->d, arg[0]->sp, "accumulate: CUDA has no atomic %s on %s (atomic min and max take integers, "
                   "|, & and ^ integers, add any number type)", atom_info[op].name, tc_tstr(t, vt));
    Expr *e = tc_prim_expr(t, P_ACCUMULATE, ty_array(a, k, vt), ap->sp);
    e->prim.nats[0] = k;
    e->prim.args[0] = f;
    e->prim.args[1] = init;
    e->prim.args[2] = ps;
    return e;
}

/* accumulate read without being stored: an error (it is lowered where it is written) */
static LwVal *lower_accumulate_read(Lw *w, Expr *e)
{
    diag_error(w->d, e->sp, "the result of accumulate is read here without being stored: its bins are updated "
               "atomically in memory; store it with toShared in a mapBlock's block-level code");
}

/* accumulate(k)(op)(init)(ps): k bins that start at init; for each pair (b, v) of ps in
 * order, bin b becomes op(bin b)(v). A pair whose bin is outside [0, k) is dropped (as
 * CUB's HistogramEven drops samples outside its levels). The operator is commutative
 * and associative (the type rule), so this order gives what any order of the GPU's
 * atomics gives (for f32/f64 add, up to rounding). */
static void eval_accumulate(IpCtx *c, const Code *e, IpVal *res)
{
    const Code *f = e->args[0], *g = f->args[0];
    IpVal ps, init, pr, bv, vv, r;
    ip_eval(c, e->args[1], &init);
    ip_eval(c, e->args[2], &ps);
    const RType *rt = e->ty, *et = ps.ty->elem, *vt = rt->elem;
    int64_t k = rt->n;
    Scalar *h = ip_pool_alloc(c, sizeof(Scalar) * (size_t)(k ? k : 1), false);
    for (int64_t j = 0; j < k; j++) h[j] = init.s;
    bool uns = et->a->kind == T_SCALAR && !scalar_info[et->a->sk].is_signed;
    for (int64_t i = 0; i < ps.ty->n; i++) {
        Mark m = ip_pool_mark(c);
        ip_val_sel(c, &ps, i, et, &pr);
        ip_val_sel(c, &pr, 0, et->a, &bv);
        ip_val_sel(c, &pr, 1, et->b, &vv);
        bool in = uns ? bv.s.u < (uint64_t)k : bv.s.i >= 0 && bv.s.i < k;
        if (in) {
            int64_t j = uns ? (int64_t)bv.s.u : bv.s.i;
            IpVal hv;
            ip_val_scalar(&hv, vt, h[j]);
            ip_val_set(&c->env[f->slot], &hv);
            ip_val_set(&c->env[g->slot], &vv);
            ip_eval(c, g->args[0], &r);
            h[j] = r.s;
        }
        ip_pool_release(c, m);
    }
    Node *out = ip_store_new(c, rt, NULL);
    for (int64_t j = 0; j < k; j++) {
        IpVal x;
        ip_val_scalar(&x, vt, h[j]);
        ip_store_put(c, out, j, &x);
    }
    ip_val_node(res, rt, out);
}

/* Is 0 (all bits clear) op's neutral element on sk, so that bins zeroed once by the
 * runtime can start every launch? add (integers; +0.0 for floats), |, ^, and max of an
 * unsigned type */
static bool zero_neutral(AtomOp op, ScalarKind sk)
{
    return op == ATOM_ADD || op == ATOM_OR || op == ATOM_XOR || (op == ATOM_MAX && !scalar_info[sk].is_signed);
}

/* init lowered: a literal 0 (or a nat constant 0), under casts, is add's, |'s, ^'s and
 * max's neutral, where op(init)(b) = b needs no code */
static bool init_zero(Lw *w, Expr *e, LwVal **init)
{
    LwVal *v = lw_lower_exp(w, e->prim.args[1]);
    if (init) *init = v;
    X *iz = v->k == VAL_SCALAR ? v->x : NULL;
    int64_t v0 = 1;
    while (iz && iz->kind == X_CAST) iz = iz->un.e;
    return iz && ((iz->kind == X_LIT && iz->lit.u == 0) || (iz->kind == X_NAT && nat_is_const(iz->nat.n, &v0) && v0 == 0));
}

/* With bins_in_result (CompileOptions): the bins of a kernel-level accumulate e are the
 * kernel's output where c writes that output whole, as it is: the kernel's one output,
 * from element 0, of the bins' scalar and count; op(init) the identity (init 0); and,
 * for lastBlock (copy), at most 16 KiB of bins, which its last block copies to shared
 * memory before f writes the same words. The runtime then zeroes the output before each
 * launch (LdKernel.zero_out): no scratch bins, and nothing to clear. NULL otherwise (the
 * bins are scratch words, as without the option). */
Buffer *prim_result_bins(Lw *w, Expr *e, Acc *c, bool copy)
{
    Kernel *k = w->k;
    const Type *rt = k->def->body->ty;
    int64_t b0 = -1, cnt = 0;
    if (!k->bins_in_result || !c || c->kind != W_MEM || c->guard || c->dleft || !c->buf || c->buf->param != -1 ||
        k->nouts != 1 || c->buf != k->outs[0] || rt->kind != T_ARRAY || rt->arr.elem->kind != T_SCALAR ||
        !nat_is_const(c->base, &b0) || b0 != 0)
        return NULL;
    ScalarKind sk = lw_sk_of(e->ty->arr.elem);
    if (c->buf->sk != sk || !nat_equal(c->buf->count, e->ty->arr.n) || !init_zero(w, e, NULL)) return NULL;
    if (copy && (!nat_is_const(e->ty->arr.n, &cnt) || cnt * scalar_info[sk].size > 16384)) return NULL;
    c->buf->coherent = true;
    k->zero_out = true;
    return c->buf;
}

/* acc(ps, ATOMIC(bins, op)) for a kernel-level accumulate(k)(op)(init)(ps) (its result or
 * lastBlock's argument), in one launch (there is no grid-wide barrier between a zeroing
 * and the updates): bins are k global words, zero (op's neutral) at the start of every
 * launch: the output `into` where prim_result_bins gave it (the runtime zeroes it), else
 * scratch that the grid's last block reads and clears, handed over by the ticket
 * (*ticket, the kernel's; none asked for with ticket NULL). */
Buffer *prim_accumulate_bins(Lw *w, Expr *e, Buffer *into, Buffer **ticket)
{
    Arena *a = w->a;
    Expr *f = e->prim.args[0], *ps = e->prim.args[2];
    AtomOp op = atom_of(f);
    ScalarKind sk = lw_sk_of(e->ty->arr.elem);
    if (!zero_neutral(op, sk))
        diag_error(w->d, f->sp, "accumulate into global memory (the kernel's result or lastBlock's argument) needs an operator whose neutral "
                   "element is 0, as the bins start each launch at 0: add, |, ^, or max of an unsigned type; "
                   "for this one, accumulate in shared memory (toShared in a mapBlock)");
    Buffer *bins = into ? into : lw_scratch_buffer(w, "bins", sk, e->ty->arr.n);
    bins->coherent = true;
    if (ticket) *ticket = w->k->ticket = lw_scratch_buffer(w, "ticket", SK_U32, nat_cst(a, 1));
    Acc *r = lw_acceptor(w, W_ATOMIC, ps->ty, lw_mem_acc(w, e->ty, bins));
    r->atom = op;
    lw_lower_acc(w, ps, r);
    return bins;
}

/* In the last block, per bin j (a thread each): bins[j] = op(init)(bins[j]) into the
 * acceptor c, or with c NULL into bins itself (what lastBlock's function reads: nothing
 * to do for init a literal 0, add's, |'s, ^'s or max's neutral, op(0)(b) = b); with clear
 * bins[j] = 0 after it (with c NULL, only that). Whether it emitted anything. */
bool prim_accumulate_apply(Lw *w, Expr *e, Buffer *bins, Acc *c, bool clear)
{
    Arena *a = w->a;
    Expr *f = e->prim.args[0];
    ScalarKind sk = bins->sk;
    LwVal *init = NULL; /* lowered only where op(init) is applied or may be */
    bool apply = c != NULL;
    if (c || !clear) apply = !init_zero(w, e, &init) || c;
    if (!apply && !clear) return false;
    NatVar *iv;
    Stmt *saved, *ls = lw_open_loop(w, LVL_THREADS, 0, e->ty->arr.n, &iv, &saved);
    Nat *j = nat_var(a, iv);
    if (apply) {
        lw_bind(w, f->lam.param, init);
        lw_bind(w, f->lam.body->lam.param, lw_scalar(w, lw_xload(w, bins, j)));
        LwVal *v = lw_lower_exp(w, f->lam.body->lam.body);
        if (c) lw_acc_store(w, lw_acc_at(w, c, j), v, e->sp);
        else lw_store(w, bins, j, v->x);
    }
    if (clear) {
        X *zero = lw_xnew(w, X_CAST, sk);
        zero->un.e = lw_xnat(w, nat_cst(a, 0));
        lw_store(w, bins, j, zero);
    }
    lw_close_loop(w, ls, saved);
    return true;
}

/* acc(accumulate(k)(op)(init)(ps), out) as the kernel's result, in global memory:
 *   acc(ps, ATOMIC(bins, op))     (prim_accumulate_bins)
 *   the last block (lastBlock's ticket): out[j] = op(init)(bins[j]); bins[j] = 0
 * or, with the bins in the output (prim_result_bins), acc(ps, ATOMIC(out, op)) alone. */
static void write_accumulate_global(Lw *w, Expr *e, Acc *c)
{
    if (w->k->ticket)
        diag_error(w->d, e->sp, "accumulate into global memory hands its bins to the grid's last block, which this "
                   "kernel's lastBlock does already: one of them per kernel");
    Buffer *out = prim_result_bins(w, e, c, false);
    if (out) {
        (void)prim_accumulate_bins(w, e, out, NULL);
        return;
    }
    Buffer *ticket, *bins = prim_accumulate_bins(w, e, NULL, &ticket);
    Stmt *saved = lw_last_open(w, bins, ticket, e->sp);
    (void)prim_accumulate_apply(w, e, bins, c, true);
    lw_last_close(w, bins, ticket, saved);
}

/* acc(accumulate(k)(op)(init)(ps), bins) in shared memory at block level:
 *   mapThreads over the k bins: bins[j] = init;
 *   acc(ps, ATOMIC(bins, op))  (pair i: if (b in [0, k)) atomicOp(&bins[b], v))
 * barrier.c puts a __syncthreads between the two (different statements writing one
 * shared buffer) and before the bins are read. As the kernel's result (global memory,
 * outside every map): write_accumulate_global. */
static void write_accumulate(Lw *w, Expr *e, Acc *c)
{
    Arena *a = w->a;
    Expr *ps = e->prim.args[2];
    if (c->kind == W_MEM && c->buf && c->buf->as == AS_GLOBAL && c->buf->param == -1 && !c->dleft && !w->ndepth) {
        write_accumulate_global(w, e, c);
        return;
    }
    if (c->kind != W_MEM || !c->buf || c->buf->as != AS_SHARED || c->dleft || lw_per_thread(w) ||
        !lw_inside(w, LVL_BLOCK))
        diag_error(w->d, e->sp, "accumulate is lowered to atomics: store it with toShared in the block-level code of "
                   "a mapBlock (`... |> accumulate(k)(add)(0u) |> toShared`), or make it the kernel's result "
                   "(global memory)");
    Nat *k = e->ty->arr.n;
    NatVar *iv;
    Stmt *saved;
    Stmt *s = lw_open_loop(w, LVL_THREADS, 0, k, &iv, &saved);
    lw_acc_store(w, lw_acc_at(w, c, nat_var(a, iv)), lw_lower_exp(w, e->prim.args[1]), e->sp);
    lw_close_loop(w, s, saved);
    Acc *r = lw_acceptor(w, W_ATOMIC, ps->ty, c);
    r->atom = atom_of(e->prim.args[0]);
    lw_lower_acc(w, ps, r);
}

/* Pair i = (b, v) written (c: the W_ATOMICEL acceptor of pair i, under the guards of
 * the acceptors it came through): if (0 <= b && b < k) bins[b] = bins[b] op v, one
 * atomic store (S_STORE with atom) */
void prims_atomic_store(Lw *w, Acc *c, LwVal *v, Span sp)
{
    Acc *all = c->in;
    Arena *a = w->a;
    if (v->k != VAL_PAIR || v->a->k != VAL_SCALAR || v->b->k != VAL_SCALAR) die("accumulate: pair is not (bin, value)");
    Stmt *outer = NULL, *inner;
    if (c->guard) lw_open_if(w, c->guard, &outer);
    Nat *k = all->in->ty->arr.n;
    X *b = lw_materialise(w, v->a->x, "bin");
    X *kx = lw_xnew(w, X_CAST, b->sk);
    kx->un.e = lw_xnat(w, k);
    X *in = lw_xbin(w, OP_LT, SK_BOOL, b, kx);
    if (scalar_info[b->sk].is_signed) {
        X *z = lw_xnew(w, X_CAST, b->sk);
        z->un.e = lw_xnat(w, nat_cst(a, 0));
        in = lw_xbin(w, OP_AND, SK_BOOL, lw_xbin(w, OP_GE, SK_BOOL, b, z), in);
    }
    lw_open_if(w, in, &inner);
    Acc *cell = lw_acc_at(w, all->in, lw_data_index(w, b, k));
    if (cell->kind != W_MEM) die("accumulate: a bin is not memory");
    Stmt *s = lw_snew(w, S_STORE);
    s->store.buf = cell->buf;
    s->store.index = cell->base;
    s->store.val = v->b->x;
    s->store.atom = all->atom;
    lw_emit(w, s);
    (void)sp;
    w->cur = outer ? outer : inner;
}

const PrimOps prims_memory[P_COUNT] = {
    [P_TOGLOBAL] = {.infer = prim_infer_same, .lower = lower_to_global, .eval = prim_eval_same},
    [P_TOSHARED] = {.infer = prim_infer_same, .lower = lower_to_shared, .eval = prim_eval_same},
    [P_TOPRIVATE] = {.infer = prim_infer_same, .lower = lower_to_private, .eval = prim_eval_same},
    [P_TOPRIVATEFUN] = {.infer = infer_fun_form, .lower = lower_fun_form, .eval = eval_fun_form},
    [P_TOSHAREDFUN] = {.infer = infer_fun_form, .lower = lower_fun_form, .eval = eval_fun_form},
    [P_SCATTER] = {.infer = infer_scatter, .lower = lower_scatter_read, .eval = eval_scatter, .write = write_scatter},
    [P_COMPACTTO] = {.infer = infer_compact, .lower = lower_compact_read, .eval = eval_compact, .write = write_compact, .count_result = CR_PREFIX},
    [P_PARTITIONTO] = {.infer = infer_compact, .lower = lower_compact_read, .eval = eval_compact, .write = write_compact, .count_result = CR_SPLIT},
    [P_PARTITIONSTABLETO] = {.infer = infer_compact, .lower = lower_compact_read, .eval = eval_compact, .write = write_compact,
                             .count_result = CR_SPLIT},
    [P_ACCUMULATE] = {.infer = infer_accumulate, .lower = lower_accumulate_read, .eval = eval_accumulate, .write = write_accumulate},
};
