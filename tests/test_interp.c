/* test_interp.c: Check suite for the CPU interpreter (interp/interp.c).
 *
 * Expr trees are built by hand with the typed builders below (each computes the
 * result type the way typecheck would). Every expected value is computed in the test by
 * an explicit loop, never by running the interpreter a second time. */
#include "../interp/interp.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- builders */

static Arena *A; /* one per test, see setup/teardown */

static void setup(void) { A = arena_new(); }
static void teardown(void) { arena_free(A); }

static Nat *C(int64_t v) { return nat_cst(A, v); }
static Type *S(ScalarKind sk) { return ty_scalar(A, sk); }
static Type *ARR(Nat *n, Type *t) { return ty_array(A, n, t); }
static Type *ARRC(int64_t n, Type *t) { return ty_array(A, C(n), t); }
static Type *IDX(int64_t n) { return ty_idx(A, C(n)); }
static Type *EL(Type *t) { return t->arr.elem; }
static Nat *LEN(Type *t) { return t->arr.n; }

static Binder *B(const char *name, Type *ty)
{
    Binder *b = ANEW(A, Binder);
    b->name = name;
    b->ty = ty;
    b->id = arena_next_id(A);
    return b;
}

static Expr *mk(ExprKind k, Type *ty)
{
    Expr *e = ANEW(A, Expr);
    e->kind = k;
    e->ty = ty;
    return e;
}

static Expr *V(Binder *b)
{
    Expr *e = mk(E_VAR, b->ty);
    e->var.b = b;
    return e;
}

static Expr *LF32(double v) { Expr *e = mk(E_LIT, S(SK_F32)); e->lit.f = v; return e; }
static Expr *LF64(double v) { Expr *e = mk(E_LIT, S(SK_F64)); e->lit.f = v; return e; }
static Expr *LI32(int64_t v) { Expr *e = mk(E_LIT, S(SK_I32)); e->lit.i = v; return e; }
static Expr *LI64(int64_t v) { Expr *e = mk(E_LIT, S(SK_I64)); e->lit.i = v; return e; }
static Expr *LU32(uint64_t v) { Expr *e = mk(E_LIT, S(SK_U32)); e->lit.u = v; return e; }
static Expr *LU64(uint64_t v) { Expr *e = mk(E_LIT, S(SK_U64)); e->lit.u = v; return e; }
static Expr *LB(bool v) { Expr *e = mk(E_LIT, S(SK_BOOL)); e->lit.b = v; return e; }

static Expr *NATE(Nat *n, Type *ty)
{
    Expr *e = mk(E_NAT, ty);
    e->nat.n = n;
    return e;
}

static Expr *P(Prim p, Type *ty, Nat *n0, Nat *n1, Expr *a0, Expr *a1, Expr *a2)
{
    Expr *e = mk(E_PRIM, ty);
    e->prim.p = p;
    e->prim.nats[0] = n0;
    e->prim.nats[1] = n1;
    e->prim.args[0] = a0;
    e->prim.args[1] = a1;
    e->prim.args[2] = a2;
    return e;
}

static Expr *LAM(Binder *x, Expr *body)
{
    Expr *e = mk(E_LAM, ty_fun(A, x->ty, body->ty));
    e->lam.param = x;
    e->lam.body = body;
    return e;
}

static Expr *LET(Binder *x, Expr *value, Expr *body)
{
    Expr *e = mk(E_LET, body->ty);
    e->let.x = x;
    e->let.value = value;
    e->let.body = body;
    return e;
}

/* comparisons and && || give bool; arithmetic has the left operand's type, idx as i32 */
static Expr *BIN(BinOp op, Expr *l, Expr *r)
{
    Type *t = op >= OP_LT ? S(SK_BOOL) : l->ty->kind == T_IDX ? S(SK_I32) : l->ty;
    Expr *e = mk(E_BIN, t);
    e->bin.op = op;
    e->bin.l = l;
    e->bin.r = r;
    return e;
}

static Expr *UN(UnOp op, Expr *x)
{
    Expr *e = mk(E_UN, x->ty);
    e->un.op = op;
    e->un.e = x;
    return e;
}

/* the typed primitives */
static Expr *split(Nat *k, Expr *a)
{
    return P(P_SPLIT, ARR(nat_div(A, LEN(a->ty), k), ARR(k, EL(a->ty))), k, NULL, a, NULL, NULL);
}
static Expr *join(Expr *a)
{
    return P(P_JOIN, ARR(nat_mul(A, LEN(a->ty), LEN(EL(a->ty))), EL(EL(a->ty))), NULL, NULL, a, NULL, NULL);
}
static Expr *transpose(Expr *a)
{
    return P(P_TRANSPOSE, ARR(LEN(EL(a->ty)), ARR(LEN(a->ty), EL(EL(a->ty)))), NULL, NULL, a, NULL, NULL);
}
static Expr *padcst(Nat *l, Nat *r, Expr *v, Expr *a)
{
    Type *t = ARR(nat_add(A, nat_add(A, l, LEN(a->ty)), r), EL(a->ty));
    return P(P_PADCST, t, l, r, v, a, NULL);
}
static Expr *padclamp(Nat *l, Nat *r, Expr *a)
{
    Type *t = ARR(nat_add(A, nat_add(A, l, LEN(a->ty)), r), EL(a->ty));
    return P(P_PADCLAMP, t, l, r, a, NULL, NULL);
}
static Expr *take(Nat *k, Expr *a) { return P(P_TAKE, ARR(k, EL(a->ty)), k, NULL, a, NULL, NULL); }
static Expr *drop(Nat *k, Expr *a)
{
    return P(P_DROP, ARR(nat_sub(A, LEN(a->ty), k), EL(a->ty)), k, NULL, a, NULL, NULL);
}
static Expr *slide(Nat *sz, Nat *sp, Expr *a)
{
    Nat *n = nat_add(A, C(1), nat_div(A, nat_sub(A, LEN(a->ty), sz), sp));
    return P(P_SLIDE, ARR(n, ARR(sz, EL(a->ty))), sz, sp, a, NULL, NULL);
}
static Expr *zip(Expr *a, Expr *b)
{
    return P(P_ZIP, ARR(LEN(a->ty), ty_pair(A, EL(a->ty), EL(b->ty))), NULL, NULL, a, b, NULL);
}
static Expr *unzip(Expr *z)
{
    Type *pt = EL(z->ty);
    Type *t = ty_pair(A, ARR(LEN(z->ty), pt->pair.a), ARR(LEN(z->ty), pt->pair.b));
    return P(P_UNZIP, t, NULL, NULL, z, NULL, NULL);
}
static Expr *pair(Expr *x, Expr *y) { return P(P_PAIR, ty_pair(A, x->ty, y->ty), NULL, NULL, x, y, NULL); }
static Expr *fst(Expr *p) { return P(P_FST, p->ty->pair.a, NULL, NULL, p, NULL, NULL); }
static Expr *snd(Expr *p) { return P(P_SND, p->ty->pair.b, NULL, NULL, p, NULL, NULL); }
/* generate(fun(i: idx[n] => body)); the caller made i with IDX(n) */
static Expr *generate(Binder *i, Expr *body)
{
    return P(P_GENERATE, ARR(i->ty->idx.n, body->ty), NULL, NULL, LAM(i, body), NULL, NULL);
}
static Expr *map(Prim p, Binder *x, Expr *body, Expr *a)
{
    return P(p, ARR(LEN(a->ty), body->ty), NULL, NULL, LAM(x, body), a, NULL);
}
static Expr *reduce(Prim p, Binder *acc, Binder *x, Expr *body, Expr *init, Expr *a)
{
    return P(p, init->ty, NULL, NULL, LAM(acc, LAM(x, body)), init, a);
}
static Expr *un1(Prim p, Expr *a) { return P(p, a->ty, NULL, NULL, a, NULL, NULL); }
static Expr *shfl(Prim p, int64_t d, Expr *a) { return P(p, a->ty, C(d), NULL, a, NULL, NULL); }
static Expr *shflwarp(Expr *src, Expr *a) { return P(P_SHFLWARP, a->ty, NULL, NULL, src, a, NULL); }
static Expr *arith(Prim p, Expr *x, Expr *y) { return P(p, x->ty, NULL, NULL, x, y, NULL); }

/* sum of an array of f32/i32 with reduceSeq(add) */
static Expr *sum(Expr *a, Expr *zero)
{
    Binder *acc = B("acc", zero->ty), *x = B("x", EL(a->ty));
    return reduce(P_REDUCESEQ, acc, x, arith(P_ADD, V(acc), V(x)), zero, a);
}

static KernelDef *K(Expr *body, int np, Binder **params, int nn, NatVar **nats)
{
    KernelDef *k = ANEW(A, KernelDef);
    k->name = "k";
    k->body = body;
    k->params = params;
    k->nparams = np;
    k->nats = nats;
    k->nnats = nn;
    return k;
}

/* Runs a kernel of one parameter p and no nats. */
static bool run1(Expr *body, Binder *p, const void *in, void *out, char *err)
{
    Binder **ps = ANEWN(A, Binder *, 1);
    ps[0] = p;
    const void *ins[1] = {in};
    return interp_kernel(K(body, 1, ps, 0, NULL), NULL, ins, out, err, 256);
}

/* Runs a kernel of no parameters and no nats. */
static bool run0(Expr *body, void *out, char *err) { return interp_kernel(K(body, 0, NULL, 0, NULL), NULL, NULL, out, err, 256); }

static void iota(int32_t *a, int n, int32_t base)
{
    for (int i = 0; i < n; i++) a[i] = base + i;
}

/* ---------------------------------------------------------------- views */

/* split(k)(a)[i][j] = a[i*k + j] */
START_TEST(test_split)
{
    int32_t in[12], out[12], sums[3];
    char err[256];
    iota(in, 12, 100);
    Binder *a = B("a", ARRC(12, S(SK_I32)));
    ck_assert(run1(split(C(4), V(a)), a, in, out, err));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) ck_assert_int_eq(out[i * 4 + j], in[i * 4 + j]);
    /* row sums see the rows of split */
    Binder *r = B("r", ARRC(4, S(SK_I32)));
    ck_assert(run1(map(P_MAPSEQ, r, sum(V(r), LI32(0)), split(C(4), V(a))), a, in, sums, err));
    for (int i = 0; i < 3; i++) {
        int32_t s = 0;
        for (int j = 0; j < 4; j++) s += in[i * 4 + j];
        ck_assert_int_eq(sums[i], s);
    }
    /* column sums: transpose of split reads a[i*k + j] with i and j swapped */
    int32_t cols[4];
    Binder *c = B("c", ARRC(3, S(SK_I32)));
    ck_assert(run1(map(P_MAPSEQ, c, sum(V(c), LI32(0)), transpose(split(C(4), V(a)))), a, in, cols, err));
    for (int j = 0; j < 4; j++) ck_assert_int_eq(cols[j], in[j] + in[4 + j] + in[8 + j]);
}
END_TEST

/* join(a)[i] = a[i / m][i % m] */
START_TEST(test_join)
{
    int32_t in[12], out[12];
    char err[256];
    iota(in, 12, -5);
    Binder *a = B("a", ARRC(3, ARRC(4, S(SK_I32))));
    ck_assert(run1(join(V(a)), a, in, out, err));
    for (int i = 0; i < 12; i++) ck_assert_int_eq(out[i], in[i]);
    /* join(transpose(a))[i] = a[i % 3][i / 3] */
    ck_assert(run1(join(transpose(V(a))), a, in, out, err));
    for (int i = 0; i < 12; i++) ck_assert_int_eq(out[i], in[(i % 3) * 4 + i / 3]);
    /* join of a materialised 2D value */
    Binder *r = B("r", ARRC(4, S(SK_I32))), *x = B("x", S(SK_I32));
    Expr *m = map(P_MAPSEQ, r, map(P_MAPSEQ, x, BIN(OP_MUL, V(x), LI32(2)), V(r)), V(a));
    ck_assert(run1(join(m), a, in, out, err));
    for (int i = 0; i < 12; i++) ck_assert_int_eq(out[i], 2 * in[i]);
}
END_TEST

/* transpose(a)[i][j] = a[j][i] */
START_TEST(test_transpose)
{
    int32_t in[15], out[15];
    char err[256];
    iota(in, 15, 7);
    Binder *a = B("a", ARRC(3, ARRC(5, S(SK_I32))));
    ck_assert(run1(transpose(V(a)), a, in, out, err));
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 3; j++) ck_assert_int_eq(out[i * 3 + j], in[j * 5 + i]);
    ck_assert(run1(transpose(transpose(V(a))), a, in, out, err));
    for (int i = 0; i < 15; i++) ck_assert_int_eq(out[i], in[i]);
}
END_TEST

/* padCst(l)(r)(v)(a): l copies of v, then a, then r copies */
START_TEST(test_padcst)
{
    int32_t in[5], out[10];
    char err[256];
    iota(in, 5, 1);
    Binder *a = B("a", ARRC(5, S(SK_I32)));
    ck_assert(run1(padcst(C(2), C(3), LI32(-1), V(a)), a, in, out, err));
    int32_t want[10] = {-1, -1, 1, 2, 3, 4, 5, -1, -1, -1};
    for (int i = 0; i < 10; i++) ck_assert_int_eq(out[i], want[i]);
    /* padding a 2D array with an array-valued row: generate(i => 10*i) */
    int32_t in2[6], out2[12];
    iota(in2, 6, 50);
    Binder *m = B("m", ARRC(2, ARRC(3, S(SK_I32))));
    Binder *i = B("i", IDX(3));
    Expr *row = generate(i, BIN(OP_MUL, V(i), LI32(10)));
    ck_assert(run1(padcst(C(1), C(1), row, V(m)), m, in2, out2, err));
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 3; j++) {
            int32_t w = (r == 0 || r == 3) ? 10 * j : in2[(r - 1) * 3 + j];
            ck_assert_int_eq(out2[r * 3 + j], w);
        }
}
END_TEST

