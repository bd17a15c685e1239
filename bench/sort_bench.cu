// sort_bench.cu: libpatrt's radix sort of keys (patc_sort_keys: patterns/radixsort.rise,
// a histogram of all four 8-bit digits, their scan, four multisplit passes; up to 8192
// keys one launch of rsSmall, the sortTiles block sort) against CUB's
// cub::DeviceRadixSort::SortKeys in the same process, on one stream, over the same input,
// and its sort of pairs (patc_sort_pairs, f32 keys with u32 values, type "f32+u32": the
// values the input indices) against cub::DeviceRadixSort::SortPairs:
//   u32 and f32 keys; inputs uniform (u32: random words; f32: uniform in [0, 1)), few
//   unique values (the AND of 3 random words; f32: those words as bits) and sorted
//   (the uniform keys, sorted once by CUB before timing);
//   n = 2^10, 2^12, ..., 2^28 and 1000, 4097, 8192, 8193, 12288, 2^20+7, 2^24+3, 2^28-5, or
//   the trailing arguments;
// and a device-to-device copy of the n keys' bytes (pairs: of 8n bytes, keys and values)
// (cudaMemcpyAsync) as a reference (a sort reads and writes its keys at least once,
// patc's and CUB Onesweep's five reads and four writes; the values four of each).
//   sort_bench [--root DIR] OUTDIR [n ...]
// DIR is the repository root (default $PATC_ROOT, else "."): DIR/patterns is added to the
// context's include directories.
// Every result is checked before and after the timed runs: the outputs are poisoned,
// both sorts run, and patc's n keys (and values) must equal CUB's word for word (both
// sorts are stable and order -0.0 and +0.0 as equals, so the words agree exactly); a mismatch
// prints FAIL with the first differing index, and the exit status is 1. Timing is
// bench/timing.cuh's: warm-up rounds, then REPS rounds (200 up to 2^20, 100 up to 2^24,
// 30 above), each running the copy, CUB and patc once, interleaved, with CUDA events,
// alone (on an idle stream, the host's launch cost included) and queued (behind a kernel
// holding the stream: GPU time only); medians. The headline ratio is alone's; sort.md
// also has the queued one, and each side's temporary device memory at n (CUB's
// temp_storage_bytes, which on plain pointers holds its second key buffer;
// patc_sorter_temp_bytes).
// Writes OUTDIR/sort.csv (type,input,n,impl,median_us,Gkeys_per_s,ratio_cub_over_patc,
// temp_bytes) and OUTDIR/sort.md.
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
static unsigned *din, *dout, *dref;   // the input, patc's and CUB's outputs (words); din, dout 2*maxn words
static unsigned *dvin, *dvout, *dvref; // pairs: the values (dvin = din + maxn, dvout = dout + maxn)
static unsigned long long *dbad;
static void *tmp; static size_t tb;    // CUB's temp storage, for the largest n
static int wrong = 0;

static std::string size_name(long long n) {
    for (int e = 0; e < 63; e++) {
        long long p = 1ll << e;
        if (n == p) return "2^" + std::to_string(e);
        if (n == p - 5 && e >= 10) return "2^" + std::to_string(e) + "-5";
        if (n == p + 3 && e >= 10) return "2^" + std::to_string(e) + "+3";
        if (n == p + 7 && e >= 10) return "2^" + std::to_string(e) + "+7";
    }
    return std::to_string(n);
}

struct Case { const char *type, *input; bool f32, pairs; };
struct Row { std::string type, input; long long n; float cub, patc, cubq, patcq, copy; size_t cub_temp, patc_temp; bool ok; };

static void cub_sort(bool f32, const unsigned *in, unsigned *out, long long n) {
    size_t b = tb;
    if (f32) CK(cub::DeviceRadixSort::SortKeys(tmp, b, (const float *)in, (float *)out, (int)n, 0, 32, s));
    else CK(cub::DeviceRadixSort::SortKeys(tmp, b, in, out, (int)n, 0, 32, s));
}

// f32 keys with u32 values
static void cub_sort_pairs(const unsigned *in, unsigned *out, const unsigned *vin, unsigned *vout, long long n) {
    size_t b = tb;
    CK(cub::DeviceRadixSort::SortPairs(tmp, b, (const float *)in, (float *)out, vin, vout, (int)n, 0, 32, s));
}

