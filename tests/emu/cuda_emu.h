/* cuda_emu.h: the part of CUDA that patc's generated kernels use, emulated on the CPU,
 * so that a generated kernel can run (slowly) on a machine without a GPU.
 *
 * tests/emu/build.sh compiles `patc --emit-cuda` output with this header into a shared
 * library that tests/fakecuda's stand-in driver loads (FAKECUDA_EMULATE); its
 * cuLaunchKernel then runs the kernel here, on the host memory that stands in for
 * device memory. `patc run --check-against-cpu` with both compares a generated kernel,
 * run through libpatrt's real launch path (grid, arguments, scratch buffers), with the
 * interpreter.
 *
 * How it runs a grid: blocks in launch order, one at a time (several at once for a
 * kernel with mbarriers: below); in a block every thread is a fiber (Ctx, below) that
 * runs until it waits: at __syncthreads for the block, at a warp collective (shuffles,
 * votes, __reduce_min_sync) for the lanes of its mask, on an mbarrier's phase, for a
 * flagged word, or in __nanosleep. So barriers and warp collectives mean what they
 * mean on a GPU. The fibers of even blocks run from the first thread to the last,
 * those of odd blocks from the last to the first, so that a thread reading shared
 * memory that another writes without a barrier between them reads it before the write
 * in one of the two (a wrong result, or a fault). Dynamic shared memory starts as 0x5a
 * bytes in each block, so that a read before any write shows too. An invalid access
 * stops the run with the kernel, block and thread.
 *
 * The pipe kernels (scanPipe, filterPipe, partitionPipe, partitionStablePipe): their
 * mbarriers (patc_mb_init, arrive, arrive with expected bytes, test and wait on a
 * phase's parity) are kept in their own shared-memory word, so a wait for the wrong
 * parity, an arrival too many or too few, or use before init shows (a wrong result, an
 * error, or a deadlock); a bulk copy (patc_bulk_load) lands and completes its bytes on
 * the mbarrier only when the scheduler next gets control, its destination 0x5a bytes
 * until then, so that a read of a slot not waited for reads those. Such a kernel's
 * blocks (build.sh marks it) run three at a time, in turns that start from a
 * different block each pass and skip a block one pass in four (a fixed pseudo-random
 * choice), so that the persistent blocks share the tiles unevenly and a look-back waits
 * for, and reads, other blocks' tile words (EMU_RESIDENT=N in the environment: N, 1 to
 * 4; EMU_SLOW=K: the blocks of even x index run one pass in K besides, after their
 * first, in which they draw their tile, so that a later tile reaches its look-back
 * before an earlier one has published its counts, which a tile publishes before it
 * ranks). __nanosleep lets every other thread run first; when every thread waits and
 * several rounds of the sleepers change nothing (no arrival, copy, flagged word stored
 * or thread finished), the run stops with a deadlock report naming the kernel and each
 * warp's block, threads and what they wait for, instead of hanging. A loop that polls
 * with warp collectives alone, never sleeping or waiting, would still hang.
 *
 * What it cannot show: memory ordering (every store is seen at once by every thread:
 * a missing fence, a relaxed access that needed acquire or release, an mbarrier
 * arrive's release semantics, are all invisible), the async proxy's ordering
 * (patc_fence_proxy_async is a no-op: a copy that overtakes generic writes to its slot
 * cannot happen here), and anything timing dependent: real concurrency between blocks
 * or warps, a block waiting on one that is not resident (blocks start in launch order
 * here, as the look-back assumes), the look-back's rounds of more than one window of
 * tiles (three resident blocks keep another block's tiles a few back). With one block
 * at a time every earlier block has finished when a block starts, so a look-back
 * never waits; a flag that is never set stops the run instead of hanging. Not
 * thread-safe. */
#ifndef CUDA_EMU_H
#define CUDA_EMU_H

#include <cmath>
#include <math.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>
#include <utility>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static /* one copy, shared by the block's fibers (blocks run one at a time) */

struct dim3 {
    unsigned x, y, z;
};

/* ---------------------------------------------------------------- fibers */

/* A fiber's saved context. On x86-64 a switch is six pushes, a stack pointer swapped and
 * six pops (patc_emu_switch): swapcontext also sets the signal mask, a system call at every
 * switch, which with AddressSanitizer's handling of it (it clears the shadow of the whole
 * stack it switches to) took 80 % of an emulated launch's time on a 2-core CI machine.
 * Elsewhere, ucontext. */
#if defined(__x86_64__)
struct Ctx {
    void *sp;
};
extern "C" void patc_emu_switch(void **save, void *to);
#ifndef PATC_EMU_RUNTIME_EXTERN
asm(".text\n.p2align 4\n.globl patc_emu_switch\n.hidden patc_emu_switch\n.type patc_emu_switch, @function\n"
    "patc_emu_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n  ret\n"
    ".size patc_emu_switch, .-patc_emu_switch\n");
#endif
inline void ctx_switch(Ctx *from, Ctx *to) { patc_emu_switch(&from->sp, to->sp); }
/* a new fiber on the stack [lo, lo + size) that starts in entry (which never returns):
 * six zero registers and entry as the return address, so that entry starts with the
 * stack aligned as after a call */
