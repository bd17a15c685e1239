// wspec.cuh: the device helpers of the warp-specialised prototypes (wspec.cu, the scan;
// wselect.cu, the filter and partition): tile words with a launch epoch, mbarriers, the
// bulk copy, per-role cycle counters, and the look-back warp's rule. Not part of patc.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <type_traits>
#include "timing.cuh"

static __device__ __forceinline__ unsigned long long peek(const unsigned long long *p) {
    unsigned long long w; asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory"); return w;
}
static __device__ __forceinline__ void poke(unsigned long long *p, unsigned long long w) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(w) : "memory");
}
static __device__ __forceinline__ unsigned bits(float v) { return __float_as_uint(v); }
static __device__ __forceinline__ unsigned bits(int v) { return (unsigned)v; }
template <class T> static __device__ __forceinline__ T unbits(unsigned u);
template <> __device__ __forceinline__ float unbits<float>(unsigned u) { return __uint_as_float(u); }
template <> __device__ __forceinline__ int unbits<int>(unsigned u) { return (int)u; }
// a tile's word: (epoch << 2 | flag) in the high half (1: A, the tile's total; 2: P, its
// inclusive prefix), the value's bits in the low half; a word of another epoch is unset
template <class T> static __device__ __forceinline__ unsigned long long word(unsigned epoch, unsigned flag, T v) {
    return ((unsigned long long)((epoch << 2) | flag) << 32) | bits(v);
}

static __device__ __forceinline__ unsigned sa(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
static __device__ __forceinline__ void mb_init(unsigned long long *b, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sa(b)), "r"(count) : "memory");
}
static __device__ __forceinline__ void mb_arrive(unsigned long long *b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(sa(b)) : "memory");
}
static __device__ __forceinline__ void mb_expect(unsigned long long *b, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sa(b)), "r"(bytes) : "memory");
}
// waits until the phase of parity par has completed
static __device__ __forceinline__ void mb_wait(unsigned long long *b, unsigned par) {
    unsigned ok;
    do {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok) : "r"(sa(b)), "r"(par) : "memory");
    } while (!ok);
}
// whether the phase of parity par has completed, without waiting
static __device__ __forceinline__ bool mb_test(unsigned long long *b, unsigned par) {
    unsigned ok;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(sa(b)), "r"(par) : "memory");
    return ok;
}
// bytes (a multiple of 16) from src (16-byte aligned) into dst, completing on mbarrier b;
// with hint, the source lines are marked evict-first in L2
static __device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes, unsigned long long *b, bool hint) {
    if (hint) {
        unsigned long long pol;
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
                     :: "r"(sa(dst)), "l"(src), "r"(bytes), "r"(sa(b)), "l"(pol) : "memory");
    } else {
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(sa(dst)), "l"(src), "r"(bytes), "r"(sa(b)) : "memory");
    }
}
// ins, when not null, gathers clock64 cycles per role (INS_*), summed over blocks
enum { INS_FULL, INS_PREF, INS_EMPTY, INS_AGG, INS_LOOK, INS_ROUNDS, INS_BLOCK, INS_TILES, INS_N };
static __device__ __forceinline__ void ins_add(unsigned long long *ins, int i, long long v) {
    if (ins) atomicAdd(&ins[i], (unsigned long long)v);
}

template <class T> using V4 = typename std::conditional<std::is_same<T, float>::value, float4, int4>::type;

// A lane's row: the IPT items of src from 16-byte vector pos on (items from `valid` on
// read as 0), scanned in registers into x; v gets the warp's inclusive scan of the rows'
// totals at this lane, ex the same for the lanes before (0 at lane 0)
template <class T, int IPT>
static __device__ __forceinline__ void row_scan(const V4<T> *src, int pos, long long valid, T (&x)[IPT], T &v, T &ex, int lane) {
    #pragma unroll
    for (int q = 0; q < IPT / 4; q++) {
        const V4<T> u = src[pos + q];
        x[4 * q] = u.x; x[4 * q + 1] = u.y; x[4 * q + 2] = u.z; x[4 * q + 3] = u.w;
    }
    if (valid < 4ll * pos + IPT) {
        #pragma unroll
        for (int i = 0; i < IPT; i++) if (4ll * pos + i >= valid) x[i] = 0;
    }
    #pragma unroll
    for (int i = 1; i < IPT; i++) x[i] += x[i - 1];
    v = x[IPT - 1];
    #pragma unroll
    for (int d = 1; d < 32; d <<= 1) { const T o = __shfl_up_sync(0xffffffffu, v, d); if (lane >= d) v += o; }
    ex = __shfl_up_sync(0xffffffffu, v, 1);
    if (lane == 0) ex = 0;
}

