/* map.c: the maps and the sequential folds and scans (PF_MAP, PF_REDUCE).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

#include <string.h>

/* ---------------------------------------------------------------- the maps */

/* map_L(f) : n.s -> n.t  for f : s -> t; a parallel map must nest where CUDA can run it
 * (tc_check_nesting), and mapLane covers at most the 32 lanes of a warp along 'x' */
static Expr *infer_map(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    const PrimInfo *pi = &prim_info[ap->p];
    int dim = ap->dim;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Type *expected = ap->expected;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Expr *x = tc_infer(t, arg[1], sc, NULL);
    Type *tx = tc_want_array(t, x, pi->name);
    Level l = (Level)pi->level;
    if (l != LVL_SEQ) {
        tc_check_nesting(t, l, dim, sp);
        if (l == LVL_LANE) {
            int64_t c;
            if (!nat_is_const(tx->arr.n, &c) || c > 32 || c < 1) {
                hint_const(t->d, a, tx->arr.n, 1, 32);
                diag_error(t->d, sp, "mapLane distributes over the 32 lanes of a warp, but the array has type %s; "
                           "split(32) it first", tc_tstr(t, tx));
            }
            if (dim != 0)
                diag_error(t->d, sp, "mapLane('%c'): the lanes of a warp are 32 consecutive threads along 'x'", "xyz"[dim]);
        }
        if (t->ctx.n == 8) diag_error(t->d, sp, "maps nested too deeply");
        t->ctx.lv[t->ctx.n] = l;
        t->ctx.dim[t->ctx.n] = dim;
        t->ctx.sp[t->ctx.n] = sp;
        t->ctx.fdepth[t->ctx.n] = t->fdepth + 1;
        t->ctx.n++;
    }
    Type *et = expected && expected->kind == T_ARRAY ? expected->arr.elem : NULL;
    int seq_saved = t->seq_fdepth;
    TcMaps *m = &t->ctx;
    if (l == LVL_SEQ)
        t->seq_fdepth = m->n >= 1 && m->lv[0] == LVL_BLOCK && m->dim[0] == 0 && m->fdepth[m->n - 1] == t->fdepth &&
                                (m->n == 1 || (m->n == 2 && m->lv[1] == LVL_WARP))
                            ? t->fdepth + 1 : 0;
    Expr *f = tc_check_fun(t, arg[0], &tx->arr.elem, 1, sc, et, sp);
    t->seq_fdepth = seq_saved;
    if (l != LVL_SEQ) t->ctx.n--;
    e = tc_prim_expr(t, p, ty_array(a, tx->arr.n, tc_fun_result(f, 1)), sp);
    e->prim.dim = dim;
    e->prim.args[0] = f;
    e->prim.args[1] = x;
    return e;
}

/* mapSeq(f)(x)[i] = f(x[i]), computed where it is read (a V_MAP view) */
static LwVal *lower_map_seq(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    View *v;
    v = lw_view(w, V_MAP, e->ty, lw_lower_exp(w, arg[1])->v);
    v->fn = arg[0];
    return lw_array(w, v);
}

/* A parallel map read without being stored: an error (its elements live in other threads) */
static LwVal *lower_parallel_map(Lw *w, Expr *e)
{
    Prim p = e->prim.p;
    if ((p == P_MAPGLOBAL || p == P_MAPBLOCK) && !w->ndepth) /* at the top level: toGlobal ends a launch */
        diag_error(w->d, e->sp, "the result of %s is read here without being stored: a result of the whole "
                   "grid can only be the kernel's result or stored for a later launch; make it the kernel's "
                   "result, store it with `|> toGlobal |> fun(x => ...)` (a launch of its own), or reduce it in "
                   "the grid's last block with lastBlock", prim_info[p].name);
    if (p == P_MAPGLOBAL || p == P_MAPBLOCK)
        diag_error(w->d, e->sp, "the result of %s is read here without being stored: a result of the whole "
                   "grid can only be the kernel's result; make it the kernel's result, or reduce it in the "
                   "grid's last block with lastBlock", prim_info[p].name);
    diag_error(w->d, e->sp, "the result of %s is read here without being stored: materialise it with "
               "toShared, or make it the kernel's result", prim_info[p].name);
}

/* mapLane(f)(x) read inside a warp: each lane computes its own element into a register,
 * a V_LANES view; elsewhere as the other parallel maps */
