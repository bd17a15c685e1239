/* scan_stress.c: the single-pass device scans on the GPU through patc_scan_enqueue
 * (tests/gpu/all.sh runs it; examples/scan_device.rise, nt=128 ipt=25; with --pipe,
 * parts 1 and 2 on examples/scan_pipe.rise's scanPipe kernels, w=16 ipt=12 s=9, from a
 * tuning file, instead):
 *
 *   1. 1000 scans of i32 sums, inclusive and exclusive alternately, with n varying
 *      (log-uniform in [1, 2^22], some at tile edges), enqueued back to back on one
 *      stream into 8 output buffers before the host waits: each reuses the look-back
 *      state the one before left (its epoch), and each output is checked exactly
 *      against the host's prefix sums (two's-complement wrap-around, as i32 adds);
 *   2. the same at n = 2^28 (inclusive and exclusive, i32 exact, f32 against a double
 *      prefix within 1e-4 of sqrt(n));
 *   3. exclSumI32 from a tuning line whose BLOCKS_PER_SM, 4, asks for
 *      __launch_bounds__(512, 4) (min_blocks): patc_scan_describe names it, and the
 *      scans at 2^20+7 and 2^28 are exact.
 * Exit 0 when all pass, 1 on a failure, 77 without a GPU.
 */
#include "patc.h"

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
static int failures, checks;

#define OK(call)                                                                                             \
    do {                                                                                                     \
        patc_status s_ = (call);                                                                             \
        if (s_ != PATC_OK) {                                                                                 \
            printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, patc_last_error(ctx));                 \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* out against the host's inclusive prefix incl of the input (exclusive: shifted). */
static void check_i32(const int32_t *out, const uint32_t *incl, long long n, bool excl, const char *what, int iter)
{
    checks++;
    for (long long i = 0; i < n; i++) {
        uint32_t want = excl ? (i ? incl[i - 1] : 0u) : incl[i];
        if ((uint32_t)out[i] != want) {
            printf("FAIL %s (scan %d, n = %lld): element %lld is %d, want %d\n", what, iter, n, i, out[i], (int32_t)want);
            failures++;
            return;
        }
    }
}

/* A tuning file of one line per kernel, for every n: the path (static storage), or NULL */
static const char *tuning_file(const char *settings)
{
    static char path[64];
    strcpy(path, "/tmp/patc-scan-stress-XXXXXX");
    int fd = mkstemp(path);
    FILE *tf = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!tf) return NULL;
    static const char *const ks[] = {"inclSumI32", "exclSumI32", "inclSumF32"};
    for (int i = 0; i < 3; i++) fprintf(tf, "%s 1 9223372036854775807 1 %s\n", ks[i], settings);
    fclose(tf);
    return path;
}

