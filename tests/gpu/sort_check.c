/* sort_check.c: libpatrt's radix sort (patc_sort_keys and patc_sort_pairs, ascending
 * and descending, every key and value type, bit ranges, digit widths: issue 35) on the
 * GPU, every element checked. tests/gpu/all.sh's section r builds it against libpatrt.a;
 * tests/emu runs it on the emulated kernels (libpatrt.so and tests/fakecuda).
 *
 *   sort_check TYPE N INPUT        sort N keys (u32, i32, f32, u64, i64 or f64) of an
 *                                  input kind: uniform (random words; floats: every bit
 *                                  pattern, NaNs included), few (the AND of 3 random
 *                                  words), sorted, reverse, special (the type's extreme
 *                                  values, +-0, +-inf and NaNs mixed in), equal
 *   sort_check TYPE many COUNT MAX COUNT back-to-back sorts of 1..MAX keys (varying) on
 *                                  one stream, each into its own part of one output,
 *                                  then every one checked
 *   sort_check --source TYPE       print the sorter's generated program
 *   --desc, --pairs=VTYPE,         (before TYPE, in any of the above) a descending
 *   --bits=B:E, --digit=W,         sorter; a sorter of pairs with values of VTYPE (any
 *   --portion=P                    key type), value i of the input a distinct word; a
 *                                  sort by bits B..E-1 of the order bits; digits of W
 *                                  bits; passes a launch a portion of P keys
 *                                  (patc_sort_spec's begin_bit, end_bit, digit_bits,
 *                                  portion)
 *
 * Each result is compared bit for bit with a stable LSD radix sort written here on the
 * type's order bits (so -0.0 and +0.0 keep their input order, as CUB's sort keeps
 * them; for a bit range, on those bits alone), and, for the whole key and N <= 2^21,
 * also element by element with qsort under the type's order written from the values
 * (floats: NaNs with the sign bit first, larger payloads first; numbers by value, -0.0
 * == +0.0; then the other NaNs, smaller payloads first). The sort also runs in place on
 * its result (sorting sorted keys), checked the same way. Descending: the reference
 * sorts by the complemented order bits (still stable), qsort by the reversed order.
 * Pairs: the reference carries each value with its key, and the values out must equal
 * its values bit for bit (so equal keys keep their values' input order).
 * Prints "sort_check: P passed, F failed"; exits 1 on any failure. */
#include "patc.h"
#include "../sort_order.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KU32, KI32, KF32, KU64, KI64, KF64, NKINDS };
static const patc_type types[NKINDS] = {PATC_U32, PATC_I32, PATC_F32, PATC_U64, PATC_I64, PATC_F64};
static const char *const names[NKINDS] = {"u32", "i32", "f32", "u64", "i64", "f64"};
static int kind, desc, pairs, vkind, lo, hi, digit;
static long long portion;
static size_t ks, vs; /* the bytes of a key and of a value */
static int passed, failed;

/* Keys and values are held here as u64 words (a 4-byte one zero-extended) and packed to
 * their size for the device. */
static int wide(int k) { return k >= KU64; }

/* The order bits of key x (unsigned order = the type's order; -0.0 is +0.0),
 * complemented for descending, then bits lo..hi-1 of them alone. */
static uint64_t order_bits(uint64_t x)
{
    int bits = wide(kind) ? 64 : 32;
    uint64_t top = 1ull << (bits - 1), all = wide(kind) ? ~0ull : 0xffffffffull, o;
    if (kind == KU32 || kind == KU64) o = x;
    else if (kind == KI32 || kind == KI64) o = x ^ top;
    else {
        if (x == top) x = 0; /* -0.0 is +0.0 */
        o = (x & top) ? ~x & all : x ^ top;
    }
    if (desc) o = ~o & all;
    o >>= lo;
    return hi - lo == 64 ? o : o & ((1ull << (hi - lo)) - 1);
}

/* value i of an input: distinct words (i * an odd constant), of the value type */
static uint64_t value_of(long long i)
{
    uint64_t u = (uint64_t)i * 0x9e3779b97f4a7c15ull;
    if (vkind == KF32) {
        float f = (float)(i % 1000003) - 500.0f;
        uint32_t w;
        memcpy(&w, &f, 4);
        u = w;
    } else if (vkind == KF64) {
        double f = (double)i - 500.5;
        memcpy(&u, &f, 8);
    } else if (vkind == KI32) u = (uint32_t)(int32_t)(-(int32_t)(i % 2000000000) - 1);
    else if (vkind == KU32) u = (uint32_t)i * 2654435761u;
    else if (vkind == KI64) u = (uint64_t)(-(int64_t)i - 1);
    return u;
}

