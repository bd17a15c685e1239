/* prims.h: the meanings of the primitives (the one header of prims/).
 *
 * Each primitive's type rule (typecheck.c), lowering (lower.c: when read, and when
 * written to an acceptor) and interpreter meaning (interp/interp.c) are static functions
 * next to each other in the file of its family, and reach the passes through one handler
 * table, PrimOps, indexed by Prim:
 *   view.c    PF_VIEW    split join transpose pad* take drop slide zip ... idx gather
 *   map.c     PF_MAP, PF_REDUCE   the maps, reduceSeq, scanSeq
 *   memory.c  PF_MEMORY  toShared toPrivate toGlobal (toPrivateFun toSharedFun) scatter
 *   warp.c    PF_WARP, PF_GRID    the warp shuffles, lastBlock, lookback
 *   scalar.c  PF_SCALAR  add mul min max and the SCALAR_FORMS
 * The family column of PRIMITIVES (compiler/compiler.h) says which file's table holds
 * a primitive. The generic part of each pass (arity and dimension checks in
 * infer_prim, the span in lower_exp, the stack check in the interpreter) stays in the
 * pass; so do lower.c's view_chain and acc_through, which invert the view chains that
 * a map's function may be (join, split, transpose, id, take, drop, padCst, mapSeq of
 * such) and are switches over Prim that list every other primitive.
 *
 * This header is the interface between the three passes and the families: each pass's
 * state and the helpers the handlers call, under the pass's prefix (tc_ typecheck.c,
 * lw_ lower.c, ip_ interp/interp.c). Where two passes use one type name (Val, Ctx),
 * the type here has the prefix and the pass names it with a typedef of its own. */
#ifndef PATC_PRIMS_H
#define PATC_PRIMS_H

#include "../compiler/compiler.h"

#include <setjmp.h>

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

/* ---------------------------------------------------------------- lower.c (lw_) */

typedef struct View View;
typedef struct LwVal LwVal;

typedef enum { VAL_SCALAR, VAL_PAIR, VAL_ARRAY } ValKind;

struct LwVal {
    ValKind k;
    X *x;         /* VAL_SCALAR */
    LwVal *a, *b;   /* VAL_PAIR */
    View *v;      /* VAL_ARRAY */
};

typedef enum {
    V_MEM,      /* buf, base: row-major storage of ty starting at element base */
    V_OFFSET,   /* in, n1: at(j) = in.at(n1 + j)  (split rows, drop, slide windows) */
    V_SPLIT,    /* in, n1 = k: at(i) = OFFSET(in, i*k) */
    V_JOIN,     /* in, n1 = m: at(i) = in.at(i / m).at(i % m) */
    V_TRANSPOSE,/* in: at(i) = TROW(in, i) */
    V_TROW,     /* in, n1 = i: at(j) = in.at(j).at(i) */
    V_PADCST,   /* in, n1 = l, n2 = inner length, val */
    V_PADCLAMP, /* in, n1 = l, n2 = inner length */
    V_SLIDE,    /* in, n1 = step: at(i) = OFFSET(in, i*step) */
    V_ZIP,      /* in, in2: at(i) = (in.at(i), in2.at(i)); where the element type is an array
                   (a stored array of pairs, lw_soa), at(i) = ZIP(in.at(i), in2.at(i)) */
    V_PROJ,     /* in, proj 0/1: at(i) = in.at(i).a or .b (unzip) */
    V_GEN,      /* fn: at(i) = fn(i) */
    V_MAP,      /* fn, in: at(i) = fn(in.at(i))  (mapSeq read lazily) */
    V_LANES,    /* a warp array in registers: lane i holds element i in `mine`;
                   at(lane) = mine, at(j) = __shfl_sync(mine, j) (all lanes must run it) */
    V_SHFL,     /* in (a warp array), shfl, n1 = delta/mask or fn = source pattern view:
                   at(lane) = __shfl_*_sync(in.at(lane), ...) */
    V_SELECT,   /* cond, in, in2: at(i) = select(cond)(in.at(i))(in2.at(i)) */
    V_VEC,      /* in, n1 = k, fn = the asVector expression (for its span): at(i) = a private
                   vector register holding in[i*k .. i*k+k), filled by one k-wide load */
    V_GATHER,   /* in, in2 = the indices: at(i) = in.at(in2.at(i)), an index read at run time */
    V_CONCAT,   /* in, in2, n1 = in's length: at(i) = i < n1 ? in.at(i) : in2.at(i - n1) */
    V_PADROW,   /* in = a V_PADCST view of arrays, n1 = its index i, path[0..npath): the array
                   at path in in.at(i): at(j) = the element at path+j of padCst's value or of
                   in.in's row i - l, chosen per element (as V_PADCST chooses scalars) */
} ViewKind;

