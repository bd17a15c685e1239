/* sort_check.c: libpatrt's radix sort (patc_sort_keys and patc_sort_pairs, ascending
 * and descending, issue 35) on the GPU, every element checked. tests/gpu/all.sh's section r builds it against libpatrt.a; tests/emu
 * runs it on the emulated kernels (libpatrt.so and tests/fakecuda).
 *
 *   sort_check TYPE N INPUT        sort N keys (u32, i32 or f32) of an input kind:
 *                                  uniform (random words; f32: every bit pattern, NaNs
 *                                  included), few (the AND of 3 random words), sorted,
 *                                  reverse, special (the type's extreme values, +-0,
 *                                  +-inf and NaNs mixed in), equal
 *   sort_check TYPE many COUNT MAX COUNT back-to-back sorts of 1..MAX keys (varying) on
 *                                  one stream, each into its own part of one output,
 *                                  then every one checked
 *   sort_check --source TYPE       print the sorter's generated program
 *   --desc, --pairs=VTYPE          (before TYPE, in any of the above) a descending
 *                                  sorter; a sorter of pairs with values of VTYPE (u32,
 *                                  i32 or f32), value i of the input a distinct word
 *
 * Each result is compared bit for bit with a stable LSD radix sort written here on the
 * type's order bits (so -0.0 and +0.0 keep their input order, as CUB's sort keeps
 * them), and for N <= 2^21 also element by element with qsort under the type's order
 * written from the values (f32: NaNs with the sign bit first, larger payloads first;
 * numbers by value, -0.0 == +0.0; then the other NaNs, smaller payloads first). The
 * sort also runs in place on its result (sorting sorted keys), checked the same way.
 * Descending: the reference sorts by the complemented order bits (still stable), qsort
 * by the reversed order. Pairs: the reference carries each value with its key, and the
 * values out must equal its values bit for bit (so equal keys keep their values' input
 * order).
 * Prints "sort_check: P passed, F failed"; exits 1 on any failure. */
#include "patc.h"
#include "../sort_order.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KU32, KI32, KF32 };
static int kind, desc, pairs, vkind;
static int passed, failed;

static uint32_t order_bits(uint32_t x)
{
    uint32_t m = desc ? 0xffffffffu : 0;
    if (kind == KU32) return x ^ m;
    if (kind == KI32) return x ^ 0x80000000u ^ m;
    if (x == 0x80000000u) x = 0; /* -0.0 is +0.0 */
    return ((x >> 31) ? ~x : x ^ 0x80000000u) ^ m;
}

/* value i of an input: distinct words (i * an odd constant), of the value type */
static uint32_t value_of(long long i)
{
    uint32_t u = (uint32_t)i * 2654435761u;
    if (vkind == KF32) {
        float f = (float)(i % 1000003) - 500.0f;
        memcpy(&u, &f, 4);
    } else if (vkind == KI32) u = (uint32_t)(int32_t)(-(int32_t)(i % 2000000000) - 1);
    return u;
}

static int cmp_key_asc(const void *pa, const void *pb);
static int cmp_key(const void *pa, const void *pb) { return desc ? -cmp_key_asc(pa, pb) : cmp_key_asc(pa, pb); }
static int cmp_key_asc(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (kind == KU32) return a < b ? -1 : a > b;
    if (kind == KI32) return (int32_t)a < (int32_t)b ? -1 : (int32_t)a > (int32_t)b;
    return sort_order_cmp_f32(a, b);
}

/* The reference: a stable LSD radix sort by 8-bit digits of the order bits, the values
 * (v, NULL for keys alone) carried along. */
