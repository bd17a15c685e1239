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
        ck_assert_msg(hist[j] == want_h[j], "%s input %d n=%lld: histogram bin %d is %u, want %u", suffix[kind], input,
                      n, j, hist[j], want_h[j]);

    /* the order: element by element equal under the type's order to qsort's result */
    uint32_t *ref = malloc((size_t)n * 4);
    memcpy(ref, keys, (size_t)n * 4);
    kind_now = kind;
    qsort(ref, (size_t)n, 4, cmp_key);
    for (long long i = 0; i < n; i++)
        ck_assert_msg(cmp_key(&got[i], &ref[i]) == 0, "%s input %d n=%lld: element %lld is 0x%08x, qsort's 0x%08x",
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
    patc_type bad[] = {PATC_F64, PATC_I64, PATC_U64, PATC_BOOL, (patc_type)99};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(patc_sorter_create(ctx, bad[i], &so), PATC_ERR_INVALID);
        ck_assert_ptr_null(so);
        ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "u32, i32 or f32"));
        so = (patc_sorter *)1;
    }
    ck_assert_int_eq(patc_sorter_create(ctx, PATC_U32, NULL), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_sorter_create(ctx, PATC_U32, &so), PATC_OK);
    uint32_t k[4] = {3, 1, 2, 0};
    ck_assert_int_eq(patc_sort_keys_cpu(so, k, k, 0), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "at least 1"));
    ck_assert_int_eq(patc_sort_keys_cpu(so, k, k, 4294967296LL), PATC_ERR_SIZE);
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "2^32-1"));
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
 * the 8 KiB of counts, and the kernels' scratch, which for the multisplit pass is 8
 * bytes per bucket per tile of 6144 keys (256 * ceil(n / 6144) words: rt_sort.c's 384
 * threads of 16 keys) and a little more (tile counter, the histogram's 1024 global
 * bins): so between n*4 + 8192 + 2048 * tiles and that plus 64 KiB, for every key type. */
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
    static const long long ns[] = {8193, 12288, 12289, 1000000, 1LL << 28, 4294967295LL};
    for (int kind = 0; kind < 3; kind++) {
        patc_sorter *so;
        ck_assert_int_eq(patc_sorter_create(ctx, key_type[kind], &so), PATC_OK);
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            size_t b = 0, n = (size_t)ns[i], tiles = (n + 6143) / 6144;
            ck_assert_msg(patc_sorter_temp_bytes(so, ns[i], &b) == PATC_OK, "%s", patc_last_error(ctx));
            size_t lo = (n * 4 + 255) / 256 * 256 + 8192 + 2048 * tiles;
            ck_assert_msg(b >= lo && b <= lo + 65536, "n = %zu: %zu bytes, expected %zu to %zu", n, b, lo, lo + 65536);
        }
        size_t b;
        ck_assert_int_eq(patc_sorter_temp_bytes(so, 0, &b), PATC_ERR_INVALID);
        ck_assert_int_eq(patc_sorter_temp_bytes(so, 4294967296LL, &b), PATC_ERR_SIZE);
        ck_assert_int_eq(patc_sorter_temp_bytes(so, 5, NULL), PATC_ERR_INVALID);
        patc_sorter_free(so);
    }
}
END_TEST

/* The f32 order pinned on a few keys, written out: -NaN < -inf < -1 < -0.0 = +0.0 (in
 * input order) < denormal < 1 < FLT_MAX < inf < NaN. */
/* A sorter still alive when its context is destroyed is freed by patc_destroy, with its
 * programs (the ASan build's leak check fails otherwise). */
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
        ck_assert_msg(got[i] == want[i], "element %lld is 0x%08x, want 0x%08x", i, got[i], want[i]);
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
        ck_assert_msg(gk[i] == ref[i].k, "%s%s input %d n=%lld: key %lld is 0x%08x, the stable sort's 0x%08x",
                      suffix[kind], desc ? " descending" : "", input, n, i, gk[i], ref[i].k);
        ck_assert_msg(vkind < 0 || gv[i] == ref[i].v, "%s%s input %d n=%lld: value %lld is 0x%08x, the stable sort's "
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
    patc_type bad[] = {PATC_F64, PATC_I64, PATC_U64, PATC_BOOL, (patc_type)99};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(patc_sorter_create_pairs(ctx, PATC_U32, bad[i], &so), PATC_ERR_INVALID);
        ck_assert_ptr_null(so);
        ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "values must be u32, i32 or f32"));
        so = (patc_sorter *)1;
    }
    ck_assert_int_eq(patc_sorter_create_pairs(ctx, PATC_F64, PATC_U32, &so), PATC_ERR_INVALID);
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
    ck_assert_msg(bp == bk + 4000000, "pairs: %zu bytes, keys: %zu; want 4000000 more", bp, bk);
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
        ck_assert_msg(gk[i] == ref[i].k, "%s input %d n=%lld: key %lld is 0x%08x, the tile's stable sort's 0x%08x", name,
                      input, n, i, gk[i], ref[i].k);
        ck_assert_msg(!pairs || gv[i] == ref[i].v, "%s input %d n=%lld: value %lld is 0x%08x, the stable sort's 0x%08x "
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

static Suite *suite(void)
{
    Suite *s = suite_create("radixsort");
    TCase *tc = tcase_create("interp");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, sorts_every_type_and_input, 0, 3 * NUM_INPUTS);
    tcase_add_test(tc, f32_order_pinned);
    tcase_add_loop_test(tc, sorter_cpu_every_type_and_input, 0, 3 * NUM_INPUTS);
    tcase_add_test(tc, sorter_arguments);
    tcase_add_test(tc, sorter_temp_bytes);
    tcase_add_test(tc, sorter_freed_by_destroy);
    tcase_add_loop_test(tc, pairs_every_type_and_input, 0, 3 * NUM_INPUTS * 2);
    tcase_add_loop_test(tc, keys_descending_every_type_and_input, 0, 3 * NUM_INPUTS);
    tcase_add_loop_test(tc, pairs_example_kernels, 0, 3 * NUM_INPUTS);
    tcase_add_test(tc, f32_descending_pinned);
    tcase_add_test(tc, pairs_sorter_arguments);
    tcase_add_loop_test(tc, small_sort_kernels, 0, 3 * NUM_INPUTS);
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
