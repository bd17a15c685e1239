/* lower.c: typed functional IR -> imperative kernel IR.
 *
 * Requires: a type-checked KernelDef.
 * Ensures:  a Kernel whose body writes the kernel's result into the output buffer.
 *   - Views (split, join, transpose, padCst, padClamp, take, drop, slide, zip, unzip,
 *     generate, and mapSeq in a read position) are index functions: reading element i
 *     of a view computes where it lives; nothing is copied.
 *   - Memory is allocated only by toShared/toPrivate, by reduceSeq and scanSeq accumulators, by
 *     let-bound scalars (so a binding evaluates once), by shuffles (a register each,
 *     so that every lane runs them) and by the kernel output.
 *   - Writes go through acceptors: a map writes element i of its result to element i
 *     of its acceptor; join/split/transpose (and take/drop/padCst over a parallel
 *     map's result) in a written position transform the acceptor instead of the data.
 *   - Parallel maps become S_FOR loops at their level; loops.c picks their form.
 * Barriers are not placed here (barrier.c), nor single-thread regions (loops.c).
 */
#include "compiler.h"
#include "../prims/prims.h"

#include <string.h>

typedef LwVal Val;

/* ---------------------------------------------------------------- values and views */

static Val *vector_at(Lw *w, View *v, Nat *i);
static bool emitted_load(Lw *w, int mark);
static const char *user_part(Arena *a, const char *n);
static void bind_let(Lw *w, Expr *e);
static Acc *acc_through(Lw *w, Expr *body, Binder *x, Acc *c);

Val *lw_scalar(Lw *w, X *x)
{
    Val *v = ANEW(w->a, Val);
    v->k = VAL_SCALAR;
    v->x = x;
    return v;
}

Val *lw_array(Lw *w, View *view)
{
    Val *v = ANEW(w->a, Val);
    v->k = VAL_ARRAY;
    v->v = view;
    return v;
}

Val *lw_pairv(Lw *w, Val *a, Val *b)
{
    Val *v = ANEW(w->a, Val);
    v->k = VAL_PAIR;
    v->a = a;
    v->b = b;
    return v;
}

View *lw_view(Lw *w, ViewKind k, Type *ty, View *in)
{
    View *v = ANEW(w->a, View);
    v->kind = k;
    v->ty = ty;
    v->in = in;
    v->sp = w->at;
    return v;
}

Acc *lw_acceptor(Lw *w, AccKind k, Type *ty, Acc *in)
{
    Acc *c = ANEW(w->a, Acc);
    c->kind = k;
    c->ty = ty;
    c->in = in;
    return c;
}

/* ---------------------------------------------------------------- IR builders */

/* An expression node of kind k and type sk, its fields zero: every builder below starts
 * from it */
static X *x_new(Arena *a, XKind k, ScalarKind sk)
{
    X *x = ANEW(a, X);
    x->kind = k;
    x->sk = sk;
    return x;
}

X *lw_xnew(Lw *w, XKind k, ScalarKind sk) { return x_new(w->a, k, sk); }

X *x_nat(Arena *a, Nat *n)
{
    X *x = x_new(a, X_NAT, SK_I32);
    x->nat.n = n;
    return x;
}

X *x_bin(Arena *a, BinOp op, ScalarKind sk, X *l, X *r)
{
    X *x = x_new(a, X_BIN, sk);
    x->bin.op = op;
    x->bin.l = l;
    x->bin.r = r;
    return x;
}

X *x_bool(Arena *a, bool b)
{
    X *x = x_new(a, X_LIT, SK_BOOL);
    x->lit.b = b;
    return x;
}

X *x_lit(Arena *a, ScalarKind sk, uint64_t v)
{
    X *x = x_new(a, X_LIT, sk);
    x->lit.u = v;
    return x;
}

X *lw_xnat(Lw *w, Nat *n) { return x_nat(w->a, n); }

X *lw_xbin(Lw *w, BinOp op, ScalarKind sk, X *l, X *r) { return x_bin(w->a, op, sk, l, r); }

X *lw_xlit(Lw *w, ScalarKind sk, uint64_t v) { return x_lit(w->a, sk, v); }

X *lw_xsel(Lw *w, X *c, X *p, X *q)
{
    X *x = lw_xnew(w, X_SELECT, p->sk);
    x->sel.c = c;
    x->sel.a = p;
    x->sel.b = q;
    return x;
}

X *lw_xun(Lw *w, XKind k, ScalarKind sk, X *e)
{
    X *x = lw_xnew(w, k, sk);
    x->un.e = e;
    return x;
}

X *lw_xnot(Lw *w, X *e)
{
    X *x = lw_xun(w, X_UN, SK_BOOL, e);
    x->un.op = UOP_NOT;
    return x;
}

X *lw_xbnot(Lw *w, X *e)
{
    X *x = lw_xun(w, X_UN, e->sk, e);
    x->un.op = UOP_BNOT;
    return x;
}

X *lw_xshfl(Lw *w, ShflKind k, ScalarKind sk, X *val, X *arg)
{
    X *x = lw_xnew(w, X_SHFL, sk);
    x->shfl.k = k;
    x->shfl.val = val;
    x->shfl.arg = arg;
    return x;
}

X *lw_xballot(Lw *w, X *pred) { return lw_xshfl(w, SHFL_BALLOT, SK_U32, pred, NULL); }

/* the lanes whose u32 v agrees with this lane's in its low `bits` bits (a radix
 * sort's ranking: the lanes of one digit) */
X *lw_xmatch(Lw *w, X *v, int bits) { return lw_xshfl(w, SHFL_MATCH, SK_U32, v, lw_xlit(w, SK_U32, (uint64_t)bits)); }

/* the warp's ballot of bit `bit` of the u32 or u64 v: a lowering's vote on a bit of a
 * value, which the printer writes so that the test stays one instruction (see
 * codegen/module.c's patc_vote_bit) */
X *lw_xvotebit(Lw *w, X *v, int bit) { return lw_xshfl(w, SHFL_VOTEBIT, SK_U32, v, lw_xlit(w, SK_U32, (uint64_t)bit)); }

X *lw_xpopc(Lw *w, X *v)
{
    X *x = lw_xnew(w, X_CALL, SK_U32);
    x->call.p = P_POPC;
    x->call.n = 1;
    x->call.args[0] = v;
    return x;
}

void lw_barrier(Lw *w, Level l)
{
    Stmt *s = lw_snew(w, S_BARRIER);
    s->barrier.level = l;
    lw_emit(w, s);
}

X *lw_xload(Lw *w, Buffer *b, Nat *i)
{
    X *x = lw_xnew(w, X_LOAD, b->sk);
    x->load.buf = b;
    x->load.index = i;
    return x;
}

Stmt *lw_snew(Lw *w, StmtKind k)
{
    Stmt *s = ANEW(w->a, Stmt);
    s->kind = k;
    return s;
}

Stmt *stmt_seq(Arena *a)
{
    Stmt *s = ANEW(a, Stmt);
    s->kind = S_SEQ;
    return s;
}

void stmt_append(Arena *a, Stmt *seq, Stmt *s)
{
    if (seq->seq.n == seq->seq.cap) {
        int cap = seq->seq.cap ? seq->seq.cap * 2 : 8;
        Stmt **items = ANEWN(a, Stmt *, cap);
        if (seq->seq.n) memcpy(items, seq->seq.items, sizeof(Stmt *) * (size_t)seq->seq.n);
        seq->seq.items = items;
        seq->seq.cap = cap;
    }
    seq->seq.items[seq->seq.n++] = s;
}

void lw_emit(Lw *w, Stmt *s) { stmt_append(w->a, w->cur, s); }

/* const var = val, a nat variable of range [lb, ub) (ub NULL: unknown), named prefix
 * and a number */
Nat *lw_let(Lw *w, const char *prefix, X *val, int64_t lb, Nat *ub)
{
    Stmt *s = lw_snew(w, S_LET);
    s->let.var = nat_newvar(w->a, arena_printf(w->a, "%s%d", prefix, w->names++), lb, ub);
    s->let.val = val;
    lw_emit(w, s);
    return nat_var(w->a, s->let.var);
}

/* An S_WHILE emitted here (var: its counter or NULL), opened as lw_open_if opens an if:
 * what is emitted next goes into it until w->cur = *saved */
Stmt *lw_open_while(Lw *w, NatVar *var, Stmt **saved)
{
    Stmt *s = lw_snew(w, S_WHILE);
    s->wloop.var = var;
    s->wloop.body = stmt_seq(w->a);
    lw_emit(w, s);
    *saved = w->cur;
    w->cur = s->wloop.body;
    return s;
}

Stmt *lw_open_if(Lw *w, X *cond, Stmt **saved)
{
    Stmt *g = lw_snew(w, S_IF);
    g->cond.c = cond;
    g->cond.then = stmt_seq(w->a);
    lw_emit(w, g);
    *saved = w->cur;
    w->cur = g->cond.then;
    return g;
}

Buffer *lw_new_buffer(Lw *w, const char *prefix, AddrSpace as, ScalarKind sk, Nat *count)
{
    Buffer *b = ANEW(w->a, Buffer);
    b->name = arena_printf(w->a, "%s%d", prefix, w->names++);
    b->as = as;
    b->sk = sk;
    b->count = count;
    b->param = -2;
    b->id = arena_next_id(w->a);
    return b;
}

/* A shared buffer of count elements, registered with the kernel for smem.c's layout;
 * sp is the expression that made it, where a budget overrun is reported. */
Buffer *lw_shared_buffer(Lw *w, const char *prefix, ScalarKind sk, Nat *count, Span sp)
{
    Kernel *k = w->k;
    Buffer *b = lw_new_buffer(w, prefix, AS_SHARED, sk, count);
    b->sp = sp;
    if (k->nshared == k->capshared) {
        int cap = k->capshared ? 2 * k->capshared : 8;
        Buffer **nb = ANEWN(w->a, Buffer *, cap);
        if (k->nshared) memcpy(nb, k->shared, sizeof(Buffer *) * (size_t)k->nshared);
        k->shared = nb;
        k->capshared = cap;
    }
    k->shared[k->nshared++] = b;
    return b;
}

/* The whole of buffer b, of type ty (with all its spread dimensions, if any) */
View *lw_mem_view(Lw *w, Type *ty, Buffer *b)
{
    View *v = lw_view(w, V_MEM, ty, NULL);
    v->buf = b;
    v->base = nat_cst(w->a, 0);
    v->dleft = b->ndist;
    return v;
}

