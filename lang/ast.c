/* ast.c: AST constructors and the source-syntax printer. */
#include "lang.h"

#include <stdlib.h>
#include <string.h>

Ast *ast_new(Arena *a, AstKind k, Span sp)
{
    Ast *e = ANEW(a, Ast);
    e->kind = k;
    e->sp = sp;
    return e;
}

Ast *ast_var(Arena *a, Span sp, const char *name)
{
    Ast *e = ast_new(a, A_VAR, sp);
    e->var.name = name;
    return e;
}

Ast *ast_app(Arena *a, Span sp, Ast *fn, Ast *arg)
{
    Ast *e = ast_new(a, A_APP, sp);
    e->app.fn = fn;
    e->app.arg = arg;
    return e;
}

Ast *ast_lam(Arena *a, Span sp, const char *param, TypeExpr *ptype, Ast *body)
{
    Ast *e = ast_new(a, A_LAM, sp);
    e->lam.param = param;
    e->lam.ptype = ptype;
    e->lam.body = body;
    return e;
}

Ast *ast_nlam(Arena *a, Span sp, const char *param, Ast *body)
{
    Ast *e = ast_new(a, A_NLAM, sp);
    e->lam.param = param;
    e->lam.body = body;
    return e;
}

Ast *ast_bin(Arena *a, Span sp, BinOp op, Ast *l, Ast *r)
{
    Ast *e = ast_new(a, A_BIN, sp);
    e->bin.op = op;
    e->bin.l = l;
    e->bin.r = r;
    return e;
}

Ast *ast_un(Arena *a, Span sp, UnOp op, Ast *x)
{
    Ast *e = ast_new(a, A_UN, sp);
    e->un.op = op;
    e->un.e = x;
    return e;
}

static TypeExpr *te_new(Arena *a, TypeExprKind k, Span sp)
{
    TypeExpr *t = ANEW(a, TypeExpr);
    t->kind = k;
    t->sp = sp;
    return t;
}

TypeExpr *ast_te_scalar(Arena *a, Span sp, ScalarKind sk)
{
    TypeExpr *t = te_new(a, TE_SCALAR, sp);
    t->sk = sk;
    return t;
}

TypeExpr *ast_te_array(Arena *a, Span sp, Ast *size, TypeExpr *elem)
{
    TypeExpr *t = te_new(a, TE_ARRAY, sp);
    t->arr.size = size;
    t->arr.elem = elem;
    return t;
}

TypeExpr *ast_te_pair(Arena *a, Span sp, TypeExpr *x, TypeExpr *y)
{
    TypeExpr *t = te_new(a, TE_PAIR, sp);
    t->pair.a = x;
    t->pair.b = y;
    return t;
}

TypeExpr *ast_te_idx(Arena *a, Span sp, Ast *size)
{
    TypeExpr *t = te_new(a, TE_IDX, sp);
    t->idx.size = size;
    return t;
}

/* ---------------------------------------------------------------- printing */

/* The shortest %g form that reads back as the same double, always with a '.' or an
 * exponent so it stays a float literal: deterministic and readable (0.1, not
 * 0.10000000000000001). */
static void print_float(StrBuf *b, double v, bool f32)
{
    char tmp[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v) break;
    }
    sb_puts(b, tmp);
    if (!strpbrk(tmp, ".eEni")) sb_puts(b, ".0");
    if (f32) sb_putc(b, 'f');
}

/* The callee of an application needs parentheses unless it is a name, an application or
 * already parenthesised (operators and let). */
static void print_callee(StrBuf *b, const Ast *e)
{
    bool atom = e->kind != A_LAM && e->kind != A_NLAM;
    if (!atom) sb_putc(b, '(');
    ast_print(b, e);
    if (!atom) sb_putc(b, ')');
}

/* Fully parenthesised source syntax: binary and unary operators always get parentheses,
 * so the output shows how the parser grouped the input. */
void ast_print(StrBuf *b, const Ast *e)
{
    if (!e) {
        sb_puts(b, "<null>");
        return;
    }
    switch (e->kind) {
    case A_VAR: sb_puts(b, e->var.name); break;
    case A_INT:
        sb_printf(b, "%llu", (unsigned long long)e->lit_int.v);
        if (e->lit_int.suffixed) sb_putc(b, 'u');
        break;
    case A_FLOAT: print_float(b, e->lit_float.v, e->lit_float.sk == SK_F32); break;
    case A_BOOL: sb_puts(b, e->lit_bool.v ? "true" : "false"); break;
    case A_DIM: sb_printf(b, "'%c'", "xyz"[e->dim.d % 3]); break;
    case A_APP:
        print_callee(b, e->app.fn);
        sb_putc(b, '(');
        ast_print(b, e->app.arg);
        sb_putc(b, ')');
        break;
    case A_LAM:
    case A_NLAM:
        sb_puts(b, e->kind == A_NLAM ? "nFun(" : "fun(");
        if (e->lam.ptype) {
            ast_print_type(b, e->lam.ptype);
            sb_puts(b, ")(");
        }
        sb_printf(b, "%s => ", e->lam.param);
        ast_print(b, e->lam.body);
        sb_putc(b, ')');
        break;
    case A_LET:
        sb_printf(b, "(let %s = ", e->let.name);
        ast_print(b, e->let.value);
        sb_puts(b, " in ");
        ast_print(b, e->let.body);
        sb_putc(b, ')');
        break;
    case A_BIN:
        sb_putc(b, '(');
        ast_print(b, e->bin.l);
        sb_printf(b, " %s ", binop_spelling[e->bin.op]);
        ast_print(b, e->bin.r);
        sb_putc(b, ')');
        break;
    case A_UN:
        sb_printf(b, "(%s", unop_spelling[e->un.op]);
        ast_print(b, e->un.e);
        sb_putc(b, ')');
        break;
    }
}

/* A nat in an array type: names and numbers bare, anything else is already in
 * parentheses (ast_print parenthesises every operator). */
void ast_print_type(StrBuf *b, const TypeExpr *t)
{
    switch (t->kind) {
    case TE_SCALAR: sb_puts(b, scalar_info[t->sk].name); break;
    case TE_ARRAY:
        ast_print(b, t->arr.size);
        sb_putc(b, '.');
        ast_print_type(b, t->arr.elem);
        break;
    case TE_PAIR:
        sb_putc(b, '(');
        ast_print_type(b, t->pair.a);
        sb_puts(b, ", ");
        ast_print_type(b, t->pair.b);
        sb_putc(b, ')');
        break;
    case TE_IDX:
        sb_puts(b, "idx[");
        ast_print(b, t->idx.size);
        sb_putc(b, ']');
        break;
    }
}

void ast_print_program(StrBuf *b, const Program *p)
{
    for (const Decl *d = p->decls; d; d = d->next) {
        sb_printf(b, "%s %s", d->kind == D_KERNEL ? "kernel" : "def", d->name);
        for (int i = 0; i < d->nparams; i++) sb_printf(b, "%s%s", i ? ", " : "(", d->params[i]);
        sb_puts(b, d->nparams ? ") = " : " = ");
        ast_print(b, d->body);
        sb_putc(b, '\n');
    }
}
