/* test_nat.c: Check suite for compiler/nat.c.
 *
 * Three parts: unit tests of the individual rewrite rules; a property test that builds
 * random expression trees through the smart constructors and compares nat_eval and the
 * C text of nat_print_c (evaluated by tests/cexpr.c with C semantics) against a direct
 * floor-semantics evaluation of the raw tree; and an exhaustive check of the padding
 * idiom's block count. The random seed is fixed (reproducible) and can be overridden
 * with PATC_NAT_SEED.
 */
#include <check.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/nat.h"
#include "cexpr.h"

/* ---------------------------------------------------------------- helpers */

static Nat *C(Arena *a, int64_t v) { return nat_cst(a, v); }
static Nat *V(Arena *a, NatVar *v) { return nat_var(a, v); }

static bool is_cst(const Nat *x, int64_t want)
{
    int64_t v;
    return nat_is_const(x, &v) && v == want;
}

/* nat_print_c into a malloc'ed string */
static char *cstr(Arena *a, const Nat *x)
{
    StrBuf b = {0};
    nat_print_c(a, &b, x);
    return sb_take(&b);
}

/* Evaluates x with up to 4 variables bound. */
static bool eval4(const Nat *x, NatVar **vs, const int64_t *vals, int nv, int64_t *out)
{
    int64_t ev[64] = {0};
    bool has[64] = {0};
    for (int i = 0; i < nv; i++) {
        ev[vs[i]->id] = vals[i];
        has[vs[i]->id] = true;
    }
    NatEnv env = {ev, has, 64, 0};
    return nat_eval(x, &env, out);
}

/* The padding idiom L = n + (k - n % k) % k. */
static Nat *padded(Arena *a, Nat *n, Nat *k) { return nat_add(a, n, nat_mod(a, nat_sub(a, k, nat_mod(a, n, k)), k)); }

/* ---------------------------------------------------------------- unit tests */

START_TEST(test_const_fold)
{
    Arena *a = arena_new();
    ck_assert(is_cst(nat_add(a, C(a, 3), C(a, 4)), 7));
    ck_assert(is_cst(nat_sub(a, C(a, 3), C(a, 10)), -7));
    ck_assert(is_cst(nat_mul(a, C(a, -3), C(a, 4)), -12));
    ck_assert(is_cst(nat_div(a, C(a, 7), C(a, 2)), 3));
    ck_assert(is_cst(nat_div(a, C(a, -7), C(a, 2)), -4));
    ck_assert(is_cst(nat_div(a, C(a, -8), C(a, 2)), -4));
    ck_assert(is_cst(nat_div(a, C(a, -1), C(a, 32)), -1));
    ck_assert(is_cst(nat_div(a, C(a, 0), C(a, 5)), 0));
    ck_assert(is_cst(nat_div(a, C(a, 31), C(a, 32)), 0));
    ck_assert(is_cst(nat_mod(a, C(a, -7), C(a, 2)), 1));
    ck_assert(is_cst(nat_mod(a, C(a, 7), C(a, 3)), 1));
    ck_assert(is_cst(nat_mod(a, C(a, -7), C(a, 3)), 2));
    ck_assert(is_cst(nat_mod(a, C(a, -9), C(a, 3)), 0));
    ck_assert(is_cst(nat_mod(a, C(a, 1023), C(a, 1024)), 1023));
    ck_assert(is_cst(nat_min(a, C(a, 3), C(a, -2)), -2));
    ck_assert(is_cst(nat_max(a, C(a, 3), C(a, -2)), 3));
    ck_assert(is_cst(nat_min(a, C(a, 5), C(a, 5)), 5));
    /* a constant divisor <= 0 stays a (undefined) division */
    Nat *bad = nat_div(a, C(a, 7), C(a, 0));
    ck_assert(!nat_is_const(bad, NULL));
    int64_t v;
    ck_assert(!nat_eval(bad, NULL, &v));
    arena_free(a);
}
END_TEST

START_TEST(test_like_terms)
{
    Arena *a = arena_new();
    NatVar *x = nat_newvar(a, "x", 0, NULL), *y = nat_newvar(a, "y", 0, NULL);
    Nat *X = V(a, x), *Y = V(a, y);
    ck_assert(is_cst(nat_sub(a, X, X), 0));
    ck_assert(is_cst(nat_sub(a, nat_add(a, X, Y), nat_add(a, Y, X)), 0));
    Nat *twox = nat_add(a, X, X);
    ck_assert(twox->kind == N_PROD && twox->prod.coef == 2);
    ck_assert(nat_equal(twox, nat_mul(a, C(a, 2), X)));
    ck_assert(is_cst(nat_mul(a, X, C(a, 0)), 0));
    ck_assert(nat_equal(nat_mul(a, X, C(a, 1)), X));
    /* (x + 1)(x - 1) = x*x - 1 */
    Nat *sq = nat_mul(a, nat_add(a, X, C(a, 1)), nat_sub(a, X, C(a, 1)));
    ck_assert(nat_equal(sq, nat_sub(a, nat_mul(a, X, X), C(a, 1))));
    ck_assert(sq->kind == N_SUM && sq->sum.n == 2);
    ck_assert(sq->sum.terms[1]->kind == N_CST); /* the constant comes last */
    arena_free(a);
}
END_TEST