/* padClamp(l)(r)(a)[i] = a[clamp(i - l, 0, n-1)] */
START_TEST(test_padclamp)
{
    int32_t in[4] = {3, 1, 4, 1}, out[9];
    char err[256];
    Binder *a = B("a", ARRC(4, S(SK_I32)));
    ck_assert(run1(padclamp(C(2), C(3), V(a)), a, in, out, err));
    for (int i = 0; i < 9; i++) {
        int k = i - 2 < 0 ? 0 : i - 2 > 3 ? 3 : i - 2;
        ck_assert_int_eq(out[i], in[k]);
    }
    ck_assert_int_eq(out[0], 3);
    ck_assert_int_eq(out[8], 1);
}
END_TEST

/* take(k)(a) = a[0..k); drop(k)(a) = a[k..n) */
START_TEST(test_take_drop)
{
    int32_t in[7], out[7];
    char err[256];
    iota(in, 7, 20);
    Binder *a = B("a", ARRC(7, S(SK_I32)));
    ck_assert(run1(take(C(3), V(a)), a, in, out, err));
    for (int i = 0; i < 3; i++) ck_assert_int_eq(out[i], in[i]);
    ck_assert(run1(drop(C(3), V(a)), a, in, out, err));
    for (int i = 0; i < 4; i++) ck_assert_int_eq(out[i], in[3 + i]);
    /* take(2)(drop(3)(a)) and take on a materialised array */
    ck_assert(run1(take(C(2), drop(C(3), V(a))), a, in, out, err));
    ck_assert_int_eq(out[0], 23);
    ck_assert_int_eq(out[1], 24);
    Binder *x = B("x", S(SK_I32));
    ck_assert(run1(drop(C(5), map(P_MAPSEQ, x, BIN(OP_ADD, V(x), LI32(1)), V(a))), a, in, out, err));
    ck_assert_int_eq(out[0], 26);
    ck_assert_int_eq(out[1], 27);
}
END_TEST

/* slide(sz)(sp)(a)[i][j] = a[i*sp + j], 1 + (n - sz)/sp windows */
START_TEST(test_slide)
{
    int32_t in[9], out[64];
    char err[256];
    iota(in, 9, 1);
    Binder *a = B("a", ARRC(9, S(SK_I32)));
    Expr *s = slide(C(3), C(2), V(a));
    ck_assert_int_eq(s->ty->arr.n->cst, 4);
    ck_assert(run1(s, a, in, out, err));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) ck_assert_int_eq(out[i * 3 + j], in[i * 2 + j]);
    /* a 3-point stencil: slide(3)(1) then sum each window */
    Binder *w = B("w", ARRC(3, S(SK_I32)));
    ck_assert(run1(map(P_MAPSEQ, w, sum(V(w), LI32(0)), slide(C(3), C(1), V(a))), a, in, out, err));
    for (int i = 0; i < 7; i++) ck_assert_int_eq(out[i], in[i] + in[i + 1] + in[i + 2]);
}
END_TEST

/* zip(a, b)[i] = (a[i], b[i]); unzip(z) = (map fst z, map snd z) */
START_TEST(test_zip_unzip)
{
    float in[2][6], out[12];
    char err[256];
    for (int i = 0; i < 6; i++) in[0][i] = 0.5f * (float)i, in[1][i] = 3.0f - (float)i;
    Binder *a = B("a", ARRC(6, S(SK_F32))), *b = B("b", ARRC(6, S(SK_F32)));
    Binder *p = B("p", ty_pair(A, S(SK_F32), S(SK_F32)));
    Expr *body = map(P_MAPSEQ, p, BIN(OP_MUL, fst(V(p)), snd(V(p))), zip(V(a), V(b)));
    Binder *ps[2] = {a, b};
    const void *ins[2] = {in[0], in[1]};
    ck_assert(interp_kernel(K(body, 2, ps, 0, NULL), NULL, ins, out, err, sizeof err));
    for (int i = 0; i < 6; i++) ck_assert_float_eq(out[i], in[0][i] * in[1][i]);
    ck_assert(interp_kernel(K(snd(unzip(zip(V(a), V(b)))), 2, ps, 0, NULL), NULL, ins, out, err, sizeof err));
    for (int i = 0; i < 6; i++) ck_assert_float_eq(out[i], in[1][i]);
    ck_assert(interp_kernel(K(fst(unzip(zip(V(a), V(b)))), 2, ps, 0, NULL), NULL, ins, out, err, sizeof err));
    for (int i = 0; i < 6; i++) ck_assert_float_eq(out[i], in[0][i]);
    /* a materialised array of pairs (map producing pairs), then unzip */
    Binder *x = B("x", S(SK_F32));
    Expr *pairs = map(P_MAPSEQ, x, pair(V(x), BIN(OP_ADD, V(x), V(x))), V(a));
    ck_assert(interp_kernel(K(snd(unzip(pairs)), 2, ps, 0, NULL), NULL, ins, out, err, sizeof err));
    for (int i = 0; i < 6; i++) ck_assert_float_eq(out[i], in[0][i] + in[0][i]);
}
END_TEST

/* pair(x, y), fst, snd */
START_TEST(test_pair)
{
    char err[256];
    int32_t out[4];
    ck_assert(run0(fst(pair(LI32(7), LI32(9))), out, err));
    ck_assert_int_eq(out[0], 7);
    ck_assert(run0(snd(pair(LI32(7), LI32(9))), out, err));
    ck_assert_int_eq(out[0], 9);
    /* a pair of arrays, and a nested pair */
    int32_t in[4];
    iota(in, 4, 10);
    Binder *a = B("a", ARRC(4, S(SK_I32)));
    ck_assert(run1(snd(pair(LI32(1), take(C(2), V(a)))), a, in, out, err));
    ck_assert_int_eq(out[0], 10);
    ck_assert_int_eq(out[1], 11);
    ck_assert(run0(fst(snd(pair(LI32(1), pair(LI32(2), LI32(3))))), out, err));
    ck_assert_int_eq(out[0], 2);
}
END_TEST

/* generate(f)[i] = f(i), i < n */
START_TEST(test_generate)
{
    char err[256];
    int32_t out[10];
    Binder *i = B("i", IDX(10));
    ck_assert(run0(generate(i, BIN(OP_MUL, V(i), V(i))), out, err));
    for (int k = 0; k < 10; k++) ck_assert_int_eq(out[k], k * k);
    /* a nat parameter used as a value, and generate of arrays */
    NatVar *n = nat_newvar(A, "n", 0, NULL);
    Binder *j = B("j", IDX(3)), *k = B("k", IDX(2));
    Expr *body = generate(j, generate(k, BIN(OP_ADD, BIN(OP_MUL, V(j), NATE(nat_var(A, n), S(SK_I32))), V(k))));
    NatVar *ns[1] = {n};
    int64_t nv[1] = {100};
    ck_assert(interp_kernel(K(body, 0, NULL, 1, ns), nv, NULL, out, err, sizeof err));
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++) ck_assert_int_eq(out[a * 2 + b], a * 100 + b);
}
END_TEST

/* id(x) = x; toGlobal/toShared/toPrivate are the identity */
START_TEST(test_id_to)
{
    char err[256];
    int32_t in[5], out[5];
    iota(in, 5, 3);
    Binder *a = B("a", ARRC(5, S(SK_I32)));
    Prim ps[] = {P_ID, P_TOGLOBAL, P_TOSHARED, P_TOPRIVATE};
    for (int k = 0; k < 4; k++) {
        memset(out, 0, sizeof out);
        ck_assert(run1(un1(ps[k], V(a)), a, in, out, err));
        for (int i = 0; i < 5; i++) ck_assert_int_eq(out[i], in[i]);
    }
    ck_assert(run0(un1(P_TOPRIVATE, LI32(42)), out, err));
    ck_assert_int_eq(out[0], 42);
    /* toPrivateFun(f)(x) = toPrivate(f(x)) */
    Binder *x = B("x", ARRC(5, S(SK_I32))), *y = B("y", S(SK_I32));
    Expr *f = LAM(x, map(P_MAPSEQ, y, BIN(OP_SUB, V(y), LI32(3)), V(x)));
    ck_assert(run1(P(P_TOPRIVATEFUN, f->ty->fun.ret, NULL, NULL, f, V(a), NULL), a, in, out, err));
    for (int i = 0; i < 5; i++) ck_assert_int_eq(out[i], i);
    /* toSharedFun(f)(x) = toShared(f(x)) */
    Binder *x2 = B("x", ARRC(5, S(SK_I32))), *y2 = B("y", S(SK_I32));
    Expr *g = LAM(x2, map(P_MAPSEQ, y2, BIN(OP_MUL, V(y2), V(y2)), V(x2)));
    ck_assert(run1(P(P_TOSHAREDFUN, g->ty->fun.ret, NULL, NULL, g, V(a), NULL), a, in, out, err));
    for (int i = 0; i < 5; i++) ck_assert_int_eq(out[i], in[i] * in[i]);
}
END_TEST

/* map*(f)(a)[i] = f(a[i]) for every map level */
START_TEST(test_maps)
{
    char err[256];
    float in[33], out[33];
    for (int i = 0; i < 33; i++) in[i] = (float)i * 0.25f - 2.0f;
    Prim ps[] = {P_MAPSEQ, P_MAPSEQUNROLL, P_MAPGLOBAL, P_MAPBLOCK, P_MAPTHREADS, P_MAPWARP, P_MAPLANE};
    for (int k = 0; k < 7; k++) {
        Binder *a = B("a", ARRC(33, S(SK_F32))), *x = B("x", S(SK_F32));
        memset(out, 0, sizeof out);
        ck_assert(run1(map(ps[k], x, BIN(OP_ADD, BIN(OP_MUL, V(x), V(x)), LF32(1)), V(a)), a, in, out, err));
        for (int i = 0; i < 33; i++) ck_assert_float_eq(out[i], in[i] * in[i] + 1.0f);
    }
    /* nested maps over a split: mapBlock(mapThreads(x * row index)) */
    Binder *a = B("a", ARRC(33, S(SK_F32)));
    Binder *r = B("r", ARRC(11, S(SK_F32))), *x = B("x", S(SK_F32));
    Expr *inner = map(P_MAPTHREADS, x, BIN(OP_MUL, V(x), LF32(2)), V(r));
    ck_assert(run1(join(map(P_MAPBLOCK, r, inner, split(C(11), V(a)))), a, in, out, err));
    for (int i = 0; i < 33; i++) ck_assert_float_eq(out[i], 2.0f * in[i]);
    /* rows of length 0: nothing to compute, nothing to write */
    Binder *e = B("e", ARRC(2, ARRC(0, S(SK_F32)))), *er = B("er", ARRC(0, S(SK_F32)));
    Binder *ex = B("ex", S(SK_F32));
    out[0] = 9;
    ck_assert(run1(map(P_MAPSEQ, er, map(P_MAPSEQ, ex, V(ex), V(er)), V(e)), e, in, out, err));
    ck_assert_float_eq(out[0], 9);
}
END_TEST

/* reduceSeq(f)(init)(a) = f(...f(f(init, a0), a1)..., a[n-1]) */
START_TEST(test_reduce)
{
    char err[256];
    int32_t in[6] = {3, 1, 4, 1, 5, 9}, out[4];
    Prim ps[] = {P_REDUCESEQ, P_REDUCESEQUNROLL};
    for (int k = 0; k < 2; k++) {
        Binder *a = B("a", ARRC(6, S(SK_I32)));
        Binder *acc = B("acc", S(SK_I32)), *x = B("x", S(SK_I32));
        /* a left fold: acc*10 + x reads the digits in order */
        Expr *body = BIN(OP_ADD, BIN(OP_MUL, V(acc), LI32(10)), V(x));
        ck_assert(run1(reduce(ps[k], acc, x, body, LI32(7), V(a)), a, in, out, err));
        ck_assert_int_eq(out[0], 7314159);
        /* acc - x: not commutative either */
        Binder *acc2 = B("acc", S(SK_I32)), *x2 = B("x", S(SK_I32));
        ck_assert(run1(reduce(ps[k], acc2, x2, BIN(OP_SUB, V(acc2), V(x2)), LI32(100), V(a)), a, in, out, err));
        ck_assert_int_eq(out[0], 100 - 3 - 1 - 4 - 1 - 5 - 9);
    }
    /* an array accumulator: column sums of a 3x2 matrix by elementwise addition of rows */
    Binder *m = B("m", ARRC(3, ARRC(2, S(SK_I32))));
    Binder *acc = B("acc", ARRC(2, S(SK_I32))), *row = B("row", ARRC(2, S(SK_I32)));
    Binder *p = B("p", ty_pair(A, S(SK_I32), S(SK_I32)));
    Binder *i = B("i", IDX(2));
    Expr *body = map(P_MAPSEQ, p, BIN(OP_ADD, fst(V(p)), snd(V(p))), zip(V(acc), V(row)));
    Expr *init = generate(i, BIN(OP_MUL, V(i), LI32(1000)));
    ck_assert(run1(reduce(P_REDUCESEQ, acc, row, body, init, V(m)), m, in, out, err));
    ck_assert_int_eq(out[0], 0 + 3 + 4 + 5);
    ck_assert_int_eq(out[1], 1000 + 1 + 1 + 9);
    /* an empty array gives init */
    Binder *e = B("e", ARRC(0, S(SK_I32)));
    ck_assert(run1(sum(V(e), LI32(-4)), e, in, out, err));
    ck_assert_int_eq(out[0], -4);
}
END_TEST

/* scanSeq(f)(init)(a)[i] = f(a[i])(...f(a[0])(init)): the element first;
 * scanSeqExcl(f)(init)(a) = init, f(a[0])(init), ... (n elements, without the total) */
