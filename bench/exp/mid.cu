// Experiment (bench/exp/mid.sh): where the single-launch grid reduction loses time at
// n = 2^16..2^22. Hand-written copies of the generated reduceSumF32 (same structure:
// EW elements per warp and chunk, one float4 per lane and 128 elements, warp shuffles,
// one warp over the warp sums) with one change each, timed interleaved with CUB and
// the generated kernel itself (GEN), alone and queued (see small.cu):
//   gen     the generated main phase: a grid-stride loop, then the tail chunk
//   hoist   every load of a thread issued before the first add (up to 4 chunks)
//   spinS   the hand-over, S = 0..4 (see red below)
// Findings: the header of mid.sh.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#ifdef GEN
#include "gen_mid.cuh"  // patc --emit-cuda --kernel reduceSumF32 -D elemsBlock=2048 -D elemsWarp=128 (mid.sh)
#endif

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void hold(volatile int *flag) {
    long long t0 = clock64();
    while (!*flag) { __nanosleep(200); if (clock64() - t0 > 4000000000ll) break; }
}
__global__ void empty_k() {}

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
// block sum over T threads, result valid in thread 0
template <int T> __device__ __forceinline__ float block_sum(float v, float *sm) {
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) sm[threadIdx.x >> 5] = v;
    __syncthreads();
    float r = 0.0f;
    if (threadIdx.x < 32) {
        r = threadIdx.x < T / 32 ? sm[threadIdx.x] : 0.0f;
        r = warp_sum(r);
    }
    return r;
}
__device__ __forceinline__ float sum4(float4 v) { return v.x + v.y + v.z + v.w; }
__device__ __forceinline__ float4 ld4(const float *xs, int idx, int n) {
    if (idx + 3 < n) return *(const float4 *)(xs + idx);
    float4 v;
    v.x = idx < n ? xs[idx] : 0.0f; v.y = idx + 1 < n ? xs[idx + 1] : 0.0f;
    v.z = idx + 2 < n ? xs[idx + 2] : 0.0f; v.w = idx + 3 < n ? xs[idx + 3] : 0.0f;
    return v;
}

// SPIN: 0 = the ticket after the writes (the generated code before the flagged words);
// 1 = block g-1 polls, other blocks return at once; 2 = the same after a barrier in every
// block; 3 = the block that drew the last ticket at its start polls (barrier, as in the
// generated code); 4 = 3 with the values staged in shared memory before the block sum
template <int EB, int EW, bool HOIST, int SPIN>
__global__ void __launch_bounds__(32 * EB / EW) red(float *out, const float *__restrict__ xs, float *partial,
                                                   unsigned long long *slots, unsigned *ticket, int n, int g) {
    constexpr int T = 32 * EB / EW, J = EW / 128;
    __shared__ float sm[32];
    __shared__ bool last;
    extern __shared__ float stage[];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, b = blockIdx.x;
    const int off = EB * b + EW * w + 4 * lane;
    unsigned tk = 0;
    if (SPIN >= 3 && threadIdx.x == 0 && g > 1) tk = atomicAdd(ticket, 1u);
    float acc = 0.0f;
    if (HOIST) {
        // chunks b, b+g, ...: 4 at a time, all loads first
        for (int base = 0; base < n; base += 4 * EB * g) {
            float4 v[4 * J];
#pragma unroll
            for (int c = 0; c < 4; c++)
#pragma unroll
                for (int j = 0; j < J; j++) v[c * J + j] = ld4(xs, base + EB * g * c + off + 128 * j, n);
#pragma unroll
            for (int k = 0; k < 4 * J; k++) acc += sum4(v[k]);
        }
    } else {
        const int full = n / (EB * g), rem = n % (EB * g);
#pragma unroll 4
        for (int i = 0; i < full; i++)
#pragma unroll
            for (int j = 0; j < J; j++) acc += sum4(*(const float4 *)(xs + EB * g * i + off + 128 * j));
#pragma unroll
        for (int j = 0; j < J; j++) acc += sum4(ld4(xs + EB * g * full, off + 128 * j, rem));
    }
    float s = block_sum<T>(acc, sm);
    if (SPIN) {
        if (threadIdx.x == 0) {
            unsigned long long word = (1ull << 32) | __float_as_uint(s);
            asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(slots + b), "l"(word) : "memory");
        }
        if (SPIN == 1 && b != g - 1) return;
        if (SPIN >= 3 && threadIdx.x == 0) { last = tk == (unsigned)g - 1; if (last && g > 1) *ticket = 0; }
        __syncthreads();
        if (SPIN == 2 && b != g - 1) return;
        if (SPIN >= 3 && !last) return;
        float a = 0.0f;
        for (int i = threadIdx.x; i < g; i += T) {
            unsigned long long word;
            do {
                asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(word) : "l"(slots + i) : "memory");
            } while ((word >> 32) == 0);
            if (SPIN == 4) stage[i] = __uint_as_float((unsigned)word);
            else a += __uint_as_float((unsigned)word);
            slots[i] = 0;
        }
        __syncthreads();  // sm reuse, stage
        if (SPIN == 4)
            for (int i = threadIdx.x; i < g; i += T) a += stage[i];
        a = block_sum<T>(a, sm);
        if (threadIdx.x == 0) *out = a;
    } else {
        if (threadIdx.x == 0) partial[b] = s;
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned t = 0;
            if (g > 1) asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(t) : "l"(ticket) : "memory");
            last = t == (unsigned)g - 1;
        }
        __syncthreads();
        if (!last) return;
        float a = 0.0f;
        for (int i = threadIdx.x; i < g; i += T) a += __ldcg(partial + i);
        a = block_sum<T>(a, sm);
        if (threadIdx.x == 0) { *out = a; *ticket = 0; }
    }
}

