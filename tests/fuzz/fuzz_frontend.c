/* fuzz_frontend.c: a libFuzzer target over the front end, the CUDA emitter and the CPU
 * interpreter, as a host program reaches them through libpatrt (docs/internals.md,
 * "Fuzzing"; tests/fuzz/run.sh builds and runs it).
 *
 * One input is one .rise program, its first line possibly naming -D options as the
 * golden files do. It is compiled (with every IR dump for some inputs), its CUDA C
 * and IR are read, and each kernel's launch rules are evaluated and the kernel run on
 * the interpreter at a few small settings of its nat parameters, with inputs filled
 * from a fixed pattern. Nothing here needs NVRTC or a GPU: the context is
 * compile-only and the program is built with no_cubin.
 *
 * A crash, a sanitizer report, a leak or a hang is a finding; an error status is not
 * (most mutated programs are rejected, and a rejection is the front end working). */
#include "patc.h"
#include "rt_internal.h" /* rt_program_from_text, rt_derive_launch */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bounds that keep one input within a second or so (most take milliseconds): the
 * program text, the elements of any one array, the bytes of all arrays of one run, and
 * the threads of all its launches, which stand for the interpreter's work (it runs
 * every iteration of the maps over blocks and threads: under ASan a grid of 256 blocks
 * of 1024 threads takes seconds, a tile of 2048 elements some 20 ms). A setting of the
 * nats that needs more is skipped, not run. */
enum { MAX_TEXT = 4096, MAX_COUNT = 1 << 16, MAX_RUN_BYTES = 4 << 20, MAX_THREADS = 4096, MAX_PARAMS = 64 };

/* The nat values tried, every nat of a kernel at once: 1 (the least a nat may be), 7
 * (which no tile size divides), 33 (one past a warp) and 64 (two warps; a kernel that
 * needs its n divisible by 32 is refused at the others). A kernel whose nats need
 * other values is refused at all of them, which still runs the checks. */
static const long long nat_settings[] = {1, 7, 33, 64};
enum { NSETTINGS = sizeof nat_settings / sizeof nat_settings[0] };

static FILE *dump_sink;
/* PATC_FUZZ_VERBOSE=1: one line per compile and per interpreter run with its status,
 * to see how far the seeds and a finding get (a fuzzing run leaves it unset). */
static bool verbose;
/* The texts the API hands back are read to their end (ASan checks every byte); the sum
 * goes here so that the reads are not optimised away. */
static volatile unsigned text_sum;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void read_text(const char *s)
{
    unsigned h = 0;
    for (; s && *s; s++) h = h * 31u + (unsigned char)*s;
    text_sum += h;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    verbose = getenv("PATC_FUZZ_VERBOSE") != NULL;
    /* The dumps are made for the code that prints them, not read. The stream gets a
     * buffer of our own: stdio's, allocated at the first write and never freed, would
     * make libFuzzer see a malloc without a free and run that input again under
     * LeakSanitizer (twice the time, and a confusing double run of a single file). */
    static char buf[1 << 16];
    dump_sink = fopen("/dev/null", "w");
    if (!dump_sink || setvbuf(dump_sink, buf, _IOFBF, sizeof buf) != 0) {
        perror("fuzz_frontend: /dev/null");
        abort();
    }
    return 0;
}

/* The -D options of a first line "-- golden-args: -D a=1 -D b=2" (tests/golden.sh's
 * convention, which the seeds that need nats fixed follow), so that they compile and
 * the fuzzer mutates the definitions too. Names point into `names`; a malformed option
 * ends the list. Returns the number of definitions. */
enum { MAX_DEFS = 16 };
static int golden_defines(const char *text, char names[MAX_DEFS][64], patc_define *defs)
{
    static const char tag[] = "-- golden-args:";
    if (strncmp(text, tag, sizeof tag - 1) != 0) return 0;
    const char *p = text + sizeof tag - 1;
    int n = 0;
    while (n < MAX_DEFS) {
        while (*p == ' ') p++;
        if (strncmp(p, "-D", 2) != 0) break;
        p += 2;
        while (*p == ' ') p++;
        size_t len = strcspn(p, "= \n");
        if (p[len] != '=' || len == 0 || len >= sizeof names[n]) break;
        memcpy(names[n], p, len);
        names[n][len] = '\0';
        char *end;
        defs[n].value = strtoll(p + len + 1, &end, 10);
        defs[n].name = names[n];
        n++;
        p = end;
    }
    return n;
}

