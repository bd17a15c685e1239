/* test_runtime.c: the public API of libpatrt (runtime/patc.h).
 *
 *   test_runtime        API tests that need no GPU: contexts without a driver, compiling
 *                       .rise programs to cubins for sm_90, queries, error paths.
 *   test_runtime gpu    launches on device 0; exits 77 (skipped) when there is none.
 *
 * Built with -DRT_STUBS against tests/rt_stubs.c (hand-made kernels) until the compiler
 * exists; the exact launch geometry is asserted only then, since it belongs to the
 * compiler's rules. */
#include "../runtime/patc.h"

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PATC_EXAMPLES_DIR
#define PATC_EXAMPLES_DIR "examples"
#endif

static const char *SCALE =
    "kernel scale = nFun(n =>\n"
    "  fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 2.0f))))\n";
static const char *BAD =
    "kernel bad = nFun(n =>\n"
    "  fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * undefined_name))))\n";

/* One toShared of m floats per block: 4*m bytes of shared memory, a size known at launch. */
static const char *BIGSMEM =
    "kernel bigsmem = nFun((n, m) =>\n"
    "  fun((n*m).f32)(xs => xs |> split(m) |> mapBlock(fun(row =>\n"
    "    row |> mapThreads(fun(x => x * 2.0f)) |> toShared |> mapThreads(fun(x => x + 1.0f)))) |> join))\n";

/* A scalar parameter passed by value, and a kernel of two outputs. */
static const char *SAXPY =
    "kernel saxpy = nFun(n =>\n"
    "  fun(f32)(a => fun(n.f32)(xs => fun(n.f32)(ys =>\n"
    "    zip(xs)(ys) |> mapGlobal(fun(p => a * fst(p) + snd(p)))))))\n";
static const char *MINMAX =
    "kernel minmax = nFun(m => fun((m * 4).i32)(xs =>\n"
    "  pair(xs |> split(4) |> mapGlobal(fun(c => c |> reduceSeq(min)(1000))))\n"
    "      (pair(xs |> split(4) |> mapGlobal(fun(c => c |> reduceSeq(max)(-1000))))\n"
    "           (xs |> split(4) |> mapGlobal(fun(c => c |> reduceSeq(add)(0)))))))\n";

static char cachedir[256];

static void setup(void)
{
    snprintf(cachedir, sizeof cachedir, "/tmp/patc-rt-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(cachedir));
    setenv("PATC_CACHE_DIR", cachedir, 1);
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cachedir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", cachedir);
}

/* ---------------------------------------------------------------- without a GPU */

START_TEST(create_without_driver_succeeds)
{
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, 0), PATC_OK);
    ck_assert_ptr_nonnull(c);
    patc_status s = patc_device_status(c);
    if (s != PATC_OK) {
        ck_assert(s == PATC_ERR_NO_DRIVER || s == PATC_ERR_NO_DEVICE);
        const char *m = patc_last_error(c);
        ck_assert_msg(strstr(m, "libcuda.so.1") || strstr(m, "device") || strstr(m, "GPU"), "message: %s", m);
        if (s == PATC_ERR_NO_DRIVER)
            ck_assert_str_eq(m, "libcuda.so.1 not found: no NVIDIA driver on this machine");
        ck_assert_int_eq(patc_get_arch(c), 90); /* the default target without a device */
    }
    ck_assert_str_eq(patc_cache_dir(c), cachedir);
    patc_destroy(c);
    /* a device that does not exist is reported, not fatal */
    ck_assert_int_eq(patc_create(&c, 4242, 0), PATC_OK);
    ck_assert_int_ne(patc_device_status(c), PATC_OK);
    patc_destroy(c);
    ck_assert_int_eq(patc_create(NULL, 0, 0), PATC_ERR_INVALID);
    patc_destroy(NULL);
}
END_TEST

START_TEST(compile_only_flag_and_no_cache)
{
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    ck_assert_int_eq(patc_device_status(c), PATC_ERR_NO_DRIVER);
    ck_assert_ptr_null(patc_cache_dir(c));
    patc_program *p;
    patc_compile_stats st;
    for (int i = 0; i < 2; i++) {
        ck_assert_msg(patc_program_from_string(c, "scale.rise", SCALE, NULL, 0, &p) == PATC_OK, "%s",
                      patc_last_error(c));
        patc_get_compile_stats(c, &st);
        ck_assert_int_eq(st.cache_hit, 0);
        patc_program_free(p);
    }
    patc_destroy(c);
}
END_TEST

START_TEST(compile_rise_to_cubin_and_hit_the_cache)
{
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, 0), PATC_OK);
    if (patc_device_status(c) != PATC_OK) ck_assert_int_eq(patc_set_arch(c, 90), PATC_OK);
    patc_program *p, *q;
    patc_compile_stats st;
    ck_assert_msg(patc_program_from_string(c, "scale.rise", SCALE, NULL, 0, &p) == PATC_OK, "%s", patc_last_error(c));
    patc_get_compile_stats(c, &st);
    ck_assert_int_eq(st.cache_hit, 0);
    ck_assert(st.compile_ms > 0);
    ck_assert_ptr_nonnull(strstr(patc_program_cuda(p), "__global__"));
    ck_assert_int_ge(patc_program_num_kernels(p), 1);
    ck_assert_msg(patc_program_from_string(c, "scale.rise", SCALE, NULL, 0, &q) == PATC_OK, "%s", patc_last_error(c));
    patc_get_compile_stats(c, &st);
    ck_assert_int_eq(st.cache_hit, 1);
    ck_assert_int_eq(st.arch, patc_get_arch(c));
    patc_program_free(q);
    /* another arch misses */
    ck_assert_int_eq(patc_set_arch(c, 80), PATC_OK);
    ck_assert_int_eq(patc_program_from_string(c, "scale.rise", SCALE, NULL, 0, &q), PATC_OK);
    patc_get_compile_stats(c, &st);
    ck_assert_int_eq(st.cache_hit, 0);
    ck_assert_int_eq(st.arch, 80);
    patc_program_free(q);
    ck_assert_int_eq(patc_set_arch(c, 3), PATC_ERR_INVALID);
    patc_program_free(p);
    patc_destroy(c);
}
END_TEST

/* A per-block sum (4 elements per block) and a dot product: a reduction pass and a
 * plain kernel, as the compiler classifies them. */
static const char *PASS_AND_DOT =
    "kernel blockSum = nFun(n =>\n"
    "  fun(n.f32)(xs => xs |> padCst(0)((4 - n % 4) % 4)(0.0f) |> split(4)\n"
    "    |> mapGlobal(fun(c => c |> reduceSeq(add)(0.0f)))))\n"
    "kernel dot = nFun(n =>\n"
    "  fun(n.f32)(xs => fun(n.f32)(ys => zip(xs)(ys) |> split(n)\n"
    "    |> mapGlobal(fun(c => c |> reduceSeq(fun((a, p) => a + fst(p) * snd(p)))(0.0f))))))\n";

/* The interpreter takes the nat values patc_kernel_input_info takes and no others: a
 * size past the limits (n = LLONG_MAX, 2^62 + 1) is refused, where it was read past the
 * arrays (ASan: stack-buffer-overflow in interp.c's load). */
START_TEST(interp_refuses_sizes_past_the_limits)
{
    patc_ctx *c;
    patc_program *p;
    patc_kernel *k;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    patc_compile_options o = {.no_cubin = 1};
    ck_assert_msg(patc_program_compile(c, PATC_EXAMPLES_DIR "/scale.rise", NULL, 0, &o, &p) == PATC_OK, "%s",
                  patc_last_error(c));
    ck_assert_int_eq(patc_get_kernel(p, "scale", &k), PATC_OK);
    float in[4] = {1, 2, 3, 4}, out[4];
    const void *ins[1] = {in};
    long long bad[] = {9223372036854775807LL, 4611686018427387905LL};
    for (int i = 0; i < 2; i++) {
        patc_status s = patc_interp_run(k, &bad[i], ins, out);
        ck_assert_msg(s == PATC_ERR_SIZE || s == PATC_ERR_INVALID, "n = %lld: %d", bad[i], s);
    }
    long long four = 4;
    ck_assert_int_eq(patc_interp_run(k, &four, ins, out), PATC_OK);
    ck_assert(out[3] == 8.0f);
    patc_destroy(c);
}
END_TEST

/* The peak resident size, in KiB, of a child process that compiles n one-line kernels
 * through the API (checked only: no cubin). */
static long compile_many_kib(int n)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char path[300];
        snprintf(path, sizeof path, "%s/many%d.rise", cachedir, n);
        FILE *f = fopen(path, "w");
        if (!f) _exit(2);
        for (int i = 0; i < n; i++)
            fprintf(f, "kernel k%d = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x + 1.0f))))\n", i);
        if (fclose(f) != 0) _exit(2);
        patc_ctx *c;
        patc_program *p;
        patc_compile_options o = {.no_cubin = 1};
        if (patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE) != PATC_OK) _exit(3);
        int rc = patc_program_compile(c, path, NULL, 0, &o, &p) == PATC_OK && patc_program_num_kernels(p) == n ? 0 : 4;
        patc_destroy(c);
        _exit(rc);
    }
    int st;
    struct rusage ru;
    ck_assert_int_eq(wait4(pid, &st, 0, &ru), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "compiling %d kernels failed: status %d", n, st);
    return ru.ru_maxrss;
}

/* A program's memory grows linearly in its kernels, by a few kilobytes each (8.0 KiB
 * for this one-line map when this test was written): the kernels' nat environments
 * once spanned every variable id of the program, so 10,000 one-line kernels took 1.7
 * GB and 20,000 took 4.2 GB (about 40 and 200 KiB a kernel at those sizes). The bound
 * allows for AddressSanitizer's shadow and redzones. */
START_TEST(memory_linear_in_kernels)
{
    long small = compile_many_kib(1000), large = compile_many_kib(6000);
    double per = (double)(large - small) / 5000;
#if defined(__SANITIZE_ADDRESS__)
    double bound = 64;
#else
    double bound = 12;
#endif
    ck_assert_msg(per < bound, "%.1f KiB a kernel (1000 kernels: %ld KiB, 6000: %ld KiB); the bound is %.0f", per,
                  small, large, bound);
}
END_TEST

/* The least i32 as a constant compiles through libpatrt's NVRTC, in 32-bit index
 * arithmetic: printed as
 * -2147483648LL it made max(x, -2147483648LL) ambiguous there (an i32 max reduction's
 * padding; the ready-made max reductions and scans of i32). */
START_TEST(int_min_constant_compiles)
{
    patc_ctx *c;
    patc_program *p;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    patc_define d[2] = {{"elemsBlock", 4096}, {"elemsWarp", 256}};
    ck_assert_msg(patc_program_compile(c, PATC_EXAMPLES_DIR "/../tests/programs/int_min.rise", d, 2, NULL, &p) == PATC_OK,
                  "%s", patc_last_error(c));
    /* and it does not make the kernel's index arithmetic 64-bit (its magnitude is 2^31,
     * but int holds it) */
    patc_kernel *k;
    ck_assert_int_eq(patc_get_kernel(p, "maxI32", &k), PATC_OK);
    long long nats[2] = {1000000, 8};
    ck_assert_int_eq(patc_kernel_index_bits(k, nats), 32);
    patc_destroy(c);
}
END_TEST

/* min_blocks reaches __launch_bounds__ of a kernel with a fixed block (and only then),
 * and a count outside 0..32 is refused before anything is compiled */
