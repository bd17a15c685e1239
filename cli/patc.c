/* patc.c: the command-line driver.
 *
 *   patc [options] --emit-cuda FILE     print CUDA C (or to -o FILE)
 *   patc [options] --emit-ir FILE       print the typed IR and the kernel IR
 *   patc [options] --check FILE         compile, make no code, print only errors
 *   patc run FILE [--kernel K] ...      JIT-compile and run (see run.c)
 *   patc tune FILE --kernel K ...       tune single-launch reductions (see tune.c)
 *
 * Exit status: 0 success, 1 errors in the program, 2 bad usage.
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: patc [options] (--emit-cuda | --emit-ir | --check) FILE\n"
    "       patc run FILE [--kernel K] [-D name=value]... [-I dir]... [--input PATH|random|random:LO:HI|value:X]...\n"
    "                [--output PATH]... [--cpu] [--check-against-cpu] [--repeat R] [--time]\n"
    "                [--no-cache] [--cuda EDITED.cu] [--reduce] [--min-blocks B] [--evict-first]\n"
    "                [--bins-in-result] [--tolerance T]\n"
    "       patc tune FILE --kernel K [--alt A]... [--kernel K [--alt A]...]... [--scan S [--pipe F:P]]... [--out SETTINGS]\n"
    "                [--min-log A] [--max-log B] [--step-log S] [--reps R]\n"
    "       patc tune --algo NAME [--type T]... [--out SETTINGS] [--min-log A] [--max-log B] [--step-log S] [--reps R]\n"
    "\n"
    "options:\n"
    "  --emit-cuda        print the generated CUDA C (NVRTC is not needed)\n"
    "  --emit-ir          print the typed functional IR and the kernel IR of each kernel\n"
    "  --check            compile without making code: every error, nothing printed on success\n"
    "                     (one of the three; two of them are a usage error)\n"
    "  -o FILE            write the output to FILE instead of stdout\n"
    "  -D name=value      specialise the nat parameter `name` to a constant: from 1 (nat\n"
    "                     parameters are >= 1) to 2^62; each name at most once\n"
    "  -I dir             search dir for imports (after the importing file's directory,\n"
    "                     before patc's own patterns: share/patc/patterns, then built in)\n"
    "  --kernel NAME      only this kernel\n"
    "  -d LETTERS         dump IR to stderr after passes: a=ast e=expand t=typecheck l=lower\n"
    "                     o=loops s=smem b=barrier v=version (full tiles)\n"
    "  --min-blocks B     declare kernels of a fixed block size __launch_bounds__(threads, B):\n"
    "                     registers for B resident blocks per SM (1..32; also for patc run)\n"
    "  --evict-first      look-back kernels (scan, filter, partition) load their inputs and\n"
    "                     store their outputs evict-first (__ldcs/__stcs; also for patc run)\n"
    "  --bins-in-result   a kernel whose result is a global accumulate (or lastBlock over one)\n"
    "                     adds into its output, zeroed before each launch, instead of into\n"
    "                     scratch bins (also for patc run)\n"
    "  --help, --version\n"
    "\n"
    "patc run: JIT-compile kernel K once (NVRTC, cubin cache) and run it on GPU 0; the\n"
    "  output is the kernel's output.\n"
    "  -D name=value      every nat parameter of K must be given; they are specialised at\n"
    "                     compile time (with --reduce, passed at launch)\n"
    "  --input PATH       one per data parameter, in order: raw little-endian data of\n"
    "                     exactly the parameter's size in bytes (a scalar parameter, passed\n"
    "                     by value, is one element)\n"
    "  --input random     fixed-seed data (splitmix64, seed 42, one stream over all inputs):\n"
    "                     floats uniform in [0,1), integers 0..99, bools 0/1\n"
    "  --input random:LO:HI  integers uniform in LO..HI (floats too: their sums stay exact\n"
    "                     in any order while small; the same stream)\n"
    "  --input value:X    every element (one, for a scalar parameter) set to X, a literal of\n"
    "                     the element type (2.5, -3, 0x10, true)\n"
    "  --output PATH      write the result as raw little-endian data; without it a summary\n"
    "                     is printed (type, count, first elements, sum, the value if one).\n"
    "                     A kernel returning a pair of arrays has one output per array:\n"
    "                     none or one --output each, in order; summaries labelled out0: ..\n"
    "  --cpu              run the CPU reference interpreter instead (no GPU, no NVRTC)\n"
    "  --check-against-cpu  run both; print the max relative error |gpu-cpu|/max(|cpu|,1e-30)\n"
    "                     and exit 1 above the tolerance (f32 1e-5, f64 1e-12, integers exact)\n"
    "  --tolerance T      the relative tolerance of floating-point results instead (0 < T < 1):\n"
    "                     the interpreter adds in order, so its own rounding error in a sum\n"
    "                     of millions of f32 values passes 1e-5 where the GPU adds in a tree\n"
    "  --reduce           relaunch a device-level reduction pass (one input whose length is\n"
    "                     a nat parameter, an output of the same type) on its own output\n"
    "                     until one element is left; an error for any other kernel, or when\n"
    "                     a pass does not shrink. Never done without --reduce\n"
    "  --time             median kernel time (CUDA events) of R runs after 3 warm-up runs,\n"
    "                     front-end and compile times, cubin cache hit or miss\n"
    "  --repeat R         timed runs for --time (default 10)\n"
    "  --no-cache         do not read or write the cubin cache\n"
    "  --cuda EDITED.cu   run hand-edited CUDA C (kernel metadata still from FILE)\n"
    "  exit status: 0 ok, 1 program or run error (also no driver/device), 2 bad usage\n"
    "\n"
    "patc tune: time every setting of a single-launch reduction (elemsWarp, warps per block,\n"
    "  blocks per SM; see docs/tuning.md) at n = 2^A, 2^(A+S), ..., 2^B (default 10..28 step 2)\n"
    "  and write the best per size range to SETTINGS (default patc-tuning.conf), which the\n"
    "  runtime reads at launch (patc_reducer_*, $PATC_TUNING); a --scan S is a single-pass\n"
    "  scan kernel whose tile shape (nt, ipt) and __launch_bounds__ minimum of blocks per SM\n"
    "  (none or 2048/nt) are searched instead, then the best with and without --evict-first\n"
    "  (patc_scan_*); a --pipe F:P after it adds four shapes (w, ipt, s) of the scanPipe\n"
    "  kernel P of file F (relative to FILE's directory) that computes the same scan;\n"
    "  --algo NAME (reduce, reduce_min, reduce_max, inclusive_scan, exclusive_scan, filter,\n"
    "  partition, partition_stable) of --type T (default f32) tunes a ready-made algorithm of\n"
    "  libpatrt over the shapes patterns/algorithms.tune declares (docs/api.md)\n";

/* Rule: --min-blocks takes a decimal from 1 to 32 (blocks per SM; sm_90 holds at most
 * 32 resident blocks). */
