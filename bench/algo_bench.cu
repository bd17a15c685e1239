// algo_bench.cu: libpatrt's ready-made algorithms (patc_reduce, patc_inclusive_scan,
// patc_exclusive_scan, and patc_algo_* filter and partition with "fun(x => x > t)"),
// with their built-in settings (no tuning file: PATC_TUNING is unset at the start),
// against CUB in the same process, on one stream, over the same buffers:
//   reduce_sum / reduce_min / reduce_max f32 and reduce_sum i32 vs DeviceReduce::Sum/Min/Max;
//   inclusive_scan / exclusive_scan (sum) f32 and i32 vs DeviceScan::InclusiveSum/ExclusiveSum;
//   filter_50 / partition_50 f32 vs DeviceSelect::If / DevicePartition::If (x > -0.5: 50 of
//   the 99 input values, 50.5% selected), and filter_1 / partition_1 (x > 48.5: 1 of 99,
//   1.0%) at n = 2^16, 2^20, 2^24, 2^28;
// and a device-to-device copy of n f32 (cudaMemcpyAsync) as the ceiling.
//   algo_bench [--root DIR] OUTDIR [n ...]
// DIR is the repository root (default $PATC_ROOT, else "."): DIR/patterns is added to the
// context's include directories (the built-in patterns' imports). Sizes: 2^10, 2^12, ...,
// 2^28 and 1000, 1000003, 2^20+7, 12345679, 2^28-5, or the trailing arguments.
// Inputs: integers uniform in -49..49 (splitmix64, fixed seed), as f32 and as i32, so
// that every f32 sum is exact in any order of additions and every result is compared
// bit for bit.
// For each n every pair (CUB, patc) is checked before and after the timed runs: the
// outputs are poisoned, both run, and patc's result must equal CUB's word for word (a
// reduction's one element, a scan's n, a filter's count and first m, a partition's count
// and all n); a mismatch prints FAIL with the first differing index, and the exit status
// is 1. Timing is bench/timing.cuh's: warm-up rounds, then REPS rounds (200 up to 2^20,
// 100 up to 2^24, 50 above), each running the copy and every implementation once,
// interleaved, with CUDA events, alone (on an idle stream, the host's launch cost
// included) and queued (behind a kernel holding the stream: GPU time only); medians.
// The headline (median_us, GBps, ratio) is alone; algo.md also has the queued ratio.
// Before all that, the first-call latency: a fresh context, with PATC_CACHE_DIR set to a
// new empty directory, times its first patc_inclusive_scan call (f32 sum, n = 2^20) on
// the host's wall clock, from the call to its return (program generation, NVRTC, module
// load and the enqueue; not the scan's run). In a libpatrt built with its embedded cubins
// (PATC_EMBED_CUBINS, the default) that call's sm_90 cubin is built in, so no NVRTC is
// loaded; the line says where the cubin came from (patc_get_compile_stats) and the
// steps' times.
// Writes OUTDIR/algo.csv (algo,type,n,impl,median_us,GBps,ratio_cub_over_patc) and
// OUTDIR/algo.md, and prints each size's results, patc_algo_describe of each algorithm at
// each size, and per algorithm the lowest CUB/patc ratio over all n.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
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

struct GtF32 { float t; __host__ __device__ bool operator()(const float &x) const { return x > t; } };

static cudaStream_t s;
static patc_ctx *ctx;
static HoldFlag holdf;
static float *fin; static int *iin;       // the inputs
static unsigned *dout, *dref;             // patc's and CUB's outputs (words)
static unsigned *dcnt, *dcnt_cub;         // patc's and CUB's counts
static unsigned long long *dbad;          // differ's result
static void *tmp; static size_t tb;       // CUB's temp storage, for the largest n
static patc_buffer *pfin, *piin, *pout, *pcnt;
static int wrong = 0;

// One comparison: CUB against patc for one algorithm and type.
enum Kind { REDUCE, SCAN, FILTER, PARTITION };
struct Pair {
    std::string algo, type;
    Kind kind;
    std::function<void(long long)> cub, patc;
    patc_algo *describe; // for patc_algo_describe (the one-call forms keep theirs hidden)
};

