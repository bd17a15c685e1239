/* smem.c: shared-memory layout.
 *
 * Requires: loops.c has run (statement order is final but for barriers).
 * Ensures:  every shared buffer has a byte offset aligned to 16 in the kernel's one
 *   dynamic shared block, and k->shared_bytes is its size. Buffers whose lifetimes do
 *   not overlap share space, unless sharing saves at most REUSE_MIN bytes of the
 *   block. A lifetime is the span of statement numbers (pre-order) between the first
 *   and last access; a buffer used inside a loop that it was also
 *   used before is live until the end of that loop, since the next trip reads it again.
 *   Buffers of symbolic size are laid out one after another, never shared.
 *   barrier.c runs after this pass and treats overlapping buffers as one location, so
 *   reuse never loses a write-after-read barrier.
 *   The layout fits the per-block budget (smem_budget of SMEM_OPTIN_MAX), or it is an
 *   error at the toShared whose buffer first ends past it; a symbolic size that cannot
 *   be proved too big is left to the runtime, which checks it at launch (rt_derive).
 *
 * Where the budget comes from: a block may use 48 KiB of shared memory without asking
 * (CUDA's portable limit), and up to the device attribute
 * CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN once the function's
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES is raised, which
 * rt_driver_launch does for launches above 48 KiB. cudaFuncSetAttribute's reference
 * says that attribute "plus the function attribute sharedSizeBytes cannot exceed the
 * device attribute cudaDevAttrMaxSharedMemoryPerBlockOptin" (CUDA Runtime API,
 * cudaFuncSetAttribute), so the static __shared__ counts against it too. On sm_90 that
 * attribute is 227 KiB = 232448 bytes: the H100 has up to 228 KB of shared memory per
 * SM and CUDA reserves 1 KB per block (NVIDIA Hopper Tuning Guide, "Unified Shared
 * Memory/L1/Texture Cache", https://docs.nvidia.com/cuda/hopper-tuning-guide/).
 */
#include "compiler.h"

#include <stdint.h>
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
    if ((s->kind == S_FOR && s->loop.level != LVL_SEQ && s->loop.level != LVL_BLOCK) ||
        (s->kind == S_IF && !s->cond.block_uniform)) {
        ir_walk(s, &touch_visit, l);
        return;
    }
    switch (s->kind) {
    case S_SEQ: {
        /* warp roles run at the same time, to the end of the list: what one touches is
         * live until the list ends */
        int role = -1;
        for (int i = 0; i < s->seq.n; i++) {
            if (role < 0 && s->seq.items[i]->kind == S_IF && s->seq.items[i]->cond.role) role = l->clock + 1;
            number(l, s->seq.items[i]);
        }
        if (role >= 0)
            for (int i = 0; i < l->k->nshared; i++) {
                Buffer *b = l->k->shared[i];
                if (b->first >= 0 && b->last >= role) b->last = l->clock;
            }
        return;
    }
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
    case S_IF: /* block-uniform code (lastBlock's body), numbered statement by statement */
        ir_walk_x(s->cond.c, &touch_visit, l);
        number(l, s->cond.then);
        return;
    case S_WHILE: { /* like a loop of several trips: what lives in it lives to its end */
        int start = l->clock;
        if (s->wloop.cond) ir_walk_x(s->wloop.cond, &touch_visit, l);
        number(l, s->wloop.body);
        int end = l->clock;
        for (int i = 0; i < l->k->nshared; i++) {
            Buffer *b = l->k->shared[i];
            if (b->first >= 0 && b->first < start && b->last >= start && b->last <= end) b->last = end;
        }
        return;
    }
    case S_DECL:
    case S_STORE:
    case S_BARRIER:
    case S_COMMENT:
    case S_VLOAD:
    case S_JUMP:
    case S_LET:
    case S_SLEEP:
    case S_MBAR:
    case S_VSTORE:
    case S_BULK:
    case S_PREFETCH: ir_walk(s, &touch_visit, l); return;
    }
}

static int64_t align16(int64_t x) { return (x + 15) / 16 * 16; }

/* bytes of c elements of b, aligned to 16; past 2^62 it stops counting (already far
 * over any budget) instead of overflowing */
static int64_t const_bytes(const Buffer *b, int64_t c)
{
    int64_t sz = scalar_info[b->sk].size;
    return c > (INT64_MAX / 4) / sz ? INT64_MAX / 4 : align16(c * sz);
}

/* budget = max less the static shared variables the kernel declares, which count
 * against the same maximum: none now, since lastBlock's flag and lookback's tile draw
 * are shared buffers of the layout (prims/warp.c). Kept as the one place that says so
 * for the runtime and the messages. */
int64_t smem_budget(const Kernel *k, int64_t max)
{
    (void)k;
    return max;
}

/* What the budget leaves out of the maximum, for messages ("" when nothing). */
const char *smem_budget_note(const Kernel *k)
{
    (void)k;
    return "";
}

/* The error at the toShared whose buffer b ends past the budget, `total` being the
 * block's size once b is placed. */
