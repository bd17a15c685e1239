/* version.c: full tiles without bound tests (loop versioning).
 *
 * Requires: a kernel after barrier placement (barrier.c); the last pass before width.c.
 * Ensures: in the body of every block-level loop (mapBlock), each statement S that is
 * an S_FOR or an S_IF (directly, or through flat S_SEQs) and holds bound tests that
 * every thread of a full tile passes is replaced by
 *     if (C) S' else S
 * where S' is S with those tests decided (`a >= N` false, `a < N` true) and the
 * selects, ifs and vector-load fallbacks they guarded folded away (a ballot of a test
 * decided true is the full mask, dropped from an AND), and C is the
 * conjunction of `amax < N` over the tests: amax is a with every index that varies
 * inside the tile (loop indices of S, thread, lane and warp ids) at its largest value.
 * Where S holds a grid-stride trip loop (version_trips) whose body has loops or ifs with
 * tests, those statements are versioned instead, each trip, with the trip index uniform.
 * Nothing else changes; statements holding a while loop (a look-back) or S_PIPE are never copied.
 *
 * Why: with a size known only at launch, each element of a tile is loaded behind its
 * own bound test, and a load in a branch is not issued before the loads of earlier
 * iterations have come back: an unrolled tile copy of 8 vectors per thread waited for
 * each in turn (PTX of examples/filter.rise: a branch around every ld.global.v4),
 * where the same kernel compiled for a constant n issued all 8 first. Every tile but
 * the last is full, so S' is what runs (CUB's agents split full and partial tiles the
 * same way).
 *
 * Why this is right: a test is decided only when a is proved non-decreasing in each
 * varying index (nat_prove_ge(a[v := v + 1], a)), so amax bounds a over the tile and
 * amax < N implies every a < N there. C mentions only nat parameters, block indices
 * and enclosing block-loop indices (and a versioned trip loop's index, whose extent is
 * the same for every thread, so each thread's trip i decides as every other's trip i),
 * so it is the same for every thread of a block and S' may hold barriers and warp
 * collectives. A test that is not proved so (or that no
 * tile passes, amax >= N) stays a test in S' too.
 */
#include "compiler.h"

enum { MAXV = 64, MAXT = 64 };

typedef struct Ver {
    Arena *a;
    Kernel *k;
    NatVar *uni[MAXV]; /* block-uniform: the enclosing block loops' indices, and the
                          indices of the grid-stride loops whose trips are versioned */
    Nat *uniext[MAXV]; /* a block loop's extent (its blocks); NULL for a trip index */
    int nuni;
    NatVar *around[MAXV]; /* varying in every statement placed now: the indices of the loops
                             between a versioned trip loop and its block loop (the thread loop) */
    int naround;
    NatVar *inner[MAXV]; /* varying inside S: loop indices of S and the thread ids */
    int ninner;
    const X *test[MAXT]; /* the decided tests of S (pointer identity: an X may be shared) */
    bool truth[MAXT];
    int ntest;
    Nat *cmax[MAXT], *cn[MAXT]; /* the conjuncts amax < N, without duplicates */
    int ncond;
    bool full; /* a test or an index table overflowed: leave S alone */
} Ver;

static bool is_inner(const Ver *v, const NatVar *x)
{
    for (int i = 0; i < v->ninner; i++)
        if (v->inner[i] == x) return true;
    return false;
}

/* The same for every thread of the block: a nat parameter, a block index, an
 * enclosing block loop's index. */
static bool is_uniform(const Ver *v, const NatVar *x)
{
    for (int i = 0; i < v->k->def->nnats; i++)
        if (v->k->def->nats[i] == x) return true;
    for (int d = 0; d < 3; d++)
        if (v->k->hw.bid[d] == x) return true;
    for (int i = 0; i < v->nuni; i++)
        if (v->uni[i] == x) return true;
    return false;
}

static bool all_uniform(const Ver *v, const Nat *x)
{
    NatVar *vs[MAXV];
    int n = nat_vars(x, vs, MAXV);
    if (n < 0) return false;
    for (int i = 0; i < n; i++)
        if (!is_uniform(v, vs[i])) return false;
    return true;
}

/* x[v := v + 1]: x one step of v on, for the monotonicity proofs and for steps. */
static Nat *bump(Arena *a, Nat *x, NatVar *v)
{
    return nat_subst(a, x, v, nat_add(a, nat_var(a, v), nat_cst(a, 1)));
}