Acc *lw_mem_acc(Lw *w, Type *ty, Buffer *b)
{
    Acc *c = lw_acceptor(w, W_MEM, ty, NULL);
    c->buf = b;
    c->base = nat_cst(w->a, 0);
    c->dleft = b->ndist;
    return c;
}

/* The thread dimension that indexes the next dimension of a spread buffer's view that
 * still has dleft of its spread dimensions. */
static int spread_dim(const Buffer *b, int dleft) { return b->ddim[b->ndist - dleft]; }

/* Element i along a spread dimension of buffer b (Buffer.ndist), of n elements: each
 * thread holds only its own element, so i must be the index of a mapThreads along
 * that dimension's thread dimension, open here and over the same n elements. The
 * loop is marked: loops.c checks that it has one trip per thread, so that the
 * thread's index is i. The element's place in the thread's part does not depend on
 * i, so the offset is unchanged. */
static void own_index(Lw *w, Buffer *b, int dleft, Nat *n, Nat *i, bool write)
{
    int d = spread_dim(b, dleft);
    for (int j = w->nloops - 1; j >= 0; j--) {
        Stmt *s = w->loops[j];
        if (s->loop.level == LVL_THREADS && s->loop.dim == d && nat_equal(i, nat_var(w->a, s->loop.var)) &&
            nat_equal(s->loop.extent, n)) {
            if (!s->loop.own) {
                s->loop.own = b;
                s->loop.own_sp = w->at;
            }
            return;
        }
    }
    diag_error2(w->d, w->at, b->dsp, "the array is spread over the threads here",
                "this %s an array spread over the block's threads (toPrivate of a mapThreads, one element "
                "per thread along '%c') at an index other than the thread's own; a thread holds only its own "
                "element: %s it in a mapThreads('%c') over the array's %s elements%s",
                write ? "writes" : "reads", "xyz"[d], write ? "write" : "read", "xyz"[d], nat_str(w->a, n),
                write ? "" : ", or store it with toShared for the block to share");
}

/* A global buffer the runtime allocates for the kernel (zeroed once, passed after the
 * inputs): registered with the kernel the launch being lowered belongs to, since all
 * of a kernel's launches take the same parameters. */
Buffer *lw_scratch_buffer(Lw *w, const char *prefix, ScalarKind sk, Nat *count)
{
    Kernel *k = w->k->main ? w->k->main : w->k;
    Buffer *b = lw_new_buffer(w, prefix, AS_GLOBAL, sk, count);
    b->param = -3 - k->nscratch;
    Buffer **nb = ANEWN(w->a, Buffer *, k->nscratch + 1);
    if (k->nscratch) memcpy(nb, k->scratch, sizeof(Buffer *) * (size_t)k->nscratch);
    nb[k->nscratch++] = b;
    k->scratch = nb;
    return b;
}

/* A private scalar and its declaration, for the caller to place (lw_materialise emits
 * it where it is; a carried prefix declares it before its loop) */
Stmt *lw_scalar_decl(Lw *w, const char *prefix, ScalarKind sk, X *init, Buffer **b)
{
    *b = lw_new_buffer(w, prefix, AS_PRIVATE, sk, nat_cst(w->a, 1));
    (*b)->scalar = true;
    Stmt *s = lw_snew(w, S_DECL);
    s->decl.buf = *b;
    s->decl.init = init;
    return s;
}

/* A private array of n elements (a scalar where n is 1, printed without an index),
 * declared here: a thread's registers for the rounds of multisplit and sortTiles. */
Buffer *lw_private_array(Lw *w, const char *prefix, ScalarKind sk, int64_t n)
{
    Buffer *b = lw_new_buffer(w, prefix, AS_PRIVATE, sk, nat_cst(w->a, n));
    b->scalar = n == 1;
    Stmt *d = lw_snew(w, S_DECL);
    d->decl.buf = b;
    lw_emit(w, d);
    return b;
}

/* A private scalar initialised with x: the value is computed once, here. */
X *lw_materialise(Lw *w, X *x, const char *prefix)
{
    if (x->kind == X_LIT || x->kind == X_NAT) return x;
    if (x->kind == X_LOAD && x->load.buf->as == AS_PRIVATE && x->load.buf->scalar) return x;
    Buffer *b;
    lw_emit(w, lw_scalar_decl(w, prefix, x->sk, x, &b));
    return lw_xload(w, b, nat_cst(w->a, 0));
}

/* The inclusive sum of the u32 x over lanes 0..lane of the first `width` lanes (a power
 * of 2 up to 32), by shuffles up: log2(width) steps, each adding the value d lanes down
 * where there is one. The sum is a register named inc (its steps' shuffles up). */
X *lw_warp_scan_add(Lw *w, X *x, int width, const char *inc, const char *up)
{
    Nat *lane = nat_var(w->a, w->k->hw.lane);
    Buffer *b;
    lw_emit(w, lw_scalar_decl(w, inc, SK_U32, x, &b));
    X *ix = lw_xload(w, b, nat_cst(w->a, 0));
    for (int d = 1; d < width; d <<= 1) {
        X *o = lw_materialise(w, lw_xshfl(w, SHFL_UP, SK_U32, ix, lw_xnat(w, nat_cst(w->a, d))), up);
        X *ge = lw_xbin(w, OP_GE, SK_BOOL, lw_xnat(w, lane), lw_xnat(w, nat_cst(w->a, d)));
        lw_store(w, b, nat_cst(w->a, 0), lw_xsel(w, ge, lw_xbin(w, OP_ADD, SK_U32, ix, o), ix));
    }
    return ix;
}

void lw_store(Lw *w, Buffer *b, Nat *i, X *x)
{
    Stmt *s = lw_snew(w, S_STORE);
    s->store.buf = b;
    s->store.index = i;
    s->store.val = x;
    lw_emit(w, s);
}

/* ---------------------------------------------------------------- nat helpers */

static Nat *elems(Lw *w, const Type *t)
{
    Nat *c;
    ty_innermost(w->a, t, &c);
    return c;
}

static Nat *nadd(Lw *w, Nat *x, Nat *y) { return nat_add(w->a, x, y); }
static Nat *nmul(Lw *w, Nat *x, Nat *y) { return nat_mul(w->a, x, y); }

/* An index computed at run time (idx, gather, scatter) as a nat: the value goes to a
 * private scalar declared here, and the nat is a variable of the same name, bounded by
 * the length `len` of the array it indexes (a valid index is below it; an invalid one
 * is undefined behaviour on the GPU, so width.c may use the bound). u32 and i64 values
 * are held as i64, so that index arithmetic on them is never unsigned or narrowed. */
Nat *lw_data_index(Lw *w, X *x, Nat *len)
{
    if (x->kind == X_NAT) return x->nat.n;
    if (x->kind == X_LIT) return nat_cst(w->a, x->sk == SK_U32 || x->sk == SK_U64 ? (int64_t)x->lit.u : x->lit.i);
    if (x->sk != SK_I32) {
        X *c = lw_xnew(w, X_CAST, SK_I64);
        c->un.e = x;
        x = c;
    }
    X *m = lw_materialise(w, x, "ix");
    w->index_reads++;
    return nat_var(w->a, nat_newvar(w->a, m->load.buf->name, 0, len));
}

/* ---------------------------------------------------------------- reading views */

void lw_bind(Lw *w, Binder *b, Val *v)
{
    if (b->id < w->base || b->id - w->base >= w->nenv) die("binder id %d out of range", b->id);
    w->env[b->id - w->base] = v;
}

/* Does computing x do work beyond reading a value: a literal, a nat, a load, a cast of
 * one (i64(0): a constant nvcc folds, not worth a register of its own), or a select of
 * those (padCst's guarded load, whose condition is index arithmetic)? */
static bool x_computes(const X *x)
{
    switch (x->kind) {
    case X_LIT: case X_NAT: case X_LOAD: return false;
    case X_CAST: case X_IDX: case X_BITCAST: return x_computes(x->un.e);
    case X_SELECT: return x_computes(x->sel.a) || x_computes(x->sel.b);
    case X_BIN: case X_UN: case X_MINMAX: case X_SHFL: case X_CALL: case X_MBTEST: case X_ATOMIC: return true;
    }
    return true;
}

/* Does x hold a shuffle or an atomic? A collective stays where the lowering put it
 * (every lane must run it), and an atomic runs once where it stands: such a value is
 * not moved to a register here. */
static bool x_shuffles(const X *x)
{
    switch (x->kind) {
    case X_LIT: case X_NAT: case X_LOAD: return false;
    case X_SHFL: case X_MBTEST: case X_ATOMIC: return true; /* an mbarrier test is read where the lowering put it */
    case X_BIN: case X_MINMAX: return x_shuffles(x->bin.l) || x_shuffles(x->bin.r);
    case X_UN: case X_CAST: case X_IDX: case X_BITCAST: return x_shuffles(x->un.e);
    case X_SELECT: return x_shuffles(x->sel.c) || x_shuffles(x->sel.a) || x_shuffles(x->sel.b);
    case X_CALL:
        for (int i = 0; i < x->call.n; i++)
            if (x_shuffles(x->call.args[i])) return true;
        return false;
    }
    return true;
}

/* A value bound once is computed once: a scalar (or a pair's scalar parts) bound to a
 * binder that `body` reads more than once (or once inside a function that may run many
 * times), and whose expression computes something (exp(x - m) read from a lazily
 * computed map, a let-bound pair), goes to a register here, so that the generated code
 * evaluates it once rather than at each use. Only where the binding is a statement of
 * its own (a loop's element, a let), never inside a lazy read (lw_apply1). Meaning is
 * unchanged: scalar expressions have no effects. Reads alone are left as they are (the
 * compiler keeps a load in a register anyway, and a guarded load stays where its guard
 * is). */
static Val *once(Lw *w, Val *v)
{
    if (v->k == VAL_PAIR) {
        Val *a = once(w, v->a); /* in order: the first component's register first */
        return lw_pairv(w, a, once(w, v->b));
    }
    if (v->k == VAL_SCALAR && x_computes(v->x) && !x_shuffles(v->x)) return lw_scalar(w, lw_materialise(w, v->x, "v"));
    return v;
}

void lw_bind_once(Lw *w, Binder *b, Val *v, const Expr *body)
{
    if ((v->k == VAL_SCALAR || v->k == VAL_PAIR) && lw_count_uses(body, b, 1) > 1) v = once(w, v);
    lw_bind(w, b, v);
}

