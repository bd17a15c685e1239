// wspec.cu: a prototype of a warp-specialised single-pass look-back scan (README.md). Not a
// patc feature: an experiment, inclusive sum of f32 and i32, beside patc's tuned scan
// (patc_scan), CUB and a copy in one process.
//
// What it follows: patc's scan and CUB's hold a tile in shared memory while their
// look-back waits for predecessors that have not yet published, and the SM has no room
// to load more meanwhile (bench/results/2026-11-23-nvidia-h200-ceiling: 1.17 of CUB at
// 2^28 without the wait). Here no warp that loads or scans waits for a look-back:
//   - a producer warp (one lane) draws tile numbers from a counter and copies each tile
//     into a ring of S shared-memory slots with cp.async.bulk (the TMA's 1-D copy),
//     completing an mbarrier per slot, as soon as a slot is free;
//   - NWC compute warps take the slots in order: each thread scans its IPT items in
//     registers, the warps' totals go through shared memory (one barrier of the compute
//     warps), the tile's total is published (flag A) and the in-tile prefixes are written
//     back into the slot; then they finish the tile D slots back: add its exclusive
//     prefix, store it to global memory, free the slot;
//   - a look-back warp takes the tiles in the same order and finds each one's exclusive
//     prefix: it reads U x 32 predecessors' words at a time, stops at the newest P, and
//     never reads past its own previous tile, whose inclusive prefix it computed itself.
// So the look-back has D tiles of slack before the compute warps need its result, and
// the producer keeps S - D - 1 or so tiles in flight while it waits. The grid is
// persistent (SMs x resident blocks). Tiles are drawn in launch order from a counter that
// is never reset (each launch draws tiles + grid tickets; the host keeps the base), and
// the tile words carry a launch epoch, so no launch resets any state.
//
//   wspec [--check-small] [PATC_RISE TUNING]   PATC_RISE TUNING: examples/scan_device.rise
//                                              and a tuning file, to time patc_scan beside
//   wspec --one NAME N                          three launches of variant NAME at n = N
#include <cub/cub.cuh>
#include <cstring>
#include <string>
#include "patc.h"
#include "timing.cuh"
#include "../exp_util.cuh"
#include "wspec.cuh"

static cudaStream_t s;
static int g_sms;

