/* test_limits.c: the C API on inputs that once crashed, aborted or hung its host
 * process (tests/limits_test.sh is the CLI side). Every case must return an error
 * status with a clear message, quickly, in a PATC_COMPILE_ONLY context (no GPU). Check
 * runs each test in a child process, so an abort or exit fails the test, and the
 * per-test timeout catches a hang. */
#include "patc.h"

#include <check.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static patc_ctx *ctx;
static char dir[] = "/tmp/patc_limits_XXXXXX";

static void setup(void)
{
    ck_assert_int_eq(patc_create(&ctx, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    patc_destroy(ctx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static const char *path_in(const char *name)
{
    static char p[4][256];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", dir, name);
    return p[i];
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* text compiles to PATC_ERR_COMPILE (or want) with `msg` in the last error */
static void rejects(const char *name, const char *text, patc_status want, const char *msg)
{
    patc_program *p = (patc_program *)1;
    ck_assert_int_eq(patc_program_from_string(ctx, name, text, NULL, 0, &p), want);
    ck_assert_ptr_null(p);
    if (!strstr(patc_last_error(ctx), msg))
        ck_abort_msg("no '%s' in: %.2000s", msg, patc_last_error(ctx));
}

static void file_rejected(const char *path, const char *msg)
{
    patc_program *p = (patc_program *)1;
    ck_assert_int_eq(patc_program_from_file(ctx, path, NULL, 0, &p), PATC_ERR_IO);
    ck_assert_ptr_null(p);
    if (!strstr(patc_last_error(ctx), msg) || !strstr(patc_last_error(ctx), path))
        ck_abort_msg("no '%s' and '%s' in: %s", msg, path, patc_last_error(ctx));
}

#define KERNEL "kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 2.0f))))\n"
/* a kernel the type checker rejects: appended so that a program is compiled through
 * every pass of the front end, then refused before NVRTC */
#define BAD_KERNEL "kernel bad = fun(f32)(x => x + true)\n"

START_TEST(import_chain_of_2000)
{
    char text[64];
    for (int i = 1; i < 2000; i++) {
        snprintf(text, sizeof text, "import \"m%d.rise\"\n", i + 1);
        char name[32];
        snprintf(name, sizeof name, "m%d.rise", i);
        write_file(path_in(name), text);
    }
    write_file(path_in("m2000.rise"), "def d = 1.0f\n");
    rejects(path_in("m0.rise"), "import \"m1.rise\"\n" KERNEL, PATC_ERR_COMPILE,
            "m64.rise:1:8: error: imports nested more than 64 deep");
}
END_TEST

START_TEST(import_cycle_is_read_once)
{
    write_file(path_in("a.rise"), "import \"b.rise\"\ndef fa = 1.0f\n");
    write_file(path_in("b.rise"), "import \"a.rise\"\ndef fb = 2.0f\n");
    /* both files' definitions arrive once: a second copy would be "defined twice" */
    rejects(path_in("main.rise"), "import \"a.rise\"\nimport \"b.rise\"\n" KERNEL BAD_KERNEL, PATC_ERR_COMPILE,
            "main.rise:4:");
}
END_TEST

static char *doubling_defs(int levels, const char *tail)
{
    size_t cap = 4096 + (size_t)levels * 64 + strlen(tail);
    char *s = malloc(cap);
    ck_assert_ptr_nonnull(s);
    size_t n = (size_t)snprintf(s, cap, "def g0 = fun(x => x + 1.0f)\n");
    for (int i = 1; i <= levels; i++)
        n += (size_t)snprintf(s + n, cap - n, "def g%d = fun(x => g%d(g%d(x)))\n", i, i - 1, i - 1);
    n += (size_t)snprintf(s + n, cap - n, "kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(g%d)))\n%s",
                          levels, tail);
    return s;
}

START_TEST(expansion_blow_up)
{
    char *s = doubling_defs(24, "");
    rejects("blow.rise", s, PATC_ERR_COMPILE,
            "blow.rise:26:8: error: expanding kernel 'k' makes more than 1000000 nodes; definition 'g0' is used");
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "blow.rise:1:5: note: 'g0' is defined here"));
    free(s);
}
END_TEST

START_TEST(deep_nesting_after_expansion)
{
    /* 14 levels: the body nests 16384 deep through typecheck, lower and the IR passes */
    char *s = doubling_defs(14, BAD_KERNEL);
    rejects("deep.rise", s, PATC_ERR_COMPILE, "deep.rise:17:");
    free(s);
    /* a chain of 5000 definitions each wrapping the previous one */
    size_t cap = 5000 * 64;
    s = malloc(cap);
    ck_assert_ptr_nonnull(s);
    size_t n = (size_t)snprintf(s, cap, "def g0 = fun(x => x + 1.0f)\n");
    for (int i = 1; i <= 5000; i++) n += (size_t)snprintf(s + n, cap - n, "def g%d = fun(x => g%d(x) + 1.0f)\n", i, i - 1);
    snprintf(s + n, cap - n, "kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(g5000)))\n");
    patc_program *p = (patc_program *)1;
    ck_assert_int_eq(patc_program_from_string(ctx, "chain.rise", s, NULL, 0, &p), PATC_ERR_COMPILE);
    ck_assert(strstr(patc_last_error(ctx), "program too deeply nested after inlining definitions") ||
              strstr(patc_last_error(ctx), "makes more than 1000000 nodes"));
    free(s);
}
END_TEST

/* The same chain compiled on a thread with a 1 MiB stack (a host may give the library
 * less than a main thread's 8 MiB): an error, not a stack overflow. */
static void *compile_chain(void *arg)
{
    patc_program *p = NULL;
    patc_status *st = arg;
    size_t cap = 2000 * 64;
    char *s = malloc(cap);
    size_t n = (size_t)snprintf(s, cap, "def g0 = fun(x => x + 1.0f)\n");
    for (int i = 1; i <= 2000; i++) n += (size_t)snprintf(s + n, cap - n, "def g%d = fun(x => g%d(x) + 1.0f)\n", i, i - 1);
    snprintf(s + n, cap - n, "kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(g2000)))\n");
    *st = patc_program_from_string(ctx, "chain.rise", s, NULL, 0, &p);
    if (*st == PATC_OK) patc_program_free(p);
    free(s);
    return NULL;
}

START_TEST(small_thread_stack)
{
    pthread_attr_t a;
    pthread_t th;
    patc_status st = PATC_OK;
    ck_assert_int_eq(pthread_attr_init(&a), 0);
    ck_assert_int_eq(pthread_attr_setstacksize(&a, (size_t)1 << 20), 0);
    ck_assert_int_eq(pthread_create(&th, &a, compile_chain, &st), 0);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    pthread_attr_destroy(&a);
    ck_assert_int_eq(st, PATC_ERR_COMPILE);
    ck_assert_msg(strstr(patc_last_error(ctx), "too deeply nested") || strstr(patc_last_error(ctx), "nested too deeply"), "%s",
                  patc_last_error(ctx));
}
END_TEST

START_TEST(kernels_130000)
{
    size_t cap = 130001 * 64;
    char *s = malloc(cap);
    ck_assert_ptr_nonnull(s);
    size_t n = 0;
    for (int i = 1; i <= 130000; i++) n += (size_t)snprintf(s + n, cap - n, "kernel k%d = fun(f32)(x => x * 2.0f)\n", i);
    /* every kernel goes through the front end, then the last one is refused */
    snprintf(s + n, cap - n, "%s", BAD_KERNEL);
    rejects("many.rise", s, PATC_ERR_COMPILE, "many.rise:130001:");
    /* and a duplicate at the end is found without comparing every pair */
    snprintf(s + n, cap - n, "def k7 = 1.0f\n");
    rejects("many.rise", s, PATC_ERR_COMPILE, "many.rise:130001:5: error: 'k7' is defined twice");
    free(s);
}
END_TEST

START_TEST(only_regular_files_of_at_most_64_mib)
{
    file_rejected("/dev/zero", "a character device, not a regular file");
    ck_assert_int_eq(mkfifo(path_in("fifo"), 0600), 0);
    file_rejected(path_in("fifo"), "a FIFO, not a regular file");
    file_rejected(dir, "a directory, not a regular file");
    FILE *f = fopen(path_in("big.rise"), "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(ftruncate(fileno(f), 65 << 20), 0);
    fclose(f);
    file_rejected(path_in("big.rise"), "larger than 64 MiB");
    /* imports too (the import names the path; the message is at the import) */
    rejects(path_in("m.rise"), "import \"/dev/zero\"\n" KERNEL, PATC_ERR_COMPILE,
            "(looked for /dev/zero (a character device, not a regular file))");
    rejects(path_in("m.rise"), "import \"fifo\"\n" KERNEL, PATC_ERR_COMPILE, "(a FIFO, not a regular file)");
    rejects(path_in("m.rise"), "import \"big.rise\"\n" KERNEL, PATC_ERR_COMPILE, "larger than 64 MiB");
}
END_TEST

/* A Unix-domain socket bound at `path` (left open: the test's process ends soon). */
static void make_socket(const char *path)
{
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge(s, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    ck_assert_uint_lt(strlen(path), sizeof a.sun_path);
    strcpy(a.sun_path, path);
    ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
}

/* Every kind of file that is not a regular one, as a source, as an import and as the
 * hand-edited CUDA file (patc_compile_options.cuda_file): refused at once (a FIFO with
 * no writer and a socket included: alarm fails a hang), each message naming the file
 * and its kind; a loop of symbolic links as an import says so, not "cannot find". */
START_TEST(special_files_named_by_kind)
{
    alarm(60);
    ck_assert_int_eq(mkfifo(path_in("fifo"), 0600), 0);
    make_socket(path_in("sock"));
    ck_assert_int_eq(symlink("loop", path_in("loop")), 0);
    ck_assert_int_eq(mkdir(path_in("sub.rise"), 0700), 0);
    static const struct { const char *name, *kind; } k[] = {
        {"fifo", "a FIFO, not a regular file"},
        {"sock", "a socket, not a regular file"},
        {"sub.rise", "a directory, not a regular file"},
    };
    for (int i = 0; i < 3; i++) {
        file_rejected(path_in(k[i].name), k[i].kind);
        char text[512], msg[512];
        snprintf(text, sizeof text, "import \"%s\"\n" KERNEL, k[i].name);
        snprintf(msg, sizeof msg, "cannot find import \"%s\" (looked for %s (%s)", k[i].name, path_in(k[i].name),
                 k[i].kind);
        rejects(path_in("m.rise"), text, PATC_ERR_COMPILE, msg);
    }
    file_rejected(path_in("loop"), "Too many levels of symbolic links");
    char msg[512];
    snprintf(msg, sizeof msg, "m.rise:1:8: error: cannot open import '%s': Too many levels of symbolic links",
             path_in("loop"));
    rejects(path_in("m.rise"), "import \"loop\"\n" KERNEL, PATC_ERR_COMPILE, msg);
    /* the hand-edited CUDA file (patc run --cuda) is a source too */
    write_file(path_in("k.rise"), KERNEL);
    patc_program *p = (patc_program *)1;
    patc_compile_options o = {.cuda_file = path_in("fifo")};
    ck_assert_int_eq(patc_program_compile(ctx, path_in("k.rise"), NULL, 0, &o, &p), PATC_ERR_IO);
    ck_assert_ptr_null(p);
    ck_assert_msg(strstr(patc_last_error(ctx), "a FIFO, not a regular file"), "%s", patc_last_error(ctx));
    alarm(0);
}
END_TEST

START_TEST(very_long_token)
{
    size_t n = 10u << 20;
    char *s = malloc(n + 32);
    ck_assert_ptr_nonnull(s);
    strcpy(s, "kernel k = ");
    memset(s + 11, 'a', n);
    strcpy(s + 11 + n, "\n");
    rejects("long.rise", s, PATC_ERR_COMPILE, "long.rise:1:12: error: unknown name 'aaaa");
    free(s);
}
END_TEST

/* a growing text for the programs below */
typedef struct {
    char *s;
    size_t n, cap;
} Text;

static void add(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(Text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    ck_assert_int_ge(k, 0);
    if (t->n + (size_t)k + 1 > t->cap) {
        t->cap = 2 * (t->n + (size_t)k + 1);
        t->s = realloc(t->s, t->cap);
        ck_assert_ptr_nonnull(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    t->n += (size_t)k;
}

/* kernel k with `nats` nat parameters n1.. and `params` data parameters n1.f32, then
 * BAD_KERNEL on line 2 (an error there means k passed every pass of the front end) */
static char *many_parameters(int nats, int params)
{
    Text t = {0};
    add(&t, "kernel k = ");
    for (int i = 1; i <= nats; i++) add(&t, "nFun(n%d => ", i);
    for (int i = 1; i <= params; i++) add(&t, "fun(n1.f32)(x%d => ", i);
    add(&t, "x1 |> mapGlobal(fun(x => x))");
    for (int i = 0; i < nats + params; i++) add(&t, ")");
    add(&t, "\n%s", BAD_KERNEL);
    return t.s;
}

START_TEST(kernel_parameters_at_most_32)
{
    char *s = many_parameters(1, 32);
    rejects("p.rise", s, PATC_ERR_COMPILE, "p.rise:2:");
    free(s);
    s = many_parameters(1, 33);
    rejects("p.rise", s, PATC_ERR_COMPILE, "p.rise:1:");
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "error: too many kernel parameters: a kernel has at most 32"));
    free(s);
    /* what the message suggests: 33 arrays of one type and size as one */
    rejects("p.rise", "kernel k = nFun(n => fun(33.n.f32)(xss => xss |> transpose\n"
                      "  |> mapGlobal(fun(r => r |> reduceSeq(add)(0.0f)))))\n" BAD_KERNEL,
            PATC_ERR_COMPILE, "p.rise:3:");
}
END_TEST

START_TEST(nat_parameters_at_most_32)
{
    char *s = many_parameters(32, 1);
    rejects("n.rise", s, PATC_ERR_COMPILE, "n.rise:2:");
    free(s);
    s = many_parameters(33, 1);
    rejects("n.rise", s, PATC_ERR_COMPILE, "n.rise:1:");
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "error: too many nat parameters: a kernel has at most 32"));
    /* those fixed with -D do not count, as the message says */
    patc_program *p = (patc_program *)1;
    patc_define d = {"n33", 5};
    ck_assert_int_eq(patc_program_from_string(ctx, "n.rise", s, &d, 1, &p), PATC_ERR_COMPILE);
    ck_assert_msg(strstr(patc_last_error(ctx), "n.rise:2:"), "%s", patc_last_error(ctx));
    free(s);
}
END_TEST

/* Every -D is checked, however many: the 65th, which names no nat parameter, was let
 * through (a fixed table of 64 marked those in use). */
START_TEST(every_define_is_checked)
{
    Text t = {0};
    patc_define d[65];
    char names[65][16]; /* "d" and any int (gcc -O1 checks the format against 11 digits) */
    for (int k = 0; k < 2; k++) { /* two kernels of 32 nats each: d1..d32, d33..d64 */
        add(&t, "kernel k%d = ", k);
        for (int i = 1; i <= 32; i++) add(&t, "nFun(d%d => ", 32 * k + i);
        add(&t, "fun(f32)(x => x * 2.0f)");
        for (int i = 1; i <= 32; i++) add(&t, ")");
        add(&t, "\n");
    }
    for (int i = 0; i < 65; i++) {
        snprintf(names[i], sizeof names[i], "d%d", i + 1);
        d[i].name = names[i];
        d[i].value = 3;
    }
    patc_program *p = (patc_program *)1;
    ck_assert_int_eq(patc_program_from_string(ctx, "d.rise", t.s, d, 65, &p), PATC_ERR_COMPILE);
    ck_assert_msg(strstr(patc_last_error(ctx), "-D d65: no kernel has a nat parameter named 'd65'"), "%s",
                  patc_last_error(ctx));
    ck_assert_ptr_null(p);
    free(t.s);
}
END_TEST

/* Storing an element of d dimensions takes d nested loops: at most 64. */
START_TEST(loops_nested_at_most_64)
{
    for (int dims = 64; dims <= 65; dims++) {
        Text t = {0};
        add(&t, "kernel k = fun(");
        for (int i = 0; i < dims; i++) add(&t, "1.");
        add(&t, "f32)(xs => xs |> mapGlobal(fun(r => r)))\n%s", BAD_KERNEL);
        if (dims == 64) rejects("l.rise", t.s, PATC_ERR_COMPILE, "l.rise:2:");
        else rejects("l.rise", t.s, PATC_ERR_COMPILE, "l.rise:1:");
        free(t.s);
    }
    ck_assert_ptr_nonnull(strstr(patc_last_error(ctx), "error: loops nested too deeply (more than 64)"));
}
END_TEST

START_TEST(sizes_at_most_2_62)
{
    rejects("s.rise", "kernel k = fun(4611686018427387904.f32)(xs => xs |> mapGlobal(fun(x => x)))\n" BAD_KERNEL,
            PATC_ERR_COMPILE, "s.rise:2:");
    rejects("s.rise", "kernel k = fun(4611686018427387905.f32)(xs => xs |> mapGlobal(fun(x => x)))\n" BAD_KERNEL,
            PATC_ERR_COMPILE,
            "s.rise:1:16: error: natural number 4611686018427387905 is above 2^62 (4611686018427387904), the "
            "largest size patc handles");
}
END_TEST

/* One declaration's expression is at most 2000 deep; the message's way out, parts
 * moved into definitions, compiles. */
START_TEST(expression_depth_at_most_2000)
{
    Text t = {0};
    add(&t, "kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x");
    for (int i = 0; i < 3000; i++) add(&t, " + 1.0f");
    add(&t, "))))\n");
    rejects("e.rise", t.s, PATC_ERR_COMPILE,
            "error: expression nesting too deep: more than 2000 levels in one declaration (move parts of it into "
            "definitions)");
    t.n = 0;
    add(&t, "def half = fun(y => y");
    for (int i = 0; i < 1500; i++) add(&t, " + 1.0f");
    add(&t, ")\nkernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => half(x)");
    for (int i = 0; i < 1500; i++) add(&t, " + 1.0f");
    add(&t, "))))\n%s", BAD_KERNEL);
    rejects("e.rise", t.s, PATC_ERR_COMPILE, "e.rise:3:");
    free(t.s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("limits");
    TCase *tc = tcase_create("api");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, import_chain_of_2000);
    tcase_add_test(tc, import_cycle_is_read_once);
    tcase_add_test(tc, expansion_blow_up);
    tcase_add_test(tc, deep_nesting_after_expansion);
    tcase_add_test(tc, small_thread_stack);
    tcase_add_test(tc, kernels_130000);
    tcase_add_test(tc, only_regular_files_of_at_most_64_mib);
    tcase_add_test(tc, special_files_named_by_kind);
    tcase_add_test(tc, very_long_token);
    tcase_add_test(tc, kernel_parameters_at_most_32);
    tcase_add_test(tc, nat_parameters_at_most_32);
    tcase_add_test(tc, every_define_is_checked);
    tcase_add_test(tc, loops_nested_at_most_64);
    tcase_add_test(tc, sizes_at_most_2_62);
    tcase_add_test(tc, expression_depth_at_most_2000);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
