/* nat.c: symbolic natural-number arithmetic in normal form (contract: nat.h).
 *
 * Every constructor goes through a flat polynomial (a list of monomials, each a
 * coefficient times a sorted multiset of atoms), sorts and merges it, and rebuilds the
 * Nat. Division is the only operation with real rewrites; each one below carries the
 * identity it relies on, and each identity holds wherever the input is defined, i.e.
 * wherever every divisor is >= 1 and every variable respects its bounds.
 *
 * Coefficients are int64. A coefficient that overflows while normalising would make
 * the normal form silently wrong, and a user can reach it with sizes whose product
 * passes 2^63 (65536.65536.65536.65536.f32); so it is reported as an error at the size
 * being built when a compilation has armed nat_arm_overflow, and is a bug otherwise.
 */
#include "nat.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- overflow */

/* Per thread, since a library context may compile on any thread (one at a time). */
static _Thread_local struct {
    Diag *d;
    Span sp;
} overflow;

void nat_arm_overflow(Diag *d, Span sp)
{
    overflow.d = d;
    overflow.sp = sp;
}

void nat_at(Span sp)
{
    if (overflow.d && sp.file) overflow.sp = sp;
}

void nat_disarm_overflow(void) { overflow.d = NULL; }

/* An overflowing coefficient is the user's size passing 2^63 when a compilation is
 * armed (the error longjmps out of the compilation); unarmed, a bug. */
static _Noreturn void overflowed(const char *what, int64_t x, int64_t y)
{
    if (overflow.d) {
        Diag *d = overflow.d;
        overflow.d = NULL;
        diag_error(d, overflow.sp, "size arithmetic overflows 63 bits (%lld %s %lld): sizes are at most " NAT_SIZE_MAX_TEXT,
                   (long long)x, what, (long long)y);
    }
    die("nat: coefficient overflow in %lld %s %lld", (long long)x, what, (long long)y);
}

/* ---------------------------------------------------------------- integer helpers */

static int64_t ck_add(int64_t x, int64_t y)
{
    int64_t r;
    if (__builtin_add_overflow(x, y, &r)) overflowed("+", x, y);
    return r;
}

/* x * y, checked: a wrapped coefficient would make the normal form silently wrong. */
static int64_t ck_mul(int64_t x, int64_t y)
{
    int64_t r;
    if (__builtin_mul_overflow(x, y, &r)) overflowed("*", x, y);
    return r;
}

/* floor(x / y) for y > 0: C truncates, so step down when the quotient is negative and inexact. */
static int64_t floordiv(int64_t x, int64_t y)
{
    int64_t q = x / y;
    if (x % y != 0 && x < 0) q--;
    return q;
}

/* Euclid; gcd(0, y) = y so that folding over a list starts from 0. */
static uint64_t gcd_u64(uint64_t x, uint64_t y)
{
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return x;
}

static uint64_t abs_u64(int64_t x) { return x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x; }

static int cmp64(int64_t x, int64_t y) { return (x > y) - (x < y); }

/* ---------------------------------------------------------------- leaves */

NatVar *nat_newvar(Arena *a, const char *name, int64_t lb, Nat *ub)
{
    return nat_newvar_static(a, arena_strdup(a, name), lb, ub);
}

/* The name is not copied: every kernel has fifteen hardware ids, whose names are string
 * literals. */
NatVar *nat_newvar_static(Arena *a, const char *name, int64_t lb, Nat *ub)
{
    NatVar *v = ANEW(a, NatVar);
    v->name = name;
    v->lb = lb;
    v->ub = ub;
    v->id = arena_next_id(a);
    return v;
}

/* Small constants are shared: a kernel makes dozens of them (sizes, strides, steps),
 * and nats are never changed once made, so one node each serves every program. */
enum { CST_LO = -64, CST_N = 2048 };
#define CST1(i) {.kind = N_CST, .cst = (i) + CST_LO},
#define CST4(i) CST1(i) CST1((i) + 1) CST1((i) + 2) CST1((i) + 3)
#define CST16(i) CST4(i) CST4((i) + 4) CST4((i) + 8) CST4((i) + 12)
#define CST64(i) CST16(i) CST16((i) + 16) CST16((i) + 32) CST16((i) + 48)
#define CST256(i) CST64(i) CST64((i) + 64) CST64((i) + 128) CST64((i) + 192)
#define CST1024(i) CST256(i) CST256((i) + 256) CST256((i) + 512) CST256((i) + 768)
static const Nat small_cst[CST_N] = {CST1024(0) CST1024(1024)};
#undef CST1
#undef CST4
#undef CST16
#undef CST64
#undef CST256
#undef CST1024

/* A constant is its own normal form. */
Nat *nat_cst(Arena *a, int64_t v)
{
    if (v >= CST_LO && v < CST_LO + CST_N) return (Nat *)&small_cst[v - CST_LO];
    Nat *x = ANEW(a, Nat);
    x->kind = N_CST;
    x->cst = v;
    return x;
}

/* A variable is an atom and its own normal form; one node per variable serves every
 * use (nats are never changed once made). */
Nat *nat_var(Arena *a, NatVar *v)
{
    if (v->node) return v->node;
    Nat *x = ANEW(a, Nat);
    x->kind = N_VAR;
    x->var = v;
    if (!arena_is_scratch(a)) v->node = x; /* a scratch node goes when the proof ends */
    return x;
}

/* A div/min/max atom as is: callers have applied every rule first. */
static Nat *mk_bin(Arena *a, NatKind k, Nat *l, Nat *r)
{
    Nat *x = ANEW(a, Nat);
    x->kind = k;
    x->bin.l = l;
    x->bin.r = r;
    return x;
}

/* Normal forms fold constants completely, so a constant value is an N_CST node. */
bool nat_is_const(const Nat *x, int64_t *v)
{
    if (x->kind != N_CST) return false;
    if (v) *v = x->cst;
    return true;
}

/* Variables are identified by id (unique per arena); the name guards against mixing arenas. */
static bool same_var(const NatVar *x, const NatVar *y)
{
    return x == y || (x->id == y->id && strcmp(x->name, y->name) == 0);
}

/* ---------------------------------------------------------------- order */

/* Kinds first (constants < variables < sums < products < div < min < max), then
 * structure; variables by id, so the order follows declaration order. */