struct View {
    ViewKind kind;
    Type *ty; /* the array type of this view */
    View *in, *in2;
    Buffer *buf;
    Nat *base, *n1, *n2;
    LwVal *val;
    Expr *fn;
    int proj;
    X *mine;       /* V_LANES: the lane's own element in a register (NULL where own is set) */
    LwVal *own;    /* V_LANES of arrays: the lane's own array, stored in its private memory */
    X *cond;       /* V_SELECT */
    ShflKind shfl; /* V_SHFL */
    View *src;     /* V_SHFL with SHFL_IDX: the 32 source lanes */
    Span sp;       /* the expression (or kernel parameter) the view stands for, for errors */
    int dleft;     /* V_MEM of a buffer spread over the threads (Buffer.ndist): how many of its
                      spread dimensions this view still has (its first dleft dimensions) */
    Nat **path;    /* V_PADROW */
    int npath;
    bool soa;      /* V_ZIP of an array of pairs in memory or in a warp's registers (lw_soa,
                      lw_lanes_of), one array per side */
};

/* Acceptors: where a value is written. */
typedef enum {
    W_MEM,      /* buf, base, ty */
    W_OFFSET,   /* in, n1: at(j) = in.at(n1 + j) */
    W_SPLITW,   /* in, n1 = k: writing x of (m*k).t into in : m.k.t: at(i) = in.at(i / k).at(i % k) */
    W_JOINW,    /* in, n1 = m: writing x of n.m.t into in : (n*m).t: at(i) = OFFSET(in, i*m) */
    W_TRANSW,   /* in: writing x of n.m.t into in : m.n.t: at(i) = TROWW(in, i) */
    W_TROWW,    /* in, n1 = i: at(j) = in.at(j).at(i) */
    W_MAPF,     /* in, fn: writing x into in where in[i] receives fn(x[i]) and fn is a view
                   chain: at(i) = the acceptor fn's body needs, given in.at(i) */
    W_SCATTER,  /* in, iv = the positions: at(i) = in.at(iv.at(i)), a position read at run time */
    W_TAKEW,    /* in, n1 = k: writing x of n.t (n >= k) into take(k)(x)'s place in : k.t:
                   at(i) = in.at(i), written only when i < k (the guard) */
    W_DROPW,    /* in, n1 = k: writing x of n.t (n >= k) into drop(k)(x)'s place in : (n-k).t:
                   at(i) = in.at(i - k), written only when i >= k (the guard) */
    W_PADW,     /* in, n1 = l, n2 = n, val: writing x of n.t into padCst(l)(r)(val)(x)'s place
                   in : (l+n+r).t: at(j) = PADEL(this, j), element j going to in.at(l + j) */
    W_PADEL,    /* in = where the element goes, pad = the W_PADW, n1 = j, path[0..npath): the
                   part at path of element j; a scalar stored here also stores the padding
                   value's part at path into the l (r) padding elements when j = 0 (j = n-1):
                   each row's padding is written by its first and last elements' writers */
    W_COMPACT,  /* in = the elements' output, buf = the count's, n1 = the records, part, iv: writing
                   the records n.(bool, (c, t)) of compactTo/partitionTo/partitionStableTo:
                   at(i) = COMPACTEL(this, i) */
    W_COMPACTEL,/* in = the W_COMPACT, n1 = i: record i, stored by prims_compact_store */
    W_ATOMIC,   /* in = the k bins (a shared W_MEM acceptor), atom: writing the pairs n.(bin, t) of
                   accumulate: at(i) = ATOMICEL(this, i) */
    W_ATOMICEL, /* in = the W_ATOMIC, n1 = i: pair i, stored by prims_atomic_store */
    W_PAIRW,    /* in, in2: writing x whose innermost elements are pairs into one acceptor per
                   side (structure of arrays): at(i) = PAIRW(in.at(i), in2.at(i)); a pair
                   stored here goes side by side into in and in2 */
} AccKind;

typedef struct Acc Acc;
struct Acc {
    AccKind kind;
    Type *ty; /* the type of what is written */
    Expr *fn; /* W_MAPF */
    Acc *in;
    Acc *in2; /* W_PAIRW: the second side's acceptor */
    Buffer *buf;
    Nat *base, *n1;
    View *iv; /* W_SCATTER: the positions; W_COMPACT: partitionStableTo's count (NULL otherwise) */
    Buffer *cnt; /* the elements' output of a compactTo result (W_MEM): the count's output */
    bool part;   /* W_COMPACT: partitionTo */
    AtomOp atom; /* W_ATOMIC: the operator */
    X *guard; /* writes through this acceptor happen only where guard holds (NULL: always) */
    int dleft; /* W_MEM: as View.dleft */
    Nat *n2;     /* W_PADW */
    LwVal *val;  /* W_PADW: the padding value */
    Acc *pad;    /* W_PADEL */
    Nat **path;  /* W_PADEL */
    int npath;
};

