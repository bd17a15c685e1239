// wselect.cu: the warp-specialised structure of wspec.cu's version 2 applied to the filter
// and the partition (README.md). Not a patc feature: an experiment, f32, predicate
// x > thr, beside CUB's DeviceSelect::If and DevicePartition::If and a copy in one process.
//
// Per tile, as in wspec2: a producer warp bulk-copies the tile into a ring slot; each of
// NWC compute warps takes its chunk of 32 x IPT items, flags them, numbers the selected
// ones with a warp scan of the lanes' counts and writes them compacted to the front of
// the chunk's own slot space (the partition also writes the rejected ones from the
// chunk's end backwards), then, once the chunk's offset is known, copies them out; an
// aggregator warp sums the chunks' counts and publishes the tile's count (A); a look-back
// warp finds the count of the earlier tiles and publishes P. The partition writes the
// rejected elements in reverse order from the end, as CUB's does; the count goes to *count.
//
//   wselect [--check-small]
#include <cub/cub.cuh>
#include <cstring>
#include <string>
#include "timing.cuh"
#include "../exp_util.cuh"
#include "wspec.cuh"

static cudaStream_t s;
static int g_sms;

template <int NWC, int IPT, int S, bool PART>
__global__ void __launch_bounds__((NWC + 3) * 32) wsel(float *__restrict__ out, int *count, const float *__restrict__ in,
                                                      long long n, float thr, long long tiles, unsigned long long *state,
                                                      unsigned long long *ctr, unsigned long long base, unsigned epoch) {
    static_assert(IPT % 4 == 0 && (IPT / 4) % 2 == 1 && IPT <= 32, "conflict-free 16-byte reads; a lane's flags in one word");
    constexpr int TILE = NWC * 32 * IPT, CH = 32 * IPT;
    extern __shared__ __align__(128) unsigned char smem[];
    const Hand<float, int> h = carve<float, int, NWC, S>(smem, TILE);  // own: the chunk's count of selected items
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    __syncthreads();
    if (warp == NWC + 2) {  // producer
        if (lane == 0) produce<float, TILE, S, 1>(h.ring, h.full, h.empty, h.tid, in, n, tiles, ctr, base, false, nullptr);
        return;
    }
    if (warp == NWC) { aggregate<float, int, NWC, S>(h, state, epoch, lane); return; }
    if (warp == NWC + 1) { look_backs<float, int, NWC, S, 1, 4>(h, 0, state, epoch, tiles, count, lane, nullptr); return; }

    // compute warp `warp`: its chunk of each tile is items warp * CH .. (warp + 1) * CH - 1
    auto valid = [&](long long t) { return (int)max(0ll, min((long long)CH, n - t * TILE - (long long)warp * CH)); };
    auto scan = [&](int sl, long long t) {
        const int vc = valid(t);
        float *chw = h.ring + sl * TILE + warp * CH;
        const float4 *ch = (const float4 *)chw;
        float x[IPT];
        #pragma unroll
        for (int q = 0; q < IPT / 4; q++) {
            const float4 v = ch[lane * (IPT / 4) + q];
            x[4 * q] = v.x; x[4 * q + 1] = v.y; x[4 * q + 2] = v.z; x[4 * q + 3] = v.w;
        }
        unsigned m = 0;
        #pragma unroll
        for (int i = 0; i < IPT; i++) m |= (unsigned)(lane * IPT + i < vc && x[i] > thr) << i;
        const int c = __popc(m);
        int inc = c;
        #pragma unroll
        for (int d = 1; d < 32; d <<= 1) { const int o = __shfl_up_sync(0xffffffffu, inc, d); if (lane >= d) inc += o; }
        __syncwarp();  // every lane has read its items: the chunk's space is free
        int p = inc - c;
        #pragma unroll
        for (int i = 0; i < IPT; i++) if (m >> i & 1u) chw[p++] = x[i];
        if (PART) {
            int q = min(lane * IPT, vc) - (inc - c);  // rejected items of the lanes before
            #pragma unroll
            for (int i = 0; i < IPT; i++) if (lane * IPT + i < vc && !(m >> i & 1u)) chw[CH - 1 - q++] = x[i];
        }
        if (lane == 31) h.own[sl * NWC + warp] = inc;
        __syncwarp();  // the compacted chunk and its count, before other lanes of this warp read them
        if (lane == 31) { h.wtot[sl * NWC + warp] = inc; mb_arrive(&h.tots[sl]); }
    };
    auto finish = [&](int sl, long long t) {
        const long long o = h.off[sl * NWC + warp];
        const int sc = h.own[sl * NWC + warp];
        const float *chw = h.ring + sl * TILE + warp * CH;
        for (int i = lane; i < sc; i += 32) out[o + i] = chw[i];
        if (PART) {
            const int r = valid(t) - sc;
            const long long rb = t * TILE + (long long)warp * CH - o;  // rejected items before this chunk
            float *dst = out + n - rb - r;
            for (int i = lane; i < r; i += 32) dst[i] = chw[CH - r + i];
        }
    };
    compute_loop<S>(h, lane, false, scan, finish);
}