/* The largest value of a over the varying indices, or NULL when a is not shown to be
 * non-decreasing in one of them or one has no known bound. An index's bound may
 * mention other indices (an inner loop's extent), which are then maximised in turn. */
static Nat *maximise(Ver *v, Nat *x)
{
    Arena *a = v->a;
    for (int round = 0; round < MAXV; round++) {
        NatVar *vs[MAXV];
        int n = nat_vars(x, vs, MAXV);
        if (n < 0) return NULL;
        NatVar *iv = NULL;
        for (int i = 0; i < n && !iv; i++)
            if (is_inner(v, vs[i])) iv = vs[i];
        if (!iv) return x;
        Nat *ub = iv->ub;
        if (!ub) return NULL;
        /* the thread and warp ids stay inside the launch rule's block only where the
         * block is fixed (patc_launch_config may choose another for the others) */
        const HwIds *h = &v->k->hw;
        bool thread_id = iv == h->warp || iv == h->tid[0] || iv == h->tid[1] || iv == h->tid[2];
        if (thread_id && !v->k->block_fixed) return NULL;
        if (iv == h->warp) ub = nat_div(a, v->k->block[0], nat_cst(a, 32));
        Nat *up = bump(a, x, iv);
        if (!nat_prove_ge(a, up, x)) return NULL;
        x = nat_subst(a, x, iv, nat_sub(a, ub, nat_cst(a, 1)));
    }
    return NULL;
}

/* A bound test `a >= N`, `a < N` (or N <= a, N > a) with a varying in the tile and N
 * uniform: *a_out, *n_out, and the value it has in a full tile. */
static bool bound_test(const Ver *v, const X *x, Nat **a_out, Nat **n_out, bool *truth)
{
    if (x->kind != X_BIN || x->bin.l->kind != X_NAT || x->bin.r->kind != X_NAT) return false;
    Nat *l = x->bin.l->nat.n, *r = x->bin.r->nat.n;
    BinOp op = x->bin.op;
    if (op != OP_GE && op != OP_LT && op != OP_LE && op != OP_GT) return false;
    bool left = op == OP_GE || op == OP_LT; /* a on the left */
    *a_out = left ? l : r;
    *n_out = left ? r : l;
    *truth = op == OP_LT || op == OP_GT;
    int64_t c;
    if (nat_is_const(*n_out, &c) || !all_uniform(v, *n_out)) return false;
    NatVar *vs[MAXV];
    int n = nat_vars(*a_out, vs, MAXV);
    for (int i = 0; i < n; i++)
        if (is_inner(v, vs[i])) return true;
    return false;
}

static bool find_test(void *ctx, const X *x)
{
    Ver *v = ctx;
    Nat *an, *nn;
    bool truth;
    if (!bound_test(v, x, &an, &nn, &truth)) return false;
    for (int i = 0; i < v->ntest; i++)
        if (v->test[i] == x) return false;
    Nat *amax = maximise(v, an);
    if (!amax || !all_uniform(v, amax) || nat_prove_ge(v->a, amax, nn)) return false;
    if (v->ntest == MAXT) {
        v->full = true;
        return true;
    }
    v->test[v->ntest] = x;
    v->truth[v->ntest++] = truth;
    if (nat_prove_lt(v->a, amax, nn)) return false; /* every tile is full for this test */
    /* of two conjuncts against the same N, the larger amax implies the other */
    for (int i = 0; i < v->ncond; i++) {
        if (!nat_equal(v->cn[i], nn)) continue;
        if (nat_prove_ge(v->a, v->cmax[i], amax)) return false;
        if (nat_prove_ge(v->a, amax, v->cmax[i])) {
            v->cmax[i] = amax;
            return false;
        }
    }
    if (v->ncond == MAXT) {
        v->full = true;
        return true;
    }
    v->cmax[v->ncond] = amax;
    v->cn[v->ncond++] = nn;
    return false;
}

static WalkStep find_inner(void *ctx, const Stmt *s)
{
    Ver *v = ctx;
    if (s->kind == S_WHILE) {
        /* never copied: a while loop's trips (a look-back's polling) have no bound to
         * take the largest index from */
        v->full = true;
        return WALK_STOP;
    }
    if (s->kind == S_FOR) {
        if (v->ninner == MAXV) {
            v->full = true;
            return WALK_STOP;
        }
        v->inner[v->ninner++] = s->loop.var;
    }
    /* a while's counter and a let's value may differ from thread to thread and trip to
     * trip: they vary inside s */
    NatVar *var = s->kind == S_WHILE ? s->wloop.var : s->kind == S_LET ? s->let.var : NULL;
    if (var) {
        if (v->ninner == MAXV) {
            v->full = true;
            return WALK_STOP;
        }
        v->inner[v->ninner++] = var;
    }
    return WALK_ON;
}