/* Apply a one-parameter E_LAM to a value: bind and lower the body as an expression.
 * This is how a lazily read map's element is read (V_MAP, V_GEN), which may happen
 * inside a guard that is built around the value afterwards (padCst's bound test: the
 * element past the end is never read), so nothing is put in a register here: a
 * declaration would run ahead of the guard. The loops that bind elements (the maps,
 * reduceSeq, scanSeq) do so with lw_bind_once. */
Val *lw_apply1(Lw *w, Expr *lam, Val *arg)
{
    lw_bind(w, lam->lam.param, arg);
    return lw_lower_exp(w, lam->lam.body);
}

/* select(c, a, b) on values of any shape (pairs select componentwise); sp is the padCst */
static Val *select_val(Lw *w, X *c, Val *a, Val *b, Span sp)
{
    if (a->k == VAL_PAIR) return lw_pairv(w, select_val(w, c, a->a, b->a, sp), select_val(w, c, a->b, b->b, sp));
    if (a->k != VAL_SCALAR)
        diag_error(w->d, sp, "a choice between arrays element by element is not supported here (concat of "
                   "nested arrays, or padCst or concat of pairs holding arrays)");
    X *x = lw_xnew(w, X_SELECT, a->x->sk);
    x->sel.c = c;
    x->sel.a = a->x;
    x->sel.b = b->x;
    return lw_scalar(w, x);
}

/* nat comparison as a boolean X, folded when provable */
static X *nat_lt(Lw *w, Nat *x, Nat *y)
{
    if (nat_prove_lt(w->a, x, y)) return x_bool(w->a, true);
    if (nat_prove_ge(w->a, x, y)) return x_bool(w->a, false);
    return lw_xbin(w, OP_LT, SK_BOOL, lw_xnat(w, x), lw_xnat(w, y));
}

static X *x_or(Lw *w, X *a, X *b)
{
    if (a->kind == X_LIT) return a->lit.b ? a : b;
    if (b->kind == X_LIT) return b->lit.b ? b : a;
    return lw_xbin(w, OP_OR, SK_BOOL, a, b);
}

/* nat comparison x >= y as a boolean X, folded when provable */
static X *nat_ge(Lw *w, Nat *x, Nat *y)
{
    X *lt = nat_lt(w, x, y);
    if (lt->kind == X_LIT) return x_bool(w->a, !lt->lit.b);
    return lw_xbin(w, OP_GE, SK_BOOL, lt->bin.l, lt->bin.r);
}

ScalarKind lw_sk_of(const Type *t) { return t->kind == T_IDX ? SK_I32 : t->sk; }

/* Is c the bound test `a >= N` that padCst emits for the upper edge? */
static bool upper_edge(const X *c, Nat **a, Nat **n)
{
    if (c->kind != X_BIN || c->bin.op != OP_GE || c->bin.l->kind != X_NAT || c->bin.r->kind != X_NAT) return false;
    *a = c->bin.l->nat.n;
    *n = c->bin.r->nat.n;
    return true;
}

/* padClamp's loads at the upper edge: element j of the group is src[min(e + j, c)] for
 * every j (the normal form may put either operand of the min first). Then the group is
 * src[e .. e+k) unless e + k - 1 > c, where the clamped loads are done one by one:
 * *guard is that test, `e + k - 1 >= c + 1`. */
static bool clamped_group(Lw *w, X *const *xs, int64_t k, Buffer **src, Nat **idx, X **guard)
{
    Arena *a = w->a;
    const X *x0 = xs[0];
    if (x0->kind != X_LOAD || x0->load.buf->as != AS_GLOBAL || x0->load.buf->param < 0 ||
        x0->load.index->kind != N_MIN)
        return false;
    for (int side = 0; side < 2; side++) {
        Nat *e = side ? x0->load.index->bin.r : x0->load.index->bin.l;
        Nat *c = side ? x0->load.index->bin.l : x0->load.index->bin.r;
        bool all = true;
        for (int64_t j = 1; j < k && all; j++)
            all = xs[j]->kind == X_LOAD && xs[j]->load.buf == x0->load.buf &&
                  nat_equal(xs[j]->load.index, nat_min(a, nadd(w, e, nat_cst(a, j)), c));
        if (!all) continue;
        *src = x0->load.buf;
        *idx = e;
        *guard = lw_xbin(w, OP_GE, SK_BOOL, lw_xnat(w, nadd(w, e, nat_cst(a, k - 1))), lw_xnat(w, nadd(w, c, nat_cst(a, 1))));
        return true;
    }
    return false;
}

/* A group of padClamp's loads whose clamp -D sizes have folded: each element a load of
 * the same global input at a constant index (the clamped end) or a min, some constant
 * (n = 1: every index is 0). It is read element by element, as padding is. */
static bool collapsed_clamp(X *const *xs, int64_t k)
{
    bool cst = false;
    for (int64_t j = 0; j < k; j++) {
        const X *x = xs[j];
        if (x->kind != X_LOAD || x->load.buf != xs[0]->load.buf || x->load.buf->as != AS_GLOBAL ||
            x->load.buf->param < 0 || (x->load.index->kind != N_CST && x->load.index->kind != N_MIN))
            return false;
        cst |= x->load.index->kind == N_CST;
    }
    return cst;
}

static bool any_access(void *ctx, Buffer *b, bool write)
{
    (void)ctx, (void)b, (void)write;
    return true;
}

/* A group whose elements read no memory (a generate's indices beside the values of an
 * asVector of pairs): there is nothing to load, so it is computed element by element */
static bool computed_group(X *const *xs, int64_t k)
{
    static const IrVisitor v = {.access = any_access};
    for (int64_t j = 0; j < k; j++)
        if (ir_walk_x(xs[j], &v, NULL)) return false;
    return true;
}

/* Group i of asVector(k)(in): the k elements in[i*k + j] must each be a load of
 * one global input at consecutive indices idx+j, with idx a multiple of k, possibly
 * behind padCst's bound tests or padClamp's clamp (clamped_group). Then they are one
 * k-wide load into a vector register:
 *     if (any bound test holds) v[j] = element j, one by one; else v = load_k(&src[idx])
 * The bound tests of a padCst at the upper edge are `idx+j >= N`; they hold for some j
 * exactly when the last one holds, so that one alone guards the vector load. */
static Val *vector_at(Lw *w, View *v, Nat *i)
{
    Arena *a = w->a;
    int64_t k;
    if (!nat_is_const(v->n1, &k) || k < 1 || k > 4) die("asVector width");
    Nat *base = nmul(w, i, v->n1);
    X **xs = ANEWN(a, X *, k);
    Buffer *src = NULL;
    Nat *idx = NULL;
    X *guard = NULL, *conds[4] = {0};
    bool ok = true, pads = false;
    for (int64_t j = 0; j < k; j++) {
        Val *e = lw_view_at(w, v->in, nadd(w, base, nat_cst(a, j)));
        if (e->k != VAL_SCALAR) die("asVector of a non-scalar");
        xs[j] = e->x;
    }
    X *clamp = NULL;
    bool clamped = clamped_group(w, xs, k, &src, &idx, &clamp);
    int64_t kw = clamped ? 0 : k; /* the element-wise analysis is for the other groups */
    for (int64_t j = 0; j < kw && ok; j++) {
        X *x = xs[j];
        if (x->kind == X_SELECT && x->sel.b->kind == X_LOAD) {
            conds[j] = x->sel.c;
            x = x->sel.b;
        }
        if (x->kind == X_LIT || (x->kind == X_LOAD && x->load.buf->as == AS_PRIVATE && x->load.buf->scalar) ||
            computed_group(&x, 1)) { /* a constant (i32(0): a pair's padding is not a register) */
            pads = true;
        } else if (x->kind != X_LOAD || x->load.buf->as != AS_GLOBAL) {
            ok = false;
        } else if (!src) {
            src = x->load.buf;
            idx = x->load.index;
        } else if (x->load.buf != src || !nat_equal(x->load.index, nadd(w, idx, nat_cst(a, j)))) {
            ok = false;
        }
        if (conds[j]) guard = guard ? lw_xbin(w, OP_OR, SK_BOOL, guard, conds[j]) : conds[j];
    }
    if (!ok && collapsed_clamp(xs, k)) ok = pads = true;
    if (!ok && computed_group(xs, k)) ok = pads = true;
    bool edges = true;
    Nat *a0 = NULL, *n0 = NULL;
    for (int64_t j = 0; j < kw && edges; j++) {
        Nat *ca, *cn;
        if (!conds[j] || !upper_edge(conds[j], &ca, &cn)) edges = false;
        else if (j == 0) a0 = ca, n0 = cn;
        else if (!nat_equal(cn, n0) || !nat_equal(ca, nadd(w, a0, nat_cst(a, j)))) edges = false;
    }
    if (!ok)
        diag_error(w->d, v->fn->sp, "asVector(%lld): each group of %lld elements must be consecutive elements of a "
                   "kernel input (through split, join, transpose, padCst, padClamp, ...), so that one load reads them",
                   (long long)k, (long long)k);
    if (!pads && !nat_divides(a, v->n1, idx)) {
        hint_fact(w->d, a, HINT_DIVIDES, v->n1, idx);
        diag_error(w->d, v->fn->sp, "asVector(%lld): a group starts at element %s of '%s', which is not provably a "
                   "multiple of %lld, so the %lld-wide load could be misaligned",
                   (long long)k, nat_str(a, idx), src->name, (long long)k, (long long)k);
    }
    Buffer *vb = lw_new_buffer(w, "v", AS_PRIVATE, lw_sk_of(v->ty->arr.elem->arr.elem), v->n1);
    Stmt *d = lw_snew(w, S_DECL);
    d->decl.buf = vb;
    lw_emit(w, d);
    if (pads) {
        /* provably padding in part, or a collapsed clamp (sizes fixed by -D): never one
         * load, element by element */
        for (int64_t j = 0; j < k; j++) lw_store(w, vb, nat_cst(a, j), xs[j]);
    } else {
        vb->vec = (int)k;
        int bytes = (int)k * scalar_info[src->sk].size;
        if (src->align < bytes) src->align = bytes;
        Stmt *s = lw_snew(w, S_VLOAD);
        s->vload.dst = vb;
        s->vload.src = src;
        s->vload.index = idx;
        s->vload.width = (int)k;
        /* the last bound test covers all */
        s->vload.guard = clamped ? clamp : guard && edges ? conds[k - 1] : guard;
        s->vload.fallback = xs;
        lw_emit(w, s);
    }
    View *r = lw_mem_view(w, v->ty->arr.elem, vb);
    return lw_array(w, r);
}