static LwVal *lower_map_lane(Lw *w, Expr *e)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args;
    /* read inside a warp: each lane computes its own element into a register */
    if (lw_inside(w, LVL_WARP) && !lw_inside(w, LVL_LANE)) {
        int64_t n;
        if (!nat_is_const(e->ty->arr.n, &n) || n != 32) {
            hint_fact(w->d, a, HINT_EQ, e->ty->arr.n, nat_cst(a, 32));
            diag_error(w->d, e->sp, "a mapLane whose result is read must cover all 32 lanes, not %s",
                       nat_str(a, e->ty->arr.n));
        }
        LwVal *xs = lw_lower_exp(w, arg[1]);
        /* the function runs for the lane on its own, as in a mapLane loop: an array it
         * stores (toPrivate) is the lane's, not a warp array of 32 */
        LwVal *at = lw_view_at(w, xs->v, nat_var(a, w->k->hw.lane));
        w->lv[w->ndepth++] = LVL_LANE;
        LwVal *mine = lw_apply1(w, arg[0], at);
        w->ndepth--;
        return lw_array(w, lw_lanes_of(w, e->ty, mine, e->sp));
    }
    return lower_parallel_map(w, e);
}

/* mapLane(f) element written by its owner lane: acc(f(x), out) */
static void lane_body(Lw *w, LwVal *x, Acc *c, Span sp)
{
    (void)sp;
    Expr *f = w->lane_fn;
    lw_bind_once(w, f->lam.param, x, f->lam.body);
    lw_lower_acc(w, f->lam.body, c);
}

/* A map may write memory only that all its threads share with the code that reads
 * the result: shared memory belongs to one block, so no map that spreads over blocks
 * (mapGlobal, mapBlock) may fill it; private memory belongs to one thread, so only
 * sequential maps (and mapLane, whose warp arrays are handled apart, and the mapThreads
 * of a buffer spread over the threads, where each thread writes only its own part) may
 * fill it.
 * Otherwise each block or thread would fill its own copy, and the reader would see
 * elements nobody wrote in its copy. */
static void check_memory_scope(Lw *w, Expr *e, Acc *c)
{
    while (c->kind != W_MEM) c = c->in;
    Level l = (Level)prim_info[e->prim.p].level;
    const char *name = prim_info[e->prim.p].name;
    if (c->buf->as == AS_SHARED && (l == LVL_GLOBAL || l == LVL_BLOCK))
        diag_error(w->d, e->sp, "the result of %s is stored with toShared, but shared memory belongs to one block, "
                   "and %s spreads it over many; make it the kernel's result, or reduce it with lastBlock",
                   name, name);
    if (c->buf->as == AS_PRIVATE && l != LVL_SEQ && l != LVL_LANE && !(l == LVL_THREADS && c->buf->ndist))
        diag_error(w->d, e->sp, "the result of %s is stored with toPrivate, but private memory belongs to one "
                   "thread, and %s spreads it over many; store it with toShared%s", name, name,
                   l == LVL_GLOBAL || l == LVL_BLOCK ? " inside the block, or make it the kernel's result" : "");
}

/* Does e hold a lookback? Its iterations publish and wait for each other's prefixes,
 * so a loop holding one must run every iteration, also those written nowhere. */
static bool has_lookback(const Expr *e)
{
    if (!e) return false;
    switch (e->kind) {
    case E_VAR: case E_LIT: case E_NAT: return false;
    case E_LAM: return has_lookback(e->lam.body);
    case E_LET: return has_lookback(e->let.value) || has_lookback(e->let.body);
    case E_BIN: return has_lookback(e->bin.l) || has_lookback(e->bin.r);
    case E_UN: return has_lookback(e->un.e);
    case E_PRIM:
        if (e->prim.p == P_LOOKBACK) return true;
        for (int i = 0; i < prim_info[e->prim.p].nargs; i++)
            if (has_lookback(e->prim.args[i])) return true;
        return false;
    }
    return false;
}

/* Does the view chain f hold a take, drop or padCst? Written through, it visits the
 * elements take and drop cut off (each behind a guard that drops it), and padCst's
 * padding is written by its rows' first and last writers; read, they are skipped, and
 * padding is a bound test. So these are written through only what cannot be read. */
static bool cuts(const Expr *f)
{
    if (f->kind != E_PRIM) return false;
    if (f->prim.p == P_TAKE || f->prim.p == P_DROP || f->prim.p == P_PADCST) return true;
    if (f->prim.p == P_MAPSEQ || f->prim.p == P_MAPSEQUNROLL) return cuts(f->prim.args[0]->lam.body) || cuts(f->prim.args[1]);
    return cuts(f->prim.args[0]);
}

/* acc(mapSeq(f)(x), out)    = acc(x, MAPF(out, f))   when f is a view chain (with a take
 *                             or drop: only when x must be written, a parallel map): no loop
 * acc(mapLane(f)(xs), out)  = each element by the lane holding it, when xs is a warp array
 * acc(map_L(f)(xs), out)    = for_L i: acc(f(xs[i]), out[i]) */
