/* scalar.c: the operations on scalars: add mul min max and the SCALAR_FORMS (PF_SCALAR).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- add mul min max */

/* add, mul, min, max : t -> t -> t  (t a scalar type) */
static Expr *infer_arith(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    const PrimInfo *pi = &prim_info[ap->p];
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Type *expected = ap->expected;
    Span sp = ap->sp;
    Expr *e;
    Expr *x = tc_infer(t, arg[0], sc, expected);
    Expr *y = tc_infer(t, arg[1], sc, x->ty);
    if (!tc_is_scalar(x->ty) || !ty_equal(x->ty, y->ty))
        diag_error(t->d, sp, "%s expects two scalars of the same type, got %s and %s", pi->name, tc_tstr(t, x->ty), tc_tstr(t, y->ty));
    e = tc_prim_expr(t, p, x->ty, sp);
    e->prim.args[0] = x;
    e->prim.args[1] = y;
    return e;
}

/* add(x)(y) -> x + y, mul(x)(y) -> x * y */
static LwVal *lower_add_mul(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    Prim p = e->prim.p;
    LwVal *x = lw_lower_exp(w, arg[0]), *y = lw_lower_exp(w, arg[1]);
    return lw_scalar(w, lw_xbin(w, p == P_ADD ? OP_ADD : OP_MUL, lw_sk_of(e->ty), x->x, y->x));
}

/* min(x)(y), max(x)(y) -> X_MINMAX (CUDA's min/max) */
static LwVal *lower_min_max(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    Prim p = e->prim.p;
    LwVal *x = lw_lower_exp(w, arg[0]), *y = lw_lower_exp(w, arg[1]);
    X *m = lw_xnew(w, X_MINMAX, lw_sk_of(e->ty));
    m->bin.op = p == P_MIN ? OP_LT : OP_GT;
    m->bin.l = x->x;
    m->bin.r = y->x;
    return lw_scalar(w, m);
}

/* min/max as CUDA's min()/max(): fminf/fmaxf for floats (a NaN operand yields the
 * other operand), plain comparison for integers. */
static Scalar minmax(bool is_max, ScalarKind sk, Scalar a, Scalar b)
{
    Scalar r = a;
    switch (sk) {
    case SK_F32: r.f = is_max ? fmaxf(a.f, b.f) : fminf(a.f, b.f); return r;
    case SK_F64: r.d = is_max ? fmax(a.d, b.d) : fmin(a.d, b.d); return r;
    case SK_I32: case SK_U32: case SK_I64: case SK_U64: case SK_BOOL:
        return ip_compare(is_max ? OP_LT : OP_GT, sk, a, b) ? b : a;
    case SK_COUNT: break;
    }
    unreachable();
}

/* add, mul: C arithmetic on the operands' kind (ip_binop); min, max: minmax */
static void eval_arith(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a, b;
    ip_eval(c, e->args[0], &a);
    ip_eval(c, e->args[1], &b);
    if (a.node || b.node) ip_fail(c, e->sp, "%s of non-scalars", prim_info[e->p].name);
    ScalarKind sk = e->args[0]->ty->sk;
    Scalar s = e->p == P_ADD ? ip_binop(c, e->sp, OP_ADD, sk, a.s, b.s)
             : e->p == P_MUL ? ip_binop(c, e->sp, OP_MUL, sk, a.s, b.s)
                             : minmax(e->p == P_MAX, sk, a.s, b.s);
    ip_val_scalar(r, e->ty, s);
}

/* ---------------------------------------------------------------- the scalar forms */

/* Is p a row of MATH_FNS? *arity its arguments, *ints whether integers are allowed */
static bool math_fn(Prim p, int *arity, bool *ints)
{
#define X(pr, n, f, d, i) if (p == pr) { *arity = n; *ints = i; return true; }
    MATH_FNS(X)
#undef X
    return false;
}

/* The scalar forms:
 *   select : bool -> t -> t -> t          (t any type: scalars, pairs, arrays)
 *   f32, f64, i32, u32, i64, u64, bool : s -> that type   (s a scalar or idx)
 *   exp ... erf : f -> f, pow : f -> f -> f, fma : f -> f -> f -> f   (f is f32 or f64;
 *                  abs also on i32 and i64)
 *   sub div mod gt lt equal : the binary operators - / % > < == (same rules: E_BIN)
 *   shl shr : x << k and x >> k (E_BIN; `>>` is composition in the language), integers
 *   neg, not : the unary - and ! (E_UN)
 *   popc : u -> u, u in {u32, u64}: the number of bits set */
