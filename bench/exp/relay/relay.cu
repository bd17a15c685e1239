// relay.cu: a prototype of a single-pass look-back scan whose blocks do not hold a tile
// while its prefix is unknown (README.md). Not a patc feature: an experiment, f32
// inclusive sum, beside patc's generated inclSumF32, CUB and a copy in one process.
//
// The measurement it follows (bench/results/2026-11-23-nvidia-h200-ceiling): patc's scan
// blocks spend 42% of their time at 2^26-2^27 in the look-back, holding their tile in
// shared memory, waiting for predecessors that have not yet published; without the wait
// the kernel would be 1.17 times CUB's at 2^28.
//
// The relay: a persistent grid (SMs x resident blocks). Each block draws tiles from a
// counter. In a round it (R) loads the tile it drew, sums it in registers and publishes
// the sum (flag A; P for tile 0), and (S) finishes the tile it drew the round before:
// warp 0 looks back for that tile's exclusive prefix (by now its predecessors have
// mostly published: they were drawn before it, and have had a round), publishes its
// inclusive value (flag P), and the block re-reads the tile (from L2, read a round ago),
// scans it through shared memory and stores it. The input is read twice, the second
// time from L2 if it is still there; no block waits with a tile's data. ORDER 0 does R
// then S in a round; ORDER 1 issues R's loads, does S while they are in flight, then sums
// and publishes R (more loads in flight, but the sum published later).
//
//   relay [--check-small] [PATC_RISE]   (PATC_RISE: examples/scan_device.rise, to time
//                                        patc's inclSumF32 512x25 min-blocks 4 beside)
//   relay --one NAME N [PATC_RISE]      three launches of variant NAME (or patc_scan) at
//                                        n = N and nothing else, for a profiler
#include <cub/cub.cuh>
#include <cmath>
#include <cstring>
#include <string>
#include "patc.h"
#include "timing.cuh"
#include "../exp_util.cuh"

static cudaStream_t s;
static int g_sms;

static __device__ __forceinline__ unsigned long long peek(const unsigned long long *p) {
    unsigned long long w; asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory"); return w;
}
static __device__ __forceinline__ void poke(unsigned long long *p, unsigned long long w) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(w) : "memory");
}
// a tile's word: (epoch << 2 | flag) in the high half (flag 1: A, the tile's sum; 2: P, the
// inclusive prefix), the value's bits in the low half; a word of another epoch is unset
static __device__ __forceinline__ unsigned long long word(unsigned epoch, unsigned flag, float v) {
    return ((unsigned long long)((epoch << 2) | flag) << 32) | __float_as_uint(v);
}

// warp 0: the sum of tiles 0 .. p-1, from the words of a window of 32 predecessors at a
// time, each lane one tile, until a window holds a P (its newest P ends the sum)
static __device__ float look_back(const unsigned long long *state, long long p, unsigned epoch, int lane) {
    float ex = 0.0f;
    for (long long end = p - 1;; end -= 32) {
        const long long j = end - lane;
        unsigned st; float v;
        for (;;) {
            const unsigned long long w = j >= 0 ? peek(&state[j]) : 0ull;
            const unsigned hi = (unsigned)(w >> 32);
            v = __uint_as_float((unsigned)w);
            st = j < 0 ? 2u : (hi >> 2) == epoch ? (hi & 3u) : 0u;
            if (__all_sync(0xffffffffu, st != 0u)) break;
            __nanosleep(32);
        }
        const unsigned pm = __ballot_sync(0xffffffffu, st == 2u);
        if (j < 0 || (pm && lane > __ffs(pm) - 1)) v = 0.0f;
        for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
        ex += v;
        if (pm) return ex;
    }
}