START_TEST(test_equal_order)
{
    Arena *a = arena_new();
    NatVar *x = nat_newvar(a, "x", 0, NULL), *y = nat_newvar(a, "y", 0, NULL);
    Nat *X = V(a, x), *Y = V(a, y);
    Nat *s1 = nat_add(a, nat_add(a, X, Y), C(a, 3));
    Nat *s2 = nat_add(a, nat_add(a, C(a, 3), Y), X);
    ck_assert(nat_equal(s1, s2));
    ck_assert_int_eq(nat_compare(s1, s2), 0);
    Nat *p1 = nat_mul(a, X, nat_add(a, Y, C(a, 1)));
    Nat *p2 = nat_add(a, nat_mul(a, Y, X), X);
    ck_assert(nat_equal(p1, p2));
    ck_assert(!nat_equal(X, Y));
    ck_assert_int_eq(nat_compare(X, Y), -nat_compare(Y, X));
    ck_assert(nat_compare(X, Y) != 0);
    ck_assert(!nat_equal(s1, p1));
    ck_assert_int_eq(nat_compare(s1, p1), -nat_compare(p1, s1));
    ck_assert(nat_equal(nat_min(a, X, Y), nat_min(a, Y, X)));
    ck_assert(nat_equal(nat_max(a, X, Y), nat_max(a, Y, X)));
    ck_assert(!nat_equal(nat_min(a, X, Y), nat_max(a, X, Y)));
    ck_assert(nat_equal(nat_div(a, s1, Y), nat_div(a, s2, Y)));
    /* a fresh node for the same variable is equal */
    ck_assert(nat_equal(V(a, x), X));
    arena_free(a);
}
END_TEST

START_TEST(test_div_rules)
{
    Arena *a = arena_new();
    NatVar *av = nat_newvar(a, "a", 0, NULL), *kv = nat_newvar(a, "k", 1, NULL);
    Nat *A = V(a, av), *K = V(a, kv);
    NatVar *bv = nat_newvar(a, "b", 0, K), *b8 = nat_newvar(a, "b8", 0, C(a, 8));
    Nat *B = V(a, bv), *B8 = V(a, b8);
    /* (a*k + b) / k = a when 0 <= b < k */
    ck_assert(nat_equal(nat_div(a, nat_add(a, nat_mul(a, A, K), B), K), A));
    ck_assert(nat_equal(nat_div(a, nat_add(a, nat_mul(a, A, C(a, 8)), B8), C(a, 8)), A));
    ck_assert(is_cst(nat_mod(a, nat_add(a, nat_mul(a, A, K), B), K), 0) == false);
    ck_assert(nat_equal(nat_mod(a, nat_add(a, nat_mul(a, A, K), B), K), B));
    ck_assert(nat_equal(nat_mod(a, B, K), B));
    /* (a*k + 3) / k is not a: 3 may exceed k */
    Nat *ak3 = nat_div(a, nat_add(a, nat_mul(a, A, K), C(a, 3)), K);
    ck_assert(!nat_equal(ak3, A));
    int64_t vals[2] = {5, 2}, r;
    NatVar *vs[2] = {av, kv};
    ck_assert(eval4(ak3, vs, vals, 2, &r));
    ck_assert_int_eq(r, 6);
    /* (2a + 7) / 2 = a + 3 */
    ck_assert(nat_equal(nat_div(a, nat_add(a, nat_mul(a, C(a, 2), A), C(a, 7)), C(a, 2)), nat_add(a, A, C(a, 3))));
    /* (k*a)/k = a, x/1 = x */
    ck_assert(nat_equal(nat_div(a, nat_mul(a, K, A), K), A));
    ck_assert(nat_equal(nat_div(a, A, C(a, 1)), A));
    /* (a/3)/4 = a/12 */
    ck_assert(nat_equal(nat_div(a, nat_div(a, A, C(a, 3)), C(a, 4)), nat_div(a, A, C(a, 12))));
    /* (6a + 4) / 4 = (3a + 2) / 2 by the common factor */
    ck_assert(nat_equal(nat_div(a, nat_add(a, nat_mul(a, C(a, 6), A), C(a, 4)), C(a, 4)),
                        nat_div(a, nat_add(a, nat_mul(a, C(a, 3), A), C(a, 2)), C(a, 2))));
    /* -1 / k = -1 since k >= 1 */
    ck_assert(is_cst(nat_div(a, C(a, -1), K), -1));
    /* (k - 1) / k = 0 */
    ck_assert(is_cst(nat_div(a, nat_sub(a, K, C(a, 1)), K), 0));
    /* no distribution over a sum: (a + 1)/2 is not a/2 + 1/2 = a/2 */
    ck_assert(!nat_equal(nat_div(a, nat_add(a, A, C(a, 1)), C(a, 2)), nat_div(a, A, C(a, 2))));
    /* a sum divisor: (2k + 2) / (k + 1) = 2 */
    ck_assert(is_cst(nat_div(a, nat_add(a, nat_mul(a, C(a, 2), K), C(a, 2)), nat_add(a, K, C(a, 1))), 2));
    arena_free(a);
}
END_TEST