static Expr *scan(Prim p, Binder *x, Binder *acc, Expr *body, Expr *init, Expr *a)
{
    return P(p, ARR(LEN(a->ty), init->ty), NULL, NULL, LAM(x, LAM(acc, body)), init, a);
}

START_TEST(test_scan)
{
    char err[256];
    int32_t in[6] = {3, 1, 4, 1, 5, 9}, out[6];
    /* acc*10 + x: not commutative, so the order of the operator's arguments shows */
    Binder *a = B("a", ARRC(6, S(SK_I32)));
    Binder *x = B("x", S(SK_I32)), *acc = B("acc", S(SK_I32));
    Expr *body = BIN(OP_ADD, BIN(OP_MUL, V(acc), LI32(10)), V(x));
    ck_assert(run1(scan(P_SCANSEQ, x, acc, body, LI32(7), V(a)), a, in, out, err));
    int32_t incl[6] = {73, 731, 7314, 73141, 731415, 7314159};
    for (int i = 0; i < 6; i++) ck_assert_int_eq(out[i], incl[i]);
    Binder *x2 = B("x", S(SK_I32)), *acc2 = B("acc", S(SK_I32));
    body = BIN(OP_ADD, BIN(OP_MUL, V(acc2), LI32(10)), V(x2));
    ck_assert(run1(scan(P_SCANSEQEXCL, x2, acc2, body, LI32(7), V(a)), a, in, out, err));
    int32_t excl[6] = {7, 73, 731, 7314, 73141, 731415};
    for (int i = 0; i < 6; i++) ck_assert_int_eq(out[i], excl[i]);
    /* an array accumulator (the interpreter's scan takes any element type): running
     * column sums of a 3x2 matrix */
    Binder *m = B("m", ARRC(3, ARRC(2, S(SK_I32))));
    Binder *row = B("row", ARRC(2, S(SK_I32))), *cs = B("cs", ARRC(2, S(SK_I32)));
    Binder *p = B("p", ty_pair(A, S(SK_I32), S(SK_I32))), *i = B("i", IDX(2));
    Expr *add = map(P_MAPSEQ, p, BIN(OP_ADD, fst(V(p)), snd(V(p))), zip(V(cs), V(row)));
    Expr *init = generate(i, BIN(OP_MUL, V(i), LI32(1000)));
    ck_assert(run1(scan(P_SCANSEQ, row, cs, add, init, V(m)), m, in, out, err));
    int32_t cols[6] = {3, 1001, 3 + 4, 1001 + 1, 3 + 4 + 5, 1001 + 1 + 9};
    for (int k = 0; k < 6; k++) ck_assert_int_eq(out[k], cols[k]);
    /* an empty array gives an empty result, also exclusive */
    Binder *e = B("e", ARRC(0, S(SK_I32)));
    Binder *x3 = B("x", S(SK_I32)), *acc3 = B("acc", S(SK_I32));
    out[0] = 99;
    ck_assert(run1(scan(P_SCANSEQEXCL, x3, acc3, V(x3), LI32(-4), V(e)), e, in, out, err));
    ck_assert_int_eq(out[0], 99);
}
END_TEST

/* ---------------------------------------------------------------- shuffles */

static void lanes(float *a)
{
    for (int i = 0; i < 32; i++) a[i] = (float)(i * i) + 0.5f;
}

/* shflDownWarp(d)(a)[i] = a[i+d] if i+d <= 31 else a[i] */
START_TEST(test_shfl_down)
{
    char err[256];
    float in[32], out[32];
    lanes(in);
    Binder *a = B("a", ARRC(32, S(SK_F32)));
    ck_assert(run1(shfl(P_SHFLDOWN, 3, V(a)), a, in, out, err));
    for (int i = 0; i < 32; i++) ck_assert_float_eq(out[i], in[i + 3 <= 31 ? i + 3 : i]);
    ck_assert_float_eq(out[31], in[31]);
    /* the tree step of a warp reduction: a + shflDown(16)(a) */
    Binder *p = B("p", ty_pair(A, S(SK_F32), S(SK_F32)));
    Expr *step = map(P_MAPLANE, p, arith(P_ADD, fst(V(p)), snd(V(p))), zip(V(a), shfl(P_SHFLDOWN, 16, V(a))));
    ck_assert(run1(step, a, in, out, err));
    for (int i = 0; i < 32; i++) ck_assert_float_eq(out[i], in[i] + in[i < 16 ? i + 16 : i]);
}
END_TEST

/* shflUpWarp(d)(a)[i] = a[i-d] if i-d >= 0 else a[i] */
START_TEST(test_shfl_up)
{
    char err[256];
    float in[32], out[32];
    lanes(in);
    Binder *a = B("a", ARRC(32, S(SK_F32)));
    ck_assert(run1(shfl(P_SHFLUP, 5, V(a)), a, in, out, err));
    for (int i = 0; i < 32; i++) ck_assert_float_eq(out[i], in[i - 5 >= 0 ? i - 5 : i]);
    ck_assert_float_eq(out[4], in[4]);
    ck_assert_float_eq(out[5], in[0]);
}
END_TEST

/* shflXorWarp(m)(a)[i] = a[i xor m] */
START_TEST(test_shfl_xor)
{
    char err[256];
    float in[32], out[32];
    lanes(in);
    Binder *a = B("a", ARRC(32, S(SK_F32)));
    ck_assert(run1(shfl(P_SHFLXOR, 7, V(a)), a, in, out, err));
    for (int i = 0; i < 32; i++) ck_assert_float_eq(out[i], in[i ^ 7]);
    ck_assert(run1(shfl(P_SHFLXOR, 31, V(a)), a, in, out, err));
    ck_assert_float_eq(out[0], in[31]);
    ck_assert(!run1(shfl(P_SHFLXOR, 32, V(a)), a, in, out, err));
    ck_assert_ptr_nonnull(strstr(err, "shflXorWarp"));
}
END_TEST

/* shflWarp(src)(a)[i] = a[src[i]]: the non-broadcast pattern (5i + 3) mod 32 */
START_TEST(test_shfl_warp)
{
    char err[256];
    float in[32], out[32];
    lanes(in);
    Binder *a = B("a", ARRC(32, S(SK_F32)));
    Binder *i = B("i", IDX(32));
    Expr *src = generate(i, BIN(OP_MOD, BIN(OP_ADD, BIN(OP_MUL, LI32(5), V(i)), LI32(3)), LI32(32)));
    ck_assert(run1(shflwarp(src, V(a)), a, in, out, err));
    for (int k = 0; k < 32; k++) ck_assert_float_eq(out[k], in[(5 * k + 3) % 32]);
    ck_assert_float_eq(out[0], in[3]);
    ck_assert_float_eq(out[31], in[(5 * 31 + 3) % 32]);
    /* broadcast of lane 9 */
    Binder *j = B("j", IDX(32));
    ck_assert(run1(shflwarp(generate(j, LI32(9)), V(a)), a, in, out, err));
    for (int k = 0; k < 32; k++) ck_assert_float_eq(out[k], in[9]);
    /* a source lane outside the warp is a run-time error, not a crash */
    Binder *l = B("l", IDX(32));
    ck_assert(!run1(shflwarp(generate(l, BIN(OP_ADD, V(l), LI32(1))), V(a)), a, in, out, err));
    ck_assert_ptr_nonnull(strstr(err, "lane 31 reads lane 32"));
}
END_TEST

/* ---------------------------------------------------------------- scalars */

/* add/mul/min/max on i32 and f32 */
START_TEST(test_arith_prims)
{
    char err[256];
    int32_t o;
    float f;
    ck_assert(run0(arith(P_ADD, LI32(40), LI32(2)), &o, err));
    ck_assert_int_eq(o, 42);
    ck_assert(run0(arith(P_MUL, LI32(-6), LI32(7)), &o, err));
    ck_assert_int_eq(o, -42);
    ck_assert(run0(arith(P_MIN, LI32(-6), LI32(7)), &o, err));
    ck_assert_int_eq(o, -6);
    ck_assert(run0(arith(P_MAX, LI32(-6), LI32(7)), &o, err));
    ck_assert_int_eq(o, 7);
    ck_assert(run0(arith(P_MAX, LF32(1.5), LF32(-2.5)), &f, err));
    ck_assert_float_eq(f, 1.5f);
    ck_assert(run0(arith(P_MIN, LF32(1.5), LF32(-2.5)), &f, err));
    ck_assert_float_eq(f, -2.5f);
    uint32_t u;
    ck_assert(run0(arith(P_MAX, LU32(4000000000u), LU32(5)), &u, err));
    ck_assert_uint_eq(u, 4000000000u);
}
END_TEST

/* The scalar forms: select evaluates both sides and picks one (also whole arrays);
 * casts convert with C's rules (a float out of an integer's range is an error); the
 * math functions compute in the argument's type (expf for f32). neg, sub, ... are
 * E_UN/E_BIN after typecheck: test_operators covers them. */
static Expr *cast(ScalarKind to, Expr *x) { return P((Prim)(P_TO_F32 + (to - SK_F32)), S(to), NULL, NULL, x, NULL, NULL); }
static Expr *sel(Expr *c, Expr *a, Expr *b) { return P(P_SELECT, a->ty, NULL, NULL, c, a, b); }
START_TEST(test_scalar_forms)
{
    char err[256];
    int32_t o;
    float f;
    double d;
    bool b;
    ck_assert(run0(sel(LB(true), LI32(1), LI32(2)), &o, err));
    ck_assert_int_eq(o, 1);
    ck_assert(run0(sel(LB(false), LI32(1), LI32(2)), &o, err));
    ck_assert_int_eq(o, 2);
    /* both sides are evaluated: an error in the side not chosen is still an error */
    ck_assert(!run0(sel(LB(true), LI32(1), arith(P_ADD, LI32(1), BIN(OP_DIV, LI32(1), LI32(0)))), &o, err));
    ck_assert_msg(strstr(err, "division by zero"), "%s", err);
    /* on arrays: the whole array */
    Binder *i = B("i", IDX(4)), *j = B("j", IDX(4));
    int32_t arr[4];
    ck_assert(run0(sel(LB(false), generate(i, cast(SK_I32, V(i))), generate(j, LI32(7))), arr, err));
    ck_assert_int_eq(arr[0], 7);
    ck_assert_int_eq(arr[3], 7);
    i = B("i", IDX(4)), j = B("j", IDX(4));
    ck_assert(run0(sel(LB(true), generate(i, cast(SK_I32, V(i))), generate(j, LI32(7))), arr, err));
    ck_assert_int_eq(arr[3], 3);

    ck_assert(run0(cast(SK_I32, LF32(-2.75)), &o, err));
    ck_assert_int_eq(o, -2); /* toward zero */
    ck_assert(run0(cast(SK_I32, LI64(((int64_t)1 << 32) + 5)), &o, err));
    ck_assert_int_eq(o, 5); /* wraps */
    uint32_t u;
    ck_assert(run0(cast(SK_U32, LI32(-1)), &u, err));
    ck_assert_uint_eq(u, 4294967295u);
    ck_assert(run0(cast(SK_F32, LU32(4294967295u)), &f, err));
    ck_assert_float_eq(f, 4294967296.0f);
    ck_assert(run0(cast(SK_BOOL, LF32(0.25)), &b, err));
    ck_assert(b);
    ck_assert(run0(cast(SK_BOOL, LI32(0)), &b, err));
    ck_assert(!b);
    ck_assert(run0(cast(SK_F64, LB(true)), &d, err));
    ck_assert(d == 1.0);
    ck_assert(!run0(cast(SK_I32, LF32(3e9)), &o, err));
    ck_assert_msg(strstr(err, "outside the range of i32"), "%s", err);
    ck_assert(!run0(cast(SK_U32, LF64(-1.0)), &u, err));

    ck_assert(run0(un1(P_EXP, LF32(1.0)), &f, err));
    ck_assert_float_eq(f, expf(1.0f));
    ck_assert(run0(un1(P_EXP, LF64(1.0)), &d, err));
    ck_assert(d == exp(1.0));
    ck_assert(run0(un1(P_RSQRT, LF32(4.0)), &f, err));
    ck_assert_float_eq(f, 0.5f);
    ck_assert(run0(un1(P_ABS, LI32(-5)), &o, err));
    ck_assert_int_eq(o, 5);
    ck_assert(run0(un1(P_ABS, LI32(INT32_MIN)), &o, err));
    ck_assert_int_eq(o, INT32_MIN); /* wraps, as CUDA's abs */
    ck_assert(run0(un1(P_FLOOR, LF32(-1.5)), &f, err));
    ck_assert_float_eq(f, -2.0f);
    ck_assert(run0(arith(P_POW, LF32(2.0), LF32(10.0)), &f, err));
    ck_assert_float_eq(f, 1024.0f);
    ck_assert(run0(P(P_FMA, S(SK_F64), NULL, NULL, LF64(2.0), LF64(3.0), LF64(1.0)), &d, err));
    ck_assert(d == 7.0);
    ck_assert(run0(un1(P_ERF, LF32(0.5)), &f, err));
    ck_assert_float_eq(f, erff(0.5f));
}
END_TEST

