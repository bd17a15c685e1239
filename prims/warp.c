/* warp.c: the warp shuffles and vote, and the grid-wide lastBlock, lookback and scanPipe
 * (PF_WARP, PF_GRID).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

#include <string.h>

/* ---------------------------------------------------------------- the warp shuffles */

/* shflDownWarp(d), shflUpWarp(d), shflXorWarp(m) : 32.t -> 32.t  (t a scalar or pairs of
 * scalars, each leaf shuffled on its own; d and m constants in 0..31) */
static Expr *infer_shfl(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    const PrimInfo *pi = &prim_info[ap->p];
    Ast **nat = ap->nat;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Expr *e;
    Nat *d = tc_nat_of(t, nat[0], sc);
    int64_t c;
    if (!nat_is_const(d, &c) || c < 0 || c > 31) {
        hint_const(t->d, t->a, d, 0, 31);
        diag_error(t->d, nat[0]->sp, "%s: the %s must be a constant in 0..31", pi->name, p == P_SHFLXOR ? "lane mask" : "delta");
    }
    Expr *x = tc_infer(t, arg[0], sc, NULL);
    Type *tx = tc_want_array(t, x, pi->name);
    if (!nat_is_const(tx->arr.n, &c) || c != 32 || !ty_scalar_leaves(tx->arr.elem)) {
        if (ty_scalar_leaves(tx->arr.elem)) hint_fact(t->d, t->a, HINT_EQ, tx->arr.n, nat_cst(t->a, 32));
        diag_error(t->d, x->sp, "%s expects a 32-element warp array of scalars (or pairs of scalars), but this has "
                   "type %s", pi->name, tc_tstr(t, tx));
    }
    e = tc_prim_expr(t, p, tx, sp);
    e->prim.nats[0] = d;
    e->prim.args[0] = x;
    return e;
}

/* shflWarp : 32.idx[32] -> 32.t -> 32.t  (the source lane of each lane; t a scalar or
 * pairs of scalars) */
static Expr *infer_shfl_warp(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    Arena *a = t->a;
    Expr *e;
    Nat *n32 = nat_cst(a, 32);
    Expr *src = tc_infer(t, arg[0], sc, ty_array(a, n32, ty_idx(a, n32)));
    Expr *x = tc_infer(t, arg[1], sc, NULL);
    int64_t c;
    Type *ts = tc_want_array(t, src, "shflWarp");
    if (!nat_is_const(ts->arr.n, &c) || c != 32 ||
        !(ts->arr.elem->kind == T_IDX || (ts->arr.elem->kind == T_SCALAR && (ts->arr.elem->sk == SK_I32 || ts->arr.elem->sk == SK_U32))))
        diag_error(t->d, src->sp, "shflWarp expects 32 lane indices (32.idx[32]), but this has type %s", tc_tstr(t, ts));
    Type *tx = tc_want_array(t, x, "shflWarp");
    if (!nat_is_const(tx->arr.n, &c) || c != 32 || !ty_scalar_leaves(tx->arr.elem)) {
        if (ty_scalar_leaves(tx->arr.elem)) hint_fact(t->d, t->a, HINT_EQ, tx->arr.n, nat_cst(t->a, 32));
        diag_error(t->d, x->sp, "shflWarp expects a 32-element warp array of scalars (or pairs of scalars), but this "
                   "has type %s", tc_tstr(t, tx));
    }
    e = tc_prim_expr(t, p, tx, sp);
    e->prim.args[0] = src;
    e->prim.args[1] = x;
    return e;
}

/* a shuffle of a warp array (one element per lane) inside mapWarp: a V_SHFL view, read at
 * the lane's own index (view_at in lower.c); the data argument is shflWarp's second */
static LwVal *lower_shfl(Lw *w, Expr *e)
{
    Expr **arg = e->prim.args;
    Prim p = e->prim.p;
    View *v;
    LwVal *in = lw_lower_exp(w, arg[p == P_SHFLWARP ? 1 : 0]);
    int64_t off;
    if (!lw_inside(w, LVL_WARP) || lw_inside(w, LVL_LANE) || !lw_lanes_offset(w, in->v, &off) || off != 0)
        diag_error(w->d, e->sp, "%s is only supported on a warp array (one element per lane, e.g. from "
                   "mapLane or toPrivate inside mapWarp)", prim_info[p].name);
    v = lw_view(w, V_SHFL, e->ty, in->v);
    v->shfl = (ShflKind)prim_info[p].shfl;
    if (p == P_SHFLWARP) v->src = lw_lower_exp(w, arg[0])->v;
    else v->n1 = e->prim.nats[0];
    return lw_array(w, v);
}

/* The 32-lane shuffles as a permutation view: lane i reads lane perm[i]. */
static void eval_shuffle(IpCtx *c, const Code *e, IpVal *res)
{
    IpVal a, src, s;
    ip_eval(c, e->args[e->p == P_SHFLWARP ? 1 : 0], &a);
    int64_t n = a.ty->n, d = e->k[0];
    int64_t *perm = ip_pool_alloc(c, sizeof(int64_t) * (size_t)(n ? n : 1), false);
    if (e->p == P_SHFLWARP) ip_eval(c, e->args[0], &src);
    for (int64_t i = 0; i < n; i++) {
        switch ((ShflKind)prim_info[e->p].shfl) {
        case SHFL_DOWN: /* a[i+d] if i+d <= 31 else a[i] */
            perm[i] = i + d <= n - 1 ? i + d : i;
            break;
        case SHFL_UP: /* a[i-d] if i-d >= 0 else a[i] */
            perm[i] = i - d >= 0 ? i - d : i;
            break;
        case SHFL_XOR: /* a[i xor m] */
            if (d < 0 || d >= 32 || (i ^ d) >= n)
                ip_fail(c, e->sp, "shflXorWarp mask %lld is outside the warp", (long long)d);
            perm[i] = i ^ d;
            break;
        case SHFL_BALLOT: unreachable(); /* ballotWarp's meaning is eval_ballot */
        case SHFL_ANY:
        case SHFL_ALL:
        case SHFL_REDMIN:
        case SHFL_MATCH:
        case SHFL_VOTEBIT: unreachable(); /* no primitive: lowerings' votes only */
        case SHFL_IDX: { /* a[src[i]] */
            ip_val_sel(c, &src, i, src.ty->elem, &s);
            int64_t v = s.s.i;
            if (v < 0 || v >= n)
                ip_fail(c, e->sp, "shflWarp: lane %lld reads lane %lld, outside the warp of %lld",
                     (long long)i, (long long)v, (long long)n);
            perm[i] = v;
            break;
        }
        }
    }
    Node *nd = ip_node_new(c, N_PERM, &a, NULL);
    nd->perm = perm;
    ip_val_node(res, e->ty, nd);
}

/* ---------------------------------------------------------------- the warp vote */

/* ballotWarp : 32.bool -> u32. The warp's vote: a value of the warp (every lane has
 * it), whose bit i is set when element i is true. */
static Expr *infer_ballot(Tc *t, const TcApp *ap)
{
    Expr *x = tc_infer(t, ap->arg[0], ap->sc, NULL);
    Type *tx = tc_want_array(t, x, "ballotWarp");
    int64_t c;
    if (!nat_is_const(tx->arr.n, &c) || c != 32 || tx->arr.elem->kind != T_SCALAR || tx->arr.elem->sk != SK_BOOL)
        diag_error(t->d, x->sp, "ballotWarp expects a 32-element warp array of bool (one per lane), but this has type %s",
                   tc_tstr(t, tx));
    Expr *e = tc_prim_expr(t, ap->p, ty_scalar(t->a, SK_U32), ap->sp);
    e->prim.args[0] = x;
    return e;
}

/* ballotWarp(a) in warp-level code: lane i reads a[i] (a warp array's own element, or
 * any array at the lane's index) and the warp votes, __ballot_sync over all 32 lanes,
 * into a register, as a statement of its own (every lane must run it: see
 * shuffle_now in lower.c). */
static LwVal *lower_ballot(Lw *w, Expr *e)
{
    if (!lw_inside(w, LVL_WARP) || lw_inside(w, LVL_LANE))
        diag_error(w->d, e->sp, "ballotWarp is warp-level code: it belongs in a mapWarp's function, outside mapLane "
                   "(every lane of the warp votes)");
    if (w->partial_lanes)
        diag_error(w->d, e->sp, "ballotWarp inside code that only some lanes of the warp run: every lane must vote");
    LwVal *in = lw_lower_exp(w, e->prim.args[0]);
    X *mine = lw_view_at(w, in->v, nat_var(w->a, w->k->hw.lane))->x;
    return lw_scalar(w, lw_materialise(w, lw_xballot(w, mine), "vote"));
}

/* ballotWarp(a) = sum of 2^i over the i with a[i] true */
static void eval_ballot(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a, s;
    ip_eval(c, e->args[0], &a);
    uint64_t m = 0;
    for (int64_t i = 0; i < a.ty->n; i++) {
        ip_val_sel(c, &a, i, a.ty->elem, &s);
        if (s.s.b) m |= 1ull << i;
    }
    ip_val_scalar(r, e->ty, ip_scalar_of_int(SK_U32, (int64_t)m));
}

/* ---------------------------------------------------------------- lastBlock */

/* lastBlock(f)(ys) : t  for ys : n.s computed by the whole grid and f : n.s -> t, typed as
 * if inside a mapBlock; not inside a map */
static Expr *infer_last_block(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Type *expected = ap->expected;
    Span sp = ap->sp;
    Expr *e;
    /* lastBlock(f)(ys) = f(ys); ys is computed by all blocks, f runs in the last one */
    if (t->ctx.n)
        diag_error2(t->d, sp, t->ctx.sp[t->ctx.n - 1], "the enclosing map is here",
                    "lastBlock runs after the whole grid; it cannot be inside a map");
    Expr *x = tc_infer(t, arg[1], sc, NULL);
    tc_want_array(t, x, "lastBlock");
    t->ctx.lv[0] = LVL_BLOCK;
    t->ctx.dim[0] = 0;
    t->ctx.sp[0] = sp;
    t->ctx.fdepth[0] = -1;
    t->ctx.n = 1;
    Expr *f = tc_check_fun(t, arg[0], &x->ty, 1, sc, expected, sp);
    t->ctx.n = 0;
    e = tc_prim_expr(t, p, tc_fun_result(f, 1), sp);
    e->prim.args[0] = f;
    e->prim.args[1] = x;
    return e;
}

/* ---------------------------------------------------------------- grid hand-overs as kernel IR */

/* The grid's block count, as a nat. */
static Nat *grid_blocks(Lw *w)
{
    Arena *a = w->a;
    const HwIds *h = &w->k->hw;
    return nat_mul(a, nat_mul(a, nat_var(a, h->gdim[0]), nat_var(a, h->gdim[1])), nat_var(a, h->gdim[2]));
}

static X *lit_of(Lw *w, ScalarKind sk, uint64_t v)
{
    X *x = lw_xnew(w, X_LIT, sk);
    x->lit.u = v;
    return x;
}

/* the block's first thread: threadIdx.x + threadIdx.y + threadIdx.z == 0 */
static X *thread0(Lw *w)
{
    Arena *a = w->a;
    const HwIds *h = &w->k->hw;
    Nat *s = nat_add(a, nat_var(a, h->tid[0]), nat_add(a, nat_var(a, h->tid[1]), nat_var(a, h->tid[2])));
    return lw_xbin(w, OP_EQ, SK_BOOL, lw_xnat(w, s), lw_xnat(w, nat_cst(a, 0)));
}

/* An S_IF on the thread's id that the lowering writes itself (per_lane: loops.c puts no
 * single-thread guard in it); what is emitted next goes into it until w->cur = *saved */
static Stmt *open_thread_if(Lw *w, X *c, Stmt **saved)
{
    Stmt *g = lw_open_if(w, c, saved);
    g->cond.per_lane = true;
    return g;
}

static void emit_barrier(Lw *w, Level l)
{
    Stmt *b = lw_snew(w, S_BARRIER);
    b->barrier.level = l;
    lw_emit(w, b);
}

/* lastBlock's hand-over, up to the body: what is emitted next until lw_last_close is
 * the body, which one block runs after the whole grid wrote part (the returned list is
 * the one to go back to).
 *
 * Flagged partials (each a 64-bit word {value bits, 1 << 32}, stored whole with
 * st.relaxed.gpu: single-copy atomic, so the flag is never seen without its value):
 * the grid's last block (blockIdx == gridDim - 1 in each dimension) runs the body,
 * whose reads of the partials wait for their flags (patc_wait), those its own threads
 * store included, so no barrier goes in front of it. No block waits for a store to be
 * acknowledged or for an atomic's round trip, and the partials cross from L2 once:
 * 0.6-0.7 us less than the ticket at n = 2^20 on an H200, where a ticket drawn when
 * each block starts, or a copy of the partials to shared memory, cost 0.35 and 0.1-0.2
 * us of that back (bench/exp/mid.sh). Waiting is safe: only the last block ever waits,
 * and the blocks it waits for never do, so they finish as soon as they run, on the slots
 * beside it (the hardware dispatches blocks in order, the last one last).
 *
 * The ticket (partials wider than a flagged word can carry; threadFenceReduction with
 * both fences folded into one atomic): a barrier hands every thread's writes of the
 * block to thread 0, whose atom.acq_rel.gpu on the ticket releases them to the device
 * (a release is cumulative) and, in the block that takes the last ticket, acquires what
 * all the others released; the shared flag `last` and a second barrier hand that on to
 * the whole block, which runs the body. This is the order cooperative groups' grid
 * sync uses, and one atomic is about 0.3 us shorter than fence, atomic, fence
 * (bench/exp/small.sh). A one-block grid takes no ticket: __syncthreads orders a
 * block's own global accesses. */
Stmt *lw_last_open(Lw *w, Buffer *part, Buffer *ticket, Span sp)
{
    Arena *a = w->a;
    const HwIds *h = &w->k->hw;
    Nat *nb = grid_blocks(w), *zero = nat_cst(a, 0);
    X *c = NULL;
    Stmt *saved;
    if (part->flagged) {
        for (int d = 0; d < 3; d++) {
            X *e = lw_xbin(w, OP_EQ, SK_BOOL, lw_xnat(w, nat_var(a, h->bid[d])),
                           lw_xnat(w, nat_sub(a, nat_var(a, h->gdim[d]), nat_cst(a, 1))));
            c = c ? lw_xbin(w, OP_AND, SK_BOOL, c, e) : e;
        }
    } else {
        Buffer *last = lw_shared_buffer(w, "last", SK_BOOL, nat_cst(a, 1), sp), *tk;
        Stmt *s0, *s1;
        emit_barrier(w, LVL_BLOCK);
        open_thread_if(w, thread0(w), &s0);
        lw_emit(w, lw_scalar_decl(w, "ticket", SK_U32, lit_of(w, SK_U32, 0), &tk));
        open_thread_if(w, lw_xbin(w, OP_GT, SK_BOOL, lw_xnat(w, nb), lw_xnat(w, nat_cst(a, 1))), &s1);
        X *at = lw_xnew(w, X_ATOMIC, SK_U32);
        at->atomic.op = ATOM_ADD;
        at->atomic.buf = ticket;
        at->atomic.index = zero;
        at->atomic.val = lit_of(w, SK_U32, 1);
        at->atomic.order = MO_ACQ_REL;
        lw_store(w, tk, zero, at);
        w->cur = s1;
        lw_store(w, last, zero, lw_xbin(w, OP_EQ, SK_BOOL, lw_xload(w, tk, zero), lw_xnat(w, nat_sub(a, nb, nat_cst(a, 1)))));
        w->cur = s0;
        emit_barrier(w, LVL_BLOCK);
        c = lw_xload(w, last, zero);
    }
    lw_open_if(w, c, &saved)->cond.block_uniform = true;
    w->lv[w->ndepth++] = LVL_BLOCK;
    return saved;
}

