#define PATC_INDEX32
#include "g.cu"
#include <cub/cub.cuh>
#include "timing.cuh"
#include <string>

__device__ __forceinline__ void csync() { asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory"); }
__device__ __forceinline__ unsigned crank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned cmap(unsigned sa, unsigned c) { unsigned r; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(sa), "r"(c)); return r; }
__device__ __forceinline__ void cst(unsigned a, unsigned v) { asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(a), "r"(v) : "memory"); }

// single block, 5-bit digits in lanes (as committed)
template <int NT, int IPT>
__global__ void __launch_bounds__(NT) wrs(unsigned *out, const unsigned *in, int n) {
    constexpr int NW = NT / 32, WT = 32 * IPT, TILE = NT * IPT, DB = 5;
    extern __shared__ unsigned sm[];
    unsigned *ks = sm, *cnt = sm + TILE;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const unsigned lt = (1u << lane) - 1;
    const int w0 = warp * WT;
    unsigned inv[DB];
#pragma unroll
    for (int i = 0; i < DB; i++) inv[i] = ((lane >> i) & 1) ? 0u : ~0u;
    unsigned key[IPT], vm[IPT];
#pragma unroll
    for (int r = 0; r < IPT; r++) {
        int p = w0 + r * 32 + lane, nv = n - (w0 + r * 32);
        vm[r] = nv >= 32 ? ~0u : nv <= 0 ? 0u : (1u << nv) - 1;
        key[r] = p < n ? in[p] : 0u;
    }
#pragma unroll
    for (int bit = 0; bit < 32; bit += DB) {
        const int b = 32 - bit < DB ? 32 - bit : DB;
        unsigned run = 0, runr[IPT], rk[IPT], dg[IPT];
#pragma unroll
        for (int r = 0; r < IPT; r++) {
            unsigned d = (key[r] >> bit) & ((1u << b) - 1);
            dg[r] = d;
            unsigned m = vm[r];
#pragma unroll
            for (int i = 0; i < DB; i++) if (i < b) { unsigned B = __ballot_sync(~0u, (int)(key[r] << (31 - bit - i)) < 0); m &= B ^ inv[i]; }
            runr[r] = run; run += __popc(m);
            rk[r] = __popc(__shfl_sync(~0u, m, d) & lt);
        }
        cnt[lane * (NW + 1) + warp] = lane < (1 << b) ? run : 0u;
        __syncthreads();
        unsigned tot = 0, pre = 0;
#pragma unroll
        for (int w = 0; w < NW; w++) { unsigned c = cnt[lane * (NW + 1) + w]; tot += c; pre += w < warp ? c : 0u; }
        unsigned inc = tot;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) { unsigned u = __shfl_up_sync(~0u, inc, o); if (lane >= o) inc += u; }
        const unsigned base = inc - tot + pre;
#pragma unroll
        for (int r = 0; r < IPT; r++) {
            unsigned pos = __shfl_sync(~0u, base + runr[r], dg[r]) + rk[r];
            if ((vm[r] >> lane) & 1) ks[pos] = key[r];
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < IPT; r++) key[r] = ks[w0 + r * 32 + lane];
    }
#pragma unroll
    for (int r = 0; r < IPT; r++) { int p = w0 + r * 32 + lane; if (p < n) out[p] = key[r]; }
}