inline void ctx_make(Ctx *c, char *lo, size_t size, void (*entry)())
{
    uintptr_t top = ((uintptr_t)lo + size) & ~(uintptr_t)15;
    void **sp = (void **)(top - 8 * sizeof(void *));
    for (int i = 0; i < 6; i++) sp[i] = nullptr;
    sp[6] = (void *)entry;
    sp[7] = nullptr;
    c->sp = sp;
}
#else
struct Ctx {
    ucontext_t uc;
};
inline void ctx_switch(Ctx *from, Ctx *to) { swapcontext(&from->uc, &to->uc); }
inline void ctx_make(Ctx *c, char *lo, size_t size, void (*entry)())
{
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = lo;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = nullptr;
    makecontext(&c->uc, entry, 0);
}
#endif

/* ---------------------------------------------------------------- the scheduler */

namespace emu {

enum { MAX_THREADS = 1024, STACK = 256 * 1024, SMEM = 256 * 1024, MAX_RESIDENT = 4, MAX_COPIES = 256 };

/* what a fiber waits for: AT_MBAR an mbarrier's phase, AT_SLEEP nothing in particular
 * (__nanosleep in a polling loop: it runs again once nothing else can) */
enum Wait { RUN, AT_SYNC, AT_WARP, AT_FLAG, AT_MBAR, AT_SLEEP, DONE };

struct Block;

struct Fiber {
    Ctx ctx;
    dim3 tid;
    int linear;       /* thread index in the block */
    Wait wait;
    unsigned mask;    /* AT_WARP: the lanes of the collective */
    unsigned long long slot; /* this lane's value in the current collective */
    const volatile unsigned long long *flag; /* AT_FLAG: the flagged word it waits for */
    const unsigned long long *mbar;          /* AT_MBAR: the mbarrier, and the parity of */
    unsigned par;                            /* the phase it waits to see completed */
    int pred;
    Block *blk;
};

/* a block in a residency slot: its threads, stacks and dynamic shared memory */
struct Block {
    Fiber fibers[MAX_THREADS];
    char *stacks;
    dim3 bid;
    bool live;
    bool reverse;  /* this block's threads run from the last to the first */
    int runs;      /* the passes it has run (EMU_SLOW) */
    alignas(16) unsigned char smem[SMEM];
};

/* a bulk copy in flight: it lands (and completes its bytes on the mbarrier) when the
 * scheduler next gets control, not when it is issued */
struct Copy {
    void *dst;
    const void *src;
    unsigned bytes;
    unsigned long long *mb;
};

struct State {
    Block blocks[MAX_RESIDENT];
    int resident;  /* blocks that run at once in this launch */
    int slow;      /* EMU_SLOW: with several resident, blocks of even x index run one pass in slow */
    int nthreads;
    unsigned shared;
    Fiber *cur;
    Ctx sched;
    dim3 block, grid;
    void (*body)(void **);
    void **args;
    const char *kernel;
    /* state changes a polling thread may be waiting for (mbarrier arrivals, copies
     * landed, flagged words stored, threads finished); a round of sleepers woken with
     * none since the last is idle, and IDLE_ROUNDS of them in a row a deadlock */
    unsigned long long events, events_at_wake;
    int idle;
    Copy copies[MAX_COPIES];
    int ncopies;
};

enum { IDLE_ROUNDS = 8 };

/* The emulator's state: one object for the process, however many kernel libraries are
 * loaded (fakecuda's FAKECUDA_EMULATE=A.so:B.so), since GCC makes the static of an inline
 * function a unique symbol. Inline also where each library links the runtime below as an
 * object, so that the fault handler, whichever library installed it, reads the state of
 * the kernel that runs. */
inline State &S()
{
    static State s;
    return s;
}

/* ---- mbarriers (shared memory, CTA scope), held in their own 64-bit word: bits 0..11
 * the arrivals a phase takes, 12..23 those still pending, 24..47 the transaction bytes
 * still expected (signed), 48..55 a mark that patc_mb_init wrote it, 63 the phase's
 * parity. A word without the mark (shared memory starts as 0x5a bytes) stops the run. */
enum : unsigned long long { MB_MARK = 0xB7ull };
struct Mbar {
    unsigned count, pending, phase;
    long long tx;
};

struct Entry;

/* The runtime: the scheduler and what the kernels call of it, the same for every kernel.
 * Compiled with the kernels (build.sh alone) these are inline, as any header's functions.
 * run.sh has them compiled once (build.sh --prebuild, PATC_EMU_RUNTIME_OBJECT defined)
 * and each kernel library of the run links that object, the header declaring them only
 * (PATC_EMU_RUNTIME_EXTERN): their code, generated again for every library, was most of
 * a build's compile once the header was precompiled (build.sh). Hidden: a library
 * exports none of them, and calls its own. */
#if defined(PATC_EMU_RUNTIME_OBJECT) || defined(PATC_EMU_RUNTIME_EXTERN)
#define PATC_EMU_RT __attribute__((visibility("hidden")))
#else
#define PATC_EMU_RT inline
#endif
PATC_EMU_RT void where(FILE *f);
PATC_EMU_RT void fail(const char *why);
PATC_EMU_RT void yield();
PATC_EMU_RT void fiber_main();
PATC_EMU_RT int lane_of(const Fiber *f);
PATC_EMU_RT Mbar mb_get(const unsigned long long *b);
PATC_EMU_RT void mb_put(unsigned long long *b, Mbar m);
PATC_EMU_RT bool mb_done(const unsigned long long *b, unsigned par);
PATC_EMU_RT void land_copies();
PATC_EMU_RT const char *wait_name(const Fiber *f);
PATC_EMU_RT void describe(char *buf, size_t n, const Fiber *f);
PATC_EMU_RT void deadlock();
PATC_EMU_RT bool release();
PATC_EMU_RT void start_block(Block &B, dim3 bid);
PATC_EMU_RT void run_grid();
PATC_EMU_RT Fiber *warp_base();
PATC_EMU_RT void collective(unsigned mask, unsigned long long v, int pred);
PATC_EMU_RT void collective_end(unsigned mask);
PATC_EMU_RT unsigned char *block_smem();
PATC_EMU_RT void put_num(char *&p, unsigned v);
PATC_EMU_RT void on_fault(int sig);
PATC_EMU_RT int launch(const Entry *table, const char *name, const unsigned grid[3], const unsigned block[3],
                       unsigned shared, void **args);

#ifndef PATC_EMU_RUNTIME_EXTERN

/* the kernel, block and thread running now, for a message */
PATC_EMU_RT void where(FILE *f)
{
    State &s = S();
    fprintf(f, " (kernel %s", s.kernel ? s.kernel : "?");
    if (s.cur)
        fprintf(f, ", block (%u,%u,%u), thread %d", s.cur->blk->bid.x, s.cur->blk->bid.y, s.cur->blk->bid.z,
                s.cur->linear);
    fprintf(f, ")\n");
}

PATC_EMU_RT void fail(const char *why)
{
    fprintf(stderr, "cuda_emu: %s", why);
    where(stderr);
    abort();
}

/* back to the scheduler until it resumes this fiber */
PATC_EMU_RT void yield() { ctx_switch(&S().cur->ctx, &S().sched); }

PATC_EMU_RT void fiber_main()
{
    State &s = S();
    s.body(s.args);
    s.cur->wait = DONE;
    s.events++;
    ctx_switch(&s.cur->ctx, &s.sched);
    abort(); /* a finished fiber is never resumed */
}

PATC_EMU_RT int lane_of(const Fiber *f) { return f->linear & 31; }

PATC_EMU_RT Mbar mb_get(const unsigned long long *b)
{
    if ((uintptr_t)b % 8) fail("an mbarrier not 8-byte aligned");
    unsigned long long w = *(const volatile unsigned long long *)b;
    if ((w >> 48 & 0xff) != MB_MARK) fail("an mbarrier used before patc_mb_init, or overwritten");
    long long tx = (long long)(w >> 24 & 0xffffff);
    if (tx >= 1ll << 23) tx -= 1ll << 24;
    return Mbar{(unsigned)(w & 0xfff), (unsigned)(w >> 12 & 0xfff), (unsigned)(w >> 63), tx};
}
PATC_EMU_RT void mb_put(unsigned long long *b, Mbar m)
{
    if (m.tx >= 1ll << 23 || m.tx < -(1ll << 23)) fail("an mbarrier's transaction count out of range");
    if (m.pending == 0 && m.tx == 0) { /* the phase completes: the next begins */
        m.phase ^= 1u;
        m.pending = m.count;
    }
    *(volatile unsigned long long *)b = (unsigned long long)m.count | (unsigned long long)m.pending << 12 |
                                        ((unsigned long long)m.tx & 0xffffff) << 24 | MB_MARK << 48 |
                                        (unsigned long long)m.phase << 63;
    S().events++;
}
/* whether the phase of parity par has completed: the phase now in progress has the other */
PATC_EMU_RT bool mb_done(const unsigned long long *b, unsigned par) { return mb_get(b).phase != (par & 1u); }

PATC_EMU_RT void land_copies()
{
    State &s = S();
    for (int i = 0; i < s.ncopies; i++) {
        Copy &c = s.copies[i];
        memcpy(c.dst, c.src, c.bytes);
        Mbar m = mb_get(c.mb);
        m.tx -= c.bytes;
        mb_put(c.mb, m);
    }
    s.ncopies = 0;
}

PATC_EMU_RT const char *wait_name(const Fiber *f)
{
    switch (f->wait) {
    case RUN: return "running";
    case AT_SYNC: return "at __syncthreads";
    case AT_WARP: return "at a warp collective";
    case AT_FLAG: return "waiting for a flagged word no block set or will set";
    case AT_MBAR: return "waiting on an mbarrier";
    case AT_SLEEP: return "polling (__nanosleep)";
    case DONE: return "done";
    }
    return "?";
}

/* what fiber f waits for, in words */
PATC_EMU_RT void describe(char *buf, size_t n, const Fiber *f)
{
    int k = snprintf(buf, n, "%s", wait_name(f));
    if (f->wait == AT_MBAR) {
        Mbar m = mb_get(f->mbar);
        snprintf(buf + k, n - (size_t)k,
                 " at shared byte %ld for the phase of parity %u to complete (in phase of parity %u: %u of %u arrivals, %lld bytes pending)",
                 (long)((const unsigned char *)f->mbar - f->blk->smem), f->par & 1u, m.phase, m.pending, m.count, m.tx);
    }
    if (f->wait == AT_WARP) snprintf(buf + k, n - (size_t)k, " (mask 0x%08x)", f->mask);
}

/* every thread waits and nothing that any of them waits for can change: name them, the
 * threads of a warp that wait for the same thing on one line */
PATC_EMU_RT void deadlock()
{
    State &s = S();
    fprintf(stderr, "cuda_emu: deadlock in kernel %s: every thread waits and none can go on\n", s.kernel ? s.kernel : "?");
    int lines = 0;
    for (int b = 0; b < s.resident; b++) {
        Block &B = s.blocks[b];
        if (!B.live) continue;
        for (int i = 0; i < s.nthreads;) {
            char d[256], e[256];
            describe(d, sizeof d, &B.fibers[i]);
            int j = i + 1;
            while (j < s.nthreads && j % 32 && (describe(e, sizeof e, &B.fibers[j]), strcmp(d, e) == 0)) j++;
            if (B.fibers[i].wait != DONE && lines++ < 24)
                fprintf(stderr, "cuda_emu:   block (%u,%u,%u), threads %d..%d (warp %d): %s\n", B.bid.x, B.bid.y, B.bid.z, i,
                        j - 1, i / 32, d);
            i = j;
        }
    }
    if (lines > 24) fprintf(stderr, "cuda_emu:   ... and %d more\n", lines - 24);
    abort();
}

/* Release what can go on, in every resident block: a block barrier when every live
 * thread of the block is at it (a thread that has returned counts as arrived, as on
 * sm_70+), a warp collective when every lane of its mask is at one, an mbarrier wait
 * once the phase has completed, a flag wait once the word has its flag; the sleepers
 * only when nothing else can run. Returns false when no thread is left; a deadlock
 * stops the run. */
PATC_EMU_RT bool release()
{
    State &s = S();
    land_copies();
    int running = 0, live = 0, sleeping = 0;
    for (int b = 0; b < s.resident; b++) {
        if (!s.blocks[b].live) continue;
        for (int i = 0; i < s.nthreads; i++) {
            Wait w = s.blocks[b].fibers[i].wait;
            if (w == RUN) running++;
            if (w != DONE) live++;
            if (w == AT_SLEEP) sleeping++;
        }
    }
    if (!live) return false;
    /* a block's waits are released whether or not another block has threads to run (a
     * block that sits out a pass keeps its runnable threads), so that blocks go at
     * their own speeds */
    bool any = running > 0;
    for (int b = 0; b < s.resident; b++) {
        Block &B = s.blocks[b];
        if (!B.live) continue;
        int at_sync = 0, live_b = 0;
        for (int i = 0; i < s.nthreads; i++) {
            Fiber &f = B.fibers[i];
            if (f.wait != DONE) live_b++;
            if (f.wait == AT_SYNC) at_sync++;
            /* a flag wait (lastBlock's last block reading a partial that a thread of its
             * own block has yet to store) goes on once the word has its flag */
            if (f.wait == AT_FLAG && *f.flag >> 32) {
                f.wait = RUN;
                any = true;
            }
            if (f.wait == AT_MBAR && mb_done(f.mbar, f.par)) {
                f.wait = RUN;
                any = true;
            }
        }
        for (int w0 = 0; w0 < s.nthreads; w0 += 32) {
            Fiber *f = &B.fibers[w0];
            int n = s.nthreads - w0 < 32 ? s.nthreads - w0 : 32;
            for (int l = 0; l < n; l++) {
                if (f[l].wait != AT_WARP) continue;
                unsigned m = f[l].mask;
                bool all = true;
                for (int k = 0; k < 32 && all; k++)
                    if (m >> k & 1u) all = k < n && f[k].wait == AT_WARP && f[k].mask == m;
                if (all) {
                    for (int k = 0; k < 32; k++)
                        if (m >> k & 1u) f[k].wait = RUN;
                    any = true;
                }
            }
        }
        if (at_sync && at_sync == live_b) {
            for (int i = 0; i < s.nthreads; i++)
                if (B.fibers[i].wait == AT_SYNC) B.fibers[i].wait = RUN;
            s.events++;
            any = true;
        }
    }
    if (any) return true;
    if (sleeping) {
        s.idle = s.events == s.events_at_wake ? s.idle + 1 : 0;
        s.events_at_wake = s.events;
        if (s.idle < IDLE_ROUNDS) {
            for (int b = 0; b < s.resident; b++)
                if (s.blocks[b].live)
                    for (int i = 0; i < s.nthreads; i++)
                        if (s.blocks[b].fibers[i].wait == AT_SLEEP) s.blocks[b].fibers[i].wait = RUN;
            return true;
        }
    }
    deadlock();
    return false;
}

/* a block into a residency slot: every thread a fiber, from the start of the kernel */
PATC_EMU_RT void start_block(Block &B, dim3 bid)
{
    State &s = S();
    B.bid = bid;
    B.live = true;
    B.reverse = (bid.x + bid.y + bid.z) & 1;
    B.runs = 0;
    /* shared memory starts with anything: not zero, so that a read before a write shows */
    memset(B.smem, 0x5a, s.shared);
    for (int i = 0; i < s.nthreads; i++) {
        Fiber *f = &B.fibers[i];
        bool stale = f->blk && f->wait != DONE; /* the thread before it on this stack */
        f->linear = i;
        f->blk = &B;
        f->tid = dim3{(unsigned)i % s.block.x, (unsigned)i / s.block.x % s.block.y,
                      (unsigned)i / (s.block.x * s.block.y)};
        f->wait = RUN;
        char *stack = B.stacks + (size_t)i * STACK;
        /* a thread that finished returned from its frames, which unpoisoned their redzones;
         * the frames of one that did not finish must not read as poisoned to the next (a
         * clear of the whole stack at every start took 59 % of a launch's time) */
#ifdef __SANITIZE_ADDRESS__
        if (stale) __asan_unpoison_memory_region(stack, STACK);
#else
        (void)stale;
#endif
        ctx_make(&f->ctx, stack, STACK, fiber_main);
    }
}

/* The grid: `resident` blocks at a time (in launch order, a finished block's slot
 * taken by the next), their threads run in turn, each until it waits. */
PATC_EMU_RT void run_grid()
{
    State &s = S();
    unsigned long long total = (unsigned long long)s.grid.x * s.grid.y * s.grid.z, next = 0, pass = 0, rng = 0x9e3779b97f4a7c15ull;
    s.ncopies = 0;
    s.idle = 0;
    s.cur = nullptr; /* no thread runs: a message from the scheduler names none */
    for (int b = 0; b < s.resident; b++) s.blocks[b].live = false;
    for (;;) {
        bool any = false;
        for (int b = 0; b < s.resident; b++) {
            if (!s.blocks[b].live && next < total) {
                unsigned long long i = next++;
                start_block(s.blocks[b], dim3{(unsigned)(i % s.grid.x), (unsigned)(i / s.grid.x % s.grid.y),
                                              (unsigned)(i / ((unsigned long long)s.grid.x * s.grid.y))});
            }
            any |= s.blocks[b].live;
        }
        if (!any) break;
        /* with several blocks at once, they take turns from a different one each pass and
         * one in four passes a block sits out (a fixed pseudo-random choice), so that the
         * blocks go at uneven speeds and a look-back finds an earlier tile's word both set
         * and not yet set */
        pass++;
        if (release())
            for (int bi = 0; bi < s.resident; bi++) {
                Block &B = s.blocks[(bi + pass) % s.resident];
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                if (!B.live || (s.resident > 1 && rng % 4 == 0)) continue;
                if (s.resident > 1 && s.slow > 1 && B.bid.x % 2 == 0 && B.runs > 0 && pass % s.slow) continue;
                B.runs++;
                for (int j = 0; j < s.nthreads; j++) {
                    int i = B.reverse ? s.nthreads - 1 - j : j;
                    if (B.fibers[i].wait == RUN) {
                        s.cur = &B.fibers[i];
                        ctx_switch(&s.sched, &B.fibers[i].ctx);
                    }
                }
            }
        s.cur = nullptr;
        land_copies();
        for (int b = 0; b < s.resident; b++) {
            Block &B = s.blocks[b];
            if (!B.live) continue;
            bool done = true;
            for (int i = 0; i < s.nthreads && done; i++) done = B.fibers[i].wait == DONE;
            if (done) B.live = false;
        }
    }
}

/* lanes of the current collective, after all of mask arrived: their slots */
PATC_EMU_RT Fiber *warp_base() { return S().cur - lane_of(S().cur); }

PATC_EMU_RT void collective(unsigned mask, unsigned long long v, int pred)
{
    Fiber *f = S().cur;
    if (!(mask >> lane_of(f) & 1u)) fail("a warp collective whose mask leaves out the calling lane");
    f->slot = v;
    f->pred = pred;
    f->mask = mask;
    f->wait = AT_WARP;
    yield();
}

/* After a collective, every lane has read the slots before any lane writes them again:
 * a second rendezvous. */
PATC_EMU_RT void collective_end(unsigned mask)
{
    Fiber *f = S().cur;
    f->mask = mask;
    f->wait = AT_WARP;
    yield();
}

/* the dynamic shared memory of the running thread's block (build.sh points the kernels'
 * extern __shared__ array here) */
PATC_EMU_RT unsigned char *block_smem() { return S().cur->blk->smem; }

#endif /* PATC_EMU_RUNTIME_EXTERN */

template <class T> unsigned long long bits_of(T v)
{
    static_assert(sizeof(T) <= 8, "a shuffle of at most 8 bytes");
    unsigned long long b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}
template <class T> T of_bits(unsigned long long b)
{
    T v;
    memcpy(&v, &b, sizeof v);
    return v;
}

template <class T> T shfl(unsigned mask, T v, int src)
{
    collective(mask, bits_of(v), 0);
    Fiber *w = warp_base();
    T r = (src >= 0 && src < 32 && (mask >> src & 1u)) ? of_bits<T>(w[src].slot) : v;
    collective_end(mask);
    return r;
}

} // namespace emu

