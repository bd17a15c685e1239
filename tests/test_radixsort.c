/* test_radixsort.c: the radix sort of keys of patterns/radixsort.rise (issue 35 items 2
 * and 4) on the CPU interpreter, no GPU: examples/radixsort.rise's kernels chained as
 * libpatrt chains them (histogram, scan, four passes ping-ponging between two buffers),
 * and libpatrt's patc_sort_keys_cpu, for u32, i32 and f32 keys at ragged sizes, against
 * qsort with the type's own order (f32 in CUB's order, written here from the float
 * values, not from the pattern's bit flip), and the histogram against a plain count;
 * then the sorter's argument checks and its temporary-memory query. Then key-value
 * pairs and descending order (issue 35 item 2): patc_sort_pairs_cpu and a descending
 * patc_sort_keys_cpu against a stable sort written here (qsort by key, then by input
 * index), every key and value type, and examples/radixsort_pairs.rise's kernels chained.
 * The small sort (issue 35 item 2: rsSmall*, the sortTiles primitive, which libpatrt
 * runs up to 8192 keys) against a stable sort of each tile; the sizes cover its
 * thresholds and their neighbours. The GPU runs of patc_sort_keys are tests/gpu/all.sh's
 * section r (tests/gpu/sort_check.c). */
#include "../runtime/patc.h"
#include "sort_order.h"

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An assertion a checked element: Check's ck_assert_msg records its place with a write
 * to the test runner at every call, also when it holds (a system call an element: 14 %
 * of this test's time in one profile), so loops over elements call Check only on a
 * failure (ck_abort_msg: the same message, file and line). */
#define CK_EACH(expr, ...)                                                                \
    do {                                                                                  \
        if (!(expr)) ck_abort_msg(__VA_ARGS__);                                           \
    } while (0)

#ifndef PATC_EXAMPLES_DIR
#define PATC_EXAMPLES_DIR "examples"
#endif

static patc_ctx *ctx;
static patc_program *prog;

static void setup(void)
{
    ck_assert_int_eq(patc_create(&ctx, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    patc_compile_options o = {.no_cubin = 1};
    ck_assert_msg(patc_program_compile(ctx, PATC_EXAMPLES_DIR "/radixsort.rise", NULL, 0, &o, &prog) == PATC_OK, "%s",
                  patc_last_error(ctx));
}

static void teardown(void)
{
    patc_program_free(prog);
    patc_destroy(ctx);
    ctx = NULL;
}

enum { KU32, KI32, KF32 };
static const char *const suffix[] = {"U32", "I32", "F32"};

static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}


static int kind_now;
static int cmp_key(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    switch (kind_now) {
    case KU32: return a < b ? -1 : a > b;
    case KI32: return (int32_t)a < (int32_t)b ? -1 : (int32_t)a > (int32_t)b;
    default: return sort_order_cmp_f32(a, b);
    }
}

static int cmp_bits(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

static patc_kernel *kern(const char *base, int kind)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", base, kind < 0 ? "" : suffix[kind]);
    patc_kernel *k;
    ck_assert_msg(patc_get_kernel(prog, name, &k) == PATC_OK, "%s", patc_last_error(ctx));
    return k;
}

/* The sort as libpatrt chains it: histogram (g blocks), scan, passes d = 0..3 from a
 * into b and back. Returns the sorted keys (in a fresh array). */
static uint32_t *sort_interp(int kind, const uint32_t *keys, long long n, long long g, uint32_t *hist_out)
{
    uint32_t hist[1024], offs[1024];
    long long nats[2] = {n, g};
    ck_assert_msg(patc_interp_run(kern("rsHist", kind), nats, (const void *[]){keys}, hist) == PATC_OK, "%s",
                  patc_last_error(ctx));
    if (hist_out) memcpy(hist_out, hist, sizeof hist);
    ck_assert_msg(patc_interp_run(kern("rsScanAll", -1), NULL, (const void *[]){hist}, offs) == PATC_OK, "%s",
                  patc_last_error(ctx));
    uint32_t *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4);
    memcpy(a, keys, (size_t)n * 4);
    patc_kernel *pass = kern("rsPass", kind);
    for (uint32_t d = 0; d < 4; d++) {
        ck_assert_msg(patc_interp_run(pass, nats, (const void *[]){&d, offs + 256 * d, a}, b) == PATC_OK, "%s",
                      patc_last_error(ctx));
        uint32_t *t = a;
        a = b;
        b = t;
    }
    free(b);
    return a;
}

static uint64_t rng = 88172645463325252ull;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* Input kinds: uniform, few unique (AND of 3 words), all equal, sorted, reverse sorted,
 * and the special values of the type (INT_MIN/INT_MAX, 0, -0.0, +-inf, NaNs) mixed in. */
enum { UNIFORM, FEW, EQUAL, SORTED, REVERSE, SPECIAL, NUM_INPUTS };

static void make_input(int kind, int input, uint32_t *k, long long n)
{
    static const uint32_t special_f[] = {0x80000000u, 0u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                         0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu, 0x00000001u,
                                         0x80000001u, 0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu};
    static const uint32_t special_i[] = {0x80000000u, 0x7fffffffu, 0u, 0xffffffffu, 1u, 0x80000001u, 0x7ffffffeu};
    for (long long i = 0; i < n; i++) {
        uint32_t x;
        switch (input) {
        case UNIFORM: x = next(); break;
        case FEW: x = next() & next() & next(); break;
        case EQUAL: x = kind == KF32 ? f2u(-2.5f) : 0x80000000u + 12345u; break;
        case SORTED:
        case REVERSE: {
            long long j = input == SORTED ? i : n - 1 - i;
            x = kind == KU32 ? (uint32_t)(j * 977) : kind == KI32 ? (uint32_t)(int32_t)((j - n / 2) * 977)
                                                                   : f2u((float)(j - n / 2) * 0.37f);
            break;
        }
        default:
            x = next() % 3 ? next()
                           : (kind == KF32 ? special_f[next() % 16] : special_i[next() % 7]);
            if (kind == KF32 && next() % 2) x = f2u((float)(int)(next() % 64) - 32.0f); /* duplicates, +-0 */
            break;
        }
        if (kind == KF32 && (input == UNIFORM || input == FEW) && (x & 0x7f800000u) == 0x7f800000u)
            x &= 0xbfffffffu; /* random words: keep a few NaNs (SPECIAL has them), mostly numbers */
        k[i] = x;
    }
}

static const patc_type key_type[] = {PATC_U32, PATC_I32, PATC_F32};

/* via 0: the example's kernels chained here (and the histogram checked); 1: libpatrt's
 * patc_sort_keys_cpu into another array; 2: the same in place. */
static void check_sort(int kind, int input, long long n, long long g, int via)
{
    uint32_t *keys = calloc((size_t)n, 4), hist[1024];
    make_input(kind, input, keys, n);
    uint32_t *got;
    if (via == 0) {
        got = sort_interp(kind, keys, n, g, hist);
    } else {
        patc_sorter *so;
        ck_assert_int_eq(patc_sorter_create(ctx, key_type[kind], &so), PATC_OK);
        got = malloc((size_t)n * 4);
        if (via == 2) memcpy(got, keys, (size_t)n * 4);
        ck_assert_msg(patc_sort_keys_cpu(so, via == 2 ? got : keys, got, n) == PATC_OK, "%s", patc_last_error(ctx));
        patc_sorter_free(so);
    }

    /* the histogram: digit d of the order bits, counted here from the comparison order
     * (the rank of each key's class is not needed: only the totals per digit of bits
     * are checked, so the bits are recomputed here plainly) */
    uint32_t want_h[1024] = {0};
    for (long long i = 0; i < n; i++) {
        uint32_t x = keys[i], o;
        if (kind == KU32) o = x;
        else if (kind == KI32) o = x ^ 0x80000000u;
        else o = x == 0x80000000u ? 0x80000000u : (x >> 31) ? ~x : x ^ 0x80000000u;
        for (int d = 0; d < 4; d++) want_h[256 * d + ((o >> (8 * d)) & 255)]++;
    }
    for (int j = 0; via == 0 && j < 1024; j++)
        CK_EACH(hist[j] == want_h[j], "%s input %d n=%lld: histogram bin %d is %u, want %u", suffix[kind], input,
                      n, j, hist[j], want_h[j]);
    /* the histogram and its scan in one launch reading 16-byte vectors (rsHistScanV*,
     * libpatrt's sortHistScanV): each digit's exclusive scan of those counts */
    if (via == 0 && kind != KI32) {
        uint32_t offs[1024];
        long long nats[2] = {n, g};
        ck_assert_msg(patc_interp_run(kern("rsHistScanV", kind), nats, (const void *[]){keys}, offs) == PATC_OK, "%s",
                      patc_last_error(ctx));
        for (int j = 0, run = 0; j < 1024; run = j % 256 == 255 ? 0 : run + (int)want_h[j], j++)
            CK_EACH(offs[j] == (uint32_t)run, "%s input %d n=%lld g=%lld: rsHistScanV offset %d is %u, want %d",
                    suffix[kind], input, n, g, j, offs[j], run);
    }

    /* the order: element by element equal under the type's order to qsort's result */
    uint32_t *ref = malloc((size_t)n * 4);
    memcpy(ref, keys, (size_t)n * 4);
    kind_now = kind;
    qsort(ref, (size_t)n, 4, cmp_key);
    for (long long i = 0; i < n; i++)
        CK_EACH(cmp_key(&got[i], &ref[i]) == 0, "%s input %d n=%lld: element %lld is 0x%08x, qsort's 0x%08x",
                      suffix[kind], input, n, i, got[i], ref[i]);
    /* a permutation of the input, bit for bit */
    uint32_t *a = malloc((size_t)n * 4);
    memcpy(a, got, (size_t)n * 4);
    qsort(a, (size_t)n, 4, cmp_bits);
    qsort(ref, (size_t)n, 4, cmp_bits);
    ck_assert_msg(memcmp(a, ref, (size_t)n * 4) == 0, "%s input %d n=%lld: not a permutation of the input",
                  suffix[kind], input, n);
    /* stable: equal keys (of the order) keep their input order; for f32 this is -0.0
     * and +0.0's order among themselves */
    if (kind == KF32) {
        long long j = 0;
        for (long long i = 0; i < n; i++) {
            if ((got[i] & 0x7fffffffu) != 0) continue;
            while (j < n && (keys[j] & 0x7fffffffu) != 0) j++;
            ck_assert_msg(j < n && keys[j] == got[i], "f32 input %d n=%lld: the zeros lost their input order", input, n);
            j++;
        }
    }
    free(a);
    free(ref);
    free(got);
    free(keys);
}

/* ragged sizes, and libpatrt's one-launch thresholds (2048, 4096 and 8192 keys: the
 * tiles of rt_sort.c's small_tiles, SMALL_MAX the last) and the size after each, so
 * that the sorter's calls take every path (tests/gpu/all.sh's section r adds the size
 * before each on the GPU) */
static const long long sizes[] = {1, 31, 33, 1000, 2048, 2049, 4096, 4097, 8192, 8193};

START_TEST(sorts_every_type_and_input)
{
    int kind = _i / NUM_INPUTS, input = _i % NUM_INPUTS;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        check_sort(kind, input, sizes[s], s % 2 ? 2 : 1, 0);
}
END_TEST

START_TEST(sorter_cpu_every_type_and_input)
{
    int kind = _i / NUM_INPUTS, input = _i % NUM_INPUTS;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) check_sort(kind, input, sizes[s], 0, 1 + (int)(s % 2));
}
END_TEST

