// sort_temp.cu: libpatrt's sorters' temporary device memory against CUB's for the same
// call (issue 35 item 4: "no more than CUB's"), on the GPU machine, where CUB is built:
// patc_sorter_temp_bytes(n) against the temp_storage_bytes that
// cub::DeviceRadixSort::SortKeys / SortPairs (no DoubleBuffer: their second buffers are
// in it, as patc's are) ask for with d_temp_storage = NULL, for every key type (u32,
// i32, f32, u64, i64, f64), keys alone and with 4- and 8-byte values, the bit ranges
// [0, 16) of u32 and [0, 40) of u64 keys, at n = 1 .. 2^31 - 1 (CUB's num_items is an
// int). Nothing is sorted and no device memory is allocated: both sides only say what a
// sort would take (CUB's query reads the device's PTX version, so it needs the GPU).
// Each line: "ok" or "OVER" with both byte counts, every n counted (until 20b6905
// patc's look-back held a portion of 2^30 - 1 keys where CUB's holds one of about 2^28,
// and an excess past 2^28 keys was reported but not counted). The last line is
// "sort_temp: N passed, M failed"; the exit status is 1 when M > 0.
//   sort_temp [--root DIR] [-v]
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <string>
#include <vector>
#include "patc.h"

struct Case {
    const char *name;
    patc_type key, value;
    int values, begin, end;
};

template <typename K> static size_t cub_keys(long long n, int b, int e)
{
    size_t bytes = 0;
    if (cub::DeviceRadixSort::SortKeys(nullptr, bytes, (const K *)nullptr, (K *)nullptr, (int)n, b, e) != cudaSuccess) return 0;
    return bytes;
}
template <typename K, typename V> static size_t cub_pairs(long long n)
{
    size_t bytes = 0;
    if (cub::DeviceRadixSort::SortPairs(nullptr, bytes, (const K *)nullptr, (K *)nullptr, (const V *)nullptr, (V *)nullptr,
                                        (int)n) != cudaSuccess)
        return 0;
    return bytes;
}
template <typename K> static size_t cub_of(const Case &c, long long n)
{
    if (!c.values) return cub_keys<K>(n, c.begin, c.end ? c.end : (int)sizeof(K) * 8);
    return c.value == PATC_U32 ? cub_pairs<K, unsigned>(n) : cub_pairs<K, unsigned long long>(n);
}
static size_t cub_bytes(const Case &c, long long n)
{
    switch (c.key) {
    case PATC_U32: return cub_of<unsigned>(c, n);
    case PATC_I32: return cub_of<int>(c, n);
    case PATC_F32: return cub_of<float>(c, n);
    case PATC_U64: return cub_of<unsigned long long>(c, n);
    case PATC_I64: return cub_of<long long>(c, n);
    case PATC_F64: return cub_of<double>(c, n);
    default: return 0;
    }
}

int main(int argc, char **argv)
{
    std::string root = getenv("PATC_ROOT") ? getenv("PATC_ROOT") : ".";
    bool verbose = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--root") && i + 1 < argc) root = argv[++i];
        else if (!strcmp(argv[i], "-v")) verbose = true;
        else { printf("usage: sort_temp [--root DIR] [-v]\n"); return 2; }
    }
    patc_ctx *ctx;
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    if (patc_add_include_dir(ctx, (root + "/patterns").c_str()) != PATC_OK) { printf("%s\n", patc_last_error(ctx)); return 1; }
    static const patc_type keys[] = {PATC_U32, PATC_I32, PATC_F32, PATC_U64, PATC_I64, PATC_F64};
    std::vector<Case> cases;
    for (int k = 0; k < 6; k++) {
        cases.push_back({patc_type_name(keys[k]), keys[k], PATC_U32, 0, 0, 0});
        cases.push_back({patc_type_name(keys[k]), keys[k], PATC_U32, 1, 0, 0});
        cases.push_back({patc_type_name(keys[k]), keys[k], PATC_U64, 1, 0, 0});
    }
    cases.push_back({"u32", PATC_U32, PATC_U32, 0, 0, 16});
    cases.push_back({"u64", PATC_U64, PATC_U32, 0, 0, 40});
    std::vector<long long> ns = {1, 1000, 4096, 4097, 5120, 5121, 8192, 8193, 12288, 12289};
    for (int e = 14; e <= 30; e++) ns.push_back(1LL << e);
    for (long long n : {(1LL << 20) + 7, (1LL << 24) + 3, (1LL << 28) - 5, (1LL << 28) + 1, 3LL << 27, 350000000LL, (1LL << 30) - 1, (1LL << 31) - 1})
        ns.push_back(n);
    std::sort(ns.begin(), ns.end());
    int passed = 0, failed = 0;
    for (const Case &c : cases) {
        patc_sort_spec spec = {};
        spec.key_type = c.key;
        spec.values = c.values;
        spec.value_type = c.value;
        spec.begin_bit = c.begin;
        spec.end_bit = c.end;
        patc_sorter *so;
        if (patc_sorter_create_spec(ctx, &spec, &so) != PATC_OK) { printf("FAIL: %s\n", patc_last_error(ctx)); return 1; }
        char what[64];
        if (c.values) snprintf(what, sizeof what, "%s+%s", c.name, patc_type_name(c.value));
        else if (c.end) snprintf(what, sizeof what, "%s[%d:%d]", c.name, c.begin, c.end);
        else snprintf(what, sizeof what, "%s", c.name);
        for (long long n : ns) {
            size_t pb = 0, cb = cub_bytes(c, n);
            if (patc_sorter_temp_bytes(so, n, &pb) != PATC_OK) { printf("FAIL: %s n=%lld: %s\n", what, n, patc_last_error(ctx)); failed++; continue; }
            if (!cb) { printf("FAIL: %s n=%lld: CUB's query failed\n", what, n); failed++; continue; }
            if (pb > cb) {
                failed++;
                printf("OVER: %s n=%lld patc %zu CUB %zu (+%zu)\n", what, n, pb, cb, pb - cb);
            } else {
                passed++;
                if (verbose) printf("ok: %s n=%lld patc %zu CUB %zu\n", what, n, pb, cb);
            }
        }
        patc_sorter_free(so);
    }
    printf("sort_temp: %d passed, %d failed\n", passed, failed);
    patc_destroy(ctx);
    return failed ? 1 : 0;
}
