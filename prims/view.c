/* view.c: the views: reindexings of their argument (PF_VIEW).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

/* The view node of kind k over the value *a of the primitive's first argument */
static Node *unary_node(IpCtx *c, const Code *e, NodeKind k, IpVal *a)
{
    ip_eval(c, e->args[0], a);
    return ip_node_new(c, k, a, NULL);
}

/* ---------------------------------------------------------------- split, asVector */

/* Can k elements of type t be one vector (of an array of pairs: each side's k elements)? */
static bool vector_elem(const Type *t, int64_t k)
{
    if (t->kind == T_PAIR) return vector_elem(t->pair.a, k) && vector_elem(t->pair.b, k);
    return t->kind == T_SCALAR && t->sk != SK_BOOL && k * scalar_info[t->sk].size <= 16;
}

/* split(k) : (m*k).t -> m.k.t  and  asVector(k), the same type with k 2 or 4 */
static Expr *infer_split(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    const PrimInfo *pi = &prim_info[ap->p];
    Ast **nat = ap->nat;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    /* asVector(k) is split(k) whose k-element groups are each loaded with one k-wide
     * load: k must be 2 or 4 and the group 8 or 16 bytes (float2/float4, int4, ...) */
    const char *pn = pi->name;
    Nat *k = tc_pos_nat_of(t, nat[0], sc, p == P_SPLIT ? "split size" : "vector width");
    Expr *x = tc_infer(t, arg[0], sc, NULL);
    Type *ty = tc_want_array(t, x, pn);
    if (p == P_ASVECTOR) {
        int64_t kc;
        if (!nat_is_const(k, &kc) || (kc != 2 && kc != 4))
            diag_error(t->d, nat[0]->sp, "asVector(%s): the vector width must be 2 or 4", tc_nstr(t, k));
        if (!vector_elem(ty->arr.elem, kc))
            diag_error(t->d, sp, "asVector(%lld) of %s: vectors are 2 or 4 numbers of at most 16 bytes together "
                       "(of an array of pairs, each side's)", (long long)kc, tc_tstr(t, ty));
    }
    if (!nat_divides(a, k, ty->arr.n)) {
        hint_fact(t->d, a, HINT_DIVIDES, k, ty->arr.n);
        /* inside a definition the array is the definition's, which the user cannot pad
         * there: the fix is in what the user's call gives it (its sizes, or an input
         * padded before the call); the notes show the uses, the user's call last */
        const UseSite *outer = sp.via;
        while (outer && outer->sp.via) outer = outer->sp.via;
        if (outer)
            diag_error(t->d, sp, "%s(%s): cannot show that %s divides the array length %s; the sizes given to '%s' "
                       "must make it a multiple of %s (pad its input first, or choose sizes that %s divides)",
                       pn, tc_nstr(t, k), tc_nstr(t, k), tc_nstr(t, ty->arr.n), outer->name, tc_nstr(t, k),
                       tc_nstr(t, k));
        diag_error(t->d, sp, "%s(%s): cannot show that %s divides the array length %s; pad the array first, "
                   "e.g. padCst(0)((k - n %% k) %% k)", pn, tc_nstr(t, k), tc_nstr(t, k), tc_nstr(t, ty->arr.n));
    }
    e = tc_prim_expr(t, p, ty_array(a, nat_div(a, ty->arr.n, k), ty_array(a, k, ty->arr.elem)), sp);
    e->prim.nats[0] = k;
    e->prim.args[0] = x;
    return e;
}

/* split(k)(x)[i] = OFFSET(x, i*k);  slide(sz)(st)(x)[i] = OFFSET(x, i*st) */
static LwVal *lower_split_slide(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    Prim p = e->prim.p;
    View *v;
    v = lw_view(w, p == P_SPLIT ? V_SPLIT : V_SLIDE, e->ty, lw_lower_exp(w, arg[0])->v);
    v->n1 = p == P_SPLIT ? e->prim.nats[0] : e->prim.nats[1];
    return lw_array(w, v);
}

/* asVector(k) of the view in (ty: m.k.t): a V_VEC; for an array of pairs, each side
 * (V_PROJ) vectorised on its own and the groups zipped (V_ZIP zips the rows): a side
 * that reads no memory (generated indices) is computed element by element */
static View *vec_view(Lw *w, Expr *e, View *in, Type *ty)
{
    Arena *a = w->a;
    Type *t = ty->arr.elem->arr.elem;
    if (t->kind == T_PAIR) {
        View *side[2];
        for (int s = 0; s < 2; s++) {
            Type *st = s ? t->pair.b : t->pair.a;
            View *p = lw_view(w, V_PROJ, ty_array(a, in->ty->arr.n, st), in);
            p->proj = s;
            side[s] = vec_view(w, e, p, ty_array(a, ty->arr.n, ty_array(a, ty->arr.elem->arr.n, st)));
        }
        View *z = lw_view(w, V_ZIP, ty, side[0]);
        z->in2 = side[1];
        return z;
    }
    View *v = lw_view(w, V_VEC, ty, in);
    v->n1 = e->prim.nats[0];
    v->fn = e;
    return v;
}