/* The sorter's checks: key types, n, NULLs; and a GPU call without a device fails with
 * a message instead of touching memory. */
START_TEST(sorter_arguments)
{
    patc_sorter *so = (patc_sorter *)1;
    patc_type bad[] = {PATC_BOOL, (patc_type)99};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(patc_sorter_create(ctx, bad[i], &so), PATC_ERR_INVALID);
        ck_assert_ptr_null(so);
        ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "u32, i32, f32, u64, i64 or f64"));
        so = (patc_sorter *)1;
    }
    ck_assert_int_eq(patc_sorter_create(ctx, PATC_U32, NULL), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sorter_create(ctx, PATC_U32, &so), PATC_OK);
    uint32_t k[4] = {3, 1, 2, 0};
    ck_assert_int_eq(patc_sort_keys_cpu(so, k, k, 0), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "at least 1"));
    ck_assert_int_eq(patc_sort_keys_cpu(so, k, k, (1LL << 40) + 1), PATC_ERR_SIZE);
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "2^40"));
    ck_assert_int_eq(patc_sort_keys_cpu(so, NULL, k, 4), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sort_keys_cpu(so, k, NULL, 4), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sort_keys_cpu(NULL, k, k, 4), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sort_keys(so, NULL, NULL, 4, NULL), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sort_keys_ptr(so, 0, 256, 4, NULL), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sort_keys_ptr(so, 256, 512, -1, NULL), PATC_ERR_INVALID);
    /* no device in this context: refused before anything is enqueued */
    ck_assert_int_ne(patc_sort_keys_ptr(so, 256, 4096, 4, NULL), PATC_OK);
    ck_assert_int_eq(patc_sort_keys_cpu(so, k, k, 4), PATC_OK);
    ck_assert_uint_eq(k[0], 0);
    ck_assert_uint_eq(k[3], 3);
    patc_sorter_free(so);
    patc_sorter_free(NULL);
}
END_TEST

/* The temporary memory: none up to 8192 keys (one launch of the small sort, whose
 * kernel has no scratch); above, the second buffer of keys (n * 4 rounded up to 256),
 * 4 KiB of offsets (1024 u32) for a sort of one portion (up to P = 2^28 keys), in
 * np = ceil(n / P) portions of ceil(n / np) keys (the last shorter) 4 KiB of counts a
 * portion (1024 u32) and 8 KiB of offsets a portion and one more (1024 u64), and the
 * kernels' scratch, which for the multisplit pass is 4 bytes per bucket per tile of one
 * portion but its last (256 * max(1, ceil(ceil(n / np) / T) - 1) words, T the tile of
 * rt_sort.c's tile_steps: 8192 (512 x 16) below 2^23; from 2^23 10240 (u32 and i32
 * 512 x 20), for f32 7296 (384 x 19); 12288 (512 x 24) from 2^25, for f32 from 2^26,
 * and in portions) and a
 * few words more (the tile counter, the histogram's ticket; its bins are the offsets
 * themselves, compiled with bins_in_result): so between n*4 + the offsets + 1024 * rows
 * and that plus 256 bytes, for every key type. */