START_TEST(min_blocks_in_launch_bounds)
{
    static const char *src =
        "kernel twice = nFun(n => fun((n * 64).f32)(xs => xs |> split(64)\n"
        "  |> mapBlock(fun(b => b |> mapThreads(fun(x => x * 2.0f)))) |> join))\n";
    patc_ctx *c;
    patc_program *p;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    char path[] = "/tmp/patc-minb-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, src, strlen(src)), (ssize_t)strlen(src));
    close(fd);
    patc_compile_options o = {.no_cubin = 1, .min_blocks = 12};
    ck_assert_msg(patc_program_compile(c, path, NULL, 0, &o, &p) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_ptr_nonnull(strstr(patc_program_cuda(p), "__launch_bounds__(64, 12) twice("));
    patc_program_free(p);
    o.min_blocks = 0;
    ck_assert_msg(patc_program_compile(c, path, NULL, 0, &o, &p) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_ptr_nonnull(strstr(patc_program_cuda(p), "__launch_bounds__(64) twice("));
    patc_program_free(p);
    o.min_blocks = 33;
    ck_assert_int_eq(patc_program_compile(c, path, NULL, 0, &o, &p), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "min_blocks 33"));
    unlink(path);
    patc_destroy(c);
}
END_TEST

START_TEST(kernel_role_from_the_compiler)
{
    patc_ctx *c;
    patc_program *p;
    patc_kernel *k;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    patc_compile_options o = {.no_cubin = 1};
    char path[] = "/tmp/patc-role-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, PASS_AND_DOT, strlen(PASS_AND_DOT)), (ssize_t)strlen(PASS_AND_DOT));
    close(fd);
    ck_assert_msg(patc_program_compile(c, path, NULL, 0, &o, &p) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_int_eq(patc_get_kernel(p, "blockSum", &k), PATC_OK);
    ck_assert_int_eq(patc_kernel_get_role(k), PATC_KERNEL_REDUCTION_PASS);
    ck_assert_int_eq(patc_kernel_length_nat(k), 0);
    /* the pass runs once through patc_interp_run (its 3 partials), and to one value
     * through patc_interp_reduce_to_one */
    float xs[10], part[3] = {0}, one = 0, want = 0;
    for (int i = 0; i < 10; i++) want += xs[i] = (float)(i + 1);
    long long n = 10;
    const void *in[1] = {xs};
    ck_assert_msg(patc_interp_run(k, &n, in, part) == PATC_OK, "%s", patc_last_error(c));
    ck_assert(part[0] == 10.0f && part[1] == 26.0f && part[2] == 19.0f);
    int passes = 0;
    ck_assert_msg(patc_interp_reduce_to_one(k, &n, xs, 10, &one, &passes) == PATC_OK, "%s", patc_last_error(c));
    ck_assert(one == want);
    ck_assert_int_eq(passes, 2);
    /* a program without a cubin cannot be launched, and says why */
    ck_assert_int_ne(patc_launch(k, &n, NULL, NULL, NULL), PATC_OK);

    ck_assert_int_eq(patc_get_kernel(p, "dot", &k), PATC_OK);
    ck_assert_int_eq(patc_kernel_get_role(k), PATC_KERNEL_PLAIN);
    ck_assert_int_eq(patc_kernel_length_nat(k), -1);
    ck_assert_int_eq(patc_interp_reduce_to_one(k, &n, xs, 10, &one, NULL), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "not a device-level reduction pass"));
    patc_program_free(p);

    /* fixing the length with -D makes the pass plain: its length is no parameter */
    patc_define d = {"n", 12};
    o.kernel = "blockSum";
    ck_assert_msg(patc_program_compile(c, path, &d, 1, &o, &p) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_int_eq(patc_program_num_kernels(p), 1);
    ck_assert_int_eq(patc_get_kernel(p, "blockSum", &k), PATC_OK);
    ck_assert_int_eq(patc_kernel_get_role(k), PATC_KERNEL_PLAIN);
    ck_assert_ptr_nonnull(strstr(patc_program_ir(p), "--- typed IR: blockSum\n"));
    ck_assert_ptr_nonnull(strstr(patc_program_ir(p), "--- kernel IR\n"));
    unlink(path);
    patc_destroy(c);
}
END_TEST

/* Emitting CUDA never calls NVRTC: an architecture NVRTC rejects still emits. */
START_TEST(no_cubin_never_calls_nvrtc)
{
    patc_ctx *c;
    patc_program *p;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    ck_assert_int_eq(patc_set_arch(c, 1000), PATC_OK);
    ck_assert_int_eq(patc_program_from_string(c, "scale.rise", SCALE, NULL, 0, &p), PATC_ERR_NVRTC);
    patc_compile_options o = {.no_cubin = 1};
    ck_assert_msg(patc_program_compile(c, PATC_EXAMPLES_DIR "/scale.rise", NULL, 0, &o, &p) == PATC_OK, "%s",
                  patc_last_error(c));
    ck_assert_ptr_nonnull(strstr(patc_program_cuda(p), "__global__"));
    patc_compile_stats st;
    patc_get_compile_stats(c, &st);
    ck_assert(st.compile_ms == 0);
    /* dump letters are checked */
    o.dump = "x";
    ck_assert_int_eq(patc_program_compile(c, PATC_EXAMPLES_DIR "/scale.rise", NULL, 0, &o, &p), PATC_ERR_INVALID);
    ck_assert_str_eq(patc_dump_letters(), "aetlosbv");
    patc_destroy(c);
}
END_TEST

/* patc_program_compile_string: program text with options; no_cubin never loads NVRTC
 * (an arch NVRTC rejects still compiles), diagnostics name the given name, cuda_file is
 * refused. */
START_TEST(compile_string_with_options)
{
    patc_ctx *c;
    patc_program *p;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    ck_assert_int_eq(patc_set_arch(c, 1000), PATC_OK);
    patc_compile_options o = {.no_cubin = 1};
    ck_assert_msg(patc_program_compile_string(c, "mine.rise", SCALE, NULL, 0, &o, &p) == PATC_OK, "%s",
                  patc_last_error(c));
    ck_assert_ptr_nonnull(strstr(patc_program_cuda(p), "__global__ void scale"));
    patc_kernel *k;
    ck_assert_int_eq(patc_get_kernel(p, "scale", &k), PATC_OK);
    float in[3] = {1, 2, 3}, out[3];
    long long n = 3;
    const void *ins[] = {in};
    ck_assert_int_eq(patc_interp_run(k, &n, ins, out), PATC_OK);
    ck_assert(out[0] == 2 && out[2] == 6);
    ck_assert_int_eq(patc_program_compile_string(c, "mine.rise", BAD, NULL, 0, &o, &p), PATC_ERR_COMPILE);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "mine.rise:2:"));
    ck_assert_ptr_null(p);
    ck_assert_int_eq(patc_program_compile_string(c, NULL, BAD, NULL, 0, NULL, &p), PATC_ERR_COMPILE);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "<string>:2:"));
    o.cuda_file = "x.cu";
    ck_assert_int_eq(patc_program_compile_string(c, "mine.rise", SCALE, NULL, 0, &o, &p), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_program_compile_string(c, "mine.rise", NULL, NULL, 0, NULL, &p), PATC_ERR_INVALID);
    patc_destroy(c);
}
END_TEST

/* -D through the C API: 1 to 2^62, each name once. */
START_TEST(define_rules)
{
    patc_ctx *c;
    patc_program *p = NULL;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    patc_define zero = {"n", 0};
    ck_assert_int_eq(patc_program_from_string(c, "scale.rise", SCALE, &zero, 1, &p), PATC_ERR_SIZE);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "at least 1"));
    ck_assert_ptr_null(p);
    patc_define big = {"n", PATC_DEFINE_MAX + 1};
    ck_assert_int_eq(patc_program_from_string(c, "scale.rise", SCALE, &big, 1, &p), PATC_ERR_SIZE);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "2^62"));
    patc_define twice[2] = {{"n", 5}, {"n", 6}};
    ck_assert_int_eq(patc_program_from_string(c, "scale.rise", SCALE, twice, 2, &p), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "-D n is given twice"));
    patc_compile_options o = {.no_cubin = 1};
    ck_assert_int_eq(patc_program_compile(c, PATC_EXAMPLES_DIR "/scale.rise", &zero, 1, &o, &p), PATC_ERR_SIZE);
    patc_define one = {"n", 1};
    ck_assert_msg(patc_program_compile(c, PATC_EXAMPLES_DIR "/scale.rise", &one, 1, &o, &p) == PATC_OK, "%s",
                  patc_last_error(c));
    patc_destroy(c);
}
END_TEST

START_TEST(kernel_queries)
{
    patc_ctx *c;
    patc_program *p;
    patc_kernel *k;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    ck_assert_int_eq(patc_program_from_string(c, "scale.rise", SCALE, NULL, 0, &p), PATC_OK);
    ck_assert_int_eq(patc_get_kernel(p, "scale", &k), PATC_OK);
    ck_assert_str_eq(patc_kernel_name(k), "scale");
    ck_assert_int_eq(patc_kernel_num_inputs(k), 1);
    ck_assert_int_eq(patc_kernel_num_nats(k), 1);
    ck_assert_str_eq(patc_kernel_nat_name(k, 0), "n");
    ck_assert_ptr_null(patc_kernel_nat_name(k, 1));
    long long n = 1000, count;
    patc_type t;
    size_t bytes;
    ck_assert_int_eq(patc_kernel_input_info(k, 0, &n, &t, &count, &bytes), PATC_OK);
    ck_assert_int_eq(t, PATC_F32);
    ck_assert_int_eq(count, 1000);
    ck_assert_uint_eq(bytes, 4000);
    ck_assert_str_eq(patc_type_name(t), "f32");
    ck_assert_uint_eq(patc_type_size(PATC_F64), 8);
    ck_assert_int_eq(patc_kernel_output_info(k, &n, &t, &count, &bytes), PATC_OK);
    ck_assert_int_eq(count, 1000);
    ck_assert_int_eq(patc_kernel_input_info(k, 1, &n, &t, &count, &bytes), PATC_ERR_INVALID);
    patc_launch_config lc;
    ck_assert_int_eq(patc_kernel_launch_dims(k, &n, &lc), PATC_OK);
    ck_assert_uint_ge(lc.block[0], 1);
    ck_assert_uint_ge(lc.grid[0], 1);
#ifdef RT_STUBS
    ck_assert_uint_eq(lc.block[0], 256);
    ck_assert_uint_eq(lc.grid[0], 4);
    ck_assert_int_eq(lc.shared_bytes, 0);
#endif
    /* nats out of range are refused with a message naming the nat */
    long long neg = -1;
    ck_assert_int_eq(patc_kernel_output_info(k, &neg, &t, &count, &bytes), PATC_ERR_SIZE);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "n = -1"));
    /* sizes past 2^31 are fine; a byte count past 2^63 is not */
    long long huge = 1LL << 40;
    ck_assert_int_eq(patc_kernel_output_info(k, &huge, &t, &count, &bytes), PATC_OK);
    ck_assert_int_eq(count, 1LL << 40);
    ck_assert_uint_eq(bytes, (size_t)4 << 40);
    huge = 1LL << 62;
    ck_assert_int_eq(patc_kernel_output_info(k, &huge, &t, &count, &bytes), PATC_ERR_SIZE);
    ck_assert_msg(strstr(patc_last_error(c), "bytes"), "%s", patc_last_error(c));
    ck_assert_int_eq(patc_kernel_output_info(k, NULL, &t, &count, &bytes), PATC_ERR_INVALID);
    /* an unknown kernel lists the ones there are */
    ck_assert_int_eq(patc_get_kernel(p, "nope", &k), PATC_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "scale"));
    patc_destroy(c); /* frees the program too */
}
END_TEST