// The look-back warp's rule: the sum of tiles 0 .. t-1 is the sum of the words of tiles
// stop+1 .. t-1 back to the newest P among them (included), or, if none is P, all of them
// plus p0, the inclusive prefix of tile stop (the block's own previous tile; 0 if stop is
// -1). Words are read U x 32 at a time, newest first; an unset word is read again.
template <class T, int U>
static __device__ T look_back(const unsigned long long *state, long long t, long long stop, T p0, unsigned epoch, int lane,
                              unsigned long long *ins) {
    T acc = 0;
    for (long long top = t - 1; top > stop; top -= 32 * U) {
        unsigned long long w[U];
        for (;;) {
            #pragma unroll
            for (int u = 0; u < U; u++) {
                const long long j = top - (u * 32 + lane);
                w[u] = j > stop ? peek(&state[j]) : 0ull;
            }
            bool unset = false;
            #pragma unroll
            for (int u = 0; u < U; u++)
                unset |= top - (u * 32 + lane) > stop && (unsigned)(w[u] >> 34) != epoch;
            ins_add(ins, INS_ROUNDS, 1);
            if (!__any_sync(0xffffffffu, unset)) break;
            __nanosleep(20);
        }
        unsigned near = 0xffffffffu;  // the smallest distance from top of a P in this lane's words
        #pragma unroll
        for (int u = 0; u < U; u++)
            if (top - (u * 32 + lane) > stop && ((unsigned)(w[u] >> 32) & 3u) == 2u) near = min(near, (unsigned)(u * 32 + lane));
        near = __reduce_min_sync(0xffffffffu, near);
        T v = 0;
        #pragma unroll
        for (int u = 0; u < U; u++)
            if (top - (u * 32 + lane) > stop && (unsigned)(u * 32 + lane) <= near) v += unbits<T>((unsigned)w[u]);
        for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
        acc += v;
        if (near != 0xffffffffu) return acc;
    }
    return acc + p0;
}


// The producer's rule (lane 0 of its warp): draw the next tile from the counter as soon
// as its slot is free, note its number in tid[slot] and bulk-copy it in (the last tile
// rounded up to 16 bytes: the buffers have room); when the tiles are used up, write -1
// into the next NL slots' numbers, one for each look-back warp, which waits for its own
// next slot. The full barriers count the copy's bytes and this one arrival.
template <class R, int TILE, int S, int NL>
static __device__ void produce(R *ring, unsigned long long *full, unsigned long long *empty, long long *tid,
                               const R *in, long long n, long long tiles, unsigned long long *ctr,
                               unsigned long long base, bool hint, unsigned long long *ins) {
    long long we = 0;
    for (int k = 0;; k++) {
        const int sl = k % S;
        if (k >= S) {
            const long long c = ins ? clock64() : 0;
            mb_wait(&empty[sl], ((k / S) - 1) & 1);
            if (ins) we += clock64() - c;
        }
        const long long t = (long long)(atomicAdd(ctr, 1ull) - base);
        if (t >= tiles) {
            for (int e = k; e < k + NL; e++) {
                if (e > k && e >= S) mb_wait(&empty[e % S], ((e / S) - 1) & 1);
                tid[e % S] = -1;
                mb_arrive(&full[e % S]);
            }
            ins_add(ins, INS_EMPTY, we); ins_add(ins, INS_TILES, k);
            return;
        }
        tid[sl] = t;
        const long long cnt = min((long long)TILE, n - t * TILE);
        const unsigned bytes = (unsigned)((cnt * (long long)sizeof(R) + 15) & ~15ll);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // after the slot's generic writes
        mb_expect(&full[sl], bytes);
        bulk_load(ring + sl * TILE, in + t * TILE, bytes, &full[sl], hint);
    }
}

