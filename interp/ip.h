/* ip.h: the interpreter's state (IpCtx), its values and compiled code, and the
 * helpers of interp/interp.c that the primitives' meanings (prims/) call, under
 * the prefix ip_ (interp.h is the interpreter's interface to its callers). */
#ifndef PATC_IP_H
#define PATC_IP_H

#include "../compiler/compiler.h"

#include <setjmp.h>

/* ---------------------------------------------------------------- interp/interp.c (ip_) */

/* The deepest type (array and pair levels) the interpreter handles; paths live in
 * fixed buffers of this size. */
enum { MAXD = 16 };

/* Scalars by kind: f32 in f, f64 in d, i32/i64 (and idx) in i, u32/u64 in u, bool in b.
 * i32 is kept sign-extended and u32 zero-extended. */
typedef union Scalar {
    int64_t i;
    uint64_t u;
    double d;
    float f;
    bool b;
} Scalar;

/* A type with every size evaluated; idx is an i32 scalar. */
typedef struct RType RType;
struct RType {
    TypeKind kind; /* T_SCALAR, T_ARRAY, T_PAIR or T_FUN */
    ScalarKind sk;
    int64_t n;
    const RType *elem, *a, *b;
    int depth;   /* longest path to a scalar */
    int nleaves; /* scalar leaves (pairs count both sides) */
};

typedef struct Node Node;

/* A scalar (node == NULL), or the part of node's value at path pre[0..plen). */
typedef struct IpVal {
    const RType *ty;
    Node *node;
    Scalar s;
    int plen;
    int64_t pre[MAXD];
} IpVal;

typedef enum {
    N_STORE,     /* store: materialised value of type ty */
    N_SPLIT,     /* k, a */
    N_JOIN,      /* k (inner length m), a */
    N_TRANSPOSE, /* a */
    N_PADCST,    /* k (l), n (length of a), a, b (the value) */
    N_PADCLAMP,  /* k (l), n (length of a), a */
    N_DROP,      /* k, a */
    N_SLIDE,     /* k (step), a */
    N_ZIP,       /* a, b */
    N_UNZIP,     /* a */
    N_PAIR,      /* a, b */
    N_PERM,      /* perm (one source per lane), a; also gather's view (one source per element) */
    N_CONCAT,    /* k (length of a), a, b */
    N_PADEMPTY,  /* n (length of a), a, sp: reading past a is an error */
    N_WRITTEN,   /* perm (per element, the position of scatter's input that wrote it, or -1),
                    a (the store), sp: reading an element nothing wrote is an error */
} NodeKind;

typedef struct Leaf {
    unsigned char *data;
    ScalarKind sk;
    int64_t count;
} Leaf;

struct Node {
    NodeKind kind;
    int64_t k, n;
    IpVal a, b;
    const int64_t *perm;
    Span sp; /* N_PADEMPTY, N_WRITTEN: the primitive, for the error */
    struct { const RType *ty; Leaf *leaves; } store;
};

/* ---------------------------------------------------------------- code */

/* An Expr with its types and nats evaluated. */
typedef struct Code Code;
struct Code {
    ExprKind kind;
    const RType *ty;
    Span sp;
    Prim p;
    int64_t k[4];   /* prim nats */
    Code *args[3];  /* prim args; E_LAM/E_LET: args[0] is the body, args[1] a let's value */
    int slot;       /* E_VAR, E_LAM param, E_LET binder */
    Scalar lit;     /* E_LIT, E_NAT: the value */
    BinOp op;
    UnOp uop;
};


/* A LIFO allocator: mark before an iteration, release after it. */
typedef struct Blk {
    struct Blk *prev;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} Blk;

typedef struct Mark {
    Blk *top;
    size_t used;
} Mark;

/* lookback's running prefix over the blocks of the mapBlock being run (in order) */
typedef struct LbState {
    bool on, started;
    int64_t block, last;
    Scalar s[2];
} LbState;

typedef struct IpCtx {
    Arena *arena; /* Code and RTypes */
    Blk *top;     /* the pool of values */
    Blk *spare;   /* one standard block kept to avoid malloc churn between iterations */
    NatEnv nenv;
    IpVal *env;     /* by binder id */
    int nslots;
    char *err;
    size_t errlen;
    jmp_buf fail;
    LbState lb;
    const char *stack_floor; /* lang_stack_floor(), asked once per run */
} IpCtx;


_Noreturn __attribute__((format(printf, 3, 4))) void ip_fail(IpCtx *c, Span sp, const char *fmt, ...);
void *ip_pool_alloc(IpCtx *c, size_t size, bool zero);
Mark ip_pool_mark(IpCtx *c);
void ip_pool_release(IpCtx *c, Mark m);
Scalar ip_scalar_of_int(ScalarKind sk, int64_t v);
bool ip_compare(BinOp op, ScalarKind sk, Scalar a, Scalar b);
uint64_t ip_widen(ScalarKind sk, Scalar s);
Scalar ip_binop(IpCtx *c, Span sp, BinOp op, ScalarKind sk, Scalar a, Scalar b);
Node *ip_store_new(IpCtx *c, const RType *t, unsigned char *data);
void ip_val_set(IpVal *d, const IpVal *s);
void ip_val_node(IpVal *v, const RType *t, Node *n);
void ip_val_scalar(IpVal *v, const RType *t, Scalar s);
void ip_val_sel(IpCtx *c, const IpVal *v, int64_t i, const RType *et, IpVal *r);
void ip_store_put(IpCtx *c, Node *dst, int64_t i, const IpVal *v);
/* prims/map.c: scanSeq's meaning, which scanPipe shares */
void prims_eval_scan(IpCtx *c, const Code *e, bool excl, bool acc_first, IpVal *res);
Node *ip_node_new(IpCtx *c, NodeKind k, const IpVal *a, const IpVal *b);
void ip_apply(IpCtx *c, const Code *f, const IpVal *x, IpVal *r);
int64_t ip_check_index(IpCtx *c, const Code *e, Scalar s, int64_t at, int64_t n);
void ip_eval(IpCtx *c, const Code *e, IpVal *r);
extern const RType ip_rt_i32;

#endif