START_TEST(bad_program_reports_diagnostics)
{
    patc_ctx *c;
    patc_program *p = (patc_program *)1;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    ck_assert_int_eq(patc_program_from_string(c, "bad.rise", BAD, NULL, 0, &p), PATC_ERR_COMPILE);
    ck_assert_ptr_null(p);
    const char *m = patc_last_error(c);
    ck_assert_msg(strstr(m, "bad.rise:") && strstr(m, "error"), "message: %s", m);
    ck_assert_int_eq(patc_program_from_file(c, "/nonexistent/x.rise", NULL, 0, &p), PATC_ERR_IO);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "/nonexistent/x.rise"));
    ck_assert_int_eq(patc_program_from_string(c, "x", NULL, NULL, 0, &p), PATC_ERR_INVALID);
    patc_destroy(c);
}
END_TEST

static char *write_tmp(const char *dir, const char *name, const char *text)
{
    static char path[2][400];
    static int which;
    char *p = path[which++ % 2];
    snprintf(p, 400, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return p;
}

START_TEST(program_from_file_and_edited_cuda)
{
    patc_ctx *c;
    patc_program *p;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    char rise[400];
    snprintf(rise, sizeof rise, "%s", write_tmp(cachedir, "scale.rise", SCALE));
    ck_assert_msg(patc_program_from_file(c, rise, NULL, 0, &p) == PATC_OK, "%s", patc_last_error(c));
    /* edit the generated CUDA: add a comment and a helper; metadata still from .rise */
    size_t n = strlen(patc_program_cuda(p));
    char *edited = malloc(n + 100);
    sprintf(edited, "// edited by hand\n__device__ float twice(float x) { return 2 * x; }\n%s", patc_program_cuda(p));
    patc_program_free(p);
    char *cu = write_tmp(cachedir, "scale.cu", edited);
    patc_compile_options o = {.cuda_file = cu};
    ck_assert_msg(patc_program_compile(c, rise, NULL, 0, &o, &p) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_str_eq(patc_program_cuda(p), edited);
    patc_kernel *k;
    ck_assert_int_eq(patc_get_kernel(p, "scale", &k), PATC_OK);
    patc_program_free(p);
    /* the text itself */
    ck_assert_int_eq(patc_program_from_cuda(c, rise, edited, NULL, 0, &p), PATC_OK);
    patc_program_free(p);
    /* broken CUDA: the NVRTC log comes back */
    ck_assert_int_eq(patc_program_from_cuda(c, rise, "this is not CUDA;\n", NULL, 0, &p), PATC_ERR_NVRTC);
    ck_assert_msg(strstr(patc_last_error(c), "error"), "log: %s", patc_last_error(c));
    o.cuda_file = "/nonexistent.cu";
    ck_assert_int_eq(patc_program_compile(c, rise, NULL, 0, &o, &p), PATC_ERR_IO);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "/nonexistent.cu"));
    o.cuda = edited;
    ck_assert_int_eq(patc_program_compile(c, rise, NULL, 0, &o, &p), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "not both"));
    free(edited);
    patc_destroy(c);
}
END_TEST

/* Hand-edited CUDA C is text or a file by the call, never by its look: a one-line text
 * is compiled, not opened (it was taken for a path: "cannot read extern "C" ..."), and
 * a path given as the text is CUDA that NVRTC rejects. */
START_TEST(one_line_cuda_is_text)
{
    patc_ctx *c;
    patc_program *p = NULL;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    char rise[400];
    snprintf(rise, sizeof rise, "%s", write_tmp(cachedir, "scale.rise", SCALE));
    const char *one_line = "extern \"C\" __global__ void scale(float *out) { out[0] = undeclared_name; }";
    ck_assert_int_eq(patc_program_from_cuda(c, rise, one_line, NULL, 0, &p), PATC_ERR_NVRTC);
    ck_assert_msg(strstr(patc_last_error(c), "undeclared_name"), "%s", patc_last_error(c));
    ck_assert_int_eq(patc_program_from_cuda(c, rise, "/tmp/edited.cu", NULL, 0, &p), PATC_ERR_NVRTC);
    ck_assert_ptr_null(p);
    patc_destroy(c);
}
END_TEST

/* NVRTC's messages about hand-edited CUDA C name the text "<cuda text>" and a file by
 * its path, at the line of the error in it. scale.rise's kernel is sized at launch, so
 * its 32-bit build has PATC_INDEX32 defined ahead of the text: that shifted every line
 * by one, and the messages named the .rise file. */
START_TEST(edited_cuda_errors_name_the_cuda_and_its_line)
{
    patc_ctx *c;
    patc_program *p = NULL;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    char rise[400];
    snprintf(rise, sizeof rise, "%s", write_tmp(cachedir, "scale.rise", SCALE));
    const char *third = "// line 1\n// line 2\nextern \"C\" __global__ void scale(float *out) { out[0] = oops; }\n";
    ck_assert_int_eq(patc_program_from_cuda(c, rise, third, NULL, 0, &p), PATC_ERR_NVRTC);
    ck_assert_msg(strstr(patc_last_error(c), "<cuda text>(3): error: identifier \"oops\" is undefined"), "%s",
                  patc_last_error(c));
    ck_assert_msg(!strstr(patc_last_error(c), "scale.rise"), "%s", patc_last_error(c));
    char *cu = write_tmp(cachedir, "third.cu", third);
    patc_compile_options o = {.cuda_file = cu};
    ck_assert_int_eq(patc_program_compile(c, rise, NULL, 0, &o, &p), PATC_ERR_NVRTC);
    char want[500];
    snprintf(want, sizeof want, "%s(3): error: identifier \"oops\" is undefined", cu);
    ck_assert_msg(strstr(patc_last_error(c), want), "no '%s' in %s", want, patc_last_error(c));
    ck_assert_ptr_null(p);
    patc_destroy(c);
}
END_TEST

/* patc's own patterns need no file on disk: from a directory that holds none, with no
 * -I, `import "scan.rise"` finds the copy built into libpatrt (this test program has
 * no share/patc/patterns beside it), for a plain compile and for a tuned scan; a
 * diagnostic inside it names "<patc>/patterns/scan.rise" and shows the real line. */
START_TEST(builtin_patterns_without_files)
{
    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(cachedir), 0);
    write_tmp(".", "sum.rise",
              "import \"scan.rise\"\n"
              "kernel inclSum = nFun((n, nt, ipt) => fun(n.f32)(xs => xs |> scanDevice(n, add, 0.0f, nt, ipt)))\n");
    write_tmp(".", "bad.rise",
              "import \"scan.rise\"\n"
              "kernel k = nFun(n => fun(n.f32)(xs => xs |> scanDevice(n, add, 0.0f, 100, 25)))\n");
    patc_ctx *c;
    patc_program *p;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    patc_compile_options o = {.no_cubin = 1};
    patc_define d[] = {{"nt", 128}, {"ipt", 25}};
    ck_assert_msg(patc_program_compile(c, "sum.rise", d, 2, &o, &p) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_str_eq(patc_program_kernel_name(p, 0), "inclSum");
    patc_program_free(p);
    patc_scan *sc = NULL;
    ck_assert_msg(patc_scan_create(c, "sum.rise", "inclSum", NULL, &sc) == PATC_OK, "%s", patc_last_error(c));
    patc_scan_free(sc);

    ck_assert_int_eq(patc_program_compile(c, "bad.rise", NULL, 0, &o, &p), PATC_ERR_COMPILE);
    const char *m = patc_last_error(c), *at = "<patc>/patterns/scan.rise:";
    ck_assert_msg(!strncmp(m, at, strlen(at)) && strstr(m, ": error: split(32)"), "%s", m);
    int line = atoi(m + strlen(at));
    FILE *f = fopen(PATC_EXAMPLES_DIR "/../patterns/scan.rise", "r");
    ck_assert_ptr_nonnull(f);
    char text[512] = "", want[600];
    for (int i = 0; i < line && fgets(text, sizeof text, f); i++) {}
    fclose(f);
    snprintf(want, sizeof want, "\n%5d | %s", line, text); /* the caret line's source line */
    ck_assert_msg(line > 0 && strstr(m, want), "line %d (%s) not shown in: %s", line, text, m);
    patc_destroy(c);
    ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

START_TEST(device_calls_without_device_fail_cleanly)
{
    patc_ctx *c;
    patc_program *p;
    patc_kernel *k;
    patc_buffer *b = (patc_buffer *)1;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(c, 1024, &b), PATC_ERR_NO_DRIVER);
    ck_assert_ptr_null(b);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "PATC_COMPILE_ONLY"));
    ck_assert_int_eq(patc_program_from_string(c, "scale.rise", SCALE, NULL, 0, &p), PATC_OK);
    ck_assert_int_eq(patc_get_kernel(p, "scale", &k), PATC_OK);
    long long n = 16;
    float ms;
    ck_assert_int_eq(patc_launch(k, &n, NULL, NULL, NULL), PATC_ERR_NO_DRIVER);
    ck_assert_int_eq(patc_time_launch(k, &n, NULL, NULL, NULL, 1, 3, &ms), PATC_ERR_NO_DRIVER);
    float r;
    ck_assert_int_eq(patc_reduce_to_one(k, &n, NULL, 16, &r, NULL), PATC_ERR_NO_DRIVER);
    /* NULL handles are refused, never dereferenced */
    ck_assert_int_eq(patc_buffer_upload(NULL, &r, 4), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_buffer_download(NULL, &r, 4), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_launch(NULL, &n, NULL, NULL, NULL), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_get_kernel(NULL, "scale", &k), PATC_ERR_INVALID);
    patc_buffer_free(NULL);
    patc_program_free(NULL);
    ck_assert_str_eq(patc_last_error(NULL), "");
    patc_destroy(c);
    /* and the same through a real attempt to load the driver */
    ck_assert_int_eq(patc_create(&c, 0, 0), PATC_OK);
    if (patc_device_status(c) != PATC_OK) {
        ck_assert_int_eq(patc_program_from_string(c, "scale.rise", SCALE, NULL, 0, &p), PATC_OK);
        ck_assert_int_eq(patc_get_kernel(p, "scale", &k), PATC_OK);
        patc_status s = patc_launch(k, &n, NULL, NULL, NULL);
        ck_assert(s == PATC_ERR_NO_DRIVER || s == PATC_ERR_NO_DEVICE);
        ck_assert_msg(strstr(patc_last_error(c), "libcuda.so.1") || strstr(patc_last_error(c), "device"), "%s",
                      patc_last_error(c));
        ck_assert_int_ne(patc_buffer_alloc(c, 4, &b), PATC_OK);
    }
    patc_destroy(c);
}
END_TEST

/* The tuning file and the reducer's checks need no device: a malformed line is
 * reported with its line number, a kernel of the wrong shape is refused, and a size
 * the file does not cover falls back to the documented default. */