// wrs with fewer ALU instructions a round: bit tests as AND masks, the shuffle's lane
// index the shifted key (the shuffle takes it modulo 32), the tile's validity folded in the
// first AND, the position's sum in one add after the shuffle
template <int NT, int IPT, bool FULLSPEC>
__global__ void __launch_bounds__(NT) wro(unsigned *out, const unsigned *in, int n) {
    constexpr int NW = NT / 32, WT = 32 * IPT, TILE = NT * IPT, DB = 5;
    extern __shared__ unsigned sm[];
    unsigned *ks = sm, *cnt = sm + TILE;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const unsigned lt = (1u << lane) - 1;
    const int w0 = warp * WT;
    unsigned inv[DB];
#pragma unroll
    for (int i = 0; i < DB; i++) inv[i] = ((lane >> i) & 1) ? 0u : ~0u;
    unsigned key[IPT], vm[IPT];
    const bool full = FULLSPEC && n >= TILE;
#pragma unroll
    for (int r = 0; r < IPT; r++) {
        int p = w0 + r * 32 + lane, nv = n - (w0 + r * 32);
        vm[r] = nv >= 32 ? ~0u : nv <= 0 ? 0u : (1u << nv) - 1;
        key[r] = p < n ? in[p] : 0u;
    }
#pragma unroll
    for (int bit = 0; bit < 32; bit += DB) {
        const int b = 32 - bit < DB ? 32 - bit : DB;
        unsigned run = 0, runr[IPT], rk[IPT], dg[IPT];
#pragma unroll
        for (int r = 0; r < IPT; r++) {
            const unsigned k = key[r];
            dg[r] = k >> bit;
            unsigned m = full ? ~0u : vm[r];
#pragma unroll
            for (int i = 0; i < DB; i++) if (i < b) { unsigned B = __ballot_sync(~0u, (k & (1u << (bit + i))) != 0u); m &= B ^ inv[i]; }
            runr[r] = run; run += __popc(m);
            rk[r] = __popc(__shfl_sync(~0u, m, dg[r]) & lt);
        }
        cnt[lane * (NW + 1) + warp] = lane < (1 << b) ? run : 0u;
        __syncthreads();
        unsigned tot = 0, pre = 0;
#pragma unroll
        for (int w = 0; w < NW; w++) { unsigned c = cnt[lane * (NW + 1) + w]; tot += c; pre += w < warp ? c : 0u; }
        unsigned inc = tot;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) { unsigned u = __shfl_up_sync(~0u, inc, o); if (lane >= o) inc += u; }
        const unsigned base = inc - tot + pre;
#pragma unroll
        for (int r = 0; r < IPT; r++) {
            unsigned pos = __shfl_sync(~0u, base + runr[r], dg[r]) + rk[r];
            if (full || ((vm[r] >> lane) & 1)) ks[pos] = key[r];
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < IPT; r++) key[r] = ks[w0 + r * 32 + lane];
    }
#pragma unroll
    for (int r = 0; r < IPT; r++) { int p = w0 + r * 32 + lane; if (p < n) out[p] = key[r]; }
}


