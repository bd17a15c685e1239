// select_bench.cu: patc's single-launch stream compaction and partition
// (examples/filter.rise filterGtF32/filterGtI32 and examples/partition.rise
// partitionGtF32/partitionGtI32, through libpatrt's patc_launch_args_enqueue), and the
// stable partition in two launches (partitionStableGtF32/partitionStableGtI32), against CUB
// DeviceSelect::If and DevicePartition::If with the predicate x > t, and a device-to-device
// copy of the same n elements, in one process, on one stream, with the same buffers.
//   select_bench OUTDIR FILTER_RISE PARTITION_RISE [tuning_file|-] [n ...]
// For each n, type (f32: uniform in [0,1), t = 0.99, 0.5, 0.01; i32: uniform in [0, 2^30),
// t = 0.99, 0.5, 0.01 times 2^30) and selectivity (1%, 50%, 99% of the elements selected),
// the group {copy, cub_select, patc_filter, cub_partition, patc_partition,
// patc_partition_stable} is first checked (patc's count equal to CUB's; the filter's first m
// elements, and all n of the partition (the selected in input order, then the others in
// reverse input order, as both lay them out) bit-equal to CUB's; the stable partition's
// others, in input order, equal to CUB's reversed), then timed interleaved: REPS rounds, each round every
// implementation once, CUDA events; "alone" = events around one call on an idle stream
// (the host's launch cost included), "queued" = the call enqueued behind a kernel that
// holds the stream until the host has enqueued everything (GPU time only); median per
// implementation. The check is repeated after the timed runs, to catch a kernel that leaves
// its look-back state dirty. A failed check prints FAIL and makes the exit status 1.
// The tuning file has lines "KERNEL N_MIN N_MAX BLOCKS_PER_SM [evict_first] NAME=VALUE..."
// (the format patc_scan reads, docs/tuning.md, read with patc_tuning_lookup; BLOCKS_PER_SM
// is ignored, kernel=[FILE:]OTHER runs OTHER at the line's sizes (of FILE, relative to the
// filter's or partition's file: filterPipe's kernels), '#' starts a comment): the -D values (nt, ipt; g for a stable partition) of KERNEL for N_MIN <= n <=
// N_MAX, and evict_first to compile it so. Without a line: nt=128 ipt=16 (and g as
// choice_for says).
// One program is compiled per file and distinct set of -D values.
// Writes OUTDIR/select.csv and OUTDIR/select.md (the CUB/patc tables) and prints both.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <algorithm>
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


// Counts the words of a[0..n) that differ from b[0..n) and the first index that does
// (bad[0] += count, bad[1] = min index), so a check needs no copy of n elements to the host.
// From index rev on, a[i] is compared with b[n-1 - (i-rev)]: a stable partition (a) against
// CUB's, whose rejected elements (from rev = m on) are in reverse order.
__global__ void differ(const unsigned *a, const unsigned *b, long long n, long long rev, unsigned long long *bad) {
    unsigned long long c = 0, first = ~0ull;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        if (a[i] != b[i < rev ? i : n - 1 - (i - rev)]) { c++; if ((unsigned long long)i < first) first = i; }
    if (c) { atomicAdd(&bad[0], c); atomicMin(&bad[1], first); }
}

struct GtF32 { float t; __host__ __device__ bool operator()(const float &x) const { return x > t; } };
struct GtI32 { int t; __host__ __device__ bool operator()(const int &x) const { return x > t; } };

static cudaStream_t s;
static patc_ctx *ctx;
static HoldFlag holdf;

struct Impl { std::string name; std::function<void()> op; };

static float median(const std::vector<float> &v) { return median_us(v); }

// ------------------------------------------------------------------ settings and variants

// The tuning file (nullptr: none), read through libpatrt's patc_tuning_lookup: the lines
// patc_scan would use, and a malformed line anywhere is an error, not skipped, so that a
// typo cannot silently leave the defaults in place.
static const char *tuning_file;

static int sms; // the device's SM count