// L2 eviction-priority hints (createpolicy + ld/st .L2::cache_hint): HINT 0 none; 1 R's
// loads evict_last, S's re-reads and the stores evict_first; 2 only S's re-reads and the
// stores evict_first; 3 R's loads evict_last and the stores evict_first
static __device__ __forceinline__ unsigned long long pol_last() {
    unsigned long long p; asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p)); return p;
}
static __device__ __forceinline__ unsigned long long pol_first() {
    unsigned long long p; asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p)); return p;
}
static __device__ __forceinline__ float ldh(const float *a, unsigned long long pol, bool hint) {
    if (!hint) return *a;
    float v; asm("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(a), "l"(pol)); return v;
}
static __device__ __forceinline__ void sth(float *a, float v, unsigned long long pol, bool hint) {
    if (!hint) { *a = v; return; }
    asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" :: "l"(a), "f"(v), "l"(pol) : "memory");
}

template <int NT, int IPT, int MINB, int ORDER, int HINT>
__global__ void __launch_bounds__(NT, MINB) relay(float *out, const float *in, long long n, long long tiles,
                                                  unsigned long long *state, unsigned long long *ctr,
                                                  unsigned long long base, unsigned epoch) {
    constexpr int TILE = NT * IPT, NW = NT / 32;
    constexpr bool HR = HINT == 1 || HINT == 3, HS = HINT == 1 || HINT == 2, HW = HINT != 0;
    const unsigned long long pl = HR ? pol_last() : 0ull, pf = HS || HW ? pol_first() : 0ull;
    __shared__ float s1[TILE];
    __shared__ float wsum[2][NW], wtot[NW], ex_s;
    __shared__ long long draw_s[2];
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    if (tid == 0) draw_s[0] = min((long long)(atomicAdd(ctr, 1ull) - base), tiles);
    __syncthreads();
    long long t = draw_s[0], prev = -1;
    float prev_sum = 0.0f;
    int par = 0;
    while (t < tiles || prev >= 0) {
        float x[IPT];
        const long long tb = t * TILE;
        // R, first half: the loads of tile t into registers
        if (t < tiles) {
            if (tb + TILE <= n) {
                #pragma unroll
                for (int i = 0; i < IPT; i++) x[i] = ldh(&in[tb + tid + NT * i], pl, HR);
            } else {
                #pragma unroll
                for (int i = 0; i < IPT; i++) x[i] = tb + tid + NT * i < n ? ldh(&in[tb + tid + NT * i], pl, HR) : 0.0f;
            }
        }
        float sum = 0.0f;
        // R, second half: the sum of tile t published (flag A, or P for tile 0); the next tile drawn
        auto reduce_publish = [&] {
            float ts = 0.0f;
            if (t < tiles) {
                #pragma unroll
                for (int i = 0; i < IPT; i++) ts += x[i];
            }
            for (int d = 16; d > 0; d >>= 1) ts += __shfl_xor_sync(0xffffffffu, ts, d);
            if (lane == 0) wsum[par][w] = ts;
            if (tid == 0) draw_s[par ^ 1] = t < tiles ? min((long long)(atomicAdd(ctr, 1ull) - base), tiles) : tiles;
            __syncthreads();
            #pragma unroll
            for (int q = 0; q < NW; q++) sum += wsum[par][q];
            if (tid == 0 && t < tiles) poke(&state[t], word(epoch, t == 0 ? 2u : 1u, sum));
        };
        // S: tile prev's prefix, re-read, scanned, stored
        auto finish_prev = [&] {
            if (w == 0) {
                const float ex = prev == 0 ? 0.0f : look_back(state, prev, epoch, lane);
                if (lane == 0) {
                    if (prev != 0) poke(&state[prev], word(epoch, 2u, ex + prev_sum));
                    ex_s = ex;
                }
            }
            const long long pb = prev * TILE;
            if (pb + TILE <= n) {
                #pragma unroll
                for (int i = 0; i < IPT; i++) s1[tid + NT * i] = ldh(&in[pb + tid + NT * i], pf, HS);
            } else {
                #pragma unroll
                for (int i = 0; i < IPT; i++) s1[tid + NT * i] = pb + tid + NT * i < n ? ldh(&in[pb + tid + NT * i], pf, HS) : 0.0f;
            }
            __syncthreads();
            float ts = 0.0f;
            #pragma unroll
            for (int j = 0; j < IPT; j++) ts += s1[IPT * tid + j];  // IPT odd: no bank conflicts
            float inc = ts;
            for (int d = 1; d < 32; d <<= 1) {
                const float o = __shfl_up_sync(0xffffffffu, inc, d);
                if (lane >= d) inc += o;
            }
            if (lane == 31) wtot[w] = inc;
            __syncthreads();
            float run = ex_s + inc - ts;
            for (int q = 0; q < w; q++) run += wtot[q];
            #pragma unroll
            for (int j = 0; j < IPT; j++) { run += s1[IPT * tid + j]; s1[IPT * tid + j] = run; }
            __syncthreads();
            if (pb + TILE <= n) {
                #pragma unroll
                for (int i = 0; i < IPT; i++) sth(&out[pb + tid + NT * i], s1[tid + NT * i], pf, HW);
            } else {
                #pragma unroll
                for (int i = 0; i < IPT; i++) if (pb + tid + NT * i < n) sth(&out[pb + tid + NT * i], s1[tid + NT * i], pf, HW);
            }
            __syncthreads();
        };
        if (ORDER == 0) reduce_publish();
        if (prev >= 0) finish_prev();
        if (ORDER == 1) reduce_publish();
        prev = t < tiles ? t : -1;
        prev_sum = sum;
        t = draw_s[par ^ 1];
        par ^= 1;
    }
}

struct Variant {
    std::string name;
    void (*launch)(dim3, float *, const float *, long long, long long, unsigned long long *, unsigned long long *,
                   unsigned long long, unsigned);
    int tile, grid_max;
    unsigned long long *state, *ctr, base = 0;
    unsigned epoch = 1;
    void run(float *o, const float *x, long long n) {
        const long long tiles = (n + tile - 1) / tile;
        const int g = (int)std::min<long long>(tiles, grid_max);
        launch(dim3(g), o, x, n, tiles, state, ctr, base, epoch);
        base += tiles + g;
        epoch = (epoch + 1) & 0x3fffffffu;
        if (!epoch) epoch = 1;
    }
};

template <int NT, int IPT, int MINB, int ORDER, int HINT>
static Variant make(long long maxn) {
    Variant v;
    auto k = relay<NT, IPT, MINB, ORDER, HINT>;
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, NT, 0));
    v.name = "R" + std::to_string(NT) + "x" + std::to_string(IPT) + "o" + std::to_string(ORDER) + "h" + std::to_string(HINT) + "b" + std::to_string(occ);
    v.tile = NT * IPT;
    v.grid_max = g_sms * occ;
    v.launch = [](dim3 g, float *o, const float *x, long long n, long long tiles, unsigned long long *st,
                  unsigned long long *c, unsigned long long b, unsigned e) {
        relay<NT, IPT, MINB, ORDER, HINT><<<g, NT, 0, s>>>(o, x, n, tiles, st, c, b, e);
    };
    CK(cudaMalloc(&v.state, ((maxn + v.tile - 1) / v.tile) * 8));
    CK(cudaMemset(v.state, 0, ((maxn + v.tile - 1) / v.tile) * 8));
    CK(cudaMalloc(&v.ctr, 8));
    CK(cudaMemset(v.ctr, 0, 8));
    return v;
}

