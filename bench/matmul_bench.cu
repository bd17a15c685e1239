// matmul_bench: patc's examples/matmul_tiled.rise (both kernels: matmulShared, with shared
// tiles, and matmulTiled, without) through libpatrt beside cuBLAS SGEMM, in one process and
// stream, on square f32 row-major matrices: S = 1024, 2048, 4096 by default (multiples of
// 64, as the example needs). Timed as the scan and select benchmarks are (timing.cuh): 3
// warm-up rounds, then 20 rounds of the three interleaved, CUDA events around each call on
// an idle stream ("alone"); the median gives GFLOP/s = 2 S^3 / time. Each result is
// compared with cuBLAS's (largest relative difference), so that a wrong kernel is not
// reported as fast.
//   matmul_bench --rise examples/matmul_tiled.rise [--out DIR] [S ...]
// Writes DIR/matmul.csv (impl,S,median_ms,gflops) when --out is given.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "patc.h"
#include "timing.cuh"

#define CKB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d: cuBLAS error %d: %s\n", __FILE__, __LINE__, (int)s_, #x); exit(3); } } while (0)
#define CKP(ctx, x) do { patc_status s_ = (x); if (s_ != PATC_OK) { \
    fprintf(stderr, "%s:%d: patc error %s: %s\n", __FILE__, __LINE__, #x, patc_last_error(ctx)); exit(3); } } while (0)

static const int WARMUP = 3, REPS = 20;

// the largest relative difference of got from want (1.0 when any is not finite)
static double worst_diff(const std::vector<float> &got, const std::vector<float> &want)
{
    double worst = 0;
    for (size_t i = 0; i < got.size(); i++) {
        double d = std::fabs((double)got[i] - want[i]) / std::max(1.0, std::fabs((double)want[i]));
        if (!std::isfinite(d)) return 1.0; /* a NaN would pass std::max unseen */
        if (d > worst) worst = d;
    }
    return worst;
}

int main(int argc, char **argv)
{
    std::string rise = "examples/matmul_tiled.rise", out;
    std::vector<long long> sizes;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--rise" && i + 1 < argc) rise = argv[++i];
        else if (a == "--out" && i + 1 < argc) out = argv[++i];
        else sizes.push_back(atoll(argv[i]));
    }
    if (sizes.empty()) sizes = {1024, 2048, 4096};
    for (long long s : sizes)
        if (s < 64 || s % 64) { fprintf(stderr, "matmul_bench: %lld is not a multiple of 64\n", s); return 2; }
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    cublasHandle_t h;
    CKB(cublasCreate(&h));
    CKB(cublasSetStream(h, st));
    patc_ctx *pctx = nullptr;
    CKP(pctx, patc_create(&pctx, 0, 0));
    CKP(pctx, patc_device_status(pctx));
    patc_set_stream(pctx, (void *)st);
    HoldFlag hf;
    hf.init();
    FILE *csv = out.empty() ? nullptr : fopen((out + "/matmul.csv").c_str(), "w");
    if (csv) fprintf(csv, "impl,S,median_ms,gflops\n");
    printf("%-8s %-8s %12s %10s\n", "impl", "S", "median ms", "GFLOP/s");
    for (long long S : sizes) {
        size_t bytes = (size_t)(S * S) * sizeof(float);
        std::vector<float> ha((size_t)(S * S)), hb((size_t)(S * S)), hc((size_t)(S * S)), hs((size_t)(S * S)),
            hr((size_t)(S * S));
        srand(1);
        for (auto &x : ha) x = (float)rand() / RAND_MAX - 0.5f;
        for (auto &x : hb) x = (float)rand() / RAND_MAX - 0.5f;
        float *da, *db, *dc, *ds, *dr;
        CK(cudaMalloc(&da, bytes)); CK(cudaMalloc(&db, bytes)); CK(cudaMalloc(&dc, bytes)); CK(cudaMalloc(&ds, bytes));
        CK(cudaMalloc(&dr, bytes));
        CK(cudaMemcpy(da, ha.data(), bytes, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, hb.data(), bytes, cudaMemcpyHostToDevice));

        // patc: the example specialised to this size (m = n = S/64, k = S, kt = S/16)
        patc_define defs[4] = {{"m", S / 64}, {"n", S / 64}, {"k", S}, {"kt", S / 16}};
        patc_program *prog = nullptr;
        patc_kernel *kt = nullptr, *ks = nullptr;
        CKP(pctx, patc_program_from_file(pctx, rise.c_str(), defs, 4, &prog));
        CKP(pctx, patc_get_kernel(prog, "matmulTiled", &kt));
        CKP(pctx, patc_get_kernel(prog, "matmulShared", &ks));
        patc_buffer *in[2], *pc, *ps;
        CKP(pctx, patc_buffer_wrap(pctx, (unsigned long long)da, bytes, &in[0]));
        CKP(pctx, patc_buffer_wrap(pctx, (unsigned long long)db, bytes, &in[1]));
        CKP(pctx, patc_buffer_wrap(pctx, (unsigned long long)dc, bytes, &pc));
        CKP(pctx, patc_buffer_wrap(pctx, (unsigned long long)ds, bytes, &ps));
        patc_arg args[2] = {{in[0], nullptr}, {in[1], nullptr}};

        // cuBLAS: row-major C = A B is column-major C^T = B^T A^T
        const float one = 1.0f, zero = 0.0f;
        int n = (int)S;
        std::vector<std::function<void()>> ops = {
            [&] { CKP(pctx, patc_launch_args_enqueue(ks, nullptr, args, &ps, nullptr)); },
            [&] { CKP(pctx, patc_launch_args_enqueue(kt, nullptr, args, &pc, nullptr)); },
            [&] { CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, db, n, da, n, &zero, dr, n)); },
        };
        std::vector<std::vector<float>> alone, queued;
        time_interleaved(ops, st, hf, WARMUP, REPS, alone, queued);
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(hc.data(), dc, bytes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hs.data(), ds, bytes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hr.data(), dr, bytes, cudaMemcpyDeviceToHost));
        double wt = worst_diff(hc, hr), ws = worst_diff(hs, hr);
        printf("  C[0] = %.9g / %.9g (cuBLAS %.9g), C[last] = %.9g / %.9g (cuBLAS %.9g)\n", hs[0], hc[0], hr[0],
               hs.back(), hc.back(), hr.back());
        double flop = 2.0 * (double)S * S * S;
        const char *names[3] = {"shared", "tiled", "cublas"};
        for (int i = 0; i < 3; i++) {
            double ms = median_us(alone[i]) / 1e3;
            printf("%-8s %-8lld %12.4f %10.1f\n", names[i], S, ms, flop / (ms * 1e6));
            if (csv) fprintf(csv, "%s,%lld,%.6f,%.3f\n", names[i], S, ms, flop / (ms * 1e6));
        }
        printf("  largest relative difference vs cuBLAS: matmulShared %.3g%s, matmulTiled %.3g%s\n", ws,
               ws > 1e-3 ? "  (WRONG)" : "", wt, wt > 1e-3 ? "  (WRONG)" : "");
        double worst = std::max(ws, wt);
        patc_buffer_free(in[0]); patc_buffer_free(in[1]); patc_buffer_free(pc); patc_buffer_free(ps);
        patc_program_free(prog);
        CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dc)); CK(cudaFree(ds)); CK(cudaFree(dr));
        if (worst > 1e-3) return 1;
    }
    if (csv) fclose(csv);
    cublasDestroy(h);
    patc_destroy(pctx);
    CK(cudaStreamDestroy(st));
    return 0;
}