/* ---------------------------------------------------------------- what kernels see */

#define threadIdx (emu::S().cur->tid)
#define blockIdx (emu::S().cur->blk->bid)
#define blockDim (emu::S().block)
#define gridDim (emu::S().grid)
#define warpSize 32

inline void __syncthreads()
{
    emu::S().cur->wait = emu::AT_SYNC;
    emu::yield();
}
inline void __syncwarp(unsigned mask = 0xffffffffu) { emu::collective(mask, 0, 0); }
inline void __threadfence() {}
/* a polling loop's pause: the thread runs again once no other thread can (so a poll
 * that nothing will ever satisfy is a deadlock, not a hang) */
inline void __nanosleep(unsigned)
{
    emu::S().cur->wait = emu::AT_SLEEP;
    emu::yield();
}

template <class T> T __shfl_sync(unsigned m, T v, int src, int width = 32)
{
    int lane = emu::lane_of(emu::S().cur);
    return emu::shfl(m, v, (lane & ~(width - 1)) + (src & (width - 1)));
}
template <class T> T __shfl_up_sync(unsigned m, T v, unsigned d, int width = 32)
{
    int lane = emu::lane_of(emu::S().cur), base = lane & ~(width - 1);
    return emu::shfl(m, v, lane - (int)d >= base ? lane - (int)d : lane);
}
template <class T> T __shfl_down_sync(unsigned m, T v, unsigned d, int width = 32)
{
    int lane = emu::lane_of(emu::S().cur), base = lane & ~(width - 1);
    return emu::shfl(m, v, lane + (int)d < base + width ? lane + (int)d : lane);
}
template <class T> T __shfl_xor_sync(unsigned m, T v, int x, int width = 32)
{
    int lane = emu::lane_of(emu::S().cur), base = lane & ~(width - 1);
    int src = lane ^ x;
    return emu::shfl(m, v, src >= base && src < base + width ? src : lane);
}
inline unsigned __ballot_sync(unsigned m, int p)
{
    emu::collective(m, 0, p != 0);
    emu::Fiber *w = emu::warp_base();
    unsigned r = 0;
    for (int k = 0; k < 32; k++)
        if ((m >> k & 1u) && w[k].pred) r |= 1u << k;
    emu::collective_end(m);
    return r;
}
inline int __all_sync(unsigned m, int p) { return __ballot_sync(m, p) == m; }
inline int __any_sync(unsigned m, int p) { return __ballot_sync(m, p) != 0; }
inline unsigned __reduce_min_sync(unsigned m, unsigned v)
{
    emu::collective(m, v, 0);
    emu::Fiber *w = emu::warp_base();
    unsigned r = 0xffffffffu;
    for (int k = 0; k < 32; k++)
        if ((m >> k & 1u) && (unsigned)w[k].slot < r) r = (unsigned)w[k].slot;
    emu::collective_end(m);
    return r;
}
/* the generated code's patc_match_bits (a ballot per bit in PTX there): the lanes whose x
 * agrees with this lane's in the low w bits, as one collective */
