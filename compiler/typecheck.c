/* typecheck.c: closed AST -> typed functional IR (Expr).
 *
 * Requires: a closed kernel term from expand.c.
 * Ensures:  every Expr has a type; array sizes are nats in normal form; every split
 *   divides its input (proved, else an error naming the sizes); take/drop/slide fit;
 *   zip sizes agree; function arguments of primitives are E_LAM of the right arity;
 *   map nestings are ones CUDA can run.
 *
 * Typing is bidirectional and spine-based: a primitive application is typed as a
 * whole, data arguments first, so the element type of the array is known before the
 * function argument is checked. Where arguments do not fix a type (generate, integer
 * literals), the expected type from the context does.
 */
#include "compiler.h"
#include "../prims/prims.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const char *uname(Tc *t, const char *n)
{
    const char *tick = strchr(n, '`');
    return tick ? arena_strndup(t->a, n, (size_t)(tick - n)) : n;
}

const char *tc_tstr(Tc *t, const Type *ty) { return ty_str(t->a, ty); }
const char *tc_nstr(Tc *t, const Nat *n) { return nat_str(t->a, n); }

static Scope *push(Tc *t, Scope *sc, const char *name, ScopeKind k, Binder *b, Nat *n)
{
    Scope *s = ANEW(t->scratch, Scope);
    s->name = name;
    s->kind = k;
    s->b = b;
    s->nat = n;
    s->next = sc;
    return s;
}

static Scope *lookup(Scope *sc, const char *name)
{
    for (; sc; sc = sc->next)
        if (strcmp(sc->name, name) == 0) return sc;
    return NULL;
}

static Binder *new_binder(Tc *t, const char *name, Type *ty, Span sp)
{
    Binder *b = ANEW(t->a, Binder);
    b->name = name;
    b->ty = ty;
    b->id = arena_next_id(t->a);
    b->sp = sp;
    return b;
}

Expr *tc_mk(Tc *t, ExprKind k, Type *ty, Span sp)
{
    Expr *e = ANEW(t->a, Expr);
    e->kind = k;
    e->ty = ty;
    e->sp = sp;
    return e;
}

/* ---------------------------------------------------------------- nat expressions */

/* nat ::= number | name | nat (+ - * / %) nat | ( nat )   (in a nat position) */
Nat *tc_nat_of(Tc *t, Ast *e, Scope *sc)
{
    nat_at(e->sp);
    switch (e->kind) {
    case A_INT:
        if (e->lit_int.v > (uint64_t)NAT_SIZE_MAX)
            diag_error(t->d, e->sp, "natural number %llu is above " NAT_SIZE_MAX_TEXT ", the largest size patc handles",
                       (unsigned long long)e->lit_int.v);
        return nat_cst(t->a, (int64_t)e->lit_int.v);
    case A_VAR: {
        Scope *s = lookup(sc, e->var.name);
        if (!s) {
            if (prim_lookup(e->var.name) >= 0)
                diag_error(t->d, e->sp, "expected a natural number, found primitive '%s'", e->var.name);
            diag_error(t->d, e->sp, "unknown natural number '%s'", uname(t, e->var.name));
        }
        if (s->kind != SC_NAT)
            diag_error(t->d, e->sp, "'%s' is a value, not a natural number (nat positions take nFun names and constants)",
                       uname(t, e->var.name));
        return s->nat;
    }
    case A_BIN: {
        Nat *l = tc_nat_of(t, e->bin.l, sc), *r = tc_nat_of(t, e->bin.r, sc);
        int64_t c;
        switch (e->bin.op) {
        case OP_ADD: return nat_add(t->a, l, r);
        case OP_SUB: return nat_sub(t->a, l, r);
        case OP_MUL: return nat_mul(t->a, l, r);
        case OP_DIV:
        case OP_MOD:
            if (nat_is_const(r, &c) && c <= 0)
                diag_error(t->d, e->bin.r->sp, "division by %s in a natural-number expression",
                           c == 0 ? "zero" : "a negative number");
            return e->bin.op == OP_DIV ? nat_div(t->a, l, r) : nat_mod(t->a, l, r);
        case OP_BAND: case OP_BOR: case OP_BXOR: case OP_SHL: case OP_SHR:
        case OP_LT: case OP_GT: case OP_LE: case OP_GE: case OP_EQ: case OP_NE: case OP_AND: case OP_OR:
        case OP_COUNT: break;
        }
        diag_error(t->d, e->sp, "operator '%s' is not allowed in a natural-number expression",
                   binop_spelling[e->bin.op]);
    }
    case A_FLOAT:
        diag_error(t->d, e->sp, "expected a natural number, found a floating-point literal");
    case A_BOOL: case A_DIM: case A_APP: case A_LAM: case A_NLAM: case A_LET: case A_UN:
        diag_error(t->d, e->sp, "expected a natural-number expression here");
    }
    unreachable();
}

