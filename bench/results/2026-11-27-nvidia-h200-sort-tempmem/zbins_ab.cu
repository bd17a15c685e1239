// zbins_ab.cu: one sorter, its sort of n keys timed with the histogram's bins in the
// counts (PATC_ZBELOW unset: below 2^20) and in scratch (PATC_ZBELOW=0), and with the
// bins in the counts but no memset (PATC_NOMEMSET: wrong results, timing only), the
// three interleaved round by round in one process (uncommitted hooks of rt_sort.c and
// rt_launch.c). Alone and queued medians, as bench/timing.cuh.
//   nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/zab bench/exp/zbins_ab.cu build/runtime/libpatrt.a -ldl -lm -lpthread
//   /tmp/zab TYPE(u32|u64) n...
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include "patc.h"
#include "timing.cuh"
static cudaStream_t s;
static float med(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main(int argc, char **argv)
{
    patc_ctx *ctx;
    if (patc_create(&ctx, 0, 0) != PATC_OK) return 1;
    patc_add_include_dir(ctx, "patterns");
    bool wide = !strcmp(argv[1], "u64");
    patc_sorter *so;
    if (patc_sorter_create(ctx, wide ? PATC_U64 : PATC_U32, &so) != PATC_OK) { printf("%s\n", patc_last_error(ctx)); return 1; }
    CK(cudaStreamCreate(&s));
    int *flag;
    CK(cudaHostAlloc(&flag, 4, cudaHostAllocMapped));
    for (int a = 2; a < argc; a++) {
        long long n = atoll(argv[a]);
        size_t kb = n * (wide ? 8 : 4);
        void *in, *out;
        CK(cudaMalloc(&in, kb));
        CK(cudaMalloc(&out, kb));
        std::vector<unsigned> h(kb / 4);
        uint64_t x = 7;
        for (auto &w : h) w = (unsigned)splitmix64(x);
        CK(cudaMemcpy(in, h.data(), kb, cudaMemcpyHostToDevice));
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        std::vector<float> al[3], qu[3];
        for (int r = 0; r < 230; r++)
            for (int v = 0; v < 3; v++) {
                if (v == 1) setenv("PATC_ZBELOW", "0", 1); else unsetenv("PATC_ZBELOW");
                if (v == 2) setenv("PATC_NOMEMSET", "1", 1); else unsetenv("PATC_NOMEMSET");
                for (int q = 0; q < 2; q++) {
                    if (q) { *flag = 0; hold<<<1, 1, 0, s>>>(flag); }
                    CK(cudaEventRecord(e0, s));
                    if (patc_sort_keys_ptr(so, (unsigned long long)in, (unsigned long long)out, n, s) != PATC_OK) { printf("%s\n", patc_last_error(ctx)); return 1; }
                    CK(cudaEventRecord(e1, s));
                    if (q) *flag = 1;
                    CK(cudaEventSynchronize(e1));
                    float ms;
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    if (r >= 30) (q ? qu : al)[v].push_back(ms * 1e3f);
                }
            }
        printf("%s n=%lld alone: z %.2f scratch %.2f z-nomemset %.2f | queued: z %.2f scratch %.2f z-nomemset %.2f\n", argv[1], n,
               med(al[0]), med(al[1]), med(al[2]), med(qu[0]), med(qu[1]), med(qu[2]));
        cudaFree(in);
        cudaFree(out);
    }
    return 0;
}
