// matmul_bench: patc's examples/matmul_tiled.rise (through libpatrt, as the reduction
// benchmark does) beside cuBLAS SGEMM, in one process, on square f32 row-major
// matrices: S = 1024, 2048, 4096 by default (multiples of 64, as the example needs).
// Each is launched 3 times to warm up, then timed 20 times with CUDA events on one
// stream; the median gives GFLOP/s = 2 S^3 / time. The two results are compared
// (largest relative difference) so that a wrong kernel is not reported as fast.
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

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(3); } } while (0)
#define CKB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d: cuBLAS error %d: %s\n", __FILE__, __LINE__, (int)s_, #x); exit(3); } } while (0)
#define CKP(ctx, x) do { patc_status s_ = (x); if (s_ != PATC_OK) { \
    fprintf(stderr, "%s:%d: patc error %s: %s\n", __FILE__, __LINE__, #x, patc_last_error(ctx)); exit(3); } } while (0)

static const int WARMUP = 3, REPS = 20;

// the median of REPS timed calls of f on stream s, after WARMUP untimed ones
template <class F> static float median_ms(cudaStream_t s, F f)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < WARMUP; i++) f();
    std::vector<float> t;
    for (int i = 0; i < REPS; i++) {
        CK(cudaEventRecord(e0, s));
        f();
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
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
    FILE *csv = out.empty() ? nullptr : fopen((out + "/matmul.csv").c_str(), "w");
    if (csv) fprintf(csv, "impl,S,median_ms,gflops\n");
    printf("%-8s %-8s %12s %10s\n", "impl", "S", "median ms", "GFLOP/s");
    for (long long S : sizes) {
        size_t bytes = (size_t)(S * S) * sizeof(float);
        std::vector<float> ha((size_t)(S * S)), hb((size_t)(S * S)), hc((size_t)(S * S)), hr((size_t)(S * S));
        srand(1);
        for (auto &x : ha) x = (float)rand() / RAND_MAX - 0.5f;
        for (auto &x : hb) x = (float)rand() / RAND_MAX - 0.5f;
        float *da, *db, *dc, *dr;
        CK(cudaMalloc(&da, bytes)); CK(cudaMalloc(&db, bytes)); CK(cudaMalloc(&dc, bytes)); CK(cudaMalloc(&dr, bytes));
        CK(cudaMemcpy(da, ha.data(), bytes, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, hb.data(), bytes, cudaMemcpyHostToDevice));

        // patc: the example specialised to this size (m = n = S/64, k = S)
        patc_define defs[3] = {{"m", S / 64}, {"n", S / 64}, {"k", S}};
        patc_program *prog = nullptr;
        patc_kernel *k = nullptr;
        CKP(pctx, patc_program_from_file(pctx, rise.c_str(), defs, 3, &prog));
        CKP(pctx, patc_get_kernel(prog, "matmulTiled", &k));
        patc_buffer *in[2], *pc;
        CKP(pctx, patc_buffer_wrap(pctx, (unsigned long long)da, bytes, &in[0]));
        CKP(pctx, patc_buffer_wrap(pctx, (unsigned long long)db, bytes, &in[1]));
        CKP(pctx, patc_buffer_wrap(pctx, (unsigned long long)dc, bytes, &pc));
        float pm = 0;
        CKP(pctx, patc_time_launch(k, nullptr, in, pc, nullptr, WARMUP, REPS, &pm));

        // cuBLAS: row-major C = A B is column-major C^T = B^T A^T
        const float one = 1.0f, zero = 0.0f;
        int n = (int)S;
        float cm = median_ms(st, [&] {
            CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, db, n, da, n, &zero, dr, n));
        });
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(hc.data(), dc, bytes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hr.data(), dr, bytes, cudaMemcpyDeviceToHost));
        double worst = 0;
        size_t nonfinite = 0;
        for (size_t i = 0; i < hc.size(); i++) {
            double d = std::fabs((double)hc[i] - hr[i]) / std::max(1.0, std::fabs((double)hr[i]));
            if (!std::isfinite(d)) nonfinite++; /* a NaN would pass std::max unseen */
            else if (d > worst) worst = d;
        }
        if (nonfinite) { printf("  %zu results not finite  (WRONG)\n", nonfinite); worst = 1.0; }
        printf("  C[0] = %.9g (cuBLAS %.9g), C[last] = %.9g (cuBLAS %.9g)\n", hc[0], hr[0], hc.back(), hr.back());
        double flop = 2.0 * (double)S * S * S;
        printf("%-8s %-8lld %12.4f %10.1f\n", "patc", S, pm, flop / (pm * 1e6));
        printf("%-8s %-8lld %12.4f %10.1f\n", "cublas", S, cm, flop / (cm * 1e6));
        printf("  largest relative difference patc vs cuBLAS: %.3g%s\n", worst, worst > 1e-3 ? "  (WRONG)" : "");
        if (csv) {
            fprintf(csv, "patc,%lld,%.6f,%.3f\n", S, pm, flop / (pm * 1e6));
            fprintf(csv, "cublas,%lld,%.6f,%.3f\n", S, cm, flop / (cm * 1e6));
        }
        patc_buffer_free(in[0]); patc_buffer_free(in[1]); patc_buffer_free(pc);
        patc_program_free(prog);
        CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dc)); CK(cudaFree(dr));
        if (worst > 1e-3) return 1;
    }
    if (csv) fclose(csv);
    cublasDestroy(h);
    patc_destroy(pctx);
    CK(cudaStreamDestroy(st));
    return 0;
}