static char *write_conf(const char *text)
{
    static char path[64];
    strcpy(path, "/tmp/patc-tuneconf-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* The index width of a launch: a kernel sized at launch is 32-bit while its indices stay
 * below 2^31 and 64-bit past that; one fixed by -D has one width. No device needed. */
START_TEST(index_bits_by_size)
{
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    patc_program *p;
    patc_kernel *k;
    ck_assert_int_eq(patc_program_from_string(c, "scale.rise", SCALE, NULL, 0, &p), PATC_OK);
    ck_assert_int_eq(patc_get_kernel(p, "scale", &k), PATC_OK);
    const long long n1 = 1000, n2 = (1LL << 31) - 1024, n3 = (1LL << 31) - 1, n4 = (1LL << 32) + 7, n0 = 0;
    ck_assert_int_eq(patc_kernel_index_bits(k, &n1), 32);
    ck_assert_int_eq(patc_kernel_index_bits(k, &n2), 32);
    ck_assert_int_eq(patc_kernel_index_bits(k, &n3), 64); /* the grid's threads pass 2^31 */
    ck_assert_int_eq(patc_kernel_index_bits(k, &n4), 64);
    ck_assert_int_eq(patc_kernel_index_bits(k, &n0), 0);  /* nat parameters are >= 1 */
    long long count;
    ck_assert_int_eq(patc_kernel_output_info(k, &n4, NULL, &count, NULL), PATC_OK);
    ck_assert_int_eq(count, n4);
    patc_program_free(p);
    patc_define d = {"n", (1LL << 32) + 7};
    ck_assert_int_eq(patc_program_from_string(c, "scale.rise", SCALE, &d, 1, &p), PATC_OK);
    ck_assert_int_eq(patc_get_kernel(p, "scale", &k), PATC_OK);
    ck_assert_int_eq(patc_kernel_index_bits(k, NULL), 64);
    ck_assert_msg(strstr(patc_program_cuda(p), "const long long g0 = (long long)blockIdx.x"), "%s", patc_program_cuda(p));
    patc_program_free(p);
    /* the single-launch reduction the benchmark runs: 32-bit at 2^28 with its grid */
    patc_define rd[] = {{"elemsBlock", 4096}, {"elemsWarp", 512}};
    ck_assert_int_eq(patc_program_from_file(c, PATC_EXAMPLES_DIR "/reduce_fast.rise", rd, 2, &p), PATC_OK);
    ck_assert_int_eq(patc_get_kernel(p, "reduceSumF32", &k), PATC_OK);
    long long v[2] = {1LL << 28, 528};
    ck_assert_int_eq(patc_kernel_index_bits(k, v), 32);
    v[0] = (1LL << 32) + 7;
    ck_assert_int_eq(patc_kernel_index_bits(k, v), 64);
    patc_program_free(p);
    /* sizes past 2^63 are an error in the program, not an abort of the host process */
    const char *huge = "kernel k = nFun(n => fun(65536.65536.65536.65536.f32)(xs => xs |> join |> join |> join "
                       "|> mapGlobal(fun(x => x))))";
    ck_assert_int_eq(patc_program_from_string(c, "huge.rise", huge, NULL, 0, &p), PATC_ERR_COMPILE);
    ck_assert_msg(strstr(patc_last_error(c), "huge.rise:1:") && strstr(patc_last_error(c), "overflows 63 bits"), "%s",
                  patc_last_error(c));
    patc_define big = {"n", 1LL << 62};
    const char *four = "kernel k = nFun(n => fun(n.f32)(xs => xs |> padCst(n)(n)(0.0f) |> padCst(n)(n)(0.0f) "
                       "|> mapGlobal(fun(x => x))))";
    ck_assert_int_eq(patc_program_from_string(c, "four.rise", four, &big, 1, &p), PATC_ERR_COMPILE);
    ck_assert_msg(strstr(patc_last_error(c), "overflows 63 bits"), "%s", patc_last_error(c));
    patc_destroy(c);
}
END_TEST

/* issue 34 item 2: the pipe kernels as bench/pipe_ab_bench.cu compiles them are 32-bit
 * at n = 2^28. partitionStablePipe's indices spelt out tiles - 1 - t and m + (t * TILE +
 * ... - off), which width.c bounded by 5n + ...: 64-bit from n = 2^28 / 5 * 2 on (1.22x
 * the template's time at 2^28 on an H200); with its lets about 2n, as the others. */
START_TEST(pipe_index_bits)
{
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    const patc_define shape[] = {{"w", 16}, {"ipt", 12}, {"s", 9}}, g = {"g", 264};
    const struct { const char *file, *kernel; const patc_define *defs; int ndefs; } ks[] = {
        {"scan_pipe.rise", "inclSumF32", shape, 3},      {"scan_pipe.rise", "exclSumI32", shape, 3},
        {"filter_pipe.rise", "filterGtF32", NULL, 0},    {"partition_pipe.rise", "partitionGtF32", NULL, 0},
        {"partition_pipe.rise", "partitionStableGtF32", &g, 1},
    };
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", PATC_EXAMPLES_DIR, ks[i].file);
        patc_program *p;
        patc_kernel *k;
        /* no cubin: the width is decided with the CUDA C (NVRTC took 16 s of these five) */
        const patc_compile_options o = {.no_cubin = 1};
        ck_assert_msg(patc_program_compile(c, path, ks[i].defs, ks[i].ndefs, &o, &p) == PATC_OK, "%s", patc_last_error(c));
        ck_assert_int_eq(patc_get_kernel(p, ks[i].kernel, &k), PATC_OK);
        const long long n28 = 1LL << 28, n6 = 600000000, big = (1LL << 31) - 1;
        ck_assert_msg(patc_kernel_index_bits(k, &n28) == 32, "%s at 2^28", ks[i].kernel);
        ck_assert_msg(patc_kernel_index_bits(k, &n6) == 32, "%s at 6e8", ks[i].kernel);
        ck_assert_msg(patc_kernel_index_bits(k, &big) == 64, "%s at 2^31 - 1", ks[i].kernel);
        patc_program_free(p);
    }
    patc_destroy(c);
}
END_TEST

START_TEST(reducer_settings_without_device)
{
    patc_ctx *c;
    patc_reducer *r = NULL;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    const char *rf = PATC_EXAMPLES_DIR "/reduce_fast.rise";
    char *bad = write_conf("# ok\nreduceSumF32 1 100 2 elemsBlock=1024 elemsWarp=128\nreduceSumF32 x 5 1\n");
    ck_assert_int_eq(patc_reducer_create(c, rf, "reduceSumF32", bad, &r), PATC_ERR_INVALID);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(patc_last_error(c), ":3: malformed tuning line"), "%s", patc_last_error(c));
    unlink(bad);
    char *good = write_conf("reduceSumF32 1 100 2 elemsBlock=1024 elemsWarp=128 # first\n");
    ck_assert_msg(patc_reducer_create(c, rf, "reduceSumF32", good, &r) == PATC_OK, "%s", patc_last_error(c));
    char d[200];
    ck_assert_int_eq(patc_reducer_describe(r, 100, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "elemsBlock=1024 elemsWarp=128 blocks_per_sm=2 grid=1");
    ck_assert_int_eq(patc_reducer_describe(r, 101, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "elemsBlock=4096 elemsWarp=512 blocks_per_sm=4 grid=1 (default setting)");
    int out;
    ck_assert_int_eq(patc_reducer_run(r, NULL, 0, &out), PATC_ERR_INVALID);
    patc_reducer_free(r);
    /* a multi-pass kernel has no nats for the settings: refused when it is compiled */
    ck_assert_int_eq(patc_reducer_create(c, PATC_EXAMPLES_DIR "/reduce_block_shfl.rise", "reduceShfl_1024_256", good, &r),
                     PATC_ERR_COMPILE);
    ck_assert_msg(strstr(patc_last_error(c), "elemsBlock"), "%s", patc_last_error(c));
    unlink(good); /* write_conf reuses its path buffer */
    /* right nats, wrong shape: fixing n as well leaves the input without a length nat */
    char *fixed = write_conf("reduceMaxF32 1 2147483647 1 elemsBlock=1024 elemsWarp=128 n=4096\n");
    ck_assert_int_eq(patc_reducer_create(c, rf, "reduceMaxF32", fixed, &r), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(c), "not a tunable reduction"), "%s", patc_last_error(c));
    unlink(fixed);
    /* kernel=OTHER: another kernel of the file for a size range; a fixed grid is allowed */
    char *alt = write_conf("reduceSumF32 1 5000 1 kernel=reduceSumF32OneBlock elemsBlock=1024 elemsWarp=128\n"
                           "reduceSumF32 5001 9000 2 kernel=nope elemsBlock=1024 elemsWarp=128\n"
                           "reduceSumF32 9001 20000 1 elemsBlock=1024 elemsWarp=128 g=3\n");
    ck_assert_msg(patc_reducer_create(c, rf, "reduceSumF32", alt, &r) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_int_eq(patc_reducer_describe(r, 4000, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "kernel=reduceSumF32OneBlock elemsBlock=1024 elemsWarp=128 blocks_per_sm=1 grid=fixed 1");
    ck_assert_int_eq(patc_reducer_describe(r, 6000, d, sizeof d), PATC_ERR_NOT_FOUND);
    ck_assert_msg(strstr(patc_last_error(c), "nope"), "%s", patc_last_error(c));
    ck_assert_int_eq(patc_reducer_describe(r, 10000, d, sizeof d), PATC_OK); /* g fixed: lastBlock over 3 blocks */
    ck_assert_str_eq(d, "elemsBlock=1024 elemsWarp=128 g=3 blocks_per_sm=1 grid=fixed 3");
    ck_assert_int_eq(patc_reducer_enqueue(r, NULL, 10, NULL), PATC_ERR_INVALID);
    patc_reducer_free(r);
    unlink(alt);
    char *twice = write_conf("reduceSumF32 1 5 1 kernel=a kernel=b elemsBlock=1024\n");
    ck_assert_int_eq(patc_reducer_create(c, rf, "reduceSumF32", twice, &r), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(c), ":1: malformed tuning line"), "%s", patc_last_error(c));
    unlink(twice);
    patc_destroy(c);
}
END_TEST

/* A scan's tuning line may say evict_first (a word): the variant is compiled with that
 * option, which patc_scan_describe names; the option itself makes a look-back kernel's
 * input loads and output stores __ldcs/__stcs (patc_program_cuda), and without it they
 * are plain. Twice on one line is malformed. */
START_TEST(scan_settings_evict_first)
{
    patc_ctx *c;
    patc_scan *s = NULL;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    const char *sf = PATC_EXAMPLES_DIR "/scan_device.rise";
    char *conf = write_conf("inclSumF32 1 1000 1 nt=128 ipt=25\n"
                            "inclSumF32 1001 2147483647 4 evict_first nt=512 ipt=25 # a comment\n");
    ck_assert_msg(patc_scan_create(c, sf, "inclSumF32", conf, &s) == PATC_OK, "%s", patc_last_error(c));
    char d[200];
    ck_assert_int_eq(patc_scan_describe(s, 1000, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "nt=128 ipt=25 grid=1");
    ck_assert_int_eq(patc_scan_describe(s, 1 << 20, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "nt=512 ipt=25 min_blocks=4 evict_first grid=82");
    patc_scan_free(s);
    unlink(conf);
    conf = write_conf("inclSumF32 1 5 1 evict_first evict_first nt=128 ipt=25\n");
    ck_assert_int_eq(patc_scan_create(c, sf, "inclSumF32", conf, &s), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(c), ":1: malformed tuning line"), "%s", patc_last_error(c));
    unlink(conf);
    patc_define shape[2] = {{"nt", 128}, {"ipt", 25}};
    for (int ef = 0; ef < 2; ef++) {
        patc_compile_options o = {.kernel = "inclSumF32", .no_cubin = 1, .evict_first = ef};
        patc_program *p;
        ck_assert_msg(patc_program_compile(c, sf, shape, 2, &o, &p) == PATC_OK, "%s", patc_last_error(c));
        const char *cu = patc_program_cuda(p);
        ck_assert_msg((strstr(cu, "__ldcs(&xs[") != NULL) == ef && (strstr(cu, "__stcs(&out[") != NULL) == ef, "%s", cu);
        patc_program_free(p);
    }
    patc_destroy(c);
}
END_TEST

/* kernel=FILE:OTHER runs a kernel of another file, relative to the program's directory:
 * here scanPipe's inclusive sum from 1001 on. Without a device the grid is the rule's,
 * a block per tile of 6144 (a device caps it at its SM count). "FILE:" without a kernel
 * fails when the line is first used (patc_scan_create uses the line for n = 1). */
START_TEST(scan_settings_other_file)
{
    patc_ctx *c;
    patc_scan *s = NULL;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    const char *sf = PATC_EXAMPLES_DIR "/scan_device.rise";
    char *conf = write_conf("inclSumF32 1 1000 1 nt=128 ipt=25\n"
                            "inclSumF32 1001 2147483647 1 kernel=scan_pipe.rise:inclSumF32 w=16 ipt=12 s=9\n");
    ck_assert_msg(patc_scan_create(c, sf, "inclSumF32", conf, &s) == PATC_OK, "%s", patc_last_error(c));
    char d[200];
    ck_assert_int_eq(patc_scan_describe(s, 1000, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "nt=128 ipt=25 grid=1");
    ck_assert_msg(patc_scan_describe(s, 1 << 20, d, sizeof d) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_str_eq(d, "kernel=scan_pipe.rise:inclSumF32 w=16 ipt=12 s=9 grid=171");
    patc_scan_free(s);
    unlink(conf);
    conf = write_conf("inclSumF32 1 5 1 kernel=scan_pipe.rise: w=16 ipt=12 s=9\n");
    ck_assert_int_eq(patc_scan_create(c, sf, "inclSumF32", conf, &s), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(c), "give FILE:KERNEL"), "%s", patc_last_error(c));
    unlink(conf);
    patc_destroy(c);
}
END_TEST

/* patc_tuning_lookup gives the line patc_scan would use (the first naming the kernel
 * whose range holds n), every field of it, found = 0 for a size or kernel without one,
 * and fails on an unreadable file or a malformed line anywhere, naming FILE:LINE. */
START_TEST(tuning_lookup)
{
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    char *conf = write_conf("# a comment line\n"
                            "filterGtF32 1 600000 1 nt=128 ipt=16\n"
                            "filterGtF32 600001 2097152 4 evict_first nt=256 ipt=32 # the range of 2^20\n"
                            "filterGtF32 1000 2000000 1 nt=64 ipt=8\n"
                            "reduceSumF32 1 50 2 kernel=reduceSumF32OneBlock elemsBlock=1024 elemsWarp=128 g=3\n");
    patc_tuning_line t;
    int found = -1;
    memset(&t, 0x55, sizeof t);
    ck_assert_msg(patc_tuning_lookup(c, conf, "filterGtF32", 1048576, &t, &found) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_int_eq(found, 1);
    ck_assert_str_eq(t.kernel, "filterGtF32");
    ck_assert_str_eq(t.use, "");
    ck_assert_int_eq(t.n_min, 600001);
    ck_assert_int_eq(t.n_max, 2097152);
    ck_assert_int_eq(t.blocks_per_sm, 4);
    ck_assert_int_eq(t.evict_first, 1);
    ck_assert_int_eq(t.ndefs, 2);
    ck_assert_str_eq(t.names[0], "nt");
    ck_assert_int_eq(t.values[0], 256);
    ck_assert_str_eq(t.names[1], "ipt");
    ck_assert_int_eq(t.values[1], 32);
    /* the range's ends, and the first of two overlapping lines */
    ck_assert_int_eq(patc_tuning_lookup(c, conf, "filterGtF32", 600000, &t, &found), PATC_OK);
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(t.values[0], 128);
    ck_assert_int_eq(t.evict_first, 0);
    ck_assert_int_eq(patc_tuning_lookup(c, conf, "filterGtF32", 2097152, &t, &found), PATC_OK);
    ck_assert_int_eq(t.values[0], 256);
    ck_assert_int_eq(patc_tuning_lookup(c, conf, "reduceSumF32", 50, &t, &found), PATC_OK);
    ck_assert_int_eq(found, 1);
    ck_assert_str_eq(t.use, "reduceSumF32OneBlock");
    ck_assert_int_eq(t.blocks_per_sm, 2);
    ck_assert_int_eq(t.ndefs, 3);
    ck_assert_str_eq(t.names[2], "g");
    ck_assert_int_eq(t.values[2], 3);
    /* no line: found = 0 and *out untouched */
    memset(&t, 0x55, sizeof t);
    ck_assert_int_eq(patc_tuning_lookup(c, conf, "filterGtF32", 2097153, &t, &found), PATC_OK);
    ck_assert_int_eq(found, 0);
    ck_assert_int_eq((unsigned char)t.kernel[0], 0x55);
    ck_assert_int_eq(patc_tuning_lookup(c, conf, "partitionGtF32", 1000, &t, &found), PATC_OK);
    ck_assert_int_eq(found, 0);
    unlink(conf);
    /* failures */
    ck_assert_int_eq(patc_tuning_lookup(c, conf, "filterGtF32", 1000, &t, &found), PATC_ERR_IO);
    ck_assert_msg(strstr(patc_last_error(c), "cannot read tuning file"), "%s", patc_last_error(c));
    /* only a regular file is read: /dev/zero never ends, a FIFO without a writer would
     * block, a directory reads as nothing; each is refused at once (alarm fails a hang),
     * the message naming the file and its kind */
    alarm(60);
    char tdir[] = "/tmp/patc-fifo-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tdir));
    char fifo[64], sock[64], loop[64];
    snprintf(fifo, sizeof fifo, "%s/f", tdir);
    snprintf(sock, sizeof sock, "%s/s", tdir);
    snprintf(loop, sizeof loop, "%s/l", tdir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(symlink("l", loop), 0);
    int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
    ck_assert_int_eq(bind(sfd, (struct sockaddr *)&sa, sizeof sa), 0);
    static const struct { const char *path, *why; } special[] = {
        {"/dev/zero", "a character device, not a regular file"},
        {"/tmp", "a directory, not a regular file"},
        {NULL, "a FIFO, not a regular file"},
        {NULL, "a socket, not a regular file"},
        {NULL, "Too many levels of symbolic links"},
    };
    for (int i = 0; i < 5; i++) {
        const char *path = i < 2 ? special[i].path : i == 2 ? fifo : i == 3 ? sock : loop;
        ck_assert_int_eq(patc_tuning_lookup(c, path, "filterGtF32", 1000, &t, &found), PATC_ERR_IO);
        ck_assert_msg(strstr(patc_last_error(c), special[i].why) && strstr(patc_last_error(c), path), "%s",
                      patc_last_error(c));
    }
    close(sfd);
    unlink(fifo);
    unlink(sock);
    unlink(loop);
    rmdir(tdir);
    alarm(0);
    conf = write_conf("filterGtF32 1 600000 1 nt=128 ipt=16\n"
                      "partitionGtF32 5 1 1 nt=128\n");
    found = -1;
    ck_assert_int_eq(patc_tuning_lookup(c, conf, "filterGtF32", 1000, &t, &found), PATC_ERR_INVALID);
    ck_assert_int_eq(found, 0);
    ck_assert_msg(strstr(patc_last_error(c), ":2: malformed tuning line"), "%s", patc_last_error(c));
    unlink(conf);
    ck_assert_int_eq(patc_tuning_lookup(c, NULL, "filterGtF32", 1000, &t, &found), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_tuning_lookup(NULL, "x", "filterGtF32", 1000, &t, &found), PATC_ERR_INVALID);
    patc_destroy(c);
}
END_TEST

/* Shared memory sized at launch: up to sm_90's opt-in maximum (232448 bytes) the launch
 * configuration is derived; past it, PATC_ERR_LAUNCH_CONFIG names both byte counts
 * (without a device, sm_90's maximum is the one checked). */
START_TEST(shared_memory_checked_at_launch)
{
    patc_ctx *c;
    patc_program *p;
    patc_kernel *k;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    ck_assert_msg(patc_program_from_string(c, "big.rise", BIGSMEM, NULL, 0, &p) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_int_eq(patc_get_kernel(p, "bigsmem", &k), PATC_OK);
    ck_assert_msg(strstr(patc_program_cuda(p), "the runtime opts in above 48 KiB"), "%s", patc_program_cuda(p));
    patc_launch_config lc;
    long long nm[2] = {3, 50000};
    ck_assert_msg(patc_kernel_launch_dims(k, nm, &lc) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_int_eq(lc.shared_bytes, 200000);
    nm[1] = 232448 / 4;
    ck_assert_msg(patc_kernel_launch_dims(k, nm, &lc) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_int_eq(lc.shared_bytes, 232448);
    nm[1] = 232448 / 4 + 1;
    ck_assert_int_eq(patc_kernel_launch_dims(k, nm, &lc), PATC_ERR_LAUNCH_CONFIG);
    ck_assert_msg(strstr(patc_last_error(c), "kernel bigsmem: with these nat values it needs 232464 bytes of shared "
                                              "memory per block, more than the 232448 bytes a block can have"),
                  "%s", patc_last_error(c));
    ck_assert_int_eq(patc_kernel_index_bits(k, nm), 0); /* the same check */
    /* fixed by -D past the maximum, it is the compiler's error at the toShared */
    patc_define d = {"m", 60000};
    ck_assert_int_eq(patc_program_from_string(c, "big.rise", BIGSMEM, &d, 1, &p), PATC_ERR_COMPILE);
    ck_assert_msg(strstr(patc_last_error(c), "big.rise:3:43: error: shared memory over budget"), "%s", patc_last_error(c));
    patc_destroy(c);
}
END_TEST

/* Scalars by value and several outputs without a device: the queries, the argument
 * checks of patc_launch_args (made before the device is needed), the old entries'
 * errors naming the new ones, and the interpreter's results. */
START_TEST(scalars_and_outputs_without_device)
{
    patc_ctx *c;
    patc_program *p;
    patc_kernel *k, *m;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    ck_assert_msg(patc_program_from_string(c, "saxpy.rise", SAXPY, NULL, 0, &p) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_int_eq(patc_get_kernel(p, "saxpy", &k), PATC_OK);
    ck_assert_ptr_nonnull(strstr(patc_program_cuda(p), "saxpy(float *__restrict__ out, const float a, const float *"));
    ck_assert_int_eq(patc_kernel_num_inputs(k), 3);
    ck_assert_int_eq(patc_kernel_input_by_value(k, 0), 1);
    ck_assert_int_eq(patc_kernel_input_by_value(k, 1), 0);
    ck_assert_int_eq(patc_kernel_input_by_value(k, 3), -1);
    ck_assert_int_eq(patc_kernel_input_by_value(NULL, 0), -1);
    ck_assert_int_eq(patc_kernel_num_outputs(k), 1);
    long long n = 5, count;
    patc_type t;
    size_t bytes;
    ck_assert_int_eq(patc_kernel_input_info(k, 0, &n, &t, &count, &bytes), PATC_OK);
    ck_assert_int_eq(t, PATC_F32);
    ck_assert_int_eq(count, 1);
    ck_assert_uint_eq(bytes, 4);
    /* patc_launch cannot pass a value: it says what to call, before needing a device */
    ck_assert_int_eq(patc_launch(k, &n, NULL, NULL, NULL), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(c), "data parameter 0 (a) is a scalar passed by value") &&
                      strstr(patc_last_error(c), "patc_launch_args"), "%s", patc_last_error(c));
    float ms;
    ck_assert_int_eq(patc_time_launch(k, &n, NULL, NULL, NULL, 1, 3, &ms), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "patc_launch_args"));
    patc_buffer *fake = (patc_buffer *)1; /* never dereferenced: the shape is checked first */
    float a = 2.5f;
    patc_arg args[3] = {{fake, NULL}, {fake, NULL}, {fake, NULL}};
    patc_buffer *outs[1] = {fake};
    ck_assert_int_eq(patc_launch_args(k, &n, args, outs, NULL), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(c), "input 0 (a) is a scalar passed by value: give its value"), "%s",
                  patc_last_error(c));
    args[0].value = &a;
    args[1].buffer = NULL;
    ck_assert_int_eq(patc_launch_args(k, &n, args, outs, NULL), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(c), "input 1 (xs) is an array: give a buffer"), "%s", patc_last_error(c));
    ck_assert_int_eq(patc_launch_args(k, &n, NULL, outs, NULL), PATC_ERR_INVALID);
    args[1].buffer = fake;
    ck_assert_int_eq(patc_launch_args(k, &n, args, NULL, NULL), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_time_launch_args(k, &n, args, outs, NULL, 1, 0, &ms), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_launch_args(NULL, &n, args, outs, NULL), PATC_ERR_INVALID);
    /* well-formed, it needs the device */
    ck_assert_int_eq(patc_launch_args(k, &n, args, outs, NULL), PATC_ERR_NO_DRIVER);
    /* the interpreter takes the scalar as one element */
    float xs[5] = {1, 2, 3, 4, 5}, ys[5] = {10, 20, 30, 40, 50}, out[5];
    const void *in[3] = {&a, xs, ys};
    ck_assert_msg(patc_interp_run(k, &n, in, out) == PATC_OK, "%s", patc_last_error(c));
    for (int i = 0; i < 5; i++) ck_assert_float_eq(out[i], a * xs[i] + ys[i]);

    /* three outputs: by index; the single-output calls name the ones to use */
    ck_assert_msg(patc_program_from_string(c, "minmax.rise", MINMAX, NULL, 0, &p) == PATC_OK, "%s", patc_last_error(c));
    ck_assert_int_eq(patc_get_kernel(p, "minmax", &m), PATC_OK);
    ck_assert_ptr_nonnull(strstr(patc_program_cuda(p), "minmax(int *__restrict__ out0, int *__restrict__ out1, "
                                                         "int *__restrict__ out2, const int *__restrict__ xs"));
    ck_assert_int_eq(patc_kernel_num_outputs(m), 3);
    ck_assert_int_eq(patc_kernel_num_outputs(NULL), 0);
    long long mm = 3;
    for (int j = 0; j < 3; j++) {
        ck_assert_msg(patc_kernel_output_info_at(m, j, &mm, &t, &count, &bytes) == PATC_OK, "%s", patc_last_error(c));
        ck_assert_int_eq(t, PATC_I32);
        ck_assert_int_eq(count, 3);
        ck_assert_uint_eq(bytes, 12);
    }
    ck_assert_int_eq(patc_kernel_output_info_at(m, 3, &mm, &t, &count, &bytes), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "kernel minmax has no output 3 (it has 3)"));
    ck_assert_int_eq(patc_kernel_output_info_at(m, -1, &mm, &t, &count, &bytes), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_kernel_output_info(m, &mm, &t, &count, &bytes), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "kernel minmax has 3 outputs: use patc_kernel_output_info_at"));
    ck_assert_int_eq(patc_kernel_output_info_at(k, 0, &n, &t, &count, &bytes), PATC_OK); /* one output: index 0 */
    ck_assert_int_eq(count, 5);
    ck_assert_int_eq(patc_launch(m, &mm, &fake, fake, NULL), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(c), "kernel minmax has 3 outputs, patc_launch takes one: use patc_launch_args"),
                  "%s", patc_last_error(c));
    patc_arg marg[1] = {{fake, NULL}};
    patc_buffer *mouts[3] = {fake, NULL, fake};
    ck_assert_int_eq(patc_launch_args(m, &mm, marg, mouts, NULL), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "output 1 of 3 is NULL"));
    int xi[12] = {5, -3, 8, 0, 7, 7, 7, 7, -9, 100, 2, 1}, o[3][3];
    const void *min[1] = {xi};
    void *mo[3] = {o[0], o[1], o[2]};
    ck_assert_int_eq(patc_interp_run(m, &mm, min, o[0]), PATC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(patc_last_error(c), "use patc_interp_run_outputs"));
    ck_assert_msg(patc_interp_run_outputs(m, &mm, min, mo) == PATC_OK, "%s", patc_last_error(c));
    int want[3][3] = {{-3, 7, -9}, {8, 7, 100}, {10, 28, 94}};
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) ck_assert_int_eq(o[j][i], want[j][i]);
    mo[2] = NULL;
    ck_assert_int_eq(patc_interp_run_outputs(m, &mm, min, mo), PATC_ERR_INVALID);
    patc_destroy(c);
}
END_TEST

/* ---------------------------------------------------------------- on a GPU */

static patc_ctx *gctx;

static void gpu_setup(void)
{
    setup();
    ck_assert_int_eq(patc_create(&gctx, 0, 0), PATC_OK);
    ck_assert_msg(patc_device_status(gctx) == PATC_OK, "%s", patc_last_error(gctx));
}

static void gpu_teardown(void)
{
    patc_destroy(gctx);
    teardown();
}

START_TEST(gpu_scale_matches_cpu)
{
    patc_program *p;
    patc_kernel *k;
    ck_assert_msg(patc_program_from_string(gctx, "scale.rise", SCALE, NULL, 0, &p) == PATC_OK, "%s",
                  patc_last_error(gctx));
    ck_assert_int_eq(patc_get_kernel(p, "scale", &k), PATC_OK);
    enum { N = 100003 };
    static float in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = (float)(i % 1000) * 0.25f;
    patc_buffer *bi, *bo, *small;
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof in, &bi), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof out, &bo), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(bi, in, sizeof in), PATC_OK);
    long long n = N;
    ck_assert_msg(patc_launch(k, &n, &bi, bo, NULL) == PATC_OK, "%s", patc_last_error(gctx));
    ck_assert_int_eq(patc_buffer_download(bo, out, sizeof out), PATC_OK);
    for (int i = 0; i < N; i++) ck_assert_float_eq(out[i], 2 * in[i]);
    /* a grid override still computes the same (grid-stride loops) */
    patc_launch_config cfg = {{7, 0, 0}, {0, 0, 0}, 0};
    memset(out, 0, sizeof out);
    ck_assert_int_eq(patc_buffer_upload(bo, out, sizeof out), PATC_OK);
