/* loops.c: launch rule, loop specialisation and single-thread regions.
 *
 * Requires: a lowered Kernel (lower.c).
 * Ensures:
 *   - k->block / k->grid: the launch rule. Threads per block in a dimension are the
 *     largest constant mapThreads extent there (32 * warps for mapWarp); blocks per
 *     grid are the mapBlock extent (or ceil(extent / block) for mapGlobal). Both stay
 *     within CUDA's limits (grid_within): a map past one loops.
 *   - every parallel S_FOR has a form: LF_ONCE when its extent equals the launch size
 *     (straight-line code), LF_GUARDED when the extent is provably smaller (an if),
 *     LF_LOOP otherwise (a stride loop). Sequential loops with one trip become LF_ONCE.
 *   - loop.var_used says whether the body needs the index at all.
 *   - stores to shared or global memory made by code that every thread of a block (or
 *     of the grid, or every lane of a warp) runs redundantly are wrapped in a guard so
 *     that exactly one thread performs them.
 */
#include "compiler.h"

#include <string.h>

/* ---------------------------------------------------------------- launch rule */

typedef struct Ext {
    Nat *e[64];
    int n;
} Ext;

typedef struct Collect {
    Ext lv[6][3]; /* by level and dimension */
} Collect;

/* every loop's extent, by level and dimension */
static WalkStep collect(void *ctx, const Stmt *s)
{
    Collect *c = ctx;
    if (s->kind == S_FOR) {
        Ext *x = &c->lv[s->loop.level][s->loop.dim];
        if (x->n < 64) x->e[x->n++] = s->loop.extent;
    }
    return WALK_ON;
}

/* The largest constant among extents, or -1 when one is not constant. */
static int64_t max_const(const Ext *x)
{
    int64_t m = 0, c;
    for (int i = 0; i < x->n; i++) {
        if (!nat_is_const(x->e[i], &c)) return -1;
        if (c > m) m = c;
    }
    return m;
}

/* All extents have the same normal form. */
static bool all_equal(const Ext *x)
{
    for (int i = 1; i < x->n; i++)
        if (!nat_equal(x->e[0], x->e[i])) return false;
    return true;
}

enum { DEFAULT_BLOCK = 256 };

/* A grid along dim within CUDA's limit. Along y and z (65535 blocks) a grid that may pass
 * it is capped there, and forms() then makes the maps of that dimension stride loops, right
 * for any grid. Along x (2^31 - 1) only a grid past it for every value of the nat
 * parameters (a size fixed with -D) is capped: a grid that passes it for some values needs
 * more than 2^31 - 1 mapBlock iterations or 2^39 mapGlobal elements, and capping it would
 * make every map along x a stride loop, whose index bound (extent plus stride) is twice the
 * extent, taking the 64-bit build from 2^30 elements on; the runtime refuses a launch past
 * the limit instead (rt_program.c), naming the kernel and the dimension. */
static Nat *grid_within(Arena *a, Nat *g, int dim)
{
    Nat *lim = nat_cst(a, dim ? CUDA_MAX_GRID_YZ : CUDA_MAX_GRID_X);
    if (nat_prove_ge(a, lim, g)) return g;
    if (dim == 0 && !nat_prove_ge(a, g, nat_cst(a, (int64_t)CUDA_MAX_GRID_X + 1))) return g;
    return nat_min(a, g, lim);
}

