// argmax_bench.cu: patc's single-launch argmax and argmin (examples/argmax.rise argmaxF32 /
// argminF32 and their OneBlock forms, compiled with libpatrt and launched with
// patc_launch_args_enqueue on a stream over wrapped buffers) against
// cub::DeviceReduce::ArgMax and ArgMin (the API with a value and an int64 index output),
// and a device-to-device copy of the same n floats as the ceiling, in one process, on one
// stream (issue 33's goal: CUB/patc >= 1.0 at every n).
//   argmax_bench [--sweep] [--tuning FILE] OUTDIR ARGMAX_RISE [n ...]
// Data: "uniform" (floats uniform in [0, 1), k * 2^-24: at large n the maximum occurs
// several times, so ties are resolved there too) and "ties" (values 0..3: a quarter of the
// elements tie for the maximum and for the minimum). For each n, data and operation the
// results of patc and CUB are first checked (value bit-equal, index equal), then the
// group {copy, cub, patc} is timed interleaved (bench/timing.cuh: WARM calls, then REPS
// rounds of each once, CUDA events, "alone" with the host's launch cost and "queued" GPU
// time only, medians), and checked again after the timed runs (a kernel that leaves its
// scratch state, the lastBlock ticket, dirty would fail there). A failed check prints
// FAIL and makes the exit status 1.
// patc's setting for n (elemsBlock, elemsWarp, blocks per SM, or the OneBlock kernel):
// the tuning file's line for the kernel at n (patc_tuning_lookup, the format of
// docs/tuning.md: "argmaxF32 N_MIN N_MAX BLOCKS_PER_SM [kernel=argmaxF32OneBlock]
// elemsBlock=E elemsWarp=W"), else the defaults below (the reduce lines of
// patterns/algorithms.tune, tuned for a sum on an H200). --sweep first times every
// setting of the space (OneBlock with E in {1024, 2048, 4096} up to n = 65536; the grid with E
// in {1024, 2048, 4096}, W in {128, 256, 512}, bps in {1, 2, 4, 8}) on the uniform data,
// keeps the fastest per n and operation (median of 30 alone, each setting once a round),
// writes them to OUTDIR/argmax_tuning.conf and uses them (the choice is the benchmark's
// own tuning, reported in the tables' last column).
// The grid is g = min(bps * SMs, ceil(n / elemsBlock)).
// Writes OUTDIR/argmax.csv and OUTDIR/argmax.md and prints them.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include "patc.h"
#include "timing.cuh"

#define PK(x) do { patc_status s_ = (x); if (s_ != PATC_OK) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, patc_last_error(ctx)); exit(1); } } while (0)

static cudaStream_t s;
static patc_ctx *ctx;
static HoldFlag holdf;
static int sms;
static const char *rise, *tuning_file;

// ------------------------------------------------------------------ settings

// One setting of patc's argmax: the OneBlock kernel (one) or the grid with bps blocks per SM
struct Setting { bool one; long long eb, ew; int bps; };

static std::string setting_text(const Setting &c) {
    char b[96];
    if (c.one) snprintf(b, sizeof b, "OneBlock E%lld W%lld", c.eb, c.ew);
    else snprintf(b, sizeof b, "grid E%lld W%lld bps%d", c.eb, c.ew, c.bps);
    return b;
}

// The reduce lines of patterns/algorithms.tune (an H200's sum)
static Setting default_for(long long n) {
    if (n <= 10240) return {true, 1024, 128, 1};
    if (n <= 40960) return {true, 2048, 128, 1};
    if (n <= 163840) return {false, 1024, 256, 1};
    if (n <= 655360) return {false, 1024, 128, 2};
    if (n <= 2621440) return {false, 4096, 256, 2};
    if (n <= 10485760) return {false, 1024, 128, 4};
    if (n <= 41943040) return {false, 4096, 256, 2};
    return {false, 4096, 256, 4};
}

static std::map<std::string, Setting> swept; // "op n" -> the sweep's choice