int nat_compare(const Nat *x, const Nat *y)
{
    if (x == y) return 0;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    switch (x->kind) {
    case N_CST: return cmp64(x->cst, y->cst);
    case N_VAR:
        if (same_var(x->var, y->var)) return 0;
        if (x->var->id != y->var->id) return x->var->id < y->var->id ? -1 : 1;
        return strcmp(x->var->name, y->var->name);
    case N_SUM:
        for (int i = 0; i < x->sum.n && i < y->sum.n; i++) {
            int c = nat_compare(x->sum.terms[i], y->sum.terms[i]);
            if (c) return c;
        }
        return cmp64(x->sum.n, y->sum.n);
    case N_PROD:
        for (int i = 0; i < x->prod.n && i < y->prod.n; i++) {
            int c = nat_compare(x->prod.factors[i], y->prod.factors[i]);
            if (c) return c;
        }
        if (x->prod.n != y->prod.n) return cmp64(x->prod.n, y->prod.n);
        return cmp64(x->prod.coef, y->prod.coef);
    case N_DIV:
    case N_MIN:
    case N_MAX: {
        int c = nat_compare(x->bin.l, y->bin.l);
        return c ? c : nat_compare(x->bin.r, y->bin.r);
    }
    }
    unreachable();
}

bool nat_equal(const Nat *x, const Nat *y) { return nat_compare(x, y) == 0; }

/* ---------------------------------------------------------------- polynomials */

/* coef * at[0] * ... * at[n-1]; at sorted by nat_compare, n == 0 for the constant. */
typedef struct Mono {
    int64_t coef;
    Nat **at;
    int n;
} Mono;

/* The monomials start in `small`: most polynomials have a few terms, and nat arithmetic
 * runs thousands of times a kernel, so scratch terms in the arena would make a
 * program's memory grow by kilobytes a kernel. A Poly is never copied once used (m may
 * point into it). */
typedef struct Poly {
    Mono *m;
    int n, cap;
    Mono small[8];
} Poly;

/* Appends coef * at; a zero coefficient contributes nothing. */
static void poly_push(Arena *a, Poly *p, int64_t coef, Nat **at, int n)
{
    if (coef == 0) return;
    if (p->cap == 0) {
        p->m = p->small;
        p->cap = (int)(sizeof p->small / sizeof p->small[0]);
    }
    if (p->n == p->cap) {
        int nc = 2 * p->cap;
        Mono *m = ANEWN(a, Mono, nc);
        if (p->n) memcpy(m, p->m, sizeof(Mono) * (size_t)p->n);
        p->m = m;
        p->cap = nc;
    }
    p->m[p->n++] = (Mono){coef, at, n};
}

/* Appends scale * x (x in normal form) monomial by monomial. */
static void poly_from(Arena *a, Poly *p, const Nat *x, int64_t scale)
{
    switch (x->kind) {
    case N_CST: poly_push(a, p, ck_mul(x->cst, scale), NULL, 0); break;
    case N_SUM:
        for (int i = 0; i < x->sum.n; i++) poly_from(a, p, x->sum.terms[i], scale);
        break;
    case N_PROD: poly_push(a, p, ck_mul(x->prod.coef, scale), x->prod.factors, x->prod.n); break;
    case N_VAR: case N_DIV: case N_MIN: case N_MAX: { /* an atom */
        /* a variable's own node is a one-element array already (NatVar.node) */
        Nat **one = x->kind == N_VAR && x->var->node == x ? &x->var->node : ANEWN(a, Nat *, 1);
        one[0] = (Nat *)x;
        poly_push(a, p, scale, one, 1);
    }
    }
}

/* Monomials ordered by their atoms (the constant last, as nat.h requires). */
static int mono_cmp(const Mono *x, const Mono *y)
{
    if (x->n == 0 || y->n == 0) return (x->n == 0) - (y->n == 0);
    for (int i = 0; i < x->n && i < y->n; i++) {
        int c = nat_compare(x->at[i], y->at[i]);
        if (c) return c;
    }
    return cmp64(x->n, y->n);
}

static int mono_qcmp(const void *x, const void *y) { return mono_cmp(x, y); }

/* Sort, merge like monomials, drop zero coefficients. */
static void poly_norm(Poly *p)
{
    if (p->n > 1) qsort(p->m, (size_t)p->n, sizeof(Mono), mono_qcmp);
    int k = 0;
    for (int i = 0; i < p->n; i++) {
        if (k > 0 && mono_cmp(&p->m[k - 1], &p->m[i]) == 0)
            p->m[k - 1].coef = ck_add(p->m[k - 1].coef, p->m[i].coef);
        else
            p->m[k++] = p->m[i];
    }
    int j = 0;
    for (int i = 0; i < k; i++)
        if (p->m[i].coef != 0) p->m[j++] = p->m[i];
    p->n = j;
}

/* c * () = c;  1 * x = x;  anything else is an N_PROD. */
static Nat *mk_mono(Arena *a, const Mono *m)
{
    if (m->n == 0) return nat_cst(a, m->coef);
    if (m->coef == 1 && m->n == 1) return m->at[0];
    Nat *x = ANEW(a, Nat);
    x->kind = N_PROD;
    x->prod.coef = m->coef;
    x->prod.factors = m->at;
    x->prod.n = m->n;
    return x;
}

/* The normal form of a polynomial: 0, a lone monomial, or a sum with the constant last. */
static Nat *poly_finish(Arena *a, Poly *p)
{
    poly_norm(p);
    if (p->n == 0) return nat_cst(a, 0);
    if (p->n == 1) return mk_mono(a, &p->m[0]);
    Nat *x = ANEW(a, Nat);
    x->kind = N_SUM;
    x->sum.n = p->n;
    x->sum.terms = ANEWN(a, Nat *, p->n);
    for (int i = 0; i < p->n; i++) x->sum.terms[i] = mk_mono(a, &p->m[i]);
    return x;
}

/* Product of two monomials: coefficients multiply, atom multisets merge (kept sorted). */
static void mono_mul_push(Arena *a, Poly *out, const Mono *x, const Mono *y)
{
    int n = x->n + y->n, i = 0, j = 0, k = 0;
    Nat **at = n ? ANEWN(a, Nat *, n) : NULL;
    while (i < x->n && j < y->n)
        at[k++] = nat_compare(x->at[i], y->at[j]) <= 0 ? x->at[i++] : y->at[j++];
    while (i < x->n) at[k++] = x->at[i++];
    while (j < y->n) at[k++] = y->at[j++];
    poly_push(a, out, ck_mul(x->coef, y->coef), at, n);
}

/* Number of monomials of a normal form (0 for the constant 0). */
static int nterms(const Nat *x)
{
    if (x->kind == N_SUM) return x->sum.n;
    if (x->kind == N_CST && x->cst == 0) return 0;
    return 1;
}

/* ---------------------------------------------------------------- sums and products */

