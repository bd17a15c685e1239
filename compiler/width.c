/* width.c: the index width of a kernel.
 *
 * Requires: a kernel after every other pass (what codegen prints).
 * Ensures:  k->index_bound, a nat over the nat parameters and the launch dimensions
 *   (blockDim, gridDim, nwarps) that bounds the magnitude of every value the kernel's
 *   index arithmetic computes, intermediate values included; and k->iw:
 *   IW_32 when the bound under the launch rule is a constant below 2^31, IW_64 when it
 *   is a constant at or past 2^31 (or a value has no bound), IW_LAUNCH otherwise (the
 *   runtime evaluates the bound for each launch and picks the 32- or 64-bit build).
 *
 * Why a bound and not a proof per expression: C evaluates `1024 * b0 + 4 * t2 + i4`
 * in the type of its operands, so what must fit is every partial sum and product the
 * printed text computes. The bound below covers each of them (the printer's order is
 * the normal form's: a monomial is coefficient * atom * atom ..., a sum adds its
 * monomials left to right, `X % D` re-sugars monomials that the sum holds).
 */
#include "compiler.h"

#include <stdint.h>

enum { MAX_BOUNDS = 256, MAX_DEPTH = 24 };

typedef struct W {
    Arena *a;
    Kernel *k;
    Nat *bounds[MAX_BOUNDS]; /* distinct magnitudes that must fit (their maximum is the bound) */
    int n;
    bool unbounded;           /* a value with no bound: the kernel is 64-bit */
} W;

/* Record that a value of magnitude at most m is computed. A launch dimension alone
 * fits in int by the hardware's limits (2^31 - 1 blocks, 1024 threads). */
static void need(W *w, Nat *m)
{
    if (w->unbounded) return;
    const HwIds *h = &w->k->hw;
    if (m->kind == N_VAR && m->var->hw) return;
    if (m->kind == N_VAR && m->var == h->nwarps) return;
    for (int i = 0; i < w->n; i++)
        if (nat_equal(w->bounds[i], m)) return;
    if (w->n == MAX_BOUNDS) {
        /* more distinct bounds than kept: their sum bounds them all */
        w->bounds[MAX_BOUNDS - 1] = nat_add(w->a, w->bounds[MAX_BOUNDS - 1], m);
        return;
    }
    w->bounds[w->n++] = m;
}

static Nat *cst(W *w, int64_t c) { return nat_cst(w->a, c); }

/* |v| <= M(v): a nat parameter and the launch dimensions are their own bound (the
 * runtime knows them); a thread or block id is below its dimension; any other variable
 * (a loop index) is below its upper bound. */
static Nat *mag(W *w, const Nat *x, int depth);
static Nat *upper(W *w, const Nat *x, int depth);

static Nat *mag_var(W *w, NatVar *v, int depth)
{
    const HwIds *h = &w->k->hw;
    for (int d = 0; d < 3; d++) {
        if (v == h->tid[d]) return nat_var(w->a, h->bdim[d]);
        if (v == h->bid[d]) return nat_var(w->a, h->gdim[d]);
        if (v == h->bdim[d] || v == h->gdim[d]) return nat_var(w->a, v);
    }
    if (v == h->nwarps) return nat_var(w->a, v);
    for (int i = 0; i < w->k->def->nnats; i++)
        if (v == w->k->def->nats[i]) return nat_var(w->a, v); /* lb >= 1 */
    if (v->ub && v->lb >= 0) return upper(w, v->ub, depth + 1);
    /* a variable that may be negative (a tile id of -1: none) is at most |lb| or ub */
    if (v->ub && v->lb > INT64_MIN) return nat_max(w->a, cst(w, -v->lb), mag(w, v->ub, depth + 1));
    w->unbounded = true;
    return cst(w, 0);
}

/* Whether the runtime knows x's value at launch (it mentions only nat parameters and
 * launch dimensions); it is then its own bound. */
static bool known(W *w, const Nat *x)
{
    const HwIds *h = &w->k->hw;
    switch (x->kind) {
    case N_CST: return true;
    case N_VAR:
        for (int d = 0; d < 3; d++)
            if (x->var == h->bdim[d] || x->var == h->gdim[d]) return true;
        if (x->var == h->nwarps) return true;
        for (int i = 0; i < w->k->def->nnats; i++)
            if (x->var == w->k->def->nats[i]) return true;
        return false;
    case N_SUM:
        for (int i = 0; i < x->sum.n; i++)
            if (!known(w, x->sum.terms[i])) return false;
        return true;
    case N_PROD:
        for (int i = 0; i < x->prod.n; i++)
            if (!known(w, x->prod.factors[i])) return false;
        return true;
    case N_DIV:
    case N_MIN:
    case N_MAX: return known(w, x->bin.l) && known(w, x->bin.r);
    }
    unreachable();
}