/* asVector(k)(x)[i]: a vector register filled by one k-wide load (vector_at in lower.c) */
static LwVal *lower_asvector(Lw *w, Expr *e)
{
    return lw_array(w, vec_view(w, e, lw_lower_exp(w, e->prim.args[0])->v, e->ty));
}

/* split(k)(a)[i][j] = a[i*k + j]; asVector(k) means the same */
static void eval_split(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    Node *n = unary_node(c, e, N_SPLIT, &a);
    n->k = e->k[0];
    ip_val_node(r, e->ty, n);
}

/* acc(split(k)(x), out) = acc(x, SPLITW(out, k)) */
static void write_split(Lw *w, Expr *e, Acc *c)
{
        Acc *r = lw_acceptor(w, W_SPLITW, e->prim.args[0]->ty, c);
        r->n1 = e->prim.nats[0];
        lw_lower_acc(w, e->prim.args[0], r);
}

/* ---------------------------------------------------------------- join, transpose */

/* join : n.m.t -> (n*m).t */
static Expr *infer_join(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Expr *x = tc_infer(t, arg[0], sc, NULL);
    Type *ty = tc_want_2d(t, x, "join");
    e = tc_prim_expr(t, p, ty_array(a, nat_mul(a, ty->arr.n, ty->arr.elem->arr.n), ty->arr.elem->arr.elem), sp);
    e->prim.args[0] = x;
    return e;
}

/* join(x)[i] = x[i / m][i % m] */
static LwVal *lower_join(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    View *v;
    v = lw_view(w, V_JOIN, e->ty, lw_lower_exp(w, arg[0])->v);
    v->n1 = arg[0]->ty->arr.elem->arr.n;
    return lw_array(w, v);
}

/* join(a)[i] = a[i / m][i % m] */
static void eval_join(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    Node *n = unary_node(c, e, N_JOIN, &a);
    n->k = a.ty->elem->n;
    ip_val_node(r, e->ty, n);
}

/* acc(join(x), out) = acc(x, JOINW(out)) */
static void write_join(Lw *w, Expr *e, Acc *c)
{
        Acc *r = lw_acceptor(w, W_JOINW, e->prim.args[0]->ty, c);
        r->n1 = e->prim.args[0]->ty->arr.elem->arr.n;
        lw_lower_acc(w, e->prim.args[0], r);
}

/* transpose : n.m.t -> m.n.t */
static Expr *infer_transpose(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Expr *x = tc_infer(t, arg[0], sc, NULL);
    Type *ty = tc_want_2d(t, x, "transpose");
    e = tc_prim_expr(t, p, ty_array(a, ty->arr.elem->arr.n, ty_array(a, ty->arr.n, ty->arr.elem->arr.elem)), sp);
    e->prim.args[0] = x;
    return e;
}

/* transpose(x)[i][j] = x[j][i] */
static LwVal *lower_transpose(Lw *w, Expr *e)
{
    return lw_array(w, lw_view(w, V_TRANSPOSE, e->ty, lw_lower_exp(w, e->prim.args[0])->v));
}

/* transpose(a)[i][j] = a[j][i] */
static void eval_transpose(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    Node *n = unary_node(c, e, N_TRANSPOSE, &a);
    ip_val_node(r, e->ty, n);
}

/* acc(transpose(x), out) = acc(x, TRANSW(out)) */
static void write_transpose(Lw *w, Expr *e, Acc *c)
{
    lw_lower_acc(w, e->prim.args[0], lw_acceptor(w, W_TRANSW, e->prim.args[0]->ty, c));
}

/* ---------------------------------------------------------------- padCst, padClamp */

/* padCst(l)(r)(v) : n.t -> (l+n+r).t  (v : t);  padClamp(l)(r) : n.t -> (l+n+r).t */
static Expr *infer_pad(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    const PrimInfo *pi = &prim_info[ap->p];
    Ast **nat = ap->nat;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Nat *l = tc_nat_of(t, nat[0], sc), *r = tc_nat_of(t, nat[1], sc);
    Expr *x = tc_infer(t, arg[p == P_PADCST ? 1 : 0], sc, NULL);
    Type *ty = tc_want_array(t, x, pi->name);
    e = tc_prim_expr(t, p, ty_array(a, nat_add(a, nat_add(a, l, ty->arr.n), r), ty->arr.elem), sp);
    e->prim.nats[0] = l;
    e->prim.nats[1] = r;
    if (p == P_PADCST) {
        Expr *v = tc_infer(t, arg[0], sc, ty->arr.elem);
        if (!ty_equal(v->ty, ty->arr.elem))
            diag_error(t->d, v->sp, "padCst: the padding value has type %s but the elements have type %s",
                       tc_tstr(t, v->ty), tc_tstr(t, ty->arr.elem));
        e->prim.args[0] = v;
        e->prim.args[1] = x;
    } else {
        e->prim.args[0] = x;
    }
    return e;
}