/* x + y: concatenate the monomials, merge like ones. */
Nat *nat_add(Arena *a, Nat *x, Nat *y)
{
    /* x + 0 is x: no new node for what is already a normal form */
    if (y->kind == N_CST && y->cst == 0) return x;
    if (x->kind == N_CST && x->cst == 0) return y;
    Poly p = {0};
    poly_from(a, &p, x, 1);
    poly_from(a, &p, y, 1);
    return poly_finish(a, &p);
}

/* x - y = x + (-1) * y */
Nat *nat_sub(Arena *a, Nat *x, Nat *y)
{
    Poly p = {0};
    poly_from(a, &p, x, 1);
    poly_from(a, &p, y, -1);
    return poly_finish(a, &p);
}

/* k * x, monomial by monomial. */
static Nat *nat_scale(Arena *a, Nat *x, int64_t k)
{
    Poly p = {0};
    poly_from(a, &p, x, k);
    return poly_finish(a, &p);
}

static Nat *add_cst(Arena *a, Nat *x, int64_t k) { return k ? nat_add(a, x, nat_cst(a, k)) : x; }

/* (sum_i x_i) * (sum_j y_j) = sum_ij x_i * y_j: multiplication distributes over sums. */
Nat *nat_mul(Arena *a, Nat *x, Nat *y)
{
    if (y->kind == N_CST && y->cst == 1) return x;
    if (x->kind == N_CST && x->cst == 1) return y;
    Poly px = {0}, py = {0}, out = {0};
    poly_from(a, &px, x, 1);
    poly_from(a, &py, y, 1);
    for (int i = 0; i < px.n; i++)
        for (int j = 0; j < py.n; j++) mono_mul_push(a, &out, &px.m[i], &py.m[j]);
    return poly_finish(a, &out);
}

/* ---------------------------------------------------------------- ranges */

/* A constant interval [lo, hi] containing every value of an expression wherever it is
 * defined; a missing bound is unknown. */
typedef struct Range {
    bool hl, hh;
    int64_t lo, hi;
} Range;

static const Range UNKNOWN = {false, false, 0, 0};

static Range range_of(const Nat *x, int depth);

/* [a,b] + [c,d] = [a+c, b+d]; an overflowing bound becomes unknown. */
static Range rg_add(Range x, Range y)
{
    Range r = UNKNOWN;
    r.hl = x.hl && y.hl && !__builtin_add_overflow(x.lo, y.lo, &r.lo);
    r.hh = x.hh && y.hh && !__builtin_add_overflow(x.hi, y.hi, &r.hi);
    return r;
}

/* c * [a,b] = [c*a, c*b] for c >= 0, [c*b, c*a] for c < 0. */
static Range rg_scale(Range x, int64_t c)
{
    Range r = UNKNOWN;
    if (c >= 0) {
        r.hl = x.hl && !__builtin_mul_overflow(x.lo, c, &r.lo);
        r.hh = x.hh && !__builtin_mul_overflow(x.hi, c, &r.hi);
    } else {
        r.hl = x.hh && !__builtin_mul_overflow(x.hi, c, &r.lo);
        r.hh = x.hl && !__builtin_mul_overflow(x.lo, c, &r.hi);
    }
    return r;
}

/* [a,b] * [c,d]: exact for nonnegative intervals (possibly unbounded above) and for
 * finite ones (min/max of the corner products); anything else is unknown. */
static Range rg_mul(Range x, Range y)
{
    Range r = UNKNOWN;
    if (x.hl && y.hl && x.lo >= 0 && y.lo >= 0) {
        r.hl = !__builtin_mul_overflow(x.lo, y.lo, &r.lo);
        r.hh = x.hh && y.hh && !__builtin_mul_overflow(x.hi, y.hi, &r.hi);
        return r;
    }
    if (!(x.hl && x.hh && y.hl && y.hh)) return r;
    int64_t c[4];
    if (__builtin_mul_overflow(x.lo, y.lo, &c[0]) || __builtin_mul_overflow(x.lo, y.hi, &c[1]) ||
        __builtin_mul_overflow(x.hi, y.lo, &c[2]) || __builtin_mul_overflow(x.hi, y.hi, &c[3]))
        return r;
    r.hl = r.hh = true;
    r.lo = r.hi = c[0];
    for (int i = 1; i < 4; i++) {
        if (c[i] < r.lo) r.lo = c[i];
        if (c[i] > r.hi) r.hi = c[i];
    }
    return r;
}

/* floor([a,b] / [c,d]) with c >= 1 (a divisor is >= 1 wherever the division is defined):
 * the lowest value divides a by the divisor that makes it smallest, and so on. */
static Range rg_div(Range x, Range y)
{
    Range r = UNKNOWN;
    if (!y.hl || y.lo < 1) {
        y.hl = true;
        y.lo = 1;
    }
    if (y.hh && y.hi < y.lo) y.hh = false;
    if (x.hl) {
        r.hl = true;
        if (x.lo >= 0) r.lo = y.hh ? floordiv(x.lo, y.hi) : 0;
        else r.lo = floordiv(x.lo, y.lo);
    }
    if (x.hh) {
        if (x.hi >= 0) {
            r.hh = true;
            r.hi = floordiv(x.hi, y.lo);
        } else {
            r.hh = true;
            r.hi = y.hh ? floordiv(x.hi, y.hi) : -1;
        }
    }
    return r;
}

/* Interval of a normal form from the variables' bounds (lb, and ub - 1 when ub is known);
 * depth guards against variables whose bounds refer to each other. */
static Range range_of(const Nat *x, int depth)
{
    Range r = UNKNOWN;
    if (depth > 16) return r;
    switch (x->kind) {
    case N_CST: return (Range){true, true, x->cst, x->cst};
    case N_VAR:
        r.hl = true;
        r.lo = x->var->lb;
        if (x->var->ub) {
            Range u = range_of(x->var->ub, depth + 1);
            if (u.hh && u.hi != INT64_MIN) {
                r.hh = true;
                r.hi = u.hi - 1;
            }
        }
        return r;
    case N_SUM:
        r = (Range){true, true, 0, 0};
        for (int i = 0; i < x->sum.n; i++) r = rg_add(r, range_of(x->sum.terms[i], depth + 1));
        return r;
    case N_PROD:
        r = (Range){true, true, 1, 1};
        for (int i = 0; i < x->prod.n; i++) r = rg_mul(r, range_of(x->prod.factors[i], depth + 1));
        return rg_scale(r, x->prod.coef);
    case N_DIV: return rg_div(range_of(x->bin.l, depth + 1), range_of(x->bin.r, depth + 1));
    case N_MIN: {
        Range l = range_of(x->bin.l, depth + 1), h = range_of(x->bin.r, depth + 1);
        /* min >= both lower bounds' minimum; min <= either upper bound */
        r.hl = l.hl && h.hl;
        r.lo = l.lo < h.lo ? l.lo : h.lo;
        r.hh = l.hh || h.hh;
        r.hi = l.hh && h.hh ? (l.hi < h.hi ? l.hi : h.hi) : (l.hh ? l.hi : h.hi);
        return r;
    }
    case N_MAX: {
        Range l = range_of(x->bin.l, depth + 1), h = range_of(x->bin.r, depth + 1);
        /* max >= either lower bound; max <= both upper bounds' maximum */
        r.hl = l.hl || h.hl;
        r.lo = l.hl && h.hl ? (l.lo > h.lo ? l.lo : h.lo) : (l.hl ? l.lo : h.lo);
        r.hh = l.hh && h.hh;
        r.hi = l.hi > h.hi ? l.hi : h.hi;
        return r;
    }
    }
    unreachable();
}

