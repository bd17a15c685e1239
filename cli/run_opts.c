/* run_opts.c: `patc run`'s options and its one-line error messages. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char run_usage[] =
    "usage: patc run FILE [--kernel K] [-D name=value]... [-I dir]... [--input PATH|random|random:LO:HI|value:X]...\n"
    "                [--output PATH]... [--cpu] [--check-against-cpu] [--repeat R] [--time]\n"
    "                [--no-cache] [--cuda EDITED.cu] [--reduce] [--min-blocks B] [--evict-first]\n"
    "                [--bins-in-result] [--tolerance T]\n"
    "see 'patc --help' for the options\n";


/* ---------------------------------------------------------------- messages */

/* Print "patc: error: MSG" as one line (newlines of embedded logs become "; ") and
 * return rc, so callers write `return run_error(1, ...)`. */
int run_error(int rc, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (s) vsnprintf(s, (size_t)len + 1, fmt, ap2);
    va_end(ap2);
    fputs("patc: error: ", stderr);
    size_t n = s ? strlen(s) : 0;
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ')) n--;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n') fputs("; ", stderr);
        else fputc(s[i], stderr);
    }
    fputc('\n', stderr);
    free(s);
    return rc;
}

double run_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---------------------------------------------------------------- options */

/* Parse argv (argv[0] is "run"). Returns -1 on success, else the exit status (0 after
 * --help, 2 after bad usage, with the message printed). */
int run_parse_args(int argc, char **argv, RunOpts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(run_usage, stdout);
            return 0;
        } else if (!strcmp(a, "--cpu")) o->cpu = true;
        else if (!strcmp(a, "--check-against-cpu")) o->check = true;
        else if (!strcmp(a, "--time")) o->time = true;
        else if (!strcmp(a, "--no-cache")) o->no_cache = true;
        else if (!strcmp(a, "--reduce")) o->reduce = true;
        else if (!strcmp(a, "--evict-first")) o->evict_first = true;
        else if (!strcmp(a, "--bins-in-result")) o->bins_in_result = true;
        else if (!strcmp(a, "--kernel") || !strcmp(a, "-D") || !strcmp(a, "-I") || !strcmp(a, "--input") ||
                 !strcmp(a, "--output") || !strcmp(a, "--repeat") || !strcmp(a, "--cuda") ||
                 !strcmp(a, "--min-blocks") || !strcmp(a, "--tolerance")) {
            if (i + 1 >= argc) return run_error(2, "option '%s' needs an argument", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--kernel")) o->kernel = v;
            else if (!strcmp(a, "--output")) {
                if (o->noutputs == MAX_ARGS) return run_error(2, "too many --output options (at most %d)", MAX_ARGS);
                o->outputs[o->noutputs++] = v;
            }
            else if (!strcmp(a, "--cuda")) o->cuda = v;
            else if (!strcmp(a, "--tolerance")) {
                char *end;
                errno = 0;
                double t = strtod(v, &end);
                if (errno || *end || end == v || !(t > 0 && t < 1))
                    return run_error(2, "--tolerance expects a relative error between 0 and 1, got '%s'", v);
                o->tol = t;
            }
            else if (!strcmp(a, "--min-blocks")) {
                char why[256];
                if (!cli_min_blocks(v, &o->min_blocks, why, sizeof why)) return run_error(2, "%s", why);
            }
            else if (!strcmp(a, "--repeat")) {
                char *end;
                errno = 0;
                long r = strtol(v, &end, 10);
                if (errno || *end || end == v || r < 1 || r > 1000000)
                    return run_error(2, "--repeat expects a count from 1 to 1000000, got '%s'", v);
                o->repeat = (int)r;
            } else if (!strcmp(a, "-I")) {
                if (o->nincs == MAX_ARGS) return run_error(2, "too many -I options (at most %d)", MAX_ARGS);
                o->incs[o->nincs++] = v;
            } else if (!strcmp(a, "--input")) {
                if (o->ninputs == MAX_ARGS) return run_error(2, "too many --input options (at most %d)", MAX_ARGS);
                o->inputs[o->ninputs++] = v;
            } else {
                char why[256];
                if (!cli_add_define(o->defs, &o->ndefs, v, why, sizeof why)) return run_error(2, "%s", why);
            }
        } else if (a[0] == '-' && a[1]) {
            return run_error(2, "unknown option '%s' (see 'patc --help')", a);
        } else {
            if (o->file) return run_error(2, "more than one input file ('%s')", a);
            o->file = a;
        }
    }
    if (!o->file) return run_error(2, "patc run: no input file");
    if (o->cpu && o->check) return run_error(2, "--cpu and --check-against-cpu exclude each other");
    if (o->tol > 0 && !o->check) return run_error(2, "--tolerance is the tolerance of --check-against-cpu; give both");
    if (o->cpu && o->cuda) return run_error(2, "--cuda replaces the GPU code; it has no effect with --cpu");
    if (!o->repeat) o->repeat = DEFAULT_REPEAT;
    return -1;
}

/* The -D value of nat `name`, or false. */
bool run_define_value(const RunOpts *o, const char *name, long long *v)
{
    for (int i = 0; i < o->ndefs; i++)
        if (!strcmp(o->defs[i].name, name)) {
            *v = o->defs[i].value;
            return true;
        }
    return false;
}