/* A nat argument that must be positive (a split size, a slide step). */
Nat *tc_pos_nat_of(Tc *t, Ast *e, Scope *sc, const char *what)
{
    Nat *n = tc_nat_of(t, e, sc);
    int64_t c;
    if (nat_is_const(n, &c) && c <= 0) diag_error(t->d, e->sp, "%s must be positive, got %lld", what, (long long)c);
    return n;
}

Type *tc_type_of(Tc *t, TypeExpr *te, Scope *sc)
{
    switch (te->kind) {
    case TE_SCALAR: return ty_scalar(t->a, te->sk);
    case TE_ARRAY: return ty_array(t->a, tc_nat_of(t, te->arr.size, sc), tc_type_of(t, te->arr.elem, sc));
    case TE_PAIR: return ty_pair(t->a, tc_type_of(t, te->pair.a, sc), tc_type_of(t, te->pair.b, sc));
    case TE_IDX: return ty_idx(t->a, tc_nat_of(t, te->idx.size, sc));
    }
    unreachable();
}

/* ---------------------------------------------------------------- helpers */

bool tc_is_scalar(const Type *ty) { return ty->kind == T_SCALAR || ty->kind == T_IDX; }
/* idx[n] computes as i32 */
ScalarKind tc_num_kind(const Type *ty) { return ty->kind == T_IDX ? SK_I32 : ty->sk; }
/* what idx, gather and shflWarp accept as an index: idx[n], i32, u32 or i64 */
bool tc_is_index(const Type *ty)
{
    return ty->kind == T_IDX ||
           (ty->kind == T_SCALAR && (ty->sk == SK_I32 || ty->sk == SK_U32 || ty->sk == SK_I64));
}

Type *tc_want_array(Tc *t, Expr *e, const char *prim)
{
    if (e->ty->kind != T_ARRAY)
        diag_error(t->d, e->sp, "%s expects an array, but this has type %s", prim, tc_tstr(t, e->ty));
    return e->ty;
}

Type *tc_want_2d(Tc *t, Expr *e, const char *prim)
{
    Type *ty = tc_want_array(t, e, prim);
    if (ty->arr.elem->kind != T_ARRAY)
        diag_error(t->d, e->sp, "%s expects an array of arrays, but this has type %s", prim, tc_tstr(t, e->ty));
    return ty;
}

/* An expected type is adopted by an unsuffixed integer literal when it is an integer
 * type; any other mismatch is reported by the caller. */
static Expr *lit_int(Tc *t, Ast *e, Type *expected)
{
    ScalarKind sk = e->lit_int.sk;
    if (!e->lit_int.suffixed && expected && expected->kind == T_SCALAR && !scalar_info[expected->sk].is_float &&
        expected->sk != SK_BOOL)
        sk = expected->sk;
    if (!e->lit_int.suffixed && expected && expected->kind == T_SCALAR && scalar_info[expected->sk].is_float)
        diag_error(t->d, e->sp, "integer literal where %s is expected; write %llu.0%s", scalar_info[expected->sk].name,
                   (unsigned long long)e->lit_int.v, expected->sk == SK_F32 ? "f" : "");
    uint64_t max = sk == SK_I32 ? (uint64_t)INT32_MAX : sk == SK_U32 ? UINT32_MAX : sk == SK_I64 ? (uint64_t)INT64_MAX : UINT64_MAX;
    if (e->lit_int.v > max)
        diag_error(t->d, e->sp, "integer literal %llu does not fit in %s", (unsigned long long)e->lit_int.v,
                   scalar_info[sk].name);
    Expr *r = tc_mk(t, E_LIT, ty_scalar(t->a, sk), e->sp);
    r->lit.u = e->lit_int.v;
    return r;
}

/* Application spine: head and arguments in source order. */
static Ast *spine(Ast *e, Ast **args, int *n, int max)
{
    int k = 0;
    for (Ast *p = e; p->kind == A_APP; p = p->app.fn) k++;
    *n = k;
    Ast *p = e;
    for (int i = k - 1; i >= 0; i--, p = p->app.fn)
        if (i < max) args[i] = p->app.arg;
    return p;
}