/* ---------------------------------------------------------------- proofs */

/* Replaces each top-level factor equal to atom t by `val` (not inside other atoms). */
static Nat *subst_atom(Arena *a, const Poly *p, const Nat *t, Nat *val)
{
    Nat *res = nat_cst(a, 0);
    for (int i = 0; i < p->n; i++) {
        Nat *term = nat_cst(a, p->m[i].coef);
        for (int j = 0; j < p->m[i].n; j++)
            term = nat_mul(a, term, nat_compare(p->m[i].at[j], t) == 0 ? val : p->m[i].at[j]);
        res = nat_add(a, res, term);
    }
    return res;
}

/* Multiplicity of atom t in monomial m. */
static int count_factor(const Mono *m, const Nat *t)
{
    int c = 0;
    for (int j = 0; j < m->n; j++) c += nat_compare(m->at[j], t) == 0;
    return c;
}

/* True when v occurs inside a div/min/max atom of p (where substituting a bound is unsound). */
static bool inside_atoms(const Poly *p, const NatVar *v)
{
    for (int i = 0; i < p->n; i++)
        for (int j = 0; j < p->m[i].n; j++)
            if (p->m[i].at[j]->kind != N_VAR && nat_mentions(p->m[i].at[j], v)) return true;
    return false;
}

/* The coefficient of atom t in p: the sum of the monomials that contain t, with t
 * removed. False when some monomial contains t more than once. */
static bool coef_of_atom(Arena *a, const Poly *p, const Nat *t, Nat **out)
{
    Poly c = {0};
    for (int i = 0; i < p->n; i++) {
        int n = count_factor(&p->m[i], t);
        if (n > 1) return false;
        if (n == 0) continue;
        Nat **rest = ANEWN(a, Nat *, p->m[i].n);
        int k = 0;
        for (int j = 0; j < p->m[i].n; j++)
            if (nat_compare(p->m[i].at[j], t) != 0) rest[k++] = p->m[i].at[j];
        poly_push(a, &c, p->m[i].coef, rest, k);
    }
    *out = poly_finish(a, &c);
    return true;
}

/* q with c == q * d, or 0 when c is not an integer multiple of d. */
static int64_t multiple_of(Arena *a, Nat *c, Nat *d)
{
    Poly C = {0}, D = {0};
    poly_from(a, &C, c, 1);
    poly_from(a, &D, d, 1);
    if (C.n == 0 || C.n != D.n || mono_cmp(&C.m[0], &D.m[0]) != 0 || C.m[0].coef % D.m[0].coef != 0) return 0;
    int64_t q = C.m[0].coef / D.m[0].coef;
    for (int i = 1; i < C.n; i++)
        if (mono_cmp(&C.m[i], &D.m[i]) != 0 || C.m[i].coef != ck_mul(q, D.m[i].coef)) return 0;
    return q;
}

/* q * D * floor(X / D) lies in [q*(X - D + 1), q*X] for q > 0 and in [q*X, q*(X - D + 1)]
 * for q < 0, because X - D < D*floor(X/D) <= X when D >= 1. Replaces the first such
 * group of monomials in x by its lower bound; NULL when there is none. */
static Nat *div_lower_bound(Arena *a, Nat *x)
{
    Poly p = {0};
    poly_from(a, &p, x, 1);
    for (int i = 0; i < p.n; i++)
        for (int j = 0; j < p.m[i].n; j++) {
            Nat *t = p.m[i].at[j], *c;
            if (t->kind != N_DIV || !coef_of_atom(a, &p, t, &c)) continue;
            int64_t q = multiple_of(a, c, t->bin.r);
            if (q == 0) continue;
            Nat *r = nat_sub(a, x, nat_scale(a, nat_mul(a, t->bin.r, t), q));
            Nat *bound = q < 0 ? t->bin.l : add_cst(a, nat_sub(a, t->bin.l, t->bin.r), 1);
            return nat_add(a, r, nat_scale(a, bound, q));
        }
    return NULL;
}

/* A variable v with an upper bound that occurs only as a plain factor of monomials
 * c * v * X with c < 0 and X >= 0: there c*v*X >= c*(ub-1)*X, so substituting ub - 1
 * gives a lower bound of the whole sum. */
static NatVar *ub_candidate(const Poly *p)
{
    for (int i = 0; i < p->n; i++)
        for (int j = 0; j < p->m[i].n; j++) {
            Nat *t = p->m[i].at[j];
            if (t->kind != N_VAR || !t->var->ub || nat_mentions(t->var->ub, t->var)) continue;
            bool ok = !inside_atoms(p, t->var);
            for (int k = 0; ok && k < p->n; k++) {
                int c = count_factor(&p->m[k], t);
                if (c == 0) continue;
                if (c > 1 || p->m[k].coef > 0) ok = false;
                for (int l = 0; ok && l < p->m[k].n; l++) {
                    if (nat_compare(p->m[k].at[l], t) == 0) continue;
                    Range r = range_of(p->m[k].at[l], 0);
                    if (!r.hl || r.lo < 0) ok = false;
                }
            }
            if (ok) return t->var;
        }
    return NULL;
}

/* x >= 0 for every valuation: interval bound first, then (a bounded number of times)
 * replace the sum by a lower bound or split on a min/max and retry. */