START_TEST(test_padding_divides)
{
    Arena *a = arena_new();
    NatVar *nv = nat_newvar(a, "n", 0, NULL), *kv = nat_newvar(a, "k", 1, NULL);
    Nat *N = V(a, nv), *K = V(a, kv);
    Nat *L = padded(a, N, K);
    ck_assert(nat_divides(a, K, L));
    ck_assert(is_cst(nat_mod(a, L, K), 0));
    char *s = cstr(a, nat_div(a, L, K));
    ck_assert_msg(!strstr(s, "patc_f"), "symbolic block count printed as %s", s);
    ck_assert_str_eq(s, "((n + k - 1) / k)");
    free(s);
    static const int64_t ks[] = {1, 2, 3, 32, 1000, 1024};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        Nat *Lc = padded(a, N, C(a, ks[i]));
        ck_assert_msg(nat_divides(a, C(a, ks[i]), Lc), "k=%" PRId64 ": %s", ks[i], nat_str(a, Lc));
        char *t = cstr(a, nat_div(a, Lc, C(a, ks[i])));
        ck_assert_msg(!strstr(t, "patc_f"), "k=%" PRId64 ": %s", ks[i], t);
        free(t);
    }
    char *t32 = cstr(a, nat_div(a, padded(a, N, C(a, 32)), C(a, 32)));
    ck_assert_str_eq(t32, "((n + 31) / 32)");
    free(t32);
    /* the thesis bug distributed the division: n/k + ((k - n%k)%k)/k is 0 at n=1, k=2 */
    Nat *Bs = nat_div(a, L, K);
    NatVar *nk[2] = {nv, kv};
    int64_t r;
    for (int64_t n = 0; n <= 9; n++)
        for (int64_t k = 1; k <= 4; k++) {
            ck_assert(eval4(Bs, nk, (int64_t[]){n, k}, 2, &r));
            ck_assert_int_eq(r, (n + k - 1) / k);
        }
    ck_assert_str_eq(nat_str(a, Bs), "(n + k - 1) / k");
    /* a sum as k: the block count still needs no floor helper */
    NatVar *mv = nat_newvar(a, "m", 0, NULL);
    Nat *K1 = nat_add(a, V(a, mv), C(a, 1));
    Nat *L1 = padded(a, N, K1);
    ck_assert(nat_divides(a, K1, L1));
    char *s1 = cstr(a, nat_div(a, L1, K1));
    ck_assert_msg(!strstr(s1, "patc_f"), "%s", s1);
    for (long long n = 0; n <= 40; n++)
        for (long long m = 0; m <= 6; m++) {
            long long cv, vals[2] = {n, m};
            ck_assert(cexpr_eval(s1, (const char *[]){"n", "m"}, vals, 2, &cv, NULL, 0));
            ck_assert_int_eq(cv, (n + m) / (m + 1));
        }
    free(s1);
    /* negatives: not everything is divisible */
    ck_assert(!nat_divides(a, K, N));
    ck_assert(!nat_divides(a, C(a, 2), nat_add(a, nat_mul(a, C(a, 2), N), C(a, 1))));
    ck_assert(nat_divides(a, C(a, 2), nat_add(a, nat_mul(a, C(a, 4), N), C(a, 2))));
    ck_assert(nat_divides(a, K, nat_mul(a, K, N)));
    ck_assert(!nat_divides(a, nat_mul(a, C(a, 2), K), nat_mul(a, K, N)));
    arena_free(a);
}
END_TEST

START_TEST(test_subst_mentions)
{
    Arena *a = arena_new();
    NatVar *nv = nat_newvar(a, "n", 0, NULL), *mv = nat_newvar(a, "m", 0, NULL), *kv = nat_newvar(a, "k", 1, NULL);
    Nat *N = V(a, nv), *M = V(a, mv), *K = V(a, kv);
    Nat *e = nat_add(a, N, nat_div(a, N, C(a, 2)));
    ck_assert(nat_mentions(e, nv));
    ck_assert(!nat_mentions(e, mv));
    /* n + n/2 [n := 2m] = 2m + m = 3m */
    Nat *r = nat_subst(a, e, nv, nat_mul(a, C(a, 2), M));
    ck_assert(nat_equal(r, nat_mul(a, C(a, 3), M)));
    ck_assert(!nat_mentions(r, nv));
    ck_assert(nat_mentions(r, mv));
    ck_assert(nat_subst(a, e, mv, K) == e);
    /* the padding idiom with k := 32 becomes the constant-k normal form */
    Nat *L = padded(a, N, K);
    ck_assert(nat_equal(nat_subst(a, L, kv, C(a, 32)), padded(a, N, C(a, 32))));
    /* min(n, k) [n := 0] = min(0, k) = 0 since k >= 1; [n := 9] stays a min */
    ck_assert(is_cst(nat_subst(a, nat_min(a, N, K), nv, C(a, 0)), 0));
    ck_assert(nat_subst(a, nat_min(a, N, K), nv, C(a, 9))->kind == N_MIN);
    ck_assert(is_cst(nat_subst(a, nat_subst(a, nat_min(a, N, K), nv, C(a, 9)), kv, C(a, 4)), 4));
    arena_free(a);
}
END_TEST

