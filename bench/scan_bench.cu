// scan_bench.cu: patc's single-pass device scans (examples/scan_device.rise through
// libpatrt's patc_scan_enqueue) against CUB DeviceScan::InclusiveSum / ExclusiveSum and a
// device-to-device copy of the same bytes, in one process, on one stream, with the same
// buffers. For each n, every implementation is first checked (patc against CUB: i32
// exact, f32 within 1e-4 of sqrt(n)), then timed interleaved: REPS rounds, each round
// every implementation once, CUDA events; "alone" = events around one call on an idle
// stream (the host's launch cost included), "queued" = the call enqueued behind a
// kernel that holds the stream until the host has enqueued everything (GPU time only).
// Median per implementation. The method is bench/timing.cuh's, shared with select_bench.
//   scan_bench OUTDIR RISE_FILE [tuning_file] [--extra LABEL RISE TUNING]... [n ...]
// Each --extra adds another file's inclSumF32 and exclSumI32 (same interface, e.g. the
// row scan of examples/scan_rows.rise) as LABEL_incl_f32 and LABEL_excl_i32, checked
// against CUB like the others and timed as information.
// Writes OUTDIR/scan.csv and prints a table.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>
#include "patc.h"
#include "timing.cuh"

#define PK(x) do { patc_status s_ = (x); if (s_ != PATC_OK) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, patc_last_error(ctx)); exit(1); } } while (0)

static cudaStream_t s;
static patc_ctx *ctx;
static HoldFlag holdf;

struct Impl { std::string name; std::function<void(long long)> op; };

static float median(const std::vector<float> &v) { return median_us(v); }

