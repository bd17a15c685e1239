// bench_main.cu: the one benchmark driver for patc's reductions and their baselines.
//
// Every implementation is timed the same way, by this file: CUDA events recorded on one
// stream around the whole (possibly multi-launch) operation, on a warm input buffer,
// after a warm-up, in two modes:
//   alone:  each run is enqueued on an idle stream and synchronised on its own, so the
//           host's launch latency is inside the time (what one reduction costs a caller);
//   queued: a holding kernel blocks the stream while the start event, the operation and
//           the stop event are enqueued, then the host releases it, so only the GPU's
//           time is measured (as nvbench measures CUB).
// The implementations are timed interleaved: each round runs every implementation once,
// so that a drift of the host or the clocks affects them alike. The median, min, p10 and
// p90 of the runs are reported. Results are verified against a CPU reference (exact
// arithmetic for the reference) before AND after the timed runs.
//
// patc's kernels run through the runtime library libpatrt (patc.h), on the same stream
// and over the same buffers as the baselines: the single-launch reductions of --rise
// (default examples/reduce_fast.rise) through patc_reducer_enqueue with the settings of
// --tuning (written by `patc tune` earlier in the same GPU session), and the multi-pass
// shuffle reduction of --multipass-rise through patc_time_reduce_to_one (its own
// timing loop: alone, not interleaved, median only).
#include "baselines.h"
#include "patc.h"
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include <sys/stat.h>