static void write_map(Lw *w, Expr *e, Acc *c)
{
    Prim p = e->prim.p;
    if ((p == P_MAPSEQ || p == P_MAPSEQUNROLL) && lw_view_chain(e->prim.args[0]->lam.body, e->prim.args[0]->lam.param) &&
        (!cuts(e->prim.args[0]->lam.body) || prim_written_map(e->prim.args[1]))) {
        /* a map of a pure view function writes through a transformed acceptor: no loop */
        Acc *r = lw_acceptor(w, W_MAPF, e->prim.args[1]->ty, c);
        r->fn = e->prim.args[0];
        lw_lower_acc(w, e->prim.args[1], r);
        return;
    }
    int64_t off;
    LwVal *lx = p == P_MAPLANE ? lw_lower_exp(w, e->prim.args[1]) : NULL;
    if (lx && lw_lanes_offset(w, lx->v, &off)) {
        /* mapLane over a warp array: each element is handled by the lane holding it */
        Expr *saved_fn = w->lane_fn;
        w->lane_fn = e->prim.args[0];
        lw_store_by_owner(w, lx->v, off, c, lane_body, e->sp);
        w->lane_fn = saved_fn;
        return;
    }
    check_memory_scope(w, e, c);
    LwVal *xs = lx ? lx : lw_lower_exp(w, e->prim.args[1]);
    NatVar *iv;
    Stmt *saved;
    Stmt *seq_loop = w->seq_loop, *seq_parent = w->seq_parent;
    bool seq_looked = w->seq_looked;
    /* a sequential map written through take(k) or drop(k) visits only the elements kept:
     * its loop runs over them, and their guards fold (a parallel map keeps its extent,
     * the launch's shape, and its guards; so does a loop holding a lookback) */
    Nat *ext_n = e->ty->arr.n, *first = NULL;
    bool shorten = prim_info[p].level == LVL_SEQ && !has_lookback(e->prim.args[0]);
    if (shorten && c->kind == W_TAKEW) ext_n = c->n1;
    if (shorten && c->kind == W_DROPW) {
        ext_n = nat_sub(w->a, ext_n, c->n1);
        first = c->n1;
    }
    Stmt *s = lw_open_loop(w, (Level)prim_info[p].level, e->prim.dim, ext_n, &iv, &saved);
    /* a mapSeq written in order, each iteration once: where lookback may carry a prefix */
    w->seq_loop = prim_info[p].level == LVL_SEQ ? s : NULL;
    w->seq_parent = saved;
    w->seq_looked = false;
    s->loop.unroll = p == P_MAPSEQUNROLL;
    Nat *i = nat_var(w->a, iv);
    if (first) i = nat_add(w->a, i, first);
    Expr *f = e->prim.args[0];
    int64_t ext;
    bool partial = p == P_MAPLANE && !(nat_is_const(e->ty->arr.n, &ext) && ext == 32);
    w->partial_lanes += partial;
    lw_bind_once(w, f->lam.param, lw_view_at(w, xs->v, i), f->lam.body);
    lw_lower_acc(w, f->lam.body, lw_acc_at(w, c, i));
    w->partial_lanes -= partial;
    w->seq_loop = seq_loop;
    w->seq_parent = seq_parent;
    w->seq_looked = seq_looked;
    lw_close_loop(w, s, saved);
}

/* map(f)(a)[i] = f(a[i]) (all map levels alike). Each iteration's temporaries
 * are released once its result is copied into the output store. */
static void eval_map(IpCtx *c, const Code *e, IpVal *res)
{
    const Code *f = e->args[0];
    IpVal a, x, r;
    ip_eval(c, e->args[1], &a);
    const RType *rt = e->ty;
    Node *out = ip_store_new(c, rt, NULL);
    bool blocks = e->p == P_MAPBLOCK;
    /* lookback's running prefix is over the nearest mapBlock's blocks, or over the
     * iterations of a mapSeq in its block-level code (the type checker allows no other
     * place), so each of them starts its own */
    bool seq = e->p == P_MAPSEQ || e->p == P_MAPSEQUNROLL;
    LbState saved_lb = c->lb;
    if (blocks || seq) c->lb = (LbState){.on = true, .last = -1};
    for (int64_t i = 0; i < rt->n; i++) {
        Mark m = ip_pool_mark(c);
        if (blocks || seq) c->lb.block = i;
        ip_val_sel(c, &a, i, a.ty->elem, &x);
        ip_apply(c, f, &x, &r);
        ip_store_put(c, out, i, &r);
        ip_pool_release(c, m);
    }
    if (blocks || seq) c->lb = saved_lb;
    ip_val_node(res, rt, out);
}

/* ---------------------------------------------------------------- reduceSeq */

/* A sequential fold's or scan's accumulator: one register of kind sk, declared with
 * its initial value where the loop starts. */
static Buffer *scalar_acc(Lw *w, ScalarKind sk, X *init)
{
    Buffer *accb;
    lw_emit(w, lw_scalar_decl(w, "acc", sk, init, &accb));
    return accb;
}

/* The type an accumulator's initial value is checked against. The operator's
 * annotation of its accumulator parameter says it (reduceSeq(fun(i32)(acc => ...))(0)
 * over floats starts from an i32 0); without one, `fallback` (the elements' type). An
 * unsuffixed integer literal over float elements with an unannotated function operator
 * is an error naming both fixes: the literal would be a float there, yet a count over
 * floats wants an integer accumulator, and nothing says which the user meant. A
 * primitive operator (add, max, ...) takes two equal types, so the fallback is right. */