START_TEST(test_prove)
{
    Arena *a = arena_new();
    NatVar *nv = nat_newvar(a, "n", 0, NULL), *kv = nat_newvar(a, "k", 1, NULL);
    Nat *N = V(a, nv), *K = V(a, kv);
    NatVar *jv = nat_newvar(a, "j", 0, N), *xv = nat_newvar(a, "x", 0, NULL);
    Nat *J = V(a, jv), *X = V(a, xv);
    ck_assert(nat_prove_ge(a, N, C(a, 0)));
    ck_assert(!nat_prove_ge(a, N, C(a, 1)));
    ck_assert(nat_prove_ge(a, K, C(a, 1)));
    ck_assert(nat_prove_lt(a, N, nat_add(a, N, C(a, 1))));
    ck_assert(!nat_prove_lt(a, N, N));
    ck_assert(nat_prove_lt(a, J, N));
    ck_assert(!nat_prove_lt(a, N, J));
    ck_assert(nat_prove_lt(a, nat_mod(a, N, K), K));
    ck_assert(nat_prove_ge(a, nat_mod(a, N, K), C(a, 0)));
    ck_assert(nat_prove_lt(a, nat_mod(a, X, C(a, 7)), C(a, 7)));
    ck_assert(!nat_prove_lt(a, nat_mod(a, X, C(a, 7)), C(a, 6)));
    ck_assert(!nat_prove_ge(a, X, N));
    ck_assert(!nat_prove_ge(a, N, X));
    ck_assert(nat_prove_ge(a, N, nat_min(a, N, K)));
    ck_assert(nat_prove_ge(a, nat_max(a, N, K), K));
    ck_assert(!nat_prove_ge(a, nat_min(a, N, K), N));
    ck_assert(nat_prove_ge(a, nat_div(a, nat_add(a, N, C(a, 5)), K), C(a, 0)));
    ck_assert(nat_prove_ge(a, nat_mul(a, N, K), C(a, 0)));
    ck_assert(!nat_prove_ge(a, nat_sub(a, C(a, 0), N), C(a, 0)));
    /* min/max simplify by the proofs */
    ck_assert(nat_equal(nat_min(a, J, N), J));
    ck_assert(nat_equal(nat_max(a, J, N), N));
    ck_assert(nat_equal(nat_max(a, K, C(a, 1)), K));
    ck_assert(nat_equal(nat_min(a, N, N), N));
    ck_assert(nat_min(a, N, K)->kind == N_MIN);
    /* j / n = 0 and j % n = j since 0 <= j < n */
    ck_assert(is_cst(nat_div(a, J, N), 0));
    ck_assert(nat_equal(nat_mod(a, J, N), J));
    arena_free(a);
}
END_TEST

START_TEST(test_eval)
{
    Arena *a = arena_new();
    NatVar *xv = nat_newvar(a, "x", 0, NULL), *yv = nat_newvar(a, "y", 0, NULL), *zv = nat_newvar(a, "z", 0, NULL);
    Nat *X = V(a, xv), *Y = V(a, yv), *Z = V(a, zv);
    NatVar *vs[2] = {xv, yv};
    int64_t r;
    Nat *q = nat_div(a, X, Y);
    ck_assert(!eval4(q, vs, (int64_t[]){7, 0}, 2, &r));
    ck_assert(!eval4(q, vs, (int64_t[]){7, -1}, 2, &r));
    ck_assert(eval4(q, vs, (int64_t[]){-7, 2}, 2, &r));
    ck_assert_int_eq(r, -4);
    ck_assert(eval4(nat_mod(a, X, Y), vs, (int64_t[]){-7, 2}, 2, &r));
    ck_assert_int_eq(r, 1);
    ck_assert(!eval4(nat_add(a, X, Z), vs, (int64_t[]){1, 2}, 2, &r)); /* z unbound */
    ck_assert(!eval4(nat_mul(a, X, Y), vs, (int64_t[]){INT64_C(1) << 62, 4}, 2, &r));
    ck_assert(!eval4(nat_add(a, X, C(a, 1)), vs, (int64_t[]){INT64_MAX, 0}, 2, &r));
    ck_assert(eval4(nat_add(a, X, C(a, 1)), vs, (int64_t[]){INT64_MAX - 1, 0}, 2, &r));
    ck_assert(r == INT64_MAX);
    ck_assert(eval4(nat_min(a, X, Y), vs, (int64_t[]){3, 9}, 2, &r));
    ck_assert_int_eq(r, 3);
    ck_assert(eval4(nat_max(a, X, Y), vs, (int64_t[]){3, 9}, 2, &r));
    ck_assert_int_eq(r, 9);
    ck_assert(!nat_eval(X, NULL, &r));
    arena_free(a);
}
END_TEST