static Expr *infer_scalar_form(Tc *t, Prim p, Ast **arg, Scope *sc, Type *expected, Span sp)
{
    const char *name = prim_info[p].name;
    Arena *a = t->a;
    Expr *e;
    int arity;
    bool ints;
    if (p == P_SELECT) {
        Expr *c = tc_infer(t, arg[0], sc, ty_scalar(a, SK_BOOL));
        if (c->ty->kind != T_SCALAR || c->ty->sk != SK_BOOL)
            diag_error(t->d, c->sp, "select: the condition must be a bool, but this has type %s", tc_tstr(t, c->ty));
        Expr *x = tc_infer(t, arg[1], sc, expected);
        Expr *y = tc_infer(t, arg[2], sc, x->ty);
        if (!ty_equal(x->ty, y->ty))
            diag_error(t->d, y->sp, "select of different types %s and %s (both sides must have one type)", tc_tstr(t, x->ty),
                       tc_tstr(t, y->ty));
        e = tc_prim_expr(t, p, x->ty, sp);
        e->prim.args[0] = c;
        e->prim.args[1] = x;
        e->prim.args[2] = y;
        return e;
    }
    if (p >= P_TO_F32 && p <= P_TO_BOOL) {
        Expr *x = tc_infer(t, arg[0], sc, NULL);
        if (!tc_is_scalar(x->ty))
            diag_error(t->d, x->sp, "%s(x) converts a scalar, but this has type %s", name, tc_tstr(t, x->ty));
        ScalarKind to = (ScalarKind)(SK_F32 + (p - P_TO_F32));
        if (strcmp(scalar_info[to].name, name) != 0) die("cast rows out of the SCALAR_TYPES order");
        e = tc_prim_expr(t, p, ty_scalar(a, to), sp);
        e->prim.args[0] = x;
        return e;
    }
    if (math_fn(p, &arity, &ints)) {
        Expr *x = tc_infer(t, arg[0], sc, expected);
        if (x->ty->kind != T_SCALAR || !(scalar_info[x->ty->sk].is_float || (ints && (x->ty->sk == SK_I32 || x->ty->sk == SK_I64))))
            diag_error(t->d, x->sp, "%s takes %s, but this has type %s", name,
                       ints ? "f32, f64, i32 or i64" : "f32 or f64 (convert an integer with f32(x))", tc_tstr(t, x->ty));
        e = tc_prim_expr(t, p, x->ty, sp);
        e->prim.args[0] = x;
        for (int i = 1; i < arity; i++) {
            Expr *y = tc_infer(t, arg[i], sc, x->ty);
            if (!ty_equal(x->ty, y->ty))
                diag_error(t->d, y->sp, "%s: argument %d has type %s but the first has type %s", name, i + 1,
                           tc_tstr(t, y->ty), tc_tstr(t, x->ty));
            e->prim.args[i] = y;
        }
        return e;
    }
    if (p == P_NEG || p == P_NOT) {
        Expr *x = tc_infer(t, arg[0], sc, expected);
        if (!tc_is_scalar(x->ty)) diag_error(t->d, x->sp, "%s takes a scalar, but this has type %s", name, tc_tstr(t, x->ty));
        ScalarKind k = tc_num_kind(x->ty);
        if (p == P_NOT && k != SK_BOOL) diag_error(t->d, x->sp, "not takes a bool, but this has type %s", scalar_info[k].name);
        if (p == P_NEG && (k == SK_BOOL || !scalar_info[k].is_signed))
            diag_error(t->d, x->sp, "neg does not apply to %s", scalar_info[k].name);
        e = tc_mk(t, E_UN, ty_scalar(a, k), sp);
        e->un.op = p == P_NEG ? UOP_NEG : UOP_NOT;
        e->un.e = x;
        return e;
    }
    if (p == P_POPC) {
        Expr *x = tc_infer(t, arg[0], sc, expected);
        if (x->ty->kind != T_SCALAR || (x->ty->sk != SK_U32 && x->ty->sk != SK_U64))
            diag_error(t->d, x->sp, "popc takes u32 or u64 (convert with u32(x)), but this has type %s", tc_tstr(t, x->ty));
        e = tc_prim_expr(t, p, x->ty, sp);
        e->prim.args[0] = x;
        return e;
    }
    BinOp op = p == P_SUB ? OP_SUB : p == P_DIV ? OP_DIV : p == P_MOD ? OP_MOD : p == P_GT ? OP_GT : p == P_LT ? OP_LT
             : p == P_SHL ? OP_SHL : p == P_SHR ? OP_SHR : OP_EQ;
    if (p != P_SUB && p != P_DIV && p != P_MOD && p != P_GT && p != P_LT && p != P_EQUAL && p != P_SHL && p != P_SHR)
        die("scalar form %s", name);
    return tc_infer_bin(t, ast_bin(a, sp, op, arg[0], arg[1]), sc, expected, name);
}

