// algo_check.cu: libpatrt's ready-made algorithms on the GPU against CUB, computed in
// the same program on the same input (tests/gpu/all.sh, section a, builds and runs it):
//   patc_reduce          sum, min, max   vs cub::DeviceReduce::Sum / Min / Max
//   patc_inclusive_scan  sum, min, max   vs cub::DeviceScan::InclusiveSum / InclusiveScan
//                                           (cuda::minimum<>, cuda::maximum<>: CCCL 3 has
//                                           no cub::Min / cub::Max)
//   patc_exclusive_scan  sum, min, max   vs cub::DeviceScan::ExclusiveSum / ExclusiveScan
//                                           (init: the operator's neutral element, as patc's)
//   filter "fun(x => x > t)"             vs cub::DeviceSelect::If (count, first m elements)
//   partition                            vs cub::DevicePartition::If (count, all n)
//   stable partition                     vs the host's (selected in order, then the others
//                                           in order; count and all n)
// for every type f32 f64 i32 u32 i64 u64 at n = 1, 31, 33, 1000, 4097, 2^20+7, 2^24+3,
// with t at about 50% and 1% selected, none and all. Every comparison is bit for bit:
// the inputs make every sum exact in any order of additions (f32: integers in -49..49;
// f64: integers in -2^20..2^20; i32: -2^14..2^14; u32: any 32-bit value, sums wrap as
// both wrap; i64 and u64: a*2^32 + b with a in -49..49 (0..98) and b any 32-bit value,
// so the low word's carries matter and nothing overflows). Outputs are poisoned before
// each call. A failure prints FAIL with the first differing index; the last line is
// "algo_check: N passed, M failed" and the exit status is 1 when M > 0.
//   algo_check [--root DIR] [--types f32,..] [--sizes n,..] [--sel all|half]
//              [--algos reduce,incl,excl,filter,partition,stable] [--unaligned]
//              [--tuning FILE] [--stress CALLS] [-v]
// --root: the repository root (default $PATC_ROOT, else "."); DIR/patterns is added to
//   the context's include directories.
// --unaligned: the input and output start one element past a 256-byte aligned
//   allocation, so patc must pick its unaligned (element-wise) variants for 4-byte
//   types; a vector variant would fault on the misaligned address.
// --tuning FILE: $PATC_TUNING=FILE (lines overriding the built-in settings, e.g. the
//   pipe kernels at every n); without it PATC_TUNING is unset: the built-in settings.
// --stress CALLS: instead, CALLS patc_inclusive_scan calls (i32 sum mostly; f32 sum,
//   u32 max, u64 sum) of varying n (log-uniform in [1, 2^22], every third at an edge of
//   the built-in scan table), enqueued back to back on one stream, 8 before each wait,
//   each into its own output, each checked against the host's prefix.
// -v: a line per passed check.
#include <cub/cub.cuh>
#include <cuda/functional>
#include <cuda_runtime.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>
#include "patc.h"

static patc_ctx *ctx;
static cudaStream_t s;
static long long passed, failed;
static bool verbose;

static void summary() {
    printf("algo_check: %lld passed, %lld failed\n", passed, failed);
    fflush(stdout);
}

