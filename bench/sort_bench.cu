// sort_bench.cu: libpatrt's radix sort of keys (patc_sort_keys: patterns/radixsort.rise,
// a histogram of all the keys' digits, their scan, one multisplit pass a digit (8-bit
// digits: four for 4-byte keys, eight for 8-byte keys); up to 8192 4-byte keys (and
// values) one launch of rsSmall, the sortTiles block sort) against CUB's
// cub::DeviceRadixSort::SortKeys in the same process, on one stream, over the same input,
// and its sort of pairs (patc_sort_pairs, the values the input indices) against
// cub::DeviceRadixSort::SortPairs. Types (--types):
//   u32, f32            4-byte keys (CUB on unsigned / float);
//   f32+u32             f32 keys with u32 values;
//   u64, f64            8-byte keys (CUB on unsigned long long / double);
//   f64+u64             f64 keys with u64 values;
// default the first three (u32,f32,f32+u32), in that order; the 8-byte ones only when
// named. Inputs uniform (u32, u64: random words; f32, f64: uniform in [0, 1), f32 from 24
// random bits, f64 from 53), few unique values (the AND of 3 random words of the key's
// width; f32, f64: those words as bits) and sorted (the uniform keys, sorted once by CUB
// before timing, by the bit range the case sorts by);
//   n = 2^10, 2^12, ..., 2^28 and 1000, 4097, 8192, 8193, 12288, 2^20+7, 2^24+3, 2^28-5, or
//   the size arguments;
// and a device-to-device copy of the n keys' bytes (pairs: keys and values, 8n bytes for
// f32+u32, 16n for f64+u64) (cudaMemcpyAsync) as a reference (a sort reads and writes its
// keys at least once; patc's and CUB Onesweep's sorts of 4-byte keys five reads and four
// writes, the values four of each).
//   sort_bench [--root DIR] [--types LIST] [--bits B:E] [--digit W] [--shrink] OUTDIR [n ...]
// The options may come anywhere (sort_run.sh passes its own after OUTDIR); the first
// other argument is OUTDIR (made if missing; its parent must exist), the rest sizes.
// DIR is the repository root (default $PATC_ROOT, else "."): DIR/patterns is added to the
// context's include directories.
// LIST: the types above, comma-separated, run in the order given; "none" for none (with
// --bits: the bit-range sort alone).
// --bits B:E (0 <= B < E <= 32) adds a sort of the u32 keys by bits B..E-1 alone, after
// the types of LIST: patc's sorter with begin_bit = B, end_bit = E against CUB's SortKeys
// with begin_bit = B, end_bit = E (keys equal in those bits keep their input order on both
// sides, so the outputs agree word for word); type column "u32[B:E]".
// --digit W (5..11) builds every patc sorter of the run with digit_bits = W
// (ceil(bits / W) passes of 2^W buckets); CUB is unchanged. The type column gets " dW"
// ("u32 d11", "u32[0:16] d11"), so runs with and without it can share one plot.
// --shrink also times, for each n below the largest size maxn, patc's first sort of n
// keys after a sort of maxn (the sort of maxn untimed, then the sort of n timed alone,
// as in the rounds; as many such pairs as rounds, their median): multisplit's first
// launches after longer ones clear the longer ones' look-back words past their own
// (docs/language.md, multisplit), which a sort after a sort of the same n does not. It
// goes to OUTDIR/shrink.csv (type,input,n,maxn,after_maxn_us,alone_us) and the console.
// Sizes up to 2^31 - 1 (CUB's num_items is an int); from 2^30 keys patc sorts in
// portions (each pass a launch a portion, the offsets taken again before each pass).
// Every result is checked before and after the timed runs: the outputs are poisoned,
// both sorts run, and patc's n keys (and values) must equal CUB's byte for byte (both
// sorts are stable and order -0.0 and +0.0 as equals, so the words agree exactly); a mismatch
// prints FAIL with the first differing index, and the exit status is 1. Timing is
// bench/timing.cuh's: warm-up rounds, then REPS rounds (200 up to 2^20, 100 up to 2^24,
// 30 above), each running the copy, CUB and patc once, interleaved, with CUDA events,
// alone (on an idle stream, the host's launch cost included) and queued (behind a kernel
// holding the stream: GPU time only); medians. The headline ratio is alone's; sort.md
// also has the queued one, and each side's temporary device memory at n (CUB's
// temp_storage_bytes, which on plain pointers holds its second key buffer;
// patc_sorter_temp_bytes).
// Device memory: the input and patc's output hold maxn keys and values each, CUB's output
// another maxn of each, at the widest selected type (16 bytes a pair: 12 GiB at 2^28 for
// f64+u64), plus CUB's temporary storage for the largest n and the one live sorter's (each
// type's sorter is freed before the next type's is made).
// Writes OUTDIR/sort.csv (type,input,n,impl,median_us,Gkeys_per_s,ratio_cub_over_patc,
// temp_bytes) and OUTDIR/sort.md.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <sys/stat.h>
#include <cerrno>
#include <algorithm>
#include <cctype>
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
static void *din, *dout, *dref;        // the input, patc's and CUB's output keys, then (din, dout) the values
static void *dvref;                    // CUB's output values
static unsigned long long *dbad;
static void *tmp; static size_t tb;    // CUB's temp storage, for the largest n
static long long maxn;
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