/* The end of lastBlock's body: the scratch made ready for the next launch. Flagged: a
 * barrier (no thread clears a word another has still to read), then the block's
 * threads clear the words, thread x those at x, x + blockDim.x, ... (in a block of
 * several rows each row clears them all: stores of the same zero); the ticket: thread
 * 0 resets it. */
void lw_last_close(Lw *w, Buffer *part, Buffer *ticket, Stmt *saved)
{
    Arena *a = w->a;
    Nat *zero = nat_cst(a, 0);
    Stmt *s0;
    if (part->flagged) {
        emit_barrier(w, LVL_BLOCK);
        Buffer *word = ANEW(a, Buffer); /* the same memory seen as its 64-bit words */
        *word = *part;
        word->sk = SK_U64;
        word->flagged = word->coherent = false;
        Nat *cnt = nat_var(a, w->k->hw.bdim[0]);
        NatVar *r = nat_newvar(a, arena_printf(a, "r%d", w->names++), 0,
                               nat_div(a, nat_add(a, part->count, nat_sub(a, cnt, nat_cst(a, 1))), cnt));
        Nat *i = nat_add(a, nat_var(a, w->k->hw.tid[0]), nat_mul(a, nat_var(a, r), cnt));
        Stmt *wl = lw_snew(w, S_WHILE);
        wl->wloop.var = r;
        wl->wloop.cond = lw_xbin(w, OP_LT, SK_BOOL, lw_xnat(w, i), lw_xnat(w, part->count));
        wl->wloop.body = stmt_seq(a);
        lw_emit(w, wl);
        Stmt *st = lw_snew(w, S_STORE);
        st->store.buf = word;
        st->store.index = i;
        st->store.val = lit_of(w, SK_U64, 0);
        st->store.order = MO_RELAXED;
        stmt_append(a, wl->wloop.body, st);
    } else {
        X *more = lw_xbin(w, OP_GT, SK_BOOL, lw_xnat(w, grid_blocks(w)), lw_xnat(w, nat_cst(a, 1)));
        open_thread_if(w, lw_xbin(w, OP_AND, SK_BOOL, thread0(w), more), &s0);
        lw_store(w, ticket, zero, lit_of(w, SK_U32, 0));
    }
    w->ndepth--;
    w->cur = saved;
}

/* lastBlock read as a value: an error. Its lowering writes the kernel's result
 * (lower_last_block below) */
static LwVal *lower_last_block_read(Lw *w, Expr *e)
{
    diag_error(w->d, e->sp, "lastBlock must produce the kernel's result (it ends the kernel)");
}

/* lastBlock(f)(ys) = f(ys) */
static void eval_last_block(IpCtx *c, const Code *e, IpVal *r)
{
    IpVal a;
    ip_eval(c, e->args[1], &a);
    ip_apply(c, e->args[0], &a, r);
    r->ty = e->ty;
}

/* A scratch array for one side of lastBlock's partials, read through L2 unless flagged;
 * *ctx keeps the first (the hand-over's part: lw_last_open) */
static Buffer *partial_buffer(Lw *w, void *ctx, ScalarKind sk, Nat *count)
{
    Buffer **first = ctx, *b = lw_scratch_buffer(w, "partial", sk, count);
    b->coherent = true;
    if (!*first) *first = b;
    return b;
}

/* acc(lastBlock(f)(accumulate(k)(op)(init)(ps)), out): the grid's atomics into k global
 * bins (prim_accumulate_bins), the ticket, then in the last block
 *   bins[j] = op(init)(bins[j])   (nothing for a literal 0: prim_accumulate_apply)
 *   acc(f(bins), out)             f reads the bins as an array in global memory
 *   bins[j] = 0                   after a barrier: no thread clears a bin another reads
 * One launch where the kernel's result accumulate and a second launch over its bins took
 * two (the radix sort's histogram and the scan of its counts, rsHistScanD). With the bins
 * in the output (prim_result_bins: the runtime zeroes it before the launch), the last
 * block copies them to shared memory and f reads the copy, as f's writes go to the same
 * words; there is nothing to clear:
 *   sh[j] = out[j]; barrier; acc(f(sh), out) */
static void last_block_bins(Lw *w, Expr *e, Acc *c)
{
    Expr *ys = e->prim.args[1], *f = e->prim.args[0];
    Buffer *ticket, *out = prim_result_bins(w, ys, c, true), *bins = prim_accumulate_bins(w, ys, out, &ticket);
    Stmt *saved = lw_last_open(w, bins, ticket, e->sp);
    if (out) {
        Buffer *sh = lw_shared_buffer(w, "binsin", bins->sk, ys->ty->arr.n, e->sp);
        NatVar *iv;
        Stmt *ls_saved, *ls = lw_open_loop(w, LVL_THREADS, 0, ys->ty->arr.n, &iv, &ls_saved);
        lw_store(w, sh, nat_var(w->a, iv), lw_xload(w, bins, nat_var(w->a, iv)));
        lw_close_loop(w, ls, ls_saved);
        emit_barrier(w, LVL_BLOCK);
        lw_bind(w, f->lam.param, lw_array(w, lw_mem_view(w, ys->ty, sh)));
        lw_lower_acc(w, f->lam.body, c);
        lw_last_close(w, bins, ticket, saved);
        return;
    }
    if (prim_accumulate_apply(w, ys, bins, NULL, false)) emit_barrier(w, LVL_BLOCK);
    lw_bind(w, f->lam.param, lw_array(w, lw_mem_view(w, ys->ty, bins)));
    lw_lower_acc(w, f->lam.body, c);
    emit_barrier(w, LVL_BLOCK);
    (void)prim_accumulate_apply(w, ys, bins, NULL, true);
    lw_last_close(w, bins, ticket, saved);
}

/* acc(lastBlock(f)(ys), out) = acc(ys, partials); hand-over protocol;
 *                             in the last block: acc(f(partials), out)
 * ys is computed by the whole grid into a global scratch buffer; one block sees all
 * of it and computes f at block level. No second launch is needed. Partials of at most
 * 32 bits are flagged words, which the grid's last block waits for as it reads them;
 * wider ones are handed over by a ticket that every block takes after its writes
 * (lw_last_open). */
static void lower_last_block(Lw *w, Expr *e, Acc *c)
{
    Arena *a = w->a;
    if (w->ndepth) die("lastBlock inside a map passed the type checker");
    Expr *ys = e->prim.args[1], *f = e->prim.args[0];
    if (ys->kind == E_PRIM && ys->prim.p == P_ACCUMULATE) {
        last_block_bins(w, e, c);
        return;
    }
    Acc *c0;
    View *pv;
    Buffer *part = NULL;
    if (!lw_soa(w, ys->ty, partial_buffer, &part, &c0, &pv))
        diag_error(w->d, ys->sp, "lastBlock of %s: the grid's result must be an array of scalars or of pairs of "
                   "scalars", ty_str(a, ys->ty));
    /* partials of pairs (one array per side) are handed over by the ticket: a flag
     * beside each side would be read apart from the other's */
    part->flagged = scalar_info[part->sk].size <= 4 && c0->kind == W_MEM;
    part->coherent = !part->flagged;
    Buffer *ticket = part->flagged ? NULL : lw_scratch_buffer(w, "ticket", SK_U32, nat_cst(a, 1));
    w->k->ticket = ticket;
    lw_lower_acc(w, ys, c0);
    Stmt *saved = lw_last_open(w, part, ticket, e->sp);
    lw_bind(w, f->lam.param, lw_array(w, pv));
    lw_lower_acc(w, f->lam.body, c);
    lw_last_close(w, part, ticket, saved);
}

/* ---------------------------------------------------------------- lookback */

/* lookback(op)(init)(x): (t -> t -> t) -> t -> t -> t, t a scalar or a pair of two
 * scalars. Block i of the enclosing mapBlock gets init `op` x_0 `op` ... x_(i-1), the
 * values the earlier blocks gave (op(a)(b): a the earlier). It must be block-level code
 * of a one-dimensional mapBlock that no other map or function encloses: once per
 * block, where the whole block runs it. */
static Expr *infer_lookback(Tc *t, const TcApp *ap)
{
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Span sp = ap->sp;
    TcMaps *c = &t->ctx;
    bool in_seq = t->seq_fdepth && t->fdepth == t->seq_fdepth;
    if (!in_seq && (c->n != 1 || c->lv[0] != LVL_BLOCK || c->dim[0] != 0 || c->fdepth[0] != t->fdepth)) {
        const char *why = "lookback gives each block of a mapBlock the prefix of the earlier blocks' values (or each "
                          "iteration of a mapSeq in a block's or a warp's code the prefix of the earlier iterations'): "
                          "it must be block-level code in the body of a one-dimensional mapBlock, or of a mapSeq there "
                          "or in a mapWarp there, outside any other map, lastBlock or sequential function";
        if (c->n) diag_error2(t->d, sp, c->sp[c->n - 1], "the enclosing map is here", "%s", why);
        diag_error(t->d, sp, "%s", why);
    }
    Expr *x = tc_infer(t, arg[2], sc, NULL);
    Type *ty = x->ty;
    bool ok = ty->kind == T_SCALAR ||
              (ty->kind == T_PAIR && ty->pair.a->kind == T_SCALAR && ty->pair.b->kind == T_SCALAR);
    if (!ok) diag_error(t->d, arg[2]->sp, "lookback of %s: the value must be a scalar or a pair of two scalars", tc_tstr(t, ty));
    Expr *init = tc_infer(t, arg[1], sc, ty);
    if (!ty_equal(init->ty, ty))
        diag_error(t->d, arg[1]->sp, "lookback: the neutral element has type %s but the value has type %s",
                   tc_tstr(t, init->ty), tc_tstr(t, ty));
    Type *ps[2] = {ty, ty};
    Expr *f = tc_check_fun(t, arg[0], ps, 2, sc, ty, sp);
    Type *rt = tc_fun_result(f, 2);
    if (!ty_equal(rt, ty))
        diag_error(t->d, arg[0]->sp, "lookback: the operator returns %s but the value has type %s", tc_tstr(t, rt), tc_tstr(t, ty));
    Expr *e = tc_prim_expr(t, P_LOOKBACK, ty, sp);
    e->prim.dim = in_seq;
    e->prim.args[0] = f;
    e->prim.args[1] = init;
    e->prim.args[2] = x;
    return e;
}

/* The leaves of a scalar or a pair of scalars, left to right. */
static int val_leaves(Lw *w, LwVal *v, X **out, Span sp)
{
    if (v->k == VAL_SCALAR) {
        out[0] = v->x;
        return 1;
    }
    if (v->k == VAL_PAIR && v->a->k == VAL_SCALAR && v->b->k == VAL_SCALAR) {
        out[0] = v->a->x;
        out[1] = v->b->x;
        return 2;
    }
    diag_error(w->d, sp, "lookback: the value must be a scalar or a pair of two scalars");
}

/* The value held in n one-element buffers: a scalar, or a pair of two. */
static LwVal *leaves_val(Lw *w, Buffer *const *b, int n)
{
    LwVal *v0 = lw_scalar(w, lw_xload(w, b[0], nat_cst(w->a, 0)));
    return n == 1 ? v0 : lw_pairv(w, v0, lw_scalar(w, lw_xload(w, b[1], nat_cst(w->a, 0))));
}

/* lookback(op)(init)(x) in the body of a mapSeq that is block-level code (or warp-level
 * code of a mapWarp there): the prefix is carried over the loop's iterations in a
 * register per leaf, declared with init before the loop. x is the same value in every
 * thread of the block (lane of the warp), so all carry the same prefix and none waits
 * for another. The loop must be
 * the innermost one and written in order (write_map), each iteration once. */
static LwVal *lower_carry(Lw *w, Expr *e)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args;
    Stmt *lp = w->seq_loop;
    bool warp = w->nloops == 3 && w->loops[1]->loop.level == LVL_WARP;
    if (!lp || (w->nloops != 2 && !warp) || w->loops[w->nloops - 1] != lp || w->loops[0]->loop.level != LVL_BLOCK ||
        w->loops[0]->loop.dim != 0)
        diag_error(w->d, e->sp, "lookback in a mapSeq carries a prefix over its iterations: the mapSeq must be "
                   "written in order, as a loop of the block's or a warp's code (its result stored or passed on "
                   "whole), not read element by element elsewhere");
    if (w->seq_looked)
        diag_error(w->d, e->sp, "this mapSeq's iteration reaches a lookback twice (its element is computed twice, or "
                   "it has two): it carries one prefix");
    w->seq_looked = true;
    LwVal *x = lw_lower_exp(w, arg[2]);
    X *xs[2], *is[2], *os[2];
    int n = val_leaves(w, x, xs, arg[2]->sp);
    /* init is computed before the loop: statements it needs would land in the loop */
    Stmt *saved = w->cur, *before = w->cur = stmt_seq(a);
    val_leaves(w, lw_lower_exp(w, arg[1]), is, arg[1]->sp);
    w->cur = saved;
    if (before->seq.n)
        diag_error(w->d, arg[1]->sp, "lookback in a mapSeq: the neutral element must be a constant or a value "
                   "known before the loop");
    /* the carry is declared before the loop, which is the last statement of its list so
     * far; the iteration's prefix is a copy, since the carry moves on below */
    Buffer *carry[2], *pre[2];
    Stmt *par = w->seq_parent;
    if (!par->seq.n || par->seq.items[par->seq.n - 1] != lp) die("lookback: the mapSeq's loop is not last");
    par->seq.n--;
    for (int i = 0; i < n; i++) {
        stmt_append(a, par, lw_scalar_decl(w, "carry", xs[i]->sk, is[i], &carry[i]));
        lw_emit(w, lw_scalar_decl(w, "pre", xs[i]->sk, lw_xload(w, carry[i], nat_cst(a, 0)), &pre[i]));
    }
    stmt_append(a, par, lp);
    LwVal *res = leaves_val(w, pre, n);
    Expr *f = arg[0];
    lw_bind(w, f->lam.param, res);
    lw_bind(w, f->lam.body->lam.param, x);
    val_leaves(w, lw_lower_exp(w, f->lam.body->lam.body), os, arg[0]->sp);
    for (int i = 0; i < n; i++) os[i] = lw_materialise(w, os[i], "nxt");
    for (int i = 0; i < n; i++) lw_store(w, carry[i], nat_cst(a, 0), os[i]);
    return res;
}

/* ---------------------------------------------------------------- the look-back as kernel IR */

/* The list below seq that holds t (NULL: none). */
static Stmt *list_of(Stmt *seq, const Stmt *t)
{
    Stmt *r = NULL;
    switch (seq->kind) {
    case S_SEQ:
        for (int i = 0; i < seq->seq.n && !r; i++) r = seq->seq.items[i] == t ? seq : list_of(seq->seq.items[i], t);
        return r;
    case S_FOR: return list_of(seq->loop.body, t);
    case S_IF: return list_of(seq->cond.then, t);
    case S_WHILE: return list_of(seq->wloop.body, t);
    case S_DECL: case S_STORE: case S_BARRIER: case S_COMMENT: case S_VLOAD: case S_JUMP: case S_LET:
    case S_SLEEP: case S_MBAR: case S_VSTORE: case S_BULK: case S_PREFETCH: return NULL;
    }
    unreachable();
}

static X *xordered(Lw *w, Buffer *b, Nat *i, MemOrder mo)
{
    X *x = lw_xload(w, b, i);
    x->load.order = mo;
    return x;
}
static X *xreg(Lw *w, Buffer *b) { return lw_xload(w, b, nat_cst(w->a, 0)); }
static X *xnat_lt(Lw *w, Nat *l, Nat *r) { return lw_xbin(w, OP_LT, SK_BOOL, lw_xnat(w, l), lw_xnat(w, r)); }
static X *xnat_eq(Lw *w, Nat *l, int64_t c) { return lw_xbin(w, OP_EQ, SK_BOOL, lw_xnat(w, l), lw_xnat(w, nat_cst(w->a, c))); }