/* ---------------------------------------------------------------- function arguments */

/* A definition called with a computed argument returns `let y = v in fun(p => b)`
 * (expand.c let-binds such an argument), which is the function fun(p => let y = v
 * in b) where a function is expected: binder names are unique after expansion, so p
 * is not free in v, and evaluating v at each call means the same, the language having
 * no effects. Lets whose body is not (after more lets) a lambda stay as they are. */
static Ast *float_lets(Tc *t, Ast *f)
{
    if (f->kind != A_LET) return f;
    Ast *inner = float_lets(t, f->let.body);
    if (inner->kind != A_LAM) return f;
    Ast *l = ast_new(t->a, A_LET, f->sp);
    l->let.name = f->let.name;
    l->let.value = f->let.value;
    l->let.uses = f->let.uses;
    l->let.body = inner->lam.body;
    return ast_lam(t->a, inner->sp, inner->lam.param, inner->lam.ptype, l);
}

/* Check a function argument against parameter types `ps` (curried), giving E_LAM
 * chains. A primitive used as a function (reduceSeq(add), mapLane(id)) is
 * eta-expanded: add  ==>  fun(a => fun(b => add(a)(b))). */
Expr *tc_check_fun(Tc *t, Ast *f, Type **ps, int np, Scope *sc, Type *ret_expected, Span at)
{
    f = float_lets(t, f);
    if (f->kind != A_LAM) {
        int n;
        Ast *args[10];
        Ast *h = spine(f, args, &n, 10);
        if (h->kind == A_VAR && !strchr(h->var.name, '`') && prim_lookup(h->var.name) >= 0) {
            Ast *body = f;
            const char *names[4];
            for (int i = 0; i < np; i++) {
                names[i] = arena_printf(t->a, "eta`%d", arena_next_id(t->a));
                body = ast_app(t->a, f->sp, body, ast_var(t->a, f->sp, names[i]));
            }
            for (int i = np - 1; i >= 0; i--) body = ast_lam(t->a, f->sp, names[i], NULL, body);
            f = body;
        } else if (f->kind == A_VAR && lookup(sc, f->var.name)) {
            diag_error(t->d, f->sp, "'%s' is data, but a function is expected here", uname(t, f->var.name));
        } else {
            diag_error(t->d, f->sp, "expected a function here (fun(x => ...) or a primitive)");
        }
    }
    Expr *lam = tc_mk(t, E_LAM, NULL, f->sp);
    Type *pty = ps[0];
    if (f->lam.ptype) {
        Type *ann = tc_type_of(t, f->lam.ptype, sc);
        if (!ty_equal(ann, pty))
            diag_error(t->d, f->lam.ptype->sp, "parameter annotated %s, but it receives %s", tc_tstr(t, ann), tc_tstr(t, pty));
    }
    lam->lam.param = new_binder(t, f->lam.param, pty, f->sp);
    Scope *inner = push(t, sc, f->lam.param, SC_DATA, lam->lam.param, NULL);
    if (np > 1) {
        if (f->lam.body->kind != A_LAM && f->lam.body->kind != A_APP && f->lam.body->kind != A_VAR &&
            float_lets(t, f->lam.body)->kind != A_LAM)
            diag_error(t->d, f->lam.body->sp, "expected a function of %d parameters here", np);
        lam->lam.body = tc_check_fun(t, f->lam.body, ps + 1, np - 1, inner, ret_expected, at);
    } else {
        t->fdepth++;
        lam->lam.body = tc_infer(t, f->lam.body, inner, ret_expected);
        t->fdepth--;
    }
    Type *rt = lam->lam.body->ty;
    lam->ty = ty_fun(t->a, pty, rt);
    return lam;
}

/* The result type of a checked curried lambda of np parameters. */
Type *tc_fun_result(Expr *lam, int np)
{
    for (int i = 1; i < np; i++) lam = lam->lam.body;
    return lam->lam.body->ty;
}

/* ---------------------------------------------------------------- nesting */

/* A level is named by the first map primitive of that level in the table. */
static const char *level_name(Level l)
{
    for (int p = 0; p < P_COUNT; p++)
        if (prim_info[p].level == (int)l) return prim_info[p].name;
    unreachable();
}

/* Allowed nestings (outer -> inner), each in a dimension not already used by the
 * same level:
 *   top -> mapGlobal | mapBlock | mapThreads | mapWarp
 *   mapGlobal -> mapGlobal;  mapBlock -> mapBlock | mapThreads | mapWarp
 *   mapThreads -> mapThreads;  mapWarp -> mapLane | mapWarp;  mapLane -> mapLane? no
 * mapSeq may appear anywhere and does not change the context. */