// A CUDA error leaves the context unusable (a fault is sticky): count it and stop.
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("FAIL %s:%d %s: %s (stopping: the CUDA context is unusable)\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); failed++; summary(); exit(1); } } while (0)
// A patc call that must work for the program to go on (context, buffers, creation).
#define PK(x) do { patc_status s_ = (x); if (s_ != PATC_OK) { printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, patc_last_error(ctx)); failed++; summary(); exit(1); } } while (0)

static void pass(const std::string &what) {
    passed++;
    if (verbose) printf("ok   %s\n", what.c_str());
}
static void fail(const std::string &what, const std::string &why) {
    failed++;
    printf("FAIL %s: %s\n", what.c_str(), why.c_str());
    fflush(stdout);
}

static inline uint64_t splitmix64(uint64_t &x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// ------------------------------------------------------------------ types

template <class T> struct TI;
template <> struct TI<float> {
    static constexpr patc_type pt = PATC_F32; static constexpr const char *name = "f32";
    static float gen(uint64_t r) { return (float)((int)(r % 99) - 49); }
};
template <> struct TI<double> {
    static constexpr patc_type pt = PATC_F64; static constexpr const char *name = "f64";
    static double gen(uint64_t r) { return (double)((long long)(r % 2097153) - 1048576); }
};
template <> struct TI<int32_t> {
    static constexpr patc_type pt = PATC_I32; static constexpr const char *name = "i32";
    static int32_t gen(uint64_t r) { return (int32_t)(r % 32769) - 16384; }
};
template <> struct TI<uint32_t> {
    static constexpr patc_type pt = PATC_U32; static constexpr const char *name = "u32";
    static uint32_t gen(uint64_t r) { return (uint32_t)r; }
};
template <> struct TI<int64_t> {
    static constexpr patc_type pt = PATC_I64; static constexpr const char *name = "i64";
    static int64_t gen(uint64_t r) { return ((int64_t)((r >> 40) % 99) - 49) * 4294967296ll + (int64_t)(r & 0xffffffffu); }
};
template <> struct TI<uint64_t> {
    static constexpr patc_type pt = PATC_U64; static constexpr const char *name = "u64";
    static uint64_t gen(uint64_t r) { return ((r >> 40) % 99) << 32 | (r & 0xffffffffu); }
};

template <class T> struct Gt {
    T t;
    __host__ __device__ bool operator()(const T &x) const { return x > t; }
};

// the neutral element patc uses for MIN (largest) and MAX (lowest): +-inf for floats
template <class T> static T largest() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
}
template <class T> static T lowest() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
}

template <class T> static std::string show(T v) {
    char b[64];
    if (std::is_floating_point<T>::value) snprintf(b, sizeof b, "%.9g", (double)v);
    else if (std::is_signed<T>::value) snprintf(b, sizeof b, "%lld", (long long)v);
    else snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    return b;
}

// ------------------------------------------------------------------ device memory

static char *din, *dout, *dref;     // input, patc's output, CUB's output
static unsigned *dcnt, *dcnt_cub;   // patc's and CUB's counts
static size_t cap;                  // bytes of din, dout, dref
static void *tmp;                   // CUB's temp storage
static size_t tmp_bytes;

// A CUB call f(temp, bytes): the size asked first, the storage grown to it.
template <class F> static void cub_call(F f) {
    size_t b = 0;
    CK(f(nullptr, b));
    if (b > tmp_bytes) {
        if (tmp) CK(cudaFree(tmp));
        CK(cudaMalloc(&tmp, b));
        tmp_bytes = b;
    }
    b = tmp_bytes;
    CK(f(tmp, b));
}

// got[0..len) (patc's, on the device) against want (CUB's on the device, dwant, or the
// host's, hwant), word for word.
template <class T>
static void compare(const std::string &what, const T *dgot, const T *dwant, const T *hwant, long long len,
                    std::vector<T> &got, std::vector<T> &want) {
    if (len > 0) {
        CK(cudaMemcpyAsync(got.data(), dgot, len * sizeof(T), cudaMemcpyDeviceToHost, s));
        if (dwant) CK(cudaMemcpyAsync(want.data(), dwant, len * sizeof(T), cudaMemcpyDeviceToHost, s));
    }
    CK(cudaStreamSynchronize(s));
    const T *w = dwant ? want.data() : hwant;
    long long bad = 0, first = -1;
    for (long long i = 0; i < len; i++)
        if (memcmp(&got[i], &w[i], sizeof(T)) != 0) {
            if (first < 0) first = i;
            bad++;
        }
    if (first < 0) { pass(what); return; }
    fail(what, std::to_string(bad) + " of " + std::to_string(len) + " elements differ from " + (dwant ? "CUB's" : "the host's") +
               ", the first at index " + std::to_string(first) + " (patc " + show(got[first]) + ", expected " + show(w[first]) + ")");
}

static const char *const op_names[] = {"sum", "min", "max"};

enum { A_REDUCE = 1, A_INCL = 2, A_EXCL = 4, A_FILTER = 8, A_PART = 16, A_STABLE = 32, A_ALL = 63 };

// ------------------------------------------------------------------ the sweep of one type