static void ref_sort(uint32_t *k, uint32_t *v, long long n)
{
    uint32_t *t = malloc((size_t)n * 4), *tv = v ? malloc((size_t)n * 4) : NULL;
    for (int d = 0; d < 4; d++) {
        long long cnt[257] = {0};
        for (long long i = 0; i < n; i++) cnt[((order_bits(k[i]) >> (8 * d)) & 255) + 1]++;
        for (int b = 0; b < 256; b++) cnt[b + 1] += cnt[b];
        for (long long i = 0; i < n; i++) {
            long long at = cnt[(order_bits(k[i]) >> (8 * d)) & 255]++;
            t[at] = k[i];
            if (v) tv[at] = v[i];
        }
        memcpy(k, t, (size_t)n * 4);
        if (v) memcpy(v, tv, (size_t)n * 4);
    }
    free(t);
    free(tv);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next(void)
{
    rng += 0x9e3779b97f4a7c15ull;
    uint64_t z = rng;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 16);
}

static void make_input(const char *input, uint32_t *k, long long n)
{
    static const uint32_t sf[] = {0x80000000u, 0u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                  0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu, 1u, 0x80000001u};
    static const uint32_t si[] = {0x80000000u, 0x7fffffffu, 0u, 0xffffffffu, 1u, 0x80000001u, 0x7ffffffeu};
    for (long long i = 0; i < n; i++) {
        uint32_t x;
        if (strcmp(input, "few") == 0) x = next() & next() & next();
        else if (strcmp(input, "equal") == 0) x = kind == KF32 ? 0xc0200000u : 0x80003039u;
        else if (strcmp(input, "sorted") == 0 || strcmp(input, "reverse") == 0) {
            long long j = input[0] == 's' ? i : n - 1 - i;
            float f = (float)(j - n / 2) * 0.37f;
            if (kind == KF32) memcpy(&x, &f, 4);
            else x = kind == KU32 ? (uint32_t)j * 7u : (uint32_t)(int32_t)((j - n / 2) * 7);
        } else if (strcmp(input, "special") == 0) {
            x = next() % 3 ? next() : kind == KF32 ? sf[next() % 12] : si[next() % 7];
            if (kind == KF32 && next() % 2) {
                float f = (float)(int)(next() % 64) - 32.0f;
                memcpy(&x, &f, 4);
            }
        } else x = next();
        k[i] = x;
    }
}

/* got (and gotv, the values, for pairs) against the reference (bit for bit) and, for
 * n <= 2^21, qsort (by the order). */
static int check(const char *what, const uint32_t *keys, const uint32_t *vals, const uint32_t *got,
                 const uint32_t *gotv, long long n)
{
    uint32_t *want = malloc((size_t)n * 4), *wantv = pairs ? malloc((size_t)n * 4) : NULL;
    memcpy(want, keys, (size_t)n * 4);
    if (pairs) memcpy(wantv, vals, (size_t)n * 4);
    ref_sort(want, wantv, n);
    int ok = 1;
    for (long long i = 0; i < n && ok; i++)
        if (got[i] != want[i]) {
            printf("%s: element %lld of %lld is 0x%08x, the reference's 0x%08x\n", what, i, n, got[i], want[i]);
            ok = 0;
        } else if (pairs && gotv[i] != wantv[i]) {
            printf("%s: value %lld of %lld is 0x%08x, the reference's 0x%08x (key 0x%08x)\n", what, i, n, gotv[i],
                   wantv[i], got[i]);
            ok = 0;
        }
    free(wantv);
    if (ok && n <= (1LL << 21)) {
        memcpy(want, keys, (size_t)n * 4);
        qsort(want, (size_t)n, 4, cmp_key);
        for (long long i = 0; i < n && ok; i++)
            if (cmp_key(&got[i], &want[i]) != 0) {
                printf("%s: element %lld of %lld is 0x%08x, qsort's 0x%08x\n", what, i, n, got[i], want[i]);
                ok = 0;
            }
    }
    free(want);
    if (ok) passed++;
    else failed++;
    return ok;
}