void tc_check_nesting(Tc *t, Level l, int dim, Span sp)
{
    TcMaps *c = &t->ctx;
    Level outer = LVL_SEQ;
    for (int i = 0; i < c->n; i++) {
        if (c->lv[i] == l && c->dim[i] == dim)
            diag_error2(t->d, sp, c->sp[i], "the enclosing map is here",
                        "%s('%c') nested inside %s('%c'): each dimension can be distributed once", level_name(l),
                        "xyz"[dim], level_name(c->lv[i]), "xyz"[c->dim[i]]);
        outer = c->lv[i];
    }
    bool ok = true;
    switch (l) {
    case LVL_GLOBAL: ok = outer == LVL_SEQ || outer == LVL_GLOBAL; break;
    case LVL_BLOCK: ok = outer == LVL_SEQ || outer == LVL_BLOCK; break;
    case LVL_THREADS: ok = outer == LVL_SEQ || outer == LVL_BLOCK || outer == LVL_THREADS; break;
    case LVL_WARP: ok = outer == LVL_SEQ || outer == LVL_BLOCK || outer == LVL_WARP; break;
    case LVL_LANE: ok = outer == LVL_WARP || outer == LVL_LANE; break;
    case LVL_SEQ: break;
    }
    if (!ok) {
        if (l == LVL_LANE)
            diag_error(t->d, sp, "mapLane must be nested inside mapWarp%s%s", outer == LVL_SEQ ? "" : ", not inside ",
                       outer == LVL_SEQ ? "" : level_name(outer));
        diag_error(t->d, sp, "%s cannot run inside %s: CUDA has no such nesting", level_name(l), level_name(outer));
    }
}

/* ---------------------------------------------------------------- primitives */

Expr *tc_prim_expr(Tc *t, Prim p, Type *ty, Span sp)
{
    Expr *e = tc_mk(t, E_PRIM, ty, sp);
    e->prim.p = p;
    return e;
}

/* The A_APP case keeps 10 arguments: a primitive's dimension, nats and arguments, and
 * the first extra one, where "too many arguments" is reported. */
#define X(e, n, nn, na, ...) _Static_assert(1 + (nn) + (na) < 10, n ": more arguments than infer_node keeps");
PRIMITIVES(X)
#undef X

/* p(args): the arity and the dimension checked here, the rest by the type rule of p
 * (prims/) */
static Expr *infer_prim(Tc *t, Ast *whole, Prim p, Ast **args, int n, Scope *sc, Type *expected)
{
    const PrimInfo *pi = &prim_info[p];
    Span sp = whole->sp;
    int dim = 0, first = 0;
    if (pi->has_dim && n >= 1 && args[0]->kind == A_DIM) {
        dim = args[0]->dim.d;
        first = 1;
    }
    int want = first + pi->nnats + pi->nargs;
    if (n < want)
        diag_error(t->d, sp, "'%s' is applied to %d argument%s but takes %d", pi->name, n - first,
                   n - first == 1 ? "" : "s", want - first);
    if (n > want)
        diag_error(t->d, args[want]->sp, "too many arguments: '%s' takes %d", pi->name, want - first);
    for (int i = 0; i < n; i++)
        if (args[i]->kind == A_DIM && i != 0)
            diag_error(t->d, args[i]->sp, "a dimension literal is only allowed as the first argument of a map");
    if (args[0]->kind == A_DIM && !pi->has_dim)
        diag_error(t->d, args[0]->sp, "'%s' takes no dimension", pi->name);

    Ast **nat = args + first, **arg = args + first + pi->nnats;
    TcApp ap = {.p = p, .dim = dim, .nat = nat, .arg = arg, .sc = sc, .expected = expected, .sp = sp};
    if (!prim_ops(p)->infer) die("primitive %s has no type rule in prims/", pi->name);
    return prim_ops(p)->infer(t, &ap);
}

/* ---------------------------------------------------------------- expressions */

static bool is_literal(Ast *e)
{
    return e->kind == A_INT || e->kind == A_FLOAT || (e->kind == A_UN && is_literal(e->un.e));
}

/* Binary operators: both sides one scalar type (idx computes as i32); an unsuffixed
 * literal adopts the other side's integer type. Arithmetic keeps the type, comparisons
 * give bool, && and || take bools; % and the bitwise operators (& | ^, shl, shr) take
 * integers only. */
