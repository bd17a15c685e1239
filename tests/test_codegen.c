/* test_codegen.c: the CUDA printer, NVRTC compile checks, the padding block count and
 * the speed of emission. */
#include "testutil.h"
#include "cexpr.h"
#include "../runtime/rt_internal.h"

#include <dirent.h>
#include <time.h>

static char *slurp(const char *path)
{
    size_t len;
    char *s = lang_read_file(path, &len);
    ck_assert_msg(s != NULL, "cannot read %s", path);
    return s;
}

/* Compile CUDA text for sm_90 to a cubin, with the runtime's NVRTC options and its
 * loader (NVRTC is dlopen'ed, never linked); *log gets the log or reason on failure. */
static bool nvrtc_ok(const char *src, const char *name, char **log)
{
    void *cubin = NULL;
    size_t n = 0;
    RtBuildStats st;
    bool ok = rt_nvrtc_compile(src, name, 90, NULL, &cubin, &n, log, &st);
    free(cubin);
    return ok && n > 0;
}

/* Every example, every test program and every program of the thesis (tests/thesis)
 * compiles with NVRTC for sm_90. */
START_TEST(examples_compile_with_nvrtc)
{
    const char *dirs[] = {PATC_SOURCE_DIR "/examples", PATC_SOURCE_DIR "/tests/programs",
                          PATC_SOURCE_DIR "/tests/thesis"};
    int compiled = 0;
    for (int di = 0; di < 3; di++) {
        DIR *d = opendir(dirs[di]);
        if (!d) continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l < 6 || strcmp(e->d_name + l - 5, ".rise")) continue;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dirs[di], e->d_name);
            char *src = slurp(path);
            /* the options an example names on its first line (-- golden-args: -D a=1 ...) */
            Define defs[8];
            char name[8][64];
            int nd = 0;
            if (strncmp(src, "-- golden-args:", 15) == 0) {
                long long v;
                const char *q = src + 15;
                int used;
                while (nd < 8 && sscanf(q, " -D %63[^=]=%lld%n", name[nd], &v, &used) == 2) {
                    defs[nd] = (Define){name[nd], v};
                    nd++;
                    q += used;
                }
            }
            TC *t = tc_compile_named(path, src, nd ? defs : NULL, nd);
            ck_assert_msg(t->ok, "%s: %s", path, tc_err(t));
            char *cu = tc_cuda(t), *log = NULL;
            ck_assert_msg(nvrtc_ok(cu, e->d_name, &log), "%s does not compile:\n%s\n%s", path, log, cu);
            compiled++;
            free(log);
            log = NULL;
            if (strstr(cu, "#ifdef PATC_INDEX32")) { /* the 32-bit build the runtime makes too */
                StrBuf b32 = {0};
                sb_printf(&b32, "#define PATC_INDEX32\n%s", cu);
                ck_assert_msg(nvrtc_ok(b32.s, e->d_name, &log), "%s does not compile with PATC_INDEX32:\n%s", path, log);
                sb_free(&b32);
                free(log);
            }
            free(cu);
            tc_free(t);
            free(src);
        }
        closedir(d);
    }
    ck_assert_int_ge(compiled, 13);
}
END_TEST

/* The block count patc emits for padCst(0)((k - n % k) % k) |> split(k) is ceil(n/k)
 * for every n in 1..20000: the expression is the kernel's grid rule, the same Nat node
 * the printer prints in the mapBlock loop; it is printed as C and evaluated with C
 * semantics (truncating division), not with patc's own evaluator. */
