// histogram_bench.cu: patc's one-launch 256-bin histograms (examples/histogram.rise:
// histU32, bin = key with keys >= 256 dropped; histF32, 256 even bins over [lower, upper))
// through libpatrt's patc_launch_args_enqueue, against CUB's DeviceHistogram::HistogramEven
// with 257 levels (u32: levels 0..256; f32: [lower, upper) = [0, 1)), and a device-to-device
// copy of the input's bytes, in one process, on one stream, over the same buffers.
//   histogram_bench OUTDIR HISTOGRAM_RISE [n ...]
// Data, per type: "uniform" (u32 keys uniform in 0..255; f32 uniform in [0, 1), k * 2^-24)
// and "skewed" (every key in one bin: u32 7, f32 0.5). patc's grid: g = min(ceil(n / 4096),
// 2 * SMs) blocks of 1024 threads (two resident per SM), as reduceGrid sizes its grid from
// the SM count. Every group's patc bins are checked equal to CUB's (all 256, exactly)
// before and after timing; a difference prints FAIL and makes the exit status 1.
// Timing as bench/timing.cuh: warm-up, then REPS rounds interleaved, medians, "alone" and
// "queued". Writes OUTDIR/histogram.csv and OUTDIR/histogram.md (CUB/patc per size) and
// prints both.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include "patc.h"
#include "timing.cuh"

#define PK(x) do { patc_status s_ = (x); if (s_ != PATC_OK) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, patc_last_error(ctx)); exit(1); } } while (0)

static cudaStream_t s;
static patc_ctx *ctx;
static HoldFlag holdf;
static int sms;
static void *tmp;
static size_t tb;
static unsigned *dcub, *dpatc, *dcopy;
static patc_buffer *ppatc;
static int fails;

struct Row { std::string impl, type, data; long long n; float alone, queued, copy; bool ok; };
static std::vector<Row> rows;