#ifdef RT_STUBS
    ck_assert_msg(patc_launch(k, &n, &bi, bo, &cfg) == PATC_OK, "%s", patc_last_error(gctx));
    ck_assert_int_eq(patc_buffer_download(bo, out, sizeof out), PATC_OK);
    for (int i = 0; i < N; i++) ck_assert_float_eq(out[i], 2 * in[i]);
#else
    (void)cfg;
#endif
    /* buffers too small are refused before launching */
    ck_assert_int_eq(patc_buffer_alloc(gctx, 16, &small), PATC_OK);
    ck_assert_int_eq(patc_launch(k, &n, &small, bo, NULL), PATC_ERR_SIZE);
    ck_assert_ptr_nonnull(strstr(patc_last_error(gctx), "input 0"));
    ck_assert_int_eq(patc_launch(k, &n, &bi, small, NULL), PATC_ERR_SIZE);
    ck_assert_int_eq(patc_buffer_upload(small, in, 17), PATC_ERR_SIZE);
    float ms = -1;
    ck_assert_int_eq(patc_time_launch(k, &n, &bi, bo, NULL, 2, 9, &ms), PATC_OK);
    ck_assert(ms > 0 && ms < 1000);
    fprintf(stderr, "scale n=%d: median %.4f ms\n", N, ms);
    patc_buffer_free(small);
    patc_buffer_free(bi);
    /* bo and p are left for patc_destroy to free */
}
END_TEST