static Type *acc_expected(Tc *t, const PrimInfo *pi, Ast *op, int accpos, Ast *init, Type *fallback, Scope *sc)
{
    Ast *acc = op;
    if (accpos == 1) acc = op->kind == A_LAM && op->lam.body->kind == A_LAM ? op->lam.body : NULL;
    if (acc && acc->kind == A_LAM && acc->lam.ptype) return tc_type_of(t, acc->lam.ptype, sc);
    Ast *lit = init;
    while (lit->kind == A_UN) lit = lit->un.e;
    if (op->kind == A_LAM && lit->kind == A_INT && !lit->lit_int.suffixed && fallback && fallback->kind == T_SCALAR &&
        scalar_info[fallback->sk].is_float)
        diag_error(t->d, init->sp, "%s: the initial value is an integer literal, but the elements are %s and the "
                   "operator does not give its accumulator a type: write %llu.0%s for an %s accumulator, or "
                   "i32(%llu) (or annotate the accumulator: fun(i32)(acc => ...)) for an integer one",
                   pi->name, scalar_info[fallback->sk].name, (unsigned long long)lit->lit_int.v,
                   fallback->sk == SK_F32 ? "f" : "", scalar_info[fallback->sk].name, (unsigned long long)lit->lit_int.v);
    return fallback;
}

/* reduceSeq(f)(init)(xs) : t  for f : t -> s -> t, init : t, xs : n.s */
static Expr *infer_reduce(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    const PrimInfo *pi = &prim_info[ap->p];
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Expr *e;
    Expr *x = tc_infer(t, arg[2], sc, NULL);
    Type *tx = tc_want_array(t, x, pi->name);
    Expr *init = tc_infer(t, arg[1], sc, acc_expected(t, pi, arg[0], 0, arg[1], tx->arr.elem, sc));
    Type *ps[2] = {init->ty, tx->arr.elem};
    Expr *f = tc_check_fun(t, arg[0], ps, 2, sc, init->ty, sp);
    Type *rt = tc_fun_result(f, 2);
    if (!ty_equal(rt, init->ty))
        diag_error(t->d, arg[0]->sp, "%s: the operator returns %s but the accumulator has type %s", pi->name,
                   tc_tstr(t, rt), tc_tstr(t, init->ty));
    e = tc_prim_expr(t, p, init->ty, sp);
    e->prim.args[0] = f;
    e->prim.args[1] = init;
    e->prim.args[2] = x;
    return e;
}

/* The most elements an array accumulator may have: it lives in private memory, which
 * is registers only while every index into it is a constant (loops unrolled). */
enum { MAX_ACC_ELEMS = 64 };

/* copy(v, out) with every loop unrolled: the copies in and out of a private array stay
 * register moves. Into an accumulator spread over the threads, each thread copies its
 * own part (lw_copy_val's thread loops; loops.c unrolls the rest). */
static void copy_unrolled(Lw *w, LwVal *v, Acc *c, Span sp)
{
    if (c->kind == W_MEM && c->dleft) {
        lw_copy_val(w, v, c, sp);
        return;
    }
    if (v->k != VAL_ARRAY) {
        lw_acc_store(w, c, v, sp);
        return;
    }
    NatVar *iv;
    Stmt *saved;
    Stmt *s = lw_open_loop(w, LVL_SEQ, 0, v->v->ty->arr.n, &iv, &saved);
    s->loop.unroll = true;
    Nat *i = nat_var(w->a, iv);
    copy_unrolled(w, lw_view_at(w, v->v, i), lw_acc_at(w, c, i), sp);
    lw_close_loop(w, s, saved);
}

/* Can body, the operator's new accumulator, be written straight into the accumulator
 * acc it reads? When it is mapSeq(g)(acc), mapSeq(g)(zip(acc)(ys)) or mapSeq(g)(zip(ys)(acc)),
 * with scalar elements and acc mentioned nowhere else, element i reads acc[i] and then
 * writes acc[i], and no other element of acc: yes. Otherwise element i might read an
 * element written before it, so the new value goes to a temporary first. */
static bool elementwise_update(const Expr *body, const Binder *acc)
{
    if (body->kind != E_PRIM || (body->prim.p != P_MAPSEQ && body->prim.p != P_MAPSEQUNROLL)) return false;
    if (body->ty->arr.elem->kind != T_SCALAR || lw_count_uses(body, acc, 1) != 1) return false;
    const Expr *xs = body->prim.args[1];
    if (xs->kind == E_VAR) return xs->var.b == acc;
    if (xs->kind != E_PRIM || xs->prim.p != P_ZIP) return false;
    for (int k = 0; k < 2; k++)
        if (xs->prim.args[k]->kind == E_VAR && xs->prim.args[k]->var.b == acc) return true;
    return false;
}