static void emit_jump(Lw *w, JumpKind k)
{
    Stmt *s = lw_snew(w, S_JUMP);
    s->jump.k = k;
    lw_emit(w, s);
}

/* What the look-back's code needs of its lowering. */
typedef struct Look {
    int n;                      /* leaves: 1 or 2 */
    bool packed;                /* one leaf of at most 32 bits, kept with its flag in one word */
    Expr *op;                   /* the user's operator */
    Nat *tile, *tiles;          /* this block's tile, and how many there are */
    X *agg[2], *init[2];
    Buffer *state;              /* packed: the tile words */
    Buffer *flags, *aggs[2], *incs[2]; /* else: flags and values */
    Buffer *epoch;              /* the launch's epoch (u32 register) */
} Look;

static LwVal *leaves_x(Lw *w, X *const *x, int n)
{
    return n == 1 ? lw_scalar(w, x[0]) : lw_pairv(w, lw_scalar(w, x[0]), lw_scalar(w, x[1]));
}

/* out = op(pa)(pb), leaf by leaf: the user's operator lowered here (its code inlined,
 * each application with registers of its own), each leaf in a register */
static void look_apply(Lw *w, const Look *L, X *const *pa, X *const *pb, X **out)
{
    Expr *f = L->op;
    lw_bind(w, f->lam.param, leaves_x(w, pa, L->n));
    lw_bind(w, f->lam.body->lam.param, leaves_x(w, pb, L->n));
    val_leaves(w, lw_lower_exp(w, f->lam.body->lam.body), out, f->sp);
    for (int i = 0; i < L->n; i++) out[i] = lw_materialise(w, out[i], "lbo");
}

/* (epoch << 2) | st: a tile word's status (st 1: aggregate, 2: inclusive prefix) */
static X *look_status(Lw *w, const Look *L, int st)
{
    X *e = lw_xbin(w, OP_SHL, SK_U32, xreg(w, L->epoch), lit_of(w, SK_U32, 2));
    return lw_xbin(w, OP_BOR, SK_U32, e, lit_of(w, SK_U32, (uint64_t)st));
}

/* This tile publishes the leaf values v with status st. Packed: one relaxed 64-bit
 * store of {status, value bits} (single-copy atomic). Else the values first, each
 * status in its own slot (a reader that saw A must not get P's value), then the flag,
 * released after them. */
static void look_publish(Lw *w, const Look *L, int st, X *const *v)
{
    Stmt *s = lw_snew(w, S_STORE);
    s->store.index = L->tile;
    if (L->packed) {
        X *hi = lw_xun(w, X_CAST, SK_U64, look_status(w, L, st));
        X *lo = lw_xun(w, X_CAST, SK_U64, lw_xun(w, X_BITCAST, SK_U32, v[0]));
        s->store.buf = L->state;
        s->store.val = lw_xbin(w, OP_BOR, SK_U64, lw_xbin(w, OP_SHL, SK_U64, hi, lit_of(w, SK_U32, 32)), lo);
        s->store.order = MO_RELAXED;
    } else {
        for (int i = 0; i < L->n; i++) lw_store(w, (st == 1 ? L->aggs : L->incs)[i], L->tile, v[i]);
        s->store.buf = L->flags;
        s->store.val = look_status(w, L, st);
        s->store.order = MO_RELEASE;
    }
    lw_emit(w, s);
}

/* A mapBlock with a lookback numbers its blocks in the order they start, in front of
 * its loop: thread 0 draws from the 64-bit counter ctr {epoch, count}, and the block
 * that draws the grid's last tile (every other block has drawn before it) sets it to
 * {epoch + 1, 0} for the next launch; a shared word hands the draw to the block. The
 * epoch tags the tile words this launch writes, so words left by an earlier launch read
 * as "not yet" and no launch clears them (30 bits: a word would be mistaken only if it
 * survived 2^30 launches unwritten). Seed 001, 4.4: a block waits only for blocks that
 * have started, so it cannot wait for one that is not resident. The loop's index is
 * the drawn tile (S_FOR's draw, a register); *epoch gets the epoch's register. */
static void draw_tile(Lw *w, Stmt *blk, Buffer *ctr, Span sp, Buffer **epoch)
{
    Arena *a = w->a;
    Stmt *par = list_of(w->k->body, blk), *saved = w->cur, *s0, *s1, *pre = stmt_seq(a);
    if (!par) die("lookback: the mapBlock's loop is not in the kernel's body");
    Nat *zero = nat_cst(a, 0);
    w->cur = pre;
    Buffer *sh = lw_shared_buffer(w, "lbdraw", SK_U64, nat_cst(a, 1), sp), *d, *tile;
    open_thread_if(w, thread0(w), &s0);
    X *at = lw_xnew(w, X_ATOMIC, SK_U64);
    at->atomic.op = ATOM_ADD;
    at->atomic.buf = ctr;
    at->atomic.index = zero;
    at->atomic.val = lit_of(w, SK_U64, 1);
    lw_emit(w, lw_scalar_decl(w, "lbd", SK_U64, at, &d));
    X *last = lw_xbin(w, OP_EQ, SK_BOOL, lw_xun(w, X_CAST, SK_U32, xreg(w, d)),
                      lw_xnat(w, nat_sub(a, grid_blocks(w), nat_cst(a, 1))));
    open_thread_if(w, last, &s1);
    X *ep = lw_xbin(w, OP_SHL, SK_U64, lw_xbin(w, OP_SHR, SK_U64, xreg(w, d), lit_of(w, SK_U32, 32)), lit_of(w, SK_U32, 32));
    lw_store(w, ctr, zero, lw_xbin(w, OP_ADD, SK_U64, ep, lit_of(w, SK_U64, 1ull << 32)));
    w->cur = s1;
    lw_store(w, sh, zero, xreg(w, d));
    w->cur = s0;
    emit_barrier(w, LVL_BLOCK);
    lw_emit(w, lw_scalar_decl(w, "lbtile", SK_U32, lw_xun(w, X_CAST, SK_U32, lw_xload(w, sh, zero)), &tile));
    X *e = lw_xun(w, X_CAST, SK_U32, lw_xbin(w, OP_SHR, SK_U64, lw_xload(w, sh, zero), lit_of(w, SK_U32, 32)));
    lw_emit(w, lw_scalar_decl(w, "lbepoch", SK_U32, lw_xbin(w, OP_BAND, SK_U32, e, lit_of(w, SK_U32, 0x3fffffffu)), epoch));
    w->cur = saved;
    /* pre goes in front of the loop */
    int at_i = 0, m = pre->seq.n;
    while (par->seq.items[at_i] != blk) at_i++;
    for (int i = 0; i < m; i++) stmt_append(a, par, pre->seq.items[i]); /* grow */
    memmove(par->seq.items + at_i + m, par->seq.items + at_i, sizeof(Stmt *) * (size_t)(par->seq.n - m - at_i));
    memcpy(par->seq.items + at_i, pre->seq.items, sizeof(Stmt *) * (size_t)m);
    blk->loop.draw = tile;
}

/* draw_tile for a lowering that opens its mapBlock's loop itself (prims/split.c) */
void lw_draw_tile(Lw *w, Stmt *blk, Buffer *ctr, Span sp, Buffer **epoch) { draw_tile(w, blk, ctr, sp, epoch); }

/* The decoupled look-back (seed 001, Merrill & Garland), run by warp 0 of the block:
 * tile 0 publishes its aggregate as its inclusive prefix at once; another tile
 * publishes its aggregate (A), then reads windows of the 32 tiles before it, lane l of
 * window r the tile t - 1 - (32r + l), polling (relaxed loads, __all_sync, then
 * __nanosleep(32)) until every one has published something; the values from the
 * nearest tile with a prefix (P) up to the newest are combined in order, older first,
 * by a shuffle tree (lane l takes op(v[l + d], v[l]) for d = 1, 2, 4, 8, 16); with no P
 * in the window the window's total joins the prefix and the next window is read. The
 * tile then publishes op(prefix, aggregate) as P and leaves the prefix in res. Lanes
 * past the nearest P and tiles before 0 count as init, which must be op's neutral
 * element. Unpacked, the flag is read relaxed and a fence orders the value's read
 * (through L2) after it. */
static void look_back(Lw *w, const Look *L, Buffer *const *res)
{
    Arena *a = w->a;
    int n = L->n;
    Nat *t = L->tile, *zero = nat_cst(a, 0);
    Stmt *s_w0, *s_t, *s_in, *s_win, *s_poll;
    /* warp 0 (threadIdx.x >> 5: the block is one row, loops.c), whose lanes all run
     * the shuffles and votes below */
    open_thread_if(w, xnat_eq(w, nat_var(a, w->k->hw.warp), 0), &s_w0);
    Nat *ln = nat_var(a, w->k->hw.lane);
    Buffer *ex[2], *v[2], *st, *hi, *sw, *pm;
    X *exx[2] = {NULL, NULL}, *vx[2] = {NULL, NULL}, *r[2] = {NULL, NULL};
    for (int i = 0; i < n; i++) {
        lw_emit(w, lw_scalar_decl(w, "lbex", L->agg[i]->sk, L->init[i], &ex[i]));
        exx[i] = xreg(w, ex[i]);
    }
    lw_open_if(w, xnat_eq(w, t, 0), &s_t);
    lw_open_if(w, xnat_eq(w, ln, 0), &s_in);
    look_publish(w, L, 2, L->agg);
    w->cur = s_t;
    lw_open_if(w, lw_xnot(w, xnat_eq(w, t, 0)), &s_t);
    lw_open_if(w, xnat_eq(w, ln, 0), &s_in);
    look_publish(w, L, 1, L->agg);
    w->cur = s_in;
    NatVar *rv = nat_newvar(a, arena_printf(a, "lbr%d", w->names++), 0, L->tiles);
    lw_open_while(w, rv, &s_win);
    Nat *k = nat_add(a, nat_mul(a, nat_cst(a, 32), nat_var(a, rv)), ln);
    Nat *j = nat_sub(a, t, nat_add(a, k, nat_cst(a, 1)));
    X *valid = xnat_lt(w, k, t);
    lw_emit(w, lw_scalar_decl(w, "lbst", SK_U32, NULL, &st));
    for (int i = 0; i < n; i++) {
        lw_emit(w, lw_scalar_decl(w, "lbv", L->agg[i]->sk, NULL, &v[i]));
        vx[i] = xreg(w, v[i]);
    }
    Stmt *win = w->cur;
    lw_open_while(w, NULL, &s_poll);
    if (L->packed) {
        X *word = lw_xsel(w, valid, xordered(w, L->state, j, MO_RELAXED), lit_of(w, SK_U64, 0));
        lw_emit(w, lw_scalar_decl(w, "lbsw", SK_U64, word, &sw));
        X *h = lw_xun(w, X_CAST, SK_U32, lw_xbin(w, OP_SHR, SK_U64, xreg(w, sw), lit_of(w, SK_U32, 32)));
        lw_emit(w, lw_scalar_decl(w, "lbhi", SK_U32, h, &hi));
        lw_store(w, v[0], zero, lw_xun(w, X_BITCAST, L->agg[0]->sk, lw_xun(w, X_CAST, SK_U32, xreg(w, sw))));
    } else {
        X *h = lw_xsel(w, valid, xordered(w, L->flags, j, MO_RELAXED), lit_of(w, SK_U32, 0));
        lw_emit(w, lw_scalar_decl(w, "lbhi", SK_U32, h, &hi));
    }
    X *mine = lw_xbin(w, OP_EQ, SK_BOOL, lw_xbin(w, OP_SHR, SK_U32, xreg(w, hi), lit_of(w, SK_U32, 2)), xreg(w, L->epoch));
    X *status = lw_xsel(w, mine, lw_xbin(w, OP_BAND, SK_U32, xreg(w, hi), lit_of(w, SK_U32, 3)), lit_of(w, SK_U32, 0));
    lw_store(w, st, zero, lw_xsel(w, valid, status, lit_of(w, SK_U32, 2)));
    X *seen = lw_xbin(w, OP_NE, SK_BOOL, xreg(w, st), lit_of(w, SK_U32, 0));
    lw_open_if(w, lw_xshfl(w, SHFL_ALL, SK_BOOL, seen, NULL), &s_in);
    emit_jump(w, JK_BREAK);
    w->cur = s_in;
    Stmt *sl = lw_snew(w, S_SLEEP);
    sl->sleep.ns = 32;
    lw_emit(w, sl);
    w->cur = win;
    X *isp = lw_xbin(w, OP_EQ, SK_BOOL, xreg(w, st), lit_of(w, SK_U32, 2));
    if (!L->packed) {
        emit_barrier(w, LVL_GLOBAL);
        lw_open_if(w, valid, &s_in);
        for (int i = 0; i < n; i++)
            lw_store(w, v[i], zero, lw_xsel(w, isp, lw_xload(w, L->incs[i], j), lw_xload(w, L->aggs[i], j)));
        w->cur = s_in;
    }
    lw_emit(w, lw_scalar_decl(w, "lbpm", SK_U32, lw_xshfl(w, SHFL_BALLOT, SK_U32, isp, NULL), &pm));
    /* past the nearest P (a lower lane has one), or before tile 0: init */
    X *below = lw_xbin(w, OP_SUB, SK_U32, lw_xbin(w, OP_SHL, SK_U32, lit_of(w, SK_U32, 1), lw_xnat(w, ln)), lit_of(w, SK_U32, 1));
    X *past = lw_xbin(w, OP_NE, SK_BOOL, lw_xbin(w, OP_BAND, SK_U32, xreg(w, pm), below), lit_of(w, SK_U32, 0));
    lw_open_if(w, lw_xbin(w, OP_OR, SK_BOOL, lw_xnot(w, valid), past), &s_in);
    for (int i = 0; i < n; i++) lw_store(w, v[i], zero, L->init[i]);
    w->cur = s_in;
    for (int d = 1; d < 32; d <<= 1) {
        X *o[2] = {NULL, NULL};
        for (int i = 0; i < n; i++)
            o[i] = lw_materialise(w, lw_xshfl(w, SHFL_DOWN, vx[i]->sk, vx[i], lw_xnat(w, nat_cst(a, d))), "lbsh");
        lw_open_if(w, xnat_lt(w, ln, nat_cst(a, 32 - d)), &s_in);
        look_apply(w, L, o, vx, r);
        for (int i = 0; i < n; i++) lw_store(w, v[i], zero, r[i]);
        w->cur = s_in;
    }
    X *wv[2] = {NULL, NULL}; /* n of them; gcc cannot see that */
    for (int i = 0; i < n; i++) wv[i] = lw_materialise(w, lw_xshfl(w, SHFL_IDX, vx[i]->sk, vx[i], lw_xnat(w, zero)), "lbw");
    look_apply(w, L, wv, exx, r);
    for (int i = 0; i < n; i++) lw_store(w, ex[i], zero, r[i]);
    lw_open_if(w, lw_xbin(w, OP_NE, SK_BOOL, xreg(w, pm), lit_of(w, SK_U32, 0)), &s_in);
    emit_jump(w, JK_BREAK);
    w->cur = s_win;
    lw_open_if(w, xnat_eq(w, ln, 0), &s_in);
    look_apply(w, L, exx, L->agg, r);
    look_publish(w, L, 2, r);
    w->cur = s_t;
    lw_open_if(w, xnat_eq(w, ln, 0), &s_in);
    for (int i = 0; i < n; i++) lw_store(w, res[i], zero, exx[i]);
    w->cur = s_w0;
}

/* lookback(op)(init)(x) in the body of the kernel's mapBlock (in a mapSeq there:
 * lower_carry): the block's tile is drawn from a counter in launch order (draw_tile,
 * so a tile waits only for tiles whose blocks run), and warp 0's look-back (look_back)
 * leaves the exclusive prefix of the earlier tiles' x in shared scalars, read by the
 * whole block after the barrier the barrier pass puts there. The scratch words are
 * tagged with a launch epoch that the counter carries, so no launch resets them. */