/* ---------------------------------------------------------------- the copy S' */

static bool is_lit(const X *x, bool *b)
{
    if (!x || x->kind != X_LIT || x->sk != SK_BOOL) return false;
    *b = x->lit.b;
    return true;
}

/* a u32 all-ones literal (a ballot of every lane) */
static bool is_ones(const X *x) { return x->kind == X_LIT && x->sk == SK_U32 && (uint32_t)x->lit.u == 0xffffffffu; }

/* x with the decided tests replaced by their values, folded where a value decides a
 * select, a logical operator or a negation; x itself when nothing in it changed. */
static X *fold(const Ver *v, X *x)
{
    if (!x) return NULL;
    for (int i = 0; i < v->ntest; i++)
        if (v->test[i] == x) return x_bool(v->a, v->truth[i]);
    X *y;
    bool b;
    switch (x->kind) {
    case X_LIT:
    case X_NAT:
    case X_LOAD:
    case X_MBTEST: return x; /* its parity is 0 or 1, no test */
    case X_BIN:
    case X_MINMAX: {
        X *l = fold(v, x->bin.l), *r = fold(v, x->bin.r);
        if (x->kind == X_BIN && x->bin.op == OP_BAND) { /* a decided ballot's all-ones */
            if (is_ones(l)) return r;
            if (is_ones(r)) return l;
        }
        if (x->kind == X_BIN && (x->bin.op == OP_AND || x->bin.op == OP_OR)) {
            bool absorb = x->bin.op == OP_OR; /* true || e, false && e */
            if (is_lit(l, &b)) return b == absorb ? l : r;
            if (is_lit(r, &b) && b != absorb) return l; /* e || false, e && true */
        }
        if (l == x->bin.l && r == x->bin.r) return x;
        y = ANEW(v->a, X);
        *y = *x;
        y->bin.l = l;
        y->bin.r = r;
        return y;
    }
    case X_UN:
    case X_CAST:
    case X_IDX:
    case X_BITCAST: {
        X *e = fold(v, x->un.e);
        if (x->kind == X_UN && x->un.op == UOP_NOT && is_lit(e, &b)) return x_bool(v->a, !b);
        if (e == x->un.e) return x;
        y = ANEW(v->a, X);
        *y = *x;
        y->un.e = e;
        return y;
    }
    case X_SELECT: {
        X *c = fold(v, x->sel.c);
        if (is_lit(c, &b)) return fold(v, b ? x->sel.a : x->sel.b);
        X *p = fold(v, x->sel.a), *q = fold(v, x->sel.b);
        if (c == x->sel.c && p == x->sel.a && q == x->sel.b) return x;
        y = ANEW(v->a, X);
        *y = *x;
        y->sel.c = c;
        y->sel.a = p;
        y->sel.b = q;
        return y;
    }
    case X_SHFL: {
        X *val = fold(v, x->shfl.val), *arg = fold(v, x->shfl.arg);
        if (x->shfl.k == SHFL_BALLOT && is_lit(val, &b) && b) return x_lit(v->a, SK_U32, 0xffffffffu); /* the full warp */
        if (val == x->shfl.val && arg == x->shfl.arg) return x;
        y = ANEW(v->a, X);
        *y = *x;
        y->shfl.val = val;
        y->shfl.arg = arg;
        return y;
    }
    case X_CALL: {
        X *args[3];
        bool same = true;
        for (int i = 0; i < x->call.n; i++) {
            args[i] = fold(v, x->call.args[i]);
            same &= args[i] == x->call.args[i];
        }
        if (same) return x;
        y = ANEW(v->a, X);
        *y = *x;
        for (int i = 0; i < x->call.n; i++) y->call.args[i] = args[i];
        return y;
    }
    case X_ATOMIC: {
        X *val = fold(v, x->atomic.val);
        if (val == x->atomic.val) return x;
        y = ANEW(v->a, X);
        *y = *x;
        y->atomic.val = val;
        return y;
    }
    }
    unreachable();
}

