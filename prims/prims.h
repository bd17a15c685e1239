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
 *   split.c   PF_SPLIT   multisplit
 *   sorttile.c PF_SORT   sortTiles
 * The family column of PRIMITIVES (compiler/compiler.h) says which file's table holds
 * a primitive. The generic part of each pass (arity and dimension checks in
 * infer_prim, the span in lower_exp, the stack check in the interpreter) stays in the
 * pass, which asks what it needs of a primitive of its row (PrimOps' optional fields:
 * the links of view chains, results of a data-dependent length), never by name.
 *
 * This header holds the table and the handlers' signatures; each pass's state and the
 * helpers the handlers call are in the pass's own header, under its prefix
 * (compiler/typecheck.h tc_, compiler/lower.h lw_, interp/ip.h ip_). Where two passes
 * use one type name (Val, Ctx), the type there has the prefix and the pass names it
 * with a typedef of its own. */
#ifndef PATC_PRIMS_H
#define PATC_PRIMS_H

#include "../compiler/compiler.h"
#include "../compiler/lower.h"
#include "../compiler/typecheck.h"
#include "../interp/ip.h"

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

/* What a kernel's result of a pair type (count, elements) means for its two outputs
 * (lower.c's lower_result): CR_NONE, a pair like any other; CR_PREFIX, only the first
 * `count` elements are the result (compactTo: the elements' output is counted by the
 * count's); CR_SPLIT, every element is written and count says where the second part
 * starts (partitionTo); CR_NEXT, the first output is an array (multisplitToNext: where
 * each bucket of the next part starts) and the elements, if pairs, two outputs (the
 * result's second side is a pair of arrays). Each way the elements' acceptor carries
 * the first output's buffer to the primitive's write rule. */
typedef enum { CR_NONE, CR_PREFIX, CR_SPLIT, CR_NEXT } CountResult;

/* A primitive's meaning in each pass:
 *   infer  the type rule: check the arguments, return the typed E_PRIM (or what it
 *          desugars to), report misuse with diag_error;
 *   lower  its value when read (a view, a register, a loop that fills memory);
 *   eval   its value in the reference interpreter;
 *   write  optional: its lowering when its result is written to an acceptor c (lower_acc):
 *          a map's loop, or the acceptors its arguments are written through (join, scatter,
 *          ...). NULL: the value is computed (lower) and copied into c.
 * and what lower.c asks of it by row, not by name:
 *   through  optional: the primitive is a link of a view chain (lw_view_chain: a chain
 *          of such links over a variable x can be written to, as where toPrivateFun's
 *          function puts its result): its result written to c is its argument
 *          args[chain_arg] written to the acceptor through(w, e, c) returns. NULL: not a link;
 *   chain_ok  optional: a further condition for e to be a link over x (padCst: its value
 *          does not read x; mapSeq: its function is a chain itself);
 *   count_result  what a result of type (count, elements) is (CountResult). */
typedef struct PrimOps {
    Expr *(*infer)(Tc *t, const TcApp *ap);
    LwVal *(*lower)(Lw *w, Expr *e);
    void (*eval)(IpCtx *c, const Code *e, IpVal *r);
    void (*write)(Lw *w, Expr *e, Acc *c);
    Acc *(*through)(Lw *w, Expr *e, Acc *c);
    int chain_arg;
    bool (*chain_ok)(const Expr *e, const Binder *x);
    CountResult count_result;
} PrimOps;

/* Each family's rows, indexed by Prim (rows of other families are empty). */
extern const PrimOps prims_view[P_COUNT], prims_map[P_COUNT], prims_memory[P_COUNT], prims_warp[P_COUNT],
    prims_scalar[P_COUNT], prims_split[P_COUNT], prims_sorttile[P_COUNT];

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
    case PF_SPLIT: return &prims_split[p];
    case PF_SORT: return &prims_sorttile[p];
    }
    unreachable();
}

/* ---------------------------------------------------------------- shared by families */

/* t -> t, meaning x itself (id, take's interpreter meaning, toGlobal/toShared/toPrivate) */
Expr *prim_infer_same(Tc *t, const TcApp *ap);
void prim_eval_same(IpCtx *c, const Code *e, IpVal *r);
/* view.c: x, under view chains, is a grid-, block- or thread-level map (written, never read) */
bool prim_written_map(const Expr *x);
/* memory.c: a kernel-level accumulate's global bins (atomics into scratch the last block
 * clears, or into the output: prim_result_bins), and the last block's op(init)(bin) per
 * bin, into c or the bins */
Buffer *prim_result_bins(Lw *w, Expr *e, Acc *c, bool copy);
Buffer *prim_accumulate_bins(Lw *w, Expr *e, Buffer *into, Buffer **ticket);
bool prim_accumulate_apply(Lw *w, Expr *e, Buffer *bins, Acc *c, bool clear);

#endif
