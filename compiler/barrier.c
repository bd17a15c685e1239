/* barrier.c: barriers from a read/write analysis.
 *
 * Requires: loops.c and smem.c have run.
 * Ensures:
 *   - a __syncthreads() sits between two accesses to the same shared memory (the same
 *     buffer, or buffers whose byte ranges overlap after smem.c) when at least one of
 *     them writes and they happen in different statements of block-uniform code: the
 *     writer and the reader may be different threads of the block;
 *   - barriers are placed only in block-uniform statement lists (the kernel body, the
 *     body of a mapBlock loop, sequential loops there), so every thread of the block
 *     reaches each of them; never inside a thread-, warp- or lane-level loop or a
 *     single-thread guard;
 *   - registers need none, shuffles need none, none is placed at the end of the kernel
 *     and none twice in a row;
 *   - a loop whose next trip would read or overwrite what this trip left pending gets
 *     one barrier at the end of its body.
 *   - a warp role (S_IF with cond.role) gets a barrier in front of it where it touches
 *     what the block left pending, none inside and none for what it does: its warps and
 *     the other roles' order their shared accesses with mbarriers (S_MBAR waits acquire
 *     what the matching arrivals released).
 * Global memory needs no barrier: inputs are read-only and the output is only written;
 * lastBlock's partials and the look-back's tile words cross blocks by their own
 * protocols (prims/warp.c), whose barriers and fences are in the IR: a lowering's own
 * __syncthreads counts as ordering what is pending here (none is added next to it), a
 * fence (S_BARRIER at LVL_GLOBAL) orders global memory only; a flagged partial's reads
 * wait for its flag, so lastBlock's body (a block_uniform S_IF, placed like a list of
 * its own) gets a barrier only for shared memory, like any other code.
 */
#include "compiler.h"

#include <string.h>

enum { MAXP = 128 };

typedef struct Pend {
    Buffer *r[MAXP], *w[MAXP];
    int nr, nw;
} Pend;

/* Two shared buffers overlap when they are the same, or their constant byte ranges meet. */
static bool overlap(const Buffer *x, const Buffer *y)
{
    if (x == y) return true;
    int64_t ox, oy, cx, cy;
    if (!x->offset || !y->offset || !nat_is_const(x->offset, &ox) || !nat_is_const(y->offset, &oy) ||
        !nat_is_const(x->count, &cx) || !nat_is_const(y->count, &cy))
        return false; /* symbolic buffers are never placed on top of each other */
    return ox < oy + cy * scalar_info[y->sk].size && oy < ox + cx * scalar_info[x->sk].size;
}

static bool in(Buffer *const *set, int n, const Buffer *b)
{
    for (int i = 0; i < n; i++)
        if (overlap(set[i], b)) return true;
    return false;
}

static void add(Buffer **set, int *n, Buffer *b)
{
    for (int i = 0; i < *n; i++)
        if (set[i] == b) return;
    if (*n < MAXP) set[(*n)++] = b;
}

static bool sum_cb(void *ctx, Buffer *b, bool write)
{
    if (b->as != AS_SHARED) return false;
    Pend *p = ctx;
    if (write) add(p->w, &p->nw, b);
    else add(p->r, &p->nr, b);
    return false;
}
static const IrVisitor sum_visit = {.access = sum_cb};

/* RAW, WAR or WAW between what is pending and what s does */
static bool conflicts(const Pend *pending, const Pend *s)
{
    for (int i = 0; i < s->nr; i++)
        if (in(pending->w, pending->nw, s->r[i])) return true;
    for (int i = 0; i < s->nw; i++)
        if (in(pending->w, pending->nw, s->w[i]) || in(pending->r, pending->nr, s->w[i])) return true;
    return false;
}

static void merge(Pend *into, const Pend *from)
{
    for (int i = 0; i < from->nr; i++) add(into->r, &into->nr, from->r[i]);
    for (int i = 0; i < from->nw; i++) add(into->w, &into->nw, from->w[i]);
}

/* a __syncthreads (a fence, S_BARRIER at LVL_GLOBAL, is none: one may not stand for
 * the other) */
static bool is_sync(const Stmt *s) { return s->kind == S_BARRIER && s->barrier.level == LVL_BLOCK; }

static Stmt *mk_barrier(Arena *a)
{
    Stmt *s = ANEW(a, Stmt);
    s->kind = S_BARRIER;
    s->barrier.level = LVL_BLOCK;
    return s;
}

/* A while loop in a block-uniform list is block-uniform (its condition and its jumps
 * the same for every thread of the block: compiler.h), so barriers may go in it. */
static bool block_uniform_loop(const Stmt *s)
{
    return (s->kind == S_FOR && (s->loop.level == LVL_SEQ || s->loop.level == LVL_BLOCK)) || s->kind == S_WHILE;
}

static void place(Arena *a, Stmt *seq, Pend *st, const HwIds *hw);

/* A loop at block-uniform level: its body is placed recursively. When the body ends
 * with accesses pending that its own start would conflict with, and it may run more
 * than one trip, the next trip starts with a barrier:
 *     for (i = first; ...) { if (i != first) __syncthreads(); ... }
 * (at the start rather than the end, so the kernel never ends with a barrier; the
 * condition is the same for the whole block). */
