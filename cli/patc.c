/* patc.c: the command-line driver.
 *
 *   patc [options] --emit-cuda FILE     print CUDA C (or to -o FILE)
 *   patc [options] --emit-ir FILE       print the typed IR and the kernel IR
 *   patc [options] --check FILE         type-check only
 *   patc run FILE [--kernel K] ...      JIT-compile and run (see run.c)
 *   patc tune FILE --kernel K ...       tune single-launch reductions (see tune.c)
 *
 * Exit status: 0 success, 1 errors in the program, 2 bad usage.
 */
#include "../codegen/codegen.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: patc [options] (--emit-cuda | --emit-ir | --check) FILE\n"
    "       patc run FILE [--kernel K] [-D name=value]... [-I dir]... [--input PATH|random]...\n"
    "                [--output PATH] [--cpu] [--check-against-cpu] [--repeat R] [--time]\n"
    "                [--no-cache] [--cuda EDITED.cu] [--reduce]\n"
    "       patc tune FILE --kernel K [--alt A]... [--kernel K [--alt A]...]... [--out SETTINGS]\n"
    "                [--min-log A] [--max-log B] [--step-log S] [--reps R]\n"
    "\n"
    "options:\n"
    "  --emit-cuda        print the generated CUDA C\n"
    "  --emit-ir          print the typed functional IR and the kernel IR of each kernel\n"
    "  --check            parse and type-check; print nothing on success\n"
    "  -o FILE            write the output to FILE instead of stdout\n"
    "  -D name=value      specialise the nat parameter `name` to a constant\n"
    "  -I dir             search dir for imports (after the importing file's directory)\n"
    "  --kernel NAME      only this kernel\n"
    "  -d LETTERS         dump IR to stderr after passes: a=ast e=expand t=typecheck l=lower\n"
    "                     o=loops s=smem b=barrier\n"
    "  --help, --version\n"
    "\n"
    "patc run: JIT-compile kernel K (NVRTC, cubin cache) and run it on GPU 0.\n"
    "  -D name=value      every nat parameter of K must be given; they are specialised at\n"
    "                     compile time (a reduction's length nat is passed at launch)\n"
    "  --input PATH       one per data parameter, in order: raw little-endian data of\n"
    "                     exactly the parameter's size in bytes\n"
    "  --input random     fixed-seed data (splitmix64, seed 42, one stream over all inputs):\n"
    "                     floats uniform in [0,1), integers 0..99, bools 0/1\n"
    "  --output PATH      write the result as raw little-endian data; without it a summary\n"
    "                     is printed (type, count, first elements, sum, the value if one)\n"
    "  --cpu              run the CPU reference interpreter instead (no GPU needed)\n"
    "  --check-against-cpu  run both; print the max relative error |gpu-cpu|/max(|cpu|,1e-30)\n"
    "                     and exit 1 above the tolerance (f32 1e-5, f64 1e-12, integers exact)\n"
    "  --reduce           relaunch a device-level reduction pass on its own output until one\n"
    "                     element is left (done anyway, and said, for a kernel with one input\n"
    "                     of nat length and a shorter output of the same type)\n"
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
    "  runtime reads at launch (patc_reducer_*, $PATC_TUNING)\n";

/* Parse "name=value" with a natural-number value. */
bool cli_parse_define(const char *s, Define *d)
{
    const char *eq = strchr(s, '=');
    if (!eq || eq == s) return false;
    for (const char *p = s; p < eq; p++) {
        bool alpha = *p == '_' || ((*p | 32) >= 'a' && (*p | 32) <= 'z');
        if (!alpha && (p == s || *p < '0' || *p > '9')) return false;
    }
    char *end;
    errno = 0;
    long long v = strtoll(eq + 1, &end, 10);
    if (errno || *end || end == eq + 1 || v < 0 || v > 2147483647) return false;
    d->name = strndup(s, (size_t)(eq - s));
    d->value = v;
    return true;
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "patc: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage);
    return 2;
}