START_TEST(test_print)
{
    Arena *a = arena_new();
    NatVar *nv = nat_newvar(a, "n", 0, NULL), *kv = nat_newvar(a, "k", 1, NULL), *mv = nat_newvar(a, "m", 0, NULL);
    Nat *N = V(a, nv), *K = V(a, kv), *M = V(a, mv);
    ck_assert_str_eq(nat_str(a, nat_mod(a, N, K)), "n % k");
    ck_assert_str_eq(nat_str(a, nat_add(a, N, C(a, 3))), "n + 3");
    ck_assert_str_eq(nat_str(a, nat_sub(a, N, M)), "n - m");
    ck_assert_str_eq(nat_str(a, nat_mul(a, C(a, 2), nat_add(a, N, K))), "2 * n + 2 * k");
    ck_assert_str_eq(nat_str(a, nat_div(a, nat_add(a, N, C(a, 1)), K)), "(n + 1) / k");
    ck_assert_str_eq(nat_str(a, nat_min(a, N, M)), "min(n, m)");
    ck_assert_str_eq(nat_str(a, C(a, -5)), "-5");
    ck_assert_str_eq(nat_str(a, nat_sub(a, C(a, 0), nat_div(a, N, K))), "-(n / k)");
    ck_assert_str_eq(nat_str(a, nat_add(a, M, nat_mod(a, N, K))), "m + n % k");
    /* C: plain division where the numerator is >= 0, patc_fdiv elsewhere */
    char *s = cstr(a, nat_div(a, N, K));
    ck_assert_str_eq(s, "(n / k)");
    free(s);
    s = cstr(a, nat_div(a, nat_sub(a, N, M), K));
    ck_assert_str_eq(s, "patc_fdiv((n - m), k)");
    free(s);
    s = cstr(a, nat_mod(a, nat_sub(a, N, M), C(a, 3)));
    ck_assert_msg(strstr(s, "patc_fmod") || strstr(s, "patc_fdiv"), "%s", s);
    free(s);
    s = cstr(a, nat_mod(a, N, K));
    ck_assert_str_eq(s, "(n % k)");
    free(s);
    /* (n - 1) / 2 is -1 + (n + 1) / 2: no floor helper needed */
    s = cstr(a, nat_div(a, nat_sub(a, N, C(a, 1)), C(a, 2)));
    ck_assert_msg(!strstr(s, "patc_f"), "%s", s);
    for (long long n = 0; n < 50; n++) {
        long long r;
        char err[128];
        ck_assert_msg(cexpr_eval(s, (const char *[]){"n"}, &n, 1, &r, err, sizeof err), "%s: %s", s, err);
        ck_assert_int_eq(r, n == 0 ? -1 : (n - 1) / 2);
    }
    free(s);
    s = cstr(a, C(a, -5));
    ck_assert_str_eq(s, "(-5)");
    free(s);
    s = cstr(a, C(a, INT64_C(5000000000)));
    ck_assert_str_eq(s, "5000000000LL");
    free(s);
    arena_free(a);
}
END_TEST

START_TEST(test_cexpr)
{
    long long r;
    char err[128];
    const char *names[] = {"x", "y"};
    long long vals[] = {-7, 2};
    ck_assert(cexpr_eval("x / y", names, vals, 2, &r, err, sizeof err));
    ck_assert_int_eq(r, -3);
    ck_assert(cexpr_eval("x % y", names, vals, 2, &r, err, sizeof err));
    ck_assert_int_eq(r, -1);
    ck_assert(cexpr_eval("patc_fdiv(x, y)", names, vals, 2, &r, err, sizeof err));
    ck_assert_int_eq(r, -4);
    ck_assert(cexpr_eval("patc_fmod(x, y)", names, vals, 2, &r, err, sizeof err));
    ck_assert_int_eq(r, 1);
    ck_assert(cexpr_eval("1 + 2 * 3 - -4", names, vals, 2, &r, err, sizeof err));
    ck_assert_int_eq(r, 11);
    ck_assert(cexpr_eval("(1 + 2) * 3 % 5", names, vals, 2, &r, err, sizeof err));
    ck_assert_int_eq(r, 4);
    ck_assert(cexpr_eval("min(x, y) + max(x, y) + 5000000000LL", names, vals, 2, &r, err, sizeof err));
    ck_assert_int_eq(r, 5000000000LL - 5);
    ck_assert(!cexpr_eval("x / 0", names, vals, 2, &r, err, sizeof err));
    ck_assert(!cexpr_eval("z + 1", names, vals, 2, &r, err, sizeof err));
    ck_assert(!cexpr_eval("(1 + 2", names, vals, 2, &r, err, sizeof err));
    ck_assert(!cexpr_eval("patc_fdiv(1, 0)", names, vals, 2, &r, err, sizeof err));
    ck_assert(!cexpr_eval("9223372036854775807 + 1", names, vals, 2, &r, err, sizeof err));
}
END_TEST

/* ---------------------------------------------------------------- padding, exhaustively */

static const int64_t pad_ks[] = {1, 2, 3, 32, 1000, 1024};
enum { PAD_N = 20000 };

/* B = (n + (k - n % k) % k) / k must print as C without floor helpers and equal
 * ceil(n / k) for every n in 1..20000. */
START_TEST(test_padding_exhaustive)
{
    Arena *a = arena_new();
    NatVar *nv = nat_newvar(a, "n", 0, NULL);
    Nat *N = V(a, nv);
    int64_t k = pad_ks[_i];
    Nat *B = nat_div(a, padded(a, N, C(a, k)), C(a, k));
    char *s = cstr(a, B);
    ck_assert_msg(!strstr(s, "patc_f"), "k=%" PRId64 ": %s", k, s);
    long bad = 0;
    for (long long n = 1; n <= PAD_N; n++) {
        long long r;
        char err[128];
        if (!cexpr_eval(s, (const char *[]){"n"}, &n, 1, &r, err, sizeof err) || r != (n + k - 1) / k) {
            if (bad++ < 5) fprintf(stderr, "padding k=%lld n=%lld: %s gives %lld %s\n", (long long)k, n, s, r, err);
        }
    }
    ck_assert_int_eq(bad, 0);
    free(s);
    arena_free(a);
}
END_TEST