// Poisons the outputs, runs both, compares; *m: CUB's count (filter, partition), else n.
static bool check(const Pair &p, long long n, const char *when, long long *m) {
    CK(cudaMemsetAsync(dout, 0xff, n * 4, s)); CK(cudaMemsetAsync(dref, 0xee, n * 4, s));
    CK(cudaMemsetAsync(dcnt, 0xff, 4, s)); CK(cudaMemsetAsync(dcnt_cub, 0xee, 4, s));
    p.cub(n); p.patc(n);
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    *m = n;
    long long len = p.kind == REDUCE ? 1 : n;
    if (p.kind == FILTER || p.kind == PARTITION) {
        unsigned mc, mp;
        CK(cudaMemcpyAsync(&mc, dcnt_cub, 4, cudaMemcpyDeviceToHost, s));
        CK(cudaMemcpyAsync(&mp, dcnt, 4, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        *m = mc;
        if (mp != mc) {
            printf("FAIL %s %s n=%lld (%s): patc count %u, CUB count %u\n", p.algo.c_str(), p.type.c_str(), n, when, mp, mc);
            wrong++;
            return false;
        }
        if (p.kind == FILTER) len = mc; // a filter leaves out[m..n) unspecified
    }
    unsigned long long bad[2] = {0, ~0ull};
    // every copy on s: a non-blocking stream does not order with the legacy stream's copies
    CK(cudaMemcpyAsync(dbad, bad, sizeof bad, cudaMemcpyHostToDevice, s));
    if (len > 0) differ_words<<<(unsigned)std::min<long long>((len + 255) / 256, 1024), 256, 0, s>>>(dout, dref, len, dbad);
    CK(cudaMemcpyAsync(bad, dbad, sizeof bad, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    if (bad[0]) {
        unsigned got, want;
        CK(cudaMemcpyAsync(&got, dout + bad[1], 4, cudaMemcpyDeviceToHost, s));
        CK(cudaMemcpyAsync(&want, dref + bad[1], 4, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        printf("FAIL %s %s n=%lld (%s): %llu of %lld elements differ from CUB's, the first at index %llu "
               "(patc 0x%08x, CUB 0x%08x)\n", p.algo.c_str(), p.type.c_str(), n, when, bad[0], len, bad[1], got, want);
        wrong++;
        return false;
    }
    return true;
}

struct Row { std::string algo, type; long long n; float cub, patc, cubq, patcq, copy; double bytes; bool ok; std::string variant; };

static std::string size_name(long long n) {
    for (int e = 0; e < 63; e++) {
        long long p = 1ll << e;
        if (n == p) return "2^" + std::to_string(e);
        if (n == p - 5 && e >= 10) return "2^" + std::to_string(e) + "-5";
        if (n == p + 7 && e >= 10) return "2^" + std::to_string(e) + "+7";
    }
    return std::to_string(n);
}

static double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv) {
    const char *root = getenv("PATC_ROOT") ? getenv("PATC_ROOT") : ".";
    int ai = 1;
    if (ai + 1 < argc && std::string(argv[ai]) == "--root") { root = argv[ai + 1]; ai += 2; }
    if (ai >= argc) { printf("usage: algo_bench [--root DIR] OUTDIR [n ...]\n"); return 2; }
    const char *outdir = argv[ai++];
    std::vector<long long> sizes;
    for (int e = 10; e <= 28; e += 2) sizes.push_back(1ll << e);
    for (long long n : {1000ll, 1000003ll, 12345679ll, (1ll << 20) + 7, (1ll << 28) - 5}) sizes.push_back(n);
    if (!sizes_from_args(argc, argv, ai, 1ll << 28, sizes)) return 2;
    const long long maxn = sizes.back();
    std::string patterns = std::string(root) + "/patterns";
    unsetenv("PATC_TUNING"); // the built-in settings only
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, %d SMs; patterns from %s; PATC_TUNING unset (built-in settings)\n", prop.name,
           prop.multiProcessorCount, patterns.c_str());
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    holdf.init();

    // buffers (about 4 GiB at 2^28: two inputs, two outputs)
    CK(cudaMalloc(&fin, maxn * 4)); CK(cudaMalloc(&iin, maxn * 4));
    CK(cudaMalloc(&dout, maxn * 4)); CK(cudaMalloc(&dref, maxn * 4));
    CK(cudaMalloc(&dcnt, 4)); CK(cudaMalloc(&dcnt_cub, 4)); CK(cudaMalloc(&dbad, 16));
    {
        std::vector<float> hf(maxn); std::vector<int> hi(maxn);
        uint64_t seed = 0x5EEDBA5Eull;
        for (long long i = 0; i < maxn; i++) { hi[i] = (int)(splitmix64(seed) % 99) - 49; hf[i] = (float)hi[i]; }
        CK(cudaMemcpyAsync(fin, hf.data(), maxn * 4, cudaMemcpyHostToDevice, s));
        CK(cudaMemcpyAsync(iin, hi.data(), maxn * 4, cudaMemcpyHostToDevice, s));
        CK(cudaStreamSynchronize(s));
    }

    // ---- the first-call latency: a fresh context and an empty cache directory
    char cdir[] = "/tmp/patc-algo-bench-cache-XXXXXX";
    if (!mkdtemp(cdir)) { printf("mkdtemp failed\n"); return 1; }
    setenv("PATC_CACHE_DIR", cdir, 1);
    double first_ms, second_ms, other_ms;
    const long long lat_n = 1 << 20;
    char lat_variant[512] = "", lat_cubin[256] = "";
    {
        if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
        PK(patc_add_include_dir(ctx, patterns.c_str()));
        patc_buffer *a, *b;
        PK(patc_buffer_wrap(ctx, (unsigned long long)fin, maxn * 4, &a));
        PK(patc_buffer_wrap(ctx, (unsigned long long)dout, maxn * 4, &b));
        long long ln = std::min(lat_n, maxn), small = std::min(1000ll, maxn);
        double t0 = now_ms();
        PK(patc_inclusive_scan(ctx, PATC_F32, PATC_OP_SUM, a, b, ln, s));
        double t1 = now_ms();
        patc_compile_stats fst; // where the first call's cubin came from, and its steps
        patc_get_compile_stats(ctx, &fst);
        snprintf(lat_cubin, sizeof lat_cubin, "cubin %s; front end %.2f ms, cubin %.2f ms, module load %.2f ms",
                 fst.embedded ? "built into libpatrt" : fst.cache_hit ? "from the disk cache" : "compiled by NVRTC",
                 fst.frontend_ms, fst.compile_ms, fst.load_ms);
        CK(cudaStreamSynchronize(s));
        double t2 = now_ms();
        PK(patc_inclusive_scan(ctx, PATC_F32, PATC_OP_SUM, a, b, ln, s));
        double t3 = now_ms();
        CK(cudaStreamSynchronize(s));
        double t4 = now_ms(); // another variant's first call (n = 1000: the tile scan)
        PK(patc_inclusive_scan(ctx, PATC_F32, PATC_OP_SUM, a, b, small, s));
        double t5 = now_ms();
        CK(cudaStreamSynchronize(s));
        first_ms = t1 - t0; second_ms = t3 - t2; other_ms = t5 - t4;
        patc_algo_spec sp = {}; sp.algorithm = PATC_ALGO_INCLUSIVE_SCAN; sp.type = PATC_F32; sp.op = PATC_OP_SUM;
        patc_algo *d;
        PK(patc_algo_create(ctx, &sp, &d));
        char v1[128], v2[128];
        PK(patc_algo_describe(d, ln, v1, sizeof v1)); PK(patc_algo_describe(d, small, v2, sizeof v2));
        snprintf(lat_variant, sizeof lat_variant, "n=%lld: %s; n=%lld: %s", ln, v1, small, v2);
        printf("first-call latency (fresh context, empty cache %s): patc_inclusive_scan f32 sum n=%lld %.1f ms (%s); "
               "the same call again %.3f ms; the first call at n=%lld (another variant) %.1f ms [%s]\n",
               patc_cache_dir(ctx) ? patc_cache_dir(ctx) : "(none)", ln, first_ms, lat_cubin, second_ms, small, other_ms,
               lat_variant);
        patc_destroy(ctx);
    }

    // ---- the benchmark's context
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    PK(patc_add_include_dir(ctx, patterns.c_str()));
    PK(patc_buffer_wrap(ctx, (unsigned long long)fin, maxn * 4, &pfin));
    PK(patc_buffer_wrap(ctx, (unsigned long long)iin, maxn * 4, &piin));
    PK(patc_buffer_wrap(ctx, (unsigned long long)dout, maxn * 4, &pout));
    PK(patc_buffer_wrap(ctx, (unsigned long long)dcnt, 4, &pcnt));
    // CUB's temp storage: the most any of its calls needs at the largest n
    {
        size_t b = 0; int mn = (int)maxn;
        auto upd = [&](cudaError_t e) { CK(e); tb = std::max(tb, b); };
        upd(cub::DeviceReduce::Sum(nullptr, b, fin, (float *)dref, mn, s));
        upd(cub::DeviceReduce::Min(nullptr, b, fin, (float *)dref, mn, s));
        upd(cub::DeviceReduce::Max(nullptr, b, fin, (float *)dref, mn, s));
        upd(cub::DeviceReduce::Sum(nullptr, b, iin, (int *)dref, mn, s));
        upd(cub::DeviceScan::InclusiveSum(nullptr, b, fin, (float *)dref, mn, s));
        upd(cub::DeviceScan::ExclusiveSum(nullptr, b, fin, (float *)dref, mn, s));
        upd(cub::DeviceScan::InclusiveSum(nullptr, b, iin, (int *)dref, mn, s));
        upd(cub::DeviceScan::ExclusiveSum(nullptr, b, iin, (int *)dref, mn, s));
        upd(cub::DeviceSelect::If(nullptr, b, fin, (float *)dref, dcnt_cub, mn, GtF32{0.f}, s));
        upd(cub::DevicePartition::If(nullptr, b, fin, (float *)dref, dcnt_cub, mn, GtF32{0.f}, s));
        CK(cudaMalloc(&tmp, tb));
    }
    // the algorithms, made once; the one-call forms make theirs on first use, and these
    // twins (the same spec) are only asked for their settings
    auto make = [&](patc_algorithm alg, patc_type t, patc_op op, const char *lambda) {
        patc_algo_spec sp = {};
        sp.algorithm = alg; sp.type = t; sp.op = op;
        static const char *tname = "t";
        if (lambda) { sp.lambda = lambda; sp.nscalars = 1; sp.scalar_names[0] = tname; sp.scalar_types[0] = t; }
        patc_algo *a;
        PK(patc_algo_create(ctx, &sp, &a));
        return a;
    };
    // filter and partition: one algorithm per selectivity, so that each keeps its prepared launch
    patc_algo *filt50 = make(PATC_ALGO_FILTER, PATC_F32, PATC_OP_SUM, "fun(x => x > t)");
    patc_algo *filt1 = make(PATC_ALGO_FILTER, PATC_F32, PATC_OP_SUM, "fun(x => x > t)");
    patc_algo *part50 = make(PATC_ALGO_PARTITION, PATC_F32, PATC_OP_SUM, "fun(x => x > t)");
    patc_algo *part1 = make(PATC_ALGO_PARTITION, PATC_F32, PATC_OP_SUM, "fun(x => x > t)");
    static const float t50 = -0.5f, t1 = 48.5f;
    static const void *sc50[1] = {&t50}, *sc1[1] = {&t1};
    size_t b = 0;
    float *fref = (float *)dref; int *iref = (int *)dref;
    std::vector<Pair> pairs = {
        {"reduce_sum", "f32", REDUCE, [&](long long n) { b = tb; CK(cub::DeviceReduce::Sum(tmp, b, fin, fref, (int)n, s)); },
         [&](long long n) { PK(patc_reduce(ctx, PATC_F32, PATC_OP_SUM, pfin, pout, n, s)); },
         make(PATC_ALGO_REDUCE, PATC_F32, PATC_OP_SUM, nullptr)},
        {"reduce_min", "f32", REDUCE, [&](long long n) { b = tb; CK(cub::DeviceReduce::Min(tmp, b, fin, fref, (int)n, s)); },
         [&](long long n) { PK(patc_reduce(ctx, PATC_F32, PATC_OP_MIN, pfin, pout, n, s)); },
         make(PATC_ALGO_REDUCE, PATC_F32, PATC_OP_MIN, nullptr)},
        {"reduce_max", "f32", REDUCE, [&](long long n) { b = tb; CK(cub::DeviceReduce::Max(tmp, b, fin, fref, (int)n, s)); },
         [&](long long n) { PK(patc_reduce(ctx, PATC_F32, PATC_OP_MAX, pfin, pout, n, s)); },
         make(PATC_ALGO_REDUCE, PATC_F32, PATC_OP_MAX, nullptr)},
        {"reduce_sum", "i32", REDUCE, [&](long long n) { b = tb; CK(cub::DeviceReduce::Sum(tmp, b, iin, iref, (int)n, s)); },
         [&](long long n) { PK(patc_reduce(ctx, PATC_I32, PATC_OP_SUM, piin, pout, n, s)); },
         make(PATC_ALGO_REDUCE, PATC_I32, PATC_OP_SUM, nullptr)},
        {"inclusive_scan", "f32", SCAN, [&](long long n) { b = tb; CK(cub::DeviceScan::InclusiveSum(tmp, b, fin, fref, (int)n, s)); },
         [&](long long n) { PK(patc_inclusive_scan(ctx, PATC_F32, PATC_OP_SUM, pfin, pout, n, s)); },
         make(PATC_ALGO_INCLUSIVE_SCAN, PATC_F32, PATC_OP_SUM, nullptr)},
        {"exclusive_scan", "f32", SCAN, [&](long long n) { b = tb; CK(cub::DeviceScan::ExclusiveSum(tmp, b, fin, fref, (int)n, s)); },
         [&](long long n) { PK(patc_exclusive_scan(ctx, PATC_F32, PATC_OP_SUM, pfin, pout, n, s)); },
         make(PATC_ALGO_EXCLUSIVE_SCAN, PATC_F32, PATC_OP_SUM, nullptr)},
        {"inclusive_scan", "i32", SCAN, [&](long long n) { b = tb; CK(cub::DeviceScan::InclusiveSum(tmp, b, iin, iref, (int)n, s)); },
         [&](long long n) { PK(patc_inclusive_scan(ctx, PATC_I32, PATC_OP_SUM, piin, pout, n, s)); },
         make(PATC_ALGO_INCLUSIVE_SCAN, PATC_I32, PATC_OP_SUM, nullptr)},
        {"exclusive_scan", "i32", SCAN, [&](long long n) { b = tb; CK(cub::DeviceScan::ExclusiveSum(tmp, b, iin, iref, (int)n, s)); },
         [&](long long n) { PK(patc_exclusive_scan(ctx, PATC_I32, PATC_OP_SUM, piin, pout, n, s)); },
         make(PATC_ALGO_EXCLUSIVE_SCAN, PATC_I32, PATC_OP_SUM, nullptr)},
        {"filter_50", "f32", FILTER, [&](long long n) { b = tb; CK(cub::DeviceSelect::If(tmp, b, fin, fref, dcnt_cub, (int)n, GtF32{t50}, s)); },
         [&](long long n) { PK(patc_algo_enqueue(filt50, pfin, pout, pcnt, n, sc50, s)); }, filt50},
        {"partition_50", "f32", PARTITION, [&](long long n) { b = tb; CK(cub::DevicePartition::If(tmp, b, fin, fref, dcnt_cub, (int)n, GtF32{t50}, s)); },
         [&](long long n) { PK(patc_algo_enqueue(part50, pfin, pout, pcnt, n, sc50, s)); }, part50},
        {"filter_1", "f32", FILTER, [&](long long n) { b = tb; CK(cub::DeviceSelect::If(tmp, b, fin, fref, dcnt_cub, (int)n, GtF32{t1}, s)); },
         [&](long long n) { PK(patc_algo_enqueue(filt1, pfin, pout, pcnt, n, sc1, s)); }, filt1},
        {"partition_1", "f32", PARTITION, [&](long long n) { b = tb; CK(cub::DevicePartition::If(tmp, b, fin, fref, dcnt_cub, (int)n, GtF32{t1}, s)); },
         [&](long long n) { PK(patc_algo_enqueue(part1, pfin, pout, pcnt, n, sc1, s)); }, part1},
    };
    const size_t npairs_50 = pairs.size() - 2; // filter_1 and partition_1 only at a few sizes
    auto one_pct = [](long long n) { return n == 1ll << 16 || n == 1ll << 20 || n == 1ll << 24 || n == 1ll << 28; };

    std::vector<Row> rows;
    for (long long n : sizes) {
        size_t np = one_pct(n) ? pairs.size() : npairs_50;
        std::vector<long long> m(np);
        std::vector<bool> ok(np);
        for (size_t k = 0; k < np; k++) ok[k] = check(pairs[k], n, "before timing", &m[k]);
        std::vector<std::function<void()>> ops;
        ops.push_back([n] { CK(cudaMemcpyAsync(dout, fin, n * 4, cudaMemcpyDeviceToDevice, s)); });
        for (size_t k = 0; k < np; k++) {
            ops.push_back([&pairs, k, n] { pairs[k].cub(n); });
            ops.push_back([&pairs, k, n] { pairs[k].patc(n); });
        }
        const int reps = n <= 1ll << 20 ? 200 : n <= 1ll << 24 ? 100 : 50, warm = n <= 1ll << 24 ? 20 : 10;
        std::vector<std::vector<float>> alone, queued;
        time_interleaved(ops, s, holdf, warm, reps, alone, queued);
        long long m2;
        for (size_t k = 0; k < np; k++) ok[k] = check(pairs[k], n, "after timing", &m2) && ok[k];
        float copy = median_us(alone[0]);
        printf("n=%lld (%s), %d rounds: copy %.2f us (%.0f GB/s)\n", n, size_name(n).c_str(), reps, copy, 8.0 * n / (copy * 1e3));
        for (size_t k = 0; k < np; k++) {
            const Pair &p = pairs[k];
            double bytes = p.kind == REDUCE ? 4.0 * n : p.kind == FILTER ? 4.0 * n + 4.0 * m[k] : 8.0 * n;
            char d[256];
            PK(patc_algo_describe(p.describe, n, d, sizeof d));
            Row r{p.algo, p.type, n, median_us(alone[1 + 2 * k]), median_us(alone[2 + 2 * k]), median_us(queued[1 + 2 * k]),
                  median_us(queued[2 + 2 * k]), copy, bytes, ok[k], d};
            rows.push_back(r);
            printf("  %-15s %s  CUB %9.2f us  patc %9.2f us  CUB/patc %.3f (queued %.3f)%s%s  [%s]\n", p.algo.c_str(),
                   p.type.c_str(), r.cub, r.patc, r.cub / r.patc, r.cubq / r.patcq,
                   p.kind == FILTER || p.kind == PARTITION ? ("  m=" + std::to_string(m[k])).c_str() : "",
                   ok[k] ? "" : "  FAIL", d);
        }
        fflush(stdout);
    }

    // ---- outputs
    std::string csvp = std::string(outdir) + "/algo.csv", mdp = std::string(outdir) + "/algo.md";
    FILE *csv = fopen(csvp.c_str(), "w"), *md = fopen(mdp.c_str(), "w");
    if (!csv || !md) { printf("cannot write %s or %s\n", csvp.c_str(), mdp.c_str()); return 1; }
    fprintf(csv, "algo,type,n,impl,median_us,GBps,ratio_cub_over_patc\n");
    for (long long n : sizes) {
        const Row *r0 = nullptr;
        for (auto &r : rows) if (r.n == n) { r0 = &r; break; }
        if (r0) fprintf(csv, "copy,f32,%lld,memcpy_d2d,%.3f,%.1f,\n", n, r0->copy, 8.0 * n / (r0->copy * 1e3));
        for (auto &r : rows) {
            if (r.n != n) continue;
            fprintf(csv, "%s,%s,%lld,cub,%.3f,%.1f,1.000\n", r.algo.c_str(), r.type.c_str(), n, r.cub, r.bytes / (r.cub * 1e3));
            fprintf(csv, "%s,%s,%lld,patc%s,%.3f,%.1f,%.3f\n", r.algo.c_str(), r.type.c_str(), n, r.ok ? "" : "_WRONG", r.patc,
                    r.bytes / (r.patc * 1e3), r.cub / r.patc);
        }
    }
    fclose(csv);
    fprintf(md, "# patc's ready-made algorithms against CUB\n\n");
    fprintf(md, "%s, %d SMs; built-in settings (PATC_TUNING unset); alone medians (CUDA events around one call on an "
                "idle stream), interleaved rounds; CUB/patc above 1 means patc is faster. Inputs: integers in -49..49 "
                "(f32 and i32); filter/partition x > -0.5 (50.5%% selected) and x > 48.5 (1.0%%).\n\n",
            prop.name, prop.multiProcessorCount);
    fprintf(md, "First-call latency (fresh context, empty NVRTC cache, host wall clock from the call to its return): "
                "patc_inclusive_scan f32 sum at n = %lld **%.1f ms** (%s); the same call again %.3f ms; the first call "
                "at another variant %.1f ms (%s).\n\n", std::min(lat_n, maxn), first_ms, lat_cubin, second_ms, other_ms,
            lat_variant);
    // the summary: per algorithm, the lowest ratio over all n
    std::vector<std::pair<std::string, std::string>> algos;
    for (auto &r : rows)
        if (std::find(algos.begin(), algos.end(), std::make_pair(r.algo, r.type)) == algos.end()) algos.push_back({r.algo, r.type});
    fprintf(md, "## Summary: lowest CUB/patc over all n\n\n| algo | type | lowest CUB/patc (alone) | at n | lowest queued | at n | largest n: CUB/patc | all checked |\n|---|---|---|---|---|---|---|---|\n");
    printf("\nsummary (CUB/patc, alone; above 1: patc faster):\n");
    for (auto &a : algos) {
        const Row *lo = nullptr, *loq = nullptr, *last = nullptr;
        bool allok = true;
        for (auto &r : rows) {
            if (r.algo != a.first || r.type != a.second) continue;
            if (!lo || r.cub / r.patc < lo->cub / lo->patc) lo = &r;
            if (!loq || r.cubq / r.patcq < loq->cubq / loq->patcq) loq = &r;
            last = &r;
            allok = allok && r.ok;
        }
        printf("%-15s %s: lowest CUB/patc %.3f at n=%lld (queued: %.3f at n=%lld); at n=%lld %.3f%s\n", a.first.c_str(),
               a.second.c_str(), lo->cub / lo->patc, lo->n, loq->cubq / loq->patcq, loq->n, last->n, last->cub / last->patc,
               allok ? "" : "; SOME RESULTS WRONG");
        fprintf(md, "| %s | %s | %.3f | %s | %.3f | %s | %.3f (%s) | %s |\n", a.first.c_str(), a.second.c_str(),
                lo->cub / lo->patc, size_name(lo->n).c_str(), loq->cubq / loq->patcq, size_name(loq->n).c_str(),
                last->cub / last->patc, size_name(last->n).c_str(), allok ? "yes" : "**NO**");
    }
    for (auto &a : algos) {
        fprintf(md, "\n## %s %s\n\n| n | copy µs | CUB µs | patc µs | CUB/patc | queued CUB/patc | patc GB/s | copy µs / patc µs | patc's variant |\n"
                    "|---|---|---|---|---|---|---|---|---|\n", a.first.c_str(), a.second.c_str());
        for (auto &r : rows) {
            if (r.algo != a.first || r.type != a.second) continue;
            fprintf(md, "| %s | %.2f | %.2f | %.2f | %.3f%s | %.3f | %.1f | %.0f%% | %s |\n", size_name(r.n).c_str(), r.copy,
                    r.cub, r.patc, r.cub / r.patc, r.ok ? "" : " FAIL", r.cubq / r.patcq, r.bytes / (r.patc * 1e3),
                    100.0 * r.copy / r.patc, r.variant.c_str());
        }
    }
    fclose(md);
    printf("first-call latency: %.1f ms (patc_inclusive_scan f32 sum, n=%lld, fresh context, empty cache; %s)\n",
           first_ms, std::min(lat_n, maxn), lat_cubin);
    printf("%s\nwrote %s and %s\n", wrong ? "SOME RESULTS WRONG" : "all results match CUB", csvp.c_str(), mdp.c_str());
    patc_destroy(ctx);
    std::string rm = std::string("rm -rf ") + cdir;
    if (system(rm.c_str()) != 0) printf("could not remove %s\n", cdir);
    return wrong ? 1 : 0;
}