typedef struct Lw {
    Arena *a;
    Diag *d;
    Kernel *k;
    LwVal **env; /* by binder id: env[id - base] */
    int base, nenv;
    Stmt *cur;
    Level lv[8];
    int ndepth;
    Stmt *loops[64]; /* the open loops, outermost first (sequential ones too) */
    int nloops;
    int names;
    int partial_lanes; /* inside code that not all 32 lanes of a warp run */
    Stmt *seq_loop;    /* the loop of the mapSeq whose body is being written (write_map), where
                          lookback carries a prefix over its iterations; NULL elsewhere */
    Stmt *seq_parent;  /* the statement list that holds seq_loop */
    bool seq_looked;   /* seq_loop's body has its lookback */
    int index_reads;   /* run-time indices read so far (data_index), for padCst */
    Expr *lane_fn;     /* the function of the mapLane being written by owner lanes */
    Span at;           /* the expression being lowered: where a view is made, or read */
} Lw;


LwVal *lw_scalar(Lw *w, X *x);
LwVal *lw_array(Lw *w, View *view);
LwVal *lw_pairv(Lw *w, LwVal *a, LwVal *b);
View *lw_view(Lw *w, ViewKind k, Type *ty, View *in);
Acc *lw_acceptor(Lw *w, AccKind k, Type *ty, Acc *in);
X *lw_xnew(Lw *w, XKind k, ScalarKind sk);
X *lw_xbin(Lw *w, BinOp op, ScalarKind sk, X *l, X *r);
X *lw_xload(Lw *w, Buffer *b, Nat *i);
X *lw_xnat(Lw *w, Nat *n);
Stmt *lw_snew(Lw *w, StmtKind k);
void lw_emit(Lw *w, Stmt *s);
/* An S_IF on cond emitted here; what is emitted next goes into it until w->cur = *saved */
Stmt *lw_open_if(Lw *w, X *cond, Stmt **saved);
Buffer *lw_new_buffer(Lw *w, const char *prefix, AddrSpace as, ScalarKind sk, Nat *count);
Buffer *lw_shared_buffer(Lw *w, const char *prefix, ScalarKind sk, Nat *count, Span sp);
/* Buffer b read (a view) or written (an acceptor) as row-major storage of ty from element 0 */
View *lw_mem_view(Lw *w, Type *ty, Buffer *b);
Acc *lw_mem_acc(Lw *w, Type *ty, Buffer *b);
/* A private scalar variable (*b) and its declaration with init, not emitted */
Stmt *lw_scalar_decl(Lw *w, const char *prefix, ScalarKind sk, X *init, Buffer **b);
/* A global scratch buffer of the kernel (every launch of it takes the same ones) */
Buffer *lw_scratch_buffer(Lw *w, const char *prefix, ScalarKind sk, Nat *count);
X *lw_materialise(Lw *w, X *x, const char *prefix);
/* lastBlock's hand-over of part (prims/warp.c): open emits the protocol and leaves
 * w->cur in the body that one block runs after the whole grid wrote part (ticket: the
 * one-word counter, NULL when part is flagged); close ends the body with what readies
 * the scratch for the next launch and returns to saved, the list open returned */
Stmt *lw_last_open(Lw *w, Buffer *part, Buffer *ticket, Span sp);
void lw_last_close(Lw *w, Buffer *part, Buffer *ticket, Stmt *saved);
void lw_store(Lw *w, Buffer *b, Nat *i, X *x);
Nat *lw_data_index(Lw *w, X *x, Nat *len);
void lw_bind(Lw *w, Binder *b, LwVal *v);
/* lw_bind, the value's computing scalar parts put in registers first when body reads b
 * more than once (a value bound once is computed once) */