// Runs cub_op and patc_op once each and compares the 256 bins.
static bool check(const char *ty, const char *data, long long n, const std::function<void()> &cub_op,
                  const std::function<void()> &patc_op, const char *when) {
    CK(cudaMemsetAsync(dcub, 0xff, 256 * 4, s)); CK(cudaMemsetAsync(dpatc, 0xee, 256 * 4, s));
    cub_op(); patc_op();
    unsigned hc[256], hp[256];
    CK(cudaMemcpyAsync(hc, dcub, sizeof hc, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(hp, dpatc, sizeof hp, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    unsigned long long total = 0;
    for (int i = 0; i < 256; i++) {
        total += hc[i];
        if (hc[i] != hp[i]) {
            printf("FAIL %s %s n=%lld (%s): bin %d: patc %u, CUB %u\n", ty, data, n, when, i, hp[i], hc[i]);
            fails++;
            return false;
        }
    }
    if (strcmp(data, "skewed") == 0 && total != (unsigned long long)n) {
        printf("FAIL %s %s n=%lld (%s): CUB counted %llu samples\n", ty, data, n, when, total);
        fails++;
        return false;
    }
    return true;
}

static void group(const char *ty, const char *data, long long n, const std::function<void()> &cub_op,
                  const std::function<void()> &patc_op, const void *in) {
    bool ok = check(ty, data, n, cub_op, patc_op, "before timing");
    std::vector<std::function<void()>> ops = {
        [&] { CK(cudaMemcpyAsync(dcopy, in, n * 4, cudaMemcpyDeviceToDevice, s)); }, cub_op, patc_op};
    const int REPS = 200, WARM = 20;
    std::vector<std::vector<float>> alone, queued;
    time_interleaved(ops, s, holdf, WARM, REPS, alone, queued);
    ok = check(ty, data, n, cub_op, patc_op, "after timing") && ok;
    float copy = median_us(alone[0]);
    const char *names[3] = {"copy", "cub", "patc"};
    for (int k = 0; k < 3; k++) rows.push_back({names[k], ty, data, n, median_us(alone[k]), median_us(queued[k]), copy, ok});
    printf("%s %-7s n=%-10lld copy %8.2f us  cub %8.2f us  patc %8.2f us  cub/patc %.2f%s\n", ty, data, n, copy,
           median_us(alone[1]), median_us(alone[2]), median_us(alone[1]) / median_us(alone[2]), ok ? "" : "  FAIL");
}

int main(int argc, char **argv) {
    if (argc < 3) { printf("usage: histogram_bench OUTDIR HISTOGRAM_RISE [n ...]\n"); return 2; }
    const char *outdir = argv[1], *rise = argv[2];
    std::vector<long long> sizes;
    for (int e = 10; e <= 28; e += 2) sizes.push_back(1ll << e);
    for (long long n : {1000ll, 1000003ll, (1ll << 20) + 7, (1ll << 28) - 5}) sizes.push_back(n);
    if (!sizes_from_args(argc, argv, 3, 0x7fffffffll, sizes)) return 2;
    CK(cudaSetDevice(0));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
    sms = p.multiProcessorCount;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    holdf.init();
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    patc_set_stream(ctx, s);
    long long maxn = sizes.back();
    unsigned *ku, *kus; float *kf, *kfs;
    CK(cudaMalloc(&ku, maxn * 4)); CK(cudaMalloc(&kus, maxn * 4)); CK(cudaMalloc(&kf, maxn * 4)); CK(cudaMalloc(&kfs, maxn * 4));
    CK(cudaMalloc(&dcopy, maxn * 4)); CK(cudaMalloc(&dcub, 256 * 4)); CK(cudaMalloc(&dpatc, 256 * 4));
    {
        std::vector<unsigned> hu(maxn), hus(maxn, 7u);
        std::vector<float> hf(maxn), hfs(maxn, 0.5f);
        uint64_t seed = 0x5EEDBA5Eull;
        for (long long i = 0; i < maxn; i++) {
            uint64_t r = splitmix64(seed);
            hu[i] = (unsigned)(r & 255);
            hf[i] = (float)(r >> 40) * (1.0f / 16777216.0f);
        }
        CK(cudaMemcpy(ku, hu.data(), maxn * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(kus, hus.data(), maxn * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(kf, hf.data(), maxn * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(kfs, hfs.data(), maxn * 4, cudaMemcpyHostToDevice));
    }
    patc_buffer *pku, *pkus, *pkf, *pkfs;
    PK(patc_buffer_wrap(ctx, (unsigned long long)ku, maxn * 4, &pku));
    PK(patc_buffer_wrap(ctx, (unsigned long long)kus, maxn * 4, &pkus));
    PK(patc_buffer_wrap(ctx, (unsigned long long)kf, maxn * 4, &pkf));
    PK(patc_buffer_wrap(ctx, (unsigned long long)kfs, maxn * 4, &pkfs));
    PK(patc_buffer_wrap(ctx, (unsigned long long)dpatc, 256 * 4, &ppatc));
    patc_program *prog;
    patc_compile_options opts = {};
    PK(patc_program_compile(ctx, rise, nullptr, 0, &opts, &prog));
    patc_kernel *ku32, *kf32;
    PK(patc_get_kernel(prog, "histU32", &ku32));
    PK(patc_get_kernel(prog, "histF32", &kf32));
    if (patc_kernel_num_nats(ku32) != 2 || strcmp(patc_kernel_nat_name(ku32, 0), "n") || strcmp(patc_kernel_nat_name(ku32, 1), "g") ||
        patc_kernel_num_nats(kf32) != 2 || patc_kernel_num_inputs(kf32) != 3 || patc_kernel_num_outputs(ku32) != 1) {
        printf("%s: histU32/histF32 do not have the interface (n, g), (lower, upper, xs) -> 256 bins\n", rise);
        return 1;
    }
    const float lower = 0.0f, upper = 1.0f;
    const unsigned ulo = 0, uhi = 256;
    {   // one temp storage for the largest need, allocated before any timing
        size_t b;
        tb = 0;
        CK(cub::DeviceHistogram::HistogramEven(nullptr, b, ku, (int *)dcub, 257, ulo, uhi, (int)maxn, s)); tb = std::max(tb, b);
        CK(cub::DeviceHistogram::HistogramEven(nullptr, b, kf, (int *)dcub, 257, lower, upper, (int)maxn, s)); tb = std::max(tb, b);
        CK(cudaMalloc(&tmp, std::max<size_t>(tb, 16)));
    }
    for (long long n : sizes) {
        long long nat[2] = {n, std::min((n + 4095) / 4096, 2ll * sms)}; // a block-trip is 1024 threads x 4 keys
        for (int skew = 0; skew < 2; skew++) {
            const char *data = skew ? "skewed" : "uniform";
            unsigned *inu = skew ? kus : ku; float *inf = skew ? kfs : kf;
            patc_arg au[1] = {{skew ? pkus : pku, nullptr}};
            patc_arg af[3] = {{nullptr, &lower}, {nullptr, &upper}, {skew ? pkfs : pkf, nullptr}};
            patc_buffer *outs[1] = {ppatc};
            group("u32", data, n,
                  [&] { size_t b = tb; CK(cub::DeviceHistogram::HistogramEven(tmp, b, inu, (int *)dcub, 257, ulo, uhi, (int)n, s)); },
                  [&] { PK(patc_launch_args_enqueue(ku32, nat, au, outs, nullptr)); }, inu);
            group("f32", data, n,
                  [&] { size_t b = tb; CK(cub::DeviceHistogram::HistogramEven(tmp, b, inf, (int *)dcub, 257, lower, upper, (int)n, s)); },
                  [&] { PK(patc_launch_args_enqueue(kf32, nat, af, outs, nullptr)); }, inf);
        }
    }
    std::string csvp = std::string(outdir) + "/histogram.csv";
    FILE *csv = fopen(csvp.c_str(), "w");
    if (!csv) { printf("cannot write %s\n", csvp.c_str()); return 1; }
    fprintf(csv, "impl,type,data,n,alone_us,queued_us,copy_us,alone_gbs,pct_copy_alone,correct\n");
    for (auto &r : rows)
        fprintf(csv, "%s,%s,%s,%lld,%.3f,%.3f,%.3f,%.1f,%.1f,%s\n", r.impl.c_str(), r.type.c_str(), r.data.c_str(), r.n,
                r.alone, r.queued, r.copy, 4.0 * r.n / (r.alone * 1e3), 100.0 * r.copy / r.alone, r.ok ? "true" : "false");
    fclose(csv);
    std::string mdp = std::string(outdir) + "/histogram.md";
    FILE *md = fopen(mdp.c_str(), "w");
    if (!md) { printf("cannot write %s\n", mdp.c_str()); return 1; }
    fprintf(md, "| type | data | n | copy µs | CUB µs | patc µs | CUB/patc (alone) | CUB/patc (queued) |\n|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i + 2 < rows.size(); i += 3) {
        const Row &c = rows[i + 1], &q = rows[i + 2];
        fprintf(md, "| %s | %s | %lld | %.2f | %.2f | %.2f | %.2f | %.2f |%s\n", c.type.c_str(), c.data.c_str(), c.n, c.copy,
                c.alone, q.alone, c.alone / q.alone, c.queued / q.queued, c.ok ? "" : " FAIL");
    }
    fclose(md);
    printf("\n");
    fflush(stdout);
    if (system(("cat " + mdp).c_str()) != 0) printf("(cannot print %s)\n", mdp.c_str());
    patc_program_free(prog);
    patc_destroy(ctx);
    return fails ? 1 : 0;
}