static void launch_rule(Arena *a, Diag *d, Kernel *k, Collect *c)
{
    for (int dim = 0; dim < 3; dim++) {
        k->block[dim] = nat_cst(a, 1);
        k->grid[dim] = nat_cst(a, 1);
    }
    int64_t threads = 1;
    for (int dim = 0; dim < 3; dim++) {
        Ext *th = &c->lv[LVL_THREADS][dim], *wp = &c->lv[LVL_WARP][dim], *gl = &c->lv[LVL_GLOBAL][dim];
        int64_t b = 1;
        if (th->n) {
            int64_t m = max_const(th);
            b = m < 0 ? DEFAULT_BLOCK : m;
        }
        if (wp->n) {
            /* warps are 32 consecutive threads along x: W warps along x need 32*W threads
             * there; along y and z a warp is one row (plane) of the block */
            int64_t m = max_const(wp);
            int64_t wb = dim == 0 ? (m < 0 ? DEFAULT_BLOCK : 32 * m) : (m < 0 ? 8 : m);
            if (wb > b) b = wb;
        }
        if (dim == 0 && c->lv[LVL_LANE][0].n && b < 32) b = 32;
        if (gl->n) b = dim == 0 ? DEFAULT_BLOCK : 1;
        /* a wider map loops over the block (forms) */
        if (b > CUDA_MAX_BLOCK) b = CUDA_MAX_BLOCK;
        if (dim == 2 && b > CUDA_MAX_BLOCK_Z) b = CUDA_MAX_BLOCK_Z;
        if (b < 1) b = 1;
        if (c->lv[LVL_WARP][0].n && dim == 0 && b % 32) b = (b + 31) / 32 * 32; /* whole warps */
        threads *= b;
        k->block[dim] = nat_cst(a, b);
        if (gl->n) {
            Nat *e = all_equal(gl) ? gl->e[0] : NULL;
            if (!e) {
                e = gl->e[0];
                for (int i = 1; i < gl->n; i++) e = nat_max(a, e, gl->e[i]);
            }
            k->grid[dim] = nat_div(a, nat_add(a, e, nat_cst(a, b - 1)), nat_cst(a, b));
        }
        Ext *bl = &c->lv[LVL_BLOCK][dim];
        if (bl->n) {
            Nat *e = bl->e[0];
            for (int i = 1; i < bl->n; i++)
                if (!nat_equal(e, bl->e[i])) e = nat_max(a, e, bl->e[i]);
            k->grid[dim] = e;
        }
        k->grid[dim] = grid_within(a, k->grid[dim], dim);
    }
    if (threads > CUDA_MAX_BLOCK)
        diag_error(d, k->def->sp, "kernel '%s' needs %lld threads per block; CUDA allows at most %d", k->name,
                   (long long)threads, CUDA_MAX_BLOCK);
}

/* ---------------------------------------------------------------- loop forms */

static Nat *launch_size(Arena *a, Kernel *k, Level l, int dim)
{
    switch (l) {
    case LVL_THREADS: return k->block[dim];
    case LVL_BLOCK: return k->grid[dim];
    case LVL_GLOBAL: return nat_mul(a, k->grid[dim], k->block[dim]);
    case LVL_WARP: return dim == 0 ? nat_div(a, k->block[0], nat_cst(a, 32)) : k->block[dim];
    case LVL_LANE: return nat_cst(a, 32);
    case LVL_SEQ: return NULL;
    }
    unreachable();
}

/* The block's thread count, x * y * z. */
static Nat *block_threads(Arena *a, const Kernel *k)
{
    return nat_mul(a, nat_mul(a, k->block[0], k->block[1]), k->block[2]);
}

/* Does a load or store in s index a private array (not a scalar) with v? */
typedef struct PrivIdx {
    const NatVar *v;
    bool found;
} PrivIdx;

static bool private_at(const Buffer *b, const Nat *i, const NatVar *v)
{
    return b->as == AS_PRIVATE && !b->scalar && nat_mentions(i, v);
}
static WalkStep priv_stmt(void *ctx, const Stmt *s)
{
    PrivIdx *p = ctx;
    if (s->kind == S_STORE && private_at(s->store.buf, s->store.index, p->v)) p->found = true;
    return p->found ? WALK_STOP : WALK_ON;
}
static bool priv_x(void *ctx, const X *x)
{
    PrivIdx *p = ctx;
    if (x->kind == X_LOAD && private_at(x->load.buf, x->load.index, p->v)) p->found = true;
    return p->found;
}

static bool indexes_private(const Stmt *s, const NatVar *v)
{
    static const IrVisitor vis = {.stmt = priv_stmt, .x = priv_x};
    PrivIdx p = {v, false};
    ir_walk(s, &vis, &p);
    return p.found;
}

/* extent == size -> ONCE; extent <= size (provably) -> GUARDED; else LOOP.
 * A sequential loop of one trip is ONCE. */