/* padCst(l)(r)(v)(x)[i] = i outside [l, l+n) ? v : x[i - l]; v computed once */
static LwVal *lower_padcst(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    View *v;
    v = lw_view(w, V_PADCST, e->ty, lw_lower_exp(w, arg[1])->v);
    v->n1 = e->prim.nats[0];
    v->n2 = arg[1]->ty->arr.n;
    v->val = lw_lower_exp(w, arg[0]);
    if (v->val->k == VAL_SCALAR) v->val->x = lw_materialise(w, v->val->x, "pad");
    return lw_array(w, v);
}

/* acc(padCst(l)(r)(v)(x), out) = acc(x, PADW(out, l, v)) when x is a grid-, block- or
 * thread-level map's result: its elements go to out[l + j], and the writers of its
 * first and last elements write the padding. Over anything else padCst is read and
 * copied (each element a bound test), as before. */
static void write_padcst(Lw *w, Expr *e, Acc *c)
{
    if (!prim_written_map(e->prim.args[1])) {
        lw_copy_val(w, lw_lower_exp(w, e), c, e->sp);
        return;
    }
    lw_lower_acc(w, e->prim.args[1], lw_padw(w, e, c));
}

/* l copies of v, then a, then r copies */
static void eval_padcst(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a, b;
    Node *n;
    ip_eval(c, e->args[0], &b);
    ip_eval(c, e->args[1], &a);
    n = ip_node_new(c, N_PADCST, &a, &b);
    n->k = e->k[0];
    n->n = a.ty->n;
    ip_val_node(r, e->ty, n);
}

/* padClamp(l)(r)(x)[i] = x[clamp(i - l, 0, n - 1)] */
static LwVal *lower_padclamp(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    View *v;
    v = lw_view(w, V_PADCLAMP, e->ty, lw_lower_exp(w, arg[0])->v);
    v->n1 = e->prim.nats[0];
    v->n2 = arg[0]->ty->arr.n;
    return lw_array(w, v);
}

/* padClamp(l)(r)(a)[i] = a[clamp(i - l, 0, n - 1)] */
static void eval_padclamp(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    Node *n = unary_node(c, e, N_PADCLAMP, &a);
    n->k = e->k[0];
    n->n = a.ty->n;
    if (n->n == 0 && e->ty->n > 0) ip_fail(c, e->sp, "padClamp of an empty array");
    ip_val_node(r, e->ty, n);
}

/* ---------------------------------------------------------------- take, drop, slide */

/* take(k) : n.t -> k.t,  drop(k) : n.t -> (n-k).t,  k <= n */
static Expr *infer_take_drop(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    const PrimInfo *pi = &prim_info[ap->p];
    Ast **nat = ap->nat;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Nat *k = tc_nat_of(t, nat[0], sc);
    Expr *x = tc_infer(t, arg[0], sc, NULL);
    Type *ty = tc_want_array(t, x, pi->name);
    if (!nat_prove_ge(a, ty->arr.n, k)) {
        hint_fact(t->d, a, HINT_LE, k, ty->arr.n);
        diag_error(t->d, sp, "%s(%s): cannot show that %s <= the array length %s", pi->name, tc_nstr(t, k),
                   tc_nstr(t, k), tc_nstr(t, ty->arr.n));
    }
    e = tc_prim_expr(t, p, ty_array(a, p == P_TAKE ? k : nat_sub(a, ty->arr.n, k), ty->arr.elem), sp);
    e->prim.nats[0] = k;
    e->prim.args[0] = x;
    return e;
}

/* take(k)(x)[i] = x[i] */
static LwVal *lower_take(Lw *w, Expr *e)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args;
    View *v;
    View *in = lw_lower_exp(w, arg[0])->v;
    v = lw_view(w, V_OFFSET, e->ty, in);
    v->n1 = nat_cst(a, 0);
    return lw_array(w, v);
}

/* Is x, under view chains (join, split, transpose, id, take, drop, padCst, mapSeq of such), a
 * map over the grid, blocks or threads, whose result cannot be read without being
 * stored? Then a take or drop over it is written through (its cut-off elements are
 * written nowhere); over anything else it is read, which reads only what it keeps. */
bool prim_written_map(const Expr *x)
{
    for (;;) { /* down the links of view chains (no variable: padCst's value is free) */
        if (x->kind != E_PRIM) return false;
        const PrimOps *o = prim_ops(x->prim.p);
        if (!o->through || (o->chain_ok && !o->chain_ok(x, NULL))) break;
        x = x->prim.args[o->chain_arg];
    }
    int l = prim_info[x->prim.p].level;
    return l == LVL_GLOBAL || l == LVL_BLOCK || l == LVL_THREADS;
}