static inline unsigned int patc_match_bits(unsigned int x, unsigned int w)
{
    unsigned low = w >= 32 ? 0xffffffffu : (1u << w) - 1u;
    emu::collective(0xffffffffu, x & low, 0);
    emu::Fiber *f = emu::warp_base();
    unsigned r = 0;
    for (int k = 0; k < 32; k++)
        if ((unsigned)f[k].slot == (x & low)) r |= 1u << k;
    emu::collective_end(0xffffffffu);
    return r;
}

/* the generated code's patc_vote_bit (its test in PTX there): the warp's ballot of bit i of x */
static inline unsigned int patc_vote_bit64(unsigned long long x, unsigned int i) { return __ballot_sync(0xffffffffu, (x >> i & 1u) != 0); }
static inline unsigned int patc_vote_bit(unsigned int x, unsigned int i) { return patc_vote_bit64(x, i); }

inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline unsigned __float_as_uint(float f) { return emu::of_bits<unsigned>(emu::bits_of(f)); }
inline float __uint_as_float(unsigned u) { return emu::of_bits<float>(u); }
inline int __float_as_int(float f) { return emu::of_bits<int>(emu::bits_of(f)); }
inline float __int_as_float(int i) { return emu::of_bits<float>((unsigned)i); }

/* min and max of one type, and of mixed integer types as CUDA's overloads promote them */
template <class A, class B> inline typename std::common_type<A, B>::type min(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)a < (C)b ? (C)a : (C)b;
}
template <class A, class B> inline typename std::common_type<A, B>::type max(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)a < (C)b ? (C)b : (C)a;
}