/* Small values of either sign, zeros included (divisions by zero and negative indices
 * are the interpreter's to report), differing by parameter and element. */
static void fill(void *buf, patc_type t, long long count, int param)
{
    for (long long j = 0; j < count; j++) {
        int v = (int)((unsigned)(j * 7 + param * 13) % 23u) - 11;
        switch (t) {
        case PATC_F32: ((float *)buf)[j] = (float)v * 0.5f; break;
        case PATC_F64: ((double *)buf)[j] = (double)v * 0.25; break;
        case PATC_I32: ((int32_t *)buf)[j] = v; break;
        case PATC_U32: ((uint32_t *)buf)[j] = (uint32_t)(v + 11); break;
        case PATC_I64: ((int64_t *)buf)[j] = v; break;
        case PATC_U64: ((uint64_t *)buf)[j] = (uint64_t)(v + 11); break;
        case PATC_BOOL: ((unsigned char *)buf)[j] = (unsigned char)(v & 1); break;
        }
    }
}

/* Room for an array of `bytes` within the run's budget; NULL when it is over the caps
 * (the caller skips the setting) or malloc fails. Never 0 bytes: a NULL buffer means
 * "not given" to the API. */
static void *room(long long count, size_t bytes, size_t *used)
{
    if (count > MAX_COUNT || bytes > MAX_RUN_BYTES || *used + bytes > MAX_RUN_BYTES) return NULL;
    *used += bytes;
    return malloc(bytes ? bytes : 1);
}

/* One kernel at one setting of its nats: the launch rules on the host (as a launch
 * evaluates them without a device), then the interpreter, then for a reduction pass the
 * relaunch on its own output. */