static LwVal *lower_lookback(Lw *w, Expr *e)
{
    Arena *a = w->a;
    Expr **arg = e->prim.args;
    if (e->prim.dim) return lower_carry(w, e);
    if (w->nloops != 1 || w->loops[0]->loop.level != LVL_BLOCK || w->loops[0]->loop.dim != 0)
        diag_error(w->d, e->sp, "lookback must run once per block of the kernel's one-dimensional mapBlock, "
                   "outside any other loop");
    Stmt *blk = w->loops[0];
    if (blk->loop.draw)
        diag_error(w->d, e->sp, "a mapBlock has at most one lookback, and this is its second");
    LwVal *x = lw_lower_exp(w, arg[2]), *init = lw_lower_exp(w, arg[1]);
    X *xs[2], *is[2];
    Look L = {.op = arg[0], .tile = nat_var(a, blk->loop.var), .tiles = blk->loop.extent};
    int n = L.n = val_leaves(w, x, xs, arg[2]->sp);
    val_leaves(w, init, is, arg[1]->sp);
    L.packed = n == 1 && scalar_info[xs[0]->sk].size <= 4;
    Buffer *res[2], *pa[2], *pb[2];
    for (int i = 0; i < n; i++) {
        ScalarKind sk = xs[i]->sk;
        L.agg[i] = lw_materialise(w, xs[i], "agg");
        L.init[i] = is[i];
        res[i] = lw_shared_buffer(w, "lb", sk, nat_cst(a, 1), e->sp);
        lw_scalar_decl(w, "lba", sk, NULL, &pa[i]);
        lw_scalar_decl(w, "lbb", sk, NULL, &pb[i]);
        if (!L.packed) {
            L.aggs[i] = lw_scratch_buffer(w, "lbagg", sk, L.tiles);
            L.incs[i] = lw_scratch_buffer(w, "lbinc", sk, L.tiles);
            L.aggs[i]->coherent = L.incs[i]->coherent = true; /* other blocks' values: through L2 */
        }
    }
    if (L.packed) L.state = lw_scratch_buffer(w, "lbstate", SK_U64, L.tiles);
    else L.flags = lw_scratch_buffer(w, "lbflag", SK_U32, L.tiles);
    Buffer *ctr = w->k->draw = lw_scratch_buffer(w, "lbctr", SK_U64, nat_cst(a, 1));
    /* the operator: a function of scalars, its code only declarations (a trial
     * application; each application in look_back is lowered anew) */
    Stmt *saved = w->cur, *trial = w->cur = stmt_seq(a);
    X *pax[2], *pbx[2], *os[2];
    for (int i = 0; i < n; i++) {
        pax[i] = xreg(w, pa[i]);
        pbx[i] = xreg(w, pb[i]);
    }
    look_apply(w, &L, pax, pbx, os);
    w->cur = saved;
    for (int i = 0; i < trial->seq.n; i++)
        if (trial->seq.items[i]->kind != S_DECL)
            diag_error(w->d, arg[0]->sp, "lookback: the operator must be a function of scalars without loops or memory");
    draw_tile(w, blk, ctr, e->sp, &L.epoch);
    look_back(w, &L, res);
    return leaves_val(w, res, n);
}

/* The leaves of a scalar or a pair of scalars. */
static int leaves2(IpCtx *c, const IpVal *v, Scalar *out)
{
    if (v->ty->kind == T_SCALAR) {
        out[0] = v->s;
        return 1;
    }
    IpVal x;
    ip_val_sel(c, v, 0, v->ty->a, &x);
    out[0] = x.s;
    ip_val_sel(c, v, 1, v->ty->b, &x);
    out[1] = x.s;
    return 2;
}

/* *r = the scalar or pair of scalars of type t whose leaves are s */
static void from_leaves(IpCtx *c, const RType *t, const Scalar *s, IpVal *r)
{
    if (t->kind == T_SCALAR) {
        ip_val_scalar(r, t, s[0]);
        return;
    }
    IpVal a, b;
    ip_val_scalar(&a, t->a, s[0]);
    ip_val_scalar(&b, t->b, s[1]);
    ip_val_node(r, t, ip_node_new(c, N_PAIR, &a, &b));
}

/* lookback(op)(init)(x) in block i of a mapBlock = init `op` x_0 `op` ... x_(i-1), the
 * values of the blocks before it, which the interpreter runs first, in order; the
 * running prefix is kept as scalars (the value is a scalar or a pair of two). A block
 * that runs it twice is an error (the type checker lets only block-level code of the
 * mapBlock's body reach it). */
static void eval_lookback(IpCtx *c, const Code *e, IpVal *r)
{
    if (!c->lb.on) ip_fail(c, e->sp, "lookback outside a mapBlock");
    if (c->lb.last == c->lb.block) ip_fail(c, e->sp, "lookback run twice by one block");
    c->lb.last = c->lb.block;
    const Code *f = e->args[0], *g = f->args[0];
    IpVal x, v, pre, nv;
    ip_eval(c, e->args[2], &x);
    if (!c->lb.started) {
        ip_eval(c, e->args[1], &v);
        leaves2(c, &v, c->lb.s);
        c->lb.started = true;
    }
    from_leaves(c, e->ty, c->lb.s, &pre);
    ip_val_set(&c->env[f->slot], &pre);
    ip_val_set(&c->env[g->slot], &x);
    ip_eval(c, g->args[0], &nv);
    nv.ty = e->ty;
    Scalar ns[2];
    leaves2(c, &nv, ns);
    from_leaves(c, e->ty, c->lb.s, r);
    c->lb.s[0] = ns[0];
    c->lb.s[1] = ns[1];
}


/* ---------------------------------------------------------------- scanPipe, scanPipeExcl */

/* scanPipe(w, ipt, s)(op)(init)(xs), scanPipeExcl likewise: (t -> t -> t) -> t -> n.t
 * -> n.t, t a 32-bit scalar (f32, i32, u32). Element i is init `op` xs[0] `op` ... xs[i]
 * (scanPipe) or the same up to xs[i-1] (scanPipeExcl; init at 0); op(a)(b) with a the
 * earlier part, associative, and init its neutral element. w, ipt and s are constants
 * that shape the code (w compute warps of ipt items per lane, s shared-memory slots):
 * the scan is a kernel of its own (write_pipe, below), so it must be the whole
 * of the kernel's body, outside every map and function. */
/* The rules every pipe primitive shares: outside every map and function, and its shape
 * (w, ipt, s) constants in range, ipt a multiple of 4 and at most ipt_max, into ns. */
static void pipe_shape(Tc *t, const TcApp *ap, int64_t ipt_max, const char *why, Nat **ns)
{
    const char *name = prim_info[ap->p].name;
    if (t->ctx.n || t->fdepth)
        diag_error(t->d, ap->sp, "%s is a kernel of its own (a persistent grid with its own warps): it must be the "
                   "kernel's whole result, outside every map and function", name);
    static const char *const what[3] = {"number of compute warps", "number of items per lane", "number of slots"};
    const int64_t lo[3] = {1, 4, 2}, hi[3] = {29, ipt_max, 32};
    for (int i = 0; i < 3; i++) {
        ns[i] = tc_nat_of(t, ap->nat[i], ap->sc);
        int64_t v;
        if (!nat_is_const(ns[i], &v) || v < lo[i] || v > hi[i] || (i == 1 && v % 4)) {
            hint_const(t->d, t->a, ns[i], lo[i], hi[i]);
            diag_error(t->d, ap->nat[i]->sp, "%s: the %s must be a constant in %lld..%lld%s", name, what[i],
                       (long long)lo[i], (long long)hi[i], i == 1 ? why : "");
        }
    }
}

static Expr *infer_pipe(Tc *t, const TcApp *ap)
{
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    const char *name = prim_info[ap->p].name;
    Nat *ns[3];
    pipe_shape(t, ap, 64, ", a multiple of 4 (16-byte vectors)", ns);
    Expr *x = tc_infer(t, arg[2], sc, NULL);
    Type *tx = tc_want_array(t, x, name);
    Type *ty = tx->arr.elem;
    ScalarKind sk = ty->kind == T_SCALAR ? tc_num_kind(ty) : SK_COUNT;
    if (sk != SK_F32 && sk != SK_I32 && sk != SK_U32)
        diag_error(t->d, x->sp, "%s of %s: the elements must be 32-bit scalars (f32, i32 or u32), packed with their "
                   "flags in one 64-bit tile word; scanDevice (patterns/scan.rise) scans the others", name,
                   tc_tstr(t, tx));
    Expr *init = tc_infer(t, arg[1], sc, ty);
    if (!ty_equal(init->ty, ty))
        diag_error(t->d, arg[1]->sp, "%s: the neutral element has type %s but the elements have type %s", name,
                   tc_tstr(t, init->ty), tc_tstr(t, ty));
    Type *ps[2] = {ty, ty};
    Expr *f = tc_check_fun(t, arg[0], ps, 2, sc, ty, ap->sp);
    Type *rt = tc_fun_result(f, 2);
    if (!ty_equal(rt, ty))
        diag_error(t->d, arg[0]->sp, "%s: the operator returns %s but the elements have type %s", name, tc_tstr(t, rt),
                   tc_tstr(t, ty));
    Expr *e = tc_prim_expr(t, ap->p, tx, ap->sp);
    for (int i = 0; i < 3; i++) e->prim.nats[i] = ns[i];
    e->prim.args[0] = f;
    e->prim.args[1] = init;
    e->prim.args[2] = x;
    return e;
}

/* Read rather than written to the kernel's output: an error */
static LwVal *lower_pipe_read(Lw *w, Expr *e)
{
    diag_error(w->d, e->sp, "%s is a kernel of its own: its result must be written to the kernel's output as it "
               "is (the kernel's whole result), not read", prim_info[e->prim.p].name);
}

/* ---------------------------------------------------------------- the pipe kernels as kernel IR */

/* The shared buffers of a pipe kernel, one each (smem.c lays them out): the ring of
 * slots, per slot the mbarriers full, empty, tots, aggb, pref, the tile number, the
 * tile's total and per compute warp the chunk's total, offset in the tile and offset (a
 * filter's also its count), and the epoch. */
typedef enum {
    PS_RING, PS_FULL, PS_EMPTY, PS_TOTS, PS_AGGB, PS_PREF, PS_TID, PS_EP, PS_AGG, PS_WTOT, PS_WOFF, PS_OFF, PS_OWN,
    PS_COUNT
} PipeShared;

/* What the lowering of a pipe kernel's parts shares: its shared buffers (sm[PipeShared]),
 * the shape (W compute warps of IPT items per lane, S slots, tiles of TILE = W*32*IPT
 * elements, the one place it is computed), n, the number of tiles, and the hardware's
 * warp and lane ids. */
typedef struct Pipe {
    Lw *w;
    Arena *a;
    Buffer **sm;
    Nat *n, *tiles;
    int W, IPT, S, TILE;
    Nat *warp, *lane;
    Expr *f;      /* a scan's operator op(a)(b); NULL: a filter's or partition's counts add */
    X *init;      /* its neutral element */
    ScalarKind ck; /* the values handed over (a filter's: u32 counts) */
    Expr *pred;    /* a filter's or partition's predicate pred(x); NULL for a scan */
    bool part;     /* a partition: the others go to the output's end (stable: after the selected) */
    Buffer *given; /* a stable partition's count of the selected (one u32, global); else NULL */
} Pipe;

static Nat *pn(Pipe *p, int64_t v) { return nat_cst(p->a, v); }

/* a literal of scalar kind sk (an integer one) */
static X *plit(Pipe *p, ScalarKind sk, int64_t v)
{
    X *x = lw_xnew(p->w, X_LIT, sk);
    x->lit.i = v;
    return x;
}

static X *pcast(Pipe *p, ScalarKind sk, X *e)
{
    X *x = lw_xnew(p->w, X_CAST, sk);
    x->un.e = e;
    return x;
}

static X *pnat(Pipe *p, Nat *n) { return x_nat(p->a, n); }

static X *pcmp(Pipe *p, BinOp op, Nat *l, Nat *r) { return x_bin(p->a, op, SK_BOOL, pnat(p, l), pnat(p, r)); }

/* the parity of slot iteration k's phase: (k / S) & 1, a u32 */
static X *pparity(Pipe *p, Nat *k)
{
    return pcast(p, SK_U32, x_bin(p->a, OP_BAND, SK_I32, pnat(p, nat_div(p->a, k, pn(p, p->S))), plit(p, SK_I32, 1)));
}

static void pmbar(Pipe *p, MbarOp op, int which, Nat *index, X *arg)
{
    Stmt *s = lw_snew(p->w, S_MBAR);
    s->mbar.op = op;
    s->mbar.buf = op == MB_FENCE ? NULL : p->sm[which];
    s->mbar.index = index;
    s->mbar.arg = arg;
    lw_emit(p->w, s);
}

static void pjump(Pipe *p, JumpKind k) { emit_jump(p->w, k); }

/* lw_let on the pipe's lowering */
static Nat *plet(Pipe *p, const char *prefix, X *val, int64_t lb, Nat *ub) { return lw_let(p->w, prefix, val, lb, ub); }

/* for (var = 0;; var++) with var < ub, its body opened (lw_close with *saved) */
static Nat *popen_while(Pipe *p, const char *prefix, Nat *ub, Stmt **saved)
{
    NatVar *v = nat_newvar(p->a, arena_printf(p->a, "%s%d", prefix, p->w->names++), 0, ub);
    lw_open_while(p->w, v, saved);
    return nat_var(p->a, v);
}

/* op(a)(b), the user's operator inlined (its body lowered with its parameters bound to
 * a and b, each computed once), or a count's sum */
static X *pop(Pipe *p, X *a, X *b)
{
    if (!p->f) return x_bin(p->a, OP_ADD, SK_U32, a, b);
    lw_bind(p->w, p->f->lam.param, lw_scalar(p->w, lw_materialise(p->w, a, "pa")));
    lw_bind(p->w, p->f->lam.body->lam.param, lw_scalar(p->w, lw_materialise(p->w, b, "pb")));
    LwVal *r = lw_lower_exp(p->w, p->f->lam.body->lam.body);
    return r->x;
}

static X *pshfl(Pipe *p, ShflKind k, X *val, int arg) { return lw_xshfl(p->w, k, val->sk, val, plit(p, SK_I32, arg)); }

/* A private scalar of the handed-over type, initialised with x; its load */
static X *preg(Pipe *p, const char *prefix, X *x, Buffer **b)
{
    lw_emit(p->w, lw_scalar_decl(p->w, prefix, x->sk, x, b));
    return lw_xload(p->w, *b, pn(p, 0));
}

/* The warp's inclusive scan of the register r (load x): the steps of patterns/scan.rise's
 * scanWarpStep, each lane l >= d taking op(the value d lanes up, its own) */
static void pwarp_scan(Pipe *p, Buffer *r, X *x)
{
    for (int d = 1; d < 32; d <<= 1) {
        X *o = lw_materialise(p->w, pshfl(p, SHFL_UP, x, d), "po");
        X *sel = lw_xnew(p->w, X_SELECT, x->sk);
        sel->sel.c = pcmp(p, OP_GE, p->lane, pn(p, d));
        sel->sel.a = pop(p, o, x);
        sel->sel.b = x;
        lw_store(p->w, r, pn(p, 0), sel);
    }
}

/* the warp role of warp `warp`, its body opened */
static void popen_role(Pipe *p, int warp, Stmt **saved)
{
    Stmt *g = lw_open_if(p->w, pcmp(p, OP_EQ, p->warp, pn(p, warp)), saved);
    g->cond.role = true;
}

/* Before the roles: thread 0 initialises each slot's mbarriers with the arrivals a phase
 * takes (full: the producer's expect, completed by the bulk copy's bytes; empty: every
 * lane of the compute warps; tots: one lane per compute warp; aggb and pref: every lane
 * of the aggregator and of the look-back warp). barrier.c puts the __syncthreads that
 * orders this before the roles. */