START_TEST(test_padding_symbolic)
{
    Arena *a = arena_new();
    NatVar *nv = nat_newvar(a, "n", 0, NULL), *kv = nat_newvar(a, "k", 1, NULL);
    Nat *B = nat_div(a, padded(a, V(a, nv), V(a, kv)), V(a, kv));
    char *s = cstr(a, B);
    ck_assert_msg(!strstr(s, "patc_f"), "%s", s);
    long bad = 0, checked = 0;
    for (long long k = 1; k <= 1100; k = k < 64 ? k + 1 : k * 2 - 37) {
        for (long long n = 1; n <= PAD_N; n++) {
            long long r, vals[2] = {n, k};
            char err[128];
            checked++;
            if (!cexpr_eval(s, (const char *[]){"n", "k"}, vals, 2, &r, err, sizeof err) || r != (n + k - 1) / k) {
                if (bad++ < 5) fprintf(stderr, "padding k=%lld n=%lld: %s gives %lld %s\n", k, n, s, r, err);
            }
        }
    }
    for (long long k = 1000; k <= 1024; k += 24) {
        for (long long n = 1; n <= PAD_N; n++) {
            long long r, vals[2] = {n, k};
            checked++;
            if (!cexpr_eval(s, (const char *[]){"n", "k"}, vals, 2, &r, NULL, 0) || r != (n + k - 1) / k) bad++;
        }
    }
    ck_assert_int_eq(bad, 0);
    ck_assert(checked > 1000000);
    free(s);
    arena_free(a);
}
END_TEST

/* ---------------------------------------------------------------- random trees */

typedef enum { R_CST, R_VAR, R_ADD, R_SUB, R_MUL, R_DIV, R_MOD, R_MIN, R_MAX } ROp;

typedef struct Raw {
    ROp op;
    int64_t c;
    int v;
    struct Raw *l, *r;
} Raw;

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64: the state lives with the caller, so the test has no globals */
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int64_t rng_range(uint64_t *s, int64_t lo, int64_t hi) { return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1)); }

static Raw *raw_new(Arena *a, ROp op, Raw *l, Raw *r)
{
    Raw *x = ANEW(a, Raw);
    x->op = op;
    x->l = l;
    x->r = r;
    return x;
}

enum { NVARS = 4, VAR_K = 1 };
static const char *const var_names[NVARS] = {"n", "k", "i", "t"};

static Raw *gen(Arena *a, uint64_t *s, int depth, bool nonneg);

/* A divisor that is >= 1 by construction: a positive constant, k (lb 1), or a
 * nonnegative-shaped subtree plus one; now and then an arbitrary subtree, so that some
 * valuations are undefined (the simplified form must be defined wherever the raw is). */
static Raw *gen_divisor(Arena *a, uint64_t *s, int depth)
{
    int ch = (int)rng_range(s, 0, 11);
    if (ch >= 6 && ch != 11) ch = (int)rng_range(s, 0, 5);
    if (ch == 11 && depth > 0) return gen(a, s, depth, false);
    if (ch <= 1 || depth <= 0) {
        Raw *x = raw_new(a, R_CST, NULL, NULL);
        x->c = rng_range(s, 1, ch == 0 ? 4 : 40);
        return x;
    }
    if (ch == 2) {
        Raw *x = raw_new(a, R_VAR, NULL, NULL);
        x->v = VAR_K;
        return x;
    }
    Raw *one = raw_new(a, R_CST, NULL, NULL);
    one->c = 1;
    return raw_new(a, R_ADD, gen(a, s, depth, true), one);
}

static Raw *gen(Arena *a, uint64_t *s, int depth, bool nonneg)
{
    if (depth <= 0 || rng_range(s, 0, 9) < 3) {
        if (rng_range(s, 0, 1)) {
            Raw *x = raw_new(a, R_CST, NULL, NULL);
            x->c = rng_range(s, nonneg ? 0 : -5, 40);
            return x;
        }
        Raw *x = raw_new(a, R_VAR, NULL, NULL);
        x->v = (int)rng_range(s, 0, NVARS - 1);
        return x;
    }
    static const ROp any[] = {R_ADD, R_SUB, R_MUL, R_DIV, R_MOD, R_MIN, R_MAX, R_DIV, R_MOD, R_SUB};
    static const ROp nn[] = {R_ADD, R_MUL, R_DIV, R_MOD, R_MIN, R_MAX};
    ROp op = nonneg ? nn[rng_range(s, 0, 5)] : any[rng_range(s, 0, 9)];
    Raw *l = gen(a, s, depth - 1, nonneg);
    Raw *r = op == R_DIV || op == R_MOD ? gen_divisor(a, s, depth - 1) : gen(a, s, depth - 1, nonneg);
    return raw_new(a, op, l, r);
}

/* An upper bound of every coefficient and value the tree can produce (variables below
 * VAL_MAX), to keep the generated trees inside int64. */