// Version 2's shared memory: the ring of S slots of TILE items of R, the barriers, and the
// values handed between warps, of T. wtot: the chunks' totals (compute warps to the
// aggregator); woff: their offsets in the tile (aggregator to look-back); off: their
// offsets in the output (look-back to compute warps); own: a value per chunk that only
// its compute warp reads ([S][NWC] each). Each is handed over by the lane that wrote it
// arriving on the barrier its reader waits on (counts of NWC), so every handover is one
// release and one acquire (and racecheck sees it).
template <class R, class T> struct Hand {
    R *ring;
    unsigned long long *full, *empty, *aggb, *prefb, *tots;
    long long *tid;
    T *aggv, *wtot, *woff, *off, *own;
};
template <class R, class T, int NWC, int S> static __host__ __device__ constexpr int hand_bytes(int tile) {
    return S * tile * (int)sizeof(R) + 5 * S * 8 + S * 8 + (S + 4 * S * NWC) * (int)sizeof(T);
}
template <class R, class T, int NWC, int S> static __device__ Hand<R, T> carve(unsigned char *smem, int tile) {
    Hand<R, T> h;
    h.ring = (R *)smem;
    h.full = (unsigned long long *)(h.ring + S * tile);
    h.empty = h.full + S; h.aggb = h.empty + S; h.prefb = h.aggb + S; h.tots = h.prefb + S;
    h.tid = (long long *)(h.tots + S);
    h.aggv = (T *)(h.tid + S);
    h.wtot = h.aggv + S; h.woff = h.wtot + S * NWC; h.off = h.woff + S * NWC; h.own = h.off + S * NWC;
    if (threadIdx.x == 0)
        for (int i = 0; i < S; i++) {
            mb_init(&h.full[i], 1); mb_init(&h.empty[i], NWC); mb_init(&h.aggb[i], NWC);
            mb_init(&h.prefb[i], NWC); mb_init(&h.tots[i], NWC);
        }
    return h;
}

// The aggregator's rule: for each tile in slot order, the chunks' totals scanned into the
// chunks' offsets in the tile, and the tile's total published (flag A; P for tile 0)
template <class R, class T, int NWC, int S>
static __device__ void aggregate(const Hand<R, T> &h, unsigned long long *state, unsigned epoch, int lane) {
    for (int k = 0;; k++) {
        const int sl = k % S;
        mb_wait(&h.full[sl], (k / S) & 1);
        const long long t = h.tid[sl];
        if (t < 0) return;
        mb_wait(&h.tots[sl], (k / S) & 1);
        const T v = lane < NWC ? h.wtot[sl * NWC + lane] : T(0);
        T inc = v;
        #pragma unroll
        for (int d = 1; d < 32; d <<= 1) { const T o = __shfl_up_sync(0xffffffffu, inc, d); if (lane >= d) inc += o; }
        const T agg = __shfl_sync(0xffffffffu, inc, 31);
        if (lane == 0) { poke(&state[t], word(epoch, t == 0 ? 2u : 1u, agg)); h.aggv[sl] = agg; }
        if (lane < NWC) { h.woff[sl * NWC + lane] = inc - v; mb_arrive(&h.aggb[sl]); }
    }
}

// Look-back warp `first` of NL: for the tiles of slot iterations first, first + NL, ...,
// the exclusive prefix by look_back (stopping at this warp's previous tile), P published,
// and the chunks' offsets in the output handed to the compute warps; *total (unless null)
// gets the last tile's inclusive prefix
template <class R, class T, int NWC, int S, int NL, int U>
static __device__ void look_backs(const Hand<R, T> &h, int first, unsigned long long *state, unsigned epoch, long long tiles,
                                  T *total, int lane, unsigned long long *ins) {
    long long prev = -1, wa = 0, wl = 0;
    T prevp = 0;
    for (int k = first;; k += NL) {
        const int sl = k % S;
        mb_wait(&h.full[sl], (k / S) & 1);
        const long long t = h.tid[sl];
        if (t < 0) {
            if (lane == 0) { ins_add(ins, INS_AGG, wa); ins_add(ins, INS_LOOK, wl); }
            return;
        }
        const long long c = ins ? clock64() : 0;
        mb_wait(&h.aggb[sl], (k / S) & 1);
        const long long c1 = ins ? clock64() : 0;
        const T agg = h.aggv[sl];
        const T ex = t == 0 ? T(0) : look_back<T, U>(state, t, prev, prevp, epoch, lane, lane == 0 ? ins : nullptr);
        if (ins) { wa += c1 - c; wl += clock64() - c1; }
        if (lane == 0 && t != 0) poke(&state[t], word(epoch, 2u, ex + agg));
        if (lane == 0 && total && t == tiles - 1) *total = ex + agg;
        if (lane < NWC) { h.off[sl * NWC + lane] = ex + h.woff[sl * NWC + lane]; mb_arrive(&h.prefb[sl]); }
        prev = t; prevp = ex + agg;
    }
}