START_TEST(padding_block_count)
{
    static const int ks[] = {1, 2, 3, 32, 1000, 1024};
    for (int ki = 0; ki < 6; ki++) {
        Define d[] = {{"k", ks[ki]}};
        TC *t = tc_compile_defs("kernel r = nFun((n, k) => fun(n.f32)(xs => xs |> padCst(0)((k - n % k) % k)(0.0f) "
                                "|> split(k) |> mapBlock(fun(c => c |> reduceSeq(add)(0.0f)))))", d, 1);
        EXPECT_OK(t);
        Kernel *k = t->c.kernels[0];
        /* the loop the printer prints */
        Stmt *loop = k->body->seq.items[0];
        ck_assert_int_eq(loop->kind, S_FOR);
        ck_assert_int_eq(loop->loop.level, LVL_BLOCK);
        ck_assert(nat_equal(loop->loop.extent, k->grid[0]));
        StrBuf c = {0};
        nat_print_c(t->a, &c, loop->loop.extent);
        char *cu = tc_cuda(t);
        ck_assert_msg(strstr(cu, c.s), "grid expression %s not in the CUDA text", c.s);
        const char *names[] = {"n"};
        for (long long n = 1; n <= 20000; n++) {
            long long v, want = (n + ks[ki] - 1) / ks[ki];
            char err[128];
            ck_assert_msg(cexpr_eval(c.s, names, &n, 1, &v, err, sizeof err), "%s: %s", c.s, err);
            if (v != want) ck_abort_msg("k=%d n=%lld: %s = %lld, want %lld", ks[ki], n, c.s, v, want);
        }
        free(cu);
        sb_free(&c);
        tc_free(t);
    }
}
END_TEST

/* The same with k symbolic: the printed C must still be right for every k. */
START_TEST(padding_block_count_symbolic)
{
    TC *t = tc_compile("kernel r = nFun((n, k) => fun(n.f32)(xs => xs |> padCst(0)((k - n % k) % k)(0.0f) "
                       "|> split(k) |> mapBlock(fun(c => c |> reduceSeq(add)(0.0f)))))");
    EXPECT_OK(t);
    StrBuf c = {0};
    nat_print_c(t->a, &c, t->c.kernels[0]->grid[0]);
    ck_assert_ptr_null(strstr(c.s, "patc_fdiv"));
    const char *names[] = {"n", "k"};
    for (long long k = 1; k <= 70; k++)
        for (long long n = 1; n <= 3000; n++) {
            long long vals[2] = {n, k}, v;
            char err[128];
            ck_assert(cexpr_eval(c.s, names, vals, 2, &v, err, sizeof err));
            if (v != (n + k - 1) / k) ck_abort_msg("k=%lld n=%lld: %s = %lld", k, n, c.s, v);
        }
    sb_free(&c);
    tc_free(t);
}
END_TEST

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Emitting the device-level reduction pass is fast: the best of 5 runs of the whole
 * in-process pipeline (parse, import, passes, printing) stays under 10 ms. Sanitizer
 * builds are several times slower and get a proportionally larger bound. */
START_TEST(emission_is_fast)
{
    char *src = slurp(PATC_SOURCE_DIR "/examples/reduce_device_naive.rise");
    double best = 1e9;
    for (int i = 0; i < 5; i++) {
        double t0 = now_ms();
        TC *t = tc_compile(src);
        char *cu = tc_cuda(t);
        double dt = now_ms() - t0;
        EXPECT_OK(t);
        if (dt < best) best = dt;
        free(cu);
        tc_free(t);
    }
    free(src);
#if defined(__SANITIZE_ADDRESS__)
    ck_assert_msg(best < 100.0, "emission took %.2f ms", best);
#else
    ck_assert_msg(best < 10.0, "emission took %.2f ms", best);
#endif
}
END_TEST

/* The printed kernel carries the comment block the runtime and the user rely on. */
START_TEST(header_and_signature)
{
    TC *t = tc_compile("kernel scale = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 2.0f))))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_ptr_nonnull(strstr(cu, "extern \"C\" __global__ void scale(float *__restrict__ out, const float *__restrict__ xs, patc_int n)"));
    ck_assert_ptr_nonnull(strstr(cu, "data parameters: xs: n.f32"));
    ck_assert_ptr_nonnull(strstr(cu, "nat parameters:  n"));
    ck_assert_ptr_nonnull(strstr(cu, "output:          out: n.f32"));
    ck_assert_ptr_nonnull(strstr(cu, "block size:      (256, 1, 1)"));
    ck_assert_ptr_nonnull(strstr(cu, "grid size:       ((n + 255) / 256, 1, 1)"));
    ck_assert_ptr_nonnull(strstr(cu, "shared memory:   0 bytes"));
    ck_assert_int_eq(count_substr(cu, "__syncthreads"), 0);
    ck_assert_ptr_null(strstr(cu, "patc_fdiv"));
    free(cu);
    tc_free(t);
}
END_TEST