/* acc(take(k)(x), out) = acc(x, TAKEW(out, k)) and acc(drop(k)(x), out) = acc(x,
 * DROPW(out, k)) when x is a grid-, block- or thread-level map's result (which cannot
 * be read without being stored): written with the rest dropped. Other takes and drops
 * stay views that are read and copied (a warp array's take is written by the lanes
 * holding it). */
static void write_take_drop(Lw *w, Expr *e, Acc *c)
{
    if (!prim_written_map(e->prim.args[0])) {
        lw_copy_val(w, lw_lower_exp(w, e), c, e->sp);
        return;
    }
    Acc *r = lw_acceptor(w, e->prim.p == P_TAKE ? W_TAKEW : W_DROPW, e->prim.args[0]->ty, c);
    r->n1 = e->prim.nats[0];
    lw_lower_acc(w, e->prim.args[0], r);
}

/* take(k): the first k elements, the same value with a shorter type (also id, and
 * toGlobal/toShared/toPrivate in memory.c: the address space is the GPU's concern) */
void prim_eval_same(IpCtx *c, const Code *e, IpVal *r)
{
    ip_eval(c, e->args[0], r);
    r->ty = e->ty;
}

/* drop(k)(x)[i] = x[i + k] */
static LwVal *lower_drop(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    View *v;
    v = lw_view(w, V_OFFSET, e->ty, lw_lower_exp(w, arg[0])->v);
    v->n1 = e->prim.nats[0];
    return lw_array(w, v);
}

/* drop(k)(a)[i] = a[i + k] */
static void eval_drop(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    Node *n = unary_node(c, e, N_DROP, &a);
    n->k = e->k[0];
    ip_val_node(r, e->ty, n);
}

/* slide(sz)(st) : n.t -> ((n-sz)/st + 1).sz.t, st dividing n - sz */
static Expr *infer_slide(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **nat = ap->nat;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Nat *sz = tc_pos_nat_of(t, nat[0], sc, "window size"), *st = tc_pos_nat_of(t, nat[1], sc, "slide step");
    Expr *x = tc_infer(t, arg[0], sc, NULL);
    Type *ty = tc_want_array(t, x, "slide");
    if (!nat_prove_ge(a, ty->arr.n, sz)) {
        hint_fact(t->d, a, HINT_LE, sz, ty->arr.n);
        diag_error(t->d, sp, "slide(%s): cannot show that the window fits the array length %s", tc_nstr(t, sz),
                   tc_nstr(t, ty->arr.n));
    }
    Nat *rest = nat_sub(a, ty->arr.n, sz);
    if (!nat_divides(a, st, rest)) {
        hint_fact(t->d, a, HINT_DIVIDES, st, rest);
        diag_error(t->d, sp, "slide(%s)(%s): cannot show that the step %s divides %s", tc_nstr(t, sz), tc_nstr(t, st),
                   tc_nstr(t, st), tc_nstr(t, rest));
    }
    Nat *cnt = nat_add(a, nat_div(a, rest, st), nat_cst(a, 1));
    e = tc_prim_expr(t, p, ty_array(a, cnt, ty_array(a, sz, ty->arr.elem)), sp);
    e->prim.nats[0] = sz;
    e->prim.nats[1] = st;
    e->prim.args[0] = x;
    return e;
}

/* slide(sz)(st)(a)[i][j] = a[i*st + j] */
static void eval_slide(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    Node *n = unary_node(c, e, N_SLIDE, &a);
    n->k = e->k[1];
    ip_val_node(r, e->ty, n);
}

/* ---------------------------------------------------------------- zip, unzip, pair, fst, snd */

/* zip : n.s -> n.t -> n.(s, t) */
static Expr *infer_zip(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Expr *x = tc_infer(t, arg[0], sc, NULL), *y = tc_infer(t, arg[1], sc, NULL);
    Type *tx = tc_want_array(t, x, "zip"), *ty = tc_want_array(t, y, "zip");
    if (!nat_equal(tx->arr.n, ty->arr.n)) {
        hint_fact(t->d, a, HINT_EQ, tx->arr.n, ty->arr.n);
        diag_error(t->d, sp, "zip of arrays of different sizes: %s and %s", tc_tstr(t, tx), tc_tstr(t, ty));
    }
    e = tc_prim_expr(t, p, ty_array(a, tx->arr.n, ty_pair(a, tx->arr.elem, ty->arr.elem)), sp);
    e->prim.args[0] = x;
    e->prim.args[1] = y;
    return e;
}

/* zip(x)(y)[i] = (x[i], y[i]) */
static LwVal *lower_zip(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    View *v;
    v = lw_view(w, V_ZIP, e->ty, lw_lower_exp(w, arg[0])->v);
    v->in2 = lw_lower_exp(w, arg[1])->v;
    return lw_array(w, v);
}

/* zip(a, b)[i] = (a[i], b[i]); pair(a, b) */
static void eval_zip_pair(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a, b;
    ip_eval(c, e->args[0], &a);
    ip_eval(c, e->args[1], &b);
    ip_val_node(r, e->ty, ip_node_new(c, e->p == P_ZIP ? N_ZIP : N_PAIR, &a, &b));
}