static cudaStream_t s;
static cudaEvent_t e0, e1;
static int *hflag, *dflag;
static float med(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2] * 1e3f; }

struct Op { std::string name; std::function<void()> f; std::vector<float> a, q; };

// every rep times each op once, in turn (alone), then once more queued
static void time_all(long long n, std::vector<Op> &ops, const std::function<void(const char *)> &check) {
    const int reps = 400;
    for (auto &o : ops) { for (int i = 0; i < 30; i++) o.f(); CK(cudaStreamSynchronize(s)); check(o.name.c_str()); o.a.resize(reps); o.q.resize(reps); }
    for (int i = 0; i < reps; i++)
        for (auto &o : ops) {
            CK(cudaEventRecord(e0, s)); o.f(); CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&o.a[i], e0, e1));
            *(volatile int *)hflag = 0;
            hold<<<1, 1, 0, s>>>(dflag);
            CK(cudaEventRecord(e0, s)); o.f(); CK(cudaEventRecord(e1, s));
            __sync_synchronize();
            *(volatile int *)hflag = 1;
            CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&o.q[i], e0, e1));
        }
    CK(cudaGetLastError());
    for (auto &o : ops) printf("n=%-9lld %-28s alone %7.2f us  queued %7.2f us\n", n, o.name.c_str(), med(o.a), med(o.q));
    fflush(stdout);
}

int main(int argc, char **argv) {
    std::vector<long long> sizes = {1 << 16, 1 << 18, 1 << 20, 1 << 22};
    if (argc > 1) { sizes.clear(); for (int i = 1; i < argc; i++) sizes.push_back(atoll(argv[i])); }
    CK(cudaSetDevice(0));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    const int sms = p.multiProcessorCount;
    printf("device %s, %d SMs\n", p.name, sms);
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    CK(cudaHostAlloc(&hflag, 4, cudaHostAllocMapped)); CK(cudaHostGetDevicePointer(&dflag, hflag, 0));
    const long long maxn = 1 << 22;
    std::vector<float> h(maxn);
    srand(7); for (auto &x : h) x = (float)(rand() & 0xffff) / 65536.0f;
    float *d, *out, *part; unsigned *ticket; unsigned long long *slots;
    CK(cudaMalloc(&d, maxn * 4)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&part, 1 << 16));
    CK(cudaMalloc(&ticket, 64)); CK(cudaMalloc(&slots, 1 << 16));
    CK(cudaMemset(ticket, 0, 64)); CK(cudaMemset(slots, 0, 1 << 16));
    CK(cudaMemcpy(d, h.data(), maxn * 4, cudaMemcpyHostToDevice));
    void *tmp = nullptr; size_t tb = 0;
    CK(cub::DeviceReduce::Sum(tmp, tb, d, out, (int)maxn, s)); CK(cudaMalloc(&tmp, tb));
    for (long long n : sizes) {
        auto check = [&](const char *name) {
            if (!strncmp(name, "empty", 5)) return;
            double r = 0; for (long long i = 0; i < n; i++) r += h[i];
            float gv; CK(cudaMemcpy(&gv, out, 4, cudaMemcpyDeviceToHost));
            if (fabs(gv - r) > 1e-4 * r + 1e-3) printf("  WRONG %s n=%lld got %f want %f\n", name, n, gv, r);
        };
        std::vector<Op> ops;
        ops.push_back({"empty<<<264,512>>>", [&] { empty_k<<<264, 512, 0, s>>>(); }});
        ops.push_back({"cub", [&] { size_t t = tb; cub::DeviceReduce::Sum(tmp, t, d, out, (int)n, s); }});
#define V(EB, EW, H, SP, BPS) { int g = (int)std::min<long long>((long long)BPS * sms, (n + EB - 1) / EB); \
        char nm[64]; snprintf(nm, sizeof nm, "%s+spin%d %d/%d g=%d", H ? "hoist" : "gen", SP, EB, EW, g); \
        ops.push_back({nm, [=] { red<EB, EW, H, SP><<<g, 32 * EB / EW, 4 * g, s>>>(out, d, part, slots, ticket, (int)n, g); }}); }
        V(2048, 128, false, 0, 2) V(2048, 128, false, 1, 2) V(2048, 128, false, 2, 2) V(2048, 128, false, 3, 2)
        V(2048, 128, false, 4, 2) V(2048, 128, true, 1, 2) V(2048, 128, true, 4, 2)
#ifdef GEN
        { int g = (int)std::min<long long>(2LL * sms, (n + 2047) / 2048);
          char nm[64]; snprintf(nm, sizeof nm, "patc reduceSumF32 2048/128 g=%d", g);
          ops.push_back({nm, [=] { reduceSumF32<<<g, 512, 64, s>>>(out, d, slots, (int)n, g); }}); }
#endif
        time_all(n, ops, check);
    }
    return 0;
}