/* C semantics: truncating / and %, comparisons to bool, && || short-circuit, unary ops */
START_TEST(test_operators)
{
    char err[256];
    int32_t o;
    bool b;
    ck_assert(run0(BIN(OP_DIV, LI32(-7), LI32(2)), &o, err));
    ck_assert_int_eq(o, -7 / 2);
    ck_assert(run0(BIN(OP_MOD, LI32(-7), LI32(2)), &o, err));
    ck_assert_int_eq(o, -7 % 2);
    ck_assert(run0(BIN(OP_LT, LI32(-1), LI32(0)), &b, err));
    ck_assert(b);
    ck_assert(run0(BIN(OP_LT, LU32(4294967295u), LU32(0)), &b, err));
    ck_assert(!b);
    ck_assert(run0(BIN(OP_GE, LF64(2.0), LF64(2.0)), &b, err));
    ck_assert(b);
    ck_assert(run0(BIN(OP_NE, LI32(3), LI32(3)), &b, err));
    ck_assert(!b);
    /* false && 1/0 == 0 does not divide */
    ck_assert(run0(BIN(OP_AND, LB(false), BIN(OP_EQ, BIN(OP_DIV, LI32(1), LI32(0)), LI32(0))), &b, err));
    ck_assert(!b);
    ck_assert(run0(BIN(OP_OR, LB(false), LB(true)), &b, err));
    ck_assert(b);
    ck_assert(run0(UN(UOP_NEG, LI32(5)), &o, err));
    ck_assert_int_eq(o, -5);
    ck_assert(run0(UN(UOP_NOT, LB(false)), &b, err));
    ck_assert(b);
    /* a bool array output is one byte per element */
    int32_t in[4] = {1, 5, 2, 8};
    unsigned char bo[4];
    Binder *a = B("a", ARRC(4, S(SK_I32))), *x = B("x", S(SK_I32));
    ck_assert(run1(map(P_MAPSEQ, x, BIN(OP_GT, V(x), LI32(2)), V(a)), a, in, bo, err));
    for (int i = 0; i < 4; i++) ck_assert_int_eq(bo[i], in[i] > 2);
}
END_TEST

/* The kernel named `name` of a compiled program, for interp_kernel. */
static const KernelDef *def_of(TC *t, const char *name)
{
    for (int i = 0; i < t->c.ndefs; i++)
        if (strcmp(t->c.defs[i]->name, name) == 0) return t->c.defs[i];
    ck_abort_msg("no kernel %s", name);
    return NULL;
}

/* Runs kernel `name` of t on one f32 array of n elements into out. */
static void run_f32(TC *t, const char *name, const float *in, int64_t n, float *out)
{
    const void *ins[1] = {in};
    char err[256];
    ck_assert_msg(interp_kernel(def_of(t, name), &n, ins, out, err, sizeof err), "%s: %s", name, err);
}

/* inff, nanf (inf, nan for f64) are the values C's INFINITY and NAN name; -inff the
 * negation. Arithmetic and comparisons on them are C's; min and max are fminf/fmaxf
 * (what the CUDA code calls): a NaN operand gives the other operand, so a max skips
 * NaN elements and is NaN only when both are. A max with -inff as its neutral element
 * over elements that are all -inf is -inf (it was -3.40282347e38 with that number as
 * the neutral element: issue 33), as are the examples' reductions of such elements. */
START_TEST(test_inf_nan)
{
    TC *t = tc_compile(
        "kernel maxAll = nFun(n => fun(n.f32)(xs => xs |> split(n) |> mapGlobal(reduceSeq(max)(-inff))))\n"
        "kernel minAll = nFun(n => fun(n.f32)(xs => xs |> split(n) |> mapGlobal(reduceSeq(min)(inff))))\n"
        "kernel maxNanInit = nFun(n => fun(n.f32)(xs => xs |> split(n) |> mapGlobal(reduceSeq(max)(nanf))))\n"
        "kernel ops = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x =>\n"
        "  max(x)(nanf) + min(nanf)(x) + f32(x + nanf == x + nanf) + f32(nanf != nanf) + f32(-inff < x)))))\n"
        "kernel sums = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x + inff))))\n"
        "kernel nanOf = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 0.0f + select(x > 0.0f)(nanf)(-nanf)))))\n"
        "kernel f64s = nFun(n => fun(n.f64)(xs => xs |> mapGlobal(fun(x => max(x)(-inf) + min(x)(inf) + max(nan)(x)))))\n");
    EXPECT_OK(t);
    float ninf[5] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY}, pinf[5] = {INFINITY, INFINITY, INFINITY,
                                                                                          INFINITY, INFINITY};
    float o, out[5];
    run_f32(t, "maxAll", ninf, 5, &o);
    ck_assert(isinf(o) && o < 0);
    run_f32(t, "minAll", pinf, 5, &o);
    ck_assert(isinf(o) && o > 0);
    float mixed[5] = {NAN, 2.5f, NAN, -1.0f, NAN}, nans[3] = {NAN, NAN, NAN};
    run_f32(t, "maxAll", mixed, 5, &o);
    ck_assert_float_eq(o, 2.5f); /* NaN elements skipped */
    run_f32(t, "maxAll", nans, 3, &o);
    ck_assert(isinf(o) && o < 0); /* all skipped: the neutral element */
    run_f32(t, "minAll", mixed, 5, &o);
    ck_assert_float_eq(o, -1.0f);
    run_f32(t, "maxNanInit", mixed, 5, &o);
    ck_assert_float_eq(o, 2.5f); /* a NaN initial value is dropped at the first element */
    run_f32(t, "maxNanInit", nans, 3, &o);
    ck_assert(isnan(o));
    /* x + x + 0 + 1 + 1 for finite x: max(x, NaN) = min(NaN, x) = x, NaN == NaN false */
    float fin[3] = {1.5f, -4.0f, 0.0f};
    run_f32(t, "ops", fin, 3, out);
    for (int i = 0; i < 3; i++) ck_assert_float_eq(out[i], 2 * fin[i] + 2);
    float some[3] = {1.0f, -INFINITY, NAN};
    run_f32(t, "sums", some, 3, out);
    ck_assert(isinf(out[0]) && out[0] > 0);
    ck_assert(isnan(out[1])); /* -inf + inf */
    ck_assert(isnan(out[2]));
    /* nanf is C's NAN, -nanf its negation (the sign bit set) */
    float pm[2] = {1.0f, -1.0f};
    run_f32(t, "nanOf", pm, 2, out);
    ck_assert(isnan(out[0]) && !signbit(out[0]));
    ck_assert(isnan(out[1]) && signbit(out[1]));
    double d[3] = {2.0, -INFINITY, NAN}, dout[3];
    const void *dins[1] = {d};
    int64_t n = 3;
    char err[256];
    ck_assert_msg(interp_kernel(def_of(t, "f64s"), &n, dins, dout, err, sizeof err), "%s", err);
    ck_assert(dout[0] == 6.0);                 /* 2 + 2 + 2 */
    ck_assert(isinf(dout[1]) && dout[1] < 0); /* -inf three times */
    ck_assert(isnan(dout[2]));                 /* -inf + inf + NaN */
    tc_free(t);

    /* the examples' max reductions (their padding is the neutral element) */
    size_t len;
    char *src = lang_read_file(PATC_SOURCE_DIR "/examples/reduce_fast.rise", &len);
    ck_assert_ptr_nonnull(src);
    Define shape[2] = {{"elemsBlock", 4096}, {"elemsWarp", 512}};
    t = tc_compile_named(PATC_SOURCE_DIR "/examples/reduce_fast.rise", src, shape, 2);
    free(src);
    EXPECT_OK(t);
    enum { N = 1000 };
    static float all[N];
    for (int i = 0; i < N; i++) all[i] = -INFINITY;
    run_f32(t, "reduceMaxF32OneBlock", all, N, &o);
    ck_assert(isinf(o) && o < 0);
    int64_t ng[2] = {N, 2};
    const void *ins[1] = {all};
    ck_assert_msg(interp_kernel(def_of(t, "reduceMaxF32"), ng, ins, &o, err, sizeof err), "%s", err);
    ck_assert(isinf(o) && o < 0);
    all[N / 2] = -5.0f;
    run_f32(t, "reduceMaxF32OneBlock", all, N, &o);
    ck_assert_float_eq(o, -5.0f);
    tc_free(t);
}
END_TEST

/* i32 and u32 wrap in 32 bits; i64 in 64 */
START_TEST(test_wraparound)
{
    char err[256];
    int32_t o;
    uint32_t u;
    int64_t l;
    ck_assert(run0(BIN(OP_ADD, LI32(2147483647), LI32(1)), &o, err));
    ck_assert_int_eq(o, INT32_MIN);
    ck_assert(run0(BIN(OP_MUL, LI32(65536), LI32(65536)), &o, err));
    ck_assert_int_eq(o, 0);
    ck_assert(run0(BIN(OP_MUL, LI32(65537), LI32(65537)), &o, err));
    ck_assert_int_eq(o, (int32_t)(65537u * 65537u));
    ck_assert(run0(BIN(OP_SUB, LU32(0), LU32(1)), &u, err));
    ck_assert_uint_eq(u, 4294967295u);
    ck_assert(run0(BIN(OP_ADD, LU32(4294967295u), LU32(2)), &u, err));
    ck_assert_uint_eq(u, 1);
    ck_assert(run0(BIN(OP_ADD, LI64(INT64_MAX), LI64(1)), &l, err));
    ck_assert(l == INT64_MIN);
    ck_assert(run0(BIN(OP_DIV, LI32(INT32_MIN), LI32(-1)), &o, err));
    ck_assert_int_eq(o, INT32_MIN);
    ck_assert(run0(UN(UOP_NEG, LI32(INT32_MIN)), &o, err));
    ck_assert_int_eq(o, INT32_MIN);
    /* division and remainder: u32 unsigned, i32 and i64 truncating toward zero */
    ck_assert(run0(BIN(OP_DIV, LU32(4294967295u), LU32(2)), &u, err));
    ck_assert_uint_eq(u, 2147483647u);
    ck_assert(run0(BIN(OP_MOD, LU32(4294967295u), LU32(10)), &u, err));
    ck_assert_uint_eq(u, 5);
    ck_assert(run0(BIN(OP_MOD, LI32(-7), LI32(3)), &o, err));
    ck_assert_int_eq(o, -1);
    ck_assert(run0(BIN(OP_DIV, LI32(-7), LI32(2)), &o, err));
    ck_assert_int_eq(o, -3);
    ck_assert(run0(BIN(OP_DIV, LI64(INT64_MIN), LI64(-1)), &l, err));
    ck_assert(l == INT64_MIN);
    ck_assert(run0(BIN(OP_MUL, LI64(3037000500LL), LI64(3037000500LL)), &l, err));
    ck_assert(l == (int64_t)(3037000500ULL * 3037000500ULL));
    /* sums of i32 inputs wrap too */
    int32_t in[3] = {2000000000, 2000000000, 1};
    Binder *a = B("a", ARRC(3, S(SK_I32)));
    ck_assert(run1(sum(V(a), LI32(0)), a, in, &o, err));
    ck_assert_int_eq(o, (int32_t)(4000000001u));
}
END_TEST

/* the bitwise operators with C's meaning in the operand type; a shift count outside
 * 0..width-1 (undefined in C) is a run-time error */
START_TEST(test_bitwise)
{
    char err[256];
    int32_t o;
    uint32_t u;
    int64_t l;
    uint64_t ul;
    ck_assert(run0(BIN(OP_BAND, LU32(0xF0F0u), LU32(0x0FF0u)), &u, err));
    ck_assert_uint_eq(u, 0x00F0u);
    ck_assert(run0(BIN(OP_BOR, LU32(0xF000u), LU32(0x000Fu)), &u, err));
    ck_assert_uint_eq(u, 0xF00Fu);
    ck_assert(run0(BIN(OP_BXOR, LI32(-1), LI32(5)), &o, err));
    ck_assert_int_eq(o, -6);
    ck_assert(run0(UN(UOP_BNOT, LU32(0)), &u, err));
    ck_assert_uint_eq(u, 4294967295u);
    ck_assert(run0(UN(UOP_BNOT, LI64(0)), &l, err));
    ck_assert(l == -1);
    /* << wraps in the type; >> of a signed value is arithmetic, of an unsigned one logical */
    ck_assert(run0(BIN(OP_SHL, LU32(3u), LU32(31)), &u, err));
    ck_assert_uint_eq(u, 0x80000000u);
    ck_assert(run0(BIN(OP_SHL, LI32(1), LI32(31)), &o, err));
    ck_assert_int_eq(o, INT32_MIN);
    ck_assert(run0(BIN(OP_SHR, LI32(-41), LI32(2)), &o, err));
    ck_assert_int_eq(o, -11);
    ck_assert(run0(BIN(OP_SHR, LU32(0x80000000u), LU32(31)), &u, err));
    ck_assert_uint_eq(u, 1);
    ck_assert(run0(BIN(OP_SHL, LU64(1), LU64(63)), &ul, err));
    ck_assert(ul == 0x8000000000000000ull);
    ck_assert(run0(BIN(OP_SHR, LI64(INT64_MIN), LI64(63)), &l, err));
    ck_assert(l == -1);
    ck_assert(!run0(BIN(OP_SHL, LU32(1), LU32(32)), &u, err));
    ck_assert_str_eq(err, "shl by 32: the count must be in 0..31 for u32");
    ck_assert(!run0(BIN(OP_SHR, LI32(1), LI32(-1)), &o, err));
    ck_assert_str_eq(err, "shr by -1: the count must be in 0..31 for i32");
    ck_assert(run0(BIN(OP_SHR, LI64(5), LI64(32)), &l, err));
    ck_assert(l == 0);
}
END_TEST

/* a zero integer divisor is a run-time error with a message, not a crash */
START_TEST(test_div_zero)
{
    char err[256];
    int32_t o;
    int32_t in[3] = {4, 0, 2};
    ck_assert(!run0(BIN(OP_DIV, LI32(1), LI32(0)), &o, err));
    ck_assert_str_eq(err, "division by zero");
    ck_assert(!run0(BIN(OP_MOD, LU32(1), LU32(0)), &o, err));
    ck_assert_str_eq(err, "remainder by zero");
    /* inside a map over data, with the position of the operator */
    static SrcFile file = {"t.rise", "", 0};
    Binder *a = B("a", ARRC(3, S(SK_I32))), *x = B("x", S(SK_I32));
    Expr *d = BIN(OP_DIV, LI32(12), V(x));
    d->sp = (Span){.file = &file, .line = 3, .col = 14};
    int32_t out[3];
    ck_assert(!run1(map(P_MAPSEQ, x, d, V(a)), a, in, out, err));
    ck_assert_str_eq(err, "t.rise:3:14: division by zero");
    /* float division by zero is IEEE, not an error */
    float f;
    ck_assert(run0(BIN(OP_DIV, LF32(1), LF32(0)), &f, err));
    ck_assert(isinf(f));
}
END_TEST