template <class T> T atomicAdd(T *p, T v)
{
    T old = *p;
    *p = old + v;
    return old;
}
template <class T> T atomicMax(T *p, T v)
{
    T old = *p;
    if (v > old) *p = v;
    return old;
}
template <class T> T atomicMin(T *p, T v)
{
    T old = *p;
    if (v < old) *p = v;
    return old;
}
/* accumulate's atomics (issue 33 item 2): a fiber runs until it yields, so a plain
 * read-modify-write is atomic here */
template <class T> T atomicOr(T *p, T v)
{
    T old = *p;
    *p = old | v;
    return old;
}
template <class T> T atomicAnd(T *p, T v)
{
    T old = *p;
    *p = old & v;
    return old;
}
template <class T> T atomicXor(T *p, T v)
{
    T old = *p;
    *p = old ^ v;
    return old;
}
template <class T> T atomicExch(T *p, T v)
{
    T old = *p;
    *p = v;
    return old;
}
template <class T> T atomicCAS(T *p, T cmp, T v)
{
    T old = *p;
    if (old == cmp) *p = v;
    return old;
}

/* Vector types, aligned as CUDA's; a copy from or to a misaligned address (a vector
 * load or store the GPU would fault on) stops the run. */
inline void check_aligned(const void *p, size_t a)
{
    if ((uintptr_t)p % a) {
        fprintf(stderr, "cuda_emu: a %zu-byte vector access at %p, not %zu-byte aligned\n", a, p, a);
        abort();
    }
}
#define PATC_EMU_VEC(N, A, FIELDS, COPY)                                                   \
    struct __attribute__((aligned(A))) N {                                                 \
        FIELDS;                                                                            \
        N() = default;                                                                     \
        N(const N &o) { check_aligned(&o, A); COPY; }                                      \
        N &operator=(const N &o) { check_aligned(&o, A); check_aligned(this, A); COPY; return *this; } \
    };