/* S' : a copy of s with fold applied to every expression. */
static Stmt *copy(const Ver *v, const Stmt *s)
{
    Arena *a = v->a;
    Stmt *t = ANEW(a, Stmt);
    *t = *s;
    bool b;
    switch (s->kind) {
    case S_SEQ:
        t->seq.items = ANEWN(a, Stmt *, s->seq.n + 1);
        t->seq.cap = s->seq.n + 1;
        for (int i = 0; i < s->seq.n; i++) t->seq.items[i] = copy(v, s->seq.items[i]);
        return t;
    case S_DECL: t->decl.init = fold(v, s->decl.init); return t;
    case S_STORE: t->store.val = fold(v, s->store.val); return t;
    case S_FOR: t->loop.body = copy(v, s->loop.body); return t;
    case S_IF:
        t->cond.c = fold(v, s->cond.c);
        t->cond.then = copy(v, s->cond.then);
        t->cond.els = s->cond.els ? copy(v, s->cond.els) : NULL;
        if (is_lit(t->cond.c, &b) && !b) { /* its else, or nothing */
            if (t->cond.els) return t->cond.els;
            t->kind = S_SEQ;
            t->seq.items = NULL;
            t->seq.n = t->seq.cap = 0;
        }
        return t; /* a literal true prints as a plain block: its declarations stay inside */
    case S_WHILE:
        t->wloop.cond = fold(v, s->wloop.cond);
        t->wloop.body = copy(v, s->wloop.body);
        return t;
    case S_LET: t->let.val = fold(v, s->let.val); return t;
    case S_BARRIER:
    case S_JUMP:
    case S_SLEEP:
    case S_COMMENT: return t;
    case S_VLOAD:
        t->vload.guard = fold(v, s->vload.guard);
        if (is_lit(t->vload.guard, &b) && !b) t->vload.guard = NULL;
        return t;
    case S_MBAR: t->mbar.arg = fold(v, s->mbar.arg); return t;
    case S_BULK: t->bulk.bytes = fold(v, s->bulk.bytes); return t;
    case S_PREFETCH: return t;
    case S_VSTORE: return t;
    }
    unreachable();
}

/* ---------------------------------------------------------------- the pass */

/* The indices that vary inside s: its loops' and the thread ids. False when s holds a
 * statement that is never copied, or too many loops. */
static bool set_inner(Ver *v, const Stmt *s)
{
    static const IrVisitor inner = {.stmt = find_inner};
    v->ninner = v->ntest = v->ncond = 0;
    v->full = false;
    ir_walk(s, &inner, v);
    const HwIds *h = &v->k->hw;
    NatVar *thread[] = {h->tid[0], h->tid[1], h->tid[2], h->lane, h->warp};
    for (int i = 0; i < 5 + v->naround && !v->full; i++) {
        if (v->ninner == MAXV) v->full = true;
        else v->inner[v->ninner++] = i < 5 ? thread[i] : v->around[i - 5];
    }
    return !v->full;
}

static Stmt *place(Ver *v, Stmt *s);

typedef struct Stride {
    Ver *v;
    NatVar *i; /* the trip loop's index */
} Stride;

/* The step of x when var steps by one. */
static Nat *step(Arena *a, Nat *x, NatVar *var) { return nat_sub(a, bump(a, x, var), x); }

/* A bound test whose index a steps over every block's part of the input each trip of
 * the loop of index i: for some enclosing block loop of B blocks (index b), a's step in
 * i is at least B times its step in b, which is positive. */
static bool stride_test(void *ctx, const X *x)
{
    Stride *st = ctx;
    Ver *v = st->v;
    Nat *an, *nn;
    bool truth;
    if (!bound_test(v, x, &an, &nn, &truth) || !nat_mentions(an, st->i)) return false;
    Nat *di = step(v->a, an, st->i);
    for (int j = 0; j < v->nuni; j++) {
        if (!v->uniext[j] || !nat_mentions(an, v->uni[j])) continue;
        Nat *db = step(v->a, an, v->uni[j]);
        if (nat_prove_ge(v->a, db, nat_cst(v->a, 1)) && nat_prove_ge(v->a, di, nat_mul(v->a, db, v->uniext[j])))
            return true;
    }
    return false;
}

typedef struct Trips {
    Ver *v;
    Stmt *loop; /* the loop found */
} Trips;