/* A shuffle is computed into a register where it is read, as a statement of its own:
 * every lane of the warp runs it, also the lanes for which a view around the read
 * (padCst, or any select) then discards it. Left in the expression it would be an
 * operand of that select's ?:, which only the lanes choosing it evaluate, and a
 * __shfl*_sync that not every lane of its mask runs is undefined. */
static X *shuffle_now(Lw *w, X *shfl)
{
    return lw_materialise(w, shfl, "sh");
}

/* The source lane of a read of warp-array element i. Lanes for which i is outside
 * 0..31 (a padCst edge: i = lane - d below lane d) still run the shuffle but discard
 * its value, so they read lane 0 or 31 instead: the index stays in range. The clamp
 * is an int min/max of the index cast to int (a lane loop's variable may be 64-bit,
 * and CUDA has no max(long long, int)), not a Nat, which would be widened. */
static X *source_lane(Lw *w, Nat *i)
{
    Arena *a = w->a;
    X *x = lw_xnat(w, i);
    for (int hi = 0; hi < 2; hi++) {
        Nat *edge = nat_cst(a, hi ? 31 : 0);
        if (hi ? nat_prove_lt(a, i, nat_cst(a, 32)) : nat_prove_ge(a, i, edge)) continue;
        if (x->kind == X_NAT) {
            X *c = lw_xnew(w, X_CAST, SK_I32);
            c->un.e = x;
            x = c;
        }
        X *m = lw_xnew(w, X_MINMAX, SK_I32);
        m->bin.op = hi ? OP_LT : OP_GT;
        m->bin.l = x;
        m->bin.r = lw_xnat(w, edge);
        x = m;
    }
    return x;
}

static bool is_shuffle(void *ctx, const X *x)
{
    (void)ctx;
    return x->kind == X_SHFL;
}

/* Some statement the current sequence got since item `mark` is not a shuffle: a value
 * read into a register. A shuffle's own statement reads no memory (its value was
 * computed before, its source lane is clamped), but a read may emit both. */
static bool emitted_load(Lw *w, int mark)
{
    static const IrVisitor v = {.x = is_shuffle};
    for (int k = mark; k < w->cur->seq.n; k++)
        if (!ir_walk(w->cur->seq.items[k], &v, NULL)) return true;
    return false;
}

/* x read at the indices path[0..np) */
static Val *read_path(Lw *w, Val *x, Nat **path, int np)
{
    for (int k = 0; k < np; k++) x = lw_view_at(w, x->v, path[k]);
    return x;
}

/* Element path[0..np) of element i of padCst view v (np = 0: element i itself):
 * outside ? value[path] : in[i - l][path]; C's ?: evaluates only the chosen operand, so
 * the array is never read out of bounds (a shuffle of a warp array is not in the
 * operand: shuffle_now has computed it before, on every lane). The test is made where
 * a scalar is read, so a padded row costs no more than a padded scalar. */
static Val *padcst_at(Lw *w, View *v, Nat *i, Nat **path, int np)
{
    Arena *a = w->a;
    Nat *j = nat_sub(a, i, v->n1);
    X *hi = nat_prove_ge(a, j, v->n2) ? x_bool(w->a, true)
          : nat_prove_lt(a, j, v->n2) ? x_bool(w->a, false)
          : lw_xbin(w, OP_GE, SK_BOOL, lw_xnat(w, j), lw_xnat(w, v->n2));
    X *outside = x_or(w, nat_lt(w, i, v->n1), hi);
    if (outside->kind == X_LIT)
        return outside->lit.b ? read_path(w, v->val, path, np) : read_path(w, lw_view_at(w, v->in, j), path, np);
    if (nat_prove_lt(a, v->n2, nat_cst(a, 1))) return read_path(w, v->val, path, np); /* all padding */
    /* What the read emits before the choice runs at the padded positions too: a
     * run-time index (a gather's or idx's, read into a variable of its own), or a
     * value read into a register (a map's parameter used twice: xs[j] then read
     * past the end of xs). Then the read is redone at j clamped into 0..n2-1, as
     * concat does, and what the first one emitted is dropped (with any shuffle
     * beside the load: redone at the clamped index, it reads the same lane or one
     * whose value is discarded). Reads that emit nothing keep the plain j, and so
     * do reads that emit only shuffles (a shuffle clamps its own source lane). The
     * padding value's element is read first: what it emits is kept. */
    Val *pad = read_path(w, v->val, path, np);
    int mark = w->cur->seq.n, reads = w->index_reads;
    Val *in = read_path(w, lw_view_at(w, v->in, j), path, np);
    if (w->index_reads != reads || emitted_load(w, mark)) {
        w->cur->seq.n = mark;
        in = read_path(w, lw_view_at(w, v->in, nat_max(a, nat_cst(a, 0), nat_min(a, j, nat_sub(a, v->n2, nat_cst(a, 1))))),
                       path, np);
    }
    return select_val(w, outside, pad, in, v->sp);
}

/* The shuffle v of the lane's own element mine, i the lane: a shuffle per scalar leaf
 * (a warp array of pairs moves each side with a shuffle of its own) */
static Val *shfl_leaves(Lw *w, View *v, Val *mine, Nat *i)
{
    if (mine->k == VAL_PAIR) {
        Val *l = shfl_leaves(w, v, mine->a, i); /* left leaf first */
        return lw_pairv(w, l, shfl_leaves(w, v, mine->b, i));
    }
    X *arg = v->shfl == SHFL_IDX ? lw_view_at(w, v->src, i)->x : lw_xnat(w, v->n1);
    return lw_scalar(w, shuffle_now(w, lw_xshfl(w, v->shfl, mine->x->sk, mine->x, arg)));
}

/* Is i the index of a lane-level loop over 32 elements that is open here? Such a loop's
 * iteration is the lane itself (codegen's loop from `lane` by 32), so element i of a warp
 * array is the lane's own. */
static bool own_lane(Lw *w, Nat *i)
{
    int64_t n;
    for (int j = 0; j < w->nloops; j++) {
        const Stmt *s = w->loops[j];
        if (s->loop.level == LVL_LANE && nat_equal(i, nat_var(w->a, s->loop.var)) && nat_is_const(s->loop.extent, &n) &&
            n == 32)
            return true;
    }
    return false;
}

/* Element i of a view (rules in the ViewKind comments). */
Val *lw_view_at(Lw *w, View *v, Nat *i)
{
    Arena *a = w->a;
    Type *et = v->ty->arr.elem;
    switch (v->kind) {
    case V_MEM: {
        /* along a spread dimension the thread's part starts where the view does */
        if (v->dleft) own_index(w, v->buf, v->dleft, v->ty->arr.n, i, false);
        Nat *off = v->dleft ? v->base : nadd(w, v->base, nmul(w, i, elems(w, et)));
        if (et->kind == T_ARRAY) {
            View *r = lw_view(w, V_MEM, et, NULL);
            r->buf = v->buf;
            r->base = off;
            r->dleft = v->dleft ? v->dleft - 1 : 0;
            r->sp = v->sp;
            return lw_array(w, r);
        }
        if (et->kind == T_PAIR) diag_error(w->d, v->sp, "arrays of pairs in memory are not supported");
        return lw_scalar(w, lw_xload(w, v->buf, off));
    }
    case V_OFFSET: return lw_view_at(w, v->in, nadd(w, v->n1, i));
    case V_SPLIT:
    case V_SLIDE: {
        View *r = lw_view(w, V_OFFSET, et, v->in);
        r->n1 = nmul(w, i, v->n1);
        return lw_array(w, r);
    }
    case V_JOIN: {
        Val *row = lw_view_at(w, v->in, nat_div(a, i, v->n1));
        return lw_view_at(w, row->v, nat_mod(a, i, v->n1));
    }
    case V_TRANSPOSE: {
        View *r = lw_view(w, V_TROW, et, v->in);
        r->n1 = i;
        return lw_array(w, r);
    }
    case V_TROW: return lw_view_at(w, lw_view_at(w, v->in, i)->v, v->n1);
    case V_PADCST:
        if (et->kind == T_ARRAY) {
            /* a row of padding or of the array, chosen where its elements are read */
            View *r = lw_view(w, V_PADROW, et, v);
            r->n1 = i;
            return lw_array(w, r);
        }
        return padcst_at(w, v, i, NULL, 0);
    case V_PADROW: {
        Nat **p = ANEWN(a, Nat *, v->npath + 1);
        for (int k = 0; k < v->npath; k++) p[k] = v->path[k];
        p[v->npath] = i;
        if (et->kind != T_ARRAY) return padcst_at(w, v->in, v->n1, p, v->npath + 1);
        View *r = lw_view(w, V_PADROW, et, v->in);
        r->n1 = v->n1;
        r->path = p;
        r->npath = v->npath + 1;
        return lw_array(w, r);
    }
    case V_PADCLAMP: {
        Nat *j = nat_sub(a, i, v->n1);
        return lw_view_at(w, v->in, nat_max(a, nat_cst(a, 0), nat_min(a, j, nat_sub(a, v->n2, nat_cst(a, 1)))));
    }
    case V_ZIP:
        if (et->kind == T_ARRAY) {
            /* a stored array of pairs of more than one dimension: a row is the rows' zip */
            View *l = lw_view_at(w, v->in, i)->v, *r = lw_view(w, V_ZIP, et, l);
            r->in2 = lw_view_at(w, v->in2, i)->v;
            r->soa = v->soa;
            r->sp = v->sp;
            return lw_array(w, r);
        }
        {
            Val *l = lw_view_at(w, v->in, i); /* the left side's statements first */
            return lw_pairv(w, l, lw_view_at(w, v->in2, i));
        }
    case V_PROJ: {
        Val *p = lw_view_at(w, v->in, i);
        return v->proj == 0 ? p->a : p->b;
    }
    case V_GEN: return lw_apply1(w, v->fn, lw_scalar(w, lw_xnat(w, i)));
    case V_MAP: return lw_apply1(w, v->fn, lw_view_at(w, v->in, i));
    case V_LANES: {
        if (nat_equal(i, nat_var(a, w->k->hw.lane))) return v->own ? v->own : lw_scalar(w, v->mine);
        if (own_lane(w, i)) return v->own ? v->own : lw_scalar(w, v->mine); /* no shuffle from itself */
        if (v->own) /* a whole array would have to move between lanes */
            diag_error2(w->d, w->at, v->sp, "the warp array is made here",
                        "a warp array of arrays (each lane's array in its own private memory) is read at "
                        "another lane's index; a lane can read only its own array, at the lane's own index "
                        "(mapLane)");
        /* another lane's element: a shuffle, which every lane of the warp must execute */
        if (w->partial_lanes)
            diag_error2(w->d, w->at, v->sp, "the warp array is made here",
                        "a warp array is read at another lane's index inside code that only some "
                        "lanes run; read it at the lane's own index (mapLane) or before the partial map");
        return lw_scalar(w, shuffle_now(w, lw_xshfl(w, SHFL_IDX, v->mine->sk, v->mine, source_lane(w, i))));
    }
    case V_VEC: return vector_at(w, v, i);
    case V_GATHER: return lw_view_at(w, v->in, lw_data_index(w, lw_view_at(w, v->in2, i)->x, v->in->ty->arr.n));
    case V_CONCAT: {
        /* i < n1 ? in[i] : in2[i - n1]; both sides are read at indices clamped into
         * their arrays, so that what a side computes before the choice (a run-time
         * index that data_index declares) never reads outside it */
        Nat *j = nat_sub(a, i, v->n1);
        if (nat_prove_lt(a, i, v->n1)) return lw_view_at(w, v->in, i);
        if (nat_prove_ge(a, i, v->n1)) return lw_view_at(w, v->in2, j);
        Nat *last = nat_sub(a, v->n1, nat_cst(a, 1));
        Val *x = lw_view_at(w, v->in, nat_max(a, nat_cst(a, 0), nat_min(a, i, last)));
        Val *y = lw_view_at(w, v->in2, nat_max(a, nat_cst(a, 0), j));
        return select_val(w, nat_lt(w, i, v->n1), x, y, v->sp);
    }
    case V_SELECT: return lw_select_any(w, v->cond, lw_view_at(w, v->in, i), lw_view_at(w, v->in2, i));
    case V_SHFL: {
        if (!nat_equal(i, nat_var(a, w->k->hw.lane)))
            diag_error2(w->d, w->at, v->sp, "the shuffle is here",
                        "the result of a shuffle can only be read at the lane's own index; "
                        "distribute it with mapLane");
        if (w->partial_lanes)
            diag_error2(w->d, w->at, v->sp, "the shuffle is here",
                        "a shuffle inside code that only some lanes of the warp run: every lane of the "
                        "warp must execute it; distribute its result with mapLane(id) first, then take the lanes you need");
        return shfl_leaves(w, v, lw_view_at(w, v->in, i), i);
    }
    }
    unreachable();
}