_Noreturn static void over_budget(Arena *a, Diag *d, const Kernel *k, const Buffer *b, Nat *bytes, Nat *total)
{
    int64_t budget = smem_budget(k, SMEM_OPTIN_MAX), t;
    diag_error(d, b->sp,
               "shared memory over budget: this toShared (%s bytes) brings the block's shared memory to %s bytes, "
               "which%s is more than the %lld bytes a block can have (227 KiB, the opt-in maximum on sm_90%s); "
               "use smaller tiles, or buffers that are not live at the same time",
               nat_str(a, bytes), nat_str(a, total), nat_is_const(total, &t) ? "" : " for every value of the nat parameters",
               (long long)budget,
               smem_budget_note(k));
}

/* Sharing space saves memory (occupancy) but may cost a barrier (barrier.c treats
 * overlapping buffers as one location); below this many bytes it is not worth one. */
enum { REUSE_MIN = 256 };

/* The lowest offset aligned to 16 (or the buffer's own align) where buffer i (size
 * bytes) overlaps no placed constant-size buffer among shared[0..i) that is live at the
 * same time (reuse), or no placed one at all (!reuse). */
static int64_t first_fit(const Kernel *k, int i, int64_t size, bool reuse)
{
    const Buffer *b = k->shared[i];
    int64_t off = 0, al = b->align > 16 ? b->align : 16;
    for (bool moved = true; moved;) {
        moved = false;
        for (int j = 0; j < i; j++) {
            const Buffer *o = k->shared[j];
            int64_t oc, ooff;
            if (!o->offset || !nat_is_const(o->count, &oc) || !nat_is_const(o->offset, &ooff)) continue;
            bool live = !reuse || !(o->last < b->first || b->last < o->first);
            int64_t oend = ooff + const_bytes(o, oc);
            if (live && off < oend && ooff < off + size) {
                off = (oend + al - 1) / al * al;
                moved = true;
            }
        }
    }
    return off;
}

/* The order buffers are placed in: those that need more than 16-byte alignment first
 * (at offset 0, with no padding: the pipe kernels' ring, the bulk copies' target), then
 * by first use. */
static bool placed_before(const Buffer *x, const Buffer *y)
{
    bool xa = x->align > 16, ya = y->align > 16;
    return xa != ya ? xa : x->first < y->first;
}

/* Offsets: constant-size buffers first fit in order of first use, each after the
 * placed ones whose lifetimes overlap it (or all placed ones, where sharing would save
 * at most REUSE_MIN bytes); then the symbolic ones, one after another.
 * Budget: the first buffer whose end passes smem_budget(SMEM_OPTIN_MAX) is an error;
 * a symbolic end counts only when it is provably past it. */
void smem_layout(Arena *a, Diag *d, Kernel *k)
{
    Live l = {k, 0};
    int64_t budget = smem_budget(k, SMEM_OPTIN_MAX);
    for (int i = 0; i < k->nshared; i++) k->shared[i]->first = -1;
    number(&l, k->body);
    /* place in placed_before's order (insertion sort: few buffers) */
    for (int i = 1; i < k->nshared; i++)
        for (int j = i; j > 0 && placed_before(k->shared[j], k->shared[j - 1]); j--) {
            Buffer *t = k->shared[j];
            k->shared[j] = k->shared[j - 1];
            k->shared[j - 1] = t;
        }
    /* constant-size buffers: first fit over the already placed ones whose lifetimes
     * overlap; but where sharing would save at most REUSE_MIN bytes of the block, the
     * buffer gets space of its own, since writing over a buffer just read costs a barrier */
    int64_t top = 0;
    for (int i = 0; i < k->nshared; i++) {
        Buffer *b = k->shared[i];
        int64_t c;
        if (!nat_is_const(b->count, &c)) continue;
        int64_t size = const_bytes(b, c), off = first_fit(k, i, size, true);
        int64_t own = first_fit(k, i, size, false);
        int64_t top_shared = off + size > top ? off + size : top, top_own = own + size > top ? own + size : top;
        if (top_own - top_shared <= REUSE_MIN && top_own <= budget) off = own;
        /* every placed buffer ends within the budget, so off + size cannot overflow */
        if (off + size > budget)
            over_budget(a, d, k, b, nat_cst(a, size), nat_cst(a, off + size > top ? off + size : top));
        b->offset = nat_cst(a, off);
        if (off + size > top) top = off + size;
    }
    Nat *total = nat_cst(a, top), *limit = nat_cst(a, budget);
    for (int i = 0; i < k->nshared; i++) {
        Buffer *b = k->shared[i];
        if (b->offset) continue;
        b->offset = total;
        Nat *bytes = nat_mul(a, b->count, nat_cst(a, scalar_info[b->sk].size));
        total = nat_mul(a, nat_div(a, nat_add(a, nat_add(a, total, bytes), nat_cst(a, 15)), nat_cst(a, 16)), nat_cst(a, 16));
        if (nat_prove_lt(a, limit, total)) over_budget(a, d, k, b, bytes, total);
    }
    k->shared_bytes = total;
}