static void pipe_init(Pipe *p)
{
    Stmt *saved, *lsaved;
    lw_open_if(p->w, pcmp(p, OP_EQ, nat_var(p->a, p->w->k->hw.tid[0]), pn(p, 0)), &saved);
    NatVar *iv;
    Stmt *loop = lw_open_loop(p->w, LVL_SEQ, 0, pn(p, p->S), &iv, &lsaved);
    Nat *i = nat_var(p->a, iv);
    const int which[5] = {PS_FULL, PS_EMPTY, PS_TOTS, PS_AGGB, PS_PREF};
    const int64_t count[5] = {1, 32 * p->W, p->W, 32, 32};
    for (int j = 0; j < 5; j++) pmbar(p, MB_INIT, which[j], i, plit(p, SK_U32, count[j]));
    lw_close_loop(p->w, loop, lsaved);
    p->w->cur = saved;
}

/* A stable partition's tile t counted from the end, tiles - 1 - t for a drawn tile t
 * (0 <= t < tiles), as a let of range [0, tiles): spelt out inside the indices it made
 * width.c add n for each of tiles and t (TILE * tiles is about n), so that from n = 2^28
 * every launch used 64-bit indices (5n + ... >= 2^31) */
static Nat *pipe_from_end(Pipe *p, Nat *t)
{
    return plet(p, "ptt", pnat(p, nat_sub(p->a, nat_sub(p->a, p->tiles, pn(p, 1)), t)), 0, p->tiles);
}

/* The producer (lane 0 of warp W + 2): slot iteration k draws tile t from the counter
 * {epoch, count} in launch order, once slot k % S is free (empty's phase of iteration
 * k - S), and bulk-copies the tile's whole 16-byte vectors into it (the compute warps
 * read the last tile's last few elements from the input); the draw of the launch's last
 * ticket (tiles + gridDim.x of them: every block draws once past the end) sets the counter
 * to {epoch + 1, 0}, so that no launch resets anything; a draw past the end hands the
 * others tile -1 and ends the role. A stable partition copies the tiles from the end
 * (its count launch read them last). */
static void pipe_producer(Pipe *p, bool stable, Buffer *in, Buffer *ctr)
{
    Arena *a = p->a;
    Lw *w = p->w;
    Stmt *saved, *wsaved, *isaved;
    popen_role(p, p->W + 2, &saved);
    lw_open_if(w, pcmp(p, OP_NE, p->lane, pn(p, 0)), &isaved);
    pjump(p, JK_RETURN);
    w->cur = isaved;
    Nat *gdim = nat_var(a, w->k->hw.gdim[0]);
    Nat *k = popen_while(p, "pk", nat_add(a, p->tiles, pn(p, 1)), &wsaved);
    Nat *sl = plet(p, "psl", pnat(p, nat_mod(a, k, pn(p, p->S))), 0, pn(p, p->S));
    lw_open_if(w, pcmp(p, OP_GE, k, pn(p, p->S)), &isaved);
    pmbar(p, MB_WAIT, PS_EMPTY, sl, pparity(p, nat_sub(a, k, pn(p, p->S))));
    w->cur = isaved;
    X *draw = lw_xnew(w, X_ATOMIC, SK_U64);
    draw->atomic.op = ATOM_ADD;
    draw->atomic.buf = ctr;
    draw->atomic.index = pn(p, 0);
    draw->atomic.val = plit(p, SK_U64, 1);
    Buffer *db;
    lw_emit(w, lw_scalar_decl(w, "pd", SK_U64, draw, &db));
    X *d = lw_xload(w, db, pn(p, 0));
    X *last = pcast(p, SK_U32, pnat(p, nat_sub(a, nat_add(a, p->tiles, gdim), pn(p, 1))));
    lw_open_if(w, x_bin(a, OP_EQ, SK_BOOL, pcast(p, SK_U32, d), last), &isaved);
    lw_store(w, ctr, pn(p, 0), x_bin(a, OP_ADD, SK_U64, x_bin(a, OP_BAND, SK_U64, d, plit(p, SK_U64, (int64_t)0xffffffff00000000ull)),
                                     plit(p, SK_U64, 1ll << 32)));
    w->cur = isaved;
    lw_open_if(w, pcmp(p, OP_EQ, k, pn(p, 0)), &isaved);
    lw_store(w, p->sm[PS_EP], pn(p, 0),
             x_bin(a, OP_BAND, SK_U32, pcast(p, SK_U32, x_bin(a, OP_SHR, SK_U64, d, plit(p, SK_U64, 32))),
                   plit(p, SK_U32, 0x3fffffff)));
    w->cur = isaved;
    Nat *t = plet(p, "pt", pcast(p, SK_U32, d), 0, nat_add(a, p->tiles, gdim));
    lw_open_if(w, pcmp(p, OP_GE, t, p->tiles), &isaved);
    lw_store(w, p->sm[PS_TID], sl, plit(p, SK_I64, -1));
    pmbar(p, MB_ARRIVE, PS_FULL, sl, NULL);
    pjump(p, JK_RETURN);
    w->cur = isaved;
    lw_store(w, p->sm[PS_TID], sl, pnat(p, t));
    Nat *tt = stable ? pipe_from_end(p, t) : t;
    /* the tile's elements, 1..TILE past the return above: a let whose range says so, for
     * width.c, which bounds a min by its larger side (n + TILE*(tiles + gridDim), 4 of
     * them made every launch from n = 2^28 use 64-bit indices) */
    Nat *left = plet(p, "pleft", pnat(p, nat_min(a, nat_sub(a, p->n, nat_mul(a, tt, pn(p, p->TILE))), pn(p, p->TILE))), 1,
                     pn(p, p->TILE + 1));
    Buffer *bb;
    X *bytes = pcast(p, SK_U32, x_bin(a, OP_BAND, SK_I32, pnat(p, nat_mul(a, left, pn(p, 4))), plit(p, SK_I32, -16)));
    lw_emit(w, lw_scalar_decl(w, "pbytes", SK_U32, bytes, &bb));
    X *b = lw_xload(w, bb, pn(p, 0));
    pmbar(p, MB_FENCE, 0, NULL, NULL); /* after the slot's generic accesses */
    pmbar(p, MB_EXPECT, PS_FULL, sl, b);
    lw_open_if(w, x_bin(a, OP_NE, SK_BOOL, b, plit(p, SK_U32, 0)), &isaved);
    Stmt *bk = lw_snew(w, S_BULK);
    bk->bulk.dst = p->sm[PS_RING];
    bk->bulk.dst_index = nat_mul(a, sl, pn(p, p->TILE));
    bk->bulk.src = in;
    bk->bulk.src_index = nat_mul(a, tt, pn(p, p->TILE));
    bk->bulk.bytes = b;
    bk->bulk.bar = p->sm[PS_FULL];
    bk->bulk.bar_index = sl;
    lw_emit(w, bk);
    w->cur = isaved;
    w->cur = wsaved;
    w->cur = saved;
}

/* The head of the aggregator's and the look-back warp's loop over slot iterations k: the
 * tile t in slot sl = k % S, once the producer filled it (t < 0: no more tiles, the role
 * ends), then the hand-over `bar` of that round. Opens the loop's body (*saved). */
static Nat *pipe_round(Pipe *p, int bar, Nat **slp, Stmt **saved)
{
    Arena *a = p->a;
    Stmt *isaved;
    Nat *k = popen_while(p, "pk", nat_add(a, p->tiles, pn(p, 1)), saved);
    Nat *sl = plet(p, "psl", pnat(p, nat_mod(a, k, pn(p, p->S))), 0, pn(p, p->S));
    pmbar(p, MB_WAIT, PS_FULL, sl, pparity(p, k));
    Nat *t = plet(p, "pt", lw_xload(p->w, p->sm[PS_TID], sl), -1, p->tiles);
    lw_open_if(p->w, pcmp(p, OP_LT, t, pn(p, 0)), &isaved);
    pjump(p, JK_RETURN);
    p->w->cur = isaved;
    pmbar(p, MB_WAIT, bar, sl, pparity(p, k));
    *slp = sl;
    return t;
}

/* The tile word of tile t: ((epoch << 2 | flag) << 32) | the value's bits, stored whole
 * (relaxed, gpu scope), as the look-back reads it */
static void pipe_publish(Pipe *p, Buffer *state, Nat *t, X *ep, X *flag, X *val)
{
    Arena *a = p->a;
    X *hi = x_bin(a, OP_BOR, SK_U32, x_bin(a, OP_SHL, SK_U32, ep, plit(p, SK_U32, 2)), flag);
    X *bits = val;
    if (val->sk != SK_U32) {
        bits = lw_xnew(p->w, X_BITCAST, SK_U32);
        bits->un.e = val;
    }
    X *word = x_bin(a, OP_BOR, SK_U64, x_bin(a, OP_SHL, SK_U64, pcast(p, SK_U64, hi), plit(p, SK_U64, 32)),
                    pcast(p, SK_U64, bits));
    Stmt *s = lw_snew(p->w, S_STORE);
    s->store.buf = state;
    s->store.index = t;
    s->store.val = word;
    s->store.order = MO_RELAXED;
    lw_emit(p->w, s);
}

/* The aggregator (warp W): each tile's chunk totals (lane l: compute warp l's) scanned
 * into the chunks' offsets in the tile, the tile's total published in its word (flag A,
 * or P for tile 0) and handed to the look-back warp with the offsets (aggb: every lane
 * arrives, each releasing what it read and wrote) */
static void pipe_aggregator(Pipe *p, Buffer *state)
{
    Arena *a = p->a;
    Lw *w = p->w;
    Stmt *saved, *wsaved, *isaved;
    Buffer *rb, *eb;
    Nat *sl;
    popen_role(p, p->W, &saved);
    Nat *t = pipe_round(p, PS_TOTS, &sl, &wsaved);
    X *ep = preg(p, "pep", lw_xload(w, p->sm[PS_EP], pn(p, 0)), &eb);
    Nat *mine = nat_add(a, nat_mul(a, sl, pn(p, p->W)), p->lane);
    X *v = lw_xnew(w, X_SELECT, p->ck);
    v->sel.c = pcmp(p, OP_LT, p->lane, pn(p, p->W));
    v->sel.a = lw_xload(w, p->sm[PS_WTOT], mine);
    v->sel.b = p->init;
    X *inc = preg(p, "pinc", v, &rb);
    pwarp_scan(p, rb, inc);
    X *tot = lw_materialise(w, pshfl(p, SHFL_IDX, inc, 31), "ptot");
    X *up = lw_materialise(w, pshfl(p, SHFL_UP, inc, 1), "pup");
    lw_open_if(w, pcmp(p, OP_EQ, p->lane, pn(p, 0)), &isaved);
    X *flag = lw_xnew(w, X_SELECT, SK_U32);
    flag->sel.c = pcmp(p, OP_EQ, t, pn(p, 0));
    flag->sel.a = plit(p, SK_U32, 2);
    flag->sel.b = plit(p, SK_U32, 1);
    pipe_publish(p, state, t, ep, flag, tot);
    lw_store(w, p->sm[PS_AGG], sl, tot);
    w->cur = isaved;
    lw_open_if(w, pcmp(p, OP_LT, p->lane, pn(p, p->W)), &isaved);
    X *ex = lw_xnew(w, X_SELECT, p->ck);
    ex->sel.c = pcmp(p, OP_EQ, p->lane, pn(p, 0));
    ex->sel.a = p->init;
    ex->sel.b = up;
    lw_store(w, p->sm[PS_WOFF], mine, ex);
    w->cur = isaved;
    pmbar(p, MB_ARRIVE, PS_AGGB, sl, NULL);
    w->cur = wsaved;
    w->cur = saved;
}

/* One window of the look-back: lane l reads the words of tiles j = top - 32u - l,
 * u = 0..3 (coalesced; older at higher l and u) that lie after prev, until none of them
 * is unset (of another epoch, or flag 0: zeroed memory in epoch 0), sleeping 20 ns
 * between polls; then the nearest P's distance `near` (the warp's minimum), and the
 * values from top back to it combined in order into acc: per group of 32 a shuffle tree
 * (lane l takes op(v[l + d], v[l])), then the groups. found: a P was among them. */
static void pipe_window(Pipe *p, Buffer *state, Nat *top, X *prev, X *ep, Buffer *accb, Buffer *foundb)
{
    Arena *a = p->a;
    Lw *w = p->w;
    Stmt *psaved, *isaved;
    Buffer *wb[4], *gb[4], *ub, *nb;
    X *wd[4], *g[4], *live[4];
    Nat *dist[4];
    for (int u = 0; u < 4; u++) {
        dist[u] = nat_add(a, pn(p, 32 * u), p->lane);
        X *j = pnat(p, nat_sub(a, top, dist[u]));
        live[u] = x_bin(a, OP_GT, SK_BOOL, j, prev);
        wd[u] = preg(p, "pwd", plit(p, SK_U64, 0), &wb[u]);
    }
    Stmt *poll = lw_snew(w, S_WHILE);
    poll->wloop.body = stmt_seq(a);
    lw_emit(w, poll);
    psaved = w->cur;
    w->cur = poll->wloop.body;
    /* the four loads first, then the tests: a test between them (its || a branch) made
     * nvcc issue the fourth load only after the first had come back, two round trips to
     * L2 a poll where the hand-written template had one */
    for (int u = 0; u < 4; u++) {
        X *ld = lw_xload(w, state, nat_sub(a, top, dist[u]));
        ld->load.order = MO_RELAXED;
        lw_store(w, wb[u], pn(p, 0), lw_xsel(p->w, live[u], ld, plit(p, SK_U64, 0)));
    }
    X *unset = preg(p, "punset", x_bool(a, false), &ub);
    for (int u = 0; u < 4; u++) {
        X *hi = lw_materialise(w, pcast(p, SK_U32, x_bin(a, OP_SHR, SK_U64, wd[u], plit(p, SK_U64, 32))), "phi");
        X *other = x_bin(a, OP_NE, SK_BOOL, x_bin(a, OP_SHR, SK_U32, hi, plit(p, SK_U32, 2)), ep);
        X *zero = x_bin(a, OP_EQ, SK_BOOL, x_bin(a, OP_BAND, SK_U32, hi, plit(p, SK_U32, 3)), plit(p, SK_U32, 0));
        lw_store(w, ub, pn(p, 0), x_bin(a, OP_OR, SK_BOOL, unset, x_bin(a, OP_AND, SK_BOOL, live[u],
                                                                         x_bin(a, OP_OR, SK_BOOL, other, zero))));
    }
    lw_open_if(w, lw_xnot(p->w, lw_xshfl(p->w, SHFL_ANY, SK_BOOL, unset, NULL)), &isaved);
    pjump(p, JK_BREAK);
    w->cur = isaved;
    Stmt *sl = lw_snew(w, S_SLEEP);
    sl->sleep.ns = 20;
    lw_emit(w, sl);
    w->cur = psaved;
    X *near = preg(p, "pnear", plit(p, SK_U32, (int64_t)0xffffffffu), &nb);
    for (int u = 0; u < 4; u++) {
        X *flag = x_bin(a, OP_BAND, SK_U32, pcast(p, SK_U32, x_bin(a, OP_SHR, SK_U64, wd[u], plit(p, SK_U64, 32))),
                        plit(p, SK_U32, 3));
        lw_open_if(w, x_bin(a, OP_AND, SK_BOOL, live[u], x_bin(a, OP_EQ, SK_BOOL, flag, plit(p, SK_U32, 2))), &isaved);
        X *m = lw_xnew(w, X_MINMAX, SK_U32);
        m->bin.op = OP_LT;
        m->bin.l = near;
        m->bin.r = pcast(p, SK_U32, pnat(p, dist[u]));
        lw_store(w, nb, pn(p, 0), m);
        w->cur = isaved;
    }
    lw_store(w, nb, pn(p, 0), lw_xshfl(p->w, SHFL_REDMIN, SK_U32, near, NULL));
    for (int u = 0; u < 4; u++) {
        X *v = pcast(p, SK_U32, wd[u]);
        if (p->ck != SK_U32) {
            X *b = lw_xnew(w, X_BITCAST, p->ck);
            b->un.e = v;
            v = b;
        }
        X *in = x_bin(a, OP_AND, SK_BOOL, live[u], x_bin(a, OP_LE, SK_BOOL, pcast(p, SK_U32, pnat(p, dist[u])), near));
        g[u] = preg(p, "pg", lw_xsel(p->w, in, v, p->init), &gb[u]);
    }
    for (int d = 1; d < 32; d <<= 1)
        for (int u = 0; u < 4; u++) {
            X *o = lw_materialise(w, pshfl(p, SHFL_DOWN, g[u], d), "po");
            lw_store(w, gb[u], pn(p, 0), lw_xsel(p->w, pcmp(p, OP_LT, nat_add(a, p->lane, pn(p, d)), pn(p, 32)), pop(p, o, g[u]), g[u]));
        }
    X *all = lw_materialise(w, pop(p, pop(p, pop(p, g[3], g[2]), g[1]), g[0]), "pall");
    X *acc = lw_xload(w, accb, pn(p, 0));
    lw_store(w, accb, pn(p, 0), pop(p, lw_materialise(w, pshfl(p, SHFL_IDX, all, 0), "pw0"), acc));
    lw_store(w, foundb, pn(p, 0), x_bin(a, OP_NE, SK_BOOL, near, plit(p, SK_U32, (int64_t)0xffffffffu)));
}

