/* lower.h: the lowering's state (Lw), its values, views and acceptors, and the
 * helpers of lower.c that the primitives' lowerings (prims/) call, under the
 * prefix lw_. */
#ifndef PATC_LOWER_H
#define PATC_LOWER_H

#include "compiler.h"

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
    Buffer *cnt; /* the elements' output of a compactTo result (W_MEM): the count's output;
                    of a multisplitToNext result (W_MEM, W_PAIRW): the next offsets' */
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
/* The IR's small pieces, as the prims families that build kernels statement by statement
 * (multisplit, sortTiles, lookback's windows, the pipes) write them: a literal of kind
 * sk; c ? p : q (of p's kind); a unary node of kind k (X_UN, X_CAST, X_IDX, X_BITCAST;
 * X_UN's op is UOP_NEG unless set) of type sk over e; !e of a bool; ~e; a shuffle or vote
 * of kind k of val (arg: its delta, mask or source lane; NULL for a vote) of type sk; the
 * warp's ballot of a predicate (u32); the population count of a u32; a barrier at level
 * l (LVL_WARP: __syncwarp, LVL_BLOCK: __syncthreads) emitted here */
X *lw_xlit(Lw *w, ScalarKind sk, uint64_t v);
X *lw_xsel(Lw *w, X *c, X *p, X *q);
X *lw_xun(Lw *w, XKind k, ScalarKind sk, X *e);
X *lw_xnot(Lw *w, X *e);
X *lw_xbnot(Lw *w, X *e);
X *lw_xshfl(Lw *w, ShflKind k, ScalarKind sk, X *val, X *arg);
X *lw_xballot(Lw *w, X *pred);
X *lw_xmatch(Lw *w, X *v, int bits);
X *lw_xvotebit(Lw *w, X *v, int bit);
X *lw_xpopc(Lw *w, X *v);
void lw_barrier(Lw *w, Level l);
X *lw_xload(Lw *w, Buffer *b, Nat *i);
X *lw_xnat(Lw *w, Nat *n);
Stmt *lw_snew(Lw *w, StmtKind k);
void lw_emit(Lw *w, Stmt *s);
/* An S_IF on cond emitted here; what is emitted next goes into it until w->cur = *saved */
Stmt *lw_open_if(Lw *w, X *cond, Stmt **saved);
/* An S_WHILE (var: its counter or NULL) emitted here, opened as lw_open_if opens an if */
Stmt *lw_open_while(Lw *w, NatVar *var, Stmt **saved);
/* const var = val emitted here: a nat variable of range [lb, ub) (ub NULL: unknown) */
Nat *lw_let(Lw *w, const char *prefix, X *val, int64_t lb, Nat *ub);
Buffer *lw_new_buffer(Lw *w, const char *prefix, AddrSpace as, ScalarKind sk, Nat *count);
Buffer *lw_shared_buffer(Lw *w, const char *prefix, ScalarKind sk, Nat *count, Span sp);
/* Buffer b read (a view) or written (an acceptor) as row-major storage of ty from element 0 */
View *lw_mem_view(Lw *w, Type *ty, Buffer *b);
Acc *lw_mem_acc(Lw *w, Type *ty, Buffer *b);
/* A private scalar variable (*b) and its declaration with init, not emitted */
Stmt *lw_scalar_decl(Lw *w, const char *prefix, ScalarKind sk, X *init, Buffer **b);
/* A private array of n elements (a scalar where n is 1), its declaration emitted here */
Buffer *lw_private_array(Lw *w, const char *prefix, ScalarKind sk, int64_t n);
/* A global scratch buffer of the kernel (every launch of it takes the same ones) */
Buffer *lw_scratch_buffer(Lw *w, const char *prefix, ScalarKind sk, Nat *count);
X *lw_materialise(Lw *w, X *x, const char *prefix);
X *lw_warp_scan_add(Lw *w, X *x, int width, const char *inc, const char *up);
/* lastBlock's hand-over of part (prims/warp.c): open emits the protocol and leaves
 * w->cur in the body that one block runs after the whole grid wrote part (ticket: the
 * one-word counter, NULL when part is flagged); close ends the body with what readies
 * the scratch for the next launch and returns to saved, the list open returned */
Stmt *lw_last_open(Lw *w, Buffer *part, Buffer *ticket, Span sp);
void lw_last_close(Lw *w, Buffer *part, Buffer *ticket, Stmt *saved);
/* prims/warp.c: blk (a mapBlock's loop in the kernel's body) draws its tile from the
 * counter ctr in launch order, as a mapBlock with a lookback; *epoch: the launch's epoch */
void lw_draw_tile(Lw *w, Stmt *blk, Buffer *ctr, Span sp, Buffer **epoch);
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

#endif