bool cli_min_blocks(const char *arg, int *out, char *why, size_t len)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || *end || end == arg || v < 1 || v > 32) {
        snprintf(why, len, "--min-blocks expects a count from 1 to 32, got '%s'", arg);
        return false;
    }
    *out = (int)v;
    return true;
}

/* Rule: name=value, the name an identifier, the value a decimal from 1 to 2^62 (nat
 * parameters are at least 1; sizes are 64-bit), each name once. */
bool cli_add_define(patc_define *defs, int *n, const char *arg, char *why, size_t len)
{
    const char *eq = strchr(arg, '=');
    bool ok = eq && eq != arg;
    for (const char *p = arg; ok && p < eq; p++) {
        bool alpha = *p == '_' || ((*p | 32) >= 'a' && (*p | 32) <= 'z');
        if (!alpha && (p == arg || *p < '0' || *p > '9')) ok = false;
    }
    const char *v = ok ? eq + 1 : "";
    for (const char *p = v; ok && *p; p++)
        if (*p < '0' || *p > '9') ok = false;
    if (!ok || !*v) {
        snprintf(why, len, "-D expects name=value with a natural number, got '%s'", arg);
        return false;
    }
    int nlen = (int)(eq - arg);
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno == ERANGE || x > (unsigned long long)PATC_DEFINE_MAX) {
        snprintf(why, len, "-D %.*s=%s: the value is above 2^62 (%lld), the largest size patc handles", nlen, arg, v,
                 PATC_DEFINE_MAX);
        return false;
    }
    if (x == 0) {
        snprintf(why, len, "-D %.*s=0: nat parameters are at least 1", nlen, arg);
        return false;
    }
    for (int i = 0; i < *n; i++)
        if ((int)strlen(defs[i].name) == nlen && !strncmp(defs[i].name, arg, (size_t)nlen)) {
            snprintf(why, len, "-D %s is given twice (%lld and %llu)", defs[i].name, defs[i].value, x);
            return false;
        }
    if (*n == MAX_ARGS) {
        snprintf(why, len, "too many -D options (at most %d)", MAX_ARGS);
        return false;
    }
    char *name = strndup(arg, (size_t)nlen);
    if (!name) {
        snprintf(why, len, "out of memory");
        return false;
    }
    defs[(*n)++] = (patc_define){name, (long long)x};
    return true;
}

void cli_free_defines(patc_define *defs, int n)
{
    for (int i = 0; i < n; i++) free((char *)defs[i].name);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "patc: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage);
    return 2;
}

static const char *const mode_flag[] = {"", "--emit-cuda", "--emit-ir", "--check"};

/* Rule: what was printed to stdout must have been written: a full disk or a closed pipe
 * is an error (exit 1), as for -o FILE, never a silent exit 0. */
static int finish_stdout(int rc)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "patc: error: cannot write to standard output: %s\n", errno ? strerror(errno) : "write error");
        return rc ? rc : 1;
    }
    return rc;
}

/* Rule: --emit-cuda, --emit-ir and --check each say what to print; two of them are a
 * usage error (one would be dropped silently). The program is compiled through
 * libpatrt without a cubin: NVRTC is never called, no driver is needed. */