/* unzip : n.(s, t) -> (n.s, n.t) */
static Expr *infer_unzip(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Expr *x = tc_infer(t, arg[0], sc, NULL);
    Type *tx = tc_want_array(t, x, "unzip");
    if (tx->arr.elem->kind != T_PAIR)
        diag_error(t->d, x->sp, "unzip expects an array of pairs, but this has type %s", tc_tstr(t, tx));
    e = tc_prim_expr(t, p, ty_pair(a, ty_array(a, tx->arr.n, tx->arr.elem->pair.a), ty_array(a, tx->arr.n, tx->arr.elem->pair.b)), sp);
    e->prim.args[0] = x;
    return e;
}

/* unzip(z) = (z[.].0, z[.].1): two projection views */
static LwVal *lower_unzip(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    View *in = lw_lower_exp(w, arg[0])->v;
    View *x = lw_view(w, V_PROJ, e->ty->pair.a, in), *y = lw_view(w, V_PROJ, e->ty->pair.b, in);
    y->proj = 1;
    return lw_pairv(w, lw_array(w, x), lw_array(w, y));
}

/* unzip(z): path [s, i] -> [i, s] */
static void eval_unzip(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    Node *n = unary_node(c, e, N_UNZIP, &a);
    ip_val_node(r, e->ty, n);
}

/* pair : s -> t -> (s, t) */
static Expr *infer_pair(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Type *expected = ap->expected;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Type *ea = expected && expected->kind == T_PAIR ? expected->pair.a : NULL;
    Type *eb = expected && expected->kind == T_PAIR ? expected->pair.b : NULL;
    Expr *x = tc_infer(t, arg[0], sc, ea), *y = tc_infer(t, arg[1], sc, eb);
    e = tc_prim_expr(t, p, ty_pair(a, x->ty, y->ty), sp);
    e->prim.args[0] = x;
    e->prim.args[1] = y;
    return e;
}

/* pair(x)(y): the pair of the two values */
static LwVal *lower_pair(Lw *w, Expr *e)
{
    LwVal *l = lw_lower_exp(w, e->prim.args[0]); /* the left side's statements first */
    return lw_pairv(w, l, lw_lower_exp(w, e->prim.args[1]));
}

/* fst : (s, t) -> s,  snd : (s, t) -> t */
static Expr *infer_fst_snd(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    const PrimInfo *pi = &prim_info[ap->p];
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Expr *e;
    Expr *x = tc_infer(t, arg[0], sc, NULL);
    if (x->ty->kind != T_PAIR) diag_error(t->d, x->sp, "%s expects a pair, but this has type %s", pi->name, tc_tstr(t, x->ty));
    e = tc_prim_expr(t, p, p == P_FST ? x->ty->pair.a : x->ty->pair.b, sp);
    e->prim.args[0] = x;
    return e;
}

/* fst(p), snd(p): a component of the pair value */
static LwVal *lower_fst_snd(Lw *w, Expr *e)
{
    LwVal *v = lw_lower_exp(w, e->prim.args[0]);
    return e->prim.p == P_FST ? v->a : v->b;
}

/* fst(p) = p.0, snd(p) = p.1 */
static void eval_fst_snd(IpCtx *c, const Code *e, IpVal *r)
{
    ip_eval(c, e->args[0], r);
    ip_val_sel(c, r, e->p == P_SND, e->ty, r);
}

/* ---------------------------------------------------------------- generate, id */

/* generate(f) : n.t  for f : idx[n] -> t, n from the context or f's annotation */
static Expr *infer_generate(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Type *expected = ap->expected;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    if ((!expected || expected->kind != T_ARRAY) && arg[0]->kind == A_LAM && arg[0]->lam.ptype) {
        /* generate(fun(idx[n])(i => ...)): the length from the parameter's annotation */
        Type *ann = tc_type_of(t, arg[0]->lam.ptype, sc);
        if (ann->kind != T_IDX)
            diag_error(t->d, arg[0]->lam.ptype->sp, "generate's function takes an idx[n], but its parameter is "
                       "annotated %s", tc_tstr(t, ann));
        expected = ty_array(a, ann->idx.n, expected && expected->kind == T_ARRAY ? expected->arr.elem : NULL);
    }
    if (!expected || expected->kind != T_ARRAY)
        diag_error(t->d, sp, "generate takes its length from the context, and here there is none "
                   "(annotate its index: generate(fun(idx[n])(i => ...)), or use it where an array type is "
                   "expected, e.g. as the argument of shflWarp)");
    Type *ip = ty_idx(a, expected->arr.n);
    Expr *f = tc_check_fun(t, arg[0], &ip, 1, sc, expected->arr.elem, sp);
    Type *rt = tc_fun_result(f, 1);
    if (rt->kind == T_IDX && expected->arr.elem && expected->arr.elem->kind == T_IDX) rt = expected->arr.elem;
    e = tc_prim_expr(t, p, ty_array(a, expected->arr.n, rt), sp);
    e->prim.args[0] = f;
    return e;
}