template <class T, int NWC, int IPT, int S, int D, int U, int HINT, int NL>
__global__ void __launch_bounds__((NWC + NL + 1) * 32) wspec(T *__restrict__ out, const T *__restrict__ in, long long n,
                                                        long long tiles, unsigned long long *state,
                                                        unsigned long long *ctr, unsigned long long base, unsigned epoch,
                                                        unsigned long long *ins) {
    static_assert(IPT % 4 == 0 && (IPT / 4) % 2 == 1, "IPT/4 odd: conflict-free 16-byte reads of a thread's items");
    static_assert(D >= 1 && S >= D + 2, "a slot to scan, D to finish, one loading at least");
    constexpr int TILE = NWC * 32 * IPT, NC = NWC * 32;
    extern __shared__ __align__(128) unsigned char smem[];
    T *ring = (T *)smem;
    unsigned long long *full = (unsigned long long *)(ring + S * TILE), *empty = full + S, *aggb = empty + S,
                       *prefb = aggb + S;
    long long *tid_s = (long long *)(prefb + S);
    T *aggv = (T *)(tid_s + S), *prefv = aggv + S, *wtot = prefv + S;  // wtot: [S][NWC]
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (threadIdx.x == 0) {
        for (int i = 0; i < S; i++) { mb_init(&full[i], 1); mb_init(&empty[i], NWC); mb_init(&aggb[i], 1); mb_init(&prefb[i], 1); }
    }
    __syncthreads();
    const long long c0 = ins ? clock64() : 0;

    if (warp == NWC + NL) {  // producer
        if (lane == 0) produce<T, TILE, S, NL>(ring, full, empty, tid_s, in, n, tiles, ctr, base, HINT != 0, ins);
        return;
    }

    if (warp >= NWC) {  // look-back warp warp - NWC, for the tiles of iterations warp - NWC + NL i
        long long prev = -1, wa = 0, wl = 0;
        T prevp = 0;
        for (int k = warp - NWC;; k += NL) {
            const int sl = k % S;
            mb_wait(&full[sl], (k / S) & 1);
            const long long t = tid_s[sl];
            if (t < 0) {
                if (lane == 0) { ins_add(ins, INS_AGG, wa); ins_add(ins, INS_LOOK, wl); }
                return;
            }
            const long long c = ins ? clock64() : 0;
            mb_wait(&aggb[sl], (k / S) & 1);
            const long long c1 = ins ? clock64() : 0;
            const T agg = aggv[sl];
            const T ex = t == 0 ? T(0) : look_back<T, U>(state, t, prev, prevp, epoch, lane, lane == 0 ? ins : nullptr);
            if (ins) { wa += c1 - c; wl += clock64() - c1; }
            if (lane == 0) {
                if (t != 0) poke(&state[t], word(epoch, 2u, ex + agg));
                prefv[sl] = ex;
                mb_arrive(&prefb[sl]);
            }
            prev = t; prevp = ex + agg;
        }
    }

    // compute warps
    const int ct = threadIdx.x;
    // finish the tile of iteration j: its exclusive prefix added, stored, its slot freed
    long long wf = 0, wp_ = 0;
    auto finish = [&](int j) {
        const int sl = j % S;
        const long long c = ins ? clock64() : 0;
        mb_wait(&prefb[sl], (j / S) & 1);
        if (ins) wp_ += clock64() - c;
        const T pf = prefv[sl];
        const long long t = tid_s[sl];
        const long long cnt = min((long long)TILE, n - t * TILE);
        const V4<T> *src = (const V4<T> *)(ring + sl * TILE);
        V4<T> *dst = (V4<T> *)(out + t * TILE);
        #pragma unroll
        for (int q = 0; q < IPT / 4; q++) {
            const int i4 = q * NC + ct;
            V4<T> v = src[i4];
            v.x += pf; v.y += pf; v.z += pf; v.w += pf;
            if (4 * i4 + 4 <= cnt) dst[i4] = v;
            else {
                T *o = out + t * TILE + 4 * i4;
                if (4 * i4 + 0 < cnt) o[0] = v.x;
                if (4 * i4 + 1 < cnt) o[1] = v.y;
                if (4 * i4 + 2 < cnt) o[2] = v.z;
            }
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // before the slot's next bulk copy
        __syncwarp();
        if (lane == 0) mb_arrive(&empty[sl]);
    };
    int k = 0;
    for (;; k++) {
        const int sl = k % S;
        const long long c = ins ? clock64() : 0;
        mb_wait(&full[sl], (k / S) & 1);
        if (ins) wf += clock64() - c;
        const long long t = tid_s[sl];
        if (t < 0) break;
        const long long cnt = min((long long)TILE, n - t * TILE);
        V4<T> *slot = (V4<T> *)(ring + sl * TILE);
        T x[IPT], v, ex;
        row_scan<T, IPT>(slot, ct * (IPT / 4), cnt, x, v, ex, lane);
        if (lane == 31) wtot[sl * NWC + warp] = v;
        asm volatile("bar.sync 1, %0;" :: "n"(NC) : "memory");
        T wp = 0, agg = 0;
        #pragma unroll
        for (int q = 0; q < NWC; q++) { const T u = wtot[sl * NWC + q]; if (q < warp) wp += u; agg += u; }
        if (ct == 0) {
            poke(&state[t], word(epoch, t == 0 ? 2u : 1u, agg));
            aggv[sl] = agg;
            mb_arrive(&aggb[sl]);
        }
        const T add = wp + ex;
        #pragma unroll
        for (int q = 0; q < IPT / 4; q++) {
            V4<T> o;
            o.x = x[4 * q] + add; o.y = x[4 * q + 1] + add; o.z = x[4 * q + 2] + add; o.w = x[4 * q + 3] + add;
            slot[ct * (IPT / 4) + q] = o;
        }
        if (k >= D) finish(k - D);
    }
    asm volatile("bar.sync 1, %0;" :: "n"(NC) : "memory");  // the last tiles' write-backs, before finish reads them
    for (int j = k - D < 0 ? 0 : k - D; j < k; j++) finish(j);
    if (ct == 0) { ins_add(ins, INS_FULL, wf); ins_add(ins, INS_PREF, wp_); ins_add(ins, INS_BLOCK, clock64() - c0); }
}

// Version 2: no compute warp ever waits for a prefix or for its sibling warps. Each
// compute warp scans its own chunk of 32 x IPT items of a tile (in-warp prefixes written
// back, the chunk's total to shared memory), and finishes a tile's chunk as soon as that
// tile's prefix is known; it takes whichever of the two is ready, newest loaded tile
// first. An aggregator warp (warp NWC) combines the chunk totals of each tile into the
// chunks' offsets and the tile's total and publishes A; NL look-back warps as in version
// 1; the producer last. Slots are freed when every compute warp has finished its chunk.
template <class T, int NWC, int IPT, int S, int D, int U, int HINT, int NL>
__global__ void __launch_bounds__((NWC + NL + 2) * 32) wspec2(T *__restrict__ out, const T *__restrict__ in, long long n,
                                                         long long tiles, unsigned long long *state,
                                                         unsigned long long *ctr, unsigned long long base, unsigned epoch,
                                                         unsigned long long *ins) {
    static_assert(IPT % 4 == 0 && (IPT / 4) % 2 == 1, "IPT/4 odd: conflict-free 16-byte reads of a thread's items");
    static_assert(NWC <= 32 && S >= 2, "one aggregator lane per compute warp");
    static_assert(D == 0, "version 2 finishes a tile when its offsets are known: no fixed lag D (make's names show d0)");
    constexpr int TILE = NWC * 32 * IPT, CH = 32 * IPT;
    extern __shared__ __align__(128) unsigned char smem[];
    const Hand<T, T> h = carve<T, T, NWC, S>(smem, TILE);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    __syncthreads();
    const long long c0 = ins ? clock64() : 0;
    if (warp == NWC + NL + 1) {  // producer
        if (lane == 0) produce<T, TILE, S, NL>(h.ring, h.full, h.empty, h.tid, in, n, tiles, ctr, base, HINT != 0, ins);
        return;
    }
    if (warp == NWC) { aggregate<T, T, NWC, S>(h, state, epoch, lane); return; }
    if (warp > NWC) { look_backs<T, T, NWC, S, NL, U>(h, warp - NWC - 1, state, epoch, tiles, nullptr, lane, ins); return; }

    // compute warp `warp`: its chunk of each tile is items warp * CH .. (warp + 1) * CH - 1
    auto scan = [&](int sl, long long t) {
        const long long cnt = min((long long)TILE, n - t * TILE) - (long long)warp * CH;  // this chunk's items
        V4<T> *ch = (V4<T> *)(h.ring + sl * TILE + warp * CH);
        T x[IPT], v, ex;
        row_scan<T, IPT>(ch, lane * (IPT / 4), cnt, x, v, ex, lane);
        #pragma unroll
        for (int q = 0; q < IPT / 4; q++) {
            V4<T> o;
            o.x = x[4 * q] + ex; o.y = x[4 * q + 1] + ex; o.z = x[4 * q + 2] + ex; o.w = x[4 * q + 3] + ex;
            ch[lane * (IPT / 4) + q] = o;
        }
        __syncwarp();  // the chunk's write-back, before other lanes read it to finish
        if (lane == 31) { h.wtot[sl * NWC + warp] = v; mb_arrive(&h.tots[sl]); }
    };
    auto finish = [&](int sl, long long t) {
        const T add = h.off[sl * NWC + warp];
        const long long cnt = min((long long)TILE, n - t * TILE) - (long long)warp * CH;
        const V4<T> *ch = (const V4<T> *)(h.ring + sl * TILE + warp * CH);
        V4<T> *dst = (V4<T> *)(out + t * TILE + warp * CH);
        #pragma unroll
        for (int q = 0; q < IPT / 4; q++) {
            const int i4 = q * 32 + lane;
            V4<T> v = ch[i4];
            v.x += add; v.y += add; v.z += add; v.w += add;
            if (4 * i4 + 4 <= cnt) dst[i4] = v;
            else {
                T *o = out + t * TILE + warp * CH + 4 * i4;
                if (4 * i4 + 0 < cnt) o[0] = v.x;
                if (4 * i4 + 1 < cnt) o[1] = v.y;
                if (4 * i4 + 2 < cnt) o[2] = v.z;
            }
        }
    };
    const long long idle = compute_loop<S>(h, lane, ins != nullptr, scan, finish);
    if (threadIdx.x == 0) { ins_add(ins, INS_FULL, idle); ins_add(ins, INS_BLOCK, clock64() - c0); }
}

struct Variant {
    std::string name;
    bool f32;
    Draws d;
    void (*launch)(dim3, int, void *, const void *, long long, long long, unsigned long long *, unsigned long long *,
                   unsigned long long, unsigned, unsigned long long *);
    unsigned long long *ins = nullptr;
    void run(void *o, const void *x, long long n) {
        launch(dim3(d.grid(n)), d.smem, o, x, n, d.tiles(n), d.state, d.ctr, d.base, d.epoch, ins);
        d.advance(n);
    }
};

template <class T, int NWC, int IPT, int S, int D, int U, int HINT, int NL = 1, int VER = 1>
static Variant make(long long maxn) {
    Variant v;
    auto k = [] { if constexpr (VER == 1) return wspec<T, NWC, IPT, S, D, U, HINT, NL>; else return wspec2<T, NWC, IPT, S, D, U, HINT, NL>; }();
    constexpr int NT = (NWC + NL + VER) * 32;
    constexpr int TILE = NWC * 32 * IPT;
    const int smem = VER == 1 ? S * TILE * (int)sizeof(T) + 4 * S * 8 + S * 8 + (2 * S + S * NWC) * (int)sizeof(T)
                              : hand_bytes<T, T, NWC, S>(TILE);
    v.d.init((const void *)k, NT, smem, TILE, g_sms, maxn);
    v.f32 = std::is_same<T, float>::value;
    v.name = std::string(VER == 1 ? "" : "v2") + std::string(v.f32 ? "f" : "i") + std::to_string(NWC) + "w" + std::to_string(IPT) + "s" + std::to_string(S) +
             "d" + std::to_string(D) + "u" + std::to_string(U) + "h" + std::to_string(HINT) + "l" + std::to_string(NL) + "b" + std::to_string(v.d.grid_max / g_sms);
    v.launch = [](dim3 g, int sm, void *o, const void *x, long long n, long long tiles, unsigned long long *st,
                  unsigned long long *c, unsigned long long b, unsigned e, unsigned long long *in_) {
        if constexpr (VER == 1) wspec<T, NWC, IPT, S, D, U, HINT, NL><<<g, NT, sm, s>>>((T *)o, (const T *)x, n, tiles, st, c, b, e, in_);
        else wspec2<T, NWC, IPT, S, D, U, HINT, NL><<<g, NT, sm, s>>>((T *)o, (const T *)x, n, tiles, st, c, b, e, in_);
    };
    return v;
}

int main(int argc, char **argv) {
    const bool small = argc > 1 && std::string(argv[1]) == "--check-small";
    const bool one = argc > 3 && std::string(argv[1]) == "--one";
    const char *rise = argc > 2 && argv[1][0] != '-' ? argv[1] : nullptr, *tuning = rise ? argv[2] : nullptr;
    g_sms = start_device(&s);
    const long long maxn = small ? 200000 : 1ll << 28;
    void *inf, *ini, *out, *ref; unsigned long long *bad;
    CK(cudaMalloc(&inf, maxn * 4)); CK(cudaMalloc(&ini, maxn * 4));
    CK(cudaMalloc(&out, maxn * 4)); CK(cudaMalloc(&ref, maxn * 4)); CK(cudaMalloc(&bad, 8));
    fill<<<1024, 256, 0, s>>>((unsigned *)inf, maxn, 0);
    fill<<<1024, 256, 0, s>>>((unsigned *)ini, maxn, 1);
    void *tmp = nullptr; size_t tb = 0, tb2 = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, tb, (float *)inf, (float *)out, (int)maxn, s));
    CK(cub::DeviceScan::InclusiveSum(nullptr, tb2, (int *)ini, (int *)out, (int)maxn, s));
    tb = std::max(tb, tb2);
    CK(cudaMalloc(&tmp, tb));
    auto cub_scan = [&](bool f32, void *o, long long n) {
        size_t b = tb;
        if (f32) CK(cub::DeviceScan::InclusiveSum(tmp, b, (const float *)inf, (float *)o, (int)n, s));
        else CK(cub::DeviceScan::InclusiveSum(tmp, b, (const int *)ini, (int *)o, (int)n, s));
    };

    std::vector<Variant> vs;
    // the earlier runs (run1.txt .. run3.txt) had more shapes of both versions, all slower
    vs.push_back(make<float, 16, 12, 8, 4, 4, 0, 2>(maxn));         // version 1, its best
    vs.push_back(make<float, 16, 12, 8, 0, 4, 0, 1, 2>(maxn));      // version 2
    vs.push_back(make<float, 16, 12, 9, 0, 4, 0, 1, 2>(maxn));
    vs.push_back(make<float, 16, 12, 8, 0, 4, 1, 1, 2>(maxn));
    vs.push_back(make<float, 16, 20, 5, 0, 4, 0, 1, 2>(maxn));
    vs.push_back(make<float, 24, 12, 5, 0, 4, 0, 1, 2>(maxn));
    vs.push_back(make<int, 16, 12, 8, 0, 4, 0, 1, 2>(maxn));
    vs.push_back(make<int, 16, 12, 9, 0, 4, 0, 1, 2>(maxn));

    if (const char *only = getenv("WSPEC_ONLY")) {  // keep the variants whose name holds this
        std::vector<Variant> keep;
        for (auto &v : vs) if (v.name.find(only) != std::string::npos) keep.push_back(v);
        vs.swap(keep);
    }
    // patc's tuned scans through the C API, as bench/scan_bench times them
    patc_ctx *ctx = nullptr; patc_scan *psf = nullptr, *psi = nullptr;
    patc_buffer *pinf = nullptr, *pini = nullptr, *pout = nullptr;
    if (rise) {
        if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
        PK(patc_scan_create(ctx, rise, "inclSumF32", tuning, &psf));
        PK(patc_scan_create(ctx, rise, "inclSumI32", tuning, &psi));
        PK(patc_buffer_wrap(ctx, (unsigned long long)inf, maxn * 4, &pinf));
        PK(patc_buffer_wrap(ctx, (unsigned long long)ini, maxn * 4, &pini));
        PK(patc_buffer_wrap(ctx, (unsigned long long)out, maxn * 4, &pout));
    }
    for (auto &v : vs) printf("%-20s tile %d, grid at most %d, %d bytes of shared memory\n", v.name.c_str(), v.d.tile, v.d.grid_max, v.d.smem);
    if (argc > 2 && std::string(argv[1]) == "--instr") {
        // each variant at n = argv[2]: three plain launches, then one that gathers cycles per role
        const long long n = atoll(argv[2]);
        int khz = 0; CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
        unsigned long long *ins; CK(cudaMalloc(&ins, INS_N * 8));
        printf("n=%lld, per block, us at %d MHz: block | compute waits: load, prefix | producer waits: slot | "
               "look-back warps: total, look-back | rounds/tile, tiles/block\n", n, khz / 1000);
        for (auto &v : vs) {
            for (int r = 0; r < 3; r++) v.run(out, v.f32 ? inf : ini, n);
            CK(cudaMemsetAsync(ins, 0, INS_N * 8, s));
            v.ins = ins; v.run(out, v.f32 ? inf : ini, n); v.ins = nullptr;
            unsigned long long h[INS_N];
            CK(cudaMemcpyAsync(h, ins, sizeof h, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            const long long tiles = v.d.tiles(n), g = v.d.grid(n);
            const double us = 1e3 / khz / g;
            printf("  %-20s %8.1f | %8.1f %8.1f | %8.1f | %8.1f %8.1f | %6.2f %6.1f\n", v.name.c_str(), h[INS_BLOCK] * us,
                   h[INS_FULL] * us, h[INS_PREF] * us, h[INS_EMPTY] * us, h[INS_AGG] * us, h[INS_LOOK] * us,
                   (double)h[INS_ROUNDS] / tiles, (double)h[INS_TILES] / g);
        }
        return 0;
    }
    if (one) {
        const long long n = atoll(argv[3]);
        for (int r = 0; r < 3; r++)
            for (auto &v : vs) if (v.name == argv[2]) v.run(out, v.f32 ? inf : ini, n);
        CK(cudaStreamSynchronize(s));
        return 0;
    }

    int wrong = 0;
    auto count_bad = [&](bool f32, const void *got, const void *want, long long n) {
        CK(cudaMemsetAsync(bad, 0, 8, s));
        differ<<<1024, 256, 0, s>>>((const unsigned *)got, (const unsigned *)want, n, f32 ? 1e-3f : 0.0f, bad);
        unsigned long long h;
        CK(cudaMemcpyAsync(&h, bad, 8, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaGetLastError());
        return h;
    };
    std::vector<long long> checks = small ? std::vector<long long>{1, 31, 1000, 4097, 65536, 200000}
                                          : std::vector<long long>{1, 31, 1000, 4097, (1 << 20) + 7, (1 << 24) + 3, 1ll << 28};
    for (long long n : checks)
        for (auto &v : vs) {
            CK(cudaMemsetAsync(ref, 0xee, n * 4, s));
            cub_scan(v.f32, ref, n);
            CK(cudaMemsetAsync(out, 0xff, n * 4, s));
            v.run(out, v.f32 ? inf : ini, n);
            CK(cudaGetLastError());
            const unsigned long long h = count_bad(v.f32, out, ref, n);
            printf("check %-20s n=%-10lld %s\n", v.name.c_str(), n, h ? "WRONG" : "ok");
            wrong += h != 0;
        }
    // 20 launches back to back at varying n, each into its own 16-byte aligned region, checked after
    {
        const long long nb = small ? 40000 : (1 << 22) + 5;
        long long ns[20], off[20], tot = 0;
        srand(7);
        for (int i = 0; i < 20; i++) {
            ns[i] = i == 0 ? 1 : i == 1 ? nb : 1 + (long long)(((double)rand() / RAND_MAX) * (nb - 1));
            off[i] = tot; tot += (ns[i] + 3) & ~3ll;
        }
        unsigned *outs; CK(cudaMalloc(&outs, tot * 4));
        for (auto &v : vs) {
            CK(cudaMemsetAsync(ref, 0xee, nb * 4, s));
            cub_scan(v.f32, ref, nb);
            CK(cudaMemsetAsync(outs, 0xff, tot * 4, s));
            for (int i = 0; i < 20; i++) v.run(outs + off[i], v.f32 ? inf : ini, ns[i]);
            int b = 0;
            for (int i = 0; i < 20; i++) b += count_bad(v.f32, outs + off[i], ref, ns[i]) != 0;
            printf("check %-20s 20 back-to-back launches: %s\n", v.name.c_str(), b ? "WRONG" : "ok");
            wrong += b;
        }
        CK(cudaFree(outs));
    }
    printf("%s\n", wrong ? "SOME RESULTS WRONG" : "all results match CUB");
    if (small || wrong) return wrong ? 1 : 0;

    HoldFlag hf; hf.init();
    const int WARM = 20, REPS = 200;
    for (long long n : {1ll << 10, 1ll << 16, 1ll << 20, 1ll << 22, 1ll << 24, 1ll << 26, 1ll << 28}) {
        std::vector<std::string> names = {"copy", "cub_f32", "cub_i32"};
        std::vector<bool> isf = {true, true, false};
        std::vector<std::function<void()>> ops = {
            [&, n] { CK(cudaMemcpyAsync(out, inf, n * 4, cudaMemcpyDeviceToDevice, s)); },
            [&, n] { cub_scan(true, out, n); }, [&, n] { cub_scan(false, out, n); }};
        if (psf) {
            names.push_back("patc_f32"); ops.push_back([&, n] { PK(patc_scan_enqueue(psf, pinf, pout, n, s)); });
            names.push_back("patc_i32"); ops.push_back([&, n] { PK(patc_scan_enqueue(psi, pini, pout, n, s)); });
            isf.push_back(true); isf.push_back(false);
        }
        for (auto &v : vs) { names.push_back(v.name); isf.push_back(v.f32); ops.push_back([&v, n, inf, ini, out] { v.run(out, v.f32 ? inf : ini, n); }); }
        std::vector<std::vector<float>> alone, queued;
        time_interleaved(ops, s, hf, WARM, REPS, alone, queued);
        const float c = median_us(alone[0]), cf = median_us(alone[1]), ci = median_us(alone[2]);
        printf("n=%lld (median of %d interleaved rounds, us; cub/x against CUB of the same type)\n  %-20s %9s %9s %8s %8s\n",
               n, REPS, "", "alone", "queued", "copy/x", "cub/x");
        for (size_t k = 0; k < ops.size(); k++) {
            const float a = median_us(alone[k]);
            printf("  %-20s %9.2f %9.2f %8.3f %8.3f\n", names[k].c_str(), a, median_us(queued[k]), c / a, (isf[k] ? cf : ci) / a);
        }
        fflush(stdout);
    }
    return 0;
}