/* A private buffer of count elements, spread over the threads as `like` is (NULL: not
 * spread) */
static Buffer *spread_like(Lw *w, const char *prefix, const Buffer *like, ScalarKind sk, Nat *count)
{
    Buffer *b = lw_new_buffer(w, prefix, AS_PRIVATE, sk, count);
    if (like) {
        b->ndist = like->ndist;
        memcpy(b->ddim, like->ddim, sizeof b->ddim);
        b->dsp = like->dsp;
    }
    return b;
}

/* reduceSeq(f)(init)(xs) with init : k.t (or nested arrays of k scalars in all), k a
 * constant <= MAX_ACC_ELEMS:
 *   t acc[k] = init; for j < n: { acc = f(acc)(xs[j]) }   (acc private)
 * The operator's body writes its new array into acc itself when that is safe
 * (elementwise_update), else into a private temporary that is then copied into acc.
 * When init is spread over the threads (toPrivate of a mapThreads at block level), acc
 * and the temporary are spread the same way: every thread runs the loop, the body's
 * mapThreads writes each thread's part, and k counts one thread's part. */
static __attribute__((noinline)) LwVal *reduce_array(Lw *w, Expr *e, LwVal *init)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args, *f = arg[0];
    const char *name = prim_info[e->prim.p].name;
    Nat *cnt;
    int64_t k;
    /* an initial value spread over the threads (toPrivate of a mapThreads): so is the
     * accumulator, and each thread folds its own part, which is what has to fit */
    View *iv0 = init->v;
    Buffer *spread = iv0->kind == V_MEM && iv0->dleft && iv0->dleft == iv0->buf->ndist ? iv0->buf : NULL;
    Type *part = e->ty;
    for (int d = 0; spread && d < spread->ndist; d++) part = part->arr.elem;
    const Type *in = ty_innermost(a, part, &cnt);
    if (!in)
        diag_error(w->d, arg[1]->sp, "%s with an accumulator of type %s is not supported: an array accumulator "
                   "must hold scalars", name, ty_str(a, e->ty));
    if (!nat_is_const(cnt, &k)) {
        hint_const(w->d, a, cnt, 1, MAX_ACC_ELEMS);
        diag_error(w->d, arg[1]->sp, "%s: the array accumulator (%s) needs a size known at compile time, but it "
                   "has %s elements (specialise it with -D)", name, ty_str(a, e->ty), nat_str(a, cnt));
    }
    if (k > MAX_ACC_ELEMS)
        diag_error(w->d, arg[1]->sp, "%s: the array accumulator (%s) has %lld elements%s, more than the %d that "
                   "are kept in registers; reduce a smaller tile, or store partial results with toPrivate%s",
                   name, ty_str(a, e->ty), (long long)k, spread ? " per thread" : "", MAX_ACC_ELEMS,
                   spread || !lw_inside(w, LVL_BLOCK) || lw_per_thread(w)
                       ? ""
                       : "; at block level every thread folds the whole accumulator, unless the initial value is "
                         "spread over the threads (toPrivate of a mapThreads), when each folds its own part");
    Buffer *accb = spread_like(w, "acc", spread, lw_sk_of(in), cnt);
    accb->scalar = k == 1;
    Stmt *d = lw_snew(w, S_DECL);
    d->decl.buf = accb;
    lw_emit(w, d);
    Acc *ca = lw_mem_acc(w, e->ty, accb);
    copy_unrolled(w, init, ca, arg[1]->sp);
    View *av = lw_mem_view(w, e->ty, accb);
    LwVal *xs = lw_lower_exp(w, arg[2]);
    NatVar *iv;
    Stmt *saved;
    Stmt *s = lw_open_loop(w, LVL_SEQ, 0, arg[2]->ty->arr.n, &iv, &saved);
    s->loop.unroll = e->prim.p == P_REDUCESEQUNROLL || (xs->v->kind == V_MEM && xs->v->buf->vec);
    Expr *body = f->lam.body->lam.body;
    lw_bind(w, f->lam.param, lw_array(w, av));
    lw_bind(w, f->lam.body->lam.param, lw_view_at(w, xs->v, nat_var(a, iv)));
    if (!spread && elementwise_update(body, f->lam.param)) {
        lw_lower_acc(w, body, ca);
    } else {
        Buffer *tb = spread_like(w, "nacc", spread, lw_sk_of(in), cnt);
        tb->scalar = k == 1;
        Stmt *td = lw_snew(w, S_DECL);
        td->decl.buf = tb;
        lw_emit(w, td);
        Acc *ct = lw_mem_acc(w, e->ty, tb);
        lw_lower_acc(w, body, ct);
        View *tv = lw_mem_view(w, e->ty, tb);
        copy_unrolled(w, lw_array(w, tv), ca, e->sp);
    }
    lw_close_loop(w, s, saved);
    return lw_array(w, av);
}