START_TEST(sorter_temp_bytes)
{
    static const long long small[] = {1, 31, 2048, 2049, 4095, 4096, 4097, 8192};
    for (int kind = 0; kind < 3; kind++) {
        patc_sorter *so;
        ck_assert_int_eq(patc_sorter_create(ctx, key_type[kind], &so), PATC_OK);
        for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
            size_t b = 1;
            ck_assert_msg(patc_sorter_temp_bytes(so, small[i], &b) == PATC_OK, "%s", patc_last_error(ctx));
            ck_assert_msg(b == 0, "n = %lld: %zu bytes of temporary memory, the one launch needs none", small[i], b);
        }
        patc_sorter_free(so);
    }
    static const long long ns[] = {8193, 12288, 12289, 1000000, 1LL << 28, (1LL << 28) + 1, 1073741823LL, 1073741824LL, 4294967295LL, 4294967296LL, 10000000000LL};
    for (int kind = 0; kind < 3; kind++) {
        patc_sorter *so;
        ck_assert_int_eq(patc_sorter_create(ctx, key_type[kind], &so), PATC_OK);
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            size_t P = 1u << 28, b = 0, n = (size_t)ns[i], np = (n + P - 1) / P, n0 = (n + np - 1) / np;
            size_t T = ns[i] < (1 << 23) ? 8192 : ns[i] >= (kind == 2 ? 1 << 26 : 1 << 25) || np > 1 ? 12288 : kind == 2 ? 7296 : 10240;
            size_t tiles = (n0 + T - 1) / T, rows = tiles > 1 ? tiles - 1 : 1;
            ck_assert_msg(patc_sorter_temp_bytes(so, ns[i], &b) == PATC_OK, "%s", patc_last_error(ctx));
            /* one portion: 1024 u32 offsets; in portions: each portion's 1024 counts, and
             * 1024 u64 offsets for each portion and one more */
            size_t lo = (n * 4 + 255) / 256 * 256 + (np > 1 ? 4096 * np + 8192 * (np + 1) : 4096) + 1024 * rows;
            ck_assert_msg(b >= lo && b <= lo + 256, "n = %zu: %zu bytes, expected %zu to %zu", n, b, lo, lo + 256);
        }
        size_t b;
        ck_assert_int_eq(patc_sorter_temp_bytes(so, 0, &b), PATC_ERR_INVALID);
        ck_assert_int_eq(patc_sorter_temp_bytes(so, (1LL << 40) + 1, &b), PATC_ERR_SIZE);
        ck_assert_int_eq(patc_sorter_temp_bytes(so, 5, NULL), PATC_ERR_INVALID);
        patc_sorter_free(so);
    }
}
END_TEST

/* The temporary memory against CUB's for the same call (issue 35 item 4: no more than
 * CUB's): tests/data/cub_radix_sort_temp_bytes.txt holds CUB's temp_storage_bytes for
 * every key type alone, with 4- and 8-byte values and two bit ranges, n = 1 .. 2^31 - 1,
 * as tests/gpu/sort_temp.cu printed them on an H100 (CUDA 13.0's CCCL); patc's must be
 * at or below each. The same comparison runs against CUB itself in tests/gpu/all.sh r. */
static patc_type type_named(const char *s, size_t len)
{
    static const patc_type ts[] = {PATC_U32, PATC_I32, PATC_F32, PATC_U64, PATC_I64, PATC_F64};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        if (strlen(patc_type_name(ts[i])) == len && strncmp(s, patc_type_name(ts[i]), len) == 0) return ts[i];
    ck_abort_msg("cub_radix_sort_temp_bytes.txt: no type %.*s", (int)len, s);
    return PATC_U32;
}
START_TEST(sorter_temp_within_cub)
{
    FILE *f = fopen(PATC_SOURCE_DIR "/tests/data/cub_radix_sort_temp_bytes.txt", "r");
    ck_assert_ptr_nonnull(f);
    char line[128], cur[32] = "";
    patc_sorter *so = NULL;
    int rows = 0, cases = 0;
    while (fgets(line, sizeof line, f)) {
        char cs[32];
        long long n;
        unsigned long long cub;
        if (line[0] == '#') continue;
        ck_assert_msg(sscanf(line, "%31s %lld %llu", cs, &n, &cub) == 3, "bad line: %s", line);
        if (strcmp(cs, cur) != 0) {
            patc_sorter_free(so);
            patc_sort_spec spec = {0};
            const char *plus = strchr(cs, '+'), *br = strchr(cs, '[');
            size_t klen = plus ? (size_t)(plus - cs) : br ? (size_t)(br - cs) : strlen(cs);
            spec.key_type = type_named(cs, klen);
            if (plus) {
                spec.values = 1;
                spec.value_type = type_named(plus + 1, strlen(plus + 1));
            }
            if (br) ck_assert_int_eq(sscanf(br, "[%d:%d]", &spec.begin_bit, &spec.end_bit), 2);
            ck_assert_msg(patc_sorter_create_spec(ctx, &spec, &so) == PATC_OK, "%s: %s", cs, patc_last_error(ctx));
            strcpy(cur, cs);
            cases++;
        }
        size_t b = 0;
        ck_assert_msg(patc_sorter_temp_bytes(so, n, &b) == PATC_OK, "%s n=%lld: %s", cs, n, patc_last_error(ctx));
        ck_assert_msg(b <= cub, "%s n=%lld: %zu bytes of temporary memory, CUB's %llu", cs, n, b, cub);
        rows++;
    }
    patc_sorter_free(so);
    fclose(f);
    ck_assert_int_eq(cases, 20);
    ck_assert_int_ge(rows, 680);
}
END_TEST

/* The pass's tile steps for f32 keys with u32 values, for u64 keys and for f32 keys
 * alone (rt_sort.c's tile_steps): the pairs 512x16 (8192 keys) below 98304, 512x18
 * (9216) from there, 384x26 (9984) from 2^23; u64 keys 512x16 at every size, and i64
 * and f64 keys as u64 keys (step_key); f32 keys 512x16 below 2^23, 384x19 (7296, CUB's
 * tile for them) from 2^23 and 512x24 (12288) from 2^26. Seen in the temporary memory:
 * the second buffers (each rounded up to 256 bytes), the offsets (nd*256 u32,
 * sortHistScan's result, which are also its bins), a 4-byte look-back word per bucket
 * per tile but the last (multisplit's last tile publishes none), at least one tile's,
 * and a rest (the kernels' counters and the histogram's ticket) that is the same at
 * every n of one sorter. */
START_TEST(sorter_tile_steps)
{
    static const long long ns[] = {8193, 98303, 98304, (1 << 22) - 1, 1 << 22, (1 << 23) - 1, 1 << 23, 1 << 26};
    static const size_t T[3][8] = {{8192, 8192, 9216, 9216, 9216, 9216, 9984, 9984},
                                   {8192, 8192, 8192, 8192, 8192, 8192, 8192, 8192},
                                   {8192, 8192, 8192, 8192, 8192, 8192, 7296, 12288}};
    /* each sorter: its row of T, its second buffers (how many, of what element bytes)
     * and its passes */
    static const struct {
        patc_sort_spec sp;
        int row;
        size_t bufs, eb, nd;
    } cs[] = {{{.key_type = PATC_F32, .values = 1, .value_type = PATC_U32}, 0, 2, 4, 4},
              {{.key_type = PATC_U64}, 1, 1, 8, 8},
              {{.key_type = PATC_I64}, 1, 1, 8, 8},
              {{.key_type = PATC_F64}, 1, 1, 8, 8},
              {{.key_type = PATC_F32}, 2, 1, 4, 4}};
    for (size_t s = 0; s < sizeof cs / sizeof cs[0]; s++) {
        int k = cs[s].row;
        patc_sorter *so;
        size_t rest0 = 0;
        ck_assert_int_eq(patc_sorter_create_spec(ctx, &cs[s].sp, &so), PATC_OK);
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            size_t b = 0, n = (size_t)ns[i], tiles = (n + T[k][i] - 1) / T[k][i], rows = tiles > 1 ? tiles - 1 : 1;
            size_t fixed = cs[s].bufs * ((n * cs[s].eb + 255) / 256 * 256) + cs[s].nd * 256 * 4 + 1024 * rows;
            ck_assert_msg(patc_sorter_temp_bytes(so, ns[i], &b) == PATC_OK, "%s", patc_last_error(ctx));
            ck_assert_msg(b > fixed && b - fixed < 256, "spec %zu n = %zu: %zu bytes, %zu without the rest", s, n, b, fixed);
            if (i == 0) rest0 = b - fixed;
            ck_assert_msg(b - fixed == rest0, "spec %zu n = %zu: a rest of %zu bytes, %zu at 8193 (not %zu-key tiles?)", s,
                          n, b - fixed, rest0, T[k][i]);
        }
        patc_sorter_free(so);
    }
}
END_TEST