int main(int argc, char **argv) {
    if (argc < 3) { printf("usage: scan_bench OUTDIR RISE_FILE [tuning_file] [n ...]\n"); return 2; }
    const char *outdir = argv[1], *rise = argv[2];
    const char *tuning = argc > 3 && std::string(argv[3]) != "-" ? argv[3] : nullptr;
    std::vector<long long> sizes;
    for (int e = 10; e <= 28; e += 2) sizes.push_back(1ll << e);
    sizes.push_back(1000003); sizes.push_back((1 << 20) + 7); sizes.push_back(30000001);
    struct Extra { std::string label, rise, tuning; };
    std::vector<Extra> extras;
    int ai = 4;
    while (ai + 3 < argc && std::string(argv[ai]) == "--extra") {
        extras.push_back({argv[ai + 1], argv[ai + 2], argv[ai + 3]});
        ai += 4;
    }
    if (argc > ai) { sizes.clear(); for (int i = ai; i < argc; i++) sizes.push_back(atoll(argv[i])); }
    const int REPS = 200, WARM = 20;
    CK(cudaSetDevice(0));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    holdf.init();
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    long long maxn = *std::max_element(sizes.begin(), sizes.end());
    float *fin, *fout, *fref; int *iin, *iout, *iref;
    CK(cudaMalloc(&fin, maxn * 4)); CK(cudaMalloc(&fout, maxn * 4)); CK(cudaMalloc(&fref, maxn * 4));
    CK(cudaMalloc(&iin, maxn * 4)); CK(cudaMalloc(&iout, maxn * 4)); CK(cudaMalloc(&iref, maxn * 4));
    std::vector<float> hf(maxn); std::vector<int> hi(maxn);
    srand(11);
    for (long long i = 0; i < maxn; i++) { hi[i] = (rand() % 201) - 100; hf[i] = (float)(rand() % 1000) / 1000.0f - 0.5f; }
    CK(cudaMemcpy(fin, hf.data(), maxn * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(iin, hi.data(), maxn * 4, cudaMemcpyHostToDevice));
    patc_buffer *pfin, *pfout, *piin, *piout;
    PK(patc_buffer_wrap(ctx, (unsigned long long)fin, maxn * 4, &pfin));
    PK(patc_buffer_wrap(ctx, (unsigned long long)fout, maxn * 4, &pfout));
    PK(patc_buffer_wrap(ctx, (unsigned long long)iin, maxn * 4, &piin));
    PK(patc_buffer_wrap(ctx, (unsigned long long)iout, maxn * 4, &piout));
    patc_scan *sif, *sef, *sii, *sei;
    PK(patc_scan_create(ctx, rise, "inclSumF32", tuning, &sif));
    PK(patc_scan_create(ctx, rise, "exclSumF32", tuning, &sef));
    PK(patc_scan_create(ctx, rise, "inclSumI32", tuning, &sii));
    PK(patc_scan_create(ctx, rise, "exclSumI32", tuning, &sei));
    size_t tb = 0, t2 = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, tb, fin, fout, (int)maxn, s));
    CK(cub::DeviceScan::ExclusiveSum(nullptr, t2, iin, iout, (int)maxn, s));
    tb = std::max(tb, t2);
    void *tmp; CK(cudaMalloc(&tmp, tb));
    std::vector<Impl> impls = {
        {"copy", [&](long long n) { CK(cudaMemcpyAsync(fout, fin, n * 4, cudaMemcpyDeviceToDevice, s)); }},
        {"cub_incl_f32", [&](long long n) { size_t b = tb; CK(cub::DeviceScan::InclusiveSum(tmp, b, fin, fout, (int)n, s)); }},
        {"patc_incl_f32", [&](long long n) { PK(patc_scan_enqueue(sif, pfin, pfout, n, s)); }},
        {"cub_excl_f32", [&](long long n) { size_t b = tb; CK(cub::DeviceScan::ExclusiveSum(tmp, b, fin, fout, (int)n, s)); }},
        {"patc_excl_f32", [&](long long n) { PK(patc_scan_enqueue(sef, pfin, pfout, n, s)); }},
        {"cub_incl_i32", [&](long long n) { size_t b = tb; CK(cub::DeviceScan::InclusiveSum(tmp, b, iin, iout, (int)n, s)); }},
        {"patc_incl_i32", [&](long long n) { PK(patc_scan_enqueue(sii, piin, piout, n, s)); }},
        {"cub_excl_i32", [&](long long n) { size_t b = tb; CK(cub::DeviceScan::ExclusiveSum(tmp, b, iin, iout, (int)n, s)); }},
        {"patc_excl_i32", [&](long long n) { PK(patc_scan_enqueue(sei, piin, piout, n, s)); }},
    };
    std::vector<patc_scan *> xs; // per extra: incl f32, excl i32
    const size_t nbase = impls.size(); // the extras' implementations follow
    for (auto &x : extras) {
        patc_scan *a, *b;
        PK(patc_scan_create(ctx, x.rise.c_str(), "inclSumF32", x.tuning.c_str(), &a));
        PK(patc_scan_create(ctx, x.rise.c_str(), "exclSumI32", x.tuning.c_str(), &b));
        xs.push_back(a); xs.push_back(b);
        impls.push_back({x.label + "_incl_f32", [&, a](long long n) { PK(patc_scan_enqueue(a, pfin, pfout, n, s)); }});
        impls.push_back({x.label + "_excl_i32", [&, b](long long n) { PK(patc_scan_enqueue(b, piin, piout, n, s)); }});
    }
    std::string csvp = std::string(outdir) + "/scan.csv";
    FILE *csv = fopen(csvp.c_str(), "w");
    if (!csv) { printf("cannot write %s\n", csvp.c_str()); return 1; }
    fprintf(csv, "n,impl,alone_us,queued_us,alone_gbs,pct_copy_alone\n");
    int wrong = 0;
    std::vector<float> got(maxn), want(maxn);
    for (long long n : sizes) {
        // correctness: each patc scan against CUB's on the same input (outputs poisoned first)
        for (int k = 0; k < 4 + 2 * (int)extras.size(); k++) {
            bool f = k < 2 || (k >= 4 && k % 2 == 0), excl = k < 4 ? k % 2 : k % 2 == 1;
            float *o = f ? fout : (float *)iout, *r = f ? fref : (float *)iref;
            CK(cudaMemsetAsync(o, 0xff, n * 4, s)); CK(cudaMemsetAsync(r, 0xee, n * 4, s));
            size_t b = tb;
            if (f) { if (excl) CK(cub::DeviceScan::ExclusiveSum(tmp, b, fin, fref, (int)n, s)); else CK(cub::DeviceScan::InclusiveSum(tmp, b, fin, fref, (int)n, s)); }
            else { if (excl) CK(cub::DeviceScan::ExclusiveSum(tmp, b, iin, iref, (int)n, s)); else CK(cub::DeviceScan::InclusiveSum(tmp, b, iin, iref, (int)n, s)); }
            patc_scan *sc = k >= 4 ? xs[k - 4] : f ? (excl ? sef : sif) : (excl ? sei : sii);
            PK(patc_scan_enqueue(sc, f ? pfin : piin, f ? pfout : piout, n, s));
            CK(cudaStreamSynchronize(s));
            CK(cudaMemcpy(got.data(), o, n * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(want.data(), r, n * 4, cudaMemcpyDeviceToHost));
            long long bad = 0;
            double fl = std::max(1.0, std::sqrt((double)n));
            for (long long i = 0; i < n; i++) {
                bool ok = f ? std::fabs(got[i] - want[i]) <= 1e-4 * std::max(std::fabs((double)want[i]), fl)
                            : ((int *)got.data())[i] == ((int *)want.data())[i];
                bad += !ok;
            }
            const char *nm = k < 4 ? impls[2 + 2 * k].name.c_str() : impls[nbase + (k - 4)].name.c_str();
            if (bad) { printf("WRONG %s n=%lld: %lld elements differ from CUB\n", nm, n, bad); wrong++; }
        }
        std::vector<std::function<void()>> ops;
        for (auto &im : impls) ops.push_back([&im, n] { im.op(n); });
        std::vector<std::vector<float>> alone, queued;
        time_interleaved(ops, s, holdf, WARM, REPS, alone, queued);
        float copy = median(alone[0]);
        printf("n=%-10lld", n);
        for (size_t k = 0; k < impls.size(); k++) {
            float a = median(alone[k]), q = median(queued[k]);
            double gbs = 8.0 * n / (a * 1e3);
            fprintf(csv, "%lld,%s,%.3f,%.3f,%.1f,%.1f\n", n, impls[k].name.c_str(), a, q, gbs, 100.0 * copy / a);
            printf(" %s %.2f/%.2f", impls[k].name.c_str(), a, q);
        }
        printf("\n");
        // the ratios the issue asks for: CUB / patc, alone
        printf("   CUB/patc alone: incl f32 %.2f, excl f32 %.2f, incl i32 %.2f, excl i32 %.2f; patc incl f32 at %.0f%% of copy\n",
               median(alone[1]) / median(alone[2]), median(alone[3]) / median(alone[4]),
               median(alone[5]) / median(alone[6]), median(alone[7]) / median(alone[8]),
               100.0 * copy / median(alone[2]));
        fflush(stdout);
    }
    fclose(csv);
    char d[128];
    for (long long n : sizes) {
        patc_scan_describe(sif, n, d, sizeof d);
        printf("patc inclSumF32 settings at n = %lld: %s\n", n, d);
    }
    printf("%s\n", wrong ? "SOME RESULTS WRONG" : "all results match CUB");
    patc_scan_free(sif); patc_scan_free(sef); patc_scan_free(sii); patc_scan_free(sei);
    for (patc_scan *x : xs) patc_scan_free(x);
    patc_destroy(ctx);
    return wrong ? 1 : 0;
}