enum { VAL_MAX = 3000 };
static double raw_bound(const Raw *x)
{
    switch (x->op) {
    case R_CST: return x->c < 0 ? -x->c + 1.0 : x->c + 1.0;
    case R_VAR: return VAL_MAX + 1.0;
    case R_ADD:
    case R_SUB:
    case R_MIN:
    case R_MAX: return raw_bound(x->l) + raw_bound(x->r);
    case R_MUL: return raw_bound(x->l) * raw_bound(x->r);
    case R_DIV:
    case R_MOD: return 4.0 * (raw_bound(x->l) + 1) * (raw_bound(x->r) + 1);
    }
    return 1e300;
}

/* Direct evaluation with floor semantics; false where undefined or overflowing. */
static bool raw_eval(const Raw *x, const int64_t *vals, int64_t *out)
{
    int64_t l, r;
    if (x->op == R_CST) return *out = x->c, true;
    if (x->op == R_VAR) return *out = vals[x->v], true;
    if (!raw_eval(x->l, vals, &l) || !raw_eval(x->r, vals, &r)) return false;
    switch (x->op) {
    case R_ADD: return !__builtin_add_overflow(l, r, out);
    case R_SUB: return !__builtin_sub_overflow(l, r, out);
    case R_MUL: return !__builtin_mul_overflow(l, r, out);
    case R_DIV:
    case R_MOD: {
        if (r <= 0) return false;
        int64_t q = l / r;
        if (l % r != 0 && l < 0) q--;
        *out = x->op == R_DIV ? q : l - q * r;
        return true;
    }
    case R_MIN: return *out = l < r ? l : r, true;
    case R_MAX: return *out = l > r ? l : r, true;
    default: return false;
    }
}

static void raw_print(StrBuf *b, const Raw *x)
{
    static const char *const ops[] = {"", "", " + ", " - ", " * ", " / ", " % "};
    switch (x->op) {
    case R_CST: sb_printf(b, "%lld", (long long)x->c); return;
    case R_VAR: sb_puts(b, var_names[x->v]); return;
    case R_MIN:
    case R_MAX:
        sb_puts(b, x->op == R_MIN ? "min(" : "max(");
        raw_print(b, x->l);
        sb_puts(b, ", ");
        raw_print(b, x->r);
        sb_putc(b, ')');
        return;
    default:
        sb_putc(b, '(');
        raw_print(b, x->l);
        sb_puts(b, ops[x->op]);
        raw_print(b, x->r);
        sb_putc(b, ')');
    }
}

static Nat *raw_build(Arena *a, const Raw *x, NatVar **vs)
{
    if (x->op == R_CST) return nat_cst(a, x->c);
    if (x->op == R_VAR) return nat_var(a, vs[x->v]);
    Nat *l = raw_build(a, x->l, vs), *r = raw_build(a, x->r, vs);
    switch (x->op) {
    case R_ADD: return nat_add(a, l, r);
    case R_SUB: return nat_sub(a, l, r);
    case R_MUL: return nat_mul(a, l, r);
    case R_DIV: return nat_div(a, l, r);
    case R_MOD: return nat_mod(a, l, r);
    case R_MIN: return nat_min(a, l, r);
    case R_MAX: return nat_max(a, l, r);
    default: return NULL;
    }
}

/* A valuation respecting the bounds: n >= 1 (so that i < n has a value), k >= 1,
 * 0 <= i < n, 2 <= t < 9; mostly small values, sometimes large ones. */
static void gen_vals(uint64_t *s, int64_t *v)
{
    bool big = rng_range(s, 0, 3) == 0;
    v[0] = rng_range(s, 1, big ? VAL_MAX : 40);
    v[1] = rng_range(s, 1, big ? 1100 : 12);
    v[2] = rng_range(s, 0, v[0] - 1);
    v[3] = rng_range(s, 2, 8);
}

static uint64_t test_seed(void)
{
    const char *e = getenv("PATC_NAT_SEED");
    return e && *e ? strtoull(e, NULL, 0) : UINT64_C(20240611);
}

enum { NTREES = 100000, NVALS = 8 };

/* The variables of the random trees: n, k >= 1, i < n, 2 <= t < 9. */
static void random_vars(Arena *a, NatVar *vs[NVARS])
{
    vs[0] = nat_newvar(a, "n", 0, NULL);
    vs[1] = nat_newvar(a, "k", 1, NULL);
    vs[2] = nat_newvar(a, "i", 0, nat_var(a, vs[0]));
    vs[3] = nat_newvar(a, "t", 2, nat_cst(a, 9));
}