/* The look-back warp (warp W + 1): each tile's exclusive prefix from the words of the
 * tiles before it (seed 001's decoupled look-back: 4 x 32 words a window, newest
 * first, back to the nearest P, never past its own block's previous tile prev, whose
 * inclusive prefix prevp it knows), P published, the chunks' offsets handed over (a
 * filter's: the count of every tile to `count` from the last; a stable partition's
 * offsets count from the end, after the given number of selected `given`) */
static void pipe_lookback(Pipe *p, Buffer *state, Buffer *count, Buffer *given)
{
    Arena *a = p->a;
    Lw *w = p->w;
    Stmt *saved, *wsaved, *isaved, *lsaved;
    Buffer *prb, *ppb, *eb, *tb, *ab, *fb, *ib;
    Nat *sl;
    popen_role(p, p->W + 1, &saved);
    X *prev = preg(p, "pprev", plit(p, SK_I64, -1), &prb);
    X *prevp = preg(p, "pprevp", p->init, &ppb);
    Nat *t = pipe_round(p, PS_AGGB, &sl, &wsaved);
    X *ep = preg(p, "pep", lw_xload(w, p->sm[PS_EP], pn(p, 0)), &eb);
    X *tot = preg(p, "ptot", lw_xload(w, p->sm[PS_AGG], sl), &tb);
    X *acc = preg(p, "pacc", p->init, &ab);
    X *xt = pnat(p, t), *after = x_bin(a, OP_EQ, SK_BOOL, prev, pnat(p, nat_sub(a, t, pn(p, 1))));
    X *found = preg(p, "pfound", x_bin(a, OP_OR, SK_BOOL, x_bin(a, OP_EQ, SK_BOOL, xt, plit(p, SK_I32, 0)), after), &fb);
    /* for (r = 0; !found && top > prev; r++), top = t - 1 - 128 r */
    Stmt *lb = lw_snew(w, S_WHILE);
    lb->wloop.var = nat_newvar(a, arena_printf(a, "pr%d", w->names++), 0, nat_add(a, nat_div(a, p->tiles, pn(p, 128)), pn(p, 2)));
    Nat *top = nat_sub(a, nat_sub(a, t, pn(p, 1)), nat_mul(a, nat_var(a, lb->wloop.var), pn(p, 128)));
    lb->wloop.cond = x_bin(a, OP_AND, SK_BOOL, lw_xnot(p->w, found), x_bin(a, OP_GT, SK_BOOL, pnat(p, top), prev));
    lb->wloop.body = stmt_seq(a);
    lw_emit(w, lb);
    lsaved = w->cur;
    w->cur = lb->wloop.body;
    pipe_window(p, state, top, prev, ep, ab, fb);
    w->cur = lsaved;
    /* back to the previous tile: its prefix first */
    lw_open_if(w, x_bin(a, OP_OR, SK_BOOL, lw_xnot(p->w, found), after), &isaved);
    lw_store(w, ab, pn(p, 0), pop(p, prevp, acc));
    w->cur = isaved;
    lw_open_if(w, x_bin(a, OP_EQ, SK_BOOL, xt, plit(p, SK_I32, 0)), &isaved);
    lw_store(w, ab, pn(p, 0), p->init);
    w->cur = isaved;
    X *inc = preg(p, "pinc", pop(p, acc, tot), &ib);
    X *lane0 = pcmp(p, OP_EQ, p->lane, pn(p, 0));
    lw_open_if(w, x_bin(a, OP_AND, SK_BOOL, lane0, x_bin(a, OP_NE, SK_BOOL, xt, plit(p, SK_I32, 0))), &isaved);
    pipe_publish(p, state, t, ep, plit(p, SK_U32, 2), inc);
    w->cur = isaved;
    if (count) {
        lw_open_if(w, x_bin(a, OP_AND, SK_BOOL, lane0, pcmp(p, OP_EQ, t, nat_sub(a, p->tiles, pn(p, 1)))), &isaved);
        lw_store(w, count, pn(p, 0), inc);
        w->cur = isaved;
    }
    Nat *mine = nat_add(a, nat_mul(a, sl, pn(p, p->W)), p->lane);
    lw_open_if(w, pcmp(p, OP_LT, p->lane, pn(p, p->W)), &isaved);
    X *woff = lw_xload(w, p->sm[PS_WOFF], mine);
    X *off = given ? x_bin(a, OP_ADD, SK_U32, x_bin(a, OP_SUB, SK_U32, x_bin(a, OP_SUB, SK_U32, lw_xload(w, given, pn(p, 0)), acc), tot), woff)
                   : pop(p, acc, woff);
    lw_store(w, p->sm[PS_OFF], mine, off);
    w->cur = isaved;
    pmbar(p, MB_ARRIVE, PS_PREF, sl, NULL);
    lw_store(w, prb, pn(p, 0), xt);
    lw_store(w, ppb, pn(p, 0), inc);
    w->cur = wsaved;
    w->cur = saved;
}

/* A private vector register of 4 elements (S_VLOAD's destination, S_VSTORE's source),
 * declared here */
static Buffer *pvec(Pipe *p, const char *prefix, ScalarKind sk)
{
    Buffer *b = lw_new_buffer(p->w, prefix, AS_PRIVATE, sk, pn(p, 4));
    b->vec = 4;
    Stmt *d = lw_snew(p->w, S_DECL);
    d->decl.buf = b;
    lw_emit(p->w, d);
    return b;
}

static void pvload(Pipe *p, Buffer *dst, Buffer *src, Nat *index)
{
    Stmt *s = lw_snew(p->w, S_VLOAD);
    s->vload.dst = dst;
    s->vload.src = src;
    s->vload.index = index;
    s->vload.width = 4;
    lw_emit(p->w, s);
}

static void pvstore(Pipe *p, Buffer *dst, Nat *index, Buffer *src)
{
    Stmt *s = lw_snew(p->w, S_VSTORE);
    s->vstore.dst = dst;
    s->vstore.src = src;
    s->vstore.index = index;
    s->vstore.width = 4;
    lw_emit(p->w, s);
}

/* cnt: how many of tile t's elements lie from this compute warp's chunk on (up to the
 * tile's end: more than CH for all but the last warp, which users clamp to CH; 0 or less
 * past n), by which the last tile's chunks are bounded. Its declared range must hold:
 * the nat simplifier drops a min(cnt, CH) it believes, and a range of CH did drop the
 * partitions' clamp (tests/emu caught the others written past their chunk). */
static Nat *pipe_chunk_count(Pipe *p, Nat *t)
{
    Arena *a = p->a;
    int CH = 32 * p->IPT;
    Nat *c = nat_sub(a, nat_min(a, nat_sub(a, p->n, nat_mul(a, t, pn(p, p->TILE))), pn(p, p->TILE)),
                     nat_mul(a, p->warp, pn(p, CH)));
    return plet(p, "pcnt", pnat(p, c), -(int64_t)p->TILE, pn(p, p->TILE + 1));
}

/* A scan's newly loaded tile t in slot sl, for compute warp `warp`: its chunk's IPT
 * elements per lane in registers (16-byte vector loads from the ring; the last tile's
 * elements past the copy from the input, past n init), scanned in the lane, the lanes'
 * totals scanned by the warp (scanWarpStep's steps), each element given the prefix of
 * the lanes before (an exclusive scan's element i the prefix before it), written back
 * to the ring (vector stores), and the chunk's total handed to the aggregator */
/* The chunk of tile t in slot sl, IPT elements per lane, into the vector registers xq:
 * 16-byte vector loads from the ring, the last tile's elements past the copy from the
 * input, past n `past` */
static void pipe_load_chunk(Pipe *p, Buffer *in, Nat *sl, Nat *t, Nat *cnt, Buffer **xq, X *past)
{
    Arena *a = p->a;
    Lw *w = p->w;
    int CH = 32 * p->IPT;
    Stmt *isaved, *jsaved;
    Nat *chunk = nat_add(a, nat_mul(a, sl, pn(p, p->TILE)), nat_mul(a, p->warp, pn(p, CH)));
    Nat *mine = nat_add(a, chunk, nat_mul(a, p->lane, pn(p, p->IPT)));
    for (int q = 0; q < p->IPT / 4; q++) {
        xq[q] = pvec(p, "px", in->sk);
        pvload(p, xq[q], p->sm[PS_RING], nat_add(a, mine, pn(p, 4 * q)));
    }
    lw_open_if(w, pcmp(p, OP_LT, cnt, nat_mul(a, nat_add(a, p->lane, pn(p, 1)), pn(p, p->IPT))), &isaved);
    Nat *tile = nat_mul(a, t, pn(p, p->TILE));
    Nat *copied = nat_sub(a, nat_mul(a, nat_div(a, nat_sub(a, p->n, tile), pn(p, 4)), pn(p, 4)), nat_mul(a, p->warp, pn(p, CH)));
    for (int i = 0; i < p->IPT; i++) {
        Nat *j = nat_add(a, nat_mul(a, p->lane, pn(p, p->IPT)), pn(p, i));
        lw_open_if(w, pcmp(p, OP_GE, j, copied), &jsaved);
        X *ld = lw_xload(w, in, nat_add(a, nat_add(a, tile, nat_mul(a, p->warp, pn(p, CH))), j));
        lw_store(w, xq[i / 4], pn(p, i % 4), lw_xsel(p->w, pcmp(p, OP_LT, j, cnt), ld, past));
        w->cur = jsaved;
    }
    w->cur = isaved;
}

static void pipe_scan_chunk(Pipe *p, Buffer *in, bool excl, Nat *sl, Nat *t)
{
    Arena *a = p->a;
    Lw *w = p->w;
    int CH = 32 * p->IPT, NQ = p->IPT / 4;
    Stmt *isaved;
    Nat *cnt = pipe_chunk_count(p, t);
    Nat *chunk = nat_add(a, nat_mul(a, sl, pn(p, p->TILE)), nat_mul(a, p->warp, pn(p, CH)));
    Nat *mine = nat_add(a, chunk, nat_mul(a, p->lane, pn(p, p->IPT)));
    Buffer *xq[16];
    pipe_load_chunk(p, in, sl, t, cnt, xq, p->init);
#define XI(i) lw_xload(w, xq[(i) / 4], pn(p, (i) % 4))
    for (int i = 1; i < p->IPT; i++) lw_store(w, xq[i / 4], pn(p, i % 4), pop(p, XI(i - 1), XI(i)));
    Buffer *vb;
    X *v = preg(p, "pv", XI(p->IPT - 1), &vb);
    pwarp_scan(p, vb, v);
    X *up = lw_materialise(w, pshfl(p, SHFL_UP, v, 1), "pup");
    X *ex = lw_materialise(w, lw_xsel(p->w, pcmp(p, OP_EQ, p->lane, pn(p, 0)), p->init, up), "pex");
    if (excl) {
        for (int i = p->IPT - 1; i > 0; i--) lw_store(w, xq[i / 4], pn(p, i % 4), pop(p, ex, XI(i - 1)));
        lw_store(w, xq[0], pn(p, 0), ex);
    } else {
        for (int i = 0; i < p->IPT; i++) lw_store(w, xq[i / 4], pn(p, i % 4), pop(p, ex, XI(i)));
    }
#undef XI
    for (int q = 0; q < NQ; q++) pvstore(p, p->sm[PS_RING], nat_add(a, mine, pn(p, 4 * q)), xq[q]);
    Stmt *sw = lw_snew(w, S_BARRIER); /* the chunk written back, before other lanes read it to finish it */
    sw->barrier.level = LVL_WARP;
    lw_emit(w, sw);
    lw_open_if(w, pcmp(p, OP_EQ, p->lane, pn(p, 31)), &isaved);
    lw_store(w, p->sm[PS_WTOT], nat_add(a, nat_mul(a, sl, pn(p, p->W)), p->warp), v);
    pmbar(p, MB_ARRIVE, PS_TOTS, sl, NULL);
    w->cur = isaved;
}

/* A scan's chunk of tile t in slot sl once its offset is known: each element given the
 * offset and stored to out, 16-byte vectors where whole (the last tile's last few one by
 * one) */
static void pipe_scan_finish(Pipe *p, Buffer *out, Nat *sl, Nat *t)
{
    Arena *a = p->a;
    Lw *w = p->w;
    int CH = 32 * p->IPT;
    Stmt *isaved, *jsaved;
    X *off = lw_materialise(w, lw_xload(w, p->sm[PS_OFF], nat_add(a, nat_mul(a, sl, pn(p, p->W)), p->warp)), "poff");
    Nat *cnt = pipe_chunk_count(p, t);
    Nat *chunk = nat_add(a, nat_mul(a, sl, pn(p, p->TILE)), nat_mul(a, p->warp, pn(p, CH)));
    Nat *o = nat_add(a, nat_mul(a, t, pn(p, p->TILE)), nat_mul(a, p->warp, pn(p, CH)));
    for (int q = 0; q < p->IPT / 4; q++) {
        Nat *i4 = nat_add(a, pn(p, 32 * q), p->lane);
        Buffer *u = pvec(p, "pu", p->ck);
        pvload(p, u, p->sm[PS_RING], nat_add(a, chunk, nat_mul(a, i4, pn(p, 4))));
        for (int j = 0; j < 4; j++) lw_store(w, u, pn(p, j), pop(p, off, lw_xload(w, u, pn(p, j))));
        Nat *at = nat_mul(a, i4, pn(p, 4));
        lw_open_if(w, pcmp(p, OP_LE, nat_add(a, at, pn(p, 4)), cnt), &isaved);
        pvstore(p, out, nat_add(a, o, at), u);
        w->cur = isaved;
        lw_open_if(w, pcmp(p, OP_GT, nat_add(a, at, pn(p, 4)), cnt), &isaved);
        for (int j = 0; j < 3; j++) {
            lw_open_if(w, pcmp(p, OP_LT, nat_add(a, at, pn(p, j)), cnt), &jsaved);
            lw_store(w, out, nat_add(a, nat_add(a, o, at), pn(p, j)), lw_xload(w, u, pn(p, j)));
            w->cur = jsaved;
        }
        w->cur = isaved;
    }
}

/* A scan's compute warps (warps 0 .. W - 1), each over its chunk of every tile its block
 * draws: it never waits, but takes whichever is ready of a newly loaded tile (holding at
 * most S) and the oldest tile whose offset the look-back has handed over, sleeping 20 ns
 * when neither is; done once the producer's tile -1 came and every tile is finished */
static void pipe_select_chunk(Pipe *p, Buffer *in, Nat *sl, Nat *t);
static void pipe_select_finish(Pipe *p, Buffer *out, Nat *sl, Nat *t);