static bool prove_nn(Arena *a, Nat *x, int depth)
{
    Range r = range_of(x, 0);
    if (r.hl && r.lo >= 0) return true;
    if (depth >= 4) return false;
    Poly p = {0};
    poly_from(a, &p, x, 1);

    /* (a) D * floor(X / D) bounded by X */
    Nat *cur = x;
    for (int iter = 0; iter < 8; iter++) {
        Nat *nx = div_lower_bound(a, cur);
        if (!nx) break;
        cur = nx;
    }
    if (cur != x) return prove_nn(a, cur, depth + 1);

    /* (b) v <= ub - 1 where v only lowers the sum */
    NatVar *v = ub_candidate(&p);
    if (v) {
        Nat vn = {.kind = N_VAR, .var = v};
        return prove_nn(a, subst_atom(a, &p, &vn, add_cst(a, v->ub, -1)), depth + 1);
    }

    /* (c) min(l, r) is l or r; max likewise */
    for (int i = 0; i < p.n; i++)
        for (int j = 0; j < p.m[i].n; j++) {
            Nat *t = p.m[i].at[j];
            if (t->kind != N_MIN && t->kind != N_MAX) continue;
            int uses = 0;
            for (int k = 0; k < p.n; k++) uses += count_factor(&p.m[k], t);
            Nat *xl = subst_atom(a, &p, t, t->bin.l), *xr = subst_atom(a, &p, t, t->bin.r);
            /* A lone c*min with c < 0 (or c*max with c > 0) is bounded below by either
             * substitution; otherwise both cases must hold. */
            bool either = uses == 1 && p.m[i].n == 1 &&
                          ((t->kind == N_MIN && p.m[i].coef < 0) || (t->kind == N_MAX && p.m[i].coef > 0));
            if (either) return prove_nn(a, xl, depth + 1) || prove_nn(a, xr, depth + 1);
            return prove_nn(a, xl, depth + 1) && prove_nn(a, xr, depth + 1);
        }
    return false;
}

bool nat_prove_ge(Arena *a, Nat *x, Nat *y)
{
    /* the terms of a proof decide a bool and are thrown away: scratch memory (a program
     * proves thousands of facts a kernel) */
    Arena *s = arena_scratch_begin(a);
    bool r = prove_nn(s, nat_sub(s, x, y), 0);
    arena_scratch_end(a, s);
    return r;
}

/* x < y  <=>  y - x - 1 >= 0 over the integers */
bool nat_prove_lt(Arena *a, Nat *x, Nat *y)
{
    Arena *s = arena_scratch_begin(a);
    bool r = prove_nn(s, add_cst(s, nat_sub(s, y, x), -1), 0);
    arena_scratch_end(a, s);
    return r;
}

/* ---------------------------------------------------------------- division */

/* Removes the multiset `sub` from `at` (both sorted); false when it is not contained. */
static bool atoms_remove(Arena *a, Nat **at, int n, Nat **sub, int ns, Nat ***out, int *nout)
{
    if (ns > n) return false;
    Nat **r = n - ns ? ANEWN(a, Nat *, n - ns) : NULL;
    int i = 0, j = 0, k = 0;
    while (i < n) {
        int c = j < ns ? nat_compare(at[i], sub[j]) : -1;
        if (c == 0) {
            i++;
            j++;
        } else if (c < 0) {
            if (k == n - ns) return false;
            r[k++] = at[i++];
        } else {
            return false;
        }
    }
    if (j != ns) return false;
    *out = r;
    *nout = k;
    return true;
}

static Nat *div_rec(Arena *a, Nat *p, Nat *d, int depth);

/* The division atom R / D once no rule applies; (X / A) / D = X / (A*D) is still
 * folded here, since gcd reduction and pulling out can leave a lone division. */
static Nat *div_atom(Arena *a, Nat *r, Nat *d, int depth)
{
    if (r->kind == N_DIV) return div_rec(a, r->bin.l, nat_mul(a, r->bin.r, d), depth);
    return mk_bin(a, N_DIV, r, d);
}

/* x / y with floor semantics. */
Nat *nat_div(Arena *a, Nat *x, Nat *y) { return div_rec(a, x, y, 0); }

/* The identities, in the order they are tried:
 *   P / D                      kept as is when D is a constant <= 0 (undefined everywhere)
 *   (P / A) / B  = P / (A*B)                          A, B >= 1
 *   0 / D        = 0
 *   (g*P) / (g*D) = P / D                             g > 0 the gcd of all coefficients
 *   P / 1 = P,  c1 / c2 = floor(c1 / c2)
 *   (D*Q + R) / D = Q + R / D                         D*Q an exact multiple of D
 *   R / D = 0 when 0 <= R < D,  R / D = -1 when -D <= R < 0
 *   (A - r) / D  = -r + (A - r + r*D) / D             r > 0, A >= 0 (numerator >= 0 as D >= 1)
 *   R / D        = -((-R + D - 1) / D)                R's variable part <= 0, D >= 1
 */
