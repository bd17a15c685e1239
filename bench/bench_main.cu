// bench_main.cu: the one benchmark driver for patc's reductions and their baselines.
//
// Every implementation is timed the same way: CUDA events recorded on one stream
// around the whole (possibly multi-launch) operation, each run synchronised on its
// own ("timed alone"), after a warm-up, on a warm input buffer; the median, min,
// p10 and p90 of the runs are reported.  Results are verified against a CPU
// reference (exact arithmetic for the reference) before AND after the timed runs.
//
// patc-generated kernels are plugged in with --patc-dir DIR (see README.md for the
// manifest format): loaded with NVRTC, launched with the driver API.
#include "baselines.h"
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

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
#define CKD(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_ = ""; cuGetErrorString(r_, &s_); \
    fprintf(stderr, "%s:%d: CUDA driver error %s: %s\n", __FILE__, __LINE__, #x, s_); exit(3); } } while (0)
#define CKR(x) do { nvrtcResult r_ = (x); if (r_ != NVRTC_SUCCESS) { \
    fprintf(stderr, "%s:%d: NVRTC error %s: %s\n", __FILE__, __LINE__, #x, nvrtcGetErrorString(r_)); exit(3); } } while (0)

// ------------------------------------------------------------------ options
struct Options {
    std::string out_dir = "bench-results";
    std::string patc_dir;
    int min_log = 10, max_log = 28, step_log = 2;
    int warmup = 20, reps = 200;
    std::string only_impl;   // substring filter on implementation names
    std::string command;     // argv joined
};

static void usage() {
    fprintf(stderr,
        "usage: bench_main [--out DIR] [--patc-dir DIR] [--min-log K] [--max-log K] [--step-log K]\n"
        "                  [--warmup N] [--reps N] [--only SUBSTR]\n"
        "  sizes are n = 2^min-log, 2^(min-log+step-log), ..., 2^max-log (default 10..28 step 2)\n");
    exit(2);
}

// ------------------------------------------------------------------ workloads
enum DType { F32, I32 };
enum RedOp { SUM, MAX };
struct Workload { const char *name; DType t; RedOp op; };
static const Workload WORKLOADS[] = { {"f32_sum", F32, SUM}, {"i32_sum", I32, SUM}, {"f32_max", F32, MAX} };

// ------------------------------------------------------------------ patc plug-ins
struct PatcKernel {
    std::string workload, source, kernel, name = "patc";
    int block = 256;
    long long elems_per_block = 0;  // E
    long long max_grid = 1 << 30;   // G
    bool single = false;            // single-launch vs multi-pass
    size_t smem = 0;
    std::vector<size_t> scratch;    // bytes of each extra zeroed scratch param
    std::vector<std::string> nvrtc_opts;
    // loaded
    CUmodule mod = nullptr;
    CUfunction fn = nullptr;
    std::vector<CUdeviceptr> scratch_ptrs;
    CUdeviceptr bufA = 0, bufB = 0;  // partials ping-pong (multi-pass)
    double compile_ms = 0;
};

static std::vector<std::string> split(const std::string &s, char c) {
    std::vector<std::string> v; std::string cur; std::istringstream is(s);
    while (std::getline(is, cur, c)) if (!cur.empty()) v.push_back(cur);
    return v;
}

static std::string read_file(const std::string &p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) { fprintf(stderr, "cannot read %s\n", p.c_str()); exit(2); }
    std::stringstream ss; ss << f.rdbuf(); return ss.str();
}

static std::vector<PatcKernel> parse_manifest(const std::string &dir) {
    std::vector<PatcKernel> ks;
    std::string path = dir + "/manifest.txt";
    std::ifstream f(path);
    if (!f) { fprintf(stderr, "cannot read %s\n", path.c_str()); exit(2); }
    std::string line; int ln = 0;
    while (std::getline(f, line)) {
        ln++;
        size_t h = line.find('#'); if (h != std::string::npos) line.resize(h);
        std::istringstream is(line); std::vector<std::string> tok; std::string t;
        while (is >> t) tok.push_back(t);
        if (tok.empty()) continue;
        if (tok.size() < 3) { fprintf(stderr, "%s:%d: need WORKLOAD FILE KERNEL [key=value...]\n", path.c_str(), ln); exit(2); }
        PatcKernel k; k.workload = tok[0]; k.source = tok[1]; k.kernel = tok[2];
        bool known = false;
        for (auto &w : WORKLOADS) known |= k.workload == w.name;
        if (!known) { fprintf(stderr, "%s:%d: unknown workload '%s'\n", path.c_str(), ln, k.workload.c_str()); exit(2); }
        for (size_t i = 3; i < tok.size(); i++) {
            size_t eq = tok[i].find('=');
            if (eq == std::string::npos) { fprintf(stderr, "%s:%d: expected key=value, got '%s'\n", path.c_str(), ln, tok[i].c_str()); exit(2); }
            std::string key = tok[i].substr(0, eq), val = tok[i].substr(eq + 1);
            if (key == "block") k.block = atoi(val.c_str());
            else if (key == "E") k.elems_per_block = atoll(val.c_str());
            else if (key == "G") k.max_grid = atoll(val.c_str());
            else if (key == "mode") {
                if (val == "single-launch") k.single = true;
                else if (val == "multi-pass") k.single = false;
                else { fprintf(stderr, "%s:%d: mode must be single-launch or multi-pass\n", path.c_str(), ln); exit(2); }
            } else if (key == "smem") k.smem = (size_t)atoll(val.c_str());
            else if (key == "scratch") { for (auto &b : split(val, ',')) k.scratch.push_back((size_t)atoll(b.c_str())); }
            else if (key == "name") k.name = val;
            else if (key == "nvrtc") k.nvrtc_opts.push_back(val);
            else { fprintf(stderr, "%s:%d: unknown key '%s'\n", path.c_str(), ln, key.c_str()); exit(2); }
        }
        if (k.elems_per_block <= 0 || k.block <= 0 || k.max_grid <= 0) {
            fprintf(stderr, "%s:%d: block, E and G must be positive (E is required)\n", path.c_str(), ln); exit(2);
        }
        ks.push_back(k);
    }
    return ks;
}

static long long patc_blocks(const PatcKernel &k, long long n) {
    long long b = (n + k.elems_per_block - 1) / k.elems_per_block;
    if (b < 1) b = 1;
    return std::min(b, k.max_grid);
}

static void patc_load(PatcKernel &k, const std::string &dir, int cc_major, int cc_minor, size_t elem, long long max_n) {
    std::string src = read_file(dir + "/" + k.source);
    auto t0 = std::chrono::steady_clock::now();
    nvrtcProgram prog;
    CKR(nvrtcCreateProgram(&prog, src.c_str(), k.source.c_str(), 0, nullptr, nullptr));
    std::string arch = "-arch=sm_" + std::to_string(cc_major * 10 + cc_minor);
    std::string inc = std::string("-I") + BENCH_CUDA_INCLUDE;
    std::vector<const char *> opts = { arch.c_str(), "-std=c++17", inc.c_str() };
    for (auto &o : k.nvrtc_opts) opts.push_back(o.c_str());
    nvrtcResult r = nvrtcCompileProgram(prog, (int)opts.size(), opts.data());
    size_t logsz = 0; nvrtcGetProgramLogSize(prog, &logsz);
    if (logsz > 1) { std::string log(logsz, '\0'); nvrtcGetProgramLog(prog, &log[0]); fprintf(stderr, "NVRTC log for %s:\n%s\n", k.source.c_str(), log.c_str()); }
    if (r != NVRTC_SUCCESS) { fprintf(stderr, "NVRTC failed for %s: %s\n", k.source.c_str(), nvrtcGetErrorString(r)); exit(3); }
    size_t cubin_sz = 0; CKR(nvrtcGetCUBINSize(prog, &cubin_sz));
    std::vector<char> cubin(cubin_sz); CKR(nvrtcGetCUBIN(prog, cubin.data()));
    CKR(nvrtcDestroyProgram(&prog));
    k.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    CKD(cuModuleLoadData(&k.mod, cubin.data()));
    CKD(cuModuleGetFunction(&k.fn, k.mod, k.kernel.c_str()));
    if (k.smem > 48 * 1024) CKD(cuFuncSetAttribute(k.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)k.smem));
    for (size_t bytes : k.scratch) {
        CUdeviceptr p; CKD(cuMemAlloc(&p, std::max<size_t>(bytes, 4)));
        CKD(cuMemsetD8(p, 0, std::max<size_t>(bytes, 4)));  // zeroed ONCE; kernel must leave it reusable
        k.scratch_ptrs.push_back(p);
    }
    long long maxb = patc_blocks(k, max_n);
    CKD(cuMemAlloc(&k.bufA, (size_t)maxb * elem + 16));
    CKD(cuMemAlloc(&k.bufB, (size_t)maxb * elem + 16));
    CKD(cuCtxSynchronize());
    printf("patc plug-in %-24s %s:%s  NVRTC+load %.1f ms  block=%d E=%lld G=%lld %s scratch=%zu\n",
           k.name.c_str(), k.workload.c_str(), k.kernel.c_str(), k.compile_ms, k.block, k.elems_per_block,
           k.max_grid, k.single ? "single-launch" : "multi-pass", k.scratch.size());
}