/* The f32 order pinned on a few keys, written out: -NaN < -inf < -1 < -0.0 = +0.0 (in
 * input order) < denormal < 1 < FLT_MAX < inf < NaN. */
/* A sorter still alive when its context is destroyed is freed by patc_destroy, with its
 * programs (the ASan build's leak check fails otherwise). */
/* A multisplit's n is below 2^30 (its tile words' counts are 30 bits): the pass
 * kernel's nat n has that bound, which every launch and size query checks. */
START_TEST(multisplit_length_bound)
{
    patc_kernel *k;
    ck_assert_int_eq(patc_get_kernel(prog, "rsPassU32", &k), PATC_OK);
    long long n[1] = {(1LL << 30) - 1};
    long long count = 0;
    ck_assert_msg(patc_kernel_output_info(k, n, NULL, &count, NULL) == PATC_OK, "%s", patc_last_error(ctx));
    ck_assert_int_eq(count, (1LL << 30) - 1);
    n[0] = 1LL << 30;
    ck_assert_int_eq(patc_kernel_output_info(k, n, NULL, &count, NULL), PATC_ERR_SIZE);
    ck_assert_str_eq(patc_last_error(ctx), "kernel rsPassU32: nat n = 1073741824 must be below 1073741824");
}
END_TEST

START_TEST(sorter_freed_by_destroy)
{
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    patc_sorter *a, *b;
    ck_assert_int_eq(patc_sorter_create(c, PATC_F32, &a), PATC_OK);
    ck_assert_int_eq(patc_sorter_create(c, PATC_U32, &b), PATC_OK);
    unsigned k[3] = {2, 0, 1};
    ck_assert_msg(patc_sort_keys_cpu(b, k, k, 3) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_uint_eq(k[0], 0);
    ck_assert_uint_eq(k[2], 2);
    patc_sorter_free(a); /* one freed by the caller, the other left to patc_destroy */
    patc_destroy(c);
}
END_TEST

START_TEST(f32_order_pinned)
{
    uint32_t keys[] = {0x7fc00000u, 0x3f800000u, 0u, 0x7f800000u, 0x80000000u, 0xff800000u, 0xbf800000u,
                       0x00000001u, 0xffc00000u, 0x7f7fffffu, 0x80000000u, 0u};
    uint32_t want[] = {0xffc00000u, 0xff800000u, 0xbf800000u, 0u, 0x80000000u, 0x80000000u, 0u,
                       0x00000001u, 0x3f800000u, 0x7f7fffffu, 0x7f800000u, 0x7fc00000u};
    long long n = 12;
    uint32_t *got = sort_interp(KF32, keys, n, 1, NULL);
    for (long long i = 0; i < n; i++)
        CK_EACH(got[i] == want[i], "element %lld is 0x%08x, want 0x%08x", i, got[i], want[i]);
    free(got);
}
END_TEST

/* ---------------------------------------------------------------- pairs, descending */

/* A pair of the stable reference: key, value and input index. */
typedef struct {
    uint32_t k, v;
    long long i;
} Kvi;
static int desc_now;
/* by key in the type's order (reversed if descending), then by input index: stable */
static int cmp_kvi(const void *pa, const void *pb)
{
    const Kvi *a = pa, *b = pb;
    int c = cmp_key(&a->k, &b->k);
    if (desc_now) c = -c;
    return c ? c : a->i < b->i ? -1 : a->i > b->i;
}

/* values of type vkind (0 u32, 1 i32, 2 f32): distinct-ish words, so that a value moved
 * with the wrong key or out of order among equal keys shows */
static uint32_t make_value(int vkind, long long i)
{
    switch (vkind) {
    case KU32: return (uint32_t)i * 2654435761u;
    case KI32: return (uint32_t)(int32_t)(-(int32_t)i - 7);
    default: return f2u((float)i * 0.5f - 3.0f);
    }
}

/* via 0: patc_sort_pairs_cpu (or patc_sort_keys_cpu with values < 0) into other arrays;
 * 1: in place; 2: examples/radixsort_pairs.rise's kernels chained (ascending pairs). The
 * keys and values out must equal the reference's bit for bit. */
static void check_pairs(int kind, int vkind, int input, long long n, int desc, int via)
{
    uint32_t *keys = calloc((size_t)n, 4), *vals = calloc((size_t)n, 4);
    make_input(kind, input, keys, n);
    for (long long i = 0; i < n; i++) vals[i] = make_value(vkind < 0 ? 0 : vkind, i);
    uint32_t *gk = malloc((size_t)n * 4), *gv = malloc((size_t)n * 4);
    if (via == 2) {
        patc_program *pp;
        patc_compile_options o = {.no_cubin = 1};
        ck_assert_msg(patc_program_compile(ctx, PATC_EXAMPLES_DIR "/radixsort_pairs.rise", NULL, 0, &o, &pp) == PATC_OK,
                      "%s", patc_last_error(ctx));
        uint32_t hist[1024], offs[1024];
        long long nats[2] = {n, 1};
        ck_assert_msg(patc_interp_run(kern("rsHist", kind), nats, (const void *[]){keys}, hist) == PATC_OK, "%s",
                      patc_last_error(ctx));
        ck_assert_int_eq(patc_interp_run(kern("rsScanAll", -1), NULL, (const void *[]){hist}, offs), PATC_OK);
        char name[64];
        snprintf(name, sizeof name, "rsPassPairs%s", suffix[kind]);
        patc_kernel *pass;
        ck_assert_int_eq(patc_get_kernel(pp, name, &pass), PATC_OK);
        uint32_t *ak = malloc((size_t)n * 4), *av = malloc((size_t)n * 4);
        memcpy(gk, keys, (size_t)n * 4);
        memcpy(gv, vals, (size_t)n * 4);
        for (uint32_t d = 0; d < 4; d++) {
            uint32_t *fk = d % 2 ? ak : gk, *fv = d % 2 ? av : gv, *tk = d % 2 ? gk : ak, *tv = d % 2 ? gv : av;
            ck_assert_msg(patc_interp_run_outputs(pass, nats, (const void *[]){&d, offs + 256 * d, fk, fv},
                                                  (void *[]){tk, tv}) == PATC_OK, "%s", patc_last_error(ctx));
        }
        free(ak);
        free(av);
        patc_program_free(pp);
    } else {
        patc_sorter *so;
        patc_sort_spec sp = {.key_type = key_type[kind], .values = vkind >= 0, .value_type = key_type[vkind < 0 ? 0 : vkind],
                             .descending = desc};
        ck_assert_msg(patc_sorter_create_spec(ctx, &sp, &so) == PATC_OK, "%s", patc_last_error(ctx));
        if (via == 1) {
            memcpy(gk, keys, (size_t)n * 4);
            memcpy(gv, vals, (size_t)n * 4);
        }
        const uint32_t *ik = via == 1 ? gk : keys, *iv = via == 1 ? gv : vals;
        if (vkind >= 0)
            ck_assert_msg(patc_sort_pairs_cpu(so, ik, gk, iv, gv, n) == PATC_OK, "%s", patc_last_error(ctx));
        else
            ck_assert_msg(patc_sort_keys_cpu(so, ik, gk, n) == PATC_OK, "%s", patc_last_error(ctx));
        patc_sorter_free(so);
    }
    Kvi *ref = malloc(sizeof *ref * (size_t)n);
    for (long long i = 0; i < n; i++) ref[i] = (Kvi){keys[i], vals[i], i};
    kind_now = kind;
    desc_now = desc;
    qsort(ref, (size_t)n, sizeof *ref, cmp_kvi);
    for (long long i = 0; i < n; i++) {
        CK_EACH(gk[i] == ref[i].k, "%s%s input %d n=%lld: key %lld is 0x%08x, the stable sort's 0x%08x",
                      suffix[kind], desc ? " descending" : "", input, n, i, gk[i], ref[i].k);
        CK_EACH(vkind < 0 || gv[i] == ref[i].v, "%s%s input %d n=%lld: value %lld is 0x%08x, the stable sort's "
                      "0x%08x (of input %lld)", suffix[kind], desc ? " descending" : "", input, n, i, gv[i], ref[i].v,
                      ref[i].i);
    }
    free(ref);
    free(gk);
    free(gv);
    free(keys);
    free(vals);
}

/* every key type x input kind x order; the value type turns with the input kind, so that
 * each key type meets each value type */
START_TEST(pairs_every_type_and_input)
{
    int kind = _i / (2 * NUM_INPUTS), input = _i / 2 % NUM_INPUTS, desc = _i % 2;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        check_pairs(kind, (input + (int)s) % 3, input, sizes[s], desc, (int)(s % 2));
}
END_TEST

START_TEST(keys_descending_every_type_and_input)
{
    int kind = _i / NUM_INPUTS, input = _i % NUM_INPUTS;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) check_pairs(kind, -1, input, sizes[s], 1, (int)(s % 2));
}
END_TEST