/* Literals print so that they read back as the same type and value. */
START_TEST(literals)
{
    TC *t = tc_compile("kernel k = nFun(n => fun(n.f64)(xs => fun(n.u32)(ys => zip(xs)(ys) |> mapGlobal(fun(p => "
                       "fst(p) * 0.1 + 1e300 - 3.0)))))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_ptr_nonnull(strstr(cu, "0.10000000000000001"));
    ck_assert_ptr_nonnull(strstr(cu, "1.0000000000000001e+300"));
    ck_assert_ptr_nonnull(strstr(cu, "3.0)"));
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun(n.u32)(xs => xs |> mapGlobal(fun(x => x * 7u + 4000000000))))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_ptr_nonnull(strstr(cu, "7u"));
    ck_assert_ptr_nonnull(strstr(cu, "4000000000u"));
    free(cu);
    tc_free(t);
}
END_TEST

/* The text of one kernel of a printed module (up to the next kernel's comment). */
static char *kernel_text(const char *cu, const char *name)
{
    char head[64];
    snprintf(head, sizeof head, "/* kernel %s\n", name);
    const char *b = strstr(cu, head);
    ck_assert_msg(b != NULL, "no kernel %s", name);
    const char *e = strstr(b + 1, "/* kernel ");
    size_t n = e ? (size_t)(e - b) : strlen(b);
    char *r = malloc(n + 1);
    memcpy(r, b, n);
    r[n] = 0;
    return r;
}

/* lastBlock hands partials of at most 32 bits over as flagged words that the last block
 * waits for (no atomic, no ticket parameter); 64-bit partials keep the ticket taken
 * after the writes (atom.acq_rel) and read the partials through L2. */
START_TEST(last_block_protocol_by_type)
{
    TC *t = tc_compile_file(PATC_SOURCE_DIR "/tests/programs/lastblock_types.rise");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    const char *flagged[] = {"sumF32", "minI32", "sumU32"}, *ticket[] = {"sumF64", "sumI64", "sumU64"};
    for (int i = 0; i < 3; i++) {
        char *k = kernel_text(cu, flagged[i]);
        ck_assert_msg(strstr(k, "unsigned long long *__restrict__ partial0, patc_int m, patc_int k)"), "%s", k);
        ck_assert_msg(strstr(k, "patc_poke(&partial0[") && strstr(k, "0x100000000ull | "), "%s", k);
        ck_assert_msg(strstr(k, "patc_wait(&partial0["), "%s", k);
        ck_assert_msg(strstr(k, "if (blockIdx.x == gridDim.x - 1u"), "%s", k);
        ck_assert_msg(!strstr(k, "atom") && !strstr(k, "ticket") && !strstr(k, "patc_last"), "%s", k);
        free(k);
        k = kernel_text(cu, ticket[i]);
        ck_assert_msg(strstr(k, "ticket1, patc_int m, patc_int k)"), "%s", k);
        ck_assert_int_eq(count_substr(k, "atom.acq_rel.gpu.global.add.u32"), 1);
        ck_assert_msg(strstr(k, "__ldcg(&partial0[") && !strstr(k, "patc_wait"), "%s", k);
        free(k);
    }
    /* the helpers are printed once, ahead of the kernels */
    ck_assert_int_eq(count_substr(cu, "static __device__ __forceinline__ unsigned int patc_wait("), 1);
    free(cu);
    tc_free(t);
}
END_TEST

/* Index width: 32-bit where every index provably stays below 2^31, 64-bit where the
 * sizes reach it (no 32-bit variable, id or parameter is left), and chosen at launch
 * for symbolic sizes, with a bound the runtime can evaluate. */