static void patc_launch_one(PatcKernel &k, CUdeviceptr out, CUdeviceptr in, int n, long long blocks, CUstream s) {
    std::vector<void *> args;
    args.push_back(&out); args.push_back(&in); args.push_back(&n);
    for (auto &p : k.scratch_ptrs) args.push_back(&p);
    CKD(cuLaunchKernel(k.fn, (unsigned)blocks, 1, 1, (unsigned)k.block, 1, 1, (unsigned)k.smem, s, args.data(), nullptr));
}

static void patc_run(PatcKernel &k, CUdeviceptr out, CUdeviceptr in, long long n, CUstream s) {
    long long blocks = patc_blocks(k, n);
    if (k.single) { patc_launch_one(k, out, in, (int)n, blocks, s); return; }
    // multi-pass: relaunch on the partials until one remains
    CUdeviceptr src = in, bufs[2] = { k.bufA, k.bufB };
    int which = 0;
    for (;;) {
        CUdeviceptr dst = blocks == 1 ? out : bufs[which];
        patc_launch_one(k, dst, src, (int)n, blocks, s);
        if (blocks == 1) return;
        src = dst; which ^= 1; n = blocks; blocks = patc_blocks(k, n);
    }
}

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

static Stats time_op(const std::function<void()> &op, cudaStream_t s, int warmup, int reps) {
    static cudaEvent_t e0 = nullptr, e1 = nullptr;
    if (!e0) { CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1)); }
    for (int i = 0; i < warmup; i++) op();
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    std::vector<float> ms(reps);
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(e0, s));
        op();
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms[i], e0, e1));
    }
    CK(cudaGetLastError());
    return stats_of(ms);
}