START_TEST(test_random_trees)
{
    uint64_t seed = test_seed(), s = seed;
    long trees = 0, compared = 0, ccompared = 0, fails = 0, cfails = 0, undefined = 0;
    while (trees < NTREES) {
        Arena *a = arena_new();
        NatVar *vs[NVARS];
        random_vars(a, vs);
        Raw *raw = gen(a, &s, (int)rng_range(&s, 1, 5), false);
        if (raw_bound(raw) > 1e12) {
            arena_free(a);
            continue;
        }
        trees++;
        Nat *x = raw_build(a, raw, vs);
        StrBuf cb = {0};
        nat_print_c(a, &cb, x);
        for (int j = 0; j < NVALS; j++) {
            int64_t vals[NVARS], want, got;
            gen_vals(&s, vals);
            if (!raw_eval(raw, vals, &want)) {
                undefined++;
                continue;
            }
            compared++;
            bool ok = eval4(x, vs, vals, NVARS, &got) && got == want;
            long long cv, lv[NVARS] = {vals[0], vals[1], vals[2], vals[3]};
            char err[128] = "";
            bool cok = cexpr_eval(cb.s, (const char **)var_names, lv, NVARS, &cv, err, sizeof err) && cv == want;
            ccompared++;
            if (!ok) fails++;
            if (!cok) cfails++;
            if ((!ok || !cok) && fails + cfails <= 10) {
                StrBuf rb = {0};
                raw_print(&rb, raw);
                fprintf(stderr,
                        "seed %" PRIu64 " tree %ld: %s\n  normal form: %s\n  C: %s\n"
                        "  at n=%" PRId64 " k=%" PRId64 " i=%" PRId64 " t=%" PRId64 ": want %" PRId64
                        ", nat_eval %s %" PRId64 ", C %s %lld %s\n",
                        seed, trees, rb.s, nat_str(a, x), cb.s, vals[0], vals[1], vals[2], vals[3], want,
                        ok ? "ok" : "BAD", got, cok ? "ok" : "BAD", cv, err);
                sb_free(&rb);
            }
        }
        sb_free(&cb);
        arena_free(a);
    }
    printf("nat property test: seed %" PRIu64 ", %ld trees, %ld valuations compared (%ld undefined skipped), "
           "%ld C texts evaluated; %ld nat_eval and %ld C mismatches\n",
           seed, trees, compared, undefined, ccompared, fails, cfails);
    fflush(stdout); /* Check's forked child may exit before stdio would flush */
    ck_assert_int_eq(trees, NTREES);
    ck_assert(compared > NTREES * 4);
    ck_assert(undefined > 0);
    ck_assert_int_eq(fails, 0);
    ck_assert_int_eq(cfails, 0);
}
END_TEST

/* Normalisation is idempotent on random trees: rebuilding a normal form through the
 * constructors (substituting each variable by itself) gives the same form. */
START_TEST(test_random_idempotent)
{
    uint64_t seed = test_seed() ^ 0x5eed, s = seed;
    long bad = 0, trees = 0, noneq = 0;
    while (trees < 20000) {
        Arena *a = arena_new();
        NatVar *vs[NVARS];
        random_vars(a, vs);
        Raw *raw = gen(a, &s, (int)rng_range(&s, 1, 4), false);
        if (raw_bound(raw) > 1e12) {
            arena_free(a);
            continue;
        }
        trees++;
        Nat *x = raw_build(a, raw, vs);
        Nat *m = nat_var(a, nat_newvar(a, "fresh", 0, NULL));
        /* subst rebuilds every node that mentions n through the constructors */
        Nat *y = nat_subst(a, nat_subst(a, x, vs[0], m), m->var, nat_var(a, vs[0]));
        int64_t vals[NVARS], u, w;
        gen_vals(&s, vals);
        if (!nat_equal(x, y)) {
            noneq++;
            if (noneq < 5) fprintf(stderr, "not idempotent: %s vs %s\n", nat_str(a, x), nat_str(a, y));
        }
        if (eval4(x, vs, vals, NVARS, &u) && (!eval4(y, vs, vals, NVARS, &w) || u != w)) {
            if (bad++ < 5) fprintf(stderr, "seed %" PRIu64 ": rebuild changed the value: %s vs %s\n", seed,
                                   nat_str(a, x), nat_str(a, y));
        }
        arena_free(a);
    }
    printf("nat rebuild test: %ld trees, %ld normal forms changed by rebuilding\n", trees, noneq);
    fflush(stdout);
    ck_assert_int_eq(bad, 0);
    /* the form is not complete, but rebuilding should almost never change it */
    ck_assert_msg(noneq * 1000 <= trees, "%ld of %ld normal forms changed by rebuilding", noneq, trees);
}
END_TEST

/* ---------------------------------------------------------------- suite */

static Suite *nat_suite(void)
{
    Suite *s = suite_create("nat");
    TCase *u = tcase_create("rules");
    tcase_add_test(u, test_const_fold);
    tcase_add_test(u, test_like_terms);
    tcase_add_test(u, test_equal_order);
    tcase_add_test(u, test_div_rules);
    tcase_add_test(u, test_padding_divides);
    tcase_add_test(u, test_subst_mentions);
    tcase_add_test(u, test_prove);
    tcase_add_test(u, test_eval);
    tcase_add_test(u, test_print);
    tcase_add_test(u, test_cexpr);
    suite_add_tcase(s, u);
    TCase *p = tcase_create("padding");
    tcase_set_timeout(p, 300);
    tcase_add_loop_test(p, test_padding_exhaustive, 0, (int)(sizeof pad_ks / sizeof pad_ks[0]));
    tcase_add_test(p, test_padding_symbolic);
    suite_add_tcase(s, p);
    TCase *r = tcase_create("random");
    tcase_set_timeout(r, 600);
    tcase_add_test(r, test_random_trees);
    tcase_add_test(r, test_random_idempotent);
    suite_add_tcase(s, r);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(nat_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