static void forms(Arena *a, Diag *d, Kernel *k, Stmt *s)
{
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->seq.n; i++) forms(a, d, k, s->seq.items[i]);
        return;
    case S_IF: forms(a, d, k, s->cond.then); return;
    case S_WHILE: forms(a, d, k, s->wloop.body); return;
    case S_FOR: {
        forms(a, d, k, s->loop.body);
        s->loop.var_used = stmt_mentions_var(s->loop.body, s->loop.var);
        int64_t c;
        if (s->loop.level == LVL_SEQ) {
            s->loop.form = nat_is_const(s->loop.extent, &c) && c == 1 ? LF_ONCE : LF_LOOP;
            s->loop.regs = indexes_private(s->loop.body, s->loop.var);
            return;
        }
        Nat *size = launch_size(a, k, s->loop.level, s->loop.dim);
        s->loop.hw_size = size;
        if (nat_equal(size, s->loop.extent)) s->loop.form = LF_ONCE;
        else if (nat_prove_ge(a, size, s->loop.extent)) s->loop.form = LF_GUARDED;
        else s->loop.form = LF_LOOP;
        /* a drawn tile is one per block: a block that looped would draw several, and the
         * counter's reset (by the block that draws the grid's last tile) would be wrong */
        if (s->loop.draw && s->loop.form == LF_LOOP) {
            int64_t lim = s->loop.dim ? CUDA_MAX_GRID_YZ : CUDA_MAX_GRID_X;
            hint_fact(d, a, HINT_LE, s->loop.extent, size);
            diag_error(d, k->def->sp, "kernel %s: its mapBlock has a lookback, which needs a block for each of its %s "
                             "iterations, but the launch rule gives %s blocks%s", k->name, nat_str(a, s->loop.extent),
                             nat_str(a, size), nat_is_const(size, &c) && c == lim ? ", CUDA's limit" : "");
        }
        /* its warp 0 runs full-mask shuffles and votes: all 32 lanes must exist */
        if (s->loop.draw && !nat_prove_ge(a, block_threads(a, k), nat_cst(a, 32)))
            diag_error(d, k->def->sp, "kernel %s: its mapBlock has a lookback, which warp 0 of each block runs with "
                       "all 32 lanes, but the block has %s threads; give the block at least 32 (a wider mapThreads)",
                       k->name, nat_str(a, block_threads(a, k)));
        /* warp 0 is threadIdx.x < 32 (prims/warp.c look_back), the block's first warp only
         * when the block is one row */
        int64_t y, z;
        if (s->loop.draw && !(nat_is_const(k->block[1], &y) && y == 1 && nat_is_const(k->block[2], &z) && z == 1))
            diag_error(d, k->def->sp, "kernel %s: its mapBlock has a lookback, which warp 0 of each block runs, but "
                       "the block has threads along 'y' or 'z' (%s x %s x %s); give the block one dimension (mapThreads "
                       "along 'x' only)", k->name, nat_str(a, k->block[0]), nat_str(a, k->block[1]), nat_str(a, k->block[2]));
        /* an array spread over the threads is indexed by the thread's own id: one trip each */
        if (s->loop.own && s->loop.form != LF_ONCE)
            diag_error2(d, s->loop.own_sp, s->loop.own->dsp, "the array is spread over the threads here",
                        "kernel %s: this mapThreads('%c') reads or writes an array spread over the block's threads "
                        "(one element per thread), which needs exactly one thread per element: it covers %s "
                        "elements, but the block has %s threads along '%c' (set by the kernel's widest "
                        "mapThreads('%c'))",
                        k->name, "xyz"[s->loop.dim], nat_str(a, s->loop.extent), nat_str(a, size), "xyz"[s->loop.dim],
                        "xyz"[s->loop.dim]);
        if (s->loop.level != LVL_GLOBAL && s->loop.level != LVL_BLOCK && s->loop.form != LF_LOOP) k->block_fixed = true;
        if (s->loop.level == LVL_WARP || s->loop.level == LVL_LANE) k->block_fixed = true;
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
    case S_PREFETCH: return;
    }
}

/* ---------------------------------------------------------------- single-thread regions */

/* Who runs a statement list: every thread of the grid, of a block, or of a warp, all
 * computing the same thing; or each thread on its own element. */
typedef enum { RUN_GRID, RUN_BLOCK, RUN_WARP, RUN_OWN } Runner;

/* a write to shared or global memory (stops the walk) */
static bool writes_mem(void *ctx, Buffer *b, bool write)
{
    (void)ctx;
    return write && b->as != AS_PRIVATE;
}
static const IrVisitor writes_mem_visit = {.access = writes_mem};

/* a nat of the thread's own id (stops the walk) */
static bool thread_nat(void *ctx, Nat *n)
{
    const HwIds *h = ctx;
    return nat_mentions(n, h->tid[0]) || nat_mentions(n, h->tid[1]) || nat_mentions(n, h->tid[2]) ||
           nat_mentions(n, h->lane) || nat_mentions(n, h->warp);
}
static const IrVisitor thread_nat_visit = {.nat = thread_nat};