/* generate(f)[i] = f(i), computed where it is read */
static LwVal *lower_generate(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    View *v;
    v = lw_view(w, V_GEN, e->ty, NULL);
    v->fn = arg[0];
    return lw_array(w, v);
}

/* generate(f)[i] = f(i), materialised. Each iteration's temporaries are released once
 * its result is copied into the output store. */
static void eval_generate(IpCtx *c, const Code *e, IpVal *res)
{
    const Code *f = e->args[0];
    IpVal x, r;
    const RType *rt = e->ty;
    Node *out = ip_store_new(c, rt, NULL);
    for (int64_t i = 0; i < rt->n; i++) {
        Mark m = ip_pool_mark(c);
        ip_val_scalar(&x, &ip_rt_i32, ip_scalar_of_int(SK_I32, i));
        ip_apply(c, f, &x, &r);
        ip_store_put(c, out, i, &r);
        ip_pool_release(c, m);
    }
    ip_val_node(res, rt, out);
}

/* id : t -> t (and toGlobal, toShared, toPrivate in memory.c) */
Expr *prim_infer_same(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Type *expected = ap->expected;
    Span sp = ap->sp;
    Expr *e;
    Expr *x = tc_infer(t, arg[0], sc, expected);
    e = tc_prim_expr(t, p, x->ty, sp);
    e->prim.args[0] = x;
    return e;
}

/* id(x) = x */
static LwVal *lower_id(Lw *w, Expr *e)
{
    return lw_lower_exp(w, e->prim.args[0]);
}

/* acc(id(x), out) = acc(x, out) */
static void write_id(Lw *w, Expr *e, Acc *c)
{
    lw_lower_acc(w, e->prim.args[0], c);
}

/* ---------------------------------------------------------------- idx, gather */

/* idx(i)(xs): n.t -> t, i an idx[m] with m <= n or an integer (range checked at run time) */
static Expr *infer_idx(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Expr *x = tc_infer(t, arg[1], sc, NULL);
    Type *tx = tc_want_array(t, x, "idx");
    Expr *i = tc_infer(t, arg[0], sc, ty_scalar(a, SK_I32));
    if (!tc_is_index(i->ty))
        diag_error(t->d, i->sp, "idx expects an index (idx[n], i32, u32 or i64), but this has type %s", tc_tstr(t, i->ty));
    if (i->ty->kind == T_IDX && !nat_prove_ge(a, tx->arr.n, i->ty->idx.n)) {
        hint_fact(t->d, a, HINT_LE, i->ty->idx.n, tx->arr.n);
        diag_error(t->d, i->sp, "idx: the index has type %s, but the array has only %s elements", tc_tstr(t, i->ty),
                   tc_nstr(t, tx->arr.n));
    }
    e = tc_prim_expr(t, p, tx->arr.elem, sp);
    e->prim.args[0] = i;
    e->prim.args[1] = x;
    return e;
}

/* idx(i)(xs) = xs[i], i read at run time through lw_data_index */
static LwVal *lower_idx(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    View *xs = lw_lower_exp(w, arg[1])->v;
    return lw_view_at(w, xs, lw_data_index(w, lw_lower_exp(w, arg[0])->x, arg[1]->ty->arr.n));
}

/* idx's index: evaluate the scalar expression ix and check it */
static int64_t run_index(IpCtx *c, const Code *e, const Code *ix, int64_t at, int64_t n)
{
    IpVal v;
    ip_eval(c, ix, &v);
    return ip_check_index(c, e, v.s, at, n);
}

/* idx(i)(xs) = xs[i], i checked against the length */
static void eval_idx(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    ip_eval(c, e->args[1], &a);
    int64_t i = run_index(c, e, e->args[0], -1, a.ty->n);
    ip_val_sel(c, &a, i, e->ty, r);
}

/* gather(is)(xs): m.idx[n] -> n.t -> m.t (or m.i32/u32/i64, range checked at run time) */
static Expr *infer_gather(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Expr *x = tc_infer(t, arg[1], sc, NULL);
    Type *tx = tc_want_array(t, x, "gather");
    Expr *is = tc_infer(t, arg[0], sc, NULL);
    if (is->ty->kind != T_ARRAY || !tc_is_index(is->ty->arr.elem))
        diag_error(t->d, is->sp, "gather expects an array of indices (m.idx[n], or of i32, u32 or i64), but this "
                   "has type %s", tc_tstr(t, is->ty));
    Type *it = is->ty->arr.elem;
    if (it->kind == T_IDX && !nat_prove_ge(a, tx->arr.n, it->idx.n)) {
        hint_fact(t->d, a, HINT_LE, it->idx.n, tx->arr.n);
        diag_error(t->d, is->sp, "gather: the indices have type %s, but the array has only %s elements",
                   tc_tstr(t, it), tc_nstr(t, tx->arr.n));
    }
    e = tc_prim_expr(t, p, ty_array(a, is->ty->arr.n, tx->arr.elem), sp);
    e->prim.args[0] = is;
    e->prim.args[1] = x;
    return e;
}

