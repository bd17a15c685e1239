/* smem.c: shared-memory layout.
 *
 * Requires: loops.c has run (statement order is final but for barriers).
 * Ensures:  every shared buffer has a byte offset aligned to 16 in the kernel's one
 *   dynamic shared block, and k->shared_bytes is its size. Buffers whose lifetimes do
 *   not overlap share space. A lifetime is the span of statement numbers (pre-order)
 *   between the first and last access; a buffer used inside a loop that it was also
 *   used before is live until the end of that loop, since the next trip reads it again.
 *   Buffers of symbolic size are laid out one after another, never shared.
 *   barrier.c runs after this pass and treats overlapping buffers as one location, so
 *   reuse never loses a write-after-read barrier.
 */
#include "compiler.h"

#include <string.h>

typedef struct Live {
    Kernel *k;
    int clock;
} Live;

static void touch(Live *l, Buffer *b)
{
    if (b->as != AS_SHARED) return;
    if (b->first < 0) b->first = l->clock;
    b->last = l->clock;
}

static bool touch_cb(void *ctx, Buffer *b, bool write)
{
    (void)write;
    touch(ctx, b);
    return false;
}
static const IrVisitor touch_visit = {.access = touch_cb};

/* Number statements in pre-order and record each shared buffer's first/last use.
 * Code run by many threads at once (a thread-, warp- or lane-level loop, a guarded
 * region) is one moment: while one thread reads a buffer another may already write
 * the next, so everything it touches is live together. */
static void number(Live *l, Stmt *s)
{
    l->clock++;
    if ((s->kind == S_FOR && s->loop.level != LVL_SEQ && s->loop.level != LVL_BLOCK) || s->kind == S_IF) {
        ir_walk(s, &touch_visit, l);
        return;
    }
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->seq.n; i++) number(l, s->seq.items[i]);
        return;
    case S_FOR: {
        int start = l->clock;
        number(l, s->loop.body);
        int end = l->clock;
        if (s->loop.form == LF_LOOP)
            for (int i = 0; i < l->k->nshared; i++) {
                Buffer *b = l->k->shared[i];
                if (b->first >= 0 && b->first < start && b->last >= start && b->last <= end) b->last = end;
            }
        return;
    }
    case S_IF: number(l, s->cond.then); return;
    case S_LASTBLOCK: number(l, s->last.body); return;
    case S_DECL:
    case S_STORE:
    case S_BARRIER:
    case S_COMMENT:
    case S_VLOAD: ir_walk(s, &touch_visit, l); return;
    }
}

static int64_t align16(int64_t x) { return (x + 15) / 16 * 16; }

void smem_layout(Arena *a, Kernel *k)
{
    Live l = {k, 0};
    for (int i = 0; i < k->nshared; i++) k->shared[i]->first = -1;
    number(&l, k->body);
    /* place in order of first use (insertion sort: few buffers) */
    for (int i = 1; i < k->nshared; i++)
        for (int j = i; j > 0 && k->shared[j - 1]->first > k->shared[j]->first; j--) {
            Buffer *t = k->shared[j];
            k->shared[j] = k->shared[j - 1];
            k->shared[j - 1] = t;
        }
    /* constant-size buffers: first fit over the already placed ones whose lifetimes overlap */
    int64_t top = 0;
    for (int i = 0; i < k->nshared; i++) {
        Buffer *b = k->shared[i];
        int64_t c;
        if (!nat_is_const(b->count, &c)) continue;
        int64_t size = align16(c * scalar_info[b->sk].size), off = 0;
        for (bool moved = true; moved;) {
            moved = false;
            for (int j = 0; j < i; j++) {
                Buffer *o = k->shared[j];
                int64_t oc, ooff;
                if (!o->offset || !nat_is_const(o->count, &oc) || !nat_is_const(o->offset, &ooff)) continue;
                bool live = !(o->last < b->first || b->last < o->first);
                int64_t oend = ooff + align16(oc * scalar_info[o->sk].size);
                if (live && off < oend && ooff < off + size) {
                    off = oend;
                    moved = true;
                }
            }
        }
        b->offset = nat_cst(a, off);
        if (off + size > top) top = off + size;
    }
    Nat *total = nat_cst(a, top);
    for (int i = 0; i < k->nshared; i++) {
        Buffer *b = k->shared[i];
        if (b->offset) continue;
        b->offset = total;
        Nat *bytes = nat_mul(a, b->count, nat_cst(a, scalar_info[b->sk].size));
        total = nat_mul(a, nat_div(a, nat_add(a, nat_add(a, total, bytes), nat_cst(a, 15)), nat_cst(a, 16)), nat_cst(a, 16));
    }
    k->shared_bytes = total;
}
