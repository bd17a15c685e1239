/* cli.h: the command-line driver's pieces (patc.c, run*.c, tune.c). The CLI is a
 * client of libpatrt: it uses patc.h and nothing of the compiler's internals. */
#ifndef PATC_CLI_H
#define PATC_CLI_H

#include "../runtime/patc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { MAX_ARGS = 64 };

/* Add the -D argument `arg` ("name=value") to defs[0..*n). On a usage error (bad form,
 * a value of 0 or above 2^62, a name given twice, too many) returns false with the
 * message in why. The name is malloc'ed (cli_free_defines). */
bool cli_add_define(patc_define *defs, int *n, const char *arg, char *why, size_t len);
bool cli_min_blocks(const char *arg, int *out, char *why, size_t len);
void cli_free_defines(patc_define *defs, int n);
/* Files named on the command line (files.c). An input: a regular file opened for
 * reading without blocking, its size in *size; else -1 with the reason in why (its kind:
 * "a FIFO, not a regular file"). */
int cli_open_input(const char *path, long long *size, char *why, size_t len);
/* An output: a regular file (created or emptied), a character device or a pipe that a
 * process reads, opened for writing; else NULL with the reason in why. Never waits for
 * a reader. */
FILE *cli_open_output(const char *path, char *why, size_t len);
/* `patc run ...`; argv[0] is "run". Returns the exit status. */
int cli_run(int argc, char **argv);
/* `patc tune ...`; argv[0] is "tune". Returns the exit status. */
int cli_tune(int argc, char **argv);

/* ---------------------------------------------------------------- patc run (run*.c) */

enum { WARMUP = 3, DEFAULT_REPEAT = 10, SHOW_ELEMS = 8 };
#define RUN_RANDOM_SEED 42u

typedef struct RunOpts {
    const char *file, *kernel, *cuda;
    const char *outputs[MAX_ARGS]; /* one --output per kernel output, in order */
    int noutputs;
    char kernel_buf[256]; /* the program's only kernel, when --kernel was not given */
    patc_define defs[MAX_ARGS];
    int ndefs;
    const char *incs[MAX_ARGS];
    int nincs;
    const char *inputs[MAX_ARGS];
    int ninputs;
    bool cpu, check, time, no_cache, reduce;
    double tol; /* --tolerance: floating-point results' relative tolerance (0: the type's default) */
    int min_blocks; /* --min-blocks (0: none) */
    bool evict_first; /* --evict-first */
    bool bins_in_result; /* --bins-in-result */
    int repeat;
} RunOpts;

/* One data buffer on the host: a kernel input or output. */
typedef struct HostData {
    patc_type type;
    long long count;
    size_t bytes;
    void *data;
} HostData;

/* Print "patc: error: MSG" as one line (newlines of embedded logs become "; ") and
 * return rc, so callers write `return run_error(1, ...)`. */
int run_error(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double run_now_ms(void);
/* Parse argv (argv[0] is "run"). Returns -1 on success, else the exit status (0 after
 * --help, 2 after bad usage, with the message printed). */
int run_parse_args(int argc, char **argv, RunOpts *o);
/* The -D value of nat `name`, or false. */
bool run_define_value(const RunOpts *o, const char *name, long long *v);
/* Host data (run_data.c). */
void run_fill_random(HostData *h, uint64_t *state);
bool run_host_alloc(HostData *h, patc_type type, long long count, const char *what);
bool run_read_input(HostData *h, const char *path, int index);
bool run_fill_value(HostData *h, const char *text, int index);
bool run_fill_random_range(HostData *h, const char *text, int index, uint64_t *state);
bool run_write_output(const HostData *h, const char *path);
double run_elem_double(const HostData *h, long long i);
void run_print_summary(const HostData *h, const char *label);
bool run_compare(const HostData *gpu, const HostData *cpu, double tol);

#endif