// The key types CUB is called on
enum KeyKind { K_U32, K_F32, K_U64, K_F64 };
// A type --types names: its keys, values (vs bytes, 0: keys alone) and the offset of its
// inputs' seed (a type of pairs shares its key type's keys)
struct TypeDef { const char *name; KeyKind k; patc_type pk, pv; int ks, vs; unsigned seed; };
static const TypeDef types[] = {
    {"u32", K_U32, PATC_U32, PATC_U32, 4, 0, 0},      {"f32", K_F32, PATC_F32, PATC_U32, 4, 0, 1},
    {"f32+u32", K_F32, PATC_F32, PATC_U32, 4, 4, 1},  {"u64", K_U64, PATC_U64, PATC_U64, 8, 0, 2},
    {"f64", K_F64, PATC_F64, PATC_U64, 8, 0, 3},      {"f64+u64", K_F64, PATC_F64, PATC_U64, 8, 8, 3}};
// A type as run: its keys sorted by bits b..e-1 (all of them but for --bits), the name in
// the type column
struct Sel { const TypeDef *t; int b, e; std::string tag; };
struct Case { const Sel *sel; const char *input; };
struct Row { std::string type, input; long long n; float cub, patc, cubq, patcq, copy; size_t cub_temp, patc_temp; bool ok; };

static void *vin_of(const Sel &c) { return (char *)din + maxn * c.t->ks; }
static void *vout_of(const Sel &c) { return (char *)dout + maxn * c.t->ks; }

template <class K> static void cub_keys_t(void *t, size_t &bytes, const void *in, void *out, long long n, int b, int e) {
    CK(cub::DeviceRadixSort::SortKeys(t, bytes, (const K *)in, (K *)out, (int)n, b, e, s));
}
template <class K, class V>
static void cub_pairs_t(void *t, size_t &bytes, const void *in, void *out, const void *vin, void *vout, long long n, int b,
                        int e) {
    CK(cub::DeviceRadixSort::SortPairs(t, bytes, (const K *)in, (K *)out, (const V *)vin, (V *)vout, (int)n, b, e, s));
}

// CUB's SortKeys on c's keys (t null: the temporary bytes it needs, into bytes)
static void cub_keys(const Sel &c, void *t, size_t &bytes, const void *in, void *out, long long n) {
    switch (c.t->k) {
    case K_U32: cub_keys_t<unsigned>(t, bytes, in, out, n, c.b, c.e); return;
    case K_F32: cub_keys_t<float>(t, bytes, in, out, n, c.b, c.e); return;
    case K_U64: cub_keys_t<unsigned long long>(t, bytes, in, out, n, c.b, c.e); return;
    case K_F64: cub_keys_t<double>(t, bytes, in, out, n, c.b, c.e); return;
    }
}

// CUB's SortPairs on c's keys and values (values of the keys' width)
static void cub_pairs(const Sel &c, void *t, size_t &bytes, const void *in, void *out, const void *vin, void *vout,
                      long long n) {
    switch (c.t->k) {
    case K_U32: cub_pairs_t<unsigned, unsigned>(t, bytes, in, out, vin, vout, n, c.b, c.e); return;
    case K_F32: cub_pairs_t<float, unsigned>(t, bytes, in, out, vin, vout, n, c.b, c.e); return;
    case K_U64: cub_pairs_t<unsigned long long, unsigned long long>(t, bytes, in, out, vin, vout, n, c.b, c.e); return;
    case K_F64: cub_pairs_t<double, unsigned long long>(t, bytes, in, out, vin, vout, n, c.b, c.e); return;
    }
}