static Nat *div_rec(Arena *a, Nat *p, Nat *d, int depth)
{
    int64_t dv, pv;
    if (nat_is_const(d, &dv) && dv <= 0) return mk_bin(a, N_DIV, p, d);
    if (p->kind == N_DIV) return div_rec(a, p->bin.l, nat_mul(a, p->bin.r, d), depth);
    if (nat_is_const(p, &pv) && pv == 0) return p;

    Poly P = {0}, D = {0};
    poly_from(a, &P, p, 1);
    poly_from(a, &D, d, 1);
    uint64_t g = 0;
    for (int i = 0; i < P.n; i++) g = gcd_u64(g, abs_u64(P.m[i].coef));
    for (int i = 0; i < D.n; i++) g = gcd_u64(g, abs_u64(D.m[i].coef));
    if (g > 1 && g <= INT64_MAX) {
        for (int i = 0; i < P.n; i++) P.m[i].coef /= (int64_t)g;
        for (int i = 0; i < D.n; i++) D.m[i].coef /= (int64_t)g;
        p = poly_finish(a, &P);
        d = poly_finish(a, &D);
        P = (Poly){0};
        D = (Poly){0};
        poly_from(a, &P, p, 1);
        poly_from(a, &D, d, 1);
    }
    if (nat_is_const(d, &dv)) {
        if (dv == 1) return p;
        if (nat_is_const(p, &pv)) return nat_cst(a, floordiv(pv, dv));
    }

    /* Pull out the exact multiples of D. */
    Poly Q = {0}, R = {0};
    if (D.n == 1) {
        Mono dm = D.m[0];
        for (int i = 0; i < P.n; i++) {
            Mono m = P.m[i];
            if (dm.n == 0) {
                /* constant divisor: c*X = (c div d)*d*X + (c mod d)*X; the constant
                 * term is split with floor so that its remainder lands in [0, d) */
                int64_t q = m.n == 0 ? floordiv(m.coef, dm.coef) : m.coef / dm.coef;
                poly_push(a, &Q, q, m.at, m.n);
                poly_push(a, &R, m.coef - q * dm.coef, m.at, m.n);
                continue;
            }
            Nat **rest;
            int nr;
            if (atoms_remove(a, m.at, m.n, dm.at, dm.n, &rest, &nr)) {
                int64_t q = m.coef / dm.coef;
                poly_push(a, &Q, q, rest, nr);
                poly_push(a, &R, m.coef - q * dm.coef, m.at, m.n);
            } else {
                poly_push(a, &R, m.coef, m.at, m.n);
            }
        }
    } else {
        /* A sum divisor: pull out M*D for a monomial M whenever every monomial of M*D
         * occurs in P with exactly its coefficient (M from D's leading monomial). */
        Nat *rest = p;
        const Mono *lead = &D.m[0]; /* not the constant: that one comes last */
        for (int iter = 0; iter < 64; iter++) {
            Poly RP = {0};
            poly_from(a, &RP, rest, 1);
            bool found = false;
            for (int i = 0; i < RP.n && !found; i++) {
                Nat **qa;
                int nq;
                if (RP.m[i].coef % lead->coef != 0 || !atoms_remove(a, RP.m[i].at, RP.m[i].n, lead->at, lead->n, &qa, &nq))
                    continue;
                Mono qm = {RP.m[i].coef / lead->coef, qa, nq};
                Poly QD = {0};
                for (int j = 0; j < D.n; j++) mono_mul_push(a, &QD, &qm, &D.m[j]);
                Nat *r2 = nat_sub(a, rest, poly_finish(a, &QD));
                if (nterms(r2) != RP.n - D.n) continue;
                poly_push(a, &Q, qm.coef, qm.at, qm.n);
                rest = r2;
                found = true;
            }
            if (!found) break;
        }
        poly_from(a, &R, rest, 1);
    }
    Nat *qn = poly_finish(a, &Q), *rn = poly_finish(a, &R);
    if (nterms(rn) == 0) return qn;
    if (prove_nn(a, rn, 0) && nat_prove_lt(a, rn, d)) return qn;
    if (nat_prove_lt(a, rn, nat_cst(a, 0)) && nat_prove_ge(a, rn, nat_scale(a, d, -1))) return add_cst(a, qn, -1);

    /* Sign of the variable part A of R = A + c. */
    int64_t c = 0;
    if (rn->kind == N_CST) c = rn->cst;
    else if (rn->kind == N_SUM && rn->sum.terms[rn->sum.n - 1]->kind == N_CST) c = rn->sum.terms[rn->sum.n - 1]->cst;
    Nat *an = add_cst(a, rn, -c);
    Range ar = range_of(an, 0);
    if (ar.hl && ar.lo >= 0) {
        /* Only for a monomial D: there r*D is pulled out again on re-entry, so the
         * result is stable; a sum D (whose own constant may be negative) could leave a
         * negative constant and grow on every rebuild. A huge r would blow up the
         * coefficients. In both cases R / D stays as is. */
        if (c >= 0 || D.n != 1 || -c > (INT64_C(1) << 30)) return nat_add(a, qn, div_atom(a, rn, d, depth));
        Nat *n2 = nat_add(a, rn, nat_scale(a, d, -c));
        if (prove_nn(a, n2, 0) && nat_prove_lt(a, n2, d)) return add_cst(a, qn, c);
        return nat_add(a, add_cst(a, qn, c), div_atom(a, n2, d, depth));
    }
    if (nterms(an) > 0 && ar.hh && ar.hi <= 0 && depth < 4) {
        Nat *n2 = add_cst(a, nat_add(a, nat_scale(a, rn, -1), d), -1);
        return nat_sub(a, qn, div_rec(a, n2, d, depth + 1));
    }
    return nat_add(a, qn, div_atom(a, rn, d, depth));
}

/* x % y = x - y * (x / y) */
Nat *nat_mod(Arena *a, Nat *x, Nat *y) { return nat_sub(a, x, nat_mul(a, y, nat_div(a, x, y))); }

/* k | x  when the normal form of x % k is the constant 0 ("not shown" otherwise). */
bool nat_divides(Arena *a, Nat *k, Nat *x)
{
    int64_t v;
    Arena *s = arena_scratch_begin(a);
    bool r = nat_is_const(nat_mod(s, x, k), &v) && v == 0;
    arena_scratch_end(a, s);
    return r;
}

/* ---------------------------------------------------------------- min and max */

/* min(c1, c2) folds; min(x, x) = x; min(x, y) = x when y >= x is provable. The operands
 * of a kept atom are ordered, since min and max commute. */
static Nat *minmax(Arena *a, NatKind k, Nat *x, Nat *y)
{
    int64_t u, v;
    if (nat_is_const(x, &u) && nat_is_const(y, &v)) return nat_cst(a, (k == N_MIN) == (u < v) ? u : v);
    if (nat_equal(x, y)) return x;
    if (nat_prove_ge(a, y, x)) return k == N_MIN ? x : y;
    if (nat_prove_ge(a, x, y)) return k == N_MIN ? y : x;
    if (nat_compare(x, y) > 0) {
        Nat *t = x;
        x = y;
        y = t;
    }
    return mk_bin(a, k, x, y);
}

Nat *nat_min(Arena *a, Nat *x, Nat *y) { return minmax(a, N_MIN, x, y); }
Nat *nat_max(Arena *a, Nat *x, Nat *y) { return minmax(a, N_MAX, x, y); }

/* ---------------------------------------------------------------- substitution */

bool nat_mentions(const Nat *x, const NatVar *v)
{
    switch (x->kind) {
    case N_CST: return false;
    case N_VAR: return same_var(x->var, v);
    case N_SUM:
        for (int i = 0; i < x->sum.n; i++)
            if (nat_mentions(x->sum.terms[i], v)) return true;
        return false;
    case N_PROD:
        for (int i = 0; i < x->prod.n; i++)
            if (nat_mentions(x->prod.factors[i], v)) return true;
        return false;
    case N_DIV: case N_MIN: case N_MAX: return nat_mentions(x->bin.l, v) || nat_mentions(x->bin.r, v);
    }
    unreachable();
}

static int vars_into(const Nat *x, NatVar **out, int n, int max)
{
    switch (x->kind) {
    case N_CST: return n;
    case N_VAR:
        for (int i = 0; i < n; i++)
            if (same_var(out[i], x->var)) return n;
        if (n == max) return -1;
        out[n] = x->var;
        return n + 1;
    case N_SUM:
        for (int i = 0; i < x->sum.n && n >= 0; i++) n = vars_into(x->sum.terms[i], out, n, max);
        return n;
    case N_PROD:
        for (int i = 0; i < x->prod.n && n >= 0; i++) n = vars_into(x->prod.factors[i], out, n, max);
        return n;
    case N_DIV: case N_MIN: case N_MAX:
        n = vars_into(x->bin.l, out, n, max);
        return n < 0 ? n : vars_into(x->bin.r, out, n, max);
    }
    unreachable();
}