/* ---------------------------------------------------------------- writing */

static Acc *acc_at_(Lw *w, Acc *c, Nat *i);

/* acc_at, with the guards of the acceptors passed through: take's (i < k), drop's
 * (i >= k), and whatever the outer acceptor had. */
Acc *lw_acc_at(Lw *w, Acc *c, Nat *i)
{
    Acc *r = acc_at_(w, c, i);
    X *g = c->guard;
    if (c->kind == W_TAKEW || c->kind == W_DROPW) {
        X *in = c->kind == W_TAKEW ? nat_lt(w, i, c->n1) : nat_ge(w, i, c->n1);
        if (!(in->kind == X_LIT && in->lit.b)) g = g ? lw_xbin(w, OP_AND, SK_BOOL, g, in) : in;
    }
    if (g && r->guard && r->guard != g) g = lw_xbin(w, OP_AND, SK_BOOL, g, r->guard);
    else if (!g) g = r->guard;
    if (g != r->guard) {
        Acc *cp = ANEW(w->a, Acc);
        *cp = *r;
        cp->guard = g;
        r = cp;
    }
    return r;
}

static Acc *acc_at_(Lw *w, Acc *c, Nat *i)
{
    Type *et = c->ty->arr.elem;
    switch (c->kind) {
    case W_MEM: {
        Acc *r = lw_acceptor(w, W_MEM, et, NULL);
        r->buf = c->buf;
        if (c->dleft) own_index(w, c->buf, c->dleft, c->ty->arr.n, i, true);
        r->base = c->dleft ? c->base : nadd(w, c->base, nmul(w, i, elems(w, et)));
        r->dleft = c->dleft ? c->dleft - 1 : 0;
        return r;
    }
    case W_OFFSET: return lw_acc_at(w, c->in, nadd(w, c->n1, i));
    case W_SPLITW: return lw_acc_at(w, lw_acc_at(w, c->in, nat_div(w->a, i, c->n1)), nat_mod(w->a, i, c->n1));
    case W_JOINW: {
        Acc *r = lw_acceptor(w, W_OFFSET, et, c->in);
        r->n1 = nmul(w, i, c->n1);
        return r;
    }
    case W_TRANSW: {
        Acc *r = lw_acceptor(w, W_TROWW, et, c->in);
        r->n1 = i;
        return r;
    }
    case W_TROWW: return lw_acc_at(w, lw_acc_at(w, c->in, i), c->n1);
    case W_MAPF: return acc_through(w, c->fn->lam.body, c->fn->lam.param, lw_acc_at(w, c->in, i));
    case W_SCATTER: return lw_acc_at(w, c->in, lw_data_index(w, lw_view_at(w, c->iv, i)->x, c->in->ty->arr.n));
    case W_TAKEW: return lw_acc_at(w, c->in, i);
    case W_DROPW: return lw_acc_at(w, c->in, nat_sub(w->a, i, c->n1));
    case W_PADW: {
        Acc *r = lw_acceptor(w, W_PADEL, et, lw_acc_at(w, c->in, nadd(w, c->n1, i)));
        r->pad = c;
        r->n1 = i;
        return r;
    }
    case W_PADEL: {
        Acc *r = lw_acceptor(w, W_PADEL, et, lw_acc_at(w, c->in, i));
        r->pad = c->pad;
        r->n1 = c->n1;
        r->path = ANEWN(w->a, Nat *, c->npath + 1);
        for (int k = 0; k < c->npath; k++) r->path[k] = c->path[k];
        r->path[c->npath] = i;
        r->npath = c->npath + 1;
        return r;
    }
    case W_COMPACT: {
        Acc *r = lw_acceptor(w, W_COMPACTEL, et, c);
        r->n1 = i;
        return r;
    }
    case W_COMPACTEL: die("a record of compactTo is not an array");
    case W_ATOMIC: {
        Acc *r = lw_acceptor(w, W_ATOMICEL, et, c);
        r->n1 = i;
        return r;
    }
    case W_ATOMICEL: die("a pair of accumulate is not an array");
    case W_PAIRW: {
        Acc *r = lw_acceptor(w, W_PAIRW, et, lw_acc_at(w, c->in, i));
        r->in2 = lw_acc_at(w, c->in2, i);
        return r;
    }
    }
    unreachable();
}

/* The acceptor that writes x into padCst(l)(r)(v)(x)'s place c (e a padCst): v is
 * computed here, once (a scalar into a register) */
Acc *lw_padw(Lw *w, Expr *e, Acc *c)
{
    Acc *r = lw_acceptor(w, W_PADW, e->prim.args[1]->ty, c);
    r->n1 = e->prim.nats[0];
    r->n2 = e->prim.args[1]->ty->arr.n;
    r->val = lw_lower_exp(w, e->prim.args[0]);
    if (r->val->k == VAL_SCALAR) r->val->x = lw_materialise(w, r->val->x, "pad");
    return r;
}

/* Is body a chain of view-chain links (PrimOps.through: join, split, transpose, id,
 * take, drop, padCst, mapSeq of a chain) over the variable x? (take and drop: the
 * elements they cut off are written nowhere; padCst: its padding written beside its
 * first and last elements, its value not reading x) */
bool lw_view_chain(const Expr *body, const Binder *x)
{
    if (body->kind == E_VAR) return body->var.b == x;
    if (body->kind != E_PRIM) return false;
    const PrimOps *o = prim_ops(body->prim.p);
    if (!o->through || (o->chain_ok && !o->chain_ok(body, x))) return false;
    return lw_view_chain(body->prim.args[o->chain_arg], x);
}

/* The acceptor for x when `body` (a view chain over x) is written to c: each link's
 * argument is written to the acceptor its `through` makes of c (prims/view.c lists
 * them). */
static Acc *acc_through(Lw *w, Expr *body, Binder *x, Acc *c)
{
    if (body->kind == E_VAR) return c;
    const PrimOps *o = prim_ops(body->prim.p);
    return acc_through(w, body->prim.args[o->chain_arg], x, o->through(w, body, c));
}

/* The padding of a padCst written through (W_PADEL c, its scalar at c's path): the
 * writer of element 0 stores the value's part into the l elements before the array,
 * the writer of element n-1 into the r after it (a row of n = 0 elements has no writer,
 * and its padding is not written). A side of one element is one store, else a loop. */
static void pad_fill(Lw *w, Acc *c, Span sp)
{
    Arena *a = w->a;
    Acc *p = c->pad;
    Nat *n = p->n2, *l = p->n1;
    Nat *r = nat_sub(a, nat_sub(a, p->in->ty->arr.n, l), n);
    for (int side = 0; side < 2; side++) {
        Nat *cnt = side ? r : l, *first = side ? nadd(w, l, n) : nat_cst(a, 0);
        Nat *writer = side ? nat_sub(a, n, nat_cst(a, 1)) : nat_cst(a, 0);
        if (nat_prove_lt(a, cnt, nat_cst(a, 1))) continue;
        Stmt *saved = NULL, *ls = NULL, *lsaved = NULL;
        if (!nat_equal(c->n1, writer))
            lw_open_if(w, lw_xbin(w, OP_EQ, SK_BOOL, lw_xnat(w, c->n1), lw_xnat(w, writer)), &saved);
        int64_t one;
        Nat *q = nat_cst(a, 0);
        if (!nat_is_const(cnt, &one) || one != 1) {
            NatVar *iv;
            ls = lw_open_loop(w, LVL_SEQ, 0, cnt, &iv, &lsaved);
            q = nat_var(a, iv);
        }
        Acc *dst = lw_acc_at(w, p->in, nadd(w, first, q));
        for (int k = 0; k < c->npath; k++) dst = lw_acc_at(w, dst, c->path[k]);
        lw_acc_store(w, dst, read_path(w, p->val, c->path, c->npath), sp);
        if (ls) lw_close_loop(w, ls, lsaved);
        if (saved) w->cur = saved;
    }
}