#ifndef BENCH_CUDA_INCLUDE
#define BENCH_CUDA_INCLUDE "/usr/local/cuda/include"
#endif

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: CUDA error %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(3); } } while (0)
#define CKP(ctx, x) do { patc_status s_ = (x); if (s_ != PATC_OK) { \
    fprintf(stderr, "%s:%d: patc error %s: %s\n", __FILE__, __LINE__, #x, patc_last_error(ctx)); exit(3); } } while (0)

// ------------------------------------------------------------------ options
struct Options {
    std::string out_dir = "bench-results";
    std::string rise, tuning, multipass_rise;
    int min_log = 10, max_log = 28, step_log = 2;
    int warmup = 20, reps = 200;
    std::string only_impl;   // substring filter on implementation names
    std::string command;     // argv joined
};

static void usage() {
    fprintf(stderr,
        "usage: bench_main [--out DIR] [--rise FILE] [--tuning FILE] [--multipass-rise FILE]\n"
        "                  [--min-log K] [--max-log K] [--step-log K]\n"
        "                  [--warmup N] [--reps N] [--only SUBSTR]\n"
        "  sizes are n = 2^min-log, 2^(min-log+step-log), ..., 2^max-log (default 10..28 step 2)\n");
    exit(2);
}

// ------------------------------------------------------------------ workloads
enum DType { F32, I32 };
enum RedOp { SUM, MAX };
struct Workload { const char *name; DType t; RedOp op; };
static const Workload WORKLOADS[] = { {"f32_sum", F32, SUM}, {"i32_sum", I32, SUM}, {"f32_max", F32, MAX} };

// ------------------------------------------------------------------ patc kernels
// The kernels each workload runs: single-launch (tuned) and multi-pass.
static const char *const SINGLE_KERNEL[] = {"reduceSumF32", "reduceSumI32", "reduceMaxF32"};
static const char *const MULTIPASS_KERNEL[] = {"reduceShfl_1024_256", "reduceShflI32", "reduceShflMax"};

// ------------------------------------------------------------------ data + reference
static inline uint64_t splitmix64(uint64_t &x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct Reference { std::map<long long, double> f32_sum, f32_max; std::map<long long, long long> i32_sum; };

// ------------------------------------------------------------------ timing
struct Stats { double median, min, p10, p90; };

static Stats stats_of(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    auto q = [&](double p) { double idx = p * (n - 1); size_t lo = (size_t)idx; size_t hi = std::min(lo + 1, n - 1);
                             return (double)v[lo] + (idx - lo) * ((double)v[hi] - v[lo]); };
    return { q(0.5) * 1e3, v[0] * 1e3, q(0.1) * 1e3, q(0.9) * 1e3 };  // ms -> us
}

// The holding kernel of the queued mode: spins until the host sets *flag (in mapped
// host memory), or for about two seconds, so that a lost release cannot hang the run.
__global__ void hold_stream(volatile int *flag) {
    long long t0 = clock64();
    while (!*flag && clock64() - t0 < 4000000000ll) __nanosleep(256);
}

struct Timer {
    cudaStream_t s;
    cudaEvent_t e0, e1;
    int *hflag, *dflag;
};

// One run of op timed alone (idle stream) or queued (behind the holding kernel); ms.
static float time_once(Timer &t, const std::function<void()> &op, bool queued) {
    float ms;
    if (queued) {
        *(volatile int *)t.hflag = 0;
        hold_stream<<<1, 1, 0, t.s>>>(t.dflag);
    }
    CK(cudaEventRecord(t.e0, t.s));
    op();
    CK(cudaEventRecord(t.e1, t.s));
    if (queued) {
        __sync_synchronize();
        *(volatile int *)t.hflag = 1;
    }
    CK(cudaEventSynchronize(t.e1));
    CK(cudaEventElapsedTime(&ms, t.e0, t.e1));
    return ms;
}

// Time ops interleaved: warmup rounds, then reps rounds of alone runs (each op once per
// round), then reps rounds of queued runs. alone[i], queued[i]: op i's statistics.
static void time_ops(Timer &t, const std::vector<std::function<void()>> &ops, int warmup, int reps,
                     std::vector<Stats> &alone, std::vector<Stats> &queued) {
    for (int i = 0; i < warmup; i++) for (auto &op : ops) op();
    CK(cudaStreamSynchronize(t.s));
    CK(cudaGetLastError());
    std::vector<std::vector<float>> a(ops.size(), std::vector<float>(reps)), q = a;
    for (int i = 0; i < reps; i++) for (size_t j = 0; j < ops.size(); j++) a[j][i] = time_once(t, ops[j], false);
    for (int i = 0; i < reps; i++) for (size_t j = 0; j < ops.size(); j++) q[j][i] = time_once(t, ops[j], true);
    CK(cudaGetLastError());
    alone.clear(); queued.clear();
    for (size_t j = 0; j < ops.size(); j++) { alone.push_back(stats_of(a[j])); queued.push_back(stats_of(q[j])); }
}

// ------------------------------------------------------------------ results
struct Row {
    std::string impl, workload; long long n; Stats st, q; double gbs, pct_bw, ratio_cub, ratio_cub_q; bool correct;
    std::string note;
};

static std::string fmt(const char *f, double v) { char b[64]; snprintf(b, sizeof b, f, v); return b; }

int main(int argc, char **argv) {
    Options o;
    for (int i = 0; i < argc; i++) { if (i) o.command += " "; o.command += argv[i]; }
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> std::string { if (i + 1 >= argc) usage(); return argv[++i]; };
        if (a == "--out") o.out_dir = next();
        else if (a == "--rise") o.rise = next();
        else if (a == "--tuning") o.tuning = next();
        else if (a == "--multipass-rise") o.multipass_rise = next();
        else if (a == "--min-log") o.min_log = atoi(next().c_str());
        else if (a == "--max-log") o.max_log = atoi(next().c_str());
        else if (a == "--step-log") o.step_log = atoi(next().c_str());
        else if (a == "--warmup") o.warmup = atoi(next().c_str());
        else if (a == "--reps") o.reps = atoi(next().c_str());
        else if (a == "--only") o.only_impl = next();
        else usage();
    }
    if (o.min_log < 1 || o.max_log > 30 || o.min_log > o.max_log || o.step_log < 1 || o.reps < 1 || o.warmup < 0) usage();
    mkdir(o.out_dir.c_str(), 0755);

    // ---- device
    CK(cudaSetDevice(0));
    CK(cudaFree(0));  // create the primary context, which libpatrt shares
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    int drv = 0, rt = 0; CK(cudaDriverGetVersion(&drv)); CK(cudaRuntimeGetVersion(&rt));
    printf("device: %s (cc %d.%d, %d SMs, L2 %d MB), driver API %d, runtime %d\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount, prop.l2CacheSize >> 20, drv, rt);
    cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    Timer tm; tm.s = s;
    CK(cudaEventCreate(&tm.e0)); CK(cudaEventCreate(&tm.e1));
    CK(cudaHostAlloc(&tm.hflag, sizeof(int), cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer(&tm.dflag, tm.hflag, 0));

    std::vector<long long> sizes;
    for (int k = o.min_log; k <= o.max_log; k += o.step_log) sizes.push_back(1ll << k);
    long long max_n = sizes.back();

    // ---- copy bandwidth: cudaMemcpy D2D of 2^28 floats (read + write)
    const size_t copy_n = 1ull << 28, copy_bytes = copy_n * sizeof(float);
    double copy_gbs;
    Stats copy_st;
    {
        void *a, *b; CK(cudaMalloc(&a, copy_bytes)); CK(cudaMalloc(&b, copy_bytes));
        CK(cudaMemset(a, 0x3c, copy_bytes)); CK(cudaMemset(b, 0, copy_bytes));
        std::vector<Stats> al, qu;
        time_ops(tm, {[&] { CK(cudaMemcpyAsync(b, a, copy_bytes, cudaMemcpyDeviceToDevice, s)); }}, o.warmup,
                 std::max(o.reps / 2, 20), al, qu);
        copy_st = al[0];
        copy_gbs = 2.0 * copy_bytes / (copy_st.median * 1e3);
        CK(cudaFree(a)); CK(cudaFree(b));
        printf("copy D2D 2^28 f32: median %.1f us -> %.0f GB/s (read+write)\n", copy_st.median, copy_gbs);
    }

    // ---- data (fixed seed), uploaded once per type, reused by every size and impl
    printf("generating %lld elements per type...\n", max_n); fflush(stdout);
    std::vector<float> hf(max_n); std::vector<int> hi(max_n);
    {
        uint64_t seed = 0x5EEDBA5Eull;
        for (long long i = 0; i < max_n; i++) {
            uint64_t r = splitmix64(seed);
            hf[i] = (float)(r >> 40) * (1.0f / 16777216.0f);  // uniform [0,1), 24-bit: double sums are exact
            hi[i] = (int)(r & 3);                              // 0..3: no int32 overflow up to 2^28
        }
    }
    Reference ref;
    {
        double fs = 0, fm = -INFINITY; long long is = 0; size_t si = 0;
        for (long long i = 0; i < max_n; i++) {
            fs += hf[i]; fm = std::max(fm, (double)hf[i]); is += hi[i];
            if (si < sizes.size() && i + 1 == sizes[si]) {
                ref.f32_sum[sizes[si]] = fs; ref.f32_max[sizes[si]] = fm; ref.i32_sum[sizes[si]] = is; si++;
            }
        }
    }
    float *d_f; int *d_i;
    CK(cudaMalloc(&d_f, max_n * sizeof(float))); CK(cudaMalloc(&d_i, max_n * sizeof(int)));
    CK(cudaMemcpy(d_f, hf.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_i, hi.data(), max_n * sizeof(int), cudaMemcpyHostToDevice));
    std::vector<float>().swap(hf); std::vector<int>().swap(hi);

    void *d_out; CK(cudaMalloc(&d_out, 64));
    void *d_part; CK(cudaMalloc(&d_part, (size_t)std::max(kepler_max_partials(), harris_max_partials()) * 8));
    size_t cub_bytes = 0;
    for (long long n : sizes)
        cub_bytes = std::max({cub_bytes, cub_temp_f32_sum((int)n), cub_temp_i32_sum((int)n), cub_temp_f32_max((int)n)});
    void *d_cub; CK(cudaMalloc(&d_cub, std::max<size_t>(cub_bytes, 16)));
    printf("CUB temp storage: %zu bytes (allocated once)\n", cub_bytes);

    // ---- patc, through libpatrt, on the baselines' stream, over the same device buffers
    patc_ctx *pctx = nullptr;
    patc_reducer *red[3] = {nullptr, nullptr, nullptr};
    patc_program *mprog = nullptr;
    patc_kernel *mk[3] = {nullptr, nullptr, nullptr};
    patc_buffer *pin[2] = {nullptr, nullptr};  // wraps d_f, d_i
    patc_buffer *pout = nullptr;                // wraps d_out
    if (!o.rise.empty() || !o.multipass_rise.empty()) {
        CKP(pctx, patc_create(&pctx, 0, 0));
        CKP(pctx, patc_device_status(pctx));
        patc_set_stream(pctx, (void *)s);
        CKP(pctx, patc_buffer_wrap(pctx, (unsigned long long)d_f, max_n * sizeof(float), &pin[0]));
        CKP(pctx, patc_buffer_wrap(pctx, (unsigned long long)d_i, max_n * sizeof(int), &pin[1]));
        CKP(pctx, patc_buffer_wrap(pctx, (unsigned long long)d_out, 64, &pout));
        for (int i = 0; i < 3 && !o.rise.empty(); i++)
            CKP(pctx, patc_reducer_create(pctx, o.rise.c_str(), SINGLE_KERNEL[i], o.tuning.empty() ? nullptr : o.tuning.c_str(), &red[i]));
        if (!o.multipass_rise.empty()) {
            CKP(pctx, patc_program_from_file(pctx, o.multipass_rise.c_str(), nullptr, 0, &mprog));
            for (int i = 0; i < 3; i++) CKP(pctx, patc_get_kernel(mprog, MULTIPASS_KERNEL[i], &mk[i]));
        }
        printf("patc %s: single-launch %s (tuning: %s), multi-pass %s\n", patc_version(), o.rise.c_str(),
               o.tuning.empty() ? "none: defaults" : o.tuning.c_str(), o.multipass_rise.c_str());
    }
    std::map<std::string, std::string> patc_settings;  // "workload n" -> settings used

    // ---- implementations per workload
    // run: enqueue one reduction into d_out (no synchronisation); time: for patc_multipass
    // only, which runs through its own timing loop (patc_time_reduce_to_one)
    struct Impl {
        std::string name; std::function<void(long long)> run;
        std::function<bool(long long, double *, long long *)> get; std::function<Stats(long long)> time;
    };
    std::vector<Row> rows;
    std::vector<std::string> impl_order;

    for (const Workload &w : WORKLOADS) {
        std::vector<Impl> impls;
        float *fo = (float *)d_out, *fp = (float *)d_part; int *io = (int *)d_out, *ip = (int *)d_part;
        if (w.t == F32 && w.op == SUM) {
            impls.push_back({"cub", [&](long long n) { CK(cub_f32_sum(d_cub, cub_bytes, d_f, fo, (int)n, s)); }});
            impls.push_back({"kepler_shfl", [&](long long n) { kepler_f32_sum(d_f, fp, fo, (int)n, s); }});
            impls.push_back({"harris_reduce6", [&](long long n) { harris_f32_sum(d_f, fp, fo, (int)n, s); }});
        } else if (w.t == I32) {
            impls.push_back({"cub", [&](long long n) { CK(cub_i32_sum(d_cub, cub_bytes, d_i, io, (int)n, s)); }});
            impls.push_back({"kepler_shfl", [&](long long n) { kepler_i32_sum(d_i, ip, io, (int)n, s); }});
            impls.push_back({"harris_reduce6", [&](long long n) { harris_i32_sum(d_i, ip, io, (int)n, s); }});
        } else {
            impls.push_back({"cub", [&](long long n) { CK(cub_f32_max(d_cub, cub_bytes, d_f, fo, (int)n, s)); }});
            impls.push_back({"kepler_shfl", [&](long long n) { kepler_f32_max(d_f, fp, fo, (int)n, s); }});
            impls.push_back({"harris_reduce6", [&](long long n) { harris_f32_max(d_f, fp, fo, (int)n, s); }});
        }
        int wi = (int)(&w - WORKLOADS);
        patc_buffer *pb = pin[w.t == F32 ? 0 : 1];
        if (red[wi]) {
            patc_reducer *r = red[wi];
            impls.push_back({"patc_single", [&, r, pb](long long n) { CKP(pctx, patc_reducer_enqueue(r, pb, n, pout)); }});
        }
        if (mk[wi]) {
            patc_kernel *k = mk[wi];
            impls.push_back({"patc_multipass", nullptr, [&, k, pb](long long n, double *fv, long long *iv) -> bool {
                float f = 0; int ii = 0; long long nat = n;
                if (patc_reduce_to_one(k, &nat, pb, n, w.t == I32 ? (void *)&ii : (void *)&f, nullptr) != PATC_OK) {
                    fprintf(stderr, "patc: %s\n", patc_last_error(pctx));
                    return false;
                }
                *fv = f; *iv = ii;
                return true;
            }, [&, k, pb](long long n) {
                float med; long long nat = n;
                CKP(pctx, patc_time_reduce_to_one(k, &nat, pb, n, o.warmup, o.reps, &med));
                return Stats{med * 1e3, NAN, NAN, NAN};
            }});
        }
        std::vector<Impl *> sel;
        for (auto &im : impls) {
            if (!o.only_impl.empty() && im.name != "cub" && im.name.find(o.only_impl) == std::string::npos) continue;
            if (std::find(impl_order.begin(), impl_order.end(), im.name) == impl_order.end()) impl_order.push_back(im.name);
            sel.push_back(&im);
        }
        for (long long n : sizes) {
            // verify: poison the output, run once, compare with the CPU reference
            auto verify = [&](Impl &im, std::string &why) -> bool {
                double pf = 0; long long pi = 0;
                if (im.get) {
                    if (!im.get(n, &pf, &pi)) { why = "patc run failed"; return false; }
                } else {
                    CK(cudaMemsetAsync(d_out, 0xFF, 64, s));  // f32 NaN / i32 -1
                    im.run(n);
                    CK(cudaStreamSynchronize(s));
                    cudaError_t e = cudaGetLastError();
                    if (e != cudaSuccess) { why = cudaGetErrorString(e); return false; }
                }
                char buf[160];
                if (w.t == I32) {
                    int g = (int)pi; if (!im.get) CK(cudaMemcpy(&g, d_out, 4, cudaMemcpyDeviceToHost));
                    long long r = ref.i32_sum[n];
                    snprintf(buf, sizeof buf, "got %d want %lld", g, r); why = buf;
                    return g == r;
                }
                float g = (float)pf; if (!im.get) CK(cudaMemcpy(&g, d_out, 4, cudaMemcpyDeviceToHost));
                if (w.op == MAX) {
                    double r = ref.f32_max[n];
                    snprintf(buf, sizeof buf, "got %.9g want %.9g", g, r); why = buf;
                    return (double)g == r;
                }
                double r = ref.f32_sum[n], tol = 1e-5 * std::log2((double)n) * std::fabs(r);
                snprintf(buf, sizeof buf, "got %.9g want %.9g (tol %.3g)", g, r, tol); why = buf;
                return std::isfinite(g) && std::fabs((double)g - r) <= tol;
            };
            std::vector<std::string> why1(sel.size()), why2(sel.size());
            std::vector<bool> ok1(sel.size()), ok2(sel.size());
            std::vector<std::function<void()>> ops;
            std::vector<size_t> op_of;  // index in sel of each op
            for (size_t j = 0; j < sel.size(); j++) {
                Impl &im = *sel[j];
                if (im.run) for (int i = 0; i < 2; i++) im.run(n);  // first-touch warm-up before verifying
                ok1[j] = verify(im, why1[j]);
                if (im.run) { ops.push_back([&im, n] { im.run(n); }); op_of.push_back(j); }
            }
            std::vector<Stats> al, qu, st(sel.size()), q(sel.size(), Stats{NAN, NAN, NAN, NAN});
            time_ops(tm, ops, o.warmup, o.reps, al, qu);
            for (size_t i = 0; i < ops.size(); i++) { st[op_of[i]] = al[i]; q[op_of[i]] = qu[i]; }
            for (size_t j = 0; j < sel.size(); j++) {
                if (sel[j]->time) st[j] = sel[j]->time(n);
                ok2[j] = verify(*sel[j], why2[j]);  // after many runs: scratch/ticket state must be reusable
            }
            double cub_a = NAN, cub_q = NAN;
            for (size_t j = 0; j < sel.size(); j++)
                if (sel[j]->name == "cub") { cub_a = st[j].median; cub_q = q[j].median; }
            for (size_t j = 0; j < sel.size(); j++) {
                Impl &im = *sel[j];
                Row r{im.name, w.name, n, st[j], q[j], 0, 0, 0, 0, ok1[j] && ok2[j],
                      ok1[j] ? (ok2[j] ? "" : "after-timing: " + why2[j]) : why1[j]};
                r.gbs = n * 4.0 / (st[j].median * 1e3);
                r.pct_bw = 100.0 * r.gbs / copy_gbs;
                r.ratio_cub = cub_a / st[j].median;
                r.ratio_cub_q = cub_q / q[j].median;
                rows.push_back(r);
                printf("%-8s %-15s n=2^%-2d alone %8.2f us (p10 %8.2f p90 %8.2f) %7.1f GB/s %5.1f%% cub/impl %.3f | "
                       "queued %8.2f us cub/impl %.3f  %s %s\n",
                       w.name, im.name.c_str(), (int)std::log2((double)n), r.st.median, r.st.p10, r.st.p90, r.gbs,
                       r.pct_bw, r.ratio_cub, r.q.median, r.ratio_cub_q, r.correct ? "OK" : "FAIL",
                       r.correct ? "" : r.note.c_str());
                if (im.name == "patc_single") {
                    char d[160];
                    CKP(pctx, patc_reducer_describe(red[wi], n, d, sizeof d));
                    patc_settings[std::string(w.name) + " " + std::to_string(n)] = d;
                }
            }
            fflush(stdout);
        }
    }

    // ---- results.csv
    {
        std::string p = o.out_dir + "/results.csv";
        FILE *f = fopen(p.c_str(), "w");
        if (!f) { perror(p.c_str()); return 3; }
        fprintf(f, "impl,workload,n,median_us,min_us,p10_us,p90_us,GB/s,pct_of_copy_bw,ratio_cub_over_impl,"
                   "queued_median_us,queued_p10_us,queued_p90_us,queued_ratio_cub_over_impl,correct\n");
        fprintf(f, "memcpy_d2d,copy_f32,%zu,%.3f,%.3f,%.3f,%.3f,%.1f,100.0,,,,,,true\n", copy_n, copy_st.median, copy_st.min,
                copy_st.p10, copy_st.p90, copy_gbs);
        for (auto &r : rows)
            fprintf(f, "%s,%s,%lld,%.3f,%.3f,%.3f,%.3f,%.1f,%.1f,%.3f,%.3f,%.3f,%.3f,%.3f,%s\n", r.impl.c_str(),
                    r.workload.c_str(), r.n, r.st.median, r.st.min, r.st.p10, r.st.p90, r.gbs, r.pct_bw, r.ratio_cub,
                    r.q.median, r.q.p10, r.q.p90, r.ratio_cub_q, r.correct ? "true" : "false");
        fclose(f);
    }

    // ---- table.md (also printed)
    std::ostringstream md;
    md << "# Reduction benchmark: " << prop.name << "\n\n";
    md << "Median of " << o.reps << " runs after " << o.warmup << " warm-up runs, warm buffer, CUDA events around "
          "the whole (multi-launch) operation, implementations interleaved run by run. *Alone*: each run on an idle "
          "stream, synchronised on its own (the host's launch latency included: what one reduction costs its caller). "
          "*Queued*: the stream is held by a spinning kernel while the events and the operation are enqueued, then "
          "released (GPU time only, as nvbench measures). GB/s = n*sizeof(T)/median (alone). % BW = GB/s over the "
          "measured device-to-device copy bandwidth. CUB/impl > 1 means faster than CUB.\n\n";
    md << "Copy bandwidth (cudaMemcpy D2D, 2^28 f32, read+write): " << fmt("%.0f", copy_gbs) << " GB/s (median "
       << fmt("%.1f", copy_st.median) << " us)\n\n";
    md << "Baselines: `cub` (DeviceReduce::Sum/Max, nvcc), `kepler_shfl` (the two-pass shuffle kernel of \"Faster "
          "Parallel Reductions on Kepler\"), `harris_reduce6` (shared-memory tree, two passes).\n\n";
    if (!o.rise.empty())
        md << "`patc_single`: " << o.rise << " (reduceSumF32 / reduceSumI32 / reduceMaxF32), one launch, run through "
              "libpatrt's patc_reducer with the settings of " << (o.tuning.empty() ? "its defaults" : o.tuning)
           << " (per n below).\n\n";
    if (!o.multipass_rise.empty())
        md << "`patc_multipass`: " << o.multipass_rise << " (reduceShfl_1024_256 / reduceShflI32 / reduceShflMax), "
              "relaunched until one value is left, through patc_time_reduce_to_one (median only).\n\n";
    auto find_row = [&](const char *wl, const char *impl, long long n) -> const Row * {
        for (auto &r : rows) if (r.workload == wl && r.impl == impl && r.n == n) return &r;
        return nullptr;
    };
    md << "## CUB against patc_single\n\n| n |";
    for (const Workload &w : WORKLOADS) md << " " << w.name << " CUB / patc µs (alone) | ratio |";
    md << " f32_sum queued µs | ratio |\n|---|";
    for (size_t i = 0; i < sizeof WORKLOADS / sizeof *WORKLOADS; i++) md << "---|---|";
    md << "---|---|\n";
    for (long long n : sizes) {
        md << "| 2^" << (int)std::log2((double)n) << " |";
        for (const Workload &w : WORKLOADS) {
            const Row *c = find_row(w.name, "cub", n), *p = find_row(w.name, "patc_single", n);
            if (c && p) md << " " << fmt("%.2f", c->st.median) << " / " << fmt("%.2f", p->st.median) << (p->correct ? "" : " FAIL")
                           << " | " << fmt("%.2f", p->ratio_cub) << " |";
            else md << " | |";
        }
        const Row *c = find_row("f32_sum", "cub", n), *p = find_row("f32_sum", "patc_single", n);
        if (c && p) md << " " << fmt("%.2f", c->q.median) << " / " << fmt("%.2f", p->q.median) << " | " << fmt("%.2f", p->ratio_cub_q) << " |\n";
        else md << " | |\n";
    }
    md << "\n";
    for (const Workload &w : WORKLOADS) {
        std::vector<std::string> names;
        for (auto &nm : impl_order)
            for (auto &r : rows) if (r.workload == w.name && r.impl == nm) { names.push_back(nm); break; }
        if (names.empty()) continue;
        md << "## " << w.name << " — median µs (alone)\n\n| n |";
        for (auto &nm : names) md << " " << nm << " |";
        md << "\n|---|"; for (size_t i = 0; i < names.size(); i++) md << "---|"; md << "\n";
        for (long long n : sizes) {
            md << "| 2^" << (int)std::log2((double)n) << " |";
            for (auto &nm : names)
                for (auto &r : rows) if (r.workload == w.name && r.impl == nm && r.n == n)
                    md << " " << fmt("%.2f", r.st.median) << (r.correct ? "" : " FAIL") << " |";
            md << "\n";
        }
        md << "\n### " << w.name << " — details\n\n| n | impl | median µs | p10 | p90 | min | GB/s | % copy BW | CUB/impl "
              "| queued median µs | queued p10 | queued p90 | queued CUB/impl | correct |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
        for (long long n : sizes)
            for (auto &nm : names)
                for (auto &r : rows) if (r.workload == w.name && r.impl == nm && r.n == n)
                    md << "| 2^" << (int)std::log2((double)n) << " | " << nm << " | " << fmt("%.2f", r.st.median) << " | "
                       << fmt("%.2f", r.st.p10) << " | " << fmt("%.2f", r.st.p90) << " | " << fmt("%.2f", r.st.min) << " | "
                       << fmt(r.gbs < 100 ? "%.1f" : "%.0f", r.gbs) << " | " << fmt("%.1f", r.pct_bw) << " | " << fmt("%.3f", r.ratio_cub) << " | "
                       << fmt("%.2f", r.q.median) << " | " << fmt("%.2f", r.q.p10) << " | " << fmt("%.2f", r.q.p90) << " | "
                       << fmt("%.3f", r.ratio_cub_q) << " | " << (r.correct ? "yes" : "NO: " + r.note) << " |\n";
        md << "\n";
    }
    if (!patc_settings.empty()) {
        md << "## patc_single settings used (from the tuning file)\n\n| workload | n | settings |\n|---|---|---|\n";
        for (const Workload &w : WORKLOADS)
            for (long long n : sizes) {
                auto it = patc_settings.find(std::string(w.name) + " " + std::to_string(n));
                if (it != patc_settings.end())
                    md << "| " << w.name << " | 2^" << (int)std::log2((double)n) << " | " << it->second << " |\n";
            }
        md << "\n";
    }
    {
        std::string p = o.out_dir + "/table.md";
        FILE *f = fopen(p.c_str(), "w"); if (!f) { perror(p.c_str()); return 3; }
        fputs(md.str().c_str(), f); fclose(f);
    }

    // ---- command.txt
    {
        std::string p = o.out_dir + "/command.txt";
        FILE *f = fopen(p.c_str(), "w"); if (!f) { perror(p.c_str()); return 3; }
        time_t now = time(nullptr); char tb[64]; strftime(tb, sizeof tb, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        fprintf(f, "command: %s\ndate: %s\ndevice: %s (cc %d.%d, %d SMs, L2 %d MB)\ncuda driver API version: %d\n"
                   "cuda runtime version: %d\n", o.command.c_str(), tb, prop.name, prop.major, prop.minor,
                prop.multiProcessorCount, prop.l2CacheSize >> 20, drv, rt);
        for (auto &kv : patc_settings) fprintf(f, "patc_single settings %s: %s\n", kv.first.c_str(), kv.second.c_str());
        fclose(f);
    }

    // ---- short summary last (the device tool returns the tail)
    printf("\n==== SUMMARY: CUB / patc_single, median us ====\ncopy D2D: %.0f GB/s\n", copy_gbs);
    for (const Workload &w : WORKLOADS) {
        printf("%s\n  n      alone: cub     patc  ratio | queued: cub     patc  ratio\n", w.name);
        for (long long n : sizes) {
            const Row *c = find_row(w.name, "cub", n), *p = find_row(w.name, "patc_single", n);
            if (!c || !p) continue;
            printf("  2^%-4d %10.2f %8.2f %6.3f | %11.2f %8.2f %6.3f %s\n", (int)std::log2((double)n), c->st.median,
                   p->st.median, p->ratio_cub, c->q.median, p->q.median, p->ratio_cub_q, p->correct && c->correct ? "" : "FAIL");
        }
    }
    for (auto *r : red) patc_reducer_free(r);
    patc_destroy(pctx);
    CK(cudaFreeHost(tm.hflag));
    int fails = 0; for (auto &r : rows) fails += !r.correct;
    printf("failures: %d\n", fails);
    return fails ? 1 : 0;
}