int main(int argc, char **argv)
{
    bool pipe = argc > 1 && strcmp(argv[1], "--pipe") == 0;
    const char *file = pipe ? PATC_EXAMPLES_DIR "/scan_pipe.rise" : PATC_EXAMPLES_DIR "/scan_device.rise";
    if (patc_create(&ctx, 0, 0) != PATC_OK || patc_device_status(ctx) != PATC_OK) {
        printf("skipped: %s\n", ctx ? patc_last_error(ctx) : "no context");
        patc_destroy(ctx);
        return 77;
    }
    const long long big = 1LL << 28, maxn = 1LL << 22;
    int32_t *in = malloc((size_t)big * 4), *out = malloc((size_t)big * 4);
    uint32_t *incl = malloc((size_t)big * 4);
    float *fin = malloc((size_t)big * 4);
    double *fincl = malloc((size_t)big * 8);
    if (!in || !out || !incl || !fin || !fincl) {
        printf("skipped: host memory\n");
        return 77;
    }
    uint32_t acc = 0;
    double facc = 0;
    for (long long i = 0; i < big; i++) {
        in[i] = (int32_t)(next() % 2001u) - 1000;
        acc += (uint32_t)in[i];
        incl[i] = acc;
        fin[i] = (float)(next() >> 40) * 0x1p-24f - 0.5f;
        facc += fin[i];
        fincl[i] = facc;
    }
    patc_buffer *bin, *bout[8], *bbig;
    OK(patc_buffer_alloc(ctx, (size_t)maxn * 4, &bin));
    OK(patc_buffer_upload(bin, in, (size_t)maxn * 4));
    for (int j = 0; j < 8; j++) OK(patc_buffer_alloc(ctx, (size_t)maxn * 4, &bout[j]));
    patc_scan *si, *se;
    const char *tuning = pipe ? tuning_file("w=16 ipt=12 s=9") : NULL;
    if (pipe && !tuning) {
        printf("FAIL cannot write a tuning file\n");
        return 1;
    }
    OK(patc_scan_create(ctx, file, "inclSumI32", tuning, &si));
    OK(patc_scan_create(ctx, file, "exclSumI32", tuning, &se));

    /* 1. 1000 scans, 8 in flight before each wait */
    static const long long edges[2][10] = {{1, 31, 32, 33, 3199, 3200, 3201, 6400, 1000, 4097}, /* tiles of 3200 */
                                           {1, 31, 32, 33, 6143, 6144, 6145, 12288, 1000, 4097}}; /* of 6144 */
    long long ns[8];
    int iter = 0, wrong0 = failures;
    for (int round = 0; round < 125; round++) {
        for (int j = 0; j < 8; j++, iter++) {
            long long n = iter < 10 ? edges[pipe][iter] : 1 + (long long)(exp2((double)(next() % 22000) / 1000.0));
            if (n > maxn) n = maxn;
            ns[j] = n;
            OK(patc_scan_enqueue(iter % 2 ? se : si, bin, bout[j], n, NULL));
        }
        for (int j = 0; j < 8; j++) {
            OK(patc_buffer_download(bout[j], out, (size_t)ns[j] * 4));
            check_i32(out, incl, ns[j], (iter - 8 + j) % 2, "back-to-back i32 scan", iter - 8 + j);
        }
    }
    printf("1000 back-to-back scans (n from 1 to 2^22, 8 in flight): %d wrong\n", failures - wrong0);

    /* 2. n = 2^28 */
    OK(patc_buffer_alloc(ctx, (size_t)big * 4, &bbig));
    patc_buffer *bbo;
    OK(patc_buffer_alloc(ctx, (size_t)big * 4, &bbo));
    OK(patc_buffer_upload(bbig, in, (size_t)big * 4));
    for (int e = 0; e < 2; e++) {
        int f0 = failures;
        OK(patc_scan_enqueue(e ? se : si, bbig, bbo, big, NULL));
        OK(patc_buffer_download(bbo, out, (size_t)big * 4));
        check_i32(out, incl, big, e, e ? "exclSumI32 at 2^28" : "inclSumI32 at 2^28", 0);
        printf("%s at n = 2^28: %s\n", e ? "exclSumI32" : "inclSumI32", failures == f0 ? "exact" : "WRONG");
    }
    patc_scan *sf;
    OK(patc_scan_create(ctx, file, "inclSumF32", tuning, &sf));
    OK(patc_buffer_upload(bbig, fin, (size_t)big * 4));
    OK(patc_scan_enqueue(sf, bbig, bbo, big, NULL));
    float *fout = (float *)out;
    OK(patc_buffer_download(bbo, fout, (size_t)big * 4));
    double worst = 0, floor = sqrt((double)big);
    for (long long i = 0; i < big; i++) {
        double err = fabs(fout[i] - fincl[i]) / fmax(fabs(fincl[i]), floor);
        if (!(err <= worst)) worst = err;
    }
    checks++;
    if (!(worst <= 1e-4)) {
        failures++;
        printf("FAIL inclSumF32 at 2^28: relative error %.3g\n", worst);
    }
    printf("inclSumF32 at n = 2^28: largest error %.3g (relative to max(|prefix|, sqrt(n)))\n", worst);
    if (pipe) { /* part 3 is scan_device.rise's */
        remove(tuning);
        patc_scan_free(si);
        patc_scan_free(se);
        patc_scan_free(sf);
        patc_destroy(ctx);
        printf("%d passed, %d failed\n", checks - failures, failures);
        return failures ? 1 : 0;
    }
    /* 3. min_blocks from the tuning file */
    char tpath[] = "/tmp/patc-scan-minb-XXXXXX";
    int fd = mkstemp(tpath);
    FILE *tf = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!tf) {
        printf("FAIL cannot write a tuning file\n");
        return 1;
    }
    fputs("exclSumI32 1 9223372036854775807 4 nt=512 ipt=25\n", tf);
    fclose(tf);
    patc_scan *sm;
    OK(patc_scan_create(ctx, PATC_EXAMPLES_DIR "/scan_device.rise", "exclSumI32", tpath, &sm));
    char desc[256];
    OK(patc_scan_describe(sm, big, desc, sizeof desc));
    checks++;
    if (!strstr(desc, "nt=512 ipt=25 min_blocks=4 ")) {
        failures++;
        printf("FAIL describe with BLOCKS_PER_SM 4: %s\n", desc);
    }
    OK(patc_buffer_upload(bbig, in, (size_t)big * 4));
    static const long long mns[2] = {1048583, 1ll << 28};
    for (int e = 0; e < 2; e++) {
        int f0 = failures;
        OK(patc_scan_enqueue(sm, bbig, bbo, mns[e], NULL));
        OK(patc_buffer_download(bbo, out, (size_t)mns[e] * 4));
        check_i32(out, incl, mns[e], true, "exclSumI32 with min_blocks 4", 0);
        printf("exclSumI32 (%s) at n = %lld: %s\n", desc, mns[e], failures == f0 ? "exact" : "WRONG");
    }
    remove(tpath);
    patc_scan_free(sm);
    patc_scan_free(si);
    patc_scan_free(se);
    patc_scan_free(sf);
    patc_destroy(ctx);
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
