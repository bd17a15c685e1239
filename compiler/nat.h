/* nat.h: symbolic natural-number arithmetic (part of compiler.h; kept separate so the
 * runtime can evaluate launch rules without the rest of the compiler).
 *
 * Semantics. A nat expression denotes an integer. Variables range over the naturals
 * (each NatVar also carries an inclusive lower bound and an optional exclusive upper
 * bound). `/` is FLOOR division and `%` the matching remainder (0 <= a % b < b for
 * b > 0). Divisors are positive wherever an expression is defined; an expression
 * whose divisor evaluates to <= 0 is undefined. Subtraction is integer subtraction.
 *
 * Normal form. The smart constructors nat_add .. nat_max return expressions in a
 * normal form: a sum of monomials (integer coefficient times a sorted product of
 * atoms), where an atom is a variable, a floor division, a min or a max. `a % b` is
 * represented as a - b*(a/b). Every rewrite the constructors apply holds for every
 * valuation under which the input is defined; tests/test_nat.c checks this on random
 * expressions. Two expressions with the same normal form are equal; the converse
 * does not hold (the form is not complete), so nat_equal may answer false for equal
 * expressions, never true for different ones.
 */
#ifndef PATC_NAT_H
#define PATC_NAT_H

#include "../lang/lang.h"

typedef struct Nat Nat;

/* The largest size: a constant size or nat literal past it is an error where the program
 * says it, so that the launch arithmetic made later (a grid of (n + 255) / 256 blocks)
 * has room below 2^63. -D values and PATC_DEFINE_MAX have the same limit. */
#define NAT_SIZE_MAX ((int64_t)1 << 62)
#define NAT_SIZE_MAX_TEXT "2^62 (4611686018427387904)"

/* A nat variable: a kernel's nat parameter, a loop index, a thread index. */
typedef struct NatVar {
    const char *name; /* printed as is, in messages and in C */
    int64_t lb;       /* inclusive lower bound (0 for sizes and indices, 1 for divisors) */
    Nat *ub;          /* exclusive upper bound (v < ub), or NULL when unknown */
    int id;           /* unique per arena, orders variables in the normal form */
    bool hw;          /* a CUDA built-in (threadIdx.x, blockDim.x, ...): an unsigned int in C,
                         cast to the kernel's index type where that is wider (nat_print_c_as) */
    bool param;       /* a kernel's nat parameter (no -D fixed it: else it is a constant) */
    Nat *node;        /* the N_VAR node of this variable (nat_var makes it once) */
    bool data_len;    /* a nat parameter that alone makes a dimension of a data
                         parameter's type (n in fun(n.f32), fun((4*n).f32)): a length
                         given at launch, not a shape of the code (compiler/hint.c) */
} NatVar;

typedef enum {
    N_CST,  /* cst: an integer constant */
    N_VAR,  /* var */
    N_SUM,  /* sum: terms[0..n), each N_CST / N_VAR / N_PROD / atom; at most one N_CST, last */
    N_PROD, /* prod: coef * factors[0..n), factors are atoms sorted, repeated for powers */
    N_DIV,  /* bin: floor(l / r), an atom */
    N_MIN,  /* bin: min(l, r), an atom */
    N_MAX,  /* bin: max(l, r), an atom */
} NatKind;

struct Nat {
    NatKind kind;
    union {
        int64_t cst;
        NatVar *var;
        struct { Nat **terms; int n; } sum;
        struct { int64_t coef; Nat **factors; int n; } prod;
        struct { Nat *l, *r; } bin;
    };
};

NatVar *nat_newvar(Arena *a, const char *name, int64_t lb, Nat *ub);
/* The same with a name that outlives the arena (a string literal), not copied. */
NatVar *nat_newvar_static(Arena *a, const char *name, int64_t lb, Nat *ub);

/* Coefficient overflow (a size past 2^63) in the constructors below is reported with
 * diag_error at the span last given to nat_at while a compilation has armed it, and is
 * an internal error (die) otherwise. Armed per thread; the driver arms it around each
 * compilation and disarms it when the compilation ends either way. */
void nat_arm_overflow(Diag *d, Span sp);
void nat_at(Span sp);
void nat_disarm_overflow(void);

/* Smart constructors: each returns the normal form of the operation on normal forms. */
Nat *nat_cst(Arena *a, int64_t v);
Nat *nat_var(Arena *a, NatVar *v);
Nat *nat_add(Arena *a, Nat *x, Nat *y);
Nat *nat_sub(Arena *a, Nat *x, Nat *y);
Nat *nat_mul(Arena *a, Nat *x, Nat *y);
Nat *nat_div(Arena *a, Nat *x, Nat *y); /* floor division */
Nat *nat_mod(Arena *a, Nat *x, Nat *y); /* x - y * (x / y) */
Nat *nat_min(Arena *a, Nat *x, Nat *y);
Nat *nat_max(Arena *a, Nat *x, Nat *y);

bool nat_is_const(const Nat *x, int64_t *v);
bool nat_equal(const Nat *x, const Nat *y);
int nat_compare(const Nat *x, const Nat *y); /* a total order on normal forms */

/* Proofs over every valuation that respects the variables' bounds. A false answer
 * means "not shown", not "false". */
bool nat_prove_ge(Arena *a, Nat *x, Nat *y); /* x >= y */
bool nat_prove_lt(Arena *a, Nat *x, Nat *y); /* x < y  */
bool nat_divides(Arena *a, Nat *k, Nat *x);  /* x % k == 0 */

/* Replace variable v by `value` and renormalise. */
Nat *nat_subst(Arena *a, Nat *x, const NatVar *v, Nat *value);
/* True when x mentions v. */
bool nat_mentions(const Nat *x, const NatVar *v);
/* The distinct variables x mentions, into out[0..max): their number, or -1 past max. */
int nat_vars(const Nat *x, NatVar **out, int max);

/* Valuation: the var with id `id` has the value vals[id - base] when base <= id <
 * base + n and has[id - base]. A kernel's variables have ids in a window of their own
 * (a program numbers its binders in one sequence), so an environment sized by the
 * window, not by the largest id, keeps a program's memory linear in its kernels. */
typedef struct NatEnv {
    const int64_t *vals;
    const bool *has;
    int n;
    int base;
} NatEnv;
/* Evaluate with floor semantics. Returns false when undefined (a divisor <= 0, an
 * unbound variable, or overflow). */
bool nat_eval(const Nat *x, const NatEnv *env, int64_t *out);

/* Human-readable form, used in messages and IR dumps: "n + (k - n % k) % k". */
void nat_print(StrBuf *b, const Nat *x);
char *nat_str(Arena *a, const Nat *x);
/* A C expression of type long long/int with the same value as x under floor semantics,
 * for every valuation respecting the bounds. Plain C `/` and `%` are emitted only where
 * the numerator is provably >= 0; elsewhere patc_fdiv()/patc_fmod() (defined in the
 * kernel prelude, see codegen) are used. */
void nat_print_c(Arena *a, StrBuf *b, const Nat *x);
/* The same, with every hw variable cast to `wide` (e.g. "long long"), so that no part
 * of the expression is evaluated in 32-bit unsigned arithmetic; NULL prints them as is. */
void nat_print_c_as(Arena *a, StrBuf *b, const Nat *x, const char *wide);

#endif