/* A scalar acceptor is a memory cell: find it by peeling the transformations. */
void lw_acc_store(Lw *w, Acc *c, Val *v, Span sp)
{
    if (c->kind == W_COMPACTEL) {
        prims_compact_store(w, c, v, sp);
        return;
    }
    if (c->kind == W_PADEL) {
        Stmt *saved = NULL;
        if (c->guard) lw_open_if(w, c->guard, &saved);
        lw_acc_store(w, c->in, v, sp);
        pad_fill(w, c, sp);
        if (saved) w->cur = saved;
        return;
    }
    if (c->kind == W_ATOMICEL) {
        prims_atomic_store(w, c, v, sp);
        return;
    }
    Stmt *saved = NULL;
    if (c->kind == W_PAIRW && v->k == VAL_PAIR) {
        /* an element of an array of pairs in memory: each side to its own array */
        if (c->guard) lw_open_if(w, c->guard, &saved);
        lw_copy_val(w, v->a, c->in, sp);
        lw_copy_val(w, v->b, c->in2, sp);
        if (saved) w->cur = saved;
        return;
    }
    if (v->k == VAL_PAIR) diag_error(w->d, sp, "a pair cannot be written to memory here; write its components separately");
    if (c->kind != W_MEM) die("scalar acceptor is not memory");
    if (c->guard) lw_open_if(w, c->guard, &saved); /* a write past take's end: dropped */
    lw_store(w, c->buf, c->base, v->x);
    if (saved) w->cur = saved;
}

static NatVar *loop_var(Lw *w, const char *prefix, Nat *extent)
{
    return nat_newvar(w->a, arena_printf(w->a, "%s%d", prefix, w->names++), 0, extent);
}

Stmt *lw_open_loop(Lw *w, Level l, int dim, Nat *extent, NatVar **iv, Stmt **saved)
{
    static const char *const prefix[] = {"i", "g", "b", "t", "w", "l"};
    Stmt *s = lw_snew(w, S_FOR);
    s->loop.level = l;
    s->loop.dim = dim;
    s->loop.extent = extent;
    s->loop.var = *iv = loop_var(w, prefix[l], extent);
    s->loop.body = stmt_seq(w->a);
    lw_emit(w, s);
    *saved = w->cur;
    w->cur = s->loop.body;
    if (l != LVL_SEQ) w->lv[w->ndepth++] = l;
    if (w->nloops == 64) diag_error(w->d, w->at, "loops nested too deeply (more than 64)");
    w->loops[w->nloops++] = s;
    return s;
}

void lw_close_loop(Lw *w, Stmt *s, Stmt *saved)
{
    if (s->loop.level != LVL_SEQ) w->ndepth--;
    w->nloops--;
    w->cur = saved;
}

/* A warp array seen through drop/take: element i lives in lane i + *off. */
bool lw_lanes_offset(Lw *w, View *v, int64_t *off)
{
    int64_t o = 0, c;
    for (; v->kind == V_OFFSET; v = v->in) {
        if (!nat_is_const(v->n1, &c)) return false;
        o += c;
    }
    if (v->kind == V_ZIP && v->soa) {
        /* a warp array of pairs: each side in the lanes' registers, at the same place */
        int64_t o1, o2;
        if (!lw_lanes_offset(w, v->in, &o1) || !lw_lanes_offset(w, v->in2, &o2) || o1 != o2) return false;
        *off = o + o1;
        return true;
    }
    *off = o;
    return v->kind == V_LANES || v->kind == V_SHFL;
}

/* Write a warp array's elements where they live: element i of a view whose element
 * lives in lane i + c is written by that lane, from its register:
 *   if (lane >= c && lane < c + n) out[lane - c] = mine */
void lw_store_by_owner(Lw *w, View *v, int64_t off, Acc *c, void (*body)(Lw *, Val *, Acc *, Span), Span sp)
{
    Arena *a = w->a;
    Nat *lane = nat_var(a, w->k->hw.lane), *n = v->ty->arr.n;
    Nat *i = nat_sub(a, lane, nat_cst(a, off));
    X *cond = NULL;
    if (off > 0) cond = lw_xbin(w, OP_GE, SK_BOOL, lw_xnat(w, lane), lw_xnat(w, nat_cst(a, off)));
    if (!nat_prove_lt(a, lane, nat_add(a, n, nat_cst(a, off)))) {
        X *hi = lw_xbin(w, OP_LT, SK_BOOL, lw_xnat(w, lane), lw_xnat(w, nat_add(a, n, nat_cst(a, off))));
        cond = cond ? lw_xbin(w, OP_AND, SK_BOOL, cond, hi) : hi;
    }
    /* the region is marked per-lane even when every lane takes part, so that the
     * single-thread pass does not mistake it for redundant warp-level code */
    Stmt *saved;
    lw_open_if(w, cond ? cond : x_bool(w->a, true), &saved)->cond.per_lane = true;
    if (cond) w->partial_lanes++;
    body(w, lw_view_at(w, v, i), lw_acc_at(w, c, i), sp);
    if (cond) w->partial_lanes--;
    w->cur = saved;
}


/* Copy an array value element by element (a sequential loop in the current context),
 * except warp arrays, which each lane writes from its own register, and arrays spread
 * over the threads (read or written), which each thread copies its own part of: the
 * loop over a spread dimension is a mapThreads along its thread dimension. */
void lw_copy_val(Lw *w, Val *v, Acc *c, Span sp)
{
    if (v->k != VAL_ARRAY) {
        lw_acc_store(w, c, v, sp);
        return;
    }
    int64_t off;
    if (lw_lanes_offset(w, v->v, &off)) {
        lw_store_by_owner(w, v->v, off, c, lw_copy_val, sp);
        return;
    }
    NatVar *iv;
    Stmt *saved;
    Level l = LVL_SEQ;
    int dim = 0;
    Buffer *spread = NULL;
    View *vm = v->v;
    Acc *cm = c;
    while (vm->kind == V_ZIP && vm->soa) vm = vm->in; /* an array of pairs: its first side's memory */
    while (cm->kind == W_PAIRW) cm = cm->in;
    if (vm->kind == V_MEM && vm->dleft) spread = vm->buf, dim = spread_dim(spread, vm->dleft);
    else if (cm->kind == W_MEM && cm->dleft) spread = cm->buf, dim = spread_dim(spread, cm->dleft);
    if (spread) {
        /* the copy's own loops over the outer spread dimensions are the only thread
         * loops it may be inside */
        bool per_thread = lw_inside(w, LVL_WARP) || lw_inside(w, LVL_LANE) || lw_inside(w, LVL_GLOBAL);
        for (int j = 0; j < w->nloops; j++)
            per_thread |= w->loops[j]->loop.level == LVL_THREADS && w->loops[j]->loop.dim == dim;
        if (per_thread)
            diag_error2(w->d, w->at, spread->dsp, "the array is spread over the threads here",
                        "this copies a whole array spread over the block's threads inside code that each thread "
                        "runs on its own; a thread holds only its own elements: copy it at block level, or "
                        "read the thread's own element");
        l = LVL_THREADS;
    }
    Stmt *s = lw_open_loop(w, l, dim, v->v->ty->arr.n, &iv, &saved);
    /* a private array (a reduceSeq's array accumulator), read or written, stays in
     * registers only when every index into it is a constant */
    s->loop.unroll = l == LVL_SEQ && ((vm->kind == V_MEM && vm->buf->as == AS_PRIVATE) ||
                                      (cm->kind == W_MEM && cm->buf->as == AS_PRIVATE));
    Nat *i = nat_var(w->a, iv);
    lw_copy_val(w, lw_view_at(w, v->v, i), lw_acc_at(w, c, i), sp);
    lw_close_loop(w, s, saved);
}



/* ty with its innermost element (below every array) replaced by inner */
static Type *with_inner(Arena *a, Type *ty, Type *inner)
{
    return ty->kind == T_ARRAY ? ty_array(a, ty->arr.n, with_inner(a, ty->arr.elem, inner)) : inner;
}

/* An array of pairs stored as one array per scalar leaf (structure of arrays): each
 * side is an array of the same shape, and element i of the whole is the pair of the
 * sides' elements i (V_ZIP, which zips rows too), written side by side (W_PAIRW). So a
 * warp reads the sides' arrays each with its own coalesced accesses, and no element
 * type other than the scalars' reaches memory, codegen or the runtime. */
bool lw_soa(Lw *w, Type *ty, LwMkBuf mk, void *ctx, Acc **acc, View **view)
{
    Type *in = ty;
    while (in->kind == T_ARRAY) in = in->arr.elem;
    if (in->kind == T_PAIR) {
        Acc *ca, *cb;
        View *va, *vb;
        if (!lw_soa(w, with_inner(w->a, ty, in->pair.a), mk, ctx, &ca, &va) ||
            !lw_soa(w, with_inner(w->a, ty, in->pair.b), mk, ctx, &cb, &vb))
            return false;
        *acc = lw_acceptor(w, W_PAIRW, ty, ca);
        (*acc)->in2 = cb;
        *view = lw_view(w, V_ZIP, ty, va);
        (*view)->in2 = vb;
        (*view)->soa = true;
        return true;
    }
    if (in->kind != T_SCALAR && in->kind != T_IDX) return false;
    Nat *cnt;
    ty_innermost(w->a, ty, &cnt);
    Buffer *b = mk(w, ctx, lw_sk_of(in), cnt);
    *acc = lw_mem_acc(w, ty, b);
    *view = lw_mem_view(w, ty, b);
    return true;
}

/* A warp array of pairs is one warp array per side, each lane's element of each side in
 * a register of its own */
View *lw_lanes_of(Lw *w, Type *ty, Val *mine, Span sp)
{
    if (mine->k == VAL_PAIR) {
        Type *et = ty->arr.elem;
        View *l = lw_lanes_of(w, ty_array(w->a, ty->arr.n, et->pair.a), mine->a, sp), *v = lw_view(w, V_ZIP, ty, l);
        v->in2 = lw_lanes_of(w, ty_array(w->a, ty->arr.n, et->pair.b), mine->b, sp);
        v->soa = true;
        return v;
    }
    View *v = lw_view(w, V_LANES, ty, NULL);
    v->sp = sp;
    if (mine->k == VAL_ARRAY && mine->v->kind == V_MEM && mine->v->buf->as == AS_PRIVATE) {
        v->own = mine; /* stored once by the lane (toPrivate), read by the lane alone */
        return v;
    }
    if (mine->k != VAL_SCALAR)
        diag_error(w->d, sp, "a warp array must hold one scalar, a pair of scalars or an array in the lane's "
                   "private memory per lane, not %s computed where it is read: store each lane's array with "
                   "`|> toPrivate` at the end of mapLane's function", ty_str(w->a, ty->arr.elem));
    v->mine = lw_materialise(w, mine->x, "r");
    return v;
}