template <class T>
static void run_type(const std::vector<long long> &sizes, bool unaligned, bool all_sel, unsigned algos) {
    const patc_type pt = TI<T>::pt;
    const char *tn = TI<T>::name;
    const size_t off = unaligned ? sizeof(T) : 0;
    T *in = (T *)(din + off), *out = (T *)(dout + off), *ref = (T *)dref;
    const long long maxn = *std::max_element(sizes.begin(), sizes.end());
    patc_buffer *pin, *pout, *pcnt;
    PK(patc_buffer_wrap(ctx, (unsigned long long)in, cap - off, &pin));
    PK(patc_buffer_wrap(ctx, (unsigned long long)out, cap - off, &pout));
    PK(patc_buffer_wrap(ctx, (unsigned long long)dcnt, 4, &pcnt));
    std::vector<T> h(maxn), got(maxn), want(maxn);
    uint64_t seed = 0x5EED0000ull + (uint64_t)pt;
    for (long long i = 0; i < maxn; i++) h[i] = TI<T>::gen(splitmix64(seed));
    CK(cudaMemcpyAsync(in, h.data(), maxn * sizeof(T), cudaMemcpyHostToDevice, s));
    CK(cudaStreamSynchronize(s));
    // the filter and partitions (the reductions and scans go through the one-call forms;
    // their twins here only answer patc_algo_describe)
    auto make = [&](patc_algorithm alg, patc_op op, bool pred) {
        patc_algo_spec sp = {};
        sp.algorithm = alg; sp.type = pt; sp.op = op;
        static const char *tname = "t";
        if (pred) { sp.lambda = "fun(x => x > t)"; sp.nscalars = 1; sp.scalar_names[0] = tname; sp.scalar_types[0] = pt; }
        patc_algo *a;
        PK(patc_algo_create(ctx, &sp, &a));
        return a;
    };
    patc_algo *filt = make(PATC_ALGO_FILTER, PATC_OP_SUM, true), *part = make(PATC_ALGO_PARTITION, PATC_OP_SUM, true),
              *stab = make(PATC_ALGO_PARTITION_STABLE, PATC_OP_SUM, true);
    patc_algo *dred = make(PATC_ALGO_REDUCE, PATC_OP_SUM, false), *dinc = make(PATC_ALGO_INCLUSIVE_SCAN, PATC_OP_SUM, false);
    const std::string mode = unaligned ? " unaligned" : "";
    auto poison = [&](long long n) {
        CK(cudaMemsetAsync(out, 0xa5, n * sizeof(T), s)); CK(cudaMemsetAsync(ref, 0x5a, n * sizeof(T), s));
        CK(cudaMemsetAsync(dcnt, 0xff, 4, s)); CK(cudaMemsetAsync(dcnt_cub, 0xee, 4, s));
    };
    for (long long n : sizes) {
        if (!unaligned) { // the variants (patc_algo_describe assumes aligned buffers)
            char d1[160], d2[160], d3[160], d4[160], d5[160];
            PK(patc_algo_describe(dred, n, d1, sizeof d1)); PK(patc_algo_describe(dinc, n, d2, sizeof d2));
            PK(patc_algo_describe(filt, n, d3, sizeof d3)); PK(patc_algo_describe(part, n, d4, sizeof d4));
            PK(patc_algo_describe(stab, n, d5, sizeof d5));
            printf("%s n=%lld: %s | %s | %s | %s | %s\n", tn, n, d1, d2, d3, d4, d5);
        }
        const std::string at = std::string(" ") + tn + mode + " n=" + std::to_string(n);
        for (int op = 0; op < 3; op++) {
            patc_op pop = (patc_op)op;
            if (algos & A_REDUCE) {
                std::string what = std::string("reduce_") + op_names[op] + at;
                poison(1);
                if (op == 0) cub_call([&](void *t, size_t &b) { return cub::DeviceReduce::Sum(t, b, in, ref, (int)n, s); });
                if (op == 1) cub_call([&](void *t, size_t &b) { return cub::DeviceReduce::Min(t, b, in, ref, (int)n, s); });
                if (op == 2) cub_call([&](void *t, size_t &b) { return cub::DeviceReduce::Max(t, b, in, ref, (int)n, s); });
                patc_status st = patc_reduce(ctx, pt, pop, pin, pout, n, s);
                CK(cudaStreamSynchronize(s));
                if (st != PATC_OK) fail(what, std::string("patc_reduce: ") + patc_last_error(ctx));
                else compare<T>(what, out, ref, nullptr, 1, got, want);
            }
            if (algos & A_INCL) {
                std::string what = std::string("inclusive_scan_") + op_names[op] + at;
                poison(n);
                if (op == 0) cub_call([&](void *t, size_t &b) { return cub::DeviceScan::InclusiveSum(t, b, in, ref, (int)n, s); });
                if (op == 1) cub_call([&](void *t, size_t &b) { return cub::DeviceScan::InclusiveScan(t, b, in, ref, cuda::minimum<>{}, (int)n, s); });
                if (op == 2) cub_call([&](void *t, size_t &b) { return cub::DeviceScan::InclusiveScan(t, b, in, ref, cuda::maximum<>{}, (int)n, s); });
                patc_status st = patc_inclusive_scan(ctx, pt, pop, pin, pout, n, s);
                CK(cudaStreamSynchronize(s));
                if (st != PATC_OK) fail(what, std::string("patc_inclusive_scan: ") + patc_last_error(ctx));
                else compare<T>(what, out, ref, nullptr, n, got, want);
            }
            if (algos & A_EXCL) {
                std::string what = std::string("exclusive_scan_") + op_names[op] + at;
                poison(n);
                if (op == 0) cub_call([&](void *t, size_t &b) { return cub::DeviceScan::ExclusiveSum(t, b, in, ref, (int)n, s); });
                if (op == 1) cub_call([&](void *t, size_t &b) { return cub::DeviceScan::ExclusiveScan(t, b, in, ref, cuda::minimum<>{}, largest<T>(), (int)n, s); });
                if (op == 2) cub_call([&](void *t, size_t &b) { return cub::DeviceScan::ExclusiveScan(t, b, in, ref, cuda::maximum<>{}, lowest<T>(), (int)n, s); });
                patc_status st = patc_exclusive_scan(ctx, pt, pop, pin, pout, n, s);
                CK(cudaStreamSynchronize(s));
                if (st != PATC_OK) fail(what, std::string("patc_exclusive_scan: ") + patc_last_error(ctx));
                else compare<T>(what, out, ref, nullptr, n, got, want);
            }
        }
        if (!(algos & (A_FILTER | A_PART | A_STABLE))) continue;
        // the thresholds: about 50% and 1% selected (from a sorted sample), none, all
        std::vector<T> sample(h.begin(), h.begin() + std::min(n, 65536ll));
        std::sort(sample.begin(), sample.end());
        long long k = (long long)sample.size();
        struct Th { const char *name; T t; };
        std::vector<Th> ths = {{"50%", sample[k / 2]}};
        if (all_sel) {
            ths.push_back({"1%", sample[k - 1 - k / 100]});
            ths.push_back({"none", std::numeric_limits<T>::max()});
            ths.push_back({"all", std::numeric_limits<T>::lowest()});
        }
        for (const Th &th : ths) {
            const T t = th.t;
            const void *sc[1] = {&t};
            const std::string sel = at + " t=" + show(t) + " (" + th.name + ")";
            for (int alg = 0; alg < 3; alg++) {
                unsigned bit = alg == 0 ? A_FILTER : alg == 1 ? A_PART : A_STABLE;
                if (!(algos & bit)) continue;
                std::string what = std::string(alg == 0 ? "filter" : alg == 1 ? "partition" : "partition_stable") + sel;
                poison(n);
                if (alg == 0) cub_call([&](void *tp, size_t &b) { return cub::DeviceSelect::If(tp, b, in, ref, dcnt_cub, (int)n, Gt<T>{t}, s); });
                else cub_call([&](void *tp, size_t &b) { return cub::DevicePartition::If(tp, b, in, ref, dcnt_cub, (int)n, Gt<T>{t}, s); });
                patc_status st = patc_algo_enqueue(alg == 0 ? filt : alg == 1 ? part : stab, pin, pout, pcnt, n, sc, s);
                CK(cudaStreamSynchronize(s));
                if (st != PATC_OK) { fail(what, std::string("patc_algo_enqueue: ") + patc_last_error(ctx)); continue; }
                unsigned mp, mc;
                CK(cudaMemcpyAsync(&mp, dcnt, 4, cudaMemcpyDeviceToHost, s));
                CK(cudaMemcpyAsync(&mc, dcnt_cub, 4, cudaMemcpyDeviceToHost, s));
                CK(cudaStreamSynchronize(s));
                if (alg == 2) { // the host's stable order
                    long long m = 0;
                    for (long long i = 0; i < n; i++) if (h[i] > t) want[m++] = h[i];
                    long long r = m;
                    for (long long i = 0; i < n; i++) if (!(h[i] > t)) want[r++] = h[i];
                    if (mp != (unsigned)m || mc != (unsigned)m) {
                        fail(what, "patc's count " + std::to_string(mp) + ", the host's " + std::to_string(m) + ", CUB's " + std::to_string(mc));
                        continue;
                    }
                    compare<T>(what, out, nullptr, want.data(), n, got, want);
                    continue;
                }
                if (mp != mc) {
                    fail(what, "patc's count " + std::to_string(mp) + ", CUB's " + std::to_string(mc));
                    continue;
                }
                compare<T>(what, out, ref, nullptr, alg == 0 ? (long long)mc : n, got, want);
            }
        }
    }
    patc_algo_free(filt); patc_algo_free(part); patc_algo_free(stab); patc_algo_free(dred); patc_algo_free(dinc);
    patc_buffer_free(pin); patc_buffer_free(pout); patc_buffer_free(pcnt);
}