int main(int argc, char **argv) {
    const bool small = argc > 1 && std::string(argv[1]) == "--check-small";
    const bool one = argc > 3 && std::string(argv[1]) == "--one";
    const char *rise = one ? (argc > 4 ? argv[4] : nullptr) : argc > 1 && !small ? argv[1] : nullptr;
    CK(cudaSetDevice(0));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    g_sms = p.multiProcessorCount;
    printf("device %s, %d SMs, L2 %d MiB\n", p.name, g_sms, p.l2CacheSize >> 20);
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const long long maxn = small ? 200000 : 1ll << 28;
    float *in, *out, *ref; unsigned long long *bad;
    CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&out, maxn * 4)); CK(cudaMalloc(&ref, maxn * 4)); CK(cudaMalloc(&bad, 8));
    fill<<<1024, 256, 0, s>>>((unsigned *)in, maxn, 0);
    void *tmp = nullptr; size_t tb = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, tb, in, out, (int)maxn, s));
    CK(cudaMalloc(&tmp, tb));
    auto cub_scan = [&](float *o, long long n) { size_t b = tb; CK(cub::DeviceScan::InclusiveSum(tmp, b, in, o, (int)n, s)); };

    std::vector<Variant> vs;
    // (the first run also had ORDER 1 at 256x17 and 256x25, 512x17 and 128x33: all slower)
    vs.push_back(make<256, 25, 6, 0, 0>(maxn));
    vs.push_back(make<256, 25, 6, 0, 1>(maxn));
    vs.push_back(make<256, 25, 6, 0, 2>(maxn));
    vs.push_back(make<256, 25, 6, 0, 3>(maxn));
    vs.push_back(make<256, 17, 8, 0, 0>(maxn));
    vs.push_back(make<256, 17, 8, 0, 1>(maxn));
    vs.push_back(make<256, 17, 8, 0, 3>(maxn));

    // patc's generated scan, launched through libpatrt as the benchmark does
    patc_ctx *ctx = nullptr; patc_kernel *kp = nullptr; patc_buffer *pin = nullptr, *pout = nullptr;
    if (rise) {
        if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
        patc_set_stream(ctx, s);
        patc_define d[2] = {{"nt", 512}, {"ipt", 25}};
        patc_compile_options o = {};
        o.kernel = "inclSumF32"; o.min_blocks = 4;
        patc_program *pr;
        if (patc_program_compile(ctx, rise, d, 2, &o, &pr) != PATC_OK || patc_get_kernel(pr, "inclSumF32", &kp) != PATC_OK ||
            patc_buffer_wrap(ctx, (unsigned long long)in, maxn * 4, &pin) != PATC_OK ||
            patc_buffer_wrap(ctx, (unsigned long long)out, maxn * 4, &pout) != PATC_OK) {
            printf("patc: %s\n", patc_last_error(ctx)); return 1;
        }
    }
    auto patc_run = [&](long long n) {
        patc_arg a[1] = {{pin, nullptr}};
        patc_buffer *ob[1] = {pout};
        if (patc_launch_args_enqueue(kp, &n, a, ob, nullptr) != PATC_OK) { printf("patc: %s\n", patc_last_error(ctx)); exit(1); }
    };
    for (auto &v : vs) printf("%-14s tile %d, grid at most %d\n", v.name.c_str(), v.tile, v.grid_max);
    if (one) {
        const long long n = atoll(argv[3]);
        for (int r = 0; r < 3; r++) {
            if (std::string(argv[2]) == "patc_scan" && kp) patc_run(n);
            else for (auto &v : vs) if (v.name == argv[2]) v.run(out, in, n);
        }
        CK(cudaStreamSynchronize(s));
        return 0;
    }

    int wrong = 0;
    auto count_bad = [&](const float *got, const float *want, long long n) {
        CK(cudaMemsetAsync(bad, 0, 8, s));
        differ<<<1024, 256, 0, s>>>((const unsigned *)got, (const unsigned *)want, n, 1e-3f, bad);
        unsigned long long h;
        CK(cudaMemcpyAsync(&h, bad, 8, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaGetLastError());
        return h;
    };
    std::vector<long long> checks = small ? std::vector<long long>{1, 31, 1000, 4097, 65536, 200000}
                                          : std::vector<long long>{1, 31, 1000, 4097, (1 << 20) + 7, (1 << 24) + 3, 1ll << 28};
    for (long long n : checks) {
        CK(cudaMemsetAsync(ref, 0xee, n * 4, s));
        cub_scan(ref, n);
        for (auto &v : vs) {
            CK(cudaMemsetAsync(out, 0xff, n * 4, s));
            v.run(out, in, n);
            CK(cudaGetLastError());
            const unsigned long long h = count_bad(out, ref, n);
            printf("check %-14s n=%-10lld %s\n", v.name.c_str(), n, h ? "WRONG" : "ok");
            wrong += h != 0;
        }
    }
    // 20 launches back to back at varying n, each into its own region, checked after
    {
        const long long nb = small ? 40000 : (1 << 22) + 5;
        long long ns[20], off[20], tot = 0;
        srand(7);
        for (int i = 0; i < 20; i++) {
            ns[i] = i == 0 ? 1 : i == 1 ? nb : 1 + (long long)(((double)rand() / RAND_MAX) * (nb - 1));
            off[i] = tot; tot += ns[i];
        }
        float *outs; CK(cudaMalloc(&outs, tot * 4));
        CK(cudaMemsetAsync(ref, 0xee, nb * 4, s));
        cub_scan(ref, nb);
        for (auto &v : vs) {
            CK(cudaMemsetAsync(outs, 0xff, tot * 4, s));
            for (int i = 0; i < 20; i++) v.run(outs + off[i], in, ns[i]);
            int b = 0;
            for (int i = 0; i < 20; i++) b += count_bad(outs + off[i], ref, ns[i]) != 0;
            printf("check %-14s 20 back-to-back launches: %s\n", v.name.c_str(), b ? "WRONG" : "ok");
            wrong += b;
        }
        CK(cudaFree(outs));
    }
    printf("%s\n", wrong ? "SOME RESULTS WRONG" : "all results match CUB");
    if (small || wrong) return wrong ? 1 : 0;

    HoldFlag hf; hf.init();
    const int WARM = 20, REPS = 200;
    for (long long n : {1ll << 20, 1ll << 22, 1ll << 24, 1ll << 26, 1ll << 28}) {
        std::vector<std::string> names = {"copy", "cub"};
        std::vector<std::function<void()>> ops = {
            [&, n] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice, s)); },
            [&, n] { cub_scan(out, n); }};
        if (kp) { names.push_back("patc_scan"); ops.push_back([&, n] { patc_run(n); }); }
        for (auto &v : vs) { names.push_back(v.name); ops.push_back([&v, n, in, out] { v.run(out, in, n); }); }
        std::vector<std::vector<float>> alone, queued;
        time_interleaved(ops, s, hf, WARM, REPS, alone, queued);
        const float c = median_us(alone[0]), cu = median_us(alone[1]);
        printf("n=%lld (median of %d interleaved rounds, us)\n  %-14s %9s %9s %8s %8s\n", n, REPS, "", "alone", "queued", "copy/x", "cub/x");
        for (size_t k = 0; k < ops.size(); k++) {
            const float a = median_us(alone[k]);
            printf("  %-14s %9.2f %9.2f %8.3f %8.3f\n", names[k].c_str(), a, median_us(queued[k]), c / a, cu / a);
        }
        fflush(stdout);
    }
    return 0;
}