START_TEST(pairs_example_kernels)
{
    int kind = _i / NUM_INPUTS, input = _i % NUM_INPUTS;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) check_pairs(kind, KU32, input, sizes[s], 0, 2);
}
END_TEST

/* The f32 descending order pinned on a few keys, written out: +NaN > inf > FLT_MAX > 1 >
 * denormal > +0.0 = -0.0 (in input order) > -1 > -inf > -NaN; each key's value its index. */
START_TEST(f32_descending_pinned)
{
    uint32_t keys[] = {0x7fc00000u, 0x3f800000u, 0u, 0x7f800000u, 0x80000000u, 0xff800000u, 0xbf800000u,
                       0x00000001u, 0xffc00000u, 0x7f7fffffu, 0x80000000u, 0u};
    uint32_t want[] = {0x7fc00000u, 0x7f800000u, 0x7f7fffffu, 0x3f800000u, 0x00000001u, 0u, 0x80000000u,
                       0x80000000u, 0u, 0xbf800000u, 0xff800000u, 0xffc00000u};
    uint32_t wantv[] = {0, 3, 9, 1, 7, 2, 4, 10, 11, 6, 5, 8};
    uint32_t vals[12], gk[12], gv[12];
    for (int i = 0; i < 12; i++) vals[i] = (uint32_t)i;
    patc_sorter *so;
    patc_sort_spec sp = {.key_type = PATC_F32, .values = 1, .value_type = PATC_U32, .descending = 1};
    ck_assert_int_eq(patc_sorter_create_spec(ctx, &sp, &so), PATC_OK);
    ck_assert_msg(patc_sort_pairs_cpu(so, keys, gk, vals, gv, 12) == PATC_OK, "%s", patc_last_error(ctx));
    for (int i = 0; i < 12; i++) {
        ck_assert_msg(gk[i] == want[i], "key %d is 0x%08x, want 0x%08x", i, gk[i], want[i]);
        ck_assert_msg(gv[i] == wantv[i], "value %d is %u, want %u", i, gv[i], wantv[i]);
    }
    patc_sorter_free(so);
}
END_TEST

/* The pairs sorter's checks: value types, keys calls on it and pairs calls on a keys
 * sorter, NULLs, overlapping buffers; its temporary memory holds a second buffer of
 * values beside the keys'. */
START_TEST(pairs_sorter_arguments)
{
    patc_sorter *so = (patc_sorter *)1, *ko;
    patc_type bad[] = {PATC_BOOL, (patc_type)99};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(patc_sorter_create_pairs(ctx, PATC_U32, bad[i], &so), PATC_ERR_INVALID);
        ck_assert_ptr_null(so);
        ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "values must be u32, i32, f32, u64, i64 or f64"));
        so = (patc_sorter *)1;
    }
    ck_assert_int_eq(patc_sorter_create_pairs(ctx, PATC_BOOL, PATC_U32, &so), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sorter_create_spec(ctx, NULL, &so), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sorter_create_pairs(ctx, PATC_I32, PATC_F32, &so), PATC_OK);
    ck_assert_int_eq(patc_sorter_create(ctx, PATC_I32, &ko), PATC_OK);
    uint32_t k[4] = {3, 1, 2, 0}, v[4] = {0, 1, 2, 3};
    ck_assert_int_eq(patc_sort_keys_cpu(so, k, k, 4), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "patc_sort_pairs"));
    ck_assert_int_eq(patc_sort_pairs_cpu(ko, k, k, v, v, 4), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "keys alone"));
    ck_assert_int_eq(patc_sort_pairs_cpu(so, k, k, NULL, v, 4), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sort_pairs_cpu(so, k, k, v, v, 0), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sort_pairs(so, NULL, NULL, NULL, NULL, 4, NULL), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sort_pairs_ptr(so, 256, 512, 0, 1024, 4, NULL), PATC_ERR_INVALID);
    ck_assert_int_ne(patc_sort_pairs_ptr(so, 256, 4096, 8192, 12288, 4, NULL), PATC_OK); /* no device */
    /* overlapping keys out and values in: refused before anything else */
    ck_assert_int_eq(patc_sort_pairs_ptr(so, 256, 4096, 4096, 12288, 4, NULL), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "overlap"));
    ck_assert_int_eq(patc_sort_pairs_cpu(so, k, k, v, v, 4), PATC_OK);
    ck_assert_uint_eq(k[0], 0);
    ck_assert_uint_eq(v[0], 3);
    ck_assert_uint_eq(k[3], 3);
    ck_assert_uint_eq(v[3], 0);
    size_t bk, bp;
    ck_assert_int_eq(patc_sorter_temp_bytes(ko, 1000000, &bk), PATC_OK);
    ck_assert_int_eq(patc_sorter_temp_bytes(so, 1000000, &bp), PATC_OK);
    /* and the pairs' tiles of 9216 (109 of them, rt_sort.c's tile_steps) where the keys'
     * are 8192 (123), a look-back word a bucket a tile */
    ck_assert_msg(bp == bk + 4000000 - 1024 * (123 - 109), "pairs: %zu bytes, keys: %zu", bp, bk);
    patc_sorter_free(so);
    patc_sorter_free(ko);
}
END_TEST

/* ---------------------------------------------------------------- the small sort */

/* examples' rsSmall kernels (the sortTiles primitive on tiles of T = 4096, issue 35 item
 * 2) on the interpreter: every tile of the output (the last one partial) equal bit for
 * bit to the stable sort of that tile of the input, written here (qsort by key in the
 * type's order, reversed if descending, then by input index); for pairs the values
 * too. Keys rsSmall{U32,I32,F32} (prog), pairs rsSmallPairs{U32,I32,F32} and
 * descending rsSmallF32Desc, rsSmallPairsF32Desc (examples/radixsort_pairs.rise). */