Expr *tc_infer_bin(Tc *t, Ast *e, Scope *sc, Type *expected, const char *who)
{
    Expr *l, *r;
    if (!who) who = arena_printf(t->a, "operator '%s'", binop_spelling[e->bin.op]);
    bool arith = binop_keeps_type(e->bin.op), logic = e->bin.op == OP_AND || e->bin.op == OP_OR;
    Type *hint = arith ? expected : NULL;
    if (is_literal(e->bin.l) && !is_literal(e->bin.r)) {
        r = tc_infer(t, e->bin.r, sc, hint);
        l = tc_infer(t, e->bin.l, sc, r->ty->kind == T_IDX ? ty_scalar(t->a, SK_I32) : r->ty);
    } else {
        l = tc_infer(t, e->bin.l, sc, hint);
        r = tc_infer(t, e->bin.r, sc, l->ty->kind == T_IDX ? ty_scalar(t->a, SK_I32) : l->ty);
    }
    if (!tc_is_scalar(l->ty) || !tc_is_scalar(r->ty))
        diag_error(t->d, e->sp, "%s takes scalars, got %s and %s", who, tc_tstr(t, l->ty), tc_tstr(t, r->ty));
    ScalarKind a = tc_num_kind(l->ty), b = tc_num_kind(r->ty);
    if (a != b)
        diag_error(t->d, e->sp, "%s on different types %s and %s (there are no implicit conversions)", who,
                   scalar_info[a].name, scalar_info[b].name);
    if (logic && a != SK_BOOL)
        diag_error(t->d, e->sp, "%s takes bool operands, got %s", who, scalar_info[a].name);
    if (!logic && a == SK_BOOL && e->bin.op != OP_EQ && e->bin.op != OP_NE)
        diag_error(t->d, e->sp, "%s does not apply to bool", who);
    if ((e->bin.op == OP_MOD || binop_is_bitwise(e->bin.op)) && scalar_info[a].is_float)
        diag_error(t->d, e->sp, "%s is defined on integers only, got %s", who, scalar_info[a].name);
    Expr *x = tc_mk(t, E_BIN, ty_scalar(t->a, arith ? a : SK_BOOL), e->sp);
    x->bin.op = e->bin.op;
    x->bin.l = l;
    x->bin.r = r;
    return x;
}

/* Built only from integer literals, nat names and + - * / %. */
static bool nat_like(const Ast *e, Scope *sc)
{
    switch (e->kind) {
    case A_INT: return !e->lit_int.suffixed;
    case A_VAR: {
        Scope *s = lookup(sc, e->var.name);
        return s && s->kind == SC_NAT;
    }
    case A_BIN: return e->bin.op <= OP_MOD && nat_like(e->bin.l, sc) && nat_like(e->bin.r, sc);
    case A_FLOAT: case A_BOOL: case A_DIM: case A_APP: case A_LAM: case A_NLAM: case A_LET: case A_UN: return false;
    }
    unreachable();
}