// kernel's tuning line for n in *t; false when there is none. Exits on a bad file.
static bool setting_for(const std::string &kernel, long long n, patc_tuning_line *t) {
    int found = 0;
    if (!tuning_file) return false;
    if (patc_tuning_lookup(ctx, tuning_file, kernel.c_str(), n, t, &found) != PATC_OK) {
        printf("%s\n", patc_last_error(ctx));
        exit(2);
    }
    return found;
}

// What kernel is compiled with at n: the -D values of its tuning line, else nt=128
// ipt=16, and the line's evict_first. A stable partition's count launch (g blocks of 4096
// elements a trip) gets g = min(4 * SMs, ceil(n / 4096)) unless the line gives g: four
// blocks of 512 threads fill an SM, and no block is left without a whole trip of its own.
struct Choice { std::vector<std::pair<std::string, long long>> defs; bool ef = false; std::string use; };
static Choice choice_for(const std::string &kernel, long long n) {
    patc_tuning_line t;
    Choice c;
    if (setting_for(kernel, n, &t)) {
        for (int i = 0; i < t.ndefs; i++) c.defs.push_back({t.names[i], t.values[i]});
        c.ef = t.evict_first;
        c.use = t.use;
    } else {
        c.defs = {{"nt", 128}, {"ipt", 16}};
    }
    bool has_g = false;
    for (auto &p : c.defs) has_g = has_g || p.first == "g";
    if (kernel.find("Stable") != std::string::npos && !has_g)
        c.defs.push_back({"g", std::min<long long>(4ll * sms, (n + 4095) / 4096)});
    return c;
}

static std::string defs_text(const std::vector<std::pair<std::string, long long>> &d) {
    std::string t;
    for (auto &p : d) t += (t.empty() ? "" : " ") + p.first + "=" + std::to_string(p.second);
    return t;
}

static std::map<std::string, patc_program *> programs; // file + " " + defs -> program

// The kernel `name` of `file` compiled with the -D values its tuning line gives for n,
// checked to have the interface the benchmark launches: (t by value, xs) -> (count, elements),
// no nat left but n, and for a filter (filter = true) the count being the valid length of the
// elements (a partition writes all n: its count says where the others start).
static patc_kernel *kernel_for(const char *file0, const char *name0, patc_type ty, bool filter, long long n) {
    Choice ch = choice_for(name0, n);
    auto &d = ch.defs;
    bool ef = ch.ef;
    // kernel=FILE:OTHER (docs/tuning.md): OTHER of FILE, relative to file0's directory
    // (filterPipe's kernels, examples/filter_pipe.rise); kernel=OTHER: OTHER of file0
    std::string fs = file0, ns = name0;
    if (!ch.use.empty()) {
        size_t c = ch.use.rfind(':');
        ns = c == std::string::npos ? ch.use : ch.use.substr(c + 1);
        if (c != std::string::npos) {
            size_t sl = fs.rfind('/');
            fs = (ch.use[0] == '/' || sl == std::string::npos ? "" : fs.substr(0, sl + 1)) + ch.use.substr(0, c);
        }
    }
    const char *file = fs.c_str(), *name = ns.c_str();
    std::string key = std::string(file) + " " + defs_text(d) + (ef ? " evict_first" : "");
    patc_program *&prog = programs[key];
    if (!prog) {
        std::vector<patc_define> pd;
        for (auto &p : d) pd.push_back({p.first.c_str(), p.second});
        patc_compile_options opts = {};
        opts.evict_first = ef;
        PK(patc_program_compile(ctx, file, pd.data(), (int)pd.size(), &opts, &prog));
    }
    patc_kernel *k;
    PK(patc_get_kernel(prog, name, &k));
    patc_type t0, t1;
    long long c0, c1;
    size_t b;
    bool ok = patc_kernel_num_nats(k) == 1 && strcmp(patc_kernel_nat_name(k, 0), "n") == 0 &&
              patc_kernel_num_inputs(k) == 2 && patc_kernel_input_by_value(k, 0) == 1 &&
              patc_kernel_num_outputs(k) == 2 && patc_kernel_output_count_of(k, 1) == (filter ? 0 : -1);
    if (ok) {
        PK(patc_kernel_output_info_at(k, 0, &n, &t0, &c0, &b));
        PK(patc_kernel_output_info_at(k, 1, &n, &t1, &c1, &b));
        ok = (t0 == PATC_U32 || t0 == PATC_I32) && c0 == 1 && t1 == ty && c1 == n;
    }
    if (!ok) {
        printf("%s %s (%s): not the interface select_bench launches: want nat n alone (the others fixed by the "
               "tuning file's -D values), inputs (t by value, %s array of n), outputs (a 32-bit count, %s array of n "
               "%s)\n", file, name, key.c_str(), patc_type_name(ty), patc_type_name(ty),
               filter ? "whose valid length it is" : "all written");
        exit(2);
    }
    return k;
}