enum { SMALL_T = 4096 };
static void check_small(patc_program *pp, int kind, int input, long long n, int desc, bool pairs)
{
    uint32_t *keys = calloc((size_t)n, 4), *vals = calloc((size_t)n, 4);
    make_input(kind, input, keys, n);
    for (long long i = 0; i < n; i++) vals[i] = make_value(input % 3, i);
    char name[64];
    snprintf(name, sizeof name, "rsSmall%s%s%s", pairs ? "Pairs" : "", suffix[kind], desc ? "Desc" : "");
    patc_kernel *k;
    ck_assert_msg(patc_get_kernel(pp, name, &k) == PATC_OK, "%s", patc_last_error(ctx));
    uint32_t *gk = malloc((size_t)n * 4), *gv = malloc((size_t)n * 4);
    long long nats[1] = {n};
    ck_assert_msg(patc_interp_run_outputs(k, nats, (const void *[]){keys, vals}, (void *[]){gk, gv}) == PATC_OK, "%s",
                  patc_last_error(ctx));
    Kvi *ref = malloc(sizeof *ref * (size_t)n);
    for (long long i = 0; i < n; i++) ref[i] = (Kvi){keys[i], vals[i], i};
    kind_now = kind;
    desc_now = desc;
    for (long long t = 0; t < n; t += SMALL_T)
        qsort(ref + t, (size_t)(n - t < SMALL_T ? n - t : SMALL_T), sizeof *ref, cmp_kvi);
    for (long long i = 0; i < n; i++) {
        CK_EACH(gk[i] == ref[i].k, "%s input %d n=%lld: key %lld is 0x%08x, the tile's stable sort's 0x%08x", name,
                      input, n, i, gk[i], ref[i].k);
        CK_EACH(!pairs || gv[i] == ref[i].v, "%s input %d n=%lld: value %lld is 0x%08x, the stable sort's 0x%08x "
                      "(of input %lld)", name, input, n, i, gv[i], ref[i].v, ref[i].i);
    }
    free(ref);
    free(gk);
    free(gv);
    free(keys);
    free(vals);
}

/* every key type x input kind: keys and pairs ascending; f32 descending too */
START_TEST(small_sort_kernels)
{
    int kind = _i / NUM_INPUTS, input = _i % NUM_INPUTS;
    patc_program *pp;
    patc_compile_options o = {.no_cubin = 1};
    ck_assert_msg(patc_program_compile(ctx, PATC_EXAMPLES_DIR "/radixsort_pairs.rise", NULL, 0, &o, &pp) == PATC_OK, "%s",
                  patc_last_error(ctx));
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        check_small(prog, kind, input, sizes[s], 0, false);
        check_small(pp, kind, input, sizes[s], 0, true);
        if (kind == KF32) {
            check_small(pp, kind, input, sizes[s], 1, false);
            check_small(pp, kind, input, sizes[s], 1, true);
        }
    }
    patc_program_free(pp);
}
END_TEST

/* ---------------------------------------------------------------- 8-byte keys, bit ranges */

/* Keys of any type (issue 35 item 2: u64, i64, f64 beside the 4-byte ones), values of 4
 * or 8 bytes, bit ranges and digit widths, through patc_sort_*_cpu. Keys and values are
 * held here as u64 words (4-byte ones zero-extended) and packed to their size. */
enum { WU32, WI32, WF32, WU64, WI64, WF64, NW };
static const patc_type wtype[NW] = {PATC_U32, PATC_I32, PATC_F32, PATC_U64, PATC_I64, PATC_F64};
static const char *const wname[NW] = {"u32", "i32", "f32", "u64", "i64", "f64"};
static int wbytes(int k) { return k >= WU64 ? 8 : 4; }

static uint64_t next64(void) { return (uint64_t)next() << 32 | next(); }

/* an input of kind UNIFORM, FEW, SPECIAL, SORTED or EQUAL for key type k */
static uint64_t wide_key(int k, int input, long long i, long long n)
{
    static const uint64_t sd[] = {0x8000000000000000ull, 0, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                  0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                                  0xfff0000000000001ull, 0x3ff0000000000000ull, 0xbff0000000000000ull, 1,
                                  0x8000000000000001ull};
    static const uint64_t sl[] = {0x8000000000000000ull, 0x7fffffffffffffffull, 0, ~0ull, 1, 0x8000000000000001ull};
    uint64_t m = wbytes(k) == 8 ? ~0ull : 0xffffffffull;
    switch (input) {
    case FEW: return next64() & next64() & next64() & m;
    case SPECIAL:
        if (next() % 3) return next64() & m;
        if (k == WF64) return next() % 2 ? sd[next() % 12] : (uint64_t)0 + (next() % 2 ? 0x4000000000000000ull : 0);
        if (k == WI64 || k == WU64) return sl[next() % 6];
        return next() % 2 ? 0x80000000u : 0x7fffffffu;
    case SORTED: {
        double g = (double)(i - n / 2) * 0.37;
        uint64_t x;
        memcpy(&x, &g, 8);
        return k == WF64 ? x : (uint64_t)(i * 0x100000007ll) & m;
    }
    case EQUAL: return 0xc004000000000000ull & m;
    default: return next64() & m;
    }
}

/* the key's order bits (unsigned order = the type's; -0.0 is +0.0), complemented for
 * descending, bits lo..hi-1 alone: what the sort must order by, written from the type's
 * encoding here */
static uint64_t wide_order(int k, uint64_t x, int desc, int lo, int hi)
{
    int bits = 8 * wbytes(k);
    uint64_t top = 1ull << (bits - 1), all = bits == 64 ? ~0ull : 0xffffffffull, o;
    if (k == WU32 || k == WU64) o = x;
    else if (k == WI32 || k == WI64) o = x ^ top;
    else {
        if (x == top) x = 0;
        o = (x & top) ? ~x & all : x ^ top;
    }
    if (desc) o = ~o & all;
    o >>= lo;
    return hi - lo == 64 ? o : o & ((1ull << (hi - lo)) - 1);
}

