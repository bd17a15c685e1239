/* typecheck.h: the type checker's state (Tc) and the helpers of typecheck.c that
 * the primitives' type rules (prims/) call, under the prefix tc_. */
#ifndef PATC_TYPECHECK_H
#define PATC_TYPECHECK_H

#include "compiler.h"

/* ---------------------------------------------------------------- typecheck.c (tc_) */

typedef enum { SC_DATA, SC_NAT } ScopeKind;

typedef struct Scope {
    const char *name;
    ScopeKind kind;
    Binder *b;  /* SC_DATA */
    Nat *nat;   /* SC_NAT: a variable, or a constant after -D */
    struct Scope *next;
} Scope;

/* The enclosing parallel maps, to reject nestings CUDA cannot run. */
typedef struct TcMaps {
    Level lv[8];
    int dim[8];
    Span sp[8];
    int fdepth[8]; /* the function depth of the map's own body (-1: lastBlock's) */
    int n;
} TcMaps;

typedef struct Tc {
    Arena *a;
    Arena *scratch; /* the scopes: needed while typing only (arena_scratch_begin) */
    Diag *d;
    TcMaps ctx;
    Span cur; /* the node being typed: where a size overflowing 2^63 is reported */
    const char *fixed; /* " (with -D n=4)": the -D values of the kernel's nat parameters,
                          which a constant size in a message comes from ("": none) */
    int fdepth; /* how many primitives' function arguments enclose the node */
    int seq_fdepth; /* the fdepth of the body of a mapSeq that is block-level code of a
                       one-dimensional mapBlock, or warp-level code of a mapWarp there
                       (where lookback carries a prefix); 0: none */
} Tc;


const char *tc_tstr(Tc *t, const Type *ty);
const char *tc_nstr(Tc *t, const Nat *n);
Expr *tc_mk(Tc *t, ExprKind k, Type *ty, Span sp);
Nat *tc_nat_of(Tc *t, Ast *e, Scope *sc);
Nat *tc_pos_nat_of(Tc *t, Ast *e, Scope *sc, const char *what);
Type *tc_type_of(Tc *t, TypeExpr *te, Scope *sc);
bool tc_is_scalar(const Type *ty);
ScalarKind tc_num_kind(const Type *ty);
bool tc_is_index(const Type *ty);
Type *tc_want_array(Tc *t, Expr *e, const char *prim);
Type *tc_want_2d(Tc *t, Expr *e, const char *prim);
Expr *tc_check_fun(Tc *t, Ast *f, Type **ps, int np, Scope *sc, Type *ret_expected, Span at);
Type *tc_fun_result(Expr *lam, int np);
void tc_check_nesting(Tc *t, Level l, int dim, Span sp);
Expr *tc_prim_expr(Tc *t, Prim p, Type *ty, Span sp);
Expr *tc_infer_bin(Tc *t, Ast *e, Scope *sc, Type *expected, const char *who);
Expr *tc_infer(Tc *t, Ast *e, Scope *sc, Type *expected);

#endif