static LwVal *acc_regs(Lw *w, LwVal *v, Span sp);
static void acc_set(Lw *w, LwVal *regs, LwVal *v);
static LwVal *acc_fix(Lw *w, LwVal *v);

/* reduceSeq(f)(init)(xs) with init a pair (nested pairs) of scalars: a register per
 * leaf, as scanSeq's accumulator (an argmax folds (value, index) pairs):
 *   a = init; for j < n: { nx = f(a)(xs[j]); a = nx }   (leaf by leaf) */
static LwVal *reduce_pair(Lw *w, Expr *e, LwVal *init)
{
    Expr **arg = e->prim.args, *f = arg[0];
    LwVal *xs = lw_lower_exp(w, arg[2]);
    LwVal *acc = acc_regs(w, init, arg[1]->sp);
    NatVar *iv;
    Stmt *saved;
    Stmt *s = lw_open_loop(w, LVL_SEQ, 0, arg[2]->ty->arr.n, &iv, &saved);
    s->loop.unroll = e->prim.p == P_REDUCESEQUNROLL || (xs->v->kind == V_MEM && xs->v->buf->vec);
    lw_bind(w, f->lam.param, acc);
    lw_bind(w, f->lam.body->lam.param, lw_view_at(w, xs->v, nat_var(w->a, iv)));
    acc_set(w, acc, acc_fix(w, lw_lower_exp(w, f->lam.body->lam.body)));
    lw_close_loop(w, s, saved);
    return acc;
}

/* acc = init; for j < n: acc = f(acc, xs[j]); the accumulator lives in a register */
static LwVal *lower_reduce(Lw *w, Expr *e)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args;
    Prim p = e->prim.p;
    LwVal *init = lw_lower_exp(w, arg[1]);
    if (init->k == VAL_ARRAY) return reduce_array(w, e, init);
    if (init->k == VAL_PAIR) return reduce_pair(w, e, init);
    LwVal *xs = lw_lower_exp(w, arg[2]);
    Buffer *accb = scalar_acc(w, lw_sk_of(e->ty), init->x);
    NatVar *iv;
    Stmt *saved;
    Stmt *s = lw_open_loop(w, LVL_SEQ, 0, arg[2]->ty->arr.n, &iv, &saved);
    /* a vector register is only a register when every index is a constant */
    s->loop.unroll = p == P_REDUCESEQUNROLL || (xs->v->kind == V_MEM && xs->v->buf->vec);
    Expr *f = arg[0];
    lw_bind(w, f->lam.param, lw_scalar(w, lw_xload(w, accb, nat_cst(a, 0))));
    lw_bind_once(w, f->lam.body->lam.param, lw_view_at(w, xs->v, nat_var(a, iv)), f->lam.body->lam.body);
    LwVal *r = lw_lower_exp(w, f->lam.body->lam.body);
    lw_store(w, accb, nat_cst(a, 0), r->x);
    lw_close_loop(w, s, saved);
    return lw_scalar(w, lw_xload(w, accb, nat_cst(a, 0)));
}

/* reduceSeq(f)(init)(a) = f(...f(f(init, a[0]), a[1])..., a[n-1]). A non-scalar
 * accumulator alternates between two stores, so that an iteration's temporaries can go. */
static void eval_reduce(IpCtx *c, const Code *e, IpVal *acc)
{
    const Code *f = e->args[0], *g = f->args[0];
    IpVal a, r;
    ip_eval(c, e->args[1], acc);
    ip_eval(c, e->args[2], &a);
    const RType *at = e->ty;
    Node *st[2] = {NULL, NULL};
    int cur = 0;
    if (at->kind != T_SCALAR) {
        st[0] = ip_store_new(c, at, NULL);
        st[1] = ip_store_new(c, at, NULL);
        acc->ty = at;
        ip_store_put(c, st[0], -1, acc);
        ip_val_node(acc, at, st[0]);
    }
    for (int64_t i = 0; i < a.ty->n; i++) {
        Mark m = ip_pool_mark(c);
        ip_val_set(&c->env[f->slot], acc);
        ip_val_sel(c, &a, i, a.ty->elem, &c->env[g->slot]);
        ip_eval(c, g->args[0], &r);
        if (at->kind == T_SCALAR) {
            ip_val_scalar(acc, at, r.s);
        } else {
            r.ty = at;
            ip_store_put(c, st[1 - cur], -1, &r);
            cur = 1 - cur;
            ip_val_node(acc, at, st[cur]);
        }
        ip_pool_release(c, m);
    }
    acc->ty = at;
}

/* ---------------------------------------------------------------- scanSeq */

/* scanSeq(f)(init)(xs) : n.t  for f : s -> t -> t, init : t, xs : n.s. The operator
 * takes the element first and the accumulator second, as shine's primitives.scala
 * types it: scanSeq : (s ->: t ->: t) ->: t ->: (n`.`s) ->: (n`.`t) (and its test
 * apps/scan.scala writes scanSeq(fun(x => fun(a => a + x)))); reduceSeq's operator
 * is the other way round, (t ->: s ->: t). scanSeqExcl has the same type. */