/* acc(let y = v in b, out)   = bind y; acc(b, out)
 * acc(p(...), out)           = the write rule of p (PrimOps.write, prims/) where it has one:
 *                              a map's loop, or acceptors its arguments are written through
 * acc(x, out) otherwise      = copy(exp(x), out) */
static void lower_acc_at(Lw *w, Expr *e, Acc *c)
{
    if (e->kind == E_LET) {
        bind_let(w, e);
        lw_lower_acc(w, e->let.body, c);
        return;
    }
    if (e->kind == E_PRIM && prim_ops(e->prim.p)->write) {
        prim_ops(e->prim.p)->write(w, e, c);
        return;
    }
    lw_copy_val(w, lw_lower_exp(w, e), c, e->sp);
}

/* w->at is the expression being lowered, for the span of the views it makes and of
 * the errors found while reading them */
void lw_lower_acc(Lw *w, Expr *e, Acc *c)
{
    if (lang_stack_left() < LANG_STACK_RESERVE) diag_error(w->d, e->sp, "program nested too deeply to compile");
    Span saved = w->at;
    w->at = e->sp;
    lower_acc_at(w, e, c);
    w->at = saved;
}

/* ---------------------------------------------------------------- expressions */

bool lw_inside(Lw *w, Level l)
{
    for (int i = 0; i < w->ndepth; i++)
        if (w->lv[i] == l) return true;
    return false;
}

bool lw_per_thread(Lw *w)
{
    return lw_inside(w, LVL_THREADS) || lw_inside(w, LVL_WARP) || lw_inside(w, LVL_LANE) || lw_inside(w, LVL_GLOBAL);
}

int lw_count_uses(const Expr *e, const Binder *b, int weight)
{
    if (!e) return 0;
    switch (e->kind) {
    case E_VAR: return e->var.b == b ? weight : 0;
    case E_LIT: case E_NAT: return 0;
    case E_LAM: return lw_count_uses(e->lam.body, b, 2); /* a lambda body may run many times */
    case E_LET: return lw_count_uses(e->let.value, b, weight) + lw_count_uses(e->let.body, b, weight);
    case E_BIN: return lw_count_uses(e->bin.l, b, weight) + lw_count_uses(e->bin.r, b, weight);
    case E_UN: return lw_count_uses(e->un.e, b, weight);
    case E_PRIM: {
        int n = 0;
        for (int i = 0; i < prim_info[e->prim.p].nargs; i++) n += lw_count_uses(e->prim.args[i], b, weight);
        return n;
    }
    }
    return 0;
}

/* Does reading this view recompute something (a lazily read map)? */
static bool view_computes(const View *v)
{
    for (; v; v = v->in) {
        if (v->kind == V_MAP || v->kind == V_GEN) return true;
        if (v->kind == V_ZIP && view_computes(v->in2)) return true;
    }
    return false;
}


/* A computed array (a map read lazily) bound once and read more than once would be
 * computed at each read: an error at the expression that computes it, with the way to
 * store it where it is (toPrivate or toShared inside a map; at the kernel's top level,
 * where neither is, toGlobal, which ends a launch). When the binder is a definition's
 * parameter (the array is passed to a pattern, which reads it twice), the message names
 * the definition the user called, not the parameter, and the notes go to the uses the
 * definition was inlined through, the user's call last. */
static _Noreturn void computed_twice(Lw *w, Expr *e)
{
    const Binder *b = e->let.x;
    Span at = e->let.value->sp;
    /* at the top level a mapSeq would be stored by one thread: the grid computes it */
    const Expr *v = e->let.value;
    bool seq = v->kind == E_PRIM && prim_info[v->prim.p].level == LVL_SEQ;
    const char *fix = w->ndepth ? "materialise it with toPrivate or toShared so it is computed once"
                      : seq ? "store it first, computed by the whole grid: `mapGlobal` in place of `mapSeq`, then "
                              "`|> toGlobal` (a launch of its own writes it to global memory, and the next launch "
                              "reads it; a mapSeq stored there would run on one thread)"
                            : "store it first with `|> toGlobal` (a launch of its own writes it to global memory, "
                              "and the next launch reads it)";
    if (!b->uses)
        diag_error(w->d, at, "the array bound to '%s' is computed and used more than once; %s", user_part(w->a, b->name),
                   fix);
    const UseSite *outer = b->uses;
    while (outer->sp.via) outer = outer->sp.via;
    if (!at.via) at.via = b->uses;
    diag_error(w->d, at, "this array is computed (a map read where it is used) and '%s' reads it more than once; %s",
               outer->name, fix);
}

/* let x = v in b: v is computed once. A scalar goes to a register, unless the body
 * never reads it (a pattern's argument that this use ignores, as blelloch1's look at
 * block level): a scalar has no effect, so it is then not computed at all, and the
 * kernel declares no variable that nothing reads. An array is a view, and a view that
 * recomputes on each read must be materialised by the user when the body reads it
 * more than once. */
static void bind_let(Lw *w, Expr *e)
{
    Val *v = lw_lower_exp(w, e->let.value);
    if (v->k == VAL_SCALAR && lw_count_uses(e->let.body, e->let.x, 1) > 0) v = lw_scalar(w, lw_materialise(w, v->x, "v"));
    else if (v->k == VAL_PAIR && lw_count_uses(e->let.body, e->let.x, 1) > 1) v = once(w, v);
    else if (v->k == VAL_ARRAY && view_computes(v->v) && lw_count_uses(e->let.body, e->let.x, 1) > 1)
        computed_twice(w, e);
    lw_bind(w, e->let.x, v);
}

/* select(c) of two values of one type: scalars are c ? a : b; pairs select
 * componentwise; arrays are a V_SELECT view, element i = select(c)(a[i])(b[i]). */
Val *lw_select_any(Lw *w, X *c, Val *a, Val *b)
{
    if (a->k == VAL_PAIR) return lw_pairv(w, lw_select_any(w, c, a->a, b->a), lw_select_any(w, c, a->b, b->b));
    if (a->k == VAL_ARRAY) {
        View *v = lw_view(w, V_SELECT, a->v->ty, a->v);
        v->in2 = b->v;
        v->cond = c;
        return lw_array(w, v);
    }
    X *x = lw_xnew(w, X_SELECT, a->x->sk);
    x->sel.c = c;
    x->sel.a = a->x;
    x->sel.b = b->x;
    return lw_scalar(w, x);
}

Val *lw_lower_exp(Lw *w, Expr *e)
{
    if (lang_stack_left() < LANG_STACK_RESERVE) diag_error(w->d, e->sp, "program nested too deeply to compile");
    switch (e->kind) {
    case E_VAR: {
        int i = e->var.b->id - w->base;
        Val *v = i >= 0 && i < w->nenv ? w->env[i] : NULL;
        if (!v) die("unbound variable %s", e->var.b->name);
        return v;
    }
    case E_LIT: {
        X *x = lw_xnew(w, X_LIT, lw_sk_of(e->ty));
        x->lit.u = e->lit.u;
        return lw_scalar(w, x);
    }
    case E_NAT: return lw_scalar(w, lw_xnat(w, e->nat.n));
    case E_BIN: {
        Val *l = lw_lower_exp(w, e->bin.l), *r = lw_lower_exp(w, e->bin.r);
        return lw_scalar(w, lw_xbin(w, e->bin.op, lw_sk_of(e->ty), l->x, r->x));
    }
    case E_UN: {
        X *x = lw_xnew(w, X_UN, lw_sk_of(e->ty));
        x->un.op = e->un.op;
        x->un.e = lw_lower_exp(w, e->un.e)->x;
        return lw_scalar(w, x);
    }
    case E_LET:
        bind_let(w, e);
        return lw_lower_exp(w, e->let.body);
    case E_PRIM: { /* the lowering of its primitive (prims/) */
        Span saved = w->at;
        w->at = e->sp;
        if (!prim_ops(e->prim.p)->lower) die("primitive %s has no lowering in prims/", prim_info[e->prim.p].name);
        Val *v = prim_ops(e->prim.p)->lower(w, e);
        w->at = saved;
        return v;
    }
    case E_LAM: diag_error(w->d, e->sp, "a function is used where data is expected");
    }
    unreachable();
}

/* ---------------------------------------------------------------- kernels */