int nat_vars(const Nat *x, NatVar **out, int max) { return vars_into(x, out, 0, max); }

/* Rebuilds x bottom-up through the smart constructors, so the result is normal again. */
Nat *nat_subst(Arena *a, Nat *x, const NatVar *v, Nat *value)
{
    if (!nat_mentions(x, v)) return x;
    switch (x->kind) {
    case N_CST: return x;
    case N_VAR: return value;
    case N_SUM: {
        Nat *r = nat_cst(a, 0);
        for (int i = 0; i < x->sum.n; i++) r = nat_add(a, r, nat_subst(a, x->sum.terms[i], v, value));
        return r;
    }
    case N_PROD: {
        Nat *r = nat_cst(a, x->prod.coef);
        for (int i = 0; i < x->prod.n; i++) r = nat_mul(a, r, nat_subst(a, x->prod.factors[i], v, value));
        return r;
    }
    case N_DIV: return nat_div(a, nat_subst(a, x->bin.l, v, value), nat_subst(a, x->bin.r, v, value));
    case N_MIN: return nat_min(a, nat_subst(a, x->bin.l, v, value), nat_subst(a, x->bin.r, v, value));
    case N_MAX: return nat_max(a, nat_subst(a, x->bin.l, v, value), nat_subst(a, x->bin.r, v, value));
    }
    unreachable();
}

/* ---------------------------------------------------------------- evaluation */

bool nat_eval(const Nat *x, const NatEnv *env, int64_t *out)
{
    int64_t l, r;
    switch (x->kind) {
    case N_CST: *out = x->cst; return true;
    case N_VAR: {
        if (!env || x->var->id < env->base) return false;
        int id = x->var->id - env->base;
        if (id >= env->n || !env->has[id]) return false;
        *out = env->vals[id];
        return true;
    }
    case N_SUM: {
        int64_t s = 0;
        for (int i = 0; i < x->sum.n; i++)
            if (!nat_eval(x->sum.terms[i], env, &l) || __builtin_add_overflow(s, l, &s)) return false;
        *out = s;
        return true;
    }
    case N_PROD: {
        int64_t s = x->prod.coef;
        for (int i = 0; i < x->prod.n; i++)
            if (!nat_eval(x->prod.factors[i], env, &l) || __builtin_mul_overflow(s, l, &s)) return false;
        *out = s;
        return true;
    }
    case N_DIV:
        if (!nat_eval(x->bin.l, env, &l) || !nat_eval(x->bin.r, env, &r) || r <= 0) return false;
        *out = floordiv(l, r);
        return true;
    case N_MIN:
    case N_MAX:
        if (!nat_eval(x->bin.l, env, &l) || !nat_eval(x->bin.r, env, &r)) return false;
        *out = (x->kind == N_MIN) == (l < r) ? l : r;
        return true;
    }
    unreachable();
}

/* ---------------------------------------------------------------- printing */

/* One printer for both forms. Human form uses precedence (0: a sum is fine, 1: a product
 * is fine, 2: an atom is needed) to keep parentheses few; C form parenthesises every
 * compound expression and uses C `/` `%` only where the numerator is provably >= 0. */
typedef struct Pr {
    Arena *a;
    StrBuf *b;
    bool c;
    const char *wide; /* C form: the cast for hw variables, or NULL */
} Pr;

static void pr_nat(Pr *p, const Nat *x, int prec);

/* An operand of min, max, patc_fdiv or patc_fmod: CUDA overloads them by type, and with
 * a wide index type a constant (an int) beside a wide operand matches two overloads
 * equally well, so each operand is cast to the index type. */
static void pr_operand(Pr *p, const Nat *x)
{
    if (p->c && p->wide) sb_printf(p->b, "(%s)", p->wide);
    pr_nat(p, x, p->c && p->wide ? 2 : 0);
}

/* Negative constants are parenthesised in C (so `a - (-5)` never becomes `a --5`), and
 * constants outside int get an LL suffix. */
static void pr_cst(Pr *p, int64_t v, int prec)
{
    if (!p->c) {
        if (v < 0 && prec > 0) sb_printf(p->b, "(%lld)", (long long)v);
        else sb_printf(p->b, "%lld", (long long)v);
        return;
    }
    const char *sfx = v > INT32_MAX || v < -(int64_t)INT32_MAX ? "LL" : "";
    if (v == INT64_MIN) sb_puts(p->b, "(-9223372036854775807LL - 1)");
    /* the least int written as an int: -2147483648 is a long long in C, and a long long
     * next to an int makes max(a, b) ambiguous (an i32 max scan's neutral element) */
    else if (v == INT32_MIN) sb_puts(p->b, "(-2147483647 - 1)");
    else if (v < 0) sb_printf(p->b, "(-%lld%s)", (long long)-v, sfx);
    else sb_printf(p->b, "%lld%s", (long long)v, sfx);
}

/* Finds q, X, D with S = rest + q * (X - D*(X/D)) where every monomial of q*X and of
 * -q*D*(X/D) occurs in S exactly, so that S can be shown as rest + q * (X % D). Of
 * several candidates the one that absorbs the most monomials wins, so that an outer
 * remainder is found before the remainders nested in its X. */
static bool find_mod(Arena *a, Nat *s, Nat **xo, Nat **dout, int64_t *qo, Nat **resto)
{
    Poly S = {0};
    poly_from(a, &S, s, 1);
    int best = 0;
    for (int i = 0; i < S.n; i++)
        for (int j = 0; j < S.m[i].n; j++) {
            Nat *t = S.m[i].at[j], *c;
            if (t->kind != N_DIV || !coef_of_atom(a, &S, t, &c)) continue;
            Nat *x = t->bin.l, *d = t->bin.r;
            int64_t q = -multiple_of(a, c, d);
            if (q == 0) continue;
            Nat *dt = nat_mul(a, d, t);
            Nat *rest = nat_sub(a, s, nat_scale(a, nat_sub(a, x, dt), q));
            int used = nterms(x) + nterms(dt);
            if (nterms(rest) + used > S.n || used <= best) continue;
            best = used;
            *xo = x;
            *dout = d;
            *qo = q;
            *resto = rest;
        }
    return best > 0;
}

