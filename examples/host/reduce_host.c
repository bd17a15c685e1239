/* reduce_host.c: JIT-compile a .rise device reduction with libpatrt, run it on random
 * data until one value is left, and compare with a sum on the CPU.
 *
 *     reduce_host [program.rise] [n]
 *
 * Exit status: 0 when the sums agree, 1 when they do not or something failed, 77 when
 * there is no GPU (printed as "skipped: no GPU"). */
#include <patc.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef PATC_EXAMPLE_RISE
#define PATC_EXAMPLE_RISE "examples/reduce_device_naive.rise"
#endif
static const char *const RISE_FILE = PATC_EXAMPLE_RISE;
static const char *const KERNEL = "reduceNaive";
static const char *const LENGTH_NAT = "n"; /* the nat that holds the input length */
static const long long DEFAULT_N = 1 << 20;

static int fail(patc_ctx *ctx, const char *what, patc_status s)
{
    fprintf(stderr, "reduce_host: %s: %s\n%s\n", what, patc_status_string(s), patc_last_error(ctx));
    patc_destroy(ctx);
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : RISE_FILE;
    long long n = argc > 2 ? atoll(argv[2]) : DEFAULT_N;
    if (n < 1) {
        fprintf(stderr, "usage: reduce_host [program.rise] [n >= 1]\n");
        return 2;
    }
    patc_ctx *ctx;
    patc_status s = patc_create(&ctx, 0, 0);
    if (s != PATC_OK) return fail(ctx, "patc_create", s);
    if (patc_device_status(ctx) != PATC_OK) {
        printf("skipped: no GPU (%s)\n", patc_last_error(ctx));
        patc_destroy(ctx);
        return 77;
    }

    patc_program *prog;
    patc_kernel *k;
    if ((s = patc_program_from_file(ctx, path, NULL, 0, &prog)) != PATC_OK) return fail(ctx, path, s);
    if ((s = patc_get_kernel(prog, KERNEL, &k)) != PATC_OK) return fail(ctx, KERNEL, s);
    patc_compile_stats st;
    patc_get_compile_stats(ctx, &st);
    printf("compiled %s for sm_%d in %.1f ms (cache %s)\n", path, st.arch, st.compile_ms, st.cache_hit ? "hit" : "miss");

    /* Every nat but the length is fixed by the program; the length is set per pass. */
    int nnats = patc_kernel_num_nats(k);
    long long nats[16] = {0};
    if (nnats > 16) return fail(ctx, "too many nat parameters", PATC_ERR_INVALID);
    for (int i = 0; i < nnats; i++)
        if (patc_kernel_nat_name(k, i)[0] == LENGTH_NAT[0] && !patc_kernel_nat_name(k, i)[1]) nats[i] = n;

    float *host = malloc((size_t)n * sizeof *host);
    if (!host) return fail(ctx, "malloc", PATC_ERR_NO_MEMORY);
    srand(42);
    double want = 0;
    for (long long i = 0; i < n; i++) {
        host[i] = (float)rand() / (float)RAND_MAX;
        want += host[i];
    }
    patc_buffer *in;
    if ((s = patc_buffer_alloc(ctx, (size_t)n * sizeof *host, &in)) != PATC_OK ||
        (s = patc_buffer_upload(in, host, (size_t)n * sizeof *host)) != PATC_OK) {
        free(host);
        return fail(ctx, "upload", s);
    }
    free(host);
    float got;
    int passes;
    if ((s = patc_reduce_to_one(k, nats, in, n, &got, &passes)) != PATC_OK) return fail(ctx, "reduce", s);
    float ms = 0;
    if ((s = patc_time_reduce_to_one(k, nats, in, n, 3, 20, &ms)) != PATC_OK) return fail(ctx, "timing", s);
    double rel = fabs(got - want) / (fabs(want) > 1 ? fabs(want) : 1);
    printf("n = %lld: GPU %.6f, CPU %.6f, relative error %.2g, %d launches, %.4f ms (median of 20)\n", n, got,
           want, rel, passes, ms);
    patc_buffer_free(in);
    patc_program_free(prog);
    patc_destroy(ctx);
    if (rel > 1e-4) {
        printf("MISMATCH\n");
        return 1;
    }
    printf("ok\n");
    return 0;
}