static WalkStep find_trips(void *ctx, const Stmt *s)
{
    Trips *t = ctx;
    static const IrVisitor tests = {.x = stride_test};
    int64_t c;
    if (s->kind != S_FOR || s->loop.level != LVL_SEQ || nat_is_const(s->loop.extent, &c) ||
        !all_uniform(t->v, s->loop.extent))
        return WALK_ON;
    Stride st = {t->v, s->loop.var};
    if (!ir_walk(s->loop.body, &tests, &st)) return WALK_ON;
    t->loop = (Stmt *)s;
    return WALK_STOP;
}

/* Whether l is inside s; if so, the indices of the loops from s down to l (l's not
 * included) are added to around: they vary inside each statement of l's body. */
static bool around(Ver *v, const Stmt *s, const Stmt *l)
{
    if (s == l) return true;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->seq.n; i++)
            if (around(v, s->seq.items[i], l)) return true;
        return false;
    case S_FOR: {
        if (v->naround == MAXV) return false;
        v->around[v->naround++] = s->loop.var;
        if (around(v, s->loop.body, l)) return true;
        v->naround--;
        return false;
    }
    case S_IF: return around(v, s->cond.then, l) || (s->cond.els && around(v, s->cond.els, l));
    case S_WHILE: return false; /* find_trips' loop is never in one: version leaves s alone */
    case S_DECL:
    case S_STORE:
    case S_BARRIER:
    case S_COMMENT:
    case S_VLOAD:
    case S_JUMP:
    case S_LET:
    case S_SLEEP:
    case S_MBAR:
    case S_VSTORE:
    case S_BULK:
    case S_PREFETCH: return false;
    }
    unreachable();
}

/* Places each statement of b (a trip loop's body, through flat sequences): whether one
 * of them was versioned, the only change made. */
static bool trip_items(Ver *v, Stmt *b)
{
    bool any = false;
    for (int i = 0; i < b->seq.n; i++) {
        Stmt *x = b->seq.items[i];
        if (x->kind == S_SEQ) {
            any |= trip_items(v, x);
        } else if (x->kind == S_FOR || x->kind == S_IF) {
            Stmt *y = place(v, x);
            any |= y != x;
            b->seq.items[i] = y;
        }
    }
    return any;
}

/* The rule for a statement s holding a sequential loop L, of a size known only at
 * launch and the same for every thread (a uniform extent), that walks the input a grid
 * at a time (stride_test): L's last trip is partial in every block whose part of that
 * trip ends past N, which in a grid-stride walk is nearly every block, so s versioned
 * whole would run its tested copy nearly everywhere (the sort's histogram in 16-byte
 * vectors: at 2^28 keys in every block, 28-54 us slower over uniform f32 keys than the
 * hand-written kernel that tests only the last trip, bench/results/2026-11-28-nvidia-h200-sort-stop62,
 * ab4 and ab5). Each trip
 * is versioned instead where L's body holds loops or ifs with tests (several elements a
 * trip, as vectors two at a time): L's index is uniform (every thread runs the same
 * trips), so those statements are placed with it among the uniform indices, and their
 * condition C holds in every trip but the last. A trip of one element is left to s's
 * versioning (a test a trip saves nothing over a test an element). True when s was so
 * handled; false leaves s and the varying indices of s (set_inner) as they were. */
static bool version_trips(Ver *v, Stmt *s)
{
    static const IrVisitor find = {.stmt = find_trips};
    Trips t = {v, NULL};
    if (v->nuni == MAXV || !ir_walk(s, &find, &t)) return false;
    Stmt *l = t.loop;
    int na = v->naround;
    bool any = false;
    if (around(v, s, l)) {
        v->uniext[v->nuni] = NULL;
        v->uni[v->nuni++] = l->loop.var;
        if (l->loop.body->kind == S_SEQ) {
            any = trip_items(v, l->loop.body);
        } else if (l->loop.body->kind == S_FOR || l->loop.body->kind == S_IF) {
            Stmt *y = place(v, l->loop.body);
            any = y != l->loop.body;
            l->loop.body = y;
        }
        v->nuni--;
    }
    v->naround = na;
    if (!any) set_inner(v, s); /* place's walks reset it */
    return any;
}

/* Versions s (an S_FOR or S_IF of a block loop's body) when it holds decidable tests:
 * the statement that takes its place. */