#define PATC_EMU_VEC2(T, N) PATC_EMU_VEC(N, 2 * sizeof(T), T x; T y, x = o.x; y = o.y)
#define PATC_EMU_VEC4(T, N) PATC_EMU_VEC(N, 4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T), T x; T y; T z; T w, \
                                         x = o.x; y = o.y; z = o.z; w = o.w)
PATC_EMU_VEC2(float, float2)
PATC_EMU_VEC4(float, float4)
PATC_EMU_VEC2(int, int2)
PATC_EMU_VEC4(int, int4)
PATC_EMU_VEC2(unsigned, uint2)
PATC_EMU_VEC4(unsigned, uint4)
PATC_EMU_VEC2(double, double2)
PATC_EMU_VEC2(long long, longlong2)
PATC_EMU_VEC2(unsigned long long, ulonglong2)

/* The flagged-word helpers of the generated code (which loads and stores them with
 * PTX): here plain accesses. A wait for a flag not yet set lets the block's other
 * threads run (one of them may store it: the last block's own partial, which no
 * barrier orders before the reads); a wait that nothing can satisfy is an error, since
 * the earlier blocks have run already. */
static inline unsigned long long patc_peek(const unsigned long long *p) { return *(const volatile unsigned long long *)p; }
static inline void patc_poke(unsigned long long *p, unsigned long long w)
{
    *(volatile unsigned long long *)p = w;
    emu::S().events++;
}
static inline unsigned int patc_peek32(const unsigned int *p) { return *(const volatile unsigned int *)p; }
static inline void patc_poke32(unsigned int *p, unsigned int w)
{
    *(volatile unsigned int *)p = w;
    emu::S().events++;
}
static inline void patc_set32(unsigned int *p, unsigned int w)
{
    *(volatile unsigned int *)p = w;
    emu::S().events++;
}
static inline unsigned int patc_atom_add_acq_rel(unsigned int *p, unsigned int v) { return atomicAdd(p, v); }
template <class T> T __ldcg(const T *p) { return *p; }
template <class T> T __ldcs(const T *p) { return *p; }
template <class T, class V> void __stcs(T *p, V v) { *p = v; }
template <class T> T __ldg(const T *p) { return *p; }
static inline unsigned int patc_wait(const unsigned long long *p)
{
    unsigned long long w;
    while (!((w = *(const volatile unsigned long long *)p) >> 32)) {
        emu::S().cur->flag = p;
        emu::S().cur->wait = emu::AT_FLAG;
        emu::yield();
    }
    return (unsigned int)w;
}