/* f32 arithmetic is done in float, f64 in double */
START_TEST(test_precision)
{
    char err[256];
    float f;
    double d;
    /* 2^24 + 1 is not a float */
    ck_assert(run0(BIN(OP_SUB, BIN(OP_ADD, LF32(16777216.0), LF32(1)), LF32(16777216.0)), &f, err));
    ck_assert_float_eq(f, 0.0f);
    ck_assert(run0(BIN(OP_SUB, BIN(OP_ADD, LF64(16777216.0), LF64(1)), LF64(16777216.0)), &d, err));
    ck_assert_double_eq(d, 1.0);
    /* 0.1f is rounded to float when the literal is read */
    ck_assert(run0(BIN(OP_MUL, LF32(0.1), LF32(3)), &f, err));
    ck_assert_float_eq(f, 0.1f * 3.0f);
    ck_assert(run0(BIN(OP_MUL, LF64(0.1), LF64(3)), &d, err));
    ck_assert_double_eq(d, 0.1 * 3.0);
    ck_assert(run0(BIN(OP_DIV, LF32(1), LF32(3)), &f, err));
    ck_assert(f == 1.0f / 3.0f && (double)f != 1.0 / 3.0);
}
END_TEST

/* let x = v evaluates v once and binds it; nat values of idx type act as i32 */
START_TEST(test_let_nat)
{
    char err[256];
    int32_t in[4] = {1, 2, 3, 4}, out[4];
    Binder *a = B("a", ARRC(4, S(SK_I32))), *x = B("x", S(SK_I32));
    Binder *m = B("m", ARRC(4, S(SK_I32))), *p = B("p", ty_pair(A, S(SK_I32), S(SK_I32)));
    Expr *sq = map(P_MAPSEQ, x, BIN(OP_MUL, V(x), V(x)), V(a));
    Expr *body = LET(m, sq, map(P_MAPSEQ, p, BIN(OP_SUB, fst(V(p)), snd(V(p))), zip(V(m), drop(C(0), V(m)))));
    ck_assert(run1(body, a, in, out, err));
    for (int i = 0; i < 4; i++) ck_assert_int_eq(out[i], 0);
    Binder *y = B("y", S(SK_I32));
    ck_assert(run1(LET(y, LI32(6), BIN(OP_MUL, V(y), V(y))), a, in, out, err));
    ck_assert_int_eq(out[0], 36);
    ck_assert(run0(BIN(OP_ADD, NATE(C(5), IDX(8)), LI32(1)), out, err));
    ck_assert_int_eq(out[0], 6);
}
END_TEST

/* a scalar parameter, and pair-typed parameters rejected with a message */
START_TEST(test_params)
{
    char err[256];
    float s = 2.5f, in[3] = {1, 2, 3}, out[3];
    Binder *k = B("k", S(SK_F32)), *a = B("a", ARRC(3, S(SK_F32))), *x = B("x", S(SK_F32));
    Binder *ps[2] = {k, a};
    const void *ins[2] = {&s, in};
    Expr *body = map(P_MAPSEQ, x, BIN(OP_MUL, V(x), V(k)), V(a));
    ck_assert(interp_kernel(K(body, 2, ps, 0, NULL), NULL, ins, out, err, sizeof err));
    for (int i = 0; i < 3; i++) ck_assert_float_eq(out[i], in[i] * s);
    Binder *q = B("q", ty_pair(A, S(SK_F32), S(SK_F32)));
    ck_assert(!run1(fst(V(q)), q, in, out, err));
    ck_assert_ptr_nonnull(strstr(err, "pair"));
}
END_TEST

/* a pair (nested pairs) result: leaf j to outs[j]; an array of pairs is refused */
START_TEST(test_outputs)
{
    char err[256];
    float s = 2.5f, in[3] = {1, 2, 3}, o0[3], o1[1], o2[3];
    Binder *k = B("k", S(SK_F32)), *a = B("a", ARRC(3, S(SK_F32))), *x = B("x", S(SK_F32)), *y = B("y", S(SK_F32));
    Binder *ps[2] = {k, a};
    const void *ins[2] = {&s, in};
    Expr *body = pair(map(P_MAPSEQ, x, BIN(OP_MUL, V(x), V(k)), V(a)),
                      pair(BIN(OP_ADD, V(k), LF32(1)), map(P_MAPSEQ, y, BIN(OP_ADD, V(y), V(y)), V(a))));
    void *outs[3] = {o0, o1, o2};
    ck_assert_msg(interp_kernel_outs(K(body, 2, ps, 0, NULL), NULL, ins, outs, err, sizeof err), "%s", err);
    for (int i = 0; i < 3; i++) ck_assert_float_eq(o0[i], in[i] * s);
    ck_assert_float_eq(o1[0], 3.5f);
    for (int i = 0; i < 3; i++) ck_assert_float_eq(o2[i], 2 * in[i]);
    /* a pair result through a variable: the same leaves */
    Binder *p = B("p", body->ty);
    memset(o0, 0, sizeof o0);
    memset(o2, 0, sizeof o2);
    ck_assert_msg(interp_kernel_outs(K(LET(p, body, V(p)), 2, ps, 0, NULL), NULL, ins, outs, err, sizeof err), "%s", err);
    ck_assert_float_eq(o0[2], 3 * s);
    ck_assert_float_eq(o2[2], 6);
    ck_assert(!interp_kernel_outs(K(zip(V(a), V(a)), 2, ps, 0, NULL), NULL, ins, outs, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "array of pairs"));
}
END_TEST

/* ---------------------------------------------------------------- the thesis's reduction */

/* padCst(0)((B - n%B)%B)(0) >> split(B) >> mapBlock(split(T) >> transpose >>
 * mapThreads(reduceSeq(add)(0)) >> toShared >> (split(2) >> mapThreads(reduceSeq(add)(0))
 * >> toShared)^log2(T)) >> join >> reduceSeq(add)(0), with T threads and B = 8*T. */
static KernelDef *reduction_kernel(NatVar **nv)
{
    enum { T = 256, BLK = 8 * T };
    NatVar *n = nat_newvar(A, "n", 0, NULL);
    *nv = n;
    Nat *N = nat_var(A, n);
    Binder *xs = B("xs", ARR(N, S(SK_F32)));
    Nat *pad = nat_mod(A, nat_sub(A, C(BLK), nat_mod(A, N, C(BLK))), C(BLK));
    Expr *blocks = split(C(BLK), padcst(C(0), pad, LF32(0), V(xs)));
    Binder *chunk = B("chunk", EL(blocks->ty));
    Binder *col = B("col", ARRC(BLK / T, S(SK_F32)));
    Expr *cur = un1(P_TOSHARED, map(P_MAPTHREADS, col, sum(V(col), LF32(0)),
                                    transpose(split(C(T), V(chunk)))));
    for (int w = T; w > 1; w /= 2) {
        Binder *two = B("two", ARRC(2, S(SK_F32)));
        cur = un1(P_TOSHARED, map(P_MAPTHREADS, two, sum(V(two), LF32(0)), split(C(2), cur)));
    }
    Expr *partial = join(map(P_MAPBLOCK, chunk, cur, blocks));
    Binder **ps = ANEWN(A, Binder *, 1);
    ps[0] = xs;
    NatVar **ns = ANEWN(A, NatVar *, 1);
    ns[0] = n;
    return K(sum(partial, LF32(0)), 1, ps, 1, ns);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void reduce_n(int64_t n, bool check)
{
    NatVar *nv;
    KernelDef *k = reduction_kernel(&nv);
    float *in = malloc(sizeof(float) * (size_t)n);
    ck_assert_ptr_nonnull(in);
    double want = 0;
    uint32_t seed = 12345;
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = (float)(seed >> 8) / 16777216.0f; /* in [0, 1) */
        want += in[i];
    }
    const void *ins[1] = {in};
    float out = -1;
    char err[256];
    double t0 = now();
    bool ok = interp_kernel(k, &n, ins, &out, err, sizeof err);
    double t1 = now();
    fprintf(stderr, "reduce of %lld f32: %.3f s, got %.6f, double sum %.6f, rel err %.2e\n", (long long)n,
            t1 - t0, (double)out, want, fabs((double)out - want) / want);
    ck_assert_msg(ok, "%s", err);
    if (check) ck_assert(fabs((double)out - want) / want < 1e-5);
    free(in);
}

START_TEST(test_reduce_big) { reduce_n(1000003, true); }
END_TEST

/* a small n that leaves most of one block as padding */
START_TEST(test_reduce_small)
{
    NatVar *nv;
    KernelDef *k = reduction_kernel(&nv);
    float in[5] = {1, 2, 3, 4, 5.5f}, out = 0;
    int64_t n = 5;
    const void *ins[1] = {in};
    char err[256];
    ck_assert(interp_kernel(k, &n, ins, &out, err, sizeof err));
    ck_assert_float_eq(out, 15.5f);
    n = 2048; /* exactly one block, no padding */
    float *big = malloc(sizeof(float) * 2048);
    for (int i = 0; i < 2048; i++) big[i] = (float)(i % 7);
    ins[0] = big;
    ck_assert(interp_kernel(k, &n, ins, &out, err, sizeof err));
    float w = 0;
    for (int i = 0; i < 2048; i++) w += (float)(i % 7);
    ck_assert_float_eq(out, w);
    free(big);
}
END_TEST

/* PATC_INTERP_BENCH=1: the 2^24-element reduction, timed */
START_TEST(test_reduce_2_24)
{
    if (getenv("PATC_INTERP_BENCH")) reduce_n((int64_t)1 << 24, true);
}
END_TEST

/* ---------------------------------------------------------------- index and data movement */

/* Compile src (one kernel, its nats specialised by -D so that none remain) and run it
 * on the interpreter. */
static bool run_src(const char *src, const Define *defs, int ndefs, const void *const *ins, void *out, char *err,
                    size_t errlen)
{
    TC *t = tc_compile_defs(src, defs, ndefs);
    EXPECT_OK(t);
    ck_assert_int_eq(t->c.ndefs, 1);
    ck_assert_int_eq(t->c.defs[0]->nnats, 0);
    bool ok = interp_kernel(t->c.defs[0], NULL, ins, out, err, errlen);
    tc_free(t);
    return ok;
}

/* run_src for a kernel of several outputs: output j to outs[j] */
static bool run_src_outs(const char *src, const Define *defs, int ndefs, const void *const *ins, void *const *outs,
                         char *err, size_t errlen)
{
    TC *t = tc_compile_defs(src, defs, ndefs);
    EXPECT_OK(t);
    ck_assert_int_eq(t->c.ndefs, 1);
    ck_assert_int_eq(t->c.defs[0]->nnats, 0);
    bool ok = interp_kernel_outs(t->c.defs[0], NULL, ins, outs, err, errlen);
    tc_free(t);
    return ok;
}

/* Views of nested arrays (issue 33 item 3) on the interpreter: take and drop of an
 * inner dimension of a map's result, padCst of rows (written) with a row of zeros */
START_TEST(test_nested_views)
{
    static const Define D23[] = {{"m", 2}, {"n", 3}};
    float a[12], out[16];
    char err[256] = "";
    for (int i = 0; i < 12; i++) a[i] = (float)(i + 1);
    const void *in[1] = {a};
    /* a : 2.(3+1): each row doubled, its first 3 kept */
    ck_assert_msg(run_src("kernel k = nFun((m, n) => fun(m.(n+1).f32)(a => a |> mapGlobal(mapSeq(fun(x => x * 2.0f))) "
                          "|> mapSeq(take(n))))", D23, 2, in, out, err, sizeof err), "%s", err);
    static const float take_want[6] = {2, 4, 6, 10, 12, 14};
    for (int i = 0; i < 6; i++) ck_assert(out[i] == take_want[i]);
    /* a : (2+1).3 transposed (3.3), each row without its first element */
    ck_assert_msg(run_src("kernel k = nFun((m, n) => fun((m+1).n.f32)(a => a |> mapGlobal(mapSeq(fun(x => x * 2.0f))) "
                          "|> transpose |> mapSeq(drop(1))))", D23, 2, in, out, err, sizeof err), "%s", err);
    static const float drop_want[6] = {8, 14, 10, 16, 12, 18};
    for (int i = 0; i < 6; i++) ck_assert(out[i] == drop_want[i]);
    /* a : 2.3 with zero borders: 4.5 */
    static const float pad_want[20] = {0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0, 0, 0, 0, 0, 0};
    float out20[20];
    ck_assert_msg(run_src("kernel k = nFun((m, n) => fun(m.n.f32)(a => a |> mapGlobal(mapSeq(id)) "
                          "|> mapSeq(padCst(1)(1)(0.0f)) |> padCst(1)(1)(generate(fun(j => 0.0f)))))",
                          D23, 2, in, out20, err, sizeof err), "%s", err);
    for (int i = 0; i < 20; i++) ck_assert(out20[i] == pad_want[i]);
}
END_TEST

static const Define D5[] = {{"n", 5}};

/* Pairs as data (issue 33 item 1), against values worked out here: reduceSeq with a pair
 * accumulator (the first maximum of each row of 8; NaN compares false), scanSeqExcl with
 * one, a shuffle of a warp array of pairs, and an array of pairs through shared memory,
 * each side an output through unzip */