// ------------------------------------------------------------------ results
struct Row {
    std::string impl, workload; long long n; Stats st; double gbs, pct_bw, ratio_cub; bool correct; std::string note;
};

static std::string fmt(const char *f, double v) { char b[64]; snprintf(b, sizeof b, f, v); return b; }

int main(int argc, char **argv) {
    Options o;
    for (int i = 0; i < argc; i++) { if (i) o.command += " "; o.command += argv[i]; }
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> std::string { if (i + 1 >= argc) usage(); return argv[++i]; };
        if (a == "--out") o.out_dir = next();
        else if (a == "--patc-dir") o.patc_dir = next();
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
    CK(cudaFree(0));  // create the primary context, shared with the driver API
    CKD(cuInit(0));
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    int drv = 0, rt = 0; CK(cudaDriverGetVersion(&drv)); CK(cudaRuntimeGetVersion(&rt));
    printf("device: %s (cc %d.%d, %d SMs, L2 %d MB), driver API %d, runtime %d\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount, prop.l2CacheSize >> 20, drv, rt);
    cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

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
        copy_st = time_op([&] { CK(cudaMemcpyAsync(b, a, copy_bytes, cudaMemcpyDeviceToDevice, s)); }, s, o.warmup, std::max(o.reps / 2, 20));
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

    // ---- patc plug-ins
    std::vector<PatcKernel> patc;
    if (!o.patc_dir.empty()) {
        patc = parse_manifest(o.patc_dir);
        for (auto &k : patc) {
            size_t elem = 4;
            patc_load(k, o.patc_dir, prop.major, prop.minor, elem, max_n);
        }
    }

    // ---- implementations per workload
    struct Impl { std::string name; std::function<void(long long)> run; };
    std::vector<Row> rows;
    std::map<std::string, std::map<long long, double>> cub_median;  // workload -> n -> us
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
        for (auto &k : patc) {
            if (k.workload != w.name) continue;
            PatcKernel *kp = &k;
            CUdeviceptr in = (CUdeviceptr)(w.t == F32 ? (void *)d_f : (void *)d_i);
            impls.push_back({k.name, [=, &s](long long n) { patc_run(*kp, (CUdeviceptr)d_out, in, n, (CUstream)s); }});
        }
        for (auto &im : impls) {
            if (!o.only_impl.empty() && im.name != "cub" && im.name.find(o.only_impl) == std::string::npos) continue;
            if (std::find(impl_order.begin(), impl_order.end(), im.name) == impl_order.end()) impl_order.push_back(im.name);
            for (long long n : sizes) {
                // verify: poison the output, run once, compare with the CPU reference
                auto verify = [&](std::string &why) -> bool {
                    CK(cudaMemsetAsync(d_out, 0xFF, 64, s));  // f32 NaN / i32 -1
                    im.run(n);
                    CK(cudaStreamSynchronize(s));
                    cudaError_t e = cudaGetLastError();
                    if (e != cudaSuccess) { why = cudaGetErrorString(e); return false; }
                    char buf[160];
                    if (w.t == I32) {
                        int g; CK(cudaMemcpy(&g, d_out, 4, cudaMemcpyDeviceToHost));
                        long long r = ref.i32_sum[n];
                        snprintf(buf, sizeof buf, "got %d want %lld", g, r); why = buf;
                        return g == r;
                    }
                    float g; CK(cudaMemcpy(&g, d_out, 4, cudaMemcpyDeviceToHost));
                    if (w.op == MAX) {
                        double r = ref.f32_max[n];
                        snprintf(buf, sizeof buf, "got %.9g want %.9g", g, r); why = buf;
                        return (double)g == r;
                    }
                    double r = ref.f32_sum[n], tol = 1e-5 * std::log2((double)n) * std::fabs(r);
                    snprintf(buf, sizeof buf, "got %.9g want %.9g (tol %.3g)", g, r, tol); why = buf;
                    return std::isfinite(g) && std::fabs((double)g - r) <= tol;
                };
                std::string why1, why2;
                for (int i = 0; i < 2; i++) im.run(n);  // first-touch warm-up before verifying
                bool ok1 = verify(why1);
                Stats st = time_op([&] { im.run(n); }, s, o.warmup, o.reps);
                bool ok2 = verify(why2);  // after many runs: scratch/ticket state must be reusable
                size_t elem = 4;
                Row r{im.name, w.name, n, st, 0, 0, 0, ok1 && ok2, ok1 ? (ok2 ? "" : "after-timing: " + why2) : why1};
                r.gbs = n * elem / (st.median * 1e3);
                r.pct_bw = 100.0 * r.gbs / copy_gbs;
                if (im.name == "cub") cub_median[w.name][n] = st.median;
                r.ratio_cub = cub_median[w.name].count(n) ? cub_median[w.name][n] / st.median : NAN;
                rows.push_back(r);
                printf("%-8s %-22s n=2^%-2d median %9.2f us  p10 %9.2f  p90 %9.2f  %7.1f GB/s  %5.1f%%  cub/impl %.3f  %s %s\n",
                       w.name, im.name.c_str(), (int)std::log2((double)n), st.median, st.p10, st.p90, r.gbs, r.pct_bw,
                       r.ratio_cub, r.correct ? "OK" : "FAIL", r.correct ? "" : r.note.c_str());
                fflush(stdout);
            }
        }
    }

    // ---- results.csv
    {
        std::string p = o.out_dir + "/results.csv";
        FILE *f = fopen(p.c_str(), "w");
        if (!f) { perror(p.c_str()); return 3; }
        fprintf(f, "impl,workload,n,median_us,min_us,p10_us,p90_us,GB/s,pct_of_copy_bw,ratio_cub_over_impl,correct\n");
        fprintf(f, "memcpy_d2d,copy_f32,%zu,%.3f,%.3f,%.3f,%.3f,%.1f,100.0,,true\n", copy_n, copy_st.median, copy_st.min,
                copy_st.p10, copy_st.p90, copy_gbs);
        for (auto &r : rows)
            fprintf(f, "%s,%s,%lld,%.3f,%.3f,%.3f,%.3f,%.1f,%.1f,%.3f,%s\n", r.impl.c_str(), r.workload.c_str(), r.n,
                    r.st.median, r.st.min, r.st.p10, r.st.p90, r.gbs, r.pct_bw, r.ratio_cub, r.correct ? "true" : "false");
        fclose(f);
    }

    // ---- table.md (also printed)
    std::ostringstream md;
    md << "# Reduction benchmark: " << prop.name << "\n\n";
    md << "Median of " << o.reps << " runs (each run timed alone with CUDA events around the whole multi-launch "
          "operation, after " << o.warmup << " warm-up runs, warm buffer). GB/s = n*sizeof(T)/median. "
          "% BW = GB/s over the measured device-to-device copy bandwidth. CUB/impl > 1 means faster than CUB.\n\n";
    md << "Copy bandwidth (cudaMemcpy D2D, 2^28 f32, read+write): " << fmt("%.0f", copy_gbs) << " GB/s (median "
       << fmt("%.1f", copy_st.median) << " us)\n\n";
    if (patc.empty()) md << "Baselines only (no --patc-dir given): CUB, the Kepler-blog shuffle reduction, the Harris reduce6-style tree.\n\n";
    for (auto &k : patc)
        md << "Plug-in `" << k.name << "` (" << k.workload << "): " << o.patc_dir << "/" << k.source << ", kernel `" << k.kernel
           << "`, " << (k.single ? "single-launch" : "multi-pass") << ", block " << k.block << ", E " << k.elems_per_block
           << ", G " << k.max_grid << "\n\n";
    for (const Workload &w : WORKLOADS) {
        std::vector<std::string> names;
        for (auto &nm : impl_order)
            for (auto &r : rows) if (r.workload == w.name && r.impl == nm) { names.push_back(nm); break; }
        if (names.empty()) continue;
        md << "## " << w.name << " — median µs\n\n| n |";
        for (auto &nm : names) md << " " << nm << " |";
        md << "\n|---|"; for (size_t i = 0; i < names.size(); i++) md << "---|"; md << "\n";
        for (long long n : sizes) {
            md << "| 2^" << (int)std::log2((double)n) << " |";
            for (auto &nm : names)
                for (auto &r : rows) if (r.workload == w.name && r.impl == nm && r.n == n)
                    md << " " << fmt("%.2f", r.st.median) << (r.correct ? "" : " FAIL") << " |";
            md << "\n";
        }
        md << "\n### " << w.name << " — details\n\n| n | impl | median µs | p10 | p90 | min | GB/s | % copy BW | CUB/impl | correct |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n";
        for (long long n : sizes)
            for (auto &nm : names)
                for (auto &r : rows) if (r.workload == w.name && r.impl == nm && r.n == n)
                    md << "| 2^" << (int)std::log2((double)n) << " | " << nm << " | " << fmt("%.2f", r.st.median) << " | "
                       << fmt("%.2f", r.st.p10) << " | " << fmt("%.2f", r.st.p90) << " | " << fmt("%.2f", r.st.min) << " | "
                       << fmt(r.gbs < 100 ? "%.1f" : "%.0f", r.gbs) << " | " << fmt("%.1f", r.pct_bw) << " | " << fmt("%.3f", r.ratio_cub) << " | "
                       << (r.correct ? "yes" : "NO: " + r.note) << " |\n";
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
        for (auto &k : patc)
            fprintf(f, "patc plug-in: %s %s %s (NVRTC compile+load %.1f ms)\n", k.name.c_str(), k.workload.c_str(),
                    k.source.c_str(), k.compile_ms);
        fclose(f);
    }

    // ---- short summary last (the device tool returns the tail)
    printf("\n==== SUMMARY (median us) ====\ncopy D2D: %.0f GB/s\n", copy_gbs);
    for (const Workload &w : WORKLOADS) {
        std::vector<std::string> names;
        for (auto &nm : impl_order)
            for (auto &r : rows) if (r.workload == w.name && r.impl == nm) { names.push_back(nm); break; }
        printf("%s\n%-6s", w.name, "n");
        for (auto &nm : names) printf(" %16s", nm.c_str());
        printf("\n");
        for (long long n : sizes) {
            printf("2^%-4d", (int)std::log2((double)n));
            for (auto &nm : names) {
                int wd = (int)std::max<size_t>(16, nm.size());
                for (auto &r : rows) if (r.workload == w.name && r.impl == nm && r.n == n) {
                    std::string c = fmt("%.2f", r.st.median) + (r.correct ? "" : " FAIL");
                    printf(" %*s", wd, c.c_str());
                }
            }
            printf("\n");
        }
    }
    int fails = 0; for (auto &r : rows) fails += !r.correct;
    printf("failures: %d\n", fails);
    return fails ? 1 : 0;
}