static Expr *infer_scan(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Type *expected = ap->expected;
    Span sp = ap->sp;
    Arena *a = t->a;
    const PrimInfo *pi = &prim_info[p];
    Expr *x = tc_infer(t, arg[2], sc, NULL);
    Type *tx = tc_want_array(t, x, pi->name);
    Type *hint = expected && expected->kind == T_ARRAY ? expected->arr.elem
                                                       : acc_expected(t, pi, arg[0], 1, arg[1], tx->arr.elem, sc);
    Expr *init = tc_infer(t, arg[1], sc, hint);
    Type *ps[2] = {tx->arr.elem, init->ty};
    Expr *f = tc_check_fun(t, arg[0], ps, 2, sc, init->ty, sp);
    Type *rt = tc_fun_result(f, 2);
    if (!ty_equal(rt, init->ty))
        diag_error(t->d, arg[0]->sp, "%s: the operator returns %s but the accumulator has type %s "
                   "(the operator takes the element first, then the accumulator)", pi->name,
                   tc_tstr(t, rt), tc_tstr(t, init->ty));
    Expr *e = tc_prim_expr(t, p, ty_array(a, tx->arr.n, init->ty), sp);
    e->prim.args[0] = f;
    e->prim.args[1] = init;
    e->prim.args[2] = x;
    return e;
}

/* A scan read without being stored: an error (a scan is lowered where it is written:
 * lower_scan below) */
static LwVal *lower_scan_read(Lw *w, Expr *e)
{
    Prim p = e->prim.p;
    /* element i of a scan needs elements 0..i: read lazily it would be recomputed
     * per element, so, like a parallel map's, its result must be stored first */
    diag_error(w->d, e->sp, "the result of %s is read here without being stored: materialise it with "
               "toPrivate (or toShared), or make it the kernel's result", prim_info[p].name);
}

/* A register per scalar leaf of v (a scalar, or pairs of scalars: a scan's accumulator
 * of records such as compactTo's), set to v; the value that reads them */
static LwVal *acc_regs(Lw *w, LwVal *v, Span sp)
{
    if (v->k == VAL_PAIR) {
        LwVal *l = acc_regs(w, v->a, sp); /* left leaf first: C leaves an argument list's order open */
        return lw_pairv(w, l, acc_regs(w, v->b, sp));
    }
    if (v->k != VAL_SCALAR)
        diag_error(w->d, sp, "a pair accumulator must hold scalars or pairs of scalars, not an array");
    return lw_scalar(w, lw_xload(w, scalar_acc(w, v->x->sk, v->x), nat_cst(w->a, 0)));
}

/* regs (acc_regs's value) = v, leaf by leaf, in order: v must not read regs (acc_fix) */
static void acc_set(Lw *w, LwVal *regs, LwVal *v)
{
    if (regs->k == VAL_PAIR) {
        acc_set(w, regs->a, v->a);
        acc_set(w, regs->b, v->b);
        return;
    }
    lw_store(w, regs->x->load.buf, nat_cst(w->a, 0), v->x);
}

/* every scalar leaf of v computed into a temporary, so that acc_set's stores read none
 * of the registers it writes */
static LwVal *acc_fix(Lw *w, LwVal *v)
{
    if (v->k == VAL_PAIR) {
        LwVal *l = acc_fix(w, v->a);
        return lw_pairv(w, l, acc_fix(w, v->b));
    }
    return lw_scalar(w, lw_materialise(w, v->x, "nx"));
}

/* acc(scanSeq(f)(init)(xs), out)     = a = init; for j < n: { a = f(xs[j])(a); out[j] = a }
 * acc(scanSeqExcl(f)(init)(xs), out) = a = init; for j < n: { out[j] = a; a = f(xs[j])(a) }
 * One thread runs the loop; the accumulator a is a register per scalar leaf (a scalar or
 * pairs of scalars). */
static void lower_scan(Lw *w, Expr *e, Acc *c)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args, *f = arg[0];
    bool excl = e->prim.p == P_SCANSEQEXCL;
    LwVal *init = lw_lower_exp(w, arg[1]);
    if (init->k == VAL_ARRAY)
        diag_error(w->d, arg[1]->sp, "%s with an array accumulator is not supported; use a scalar accumulator "
                   "(or pairs of scalars)", prim_info[e->prim.p].name);
    LwVal *xs = lw_lower_exp(w, arg[2]);
    LwVal *acc = acc_regs(w, init, arg[1]->sp);
    NatVar *iv;
    Stmt *saved;
    Stmt *s = lw_open_loop(w, LVL_SEQ, 0, arg[2]->ty->arr.n, &iv, &saved);
    s->loop.unroll = xs->v->kind == V_MEM && xs->v->buf->vec;
    Nat *j = nat_var(a, iv);
    if (excl) lw_acc_store(w, lw_acc_at(w, c, j), acc, e->sp);
    lw_bind_once(w, f->lam.param, lw_view_at(w, xs->v, j), f->lam.body->lam.body);
    lw_bind(w, f->lam.body->lam.param, acc);
    LwVal *nv = lw_lower_exp(w, f->lam.body->lam.body);
    acc_set(w, acc, acc->k == VAL_PAIR ? acc_fix(w, nv) : nv);
    if (!excl) lw_acc_store(w, lw_acc_at(w, c, j), acc, e->sp);
    lw_close_loop(w, s, saved);
}