static Setting setting_for(const char *kernel, long long n) {
    auto it = swept.find(std::string(kernel) + " " + std::to_string(n));
    if (it != swept.end()) return it->second;
    if (tuning_file) {
        patc_tuning_line t;
        int found = 0;
        if (patc_tuning_lookup(ctx, tuning_file, kernel, n, &t, &found) != PATC_OK) {
            printf("%s\n", patc_last_error(ctx));
            exit(2);
        }
        if (found) {
            Setting c = {strstr(t.use, "OneBlock") != nullptr, 4096, 512, t.blocks_per_sm};
            for (int i = 0; i < t.ndefs; i++) {
                if (!strcmp(t.names[i], "elemsBlock")) c.eb = t.values[i];
                else if (!strcmp(t.names[i], "elemsWarp")) c.ew = t.values[i];
            }
            return c;
        }
    }
    return default_for(n);
}

static std::map<std::string, patc_program *> programs; // "E W" -> program

// kernel (argmaxF32 or argminF32) in setting c, checked to have the interface launched here:
// one f32 input of n, outputs (f32 value, i32 index) of one element each, nats (n, g) or (n)
static patc_kernel *kernel_for(const char *kernel, const Setting &c) {
    std::string key = std::to_string(c.eb) + " " + std::to_string(c.ew);
    patc_program *&prog = programs[key];
    if (!prog) {
        patc_define d[2] = {{"elemsBlock", c.eb}, {"elemsWarp", c.ew}};
        PK(patc_program_compile(ctx, rise, d, 2, nullptr, &prog));
    }
    std::string name = std::string(kernel) + (c.one ? "OneBlock" : "");
    patc_kernel *k;
    PK(patc_get_kernel(prog, name.c_str(), &k));
    int nn = patc_kernel_num_nats(k);
    bool ok = patc_kernel_num_inputs(k) == 1 && patc_kernel_num_outputs(k) == 2 && nn == (c.one ? 1 : 2) &&
              !strcmp(patc_kernel_nat_name(k, 0), "n") && (c.one || !strcmp(patc_kernel_nat_name(k, 1), "g"));
    if (ok) {
        long long nv[2] = {1, 1}, c0, c1; // a value for each nat (n, g)
        patc_type t0, t1;
        size_t b;
        PK(patc_kernel_output_info_at(k, 0, nv, &t0, &c0, &b));
        PK(patc_kernel_output_info_at(k, 1, nv, &t1, &c1, &b));
        ok = t0 == PATC_F32 && t1 == PATC_I32 && c0 == 1 && c1 == 1;
    }
    if (!ok) {
        printf("%s %s: not the interface argmax_bench launches: want nats (n, g) (OneBlock: n), one f32 input, "
               "outputs (f32 value, i32 index) of one element each\n", rise, name.c_str());
        exit(2);
    }
    return k;
}

// ------------------------------------------------------------------ buffers, checks

static float *dval_p, *dval_c;     // patc's and CUB's value
static int *didx_p;                // patc's index (i32)
static int64_t *didx_c;            // CUB's index (int64)
static float *dcopy;               // the copy's destination
static void *tmp; static size_t tb;
static patc_buffer *pin, *pval, *pidx;
static int wrong = 0;

struct Op {
    const char *name, *kernel;
    bool max;
};

// patc's launch of kernel k in setting c at n
static std::function<void()> launch_patc(patc_kernel *k, const Setting &c, long long n) {
    long long g = std::min<long long>((long long)c.bps * sms, (n + c.eb - 1) / c.eb);
    return [k, n, g] {
        long long nats[2] = {n, g};
        patc_arg a[1] = {{pin, nullptr}};
        patc_buffer *outs[2] = {pval, pidx};
        PK(patc_launch_args_enqueue(k, nats, a, outs, nullptr));
    };
}