static void run_kernel(patc_ctx *ctx, patc_kernel *k, const long long *nats, long long setting)
{
    (void)patc_kernel_index_bits(k, nats);
    patc_launch_config cfg;
    if (patc_kernel_launch_dims(k, nats, &cfg) != PATC_OK) return;
    /* every launch's threads, those before the last included (toGlobal: launch_dims
     * gives the last one's; the nats are bound by the call above) */
    unsigned long long threads = 0;
    for (int l = 0; l <= k->k->npre; l++) {
        if (rt_derive_launch(k, l, &cfg) != PATC_OK) return;
        unsigned long long t = 1;
        for (int d = 0; d < 3; d++) t *= (unsigned long long)cfg.grid[d] * cfg.block[d];
        threads += t;
    }
    if (threads > MAX_THREADS) {
        if (verbose) fprintf(stderr, "  %s, nats = %lld: %llu threads, not run\n", patc_kernel_name(k), setting, threads);
        return;
    }

    int nin = patc_kernel_num_inputs(k), nout = patc_kernel_num_outputs(k);
    if (nin > MAX_PARAMS || nout > MAX_PARAMS || nout < 1) return;
    void *in[MAX_PARAMS] = {0}, *out[MAX_PARAMS] = {0};
    size_t used = 0;
    bool ok = true;
    for (int i = 0; ok && i < nin; i++) {
        patc_type t;
        long long count;
        size_t bytes;
        if (patc_kernel_input_info(k, i, nats, &t, &count, &bytes) != PATC_OK || !(in[i] = room(count, bytes, &used)))
            ok = false;
        else
            fill(in[i], t, count, i);
    }
    for (int j = 0; ok && j < nout; j++) {
        patc_type t;
        long long count;
        size_t bytes;
        (void)patc_kernel_output_count_of(k, j);
        if (patc_kernel_output_info_at(k, j, nats, &t, &count, &bytes) != PATC_OK ||
            !(out[j] = room(count, bytes, &used)))
            ok = false;
        else
            memset(out[j], 0xa5, bytes); /* not zero: an output the interpreter leaves unwritten shows */
    }
    if (ok) {
        double t0 = now_ms();
        patc_status s = patc_interp_run_outputs(k, nats, (const void *const *)in, out);
        if (verbose)
            fprintf(stderr, "  %s, nats = %lld, %llu threads: %s (%.1f ms) %.200s\n", patc_kernel_name(k), setting,
                    threads, patc_status_string(s), now_ms() - t0, s == PATC_OK ? "" : patc_last_error(ctx));
    } else if (verbose) {
        fprintf(stderr, "  %s, nats = %lld: not run (sizes refused or over the caps)\n", patc_kernel_name(k), setting);
    }

    /* the reduction of the first input's elements to one, pass after pass */
    int len = patc_kernel_length_nat(k);
    if (ok && patc_kernel_get_role(k) == PATC_KERNEL_REDUCTION_PASS && nin == 1 && len >= 0) {
        unsigned char result[8]; /* one element of the widest scalar */
        int passes;
        (void)patc_interp_reduce_to_one(k, nats, in[0], nats[len], result, &passes);
    }
    for (int i = 0; i < nin; i++) free(in[i]);
    for (int j = 0; j < nout; j++) free(out[j]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_TEXT) return -1; /* -1: libFuzzer keeps it out of the corpus */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* a NUL inside ends the program there, as for a C string */

    /* A context per input, so that no input depends on the ones before it. */
    patc_ctx *ctx;
    if (patc_create(&ctx, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE) != PATC_OK) abort();
    /* The seeds import patterns/ by paths relative to their own directories, one or
     * two levels below the source tree's root ("../patterns/scan.rise"): from the first
     * two directories both resolve. The third is tests/err's -I patterns. */
    if (patc_add_include_dir(ctx, PATC_SOURCE_DIR "/examples") != PATC_OK ||
        patc_add_include_dir(ctx, PATC_SOURCE_DIR "/examples/quicksort") != PATC_OK ||
        patc_add_include_dir(ctx, PATC_SOURCE_DIR "/patterns") != PATC_OK)
        abort();
    patc_compile_options opts = {0};
    opts.no_cubin = 1; /* NVRTC is not the code under test, and takes 100 ms a kernel */
    /* Every IR dump, for one input in four (chosen by its bytes, so a rerun does the
     * same): the printers run only on request, and printing every pass costs a third
     * of a compile. */
    unsigned h = 2166136261u;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
    if (h % 4 == 0) {
        opts.dump = patc_dump_letters();
        opts.dump_out = dump_sink;
    }
    patc_program *prog = NULL;
    char names[MAX_DEFS][64];
    patc_define defs[MAX_DEFS];
    int ndefs = golden_defines(text, names, defs);
    /* rt_program_from_text is patc_program_from_string with options: the public
     * entries take no_cubin only with a file's path, and writing each input to a file
     * would make imports resolve against a scratch directory. */
    double t0 = now_ms();
    patc_status st = rt_program_from_text(ctx, "fuzz.rise", text, defs, ndefs, &opts, &prog);
    if (verbose)
        fprintf(stderr, "compile: %s, %d kernels (%.1f ms) %.300s\n", patc_status_string(st),
                patc_program_num_kernels(prog), now_ms() - t0, st == PATC_OK ? "" : patc_last_error(ctx));
    if (st == PATC_OK) {
        if (!patc_program_cuda(prog)) abort();
        read_text(patc_program_cuda(prog));
        read_text(patc_program_ir(prog));
        int nk = patc_program_num_kernels(prog);
        for (int i = 0; i < nk; i++) {
            patc_kernel *k;
            if (patc_get_kernel(prog, patc_program_kernel_name(prog, i), &k) != PATC_OK) abort();
            int nn = patc_kernel_num_nats(k);
            long long nats[MAX_PARAMS];
            if (nn > MAX_PARAMS) continue;
            for (int s = 0; s < NSETTINGS; s++) {
                for (int j = 0; j < nn; j++) nats[j] = nat_settings[s];
                run_kernel(ctx, k, nats, nat_settings[s]);
            }
        }
        patc_program_free(prog);
    } else if (prog) {
        abort(); /* a failed compile hands back no program */
    }
    read_text(patc_last_error(ctx));
    patc_destroy(ctx);
    free(text);
    return 0;
}