// A compute warp's rule in version 2: take whichever is ready, the next loaded tile
// (scan(slot, tile), which hands its chunk's total on) or the oldest scanned tile whose
// chunk offset is known (finish(slot, tile), then its slot freed), and never wait for
// either; at most S tiles are held. Returns the cycles it found nothing ready (if timed).
template <int S, class R, class T, class Scan, class Finish>
static __device__ long long compute_loop(const Hand<R, T> &h, int lane, bool timed, Scan scan, Finish finish) {
    long long idle = 0, since = -1;
    int next = 0, old = 0;
    bool done = false;
    for (;;) {
        if (timed && since >= 0) { idle += clock64() - since; since = -1; }
        if (!done && next - old < S && mb_test(&h.full[next % S], (next / S) & 1)) {
            const int sl = next % S;
            const long long t = h.tid[sl];
            if (t < 0) done = true;
            else { scan(sl, t); next++; }
            continue;
        }
        if (old < next && mb_test(&h.prefb[old % S], (old / S) & 1)) {
            const int sl = old % S;
            finish(sl, h.tid[sl]);
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // before the slot's next bulk copy
            __syncwarp();
            if (lane == 0) mb_arrive(&h.empty[sl]);
            old++;
            continue;
        }
        if (done && old == next) return idle;
        if (timed) since = clock64();
        __nanosleep(20);
    }
}

// device 0 and a non-blocking stream *st, stdout line-buffered (a run cut off by a
// timeout keeps what it printed), the device described; returns its SM count
static int start_device(cudaStream_t *st) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    if (cudaSetDevice(0) != cudaSuccess) { printf("no device\n"); exit(1); }
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess || cudaStreamCreateWithFlags(st, cudaStreamNonBlocking) != cudaSuccess) {
        printf("device set-up failed\n"); exit(1);
    }
    printf("device %s, %d SMs, L2 %d MiB\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20);
    return p.multiProcessorCount;
}

// The host's side of a persistent launch's tile drawing, for kernels of tiles of `tile`
// items on at most `grid_max` resident blocks (`smem` bytes of dynamic shared memory
// each): the tile words and the counter, allocated and zeroed once and never reset. A
// launch on n items runs on grid(tiles) blocks and takes (base, epoch); advance() moves
// them on by the tiles + grid tickets that launch draws (every block draws once past the
// end), and the epoch past the launch's tile words.
struct Draws {
    int tile = 0, grid_max = 0, smem = 0;
    unsigned long long *state = nullptr, *ctr = nullptr, base = 0;
    unsigned epoch = 1;
    // kernel k at nt threads: its shared-memory limit raised to smem, as many blocks as
    // fit on the device's sms SMs, words for the tiles of up to maxn items
    void init(const void *k, int nt, int smem_bytes, int tile_items, int sms, long long maxn) {
        tile = tile_items; smem = smem_bytes;
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        int occ = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, nt, smem));
        grid_max = sms * occ;
        const long long words = (maxn + tile - 1) / tile;
        CK(cudaMalloc(&state, words * 8)); CK(cudaMemset(state, 0, words * 8));
        CK(cudaMalloc(&ctr, 8)); CK(cudaMemset(ctr, 0, 8));
    }
    long long tiles(long long n) const { return (n + tile - 1) / tile; }
    int grid(long long n) const { return (int)std::min<long long>(tiles(n), grid_max); }
    void advance(long long n) {
        base += tiles(n) + grid(n);
        epoch = (epoch + 1) & 0x3fffffffu;
        if (!epoch) epoch = 1;
    }
};