// the case's CUB sort, din (and its values) into dref (dvref)
static void cub_sort(const Sel &c, long long n) {
    size_t b = tb;
    if (c.t->vs) cub_pairs(c, tmp, b, din, dref, vin_of(c), dvref, n);
    else cub_keys(c, tmp, b, din, dref, n);
}

static void patc_sort(const Sel &c, patc_sorter *so, long long n) {
    if (c.t->vs)
        PK(patc_sort_pairs_ptr(so, (unsigned long long)din, (unsigned long long)dout, (unsigned long long)vin_of(c),
                               (unsigned long long)vout_of(c), n, s));
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

// patc's output against CUB's, the keys and then the values, word for word (a key or
// value of 8 bytes is two words; the message names the element)
static bool check(const Case &k, patc_sorter *so, long long n, const char *when) {
    const Sel &c = *k.sel;
    const int ks = c.t->ks, vs = c.t->vs;
    CK(cudaMemsetAsync(dout, 0xff, n * ks, s)); CK(cudaMemsetAsync(dref, 0xee, n * ks, s));
    if (vs) { CK(cudaMemsetAsync(vout_of(c), 0xdd, n * vs, s)); CK(cudaMemsetAsync(dvref, 0xcc, n * vs, s)); }
    cub_sort(c, n);
    patc_sort(c, so, n);
    for (int v = 0; v < (vs ? 2 : 1); v++) {
        const int es = v ? vs : ks;
        const char *p = (const char *)(v ? vout_of(c) : dout), *q = (const char *)(v ? dvref : dref);
        unsigned long long bad[2];
        count_differ((const unsigned *)p, (const unsigned *)q, n * (es / 4), bad);
        if (bad[0]) {
            unsigned long long got = 0, want = 0, at = bad[1] / (es / 4);
            CK(cudaMemcpyAsync(&got, p + at * es, es, cudaMemcpyDeviceToHost, s));
            CK(cudaMemcpyAsync(&want, q + at * es, es, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            if (es == 4)
                printf("FAIL %s %s n=%lld (%s): %llu of %lld %s differ from CUB's, the first at index %llu (patc 0x%08x, "
                       "CUB 0x%08x)\n", c.tag.c_str(), k.input, n, when, bad[0], n, v ? "values" : "keys", at,
                       (unsigned)got, (unsigned)want);
            else
                printf("FAIL %s %s n=%lld (%s): %llu of %lld %s' words differ from CUB's, the first in index %llu (patc "
                       "0x%016llx, CUB 0x%016llx)\n", c.tag.c_str(), k.input, n, when, bad[0], n, v ? "values" : "keys",
                       at, got, want);
            wrong++;
            return false;
        }
    }
    return true;
}

// B:E of --bits into b, e (0 <= b < e <= 32)
static bool parse_bits(const char *a, int &b, int &e) {
    char *p, *q;
    long x = strtol(a, &p, 10);
    if (p == a || *p != ':') return false;
    long y = strtol(p + 1, &q, 10);
    if (q == p + 1 || *q || x < 0 || y <= x || y > 32) return false;
    b = (int)x; e = (int)y;
    return true;
}

int main(int argc, char **argv) {
    const char *root = getenv("PATC_ROOT") ? getenv("PATC_ROOT") : ".";
    const char *usage = "usage: sort_bench [--root DIR] [--types LIST] [--bits B:E] [--digit W] [--shrink] OUTDIR [n ...]\n"
                        "  LIST: comma-separated of u32 f32 f32+u32 u64 f64 f64+u64, or none (default u32,f32,f32+u32)\n"
                        "  B:E: also sort u32 keys by bits B..E-1 (0 <= B < E <= 32); W: patc's digit_bits, 5..11\n";
    std::string typelist = "u32,f32,f32+u32";
    int bits_b = -1, bits_e = -1, digit = 0;
    bool shrink = false;
    std::vector<char *> rest; // OUTDIR and the sizes
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--shrink") shrink = true;
        else if (a == "--root" || a == "--types" || a == "--bits" || a == "--digit") {
            if (i + 1 >= argc) { printf("%s wants a value\n%s", a.c_str(), usage); return 2; }
            const char *v = argv[++i];
            if (a == "--root") root = v;
            else if (a == "--types") typelist = v;
            else if (a == "--bits") {
                if (!parse_bits(v, bits_b, bits_e)) { printf("bad --bits %s\n%s", v, usage); return 2; }
            } else {
                char *e;
                long w = strtol(v, &e, 10);
                if (e == v || *e || w < 5 || w > 11) { printf("bad --digit %s\n%s", v, usage); return 2; }
                digit = (int)w;
            }
        } else if (a.size() > 1 && a[0] == '-' && !isdigit((unsigned char)a[1])) {
            printf("unknown option %s\n%s", a.c_str(), usage); return 2;
        } else rest.push_back(argv[i]);
    }
    if (rest.empty()) { printf("%s", usage); return 2; }
    const char *outdir = rest[0];
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) { printf("cannot make %s\n", outdir); return 2; }
    const std::string dtag = digit ? " d" + std::to_string(digit) : "";
    std::vector<Sel> sels;
    if (typelist != "none") {
        size_t at = 0;
        for (;;) {
            size_t comma = typelist.find(',', at);
            std::string name = typelist.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
            const TypeDef *t = nullptr;
            for (const TypeDef &d : types)
                if (name == d.name) t = &d;
            if (!t) { printf("unknown type '%s' in --types %s\n%s", name.c_str(), typelist.c_str(), usage); return 2; }
            sels.push_back({t, 0, 8 * t->ks, name + dtag});
            if (comma == std::string::npos) break;
            at = comma + 1;
        }
    }
    if (bits_e > 0)
        sels.push_back({&types[0], bits_b, bits_e,
                        "u32[" + std::to_string(bits_b) + ":" + std::to_string(bits_e) + "]" + dtag});
    if (sels.empty()) { printf("no types to run (--types none without --bits)\n"); return 2; }
    std::vector<long long> sizes;
    for (int e = 10; e <= 28; e += 2) sizes.push_back(1ll << e);
    // 4097, 8192, 8193, 12288: about the one-launch sort's last tiles (4096, 8192 keys) and
    // where CUB leaves its one-block sort (4097 keys one block, 2^14 Onesweep on an H100)
    for (long long n : {1000ll, 4097ll, 8192ll, 8193ll, 12288ll, (1ll << 20) + 7, (1ll << 24) + 3, (1ll << 28) - 5})
        sizes.push_back(n);
    if (!sizes_from_args((int)rest.size(), rest.data(), 1, (1ll << 31) - 1, sizes)) return 2;
    maxn = sizes.back();
    // the widest selected type's bytes: a key, a value, a pair
    int kmax = 4, vmax = 4, pmax = 8;
    for (const Sel &c : sels) {
        kmax = std::max(kmax, c.t->ks); vmax = std::max(vmax, c.t->vs); pmax = std::max(pmax, c.t->ks + c.t->vs);
    }
    std::string patterns = std::string(root) + "/patterns";
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, %d SMs; patterns from %s\n", prop.name, prop.multiProcessorCount, patterns.c_str());
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    holdf.init();
    CK(cudaMalloc(&din, maxn * pmax)); CK(cudaMalloc(&dout, maxn * pmax)); CK(cudaMalloc(&dref, maxn * kmax));
    CK(cudaMalloc(&dvref, maxn * vmax));
    CK(cudaMalloc(&dbad, 16));
    for (const Sel &c : sels) { // CUB's temporary storage: the most any case needs at maxn
        size_t b = 0;
        if (c.t->vs) cub_pairs(c, nullptr, b, din, dout, vin_of(c), vout_of(c), maxn);
        else cub_keys(c, nullptr, b, din, dout, maxn);
        tb = std::max(tb, b);
    }
    CK(cudaMalloc(&tmp, tb));
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    PK(patc_add_include_dir(ctx, patterns.c_str()));
    std::vector<Case> cases;
    for (const Sel &c : sels)
        for (const char *input : {"uniform", "few", "sorted"}) cases.push_back({&c, input});
    std::vector<unsigned char> host((size_t)maxn * kmax);
    std::vector<Row> rows;
    std::string shrinkp = std::string(outdir) + "/shrink.csv";
    FILE *shr = shrink ? fopen(shrinkp.c_str(), "w") : nullptr;
    if (shrink && !shr) { printf("cannot write %s\n", shrinkp.c_str()); return 1; }
    if (shr) fprintf(shr, "type,input,n,maxn,after_maxn_us,alone_us\n");
    patc_sorter *so = nullptr;
    const Sel *so_for = nullptr; // the type so sorts (one sorter at a time: each holds its temporary memory)
    for (const Case &k : cases) {
        const Sel &c = *k.sel;
        const int ks = c.t->ks, vs = c.t->vs;
        if (so_for != &c) {
            if (so) patc_sorter_free(so);
            patc_sort_spec spec;
            memset(&spec, 0, sizeof spec);
            spec.key_type = c.t->pk;
            spec.values = vs != 0;
            spec.value_type = c.t->pv;
            if (c.b != 0 || c.e != 8 * ks) { spec.begin_bit = c.b; spec.end_bit = c.e; }
            spec.digit_bits = digit;
            PK(patc_sorter_create_spec(ctx, &spec, &so));
            so_for = &c;
        }
        // the input for the largest n; each n sorts its first n keys
        uint64_t seed = 0x5EEDBA5Eull + c.t->seed;
        bool few = strcmp(k.input, "few") == 0, fl = c.t->k == K_F32 || c.t->k == K_F64;
        for (long long i = 0; i < maxn; i++) {
            if (ks == 4) {
                uint32_t w = sort_key32(seed, few, fl);
                memcpy(&host[i * 4], &w, 4);
            } else {
                uint64_t w = splitmix64(seed);
                if (few) w &= splitmix64(seed) & splitmix64(seed);
                else if (fl) { double d = (double)(w >> 11) * (1.0 / 9007199254740992.0); memcpy(&w, &d, 8); }
                memcpy(&host[i * 8], &w, 8);
            }
        }
        CK(cudaMemcpyAsync(din, host.data(), maxn * ks, cudaMemcpyHostToDevice, s));
        if (vs) { // the values: each key's input index
            std::vector<unsigned char> idx((size_t)maxn * vs);
            for (long long i = 0; i < maxn; i++) {
                if (vs == 4) { uint32_t v = (uint32_t)i; memcpy(&idx[i * 4], &v, 4); }
                else { uint64_t v = (uint64_t)i; memcpy(&idx[i * 8], &v, 8); }
            }
            CK(cudaMemcpyAsync(vin_of(c), idx.data(), maxn * vs, cudaMemcpyHostToDevice, s));
            CK(cudaStreamSynchronize(s));
        }
        CK(cudaStreamSynchronize(s));
        // size the sorter's temporary memory once, outside the timed runs
        patc_sort(c, so, maxn);
        CK(cudaStreamSynchronize(s));
        for (long long n : sizes) {
            if (strcmp(k.input, "sorted") == 0) { // din[0..n) sorted by CUB (by c's bits), in place of the uniform keys
                CK(cudaMemcpyAsync(din, host.data(), n * ks, cudaMemcpyHostToDevice, s));
                size_t b = tb;
                cub_keys(c, tmp, b, din, dref, n);
                CK(cudaMemcpyAsync(din, dref, n * ks, cudaMemcpyDeviceToDevice, s));
                CK(cudaStreamSynchronize(s));
            }
            bool ok = check(k, so, n, "before timing");
            const long long wb = ks + vs;
            std::vector<std::function<void()>> ops = {
                [n, wb] { CK(cudaMemcpyAsync(dout, din, n * wb, cudaMemcpyDeviceToDevice, s)); },
                [&c, n] { cub_sort(c, n); },
                [&c, so, n] { patc_sort(c, so, n); }};
            const int reps = n <= 1ll << 20 ? 200 : n <= 1ll << 24 ? 100 : 30, warm = n <= 1ll << 24 ? 20 : 5;
            std::vector<std::vector<float>> alone, queued;
            time_interleaved(ops, s, holdf, warm, reps, alone, queued);
            ok = check(k, so, n, "after timing") && ok;
            if (shr && n < maxn) { // the first sort of n after one of maxn, each timed alone
                cudaEvent_t e0, e1;
                CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
                std::vector<float> after;
                for (int i = 0; i < reps; i++) {
                    patc_sort(c, so, maxn);
                    CK(cudaStreamSynchronize(s));
                    CK(cudaEventRecord(e0, s));
                    patc_sort(c, so, n);
                    CK(cudaEventRecord(e1, s));
                    CK(cudaEventSynchronize(e1));
                    float ms = 0;
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    after.push_back(ms);
                }
                CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
                ok = check(k, so, n, "after the shrink timing") && ok;
                float a = median_us(after), al = median_us(alone[2]);
                fprintf(shr, "%s,%s,%lld,%lld,%.3f,%.3f\n", c.tag.c_str(), k.input, n, maxn, a, al);
                printf("%s %-7s n=%-10lld shrink: patc after a sort of %lld keys %9.2f us, alone %9.2f us\n",
                       c.tag.c_str(), k.input, n, maxn, a, al);
            }
            size_t cb = 0, pb = 0;
            if (vs) cub_pairs(c, nullptr, cb, din, dout, vin_of(c), vout_of(c), n);
            else cub_keys(c, nullptr, cb, din, dout, n);
            PK(patc_sorter_temp_bytes(so, n, &pb));
            Row r{c.tag, k.input, n, median_us(alone[1]), median_us(alone[2]), median_us(queued[1]), median_us(queued[2]),
                  median_us(alone[0]), cb, pb, ok};
            rows.push_back(r);
            printf("%s %-7s n=%-10lld (%-7s) copy %9.2f us  CUB %9.2f us  patc %9.2f us  CUB/patc %.3f (queued %.3f)  "
                   "patc %.2f Gkeys/s  temp CUB %zu patc %zu%s\n", c.tag.c_str(), k.input, n, size_name(n).c_str(), r.copy,
                   r.cub, r.patc, r.cub / r.patc, r.cubq / r.patcq, n / (r.patc * 1e3), cb, pb, ok ? "" : "  FAIL");
            fflush(stdout);
        }
    }
    if (so) patc_sorter_free(so);
    if (shr) fclose(shr);
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
    // the notes on the types run; for the default three the text of before --types
    bool p32 = false, p64 = false;
    for (const Sel &c : sels) {
        p32 = p32 || c.t->vs == 4; p64 = p64 || c.t->vs == 8;
    }
    fprintf(md, "# patc's radix sort (patc_sort_keys, patc_sort_pairs) against CUB DeviceRadixSort::SortKeys and "
                "SortPairs\n\n");
    if (p32) fprintf(md, "Type f32+u32: f32 keys with u32 values (SortPairs; Gkeys/s counts pairs).\n\n");
    if (p64) fprintf(md, "Type f64+u64: f64 keys with u64 values (SortPairs; Gkeys/s counts pairs).\n\n");
    if (bits_e > 0)
        fprintf(md, "Type u32[%d:%d]: u32 keys sorted by bits %d..%d alone (patc's begin_bit and end_bit, CUB's "
                    "begin_bit and end_bit; equal in those bits, keys keep their input order).\n\n",
                bits_b, bits_e, bits_b, bits_e - 1);
    if (digit)
        fprintf(md, "Types ending in d%d: patc's sorters built with digit_bits = %d (passes of %d buckets); CUB "
                    "unchanged.\n\n", digit, digit, 1 << digit);
    fprintf(md, "%s, %d SMs; alone medians (CUDA events around one call on an idle stream), interleaved rounds; "
                "CUB/patc above 1 means patc is faster. Copy: a device-to-device copy of the n keys' bytes "
                "(pairs: keys and values, %s).\n\n",
            prop.name, prop.multiProcessorCount,
            p64 && p32 ? "8n bytes for f32+u32, 16n for f64+u64" : p64 ? "16n bytes" : "8n bytes");
    fprintf(md, "| type | input | n | copy µs | CUB µs | patc µs | CUB/patc | queued CUB/patc | patc Gkeys/s | "
                "CUB temp bytes | patc temp bytes | checked |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (auto &r : rows)
        fprintf(md, "| %s | %s | %s | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %zu | %zu | %s |\n", r.type.c_str(),
                r.input.c_str(), size_name(r.n).c_str(), r.copy, r.cub, r.patc, r.cub / r.patc, r.cubq / r.patcq,
                r.n / (r.patc * 1e3), r.cub_temp, r.patc_temp, r.ok ? "yes" : "**NO**");
    fclose(md);
    printf("%s\nwrote %s and %s\n", wrong ? "SOME RESULTS WRONG" : "all results match CUB", csvp.c_str(), mdp.c_str());
    patc_destroy(ctx);
    return wrong ? 1 : 0;
}
