/* relaunch.c RISE KERNEL N G [NAME=VALUE...] [--bins-in-result]: kernel KERNEL of RISE
 * (one 4-byte input of N keys, one output, compiled with -D n=N -D g=G, no g where G is
 * 0, and the further nats given; with the compile option bins_in_result) launched three times on the same buffers, each output checked against the
 * interpreter's, with different keys each time (0..299). For a kernel whose global
 * scratch must be left as the runtime zeroed it (accumulate's global bins, lastBlock's
 * partials) or moved to its next epoch (the pipe kernels' tile counter and tile words):
 * a launch that leaves them wrong makes the next one wrong.
 * Run by tests/emu/run.sh under the stand-in driver's emulation. Exit 0 when all agree. */
#include "patc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OK(x) do { patc_status s_ = (x); if (s_ != PATC_OK) { printf("%s: %s\n", #x, patc_last_error(ctx)); return 1; } } while (0)

int main(int argc, char **argv)
{
    int bins = argc > 5 && strcmp(argv[argc - 1], "--bins-in-result") == 0;
    if (bins) argc--;
    if (argc < 5 || argc > 13) { printf("usage: relaunch RISE KERNEL N G [NAME=VALUE...] [--bins-in-result]\n"); return 2; }
    long long n = atoll(argv[3]), g = atoll(argv[4]);
    patc_define defs[10] = {{"n", n}, {"g", g}};
    int ndefs = g ? 2 : 1;
    char names[8][32];
    for (int i = 5; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof names[0]) { printf("relaunch: %s: not NAME=VALUE\n", argv[i]); return 2; }
        memcpy(names[i - 5], argv[i], (size_t)(eq - argv[i]));
        names[i - 5][eq - argv[i]] = 0;
        defs[ndefs++] = (patc_define){names[i - 5], atoll(eq + 1)};
    }
    patc_ctx *ctx;
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    patc_compile_options opts;
    memset(&opts, 0, sizeof opts);
    opts.bins_in_result = bins;
    patc_program *prog;
    OK(patc_program_compile(ctx, argv[1], defs, ndefs, &opts, &prog));
    patc_kernel *k;
    OK(patc_get_kernel(prog, argv[2], &k));
    patc_type ot;
    long long ocount;
    size_t obytes;
    OK(patc_kernel_output_info(k, NULL, &ot, &ocount, &obytes));
    unsigned *keys = malloc((size_t)n * 4), *got = malloc(obytes), *want = malloc(obytes);
    patc_buffer *in, *out;
    OK(patc_buffer_alloc(ctx, (size_t)n * 4, &in));
    OK(patc_buffer_alloc(ctx, obytes, &out));
    unsigned long long x = 12345;
    int bad = 0;
    for (int r = 0; r < 3 && !bad; r++) {
        for (long long i = 0; i < n; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            keys[i] = (unsigned)(x >> 33) % 300u;
        }
        OK(patc_buffer_upload(in, keys, (size_t)n * 4));
        OK(patc_launch(k, NULL, &in, out, NULL));
        OK(patc_buffer_download(out, got, obytes));
        const void *hin[1] = {keys};
        OK(patc_interp_run(k, NULL, hin, want));
        for (size_t i = 0; i < obytes / 4; i++)
            if (got[i] != want[i]) {
                printf("launch %d: element %zu is %u, the interpreter's %u\n", r + 1, i, got[i], want[i]);
                bad = 1;
                break;
            }
    }
    patc_buffer_free(in);
    patc_buffer_free(out);
    patc_program_free(prog);
    patc_destroy(ctx);
    free(keys);
    free(got);
    free(want);
    if (!bad) printf("3 launches agree with the interpreter\n");
    return bad;
}
