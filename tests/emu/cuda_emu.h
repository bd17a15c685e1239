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
 * How it runs a grid: blocks one after another, in order; in a block every thread is a
 * fiber (ucontext) that runs until it reaches a barrier: __syncthreads for the block,
 * a warp collective (shuffles, votes) for the lanes of its mask. So barriers and warp
 * collectives mean what they mean on a GPU. The fibers of even blocks run from the
 * first thread to the last, those of odd blocks from the last to the first, so that a
 * thread reading shared memory that another writes without a barrier between them
 * reads it before the write in one of the two (a wrong result, or a fault). Dynamic
 * shared memory starts as 0x5a bytes in each block, so that a read before any write
 * shows too. An invalid access stops the run with the kernel, block and thread.
 * What it cannot show: races between blocks, memory ordering, and anything timing
 * dependent. Blocks in order make every earlier block finished when a block starts,
 * so a look-back never waits; a flag that is never set stops the run with an error
 * instead of hanging. Not thread-safe. */
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

/* ---------------------------------------------------------------- the scheduler */

namespace emu {

enum { MAX_THREADS = 1024, STACK = 256 * 1024, SMEM = 256 * 1024 };

enum Wait { RUN, AT_SYNC, AT_WARP, AT_FLAG, DONE };

struct Fiber {
    ucontext_t ctx;
    dim3 tid;
    int linear;       /* thread index in the block */
    Wait wait;
    unsigned mask;    /* AT_WARP: the lanes of the collective */
    unsigned long long slot; /* this lane's value in the current collective */
    const volatile unsigned long long *flag; /* AT_FLAG: the flagged word it waits for */
    int pred;
};

struct State {
    Fiber fibers[MAX_THREADS];
    char *stacks;
    int nthreads;
    Fiber *cur;
    ucontext_t sched;
    dim3 block, grid, bid;
    void (*body)(void **);
    void **args;
    bool reverse;  /* this block's threads run from the last to the first */
    const char *kernel;
};

inline State &S()
{
    static State s;
    return s;
}

inline void fail(const char *why)
{
    fprintf(stderr, "cuda_emu: %s\n", why);
    abort();
}

/* back to the scheduler until it resumes this fiber */
inline void yield() { swapcontext(&S().cur->ctx, &S().sched); }

inline void fiber_main()
{
    State &s = S();
    s.body(s.args);
    s.cur->wait = DONE;
    swapcontext(&s.cur->ctx, &s.sched);
}

inline int lane_of(const Fiber *f) { return f->linear & 31; }

/* Release what can go on: a block barrier when every live thread is at it (a thread
 * that has returned counts as arrived, as on sm_70+), a warp collective when every lane
 * of its mask is at one. Returns false when nothing runs and nothing can. */
inline bool release()
{
    State &s = S();
    int running = 0, at_sync = 0, live = 0;
    for (int i = 0; i < s.nthreads; i++) {
        Wait w = s.fibers[i].wait;
        if (w == RUN) running++;
        if (w != DONE) live++;
        if (w == AT_SYNC) at_sync++;
    }
    if (running) return true;
    if (!live) return false;
    bool any = false;
    /* a flag wait (lastBlock's last block reading a partial that a thread of its own
     * block has yet to store) goes on once the word has its flag */
    for (int i = 0; i < s.nthreads; i++)
        if (s.fibers[i].wait == AT_FLAG && *s.fibers[i].flag >> 32) {
            s.fibers[i].wait = RUN;
            any = true;
        }
    if (any) return true;
    for (int w0 = 0; w0 < s.nthreads; w0 += 32) {
        Fiber *f = &s.fibers[w0];
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
    if (any) return true;
    if (at_sync == live) {
        for (int i = 0; i < s.nthreads; i++)
            if (s.fibers[i].wait == AT_SYNC) s.fibers[i].wait = RUN;
        return true;
    }
    for (int i = 0; i < s.nthreads; i++)
        if (s.fibers[i].wait == AT_FLAG)
            fail("patc_wait: a flag that no block set or will set (the wait would not end)");
    fail("deadlock: threads wait at a block barrier and at warp collectives that cannot complete");
    return false;
}

/* one block: every thread a fiber, run in thread order until all are done */
inline void run_block()
{
    State &s = S();
    for (int i = 0; i < s.nthreads; i++) {
        Fiber *f = &s.fibers[i];
        f->linear = i;
        f->tid = dim3{(unsigned)i % s.block.x, (unsigned)i / s.block.x % s.block.y,
                      (unsigned)i / (s.block.x * s.block.y)};
        f->wait = RUN;
        getcontext(&f->ctx);
        f->ctx.uc_stack.ss_sp = s.stacks + (size_t)i * STACK;
        f->ctx.uc_stack.ss_size = STACK;
        f->ctx.uc_link = nullptr;
        makecontext(&f->ctx, fiber_main, 0);
    }
    while (release())
        for (int j = 0; j < s.nthreads; j++) {
            int i = s.reverse ? s.nthreads - 1 - j : j;
            if (s.fibers[i].wait == RUN) {
                s.cur = &s.fibers[i];
                swapcontext(&s.sched, &s.fibers[i].ctx);
            }
        }
}

/* lanes of the current collective, after all of mask arrived: their slots */
inline Fiber *warp_base() { return S().cur - lane_of(S().cur); }

inline void collective(unsigned mask, unsigned long long v, int pred)
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
inline void collective_end(unsigned mask)
{
    Fiber *f = S().cur;
    f->mask = mask;
    f->wait = AT_WARP;
    yield();
}

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

/* the dynamic shared memory (build.sh points the kernels' extern __shared__ array here) */
alignas(16) inline unsigned char smem[SMEM];

} // namespace emu

/* ---------------------------------------------------------------- what kernels see */

#define threadIdx (emu::S().cur->tid)
#define blockIdx (emu::S().bid)
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
inline void __nanosleep(unsigned) {}

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
static inline void patc_poke(unsigned long long *p, unsigned long long w) { *(volatile unsigned long long *)p = w; }
static inline unsigned int patc_peek32(const unsigned int *p) { return *(const volatile unsigned int *)p; }
static inline void patc_poke32(unsigned int *p, unsigned int w) { *(volatile unsigned int *)p = w; }
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
};

} // namespace emu