bool cli_parse_dump(const char *s, DumpFlags *f)
{
    for (; *s; s++) switch (*s) {
        case 'a': f->ast = true; break;
        case 'e': f->expand = true; break;
        case 't': f->types = true; break;
        case 'l': f->lower = true; break;
        case 'o': f->loops = true; break;
        case 's': f->smem = true; break;
        case 'b': f->barrier = true; break;
        default: return false;
        }
    return true;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "run") == 0) return cli_run(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "tune") == 0) return cli_tune(argc - 1, argv + 1);
    enum { NONE, CUDA, IR, CHECK } mode = NONE;
    const char *file = NULL, *outpath = NULL;
    CompileOptions opt = {0};
    Define defs[64];
    const char *incs[64];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("patc %s\n", PATC_VERSION);
            return 0;
        } else if (!strcmp(a, "--emit-cuda")) mode = CUDA;
        else if (!strcmp(a, "--emit-ir")) mode = IR;
        else if (!strcmp(a, "--check")) mode = CHECK;
        else if (!strcmp(a, "-o") || !strcmp(a, "-D") || !strcmp(a, "-I") || !strcmp(a, "--kernel") || !strcmp(a, "-d")) {
            if (i + 1 >= argc) return bad_usage("option '%s' needs an argument", a);
            const char *v = argv[++i];
            if (!strcmp(a, "-o")) outpath = v;
            else if (!strcmp(a, "--kernel")) opt.only_kernel = v;
            else if (!strcmp(a, "-d")) {
                if (!cli_parse_dump(v, &opt.dump)) return bad_usage("unknown dump letters '%s'", v);
            } else if (!strcmp(a, "-I")) {
                if (opt.lang.ninclude_dirs == 64) return bad_usage("too many -I options%s", "");
                incs[opt.lang.ninclude_dirs++] = v;
            } else {
                if (opt.ndefines == 64) return bad_usage("too many -D options%s", "");
                if (!cli_parse_define(v, &defs[opt.ndefines])) return bad_usage("-D expects name=value with a natural number, got '%s'", v);
                opt.ndefines++;
            }
        } else if (a[0] == '-' && a[1]) {
            return bad_usage("unknown option '%s'", a);
        } else {
            if (file) return bad_usage("more than one input file ('%s')", a);
            file = a;
        }
    }
    if (mode == NONE) return bad_usage("say what to do: --emit-cuda, --emit-ir or --check%s", "");
    if (!file) return bad_usage("no input file%s", "");
    opt.defines = defs;
    opt.lang.include_dirs = incs;

    Arena *arena = arena_new();
    Diag diag;
    diag_init(&diag, stderr, NULL);
    Compilation c = {.arena = arena, .diag = &diag};
    int rc = 0;
    if (!compile_file(&c, &opt, file)) {
        rc = 1;
        goto done;
    }
    if (mode == CHECK) goto done;
    StrBuf out = {0};
    if (mode == CUDA) {
        cu_emit_module(arena, &out, c.kernels, c.nkernels);
    } else {
        for (int i = 0; i < c.nkernels; i++) {
            sb_printf(&out, "%s--- typed IR: %s\n", i ? "\n" : "", c.kernels[i]->name);
            expr_print(&out, c.defs[i]->body);
            sb_puts(&out, "\n--- kernel IR\n");
            kernel_print(&out, c.kernels[i]);
        }
    }
    FILE *f = outpath ? fopen(outpath, "w") : stdout;
    if (!f) {
        fprintf(stderr, "patc: error: cannot write '%s': %s\n", outpath, strerror(errno));
        rc = 1;
    } else {
        fputs(out.s ? out.s : "", f);
        if (outpath && fclose(f) != 0) {
            fprintf(stderr, "patc: error: cannot write '%s': %s\n", outpath, strerror(errno));
            rc = 1;
        }
    }
    sb_free(&out);
done:
    for (int i = 0; i < opt.ndefines; i++) free((char *)defs[i].name);
    arena_free(arena);
    return rc;
}