/* gather(is)(xs)[j] = xs[is[j]] */
static LwVal *lower_gather(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    View *v;
    v = lw_view(w, V_GATHER, e->ty, lw_lower_exp(w, arg[1])->v);
    v->in2 = lw_lower_exp(w, arg[0])->v;
    return lw_array(w, v);
}

/* gather(is)(xs)[j] = xs[is[j]]: the indices are read and checked once, then a view */
static void eval_gather(IpCtx *c, const Code *e, IpVal *res)
{
    IpVal is, xs, s;
    ip_eval(c, e->args[0], &is);
    ip_eval(c, e->args[1], &xs);
    int64_t m = is.ty->n;
    int64_t *perm = ip_pool_alloc(c, sizeof(int64_t) * (size_t)(m ? m : 1), false);
    for (int64_t j = 0; j < m; j++) {
        ip_val_sel(c, &is, j, is.ty->elem, &s);
        perm[j] = ip_check_index(c, e, s.s, j, xs.ty->n);
    }
    Node *nd = ip_node_new(c, N_PERM, &xs, NULL);
    nd->perm = perm;
    ip_val_node(res, e->ty, nd);
}

/* ---------------------------------------------------------------- concat, padEmpty */

/* concat(xs)(ys): n.t -> m.t -> (n+m).t */
static Expr *infer_concat(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Expr *x = tc_infer(t, arg[0], sc, NULL), *y = tc_infer(t, arg[1], sc, NULL);
    Type *tx = tc_want_array(t, x, "concat"), *ty = tc_want_array(t, y, "concat");
    if (!ty_equal(tx->arr.elem, ty->arr.elem))
        diag_error(t->d, sp, "concat of arrays of different element types: %s and %s", tc_tstr(t, tx), tc_tstr(t, ty));
    e = tc_prim_expr(t, p, ty_array(a, nat_add(a, tx->arr.n, ty->arr.n), tx->arr.elem), sp);
    e->prim.args[0] = x;
    e->prim.args[1] = y;
    return e;
}

/* concat(x)(y)[i] = i < n ? x[i] : y[i - n] */
static LwVal *lower_concat(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    View *v;
    v = lw_view(w, V_CONCAT, e->ty, lw_lower_exp(w, arg[0])->v);
    v->in2 = lw_lower_exp(w, arg[1])->v;
    v->n1 = arg[0]->ty->arr.n;
    return lw_array(w, v);
}

/* concat(a)(b)[i] = i < k ? a[i] : b[i - k] */
static void eval_concat(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a, b;
    Node *n;
    ip_eval(c, e->args[0], &a);
    ip_eval(c, e->args[1], &b);
    n = ip_node_new(c, N_CONCAT, &a, &b);
    n->k = a.ty->n;
    ip_val_node(r, e->ty, n);
}

/* acc(concat(x)(y), out) = acc(x, OFFSET(out, 0)); acc(y, OFFSET(out, n)) */
static void write_concat(Lw *w, Expr *e, Acc *c)
{
        Acc *x = lw_acceptor(w, W_OFFSET, e->prim.args[0]->ty, c), *y = lw_acceptor(w, W_OFFSET, e->prim.args[1]->ty, c);
        x->n1 = nat_cst(w->a, 0);
        y->n1 = e->prim.args[0]->ty->arr.n;
        lw_lower_acc(w, e->prim.args[0], x);
        lw_lower_acc(w, e->prim.args[1], y);
}

/* padEmpty(r)(xs): n.t -> (n+r).t, the last r elements hold nothing */
static Expr *infer_padempty(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **nat = ap->nat;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Nat *r = tc_nat_of(t, nat[0], sc);
    Expr *x = tc_infer(t, arg[0], sc, NULL);
    Type *tx = tc_want_array(t, x, "padEmpty");
    e = tc_prim_expr(t, p, ty_array(a, nat_add(a, tx->arr.n, r), tx->arr.elem), sp);
    e->prim.nats[0] = r;
    e->prim.args[0] = x;
    return e;
}

/* padEmpty(r)(x)[i] = x[i] */
static LwVal *lower_padempty(Lw *w, Expr *e)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args;
    View *v;
    /* reading the padding is undefined: the view reads past the argument's end */
    v = lw_view(w, V_OFFSET, e->ty, lw_lower_exp(w, arg[0])->v);
    v->n1 = nat_cst(a, 0);
    return lw_array(w, v);
}

/* padEmpty(r)(a)[i] = a[i]; reading the padding is an error */
static void eval_padempty(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    Node *n;
    ip_eval(c, e->args[0], &a);
    n = ip_node_new(c, N_PADEMPTY, &a, NULL);
    n->n = a.ty->n;
    n->sp = e->sp;
    ip_val_node(r, e->ty, n);
}