static HwIds make_hw(Arena *a)
{
    HwIds h;
    static const char *const bdim[3] = {"blockDim.x", "blockDim.y", "blockDim.z"};
    static const char *const gdim[3] = {"gridDim.x", "gridDim.y", "gridDim.z"};
    static const char *const tid[3] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
    static const char *const bid[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
    for (int d = 0; d < 3; d++) {
        h.bdim[d] = nat_newvar_static(a, bdim[d], 1, NULL);
        h.gdim[d] = nat_newvar_static(a, gdim[d], 1, NULL);
        h.tid[d] = nat_newvar_static(a, tid[d], 0, nat_var(a, h.bdim[d]));
        h.bid[d] = nat_newvar_static(a, bid[d], 0, nat_var(a, h.gdim[d]));
        h.bdim[d]->hw = h.gdim[d]->hw = h.tid[d]->hw = h.bid[d]->hw = true;
    }
    h.lane = nat_newvar_static(a, "lane", 0, nat_cst(a, 32));
    h.nwarps = nat_newvar_static(a, "nwarps", 1, NULL);
    h.warp = nat_newvar_static(a, "warp", 0, nat_var(a, h.nwarps));
    return h;
}

static const char *user_part(Arena *a, const char *n)
{
    const char *t = strchr(n, '`');
    return t ? arena_strndup(a, n, (size_t)(t - n)) : n;
}

static int count_leaves(const Type *t) { return t->kind == T_PAIR ? count_leaves(t->pair.a) + count_leaves(t->pair.b) : 1; }

/* The next output buffer, of (array or scalar) type t: `out` when it is the only one,
 * else out0, out1, ... in the order of the result's pair leaves. */
static Acc *next_output(Lw *w, const Type *t, bool several)
{
    Kernel *k = w->k;
    Nat *cnt;
    const Type *ot = ty_innermost(w->a, t, &cnt);
    Buffer *out = ANEW(w->a, Buffer);
    out->name = several ? arena_printf(w->a, "out%d", k->nouts) : "out";
    out->as = AS_GLOBAL;
    out->sk = lw_sk_of(ot);
    out->count = cnt;
    out->param = -1;
    out->id = arena_next_id(w->a);
    k->outs[k->nouts++] = out;
    Acc *c = lw_mem_acc(w, t->kind == T_ARRAY ? (Type *)t : ty_array(w->a, nat_cst(w->a, 1), (Type *)t), out);
    return c;
}

/* A value already computed (a pair bound by a let, unzip, ...) goes leaf by leaf to the
 * next outputs. */
static void write_result_val(Lw *w, Val *v, const Type *t, Span sp)
{
    if (t->kind == T_PAIR && v->k == VAL_PAIR) {
        write_result_val(w, v->a, t->pair.a, sp);
        write_result_val(w, v->b, t->pair.b, sp);
        return;
    }
    Acc *c = next_output(w, t, true);
    if (v->k == VAL_SCALAR) lw_store(w, c->buf, nat_cst(w->a, 0), v->x);
    else lw_copy_val(w, v, c, sp);
}

/* A pair of arrays t written as one array of pairs (ty): each side to its own next
 * output, through one acceptor (unzip's result; multisplitToNext's elements of pairs) */
static Acc *pair_outputs(Lw *w, Type *ty, const Type *t, bool several)
{
    Acc *r = lw_acceptor(w, W_PAIRW, ty, next_output(w, t->pair.a, several));
    r->in2 = next_output(w, t->pair.b, several);
    return r;
}

/* The kernel's result: each leaf of its pairs is written to its own output, in order.
 * pair(a)(b) and lets are taken apart here so each side writes its output directly
 * (a parallel map as an output keeps its loop); any other pair value is computed and
 * copied. */
static void lower_result(Lw *w, Expr *e, const Type *t, bool several)
{
    if (t->kind == T_PAIR && e->kind == E_LET) {
        bind_let(w, e);
        lower_result(w, e->let.body, t, several);
        return;
    }
    if (t->kind == T_PAIR && e->kind == E_PRIM && e->prim.p == P_PAIR) {
        lower_result(w, e->prim.args[0], t->pair.a, several);
        lower_result(w, e->prim.args[1], t->pair.b, several);
        return;
    }
    if (t->kind == T_PAIR && e->kind == E_PRIM && prim_ops(e->prim.p)->count_result != CR_NONE) {
        /* a result of a data-dependent length (compactTo; partitionTo's count): the count's
         * output, then the elements', whose acceptor carries the count's buffer to the
         * write rule; multisplitToNext's next offsets likewise */
        Acc *cnt = next_output(w, t->pair.a, true), *el;
        const Type *tb = t->pair.b;
        if (tb->kind == T_PAIR) { /* CR_NEXT's elements of pairs: a pair of arrays */
            Type *pt = ty_pair(w->a, tb->pair.a->arr.elem, tb->pair.b->arr.elem);
            el = pair_outputs(w, ty_array(w->a, tb->pair.a->arr.n, pt), tb, true);
        } else {
            el = next_output(w, tb, true);
        }
        if (prim_ops(e->prim.p)->count_result == CR_PREFIX) el->buf->counted_by = cnt->buf;
        el->cnt = cnt->buf;
        w->at = e->sp;
        prim_ops(e->prim.p)->write(w, e, el);
        return;
    }
    if (t->kind == T_PAIR && e->kind == E_PRIM && e->prim.p == P_UNZIP) {
        /* unzip(xs): xs written once, each side of its elements to its own output (a map
         * keeps its loop; a result of the whole grid could not be read through unzip's
         * views) */
        lw_lower_acc(w, e->prim.args[0], pair_outputs(w, e->prim.args[0]->ty, t, several));
        return;
    }
    if (t->kind == T_PAIR) {
        w->at = e->sp;
        write_result_val(w, lw_lower_exp(w, e), t, e->sp);
        return;
    }
    Acc *c = next_output(w, t, several);
    if (t->kind == T_ARRAY) lw_lower_acc(w, e, c);
    else lw_store(w, c->buf, nat_cst(w->a, 0), lw_lower_exp(w, e)->x);
}

static Buffer *glob_buffer(Lw *w, void *ctx, ScalarKind sk, Nat *count)
{
    (void)ctx;
    return lw_scratch_buffer(w, "glob", sk, count);
}

/* A launch of kernel k before its last one: a Kernel with k's parameters. */
static Kernel *new_launch(Arena *a, Kernel *k, int i)
{
    Kernel *s = ANEW(a, Kernel);
    s->name = arena_printf(a, "%s_launch%d", k->name, i);
    s->def = k->def;
    s->hw = make_hw(a);
    s->inputs = k->inputs;
    s->ninputs = k->ninputs;
    s->main = k;
    s->body = stmt_seq(a);
    s->min_blocks = k->min_blocks; /* the options' */
    return s;
}

/* The launches of a kernel: `let x = toGlobal(v) in b` at the kernel's top level (as
 * `v |> toGlobal |> fun(x => b)` becomes) ends a launch. The launch writes v to a global
 * scratch buffer; b is lowered into the next launch, where x is a view of that buffer.
 * A grid-wide barrier exists only between launches, so this is how one kernel runs
 * steps that each need the whole of the previous one (the row scan: row sums, their
 * scan in one block, the rows). Lets before a later toGlobal must bind views of the
 * inputs or of earlier toGlobal results: a value computed in one launch (a register, a
 * shared array) is gone in the next. Returns the body of the last launch, which stays
 * in w->k (the kernel itself). */
static Expr *lower_launches(Lw *w, Expr *e)
{
    Arena *a = w->a;
    Kernel *k = w->k;
    int n = 0;
    for (Expr *x = e; x->kind == E_LET; x = x->let.body)
        n += x->let.value->kind == E_PRIM && x->let.value->prim.p == P_TOGLOBAL;
    if (!n) return e;
    k->pre = ANEWN(a, Kernel *, n);
    for (; n > 0; e = e->let.body) {
        Expr *v = e->let.value;
        w->at = v->sp;
        if (v->kind == E_PRIM && v->prim.p == P_TOGLOBAL) {
            Expr *x = v->prim.args[0];
            if (x->ty->kind != T_ARRAY)
                diag_error(w->d, v->sp, "toGlobal of %s: a launch hands an array (of scalars or pairs) to the "
                           "next one, not a %s", ty_str(a, x->ty), x->ty->kind == T_PAIR ? "pair" : "scalar");
            Kernel *s = k->pre[k->npre] = new_launch(a, k, k->npre);
            k->npre++;
            n--;
            w->k = s;
            w->cur = s->body;
            /* an array of pairs: one scratch array per side */
            Acc *c;
            View *gv;
            if (!lw_soa(w, x->ty, glob_buffer, NULL, &c, &gv))
                diag_error(w->d, v->sp, "toGlobal of %s: only arrays of scalars or of pairs of scalars can be "
                           "handed to the next launch", ty_str(a, x->ty));
            lw_lower_acc(w, x, c);
            w->k = k;
            lw_bind(w, e->let.x, lw_array(w, gv));
            continue;
        }
        /* a let between launches: lowered where no statement can go */
        Stmt *saved = w->cur;
        w->cur = stmt_seq(a);
        bind_let(w, e);
        Val *b = w->env[e->let.x->id - w->base];
        if (w->cur->seq.n || b->k != VAL_ARRAY)
            diag_error(w->d, v->sp, "'%s' is computed before a later toGlobal, in a launch of its own: a launch's "
                       "values (registers, shared memory) are gone in the next one; compute it where it is used, "
                       "or hand it over with toGlobal", user_part(a, e->let.x->name));
        w->cur = saved;
    }
    return e;
}

/* A kernel's __launch_bounds__ minimum of blocks an SM: the compile options' (min_blocks,
 * which lower_kernel and new_launch set), else the lowering's own choice (own_min_blocks:
 * multisplit's) */
int kernel_min_blocks(const Kernel *k) { return k->min_blocks ? k->min_blocks : k->own_min_blocks; }

Kernel *lower_kernel(Arena *a, Diag *d, KernelDef *kd, bool bins_in_result, int min_blocks)
{
    Kernel *k = ANEW(a, Kernel);
    k->name = kd->name;
    k->def = kd;
    k->bins_in_result = bins_in_result;
    k->min_blocks = min_blocks; /* the options' (0: none), which a lowering may read (multisplit's registers) */
    k->hw = make_hw(a);
    Lw w = {.a = a, .d = d, .k = k};
    /* only this kernel's binders: an env over every id of the compilation would make
     * a program of many kernels quadratic */
    w.base = kd->id_base;
    w.nenv = arena_next_id(a) + 1 - w.base;
    /* the binders' values are needed while lowering only: scratch memory (an error's
     * jump leaves it to the arena) */
    Arena *scratch = arena_scratch_begin(a);
    w.env = ANEWN(scratch, Val *, w.nenv);
    k->inputs = ANEWN(a, Buffer *, kd->nparams + 1);
    k->ninputs = kd->nparams;
    for (int i = 0; i < kd->nparams; i++) {
        Nat *cnt;
        const Type *in = ty_innermost(a, kd->params[i]->ty, &cnt);
        Buffer *b = ANEW(a, Buffer);
        b->name = user_part(a, kd->params[i]->name);
        b->as = AS_GLOBAL;
        b->sk = lw_sk_of(in);
        b->count = cnt;
        b->param = i;
        b->id = arena_next_id(a);
        k->inputs[i] = b;
        if (kd->params[i]->ty->kind == T_ARRAY) {
            w.at = kd->params[i]->sp;
            View *v = lw_mem_view(&w, kd->params[i]->ty, b);
            lw_bind(&w, kd->params[i], lw_array(&w, v));
        } else {
            b->scalar = true; /* passed by value */
            lw_bind(&w, kd->params[i], lw_scalar(&w, lw_xload(&w, b, nat_cst(a, 0))));
        }
    }
    int nleaves = count_leaves(kd->body->ty);
    k->outs = ANEWN(a, Buffer *, nleaves);
    Expr *last = lower_launches(&w, kd->body);
    k->body = w.cur = stmt_seq(a);
    lower_result(&w, last, last->ty, nleaves > 1);
    k->out = k->outs[0];
    for (int i = 0; i < k->npre; i++) { /* one parameter list for every launch */
        k->pre[i]->outs = k->outs;
        k->pre[i]->nouts = k->nouts;
        k->pre[i]->out = k->out;
        k->pre[i]->scratch = k->scratch;
        k->pre[i]->nscratch = k->nscratch;
    }
    arena_scratch_end(a, scratch);
    return k;
}
