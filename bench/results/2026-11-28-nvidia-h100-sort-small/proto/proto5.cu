#define PATC_INDEX32
#include "gen.cu"
#include <cub/cub.cuh>
#include "timing.cuh"
#include <string>

// counter ranking (per-thread 16-bit packed digit counters, raking scan), keys blocked in registers
template <int NT, int IPT, int RB>
__global__ void __launch_bounds__(NT) ctr(unsigned *out, const unsigned *in, int n) {
    constexpr int TILE = NT * IPT, LANES = (1 << RB) / 2, SEGP = LANES + 1, WORDS = NT * SEGP, NW = NT / 32;
    extern __shared__ unsigned sm[];
    unsigned *ks = sm, *cnt = sm + TILE, *wt = cnt + WORDS;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
#pragma unroll
    for (int i = 0; i < IPT; i++) { int p = i * NT + t; ks[p] = p < n ? in[p] : 0xffffffffu; }
    __syncthreads();
    unsigned key[IPT];
#pragma unroll
    for (int i = 0; i < IPT; i++) key[i] = ks[t * IPT + i];
    unsigned short *c16 = (unsigned short *)cnt;
    unsigned *seg = cnt + t * SEGP;
    for (int bit = 0; bit < 32; bit += RB) {
#pragma unroll
        for (int l = 0; l < LANES; l++) { int L = l * NT + t; cnt[L + L / LANES] = 0; }
        unsigned short pre[IPT]; int addr[IPT];
#pragma unroll
        for (int i = 0; i < IPT; i++) {
            unsigned d = (key[i] >> bit) & ((1u << RB) - 1);
            int l = d & (LANES - 1), h = d / LANES, L = l * NT + t;
            addr[i] = 2 * (L + L / LANES) + h;
            pre[i] = c16[addr[i]]; c16[addr[i]] = pre[i] + 1;
        }
        __syncthreads();
        unsigned s = 0;
#pragma unroll
        for (int j = 0; j < LANES; j++) s += seg[j];
        unsigned inc = s;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) { unsigned u = __shfl_up_sync(~0u, inc, o); if (lane >= o) inc += u; }
        if (lane == 31) wt[warp] = inc;
        __syncthreads();
        unsigned before = 0, total = 0;
#pragma unroll
        for (int w = 0; w < NW; w++) { unsigned v = wt[w]; if (w < warp) before += v; total += v; }
        unsigned ex = before + inc - s + ((total & 0xffffu) << 16);
#pragma unroll
        for (int j = 0; j < LANES; j++) { unsigned v = seg[j]; seg[j] = ex; ex += v; }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < IPT; i++) ks[c16[addr[i]] + pre[i]] = key[i];
        __syncthreads();
#pragma unroll
        for (int i = 0; i < IPT; i++) key[i] = ks[t * IPT + i];
    }
#pragma unroll
    for (int i = 0; i < IPT; i++) { int p = i * NT + t; if (p < n) out[p] = ks[p]; }
}
template <int NT, int IPT, int RB> size_t ctr_smem() { return 4 * (NT * IPT + NT * ((1 << RB) / 2 + 1) + NT / 32); }