/* saxpy with `a` by value, and three outputs from one launch, against the interpreter. */
START_TEST(gpu_scalars_and_outputs)
{
    patc_program *p;
    patc_kernel *k;
    ck_assert_msg(patc_program_from_string(gctx, "saxpy.rise", SAXPY, NULL, 0, &p) == PATC_OK, "%s",
                  patc_last_error(gctx));
    ck_assert_int_eq(patc_get_kernel(p, "saxpy", &k), PATC_OK);
    enum { N = 4097 };
    static float xs[N], ys[N], out[N];
    for (int i = 0; i < N; i++) {
        xs[i] = (float)(i % 97) * 0.5f;
        ys[i] = (float)(i % 13) - 6.0f;
    }
    patc_buffer *bx, *by, *bo;
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof xs, &bx), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof ys, &by), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof out, &bo), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(bx, xs, sizeof xs), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(by, ys, sizeof ys), PATC_OK);
    long long n = N;
    float a = -1.75f;
    patc_arg args[3] = {{NULL, &a}, {bx, NULL}, {by, NULL}};
    ck_assert_msg(patc_launch_args(k, &n, args, &bo, NULL) == PATC_OK, "%s", patc_last_error(gctx));
    a = 100.0f; /* the value was copied at the launch */
    ck_assert_int_eq(patc_buffer_download(bo, out, sizeof out), PATC_OK);
    for (int i = 0; i < N; i++) ck_assert_float_eq(out[i], -1.75f * xs[i] + ys[i]);
    float ms = -1;
    ck_assert_int_eq(patc_time_launch_args(k, &n, args, &bo, NULL, 1, 3, &ms), PATC_OK);
    ck_assert(ms > 0);

    patc_kernel *m;
    ck_assert_msg(patc_program_from_string(gctx, "minmax.rise", MINMAX, NULL, 0, &p) == PATC_OK, "%s",
                  patc_last_error(gctx));
    ck_assert_int_eq(patc_get_kernel(p, "minmax", &m), PATC_OK);
    enum { M = 1001 };
    static int xi[4 * M], got[3][M], want[3][M];
    for (int i = 0; i < 4 * M; i++) xi[i] = (i * 7919) % 1999 - 999;
    patc_buffer *bi, *bouts[3];
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof xi, &bi), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(bi, xi, sizeof xi), PATC_OK);
    for (int j = 0; j < 3; j++) ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof got[j], &bouts[j]), PATC_OK);
    long long mm = M;
    patc_arg marg[1] = {{bi, NULL}};
    ck_assert_msg(patc_launch_args(m, &mm, marg, bouts, NULL) == PATC_OK, "%s", patc_last_error(gctx));
    const void *hin[1] = {xi};
    void *hout[3] = {want[0], want[1], want[2]};
    ck_assert_int_eq(patc_interp_run_outputs(m, &mm, hin, hout), PATC_OK);
    for (int j = 0; j < 3; j++) {
        ck_assert_int_eq(patc_buffer_download(bouts[j], got[j], sizeof got[j]), PATC_OK);
        ck_assert_int_eq(memcmp(got[j], want[j], sizeof got[j]), 0);
    }
    /* an output too small is refused by index */
    patc_buffer *small;
    ck_assert_int_eq(patc_buffer_alloc(gctx, 16, &small), PATC_OK);
    bouts[2] = small;
    ck_assert_int_eq(patc_launch_args(m, &mm, marg, bouts, NULL), PATC_ERR_SIZE);
    ck_assert_ptr_nonnull(strstr(patc_last_error(gctx), "output 2"));
}
END_TEST