static Expr *infer_form(Tc *t, const TcApp *ap)
{
    return infer_scalar_form(t, ap->p, ap->arg, ap->sc, ap->expected, ap->sp);
}

/* select(c)(a)(b) -> both sides computed (into registers unless they are constants or
 *   registers already), then c ? a : b, so no lane branches on c; on arrays, a view;
 * f32(x) ... bool(x) -> X_CAST (C's conversion; (bool)x is x != 0);
 * exp(x) ... fma(x)(y)(z) -> X_CALL, printed as CUDA's float or double function;
 * popc(x) -> X_CALL, printed as __popc or __popcll;
 * neg sub div mod gt lt equal not shl shr never get here: typecheck made them E_UN/E_BIN. */
static LwVal *lower_scalar_form(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    Prim p = e->prim.p;
    int arity;
    bool ints;
    if (p == P_SELECT) {
        X *c = lw_lower_exp(w, arg[0])->x;
        LwVal *x = lw_lower_exp(w, arg[1]), *y = lw_lower_exp(w, arg[2]);
        if (x->k == VAL_SCALAR) {
            x = lw_scalar(w, lw_materialise(w, x->x, "s"));
            y = lw_scalar(w, lw_materialise(w, y->x, "s"));
        } else {
            c = lw_materialise(w, c, "c"); /* computed once, not per element */
        }
        return lw_select_any(w, c, x, y);
    }
    if (p >= P_TO_F32 && p <= P_TO_BOOL) {
        X *x = lw_xnew(w, X_CAST, lw_sk_of(e->ty));
        x->un.e = lw_lower_exp(w, arg[0])->x;
        return lw_scalar(w, x);
    }
    if (p == P_POPC) arity = 1;
    if (p == P_POPC || math_fn(p, &arity, &ints)) {
        X *x = lw_xnew(w, X_CALL, lw_sk_of(e->ty));
        x->call.p = p;
        x->call.n = arity;
        for (int i = 0; i < arity; i++) x->call.args[i] = lw_lower_exp(w, arg[i])->x;
        return lw_scalar(w, x);
    }
    die("scalar form %s reached lowering", prim_info[p].name);
}

/* C's conversion of a scalar from one kind to another: to bool is x != 0; integers to
 * a narrower integer wrap (as nvcc does); integers to floats round to nearest. A float
 * outside the range of the integer type it is converted to (or NaN) is undefined in C
 * and on the GPU: here a run-time error. */
static Scalar convert(IpCtx *c, Span sp, ScalarKind from, ScalarKind to, Scalar a)
{
    Scalar r = {0};
    if (from == SK_F32 || from == SK_F64) {
        double v = from == SK_F32 ? (double)a.f : a.d;
        switch (to) {
        case SK_F32: r.f = from == SK_F32 ? a.f : (float)a.d; return r;
        case SK_F64: r.d = v; return r;
        case SK_BOOL: r.b = v != 0; return r;
        case SK_I32: case SK_U32: case SK_I64: case SK_U64: {
            /* the open interval of values whose truncation fits */
            double lo = to == SK_I32 ? -2147483649.0 : to == SK_I64 ? -9223372036854777856.0 : -1.0;
            double hi = to == SK_I32 ? 2147483648.0 : to == SK_U32 ? 4294967296.0
                      : to == SK_I64 ? 9223372036854775808.0 : 18446744073709551616.0;
            if (!(v > lo && v < hi))
                ip_fail(c, sp, "%s(x) of %g: the value is outside the range of %s (undefined in C and on the GPU)",
                     scalar_info[to].name, v, scalar_info[to].name);
            if (to == SK_U64) r.u = (uint64_t)v;
            else r = ip_scalar_of_int(to, (int64_t)v);
            return r;
        }
        case SK_COUNT: break;
        }
        unreachable();
    }
    if (from == SK_BOOL) return ip_scalar_of_int(to, a.b ? 1 : 0);
    bool sg = from == SK_I32 || from == SK_I64;
    uint64_t x = ip_widen(from, a);
    switch (to) {
    case SK_F32: r.f = sg ? (float)(int64_t)x : (float)x; return r;
    case SK_F64: r.d = sg ? (double)(int64_t)x : (double)x; return r;
    case SK_BOOL: r.b = x != 0; return r;
    case SK_I32: case SK_U32: case SK_I64: case SK_U64: return ip_scalar_of_int(to, (int64_t)x);
    case SK_COUNT: break;
    }
    unreachable();
}