void lw_bind_once(Lw *w, Binder *b, LwVal *v, const Expr *body);
LwVal *lw_apply1(Lw *w, Expr *lam, LwVal *arg);
ScalarKind lw_sk_of(const Type *t);
LwVal *lw_view_at(Lw *w, View *v, Nat *i);
Acc *lw_acc_at(Lw *w, Acc *c, Nat *i);
void lw_acc_store(Lw *w, Acc *c, LwVal *v, Span sp);
Stmt *lw_open_loop(Lw *w, Level l, int dim, Nat *extent, NatVar **iv, Stmt **saved);
void lw_close_loop(Lw *w, Stmt *s, Stmt *saved);
bool lw_lanes_offset(Lw *w, View *v, int64_t *off);
void lw_lower_acc(Lw *w, Expr *e, Acc *c);
bool lw_inside(Lw *w, Level l);
bool lw_view_chain(const Expr *body, const Binder *x);
/* The acceptor through which x is written into padCst(l)(r)(v)(x)'s place c (e the padCst) */
Acc *lw_padw(Lw *w, Expr *e, Acc *c);
void lw_copy_val(Lw *w, LwVal *v, Acc *c, Span sp);
void lw_store_by_owner(Lw *w, View *v, int64_t off, Acc *c, void (*body)(Lw *, LwVal *, Acc *, Span), Span sp);
/* Inside a thread-, warp-, lane- or grid-level map: code each thread runs on its own */
bool lw_per_thread(Lw *w);
int lw_count_uses(const Expr *e, const Binder *b, int weight);
LwVal *lw_select_any(Lw *w, X *c, LwVal *a, LwVal *b);
LwVal *lw_lower_exp(Lw *w, Expr *e);
/* Pairs as data. A value of type ty whose innermost element is a scalar or pairs of
 * scalars, stored as one buffer per scalar leaf (structure of arrays), each made by
 * mk(w, ctx, sk, count) with count the elements of ty: the acceptor that writes it
 * (W_PAIRW over the leaves' W_MEM) and the view that reads it (V_ZIP of theirs). NULL
 * when ty holds a pair inside an array inside a pair, or a function. */
typedef Buffer *(*LwMkBuf)(Lw *w, void *ctx, ScalarKind sk, Nat *count);
bool lw_soa(Lw *w, Type *ty, LwMkBuf mk, void *ctx, Acc **acc, View **view);
/* A warp array whose lane holds mine (a scalar or pairs of scalars): V_LANES, or V_ZIP of them */
View *lw_lanes_of(Lw *w, Type *ty, LwVal *mine, Span sp);
/* memory.c: a record of compactTo/partitionTo/partitionStableTo written to its W_COMPACTEL acceptor */
void prims_compact_store(Lw *w, Acc *c, LwVal *v, Span sp);
/* memory.c: a pair (bin, value) of accumulate written to its W_ATOMICEL acceptor */
void prims_atomic_store(Lw *w, Acc *c, LwVal *v, Span sp);

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
    int64_t k[3];   /* prim nats */
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

/* ---------------------------------------------------------------- the handler table */

/* A primitive application as the type checker sees it: the explicit arguments after
 * the optional dimension, nats first (nat[0..nnats)), then the others (arg[0..nargs)). */
typedef struct TcApp {
    Prim p;
    int dim;        /* 0/1/2: the map family's optional dimension */
    Ast **nat, **arg;
    Scope *sc;
    Type *expected; /* the type the context expects, or NULL */
    Span sp;        /* the whole application */
} TcApp;

/* A primitive's meaning in each pass:
 *   infer  the type rule: check the arguments, return the typed E_PRIM (or what it
 *          desugars to), report misuse with diag_error;
 *   lower  its value when read (a view, a register, a loop that fills memory);
 *   eval   its value in the reference interpreter;
 *   write  optional: its lowering when its result is written to an acceptor c (lower_acc):
 *          a map's loop, or the acceptors its arguments are written through (join, scatter,
 *          ...). NULL: the value is computed (lower) and copied into c. */
typedef struct PrimOps {
    Expr *(*infer)(Tc *t, const TcApp *ap);
    LwVal *(*lower)(Lw *w, Expr *e);
    void (*eval)(IpCtx *c, const Code *e, IpVal *r);
    void (*write)(Lw *w, Expr *e, Acc *c);
} PrimOps;

/* Each family's rows, indexed by Prim (rows of other families are empty). */
extern const PrimOps prims_view[P_COUNT], prims_map[P_COUNT], prims_memory[P_COUNT], prims_warp[P_COUNT],
    prims_scalar[P_COUNT];

/* The handlers of p: its row in the table of its family. */
static inline const PrimOps *prim_ops(Prim p)
{
    switch (prim_info[p].family) {
    case PF_VIEW: return &prims_view[p];
    case PF_MAP:
    case PF_REDUCE: return &prims_map[p];
    case PF_MEMORY: return &prims_memory[p];
    case PF_WARP:
    case PF_GRID: return &prims_warp[p];
    case PF_SCALAR: return &prims_scalar[p];
    }
    unreachable();
}

/* ---------------------------------------------------------------- shared by families */

/* t -> t, meaning x itself (id, take's interpreter meaning, toGlobal/toShared/toPrivate) */
Expr *prim_infer_same(Tc *t, const TcApp *ap);
void prim_eval_same(IpCtx *c, const Code *e, IpVal *r);
/* view.c: x, under view chains, is a grid-, block- or thread-level map (written, never read) */
bool prim_written_map(const Expr *x);

#endif