int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "run") == 0) return finish_stdout(cli_run(argc - 1, argv + 1));
    if (argc >= 2 && strcmp(argv[1], "tune") == 0) return finish_stdout(cli_tune(argc - 1, argv + 1));
    enum { NONE, CUDA, IR, CHECK } mode = NONE;
    const char *file = NULL, *outpath = NULL;
    patc_compile_options copt = {0};
    patc_define defs[MAX_ARGS];
    int ndefs = 0, rc = 0;
    const char *incs[MAX_ARGS];
    int nincs = 0;
    char why[256];
    patc_ctx *ctx = NULL;
    patc_program *prog = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int m = NONE;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            goto done;
        } else if (!strcmp(a, "--version")) {
            printf("patc %s\n", patc_version());
            goto done;
        } else if (!strcmp(a, "--emit-cuda")) m = CUDA;
        else if (!strcmp(a, "--emit-ir")) m = IR;
        else if (!strcmp(a, "--check")) m = CHECK;
        else if (!strcmp(a, "--evict-first")) copt.evict_first = 1;
        else if (!strcmp(a, "--bins-in-result")) copt.bins_in_result = 1;
        else if (!strcmp(a, "-o") || !strcmp(a, "-D") || !strcmp(a, "-I") || !strcmp(a, "--kernel") || !strcmp(a, "-d") ||
                 !strcmp(a, "--min-blocks")) {
            if (i + 1 >= argc) {
                rc = bad_usage("option '%s' needs an argument", a);
                goto done;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "-o")) outpath = v;
            else if (!strcmp(a, "--kernel")) copt.kernel = v;
            else if (!strcmp(a, "--min-blocks")) {
                if (!cli_min_blocks(v, &copt.min_blocks, why, sizeof why)) {
                    rc = bad_usage("%s", why);
                    goto done;
                }
            } else if (!strcmp(a, "-d")) {
                if (strspn(v, patc_dump_letters()) != strlen(v)) {
                    rc = bad_usage("unknown dump letters '%s'", v);
                    goto done;
                }
                copt.dump = v;
            } else if (!strcmp(a, "-I")) {
                if (nincs == MAX_ARGS) {
                    snprintf(why, sizeof why, "too many -I options (at most %d)", MAX_ARGS);
                    rc = bad_usage("%s", why);
                    goto done;
                }
                incs[nincs++] = v;
            } else if (!cli_add_define(defs, &ndefs, v, why, sizeof why)) {
                rc = bad_usage("%s", why);
                goto done;
            }
        } else if (a[0] == '-' && a[1]) {
            rc = bad_usage("unknown option '%s'", a);
            goto done;
        } else {
            if (file) {
                rc = bad_usage("more than one input file ('%s')", a);
                goto done;
            }
            file = a;
        }
        if (m != NONE && mode != NONE && m != (int)mode) {
            snprintf(why, sizeof why, "%s and %s exclude each other: say one thing to do", mode_flag[mode], mode_flag[m]);
            rc = bad_usage("%s", why);
            goto done;
        }
        if (m != NONE) mode = m;
    }
    if (mode == NONE) {
        rc = bad_usage("say what to do: --emit-cuda, --emit-ir or --check%s", "");
        goto done;
    }
    if (!file) {
        rc = bad_usage("no input file%s", "");
        goto done;
    }

    rc = 1;
    patc_status s = patc_create(&ctx, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE);
    if (s != PATC_OK) {
        fprintf(stderr, "patc: error: %s\n", patc_status_string(s));
        goto done;
    }
    for (int i = 0; i < nincs; i++)
        if ((s = patc_add_include_dir(ctx, incs[i])) != PATC_OK) {
            fprintf(stderr, "patc: error: %s\n", patc_last_error(ctx));
            goto done;
        }
    copt.no_cubin = 1;
    copt.check_only = mode == CHECK; /* every pass, and no code: nothing is printed */
    if ((s = patc_program_compile(ctx, file, defs, ndefs, &copt, &prog)) != PATC_OK) {
        /* the diagnostics of a rejected program are whole lines, printed as they are */
        if (s == PATC_ERR_COMPILE) fputs(patc_last_error(ctx), stderr);
        else fprintf(stderr, "patc: error: %s\n", patc_last_error(ctx));
        goto done;
    }
    rc = 0;
    if (mode == CHECK) goto done;
    const char *out = mode == CUDA ? patc_program_cuda(prog) : patc_program_ir(prog);
    char owhy[128] = "out of memory";
    FILE *f = !out ? NULL : outpath ? cli_open_output(outpath, owhy, sizeof owhy) : stdout;
    if (!f) {
        fprintf(stderr, "patc: error: cannot write '%s': %s\n", outpath ? outpath : "stdout", owhy);
        rc = 1;
    } else {
        fputs(out, f);
        if (outpath && fclose(f) != 0) {
            fprintf(stderr, "patc: error: cannot write '%s': %s\n", outpath, strerror(errno));
            rc = 1;
        }
    }
done:
    patc_destroy(ctx);
    cli_free_defines(defs, ndefs);
    return finish_stdout(rc);
}