struct Variant {
    std::string name;
    bool part;
    Draws d;
    void (*launch)(dim3, int, float *, int *, const float *, long long, float, long long, unsigned long long *,
                   unsigned long long *, unsigned long long, unsigned);
    void run(float *o, int *cnt, const float *x, long long n, float thr) {
        launch(dim3(d.grid(n)), d.smem, o, cnt, x, n, thr, d.tiles(n), d.state, d.ctr, d.base, d.epoch);
        d.advance(n);
    }
};

template <int NWC, int IPT, int S, bool PART>
static Variant make(long long maxn) {
    Variant v;
    constexpr int TILE = NWC * 32 * IPT, NT = (NWC + 3) * 32;
    v.d.init((const void *)wsel<NWC, IPT, S, PART>, NT, hand_bytes<float, int, NWC, S>(TILE), TILE, g_sms, maxn);
    v.part = PART;
    v.name = std::string(PART ? "wpart" : "wfilter") + std::to_string(NWC) + "w" + std::to_string(IPT) + "s" + std::to_string(S) +
             "b" + std::to_string(v.d.grid_max / g_sms);
    v.launch = [](dim3 g, int sm, float *o, int *c, const float *x, long long n, float thr, long long tiles,
                  unsigned long long *st, unsigned long long *ct, unsigned long long b, unsigned e) {
        wsel<NWC, IPT, S, PART><<<g, NT, sm, s>>>(o, c, x, n, thr, tiles, st, ct, b, e);
    };
    return v;
}

struct Gt {
    float t;
    __host__ __device__ bool operator()(float x) const { return x > t; }
};