/* A kernel that reads its input with 16-byte vector loads (asVector) refuses a buffer
 * that does not start at a multiple of 16 bytes, with a message, instead of a
 * misaligned-address fault that would poison the context; at 16 bytes in, it runs. */
START_TEST(gpu_vector_input_alignment_checked)
{
    patc_program *p;
    patc_kernel *k;
    const char *src = "kernel sum4 = nFun(n => fun((4 * n).f32)(xs => xs |> asVector(4)"
                      " |> mapGlobal(fun(v => v |> reduceSeqUnroll(add)(0.0f)))))";
    ck_assert_msg(patc_program_from_string(gctx, "sum4.rise", src, NULL, 0, &p) == PATC_OK, "%s", patc_last_error(gctx));
    ck_assert_int_eq(patc_get_kernel(p, "sum4", &k), PATC_OK);
    enum { N = 1000 };
    static float xs[4 * N + 8], out[N];
    for (int i = 0; i < 4 * N + 8; i++) xs[i] = (float)(i % 10);
    patc_buffer *bx, *bo, *off4, *off16;
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof xs, &bx), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof out, &bo), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(bx, xs, sizeof xs), PATC_OK);
    unsigned long long base = patc_buffer_device_ptr(bx);
    ck_assert(base != 0 && base % 16 == 0);
    ck_assert_int_eq(patc_buffer_wrap(gctx, base + 4, 16 * N, &off4), PATC_OK);
    ck_assert_int_eq(patc_buffer_wrap(gctx, base + 16, 16 * N, &off16), PATC_OK);
    long long n = N;
    ck_assert_int_eq(patc_launch(k, &n, &off4, bo, NULL), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(gctx), "input 0 (xs) is read with 16-byte vector loads") != NULL, "%s",
                  patc_last_error(gctx));
    ck_assert_msg(patc_launch(k, &n, &off16, bo, NULL) == PATC_OK, "%s", patc_last_error(gctx));
    ck_assert_int_eq(patc_buffer_download(bo, out, sizeof out), PATC_OK);
    for (int i = 0; i < N; i++) {
        float want = xs[4 + 4 * i] + xs[5 + 4 * i] + xs[6 + 4 * i] + xs[7 + 4 * i];
        ck_assert_float_eq(out[i], want);
    }
    patc_buffer_free(off4);
    patc_buffer_free(off16);
    patc_buffer_free(bx);
    patc_buffer_free(bo);
}
END_TEST

/* patc_launch_args(_enqueue) keeps the last launch prepared and fires it again for the
 * same call: the kept launch must run the kernel each time (a poisoned output is
 * written again), a new scalar value or output buffer must make a new one, and so must
 * scratch buffers that another launch of the kernel has reallocated in between (here a
 * scan's look-back state, grown by a patc_launch at 2^20; the kept launch for n = 1000
 * held the freed one). */
START_TEST(gpu_enqueue_reuses_prepared_launch)
{
    patc_program *p;
    patc_kernel *k;
    ck_assert_msg(patc_program_from_string(gctx, "saxpy.rise", SAXPY, NULL, 0, &p) == PATC_OK, "%s",
                  patc_last_error(gctx));
    ck_assert_int_eq(patc_get_kernel(p, "saxpy", &k), PATC_OK);
    enum { N = 1000 };
    static float xs[N], ys[N], out[N], zero[N];
    for (int i = 0; i < N; i++) {
        xs[i] = (float)(i % 31);
        ys[i] = (float)(i % 7);
    }
    patc_buffer *bx, *by, *bo, *bo2;
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof xs, &bx), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof ys, &by), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof out, &bo), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof out, &bo2), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(bx, xs, sizeof xs), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(by, ys, sizeof ys), PATC_OK);
    long long n = N;
    float a = 2.0f;
    patc_arg args[3] = {{NULL, &a}, {bx, NULL}, {by, NULL}};
    for (int round = 0; round < 4; round++) {
        /* rounds 0 and 1: the same call (the second fires the kept launch); 2: another
         * value of a; 3: another output buffer */
        if (round == 2) a = -3.0f;
        patc_buffer *o = round == 3 ? bo2 : bo;
        ck_assert_int_eq(patc_buffer_upload(o, zero, sizeof zero), PATC_OK);
        ck_assert_msg(patc_launch_args_enqueue(k, &n, args, &o, NULL) == PATC_OK, "%s", patc_last_error(gctx));
        ck_assert_int_eq(patc_buffer_download(o, out, sizeof out), PATC_OK);
        for (int i = 0; i < N; i++) ck_assert_float_eq(out[i], a * xs[i] + ys[i]);
    }

    patc_kernel *scan;
    patc_define d[2] = {{"nt", 128}, {"ipt", 9}};
    ck_assert_msg(patc_program_from_file(gctx, PATC_EXAMPLES_DIR "/scan_device.rise", d, 2, &p) == PATC_OK, "%s",
                  patc_last_error(gctx));
    ck_assert_int_eq(patc_get_kernel(p, "exclSumI32", &scan), PATC_OK);
    enum { BIG = 1 << 20 };
    static int xi[BIG], got[BIG];
    for (int i = 0; i < BIG; i++) xi[i] = i % 5 - 2;
    patc_buffer *bi, *bs;
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof xi, &bi), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof got, &bs), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(bi, xi, sizeof xi), PATC_OK);
    long long small = N, big = BIG;
    patc_arg sarg[1] = {{bi, NULL}};
    for (int round = 0; round < 3; round++) {
        if (round == 1) /* the legacy entry prepares its own launch, growing the scratch */
            ck_assert_msg(patc_launch(scan, &big, &bi, bs, NULL) == PATC_OK, "%s", patc_last_error(gctx));
        ck_assert_msg(patc_launch_args_enqueue(scan, &small, sarg, &bs, NULL) == PATC_OK, "%s", patc_last_error(gctx));
        ck_assert_int_eq(patc_buffer_download(bs, got, sizeof(int) * N), PATC_OK);
        int sum = 0;
        for (int i = 0; i < N; i++) {
            ck_assert_int_eq(got[i], sum);
            sum += xi[i];
        }
    }
    patc_buffer_free(bx);
    patc_buffer_free(by);
    patc_buffer_free(bo);
    patc_buffer_free(bo2);
    patc_buffer_free(bi);
    patc_buffer_free(bs);
}
END_TEST

START_TEST(gpu_reduce_to_one)
{
    patc_program *p;
    patc_kernel *k;
#ifdef RT_STUBS
    ck_assert_int_eq(patc_program_from_string(gctx, "r.rise", SCALE, NULL, 0, &p), PATC_OK);
#else
    ck_assert_msg(patc_program_from_file(gctx, PATC_EXAMPLES_DIR "/reduce_device_naive.rise", NULL, 0, &p) == PATC_OK,
                  "%s", patc_last_error(gctx));
#endif
    ck_assert_int_eq(patc_get_kernel(p, "reduceNaive", &k), PATC_OK);
    static const long long sizes[] = {1, 2, 511, 512, 513, 100000, 1 << 22};
    enum { MAXN = 1 << 22 };
    static float in[MAXN];
    srand(7);
    for (int i = 0; i < MAXN; i++) in[i] = (float)(rand() % 17) - 8.0f; /* exact sums in float */
    patc_buffer *b;
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof in, &b), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(b, in, sizeof in), PATC_OK);
    long long nats[8] = {0};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        long long n = sizes[t];
        double want = 0;
        for (long long i = 0; i < n; i++) want += in[i];
        float got = NAN;
        int passes = -1;
        ck_assert_msg(patc_reduce_to_one(k, nats, b, n, &got, &passes) == PATC_OK, "%s", patc_last_error(gctx));
        ck_assert_msg(got == (float)want, "n=%lld: %f != %f", n, got, want);
        ck_assert_int_ge(passes, n > 1 ? 1 : 0);
    }
    float ms;
    ck_assert_int_eq(patc_time_reduce_to_one(k, nats, b, MAXN, 1, 5, &ms), PATC_OK);
    fprintf(stderr, "reduceNaive n=2^22: median %.4f ms for all passes\n", ms);
#ifdef RT_STUBS
    /* the stub kernel assumes its block size */
    patc_launch_config cfg = {{0, 0, 0}, {128, 0, 0}, 0};
    patc_buffer *o;
    long long n = 1024;
    ck_assert_int_eq(patc_buffer_alloc(gctx, 1024, &o), PATC_OK);
    ck_assert_int_eq(patc_launch(k, &n, &b, o, &cfg), PATC_ERR_LAUNCH_CONFIG);
    ck_assert_ptr_nonnull(strstr(patc_last_error(gctx), "assumes exactly 256x1x1"));
    cfg.block[0] = 256;
    ck_assert_int_eq(patc_launch(k, &n, &b, o, &cfg), PATC_OK);
    cfg.shared_bytes = 100; /* less than the kernel needs */
    ck_assert_int_eq(patc_launch(k, &n, &b, o, &cfg), PATC_ERR_LAUNCH_CONFIG);
#endif
}
END_TEST

/* The single-launch reduction through patc_reducer: ragged sizes, several settings
 * from a tuning file (one trip, many trips, the padded tail), and the same kernel run
 * again and again (its ticket must be left at zero for the next launch). */
START_TEST(gpu_reducer_single_launch)
{
    char conf[] = "/tmp/patc-tune-XXXXXX";
    int fd = mkstemp(conf);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("# test settings\n"
          "reduceSumI32 1 1000 1 elemsBlock=1024 elemsWarp=128\n"
          "reduceSumI32 1001 5000 1 kernel=reduceSumI32OneBlock elemsBlock=1024 elemsWarp=128\n"
          "reduceSumI32 5001 200000 2 elemsBlock=2048 elemsWarp=256 # comment\n"
          "reduceSumI32 200001 2147483647 3 elemsBlock=16384 elemsWarp=1024\n"
          "reduceMaxF32 1 3000 1 kernel=reduceMaxF32OneBlock elemsBlock=2048 elemsWarp=256\n"
          "reduceMaxF32 3001 2147483647 2 elemsBlock=4096 elemsWarp=512\n", f);
    fclose(f);
    patc_reducer *r, *rm;
    ck_assert_msg(patc_reducer_create(gctx, PATC_EXAMPLES_DIR "/reduce_fast.rise", "reduceSumI32", conf, &r) == PATC_OK,
                  "%s", patc_last_error(gctx));
    ck_assert_msg(patc_reducer_create(gctx, PATC_EXAMPLES_DIR "/reduce_fast.rise", "reduceMaxF32", conf, &rm) == PATC_OK,
                  "%s", patc_last_error(gctx));
    enum { MAXN = (1 << 22) + 7 };
    static int in[MAXN];
    static float fin[MAXN];
    srand(11);
    for (int i = 0; i < MAXN; i++) {
        in[i] = rand() % 201 - 100;
        fin[i] = (float)(rand() % 100000) * 0.01f - 500.0f;
    }
    patc_buffer *b, *fb, *ob;
    ck_assert_int_eq(patc_buffer_alloc(gctx, 4, &ob), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof in, &b), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(b, in, sizeof in), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof fin, &fb), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(fb, fin, sizeof fin), PATC_OK);
    static const long long sizes[] = {1, 3, 4, 5, 127, 1023, 1024, 1025, 4097, 5001, 100003, 262144, 1000003, MAXN};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        long long n = sizes[t], want = 0;
        float fwant = -INFINITY;
        for (long long i = 0; i < n; i++) {
            want += in[i];
            if (fin[i] > fwant) fwant = fin[i];
        }
        for (int rep = 0; rep < 3; rep++) {
            int got = 12345;
            float fgot = NAN;
            ck_assert_msg(patc_reducer_run(r, b, n, &got) == PATC_OK, "%s", patc_last_error(gctx));
            ck_assert_msg(got == want, "sum n=%lld rep %d: %d != %lld", n, rep, got, want);
            ck_assert_msg(patc_reducer_run(rm, fb, n, &fgot) == PATC_OK, "%s", patc_last_error(gctx));
            ck_assert_msg(fgot == fwant, "max n=%lld rep %d: %g != %g", n, rep, fgot, fwant);
            /* the same through patc_reducer_enqueue into a device buffer (planned once) */
            patc_status es = patc_reducer_enqueue(r, b, n, ob);
            if (n == 1) {
                ck_assert_int_eq(es, PATC_ERR_INVALID);
                continue;
            }
            ck_assert_msg(es == PATC_OK, "%s", patc_last_error(gctx));
            got = 12345;
            ck_assert_int_eq(patc_buffer_download(ob, &got, 4), PATC_OK);
            ck_assert_msg(got == want, "enqueued sum n=%lld rep %d: %d != %lld", n, rep, got, want);
        }
        char d[200];
        ck_assert_int_eq(patc_reducer_describe(r, n, d, sizeof d), PATC_OK);
        fprintf(stderr, "reducer n=%lld: %s\n", n, d);
    }
    float ms, each[9];
    ck_assert_int_eq(patc_reducer_time(r, b, MAXN, 2, 9, &ms, each), PATC_OK);
    ck_assert(ms > 0 && each[0] > 0);
    int got = 0;
    long long want = 0;
    for (long long i = 0; i < MAXN; i++) want += in[i];
    ck_assert_int_eq(patc_reducer_run(r, b, MAXN, &got), PATC_OK); /* after the timed runs */
    ck_assert_int_eq(got, want);
    patc_reducer_free(r);
    patc_reducer_free(rm);
    patc_buffer_free(ob);
    unlink(conf);
}
END_TEST