/* scanSeq(f)(init)(a)[i]     = f(a[i])(scanSeq(f)(init)(a)[i-1]), with [-1] = init;
 * scanSeqExcl(f)(init)(a)[0] = init, [i+1] = f(a[i])([i]).
 * scanPipe's operator takes the accumulator first (acc_first: op(prefix)(a[i])), and so
 * does its meaning here (prims/warp.c).
 * The accumulator is always the previous element of the output store (or init), so an
 * iteration's temporaries go once its element is stored, whatever the element type. */
void prims_eval_scan(IpCtx *c, const Code *e, bool excl, bool acc_first, IpVal *res)
{
    const Code *f = e->args[0], *g = f->args[0];
    const int xs = acc_first ? g->slot : f->slot, as = acc_first ? f->slot : g->slot;
    IpVal a, acc, r, ov;
    ip_eval(c, e->args[1], &acc);
    ip_eval(c, e->args[2], &a);
    const RType *rt = e->ty;
    Node *out = ip_store_new(c, rt, NULL);
    ip_val_node(&ov, rt, out);
    int64_t n = rt->n;
    acc.ty = rt->elem;
    if (excl && n > 0) ip_store_put(c, out, 0, &acc);
    for (int64_t i = 0; i < n - excl; i++) {
        Mark m = ip_pool_mark(c);
        if (i > 0 || excl) ip_val_sel(c, &ov, i - 1 + excl, rt->elem, &acc);
        ip_val_sel(c, &a, i, a.ty->elem, &c->env[xs]);
        ip_val_set(&c->env[as], &acc);
        ip_eval(c, g->args[0], &r);
        r.ty = rt->elem;
        ip_store_put(c, out, i + excl, &r);
        ip_pool_release(c, m);
    }
    ip_val_node(res, rt, out);
}

static void eval_scan(IpCtx *c, const Code *e, IpVal *res) { prims_eval_scan(c, e, e->p == P_SCANSEQEXCL, false, res); }

/* mapSeq(f) as a link of a view chain (PrimOps.through): its argument written to
 * MAPF(c, f), when f is a view chain itself */
static Acc *through_map_seq(Lw *w, Expr *e, Acc *c)
{
    Acc *r = lw_acceptor(w, W_MAPF, e->prim.args[1]->ty, c);
    r->fn = e->prim.args[0];
    return r;
}

static bool map_seq_link(const Expr *e, const Binder *x)
{
    (void)x;
    return lw_view_chain(e->prim.args[0]->lam.body, e->prim.args[0]->lam.param);
}

const PrimOps prims_map[P_COUNT] = {
    [P_MAPSEQ] = {.infer = infer_map, .lower = lower_map_seq, .eval = eval_map, .write = write_map, .through = through_map_seq, .chain_arg = 1,
                  .chain_ok = map_seq_link},
    [P_MAPSEQUNROLL] = {.infer = infer_map, .lower = lower_map_seq, .eval = eval_map, .write = write_map, .through = through_map_seq, .chain_arg = 1,
                        .chain_ok = map_seq_link},
    [P_MAPGLOBAL] = {.infer = infer_map, .lower = lower_parallel_map, .eval = eval_map, .write = write_map},
    [P_MAPBLOCK] = {.infer = infer_map, .lower = lower_parallel_map, .eval = eval_map, .write = write_map},
    [P_MAPTHREADS] = {.infer = infer_map, .lower = lower_parallel_map, .eval = eval_map, .write = write_map},
    [P_MAPWARP] = {.infer = infer_map, .lower = lower_parallel_map, .eval = eval_map, .write = write_map},
    [P_MAPLANE] = {.infer = infer_map, .lower = lower_map_lane, .eval = eval_map, .write = write_map},
    [P_REDUCESEQ] = {.infer = infer_reduce, .lower = lower_reduce, .eval = eval_reduce},
    [P_REDUCESEQUNROLL] = {.infer = infer_reduce, .lower = lower_reduce, .eval = eval_reduce},
    [P_SCANSEQ] = {.infer = infer_scan, .lower = lower_scan_read, .eval = eval_scan, .write = lower_scan},
    [P_SCANSEQEXCL] = {.infer = infer_scan, .lower = lower_scan_read, .eval = eval_scan, .write = lower_scan},
};