START_TEST(test_pairs_as_data)
{
    static const float X[16] = {1, 5, NAN, 5, -2, 0, 5, 3, -INFINITY, -INFINITY, -INFINITY, -INFINITY,
                                -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    static const Define D2[] = {{"n", 2}}, D1[] = {{"n", 1}};
    const char *pre = "def amax = fun(a => fun(p => select(fst(p) > fst(a) || (fst(p) == fst(a) && snd(p) < snd(a)))(p)(a)))\n"
                      "def ids(n) = generate(fun(idx[n])(i => i32(i)))\n";
    char src[1024], err[256] = "";
    const void *in[1] = {X};
    float v[32];
    int32_t ix[32];
    void *outs[2] = {v, ix};
    snprintf(src, sizeof src, "%skernel k = nFun(n => fun((8*n).f32)(xs => zip(xs)(ids(8*n)) |> split(8) "
             "|> mapGlobal(reduceSeq(amax)(pair(-inff)(99))) |> unzip))", pre);
    ck_assert_msg(run_src_outs(src, D2, 1, in, outs, err, sizeof err), "%s", err);
    /* row 0: 5 first at 1; row 1: all -inf, equal to the initial value, the lower index 8 wins over 99 */
    ck_assert(v[0] == 5 && ix[0] == 1 && v[1] == -INFINITY && ix[1] == 8);
    snprintf(src, sizeof src, "%skernel k = nFun(n => fun((8*n).f32)(xs => zip(xs)(ids(8*n)) |> split(8) "
             "|> mapGlobal(scanSeqExcl(fun(x => fun(a => amax(a)(x))))(pair(-inff)(-1))) |> join |> unzip))", pre);
    ck_assert_msg(run_src_outs(src, D1, 1, in, outs, err, sizeof err), "%s", err);
    static const float EV[8] = {-INFINITY, 1, 5, 5, 5, 5, 5, 5};
    static const int32_t EI[8] = {-1, 0, 1, 1, 1, 1, 1, 1};
    for (int i = 0; i < 8; i++) ck_assert_msg(v[i] == EV[i] && ix[i] == EI[i], "element %d: (%g, %d)", i, v[i], ix[i]);
    /* lane l gets lane l+1's (value, index); lane 31 keeps its own */
    float Y[32];
    for (int i = 0; i < 32; i++) Y[i] = (float)(i * i);
    const void *iny[1] = {Y};
    snprintf(src, sizeof src, "%skernel k = nFun(n => fun((32*n).f32)(xs => zip(xs)(ids(32*n)) |> split(32) "
             "|> mapWarp(fun(w => w |> mapLane(id) |> shflDownWarp(1) |> mapLane(id))) |> join |> unzip))", pre);
    ck_assert_msg(run_src_outs(src, D1, 1, iny, outs, err, sizeof err), "%s", err);
    for (int i = 0; i < 32; i++) {
        int j = i < 31 ? i + 1 : 31;
        ck_assert_msg(v[i] == (float)(j * j) && ix[i] == j, "lane %d: (%g, %d)", i, v[i], ix[i]);
    }
    /* shared memory: each thread reads the pair of thread 31 - t */
    snprintf(src, sizeof src, "%skernel k = nFun(n => fun((32*n).f32)(xs => zip(xs)(ids(32*n)) |> split(32) "
             "|> mapBlock(fun(b => b |> mapThreads(id) |> toShared |> fun(s => generate(fun(idx[32])(i => i)) "
             "|> mapThreads(fun(i => idx(31 - i)(s)))))) |> join |> unzip))", pre);
    ck_assert_msg(run_src_outs(src, D1, 1, iny, outs, err, sizeof err), "%s", err);
    for (int i = 0; i < 32; i++) ck_assert(v[i] == (float)((31 - i) * (31 - i)) && ix[i] == 31 - i);
}
END_TEST
static const int32_t PERM5[5] = {4, 0, 3, 1, 2};
static const float XS5[5] = {10, 11, 12, 13, 14};

/* accumulate (issue 33 item 2): the bins start at init, each pair (b, v) updates bin b
 * with the operator, and a bin outside [0, k) (-1, 9 here) is dropped. Expected values
 * worked out by hand: bins 3 -1 0 3 9 2 3 0, values twice the bin. */
START_TEST(test_accumulate)
{
    static const Define d8[] = {{"n", 8}};
    static const int32_t bins[8] = {3, -1, 0, 3, 9, 2, 3, 0};
    const void *in[1] = {bins};
    int32_t out[4];
    char err[256] = "";
    ck_assert_msg(run_src("kernel h = nFun(n => fun(n.i32)(bs => bs |> split(8) |> mapBlock(fun(c => c "
                          "|> mapThreads(fun(b => pair(b)(b * 2))) |> accumulate(4)(max)(-100) |> toShared "
                          "|> mapThreads(id))) |> join))",
                          d8, 1, in, out, err, sizeof err), "%s", err);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], -100);
    ck_assert_int_eq(out[2], 4);
    ck_assert_int_eq(out[3], 6);
    ck_assert_msg(run_src("kernel h = nFun(n => fun(n.i32)(bs => bs |> split(8) |> mapBlock(fun(c => c "
                          "|> mapThreads(fun(b => pair(b)(1))) |> accumulate(4)(fun(a => fun(x => x + a)))(10) "
                          "|> toShared |> mapThreads(id))) |> join))",
                          d8, 1, in, out, err, sizeof err), "%s", err);
    ck_assert_int_eq(out[0], 12);
    ck_assert_int_eq(out[1], 10);
    ck_assert_int_eq(out[2], 11);
    ck_assert_int_eq(out[3], 13);
    uint32_t ub[8] = {1, 1, 0, 4294967295u, 1, 2, 5, 1}, uo[3];
    const void *uin[1] = {ub};
    ck_assert_msg(run_src("kernel h = nFun(n => fun(n.u32)(bs => bs |> split(8) |> mapBlock(fun(c => c "
                          "|> mapThreads(fun(b => pair(b)(b + 1u))) |> accumulate(3)(fun(a => fun(x => a ^ x)))(0u) "
                          "|> toShared |> mapThreads(id))) |> join))",
                          d8, 1, uin, uo, err, sizeof err), "%s", err);
    ck_assert_uint_eq(uo[0], 1u); /* one 1 */
    ck_assert_uint_eq(uo[1], 0u); /* four 2s */
    ck_assert_uint_eq(uo[2], 3u); /* one 3; 4294967295 and 5 dropped */
}
END_TEST

START_TEST(test_gather_scatter)
{
    float ys[5], back[5];
    char err[256] = "";
    const void *in1[2] = {PERM5, XS5};
    ck_assert_msg(run_src("kernel g = nFun(n => fun(n.idx[n])(p => fun(n.f32)(xs => gather(p)(xs) |> mapGlobal(id))))",
                          D5, 1, in1, ys, err, sizeof err), "%s", err);
    for (int i = 0; i < 5; i++) ck_assert(ys[i] == XS5[PERM5[i]]);
    const void *in2[2] = {PERM5, ys};
    ck_assert_msg(run_src("kernel s = nFun(n => fun(n.idx[n])(p => fun(n.f32)(ys => scatter(p)(ys |> mapGlobal(id)))))",
                          D5, 1, in2, back, err, sizeof err), "%s", err);
    for (int i = 0; i < 5; i++) ck_assert(back[i] == XS5[i]);
}
END_TEST

START_TEST(test_gather_errors)
{
    float out[5];
    char err[256] = "";
    static const int32_t bad[5] = {0, 7, 1, 2, 3};
    const void *in[2] = {bad, XS5};
    ck_assert(!run_src("kernel g = nFun(n => fun(n.i32)(p => fun(n.f32)(xs => gather(p)(xs) |> mapGlobal(id))))",
                       D5, 1, in, out, err, sizeof err));
    ck_assert_msg(strstr(err, "gather: index 7 (element 1 of the indices) is outside the array of length 5"), "%s", err);
    static const int32_t dup[5] = {0, 1, 1, 2, 3};
    const void *in2[2] = {dup, XS5};
    ck_assert(!run_src("kernel s = nFun(n => fun(n.idx[n])(p => fun(n.f32)(ys => scatter(p)(ys |> mapGlobal(id)))))",
                       D5, 1, in2, out, err, sizeof err));
    ck_assert_msg(strstr(err, "scatter: elements 1 and 2 of the indices both write position 1"), "%s", err);
    /* two values into four positions: the other two hold nothing, and the output reads them */
    static const int32_t two[2] = {3, 0};
    const void *in3[2] = {two, XS5};
    float out4[4];
    ck_assert(!run_src("kernel s = fun(2.idx[4])(p => fun(2.f32)(ys => scatter(p)(ys |> mapGlobal(id))))",
                       NULL, 0, in3, out4, err, sizeof err));
    ck_assert_msg(strstr(err, "element 1 of scatter's output is read, but no index wrote it"), "%s", err);
}
END_TEST

START_TEST(test_idx)
{
    float out[5];
    char err[256] = "";
    static const int64_t js[5] = {2, 2, 0, 4, 1};
    const void *in[2] = {js, XS5};
    const char *src = "kernel k = nFun(n => fun(n.i64)(js => fun(n.f32)(xs => js |> mapGlobal(fun(j => idx(j)(xs))))))";
    ck_assert_msg(run_src(src, D5, 1, in, out, err, sizeof err), "%s", err);
    for (int i = 0; i < 5; i++) ck_assert(out[i] == XS5[js[i]]);
    static const int64_t neg[5] = {0, 1, -1, 2, 3};
    const void *in2[2] = {neg, XS5};
    ck_assert(!run_src(src, D5, 1, in2, out, err, sizeof err));
    ck_assert_msg(strstr(err, "idx: index -1 is outside the array of length 5"), "%s", err);
}
END_TEST

/* lookback: block i gets the op-combination of the earlier blocks' values, in block
 * order (init for block 0); checked with a sum and with a non-commutative operator on
 * pairs (affine maps x -> a x + b composed in order: a wrong order changes the result). */
START_TEST(test_lookback)
{
    static const int32_t xs[4 * 32] = {[0] = 5, [31] = 1, [32] = 7, [64] = -2, [100] = 10};
    int32_t out[4];
    char err[256] = "";
    const void *in[1] = {xs};
    const Define d4[] = {{"n", 4}};
    const char *sum = "kernel k = nFun(n => fun((n*32).i32)(xs => xs |> split(32) |> mapBlock(fun(t =>"
                      " t |> mapThreads(fun(x => x)) |> toShared |> reduceSeq(add)(0)"
                      " |> fun(s => lookback(add)(100)(s))))))";
    ck_assert_msg(run_src(sum, d4, 1, in, out, err, sizeof err), "%s", err);
    /* block sums 6, 7, -2, 10; prefixes from 100 */
    ck_assert_int_eq(out[0], 100);
    ck_assert_int_eq(out[1], 106);
    ck_assert_int_eq(out[2], 113);
    ck_assert_int_eq(out[3], 111);
    /* block i holds (a_i, b_i) = (2 + its first element, its second element) of ys, and
     * writes its prefix map applied to 1 (a + b) */
    const char *aff = "def compose = fun(f => fun(g => pair(fst(f) * fst(g))(fst(g) * snd(f) + snd(g))))\n"
                      "kernel k = nFun(n => fun((n*32).i32)(xs => xs |> split(32) |> mapBlock(fun(t =>"
                      " t |> mapThreads(fun(x => x)) |> toShared"
                      " |> fun(s => pair(2 + (s |> take(1) |> reduceSeq(add)(0)))(s |> drop(1) |> take(1) |> reduceSeq(add)(0)))"
                      " |> fun(m => lookback(compose)(pair(1)(0))(m)) |> fun(f => fst(f) + snd(f))))))";
    static const int32_t ys[4 * 32] = {[0] = 5, [1] = 3, [32] = 7, [33] = -1, [64] = -2, [65] = 4, [96] = 0};
    const void *in2[1] = {ys};
    ck_assert_msg(run_src(aff, d4, 1, in2, out, err, sizeof err), "%s", err);
    /* maps: (7, 3), (9, -1), (0, 4), (2, 0); prefixes composed earlier-first:
     * p0 = (1, 0); p1 = (7, 3); p2 = (63, 9*3 - 1) = (63, 26); p3 = (0, 4) applied after:
     * (63*0, 0*26 + 4) = (0, 4); outputs a + b. In the wrong order p2 would be
     * (63, 7*(-1) + 3) and out[2] 59. */
    ck_assert_int_eq(out[0], 1);
    ck_assert_int_eq(out[1], 10);
    ck_assert_int_eq(out[2], 89);
    ck_assert_int_eq(out[3], 4);
}
END_TEST

/* scanPipe's meaning is the sequential scan from init, inclusive or exclusive, with
 * op(prefix)(element): checked on sums and on the composition of affine maps held as
 * one u32 (a*65536 + b), where op's argument order shows. */