/* the kernels of the file, listed after it by build.sh: PATC_EMU_KERNEL(name) ... */
#define PATC_EMU_KERNELS_BEGIN static const emu::Entry patc_emu_table[] = {
#define PATC_EMU_KERNEL(k) {#k, [](void **a) { emu::call(&k, a); }},
#define PATC_EMU_KERNELS_END                                                                     \
    {nullptr, nullptr}};                                                                         \
    extern "C" int patc_emu_launch(const char *name, const unsigned grid[3], const unsigned block[3], \
                                   unsigned shared, void **args)                                 \
    {                                                                                            \
        return emu::launch(patc_emu_table, name, grid, block, shared, args);                     \
    }

namespace emu {

/* async-signal-safe: the message is built by hand and written with write(2) */
inline void put_num(char *&p, unsigned v)
{
    char d[12];
    int n = 0;
    do d[n++] = (char)('0' + v % 10); while ((v /= 10) && n < 11);
    while (n) *p++ = d[--n];
}
inline void on_fault(int sig)
{
    State &s = S();
    char buf[256], *p = buf;
    const char *a = "cuda_emu: invalid memory access in kernel ";
    while (*a) *p++ = *a++;
    for (const char *k = s.kernel ? s.kernel : "?"; *k && p < buf + 160; k++) *p++ = *k;
    a = ", block ";
    while (*a) *p++ = *a++;
    put_num(p, s.bid.x);
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
inline int launch(const Entry *table, const char *name, const unsigned grid[3], const unsigned block[3],
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
    if (!s.stacks && !(s.stacks = (char *)malloc((size_t)MAX_THREADS * STACK))) return -2;
    s.block = dim3{block[0], block[1], block[2]};
    s.grid = dim3{grid[0], grid[1], grid[2]};
    s.body = e->body;
    s.args = args;
    for (unsigned z = 0; z < grid[2]; z++)
        for (unsigned y = 0; y < grid[1]; y++)
            for (unsigned x = 0; x < grid[0]; x++) {
                s.bid = dim3{x, y, z};
                s.reverse = (x + y + z) & 1;
                /* shared memory starts with anything: not zero, so that a read before a write shows */
                memset(smem, 0x5a, shared);
                run_block();
            }
    return 0;
}

} // namespace emu

#endif