/* CUDA's rsqrtf/rsqrt, which math.h lacks */
#define rsqrtf(x) (1.0f / sqrtf(x))
#define rsqrt(x) (1.0 / sqrt(x))
#define MATH_CALL_1(fn, x, m) fn(x[0].m)
#define MATH_CALL_2(fn, x, m) fn(x[0].m, x[1].m)
#define MATH_CALL_3(fn, x, m) fn(x[0].m, x[1].m, x[2].m)

/* A math function as CUDA computes it: the float function of math.h for f32 (expf),
 * the double one for f64 (exp); abs of an integer wraps (abs(INT_MIN) = INT_MIN);
 * popc counts the bits set. */
static Scalar math_eval(Prim p, ScalarKind sk, const Scalar *x)
{
    Scalar r = {0};
    if (p == P_POPC) {
        uint64_t v = ip_widen(sk, x[0]);
        int n = 0;
        for (; v; v &= v - 1) n++;
        return ip_scalar_of_int(sk, n);
    }
    if (sk != SK_F32 && sk != SK_F64) {
        if (p != P_ABS) unreachable();
        uint64_t v = ip_widen(sk, x[0]);
        return ip_scalar_of_int(sk, (int64_t)v < 0 ? (int64_t)(0u - v) : (int64_t)v);
    }
#define X(pr, n, ff, fd, ints)                                   \
    if (p == pr) {                                               \
        if (sk == SK_F32) r.f = MATH_CALL_##n(ff, x, f);         \
        else r.d = MATH_CALL_##n(fd, x, d);                      \
        return r;                                                \
    }
    MATH_FNS(X)
#undef X
    unreachable();
}
#undef rsqrtf
#undef rsqrt

/* select(c)(a)(b): all three evaluated, then a or b whole (element i of a selected
 * array is select(c)(a[i])(b[i]), c being one value); f32(x) ... bool(x): convert;
 * the math functions and popc: math_eval. neg sub div mod gt lt equal not shl shr are E_UN/E_BIN
 * after typecheck and never reach here. */
static void eval_scalar_form(IpCtx *c, const Code *e, IpVal *r)
{
    Prim p = e->p;
    if (p == P_SELECT) {
        IpVal cv, a, b;
        ip_eval(c, e->args[0], &cv);
        ip_eval(c, e->args[1], &a);
        ip_eval(c, e->args[2], &b);
        ip_val_set(r, cv.s.b ? &a : &b);
        r->ty = e->ty;
        return;
    }
    if (p >= P_TO_F32 && p <= P_TO_BOOL) {
        IpVal a;
        ip_eval(c, e->args[0], &a);
        ip_val_scalar(r, e->ty, convert(c, e->sp, e->args[0]->ty->sk, e->ty->sk, a.s));
        return;
    }
    Scalar xs[3] = {{0}};
    for (int i = 0; i < prim_info[p].nargs; i++) {
        IpVal a;
        ip_eval(c, e->args[i], &a);
        xs[i] = a.s;
    }
    ip_val_scalar(r, e->ty, math_eval(p, e->ty->sk, xs));
}

const PrimOps prims_scalar[P_COUNT] = {
    [P_ADD] = {.infer = infer_arith, .lower = lower_add_mul, .eval = eval_arith},
    [P_MUL] = {.infer = infer_arith, .lower = lower_add_mul, .eval = eval_arith},
    [P_MIN] = {.infer = infer_arith, .lower = lower_min_max, .eval = eval_arith},
    [P_MAX] = {.infer = infer_arith, .lower = lower_min_max, .eval = eval_arith},
#define FORM_ROW_(e, ...) [e] = {.infer = infer_form, .lower = lower_scalar_form, .eval = eval_scalar_form},
    SCALAR_FORMS(FORM_ROW_)
#undef FORM_ROW_
};