/* M(x) >= |x|, recording every intermediate value's bound with need(). Rules:
 *   M(c) = |c|;  M(t1 + ... + tn) = M(t1) + ... + M(tn);
 *   M(c * f1 * ... * fn) = |c| * M(f1) * ... * M(fn), each prefix recorded;
 *   M(l / r) = (M(l) + r - 1) / r when the runtime knows r (a constant, or nat
 *   parameters: r >= 1 where defined; a negative l's floor rounds away from zero),
 *   M(l / r) = M(l) otherwise;
 *   M(min(l, r)) = M(max(l, r)) = max(M(l), M(r));
 *   M(v) of a variable v >= 0 below ub: U(ub) (upper, below). */
static Nat *mag(W *w, const Nat *x, int depth)
{
    Arena *a = w->a;
    if (depth > MAX_DEPTH) {
        w->unbounded = true;
        return cst(w, 0);
    }
    Nat *m = NULL;
    switch (x->kind) {
    case N_CST: m = cst(w, x->cst < 0 ? (x->cst == INT64_MIN ? INT64_MAX : -x->cst) : x->cst); break;
    case N_VAR: m = mag_var(w, x->var, depth); break;
    case N_SUM:
        m = cst(w, 0);
        for (int i = 0; i < x->sum.n; i++) {
            m = nat_add(a, m, mag(w, x->sum.terms[i], depth + 1));
            need(w, m);
        }
        break;
    case N_PROD: {
        int64_t c = x->prod.coef;
        m = cst(w, c < 0 ? (c == INT64_MIN ? INT64_MAX : -c) : c);
        for (int i = 0; i < x->prod.n; i++) {
            m = nat_mul(a, m, mag(w, x->prod.factors[i], depth + 1));
            need(w, m);
        }
        break;
    }
    case N_DIV: {
        Nat *l = mag(w, x->bin.l, depth + 1), *r = x->bin.r;
        mag(w, r, depth + 1);
        m = known(w, r) ? nat_div(a, nat_add(a, l, nat_sub(a, r, cst(w, 1))), r) : l;
        break;
    }
    case N_MIN:
    case N_MAX: m = nat_max(a, mag(w, x->bin.l, depth + 1), mag(w, x->bin.r, depth + 1)); break;
    }
    need(w, m);
    return m;
}

/* U(x) >= x, the value (not the magnitude) of an upper bound x of a variable v >= 0,
 * so that 0 <= v < x gives |v| <= U(x): U(min(l, r)) = min(U(l), U(r)) and
 * U(max(l, r)) = max(U(l), U(r)) (the value is one of the two, each at most its U),
 * else U(x) = M(x) >= |x| >= x. A loop of min(c, n - off) iterations (a chunk's
 * elements, clamped to the output's end) so has its index below c, where M alone said
 * n + off. The intermediate values are recorded by mag on each side, and min's or
 * max's own value is one of theirs. */
static Nat *upper(W *w, const Nat *x, int depth)
{
    if (depth > MAX_DEPTH) {
        w->unbounded = true;
        return cst(w, 0);
    }
    switch (x->kind) {
    case N_MIN: return nat_min(w->a, upper(w, x->bin.l, depth + 1), upper(w, x->bin.r, depth + 1));
    case N_MAX: return nat_max(w->a, upper(w, x->bin.l, depth + 1), upper(w, x->bin.r, depth + 1));
    case N_CST:
    case N_VAR:
    case N_SUM:
    case N_PROD:
    case N_DIV: return mag(w, x, depth);
    }
    unreachable();
}

/* A nat of the kernel's text: its value and every intermediate one must fit. A lone
 * constant fits when int holds it, INT32_MIN included (printed as (-2147483647 - 1), an
 * int: nat.c's pr_cst), though its magnitude 2^31 does not: an i32 min or max's neutral
 * element must not make every launch of the kernel 64-bit. */
static bool need_nat(void *ctx, Nat *x)
{
    W *w = ctx;
    if (x->kind == N_CST && x->cst == INT32_MIN) return false;
    mag(w, x, 0);
    return false;
}

/* A parallel loop computes its id (below its stride) and, as a stride loop, the
 * last index plus the stride. */