/* The links of view chains (PrimOps.through, lower.c's acc_through): each one's result
 * written to c is its argument written to
 *   join -> JOINW(c);  split(k) -> SPLITW(c, k);  transpose -> TRANSW(c);  id -> c;
 *   take(k) -> TAKEW(c, k);  drop(k) -> DROPW(c, k);  padCst(l)(r)(v) -> PADW(c, l, v) */
static Acc *through_join(Lw *w, Expr *e, Acc *c)
{
    Type *t = e->prim.args[0]->ty;
    Acc *r = lw_acceptor(w, W_JOINW, t, c);
    r->n1 = t->arr.elem->arr.n;
    return r;
}

static Acc *through_split(Lw *w, Expr *e, Acc *c)
{
    Acc *r = lw_acceptor(w, W_SPLITW, e->prim.args[0]->ty, c);
    r->n1 = e->prim.nats[0];
    return r;
}

static Acc *through_transpose(Lw *w, Expr *e, Acc *c) { return lw_acceptor(w, W_TRANSW, e->prim.args[0]->ty, c); }

static Acc *through_id(Lw *w, Expr *e, Acc *c)
{
    (void)w, (void)e;
    return c;
}

static Acc *through_take_drop(Lw *w, Expr *e, Acc *c)
{
    Acc *r = lw_acceptor(w, e->prim.p == P_TAKE ? W_TAKEW : W_DROPW, e->prim.args[0]->ty, c);
    r->n1 = e->prim.nats[0];
    return r;
}

/* padCst's padding is written beside its first and last elements: its value must be
 * computed without the variable being written through */
static bool padcst_link(const Expr *e, const Binder *x) { return !lw_count_uses(e->prim.args[0], x, 1); }

/* acc(padEmpty(r)(x), out) = acc(x, OFFSET(out, 0)) */
static void write_padempty(Lw *w, Expr *e, Acc *c)
{
        /* only the first n elements are written; the padding keeps what it held */
        Acc *x = lw_acceptor(w, W_OFFSET, e->prim.args[0]->ty, c);
        x->n1 = nat_cst(w->a, 0);
        lw_lower_acc(w, e->prim.args[0], x);
}

const PrimOps prims_view[P_COUNT] = {
    [P_SPLIT] = {.infer = infer_split, .lower = lower_split_slide, .eval = eval_split, .write = write_split, .through = through_split},
    [P_ASVECTOR] = {.infer = infer_split, .lower = lower_asvector, .eval = eval_split},
    [P_JOIN] = {.infer = infer_join, .lower = lower_join, .eval = eval_join, .write = write_join, .through = through_join},
    [P_TRANSPOSE] = {.infer = infer_transpose, .lower = lower_transpose, .eval = eval_transpose, .write = write_transpose, .through = through_transpose},
    [P_PADCST] = {.infer = infer_pad, .lower = lower_padcst, .eval = eval_padcst, .write = write_padcst, .through = lw_padw, .chain_arg = 1,
                  .chain_ok = padcst_link},
    [P_PADCLAMP] = {.infer = infer_pad, .lower = lower_padclamp, .eval = eval_padclamp},
    [P_TAKE] = {.infer = infer_take_drop, .lower = lower_take, .eval = prim_eval_same, .write = write_take_drop, .through = through_take_drop},
    [P_DROP] = {.infer = infer_take_drop, .lower = lower_drop, .eval = eval_drop, .write = write_take_drop, .through = through_take_drop},
    [P_SLIDE] = {.infer = infer_slide, .lower = lower_split_slide, .eval = eval_slide},
    [P_ZIP] = {.infer = infer_zip, .lower = lower_zip, .eval = eval_zip_pair},
    [P_UNZIP] = {.infer = infer_unzip, .lower = lower_unzip, .eval = eval_unzip},
    [P_PAIR] = {.infer = infer_pair, .lower = lower_pair, .eval = eval_zip_pair},
    [P_FST] = {.infer = infer_fst_snd, .lower = lower_fst_snd, .eval = eval_fst_snd},
    [P_SND] = {.infer = infer_fst_snd, .lower = lower_fst_snd, .eval = eval_fst_snd},
    [P_GENERATE] = {.infer = infer_generate, .lower = lower_generate, .eval = eval_generate},
    [P_ID] = {.infer = prim_infer_same, .lower = lower_id, .eval = prim_eval_same, .write = write_id, .through = through_id},
    [P_IDX] = {.infer = infer_idx, .lower = lower_idx, .eval = eval_idx},
    [P_GATHER] = {.infer = infer_gather, .lower = lower_gather, .eval = eval_gather},
    [P_CONCAT] = {.infer = infer_concat, .lower = lower_concat, .eval = eval_concat, .write = write_concat},
    [P_PADEMPTY] = {.infer = infer_padempty, .lower = lower_padempty, .eval = eval_padempty, .write = write_padempty},
};