int main(int argc, char **argv) {
    const bool small = argc > 1 && std::string(argv[1]) == "--check-small";
    g_sms = start_device(&s);
    const long long maxn = small ? 200000 : 1ll << 28;
    float *in, *out, *ref; int *cnt, *cref; unsigned long long *bad;
    CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&out, maxn * 4)); CK(cudaMalloc(&ref, maxn * 4));
    CK(cudaMalloc(&cnt, 4)); CK(cudaMalloc(&cref, 4)); CK(cudaMalloc(&bad, 8));
    fill<<<1024, 256, 0, s>>>((unsigned *)in, maxn, 0);
    void *tmp = nullptr; size_t tb = 0, tb2 = 0;
    CK(cub::DeviceSelect::If(nullptr, tb, in, out, cnt, (int)maxn, Gt{0.5f}, s));
    CK(cub::DevicePartition::If(nullptr, tb2, in, out, cnt, (int)maxn, Gt{0.5f}, s));
    tb = std::max(tb, tb2);
    CK(cudaMalloc(&tmp, tb));
    auto cub_run = [&](bool part, float *o, int *c, long long n, float thr) {
        size_t b = tb;
        if (part) CK(cub::DevicePartition::If(tmp, b, in, o, c, (int)n, Gt{thr}, s));
        else CK(cub::DeviceSelect::If(tmp, b, in, o, c, (int)n, Gt{thr}, s));
    };
    std::vector<Variant> vs;
    vs.push_back(make<16, 12, 9, false>(maxn));
    vs.push_back(make<16, 20, 5, false>(maxn));
    vs.push_back(make<16, 12, 9, true>(maxn));
    vs.push_back(make<16, 20, 5, true>(maxn));
    for (auto &v : vs) printf("%-18s tile %d, grid at most %d, %d bytes of shared memory\n", v.name.c_str(), v.d.tile, v.d.grid_max, v.d.smem);

    // the result against CUB's: the count, and the first count elements (filter) or all n (partition), word for word
    auto differs = [&](const Variant &v, const float *o, const int *c, long long n) -> bool {
        int h[2];
        CK(cudaMemcpyAsync(&h[0], c, 4, cudaMemcpyDeviceToHost, s));
        CK(cudaMemcpyAsync(&h[1], cref, 4, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        if (h[0] != h[1]) return true;
        const long long m = v.part ? n : h[1];
        if (m == 0) return false;
        CK(cudaMemsetAsync(bad, 0, 8, s));
        differ<<<1024, 256, 0, s>>>((const unsigned *)o, (const unsigned *)ref, m, 0.0f, bad);
        unsigned long long b;
        CK(cudaMemcpyAsync(&b, bad, 8, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaGetLastError());
        return b != 0;
    };
    int wrong = 0;
    std::vector<long long> checks = small ? std::vector<long long>{1, 31, 1000, 4097, 65536, 200000}
                                          : std::vector<long long>{1, 31, 33, 1000, 4097, (1 << 20) + 7, (1 << 24) + 3, 1ll << 28};
    for (long long n : checks)
        for (float thr : {0.99f, 0.5f, 0.01f, -1.0f, 2.0f})  // 1%, 50%, 99%, all, none
            for (auto &v : vs) {
                CK(cudaMemsetAsync(ref, 0xee, n * 4, s));
                cub_run(v.part, ref, cref, n, thr);
                CK(cudaMemsetAsync(out, 0xff, n * 4, s));
                CK(cudaMemsetAsync(cnt, 0xff, 4, s));
                v.run(out, cnt, in, n, thr);
                CK(cudaGetLastError());
                const bool d = differs(v, out, cnt, n);
                if (d || n == checks.back()) printf("check %-18s n=%-10lld thr=%-5g %s\n", v.name.c_str(), n, thr, d ? "WRONG" : "ok");
                wrong += d;
            }
    // 20 launches back to back at varying n on one stream, each checked after
    {
        const long long nb = small ? 40000 : (1 << 22) + 5;
        long long ns[20];
        srand(7);
        for (int i = 0; i < 20; i++) ns[i] = i == 0 ? 1 : i == 1 ? nb : 1 + (long long)(((double)rand() / RAND_MAX) * (nb - 1));
        float *outs; int *cnts;
        CK(cudaMalloc(&outs, 20 * nb * 4)); CK(cudaMalloc(&cnts, 20 * 4));
        for (auto &v : vs) {
            CK(cudaMemsetAsync(outs, 0xff, 20 * nb * 4, s));
            for (int i = 0; i < 20; i++) v.run(outs + i * nb, cnts + i, in, ns[i], 0.5f);
            int b = 0;
            for (int i = 0; i < 20; i++) {
                cub_run(v.part, ref, cref, ns[i], 0.5f);
                b += differs(v, outs + i * nb, cnts + i, ns[i]);
            }
            printf("check %-18s 20 back-to-back launches: %s\n", v.name.c_str(), b ? "WRONG" : "ok");
            wrong += b;
        }
        CK(cudaFree(outs)); CK(cudaFree(cnts));
    }
    printf("%s\n", wrong ? "SOME RESULTS WRONG" : "all results match CUB");
    if (small || wrong) return wrong ? 1 : 0;

    HoldFlag hf; hf.init();
    const int WARM = 20, REPS = 200;
    for (long long n : {1ll << 10, 1ll << 16, 1ll << 20, 1ll << 24, 1ll << 26, 1ll << 28})
        for (float thr : {0.99f, 0.5f, 0.01f}) {
            std::vector<std::string> names = {"copy", "cub_select", "cub_partition"};
            std::vector<int> kind = {0, 1, 2};
            std::vector<std::function<void()>> ops = {
                [&, n] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice, s)); },
                [&, n, thr] { cub_run(false, out, cnt, n, thr); }, [&, n, thr] { cub_run(true, out, cnt, n, thr); }};
            for (auto &v : vs) {
                names.push_back(v.name); kind.push_back(v.part ? 2 : 1);
                ops.push_back([&v, n, thr, in, out, cnt] { v.run(out, cnt, in, n, thr); });
            }
            std::vector<std::vector<float>> alone, queued;
            time_interleaved(ops, s, hf, WARM, REPS, alone, queued);
            const float c = median_us(alone[0]), cs = median_us(alone[1]), cp = median_us(alone[2]);
            printf("n=%lld selected %.0f%% (median of %d interleaved rounds, us; cub/x against CUB's select or partition)\n"
                   "  %-18s %9s %9s %8s %8s\n", n, (1.0f - thr) * 100.0f, REPS, "", "alone", "queued", "copy/x", "cub/x");
            for (size_t k = 0; k < ops.size(); k++) {
                const float a = median_us(alone[k]);
                printf("  %-18s %9.2f %9.2f %8.3f %8.3f\n", names[k].c_str(), a, median_us(queued[k]), c / a,
                       kind[k] == 0 ? cs / a : (kind[k] == 1 ? cs : cp) / a);
            }
        }
    return 0;
}