static void pipe_compute(Pipe *p, Buffer *in, Buffer *out, bool excl)
{
    Arena *a = p->a;
    Lw *w = p->w;
    Stmt *saved, *lsaved, *isaved, *jsaved;
    Buffer *nb, *ob, *db;
    Stmt *g = lw_open_if(w, pcmp(p, OP_LT, p->warp, pn(p, p->W)), &saved);
    g->cond.role = true;
    X *next = preg(p, "pnext", plit(p, SK_I32, 0), &nb), *old = preg(p, "pold", plit(p, SK_I32, 0), &ob);
    X *done = preg(p, "pdone", x_bool(a, false), &db);
    Stmt *loop = lw_snew(w, S_WHILE);
    loop->wloop.body = stmt_seq(a);
    lw_emit(w, loop);
    lsaved = w->cur;
    w->cur = loop->wloop.body;
    Nat *ub = nat_add(a, p->tiles, pn(p, 1));
    Nat *nx = plet(p, "pnx", next, 0, ub), *od = plet(p, "pod", old, 0, ub);
    X *ready = lw_xnew(w, X_MBTEST, SK_BOOL);
    ready->mbtest.buf = p->sm[PS_FULL];
    ready->mbtest.index = nat_mod(a, nx, pn(p, p->S));
    ready->mbtest.parity = pparity(p, nx);
    X *c = x_bin(a, OP_AND, SK_BOOL, x_bin(a, OP_AND, SK_BOOL, lw_xnot(p->w, done), pcmp(p, OP_LT, nat_sub(a, nx, od), pn(p, p->S))),
                 lw_xshfl(p->w, SHFL_ALL, SK_BOOL, ready, NULL));
    lw_open_if(w, c, &isaved);
    Nat *sl = plet(p, "psl", pnat(p, nat_mod(a, nx, pn(p, p->S))), 0, pn(p, p->S));
    Nat *t = plet(p, "pt", lw_xload(w, p->sm[PS_TID], sl), -1, p->tiles);
    lw_open_if(w, pcmp(p, OP_LT, t, pn(p, 0)), &jsaved);
    lw_store(w, db, pn(p, 0), x_bool(a, true));
    pjump(p, JK_CONTINUE);
    w->cur = jsaved;
    if (p->given) t = pipe_from_end(p, t); /* drawn from the end */
    lw_store(w, nb, pn(p, 0), pnat(p, nat_add(a, nx, pn(p, 1))));
    if (p->pred) pipe_select_chunk(p, in, sl, t);
    else pipe_scan_chunk(p, in, excl, sl, t);
    pjump(p, JK_CONTINUE);
    w->cur = isaved;
    X *fin = lw_xnew(w, X_MBTEST, SK_BOOL);
    fin->mbtest.buf = p->sm[PS_PREF];
    fin->mbtest.index = nat_mod(a, od, pn(p, p->S));
    fin->mbtest.parity = pparity(p, od);
    lw_open_if(w, x_bin(a, OP_AND, SK_BOOL, pcmp(p, OP_LT, od, nx), lw_xshfl(p->w, SHFL_ALL, SK_BOOL, fin, NULL)), &isaved);
    Nat *fsl = plet(p, "psl", pnat(p, nat_mod(a, od, pn(p, p->S))), 0, pn(p, p->S));
    Nat *ft = NULL; /* a filter's finish does not need the tile (nvcc would warn) */
    if (!p->pred || p->part) ft = plet(p, "pt", lw_xload(w, p->sm[PS_TID], fsl), 0, p->tiles);
    if (p->given) ft = pipe_from_end(p, ft);
    if (p->pred) pipe_select_finish(p, out, fsl, ft);
    else pipe_scan_finish(p, out, fsl, ft);
    pmbar(p, MB_FENCE, 0, NULL, NULL); /* before the slot's next bulk copy */
    pmbar(p, MB_ARRIVE, PS_EMPTY, fsl, NULL); /* every lane: each releases its own reads and writes of the slot */
    lw_store(w, ob, pn(p, 0), pnat(p, nat_add(a, od, pn(p, 1))));
    pjump(p, JK_CONTINUE);
    w->cur = isaved;
    lw_open_if(w, x_bin(a, OP_AND, SK_BOOL, done, pcmp(p, OP_EQ, od, nx)), &isaved);
    pjump(p, JK_RETURN);
    w->cur = isaved;
    Stmt *sp = lw_snew(w, S_SLEEP);
    sp->sleep.ns = 20;
    lw_emit(w, sp);
    w->cur = lsaved;
    w->cur = saved;
}

/* a zero of scalar kind sk */
static X *pzero(Pipe *p, ScalarKind sk)
{
    X *x = lw_xnew(p->w, X_LIT, sk);
    if (scalar_info[sk].is_float) x->lit.f = 0.0;
    else x->lit.i = 0;
    return x;
}

/* A filter's or partition's newly loaded chunk: each lane's elements flagged by the
 * predicate (bit i of m; only the chunk's vc elements), numbered by the warp's scan of
 * the lanes' counts, and written back compacted to the chunk's front in order (a
 * partition's others from its end backwards, a stable partition's right after the
 * selected in order); the chunk's count to own (its warp's finish) and wtot (the
 * aggregator). The running positions are S_LETs, each the one before plus a flag. */
static void pipe_select_chunk(Pipe *p, Buffer *in, Nat *sl, Nat *t)
{
    Arena *a = p->a;
    Lw *w = p->w;
    int CH = 32 * p->IPT;
    Stmt *isaved;
    Buffer *xq[16], *mb, *vb;
    Nat *cnt = pipe_chunk_count(p, t);
    pipe_load_chunk(p, in, sl, t, cnt, xq, pzero(p, in->sk));
    Nat *chw = nat_add(a, nat_mul(a, sl, pn(p, p->TILE)), nat_mul(a, p->warp, pn(p, CH)));
    Nat *vc = plet(p, "pvc", pnat(p, nat_max(a, pn(p, 0), nat_min(a, cnt, pn(p, CH)))), 0, pn(p, CH + 1));
    X *m = preg(p, "pm", plit(p, SK_U32, 0), &mb);
    X *xi[64];
    for (int i = 0; i < p->IPT; i++) {
        xi[i] = lw_xload(w, xq[i / 4], pn(p, i % 4));
        lw_bind(w, p->pred->lam.param, lw_scalar(w, lw_materialise(w, xi[i], "pa")));
        X *pr = lw_lower_exp(w, p->pred->lam.body)->x;
        X *in_chunk = pcmp(p, OP_LT, nat_add(a, nat_mul(a, p->lane, pn(p, p->IPT)), pn(p, i)), vc);
        X *bit = x_bin(a, OP_SHL, SK_U32, pcast(p, SK_U32, x_bin(a, OP_AND, SK_BOOL, in_chunk, pr)), plit(p, SK_U32, i));
        lw_store(w, mb, pn(p, 0), x_bin(a, OP_BOR, SK_U32, m, bit));
    }
    X *pc = lw_xnew(w, X_CALL, SK_U32);
    pc->call.p = P_POPC;
    pc->call.n = 1;
    pc->call.args[0] = m;
    X *c = lw_materialise(w, pc, "pc");
    X *v = preg(p, "pv", c, &vb);
    pwarp_scan(p, vb, v);
    Stmt *sw = lw_snew(w, S_BARRIER); /* every lane has read its elements: the chunk's space is free */
    sw->barrier.level = LVL_WARP;
    lw_emit(w, sw);
    X *before = x_bin(a, OP_SUB, SK_U32, v, c);
    /* the running places are the ring's indices, chw included, as the template's chw[q++]:
     * with chw added at each store (chw + q) nvcc recomputed sl * TILE + warp * CH and
     * the address for every store, three instructions where one does (a fifth more in
     * the partition's chunk). Ranges: chw + 0..CH, within the ring (and -1 for the
     * others counted down from a chunk's end) */
    Nat *ring = pn(p, p->S * p->TILE + 1);
    Nat *q = plet(p, "pq", x_bin(a, OP_ADD, SK_I32, pnat(p, chw), pcast(p, SK_I32, before)), 0, ring);
    for (int i = 0; i < p->IPT; i++) {
        X *f = x_bin(a, OP_BAND, SK_U32, x_bin(a, OP_SHR, SK_U32, m, plit(p, SK_U32, i)), plit(p, SK_U32, 1));
        lw_open_if(w, x_bin(a, OP_NE, SK_BOOL, f, plit(p, SK_U32, 0)), &isaved);
        lw_store(w, p->sm[PS_RING], q, xi[i]);
        w->cur = isaved;
        if (i + 1 < p->IPT) q = plet(p, "pq", x_bin(a, OP_ADD, SK_I32, pnat(p, q), pcast(p, SK_I32, f)), 0, ring);
    }
    if (p->part) {
        /* the others of the lanes before */
        Nat *mine = nat_mul(a, p->lane, pn(p, p->IPT));
        X *others = x_bin(a, OP_SUB, SK_I32, pnat(p, nat_min(a, mine, vc)), pcast(p, SK_I32, before));
        /* the place of the lane's next other: chw + sc + r counting up (stable: after the
         * chunk's sc selected), or chw + CH - 1 - r counting down, for the r others before */
        Nat *sc = p->given ? plet(p, "psc", pcast(p, SK_I32, pshfl(p, SHFL_IDX, v, 31)), 0, pn(p, CH + 1)) : NULL;
        X *first = sc ? x_bin(a, OP_ADD, SK_I32, pnat(p, nat_add(a, chw, sc)), others)
                      : x_bin(a, OP_SUB, SK_I32, pnat(p, nat_add(a, chw, pn(p, CH - 1))), others);
        Nat *r = plet(p, "pr", first, -1, ring);
        for (int i = 0; i < p->IPT; i++) {
            X *f = x_bin(a, OP_BAND, SK_U32, x_bin(a, OP_SHR, SK_U32, m, plit(p, SK_U32, i)), plit(p, SK_U32, 1));
            X *other = x_bin(a, OP_AND, SK_BOOL, pcmp(p, OP_LT, nat_add(a, mine, pn(p, i)), vc),
                             x_bin(a, OP_EQ, SK_BOOL, f, plit(p, SK_U32, 0)));
            lw_open_if(w, other, &isaved);
            lw_store(w, p->sm[PS_RING], r, xi[i]);
            w->cur = isaved;
            if (i + 1 < p->IPT)
                r = plet(p, "pr", x_bin(a, sc ? OP_ADD : OP_SUB, SK_I32, pnat(p, r), pcast(p, SK_I32, other)), -1, ring);
        }
    }
    Nat *mine = nat_add(a, nat_mul(a, sl, pn(p, p->W)), p->warp);
    lw_open_if(w, pcmp(p, OP_EQ, p->lane, pn(p, 31)), &isaved);
    lw_store(w, p->sm[PS_OWN], mine, v);
    w->cur = isaved;
    sw = lw_snew(w, S_BARRIER); /* the compacted chunk and its count, before other lanes read them to finish it */
    sw->barrier.level = LVL_WARP;
    lw_emit(w, sw);
    lw_open_if(w, pcmp(p, OP_EQ, p->lane, pn(p, 31)), &isaved);
    lw_store(w, p->sm[PS_WTOT], mine, v);
    pmbar(p, MB_ARRIVE, PS_TOTS, sl, NULL);
    w->cur = isaved;
}

/* min(x, n) of a u32 x */
static X *pmin_n(Pipe *p, X *x)
{
    X *m = lw_xnew(p->w, X_MINMAX, SK_U32);
    m->bin.op = OP_LT;
    m->bin.l = x;
    m->bin.r = pcast(p, SK_U32, pnat(p, p->n));
    return m;
}

/* dst[at + i] = ring[from + i] for i < e, lane-strided */
static void pipe_copy_out(Pipe *p, Buffer *out, Nat *at, Nat *from, Nat *e)
{
    NatVar *iv;
    Stmt *saved;
    Stmt *l = lw_open_loop(p->w, LVL_LANE, 0, e, &iv, &saved);
    Nat *i = nat_var(p->a, iv);
    lw_store(p->w, out, nat_add(p->a, at, i), lw_xload(p->w, p->sm[PS_RING], nat_add(p->a, from, i)));
    lw_close_loop(p->w, l, saved);
}

/* A filter's or partition's chunk once its offset (the count selected before it) is
 * known: its selected to out[off ..], a partition's others to the end backwards (a
 * stable partition's from the given count on, in order; a count given wrongly, another
 * predicate's, must not send either past the output) */
static void pipe_select_finish(Pipe *p, Buffer *out, Nat *sl, Nat *t)
{
    Arena *a = p->a;
    Lw *w = p->w;
    int CH = 32 * p->IPT;
    Nat *mine = nat_add(a, nat_mul(a, sl, pn(p, p->W)), p->warp);
    /* a stable partition's offsets come from a given count, which may be wrong (another
     * predicate's): clamped to n, so that the bounds below keep every write inside */
    X *offx = lw_xload(w, p->sm[PS_OFF], mine);
    if (p->given) offx = pmin_n(p, offx);
    Nat *off = plet(p, "poff", offx, 0, nat_add(a, p->n, pn(p, 1)));
    Nat *sc = plet(p, "psc", lw_xload(w, p->sm[PS_OWN], mine), 0, pn(p, CH + 1));
    Nat *chw = nat_add(a, nat_mul(a, sl, pn(p, p->TILE)), nat_mul(a, p->warp, pn(p, CH)));
    Nat *e = p->given ? nat_max(a, pn(p, 0), nat_min(a, sc, nat_sub(a, p->n, off))) : sc;
    pipe_copy_out(p, out, off, chw, e);
    if (!p->part) return;
    Nat *cnt = pipe_chunk_count(p, t);
    Nat *r = plet(p, "pr", pnat(p, nat_sub(a, nat_max(a, pn(p, 0), nat_min(a, cnt, pn(p, CH))), sc)), 0, pn(p, CH + 1));
    Nat *before = nat_sub(a, nat_add(a, nat_mul(a, t, pn(p, p->TILE)), nat_mul(a, p->warp, pn(p, CH))), off);
    if (p->given) {
        /* the others before the chunk (its elements before, less its selected before, off),
         * and their place after the m selected, each a let of a range width.c can use:
         * the sums spelt out (m + t * TILE + ... - off, n - that) made it bound the indices
         * by 5n. The clamps change nothing for the right count (the others before are
         * >= 0, m + them < n); for a count too small (off clamped to n) they keep dst
         * from going below 0, which it did (tests/emu: a write before the output). */
        Nat *oth = plet(p, "poth", pnat(p, nat_max(a, pn(p, 0), before)), 0, nat_mul(a, p->tiles, pn(p, p->TILE)));
        Nat *m = plet(p, "pm", pmin_n(p, lw_xload(w, p->given, pn(p, 0))), 0, nat_add(a, p->n, pn(p, 1)));
        Nat *dst = plet(p, "pdst", pnat(p, nat_min(a, p->n, nat_add(a, m, oth))), 0, nat_add(a, p->n, pn(p, 1)));
        Nat *room = nat_sub(a, p->n, dst);
        pipe_copy_out(p, out, dst, nat_add(a, chw, sc), nat_max(a, pn(p, 0), nat_min(a, r, room)));
    } else {
        Nat *dst = nat_sub(a, nat_sub(a, p->n, before), r);
        pipe_copy_out(p, out, dst, nat_sub(a, nat_add(a, chw, pn(p, CH)), r), r);
    }
}

/* scanPipe written to acc c: the kernel's only output, from element 0, with nothing
 * else in the kernel; xs a data parameter read from element 0 (the bulk copies read it
 * in tiles, 16-byte aligned, and the stores write 16-byte vectors: the runtime checks
 * both buffers' alignment). The operator's code goes into its own list, as lookback's. */