// a warp's ballot of one bit of x, tested by an AND (one LOP3 to a predicate)
__device__ __forceinline__ unsigned bvote(unsigned x, unsigned mask) {
    unsigned r;
    asm volatile("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\tand.b32 t, %1, %2;\n\tsetp.ne.u32 p, t, 0;\n\tvote.sync.ballot.b32 %0, p, 0xffffffff;\n\t}" : "=r"(r) : "r"(x), "r"(mask));
    return r;
}
// wrs with fewer ALU instructions a round: bit tests as AND masks, the shuffle's lane
// index the shifted key (the shuffle takes it modulo 32), the tile's validity folded in the
// first AND, the position's sum in one add after the shuffle
template <int NT, int IPT, bool FULLSPEC>
__global__ void __launch_bounds__(NT) wrp(unsigned *out, const unsigned *in, int n) {
    constexpr int NW = NT / 32, WT = 32 * IPT, TILE = NT * IPT, DB = 5;
    extern __shared__ unsigned sm[];
    unsigned *ks = sm, *cnt = sm + TILE;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const unsigned lt = (1u << lane) - 1;
    const int w0 = warp * WT;
    unsigned inv[DB];
#pragma unroll
    for (int i = 0; i < DB; i++) inv[i] = ((lane >> i) & 1) ? 0u : ~0u;
    unsigned key[IPT], vm[IPT];
    const bool full = FULLSPEC && n >= TILE;
#pragma unroll
    for (int r = 0; r < IPT; r++) {
        int p = w0 + r * 32 + lane, nv = n - (w0 + r * 32);
        vm[r] = nv >= 32 ? ~0u : nv <= 0 ? 0u : (1u << nv) - 1;
        key[r] = p < n ? in[p] : 0u;
    }
#pragma unroll
    for (int bit = 0; bit < 32; bit += DB) {
        const int b = 32 - bit < DB ? 32 - bit : DB;
        unsigned run = 0, runr[IPT], rk[IPT], dg[IPT];
#pragma unroll
        for (int r = 0; r < IPT; r++) {
            const unsigned k = key[r];
            dg[r] = k >> bit;
            unsigned m = full ? ~0u : vm[r];
#pragma unroll
            for (int i = 0; i < DB; i++) if (i < b) { unsigned B = bvote(k, 1u << (bit + i)); m &= B ^ inv[i]; }
            runr[r] = run; run += __popc(m);
            rk[r] = __popc(__shfl_sync(~0u, m, dg[r]) & lt);
        }
        cnt[lane * (NW + 1) + warp] = lane < (1 << b) ? run : 0u;
        __syncthreads();
        unsigned tot = 0, pre = 0;
#pragma unroll
        for (int w = 0; w < NW; w++) { unsigned c = cnt[lane * (NW + 1) + w]; tot += c; pre += w < warp ? c : 0u; }
        unsigned inc = tot;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) { unsigned u = __shfl_up_sync(~0u, inc, o); if (lane >= o) inc += u; }
        const unsigned base = inc - tot + pre;
#pragma unroll
        for (int r = 0; r < IPT; r++) {
            unsigned pos = __shfl_sync(~0u, base + runr[r], dg[r]) + rk[r];
            if (full || ((vm[r] >> lane) & 1)) ks[pos] = key[r];
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < IPT; r++) key[r] = ks[w0 + r * 32 + lane];
    }
#pragma unroll
    for (int r = 0; r < IPT; r++) { int p = w0 + r * 32 + lane; if (p < n) out[p] = key[r]; }
}