static std::function<void()> launch_cub(const Op &op, const float *in, long long n) {
    return [op, in, n] {
        size_t b = tb;
        if (op.max) CK(cub::DeviceReduce::ArgMax(tmp, b, in, dval_c, didx_c, (int64_t)n, s));
        else CK(cub::DeviceReduce::ArgMin(tmp, b, in, dval_c, didx_c, (int64_t)n, s));
    };
}

// Runs both on poisoned outputs and compares value (bits) and index.
static bool check(const char *when, const Op &op, const char *data, long long n, const std::function<void()> &cub,
                  const std::function<void()> &patc) {
    CK(cudaMemsetAsync(dval_p, 0xff, 4, s)); CK(cudaMemsetAsync(didx_p, 0xff, 4, s));
    CK(cudaMemsetAsync(dval_c, 0xee, 4, s)); CK(cudaMemsetAsync(didx_c, 0xee, 8, s));
    cub(); patc();
    float vp, vc; int ip; int64_t ic;
    CK(cudaMemcpyAsync(&vp, dval_p, 4, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(&vc, dval_c, 4, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(&ip, didx_p, 4, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(&ic, didx_c, 8, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    if (memcmp(&vp, &vc, 4) || (int64_t)ip != ic) {
        printf("FAIL %s %s %s n=%lld: patc (%.9g, %d), CUB (%.9g, %lld)\n", op.name, data, when, n, vp, ip, vc, (long long)ic);
        wrong++;
        return false;
    }
    return true;
}

// ------------------------------------------------------------------ the sweep

static std::vector<Setting> space(long long n) {
    std::vector<Setting> v;
    const long long E[3] = {1024, 2048, 4096}, W[3] = {128, 256, 512};
    for (long long e : E)
        for (long long w : W) {
            if (e / w > 32 || e / w < 1) continue;
            if (n <= 65536) v.push_back({true, e, w, 1});
            for (int bps : {1, 2, 4, 8}) {
                // grids that come out the same as a smaller bps at this n are timed once
                long long g = std::min<long long>((long long)bps * sms, (n + e - 1) / e);
                if (bps > 1 && g == std::min<long long>((long long)(bps / 2) * sms, (n + e - 1) / e)) continue;
                v.push_back({false, e, w, bps});
            }
        }
    return v;
}

static void sweep(const std::vector<Op> &ops, const std::vector<long long> &sizes, const char *outdir) {
    std::string path = std::string(outdir) + "/argmax_tuning.conf";
    FILE *f = fopen(path.c_str(), "w");
    if (!f) { printf("cannot write %s\n", path.c_str()); exit(1); }
    fprintf(f, "# argmax_bench --sweep on %s: the fastest setting per n (median of 30 alone)\n", "this GPU");
    for (auto &op : ops)
        for (size_t i = 0; i < sizes.size(); i++) {
            long long n = sizes[i];
            std::vector<Setting> cand = space(n);
            std::vector<std::function<void()>> fs;
            for (auto &c : cand) fs.push_back(launch_patc(kernel_for(op.kernel, c), c, n));
            std::vector<std::vector<float>> alone, queued;
            time_interleaved(fs, s, holdf, 5, 30, alone, queued);
            size_t best = 0;
            for (size_t k = 1; k < cand.size(); k++)
                if (median_us(alone[k]) < median_us(alone[best])) best = k;
            swept[std::string(op.kernel) + " " + std::to_string(n)] = cand[best];
            const Setting &c = cand[best];
            // the line covers n only (the benchmark's sizes), in patc_tuning_lookup's format
            fprintf(f, "%s %lld %lld %d %selemsBlock=%lld elemsWarp=%lld # %.2f us\n", op.kernel, n, n, c.bps,
                    c.one ? (std::string("kernel=") + op.kernel + "OneBlock ").c_str() : "", c.eb, c.ew,
                    median_us(alone[best]));
            printf("sweep %s n=%lld: %s %.2f us (%zu settings)\n", op.name, n, setting_text(c).c_str(),
                   median_us(alone[best]), cand.size());
            fflush(stdout);
        }
    fclose(f);
}

// ------------------------------------------------------------------ main

struct Row { std::string op, data; long long n; float copy, cub, patc, cubq, patcq; bool ok; std::string setting; };

int main(int argc, char **argv) {
    bool do_sweep = false;
    int a = 1;
    for (; a < argc && argv[a][0] == '-' && argv[a][1] == '-'; a++) {
        if (!strcmp(argv[a], "--sweep")) do_sweep = true;
        else if (!strcmp(argv[a], "--tuning") && a + 1 < argc) tuning_file = argv[++a];
        else { printf("unknown option %s\n", argv[a]); return 2; }
    }
    if (argc - a < 2) { printf("usage: argmax_bench [--sweep] [--tuning FILE] OUTDIR ARGMAX_RISE [n ...]\n"); return 2; }
    const char *outdir = argv[a];
    rise = argv[a + 1];
    std::vector<long long> sizes;
    for (int e = 10; e <= 28; e += 2) sizes.push_back(1ll << e);
    sizes.push_back(1000); sizes.push_back(1000003); sizes.push_back((1 << 20) + 7); sizes.push_back((1 << 28) - 5);
    if (!sizes_from_args(argc, argv, a + 2, 0x7fffffffll, sizes)) return 2; // the index is an i32
    CK(cudaSetDevice(0));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    sms = p.multiProcessorCount;
    printf("device %s, %d SMs\n", p.name, sms);
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    holdf.init();
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    patc_set_stream(ctx, s);
    long long maxn = sizes.back();
    float *din[2];
    CK(cudaMalloc(&din[0], maxn * 4)); CK(cudaMalloc(&din[1], maxn * 4)); CK(cudaMalloc(&dcopy, maxn * 4));
    CK(cudaMalloc(&dval_p, 4)); CK(cudaMalloc(&dval_c, 4)); CK(cudaMalloc(&didx_p, 4)); CK(cudaMalloc(&didx_c, 8));
    {
        std::vector<float> h(maxn), t(maxn);
        uint64_t seed = 0xA59A3A5ull;
        for (long long i = 0; i < maxn; i++) {
            uint64_t r = splitmix64(seed);
            h[i] = (float)(r >> 40) * (1.0f / 16777216.0f); // uniform in [0, 1), k * 2^-24
            t[i] = (float)(r & 3);                           // 0..3
        }
        CK(cudaMemcpy(din[0], h.data(), maxn * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(din[1], t.data(), maxn * 4, cudaMemcpyHostToDevice));
    }
    patc_buffer *pins[2];
    PK(patc_buffer_wrap(ctx, (unsigned long long)din[0], maxn * 4, &pins[0]));
    PK(patc_buffer_wrap(ctx, (unsigned long long)din[1], maxn * 4, &pins[1]));
    PK(patc_buffer_wrap(ctx, (unsigned long long)dval_p, 4, &pval));
    PK(patc_buffer_wrap(ctx, (unsigned long long)didx_p, 4, &pidx));
    {   // one temp storage, for the largest need, allocated before any timing
        size_t b;
        tb = 0;
        CK(cub::DeviceReduce::ArgMax(nullptr, b, din[0], dval_c, didx_c, (int64_t)maxn, s)); tb = std::max(tb, b);
        CK(cub::DeviceReduce::ArgMin(nullptr, b, din[0], dval_c, didx_c, (int64_t)maxn, s)); tb = std::max(tb, b);
        CK(cudaMalloc(&tmp, std::max<size_t>(tb, 16)));
    }
    const std::vector<Op> ops = {{"argmax", "argmaxF32", true}, {"argmin", "argminF32", false}};
    const char *datas[2] = {"uniform", "ties"};
    pin = pins[0];
    if (do_sweep) sweep(ops, sizes, outdir);
    std::vector<Row> rows;
    for (long long n : sizes)
        for (int di = 0; di < 2; di++) {
            pin = pins[di];
            std::vector<std::function<void()>> fs;
            const float *in = din[di];
            fs.push_back([in, n] { CK(cudaMemcpyAsync(dcopy, in, n * 4, cudaMemcpyDeviceToDevice, s)); });
            std::vector<Setting> st;
            std::vector<bool> ok;
            for (auto &op : ops) {
                Setting c = setting_for(op.kernel, n);
                st.push_back(c);
                auto cub = launch_cub(op, in, n), pat = launch_patc(kernel_for(op.kernel, c), c, n);
                ok.push_back(check("before timing", op, datas[di], n, cub, pat));
                fs.push_back(cub);
                fs.push_back(pat);
            }
            const int REPS = n <= (1 << 24) ? 200 : 50, WARM = 20;
            std::vector<std::vector<float>> alone, queued;
            time_interleaved(fs, s, holdf, WARM, REPS, alone, queued);
            float copy = median_us(alone[0]);
            printf("n=%-10lld %-7s copy %.2f us", n, datas[di], copy);
            for (size_t k = 0; k < ops.size(); k++) {
                bool ok2 = check("after timing", ops[k], datas[di], n, fs[1 + 2 * k], fs[2 + 2 * k]);
                Row r = {ops[k].name, datas[di], n, copy, median_us(alone[1 + 2 * k]), median_us(alone[2 + 2 * k]),
                         median_us(queued[1 + 2 * k]), median_us(queued[2 + 2 * k]), ok[k] && ok2, setting_text(st[k])};
                rows.push_back(r);
                printf(" | %s CUB %.2f patc %.2f: %.3f%s", r.op.c_str(), r.cub, r.patc, r.cub / r.patc, r.ok ? "" : " FAIL");
            }
            printf("\n");
            fflush(stdout);
        }
    std::string csvp = std::string(outdir) + "/argmax.csv";
    FILE *csv = fopen(csvp.c_str(), "w");
    if (!csv) { printf("cannot write %s\n", csvp.c_str()); return 1; }
    fprintf(csv, "op,data,n,copy_us,cub_us,patc_us,cub_queued_us,patc_queued_us,cub_over_patc,cub_over_patc_queued,"
                 "patc_gbs,pct_copy,correct,setting\n");
    for (auto &r : rows)
        fprintf(csv, "%s,%s,%lld,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.1f,%.1f,%s,%s\n", r.op.c_str(), r.data.c_str(), r.n,
                r.copy, r.cub, r.patc, r.cubq, r.patcq, r.cub / r.patc, r.cubq / r.patcq, 4.0 * r.n / (r.patc * 1e3),
                100.0 * r.copy / r.patc, r.ok ? "true" : "false", r.setting.c_str());
    fclose(csv);
    std::string mdp = std::string(outdir) + "/argmax.md";
    FILE *md = fopen(mdp.c_str(), "w");
    if (!md) { printf("cannot write %s\n", mdp.c_str()); return 1; }
    std::string t;
    for (auto &op : ops)
        for (int di = 0; di < 2; di++) {
            t += std::string("\n## ") + op.name + ", " + datas[di] + " data (CUB/patc above 1: patc faster)\n\n"
                 "| n | copy µs | CUB µs | patc µs | CUB/patc | queued CUB/patc | patc GB/s | patc's setting |\n"
                 "|---|---|---|---|---|---|---|---|\n";
            for (auto &r : rows) {
                if (r.op != op.name || r.data != datas[di]) continue;
                char b[256];
                snprintf(b, sizeof b, "| %lld | %.2f | %.2f | %.2f | %.3f%s | %.3f | %.1f | %s |\n", r.n, r.copy, r.cub,
                         r.patc, r.cub / r.patc, r.ok ? "" : " FAIL", r.cubq / r.patcq, 4.0 * r.n / (r.patc * 1e3),
                         r.setting.c_str());
                t += b;
            }
        }
    printf("%s", t.c_str());
    fputs(t.c_str(), md);
    fclose(md);
    printf("%s\n", wrong ? "some results differed from CUB's" : "every result equal to CUB's");
    return wrong ? 1 : 0;
}
