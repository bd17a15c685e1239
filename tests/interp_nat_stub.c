/* interp_nat_stub.c: a STUB of nat.c for tests/test_interp.c only.
 *
 * It builds nat nodes without normalising them (constants are folded so that test
 * types come out as plain numbers) and evaluates constants, variables, sums, products
 * and floor divisions. The real nat.c replaces it when the test is built with the rest
 * of the compiler. */
#include "../compiler/nat.h"

#include <string.h>

static Nat *mk(Arena *a, NatKind k)
{
    Nat *n = ANEW(a, Nat);
    n->kind = k;
    return n;
}

NatVar *nat_newvar(Arena *a, const char *name, int64_t lb, Nat *ub)
{
    NatVar *v = ANEW(a, NatVar);
    v->name = name;
    v->lb = lb;
    v->ub = ub;
    v->id = arena_next_id(a);
    return v;
}

Nat *nat_cst(Arena *a, int64_t v)
{
    Nat *n = mk(a, N_CST);
    n->cst = v;
    return n;
}

Nat *nat_var(Arena *a, NatVar *v)
{
    Nat *n = mk(a, N_VAR);
    n->var = v;
    return n;
}

/* c1 + c2 -> c; else a two-term sum */
Nat *nat_add(Arena *a, Nat *x, Nat *y)
{
    if (x->kind == N_CST && y->kind == N_CST) return nat_cst(a, x->cst + y->cst);
    Nat *n = mk(a, N_SUM);
    n->sum.terms = ANEWN(a, Nat *, 2);
    n->sum.terms[0] = x;
    n->sum.terms[1] = y;
    n->sum.n = 2;
    return n;
}

/* c1 * c2 -> c; else a product with coefficient 1 */
Nat *nat_mul(Arena *a, Nat *x, Nat *y)
{
    if (x->kind == N_CST && y->kind == N_CST) return nat_cst(a, x->cst * y->cst);
    Nat *n = mk(a, N_PROD);
    n->prod.coef = 1;
    n->prod.factors = ANEWN(a, Nat *, 2);
    n->prod.factors[0] = x;
    n->prod.factors[1] = y;
    n->prod.n = 2;
    return n;
}

/* x - y = x + (-1) * y */
Nat *nat_sub(Arena *a, Nat *x, Nat *y)
{
    if (x->kind == N_CST && y->kind == N_CST) return nat_cst(a, x->cst - y->cst);
    Nat *m = nat_mul(a, nat_cst(a, 1), y);
    m->prod.coef = -1;
    return nat_add(a, x, m);
}

static int64_t fdiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* c1 / c2 -> floor; else a division node */
Nat *nat_div(Arena *a, Nat *x, Nat *y)
{
    if (x->kind == N_CST && y->kind == N_CST && y->cst > 0) return nat_cst(a, fdiv(x->cst, y->cst));
    Nat *n = mk(a, N_DIV);
    n->bin.l = x;
    n->bin.r = y;
    return n;
}

/* x - y * (x / y) */
Nat *nat_mod(Arena *a, Nat *x, Nat *y) { return nat_sub(a, x, nat_mul(a, y, nat_div(a, x, y))); }

bool nat_eval(const Nat *x, const NatEnv *env, int64_t *out)
{
    int64_t v, w;
    switch (x->kind) {
    case N_CST: *out = x->cst; return true;
    case N_VAR:
        if (x->var->id < 0 || x->var->id >= env->n || !env->has[x->var->id]) return false;
        *out = env->vals[x->var->id];
        return true;
    case N_SUM:
        v = 0;
        for (int i = 0; i < x->sum.n; i++) {
            if (!nat_eval(x->sum.terms[i], env, &w)) return false;
            v += w;
        }
        *out = v;
        return true;
    case N_PROD:
        v = x->prod.coef;
        for (int i = 0; i < x->prod.n; i++) {
            if (!nat_eval(x->prod.factors[i], env, &w)) return false;
            v *= w;
        }
        *out = v;
        return true;
    case N_DIV:
        if (!nat_eval(x->bin.l, env, &v) || !nat_eval(x->bin.r, env, &w) || w <= 0) return false;
        *out = fdiv(v, w);
        return true;
    case N_MIN: case N_MAX:
        if (!nat_eval(x->bin.l, env, &v) || !nat_eval(x->bin.r, env, &w)) return false;
        *out = (x->kind == N_MIN) == (v < w) ? v : w;
        return true;
    }
    return false;
}

/* structural equality (enough for the stub's unnormalised nodes) */
bool nat_equal(const Nat *x, const Nat *y)
{
    if (x == y) return true;
    if (x->kind != y->kind) return false;
    switch (x->kind) {
    case N_CST: return x->cst == y->cst;
    case N_VAR: return x->var == y->var;
    case N_SUM:
        if (x->sum.n != y->sum.n) return false;
        for (int i = 0; i < x->sum.n; i++)
            if (!nat_equal(x->sum.terms[i], y->sum.terms[i])) return false;
        return true;
    case N_PROD:
        if (x->prod.coef != y->prod.coef || x->prod.n != y->prod.n) return false;
        for (int i = 0; i < x->prod.n; i++)
            if (!nat_equal(x->prod.factors[i], y->prod.factors[i])) return false;
        return true;
    default: return nat_equal(x->bin.l, y->bin.l) && nat_equal(x->bin.r, y->bin.r);
    }
}

void nat_print(StrBuf *b, const Nat *x)
{
    switch (x->kind) {
    case N_CST: sb_printf(b, "%lld", (long long)x->cst); return;
    case N_VAR: sb_puts(b, x->var->name); return;
    case N_SUM:
        sb_putc(b, '(');
        for (int i = 0; i < x->sum.n; i++) {
            if (i) sb_puts(b, " + ");
            nat_print(b, x->sum.terms[i]);
        }
        sb_putc(b, ')');
        return;
    case N_PROD:
        sb_printf(b, "(%lld", (long long)x->prod.coef);
        for (int i = 0; i < x->prod.n; i++) {
            sb_puts(b, " * ");
            nat_print(b, x->prod.factors[i]);
        }
        sb_putc(b, ')');
        return;
    default:
        sb_putc(b, '(');
        nat_print(b, x->bin.l);
        sb_puts(b, x->kind == N_DIV ? " / " : x->kind == N_MIN ? " min " : " max ");
        nat_print(b, x->bin.r);
        sb_putc(b, ')');
        return;
    }
}