/* Code that is not run redundantly by its runner: a parallel loop, a per-lane branch,
 * a barrier, lastBlock, a jump (every thread must take it, so it never goes under a
 * one-thread guard), a while loop whose condition is the thread's own (each thread
 * runs its own trips: lastBlock's clearing of the flags) (stops the walk). */
static WalkStep parallel_stmt(void *ctx, const Stmt *s)
{
    bool par = (s->kind == S_FOR && s->loop.level != LVL_SEQ) || (s->kind == S_IF && (s->cond.per_lane || s->cond.role)) ||
               s->kind == S_BARRIER || s->kind == S_JUMP || s->kind == S_MBAR || s->kind == S_BULK || /* each thread's arrival counts */
               (s->kind == S_WHILE && s->wloop.cond && ir_walk_x(s->wloop.cond, &thread_nat_visit, ctx));
    return par ? WALK_STOP : WALK_ON;
}
static const IrVisitor parallel_visit = {.stmt = parallel_stmt};

static bool has_parallel(const Kernel *k, const Stmt *s) { return ir_walk(s, &parallel_visit, (void *)&k->hw); }

static X *xeq0(Arena *a, NatVar *v)
{
    return x_bin(a, OP_EQ, SK_BOOL, x_nat(a, nat_var(a, v)), x_nat(a, nat_cst(a, 0)));
}

static X *xand(Arena *a, X *l, X *r) { return l ? x_bin(a, OP_AND, SK_BOOL, l, r) : r; }

/* threadIdx == 0 (and blockIdx == 0 at grid level; lane == 0 at warp level), over the
 * dimensions the launch actually uses */
static X *one_thread(Arena *a, Kernel *k, Runner r)
{
    X *c = NULL;
    int64_t v;
    if (r == RUN_WARP) return xeq0(a, k->hw.lane);
    for (int d = 0; d < 3; d++)
        if (!nat_is_const(k->block[d], &v) || v != 1) c = xand(a, c, xeq0(a, k->hw.tid[d]));
    if (r == RUN_GRID)
        for (int d = 0; d < 3; d++)
            if (!nat_is_const(k->grid[d], &v) || v != 1) c = xand(a, c, xeq0(a, k->hw.bid[d]));
    return c;
}

typedef struct Uses {
    Buffer **decl;
    int n;
    bool used;
} Uses;

static bool note_use(void *ctx, Buffer *b, bool write)
{
    (void)write;
    Uses *u = ctx;
    for (int i = 0; i < u->n; i++)
        if (u->decl[i] == b) u->used = true;
    return u->used;
}
static const IrVisitor note_use_visit = {.access = note_use};

static void guard(Arena *a, Kernel *k, Stmt *seq, Runner r);

static bool is_shfl(void *ctx, const X *x)
{
    (void)ctx;
    return x->kind == X_SHFL;
}
static const IrVisitor shfl_visit = {.x = is_shfl};

/* A run items[i..j) of redundant sequential statements containing a memory write is
 * wrapped in one guard when nothing it declares is used after it; otherwise each
 * writing statement gets its own guard. */
