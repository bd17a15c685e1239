/* big.c: sizes past 2^31 on the GPU (tests/gpu/all.sh runs it; it needs about 35 GB of
 * device and host memory, so it is not a ctest).
 *
 * n = 2^32 + 7 elements:
 *   1. scale (examples/scale.rise) with n symbolic: the runtime picks the 64-bit build
 *      at launch; every output element is checked against 2 * input on the host;
 *   2. the same kernel with n fixed by -D: 64-bit at compile time; checked the same way;
 *   3. the single-launch reduction (examples/reduce_fast.rise, patc_reducer) of i32
 *      values: exact against the host's sum (two's-complement wrap-around, as i32 adds);
 *   4. the same of f32 values against a double-precision host sum (relative 1e-4);
 *   5. the radix sort (patc_sort_keys) of u32 keys, in portions (issue 35 item 4): once
 *      with the default portion, 2^28 keys (17 portions of 252645136 keys, the last
 *      252645127), once in place with a portion of 2^29 (nine of 477218590, the last
 *      477218583: rt_sort.c's portion_q); each result checked to be in order and, by
 *      the sums of the keys, their squares and a hash of them, to hold the input's keys.
 * Exit 0 when all pass, 1 on a failure, 77 without a GPU.
 */
#include "patc.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef PATC_EXAMPLES_DIR
#define PATC_EXAMPLES_DIR "examples"
#endif

static int failures, checks;