static void patc_sort(const Case &c, patc_sorter *so, long long n) {
    if (c.pairs)
        PK(patc_sort_pairs_ptr(so, (unsigned long long)din, (unsigned long long)dout, (unsigned long long)dvin,
                               (unsigned long long)dvout, n, s));
    else PK(patc_sort_keys_ptr(so, (unsigned long long)din, (unsigned long long)dout, n, s));
}

// the number of words that differ between a and b (n of them), and the first index
static void count_differ(const unsigned *a, const unsigned *b, long long n, unsigned long long bad[2]) {
    bad[0] = 0; bad[1] = ~0ull;
    CK(cudaMemcpyAsync(dbad, bad, 16, cudaMemcpyHostToDevice, s));
    differ_words<<<(unsigned)std::min<long long>((n + 255) / 256, 1024), 256, 0, s>>>(a, b, n, dbad);
    CK(cudaMemcpyAsync(bad, dbad, 16, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
}

static bool check(const Case &c, patc_sorter *so, long long n, const char *when) {
    CK(cudaMemsetAsync(dout, 0xff, n * 4, s)); CK(cudaMemsetAsync(dref, 0xee, n * 4, s));
    if (c.pairs) { CK(cudaMemsetAsync(dvout, 0xdd, n * 4, s)); CK(cudaMemsetAsync(dvref, 0xcc, n * 4, s)); }
    if (c.pairs) cub_sort_pairs(din, dref, dvin, dvref, n);
    else cub_sort(c.f32, din, dref, n);
    patc_sort(c, so, n);
    for (int v = 0; v < (c.pairs ? 2 : 1); v++) {
        const unsigned *p = v ? dvout : dout, *q = v ? dvref : dref;
        unsigned long long bad[2];
        count_differ(p, q, n, bad);
        if (bad[0]) {
            unsigned got, want;
            CK(cudaMemcpyAsync(&got, p + bad[1], 4, cudaMemcpyDeviceToHost, s));
            CK(cudaMemcpyAsync(&want, q + bad[1], 4, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            printf("FAIL %s %s n=%lld (%s): %llu of %lld %s differ from CUB's, the first at index %llu (patc 0x%08x, CUB "
                   "0x%08x)\n", c.type, c.input, n, when, bad[0], n, v ? "values" : "keys", bad[1], got, want);
            wrong++;
            return false;
        }
    }
    return true;
}

int main(int argc, char **argv) {
    const char *root = getenv("PATC_ROOT") ? getenv("PATC_ROOT") : ".";
    int ai = 1;
    if (ai + 1 < argc && std::string(argv[ai]) == "--root") { root = argv[ai + 1]; ai += 2; }
    if (ai >= argc) { printf("usage: sort_bench [--root DIR] OUTDIR [n ...]\n"); return 2; }
    const char *outdir = argv[ai++];
    std::vector<long long> sizes;
    for (int e = 10; e <= 28; e += 2) sizes.push_back(1ll << e);
    // 4097, 8192, 8193, 12288: about the one-launch sort's last tiles (4096, 8192 keys) and
    // where CUB leaves its one-block sort (4097 keys one block, 2^14 Onesweep on an H100)
    for (long long n : {1000ll, 4097ll, 8192ll, 8193ll, 12288ll, (1ll << 20) + 7, (1ll << 24) + 3, (1ll << 28) - 5})
        sizes.push_back(n);
    if (!sizes_from_args(argc, argv, ai, 1ll << 28, sizes)) return 2;
    const long long maxn = sizes.back();
    std::string patterns = std::string(root) + "/patterns";
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, %d SMs; patterns from %s\n", prop.name, prop.multiProcessorCount, patterns.c_str());
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    holdf.init();
    CK(cudaMalloc(&din, maxn * 8)); CK(cudaMalloc(&dout, maxn * 8)); CK(cudaMalloc(&dref, maxn * 4));
    CK(cudaMalloc(&dvref, maxn * 4));
    dvin = din + maxn; dvout = dout + maxn;
    CK(cudaMalloc(&dbad, 16));
    {
        size_t b = 0;
        CK(cub::DeviceRadixSort::SortKeys(nullptr, b, (const float *)din, (float *)dout, (int)maxn, 0, 32, s)); tb = b;
        CK(cub::DeviceRadixSort::SortKeys(nullptr, b, (const unsigned *)din, dout, (int)maxn, 0, 32, s)); tb = std::max(tb, b);
        CK(cub::DeviceRadixSort::SortPairs(nullptr, b, (const float *)din, (float *)dout, (const unsigned *)dvin, dvout,
                                           (int)maxn, 0, 32, s)); tb = std::max(tb, b);
        CK(cudaMalloc(&tmp, tb));
    }
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    PK(patc_add_include_dir(ctx, patterns.c_str()));
    patc_sorter *su, *sf, *sp;
    PK(patc_sorter_create(ctx, PATC_U32, &su));
    PK(patc_sorter_create(ctx, PATC_F32, &sf));
    PK(patc_sorter_create_pairs(ctx, PATC_F32, PATC_U32, &sp));
    const Case cases[] = {{"u32", "uniform", false, false}, {"u32", "few", false, false}, {"u32", "sorted", false, false},
                          {"f32", "uniform", true, false},  {"f32", "few", true, false},  {"f32", "sorted", true, false},
                          {"f32+u32", "uniform", true, true}, {"f32+u32", "few", true, true},
                          {"f32+u32", "sorted", true, true}};
    std::vector<unsigned> host(maxn);
    std::vector<Row> rows;
    for (const Case &c : cases) {
        patc_sorter *so = c.pairs ? sp : c.f32 ? sf : su;
        // the input for the largest n; each n sorts its first n keys
        uint64_t seed = 0x5EEDBA5Eull + (c.f32 ? 1 : 0);
        bool few = strcmp(c.input, "few") == 0;
        for (long long i = 0; i < maxn; i++) {
            uint32_t w = (uint32_t)splitmix64(seed);
            if (few) w &= (uint32_t)splitmix64(seed) & (uint32_t)splitmix64(seed);
            else if (c.f32) { float f = (float)(w >> 8) * (1.0f / 16777216.0f); memcpy(&w, &f, 4); }
            host[i] = w;
        }
        CK(cudaMemcpyAsync(din, host.data(), maxn * 4, cudaMemcpyHostToDevice, s));
        if (c.pairs) { // the values: each key's input index
            std::vector<unsigned> idx(maxn);
            for (long long i = 0; i < maxn; i++) idx[i] = (unsigned)i;
            CK(cudaMemcpyAsync(dvin, idx.data(), maxn * 4, cudaMemcpyHostToDevice, s));
            CK(cudaStreamSynchronize(s));
        }
        CK(cudaStreamSynchronize(s));
        // size the sorter's temporary memory once, outside the timed runs
        patc_sort(c, so, maxn);
        CK(cudaStreamSynchronize(s));
        for (long long n : sizes) {
            if (strcmp(c.input, "sorted") == 0) { // din[0..n) sorted by CUB, in place of the uniform keys
                CK(cudaMemcpyAsync(din, host.data(), n * 4, cudaMemcpyHostToDevice, s));
                cub_sort(c.f32, din, dref, n);
                CK(cudaMemcpyAsync(din, dref, n * 4, cudaMemcpyDeviceToDevice, s));
                CK(cudaStreamSynchronize(s));
            }
            bool ok = check(c, so, n, "before timing");
            const long long wb = c.pairs ? 8 : 4;
            std::vector<std::function<void()>> ops = {
                [n, wb] { CK(cudaMemcpyAsync(dout, din, n * wb, cudaMemcpyDeviceToDevice, s)); },
                [&c, n] {
                    if (c.pairs) cub_sort_pairs(din, dref, dvin, dvref, n);
                    else cub_sort(c.f32, din, dref, n);
                },
                [&c, so, n] { patc_sort(c, so, n); }};
            const int reps = n <= 1ll << 20 ? 200 : n <= 1ll << 24 ? 100 : 30, warm = n <= 1ll << 24 ? 20 : 5;
            std::vector<std::vector<float>> alone, queued;
            time_interleaved(ops, s, holdf, warm, reps, alone, queued);
            ok = check(c, so, n, "after timing") && ok;
            size_t cb = 0, pb = 0;
            if (c.pairs)
                CK(cub::DeviceRadixSort::SortPairs(nullptr, cb, (const float *)din, (float *)dout, (const unsigned *)dvin,
                                                   dvout, (int)n, 0, 32, s));
            else if (c.f32) CK(cub::DeviceRadixSort::SortKeys(nullptr, cb, (const float *)din, (float *)dout, (int)n, 0, 32, s));
            else CK(cub::DeviceRadixSort::SortKeys(nullptr, cb, din, dout, (int)n, 0, 32, s));
            PK(patc_sorter_temp_bytes(so, n, &pb));
            Row r{c.type, c.input, n, median_us(alone[1]), median_us(alone[2]), median_us(queued[1]), median_us(queued[2]),
                  median_us(alone[0]), cb, pb, ok};
            rows.push_back(r);
            printf("%s %-7s n=%-10lld (%-7s) copy %9.2f us  CUB %9.2f us  patc %9.2f us  CUB/patc %.3f (queued %.3f)  "
                   "patc %.2f Gkeys/s  temp CUB %zu patc %zu%s\n", c.type, c.input, n, size_name(n).c_str(), r.copy, r.cub,
                   r.patc, r.cub / r.patc, r.cubq / r.patcq, n / (r.patc * 1e3), cb, pb, ok ? "" : "  FAIL");
            fflush(stdout);
        }
    }
    std::string csvp = std::string(outdir) + "/sort.csv", mdp = std::string(outdir) + "/sort.md";
    FILE *csv = fopen(csvp.c_str(), "w"), *md = fopen(mdp.c_str(), "w");
    if (!csv || !md) { printf("cannot write %s or %s\n", csvp.c_str(), mdp.c_str()); return 1; }
    fprintf(csv, "type,input,n,impl,median_us,Gkeys_per_s,ratio_cub_over_patc,temp_bytes\n");
    for (auto &r : rows) {
        fprintf(csv, "%s,%s,%lld,memcpy_d2d,%.3f,%.3f,,\n", r.type.c_str(), r.input.c_str(), r.n, r.copy, r.n / (r.copy * 1e3));
        fprintf(csv, "%s,%s,%lld,cub,%.3f,%.3f,1.000,%zu\n", r.type.c_str(), r.input.c_str(), r.n, r.cub, r.n / (r.cub * 1e3),
                r.cub_temp);
        fprintf(csv, "%s,%s,%lld,patc%s,%.3f,%.3f,%.3f,%zu\n", r.type.c_str(), r.input.c_str(), r.n, r.ok ? "" : "_WRONG",
                r.patc, r.n / (r.patc * 1e3), r.cub / r.patc, r.patc_temp);
    }
    fclose(csv);
    fprintf(md, "# patc's radix sort (patc_sort_keys, patc_sort_pairs) against CUB DeviceRadixSort::SortKeys and "
                "SortPairs\n\nType f32+u32: f32 keys with u32 values (SortPairs; Gkeys/s counts pairs).\n\n");
    fprintf(md, "%s, %d SMs; alone medians (CUDA events around one call on an idle stream), interleaved rounds; "
                "CUB/patc above 1 means patc is faster. Copy: a device-to-device copy of the n keys' bytes "
                "(pairs: keys and values, 8n bytes).\n\n",
            prop.name, prop.multiProcessorCount);
    fprintf(md, "| type | input | n | copy µs | CUB µs | patc µs | CUB/patc | queued CUB/patc | patc Gkeys/s | "
                "CUB temp bytes | patc temp bytes | checked |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (auto &r : rows)
        fprintf(md, "| %s | %s | %s | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %zu | %zu | %s |\n", r.type.c_str(),
                r.input.c_str(), size_name(r.n).c_str(), r.copy, r.cub, r.patc, r.cub / r.patc, r.cubq / r.patcq,
                r.n / (r.patc * 1e3), r.cub_temp, r.patc_temp, r.ok ? "yes" : "**NO**");
    fclose(md);
    printf("%s\nwrote %s and %s\n", wrong ? "SOME RESULTS WRONG" : "all results match CUB", csvp.c_str(), mdp.c_str());
    patc_sorter_free(su);
    patc_sorter_free(sf);
    patc_sorter_free(sp);
    patc_destroy(ctx);
    return wrong ? 1 : 0;
}