START_TEST(test_scan_pipe)
{
    static const int32_t xs[5] = {5, -3, 10, 7, -1};
    int32_t out[5];
    char err[256] = "";
    const void *in[1] = {xs};
    const Define d5[] = {{"n", 5}};
    const char *incl = "kernel k = nFun(n => fun(n.i32)(xs => xs |> scanPipe(4, 4, 2)(add)(100)))";
    ck_assert_msg(run_src(incl, d5, 1, in, out, err, sizeof err), "%s", err);
    static const int32_t want[5] = {105, 102, 112, 119, 118};
    for (int i = 0; i < 5; i++) ck_assert_int_eq(out[i], want[i]);
    const char *excl = "kernel k = nFun(n => fun(n.i32)(xs => xs |> scanPipeExcl(4, 4, 2)(max)(0)))";
    ck_assert_msg(run_src(excl, d5, 1, in, out, err, sizeof err), "%s", err);
    static const int32_t wantx[5] = {0, 5, 5, 10, 10};
    for (int i = 0; i < 5; i++) ck_assert_int_eq(out[i], wantx[i]);
    /* maps x -> 2x + 3, x -> 5x + 1, x -> 0x + 7 (mod 2^16); prefixes composed earlier
     * first: (2, 3); (10, 5*3 + 1 = 16); (0, 7). The other order would give (10, 2*1 + 3
     * = 5) for the second. */
    const char *aff = "def affine = fun(p => fun(q => ((p / 65536u) * (q / 65536u)) % 65536u * 65536u"
                      " + ((q / 65536u) * (p % 65536u) + q % 65536u) % 65536u))\n"
                      "kernel k = nFun(n => fun(n.u32)(xs => xs |> scanPipe(4, 4, 2)(affine)(65536u)))";
    static const uint32_t maps[3] = {2u * 65536u + 3u, 5u * 65536u + 1u, 7u};
    uint32_t mo[3];
    const void *in2[1] = {maps};
    const Define d3[] = {{"n", 3}};
    ck_assert_msg(run_src(aff, d3, 1, in2, mo, err, sizeof err), "%s", err);
    ck_assert_uint_eq(mo[0], 2u * 65536u + 3u);
    ck_assert_uint_eq(mo[1], 10u * 65536u + 16u);
    ck_assert_uint_eq(mo[2], 7u);
}
END_TEST

/* filterPipe's meaning: the count and the selected elements in order (the rest of the
 * output zero, not part of the result); partitionPipe's: then the others in reverse
 * order, all n written. */
START_TEST(test_select_pipe)
{
    static const float xs[7] = {0.9f, 0.1f, 0.6f, 0.2f, 0.7f, 0.3f, 0.5f};
    float t = 0.5f;
    const void *in[2] = {&t, xs};
    const Define d7[] = {{"n", 7}};
    char err[256] = "";
    uint32_t cnt;
    float out[7];
    void *outs[2] = {&cnt, out};
    const char *f = "kernel k = nFun(n => fun(f32)(t => fun(n.f32)(xs => xs |> filterPipe(4, 4, 2)(fun(x => x > t)))))";
    ck_assert_msg(run_src_outs(f, d7, 1, in, outs, err, sizeof err), "%s", err);
    ck_assert_uint_eq(cnt, 3);
    ck_assert(out[0] == 0.9f && out[1] == 0.6f && out[2] == 0.7f);
    const char *pp = "kernel k = nFun(n => fun(f32)(t => fun(n.f32)(xs => xs |> partitionPipe(4, 4, 2)(fun(x => x > t)))))";
    ck_assert_msg(run_src_outs(pp, d7, 1, in, outs, err, sizeof err), "%s", err);
    ck_assert_uint_eq(cnt, 3);
    static const float want[7] = {0.9f, 0.6f, 0.7f, 0.5f, 0.3f, 0.2f, 0.1f};
    for (int i = 0; i < 7; i++) ck_assert_msg(out[i] == want[i], "element %d is %g", i, out[i]);
    /* partitionStablePipe: given the count, the others follow in order; a wrong count
     * is an error before anything is placed by it */
    const char *sp = "kernel k = nFun(n => fun(f32)(t => fun(1.u32)(ms => fun(n.f32)(xs => "
                     "xs |> partitionStablePipe(4, 4, 2)(fun(x => x > t))(ms)))))";
    uint32_t ms = 3;
    const void *in3[3] = {&t, &ms, xs};
    ck_assert_msg(run_src_outs(sp, d7, 1, in3, outs, err, sizeof err), "%s", err);
    ck_assert_uint_eq(cnt, 3);
    static const float stable[7] = {0.9f, 0.6f, 0.7f, 0.1f, 0.2f, 0.3f, 0.5f};
    for (int i = 0; i < 7; i++) ck_assert_msg(out[i] == stable[i], "element %d is %g", i, out[i]);
    ms = 2;
    ck_assert(!run_src_outs(sp, d7, 1, in3, outs, err, sizeof err));
    ck_assert_msg(strstr(err, "partitionStablePipe: the count given is 2, but the predicate selects 3 of the 7 elements"),
                  "%s", err);
}
END_TEST

/* multisplit's meaning (issue 35 item 1): the elements by bucket, buckets in order, each
 * bucket's elements in input order, from the given offsets; checked at ragged sizes and
 * for each element type against a counting sort written here. A bucket out of range and
 * offsets that are not the exclusive scan of the counts are errors. */
typedef struct MsCase {
    const char *ty, *bucket; /* the element type; bucket(x) for x >= 0 */
    ScalarKind sk;
    int k;
} MsCase;

/* element i of the test input: a value 0..999, as sk, into p */
static void ms_put(ScalarKind sk, void *p, int64_t i, uint32_t v)
{
    switch (sk) {
    case SK_U32: ((uint32_t *)p)[i] = v; return;
    case SK_I32: ((int32_t *)p)[i] = (int32_t)v; return;
    case SK_F32: ((float *)p)[i] = (float)v / 1000.0f; return;
    case SK_U64: ((uint64_t *)p)[i] = (uint64_t)v << 33 | v; return;
    case SK_I64: ((int64_t *)p)[i] = (int64_t)v; return;
    case SK_F64: ((double *)p)[i] = (double)v / 1000.0; return;
    default: ck_abort_msg("ms_put: no such case");
    }
}

START_TEST(test_multisplit)
{
    static const MsCase cases[] = {
        {"u32", "fun(x => x & 255u)", SK_U32, 256},        {"i32", "fun(x => u32(x % 7))", SK_I32, 7},
        {"f32", "fun(x => u32(x * 16.0f))", SK_F32, 16},   {"u64", "fun(x => u32(x % u64(1000)))", SK_U64, 1000},
        {"i64", "fun(x => u32(x & i64(1)))", SK_I64, 2},   {"f64", "fun(x => u32(x * 5.0))", SK_F64, 5},
    };
    static const int64_t sizes[] = {1, 31, 33, 1000, 4097};
    char err[256] = "", src[512];
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const MsCase *m = &cases[c];
        size_t es = scalar_info[m->sk].size;
        snprintf(src, sizeof src, "kernel k = nFun(n => fun(%d.u32)(offs => fun(n.%s)(xs => "
                 "xs |> multisplit(%d, 64, 3)(%s)(offs))))", m->k, m->ty, m->k, m->bucket);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            int64_t n = sizes[si];
            unsigned char *xs = malloc((size_t)n * es), *out = malloc((size_t)n * es), *want = malloc((size_t)n * es);
            uint32_t *vals = malloc((size_t)n * sizeof *vals), offs[1000] = {0}, at[1000];
            uint32_t r = 12345u + (uint32_t)c;
            for (int64_t i = 0; i < n; i++) {
                r = r * 1103515245u + 12345u;
                vals[i] = (r >> 8) % 1000u;
                ms_put(m->sk, xs, i, vals[i]);
            }
            /* the buckets as the kernel's functions compute them, from the values */
            uint32_t *bk = malloc((size_t)n * sizeof *bk);
            for (int64_t i = 0; i < n; i++) {
                uint32_t v = vals[i];
                bk[i] = m->sk == SK_U32 ? v & 255u : m->sk == SK_I32 ? v % 7u : m->sk == SK_F32 ? (uint32_t)((float)v / 1000.0f * 16.0f)
                        : m->sk == SK_U64 ? (uint32_t)((((uint64_t)v << 33) | v) % 1000u) : m->sk == SK_I64 ? v & 1u
                        : (uint32_t)((double)v / 1000.0 * 5.0);
                offs[bk[i]]++;
            }
            uint32_t sum = 0;
            for (int b = 0; b < m->k; b++) {
                uint32_t cb = offs[b];
                offs[b] = at[b] = sum;
                sum += cb;
            }
            for (int64_t i = 0; i < n; i++) memcpy(want + (size_t)at[bk[i]]++ * es, xs + (size_t)i * es, es);
            const Define dn[] = {{"n", n}};
            const void *in[2] = {offs, xs};
            ck_assert_msg(run_src(src, dn, 1, in, out, err, sizeof err), "%s n=%lld: %s", m->ty, (long long)n, err);
            ck_assert_msg(!memcmp(out, want, (size_t)n * es), "%s n=%lld: not the stable split", m->ty, (long long)n);
            /* offsets one off: an error */
            if (m->k > 1) {
                offs[1]++;
                ck_assert(!run_src(src, dn, 1, in, out, err, sizeof err));
                ck_assert_msg(strstr(err, "multisplit: the offsets given are not the exclusive scan of the buckets' counts"),
                              "%s", err);
            }
            free(xs);
            free(out);
            free(want);
            free(vals);
            free(bk);
        }
    }
    /* a bucket past k: an error naming the element */
    static const uint32_t ys[3] = {1, 2, 9}, yo[4] = {0, 1, 2, 3};
    const void *in[2] = {yo, ys};
    const Define d3[] = {{"n", 3}};
    uint32_t o3[3];
    ck_assert(!run_src("kernel k = nFun(n => fun(4.u32)(offs => fun(n.u32)(xs => xs |> multisplit(4, 32, 1)(fun(x => x))(offs))))",
                       d3, 1, in, o3, err, sizeof err));
    ck_assert_msg(strstr(err, "multisplit: the bucket function gives 9 for element 2, but there are 4 buckets (0..3)"), "%s",
                  err);
    /* multisplitTo (issue 35 item 4): xs = {5, 2, 7, 4, 1} by x % 2 into 9 places, bucket
     * 0 (2, 4) from 1, bucket 1 (5, 7, 1) from 5 (u64 offsets); the places not sent to
     * are 0 in the interpreter. Then offsets that overlap (bucket 1 from 2): an error. */
    static const uint32_t px[5] = {5, 2, 7, 4, 1};
    static const uint64_t po[2] = {1, 5}, bad_po[2] = {1, 2};
    const Define d59[] = {{"n", 5}, {"m", 9}};
    uint32_t o9[9], want9[9] = {0, 2, 4, 0, 0, 5, 7, 1, 0};
    const char *to = "kernel k = nFun((n, m) => fun(2.u64)(offs => fun(n.u32)(xs => xs |> "
                     "multisplitTo(2, 32, 1, m)(fun(x => x % 2u))(offs))))";
    memset(o9, 0xff, sizeof o9);
    ck_assert_msg(run_src(to, d59, 2, (const void *[]){po, px}, o9, err, sizeof err), "%s", err);
    for (int i = 0; i < 9; i++) ck_assert_msg(o9[i] == want9[i], "multisplitTo: place %d is %u, want %u", i, o9[i], want9[i]);
    ck_assert(!run_src(to, d59, 2, (const void *[]){bad_po, px}, o9, err, sizeof err));
    ck_assert_msg(strstr(err, "multisplitTo: bucket 1 starts at 2, inside the bucket before it"), "%s", err);
    /* multisplitToNext: the same placing, and where each bucket of the next part starts:
     * bucket 0 from 1 + 2 = 3, bucket 1 from 5 + 3 = 8 (first output). Then pairs, the
     * values x * 10 beside the keys: three outputs (next, keys, values). */
    uint64_t nx2[2] = {0, 0};
    memset(o9, 0xff, sizeof o9);
    ck_assert_msg(run_src_outs("kernel k = nFun((n, m) => fun(2.u64)(offs => fun(n.u32)(xs => xs |> "
                               "multisplitToNext(2, 32, 1, m)(fun(x => x % 2u))(offs))))",
                               d59, 2, (const void *[]){po, px}, (void *[]){nx2, o9}, err, sizeof err), "%s", err);
    for (int i = 0; i < 9; i++) ck_assert_msg(o9[i] == want9[i], "multisplitToNext: place %d is %u, want %u", i, o9[i], want9[i]);
    ck_assert_msg(nx2[0] == 3 && nx2[1] == 8, "multisplitToNext: next %llu %llu, want 3 8", (unsigned long long)nx2[0],
                  (unsigned long long)nx2[1]);
    static const uint32_t pv[5] = {50, 20, 70, 40, 10}, po32[2] = {1, 5};
    uint32_t nx32[2] = {0, 0}, v9[9];
    memset(o9, 0xff, sizeof o9);
    memset(v9, 0xff, sizeof v9);
    ck_assert_msg(run_src_outs("kernel k = nFun((n, m) => fun(2.u32)(offs => fun(n.u32)(ks => fun(n.u32)(vs => "
                               "zip(ks)(vs) |> multisplitToNext(2, 32, 1, m)(fun(p => fst(p) % 2u))(offs)))))",
                               d59, 2, (const void *[]){po32, px, pv}, (void *[]){nx32, o9, v9}, err, sizeof err),
                  "%s", err);
    for (int i = 0; i < 9; i++)
        ck_assert_msg(o9[i] == want9[i] && v9[i] == want9[i] * 10, "multisplitToNext pairs: place %d is %u, %u", i,
                      o9[i], v9[i]);
    ck_assert_msg(nx32[0] == 3 && nx32[1] == 8, "multisplitToNext pairs: next %u %u, want 3 8", nx32[0], nx32[1]);
}
END_TEST

/* sortTiles' meaning (issue 35 item 2): each tile of nt*ipt elements (the last one
 * partial) sorted stably by ord, compared unsigned; here tiles of 64 x 1 and 32 x 3 and
 * an order that is not a key's bits (x / 7, so that many keys tie and the input order
 * among them shows; and ~x, descending), against an insertion sort of each tile written
 * here, at ragged sizes. Pairs carry their values (the element's input index). */