/* A kernel with more than 48 KiB of shared memory runs (the runtime opts in) and
 * computes what it should; past the device's opt-in maximum, from the nat values or an
 * override, the launch is refused before the driver sees it. */
START_TEST(gpu_large_shared_memory)
{
    patc_program *p;
    patc_kernel *k;
    ck_assert_msg(patc_program_from_string(gctx, "big.rise", BIGSMEM, NULL, 0, &p) == PATC_OK, "%s", patc_last_error(gctx));
    ck_assert_int_eq(patc_get_kernel(p, "bigsmem", &k), PATC_OK);
    enum { N = 3, M = 50000 };
    static float in[N * M], out[N * M];
    for (int i = 0; i < N * M; i++) in[i] = (float)(i % 1000) * 0.5f;
    patc_buffer *bi, *bo;
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof in, &bi), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof out, &bo), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(bi, in, sizeof in), PATC_OK);
    static const long long ms[] = {12000, 12289, M}; /* 48000, 49168 (just past 48 KiB) and 200000 bytes */
    for (int t = 0; t < 3; t++) {
        long long nm[2] = {N * M / ms[t], ms[t]};
        memset(out, 0, sizeof out);
        ck_assert_int_eq(patc_buffer_upload(bo, out, sizeof out), PATC_OK);
        ck_assert_msg(patc_launch(k, nm, &bi, bo, NULL) == PATC_OK, "m=%lld: %s", ms[t], patc_last_error(gctx));
        ck_assert_int_eq(patc_buffer_download(bo, out, sizeof out), PATC_OK);
        for (long long i = 0; i < nm[0] * nm[1]; i++) ck_assert_float_eq(out[i], 2 * in[i] + 1);
    }
    /* the device's maximum, asked of the driver: one float more is refused */
    long long nm[2] = {1, 232448 / 4 + 1};
    ck_assert_int_eq(patc_launch(k, nm, &bi, bo, NULL), PATC_ERR_LAUNCH_CONFIG);
    ck_assert_msg(strstr(patc_last_error(gctx), "the device's opt-in maximum is"), "%s", patc_last_error(gctx));
    /* an override past it too */
    nm[1] = 1000;
    patc_launch_config cfg = {{0, 0, 0}, {0, 0, 0}, 1LL << 20};
    ck_assert_int_eq(patc_launch(k, nm, &bi, bo, &cfg), PATC_ERR_LAUNCH_CONFIG);
    ck_assert_msg(strstr(patc_last_error(gctx), "the launch override asks for 1048576 bytes"), "%s", patc_last_error(gctx));
    patc_buffer_free(bi);
    patc_buffer_free(bo);
}
END_TEST

/* Maps past CUDA's grid limit along y and z, sized at launch: 65535 rows fill the grid,
 * 65536 and 70000 loop over a grid capped at 65535 (each of the first blocks takes two
 * rows); every row is computed once, against sums and products made here. An override
 * past the limit is refused, not handed to the driver. */
static const char *ROWS =
    "kernel rowSums = nFun((r, c) => fun(r.c.f32)(a => a |> mapGlobal('y')(reduceSeq(add)(0.0f))))\n"
    "kernel scaleRows = nFun((r, c) => fun(r.c.f32)(a => a |> mapGlobal('y')(mapGlobal('x')(fun(x => x * 2.0f + 1.0f)))))\n"
    "kernel planesZ = nFun((p, c) => fun(p.c.f32)(a => a |> mapGlobal('z')(mapSeq(fun(x => x - 1.0f)))))\n";

START_TEST(gpu_maps_past_grid_limits)
{
    patc_program *p;
    patc_kernel *k[3];
    static const char *names[3] = {"rowSums", "scaleRows", "planesZ"};
    ck_assert_msg(patc_program_from_string(gctx, "rows.rise", ROWS, NULL, 0, &p) == PATC_OK, "%s", patc_last_error(gctx));
    for (int j = 0; j < 3; j++) ck_assert_int_eq(patc_get_kernel(p, names[j], &k[j]), PATC_OK);
    enum { R = 70000, C = 3 };
    static float in[R * C], out[R * C];
    for (int i = 0; i < R * C; i++) in[i] = (float)(i % 977) * 0.25f - 50.0f;
    patc_buffer *bi, *bo;
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof in, &bi), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(gctx, sizeof out, &bo), PATC_OK);
    ck_assert_int_eq(patc_buffer_upload(bi, in, sizeof in), PATC_OK);
    static const long long rs[] = {65535, 65536, R};
    for (int t = 0; t < 3; t++) {
        long long nats[2] = {rs[t], C};
        for (int j = 0; j < 3; j++) {
            for (int i = 0; i < R * C; i++) out[i] = -1234.5f;
            ck_assert_int_eq(patc_buffer_upload(bo, out, sizeof out), PATC_OK);
            ck_assert_msg(patc_launch(k[j], nats, &bi, bo, NULL) == PATC_OK, "%s r=%lld: %s", names[j], rs[t],
                          patc_last_error(gctx));
            ck_assert_int_eq(patc_buffer_download(bo, out, sizeof out), PATC_OK);
            for (long long r = 0; r < rs[t]; r++) {
                const float *a = &in[r * C];
                if (j == 0) {
                    float want = 0.0f;
                    for (int c = 0; c < C; c++) want += a[c];
                    ck_assert_msg(out[r] == want, "rowSums r=%lld row %lld: %g, want %g", rs[t], r, out[r], want);
                } else {
                    for (int c = 0; c < C; c++) {
                        float want = j == 1 ? a[c] * 2.0f + 1.0f : a[c] - 1.0f;
                        ck_assert_msg(out[r * C + c] == want, "%s r=%lld at %lld,%d: %g, want %g", names[j], rs[t], r, c,
                                      out[r * C + c], want);
                    }
                }
            }
            long long written = j == 0 ? rs[t] : rs[t] * C; /* nothing past the result */
            if (written < R * C) ck_assert_float_eq(out[written], -1234.5f);
        }
    }
    long long nats[2] = {R, C};
    patc_launch_config cfg = {{1, 70000, 1}, {0, 0, 0}, 0};
    ck_assert_int_eq(patc_launch(k[0], nats, &bi, bo, &cfg), PATC_ERR_LAUNCH_CONFIG);
    ck_assert_msg(strstr(patc_last_error(gctx), "grid.y = 70000 is above CUDA's limit 65535"), "%s", patc_last_error(gctx));
    patc_buffer_free(bi);
    patc_buffer_free(bo);
}
END_TEST

int main(int argc, char **argv)
{
    bool gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (gpu) { /* decide about skipping before Check allocates anything */
        patc_ctx *c;
        if (patc_create(&c, 0, 0) != PATC_OK || patc_device_status(c) != PATC_OK) {
            printf("SKIPPED: %s\n", c ? patc_last_error(c) : "no context");
            patc_destroy(c);
            return 77;
        }
        patc_destroy(c);
    }
    Suite *s = suite_create(gpu ? "runtime-gpu" : "runtime");
    TCase *tc = tcase_create(gpu ? "gpu" : "nogpu");
    tcase_set_timeout(tc, 120);
    if (gpu) {
        tcase_add_checked_fixture(tc, gpu_setup, gpu_teardown);
        tcase_add_test(tc, gpu_scale_matches_cpu);
        tcase_add_test(tc, gpu_reduce_to_one);
        tcase_add_test(tc, gpu_scalars_and_outputs);
        tcase_add_test(tc, gpu_reducer_single_launch);
        tcase_add_test(tc, gpu_large_shared_memory);
        tcase_add_test(tc, gpu_maps_past_grid_limits);
        tcase_add_test(tc, gpu_vector_input_alignment_checked);
        tcase_add_test(tc, gpu_enqueue_reuses_prepared_launch);
    } else {
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, create_without_driver_succeeds);
        tcase_add_test(tc, compile_only_flag_and_no_cache);
        tcase_add_test(tc, compile_rise_to_cubin_and_hit_the_cache);
        tcase_add_test(tc, kernel_queries);
        tcase_add_test(tc, kernel_role_from_the_compiler);
        tcase_add_test(tc, min_blocks_in_launch_bounds);
        tcase_add_test(tc, int_min_constant_compiles);
        tcase_add_test(tc, interp_refuses_sizes_past_the_limits);
        tcase_add_test(tc, memory_linear_in_kernels);
        tcase_add_test(tc, no_cubin_never_calls_nvrtc);
        tcase_add_test(tc, compile_string_with_options);
        tcase_add_test(tc, define_rules);
        tcase_add_test(tc, bad_program_reports_diagnostics);
        tcase_add_test(tc, program_from_file_and_edited_cuda);
        tcase_add_test(tc, one_line_cuda_is_text);
        tcase_add_test(tc, edited_cuda_errors_name_the_cuda_and_its_line);
        tcase_add_test(tc, builtin_patterns_without_files);
        tcase_add_test(tc, device_calls_without_device_fail_cleanly);
        tcase_add_test(tc, reducer_settings_without_device);
        tcase_add_test(tc, scan_settings_evict_first);
    tcase_add_test(tc, scan_settings_other_file);
        tcase_add_test(tc, tuning_lookup);
        tcase_add_test(tc, index_bits_by_size);
        tcase_add_test(tc, pipe_index_bits);
        tcase_add_test(tc, shared_memory_checked_at_launch);
        tcase_add_test(tc, scalars_and_outputs_without_device);
    }
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    /* CUDA does not survive fork() after cuInit in the parent (done above to decide
     * whether to skip), so GPU tests run in this process. */
    if (gpu) srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists each test */
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