START_TEST(index_width)
{
    const char *src = "kernel k = nFun((m, n) => fun(m.n.f32)(xs => xs |> join |> mapGlobal(fun(x => x * 2.0f))))";
    Define small[] = {{"m", 1000}, {"n", 1000}}, big[] = {{"m", 65536}, {"n", 65536}};
    TC *t = tc_compile_defs(src, small, 2);
    EXPECT_OK(t);
    ck_assert_int_eq(t->c.kernels[0]->iw, IW_32);
    char *cu = tc_cuda(t);
    ck_assert_ptr_nonnull(strstr(cu, "const int g0 = blockIdx.x * blockDim.x + threadIdx.x;"));
    ck_assert_ptr_null(strstr(cu, "long long"));
    free(cu);
    tc_free(t);

    t = tc_compile_defs(src, big, 2); /* 2^32 elements */
    EXPECT_OK(t);
    ck_assert_int_eq(t->c.kernels[0]->iw, IW_64);
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "const long long g0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;"), "%s", cu);
    ck_assert_msg(!strstr(cu, "int g0") && !strstr(cu, "patc_int"), "%s", cu);
    free(cu);
    tc_free(t);

    /* padCst(2^31 - 1) on both sides: every index of the padded view passes 2^31 */
    t = tc_compile_defs("kernel p = nFun(n => fun(n.f32)(xs => xs |> padCst(2147483647)(2147483647)(0.0f) "
                        "|> mapGlobal(fun(x => x + 1.0f))))", (Define[]){{"n", 10}}, 1);
    EXPECT_OK(t);
    ck_assert_int_eq(t->c.kernels[0]->iw, IW_64);
    tc_free(t);

    t = tc_compile(src);
    EXPECT_OK(t);
    Kernel *k = t->c.kernels[0];
    ck_assert_int_eq(k->iw, IW_LAUNCH);
    ck_assert_ptr_nonnull(k->index_bound);
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "patc_int m, patc_int n)") && strstr(cu, "typedef long long patc_int;"), "%s", cu);
    ck_assert_msg(strstr(cu, "(patc_int)blockIdx.x * blockDim.x + threadIdx.x"), "%s", cu);
    free(cu);
    /* the bound, with the launch rule's grid, is at least the largest index + 1 and
     * past 2^31 exactly when the index is */
    const long long sizes[][2] = {{1, 1}, {1000, 1000}, {32768, 65535}, {32768, 65536}, {65536, 65536}};
    for (int i = 0; i < 5; i++) {
        int64_t vals[64] = {0}, b, g;
        bool has[64] = {0};
        NatVar *mv = k->def->nats[0], *nv = k->def->nats[1];
        vals[mv->id] = sizes[i][0], vals[nv->id] = sizes[i][1];
        has[mv->id] = has[nv->id] = true;
        NatEnv env = {vals, has, 64};
        ck_assert(nat_eval(k->grid[0], &env, &g));
        for (int d = 0; d < 3; d++) {
            vals[k->hw.bdim[d]->id] = d ? 1 : 256, has[k->hw.bdim[d]->id] = true;
            vals[k->hw.gdim[d]->id] = d ? 1 : g, has[k->hw.gdim[d]->id] = true;
        }
        ck_assert(nat_eval(k->index_bound, &env, &b));
        long long elems = sizes[i][0] * sizes[i][1];
        ck_assert_int_ge(b, elems);
        ck_assert_msg((b <= INT32_MAX) == (elems + 256 <= INT32_MAX), "m=%lld n=%lld bound %lld", sizes[i][0],
                      sizes[i][1], (long long)b);
    }
    tc_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("codegen");
    TCase *c = tcase_create("core");
    tcase_set_timeout(c, 300);
    tcase_add_test(c, header_and_signature);
    tcase_add_test(c, index_width);
    tcase_add_test(c, literals);
    tcase_add_test(c, padding_block_count);
    tcase_add_test(c, padding_block_count_symbolic);
    tcase_add_test(c, emission_is_fast);
    tcase_add_test(c, examples_compile_with_nvrtc);
    tcase_add_test(c, last_block_protocol_by_type);
    suite_add_tcase(s, c);
    return run_suite(s);
}