/* scanPipe's mbarriers and bulk copy (the generated code's prelude_pipe, in PTX there).
 * A wait lets the other threads run until the phase completes; an arrival past the
 * phase's count, an mbarrier used before its init, a copy not 16-byte aligned or
 * outside the block's shared memory stop the run. A bulk copy lands when the
 * scheduler next gets control, not at once: its destination holds 0x5a bytes until
 * then, so a read of the slot before the wait on its mbarrier reads those. */
inline size_t __cvta_generic_to_shared(const void *p) { return (size_t)p; }
static inline void patc_mb_init(unsigned long long *b, unsigned int count)
{
    if (count < 1 || count > 0xfff) emu::fail("patc_mb_init: a count this emulator does not hold");
    *b = 0; /* aligned and in range checked as it is used */
    *b = (unsigned long long)count | (unsigned long long)count << 12 | emu::MB_MARK << 48;
    emu::mb_get(b);
    emu::S().events++;
}
static inline void patc_mb_arrive(unsigned long long *b)
{
    emu::Mbar m = emu::mb_get(b);
    if (m.pending == 0) emu::fail("an arrival on an mbarrier whose phase has all its arrivals (it waits for bytes)");
    m.pending--;
    emu::mb_put(b, m);
}
static inline void patc_mb_expect(unsigned long long *b, unsigned int bytes)
{
    emu::Mbar m = emu::mb_get(b);
    m.tx += bytes;
    if (m.pending == 0) emu::fail("an arrival on an mbarrier whose phase has all its arrivals (it waits for bytes)");
    m.pending--;
    emu::mb_put(b, m);
}
static inline bool patc_mb_test(unsigned long long *b, unsigned int par) { return emu::mb_done(b, par); }
static inline void patc_mb_wait(unsigned long long *b, unsigned int par)
{
    while (!emu::mb_done(b, par)) {
        emu::S().cur->mbar = b;
        emu::S().cur->par = par;
        emu::S().cur->wait = emu::AT_MBAR;
        emu::yield();
    }
}
static inline void patc_bulk_load(void *dst, const void *src, unsigned int bytes, unsigned long long *b)
{
    emu::State &s = emu::S();
    const unsigned char *sm = s.cur->blk->smem, *d = (const unsigned char *)dst;
    if (bytes % 16 || (uintptr_t)dst % 16 || (uintptr_t)src % 16)
        emu::fail("patc_bulk_load: a size, source or destination not a multiple of 16 bytes");
    if (d < sm || d + bytes > sm + s.shared) emu::fail("patc_bulk_load: a destination outside the block's shared memory");
    if (s.ncopies == emu::MAX_COPIES) emu::fail("patc_bulk_load: more copies in flight than this emulator holds");
    emu::mb_get(b);
    memset(dst, 0x5a, bytes);
    s.copies[s.ncopies++] = emu::Copy{dst, src, bytes, b};
}
/* a hint on the GPU; here its range's first and last bytes are read, so that a range
 * outside the kernel's memory stops the run as any invalid access does */