#define TRY(call)                                                                                       \
    do {                                                                                                \
        if ((call) != PATC_OK) {                                                                        \
            printf("%s: %s\n", #call, patc_last_error(ctx));                                            \
            failed++;                                                                                   \
            goto done;                                                                                  \
        }                                                                                               \
    } while (0)

/* One sort on the device: keys alone or pairs (vin, vout) as the sorter is. */
static patc_status sort_ptr(patc_sorter *so, unsigned long long kin, unsigned long long kout, unsigned long long vin,
                            unsigned long long vout, long long n)
{
    return pairs ? patc_sort_pairs_ptr(so, kin, kout, vin, vout, n, NULL) : patc_sort_keys_ptr(so, kin, kout, n, NULL);
}

int main(int argc, char **argv)
{
    static const patc_type types[] = {PATC_U32, PATC_I32, PATC_F32};
    static const char *const names[] = {"u32", "i32", "f32"};
    int src = argc > 1 && strcmp(argv[1], "--source") == 0;
    int a0 = 1 + src;
    vkind = KU32;
    for (; a0 < argc && strncmp(argv[a0], "--", 2) == 0; a0++) {
        if (strcmp(argv[a0], "--desc") == 0) desc = 1;
        else if (strncmp(argv[a0], "--pairs=", 8) == 0) {
            pairs = 1;
            vkind = -1;
            for (int i = 0; i < 3; i++)
                if (strcmp(argv[a0] + 8, names[i]) == 0) vkind = i;
        } else vkind = -1;
    }
    const char *tn = argc > a0 ? argv[a0] : "";
    kind = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(tn, names[i]) == 0) kind = i;
    argv += a0 - 1; /* argv[1] is the type from here on */
    argc -= a0 - 1;
    if (kind < 0 || vkind < 0 || (!src && argc < 4)) {
        fprintf(stderr, "usage: sort_check [--desc] [--pairs=(u32|i32|f32)] (u32|i32|f32) N INPUT | ... TYPE many "
                        "COUNT MAX | --source [--desc] [--pairs=VTYPE] TYPE\n");
        return 2;
    }
    char tag[40];
    snprintf(tag, sizeof tag, "%s%s%s%s", names[kind], pairs ? "+" : "", pairs ? names[vkind] : "", desc ? " desc" : "");
    patc_ctx *ctx;
    if (patc_create(&ctx, 0, src ? PATC_COMPILE_ONLY : 0) != PATC_OK) {
        printf("patc_create: %s\n", ctx ? patc_last_error(ctx) : "failed");
        return 1;
    }
    patc_sorter *so = NULL;
    patc_buffer *in = NULL, *out = NULL, *vin = NULL, *vout = NULL;
    uint32_t *keys = NULL, *got = NULL, *vals = NULL, *gotv = NULL, *again = NULL, *againv = NULL;
    long long *ns = NULL;
    patc_sort_spec spec = {.key_type = types[kind], .values = pairs, .value_type = types[vkind], .descending = desc};
    TRY(patc_sorter_create_spec(ctx, &spec, &so));
    if (src) {
        fputs(patc_sorter_source(so), stdout);
        goto done;
    }
    long long total;
    int many = strcmp(argv[2], "many") == 0, count = 1;
    long long most = 0;
    if (many) {
        count = argc > 3 ? atoi(argv[3]) : 1000;
        most = argc > 4 ? atoll(argv[4]) : 100000;
        total = 0;
        ns = malloc((size_t)count * sizeof *ns);
        for (int i = 0; i < count; i++) total += ns[i] = 1 + (long long)(next() % (uint32_t)most);
    } else {
        total = atoll(argv[2]);
        if (total < 1) {
            fprintf(stderr, "sort_check: N must be at least 1\n");
            return 2;
        }
    }
    size_t bytes = (size_t)total * 4;
    keys = malloc(bytes);
    got = malloc(bytes);
    vals = malloc(bytes);
    gotv = malloc(bytes);
    make_input(many ? "uniform" : argv[3], keys, total);
    for (long long i = 0; i < total; i++) vals[i] = value_of(i);
    TRY(patc_buffer_alloc(ctx, bytes, &in));
    TRY(patc_buffer_alloc(ctx, bytes, &out));
    TRY(patc_buffer_upload(in, keys, bytes));
    if (pairs) {
        TRY(patc_buffer_alloc(ctx, bytes, &vin));
        TRY(patc_buffer_alloc(ctx, bytes, &vout));
        TRY(patc_buffer_upload(vin, vals, bytes));
    }
    unsigned long long pin = patc_buffer_device_ptr(in), pout = patc_buffer_device_ptr(out);
    unsigned long long pvin = pairs ? patc_buffer_device_ptr(vin) : 0, pvout = pairs ? patc_buffer_device_ptr(vout) : 0;
    if (many) {
        size_t tb;
        TRY(patc_sorter_temp_bytes(so, most, &tb));
        long long at = 0;
        for (int i = 0; i < count; i++) {
            unsigned long long o = (unsigned long long)at * 4;
            TRY(sort_ptr(so, pin + o, pout + o, pairs ? pvin + o : 0, pairs ? pvout + o : 0, ns[i]));
            at += ns[i];
        }
        TRY(patc_buffer_download(out, got, bytes));
        if (pairs) TRY(patc_buffer_download(vout, gotv, bytes));
        at = 0;
        int before = failed;
        for (int i = 0; i < count; i++) {
            char what[120];
            snprintf(what, sizeof what, "%s many: sort %d (n = %lld)", tag, i, ns[i]);
            check(what, keys + at, vals + at, got + at, gotv + at, ns[i]);
            at += ns[i];
        }
        printf("%s: %d back-to-back sorts of 1..%lld keys (%lld in all, temp %zu bytes at n = %lld): %s\n", tag, count,
               most, total, tb, most, failed == before ? "all sorted" : "FAILED");
        goto done;
    }
    long long n = total;
    const char *input = argv[3];
    if (pairs) TRY(patc_sort_pairs(so, in, out, vin, vout, n, NULL));
    else TRY(patc_sort_keys(so, in, out, n, NULL));
    TRY(patc_buffer_download(out, got, bytes));
    if (pairs) TRY(patc_buffer_download(vout, gotv, bytes));
    char what[120];
    snprintf(what, sizeof what, "%s n=%lld %s", tag, n, input);
    int ok = check(what, keys, vals, got, gotv, n);
    /* the inputs unchanged */
    again = malloc(bytes);
    againv = malloc(bytes);
    TRY(patc_buffer_download(in, again, bytes));
    if (pairs) TRY(patc_buffer_download(vin, againv, bytes));
    if (memcmp(again, keys, bytes) != 0 || (pairs && memcmp(againv, vals, bytes) != 0)) {
        printf("%s: the input was changed\n", what);
        failed++;
        ok = 0;
    }
    /* in place, on the sorted keys (and their values) */
    if (pairs) TRY(patc_sort_pairs(so, out, out, vout, vout, n, NULL));
    else TRY(patc_sort_keys(so, out, out, n, NULL));
    TRY(patc_buffer_download(out, again, bytes));
    if (pairs) TRY(patc_buffer_download(vout, againv, bytes));
    snprintf(what, sizeof what, "%s n=%lld %s (in place, again)", tag, n, input);
    ok = check(what, got, gotv, again, againv, n) && ok;
    size_t tb = 0;
    TRY(patc_sorter_temp_bytes(so, n, &tb));
    printf("%s n=%lld %s: %s (temp %zu bytes)\n", tag, n, input, ok ? "sorted" : "FAILED", tb);
done:
    if (!src) printf("sort_check: %d passed, %d failed\n", passed, failed);
    free(ns);
    free(keys);
    free(got);
    free(vals);
    free(gotv);
    free(again);
    free(againv);
    patc_buffer_free(in);
    patc_buffer_free(out);
    patc_buffer_free(vin);
    patc_buffer_free(vout);
    patc_sorter_free(so);
    patc_destroy(ctx);
    return failed ? 1 : 0;
}