/* the type's order from the values (not from the order bits): the test of the whole key */
static int wide_cmp_value(int k, uint64_t a, uint64_t b)
{
    switch (k) {
    case WU32:
    case WU64: return a < b ? -1 : a > b;
    case WI32: return (int32_t)a < (int32_t)b ? -1 : (int32_t)a > (int32_t)b;
    case WI64: return (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b;
    case WF32: return sort_order_cmp_f32((uint32_t)a, (uint32_t)b);
    default: return sort_order_cmp_f64(a, b);
    }
}

typedef struct {
    uint64_t k, v;
    long long i;
} Wkv;
static int w_kind, w_desc, w_lo, w_hi, w_whole;
/* stable: by the order (of the values for the whole key, of the range's order bits
 * otherwise), then by input index */
static int cmp_wkv(const void *pa, const void *pb)
{
    const Wkv *a = pa, *b = pb;
    int c;
    if (w_whole) c = w_desc ? -wide_cmp_value(w_kind, a->k, b->k) : wide_cmp_value(w_kind, a->k, b->k);
    else {
        uint64_t x = wide_order(w_kind, a->k, w_desc, w_lo, w_hi), y = wide_order(w_kind, b->k, w_desc, w_lo, w_hi);
        c = x < y ? -1 : x > y;
    }
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static void wpack(unsigned char *dst, const uint64_t *src, long long n, int sz)
{
    for (long long i = 0; i < n; i++) {
        uint32_t w = (uint32_t)src[i];
        memcpy(dst + (size_t)sz * (size_t)i, sz == 8 ? (const void *)&src[i] : (const void *)&w, (size_t)sz);
    }
}
static uint64_t wget(const unsigned char *src, long long i, int sz)
{
    uint64_t x = 0;
    uint32_t w;
    if (sz == 8) memcpy(&x, src + 8 * i, 8);
    else {
        memcpy(&w, src + 4 * i, 4);
        x = w;
    }
    return x;
}

/* One sort by patc_sort_*_cpu (in place when n is odd) of n keys of type k (values of
 * type vk, or keys alone for vk < 0), bits lo..hi (both 0: all), digits of w bits (0:
 * the default), against the stable sort of cmp_wkv: keys and values bit for bit. */
static long long portion_now; /* check_wide's sorter's portion (0: the default) */
static void check_wide(int k, int vk, int input, long long n, int desc, int lo, int hi, int w)
{
    int ks = wbytes(k), vs = vk < 0 ? 4 : wbytes(vk);
    uint64_t *keys = malloc((size_t)n * 8), *vals = malloc((size_t)n * 8);
    for (long long i = 0; i < n; i++) {
        keys[i] = wide_key(k, input, i, n);
        vals[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull & (vs == 8 ? ~0ull : 0xffffffffull);
    }
    unsigned char *ik = malloc((size_t)n * 8), *iv = malloc((size_t)n * 8), *gk = malloc((size_t)n * 8),
                  *gv = malloc((size_t)n * 8);
    wpack(ik, keys, n, ks);
    wpack(iv, vals, n, vs);
    patc_sorter *so;
    patc_sort_spec sp = {.key_type = wtype[k], .values = vk >= 0, .value_type = wtype[vk < 0 ? 0 : vk],
                         .descending = desc, .begin_bit = lo, .end_bit = hi, .digit_bits = w,
                         .portion = portion_now};
    ck_assert_msg(patc_sorter_create_spec(ctx, &sp, &so) == PATC_OK, "%s", patc_last_error(ctx));
    bool in_place = n % 2;
    if (in_place) {
        memcpy(gk, ik, (size_t)n * (size_t)ks);
        memcpy(gv, iv, (size_t)n * (size_t)vs);
    }
    patc_status st = vk >= 0 ? patc_sort_pairs_cpu(so, in_place ? gk : ik, gk, in_place ? gv : iv, gv, n)
                             : patc_sort_keys_cpu(so, in_place ? gk : ik, gk, n);
    ck_assert_msg(st == PATC_OK, "%s", patc_last_error(ctx));
    patc_sorter_free(so);
    Wkv *ref = malloc(sizeof *ref * (size_t)n);
    for (long long i = 0; i < n; i++) ref[i] = (Wkv){keys[i], vals[i], i};
    w_kind = k;
    w_desc = desc;
    w_whole = lo == 0 && (hi == 0 || hi == 8 * ks);
    w_lo = lo;
    w_hi = hi ? hi : 8 * ks;
    qsort(ref, (size_t)n, sizeof *ref, cmp_wkv);
    for (long long i = 0; i < n; i++) {
        uint64_t x = wget(gk, i, ks), y = vk >= 0 ? wget(gv, i, vs) : 0;
        CK_EACH(x == ref[i].k, "%s%s%s%s bits [%d, %d) digit %d input %d n=%lld: key %lld is 0x%llx, the stable "
                      "sort's 0x%llx", wname[k], vk >= 0 ? "+" : "", vk >= 0 ? wname[vk] : "", desc ? " desc" : "", lo,
                      hi, w, input, n, i, (unsigned long long)x, (unsigned long long)ref[i].k);
        CK_EACH(vk < 0 || y == ref[i].v, "%s+%s input %d n=%lld: value %lld is 0x%llx, the stable sort's 0x%llx",
                      wname[k], wname[vk], input, n, i, (unsigned long long)y, (unsigned long long)ref[i].v);
    }
    free(ref);
    free(ik);
    free(iv);
    free(gk);
    free(gv);
    free(keys);
    free(vals);
}

/* 8-byte keys: every type x input x order, keys alone and with each value type in turn
 * (4 and 8 bytes), at sizes of the one launch and, for two inputs of each (the passes
 * are the interpreter's slowest part, under the sanitizers most of all), above 8192 */
static const long long wsizes[] = {1, 33, 1000, 9001};
static const int winputs[] = {UNIFORM, FEW, SPECIAL, SORTED, EQUAL};
START_TEST(wide_keys_every_type)
{
    int k = WU64 + _i / 10, input = winputs[_i / 2 % 5], desc = _i % 2;
    size_t ns = input == UNIFORM || input == SPECIAL ? 4 : 3;
    for (size_t s = 0; s < ns; s++) {
        int vk = (int)((s + (size_t)_i) % (NW + 1)) - 1; /* -1: keys alone */
        check_wide(k, vk, input, wsizes[s], desc, 0, 0, 0);
    }
}
END_TEST

/* values of 8 bytes carried by 4-byte keys (the small sort's path up to 8192 keys is
 * the passes' for these) */
START_TEST(wide_values_of_4byte_keys)
{
    for (size_t s = 0; s < sizeof wsizes / sizeof wsizes[0]; s++) {
        check_wide(WF32, WU64, SPECIAL, wsizes[s], 0, 0, 0, 0);
        check_wide(WI32, WF64, FEW, wsizes[s], 1, 0, 0, 0);
    }
}
END_TEST

/* A sort in portions (issue 35 item 4): the passes a launch a portion of 3001 keys
 * (multisplitToNext, each portion's offsets the result of the portion before, the first
 * portion's rsScanP's over a histogram a portion, once), as the sorter does past 2^28
 * keys; every key type, keys alone and pairs, odd and even passes, in place
 * (odd n) and not, in 3 portions of 2731 (8193 keys) and of 3001 (9001), and 7 of 2858
 * (20000; rt_sort.c's portion_q makes them one length), one with 5-bit digits
 * (13 passes of an 8-byte key: the last portion's and the others' offsets in u64). */
START_TEST(portions_every_type)
{
    static const int pk[] = {WU32, WI32, WF32, WU64, WI64, WF64};
    static const long long pn[] = {8193, 9001, 20000};
    int k = pk[_i % 6], vk = _i / 6 ? (int)((_i + 1) % NW) : -1;
    portion_now = 3001;
    for (size_t s = 0; s < 3; s++) check_wide(k, vk, s ? UNIFORM : FEW, pn[s], (int)s % 2, 0, 0, s == 2 && _i == 3 ? 5 : 0);
    portion_now = 0;
}
END_TEST

/* Bit ranges and digit widths: the passes are ceil((hi - lo) / w), odd and even counts,
 * one pass, 13 passes; 4-byte keys up to 8192 take the small sort with the range's
 * order. */
static const struct {
    int k, vk, desc, lo, hi, w;
} ranges[] = {
    {WU32, -1, 0, 0, 16, 0},  {WU32, WU32, 0, 4, 20, 0}, {WU32, -1, 0, 0, 32, 11}, {WF32, WI32, 1, 23, 32, 0},
    {WI32, -1, 0, 31, 32, 0}, {WU32, -1, 1, 3, 31, 5},   {WI64, WU32, 0, 0, 40, 0}, {WU64, WU64, 0, 8, 64, 11},
    {WF64, -1, 0, 0, 64, 5},  {WF64, WF32, 1, 52, 64, 0}, {WU64, -1, 0, 0, 64, 11}, {WI64, -1, 1, 17, 18, 0},
};
START_TEST(bit_ranges_and_digit_widths)
{
    int inputs[] = {UNIFORM, FEW, SPECIAL};
    for (int j = 0; j < 3; j++)
        check_wide(ranges[_i].k, ranges[_i].vk, inputs[j], 1000, ranges[_i].desc, ranges[_i].lo, ranges[_i].hi,
                   ranges[_i].w);
    check_wide(ranges[_i].k, ranges[_i].vk, UNIFORM, 9001, ranges[_i].desc, ranges[_i].lo, ranges[_i].hi, ranges[_i].w);
}
END_TEST

/* The spec's checks: a bit range outside the key or empty, a digit width outside 5..11;
 * the temporary memory of 8-byte keys and values: the second buffers at their sizes,
 * and nd x r counts twice (8 x 256 for u64 keys; 3 x 2048 for u32 keys of 11-bit
 * digits). */
START_TEST(wide_sorter_arguments)
{
    patc_sorter *so;
    static const struct {
        patc_type t;
        int lo, hi, w;
    } bad[] = {{PATC_U32, 0, 33, 0}, {PATC_U64, 0, 65, 0}, {PATC_U32, 5, 5, 0}, {PATC_U32, 9, 4, 0},
               {PATC_U32, -1, 8, 0}, {PATC_U32, 0, 0, 4}, {PATC_U32, 0, 0, 12}, {PATC_F64, 0, 0, -1}};
    patc_sort_spec pspec = {.key_type = PATC_U32, .portion = -1};
    ck_assert_int_eq(patc_sorter_create_spec(ctx, &pspec, &so), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "portion"));
    pspec.portion = 1LL << 30;
    ck_assert_int_eq(patc_sorter_create_spec(ctx, &pspec, &so), PATC_ERR_INVALID);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        patc_sort_spec sp = {.key_type = bad[i].t, .begin_bit = bad[i].lo, .end_bit = bad[i].hi, .digit_bits = bad[i].w};
        ck_assert_int_eq(patc_sorter_create_spec(ctx, &sp, &so), PATC_ERR_INVALID);
        ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), bad[i].w ? "digit_bits" : "bit range"));
    }
    size_t b32, b64, bp, b11;
    long long n = 1000000;
    patc_sort_spec s32 = {.key_type = PATC_U32}, s64 = {.key_type = PATC_F64},
                   sp = {.key_type = PATC_I64, .values = 1, .value_type = PATC_U64},
                   s11 = {.key_type = PATC_U32, .digit_bits = 11};
    const patc_sort_spec *specs[4] = {&s32, &s64, &sp, &s11};
    size_t *out[4] = {&b32, &b64, &bp, &b11};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(patc_sorter_create_spec(ctx, specs[i], &so), PATC_OK);
        ck_assert_msg(patc_sorter_temp_bytes(so, n, out[i]) == PATC_OK, "%s", patc_last_error(ctx));
        patc_sorter_free(so);
    }
    /* u64 keys: 4000000 more key bytes and 8 x 256 - 4 x 256 more u32 offsets than
     * u32's; below 2^20 both take tiles of 8192 keys (512 x 16), so the same look-back
     * words */
    ck_assert_msg(b64 == b32 + 4000000 + 4096, "f64: %zu bytes, u32: %zu", b64, b32);
    /* pairs of 8-byte keys and values: 8000000 value bytes more, and tiles of 6144 keys
     * (384 x 16, sortPass: no step) where u64 keys take 8192, 163 where those are 123 */
    ck_assert_msg(bp == b64 + 8000000 + 1024 * (163 - 123), "i64+u64: %zu bytes, f64 keys: %zu", bp, b64);
    /* the one launch, no temporary memory: up to 8192 keys of 8 bytes, 5120 pairs of an
     * 8-byte key or value (rt_sort.c's second table of tiles) */
    static const struct {
        patc_sort_spec sp;
        long long most;
    } one[] = {{{.key_type = PATC_U64}, 8192},
               {{.key_type = PATC_F64, .values = 1, .value_type = PATC_U64}, 5120},
               {{.key_type = PATC_U32, .values = 1, .value_type = PATC_I64}, 5120},
               {{.key_type = PATC_I64, .begin_bit = 8, .end_bit = 20}, 8192}};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        size_t b0 = 1, b1 = 0;
        ck_assert_int_eq(patc_sorter_create_spec(ctx, &one[i].sp, &so), PATC_OK);
        ck_assert_msg(patc_sorter_temp_bytes(so, one[i].most, &b0) == PATC_OK, "%s", patc_last_error(ctx));
        ck_assert_msg(patc_sorter_temp_bytes(so, one[i].most + 1, &b1) == PATC_OK, "%s", patc_last_error(ctx));
        ck_assert_msg(b0 == 0 && b1 > 0, "spec %zu: %zu bytes at n = %lld, %zu above", i, b0, one[i].most, b1);
        patc_sorter_free(so);
    }
    /* 11-bit digits: 2048 buckets a pass, so the look-back's 4-byte words 8x, the counts
     * 3 x 2048 */
    ck_assert_msg(b11 > b32 + 7 * 1024 * (size_t)(n / 6144), "u32 of 11-bit digits: %zu bytes, of 8: %zu", b11, b32);
}
END_TEST