struct Var { std::string name; int cap; std::function<void(unsigned *, const unsigned *, int, cudaStream_t)> run; };
template <int NT, int IPT> Var mks() {
    size_t sm = 4 * (NT * IPT + 32 * (NT / 32 + 1));
    CK(cudaFuncSetAttribute(wrs<NT, IPT>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
    char nm[64]; snprintf(nm, 64, "wrs%dx%d", NT, IPT);
    return {nm, NT * IPT, [sm](unsigned *o, const unsigned *i, int n, cudaStream_t s) { wrs<NT, IPT><<<1, NT, sm, s>>>(o, i, n); }};
}
template <int NT, int IPT, bool F> Var mkp() {
    size_t sm = 4 * (NT * IPT + 32 * (NT / 32 + 1));
    CK(cudaFuncSetAttribute(wrp<NT, IPT, F>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
    char nm[64]; snprintf(nm, 64, "wrp%s%dx%d", F ? "f" : "", NT, IPT);
    return {nm, NT * IPT, [sm](unsigned *o, const unsigned *i, int n, cudaStream_t s) { wrp<NT, IPT, F><<<1, NT, sm, s>>>(o, i, n); }};
}
template <int NT, int IPT, bool F> Var mko() {
    size_t sm = 4 * (NT * IPT + 32 * (NT / 32 + 1));
    CK(cudaFuncSetAttribute(wro<NT, IPT, F>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
    char nm[64]; snprintf(nm, 64, "wro%s%dx%d", F ? "f" : "", NT, IPT);
    return {nm, NT * IPT, [sm](unsigned *o, const unsigned *i, int n, cudaStream_t s) { wro<NT, IPT, F><<<1, NT, sm, s>>>(o, i, n); }};
}

int main(int argc, char **argv) {
    std::vector<long long> sizes = {1000, 1024, 2048, 4096, 4097, 4864, 5120};
    if (!sizes_from_args(argc, argv, 1, 1 << 20, sizes)) return 1;
    cudaDeviceProp pr; CK(cudaGetDeviceProperties(&pr, 0)); printf("# %s\n", pr.name);
    cudaStream_t s; CK(cudaStreamCreate(&s));
    HoldFlag hf; hf.init();
    std::vector<Var> vars;
    vars.push_back(mks<256, 4>()); vars.push_back(mks<256, 8>()); vars.push_back(mks<384, 11>()); vars.push_back(mks<512, 10>());
    vars.push_back(mko<256, 4, false>()); vars.push_back(mko<256, 8, false>()); vars.push_back(mko<384, 11, false>()); vars.push_back(mko<512, 10, false>());
    
    vars.push_back(mkp<256, 4, false>()); vars.push_back(mkp<256, 8, false>()); vars.push_back(mkp<384, 11, false>()); vars.push_back(mkp<512, 10, false>());
    vars.push_back(mkp<512, 8, false>()); vars.push_back(mkp<256, 16, false>()); vars.push_back(mkp<1024, 4, false>()); vars.push_back(mkp<384, 13, false>()); vars.push_back(mkp<256, 19, false>());
    CK(cudaFuncSetAttribute(sL, cudaFuncAttributeMaxDynamicSharedMemorySize, 18560));
    vars.push_back({"gen384x11", 4224, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { sL<<<1, 384, 18560, s>>>(o, i, n); }});
    long long maxn = sizes.back();
    unsigned *in, *o1, *o2; CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&o1, maxn * 4)); CK(cudaMalloc(&o2, maxn * 4));
    std::vector<unsigned> h(maxn), a(maxn), b(maxn);
    void *tmp = nullptr; size_t tbmax = 0;
    cub::DeviceRadixSort::SortKeys(nullptr, tbmax, in, o1, (int)maxn, 0, 32, s);
    CK(cudaMalloc(&tmp, tbmax + 1024));
    for (int kind = 0; kind < 2; kind++)
    for (long long n : sizes) {
        uint64_t st = 12345 + n;
        for (long long i = 0; i < n; i++) h[i] = kind == 0 ? (unsigned)splitmix64(st) : ((unsigned)splitmix64(st) & (unsigned)splitmix64(st) & (unsigned)splitmix64(st));
        CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
        std::vector<std::function<void()>> ops; std::vector<std::string> names;
        ops.push_back([&, n] { CK(cudaMemcpyAsync(o2, in, n * 4, cudaMemcpyDeviceToDevice, s)); }); names.push_back("copy");
        ops.push_back([&, n] { size_t t2 = tbmax; cub::DeviceRadixSort::SortKeys(tmp, t2, in, o1, (int)n, 0, 32, s); }); names.push_back("cub");
        CK(cudaMemsetAsync(o1, 0, n * 4, s)); ops[1](); CK(cudaMemcpy(a.data(), o1, n * 4, cudaMemcpyDeviceToHost));
        auto check = [&](const std::string &nm) {
            CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
            CK(cudaMemcpy(b.data(), o2, n * 4, cudaMemcpyDeviceToHost));
            for (long long i = 0; i < n; i++) if (a[i] != b[i]) { printf("FAIL %s n=%lld at %lld\n", nm.c_str(), n, i); return false; }
            return true;
        };
        for (auto &v : vars) if (n <= v.cap && n * 3 > v.cap) { auto f = v.run; ops.push_back([&, f, n] { f(o2, in, (int)n, s); }); names.push_back(v.name); }
        for (size_t k = 2; k < ops.size(); k++) { CK(cudaMemsetAsync(o2, 0, n * 4, s)); ops[k](); if (!check(names[k])) names[k] += "(FAIL)"; }
        std::vector<std::vector<float>> al, qu;
        time_interleaved(ops, s, hf, 20, 200, al, qu);
        for (size_t k = 0; k < ops.size(); k++)
            printf("%s n=%lld %-14s alone %7.2f queued %7.2f cub/this %.3f\n", kind ? "few" : "uni", n, names[k].c_str(), median_us(al[k]), median_us(qu[k]), median_us(al[1]) / median_us(al[k]));
    }
    return 0;
}