static void guard_run(Arena *a, Kernel *k, Stmt *seq, int i, int j, Runner r, Stmt **out, int *nout)
{
    bool writes = false;
    for (int q = i; q < j; q++) writes = writes || ir_walk(seq->seq.items[q], &writes_mem_visit, NULL);
    if (!writes || !one_thread(a, k, r)) {
        for (int q = i; q < j; q++) out[(*nout)++] = seq->seq.items[q];
        return;
    }
    Buffer *decl[256];
    Uses u = {decl, 0, false};
    for (int q = i; q < j; q++)
        if (seq->seq.items[q]->kind == S_DECL && u.n < 256) decl[u.n++] = seq->seq.items[q]->decl.buf;
    for (int q = j; q < seq->seq.n; q++) ir_walk(seq->seq.items[q], &note_use_visit, &u);
    /* a shuffle needs every lane: it must stay outside the one-thread guard */
    bool shfl = false;
    for (int q = i; q < j; q++) shfl = shfl || ir_walk(seq->seq.items[q], &shfl_visit, NULL);
    if (!u.used && !shfl) {
        Stmt *g = ANEW(a, Stmt), *body = stmt_seq(a);
        g->kind = S_IF;
        g->cond.c = one_thread(a, k, r);
        g->cond.then = body;
        for (int q = i; q < j; q++) stmt_append(a, body, seq->seq.items[q]);
        out[(*nout)++] = g;
        return;
    }
    for (int q = i; q < j; q++) {
        Stmt *s = seq->seq.items[q];
        bool w = ir_walk(s, &writes_mem_visit, NULL);
        if (w && s->kind == S_STORE && ir_walk_x(s->store.val, &shfl_visit, NULL)) {
            /* compute the shuffled value on every lane, store it from one */
            Buffer *t = ANEW(a, Buffer);
            t->name = arena_printf(a, "sh%d", arena_next_id(a));
            t->as = AS_PRIVATE;
            t->sk = s->store.val->sk;
            t->count = nat_cst(a, 1);
            t->scalar = true;
            t->param = -2;
            Stmt *d = ANEW(a, Stmt);
            d->kind = S_DECL;
            d->decl.buf = t;
            d->decl.init = s->store.val;
            out[(*nout)++] = d;
            X *ld = ANEW(a, X);
            ld->kind = X_LOAD;
            ld->sk = t->sk;
            ld->load.buf = t;
            ld->load.index = nat_cst(a, 0);
            Stmt *st = ANEW(a, Stmt);
            *st = *s;
            st->store.val = ld;
            s = st;
        } else if (w && ir_walk(s, &shfl_visit, NULL)) {
            out[(*nout)++] = s; /* cannot be guarded; the write is redundant but identical */
            continue;
        }
        if (w) {
            Stmt *g = ANEW(a, Stmt), *body = stmt_seq(a);
            g->kind = S_IF;
            g->cond.c = one_thread(a, k, r);
            g->cond.then = body;
            stmt_append(a, body, s);
            s = g;
        }
        out[(*nout)++] = s;
    }
}

static void guard(Arena *a, Kernel *k, Stmt *seq, Runner r)
{
    if (r == RUN_OWN) return;
    Stmt **out = ANEWN(a, Stmt *, seq->seq.n + 1);
    int nout = 0;
    for (int i = 0; i < seq->seq.n;) {
        Stmt *s = seq->seq.items[i];
        if (has_parallel(k, s)) {
            if (s->kind == S_FOR) {
                Runner inner = r;
                switch (s->loop.level) {
                case LVL_BLOCK: inner = RUN_BLOCK; break;
                case LVL_WARP: inner = RUN_WARP; break;
                case LVL_THREADS: case LVL_GLOBAL: case LVL_LANE: inner = RUN_OWN; break;
                case LVL_SEQ: break;
                }
                guard(a, k, s->loop.body, inner);
            } else if (s->kind == S_IF && s->cond.role) {
                /* a warp role's code is written for the threads that run it (its lowering
                 * tests the lane where one lane acts): no guards */
            } else if (s->kind == S_IF && s->cond.block_uniform) {
                guard(a, k, s->cond.then, RUN_BLOCK); /* each block that runs it, all its threads */
            } else if (s->kind == S_IF && !s->cond.per_lane) {
                guard(a, k, s->cond.then, r);
            } else if (s->kind == S_WHILE) {
                /* its runner runs every trip, or each thread its own */
                bool own = s->wloop.cond && ir_walk_x(s->wloop.cond, &thread_nat_visit, &k->hw);
                guard(a, k, s->wloop.body, own ? RUN_OWN : r);
            }
            out[nout++] = s;
            i++;
            continue;
        }
        int j = i;
        while (j < seq->seq.n && !has_parallel(k, seq->seq.items[j])) j++;
        guard_run(a, k, seq, i, j, r, out, &nout);
        i = j;
    }
    seq->seq.items = out;
    seq->seq.n = nout;
    seq->seq.cap = seq->seq.n + 1;
}

void loops_specialise(Arena *a, Diag *d, Kernel *k)
{
    /* on the stack: 9 KB per kernel in the arena made a program of many kernels large */
    Collect c = {0};
    static const IrVisitor collect_visit = {.stmt = collect};
    ir_walk(k->body, &collect_visit, &c);
    if (!k->persistent) launch_rule(a, d, k, &c); /* a pipe kernel's lowering set its own (prims/warp.c) */
    /* the hardware ids range over the launch sizes */
    for (int dim = 0; dim < 3; dim++) {
        k->hw.tid[dim]->ub = k->block[dim];
        k->hw.bid[dim]->ub = k->grid[dim];
    }
    forms(a, d, k, k->body);
    guard(a, k, k->body, RUN_GRID);
}