static inline void patc_prefetch_l2(const void *p, const void *e)
{
    const volatile unsigned char *a = (const unsigned char *)p, *z = (const unsigned char *)e;
    if (a < z) {
        (void)a[0];
        (void)z[-1];
    }
}
/* the async proxy's ordering is not modelled: copies land between the threads' turns */
static inline void patc_fence_proxy_async(void) {}

/* ---------------------------------------------------------------- launching */

namespace emu {

template <class... A, size_t... I> void call_with(void (*f)(A...), void **args, std::index_sequence<I...>)
{
    f(*(typename std::remove_reference<A>::type *)args[I]...);
}
template <class... A> void call(void (*f)(A...), void **args) { call_with(f, args, std::index_sequence_for<A...>{}); }

struct Entry {
    const char *name;
    void (*body)(void **);
    int resident; /* blocks run at once (build.sh: several for a kernel with mbarriers) */
};

} // namespace emu

/* the kernels of the file, listed after it by build.sh: PATC_EMU_KERNEL(name, resident) ... */
#define PATC_EMU_KERNELS_BEGIN static const emu::Entry patc_emu_table[] = {
#define PATC_EMU_KERNEL(k, r) {#k, [](void **a) { emu::call(&k, a); }, r},
#define PATC_EMU_KERNELS_END                                                                     \
    {nullptr, nullptr, 0}};                                                                         \
    extern "C" int patc_emu_launch(const char *name, const unsigned grid[3], const unsigned block[3], \
                                   unsigned shared, void **args)                                 \
    {                                                                                            \
        return emu::launch(patc_emu_table, name, grid, block, shared, args);                     \
    }

#ifndef PATC_EMU_RUNTIME_EXTERN
namespace emu {

/* async-signal-safe: the message is built by hand and written with write(2) */
PATC_EMU_RT void put_num(char *&p, unsigned v)
{
    char d[12];
    int n = 0;
    do d[n++] = (char)('0' + v % 10); while ((v /= 10) && n < 11);
    while (n) *p++ = d[--n];
}
PATC_EMU_RT void on_fault(int sig)
{
    State &s = S();
    char buf[256], *p = buf;
    const char *a = "cuda_emu: invalid memory access in kernel ";
    while (*a) *p++ = *a++;
    for (const char *k = s.kernel ? s.kernel : "?"; *k && p < buf + 160; k++) *p++ = *k;
    a = ", block ";
    while (*a) *p++ = *a++;
    put_num(p, s.cur ? s.cur->blk->bid.x : 0u);
    a = ", thread ";
    while (*a) *p++ = *a++;
    put_num(p, s.cur ? (unsigned)s.cur->linear : 0u);
    *p++ = '\n';
    if (write(2, buf, (size_t)(p - buf)) < 0) {}
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Runs a grid. Returns 0, or -1 for an unknown kernel (stands for "not found"), -2 for
 * a shape this emulator does not take. */
PATC_EMU_RT int launch(const Entry *table, const char *name, const unsigned grid[3], const unsigned block[3],
                  unsigned shared, void **args)
{
    const Entry *e = table;
    while (e->name && strcmp(e->name, name) != 0) e++;
    if (!e->name) return -1;
    State &s = S();
    static bool handler;
    if (!handler) { /* name the kernel, block and thread of an invalid access */
        handler = true;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fault;
        sigaction(SIGSEGV, &sa, nullptr);
        sigaction(SIGBUS, &sa, nullptr);
    }
    s.kernel = name;
    s.nthreads = (int)(block[0] * block[1] * block[2]);
    if (s.nthreads > MAX_THREADS || shared > SMEM) return -2;
    /* EMU_RESIDENT=N in the environment: N blocks at once for a kernel that runs several */
    const char *er = getenv("EMU_RESIDENT");
    s.resident = e->resident > 1 && er && atoi(er) > 0 ? atoi(er) : e->resident;
    s.resident = s.resident < 1 ? 1 : s.resident > MAX_RESIDENT ? MAX_RESIDENT : s.resident;
    const char *sl = getenv("EMU_SLOW");
    s.slow = sl ? atoi(sl) : 0;
    for (int b = 0; b < s.resident; b++)
        if (!s.blocks[b].stacks && !(s.blocks[b].stacks = (char *)malloc((size_t)MAX_THREADS * STACK))) return -2;
    s.block = dim3{block[0], block[1], block[2]};
    s.grid = dim3{grid[0], grid[1], grid[2]};
    s.shared = shared;
    s.body = e->body;
    s.args = args;
    s.events = s.events_at_wake = 0;
    run_grid();
    return 0;
}

} // namespace emu
#endif /* PATC_EMU_RUNTIME_EXTERN */

#endif