static Expr *infer_node(Tc *t, Ast *e, Scope *sc, Type *expected)
{
    Expr *x;
    switch (e->kind) {
    case A_VAR: {
        Scope *s = lookup(sc, e->var.name);
        if (s && s->kind == SC_DATA) {
            x = tc_mk(t, E_VAR, s->b->ty, e->sp);
            x->var.b = s->b;
            return x;
        }
        if (s) { /* a nat used as a value */
            x = tc_mk(t, E_NAT, ty_scalar(t->a, SK_I32), e->sp);
            x->nat.n = s->nat;
            return x;
        }
        if (prim_lookup(e->var.name) >= 0)
            diag_error(t->d, e->sp, "primitive '%s' used without its arguments", e->var.name);
        diag_error(t->d, e->sp, "unknown name '%s'", uname(t, e->var.name));
    }
    case A_INT: return lit_int(t, e, expected);
    case A_FLOAT: {
        /* a finite value past f32's range; inff itself is a value of it */
        if (e->lit_float.sk == SK_F32 && isfinite(e->lit_float.v) && isinf((float)e->lit_float.v))
            diag_error(t->d, e->sp, "floating-point literal is out of range for f32");
        x = tc_mk(t, E_LIT, ty_scalar(t->a, e->lit_float.sk), e->sp);
        x->lit.f = e->lit_float.v;
        return x;
    }
    case A_BOOL:
        x = tc_mk(t, E_LIT, ty_scalar(t->a, SK_BOOL), e->sp);
        x->lit.b = e->lit_bool.v;
        return x;
    case A_DIM: diag_error(t->d, e->sp, "a dimension literal is only allowed as the first argument of a map");
    case A_LAM:
    case A_NLAM: diag_error(t->d, e->sp, "a function is used where data is expected");
    case A_LET: {
        if (nat_like(e->let.value, sc)) /* a nat argument of a definition: bind it as a nat */
            return tc_infer(t, e->let.body, push(t, sc, e->let.name, SC_NAT, NULL, tc_nat_of(t, e->let.value, sc)), expected);
        Expr *v = tc_infer(t, e->let.value, sc, NULL);
        Binder *b = new_binder(t, e->let.name, v->ty, e->sp);
        b->uses = e->let.uses;
        Expr *body = tc_infer(t, e->let.body, push(t, sc, e->let.name, SC_DATA, b, NULL), expected);
        x = tc_mk(t, E_LET, body->ty, e->sp);
        x->let.x = b;
        x->let.value = v;
        x->let.body = body;
        return x;
    }
    case A_BIN: return tc_infer_bin(t, e, sc, expected, NULL);
    case A_UN: {
        if (e->un.op == UOP_NEG && (e->un.e->kind == A_INT || e->un.e->kind == A_FLOAT)) {
            /* -literal: fold, so -2147483648 is not rejected as 2147483648 */
            Expr *v = tc_infer(t, e->un.e, sc, expected);
            if (scalar_info[v->ty->sk].is_float) v->lit.f = -v->lit.f;
            else if (!scalar_info[v->ty->sk].is_signed) diag_error(t->d, e->sp, "negative literal of unsigned type %s", scalar_info[v->ty->sk].name);
            else v->lit.i = -v->lit.i;
            v->sp = e->sp;
            return v;
        }
        Expr *v = tc_infer(t, e->un.e, sc, expected);
        if (!tc_is_scalar(v->ty)) diag_error(t->d, e->sp, "unary operator on %s", tc_tstr(t, v->ty));
        ScalarKind k = tc_num_kind(v->ty);
        if (e->un.op == UOP_NOT && k != SK_BOOL) diag_error(t->d, e->sp, "'!' takes a bool, got %s", scalar_info[k].name);
        if (e->un.op == UOP_BNOT && (k == SK_BOOL || scalar_info[k].is_float))
            diag_error(t->d, e->sp, "'~' takes an integer, got %s", scalar_info[k].name);
        if (e->un.op == UOP_NEG && (k == SK_BOOL || !scalar_info[k].is_signed))
            diag_error(t->d, e->sp, "unary '-' does not apply to %s", scalar_info[k].name);
        x = tc_mk(t, E_UN, ty_scalar(t->a, k), e->sp);
        x->un.op = e->un.op;
        x->un.e = v;
        return x;
    }
    case A_APP: {
        /* one applied to more arguments than it takes: infer_prim says so at the first
         * extra one (no primitive takes 10) */
        Ast *args[10];
        int n;
        Ast *h = spine(e, args, &n, 10);
        if (h->kind == A_VAR) {
            Scope *s = lookup(sc, h->var.name);
            if (s) diag_error(t->d, h->sp, "'%s' is not a function", uname(t, h->var.name));
            int p = prim_lookup(h->var.name);
            if (p >= 0) return infer_prim(t, e, (Prim)p, args, n, sc, expected);
            diag_error(t->d, h->sp, "unknown name '%s'", uname(t, h->var.name));
        }
        diag_error(t->d, h->sp, "this is applied to an argument but is not a function");
    }
    }
    unreachable();
}

/* No array size is negative, and a kernel's data parameters and result have at least
 * one element: a size that is a constant below `least`, or provably below it for every
 * value of the nat parameters, is an error where it arises (`(n - n - 1).f32`,
 * `fun(0.f32)`). Inside a program an empty array is allowed: the tail of a grid-stride
 * reduction is empty when the grid divides n. A constant size is at most NAT_SIZE_MAX
 * (-D n=2^62 and a padCst(1)): past it, the error is here, at the expression, rather
 * than in the launch arithmetic made later. Sizes that are in range only for some
 * values are checked by the runtime at launch. */