// ------------------------------------------------------------------ back-to-back scans

// got against the host's inclusive prefix of in[0..n) under op (integers wrap as on the
// device: the sums are done on the unsigned type)
template <class T, class U>
static void check_prefix(const std::string &what, const T *in, const T *got, long long n, patc_op op) {
    T acc = in[0];
    for (long long i = 0; i < n; i++) {
        if (i > 0) {
            if (op == PATC_OP_SUM) acc = (T)((U)acc + (U)in[i]);
            else if (op == PATC_OP_MAX) acc = std::max(acc, in[i]);
            else acc = std::min(acc, in[i]);
        }
        if (memcmp(&acc, &got[i], sizeof(T)) != 0) {
            fail(what, "element " + std::to_string(i) + " is " + show(got[i]) + ", want " + show(acc));
            return;
        }
    }
    pass(what);
}

static void stress(int calls) {
    const long long MAXN = 1ll << 22, PAD = 4096;
    struct Kind { patc_type t; patc_op op; const char *name; };
    static const Kind kinds[4] = {{PATC_I32, PATC_OP_SUM, "i32 sum"}, {PATC_F32, PATC_OP_SUM, "f32 sum"},
                                  {PATC_U32, PATC_OP_MAX, "u32 max"}, {PATC_U64, PATC_OP_SUM, "u64 sum"}};
    // the edges of the built-in scan table (where the variant changes), and small sizes
    static const long long edges[] = {1, 2, 31, 32, 33, 1536, 1537, 6144, 6145, 12288, 12289, 98304, 98305, 196608,
                                      196609, 393216, 393217, 786432, 786433, 1572864, 1572865, 3145728, 3145729, MAXN};
    const int nedges = sizeof edges / sizeof edges[0];
    // host inputs (i32 in -49..49, f32 the same as floats, u32 and u64 random) and their device copies
    std::vector<int32_t> hi(MAXN + PAD); std::vector<float> hf(MAXN + PAD);
    std::vector<uint32_t> hu(MAXN + PAD); std::vector<uint64_t> hl(MAXN + PAD);
    uint64_t seed = 0x57BE55ull;
    for (long long i = 0; i < MAXN + PAD; i++) {
        hi[i] = (int32_t)(splitmix64(seed) % 99) - 49; hf[i] = (float)hi[i];
        hu[i] = (uint32_t)splitmix64(seed); hl[i] = splitmix64(seed);
    }
    const void *hsrc[4] = {hi.data(), hf.data(), hu.data(), hl.data()};
    char *dins[4];
    for (int k = 0; k < 4; k++) {
        size_t sz = patc_type_size(kinds[k].t);
        CK(cudaMalloc(&dins[k], (MAXN + PAD) * sz));
        CK(cudaMemcpyAsync(dins[k], hsrc[k], (MAXN + PAD) * sz, cudaMemcpyHostToDevice, s));
    }
    const int NOUT = 8;
    char *douts[NOUT];
    patc_buffer *pouts[NOUT];
    for (int j = 0; j < NOUT; j++) {
        CK(cudaMalloc(&douts[j], MAXN * 8));
        PK(patc_buffer_wrap(ctx, (unsigned long long)douts[j], MAXN * 8, &pouts[j]));
    }
    CK(cudaStreamSynchronize(s));
    std::vector<char> got(MAXN * 8);
    uint64_t rng = 0xB2B5CA11ull;
    int done = 0;
    while (done < calls) {
        struct Call { int kind; long long n, off; patc_status st; patc_buffer *in; };
        Call c[NOUT];
        int batch = std::min(NOUT, calls - done);
        for (int j = 0; j < batch; j++) {
            uint64_t r = splitmix64(rng);
            int call = done + j;
            c[j].kind = call % 8 < 5 ? 0 : call % 8 - 4; // 5 of 8 i32 sums, then f32, u32 max, u64
            if (call % 3 == 0) c[j].n = edges[r % nedges]; // every kind meets the edges
            else c[j].n = std::max(1ll, std::min(MAXN, (long long)std::pow(2.0, 22.0 * (double)(r >> 11) / 9007199254740992.0)));
            c[j].off = (long long)((r >> 5) % (PAD / 4)) * 4; // 16-byte steps: the aligned variants
            size_t sz = patc_type_size(kinds[c[j].kind].t);
            PK(patc_buffer_wrap(ctx, (unsigned long long)(dins[c[j].kind] + c[j].off * sz), c[j].n * sz, &c[j].in));
            CK(cudaMemsetAsync(douts[j], 0xa5, c[j].n * sz, s));
        }
        for (int j = 0; j < batch; j++) // back to back: nothing between them, no wait
            c[j].st = patc_inclusive_scan(ctx, kinds[c[j].kind].t, kinds[c[j].kind].op, c[j].in, pouts[j], c[j].n, s);
        CK(cudaStreamSynchronize(s));
        CK(cudaGetLastError());
        for (int j = 0; j < batch; j++) {
            const Kind &kd = kinds[c[j].kind];
            std::string what = "stress scan " + std::to_string(done + j) + " (" + kd.name + ", n=" + std::to_string(c[j].n) +
                               ", input offset " + std::to_string(c[j].off) + ")";
            patc_buffer_free(c[j].in);
            if (c[j].st != PATC_OK) { fail(what, std::string("patc_inclusive_scan: ") + patc_last_error(ctx)); continue; }
            size_t sz = patc_type_size(kd.t);
            CK(cudaMemcpyAsync(got.data(), douts[j], c[j].n * sz, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            long long o = c[j].off, n = c[j].n;
            switch (c[j].kind) {
            case 0: check_prefix<int32_t, uint32_t>(what, hi.data() + o, (const int32_t *)got.data(), n, kd.op); break;
            case 1: check_prefix<float, float>(what, hf.data() + o, (const float *)got.data(), n, kd.op); break;
            case 2: check_prefix<uint32_t, uint32_t>(what, hu.data() + o, (const uint32_t *)got.data(), n, kd.op); break;
            default: check_prefix<uint64_t, uint64_t>(what, hl.data() + o, (const uint64_t *)got.data(), n, kd.op); break;
            }
        }
        done += batch;
    }
    for (int j = 0; j < NOUT; j++) { patc_buffer_free(pouts[j]); CK(cudaFree(douts[j])); }
    for (int k = 0; k < 4; k++) CK(cudaFree(dins[k]));
}

// ------------------------------------------------------------------ main

static std::vector<std::string> split(const std::string &v) {
    std::vector<std::string> r;
    size_t a = 0;
    while (a <= v.size()) {
        size_t b = v.find(',', a);
        if (b == std::string::npos) b = v.size();
        if (b > a) r.push_back(v.substr(a, b - a));
        a = b + 1;
    }
    return r;
}

int main(int argc, char **argv) {
    const char *root = getenv("PATC_ROOT") ? getenv("PATC_ROOT") : ".";
    std::vector<std::string> types = {"f32", "f64", "i32", "u32", "i64", "u64"};
    std::vector<long long> sizes = {1, 31, 33, 1000, 4097, (1ll << 20) + 7, (1ll << 24) + 3};
    bool unaligned = false, all_sel = true;
    unsigned algos = A_ALL;
    const char *tuning = nullptr;
    int stress_calls = 0;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        bool more = i + 1 < argc;
        if (a == "--root" && more) root = argv[++i];
        else if (a == "--types" && more) types = split(argv[++i]);
        else if (a == "--sizes" && more) {
            sizes.clear();
            for (auto &x : split(argv[++i])) {
                long long n = atoll(x.c_str());
                if (n < 1 || n > (1ll << 30)) { printf("bad size %s\n", x.c_str()); return 2; }
                sizes.push_back(n);
            }
        } else if (a == "--sel" && more) all_sel = std::string(argv[++i]) != "half";
        else if (a == "--algos" && more) {
            algos = 0;
            for (auto &x : split(argv[++i])) {
                unsigned bit = x == "reduce" ? A_REDUCE : x == "incl" ? A_INCL : x == "excl" ? A_EXCL : x == "filter" ? A_FILTER
                               : x == "partition" ? A_PART : x == "stable" ? A_STABLE : 0;
                if (!bit) { printf("unknown algorithm %s (reduce, incl, excl, filter, partition, stable)\n", x.c_str()); return 2; }
                algos |= bit;
            }
        } else if (a == "--unaligned") unaligned = true;
        else if (a == "--tuning" && more) tuning = argv[++i];
        else if (a == "--stress" && more) stress_calls = atoi(argv[++i]);
        else if (a == "-v") verbose = true;
        else {
            printf("usage: algo_check [--root DIR] [--types f32,..] [--sizes n,..] [--sel all|half] [--algos reduce,incl,excl,"
                   "filter,partition,stable] [--unaligned] [--tuning FILE] [--stress CALLS] [-v]\n");
            return 2;
        }
    }
    if (tuning) setenv("PATC_TUNING", tuning, 1);
    else unsetenv("PATC_TUNING");
    std::string patterns = std::string(root) + "/patterns";
    if (access((patterns + "/scan.rise").c_str(), R_OK) != 0) {
        printf("no %s/scan.rise: give the repository root with --root or $PATC_ROOT\n", patterns.c_str());
        return 2;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) { printf("no GPU\n"); return 77; }
    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("FAIL patc_create: %s\n", patc_last_error(ctx)); return 1; }
    PK(patc_add_include_dir(ctx, patterns.c_str()));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("algo_check on %s; %s; %s\n", prop.name, tuning ? (std::string("PATC_TUNING=") + tuning).c_str() : "built-in settings",
           stress_calls ? "back-to-back scans" : unaligned ? "unaligned buffers (one element past 256-byte alignment)" : "aligned buffers");
    if (stress_calls > 0) {
        stress(stress_calls);
    } else {
        const long long maxn = *std::max_element(sizes.begin(), sizes.end());
        cap = (size_t)(maxn + 64) * 8;
        CK(cudaMalloc(&din, cap)); CK(cudaMalloc(&dout, cap)); CK(cudaMalloc(&dref, cap));
        CK(cudaMalloc(&dcnt, 256)); CK(cudaMalloc(&dcnt_cub, 256));
        for (auto &t : types) {
            long long p0 = passed, f0 = failed;
            if (t == "f32") run_type<float>(sizes, unaligned, all_sel, algos);
            else if (t == "f64") run_type<double>(sizes, unaligned, all_sel, algos);
            else if (t == "i32") run_type<int32_t>(sizes, unaligned, all_sel, algos);
            else if (t == "u32") run_type<uint32_t>(sizes, unaligned, all_sel, algos);
            else if (t == "i64") run_type<int64_t>(sizes, unaligned, all_sel, algos);
            else if (t == "u64") run_type<uint64_t>(sizes, unaligned, all_sel, algos);
            else { printf("unknown type %s\n", t.c_str()); return 2; }
            printf("%s%s: %lld passed, %lld failed\n", t.c_str(), unaligned ? " unaligned" : "", passed - p0, failed - f0);
            fflush(stdout);
        }
    }
    CK(cudaGetLastError());
    patc_destroy(ctx);
    summary();
    return failed ? 1 : 0;
}
