/* test_oom.c: memory running out anywhere in a compile, a CPU run or the queries of
 * libpatrt returns PATC_ERR_NO_MEMORY (never an abort, never a partial result passed
 * off as whole) and frees what was allocated.
 *
 * The counting hook of lang/util.c (lang_fault_arm) fails the N-th allocation, arena
 * allocations included, for N = 1, 2, ... until a run completes without reaching N:
 * every allocation site a run passes through fails once. A second sweep fails every
 * allocation from the N-th on (memory that stays gone, so that the error paths
 * themselves find none). Under AddressSanitizer (the suite's second build) a leak on
 * any of those paths fails the run at exit; the CLI's side is tests/oom_cli.sh. */
#include "../runtime/patc.h"
#include "../lang/lang.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PATC_EXAMPLES_DIR
#define PATC_EXAMPLES_DIR "examples"
#endif

static const char *SCALE =
    "kernel scale = nFun(n =>\n"
    "  fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 2.0f))))\n";
/* a type error: the diagnostic path, with its hint search, under failing allocations */
static const char *BAD =
    "kernel bad = nFun(n =>\n"
    "  fun(n.f32)(xs => xs |> split(32) |> mapGlobal(fun(x => x * 2.0f)) |> join))\n";

static char scale_path[64], bad_path[64];

/* What one run produced, for comparing a run that met no failure with the reference. */
typedef struct Outcome {
    patc_status compile, interp, bad;
    char *cuda, *ir, *bad_msg;
    float out[5];
} Outcome;

static void outcome_free(Outcome *o)
{
    free(o->cuda);
    free(o->ir);
    free(o->bad_msg);
    memset(o, 0, sizeof *o);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* Compile count_if.rise (it imports a pattern file) and SCALE (checked only: NVRTC's
 * own allocations are not patc's), run scale on the interpreter, ask for its CUDA and
 * IR, and compile BAD; each status is one of the documented ones. */
static void one_run(Outcome *o)
{
    memset(o, 0, sizeof *o);
    patc_ctx *c = NULL;
    patc_status s = patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE);
    if (s != PATC_OK) {
        ck_assert_int_eq(s, PATC_ERR_NO_MEMORY);
        ck_assert_ptr_null(c);
        o->compile = s;
        return;
    }
    patc_compile_options opt = {.no_cubin = 1};
    patc_program *p = NULL, *q = NULL, *b = NULL;
    o->compile = patc_program_compile(c, PATC_EXAMPLES_DIR "/count_if.rise", NULL, 0, &opt, &q);
    if (o->compile == PATC_OK) o->compile = patc_program_compile(c, scale_path, NULL, 0, &opt, &p);
    ck_assert_msg(o->compile == PATC_OK || o->compile == PATC_ERR_NO_MEMORY, "compile: %d %s", o->compile,
                  patc_last_error(c));
    if (o->compile == PATC_ERR_NO_MEMORY)
        ck_assert_msg(strstr(patc_last_error(c), "out of memory"), "%s", patc_last_error(c));
    if (o->compile == PATC_OK) {
        patc_kernel *k;
        ck_assert_int_eq(patc_get_kernel(p, "scale", &k), PATC_OK);
        float in[5] = {1, 2, 3, 4, 5};
        const void *ins[1] = {in};
        long long n = 5;
        o->interp = patc_interp_run(k, &n, ins, o->out);
        ck_assert_msg(o->interp == PATC_OK || o->interp == PATC_ERR_NO_MEMORY, "interp: %d %s", o->interp,
                      patc_last_error(c));
        o->cuda = dup_or_null(patc_program_cuda(p));
        ck_assert_ptr_nonnull(o->cuda); /* made by the compile */
        o->ir = dup_or_null(patc_program_ir(p)); /* NULL when memory ran out */
    }
    o->bad = patc_program_compile(c, bad_path, NULL, 0, &opt, &b);
    ck_assert_msg(o->bad == PATC_ERR_COMPILE || o->bad == PATC_ERR_NO_MEMORY, "bad: %d", o->bad);
    o->bad_msg = strdup(patc_last_error(c));
    patc_program_free(p);
    patc_program_free(q);
    patc_program_free(b);
    patc_destroy(c);
}

/* Fail allocation n (and with sticky each after it) in every run until one run
 * completes without reaching it; a run that met no failure must equal the reference
 * exactly. Returns the number of runs. */
static long sweep(bool sticky)
{
    Outcome ref;
    lang_fault_arm(0, false);
    one_run(&ref);
    ck_assert_int_eq(ref.compile, PATC_OK);
    ck_assert_int_eq(ref.interp, PATC_OK);
    ck_assert_int_eq(ref.bad, PATC_ERR_COMPILE);
    ck_assert(ref.out[4] == 10.0f);
    long n = 1;
    for (;; n++) {
        ck_assert_msg(n < 200000, "no end to the sweep");
        Outcome o;
        lang_fault_arm(n, sticky);
        one_run(&o);
        bool fired = lang_fault_fired();
        lang_fault_arm(0, false);
        if (!fired) {
            /* nothing failed: every result is the reference's */
            ck_assert_int_eq(o.compile, PATC_OK);
            ck_assert_int_eq(o.interp, PATC_OK);
            ck_assert_str_eq(o.cuda, ref.cuda);
            ck_assert_str_eq(o.ir, ref.ir);
            ck_assert_str_eq(o.bad_msg, ref.bad_msg);
            outcome_free(&o);
            break;
        }
        /* a result that came back whole is the reference's (no silent change) */
        if (o.compile == PATC_OK && o.interp == PATC_OK) ck_assert(memcmp(o.out, ref.out, sizeof o.out) == 0);
        if (o.cuda) ck_assert_str_eq(o.cuda, ref.cuda);
        if (o.ir) ck_assert_str_eq(o.ir, ref.ir);
        if (o.bad == PATC_ERR_COMPILE) { /* whole, or cut short and saying so */
            const char *cut = strstr(o.bad_msg, " [message cut short: out of memory]");
            if (cut) ck_assert(strncmp(o.bad_msg, ref.bad_msg, (size_t)(cut - o.bad_msg)) == 0);
            else ck_assert_str_eq(o.bad_msg, ref.bad_msg);
        }
        outcome_free(&o);
    }
    outcome_free(&ref);
    return n;
}

START_TEST(every_allocation_fails_once)
{
    long n = sweep(false);
    printf("failed once: each of %ld allocations\n", n - 1);
    /* a compile makes thousands of arena allocations: a sweep that ended early would
     * mean the hook no longer sees them */
    ck_assert_msg(n > 1000, "only %ld allocations in a run", n);
}
END_TEST

START_TEST(memory_stays_gone)
{
    long n = sweep(true);
    printf("memory gone: from each of %ld allocations on\n", n - 1);
    ck_assert_msg(n > 1000, "only %ld allocations in a run", n);
}
END_TEST

static void write_file(char *path, const char *text)
{
    snprintf(path, 64, "/tmp/patc-oom-XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

int main(void)
{
    write_file(scale_path, SCALE);
    write_file(bad_path, BAD);
    Suite *s = suite_create("oom");
    TCase *tc = tcase_create("api");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_allocation_fails_once);
    tcase_add_test(tc, memory_stays_gone);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    /* in this process: LeakSanitizer checks the whole sweep at exit */
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    remove(scale_path);
    remove(bad_path);
    return failed ? 1 : 0;
}
