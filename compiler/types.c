/* types.c: type constructors, equality and printing; the primitive and atomic-operator tables. */
#include "compiler.h"

#include <string.h>

const AtomInfo atom_info[ATOM_COUNT] = {
#define X(e, name, cuda) [e] = {name, cuda},
    ATOM_OPS(X)
#undef X
};

const PrimInfo prim_info[P_COUNT] = {
#define UNPAREN(...) __VA_ARGS__
#define X(e, n, nn, na, d, lvl, sh, fn, fam) [e] = {n, nn, na, d, lvl, sh, {UNPAREN fn}, fam},
    PRIMITIVES(X)
#undef X
#undef UNPAREN
};

/* The primitive named `name`, or -1 (a linear scan: the table is small). */
int prim_lookup(const char *name)
{
    for (int i = 0; i < P_COUNT; i++)
        if (strcmp(prim_info[i].name, name) == 0) return i;
    return -1;
}

static Type *ty_new(Arena *a, TypeKind k)
{
    Type *t = ANEW(a, Type);
    t->kind = k;
    return t;
}

Type *ty_scalar(Arena *a, ScalarKind sk)
{
    Type *t = ty_new(a, T_SCALAR);
    t->sk = sk;
    return t;
}

Type *ty_array(Arena *a, Nat *n, Type *elem)
{
    Type *t = ty_new(a, T_ARRAY);
    t->arr.n = n;
    t->arr.elem = elem;
    return t;
}

Type *ty_pair(Arena *a, Type *x, Type *y)
{
    Type *t = ty_new(a, T_PAIR);
    t->pair.a = x;
    t->pair.b = y;
    return t;
}

Type *ty_idx(Arena *a, Nat *n)
{
    Type *t = ty_new(a, T_IDX);
    t->idx.n = n;
    return t;
}

Type *ty_fun(Arena *a, Type *param, Type *ret)
{
    Type *t = ty_new(a, T_FUN);
    t->fun.param = param;
    t->fun.ret = ret;
    return t;
}

/* Structural equality; array sizes compare by normal form (see nat_equal). */
bool ty_equal(const Type *x, const Type *y)
{
    if (x == y) return true;
    if (x->kind != y->kind) return false;
    switch (x->kind) {
    case T_SCALAR: return x->sk == y->sk;
    case T_ARRAY: return nat_equal(x->arr.n, y->arr.n) && ty_equal(x->arr.elem, y->arr.elem);
    case T_PAIR: return ty_equal(x->pair.a, y->pair.a) && ty_equal(x->pair.b, y->pair.b);
    case T_IDX: return nat_equal(x->idx.n, y->idx.n);
    case T_FUN: return ty_equal(x->fun.param, y->fun.param) && ty_equal(x->fun.ret, y->fun.ret);
    }
    unreachable();
}

/* A nat in a type is printed bare when it is a single name or number, else in
 * parentheses, so the printed type parses back: (n + 2).f32 */
static void print_size(StrBuf *b, const Nat *n)
{
    if (n->kind == N_CST || n->kind == N_VAR) {
        nat_print(b, n);
    } else {
        sb_putc(b, '(');
        nat_print(b, n);
        sb_putc(b, ')');
    }
}

void ty_print(StrBuf *b, const Type *t)
{
    switch (t->kind) {
    case T_SCALAR: sb_puts(b, scalar_info[t->sk].name); return;
    case T_ARRAY:
        print_size(b, t->arr.n);
        sb_putc(b, '.');
        ty_print(b, t->arr.elem);
        return;
    case T_PAIR:
        sb_putc(b, '(');
        ty_print(b, t->pair.a);
        sb_puts(b, ", ");
        ty_print(b, t->pair.b);
        sb_putc(b, ')');
        return;
    case T_IDX:
        sb_puts(b, "idx[");
        nat_print(b, t->idx.n);
        sb_putc(b, ']');
        return;
    case T_FUN:
        sb_putc(b, '(');
        ty_print(b, t->fun.param);
        sb_puts(b, " -> ");
        ty_print(b, t->fun.ret);
        sb_putc(b, ')');
        return;
    }
    unreachable();
}

char *ty_str(Arena *a, const Type *t)
{
    StrBuf b = {.a = a};
    ty_print(&b, t);
    return (char *)sb_str(&b);
}

/* n1.n2...nk.s -> s with count n1*n2*...*nk; idx counts as i32 storage. */
const Type *ty_innermost(Arena *a, const Type *t, Nat **count)
{
    Nat *c = nat_cst(a, 1);
    while (t->kind == T_ARRAY) {
        c = nat_mul(a, c, t->arr.n);
        t = t->arr.elem;
    }
    *count = c;
    return (t->kind == T_SCALAR || t->kind == T_IDX) ? t : NULL;
}

bool ty_scalar_leaves(const Type *t)
{
    if (t->kind == T_PAIR) return ty_scalar_leaves(t->pair.a) && ty_scalar_leaves(t->pair.b);
    return t->kind == T_SCALAR || t->kind == T_IDX;
}