static Stmt *version(Ver *v, Stmt *s)
{
    Arena *a = v->a;
    static const IrVisitor tests = {.x = find_test};
    if (!set_inner(v, s) || version_trips(v, s)) return s;
    ir_walk(s, &tests, v);
    if (v->full || v->ntest == 0) return s;
    Stmt *fast = copy(v, s);
    if (v->ncond == 0) return fast; /* every tile is full */
    X *c = NULL;
    for (int i = 0; i < v->ncond; i++) {
        X *lt = x_bin(a, OP_LT, SK_BOOL, x_nat(a, v->cmax[i]), x_nat(a, v->cn[i]));
        c = c ? x_bin(a, OP_AND, SK_BOOL, c, lt) : lt;
    }
    Stmt *g = ANEW(a, Stmt);
    g->kind = S_IF;
    g->cond.c = c;
    g->cond.then = fast;
    g->cond.els = s;
    return g;
}

/* The statements of a sequence, through flat sequences, each placed. */
static void items(Ver *v, Stmt *s)
{
    for (int i = 0; i < s->seq.n; i++) {
        Stmt *x = s->seq.items[i];
        if (x->kind == S_SEQ) items(v, x);
        else if (x->kind == S_FOR || x->kind == S_IF) s->seq.items[i] = place(v, x);
    }
}

static bool any_test(void *ctx, const X *x)
{
    Nat *an, *nn;
    bool truth;
    return bound_test(ctx, x, &an, &nn, &truth);
}

/* Whether s (with the thread ids and s's own loop indices as the varying ones) has a
 * bound test; a rough filter for place, version decides. */
static bool has_test(Ver *v, const Stmt *s)
{
    static const IrVisitor tests = {.x = any_test};
    set_inner(v, s);
    return ir_walk(s, &tests, v);
}

/* Where the if goes: at s, unless s's body holds a loop of a size known only at launch
 * without bound tests (a grid-stride reduction's main loop), which would be copied for
 * nothing; then at the statements of that body, each on its own. */
static Stmt *place(Ver *v, Stmt *s)
{
    Stmt *body = s->kind == S_FOR ? s->loop.body : s->cond.els ? NULL : s->cond.then;
    if (!body || body->kind != S_SEQ) return version(v, s);
    /* no bound test at all: version's walk (a subset of these tests, with the same
     * varying indices) would find none and keep s, after setting the tables up again */
    if (!has_test(v, s)) return s;
    bool big = false;
    for (int i = 0; i < body->seq.n && !big; i++) {
        const Stmt *x = body->seq.items[i];
        int64_t c;
        big = x->kind == S_FOR && !nat_is_const(x->loop.extent, &c) && !has_test(v, x);
    }
    if (!big) return version(v, s);
    items(v, body);
    return s;
}

static WalkStep block_loop_visit(void *ctx, const Stmt *s)
{
    (void)ctx;
    return s->kind == S_FOR && s->loop.level == LVL_BLOCK ? WALK_STOP : WALK_ON;
}

static bool has_block_loop(const Stmt *s)
{
    static const IrVisitor bl = {.stmt = block_loop_visit};
    return ir_walk(s, &bl, NULL);
}

/* Finds the innermost block loops; the indices of the block loops around them are
 * uniform. */
static void walk(Ver *v, Stmt *s)
{
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->seq.n; i++) walk(v, s->seq.items[i]);
        return;
    case S_FOR:
        if (s->loop.level == LVL_BLOCK) {
            if (v->nuni == MAXV) return;
            v->uniext[v->nuni] = s->loop.extent;
            v->uni[v->nuni++] = s->loop.var;
            if (has_block_loop(s->loop.body)) {
                walk(v, s->loop.body);
            } else if (s->loop.body->kind == S_SEQ) {
                items(v, s->loop.body);
            } else if (s->loop.body->kind == S_FOR || s->loop.body->kind == S_IF) {
                s->loop.body = place(v, s->loop.body);
            }
            v->nuni--;
            return;
        }
        walk(v, s->loop.body);
        return;
    case S_IF:
        walk(v, s->cond.then);
        if (s->cond.els) walk(v, s->cond.els);
        return;
    case S_WHILE: walk(v, s->wloop.body); return;
    case S_JUMP:
    case S_LET:
    case S_SLEEP:
    case S_DECL:
    case S_STORE:
    case S_BARRIER:
    case S_COMMENT:
    case S_VLOAD:
    case S_MBAR:
    case S_VSTORE:
    case S_BULK:
    case S_PREFETCH: return;
    }
    unreachable();
}

void version_tiles(Arena *a, Kernel *k)
{
    /* on the stack: it is scratch, and a few kilobytes a kernel in the arena would
     * stay for the whole program */
    Ver v = {.a = a, .k = k};
    walk(&v, k->body);
}