/* X % D; in C, `%` equals the floor remainder only for X >= 0 (D >= 1 where defined). */
static void pr_mod(Pr *p, Nat *x, Nat *d, int prec)
{
    if (p->c) {
        if (prove_nn(p->a, x, 0)) {
            sb_putc(p->b, '(');
            pr_nat(p, x, 1);
            sb_puts(p->b, " % ");
            pr_nat(p, d, 2);
            sb_putc(p->b, ')');
        } else {
            sb_puts(p->b, "patc_fmod(");
            pr_operand(p, x);
            sb_puts(p->b, ", ");
            pr_operand(p, d);
            sb_putc(p->b, ')');
        }
        return;
    }
    if (prec >= 2) sb_putc(p->b, '(');
    pr_nat(p, x, 1);
    sb_puts(p->b, " % ");
    pr_nat(p, d, 2);
    if (prec >= 2) sb_putc(p->b, ')');
}

/* Prints one term of a sum with its sign: " + body", " - body", or a leading "-body". */
static void pr_sign(Pr *p, int64_t coef, bool *first)
{
    if (*first) {
        if (coef < 0) sb_putc(p->b, '-');
    } else {
        sb_puts(p->b, coef < 0 ? " - " : " + ");
    }
    *first = false;
}

/* A monomial as a term of a sum: sign, |coef| (omitted when 1), atoms. A leading
 * negative atom gets parentheses: -(n / k) is not (-n) / k under floor division. */
static void pr_mono(Pr *p, const Mono *m, bool *first)
{
    bool neg = m->coef < 0, lead_neg = *first && neg;
    pr_sign(p, m->coef, first);
    uint64_t c = abs_u64(m->coef);
    if (m->n == 0) {
        if (p->c && c > INT32_MAX) sb_printf(p->b, "%lluLL", (unsigned long long)c);
        else sb_printf(p->b, "%llu", (unsigned long long)c);
        return;
    }
    bool prod = c != 1 || m->n > 1;
    if (c != 1) sb_printf(p->b, p->c && c > INT32_MAX ? "%lluLL * " : "%llu * ", (unsigned long long)c);
    for (int j = 0; j < m->n; j++) {
        if (j) sb_puts(p->b, " * ");
        pr_nat(p, m->at[j], prod || lead_neg ? 2 : 1);
    }
}

/* The terms of a sum, re-sugaring X - D*(X/D) into X % D wherever it is found. */
static void pr_terms(Pr *p, Nat *s, bool *first)
{
    Nat *x, *d, *rest;
    int64_t q;
    if (find_mod(p->a, s, &x, &d, &q, &rest)) {
        pr_terms(p, rest, first);
        bool lead_neg = *first && q < 0;
        pr_sign(p, q, first);
        uint64_t c = abs_u64(q);
        if (c != 1) sb_printf(p->b, "%llu * ", (unsigned long long)c);
        pr_mod(p, x, d, c != 1 || lead_neg ? 2 : 1);
        return;
    }
    Poly S = {0};
    poly_from(p->a, &S, s, 1);
    for (int i = 0; i < S.n; i++) pr_mono(p, &S.m[i], first);
}

/* Division: C `/` truncates, so it is emitted only for a provably nonnegative numerator
 * (the divisor is >= 1 wherever the expression is defined); patc_fdiv otherwise. */
static void pr_nat(Pr *p, const Nat *x, int prec)
{
    switch (x->kind) {
    case N_CST: pr_cst(p, x->cst, prec); return;
    case N_VAR:
        if (p->c && p->wide && x->var->hw) sb_printf(p->b, "((%s)%s)", p->wide, x->var->name);
        else sb_puts(p->b, x->var->name);
        return;
    case N_SUM:
    case N_PROD: {
        Nat *mx, *md, *rest;
        int64_t q;
        if (find_mod(p->a, (Nat *)x, &mx, &md, &q, &rest) && q == 1 && nterms(rest) == 0) {
            pr_mod(p, mx, md, prec); /* a lone X % D needs no parentheses of its own */
            return;
        }
        bool paren = p->c || prec > 0;
        bool first = true;
        if (paren) sb_putc(p->b, '(');
        pr_terms(p, (Nat *)x, &first);
        if (paren) sb_putc(p->b, ')');
        return;
    }
    case N_DIV:
        if (p->c) {
            if (prove_nn(p->a, x->bin.l, 0)) {
                sb_putc(p->b, '(');
                pr_nat(p, x->bin.l, 1);
                sb_puts(p->b, " / ");
                pr_nat(p, x->bin.r, 2);
                sb_putc(p->b, ')');
            } else {
                sb_puts(p->b, "patc_fdiv(");
                pr_operand(p, x->bin.l);
                sb_puts(p->b, ", ");
                pr_operand(p, x->bin.r);
                sb_putc(p->b, ')');
            }
            return;
        }
        if (prec >= 2) sb_putc(p->b, '(');
        pr_nat(p, x->bin.l, 1);
        sb_puts(p->b, " / ");
        pr_nat(p, x->bin.r, 2);
        if (prec >= 2) sb_putc(p->b, ')');
        return;
    case N_MIN:
    case N_MAX:
        sb_puts(p->b, x->kind == N_MIN ? "min(" : "max(");
        pr_operand(p, x->bin.l);
        sb_puts(p->b, ", ");
        pr_operand(p, x->bin.r);
        sb_putc(p->b, ')');
        return;
    }
    unreachable();
}

/* Human form with minimal parentheses and re-sugared remainders. */
void nat_print(StrBuf *b, const Nat *x)
{
    /* printing works on scratch polynomials: in b's arena when it has one (a failure
     * there jumps past this call), else in one that lives only as long as this call
     * (memory running out there fails b as its own growth would) */
    if (b->a) {
        Pr p = {b->a, b, false, NULL};
        pr_nat(&p, x, 0);
        return;
    }
    Arena *a = arena_new();
    if (!a) {
        sb_fail(b);
        return;
    }
    jmp_buf jb;
    arena_catch(a, &jb);
    if (setjmp(jb)) {
        arena_free(a);
        sb_fail(b);
        return;
    }
    Pr p = {a, b, false, NULL};
    pr_nat(&p, x, 0);
    arena_free(a);
}

/* nat_print into the arena. */
char *nat_str(Arena *a, const Nat *x)
{
    StrBuf b = {.a = a};
    nat_print(&b, x);
    return (char *)sb_str(&b);
}

/* C form: every compound subexpression parenthesised, floor helpers where needed. */
void nat_print_c(Arena *a, StrBuf *b, const Nat *x) { nat_print_c_as(a, b, x, NULL); }

/* C form with hw variables cast to `wide`. */
void nat_print_c_as(Arena *a, StrBuf *b, const Nat *x, const char *wide)
{
    Pr p = {a, b, true, wide};
    pr_nat(&p, x, 0);
}
