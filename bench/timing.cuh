// timing.cuh: the timing method of scan_bench and select_bench, in one place. Every
// implementation is run WARM times, then REPS rounds, each round every implementation
// once (interleaved), with CUDA events on stream s:
//   alone:  events around one call on an idle stream (the host's launch cost included);
//   queued: the call enqueued behind `hold`, a kernel that keeps the stream busy until
//           the host has enqueued everything (GPU time only).
// Medians in microseconds.
#pragma once
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// spins until the host sets *flag (a mapped host word), at most about 2 s
__global__ void hold(volatile int *flag) {
    long long t0 = clock64();
    while (!*flag) { __nanosleep(200); if (clock64() - t0 > 4000000000ll) break; }
}

// The checks against CUB, word for word: bad[0] += the number of i < n with a[i] != b[i]; bad[1] = min such i
__global__ void differ_words(const unsigned *a, const unsigned *b, long long n, unsigned long long *bad) {
    unsigned long long c = 0, first = ~0ull;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        if (a[i] != b[i]) { c++; if ((unsigned long long)i < first) first = i; }
    if (c) { atomicAdd(&bad[0], c); atomicMin(&bad[1], first); }
}

// The benchmarks' inputs: splitmix64, one 64-bit word per call from the state x.
static inline uint64_t splitmix64(uint64_t &x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The sort benchmarks' 4-byte keys (sort_bench.cu, sort_kernels.cu), one a call from the
// state x: a random word; few: the AND of three (few unique values); f32 (not few):
// uniform in [0, 1) from 24 random bits, as its bits.
static inline uint32_t sort_key32(uint64_t &x, bool few, bool f32) {
    uint32_t w = (uint32_t)splitmix64(x);
    if (few) w &= (uint32_t)splitmix64(x) & (uint32_t)splitmix64(x);
    else if (f32) { float f = (float)(w >> 8) * (1.0f / 16777216.0f); memcpy(&w, &f, 4); }
    return w;
}

// The sizes named on the command line from argv[first] on, in place of the defaults in
// sizes (none named: the defaults), sorted; false (after a message) for one that is not
// an integer in 1..max
static inline bool sizes_from_args(int argc, char **argv, int first, long long max, std::vector<long long> &sizes) {
    if (first < argc) sizes.clear();
    for (int i = first; i < argc; i++) {
        char *e;
        long long n = strtoll(argv[i], &e, 10);
        if (*e || n < 1 || n > max) { printf("bad size %s (want 1..%lld)\n", argv[i], max); return false; }
        sizes.push_back(n);
    }
    std::sort(sizes.begin(), sizes.end());
    return true;
}

static inline float median_us(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2] * 1e3f; }

// the flag hold waits on: hflag on the host, dflag its device address
struct HoldFlag {
    int *hflag = nullptr, *dflag = nullptr;
    void init() { CK(cudaHostAlloc(&hflag, 4, cudaHostAllocMapped)); CK(cudaHostGetDevicePointer(&dflag, hflag, 0)); }
};

// alone[k][r] and queued[k][r]: round r of ops[k], in ms
static inline void time_interleaved(const std::vector<std::function<void()>> &ops, cudaStream_t s, const HoldFlag &hf,
                                    int warm, int reps, std::vector<std::vector<float>> &alone,
                                    std::vector<std::vector<float>> &queued) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    alone.assign(ops.size(), std::vector<float>(reps));
    queued = alone;
    for (int w = 0; w < warm; w++) for (auto &op : ops) op();
    CK(cudaStreamSynchronize(s));
    for (int r = 0; r < reps; r++)
        for (size_t k = 0; k < ops.size(); k++) {
            CK(cudaEventRecord(e0, s)); ops[k](); CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&alone[k][r], e0, e1));
            *(volatile int *)hf.hflag = 0;
            hold<<<1, 1, 0, s>>>(hf.dflag);
            CK(cudaEventRecord(e0, s)); ops[k](); CK(cudaEventRecord(e1, s));
            __sync_synchronize();
            *(volatile int *)hf.hflag = 1;
            CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&queued[k][r], e0, e1));
        }
    CK(cudaGetLastError());
    CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
}
