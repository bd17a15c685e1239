// sort_kernels.cu: the launches of one sort, for a profiler to time one by one. It runs
// patc's sort (patc_sort_keys / patc_sort_pairs) and CUB's DeviceRadixSort (SortKeys /
// SortPairs) of the same input REPS times each, alternating, on one stream, with nothing
// else launched in between, so that `ncu --metrics gpu__time_duration.sum` (with
// --clock-control none --cache-control none: the boost clock and warm caches, as in the
// timed sorts) lists each sort's kernels in order; bench/sort_kernels.sh runs it and sums
// the durations by kernel. Without a profiler it prints each sort's time by CUDA events
// (the median over REPS), to set beside the sum of its kernels.
//   sort_kernels [--root DIR] TYPE INPUT N [REPS]
// TYPE u32, f32 or f32+u32 (f32 keys, u32 values); INPUT uniform, few or sorted, made as
// sort_bench.cu makes them (the same seeds; sorted: the uniform keys sorted once by CUB);
// REPS default 3.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "patc.h"
#include "timing.cuh"

static patc_ctx *ctx;
#define PK(x) do { patc_status s_ = (x); if (s_ != PATC_OK) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, patc_last_error(ctx)); exit(1); } } while (0)

int main(int argc, char **argv) {
    std::string root = getenv("PATC_ROOT") ? getenv("PATC_ROOT") : ".";
    int a = 1;
    if (argc > 2 && strcmp(argv[1], "--root") == 0) { root = argv[2]; a = 3; }
    if (argc - a < 3) { fprintf(stderr, "usage: sort_kernels [--root DIR] u32|f32|f32+u32 uniform|few|sorted N [REPS]\n"); return 2; }
    std::string ty = argv[a], input = argv[a + 1];
    long long n = atoll(argv[a + 2]);
    int reps = argc - a > 3 ? atoi(argv[a + 3]) : 3;
    bool fl = ty != "u32", pairs = ty == "f32+u32", few = input == "few", sorted = input == "sorted";
    if ((ty != "u32" && ty != "f32" && !pairs) || (!few && !sorted && input != "uniform") || n < 1 || n > (1ll << 30) || reps < 1) {
        fprintf(stderr, "sort_kernels: bad arguments\n");
        return 2;
    }
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    PK(patc_add_include_dir(ctx, (root + "/patterns").c_str()));
    // sort_bench.cu's inputs: seed offset 0 for u32, 1 for f32 (and its pairs)
    uint64_t seed = 0x5EEDBA5Eull + (fl ? 1 : 0);
    std::vector<uint32_t> host(n), idx(n);
    for (long long i = 0; i < n; i++) {
        host[i] = sort_key32(seed, few, fl);
        idx[i] = (uint32_t)i;
    }
    void *kin, *kout, *kref, *vin, *vout, *vref, *tmp = nullptr;
    size_t tb = 0, bytes = (size_t)n * 4;
    CK(cudaMalloc(&kin, bytes)); CK(cudaMalloc(&kout, bytes)); CK(cudaMalloc(&kref, bytes));
    CK(cudaMalloc(&vin, bytes)); CK(cudaMalloc(&vout, bytes)); CK(cudaMalloc(&vref, bytes));
    CK(cudaMemcpy(kin, host.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(vin, idx.data(), bytes, cudaMemcpyHostToDevice));
    auto cub_sort = [&](void *t, size_t &b) {
        if (pairs)
            CK(cub::DeviceRadixSort::SortPairs(t, b, (const float *)kin, (float *)kref, (const unsigned *)vin,
                                               (unsigned *)vref, (int)n, 0, 32, s));
        else if (fl) CK(cub::DeviceRadixSort::SortKeys(t, b, (const float *)kin, (float *)kref, (int)n, 0, 32, s));
        else CK(cub::DeviceRadixSort::SortKeys(t, b, (const unsigned *)kin, (unsigned *)kref, (int)n, 0, 32, s));
    };
    cub_sort(nullptr, tb);
    CK(cudaMalloc(&tmp, tb));
    if (sorted) { // the keys sorted (values as made), the input of every sort below
        size_t b0 = tb;
        cub_sort(tmp, b0);
        CK(cudaMemcpyAsync(kin, kref, bytes, cudaMemcpyDeviceToDevice, s));
        CK(cudaStreamSynchronize(s));
    }
    patc_sorter *so;
    if (pairs) PK(patc_sorter_create_pairs(ctx, PATC_F32, PATC_U32, &so));
    else PK(patc_sorter_create(ctx, fl ? PATC_F32 : PATC_U32, &so));
    auto patc_sort = [&] {
        if (pairs)
            PK(patc_sort_pairs_ptr(so, (unsigned long long)kin, (unsigned long long)kout, (unsigned long long)vin,
                                   (unsigned long long)vout, n, s));
        else PK(patc_sort_keys_ptr(so, (unsigned long long)kin, (unsigned long long)kout, n, s));
    };
    // a first sort of each compiles and allocates; the check compares them word for word
    patc_sort();
    size_t b = tb;
    cub_sort(tmp, b);
    CK(cudaStreamSynchronize(s));
    std::vector<uint32_t> p(n), c(n);
    CK(cudaMemcpy(p.data(), kout, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(c.data(), kref, bytes, cudaMemcpyDeviceToHost));
    bool ok = p == c;
    if (pairs) {
        CK(cudaMemcpy(p.data(), vout, bytes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(c.data(), vref, bytes, cudaMemcpyDeviceToHost));
        ok = ok && p == c;
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    std::vector<float> tp, tc;
    for (int r = 0; r < reps; r++) {
        for (int w = 0; w < 2; w++) {
            float ms;
            CK(cudaEventRecord(e0, s));
            if (w == 0) patc_sort();
            else { b = tb; cub_sort(tmp, b); }
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            (w == 0 ? tp : tc).push_back(ms * 1000.0f);
        }
    }
    std::sort(tp.begin(), tp.end());
    std::sort(tc.begin(), tc.end());
    printf("%s %s n=%lld reps=%d  patc %.2f us  CUB %.2f us  (medians by events)  %s\n", ty.c_str(), input.c_str(), n,
           reps, tp[reps / 2], tc[reps / 2], ok ? "outputs equal" : "FAIL: outputs differ");
    patc_sorter_free(so);
    patc_destroy(ctx);
    return ok ? 0 : 1;
}