// warp-register ranking: digit d (<= 5 bits) counted in lane d's register; a round's
// lane-d mask from the digit's bit ballots; two barriers a pass
template <int NT, int IPT, int DB>
__global__ void __launch_bounds__(NT) wr(unsigned *out, const unsigned *in, int n) {
    constexpr int NW = NT / 32, WT = 32 * IPT, TILE = NT * IPT;
    extern __shared__ unsigned sm[];
    unsigned *ks = sm, *cnt = sm + TILE;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const unsigned lt = (1u << lane) - 1;
    const int w0 = warp * WT;
    int nr = n - w0 <= 0 ? 0 : min(IPT, (n - w0 + 31) / 32);
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
            for (int i = 0; i < DB; i++) if (i < b) { unsigned B = __ballot_sync(~0u, (d >> i) & 1); m &= ((lane >> i) & 1) ? B : ~B; }
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
template <int NT, int IPT, int DB> size_t wr_smem() { return 4 * (NT * IPT + 32 * (NT / 32 + 1)); }
struct Var { std::string name; int cap; std::function<void(unsigned *, const unsigned *, int, cudaStream_t)> run; };
template <int NT, int IPT, int DB> Var mkw() {
    size_t sm = wr_smem<NT, IPT, DB>();
    CK(cudaFuncSetAttribute(wr<NT, IPT, DB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
    char nm[64]; snprintf(nm, 64, "wr%dx%d_d%d", NT, IPT, DB);
    return {nm, NT * IPT, [sm](unsigned *o, const unsigned *i, int n, cudaStream_t s) { wr<NT, IPT, DB><<<1, NT, sm, s>>>(o, i, n); }};
}
template <int NT, int IPT, int RB> Var mk() {
    size_t sm = ctr_smem<NT, IPT, RB>();
    CK(cudaFuncSetAttribute(ctr<NT, IPT, RB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
    char nm[64]; snprintf(nm, 64, "ctr%dx%d_r%d", NT, IPT, RB);
    return {nm, NT * IPT, [sm](unsigned *o, const unsigned *i, int n, cudaStream_t s) { ctr<NT, IPT, RB><<<1, NT, sm, s>>>(o, i, n); }};
}

int main(int argc, char **argv) {
    std::vector<long long> sizes = {31, 1000, 2048, 4096, 4097, 8192};
    if (!sizes_from_args(argc, argv, 1, 1 << 20, sizes)) return 1;
    cudaStream_t s; CK(cudaStreamCreate(&s));
    HoldFlag hf; hf.init();
    std::vector<Var> vars;
    vars.push_back(mk<256, 17, 5>()); vars.push_back(mk<512, 17, 5>());
    vars.push_back(mkw<256, 17, 5>()); vars.push_back(mkw<512, 9, 5>()); vars.push_back(mkw<1024, 5, 5>());
    vars.push_back(mkw<128, 33, 5>()); vars.push_back(mkw<256, 17, 4>()); vars.push_back(mkw<512, 9, 4>());
    vars.push_back(mkw<1024, 5, 4>()); vars.push_back(mkw<512, 16, 5>()); vars.push_back(mkw<1024, 8, 5>());
    vars.push_back(mkw<256, 32, 5>()); vars.push_back(mkw<256, 4, 5>()); vars.push_back(mkw<256, 8, 5>());
    vars.push_back(mkw<512, 4, 5>()); vars.push_back(mkw<384, 11, 5>()); vars.push_back(mkw<512, 17, 5>());
    vars.push_back(mkw<768, 11, 5>());
    CK(cudaFuncSetAttribute(sortSmall1, cudaFuncAttributeMaxDynamicSharedMemorySize, 82176));
    CK(cudaFuncSetAttribute(sortSmall2, cudaFuncAttributeMaxDynamicSharedMemorySize, 160000));
    long long maxn = sizes.back();
    unsigned *in, *o1, *o2; CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&o1, maxn * 4)); CK(cudaMalloc(&o2, maxn * 4));
    std::vector<unsigned> h(maxn), a(maxn), b(maxn);
    void *tmp = nullptr; size_t tb = 0, tbmax = 0;
    cub::DeviceRadixSort::SortKeys(nullptr, tbmax, in, o1, (int)maxn, 0, 32, s);
    CK(cudaMalloc(&tmp, tbmax + 1024));
    for (int kind = 0; kind < 2; kind++)
    for (long long n : sizes) {
        uint64_t st = 12345 + n;
        for (long long i = 0; i < n; i++) h[i] = kind == 0 ? (unsigned)splitmix64(st) : ((unsigned)splitmix64(st) & (unsigned)splitmix64(st) & (unsigned)splitmix64(st));
        CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
        tb = tbmax;
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
        if (n <= 4096) { ops.push_back([&, n] { sortSmall1<<<1, 1024, 82176, s>>>(o2, in, n); }); names.push_back("gen1024x4"); }
        if (n <= 8192) { ops.push_back([&, n] { sortSmall2<<<1, 1024, 160000, s>>>(o2, in, n); }); names.push_back("gen1024x8"); }
        for (auto &v : vars) if (n <= v.cap) { auto f = v.run; ops.push_back([&, f, n] { f(o2, in, (int)n, s); }); names.push_back(v.name); }
        for (size_t k = 2; k < ops.size(); k++) { CK(cudaMemsetAsync(o2, 0, n * 4, s)); ops[k](); if (!check(names[k])) names[k] += "(FAIL)"; }
        std::vector<std::vector<float>> al, qu;
        time_interleaved(ops, s, hf, 20, 200, al, qu);
        for (size_t k = 0; k < ops.size(); k++)
            printf("%s n=%lld %-14s alone %7.2f queued %7.2f cub/this %.3f\n", kind ? "few" : "uni", n, names[k].c_str(), median_us(al[k]), median_us(qu[k]), median_us(al[1]) / median_us(al[k]));
    }
    return 0;
}