static void write_pipe(Lw *w, Expr *e, Acc *c)
{
    Arena *a = w->a;
    Kernel *k = w->k;
    Expr **arg = e->prim.args;
    const char *name = prim_info[e->prim.p].name;
    const bool stable = e->prim.p == P_PARTITIONSTABLEPIPE;
    const bool sel = e->prim.p == P_FILTERPIPE || e->prim.p == P_PARTITIONPIPE || stable;
    int64_t base;
    /* a filter's or partition's result is the pair (count, elements), which lower.c's
     * lower_result writes to two outputs: c is the elements', c->cnt the count's */
    if (w->nloops || c->kind != W_MEM || c->buf->param != -1 || !nat_is_const(c->base, &base) || base ||
        k->main || (k->npre && !stable) || k->body->seq.n ||
        (sel ? !c->cnt || k->nouts != 2 : k->def->body->ty->kind != T_ARRAY))
        diag_error(w->d, e->sp, "%s is a kernel of its own: it must be the kernel's whole result (%s, "
                   "%s, nothing else computed)", name, sel ? "the count and the elements" : "one output",
                   stable ? "its last launch" : "no toGlobal launches");
    Buffer *given = NULL, *sm[PS_COUNT] = {0};
    if (stable) {
        /* the count: one u32 in global memory (an earlier launch's toGlobal result, or a
         * data parameter), read once by every thread */
        LwVal *mv = lw_lower_exp(w, arg[1]);
        View *g = mv->k == VAL_ARRAY ? mv->v : NULL;
        if (!g || g->kind != V_MEM || g->buf->as != AS_GLOBAL || g->buf->scalar || !nat_is_const(g->base, &base) || base ||
            k->body->seq.n)
            diag_error(w->d, arg[1]->sp, "%s: the count must be an array in global memory as it is (an earlier "
                       "launch's result through toGlobal, or a data parameter), not a view or a computed value", name);
        given = g->buf;
    }
    Expr *xe = arg[sel ? (stable ? 2 : 1) : 2];
    LwVal *x = lw_lower_exp(w, xe);
    View *v = x->k == VAL_ARRAY ? x->v : NULL;
    if (!v || v->kind != V_MEM || v->buf->param < 0 || !nat_is_const(v->base, &base) || base || k->body->seq.n)
        diag_error(w->d, xe->sp, "%s reads its input in tiles with bulk copies: the input must be a data "
                   "parameter of the kernel as it is, not a view of one or a computed array", name);
    LwVal *init = sel ? NULL : lw_lower_exp(w, arg[1]);
    if (!sel && (init->k != VAL_SCALAR || k->body->seq.n))
        diag_error(w->d, arg[1]->sp, "%s: the neutral element must be a constant or a scalar parameter", name);
    const Type *xt = xe->ty;
    ScalarKind sk = lw_sk_of(xt->arr.elem);
    int64_t nw, ipt, slots;
    nat_is_const(e->prim.nats[0], &nw);
    nat_is_const(e->prim.nats[1], &ipt);
    nat_is_const(e->prim.nats[2], &slots);
    v->buf->align = 16;
    if (!sel) c->buf->align = 16; /* the scan's 16-byte stores; the filter stores elements */
    int64_t tile = nw * 32 * ipt;
    /* the shared buffers, each its own (smem.c lays them out, every one 16-byte aligned,
     * as the bulk copies' targets in the ring need; all live together, so their sizes
     * add up, as the budget check below counts them) */
    const ScalarKind ck = sel ? SK_U32 : sk; /* the values the warps hand over */
    static const char *const pname[PS_COUNT] = {"ring", "full", "empty", "tots", "aggb", "pref", "tid", "ep", "agg",
                                                "wtot", "woff", "off", "own"};
    const ScalarKind psk[PS_COUNT] = {sk, SK_U64, SK_U64, SK_U64, SK_U64, SK_U64, SK_I64, SK_U32, ck, ck, ck, ck, SK_U32};
    const int64_t pcount[PS_COUNT] = {slots * tile, slots, slots, slots, slots, slots, slots, 1, slots,
                                      slots * nw, slots * nw, slots * nw, slots * nw};
    int64_t bytes = 0;
    for (int i = 0; i < PS_COUNT; i++) {
        if (i == PS_OWN && !sel) continue;
        sm[i] = lw_shared_buffer(w, pname[i], psk[i], nat_cst(a, pcount[i]), e->sp);
        if (i == PS_RING) sm[i]->align = 128; /* the bulk copies' target (smem.c) */
        bytes += (pcount[i] * scalar_info[psk[i]].size + 15) / 16 * 16;
    }
    if (bytes > smem_budget(k, SMEM_OPTIN_MAX))
        diag_error(w->d, e->sp, "%s(%lld, %lld, %lld): its %lld slots of %lld elements and their barriers take %lld bytes "
                   "of shared memory, more than the %lld a block can have (227 KiB, the opt-in maximum on sm_90); give "
                   "it fewer slots or smaller tiles", name, (long long)nw, (long long)ipt, (long long)slots,
                   (long long)slots, (long long)tile, (long long)bytes, (long long)smem_budget(k, SMEM_OPTIN_MAX));
    Nat *n = xt->arr.n, *tiles = nat_div(a, nat_add(a, n, nat_cst(a, tile - 1)), nat_cst(a, tile));
    Buffer *state = lw_scratch_buffer(w, "pipestate", SK_U64, tiles);
    Buffer *ctr = lw_scratch_buffer(w, "pipectr", SK_U64, nat_cst(a, 1));
    /* the operator or predicate is inlined where it is used (pop): here it is lowered
     * once, to a list of its own, only to see that it is a function of scalars */
    Buffer *pa = lw_new_buffer(w, "pa", AS_PRIVATE, sk, nat_cst(a, 1)), *pb = NULL;
    pa->scalar = true;
    if (!sel) {
        pb = lw_new_buffer(w, "pb", AS_PRIVATE, sk, nat_cst(a, 1));
        pb->scalar = true;
    }
    Stmt *saved = w->cur, *ops = stmt_seq(a);
    w->cur = ops;
    Expr *f = arg[0];
    lw_bind(w, f->lam.param, lw_scalar(w, lw_xload(w, pa, nat_cst(a, 0))));
    if (!sel) lw_bind(w, f->lam.body->lam.param, lw_scalar(w, lw_xload(w, pb, nat_cst(a, 0))));
    LwVal *r = lw_lower_exp(w, sel ? f->lam.body : f->lam.body->lam.body);
    w->cur = saved;
    for (int i = 0; i < ops->seq.n; i++)
        if (ops->seq.items[i]->kind != S_DECL)
            diag_error(w->d, arg[0]->sp, "%s: the %s must be a function of scalars without loops or memory", name,
                       sel ? "predicate" : "operator");
    if (r->k != VAL_SCALAR) die("%s: the type rule let a %s through that is not a scalar", name, sel ? "predicate" : "operator");
    /* w + 3 warps (the compute warps, the aggregator, the look-back warp, the producer),
     * the code assuming exactly that block; a block per tile, which the runtime caps at
     * the device's SM count (persistent): the blocks loop over the tiles */
    k->persistent = true;
    for (int dim = 0; dim < 3; dim++) k->block[dim] = k->grid[dim] = nat_cst(a, 1);
    k->block[0] = nat_cst(a, 32 * (nw + 3));
    k->grid[0] = tiles;
    k->block_fixed = true;
    X *zero = lw_xnew(w, X_LIT, SK_U32);
    Pipe p = {w, a, sm, n, tiles, (int)nw, (int)ipt, (int)slots, (int)tile,
              nat_var(a, k->hw.warp), nat_var(a, k->hw.lane), sel ? NULL : f, sel ? zero : init->x, ck,
              sel ? f : NULL, e->prim.p == P_PARTITIONPIPE || stable, given};
    pipe_init(&p);
    pipe_producer(&p, stable, v->buf, ctr);
    pipe_aggregator(&p, state);
    pipe_lookback(&p, state, sel ? c->cnt : NULL, given);
    pipe_compute(&p, v->buf, c->buf, e->prim.p == P_SCANPIPEEXCL);
}

/* scanPipe's meaning: the sequential scan, each prefix op(prefix)(x) from init (scanSeq's,
 * with the accumulator first) */
static void eval_pipe(IpCtx *c, const Code *e, IpVal *res) { prims_eval_scan(c, e, e->p == P_SCANPIPEEXCL, true, res); }

/* filterPipe(w, ipt, s)(pred)(xs), partitionPipe likewise : (t -> bool) -> n.t -> (1.u32,
 * n.t), t a 32-bit scalar: the count m of the elements pred selects, and the elements:
 * filterPipe's first m are the selected ones in order (the rest is not written: the
 * kernel's outputs are the count and the elements, whose valid length the count is);
 * partitionPipe's are those, then the others in reverse order, all n written (as
 * partitionTo and CUB's DevicePartition::If). w, ipt (at most 32: a lane's flags are one
 * word) and s as scanPipe's; the kernel is scanPipe's with a count for a sum.
 * partitionStablePipe(w, ipt, s)(pred)(ms)(xs) : (t -> bool) -> 1.u32 -> n.t -> (1.u32,
 * n.t) is partitionPipe with the others in order: a single pass cannot know where the
 * first of them goes (after all the selected ones) before the last tile, so it is given
 * their number m, ms[0], from an earlier launch (a count, toGlobal), and the others go
 * from m on; a wrong m is an error in the interpreter. */
static Expr *infer_pipe_select(Tc *t, const TcApp *ap)
{
    Arena *a = t->a;
    Ast **arg = ap->arg;
    const char *name = prim_info[ap->p].name;
    const bool stable = ap->p == P_PARTITIONSTABLEPIPE;
    Nat *ns[3];
    pipe_shape(t, ap, 32, ", a multiple of 4 (16-byte vectors; a lane's flags in one word)", ns);
    Type *u32 = ty_scalar(a, SK_U32);
    Expr *ms = NULL;
    if (stable) {
        ms = tc_infer(t, arg[1], ap->sc, NULL);
        Type *want = ty_array(a, nat_cst(a, 1), u32);
        if (!ty_equal(ms->ty, want))
            diag_error(t->d, ms->sp, "%s's second argument is the number of elements the predicate selects, of type %s "
                       "(a count from an earlier launch), but this has type %s", name, tc_tstr(t, want),
                       tc_tstr(t, ms->ty));
    }
    Expr *x = tc_infer(t, arg[stable ? 2 : 1], ap->sc, NULL);
    Type *tx = tc_want_array(t, x, name);
    Type *ty = tx->arr.elem;
    ScalarKind sk = ty->kind == T_SCALAR ? tc_num_kind(ty) : SK_COUNT;
    if (sk != SK_F32 && sk != SK_I32 && sk != SK_U32)
        diag_error(t->d, x->sp, "%s of %s: the elements must be 32-bit scalars (f32, i32 or u32), bulk-copied in "
                   "16-byte vectors; filterDevice and partitionDevice (patterns/compact.rise) take the others", name,
                   tc_tstr(t, tx));
    Type *ps[1] = {ty};
    Expr *f = tc_check_fun(t, arg[0], ps, 1, ap->sc, NULL, ap->sp);
    Type *rt = tc_fun_result(f, 1);
    if (rt->kind != T_SCALAR || rt->sk != SK_BOOL)
        diag_error(t->d, arg[0]->sp, "%s: the predicate returns %s, not bool", name, tc_tstr(t, rt));
    Expr *e = tc_prim_expr(t, ap->p, ty_pair(a, ty_array(a, nat_cst(a, 1), u32), tx), ap->sp);
    for (int i = 0; i < 3; i++) e->prim.nats[i] = ns[i];
    e->prim.args[0] = f;
    e->prim.args[1] = stable ? ms : x;
    if (stable) e->prim.args[2] = x;
    return e;
}

/* pred(xs[i]) in the interpreter */
static bool pipe_selects(IpCtx *c, const Code *f, const IpVal *xs, int64_t i, IpVal *x)
{
    IpVal r;
    ip_val_sel(c, xs, i, xs->ty->elem, x);
    ip_val_set(&c->env[f->slot], x);
    ip_eval(c, f->args[0], &r);
    return r.s.b;
}

/* The selected elements in order (then the others in reverse order, partitionPipe, or in
 * order from the given count, partitionStablePipe, checked against the flags before
 * anything is placed by it), and their count; filterPipe's places past the count stay 0
 * (not the kernel's result) */
static void eval_pipe_select(IpCtx *c, const Code *e, IpVal *res)
{
    const Code *f = e->args[0];
    const bool part = e->p == P_PARTITIONPIPE, stable = e->p == P_PARTITIONSTABLEPIPE;
    IpVal xs, x;
    ip_eval(c, e->args[stable ? 2 : 1], &xs);
    const RType *rt = e->ty;
    int64_t n = xs.ty->n, m = 0, rej = 0, given = 0;
    if (stable) {
        IpVal mv, m0;
        ip_eval(c, e->args[1], &mv);
        ip_val_sel(c, &mv, 0, mv.ty->elem, &m0);
        given = (int64_t)m0.s.u;
        int64_t sel = 0;
        for (int64_t i = 0; i < n; i++) {
            Mark mk = ip_pool_mark(c);
            sel += pipe_selects(c, f, &xs, i, &x);
            ip_pool_release(c, mk);
        }
        if (given != sel)
            ip_fail(c, e->sp, "partitionStablePipe: the count given is %lld, but the predicate selects %lld of the %lld "
                    "elements", (long long)given, (long long)sel, (long long)n);
    }
    Node *out = ip_store_new(c, rt->b, NULL);
    for (int64_t i = 0; i < n; i++) {
        Mark mk = ip_pool_mark(c);
        if (pipe_selects(c, f, &xs, i, &x)) ip_store_put(c, out, m++, &x);
        else if (part) ip_store_put(c, out, n - 1 - rej++, &x);
        else if (stable) ip_store_put(c, out, given + rej++, &x);
        ip_pool_release(c, mk);
    }
    Node *cn = ip_store_new(c, rt->a, NULL);
    IpVal mv, cv, ev;
    Scalar ms = {.u = (uint64_t)m};
    ip_val_scalar(&mv, rt->a->elem, ms);
    ip_store_put(c, cn, 0, &mv);
    ip_val_node(&cv, rt->a, cn);
    ip_val_node(&ev, rt->b, out);
    ip_val_node(res, rt, ip_node_new(c, N_PAIR, &cv, &ev));
}

const PrimOps prims_warp[P_COUNT] = {
    [P_SHFLDOWN] = {.infer = infer_shfl, .lower = lower_shfl, .eval = eval_shuffle},
    [P_SHFLUP] = {.infer = infer_shfl, .lower = lower_shfl, .eval = eval_shuffle},
    [P_SHFLXOR] = {.infer = infer_shfl, .lower = lower_shfl, .eval = eval_shuffle},
    [P_SHFLWARP] = {.infer = infer_shfl_warp, .lower = lower_shfl, .eval = eval_shuffle},
    [P_BALLOT] = {.infer = infer_ballot, .lower = lower_ballot, .eval = eval_ballot},
    [P_LASTBLOCK] = {.infer = infer_last_block, .lower = lower_last_block_read, .eval = eval_last_block, .write = lower_last_block},
    [P_LOOKBACK] = {.infer = infer_lookback, .lower = lower_lookback, .eval = eval_lookback},
    [P_SCANPIPE] = {.infer = infer_pipe, .lower = lower_pipe_read, .eval = eval_pipe, .write = write_pipe},
    [P_SCANPIPEEXCL] = {.infer = infer_pipe, .lower = lower_pipe_read, .eval = eval_pipe, .write = write_pipe},
    [P_FILTERPIPE] = {.infer = infer_pipe_select, .lower = lower_pipe_read, .eval = eval_pipe_select, .write = write_pipe, .count_result = CR_PREFIX},
    [P_PARTITIONPIPE] = {.infer = infer_pipe_select, .lower = lower_pipe_read, .eval = eval_pipe_select, .write = write_pipe, .count_result = CR_SPLIT},
    [P_PARTITIONSTABLEPIPE] = {.infer = infer_pipe_select, .lower = lower_pipe_read, .eval = eval_pipe_select, .write = write_pipe,
                               .count_result = CR_SPLIT},
};