// ------------------------------------------------------------------ buffers and results

static long long maxn;
static unsigned *dpo, *dco;          // patc's and CUB's elements (as words; f32 or i32)
static unsigned *dpc;                // patc's count
static int *dcc;                     // CUB's count
static unsigned long long *dbad;     // differ's result
static void *tmp; static size_t tb;  // CUB's temp storage, for the largest n
static patc_buffer *ppo, *ppc;
static int wrong = 0;

struct Row { std::string impl, type; int sel; long long n, m; float alone, queued, copy; bool ok; };
static std::vector<Row> rows;

// What check compares: the first m elements (a filter: patc leaves the rest unwritten), all
// n in the same places (a partition), or all n with the elements from m on in reverse order
// in CUB's (patc's stable partition against CUB's partition, which reverses them).
enum Cmp { PREFIX, WHOLE, STABLE };

// Runs CUB's and patc's version of one operation on poisoned outputs and compares them: the
// counts, then the elements as cmp says. *m_out receives CUB's count.
static bool check(const char *what, const char *ty, int sel, long long n, const std::function<void()> &cub,
                  const std::function<void()> &patc, Cmp cmp, long long *m_out) {
    CK(cudaMemsetAsync(dpo, 0xff, n * 4, s)); CK(cudaMemsetAsync(dco, 0xee, n * 4, s));
    CK(cudaMemsetAsync(dpc, 0xff, 4, s)); CK(cudaMemsetAsync(dcc, 0xee, 4, s));
    cub(); patc();
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    int mc; unsigned mp;
    CK(cudaMemcpyAsync(&mc, dcc, 4, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(&mp, dpc, 4, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    *m_out = mc;
    if ((long long)mp != (long long)mc) {
        printf("FAIL %s %s %d%% n=%lld: patc count %u, CUB count %d\n", what, ty, sel, n, mp, mc);
        wrong++;
        return false;
    }
    long long len = cmp == PREFIX ? mc : n;
    unsigned long long bad[2] = {0, ~0ull};
    // every copy on s (a non-blocking stream: the legacy stream's copies would not order with it)
    CK(cudaMemcpyAsync(dbad, bad, sizeof bad, cudaMemcpyHostToDevice, s));
    if (len > 0) differ<<<1024, 256, 0, s>>>(dpo, dco, len, cmp == STABLE ? mc : len, dbad);
    CK(cudaMemcpyAsync(bad, dbad, sizeof bad, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    if (bad[0]) {
        unsigned got, want;
        long long j = cmp == STABLE && (long long)bad[1] >= mc ? n - 1 - ((long long)bad[1] - mc) : (long long)bad[1];
        CK(cudaMemcpyAsync(&got, dpo + bad[1], 4, cudaMemcpyDeviceToHost, s));
        CK(cudaMemcpyAsync(&want, dco + j, 4, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        printf("FAIL %s %s %d%% n=%lld m=%d: %llu of the %lld elements differ from CUB's, the first at %llu "
               "(patc 0x%08x, CUB 0x%08x)\n", what, ty, sel, n, mc, bad[0], len, bad[1], got, want);
        wrong++;
        return false;
    }
    return true;
}

// One group: a type, a threshold, an n. Checks, times, and records the rows.
template <class T, class Pred>
static void group(const char *ty, int sel, T *in, T t, patc_buffer *pin, patc_kernel *kf, patc_kernel *kp,
                  patc_kernel *ks, long long n) {
    Pred pred{t};
    patc_arg args[2] = {{nullptr, &t}, {pin, nullptr}};
    patc_buffer *outs[2] = {ppc, ppo};
    auto cub_select = [&] { size_t b = tb; CK(cub::DeviceSelect::If(tmp, b, in, (T *)dco, dcc, (int)n, pred, s)); };
    auto cub_part = [&] { size_t b = tb; CK(cub::DevicePartition::If(tmp, b, in, (T *)dco, dcc, (int)n, pred, s)); };
    auto patc_filter = [&] { PK(patc_launch_args_enqueue(kf, &n, args, outs, nullptr)); };
    auto patc_part = [&] { PK(patc_launch_args_enqueue(kp, &n, args, outs, nullptr)); };
    auto patc_stable = [&] { PK(patc_launch_args_enqueue(ks, &n, args, outs, nullptr)); };
    std::vector<Impl> impls = {
        {"copy", [&] { CK(cudaMemcpyAsync(dpo, in, n * 4, cudaMemcpyDeviceToDevice, s)); }},
        {"cub_select", cub_select},
        {"patc_filter", patc_filter},
        {"cub_partition", cub_part},
        {"patc_partition", patc_part},
        {"patc_partition_stable", patc_stable},
    };
    long long m = 0, m2 = 0, m3 = 0;
    bool okf = check("patc_filter", ty, sel, n, cub_select, patc_filter, PREFIX, &m);
    bool okp = check("patc_partition", ty, sel, n, cub_part, patc_part, WHOLE, &m2);
    bool oks = check("patc_partition_stable", ty, sel, n, cub_part, patc_stable, STABLE, &m3);
    const int REPS = 200, WARM = 20;
    std::vector<std::function<void()>> ops;
    for (auto &im : impls) ops.push_back(im.op);
    std::vector<std::vector<float>> alone, queued;
    time_interleaved(ops, s, holdf, WARM, REPS, alone, queued);
    // after the timed runs: the look-back state the runs left must not change the result
    long long ma, mb, mc;
    okf = check("patc_filter (after timing)", ty, sel, n, cub_select, patc_filter, PREFIX, &ma) && okf;
    okp = check("patc_partition (after timing)", ty, sel, n, cub_part, patc_part, WHOLE, &mb) && okp;
    oks = check("patc_partition_stable (after timing)", ty, sel, n, cub_part, patc_stable, STABLE, &mc) && oks;
    float copy = median(alone[0]);
    printf("n=%-10lld %s %2d%% m=%-10lld", n, ty, sel, m);
    for (size_t k = 0; k < impls.size(); k++) {
        float a = median(alone[k]), q = median(queued[k]);
        bool ok = k == 2 ? okf : k == 4 ? okp : k == 5 ? oks : true;
        rows.push_back({impls[k].name, ty, sel, n, k == 0 ? n : m, a, q, copy, ok});
        printf(" %s %.2f/%.2f%s", impls[k].name.c_str(), a, q, ok ? "" : " FAIL");
    }
    printf("\n   CUB/patc alone: filter %.2f, partition %.2f, stable partition %.2f; queued: filter %.2f, "
           "partition %.2f, stable partition %.2f\n",
           median(alone[1]) / median(alone[2]), median(alone[3]) / median(alone[4]), median(alone[3]) / median(alone[5]),
           median(queued[1]) / median(queued[2]), median(queued[3]) / median(queued[4]),
           median(queued[3]) / median(queued[5]));
    fflush(stdout);
}

static const Row *find(const std::string &impl, const char *ty, int sel, long long n) {
    for (auto &r : rows)
        if (r.impl == impl && r.type == ty && r.sel == sel && r.n == n) return &r;
    return nullptr;
}

int main(int argc, char **argv) {
    if (argc < 4) { printf("usage: select_bench OUTDIR FILTER_RISE PARTITION_RISE [tuning_file|-] [n ...]\n"); return 2; }
    const char *outdir = argv[1], *frise = argv[2], *prise = argv[3];
    if (argc > 4 && std::string(argv[4]) != "-") tuning_file = argv[4];
    std::vector<long long> sizes;
    for (int e = 10; e <= 28; e += 2) sizes.push_back(1ll << e);
    sizes.push_back(1000003); sizes.push_back((1 << 20) + 7); sizes.push_back(30000001);
    if (!sizes_from_args(argc, argv, 5, 0x7fffffffll, sizes)) return 2;
    CK(cudaSetDevice(0));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
    sms = p.multiProcessorCount;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    holdf.init();
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    patc_set_stream(ctx, s);
    patc_tuning_line tl;
    setting_for("", 1, &tl); // the whole file checked before anything runs
    maxn = sizes.back();
    float *fin; int *iin;
    CK(cudaMalloc(&fin, maxn * 4)); CK(cudaMalloc(&iin, maxn * 4));
    CK(cudaMalloc(&dpo, maxn * 4)); CK(cudaMalloc(&dco, maxn * 4));
    CK(cudaMalloc(&dpc, 4)); CK(cudaMalloc(&dcc, 4)); CK(cudaMalloc(&dbad, 16));
    {
        std::vector<float> hf(maxn); std::vector<int> hi(maxn);
        uint64_t seed = 0x5EEDBA5Eull;
        for (long long i = 0; i < maxn; i++) {
            uint64_t r = splitmix64(seed);
            hf[i] = (float)(r >> 40) * (1.0f / 16777216.0f); // uniform in [0,1), k * 2^-24
            hi[i] = (int)(r >> 34);                          // uniform in [0, 2^30)
        }
        CK(cudaMemcpy(fin, hf.data(), maxn * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(iin, hi.data(), maxn * 4, cudaMemcpyHostToDevice));
    }
    patc_buffer *pfin, *piin;
    PK(patc_buffer_wrap(ctx, (unsigned long long)fin, maxn * 4, &pfin));
    PK(patc_buffer_wrap(ctx, (unsigned long long)iin, maxn * 4, &piin));
    PK(patc_buffer_wrap(ctx, (unsigned long long)dpo, maxn * 4, &ppo));
    PK(patc_buffer_wrap(ctx, (unsigned long long)dpc, 4, &ppc));
    {   // one temp storage, for the largest need, allocated before any timing
        size_t b;
        tb = 0;
        CK(cub::DeviceSelect::If(nullptr, b, fin, (float *)dco, dcc, (int)maxn, GtF32{0.5f}, s)); tb = std::max(tb, b);
        CK(cub::DeviceSelect::If(nullptr, b, iin, (int *)dco, dcc, (int)maxn, GtI32{0}, s)); tb = std::max(tb, b);
        CK(cub::DevicePartition::If(nullptr, b, fin, (float *)dco, dcc, (int)maxn, GtF32{0.5f}, s)); tb = std::max(tb, b);
        CK(cub::DevicePartition::If(nullptr, b, iin, (int *)dco, dcc, (int)maxn, GtI32{0}, s)); tb = std::max(tb, b);
        CK(cudaMalloc(&tmp, std::max<size_t>(tb, 16)));
    }
    // every variant is compiled before the first timing (and a wrong interface found early)
    for (long long n : sizes) {
        kernel_for(frise, "filterGtF32", PATC_F32, true, n); kernel_for(frise, "filterGtI32", PATC_I32, true, n);
        kernel_for(prise, "partitionGtF32", PATC_F32, false, n); kernel_for(prise, "partitionGtI32", PATC_I32, false, n);
        kernel_for(prise, "partitionStableGtF32", PATC_F32, false, n);
        kernel_for(prise, "partitionStableGtI32", PATC_I32, false, n);
    }
    const int sels[3] = {1, 50, 99};
    for (long long n : sizes) {
        for (int si = 0; si < 3; si++) {
            // x > t selects the share sel of a uniform input: t = 1 - sel/100 of the range
            double q = 1.0 - sels[si] / 100.0;
            group<float, GtF32>("f32", sels[si], fin, (float)q, pfin, kernel_for(frise, "filterGtF32", PATC_F32, true, n),
                                kernel_for(prise, "partitionGtF32", PATC_F32, false, n),
                                kernel_for(prise, "partitionStableGtF32", PATC_F32, false, n), n);
            group<int, GtI32>("i32", sels[si], iin, (int)(q * (1 << 30)), piin, kernel_for(frise, "filterGtI32", PATC_I32, true, n),
                              kernel_for(prise, "partitionGtI32", PATC_I32, false, n),
                              kernel_for(prise, "partitionStableGtI32", PATC_I32, false, n), n);
        }
    }
    std::string csvp = std::string(outdir) + "/select.csv";
    FILE *csv = fopen(csvp.c_str(), "w");
    if (!csv) { printf("cannot write %s\n", csvp.c_str()); return 1; }
    // bytes moved: the copy and a partition read and write n elements, a select (filter)
    // reads n and writes m (and the count)
    fprintf(csv, "impl,type,selectivity,n,m,alone_us,queued_us,copy_us,alone_gbs,pct_copy_alone,correct\n");
    for (auto &r : rows) {
        double bytes = r.impl == "cub_select" || r.impl == "patc_filter" ? 4.0 * (r.n + r.m) + 4 : 8.0 * r.n;
        fprintf(csv, "%s,%s,%d,%lld,%lld,%.3f,%.3f,%.3f,%.1f,%.1f,%s\n", r.impl.c_str(), r.type.c_str(), r.sel, r.n, r.m,
                r.alone, r.queued, r.copy, bytes / (r.alone * 1e3), 100.0 * r.copy / r.alone, r.ok ? "true" : "false");
    }
    fclose(csv);
    // the tables the issue's goal reads: CUB time / patc time, per n, type and selectivity
    std::string mdp = std::string(outdir) + "/select.md";
    FILE *md = fopen(mdp.c_str(), "w");
    if (!md) { printf("cannot write %s\n", mdp.c_str()); return 1; }
    const char *tys[2] = {"f32", "i32"};
    const char *opnames[3] = {"filter (DeviceSelect::If)", "partition (DevicePartition::If)",
                              "stable partition (against DevicePartition::If, which reverses the others)"};
    for (int mode = 0; mode < 2; mode++)
        for (int op = 0; op < 3; op++) {
            const char *cubn = op ? "cub_partition" : "cub_select",
                       *patcn = op == 2 ? "patc_partition_stable" : op ? "patc_partition" : "patc_filter";
            std::string t = std::string("\nCUB / patc, ") + opnames[op] +
                            (mode ? ", queued" : ", alone") + " (above 1: patc faster; patc us in brackets)\n\n| n |";
            for (auto ty : tys) for (int sel : sels) t += std::string(" ") + ty + " " + std::to_string(sel) + "% |";
            t += "\n|---|";
            for (int i = 0; i < 6; i++) t += "---|";
            t += "\n";
            for (long long n : sizes) {
                t += "| " + std::to_string(n) + " |";
                for (auto ty : tys)
                    for (int sel : sels) {
                        const Row *c = find(cubn, ty, sel, n), *pr = find(patcn, ty, sel, n);
                        float cv = mode ? c->queued : c->alone, pv = mode ? pr->queued : pr->alone;
                        char b[64];
                        snprintf(b, sizeof b, " %.2f (%.1f)%s |", cv / pv, pv, pr->ok ? "" : " FAIL");
                        t += b;
                    }
                t += "\n";
            }
            printf("%s", t.c_str());
            fputs(t.c_str(), md);
        }
    fclose(md);
    const char *kns[6] = {"filterGtF32", "filterGtI32", "partitionGtF32", "partitionGtI32", "partitionStableGtF32",
                          "partitionStableGtI32"};
    for (auto kn : kns) {
        printf("patc %s settings:", kn);
        for (long long n : sizes) {
            Choice ch = choice_for(kn, n);
            printf(" %lld: %s%s;", n, defs_text(ch.defs).c_str(), ch.ef ? " evict_first" : "");
        }
        printf("\n");
    }
    printf("%s\n", wrong ? "SOME RESULTS WRONG" : "all results match CUB");
    for (auto &pp : programs) patc_program_free(pp.second);
    patc_destroy(ctx);
    return wrong ? 1 : 0;
}