static void check_sizes(Tc *t, const Type *ty, Span sp, int64_t least)
{
    switch (ty->kind) {
    case T_SCALAR:
    case T_IDX: return;
    case T_ARRAY: {
        int64_t c;
        Nat *n = ty->arr.n;
        if (nat_is_const(n, &c) ? c < least : nat_prove_lt(t->a, n, nat_cst(t->a, least)))
            diag_error(t->d, sp, "array size %s is %s: %s (this has type %s)", tc_nstr(t, n),
                       !nat_is_const(n, &c) ? (least ? "never positive" : "never >= 0") : c == 0 ? "zero" : "negative",
                       least ? "kernel inputs and results have at least one element" : "sizes are never negative",
                       tc_tstr(t, ty));
        if (nat_is_const(n, &c) && c > NAT_SIZE_MAX)
            diag_error(t->d, sp, "array size %lld%s is above " NAT_SIZE_MAX_TEXT ", the largest size patc handles (this "
                       "has type %s)", (long long)c, t->fixed, tc_tstr(t, ty));
        check_sizes(t, ty->arr.elem, sp, least);
        return;
    }
    case T_PAIR:
        check_sizes(t, ty->pair.a, sp, least);
        check_sizes(t, ty->pair.b, sp, least);
        return;
    case T_FUN:
        check_sizes(t, ty->fun.param, sp, least);
        check_sizes(t, ty->fun.ret, sp, least);
        return;
    }
    unreachable();
}

/* infer_node with the node's span as the place of size errors, restored for the
 * caller when the node is typed (so a size built from the results of the arguments
 * is reported at the whole application). */
Expr *tc_infer(Tc *t, Ast *e, Scope *sc, Type *expected)
{
    if (lang_stack_left() < LANG_STACK_RESERVE) diag_error(t->d, e->sp, "program nested too deeply to type-check");
    Span saved = t->cur;
    t->cur = e->sp;
    nat_at(e->sp);
    Expr *x = infer_node(t, e, sc, expected);
    check_sizes(t, x->ty, e->sp, 0);
    t->cur = saved;
    nat_at(saved);
    return x;
}

/* ---------------------------------------------------------------- kernels */

static void check_storable(Tc *t, const Type *ty, Span sp, const char *what)
{
    Nat *cnt;
    const Type *s = ty_innermost(t->a, ty, &cnt);
    if (!s || (ty->kind != T_ARRAY && ty->kind != T_SCALAR))
        diag_error(t->d, sp, "%s of type %s: kernel inputs and outputs must be scalars or (nested) arrays of scalars",
                   what, tc_tstr(t, ty));
}

/* A kernel's result is a scalar, an array of scalars, or a pair of results (each leaf
 * its own output buffer). An array of pairs is not: its elements would have to be split
 * over two buffers, which unzip says explicitly. The error is at the component of a
 * pair(..)(..) result that is wrong, when the result is written as one. */
static void check_result(Tc *t, const Expr *e, const Type *ty, Span sp)
{
    if (e && e->kind == E_LET) {
        check_result(t, e->let.body, ty, e->let.body->sp);
        return;
    }
    if (ty->kind == T_PAIR) {
        bool lit = e && e->kind == E_PRIM && e->prim.p == P_PAIR;
        check_result(t, lit ? e->prim.args[0] : NULL, ty->pair.a, lit ? e->prim.args[0]->sp : sp);
        check_result(t, lit ? e->prim.args[1] : NULL, ty->pair.b, lit ? e->prim.args[1]->sp : sp);
        return;
    }
    Nat *cnt;
    if (ty->kind == T_ARRAY && !ty_innermost(t->a, ty, &cnt)) {
        /* what the message suggests must compile: unzip makes a pair of arrays of the
         * sides, outputs when the sides are no pairs themselves */
        const Type *el = ty->arr.elem;
        bool flat = el->kind == T_PAIR && el->pair.a->kind != T_PAIR && el->pair.b->kind != T_PAIR &&
                    ty_innermost(t->a, el->pair.a, &cnt) && ty_innermost(t->a, el->pair.b, &cnt);
        if (flat)
            diag_error(t->d, sp, "kernel result of type %s: an array of pairs is not an output; return a pair of "
                       "arrays, one output each: append |> unzip", tc_tstr(t, ty));
        diag_error(t->d, sp, "kernel result of type %s: an array of pairs is not an output; return a pair of "
                   "arrays, one output each, made by a map for each component: pair(xs |> mapGlobal(f))(xs |> "
                   "mapGlobal(g))", tc_tstr(t, ty));
    }
    check_storable(t, ty, sp, "kernel result");
}

/* A nat parameter that alone makes a dimension of a data parameter's type (n in
 * fun(n.f32) or fun((4*n).f32)) is a length of data given at launch, not a shape of the
 * code: hint.c never suggests fixing it with -D (a kernel for one length; a check about
 * it wants padding, as its error says). One of several (m in (r*m).f32) may be either. */
