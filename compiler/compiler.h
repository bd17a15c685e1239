/* compiler.h: the middle of patc (the one header of compiler/).
 *
 * Pipeline (one file per pass):
 *   expand.c     AST program -> one closed AST term per kernel (defs inlined,
 *                beta-reduced with let semantics)
 *   typecheck.c  closed AST -> typed functional IR (Expr), nat arithmetic in nat.c
 *   lower.c      Expr -> imperative kernel IR (Stmt/X); views become index functions
 *   barrier.c    barrier placement from a read/write analysis
 *   loops.c      loop specialisation (0/1/n trips, guards), single-thread regions
 *   smem.c       shared-memory layout with lifetime-based reuse; the per-block budget
 *   version.c    full tiles without bound tests (if (tile is full) copy else original)
 *   width.c      index width: 32-bit where it provably fits, 64-bit or chosen at launch
 *   role.c       the kernel's role for the runtime (a device-level reduction pass?)
 *   ir_walk.c    the one read-only walk over Stmt/X that the passes' analyses use
 *   driver.c     runs the pipeline; -d dump letters
 *
 * The typed functional IR (KernelDef) has a second back end besides lower.c and
 * codegen/: the CPU interpreter in interp/ (the reference semantics).
 */
#ifndef PATC_COMPILER_H
#define PATC_COMPILER_H

#include "../lang/lang.h"
#include "nat.h"

/* ---------------------------------------------------------------- primitives */

/* Parallelism levels of the map family; LVL_SEQ for mapSeq. */
typedef enum { LVL_SEQ, LVL_GLOBAL, LVL_BLOCK, LVL_THREADS, LVL_WARP, LVL_LANE } Level;

/* The warp's collective register operations: the four shuffles (CUDA's
 * __shfl_down/up/xor_sync and __shfl_sync) and the votes: __ballot_sync (a u32 mask),
 * __any_sync and __all_sync (a bool) of the bool val, and __reduce_min_sync of the u32
 * val (an X_SHFL of a vote has no arg; all run on the full warp); SHFL_MATCH the u32
 * mask of the lanes whose u32 val agrees with this lane's in its low arg bits (arg a
 * u32 literal, 1..32: multisplit's ranking), a vote per bit; SHFL_VOTEBIT the ballot of
 * bit arg (a u32 literal, below val's width) of the u32 or u64 val (sortTiles' ranking in
 * registers). The kinds after SHFL_BALLOT have no primitive: only lowerings build them. */
typedef enum { SHFL_DOWN, SHFL_UP, SHFL_XOR, SHFL_IDX, SHFL_BALLOT, SHFL_ANY, SHFL_ALL, SHFL_REDMIN, SHFL_MATCH, SHFL_VOTEBIT } ShflKind;

/* Families of primitives: which part of the compiler gives one its meaning. */
typedef enum {
    PF_VIEW,   /* a reindexing of its argument: no loop, no memory (lower.c: a View) */
    PF_MAP,    /* a loop at a parallelism level */
    PF_REDUCE, /* a sequential fold with a register accumulator */
    PF_MEMORY, /* materialises its argument in an address space */
    PF_WARP,   /* a warp shuffle of a warp array */
    PF_GRID,   /* a grid-wide step (the grid's last block) */
    PF_SCALAR, /* an operation on scalars */
    PF_SPLIT,  /* a kernel of its own that partitions by a computed bucket (multisplit) */
    PF_SORT,   /* a kernel of its own that sorts each tile in one block (sortTiles) */
} PrimFamily;

/* "none" in the level and shuffle columns */
#define NOLVL (-1)
#define NOSHFL (-1)

/* Every fact about a primitive that is data rather than code, one row each:
 * X(enum, name, nat args, data/function args, takes an optional dimension,
 *   map level (NOLVL: not a map), shuffle kind (NOSHFL: not a shuffle),
 *   (arity of each data/function argument as a function: 0 = not a function),
 *   family)
 * Source order of explicit arguments: the nat args first, then the others.
 * The code of a primitive (its type rule, lowering and interpreter meaning) is in
 * prims/, in the file of its family: docs/internals.md says how to add one. */