static int cmp_key_asc(const void *pa, const void *pb);
static int cmp_key(const void *pa, const void *pb) { return desc ? -cmp_key_asc(pa, pb) : cmp_key_asc(pa, pb); }
static int cmp_key_asc(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    switch (kind) {
    case KU32:
    case KU64: return a < b ? -1 : a > b;
    case KI32: return (int32_t)a < (int32_t)b ? -1 : (int32_t)a > (int32_t)b;
    case KI64: return (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b;
    case KF32: return sort_order_cmp_f32((uint32_t)a, (uint32_t)b);
    default: return sort_order_cmp_f64(a, b);
    }
}

/* The reference: a stable LSD radix sort by 8-bit digits of the order bits (of the
 * range), the values (v, NULL for keys alone) carried along. */
static void ref_sort(uint64_t *k, uint64_t *v, long long n)
{
    uint64_t *t = malloc((size_t)n * 8), *tv = v ? malloc((size_t)n * 8) : NULL;
    for (int d = 0; d * 8 < hi - lo; d++) {
        long long cnt[257] = {0};
        for (long long i = 0; i < n; i++) cnt[((order_bits(k[i]) >> (8 * d)) & 255) + 1]++;
        for (int b = 0; b < 256; b++) cnt[b + 1] += cnt[b];
        for (long long i = 0; i < n; i++) {
            long long at = cnt[(order_bits(k[i]) >> (8 * d)) & 255]++;
            t[at] = k[i];
            if (v) tv[at] = v[i];
        }
        memcpy(k, t, (size_t)n * 8);
        if (v) memcpy(v, tv, (size_t)n * 8);
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
static uint64_t next_key(void) { return wide(kind) ? (uint64_t)next() << 32 | next() : next(); }

static void make_input(const char *input, uint64_t *k, long long n)
{
    static const uint32_t sf[] = {0x80000000u, 0u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                  0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu, 1u, 0x80000001u};
    static const uint64_t sd[] = {0x8000000000000000ull, 0, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                  0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                                  0xfff0000000000001ull, 0x7fffffffffffffffull, 0xffffffffffffffffull, 1,
                                  0x8000000000000001ull};
    static const uint64_t si[] = {0x80000000u, 0x7fffffffu, 0u, 0xffffffffu, 1u, 0x80000001u, 0x7ffffffeu};
    static const uint64_t sl[] = {0x8000000000000000ull, 0x7fffffffffffffffull, 0, ~0ull, 1,
                                  0x8000000000000001ull, 0x7ffffffffffffffeull};
    for (long long i = 0; i < n; i++) {
        uint64_t x;
        if (strcmp(input, "few") == 0) x = next_key() & next_key() & next_key();
        else if (strcmp(input, "equal") == 0)
            x = kind == KF32 ? 0xc0200000u : kind == KF64 ? 0xc004000000000000ull : wide(kind) ? 0x8000000000003039ull
                                                                                                 : 0x80003039u;
        else if (strcmp(input, "sorted") == 0 || strcmp(input, "reverse") == 0) {
            long long j = input[0] == 's' ? i : n - 1 - i;
            float f = (float)(j - n / 2) * 0.37f;
            double g = (double)(j - n / 2) * 0.37;
            uint32_t w;
            memcpy(&w, &f, 4);
            switch (kind) {
            case KF32: x = w; break;
            case KF64: memcpy(&x, &g, 8); break;
            case KU32: x = (uint32_t)j * 7u; break;
            case KI32: x = (uint32_t)(int32_t)((j - n / 2) * 7); break;
            case KU64: x = (uint64_t)j * 0x100000007ull; break;
            default: x = (uint64_t)((j - n / 2) * 0x100000007ll); break;
            }
        } else if (strcmp(input, "special") == 0) {
            x = next() % 3 ? next_key() : kind == KF32 ? sf[next() % 12] : kind == KF64 ? sd[next() % 12]
                                          : wide(kind) ? sl[next() % 7] : si[next() % 7];
            if (kind == KF32 && next() % 2) {
                float f = (float)(int)(next() % 64) - 32.0f;
                uint32_t w;
                memcpy(&w, &f, 4);
                x = w;
            } else if (kind == KF64 && next() % 2) {
                double f = (double)(int)(next() % 64) - 32.0;
                memcpy(&x, &f, 8);
            }
        } else x = next_key();
        k[i] = x;
    }
}

/* u64 words to elements of sz bytes and back */
static void pack(void *dst, const uint64_t *src, long long n, size_t sz)
{
    for (long long i = 0; i < n; i++) {
        if (sz == 8) memcpy((char *)dst + 8 * i, &src[i], 8);
        else {
            uint32_t w = (uint32_t)src[i];
            memcpy((char *)dst + 4 * i, &w, 4);
        }
    }
}
static void unpack(uint64_t *dst, const void *src, long long n, size_t sz)
{
    for (long long i = 0; i < n; i++) {
        if (sz == 8) memcpy(&dst[i], (const char *)src + 8 * i, 8);
        else {
            uint32_t w;
            memcpy(&w, (const char *)src + 4 * i, 4);
            dst[i] = w;
        }
    }
}

/* got (and gotv, the values, for pairs) against the reference (bit for bit) and, for
 * the whole key and n <= 2^21, qsort (by the order). */
static int check(const char *what, const uint64_t *keys, const uint64_t *vals, const uint64_t *got,
                 const uint64_t *gotv, long long n)
{
    uint64_t *want = malloc((size_t)n * 8), *wantv = pairs ? malloc((size_t)n * 8) : NULL;
    memcpy(want, keys, (size_t)n * 8);
    if (pairs) memcpy(wantv, vals, (size_t)n * 8);
    ref_sort(want, wantv, n);
    int ok = 1;
    for (long long i = 0; i < n && ok; i++)
        if (got[i] != want[i]) {
            printf("%s: element %lld of %lld is 0x%llx, the reference's 0x%llx\n", what, i, n,
                   (unsigned long long)got[i], (unsigned long long)want[i]);
            ok = 0;
        } else if (pairs && gotv[i] != wantv[i]) {
            printf("%s: value %lld of %lld is 0x%llx, the reference's 0x%llx (key 0x%llx)\n", what, i, n,
                   (unsigned long long)gotv[i], (unsigned long long)wantv[i], (unsigned long long)got[i]);
            ok = 0;
        }
    free(wantv);
    if (ok && n <= (1LL << 21) && lo == 0 && hi == (int)(8 * ks)) {
        memcpy(want, keys, (size_t)n * 8);
        qsort(want, (size_t)n, 8, cmp_key);
        for (long long i = 0; i < n && ok; i++)
            if (cmp_key(&got[i], &want[i]) != 0) {
                printf("%s: element %lld of %lld is 0x%llx, qsort's 0x%llx\n", what, i, n, (unsigned long long)got[i],
                       (unsigned long long)want[i]);
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

static int kind_of(const char *t)
{
    for (int i = 0; i < NKINDS; i++)
        if (strcmp(t, names[i]) == 0) return i;
    return -1;
}

int main(int argc, char **argv)
{
    int src = argc > 1 && strcmp(argv[1], "--source") == 0;
    int a0 = 1 + src, bad = 0;
    vkind = KU32;
    lo = hi = -1;
    for (; a0 < argc && strncmp(argv[a0], "--", 2) == 0; a0++) {
        if (strcmp(argv[a0], "--desc") == 0) desc = 1;
        else if (strncmp(argv[a0], "--pairs=", 8) == 0) {
            pairs = 1;
            vkind = kind_of(argv[a0] + 8);
        } else if (strncmp(argv[a0], "--bits=", 7) == 0) {
            if (sscanf(argv[a0] + 7, "%d:%d", &lo, &hi) != 2) bad = 1;
        } else if (strncmp(argv[a0], "--digit=", 8) == 0) digit = atoi(argv[a0] + 8);
        else if (strncmp(argv[a0], "--portion=", 10) == 0) portion = atoll(argv[a0] + 10);
        else bad = 1;
    }
    const char *tn = argc > a0 ? argv[a0] : "";
    kind = kind_of(tn);
    argv += a0 - 1; /* argv[1] is the type from here on */
    argc -= a0 - 1;
    if (bad || kind < 0 || vkind < 0 || (!src && argc < 4)) {
        fprintf(stderr, "usage: sort_check [--desc] [--pairs=VTYPE] [--bits=B:E] [--digit=W] [--portion=P] TYPE N INPUT | ... TYPE "
                        "many COUNT MAX | --source [options] TYPE (TYPE, VTYPE: u32 i32 f32 u64 i64 f64)\n");
        return 2;
    }
    ks = wide(kind) ? 8 : 4;
    vs = pairs ? (wide(vkind) ? 8 : 4) : 0;
    patc_sort_spec spec = {.key_type = types[kind], .values = pairs, .value_type = types[vkind], .descending = desc,
                           .digit_bits = digit, .portion = portion};
    if (lo >= 0) {
        spec.begin_bit = lo;
        spec.end_bit = hi;
    } else {
        lo = 0;
        hi = (int)(8 * ks);
    }
    char tag[80];
    snprintf(tag, sizeof tag, "%s%s%s%s", names[kind], pairs ? "+" : "", pairs ? names[vkind] : "", desc ? " desc" : "");
    if (lo != 0 || hi != (int)(8 * ks)) snprintf(tag + strlen(tag), sizeof tag - strlen(tag), " bits %d:%d", lo, hi);
    if (digit) snprintf(tag + strlen(tag), sizeof tag - strlen(tag), " digit %d", digit);
    patc_ctx *ctx;
    if (patc_create(&ctx, 0, src ? PATC_COMPILE_ONLY : 0) != PATC_OK) {
        printf("patc_create: %s\n", ctx ? patc_last_error(ctx) : "failed");
        return 1;
    }
    patc_sorter *so = NULL;
    patc_buffer *in = NULL, *out = NULL, *vin = NULL, *vout = NULL;
    uint64_t *keys = NULL, *got = NULL, *vals = NULL, *gotv = NULL, *again = NULL, *againv = NULL;
    void *hk = NULL, *hv = NULL, *hk2 = NULL, *hv2 = NULL;
    long long *ns = NULL;
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
    size_t kbytes = (size_t)total * ks, vbytes = (size_t)total * (vs ? vs : 4), words = (size_t)total * 8;
    keys = malloc(words);
    got = malloc(words);
    vals = malloc(words);
    gotv = malloc(words);
    hk = malloc(kbytes);
    hv = malloc(vbytes);
    make_input(many ? "uniform" : argv[3], keys, total);
    for (long long i = 0; i < total; i++) vals[i] = value_of(i);
    TRY(patc_buffer_alloc(ctx, kbytes, &in));
    TRY(patc_buffer_alloc(ctx, kbytes, &out));
    pack(hk, keys, total, ks);
    TRY(patc_buffer_upload(in, hk, kbytes));
    if (pairs) {
        TRY(patc_buffer_alloc(ctx, vbytes, &vin));
        TRY(patc_buffer_alloc(ctx, vbytes, &vout));
        pack(hv, vals, total, vs);
        TRY(patc_buffer_upload(vin, hv, vbytes));
    }
    unsigned long long pin = patc_buffer_device_ptr(in), pout = patc_buffer_device_ptr(out);
    unsigned long long pvin = pairs ? patc_buffer_device_ptr(vin) : 0, pvout = pairs ? patc_buffer_device_ptr(vout) : 0;
    if (many) {
        size_t tb;
        TRY(patc_sorter_temp_bytes(so, most, &tb));
        long long at = 0;
        for (int i = 0; i < count; i++) {
            unsigned long long o = (unsigned long long)at * ks, ov = (unsigned long long)at * vs;
            TRY(sort_ptr(so, pin + o, pout + o, pairs ? pvin + ov : 0, pairs ? pvout + ov : 0, ns[i]));
            at += ns[i];
        }
        TRY(patc_buffer_download(out, hk, kbytes));
        unpack(got, hk, total, ks);
        if (pairs) {
            TRY(patc_buffer_download(vout, hv, vbytes));
            unpack(gotv, hv, total, vs);
        }
        at = 0;
        int before = failed;
        for (int i = 0; i < count; i++) {
            char what[160];
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
    TRY(patc_buffer_download(out, hk, kbytes));
    unpack(got, hk, n, ks);
    if (pairs) {
        TRY(patc_buffer_download(vout, hv, vbytes));
        unpack(gotv, hv, n, vs);
    }
    char what[160];
    snprintf(what, sizeof what, "%s n=%lld %s", tag, n, input);
    int ok = check(what, keys, vals, got, gotv, n);
    /* the inputs unchanged */
    hk2 = malloc(kbytes);
    hv2 = malloc(vbytes);
    TRY(patc_buffer_download(in, hk2, kbytes));
    pack(hk, keys, n, ks);
    int changed = memcmp(hk2, hk, kbytes) != 0;
    if (pairs) {
        TRY(patc_buffer_download(vin, hv2, vbytes));
        pack(hv, vals, n, vs);
        changed |= memcmp(hv2, hv, vbytes) != 0;
    }
    if (changed) {
        printf("%s: the input was changed\n", what);
        failed++;
        ok = 0;
    }
    /* in place, on the sorted keys (and their values) */
    again = malloc(words);
    againv = malloc(words);
    if (pairs) TRY(patc_sort_pairs(so, out, out, vout, vout, n, NULL));
    else TRY(patc_sort_keys(so, out, out, n, NULL));
    TRY(patc_buffer_download(out, hk, kbytes));
    unpack(again, hk, n, ks);
    if (pairs) {
        TRY(patc_buffer_download(vout, hv, vbytes));
        unpack(againv, hv, n, vs);
    }
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
    free(hk);
    free(hv);
    free(hk2);
    free(hv2);
    patc_buffer_free(in);
    patc_buffer_free(out);
    patc_buffer_free(vin);
    patc_buffer_free(vout);
    patc_sorter_free(so);
    patc_destroy(ctx);
    return failed ? 1 : 0;
}