static void mark_data_lengths(const Type *ty)
{
    NatVar *v;
    switch (ty->kind) {
    case T_SCALAR:
    case T_IDX: return;
    case T_ARRAY:
        if (nat_vars(ty->arr.n, &v, 1) == 1) v->data_len = true;
        mark_data_lengths(ty->arr.elem);
        return;
    case T_PAIR:
        mark_data_lengths(ty->pair.a);
        mark_data_lengths(ty->pair.b);
        return;
    case T_FUN:
        mark_data_lengths(ty->fun.param);
        mark_data_lengths(ty->fun.ret);
        return;
    }
    unreachable();
}

/* kernel K = nFun(n1 => ... nFun(nk => fun(T1)(x1 => ... fun(Tm)(xm => body)))) */
KernelDef *typecheck_kernel(Arena *a, Diag *d, const Decl *k, Ast *closed, const Define *defs, int ndefs)
{
    Tc t = {.a = a, .scratch = arena_scratch_begin(a), .d = d, .cur = k->sp, .fixed = ""};
    const char *fixed = NULL;
    KernelDef *kd = ANEW(a, KernelDef);
    kd->name = k->name;
    kd->sp = k->sp;
    /* sized by the kernel's own binders (at most 32 of each, checked below): a
     * program of many small kernels pays for what they have */
    int nn = 0, np = 0;
    Ast *e = closed;
    for (; e->kind == A_NLAM; e = e->lam.body) nn++;
    for (; e->kind == A_LAM && e->lam.ptype; e = e->lam.body) np++;
    kd->nats = ANEWN(a, NatVar *, nn < 32 ? nn + 1 : 32);
    kd->params = ANEWN(a, Binder *, np < 32 ? np + 1 : 32);
    Scope *sc = NULL;
    e = closed;
    while (e->kind == A_NLAM) {
        const char *un = uname(&t, e->lam.param);
        Nat *val = NULL;
        for (int i = 0; i < ndefs; i++)
            if (strcmp(defs[i].name, un) == 0) {
                val = nat_cst(a, defs[i].value);
                fixed = arena_printf(a, "%s%s-D %s=%lld", fixed ? fixed : "", fixed ? ", " : "", un,
                                     (long long)defs[i].value);
            }
        if (!val) {
            if (kd->nnats == 32)
                diag_error(d, e->sp, "too many nat parameters: a kernel has at most 32 (those fixed with -D do not "
                           "count)");
            NatVar *v = nat_newvar(a, un, 1, NULL); /* nat parameters are positive */
            v->param = true;
            kd->nats[kd->nnats++] = v;
            val = nat_var(a, v);
        }
        sc = push(&t, sc, e->lam.param, SC_NAT, NULL, val);
        e = e->lam.body;
    }
    if (fixed) t.fixed = arena_printf(a, " (with %s)", fixed);
    while (e->kind == A_LAM && e->lam.ptype) {
        if (kd->nparams == 32)
            diag_error(d, e->sp, "too many kernel parameters: a kernel has at most 32 (arrays of one type and size "
                       "can be passed as one array of one more dimension)");
        nat_at(e->lam.ptype->sp);
        Type *ty = tc_type_of(&t, e->lam.ptype, sc);
        check_sizes(&t, ty, e->lam.ptype->sp, 1);
        check_storable(&t, ty, e->lam.ptype->sp, "kernel parameter");
        mark_data_lengths(ty);
        Binder *b = new_binder(&t, e->lam.param, ty, e->sp);
        kd->params[kd->nparams++] = b;
        sc = push(&t, sc, e->lam.param, SC_DATA, b, NULL);
        e = e->lam.body;
    }
    if (e->kind == A_LAM)
        diag_error(d, e->sp, "kernel parameter '%s' needs a type: write fun(T)(%s => ...)", uname(&t, e->lam.param),
                   uname(&t, e->lam.param));
    if (kd->nparams == 0 && kd->nnats == 0 && e->kind != A_APP)
        diag_error(d, k->sp, "kernel '%s' is not a typed function: write kernel %s = nFun(n => fun(n.f32)(xs => ...))",
                   k->name, k->name);
    kd->body = tc_infer(&t, e, sc, NULL);
    check_sizes(&t, kd->body->ty, kd->body->sp, 1);
    check_result(&t, kd->body, kd->body->ty, kd->body->sp);
    arena_scratch_end(a, t.scratch);
    return kd;
}