#define PRIMITIVES(X) \
    X(P_SPLIT,           "split",           1, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_ASVECTOR,        "asVector",        1, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_JOIN,            "join",            0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_TRANSPOSE,       "transpose",       0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_PADCST,          "padCst",          2, 2, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_PADCLAMP,        "padClamp",        2, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_TAKE,            "take",            1, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_DROP,            "drop",            1, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_SLIDE,           "slide",           2, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_ZIP,             "zip",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_UNZIP,           "unzip",           0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_PAIR,            "pair",            0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_FST,             "fst",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_SND,             "snd",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_GENERATE,        "generate",        0, 1, 0, NOLVL,       NOSHFL,    (1),       PF_VIEW)   \
    X(P_ID,              "id",              0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_MAPSEQ,          "mapSeq",          0, 2, 0, LVL_SEQ,     NOSHFL,    (1, 0),    PF_MAP)    \
    X(P_MAPSEQUNROLL,    "mapSeqUnroll",    0, 2, 0, LVL_SEQ,     NOSHFL,    (1, 0),    PF_MAP)    \
    X(P_REDUCESEQ,       "reduceSeq",       0, 3, 0, NOLVL,       NOSHFL,    (2, 0, 0), PF_REDUCE) \
    X(P_REDUCESEQUNROLL, "reduceSeqUnroll", 0, 3, 0, NOLVL,       NOSHFL,    (2, 0, 0), PF_REDUCE) \
    X(P_TOGLOBAL,        "toGlobal",        0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_MEMORY) \
    X(P_TOSHARED,        "toShared",        0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_MEMORY) \
    X(P_TOPRIVATE,       "toPrivate",       0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_MEMORY) \
    X(P_TOPRIVATEFUN,    "toPrivateFun",    0, 2, 0, NOLVL,       NOSHFL,    (1, 0),    PF_MEMORY) \
    X(P_TOSHAREDFUN,     "toSharedFun",     0, 2, 0, NOLVL,       NOSHFL,    (1, 0),    PF_MEMORY) \
    X(P_MAPGLOBAL,       "mapGlobal",       0, 2, 1, LVL_GLOBAL,  NOSHFL,    (1, 0),    PF_MAP)    \
    X(P_MAPBLOCK,        "mapBlock",        0, 2, 1, LVL_BLOCK,   NOSHFL,    (1, 0),    PF_MAP)    \
    X(P_MAPTHREADS,      "mapThreads",      0, 2, 1, LVL_THREADS, NOSHFL,    (1, 0),    PF_MAP)    \
    X(P_MAPWARP,         "mapWarp",         0, 2, 1, LVL_WARP,    NOSHFL,    (1, 0),    PF_MAP)    \
    X(P_MAPLANE,         "mapLane",         0, 2, 1, LVL_LANE,    NOSHFL,    (1, 0),    PF_MAP)    \
    X(P_SHFLDOWN,        "shflDownWarp",    1, 1, 0, NOLVL,       SHFL_DOWN, (0),       PF_WARP)   \
    X(P_SHFLUP,          "shflUpWarp",      1, 1, 0, NOLVL,       SHFL_UP,   (0),       PF_WARP)   \
    X(P_SHFLXOR,         "shflXorWarp",     1, 1, 0, NOLVL,       SHFL_XOR,  (0),       PF_WARP)   \
    X(P_SHFLWARP,        "shflWarp",        0, 2, 0, NOLVL,       SHFL_IDX,  (0),       PF_WARP)   \
    X(P_BALLOT,          "ballotWarp",      0, 1, 0, NOLVL,       SHFL_BALLOT,(0),      PF_WARP)   \
    X(P_LASTBLOCK,       "lastBlock",       0, 2, 0, NOLVL,       NOSHFL,    (1, 0),    PF_GRID)   \
    X(P_ADD,             "add",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_MUL,             "mul",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_MIN,             "min",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_MAX,             "max",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    /* index and data movement (issue 11 item 3) */                                                  \
    X(P_IDX,             "idx",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_GATHER,          "gather",          0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_SCATTER,         "scatter",         0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_MEMORY) \
    X(P_CONCAT,          "concat",          0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW)   \
    X(P_PADEMPTY,        "padEmpty",        1, 1, 0, NOLVL,       NOSHFL,    (0),       PF_VIEW) \
    /* scans (issue 11 item 4): shine's scanSeq, (s -> t -> t) -> t -> n.s -> n.t */          \
    X(P_SCANSEQ,         "scanSeq",         0, 3, 0, NOLVL,       NOSHFL,    (2, 0, 0), PF_REDUCE) \
    X(P_SCANSEQEXCL,     "scanSeqExcl",     0, 3, 0, NOLVL,       NOSHFL,    (2, 0, 0), PF_REDUCE) \
    /* the single-pass scan's look-back (issue 12): lookback(op)(init)(x) in a mapBlock */  \
    X(P_LOOKBACK,        "lookback",        0, 3, 0, NOLVL,       NOSHFL,    (2, 0, 0), PF_GRID)   \
    /* the warp-specialised device scan (issue 12): scanPipe(w, ipt, s)(op)(init)(xs) */       \
    X(P_SCANPIPE,        "scanPipe",        3, 3, 0, NOLVL,       NOSHFL,    (2, 0, 0), PF_GRID)   \
    X(P_SCANPIPEEXCL,    "scanPipeExcl",    3, 3, 0, NOLVL,       NOSHFL,    (2, 0, 0), PF_GRID)   \
    /* its filter and partition (issue 13): filterPipe(w, ipt, s)(pred)(xs) */                 \
    X(P_FILTERPIPE,      "filterPipe",      3, 2, 0, NOLVL,       NOSHFL,    (1, 0),    PF_GRID)   \
    X(P_PARTITIONPIPE,   "partitionPipe",   3, 2, 0, NOLVL,       NOSHFL,    (1, 0),    PF_GRID)   \
    X(P_PARTITIONSTABLEPIPE, "partitionStablePipe", 3, 3, 0, NOLVL, NOSHFL,  (1, 0, 0), PF_GRID)   \
    /* results of a data-dependent length (issue 13): the count and the elements */          \
    X(P_COMPACTTO,       "compactTo",       0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_MEMORY) \
    X(P_PARTITIONTO,     "partitionTo",     0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_MEMORY) \
    X(P_PARTITIONSTABLETO, "partitionStableTo", 0, 2, 0, NOLVL,   NOSHFL,    (0, 0),    PF_MEMORY) \
    /* atomics (issue 33 item 2): accumulate(k)(op)(init)(pairs of (bin, value)) : k.t */     \
    X(P_ACCUMULATE,      "accumulate",      1, 3, 0, NOLVL,       NOSHFL,    (2, 0, 0), PF_MEMORY) \
    /* the stable k-way partition (issue 35 item 1): multisplit(k, nt, ipt)(bucket)(offs)(xs) */ \
    X(P_MULTISPLIT,      "multisplit",      3, 3, 0, NOLVL,       NOSHFL,    (1, 0, 0), PF_SPLIT)  \
    /* a part of a longer output: multisplitTo(k, nt, ipt, m)(bucket)(offs)(xs), issue 35 item 4 */ \
    X(P_MULTISPLIT_TO,   "multisplitTo",    4, 3, 0, NOLVL,       NOSHFL,    (1, 0, 0), PF_SPLIT)  \
    /* the same and where the next part's buckets start: multisplitToNext(k, nt, ipt, m)(...) */ \
    X(P_MULTISPLIT_NEXT, "multisplitToNext", 4, 3, 0, NOLVL,      NOSHFL,    (1, 0, 0), PF_SPLIT)  \
    /* the one-launch block sort (issue 35 item 2): sortTiles(nt, ipt)(ord)(xs) */              \
    X(P_SORTTILES,       "sortTiles",       2, 2, 0, NOLVL,       NOSHFL,    (1, 0),    PF_SORT)   \
    SCALAR_FORMS(X)

/* The scalar forms of issue 11 (RISE names): select, the casts (named by their target
 * type), the math functions (MATH_FNS below) and the operators as functions. Their
 * own list, so that a switch where none of them can occur names them all with
 * SCALAR_FORM_CASES. */
#define SCALAR_FORMS(X) \
    X(P_SELECT,          "select",          0, 3, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_TO_F32,          "f32",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_TO_F64,          "f64",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_TO_I32,          "i32",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_TO_U32,          "u32",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_TO_I64,          "i64",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_TO_U64,          "u64",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_TO_BOOL,         "bool",            0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_EXP,             "exp",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_EXP2,            "exp2",            0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_LOG,             "log",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_LOG2,            "log2",            0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_SQRT,            "sqrt",            0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_RSQRT,           "rsqrt",           0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_ABS,             "abs",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_FLOOR,           "floor",           0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_CEIL,            "ceil",            0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_POW,             "pow",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_SIN,             "sin",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_COS,             "cos",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_TANH,            "tanh",            0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_FMA,             "fma",             0, 3, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_ERF,             "erf",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_NEG,             "neg",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_SUB,             "sub",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_DIV,             "div",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_MOD,             "mod",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_GT,              "gt",              0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_LT,              "lt",              0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_EQUAL,           "equal",           0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_NOT,             "not",             0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_SHL,             "shl",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_SHR,             "shr",             0, 2, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR) \
    X(P_POPC,            "popc",            0, 1, 0, NOLVL,       NOSHFL,    (0),       PF_SCALAR)
#define SCALAR_FORM_CASE_(e, ...) case e:
#define SCALAR_FORM_CASES SCALAR_FORMS(SCALAR_FORM_CASE_)

/* The math functions among the scalar forms, one row each:
 * X(prim, arguments, CUDA's f32 function, its f64 function, integers allowed).
 * The interpreter calls the same functions of C's math.h (f32 ones in float). */
#define MATH_FNS(X) \
    X(P_EXP,   1, expf,   exp,   0) \
    X(P_EXP2,  1, exp2f,  exp2,  0) \
    X(P_LOG,   1, logf,   log,   0) \
    X(P_LOG2,  1, log2f,  log2,  0) \
    X(P_SQRT,  1, sqrtf,  sqrt,  0) \
    X(P_RSQRT, 1, rsqrtf, rsqrt, 0) \
    X(P_ABS,   1, fabsf,  fabs,  1) \
    X(P_FLOOR, 1, floorf, floor, 0) \
    X(P_CEIL,  1, ceilf,  ceil,  0) \
    X(P_POW,   2, powf,   pow,   0) \
    X(P_SIN,   1, sinf,   sin,   0) \
    X(P_COS,   1, cosf,   cos,   0) \
    X(P_TANH,  1, tanhf,  tanh,  0) \
    X(P_FMA,   3, fmaf,   fma,   0) \
    X(P_ERF,   1, erff,   erf,   0)

typedef enum {
#define X(e, ...) e,
    PRIMITIVES(X)
#undef X
    P_COUNT
} Prim;

typedef struct PrimInfo {
    const char *name;
    int nnats, nargs;
    bool has_dim;
    int level;        /* a Level, or NOLVL */
    int shfl;         /* a ShflKind, or NOSHFL */
    int fnarity[3];   /* per data argument: its arity when it is a function, else 0 */
    PrimFamily family;
} PrimInfo;
extern const PrimInfo prim_info[P_COUNT];
/* The primitive named `name`, or -1. */
int prim_lookup(const char *name);
/* Is p one of the map family (mapSeq, mapGlobal, ...)? */
static inline bool prim_is_map(Prim p) { return prim_info[p].level != NOLVL; }

/* ---------------------------------------------------------------- types */

typedef enum {
    T_SCALAR, /* sk */
    T_ARRAY,  /* arr: n elements of elem */
    T_PAIR,   /* pair */
    T_IDX,    /* idx: an index below n */
    T_FUN,    /* fun: param -> ret (lambdas; kernels) */
} TypeKind;

typedef struct Type Type;
struct Type {
    TypeKind kind;
    union {
        ScalarKind sk;
        struct { Nat *n; Type *elem; } arr;
        struct { Type *a, *b; } pair;
        struct { Nat *n; } idx;
        struct { Type *param, *ret; } fun;
    };
};

Type *ty_scalar(Arena *a, ScalarKind sk);
Type *ty_array(Arena *a, Nat *n, Type *elem);
Type *ty_pair(Arena *a, Type *x, Type *y);
Type *ty_idx(Arena *a, Nat *n);
Type *ty_fun(Arena *a, Type *param, Type *ret);
bool ty_equal(const Type *x, const Type *y);
void ty_print(StrBuf *b, const Type *t);
char *ty_str(Arena *a, const Type *t);
/* The scalar at the bottom of nested arrays (NULL for pairs); *count = total elements. */
const Type *ty_innermost(Arena *a, const Type *t, Nat **count);
/* Is t a scalar (idx included) or pairs (nested pairs) of them? */
bool ty_scalar_leaves(const Type *t);

/* ---------------------------------------------------------------- typed functional IR */

/* A variable bound by a lambda, a let or a kernel parameter. ids are dense per
 * compilation, so passes keep per-binder state in arrays indexed by id. */
typedef struct Binder {
    const char *name;
    Type *ty;
    int id;
    Span sp;
    const UseSite *uses; /* a let-bound parameter of a definition's lambda: the uses of
                            definitions it was inlined through (Ast let.uses); else NULL */
} Binder;

typedef enum {
    E_VAR,  /* var: a bound variable */
    E_LIT,  /* lit: a scalar constant of type ty (ty->sk) */
    E_NAT,  /* nat: a nat used as a value (an index of generate, a nat parameter); ty is i32 or idx */
    E_PRIM, /* prim: a saturated primitive application */
    E_LAM,  /* lam: function; only as a function argument of a primitive */
    E_LET,  /* let: x = value evaluated once, then body */
    E_BIN,  /* bin */
    E_UN,   /* un */
} ExprKind;

typedef struct Expr Expr;
struct Expr {
    ExprKind kind;
    Type *ty;
    Span sp;
    union {
        struct { Binder *b; } var;
        struct { union { int64_t i; uint64_t u; double f; bool b; }; } lit;
        struct { Nat *n; } nat;
        struct {
            Prim p;
            int dim;      /* 0/1/2 for the map family; lookback: 1 in a mapSeq (a carried prefix) */
            Nat *nats[4]; /* prim_info[p].nnats of them */
            Expr *args[3];/* prim_info[p].nargs of them; functions are E_LAM */
        } prim;
        struct { Binder *param; Expr *body; } lam;
        struct { Binder *x; Expr *value, *body; } let;
        struct { BinOp op; Expr *l, *r; } bin;
        struct { UnOp op; Expr *e; } un;
    };
};

/* A kernel after type checking: kernel name = nFun(nats => fun(params => body)). */
typedef struct KernelDef {
    const char *name;
    Span sp;
    NatVar **nats;  /* nat parameters that remain after -D */
    int nnats;
    Binder **params;/* data parameters, in order */
    int nparams;
    Expr *body;     /* its type is the output type */
    int id_base;    /* every binder of this kernel has an id >= id_base (set by the driver) */
} KernelDef;

/* ---------------------------------------------------------------- kernel IR */

typedef enum { AS_GLOBAL, AS_SHARED, AS_PRIVATE } AddrSpace;

/* A piece of memory: a kernel parameter, the output, a shared or private buffer. */
typedef struct Buffer {
    const char *name;
    AddrSpace as;
    ScalarKind sk;
    Nat *count;      /* elements */
    int param;       /* index among data params, -1 for an output, -2 for temporaries */
    int id;
    bool scalar;     /* a private one-element buffer printed as a scalar variable, or a scalar
                        kernel parameter passed by value (`float a`: a load is its name) */
    Nat *offset;     /* shared: byte offset in the kernel's shared block (smem.c) */
    int first, last; /* shared: lifetime in statement numbers (smem.c) */
    Span sp;         /* shared: the toShared that made it, where smem.c reports a budget overrun */
    bool coherent;   /* global scratch written by other blocks of this launch: read through L2 (__ldcg) */
    bool flagged;    /* lastBlock's partials of a 32-bit (or smaller) scalar: each element is one 64-bit
                        word {value bits, 1 << 32}, written and read whole (8 bytes per element) */
    int vec;         /* private: > 0 when it is one vector register of vec elements (S_VLOAD's dst) */
    int align;       /* a global input read by an S_VLOAD: the bytes of its widest vector, to which the
                        runtime checks the buffer's start is aligned at launch (0: no vector loads);
                        a shared buffer: its offset's alignment where more than 16 is needed (a bulk
                        copy's target, 128: smem.c places it first) */
    struct Buffer *counted_by; /* the output of compactTo's elements: the output holding how many of
                                  them are the result (the rest is not written) */
    int ndist;       /* private, spread over the block's threads (toPrivate of a mapThreads): its
                        array's first ndist dimensions are indexed by the threads, dimension i by
                        threadIdx along ddim[i], one element per thread; the buffer (count) holds
                        one thread's part, what is left below those dimensions */
    int ddim[3];
    Span dsp;        /* ndist > 0: the expression that spread it, for errors */
} Buffer;

/* The read-modify-write a store may be (accumulate, prims/memory.c): ATOM_NONE a plain
 * store; the others buf[i] = buf[i] op val as one CUDA atomic. One row each:
 * X(enum, the operator's name in messages, CUDA's function) */
#define ATOM_OPS(X) \
    X(ATOM_NONE, "",    "")          \
    X(ATOM_ADD,  "add", "atomicAdd") \
    X(ATOM_MIN,  "min", "atomicMin") \
    X(ATOM_MAX,  "max", "atomicMax") \
    X(ATOM_OR,   "|",   "atomicOr")  \
    X(ATOM_AND,  "&",   "atomicAnd") \
    X(ATOM_XOR,  "^",   "atomicXor")

typedef enum {
#define X(e, ...) e,
    ATOM_OPS(X)
#undef X
    ATOM_COUNT
} AtomOp;

typedef struct AtomInfo {
    const char *name, *cuda;
} AtomInfo;
extern const AtomInfo atom_info[ATOM_COUNT];

/* The memory order of an access to a global word that other blocks of the launch read
 * or write while it runs (a flag, a counter): MO_PLAIN an ordinary access; the others
 * gpu-scope ld/st/atom of that order (.relaxed, .release, .acquire, .acq_rel), printed
 * through the preludes' helpers (patc_peek/patc_peek32: relaxed u64/u32 loads,
 * patc_poke: a relaxed u64 store, patc_poke32: a release u32 store,
 * patc_atom_add_acq_rel: an acq_rel u32 add). A combination with no helper is refused
 * by codegen. */
typedef enum { MO_PLAIN, MO_RELAXED, MO_RELEASE, MO_ACQUIRE, MO_ACQ_REL } MemOrder;

/* Scalar expressions of the kernel IR. */
typedef enum {
    X_LIT,    /* lit (typed by sk) */
    X_NAT,    /* nat: an integer-valued nat expression */
    X_LOAD,   /* load: buf[index] (a scalar private buffer ignores index) */
    X_BIN,    /* bin */
    X_UN,     /* un */
    X_SELECT, /* sel: c ? a : b */
    X_MINMAX, /* bin with op OP_LT (min) or OP_GT (max) */
    X_SHFL,   /* shfl: a warp shuffle of val (arg: the delta, mask or source lane), or with
                 k SHFL_BALLOT the warp's vote on the bool val (arg NULL), a u32 mask */
    X_CAST,   /* un.e converted to sk */
    X_IDX,    /* un.e converted to the kernel's unsigned index type (sk SK_U64): unsigned
                 int in a 32-bit build, unsigned long long in a 64-bit one (patc_uint where
                 the launch picks). A data value used as an index once the code has compared
                 it with the index's bound in this type (multisplit's place): where a 32-bit
                 build truncates a wider value, the compare still keeps the access in bounds */
    X_BITCAST,/* un.e's bits read as sk: a 32-bit (or bool) value in or out of the low half
                 of a u32 word (a look-back's packed tile word) */
    X_CALL,   /* call: the math function p (a row of MATH_FNS) of args[0..n), result sk */
    X_ATOMIC, /* atomic: buf[index] = buf[index] op val as one atomic of order (MO_PLAIN:
                 CUDA's atomicAdd & co), the old value of type sk = buf->sk (a tile
                 counter's draw, a ticket) */
    X_MBTEST, /* mbtest: whether the phase of the mbarrier buf[index] (a shared u64) of the
                 parity parity (a u32 0 or 1) has completed (acquire), without waiting; bool */
} XKind;

typedef struct X X;
struct X {
    XKind kind;
    ScalarKind sk;
    union {
        struct { union { int64_t i; uint64_t u; double f; bool b; }; } lit;
        struct { Nat *n; } nat;
        struct { Buffer *buf; Nat *index; MemOrder order; } load;
        struct { BinOp op; X *l, *r; } bin;
        struct { UnOp op; X *e; } un;
        struct { X *c, *a, *b; } sel;
        struct { ShflKind k; X *val; X *arg; Nat *width; } shfl;
        struct { Prim p; int n; X *args[3]; } call;
        struct { AtomOp op; Buffer *buf; Nat *index; X *val; MemOrder order; } atomic;
        struct { Buffer *buf; Nat *index; X *parity; } mbtest;
    };
};


typedef enum {
    S_SEQ,     /* seq: items[0..n) */
    S_DECL,    /* decl: declare private buffer buf (scalar or array), optional init */
    S_STORE,   /* store: buf[index] = val, of memory order order (MemOrder) */
    S_FOR,     /* loop: a sequential or parallel loop (see LoopForm) */
    S_IF,      /* cond: if (c) then [else els]; els only from version.c, the last pass */
    S_BARRIER, /* barrier: __syncthreads (LVL_BLOCK), __syncwarp (LVL_WARP) or the fence
                  __threadfence (LVL_GLOBAL); a lowering's own barriers stay where it put
                  them, and barrier.c counts an LVL_BLOCK one as ordering what is pending */
    S_COMMENT, /* comment */
    S_VLOAD,   /* vload: dst[0..width) = src[index .. index+width) with one width-wide load
                  when guard is NULL or false; when guard holds, dst[j] = fallback[j] */
    S_WHILE,   /* wloop: for (T var = 0; cond; var++) body; var NULL: no counter, cond
                  NULL: for (;;). Left by an S_JUMP (or its cond). var's range is what
                  the lowering gives its NatVar (ub NULL: unknown). body is an S_SEQ. In
                  block-uniform code the loop is block-uniform (barrier.c may put barriers
                  in it); one whose cond is the thread's own is per-thread code (loops.c) */
    S_JUMP,    /* jump: break (JK_BREAK) or continue of the innermost S_WHILE or S_FOR,
                  or return (JK_RETURN) from the kernel */
    S_LET,     /* let: const T var = val; an immutable nat variable computed at run time,
                  which every nat after it in the enclosing sequence may use; its range
                  (var->lb, var->ub) is the lowering's promise (width.c, the prover) */
    S_SLEEP,   /* sleep: __nanosleep(ns), a polling loop's back-off */
    S_MBAR,    /* mbar: an operation op of this thread on the mbarrier buf[index] (a shared u64,
                  CTA scope): MB_INIT (arg: the arrivals a phase takes; before any other
                  thread uses it, which a __syncthreads after it sees to), MB_ARRIVE (release),
                  MB_EXPECT (an arrival that also expects arg bytes of bulk copies to complete
                  the phase), MB_WAIT (until the phase of parity arg completes; acquire), and
                  MB_FENCE (buf, index and arg NULL: the async proxy fence, between this
                  thread's generic accesses to shared memory and a later bulk copy's) */
    S_VSTORE,  /* vstore: dst[index .. index+width) = src[0..width) with one width-wide store;
                  src a private vector register (Buffer.vec), dst shared or global, the
                  index a multiple of width (the lowering's promise: 16-byte vectors) */
    S_BULK,    /* bulk: copy bytes (a u32, a multiple of 16, > 0) from src[src_index ..] in
                  global memory to dst[dst_index ..] in shared memory (both 16-byte aligned),
                  asynchronously, completing on the mbarrier bar[bar_index] (whose phase
                  expects them: MB_EXPECT) */
    S_PREFETCH,/* prefetch: a hint that src[lo .. hi) (global memory, within src) is read soon:
                  its whole 16-byte units brought into L2 by one bulk prefetch (the prelude's
                  patc_prefetch_l2, cp.async.bulk.prefetch.L2, sm_90), which the thread does
                  not wait for; nothing where lo >= hi. Changes no memory */
} StmtKind;

/* What an S_MBAR does (see S_MBAR). */
typedef enum { MB_INIT, MB_ARRIVE, MB_EXPECT, MB_WAIT, MB_FENCE } MbarOp;

/* How a loop is printed; chosen by loops.c, printed by codegen without analysis. */
typedef enum {
    LF_LOOP,     /* a (grid/block/thread/warp/lane-)stride loop or a plain for loop */
    LF_ONCE,     /* provably exactly one trip: straight-line code */
    LF_GUARDED,  /* at most one trip: if (id < extent) */
} LoopForm;

typedef enum { JK_BREAK, JK_CONTINUE, JK_RETURN } JumpKind;

typedef struct Stmt Stmt;
struct Stmt {
    StmtKind kind;
    union {
        struct { Stmt **items; int n, cap; } seq;
        struct { Buffer *buf; X *init; } decl;
        struct { Buffer *buf; Nat *index; X *val; AtomOp atom; MemOrder order; } store;
                                          /* atom: buf[index] = buf[index] op val, atomically */
        struct { NatVar *var; X *cond; Stmt *body; } wloop;
        struct { JumpKind k; } jump;
        struct { NatVar *var; X *val; } let;
        struct { int ns; } sleep;
        struct {
            Level level;
            int dim;
            NatVar *var;     /* the index, range [0, extent) */
            Nat *extent;
            Stmt *body;
            LoopForm form;
            bool unroll;
            bool var_used;   /* the body mentions var (else its id is not computed) */
            bool regs;       /* LVL_SEQ: var indexes a private array (loops.c), which stays in
                                registers only when the loop is unrolled fully */
            bool unroll_full;/* LVL_SEQ with unroll: unrolled fully up to codegen's
                                MAX_REG_UNROLL trips, as a loop with regs (multisplit's
                                scatter, prims/split.c) */
            Nat *hw_size;    /* LF_ONCE/LF_GUARDED: the launch size the var ranges over */
            Buffer *draw;    /* LVL_BLOCK with a lookback: a private u32 register holding the
                                tile drawn in launch order (prims/warp.c draw_tile), which
                                var is in place of blockIdx */
            Buffer *own;     /* LVL_THREADS: a spread private buffer (Buffer.ndist) indexed by var,
                                which needs one trip per thread (LF_ONCE); own_sp: where */
            Span own_sp;
        } loop;
        struct { X *c; Stmt *then, *els; bool per_lane, block_uniform, role; } cond;
            /* per_lane: each lane writes its own element, or a branch on the thread's id
               that a lowering wrote (a look-back's warp 0, lastBlock's thread 0): loops.c
               guards nothing in it. block_uniform: c is the same for every thread of a
               block but differs between blocks (lastBlock's "this block is the last"):
               then is block-uniform code run by some blocks (loops.c's single-thread
               regions in it are per block, barrier.c places barriers in it, smem.c
               numbers its statements). role: a warp role (c a test of the warp id): its
               warps run then while the others run the roles after it at the same time, to
               the kernel's end; what it shares with them is ordered by mbarriers (S_MBAR),
               never by a __syncthreads (barrier.c), and its shared buffers stay live to
               the end of the enclosing statement list (smem.c). els: NULL but after
               version.c */
        struct { Level level; } barrier; /* LVL_GLOBAL: __threadfence(), a gpu-scope fence
                                            and no execution barrier */
        struct { const char *text; } comment;
        struct { Buffer *dst, *src; Nat *index; int width; X *guard; X **fallback; } vload;
        struct { MbarOp op; Buffer *buf; Nat *index; X *arg; } mbar;
        struct { Buffer *dst, *src; Nat *index; int width; } vstore;
        struct { Buffer *dst; Nat *dst_index; Buffer *src; Nat *src_index; X *bytes; Buffer *bar; Nat *bar_index; } bulk;
        struct { Buffer *src; Nat *lo, *hi; } prefetch;
    };
};

/* Hardware ids a kernel may use, as nat variables with their ranges. */
typedef struct HwIds {
    NatVar *tid[3], *bid[3], *bdim[3], *gdim[3]; /* threadIdx, blockIdx, blockDim, gridDim */
    NatVar *lane, *warp, *nwarps;                 /* lane and warp id within the block */
} HwIds;

/* Index arithmetic (loop variables, thread ids, nat parameters, every nat expression):
 * IW_32 `int` where the bound provably stays below 2^31 for the launch rule; IW_64
 * `long long` where it provably does not (or is unknown); IW_LAUNCH `patc_int`, decided
 * per launch: the runtime compiles with -DPATC_INDEX32 (patc_int = int) when the bound
 * evaluated for the launch's sizes stays below 2^31, and without it (long long) else. */
typedef enum { IW_32, IW_64, IW_LAUNCH } IndexWidth;
/* What a kernel is to the runtime (role.c). */
typedef enum {
    KR_PLAIN,       /* its output is its result */
    KR_REDUCE_PASS, /* one data parameter of n elements, n a nat parameter, and an output of
                       the same element type: may be relaunched on its own output */
} KernelRole;

/* A lowered kernel: everything codegen needs, and launch metadata for the runtime. */
typedef struct Kernel {
    const char *name;
    KernelDef *def;
    Buffer *out;                 /* the output: outs[0] */
    Buffer **outs;               /* the outputs, one per leaf of the result's pairs, left to right */
    int nouts;
    Buffer **inputs;             /* data parameters, in order */
    int ninputs;
    Buffer **shared;             /* shared buffers (offsets from smem.c) */
    int nshared, capshared;
    Stmt *body;
    HwIds hw;
    Nat *block[3];               /* launch rule: threads per block, per dimension */
    Nat *grid[3];                /* launch rule: blocks per grid, per dimension */
    bool block_fixed;            /* code assumes exactly `block` threads (straight-line maps) */
    int min_blocks;              /* CompileOptions.min_blocks: __launch_bounds__'s second
                                    argument when the block is fixed (0: none); during
                                    lowering the options' alone, then kernel_min_blocks's
                                    (driver.c) */
    int own_min_blocks;          /* the lowering's choice of min_blocks, where the options
                                    give none (multisplit: 2, prims/split.c) */
    bool evict_first;            /* CompileOptions.evict_first (codegen applies it to
                                    look-back kernels only) */
    bool bins_in_result;         /* CompileOptions.bins_in_result, read by the lowering of a
                                    kernel-level accumulate (prims/memory.c: prim_result_bins) */
    bool zero_out;               /* the lowering's: the kernel adds into its output, which the
                                    runtime zeroes before each launch (LdKernel.zero_out) */
    Nat *shared_bytes;           /* total shared memory, bytes */
    Buffer **scratch;            /* global scratch buffers the runtime allocates (zeroed once;
                                    kernels leave them reusable): parameters after the inputs */
    int nscratch;
    Buffer *ticket;              /* lastBlock's ticket or accumulate's (prims/warp.c: lw_last_open), NULL
                                    when none or the partials are flagged: one hand-over per kernel */
    bool persistent;             /* a scanPipe kernel: the runtime caps grid[0] at the device's
                                    SM count (its blocks loop over the tiles) */
    Buffer *draw;                /* the tile counter of a mapBlock with a lookback (prims/warp.c) */
    bool uses_fdiv;              /* prelude needs patc_fdiv/patc_fmod */
    IndexWidth iw;               /* the C type of index arithmetic (width.c) */
    Nat *index_bound;            /* every value index arithmetic computes is at most this in
                                    magnitude: a nat over the nat parameters and blockDim/gridDim/
                                    nwarps, evaluated by the runtime at launch; NULL when some
                                    value has no bound (then iw is IW_64) */
    KernelRole role;             /* role.c */
    int role_len_nat;            /* KR_REDUCE_PASS: index of n in def->nats; else -1 */
    bool role_tunable;           /* KR_REDUCE_PASS of a tunable shape (role.c) */
    int role_grid_nat;           /* tunable with grid (g, 1, 1): index of g in def->nats; else -1 */
    /* A kernel of several launches (toGlobal at its top level, lower.c): pre[0..npre) run
     * before this one, in order. Each is a Kernel of its own (body, launch rules, shared
     * memory, index width) named K_launchI, with this kernel's parameters: the same
     * outs, inputs and scratch (the toGlobal results are scratch buffers), so that one
     * argument array serves every launch. A launch's `main` is the kernel it belongs
     * to (NULL for a kernel itself). */
    struct Kernel **pre;
    int npre;
    struct Kernel *main;
} Kernel;

/* ---------------------------------------------------------------- pipeline */

/* -d letters: which IR to dump after which pass (to stderr). */
typedef struct DumpFlags {
    bool ast;      /* 'a': after parsing */
    bool expand;   /* 'e': after expand */
    bool types;    /* 't': after typecheck */
    bool lower;    /* 'l': after lowering */
    bool barrier;  /* 'b': after barrier placement */
    bool loops;    /* 'o': after loop specialisation and single-thread regions */
    bool smem;     /* 's': after shared-memory layout */
    bool version;  /* 'v': after full-tile versioning */
    /* in order: lower, loops, smem, barrier, version */
} DumpFlags;

typedef struct Define {
    const char *name;
    int64_t value;
} Define;

typedef struct CompileOptions {
    LangOptions lang;
    const Define *defines;   /* -D name=value: specialise nat parameters */
    int ndefines;
    const char *only_kernel; /* --kernel NAME, or NULL for all */
    DumpFlags dump;
    FILE *dump_out;
    int min_blocks;          /* --min-blocks: resident blocks per SM that __launch_bounds__
                                asks registers for (0: none); 1..32 */
    bool evict_first;        /* --evict-first: look-back kernels load their inputs and store
                                their outputs evict-first (__ldcs/__stcs) */
    bool bins_in_result;     /* --bins-in-result: a kernel whose result is a global accumulate
                                (or lastBlock over one) adds into its output, which the runtime
                                zeroes before each launch, instead of into scratch bins */
    bool no_hint;            /* a trial compile of hint.c's: an error gets no hint of its own */
    bool defines_unchecked;  /* a trial of one kernel: a -D that names none of its nat
                                parameters (another kernel's) is no error */
} CompileOptions;

/* The result of compiling a program: typed kernels and their lowered forms. */
typedef struct Compilation {
    Arena *arena;
    Diag *diag;
    Program prog;
    KernelDef **defs;
    int ndefs;
    Kernel **kernels;
    int nkernels;
    struct LdKernel **descs; /* descs[i]: the launch descriptor of kernels[i] (describe.c) */
    const Decl *current; /* the kernel being compiled: the one an error is in */
} Compilation;

/* Passes. Each requires what the previous one ensures. */
KernelDef **expand_and_check(Compilation *c, const CompileOptions *opt, int *ndefs); /* expand.c + typecheck.c */
Ast *expand_kernel(Arena *a, Diag *d, const Program *p, const Decl *k);               /* expand.c */
KernelDef *typecheck_kernel(Arena *a, Diag *d, const Decl *k, Ast *closed,
                            const Define *defs, int ndefs);                           /* typecheck.c */
Kernel *lower_kernel(Arena *a, Diag *d, KernelDef *k, bool bins_in_result, int min_blocks);                  /* lower.c */
int kernel_min_blocks(const Kernel *k); /* the options' min_blocks, else own_min_blocks (lower.c) */
void loops_specialise(Arena *a, Diag *d, Kernel *k);                                   /* loops.c */
void smem_layout(Arena *a, Diag *d, Kernel *k);                                         /* smem.c */
void barrier_place(Arena *a, Diag *d, Kernel *k);                                      /* barrier.c */
void version_tiles(Arena *a, Kernel *k);                                                /* version.c */
void width_decide(Arena *a, Kernel *k);                                                 /* width.c */
void width_unify(Kernel *k);           /* width.c: one index type for all launches of k */
void kernel_set_role(Kernel *k);                                                        /* role.c */

/* CUDA's launch limits (compute capability 3.0 and later): blocks per grid along x and
 * along y or z, threads per block along x or y, along z, and in all. loops.c keeps a
 * launch rule within them (a map past one gets a stride loop); the runtime refuses any
 * launch past them before the driver sees it. */
#define CUDA_MAX_GRID_X 2147483647
#define CUDA_MAX_GRID_YZ 65535
#define CUDA_MAX_BLOCK 1024
#define CUDA_MAX_BLOCK_Z 64

/* Shared memory per block, in bytes (smem.c). A kernel gets SMEM_DEFAULT_MAX without
 * asking and up to the device's opt-in maximum after cuFuncSetAttribute; SMEM_OPTIN_MAX
 * is sm_90's (227 KiB), which the compiler checks against. smem_budget is what is left
 * of a maximum for the dynamic block once the kernel's static __shared__ is counted. */
#define SMEM_DEFAULT_MAX 49152
#define SMEM_OPTIN_MAX 232448
int64_t smem_budget(const Kernel *k, int64_t max);
/* What smem_budget leaves out, as a clause for messages: ", less 16 for ..." or "". */
const char *smem_budget_note(const Kernel *k);

/* The read-only walk over the kernel IR (ir_walk.c), pre-order, in the order of the C
 * text. Each callback may be NULL; one returning true (WALK_STOP) ends the walk, and
 * ir_walk / ir_walk_x then return true.
 *   stmt:   every statement, before its parts; WALK_SKIP: not its parts
 *   x:      every scalar expression node, before its operands
 *   nat:    every nat the C text evaluates: indices, loop extents, nats used as values,
 *           sizes of private arrays, the count of lastBlock's partials (not loop ids
 *           and strides: see width.c)
 *   access: every buffer access; write is true for stores and a vector load's dst */
typedef enum { WALK_ON, WALK_SKIP, WALK_STOP } WalkStep;
typedef struct IrVisitor {
    WalkStep (*stmt)(void *ctx, const Stmt *s);
    bool (*x)(void *ctx, const X *x);
    bool (*nat)(void *ctx, Nat *n);
    bool (*access)(void *ctx, Buffer *b, bool write);
} IrVisitor;
bool ir_walk(const Stmt *s, const IrVisitor *v, void *ctx);
bool ir_walk_x(const X *x, const IrVisitor *v, void *ctx);
/* Some nat the C text of s evaluates mentions v. */
bool stmt_mentions_var(const Stmt *s, const NatVar *v);

/* Run parse -> expand -> typecheck -> lower -> passes on a file or string. Returns
 * false after reporting an error through c->diag. */
bool compile_file(Compilation *c, const CompileOptions *opt, const char *path);
bool compile_string(Compilation *c, const CompileOptions *opt, const char *path,
                    const char *text, size_t len);

/* ---------------------------------------------------------------- launch descriptor (describe.c) */

/* What the runtime needs of a compiled kernel to launch it, and nothing else: after
 * compiling, libpatrt keeps a copy of this (ld_copy: one malloc'ed block) and the CUDA
 * text, frees the compilation's arena, and evaluates the rules below itself (rt_desc.c)
 * without Nat, NatEnv or Kernel. describe.c makes it from the Kernel, after every pass.
 *
 * A rule is an integer expression in postfix over slots: slot i < nnats is nat
 * parameter i, then the launch's blockDim.x/y/z, gridDim.x/y/z and nwarps
 * (LD_SLOT_BDIM ..), which only index bounds mention. Its value is the Nat's under
 * nat_eval, undefined exactly where nat_eval fails: an unbound slot (a variable that is
 * none of these has slot -1, never bound), a divisor <= 0, an overflow past int64. */
typedef enum {
    LD_CST,  /* push cst */
    LD_SLOT, /* push the value of slot `slot` */
    LD_ADD,  /* pop r, pop l, push l op r (each checked for overflow) */
    LD_SUB,
    LD_MUL,
    LD_DIV,  /* floor(l / r); undefined for r <= 0 */
    LD_MIN,
    LD_MAX,
} LdOp;
typedef struct LdIns {
    LdOp op;
    int slot;    /* LD_SLOT */
    int64_t cst; /* LD_CST */
} LdIns;
typedef struct LdRule {
    const LdIns *code; /* n instructions; n == 0: no rule (its value is the default, 0 or 1) */
    int n;
    int depth;         /* the most values the evaluation stacks at once */
} LdRule;
enum { LD_SLOT_BDIM = 0, LD_SLOT_GDIM = 3, LD_SLOT_NWARPS = 6, LD_HW_SLOTS = 7 }; /* after the nats */

/* A nat parameter: its name, least value and exclusive upper bound (n == 0: none). */
typedef struct LdNat {
    const char *name;
    int64_t lb;
    LdRule ub;
} LdNat;
/* A global buffer of the kernel: an output, an input (an array, or a scalar by value)
 * or a scratch buffer, of count elements of elem_size bytes each. */
typedef struct LdBuf {
    const char *name;
    LdRule count;
    int sk;          /* ScalarKind of its elements */
    int elem_size;   /* bytes per element: 8 for lastBlock's flagged partials */
    int align;       /* inputs and outputs: the start's alignment checked at launch (0: none) */
    bool scalar;     /* an input passed by value */
    int counted_by;  /* outputs: the output holding how many elements are the result, or -1 */
} LdBuf;
/* One launch: the kernel's own (the last) or one of a toGlobal kernel's earlier ones. */
typedef struct LdLaunch {
    const char *name;  /* its __global__ function */
    LdRule block[3], grid[3]; /* n == 0: 1 */
    LdRule shared;     /* dynamic shared memory, bytes (n == 0: none) */
    LdRule index_bound;/* n == 0: no bound (the index width is then 64) */
    IndexWidth iw;
    bool block_fixed;  /* the code assumes exactly `block` threads */
    bool persistent;   /* a scanPipe kernel: grid.x is capped at the SM count */
    int static_smem;   /* bytes of static __shared__ counted against the maximum */
    const char *static_note; /* smem_budget_note's words for them */
} LdLaunch;
typedef struct LdKernel {
    size_t bytes;      /* the size of ld_copy's block */
    const char *name;
    int nnats, ninputs, nouts, nscratch, nlaunches;
    LdNat *nats;
    LdBuf *inputs, *outs, *scratch;
    LdLaunch *launches; /* in order; the last is the kernel itself */
    KernelRole role;
    int role_len_nat, role_grid_nat;
    bool role_tunable;
    bool zero_out;      /* the runtime zeroes outs[0] (its count's bytes) before the launches */
} LdKernel;
/* The descriptor of k (every pass done), in the arena. */
LdKernel *ld_describe(Arena *a, const Kernel *k);
/* A copy in one lang_malloc'ed block (free() frees it all), or NULL when out of memory. */
LdKernel *ld_copy(const LdKernel *d);
/* The typed and kernel IR of every kernel of c, as `patc --emit-ir` and patc_program_ir
 * print it (print.c): for the runtime, which holds no Kernel. */
void compilation_print_ir(StrBuf *b, const Compilation *c);

/* ---------------------------------------------------------------- hints (hint.c) */

/* A fact about sizes that a check needed and could not show for every value of the nat
 * parameters: x divides y, x <= y, x = y, or x is a constant in lo..hi. */
typedef enum { HINT_DIVIDES, HINT_LE, HINT_EQ, HINT_CONST } HintKind;
typedef struct HintFact {
    HintKind kind;
    Nat *x, *y;      /* y: NULL for HINT_CONST */
    int64_t lo, hi;  /* HINT_CONST's range */
} HintFact;
/* Record the fact the next error is about (call it just before diag_error). */
void hint_fact(Diag *d, Arena *a, HintKind k, Nat *x, Nat *y);
void hint_const(Diag *d, Arena *a, Nat *x, int64_t lo, int64_t hi);
/* After a failed compile: when the error's fact is about nat parameters that no -D
 * fixes, a note saying which -D settles it (compile_string calls it). */
void hint_report(Compilation *c, const CompileOptions *opt, const char *path, const char *text, size_t len);

/* Dumps. */
void expr_print(StrBuf *b, const Expr *e);
void kernel_print(StrBuf *b, const Kernel *k);

/* Statement and expression builders (used by lower.c and the passes). */
Stmt *stmt_seq(Arena *a);
void stmt_append(Arena *a, Stmt *seq, Stmt *s);
X *x_nat(Arena *a, Nat *n);                              /* n as an i32 expression */
X *x_bin(Arena *a, BinOp op, ScalarKind sk, X *l, X *r); /* l op r, of type sk */
X *x_bool(Arena *a, bool b);                             /* a bool literal */
X *x_lit(Arena *a, ScalarKind sk, uint64_t v);          /* an integer literal of type sk */

#endif
