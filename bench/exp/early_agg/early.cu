// early.cu: patc's device scans as generated against gen.py's rewrite that publishes each
// tile's total right after its load (README.md), beside CUB and a copy, in one process.
// Not a patc feature: an experiment.
//   early SCAN_RISE CASES
// CASES: lines "KERNEL N NT IPT MIN_BLOCKS EVICT_FIRST EARLY_CU" (run.sh writes them from
// a tuning file). Both kernels of a line are checked against CUB (f32 relative 1e-3, i32
// exactly), then timed with bench/timing.cuh (20 warm-up rounds, 200 interleaved rounds,
// CUDA events, medians).
#include <cub/cub.cuh>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include "patc.h"
#include "timing.cuh"
#include "../exp_util.cuh"

static cudaStream_t s;
static patc_ctx *ctx;

int main(int argc, char **argv) {
    if (argc != 3) { printf("usage: early SCAN_RISE CASES\n"); return 2; }
    CK(cudaSetDevice(0));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    patc_set_stream(ctx, s);
    const long long maxn = 1ll << 28;
    unsigned *in, *out, *ref; unsigned long long *bad;
    CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&out, maxn * 4)); CK(cudaMalloc(&ref, maxn * 4)); CK(cudaMalloc(&bad, 8));
    patc_buffer *pin, *pout;
    PK(patc_buffer_wrap(ctx, (unsigned long long)in, maxn * 4, &pin));
    PK(patc_buffer_wrap(ctx, (unsigned long long)out, maxn * 4, &pout));
    void *tmp = nullptr; size_t tb = 0, t1 = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, t1, (float *)in, (float *)out, (int)maxn, s)); tb = std::max(tb, t1);
    CK(cub::DeviceScan::ExclusiveSum(nullptr, t1, (int *)in, (int *)out, (int)maxn, s)); tb = std::max(tb, t1);
    CK(cudaMalloc(&tmp, tb));
    HoldFlag hf; hf.init();
    int wrong = 0, filled = -1;
    std::ifstream cf(argv[2]);
    std::string line;
    while (std::getline(cf, line)) {
        std::istringstream ls(line);
        std::string kn, cu;
        long long n; int nt, ipt, mb, ef;
        if (!(ls >> kn >> n >> nt >> ipt >> mb >> ef >> cu)) continue;
        const bool excl = kn.rfind("excl", 0) == 0;
        const int ints = kn.find("I32") != std::string::npos;
        if (ints != filled) { fill<<<1024, 256, 0, s>>>(in, maxn, ints); filled = ints; }
        patc_kernel *kg = compile(ctx, argv[1], kn.c_str(), nt, ipt, mb, ef, nullptr);
        patc_kernel *ke = compile(ctx, argv[1], kn.c_str(), nt, ipt, mb, ef, cu.c_str());
        patc_arg a[1] = {{pin, nullptr}};
        patc_buffer *o[1] = {pout};
        auto cub = [&, n] {
            size_t b = tb;
            if (excl && ints) CK(cub::DeviceScan::ExclusiveSum(tmp, b, (int *)in, (int *)out, (int)n, s));
            else if (excl) CK(cub::DeviceScan::ExclusiveSum(tmp, b, (float *)in, (float *)out, (int)n, s));
            else if (ints) CK(cub::DeviceScan::InclusiveSum(tmp, b, (int *)in, (int *)out, (int)n, s));
            else CK(cub::DeviceScan::InclusiveSum(tmp, b, (float *)in, (float *)out, (int)n, s));
        };
        auto rg = [&, n] { PK(patc_launch_args_enqueue(kg, &n, a, o, nullptr)); };
        auto re = [&, n] { PK(patc_launch_args_enqueue(ke, &n, a, o, nullptr)); };
        for (int v = 0; v < 2; v++) {
            CK(cudaMemsetAsync(out, 0xee, n * 4, s)); cub(); CK(cudaMemcpyAsync(ref, out, n * 4, cudaMemcpyDeviceToDevice, s));
            CK(cudaMemsetAsync(out, 0xff, n * 4, s));
            if (v) re(); else rg();
            CK(cudaMemsetAsync(bad, 0, 8, s));
            differ<<<1024, 256, 0, s>>>(out, ref, n, ints ? 0.0f : 1e-3f, bad);
            unsigned long long h; CK(cudaMemcpyAsync(&h, bad, 8, cudaMemcpyDeviceToHost, s)); CK(cudaStreamSynchronize(s));
            if (h) { printf("check %s %s n=%lld: WRONG (%llu)\n", kn.c_str(), v ? "early" : "generated", n, h); wrong++; }
        }
        std::vector<std::function<void()>> ops = {[&, n] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice, s)); }, cub, rg, re};
        std::vector<std::vector<float>> al, qu;
        time_interleaved(ops, s, hf, 20, 200, al, qu);
        float m[4];
        for (int k = 0; k < 4; k++) m[k] = median_us(al[k]);
        printf("time %s n=%-10lld %dx%d mb%d%s  copy %8.2f cub %8.2f generated %8.2f early %8.2f | CUB/gen %.3f CUB/early %.3f gen/early %.3f\n",
               kn.c_str(), n, nt, ipt, mb, ef ? " ef" : "", m[0], m[1], m[2], m[3], m[1] / m[2], m[1] / m[3], m[2] / m[3]);
        fflush(stdout);
    }
    printf("%s\n", wrong ? "SOME RESULTS WRONG" : "all results match CUB");
    patc_destroy(ctx);
    return wrong ? 1 : 0;
}