static void place_loop(Arena *a, Stmt *s, Pend *st, const HwIds *hw)
{
    Pend whole = {0};
    bool wh = s->kind == S_WHILE;
    Stmt *seq = wh ? s->wloop.body : s->loop.body;
    ir_walk(seq, &sum_visit, &whole);
    place(a, seq, st, hw);
    if (wh && !s->wloop.var && conflicts(st, &whole)) {
        /* no counter to tell the first trip: the barrier ends each trip (a trip left
         * by a jump skips it, and what follows the loop is placed against st) */
        if (!(seq->seq.n > 0 && is_sync(seq->seq.items[seq->seq.n - 1]))) stmt_append(a, seq, mk_barrier(a));
        memset(st, 0, sizeof *st);
        merge(st, &whole);
        return;
    }
    if ((wh || s->loop.form == LF_LOOP) && conflicts(st, &whole)) {
        Stmt *g = ANEW(a, Stmt), *then = stmt_seq(a);
        stmt_append(a, then, mk_barrier(a));
        NatVar *var = wh ? s->wloop.var : s->loop.var;
        Nat *first = !wh && s->loop.level == LVL_BLOCK ? nat_var(a, hw->bid[s->loop.dim]) : nat_cst(a, 0);
        g->kind = S_IF;
        g->cond.c = x_bin(a, OP_NE, SK_BOOL, x_nat(a, nat_var(a, var)), x_nat(a, first));
        g->cond.then = then;
        stmt_append(a, seq, g); /* grow, then rotate to the front */
        memmove(seq->seq.items + 1, seq->seq.items, sizeof(Stmt *) * (size_t)(seq->seq.n - 1));
        seq->seq.items[0] = g;
    }
}

static void place(Arena *a, Stmt *seq, Pend *st, const HwIds *hw)
{
    Stmt **out = ANEWN(a, Stmt *, 2 * seq->seq.n + 1);
    int n = 0;
    for (int i = 0; i < seq->seq.n; i++) {
        Stmt *s = seq->seq.items[i];
        if (is_sync(s)) {
            /* a lowering's own barrier (lastBlock's, a tile draw's) orders what is
             * pending; one right after another is dropped */
            if (!(n > 0 && is_sync(out[n - 1]))) out[n++] = s;
            memset(st, 0, sizeof *st);
            continue;
        }
        if (s->kind == S_IF && s->cond.block_uniform) {
            /* lastBlock's body: block-uniform code that some blocks run (the last one)
             * after reading the condition; placed like any block-uniform list. What
             * its protocol orders, its own barriers say (prims/warp.c); a flagged
             * partial's reads wait for their flags, so only shared memory is placed
             * here: a barrier goes in the body where it first touches a buffer (or
             * reused bytes) pending from before, and none when they are disjoint
             * (reduceGrid: the block totals of the partial and of the last block's
             * reduction are two buffers) */
            Pend c = {0}, before;
            ir_walk_x(s->cond.c, &sum_visit, &c);
            if (conflicts(st, &c)) {
                if (!(n > 0 && is_sync(out[n - 1]))) out[n++] = mk_barrier(a);
                memset(st, 0, sizeof *st);
            }
            merge(st, &c);
            before = *st;
            place(a, s->cond.then, st, hw);
            merge(st, &before); /* the other blocks skip the body */
            out[n++] = s;
            continue;
        }
        Pend here = {0};
        ir_walk(s, &sum_visit, &here);
        if (s->kind == S_IF && s->cond.role) {
            /* a warp role: what the block did before it is ordered by one barrier in front
             * of the roles; among the roles, mbarriers order what they share, so nothing
             * it does is pending for the statements after it (other roles, run at the
             * same time), and no barrier goes inside (its warps alone run it) */
            if (conflicts(st, &here)) {
                if (!(n > 0 && out[n - 1]->kind == S_BARRIER)) out[n++] = mk_barrier(a);
                memset(st, 0, sizeof *st);
            }
            out[n++] = s;
            continue;
        }
        if (block_uniform_loop(s) && (here.nr || here.nw)) {
            /* a conflict with what is pending before the loop is settled by one barrier
             * in front of it rather than one in each trip; what the body itself leaves
             * pending is placed inside. A loop of at most one trip is straight-line code:
             * its body is placed against what is pending, the barrier going where a
             * statement first conflicts (a tile draw's word, whose bytes the body
             * reuses after barriers of its own, needs none in front) */
            bool once = s->kind == S_FOR && s->loop.form != LF_LOOP;
            if (!once && conflicts(st, &here)) {
                if (!(n > 0 && is_sync(out[n - 1]))) out[n++] = mk_barrier(a);
                memset(st, 0, sizeof *st);
            }
            place_loop(a, s, st, hw);
            out[n++] = s;
            continue;
        }
        if (conflicts(st, &here)) {
            if (!(n > 0 && is_sync(out[n - 1]))) out[n++] = mk_barrier(a);
            memset(st, 0, sizeof *st);
        }
        merge(st, &here);
        out[n++] = s;
    }
    seq->seq.items = out;
    seq->seq.n = n;
    seq->seq.cap = n;
}

/* Remove a barrier that ends the kernel: no thread reads anything after it. */
static void trim_tail(Stmt *seq)
{
    while (seq->seq.n && seq->seq.items[seq->seq.n - 1]->kind == S_BARRIER) seq->seq.n--;
    if (seq->seq.n) {
        Stmt *last = seq->seq.items[seq->seq.n - 1];
        if (last->kind == S_FOR && last->loop.form != LF_LOOP) trim_tail(last->loop.body);
        if (last->kind == S_IF && last->cond.block_uniform) trim_tail(last->cond.then);
    }
}

void barrier_place(Arena *a, Diag *d, Kernel *k)
{
    (void)d;
    Pend st = {0};
    place(a, k->body, &st, &k->hw);
    trim_tail(k->body);
}