START_TEST(test_sorttiles)
{
    static const struct { const char *src; int T; int desc; } cases[] = {
        {"kernel k = nFun(n => fun(n.u32)(xs => xs |> sortTiles(64, 1)(fun(x => x / 7u))))", 64, 0},
        {"kernel k = nFun(n => fun(n.u32)(xs => xs |> sortTiles(32, 3)(fun(x => ~(x / 7u)))))", 96, 1},
        {"kernel k = nFun(n => fun(n.u32)(ks => fun(n.u32)(vs => zip(ks)(vs) |> sortTiles(32, 3)(fun(p => fst(p) / 7u)) "
         "|> unzip)))", 96, 0},
    };
    static const int64_t sizes[] = {1, 31, 33, 1000, 4097};
    char err[256] = "";
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        bool pairs = strstr(cases[c].src, "zip") != NULL;
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            int64_t n = sizes[si], T = cases[c].T;
            uint32_t *xs = malloc((size_t)n * 4), *ix = malloc((size_t)n * 4), *out = malloc((size_t)n * 4),
                     *outv = malloc((size_t)n * 4), *want = malloc((size_t)n * 4), *wantv = malloc((size_t)n * 4);
            uint32_t r = 777u + (uint32_t)c;
            for (int64_t i = 0; i < n; i++) {
                r = r * 1103515245u + 12345u;
                xs[i] = (r >> 8) % 100u;
                ix[i] = (uint32_t)i;
            }
            memcpy(want, xs, (size_t)n * 4);
            memcpy(wantv, ix, (size_t)n * 4);
            for (int64_t t0 = 0; t0 < n; t0 += T) /* insertion sort of each tile: stable */
                for (int64_t i = t0 + 1; i < n && i < t0 + T; i++)
                    for (int64_t j = i; j > t0; j--) {
                        uint32_t a = want[j - 1] / 7u, b = want[j] / 7u;
                        if (cases[c].desc ? a >= b : a <= b) break;
                        uint32_t t = want[j - 1], tv = wantv[j - 1];
                        want[j - 1] = want[j];
                        wantv[j - 1] = wantv[j];
                        want[j] = t;
                        wantv[j] = tv;
                    }
            const Define dn[] = {{"n", n}};
            const void *in[2] = {xs, ix};
            if (pairs)
                ck_assert_msg(run_src_outs(cases[c].src, dn, 1, in, (void *const[]){out, outv}, err, sizeof err), "%s",
                              err);
            else
                ck_assert_msg(run_src(cases[c].src, dn, 1, in, out, err, sizeof err), "%s", err);
            for (int64_t i = 0; i < n; i++) {
                ck_assert_msg(out[i] == want[i], "case %zu n=%lld: element %lld is %u, want %u", c, (long long)n,
                              (long long)i, out[i], want[i]);
                ck_assert_msg(!pairs || outv[i] == wantv[i], "case %zu n=%lld: value %lld is %u, want %u", c,
                              (long long)n, (long long)i, outv[i], wantv[i]);
            }
            free(xs);
            free(ix);
            free(out);
            free(outv);
            free(want);
            free(wantv);
        }
    }
}
END_TEST

/* sortTiles of 8-byte elements and u64 orders (issue 35 item 2): u64, i64 and f64 keys
 * (f64 as the u64 words of their bits, ordered as rsOrdF64 of patterns/radixsort.rise
 * orders them; and f64 elements themselves, by u64(x)), descending, a u32 order of u64
 * keys (their low word), pairs of 4- and 8-byte keys and values, in tiles of 1024 x 4,
 * at ragged sizes. The expectation is computed here: each tile's (order, index) pairs
 * sorted by qsort, the order written in C. Keys are 100 values spread over all 64 bits
 * (many ties: the input order among equal orders shows in the values, each element's
 * input index). */
typedef struct St64Key {
    uint64_t o;
    int64_t i;
} St64Key;

static int st64_cmp(const void *pa, const void *pb)
{
    const St64Key *a = pa, *b = pb;
    if (a->o != b->o) return a->o < b->o ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static uint64_t st64_ord(int c, uint64_t x)
{
    const uint64_t sign = (uint64_t)1 << 63;
    double d;
    switch (c) {
    case 0: case 5: return x;                                  /* u64 keys */
    case 1: return ~(x ^ sign);                                /* i64 keys, descending */
    case 2: case 6: return x == sign ? sign : (x & sign) ? ~x : x ^ sign; /* f64 words */
    case 3: return (uint32_t)x;                                /* u64 keys by their low word */
    case 4: return (uint32_t)x / 7u;                           /* u32 keys */
    case 7: memcpy(&d, &x, 8); return (uint64_t)d;             /* f64 elements by u64(x) */
    }
    return 0;
}

START_TEST(test_sorttiles_8byte)
{
    /* kb, vb: the keys' and the values' bytes (vb 0: keys alone) */
    static const struct { const char *src; int kb, vb; } cases[] = {
        {"kernel k = nFun(n => fun(n.u64)(xs => xs |> sortTiles(1024, 4)(fun(x => x))))", 8, 0},
        {"kernel k = nFun(n => fun(n.i64)(xs => xs |> sortTiles(1024, 4)(fun(x => ~(u64(x) ^ shl(u64(1))(63))))))", 8, 0},
        {"kernel k = nFun(n => fun(n.u64)(xs => xs |> sortTiles(1024, 4)(fun(y => select(y == shl(u64(1))(63))"
         "(shl(u64(1))(63))(select((y & shl(u64(1))(63)) != 0)(~y)(y ^ shl(u64(1))(63)))))))", 8, 0},
        {"kernel k = nFun(n => fun(n.u64)(xs => xs |> sortTiles(1024, 4)(fun(x => u32(x)))))", 8, 0},
        {"kernel k = nFun(n => fun(n.u32)(ks => fun(n.u64)(vs => zip(ks)(vs) |> sortTiles(1024, 4)(fun(p => fst(p) / 7u)) "
         "|> unzip)))", 4, 8},
        {"kernel k = nFun(n => fun(n.u64)(ks => fun(n.u32)(vs => zip(ks)(vs) |> sortTiles(1024, 4)(fun(p => fst(p))) "
         "|> unzip)))", 8, 4},
        {"kernel k = nFun(n => fun(n.u64)(ks => fun(n.i64)(vs => zip(ks)(vs) |> sortTiles(1024, 4)(fun(p => "
         "select(fst(p) == shl(u64(1))(63))(shl(u64(1))(63))(select((fst(p) & shl(u64(1))(63)) != 0)(~fst(p))"
         "(fst(p) ^ shl(u64(1))(63))))) |> unzip)))", 8, 8},
        {"kernel k = nFun(n => fun(n.f64)(xs => xs |> sortTiles(1024, 4)(fun(x => u64(x)))))", 8, 0},
    };
    static const int64_t sizes[] = {1, 31, 1000, 4097};
    const int64_t T = 4096;
    char err[256] = "";
    for (int c = 0; c < (int)(sizeof cases / sizeof *cases); c++) {
        int kb = cases[c].kb, vb = cases[c].vb;
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            int64_t n = sizes[si];
            uint64_t *k64 = malloc((size_t)n * 8), *v64 = malloc((size_t)n * 8);
            unsigned char *ks = malloc((size_t)n * 8), *vs = malloc((size_t)n * 8), *out = malloc((size_t)n * 8),
                          *outv = malloc((size_t)n * 8);
            St64Key *key = malloc(sizeof *key * (size_t)n);
            uint64_t r = 4242u + (uint64_t)c;
            for (int64_t i = 0; i < n; i++) {
                r = r * 6364136223846793005u + 1442695040888963407u;
                uint64_t a = (r >> 33) % 100u, hi = r >> 11;
                double d = (double)a - 50.0;
                if (a == 0) d = -0.0; /* -0 and +0 (a = 50) are one f64 order */
                switch (c) {
                case 2: case 6: memcpy(&k64[i], &d, 8); break;
                case 3: k64[i] = hi << 32 | a; break;
                case 4: k64[i] = a; break;
                case 7: d = (double)a + 0.25 * (double)(hi % 4u); memcpy(&k64[i], &d, 8); break;
                default: k64[i] = a * 0x9E3779B97F4A7C15u; break;
                }
                v64[i] = (uint64_t)i;
                if (kb == 4) ((uint32_t *)ks)[i] = (uint32_t)k64[i];
                else memcpy(ks + 8 * i, &k64[i], 8);
                if (vb == 4) ((uint32_t *)vs)[i] = (uint32_t)i;
                else memcpy(vs + 8 * i, &v64[i], 8);
            }
            const Define dn[] = {{"n", n}};
            const void *in[2] = {ks, vs};
            if (vb)
                ck_assert_msg(run_src_outs(cases[c].src, dn, 1, in, (void *const[]){out, outv}, err, sizeof err), "%s",
                              err);
            else
                ck_assert_msg(run_src(cases[c].src, dn, 1, in, out, err, sizeof err), "%s", err);
            for (int64_t t0 = 0; t0 < n; t0 += T) {
                int64_t m = n - t0 < T ? n - t0 : T;
                for (int64_t i = 0; i < m; i++) {
                    key[i].o = st64_ord(c, k64[t0 + i]);
                    key[i].i = t0 + i;
                }
                qsort(key, (size_t)m, sizeof *key, st64_cmp);
                for (int64_t i = 0; i < m; i++) {
                    uint64_t got = 0, gotv = 0;
                    memcpy(&got, out + kb * (t0 + i), (size_t)kb);
                    memcpy(&gotv, outv + vb * (t0 + i), (size_t)vb);
                    uint64_t want = kb == 4 ? (uint32_t)k64[key[i].i] : k64[key[i].i];
                    ck_assert_msg(got == want, "case %d n=%lld: element %lld is %llx, want %llx", c, (long long)n,
                                  (long long)(t0 + i), (unsigned long long)got, (unsigned long long)want);
                    ck_assert_msg(!vb || gotv == (uint64_t)key[i].i, "case %d n=%lld: value %lld is %llu, want %lld",
                                  c, (long long)n, (long long)(t0 + i), (unsigned long long)gotv, (long long)key[i].i);
                }
            }
            free(k64);
            free(v64);
            free(ks);
            free(vs);
            free(out);
            free(outv);
            free(key);
        }
    }
}
END_TEST

START_TEST(test_concat_padempty_generate)
{
    float out[10];
    char err[256] = "";
    static const float ys[5] = {20, 21, 22, 23, 24};
    const void *in[2] = {XS5, ys};
    ck_assert_msg(run_src("kernel k = nFun(n => fun(n.f32)(xs => fun(n.f32)(ys => concat(xs)(ys) |> mapGlobal(id))))",
                          D5, 1, in, out, err, sizeof err), "%s", err);
    for (int i = 0; i < 10; i++) ck_assert(out[i] == (i < 5 ? XS5[i] : ys[i - 5]));
    /* reading padEmpty's padding is an error; its first n elements are the argument */
    ck_assert(!run_src("kernel k = nFun(n => fun(n.f32)(xs => padEmpty(2)(xs) |> mapGlobal(id)))",
                       D5, 1, in, out, err, sizeof err));
    ck_assert_msg(strstr(err, "element 5 of padEmpty is read"), "%s", err);
    ck_assert_msg(run_src("kernel k = nFun(n => fun(n.f32)(xs => padEmpty(2)(xs) |> take(n) |> mapGlobal(id)))",
                          D5, 1, in, out, err, sizeof err), "%s", err);
    for (int i = 0; i < 5; i++) ck_assert(out[i] == XS5[i]);
    int32_t gi[5];
    ck_assert_msg(run_src("kernel k = nFun(n => fun(n.f32)(xs => "
                          "zip(generate(fun(idx[n])(i => i)))(xs) |> mapGlobal(fun(p => fst(p)))))",
                          D5, 1, in, gi, err, sizeof err), "%s", err);
    for (int i = 0; i < 5; i++) ck_assert_int_eq(gi[i], i);
}
END_TEST

static Suite *interp_suite(void)
{
    Suite *s = suite_create("interp");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_split);
    tcase_add_test(tc, test_bitwise);
    tcase_add_test(tc, test_join);
    tcase_add_test(tc, test_transpose);
    tcase_add_test(tc, test_padcst);
    tcase_add_test(tc, test_padclamp);
    tcase_add_test(tc, test_take_drop);
    tcase_add_test(tc, test_slide);
    tcase_add_test(tc, test_zip_unzip);
    tcase_add_test(tc, test_pair);
    tcase_add_test(tc, test_generate);
    tcase_add_test(tc, test_id_to);
    tcase_add_test(tc, test_maps);
    tcase_add_test(tc, test_reduce);
    tcase_add_test(tc, test_scan);
    tcase_add_test(tc, test_shfl_down);
    tcase_add_test(tc, test_shfl_up);
    tcase_add_test(tc, test_shfl_xor);
    tcase_add_test(tc, test_shfl_warp);
    tcase_add_test(tc, test_arith_prims);
    tcase_add_test(tc, test_scalar_forms);
    tcase_add_test(tc, test_inf_nan);
    tcase_add_test(tc, test_operators);
    tcase_add_test(tc, test_wraparound);
    tcase_add_test(tc, test_div_zero);
    tcase_add_test(tc, test_precision);
    tcase_add_test(tc, test_let_nat);
    tcase_add_test(tc, test_params);
    tcase_add_test(tc, test_outputs);
    tcase_add_test(tc, test_reduce_big);
    tcase_add_test(tc, test_reduce_small);
    tcase_add_test(tc, test_reduce_2_24);
    tcase_add_test(tc, test_gather_scatter);
    tcase_add_test(tc, test_accumulate);
    tcase_add_test(tc, test_gather_errors);
    tcase_add_test(tc, test_idx);
    tcase_add_test(tc, test_lookback);
    tcase_add_test(tc, test_scan_pipe);
    tcase_add_test(tc, test_select_pipe);
    tcase_add_test(tc, test_multisplit);
    tcase_add_test(tc, test_sorttiles);
    tcase_add_test(tc, test_sorttiles_8byte);
    tcase_add_test(tc, test_concat_padempty_generate);
    tcase_add_test(tc, test_nested_views);
    tcase_add_test(tc, test_pairs_as_data);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(interp_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
