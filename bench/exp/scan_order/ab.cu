// ab.cu: two versions of examples/scan_device.rise (two trees, each with its
// patterns/scan.rise) timed against each other, CUB and a copy in one process (README.md).
// Not a patc feature: an experiment.
//   ab RISE_A RISE_B TUNING_FILE
// Each version runs through patc_scan (the C API's tuned scan) with the same tuning file,
// for inclSumF32 and exclSumI32; both are checked against CUB (f32 relative 1e-3, i32
// exactly) at every n, then timed with bench/timing.cuh (20 warm-up rounds, 200
// interleaved rounds, CUDA events, medians, alone and queued).
#include <cub/cub.cuh>
#include <cmath>
#include <string>
#include "patc.h"
#include "timing.cuh"
#include "../exp_util.cuh"

static cudaStream_t s;
static patc_ctx *ctx;

int main(int argc, char **argv) {
    if (argc != 4) { printf("usage: ab RISE_A RISE_B TUNING_FILE\n"); return 2; }
    CK(cudaSetDevice(0));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    printf("device %s, %d SMs\nA = %s\nB = %s\ntuning %s\n", p.name, p.multiProcessorCount, argv[1], argv[2], argv[3]);
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
    int wrong = 0;
    for (int ints = 0; ints < 2; ints++) {
        const char *kn = ints ? "exclSumI32" : "inclSumF32";
        fill<<<1024, 256, 0, s>>>(in, maxn, ints);
        patc_scan *sa, *sb;
        PK(patc_scan_create(ctx, argv[1], kn, argv[3], &sa));
        PK(patc_scan_create(ctx, argv[2], kn, argv[3], &sb));
        for (long long n : {1ll << 16, 1ll << 20, 1ll << 22, 1ll << 24, 30000001ll, 1ll << 26, 1ll << 28}) {
            auto cub = [&, n] {
                size_t b = tb;
                if (ints) CK(cub::DeviceScan::ExclusiveSum(tmp, b, (int *)in, (int *)out, (int)n, s));
                else CK(cub::DeviceScan::InclusiveSum(tmp, b, (float *)in, (float *)out, (int)n, s));
            };
            auto ra = [&, n] { PK(patc_scan_enqueue(sa, pin, pout, n, s)); };
            auto rb = [&, n] { PK(patc_scan_enqueue(sb, pin, pout, n, s)); };
            char da[160], db[160];
            PK(patc_scan_describe(sa, n, da, sizeof da)); PK(patc_scan_describe(sb, n, db, sizeof db));
            for (int v = 0; v < 2; v++) {
                CK(cudaMemsetAsync(out, 0xee, n * 4, s)); cub(); CK(cudaMemcpyAsync(ref, out, n * 4, cudaMemcpyDeviceToDevice, s));
                CK(cudaMemsetAsync(out, 0xff, n * 4, s)); if (v) rb(); else ra();
                CK(cudaMemsetAsync(bad, 0, 8, s));
                differ<<<1024, 256, 0, s>>>(out, ref, n, ints ? 0.0f : 1e-3f, bad);
                unsigned long long h; CK(cudaMemcpyAsync(&h, bad, 8, cudaMemcpyDeviceToHost, s)); CK(cudaStreamSynchronize(s));
                printf("check %s %c n=%lld (%s): %s\n", kn, 'A' + v, n, v ? db : da, h ? "WRONG" : "ok");
                wrong += h != 0;
            }
            std::vector<std::function<void()>> ops = {[&, n] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice, s)); }, cub, ra, rb};
            std::vector<std::vector<float>> al, qu;
            time_interleaved(ops, s, hf, 20, 200, al, qu);
            float m[4], q[4];
            for (int k = 0; k < 4; k++) { m[k] = median_us(al[k]); q[k] = median_us(qu[k]); }
            printf("time %s n=%-10lld alone copy %8.2f cub %8.2f A %8.2f B %8.2f | CUB/A %.3f CUB/B %.3f A/B %.3f | queued cub %8.2f A %8.2f B %8.2f\n",
                   kn, n, m[0], m[1], m[2], m[3], m[1] / m[2], m[1] / m[3], m[2] / m[3], q[1], q[2], q[3]);
            fflush(stdout);
        }
        patc_scan_free(sa); patc_scan_free(sb);
    }
    printf("%s\n", wrong ? "SOME RESULTS WRONG" : "all results match CUB");
    patc_destroy(ctx);
    return wrong ? 1 : 0;
}