#define CHECK(c, ...)                                                                                        \
    do {                                                                                                     \
        checks++;                                                                                            \
        if (!(c)) {                                                                                          \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                      \
            printf(__VA_ARGS__);                                                                             \
            printf("\n");                                                                                    \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

#define OK(call)                                                                                             \
    do {                                                                                                     \
        patc_status s_ = (call);                                                                             \
        if (s_ != PATC_OK) {                                                                                 \
            printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, patc_last_error(ctx));                 \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

static patc_ctx *ctx;

/* A hash of i, so that every element differs from its neighbours and a read of the
 * wrong element shows. */
static uint32_t mix(uint64_t i)
{
    i ^= i >> 33;
    i *= 0xff51afd7ed558ccdull;
    i ^= i >> 33;
    return (uint32_t)i;
}

/* Launch `k` (one f32 input of n elements, output n elements) and check out = 2 * in. */
static void check_scale(patc_kernel *k, long long n, const long long *nats, patc_buffer *in, patc_buffer *out,
                        const float *host_in, float *host_out, const char *what)
{
    int bits = patc_kernel_index_bits(k, nats);
    CHECK(bits == 64, "%s: index arithmetic is %d-bit at n = %lld", what, bits, n);
    OK(patc_buffer_zero(out));
    OK(patc_launch(k, nats, &in, out, NULL));
    OK(patc_buffer_download(out, host_out, (size_t)n * 4));
    long long bad = 0, first = -1;
    for (long long i = 0; i < n; i++)
        if (host_out[i] != 2.0f * host_in[i]) {
            if (first < 0) first = i;
            bad++;
        }
    CHECK(bad == 0, "%s: %lld of %lld elements wrong, the first at %lld", what, bad, n, first);
    printf("%s: n = %lld, %d-bit indices, %lld elements checked, %lld wrong\n", what, n, bits, n, bad);
}

int main(void)
{
    if (patc_create(&ctx, 0, 0) != PATC_OK || patc_device_status(ctx) != PATC_OK) {
        printf("skipped: %s\n", ctx ? patc_last_error(ctx) : "no context");
        patc_destroy(ctx);
        return 77;
    }
    const long long n = (1LL << 32) + 7;
    const size_t bytes = (size_t)n * 4;
    float *host_in = malloc(bytes), *host_out = malloc(bytes);
    if (!host_in || !host_out) {
        printf("skipped: cannot allocate 2 x %zu bytes on the host\n", bytes);
        return 77;
    }
    for (long long i = 0; i < n; i++) host_in[i] = (float)(mix((uint64_t)i) >> 8) * 0x1p-24f; /* [0, 1), exact x2 */
    patc_buffer *in, *out;
    OK(patc_buffer_alloc(ctx, bytes, &in));
    OK(patc_buffer_alloc(ctx, bytes, &out));
    OK(patc_buffer_upload(in, host_in, bytes));

    /* 1. n symbolic: the width is chosen at launch (32-bit at small n) */
    patc_program *p;
    patc_kernel *k;
    OK(patc_program_from_file(ctx, PATC_EXAMPLES_DIR "/scale.rise", NULL, 0, &p));
    OK(patc_get_kernel(p, "scale", &k));
    long long small = 1000;
    CHECK(patc_kernel_index_bits(k, &small) == 32, "scale at n = 1000 is not 32-bit");
    check_scale(k, n, &n, in, out, host_in, host_out, "scale, n symbolic");
    patc_program_free(p);

    /* 2. n fixed at compile time */
    patc_define d = {"n", n};
    OK(patc_program_from_file(ctx, PATC_EXAMPLES_DIR "/scale.rise", &d, 1, &p));
    OK(patc_get_kernel(p, "scale", &k));
    check_scale(k, n, NULL, in, out, host_in, host_out, "scale, -D n=2^32+7");
    patc_program_free(p);

    /* 3. i32 sum: exact, wrapping as i32 addition does */
    int32_t *iv = (int32_t *)host_out;
    uint32_t want_i = 0;
    for (long long i = 0; i < n; i++) {
        iv[i] = (int32_t)(mix((uint64_t)i) % 100u);
        want_i += (uint32_t)iv[i];
    }
    OK(patc_buffer_upload(out, iv, bytes));
    patc_reducer *r;
    OK(patc_reducer_create(ctx, PATC_EXAMPLES_DIR "/reduce_fast.rise", "reduceSumI32", NULL, &r));
    int32_t got_i = 0;
    OK(patc_reducer_run(r, out, n, &got_i));
    CHECK((uint32_t)got_i == want_i, "i32 sum of %lld: got %" PRId32 ", want %" PRId32, n, got_i, (int32_t)want_i);
    printf("reduceSumI32: n = %lld, sum %" PRId32 " (host %" PRId32 ")\n", n, got_i, (int32_t)want_i);
    patc_reducer_free(r);

    /* 4. f32 sum against a double host sum */
    double want_f = 0;
    for (long long i = 0; i < n; i++) want_f += host_in[i];
    OK(patc_reducer_create(ctx, PATC_EXAMPLES_DIR "/reduce_fast.rise", "reduceSumF32", NULL, &r));
    float got_f = 0;
    OK(patc_reducer_run(r, in, n, &got_f));
    double rel = fabs(got_f - want_f) / want_f;
    CHECK(rel < 1e-4, "f32 sum of %lld: got %.9g, want %.9g (relative error %.3g)", n, got_f, want_f, rel);
    printf("reduceSumF32: n = %lld, sum %.9g (host %.9g, relative error %.3g)\n", n, got_f, want_f, rel);
    patc_reducer_free(r);

    /* 5. the sort in portions; the keys mix(i) >> s for a few in 16 with s in 0..7, so
     * that small keys are more common and later buckets start past 2^32 */
    uint32_t *keys = (uint32_t *)host_in, *got = (uint32_t *)host_out;
    uint64_t want[3] = {0, 0, 0};
    for (long long i = 0; i < n; i++) {
        uint32_t m = mix((uint64_t)i);
        keys[i] = (m & 15u) == 0 ? m >> (m >> 29) : m;
        want[0] += keys[i];
        want[1] += (uint64_t)keys[i] * keys[i];
        want[2] += mix(keys[i]);
    }
    for (int run = 0; run < 2; run++) {
        patc_sort_spec sp = {.key_type = PATC_U32, .portion = run ? 1LL << 29 : 0};
        patc_sorter *so;
        OK(patc_buffer_upload(in, keys, bytes));
        OK(patc_sorter_create_spec(ctx, &sp, &so));
        size_t temp = 0;
        OK(patc_sorter_temp_bytes(so, n, &temp));
        OK(patc_sort_keys(so, in, run ? in : out, n, NULL));
        OK(patc_buffer_download(run ? in : out, got, bytes));
        /* its time (not a check): the median of three more sorts of the sorted keys in
         * place, each from the call to a 4-byte download after it (the wall clock; the
         * keys are in order already, so the passes write what they read) */
        double ms[3];
        for (int t = 0; t < 3; t++) {
            struct timespec a, b;
            uint32_t one;
            clock_gettime(CLOCK_MONOTONIC, &a);
            OK(patc_sort_keys(so, run ? in : out, run ? in : out, n, NULL));
            OK(patc_buffer_download(run ? in : out, &one, 4));
            clock_gettime(CLOCK_MONOTONIC, &b);
            ms[t] = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
        }
        double lo = ms[0] < ms[1] ? ms[0] : ms[1], hi = ms[0] < ms[1] ? ms[1] : ms[0],
               med = ms[2] < lo ? lo : ms[2] > hi ? hi : ms[2];
        patc_sorter_free(so);
        long long unordered = 0, first = -1;
        uint64_t sum[3] = {0, 0, 0};
        for (long long i = 0; i < n; i++) {
            if (i && got[i - 1] > got[i] && unordered++ == 0) first = i;
            sum[0] += got[i];
            sum[1] += (uint64_t)got[i] * got[i];
            sum[2] += mix(got[i]);
        }
        const char *what = run ? "sort u32, in place, portions of 2^29" : "sort u32, portions of 2^28 (the default)";
        CHECK(unordered == 0, "%s: %lld keys below the one before, the first at %lld", what, unordered, first);
        CHECK(sum[0] == want[0] && sum[1] == want[1] && sum[2] == want[2], "%s: not the input's keys (sums differ)",
              what);
        printf("%s: n = %lld, %zu bytes of temporary memory, %lld out of order, sums %s; sorted keys again in place: "
               "%.1f ms (median of 3, wall clock to a 4-byte download)\n", what, n, temp, unordered,
               sum[0] == want[0] && sum[1] == want[1] && sum[2] == want[2] ? "equal" : "differ", med);
    }

    patc_destroy(ctx);
    free(host_in);
    free(host_out);
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