static WalkStep loops(void *ctx, const Stmt *s)
{
    W *w = ctx;
    Arena *a = w->a;
    const HwIds *h = &w->k->hw;
    switch (s->kind) {
    case S_FOR: {
        int d = s->loop.dim;
        Nat *stride = NULL;
        switch (s->loop.level) {
        case LVL_SEQ: stride = cst(w, 1); break;
        case LVL_GLOBAL: stride = nat_mul(a, nat_var(a, h->gdim[d]), nat_var(a, h->bdim[d])); break;
        case LVL_BLOCK: stride = nat_var(a, h->gdim[d]); break;
        case LVL_THREADS: stride = nat_var(a, h->bdim[d]); break;
        case LVL_WARP: stride = d == 0 ? nat_var(a, h->nwarps) : nat_var(a, h->bdim[d]); break;
        case LVL_LANE: stride = cst(w, 32); break;
        }
        need(w, stride);
        if (s->loop.form == LF_LOOP) need(w, nat_add(a, mag(w, s->loop.extent, 0), stride));
        return WALK_ON;
    }
    case S_WHILE:
        /* its counter counts up to its bound (the lowering's promise) */
        if (s->wloop.var) {
            if (s->wloop.var->ub && s->wloop.var->lb >= 0) need(w, mag(w, s->wloop.var->ub, 0));
            else w->unbounded = true;
        }
        return WALK_ON;
    case S_LET: /* its value: the range the lowering gave its variable */
        mag(w, nat_var(a, s->let.var), 0);
        return WALK_ON;
    case S_SEQ:
    case S_IF:
    case S_JUMP:
    case S_SLEEP:
    case S_DECL:
    case S_STORE:
    case S_BARRIER:
    case S_COMMENT:
    case S_VLOAD:
    case S_MBAR:
    case S_VSTORE:
    case S_BULK:
    case S_PREFETCH: return WALK_ON;
    }
    unreachable();
}

/* The launch rule's value of the bound: blockDim and gridDim as the rule sets them,
 * nwarps = blockDim.x / 32. */
static Nat *under_rule(Arena *a, const Kernel *k, Nat *x)
{
    for (int d = 0; d < 3; d++) {
        x = nat_subst(a, x, k->hw.bdim[d], k->block[d]);
        x = nat_subst(a, x, k->hw.gdim[d], k->grid[d]);
    }
    return nat_subst(a, x, k->hw.nwarps, nat_div(a, k->block[0], nat_cst(a, 32)));
}

void width_decide(Arena *a, Kernel *k)
{
    W w = {.a = a, .k = k};
    static const IrVisitor nats = {.nat = need_nat}, loop_visit = {.stmt = loops};
    ir_walk(k->body, &nats, &w);
    ir_walk(k->body, &loop_visit, &w);
    for (int i = 0; i < k->nshared; i++) mag(&w, k->shared[i]->offset, 0);
    /* the nat parameters are passed in the index type; the launch dimensions alone fit
     * in int by the hardware's limits (2^31 - 1 blocks, 1024 threads) */
    for (int i = 0; i < k->def->nnats; i++) need(&w, nat_var(a, k->def->nats[i]));
    if (w.unbounded) {
        k->iw = IW_64;
        k->index_bound = NULL;
        return;
    }
    /* drop bounds another one provably covers, then take the maximum of the rest */
    Nat *bound = NULL;
    for (int i = 0; i < w.n; i++) {
        bool covered = false;
        for (int j = 0; j < w.n && !covered; j++)
            if (j != i && w.bounds[j] && nat_prove_ge(a, w.bounds[j], w.bounds[i])) covered = true;
        if (covered) {
            w.bounds[i] = NULL;
            continue;
        }
        bound = bound ? nat_max(a, bound, w.bounds[i]) : w.bounds[i];
    }
    k->index_bound = bound;
    int64_t c;
    if (!nat_is_const(under_rule(a, k, bound), &c)) k->iw = IW_LAUNCH;
    else k->iw = c <= INT32_MAX ? IW_32 : IW_64;
}

/* The launches of one kernel share one argument array, whose nat parameters have the
 * index type: so every launch gets the widest width among them (IW_32 < IW_LAUNCH <
 * IW_64). An IW_32 launch made IW_LAUNCH keeps its bound; the runtime takes the 64-bit
 * build when any launch needs it. */
void width_unify(Kernel *k)
{
    IndexWidth iw = k->iw;
    for (int i = 0; i < k->npre; i++)
        if (k->pre[i]->iw == IW_64 || (k->pre[i]->iw == IW_LAUNCH && iw == IW_32)) iw = k->pre[i]->iw;
    for (int i = 0; i <= k->npre; i++) {
        Kernel *s = i < k->npre ? k->pre[i] : k;
        s->iw = iw;
    }
}