/* The sanitizer build (RS_LOOP_STRIDE 6, runtime/CMakeLists.txt) registers one case in
 * six of each loop test, from a different first case for each test: it looks for memory
 * errors and undefined behaviour on the same code paths, and the interpreter's sorts
 * under AddressSanitizer took 758 s of a fresh clone's CI with every case, the longest
 * test there (113-144 s with one in three at -O1). The normal build runs every case. */
#ifndef RS_LOOP_STRIDE
#define RS_LOOP_STRIDE 1
#endif
static void add_loop(TCase *tc, const TTest *t, int n)
{
    static int first;
    for (int i = first++ % RS_LOOP_STRIDE; i < n; i += RS_LOOP_STRIDE) tcase_add_loop_test(tc, t, i, i + 1);
}

static Suite *suite(void)
{
    Suite *s = suite_create("radixsort");
    TCase *tc = tcase_create("interp");
    tcase_add_checked_fixture(tc, setup, teardown);
    /* (loop tests through add_loop: every case here, one in RS_LOOP_STRIDE of each under
     * the sanitizers) */
    tcase_set_timeout(tc, 600);
    add_loop(tc, sorts_every_type_and_input, 3 * NUM_INPUTS);
    tcase_add_test(tc, f32_order_pinned);
    add_loop(tc, sorter_cpu_every_type_and_input, 3 * NUM_INPUTS);
    tcase_add_test(tc, sorter_arguments);
    tcase_add_test(tc, sorter_temp_bytes);
    tcase_add_test(tc, sorter_temp_within_cub);
    tcase_add_test(tc, sorter_tile_steps);
    tcase_add_test(tc, multisplit_length_bound);
    tcase_add_test(tc, sorter_freed_by_destroy);
    add_loop(tc, pairs_every_type_and_input, 3 * NUM_INPUTS * 2);
    add_loop(tc, keys_descending_every_type_and_input, 3 * NUM_INPUTS);
    add_loop(tc, pairs_example_kernels, 3 * NUM_INPUTS);
    tcase_add_test(tc, f32_descending_pinned);
    tcase_add_test(tc, pairs_sorter_arguments);
    add_loop(tc, small_sort_kernels, 3 * NUM_INPUTS);
    add_loop(tc, wide_keys_every_type, 30);
    tcase_add_test(tc, wide_values_of_4byte_keys);
    add_loop(tc, bit_ranges_and_digit_widths, (int)(sizeof ranges / sizeof ranges[0]));
    tcase_add_test(tc, wide_sorter_arguments);
    add_loop(tc, portions_every_type, 12);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
