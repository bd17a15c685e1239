/* test_codegen.c: the CUDA printer, NVRTC compile checks, the padding block count and
 * the speed of emission. */
#include "testutil.h"
#include "cexpr.h"
#include "../runtime/rt_internal.h"

#include <ctype.h>
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
 * compiles with NVRTC for sm_90. The sanitizer build (PATC_SANITIZED_BUILD) generates
 * the CUDA of each but compiles none: the normal build compiles the same text. A test
 * program's text as emitted goes to a cubin (ptxas too); the examples' and the thesis's
 * to PTX alone, as ptxas runs on the same texts in tests/nvcc_warnings.sh (nvcc -cubin,
 * every warning an error), which took 85 s of CI; the PATC_INDEX32 builds to PTX. */
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
            char *cu = tc_cuda(t);
            compiled++;
#ifndef PATC_SANITIZED_BUILD
            char *log = NULL;
            bool ok = di == 1 ? nvrtc_ok(cu, e->d_name, &log) : rt_nvrtc_front(cu, e->d_name, 90, &log);
            ck_assert_msg(ok, "%s does not compile:\n%s\n%s", path, log, cu);
            free(log);
            log = NULL;
            /* the 32-bit build the runtime makes too, to PTX: it differs from the text
             * above only in patc_int's typedef, a difference of types that NVRTC's front
             * end sees; ptxas took half of each compile (radixsort.rise: 5.3 s of a
             * cubin's, 2.6 of PTX's) and runs on this build in tests/gpu/all.sh */
            if (strstr(cu, "#ifdef PATC_INDEX32")) {
                StrBuf b32 = {0};
                sb_printf(&b32, "#define PATC_INDEX32\n%s", cu);
                ck_assert_msg(rt_nvrtc_front(b32.s, e->d_name, 90, &log), "%s does not compile with PATC_INDEX32:\n%s", path, log);
                sb_free(&b32);
                free(log);
            }
#endif
            free(cu);
            tc_free(t);
            free(src);
        }
        closedir(d);
    }
    ck_assert_int_ge(compiled, 13);
#ifndef PATC_SANITIZED_BUILD
    /* the PTX check refuses what does not compile, with NVRTC's log */
    char *log = NULL;
    ck_assert(!rt_nvrtc_front("__global__ void k(int *p) { *p = undeclared; }\n", "bad.cu", 90, &log));
    ck_assert_msg(log && strstr(log, "undeclared"), "%s", log ? log : "(no log)");
    free(log);
#endif
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
    /* infinity and NaN have no C literal and NVRTC no INFINITY: their bits, f32's
     * (C's NAN, the interpreter's, is 0x7fc00000), the sign a negation, f64 widened */
    t = tc_compile("kernel k = nFun(n => fun(n.f32)(xs => fun(n.f64)(ys =>"
                   " pair(xs |> mapGlobal(fun(x => max(x)(-inff) + min(x)(inff) + select(x > 0.0f)(nanf)(-nanf))))"
                   "     (ys |> mapGlobal(fun(y => max(y)(-inf) + min(y)(inf) + nan))))))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "fmaxf(xs[g0], -(__int_as_float(0x7f800000)))"), "%s", cu);
    ck_assert_msg(strstr(cu, "fminf(xs[g0], (__int_as_float(0x7f800000)))"), "%s", cu);
    ck_assert_msg(strstr(cu, "? (__int_as_float(0x7fc00000)) : -(__int_as_float(0x7fc00000))"), "%s", cu);
    ck_assert_msg(strstr(cu, "fmax(ys[g1], -((double)__int_as_float(0x7f800000)))"), "%s", cu);
    ck_assert_msg(strstr(cu, "((double)__int_as_float(0x7fc00000))"), "%s", cu);
    char *log = NULL;
    ck_assert_msg(nvrtc_ok(cu, "k", &log), "does not compile:\n%s\n%s", log, cu);
    free(log);
    free(cu);
    tc_free(t);
}
END_TEST

/* multisplitToNext (issue 35 item 4): the next part's offsets are the first output
 * (out0, of the offsets' type), the elements the next (keys alone: out1; pairs: out1
 * and out2, the pair of arrays); only the last tile writes out0, offs[b] + its prefix +
 * its count; both kernels compile with NVRTC. */
START_TEST(multisplit_next_outputs)
{
    static const struct {
        const char *src, *sig, *store;
    } cs[] = {
        {"kernel k = nFun((n, m) => fun(256.u64)(offs => fun(n.u32)(xs => xs |> "
         "multisplitToNext(256, 512, 20, m)(fun(x => x & 255u))(offs))))",
         "k(unsigned long long *__restrict__ out0, unsigned int *__restrict__ out1, const unsigned long long "
         "*__restrict__ offs, const unsigned int *__restrict__ xs,",
         "out0[(t"},
        {"kernel k = nFun((n, m) => fun(256.u32)(offs => fun(n.f32)(ks => fun(n.u64)(vs => zip(ks)(vs) |> "
         "multisplitToNext(256, 384, 16, m)(fun(p => u32(fst(p) * 255.0f)))(offs)))))",
         "k(unsigned int *__restrict__ out0, float *__restrict__ out1, unsigned long long *__restrict__ out2, const "
         "unsigned int *__restrict__ offs, const float *__restrict__ ks, const unsigned long long *__restrict__ vs,",
         "out0[(t"},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        TC *t = tc_compile(cs[i].src);
        EXPECT_OK(t);
        char *cu = tc_cuda(t);
        ck_assert_msg(strstr(cu, cs[i].sig), "case %zu: signature:\n%s", i, cu);
        /* the store of the next offsets sits under the last tile's test, once */
        const char *st = strstr(cu, cs[i].store);
        ck_assert_msg(st && !strstr(st + 1, cs[i].store), "case %zu: one store to out0:\n%s", i, cu);
        const char *last = strstr(cu, "- 1) < (b");
        ck_assert_msg(last && last < st, "case %zu: out0 written by the last tile only:\n%s", i, cu);
        char *log = NULL;
        ck_assert_msg(nvrtc_ok(cu, "k", &log), "case %zu does not compile:\n%s", i, log ? log : "");
        free(log);
        free(cu);
        tc_free(t);
    }
}
END_TEST

/* asVector over padClamp's upper edge: one 16-byte load per group, and where a group
 * reaches past the end (e + 3 >= n) the clamped loads one by one; the input is listed
 * as 16-byte aligned, which the runtime checks at launch. A padClamp at the lower edge
 * shifts the groups off the 4-element grid: an error, not a misaligned load. */
#define PADCLAMP_VEC                                                                                         \
    "kernel k = nFun(n => fun(n.f32)(xs => xs |> padClamp(0)((512 - n % 512) % 512) |> split(512)"             \
    " |> mapBlock(fun(c => c |> asVector(4) |> split(128) |> transpose"                                       \
    " |> mapThreads(fun(r => r |> mapSeq(fun(v => v |> reduceSeqUnroll(add)(0.0f))) |> reduceSeq(add)(0.0f)))" \
    " |> toShared |> reduceSeq(add)(0.0f)))))"
START_TEST(vector_loads_through_padclamp)
{
    TC *t = tc_compile(PADCLAMP_VEC);
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_ptr_nonnull(strstr(cu, "data parameters: xs: n.f32 (16-byte aligned: vector loads)"));
    ck_assert_ptr_nonnull(strstr(cu, "*(float4 *)v"));
    ck_assert_ptr_nonnull(strstr(cu, "*(const float4 *)(xs + (512 * b"));
    ck_assert_ptr_nonnull(strstr(cu, " + 3) >= n)) {"));
    ck_assert_int_eq(count_substr(cu, "xs[min((patc_int)(n - 1), "), 4);
    free(cu);
    tc_free(t);
    /* n = 1 fixed by -D: the clamp folds every index to 0, so element by element (and no
     * alignment asked of the input) rather than an error */
    Define one = {"n", 1};
    t = tc_compile_defs(PADCLAMP_VEC, &one, 1);
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_ptr_null(strstr(cu, "float4"));
    ck_assert_ptr_null(strstr(cu, "aligned"));
    ck_assert_int_eq(count_substr(cu, "= xs[0];"), 4);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun(n.f32)(xs => xs |> padClamp(1)((511 - n % 512) % 512) |> split(512)"
                   " |> mapBlock(fun(c => c |> asVector(4) |> split(128) |> transpose"
                   " |> mapThreads(fun(r => r |> mapSeq(fun(v => v |> reduceSeqUnroll(add)(0.0f)))"
                   " |> reduceSeq(add)(0.0f))) |> toShared |> reduceSeq(add)(0.0f)))))");
    EXPECT_ERR(t, "asVector(4): each group of 4 elements must be consecutive elements");
    tc_free(t);
    /* every element type and width the vector types cover, through NVRTC */
    const struct { const char *ty, *zero, *vec; int k; } vt[] = {
        {"i32", "0", "int4", 4}, {"u32", "0u", "uint4", 4}, {"f64", "0.0", "double2", 2},
        {"i64", "i64(0)", "longlong2", 2}, {"u64", "u64(0)", "ulonglong2", 2}, {"f32", "0.0f", "float2", 2}};
    for (size_t i = 0; i < sizeof vt / sizeof vt[0]; i++) {
        char src[1024];
        snprintf(src, sizeof src,
                 "kernel k = nFun(n => fun(n.%s)(xs => xs |> padClamp(0)((512 - n %% 512) %% 512) |> split(512)"
                 " |> mapBlock(fun(c => c |> asVector(%d) |> split(128) |> transpose"
                 " |> mapThreads(fun(r => r |> mapSeq(fun(v => v |> reduceSeqUnroll(add)(%s))) |> reduceSeq(add)(%s)))"
                 " |> toShared |> reduceSeq(add)(%s)))))",
                 vt[i].ty, vt[i].k, vt[i].zero, vt[i].zero, vt[i].zero);
        t = tc_compile(src);
        EXPECT_OK(t);
        cu = tc_cuda(t);
        char want[64];
        snprintf(want, sizeof want, "*(const %s *)(xs + ", vt[i].vec);
        ck_assert_msg(strstr(cu, want) != NULL, "%s: no %s load\n%s", vt[i].ty, vt[i].vec, cu);
        char *log = NULL;
        ck_assert_msg(nvrtc_ok(cu, "k", &log), "%s does not compile:\n%s\n%s", vt[i].ty, log, cu);
        free(log);
        free(cu);
        tc_free(t);
    }
}
END_TEST

/* padCst reads its array only where the index is inside it (C's ?:), but what the
 * read emits before the choice runs at every index: a map parameter used twice is read
 * into a register there. That read must be at the index clamped into the array, or the
 * padded positions read past its end (found by tests/emu: scan_types' firstNonZeroI32,
 * whose last tile read xs[n..]). */
/* Views of nested arrays (issue 33 item 3). A padCst whose value is a row is read
 * element by element (one bound test per scalar read, no copy); take/drop of an inner
 * dimension of a grid map's result are written through: a sequential loop over the
 * kept elements only, a guard on the parallel dimension; a padCst written through
 * stores the padding beside the rows' first and last elements. */
START_TEST(nested_views_codegen)
{
    TC *t = tc_compile("kernel k = nFun((m, n) => fun(m.n.f32)(a => a |> padCst(1)(2)(generate(fun(j => 0.0f))) "
                       "|> mapGlobal(mapSeq(fun(x => x * 2.0f)))))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "((((g0 < 1) || ((g0 - 1) >= m)) ? 0.0f : a[(-n + n * g0 + i1)]) * 2.0f)"), "%s", cu);
    ck_assert_int_eq(count_substr(cu, "out["), 1);
    ck_assert_msg(!strstr(cu, "float v"), "%s", cu); /* no private copy of a row */
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun((m, n) => fun(m.(n+3).f32)(a => a |> mapGlobal(mapSeq(fun(x => x * 2.0f))) "
                   "|> mapSeq(take(n))))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "for (patc_int i1 = 0; i1 < n; i1 += 1) {\n"
                             "            out[(n * g0 + i1)] = (a[(n * g0 + 3 * g0 + i1)] * 2.0f);"), "%s", cu);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun((m, n) => fun(m.(n+2).f32)(a => a |> mapGlobal(mapSeq(fun(x => x * 2.0f))) "
                   "|> mapSeq(drop(2))))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "i1 < n;"), "%s", cu);
    ck_assert_msg(strstr(cu, "out[(n * g0 + i1)] = (a[(n * g0 + 2 * g0 + i1 + 2)] * 2.0f);"), "%s", cu);
    ck_assert_msg(!strstr(cu, "if ((i1"), "%s", cu);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun((m, n) => fun(m.(n+1).f32)(a => a |> mapGlobal(mapSeq(fun(x => x * 2.0f))) "
                   "|> transpose |> mapSeq(drop(1))))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "if ((g0 >= 1)) {\n                out[(m * i1 + g0 - i1 - 1)]"), "%s", cu);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun((m, n) => fun(m.n.f32)(a => a |> mapGlobal(mapSeq(fun(x => x * 2.0f))) "
                   "|> mapSeq(padCst(1)(2)(0.5f))))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "if ((i1 == 0)) {\n                out[(n * g0 + 3 * g0)] = 0.5f;"), "%s", cu);
    ck_assert_msg(strstr(cu, "if ((i1 == (n - 1))) {\n                for (patc_int i2 = 0; i2 < 2; i2 += 1) {\n"
                             "                    out[(n + n * g0 + 3 * g0 + i2 + 1)] = 0.5f;"), "%s", cu);
    ck_assert_int_eq(count_substr(cu, "out["), 3);
    free(cu);
    tc_free(t);
}
END_TEST

START_TEST(padcst_register_reads_stay_in_bounds)
{
    TC *t = tc_compile("kernel k = nFun(n => fun(n.i32)(xs => xs |> mapSeq(fun(x => select(x > 0)(x)(0 - x)))"
                       " |> padCst(0)(5)(0) |> mapGlobal(id)))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    /* the register's load, and no load of xs at an unclamped index */
    ck_assert_msg(strstr(cu, " = xs[min(") != NULL, "%s", cu);
    ck_assert_msg(count_substr(cu, "xs[min(") == count_substr(cu, "xs["), "%s", cu);
    free(cu);
    tc_free(t);
    /* the padded element reads a warp array at another lane (a shuffle) and xs into a
     * register (fst(p) used twice): lane 0 read xs[32 * w0 - 1] before the choice */
    t = tc_compile("kernel k = nFun(n => fun((n*32).i32)(xs => xs |> split(32) |> mapWarp(fun(r =>"
                   " r |> mapLane(fun(x => x + 1)) |> fun(a =>"
                   " zip(r)(a) |> mapSeq(fun(p => select(fst(p) > 0)(fst(p))(snd(p))))"
                   " |> padCst(1)(0)(0) |> take(32) |> mapLane(id)))) |> join))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "__shfl_sync(") != NULL, "%s", cu);
    ck_assert_msg(strstr(cu, " - 1)]") == NULL, "%s", cu);
    ck_assert_msg(count_substr(cu, "xs[(32 * w0 + max(") == 2, "%s", cu);
    free(cu);
    tc_free(t);
}
END_TEST

/* bins_in_result: a kernel-level accumulate whose result is its bins as they are adds
 * into the output (no "bins" scratch; the descriptor's zero_out asks the runtime for a
 * memset), and lastBlock over one copies them to shared memory before its function
 * writes the same words; with a nonzero init, a result of another shape or without the
 * option, the bins stay scratch words the last block clears. */
START_TEST(bins_in_result_adds_into_the_output)
{
    const char *src =
        "import \"radixsort.rise\"\n"
        "kernel hs = nFun((n, g) => fun(n.u32)(xs => xs |> rsHistScanD(n, g, 4, 256, rsDigit32(rsOrdU32, 8))))\n"
        "kernel h = nFun((n, g) => fun(n.u32)(xs => xs |> rsHistogramD(n, g, 4, 256, rsDigit32(rsOrdU32, 8))))\n"
        "kernel hi = nFun(g => fun((g * 256).i32)(bs => bs |> mapGlobal(fun(b => pair(b)(b - 40))) |> accumulate(64)(add)(1000)))\n"
        "kernel hr = nFun(g => fun((g * 256).u32)(bs => bs |> mapGlobal(fun(b => pair(b % 64u)(1u))) |> accumulate(64)(add)(0u)"
        " |> lastBlock(fun(h => h |> split(8) |> mapThreads(reduceSeq(add)(0u))))))\n";
    CompileOptions bo = {.bins_in_result = true};
    for (int with = 0; with < 2; with++) {
        TC *t = tc_compile_flags(PATC_SOURCE_DIR "/tests/t.rise", src, NULL, 0, with ? &bo : NULL);
        EXPECT_OK(t);
        ck_assert_int_eq(t->c.nkernels, 4);
        Kernel *hs = t->c.kernels[0], *h = t->c.kernels[1], *hi = t->c.kernels[2], *hr = t->c.kernels[3];
        /* with the option: hs keeps its ticket, h nothing; without: the bins too */
        ck_assert_int_eq(hs->nscratch, with ? 1 : 2);
        ck_assert_int_eq(h->nscratch, with ? 0 : 2);
        ck_assert(hs->zero_out == with && h->zero_out == with && t->c.descs[0]->zero_out == with);
        /* init 1000 and an 8-element result of 64 bins: scratch bins either way */
        ck_assert(!hi->zero_out && hi->nscratch == 2 && !hr->zero_out && hr->nscratch == 2);
        char *cu = tc_cuda(t);
        const char *k0 = strstr(cu, "void __launch_bounds__(1024) hs("), *k1 = strstr(cu, "void __launch_bounds__(1024) h(");
        ck_assert_msg(k0 && k1 && k0 < k1, "%.2000s", cu);
        char *hs_text = malloc((size_t)(k1 - k0) + 1);
        ck_assert_ptr_nonnull(hs_text);
        memcpy(hs_text, k0, (size_t)(k1 - k0));
        hs_text[k1 - k0] = 0;
        if (with) {
            /* the grid's atomics into out; the last block's copy, read through L2 */
            ck_assert_msg(strstr(hs_text, "atomicAdd(&out[") && strstr(hs_text, "] = __ldcg(&out[") && !strstr(hs_text, "bins0"),
                          "%s", hs_text);
            ck_assert_int_eq(count_substr(cu, "zeroed by the runtime before each launch"), 2);
#ifndef PATC_SANITIZED_BUILD
            char *log = NULL;
            ck_assert_msg(nvrtc_ok(cu, "bins_in_result.cu", &log), "%.2000s", log ? log : "");
            free(log);
#endif
        } else {
            ck_assert_msg(strstr(hs_text, "atomicAdd(&bins0[") && !strstr(cu, "zeroed by the runtime"), "%s", hs_text);
        }
        free(hs_text);
        free(cu);
        tc_free(t);
    }
}
END_TEST

/* evict_first: a look-back kernel loads its inputs and stores its outputs evict-first
 * (__ldcs/__stcs), and nothing else does: not its tile state, not without the option,
 * not a kernel without a look-back. */
START_TEST(evict_first_streams_lookback_kernels)
{
    size_t len;
    char *src = lang_read_file(PATC_SOURCE_DIR "/examples/filter.rise", &len);
    ck_assert_ptr_nonnull(src);
    Define shape[] = {{"nt", 128}, {"ipt", 16}};
    CompileOptions ef = {.evict_first = true};
    TC *t = tc_compile_flags(PATC_SOURCE_DIR "/examples/filter.rise", src, shape, 2, &ef);
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    /* the float4 tile loads, the element-by-element ones of the last tile, the scatter */
    ck_assert_msg(strstr(cu, "= __ldcs((const float4 *)(xs + ") && strstr(cu, "= __ldcs(&xs[min(") &&
                  strstr(cu, "__stcs(&out1[ix"), "%s", cu);
    /* and no plain load of xs or store to out1 beside them */
    ck_assert_msg(count_substr(cu, "= xs[") == 0, "%s", cu);
    ck_assert_msg(count_substr(cu, "out1[") == count_substr(cu, "__stcs(&out1["), "%s", cu);
    ck_assert_msg(!strstr(cu, "__ldcs(&lbstate") && !strstr(cu, "__stcs(&lbstate"), "%s", cu);
    free(cu);
    tc_free(t);
    t = tc_compile_flags(PATC_SOURCE_DIR "/examples/filter.rise", src, shape, 2, NULL);
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(!strstr(cu, "__ldcs") && !strstr(cu, "__stcs") && strstr(cu, "out1["), "%s", cu);
    free(cu);
    tc_free(t);
    free(src);
    t = tc_compile_flags("t.rise", "kernel k = nFun(n => fun(n.f32)(xs => xs |> padCst(0)((1024 - n % 1024) % 1024)(0.0f)"
                         " |> split(1024) |> mapBlock(fun(c => c |> split(4) |> mapThreads(fun(p => p |> reduceSeq(add)(0.0f)))))"
                         " |> join))", NULL, 0, &ef);
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(!strstr(cu, "__ldcs") && !strstr(cu, "__stcs"), "%s", cu);
    free(cu);
    tc_free(t);
    /* every scalar type of the scans through NVRTC, with the 32-bit index build */
    src = lang_read_file(PATC_SOURCE_DIR "/tests/programs/scan_types.rise", &len);
    ck_assert_ptr_nonnull(src);
    Define tshape[] = {{"nt", 128}, {"ipt", 25}};
    t = tc_compile_flags(PATC_SOURCE_DIR "/tests/programs/scan_types.rise", src, tshape, 2, &ef);
    free(src);
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(count_substr(cu, "__ldcs(&xs[") >= 10 && count_substr(cu, "__stcs(&out[") >= 10, "%s", cu);
    char *log = NULL;
    ck_assert_msg(nvrtc_ok(cu, "scan_types", &log), "does not compile:\n%s\n%s", log, cu);
    free(log);
    log = NULL;
    StrBuf b32 = {0};
    sb_printf(&b32, "#define PATC_INDEX32\n%s", cu);
    ck_assert_msg(nvrtc_ok(b32.s, "scan_types", &log), "does not compile with PATC_INDEX32:\n%s", log);
    sb_free(&b32);
    free(log);
    free(cu);
    tc_free(t);
}
END_TEST

/* The part of s from the first `from` to the first `to` after it. */
static char *between(const char *s, const char *from, const char *to)
{
    const char *b = strstr(s, from);
    ck_assert_msg(b != NULL, "no '%s' in %s", from, s);
    const char *e = strstr(b, to);
    ck_assert_msg(e != NULL, "no '%s' after '%s' in %s", to, from, s);
    char *r = malloc((size_t)(e - b) + 1);
    memcpy(r, b, (size_t)(e - b));
    r[e - b] = 0;
    return r;
}

/* version.c: a tile's bound tests are decided where the whole tile is inside the input
 * (the first branch: no test, plain loads); the last, partial tile keeps them (the
 * else branch); the branch is chosen by the tile's largest index, the same for the
 * whole block. */
START_TEST(full_tiles_drop_bound_tests)
{
    TC *t = tc_compile("kernel k = nFun(n => fun(n.f32)(xs => xs |> padCst(0)((1024 - n % 1024) % 1024)(0.0f)"
                       " |> split(1024) |> mapBlock(fun(c => c |> split(4) |> mapThreads(fun(p => p |> reduceSeq(add)(0.0f)))))"
                       " |> join))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    char *fast = between(cu, "if (((1024 * b", "} else {");
    ck_assert_msg(strstr(fast, " + 1023) < n))") != NULL, "%s", cu);
    ck_assert_msg(strstr(fast, ">= n") == NULL && strstr(fast, "?") == NULL, "%s", fast);
    ck_assert_msg(strstr(fast, "(acc") != NULL && strstr(fast, "+ xs[") != NULL, "%s", fast);
    const char *slow = strstr(cu, "} else {");
    ck_assert_msg(strstr(slow, ">= n) ? 0.0f : xs[") != NULL, "%s", slow);
    free(fast);
    free(cu);
    tc_free(t);
    /* a tile size known at launch, threads striding over it (a block of any size): the
     * largest index is the stride loop's last, k - 1 */
    t = tc_compile("kernel r = nFun((n, k) => fun(n.f32)(xs => xs |> padCst(0)((k - n % k) % k)(0.0f) |> split(k)"
                   " |> mapBlock(fun(c => c |> mapThreads(fun(x => x + 1.0f)))) |> join))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    fast = between(cu, "if (((k + k * b0 - 1) < n)) {", "} else {");
    ck_assert_msg(strstr(fast, ">= n") == NULL && strstr(fast, "= (xs[(k * b0 + t1)] + 1.0f);") != NULL, "%s", cu);
    free(fast);
    free(cu);
    tc_free(t);
}
END_TEST

/* A test whose index is not shown to grow with the thread index (transpose reorders
 * the tile: thread t reads element 2 * (t % 512) + t / 512) is not decided, and a
 * statement with no decided test is not copied. A constant tile count needs no test. */
START_TEST(full_tiles_keep_unproved_tests)
{
    TC *t = tc_compile("kernel k = nFun(n => fun(n.f32)(xs => xs |> padCst(0)((1024 - n % 1024) % 1024)(0.0f)"
                       " |> split(1024) |> mapBlock(fun(c => c |> split(2) |> transpose |> join"
                       " |> mapThreads(fun(x => x + 1.0f)))) |> join))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "} else {") == NULL, "%s", cu);
    ck_assert_msg(strstr(cu, "t1 / 512)) >= n)) ? 0.0f : xs[") != NULL, "%s", cu);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = fun(4096.f32)(xs => xs |> split(1024) |> mapBlock(fun(c => c |> split(4)"
                   " |> mapThreads(fun(p => p |> reduceSeq(add)(0.0f))))) |> join)");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "} else {") == NULL && strstr(cu, ">=") == NULL, "%s", cu);
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
        /* lowered as kernel IR (prims/warp.c lw_last_open): the grid's last block runs the
         * body, then a barrier, then its threads clear the flags with relaxed stores */
        const char *last = strstr(k, "if ((((((patc_int)blockIdx.x) == (((patc_int)gridDim.x) - 1)) && "), *bar, *clr;
        ck_assert_msg(last, "%s", k);
        bar = strstr(last, "__syncthreads();\n        for (patc_int r");
        clr = bar ? strstr(bar, "patc_poke(&partial0[") : NULL;
        ck_assert_msg(bar && clr && strstr(clr, "], 0ull);"), "%s", k);
        ck_assert_msg(!strstr(k, "atom") && !strstr(k, "ticket") && !strstr(k, "patc_last") && !strstr(k, "bool *last"), "%s", k);
        free(k);
        k = kernel_text(cu, ticket[i]);
        ck_assert_msg(strstr(k, "ticket1, patc_int m, patc_int k)"), "%s", k);
        /* a barrier, thread 0's acq_rel ticket into the shared flag, a barrier, the body,
         * thread 0's reset */
        const char *b1 = strstr(k, "    __syncthreads();\n    if (((((patc_int)threadIdx.x) + ((patc_int)threadIdx.y) + "
                                   "((patc_int)threadIdx.z)) == 0)) {\n");
        const char *tk = b1 ? strstr(b1, " = patc_atom_add_acq_rel(&ticket1[0], 1u);") : NULL;
        const char *fl = tk ? strstr(tk, "[0] = (ticket") : NULL;
        const char *b2 = fl ? strstr(fl, "    __syncthreads();\n    if (last") : NULL;
        const char *rs = b2 ? strstr(b2, "ticket1[0] = 0u;") : NULL;
        ck_assert_msg(rs, "%s", k);
        ck_assert_int_eq(count_substr(k, "patc_atom_add_acq_rel"), 1);
        ck_assert_msg(strstr(k, "__ldcg(&partial0[") && !strstr(k, "patc_wait"), "%s", k);
        free(k);
    }
    /* the helpers are printed once, ahead of the kernels */
    ck_assert_int_eq(count_substr(cu, "static __device__ __forceinline__ unsigned int patc_wait("), 1);
    ck_assert_int_eq(count_substr(cu, "atom.acq_rel.gpu.global.add.u32"), 1);
    free(cu);
    tc_free(t);
}
END_TEST

/* The look-back as kernel IR (prims/warp.c draw_tile, look_back): the tile drawn by
 * thread 0 into a shared word of the layout, a barrier, the tile and the epoch in
 * registers; warp 0 publishes, polls a window of 32 tiles with relaxed loads until
 * __all_sync, sleeping 32 ns, combines it with five shuffles down and one broadcast,
 * and publishes its prefix. Packed: one relaxed 64-bit word per tile; unpacked: a
 * relaxed flag read, a fence, the values through L2, release flag stores. */
START_TEST(look_back_as_ir)
{
    Define d[] = {{"nt", 128}, {"ipt", 25}};
    char *src = slurp(PATC_SOURCE_DIR "/examples/scan_device.rise");
    TC *t = tc_compile_flags(PATC_SOURCE_DIR "/examples/scan_device.rise", src, d, 2, NULL);
    free(src);
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    char *k = kernel_text(cu, "inclSumF32");
    const char *draw = strstr(k, "= atomicAdd(&lbctr");
    const char *bar = draw ? strstr(draw, "__syncthreads();\n    unsigned int lbtile") : NULL;
    const char *w0 = bar ? strstr(bar, "if ((warp == 0)) {") : NULL;
    const char *poll = w0 ? strstr(w0, "for (;;) {") : NULL;
    const char *peek = poll ? strstr(poll, "? patc_peek(&lbstate") : NULL;
    const char *all = peek ? strstr(peek, "if (__all_sync(0xffffffffu, ") : NULL;
    const char *sl = all ? strstr(all, "break;\n                        }\n                        __nanosleep(32);") : NULL;
    const char *bal = sl ? strstr(sl, "__ballot_sync(0xffffffffu, ") : NULL;
    ck_assert_msg(bal, "%s", k);
    ck_assert_int_eq(count_substr(k, "__shfl_down_sync(0xffffffffu, lbv"), 5);
    ck_assert_int_eq(count_substr(k, "__shfl_sync(0xffffffffu, lbv"), 1);
    ck_assert_int_eq(count_substr(k, "patc_poke(&lbstate"), 3);
    ck_assert_msg(!strstr(k, "__shared__ unsigned long long") && !strstr(k, "__threadfence"), "%s", k);
    free(k);
    free(cu);
    tc_free(t);
    t = tc_compile_file(PATC_SOURCE_DIR "/tests/programs/lookback_affine.rise");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_int_eq(count_substr(cu, "patc_poke32(&lbflag"), 3);
    const char *pk = strstr(cu, "? patc_peek32(&lbflag"), *fe = pk ? strstr(pk, "__threadfence();") : NULL;
    ck_assert_msg(fe && strstr(fe, "__ldcg(&lbinc") && strstr(fe, "__ldcg(&lbagg"), "%s", cu);
    free(cu);
    tc_free(t);
}
END_TEST

/* Multisplit ranks a round of 32 elements by one patc_match_bits (the prelude's vote per
 * bit of the bucket, in PTX), not by a ballot per bit written in C; the helper is printed
 * once, and only in modules whose kernels call it. */
START_TEST(multisplit_match_codegen)
{
    TC *t = tc_compile_file(PATC_SOURCE_DIR "/examples/multisplit.rise");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_int_eq(count_substr(cu, "unsigned int patc_match_bits(unsigned int x, unsigned int w)"), 1);
    char *k = kernel_text(cu, "msU32");
    /* full tiles and the last one: 256 buckets, 8 bits */
    ck_assert_int_eq(count_substr(k, "__ballot_sync(0xffffffffu, msok"), 2);
    ck_assert_int_eq(count_substr(k, "& patc_match_bits(msb"), 2);
    ck_assert_int_eq(count_substr(k, "__ballot_sync"), 2);
    ck_assert_msg(strstr(k, ", 8u));"), "%s", k);
    free(k);
    k = kernel_text(cu, "msWide"); /* 4096 buckets */
    ck_assert_msg(strstr(k, ", 12u));"), "%s", k);
    free(k);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel r = fun(4096.u32)(xs => xs |> split(1024) |> mapBlock(fun(c => c |> split(4)"
                   " |> mapThreads(fun(p => p |> reduceSeq(add)(0u))))) |> join)");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(!strstr(cu, "patc_match_bits"), "%s", cu);
    free(cu);
    tc_free(t);
}
END_TEST

/* A value bound once is computed once (issue 33, item 7b): a scalar or a pair of scalars
 * that a lambda binds (an element of a lazily computed map, a reduceSeq's element, a
 * let-bound pair) and reads twice is computed into one register; a row read by three
 * passes is read three times unless the program stores it (toPrivate). */
START_TEST(bound_once_computed_once)
{
    const char *src =
        "kernel letPair = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => pair(exp(x))(x) |> fun(p => fst(p) * fst(p) + snd(p))))))\n"
        "kernel mapElem = nFun(n => fun(n.f32)(xs => xs |> mapSeq(fun(x => exp(x))) |> mapGlobal(fun(y => y * y))))\n"
        "kernel reduceElem = nFun(n => fun((n*32).f32)(xs => xs |> split(32) |> mapGlobal(fun(r => r |> mapSeq(fun(x => exp(x))) "
        "|> reduceSeq(fun(a => fun(y => a + y * y)))(0.0f)))))\n"
        "kernel pairElem = nFun(n => fun(n.f32)(xs => zip(xs)(xs) |> mapSeq(fun(p => pair(exp(fst(p)))(snd(p)))) "
        "|> mapGlobal(fun(q => fst(q) * fst(q) + snd(q)))))\n"
        "kernel usedOnce = nFun(n => fun(n.f32)(xs => xs |> mapSeq(fun(x => exp(x))) |> mapGlobal(fun(y => y + 1.0f))))\n";
    TC *t = tc_compile(src);
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    const char *twice[] = {"letPair", "mapElem", "reduceElem", "pairElem"};
    for (int i = 0; i < 4; i++) {
        char *k = kernel_text(cu, twice[i]);
        ck_assert_msg(count_substr(k, "expf(") == 1, "%s", k);
        ck_assert_msg(strstr(k, "float v"), "%s", k);
        free(k);
    }
    char *k = kernel_text(cu, "usedOnce"); /* read once: no register of its own */
    ck_assert_msg(count_substr(k, "expf(") == 1 && !strstr(k, "float v"), "%s", k);
    free(k);
    free(cu);
    tc_free(t);

    t = tc_compile_file(PATC_SOURCE_DIR "/tests/programs/layernorm_reads.rise");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    k = kernel_text(cu, "layerNormThreeReads");
    ck_assert_msg(count_substr(k, "xs[") == 4, "%s", k); /* the variance reads twice in one expression */
    free(k);
    k = kernel_text(cu, "layerNormOneRead");
    ck_assert_msg(count_substr(k, "xs[") == 1, "%s", k);
    free(k);
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
        NatEnv env = {vals, has, 64, 0};
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

/* ---------------------------------------------------------------- shuffles run by every lane */

/* Does s[b..e) mention the identifier `lane` or `threadIdx` (a lane-dependent value)? */
static bool mentions_lane(const char *s, size_t b, size_t e)
{
    static const char *const ids[] = {"lane", "threadIdx"};
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(ids[k]);
        for (size_t i = b; i + n <= e; i++) {
            if (strncmp(s + i, ids[k], n)) continue;
            /* the warp's number (lookback's `(threadIdx.x) >> 5 == 0u`) is the same on
             * all its lanes */
            if (k == 1 && !strncmp(s + i, "threadIdx.x) >> 5 ", 18)) continue;
            bool lw = i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');
            bool rw = i + n < e && (isalnum((unsigned char)s[i + n]) || s[i + n] == '_');
            if (!lw && !rw) return true;
        }
    }
    return false;
}

/* Is the shuffle at s[at] an operand (not the condition) of some `c ? a : b`? C
 * evaluates only the chosen operand, so the lanes choosing the other skip it. The
 * operands of the `?` at q run to the first `,` or `;` at its depth or the first
 * bracket closing around it. */
static bool in_conditional_operand(const char *s, size_t at)
{
    for (size_t q = 0; s[q]; q++) {
        if (s[q] != '?') continue;
        int depth = 0;
        size_t e = q + 1;
        for (; s[e]; e++) {
            char c = s[e];
            if (c == '(' || c == '[' || c == '{') depth++;
            else if ((c == ')' || c == ']' || c == '}') && --depth < 0) break;
            else if (depth == 0 && (c == ';' || c == ',')) break;
        }
        if (at > q && at < e) return true;
    }
    return false;
}

/* Is the shuffle at s[at] inside an `if`, `else`, `while` or `for` (a block, or a
 * statement without braces) whose head mentions lane or threadIdx? The heads of the
 * open blocks are kept on a stack; an `else` inherits the head of the `if` it ends. */
static bool in_lane_branch(const char *s, size_t at)
{
    size_t head[64][2], last[2] = {0, 0};
    int n = 0;
    size_t st = 0; /* where the current statement starts */
    for (size_t i = 0; i < at; i++) {
        if (s[i] == '{') {
            ck_assert_int_lt(n, 64);
            size_t b = st;
            while (isspace((unsigned char)s[b])) b++;
            if (!strncmp(s + b, "else", 4)) head[n][0] = last[0], head[n][1] = last[1];
            else head[n][0] = b, head[n][1] = i;
            n++;
            st = i + 1;
        } else if (s[i] == '}') {
            if (n > 0) n--, last[0] = head[n][0], last[1] = head[n][1];
            st = i + 1;
        } else if (s[i] == ';') {
            /* a for head holds two ';' inside its parentheses */
            int depth = 0;
            for (size_t j = st; j < i; j++) depth += s[j] == '(' ? 1 : s[j] == ')' ? -1 : 0;
            if (depth == 0) st = i + 1;
        }
    }
    for (int k = 0; k < n; k++) {
        size_t b = head[k][0];
        bool branch = !strncmp(s + b, "if", 2) || !strncmp(s + b, "while", 5) || !strncmp(s + b, "for", 3);
        if (branch && mentions_lane(s, b, head[k][1])) return true;
    }
    size_t b = st;
    while (isspace((unsigned char)s[b])) b++;
    return (!strncmp(s + b, "if", 2) || !strncmp(s + b, "while", 5)) && mentions_lane(s, b, at);
}

/* The CUDA text with its comments blanked out (caller frees). */
static char *without_comments(const char *cu)
{
    char *s = strdup(cu);
    for (char *p = s; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            e = e ? e + 2 : p + strlen(p);
            memset(p, ' ', (size_t)(e - p));
            p = e - 1;
        } else if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') *p++ = ' ';
            if (!*p) break;
        }
    }
    return s;
}

/* The number of __shfl calls in cu, each checked to be run by every lane: none is an
 * operand of ?: or inside a lane-dependent branch. `what` names the program. */
static int check_shuffles_unconditional(const char *cu, const char *what)
{
    char *s = without_comments(cu);
    int n = 0;
    for (const char *p = strstr(s, "__shfl"); p; p = strstr(p + 1, "__shfl")) {
        size_t at = (size_t)(p - s);
        size_t b = at, e = at;
        while (b > 0 && s[b - 1] != '\n') b--;
        while (s[e] && s[e] != '\n') e++;
        ck_assert_msg(!in_conditional_operand(s, at), "%s: a shuffle is an operand of ?: (only some lanes run it):\n%.*s\n%s",
                      what, (int)(e - b), s + b, cu);
        ck_assert_msg(!in_lane_branch(s, at), "%s: a shuffle inside a lane-dependent branch:\n%.*s\n%s", what,
                      (int)(e - b), s + b, cu);
        n++;
    }
    free(s);
    return n;
}

/* The checker itself: it flags what it is meant to flag. */
START_TEST(shuffle_checker_flags_conditional_code)
{
    const char *bad[] = {
        "float r2 = (r1 + ((lane < 1) ? 0.0f : __shfl_sync(0xffffffffu, r1, (lane - 1))));",
        "float r2 = (lane < 1) ? __shfl_up_sync(0xffffffffu, r1, 1) : 0.0f;",
        "if (lane < 16) {\n    out[lane] = __shfl_down_sync(0xffffffffu, r1, 1);\n}",
        "if (lane == 0) {\n} else {\n    float t = __shfl_sync(0xffffffffu, r1, 3);\n}",
        "if ((threadIdx.x & 31) < 3) x = __shfl_xor_sync(0xffffffffu, r1, 1);",
        "for (int l = lane; l < n; l += 32) {\n    float t = __shfl_sync(0xffffffffu, r1, l);\n}",
    };
    for (int i = 0; i < 6; i++) {
        char *s = without_comments(bad[i]);
        size_t at = (size_t)(strstr(s, "__shfl") - s);
        ck_assert_msg(in_conditional_operand(s, at) || in_lane_branch(s, at), "not flagged: %s", bad[i]);
        free(s);
    }
    const char *good = "for (patc_int w0 = warp; w0 < n; w0 += nwarps) {\n"
                       "    float t1 = __shfl_sync(0xffffffffu, r1, max(0, (lane - 1))); /* lane < 1 ? */\n"
                       "    float r2 = (r1 + ((lane < 1) ? 0.0f : t1));\n"
                       "    if (lane < 1) {\n        out[lane] = r2;\n    }\n"
                       "    float t2 = __shfl_sync(0xffffffffu, ((lane < 3) ? r1 : r2), 3);\n"
                       "}\n";
    ck_assert_int_eq(check_shuffles_unconditional(good, "good"), 2);
}
END_TEST

/* Every __shfl*_sync is executed by all lanes its mask names: a view of a warp array
 * that selects lanes (take, drop, padCst, padClamp) around a read of another lane or
 * around a shuffle's result shuffles first, on every lane, then selects. The
 * Hillis-Steele step of the issue (`take(32 - d) |> padCst(d)(0)(0)`) used to emit
 * `(lane < d) ? 0 : __shfl_sync(..., lane - d)`. */
START_TEST(shuffles_run_on_every_lane)
{
    static const char *const bodies[] = {
        /* the Hillis-Steele step read through take/padCst of the warp array itself */
        "zip(a)(a |> take(32 - @) |> padCst(@)(0)(0.0f)) |> mapLane(fun(p => add(fst(p))(snd(p))))",
        /* the same with shflUpWarp: lanes below @ get 0, not their own element */
        "zip(a)(a |> shflUpWarp(@) |> drop(@) |> padCst(@)(0)(0.0f)) |> mapLane(fun(p => add(fst(p))(snd(p))))",
        /* shflDownWarp's upper lanes replaced by 0 */
        "a |> shflDownWarp(@) |> take(32 - @) |> padCst(0)(@)(0.0f) |> toPrivate",
        /* shflXorWarp and shflWarp behind padCst */
        "a |> shflXorWarp(@) |> take(32 - @) |> padCst(0)(@)(1.0f) |> toPrivate",
        "a |> shflWarp(generate(fun(i => (i + @) % 32))) |> take(32 - @) |> padCst(0)(@)(0.0f) |> toPrivate",
        /* padClamp: the clamped lane is always in range */
        "a |> drop(@) |> padClamp(0)(@) |> toPrivate",
        /* the padded view itself mapped over (in a written position: a lane loop) */
        "a |> take(32 - @) |> padCst(@)(0)(0.0f)",
        /* a select nested in a select */
        "a |> take(32 - @) |> padCst(@)(0)(2.0f) |> take(31) |> padCst(0)(1)(3.0f) |> toPrivate",
    };
    const int ds[] = {1, 2, 4, 8, 16};
    int shuffles = 0;
    for (size_t b = 0; b < sizeof bodies / sizeof *bodies; b++)
        for (int k = 0; k < 5; k++) {
            /* the body twice: read back through mapLane (read position) and written to
             * the output by a mapLane over the view (write position) */
            for (int written = 0; written < 2; written++) {
                StrBuf src = {0}, body = {0};
                for (const char *q = bodies[b]; *q; q++)
                    if (*q == '@') sb_printf(&body, "%d", ds[k]);
                    else sb_putc(&body, *q);
                sb_printf(&src, "kernel k = nFun(n => fun((32*n).f32)(xs => xs |> split(32) |> mapWarp(fun(w => "
                          "w |> toPrivate |> fun(a => %s)%s)) |> join))",
                          body.s, written ? " |> mapLane(id)" : " |> mapLane(fun(x => x * 2.0f)) |> toPrivate |> mapLane(id)");
                TC *t = tc_compile(src.s);
                ck_assert_msg(t->ok, "%s\n%s", src.s, tc_err(t));
                char *cu = tc_cuda(t);
                int n = check_shuffles_unconditional(cu, src.s);
                ck_assert_msg(n > 0, "no shuffle in %s\n%s", src.s, cu);
                char *log = NULL;
                if (k == 0) /* the clamped source lanes are valid CUDA (int and 64-bit lane loops) */
                    ck_assert_msg(nvrtc_ok(cu, "k", &log), "%s does not compile:\n%s\n%s", src.s, log, cu);
                free(log);
                shuffles += n;
                free(cu);
                tc_free(t);
                sb_free(&src);
                sb_free(&body);
            }
        }
    ck_assert_int_ge(shuffles, 60);
    /* the Hillis-Steele scan program, and every golden CUDA file (examples and the
     * thesis's programs, with the options they name; golden.sh keeps them current) */
    TC *t = tc_compile_file(PATC_SOURCE_DIR "/tests/programs/scan_warp_hs.rise");
    char *cu = tc_cuda(t);
    ck_assert_int_ge(check_shuffles_unconditional(cu, "scan_warp_hs.rise"), 20); /* 5 steps x 4 kernels */
    free(cu);
    tc_free(t);
    const char *dirs[] = {PATC_SOURCE_DIR "/examples", PATC_SOURCE_DIR "/tests/thesis"};
    int files = 0;
    for (int di = 0; di < 2; di++) {
        DIR *d = opendir(dirs[di]);
        ck_assert_ptr_nonnull(d);
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l < 4 || strcmp(e->d_name + l - 3, ".cu")) continue;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dirs[di], e->d_name);
            char *golden = slurp(path);
            files += check_shuffles_unconditional(golden, path) > 0;
            free(golden);
        }
        closedir(d);
    }
    ck_assert_int_ge(files, 8); /* the files with shuffles */
}
END_TEST

/* idx, gather and scatter read their index at run time into a private variable, which
 * index arithmetic then uses; the variable is bounded by the array length, so the
 * index width stays 32-bit for a small array. concat reads through a select, and
 * padEmpty and concat written to memory write only their arguments. */
/* accumulate (issue 33 item 2): the bins set to init by the block's threads, a barrier,
 * one CUDA atomic per pair behind the bin's range test (a signed bin tested from 0),
 * long long add through unsigned long long, and a barrier before the bins are read. */
START_TEST(accumulate_codegen)
{
    Define d[] = {{"g", 4}};
    TC *t = tc_compile_defs(
        "kernel a = nFun(g => fun((g * 512).u32)(xs => xs |> split(512) |> mapBlock(fun(c => c |> split(2) "
        "|> mapThreads(fun(p => p |> mapSeq(fun(x => pair(x)(1u))))) |> join |> accumulate(256)(add)(0u) "
        "|> toShared |> mapThreads(id))) |> join))\n"
        "kernel m = nFun(g => fun((g * 256).i32)(xs => xs |> split(256) |> mapBlock(fun(c => c "
        "|> mapThreads(fun(x => pair(x)(x))) |> accumulate(64)(min)(2147483647) |> toShared |> mapThreads(id))) |> join))\n"
        "kernel l = nFun(g => fun((g * 256).i64)(xs => xs |> split(256) |> mapBlock(fun(c => c "
        "|> mapThreads(fun(x => pair(i32(x))(x))) |> accumulate(64)(add)(i64(0)) |> toShared |> mapThreads(id))) |> join))\n"
        "kernel f = nFun(g => fun((g * 256).f32)(xs => xs |> split(256) |> mapBlock(fun(c => c "
        "|> mapThreads(fun(x => pair(u32(x))(x))) |> accumulate(16)(add)(0.0f) |> toShared |> mapThreads(id))) |> join))\n"
        "kernel gl = nFun(n => fun(n.u32)(xs => xs |> mapGlobal(fun(x => pair(x)(x))) |> accumulate(16)(max)(5u)))",
        d, 1);
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    /* u32 add: CUDA's atomicAdd (a warp-aggregated form with __activemask() masks hung on an
     * H200 where the lanes' bins differed, 2026-11-26) */
    const char *ka = strstr(cu, ") a("), *kf = strstr(cu, ") f(");
    ck_assert_ptr_nonnull(ka);
    ck_assert_ptr_nonnull(kf);
    const char *add_a = strstr(ka, "atomicAdd(&s"), *next = strstr(ka, "extern \"C\"");
    ck_assert_msg(add_a && (!next || add_a < next) && !strstr(cu, "__activemask"), "%s", cu); /* in kernel a */
    ck_assert_msg(strstr(kf, "atomicAdd(&s"), "%s", kf);              /* f32 add */
    ck_assert_msg(strstr(cu, " < ((unsigned int)256))"), "%s", cu);
    ck_assert_msg(strstr(cu, "atomicMin(&s"), "%s", cu);
    ck_assert_msg(strstr(cu, ">= ((int)0)) && ("), "%s", cu);
    ck_assert_msg(strstr(cu, "atomicAdd((unsigned long long *)&s"), "%s", cu);
    /* the initialisation, then a barrier, then the atomics, then a barrier */
    const char *init = strstr(cu, "] = 0u;"), *bar = strstr(cu, "__syncthreads();"), *at = strstr(cu, "atomicAdd(&s");
    ck_assert(init && bar && at && init < bar && bar < at);
    ck_assert_ptr_nonnull(strstr(at, "__syncthreads();"));
    /* global: atomics into zeroed scratch bins, the last block (ticket) writes max(5, bin)
     * and clears them */
    const char *gl = strstr(cu, ") gl(");
    ck_assert_ptr_nonnull(gl);
    ck_assert_msg(strstr(gl, "atomicMax(&bins"), "%s", gl);
    ck_assert_msg(strstr(gl, "patc_atom_add_acq_rel(&ticket"), "%s", gl);
    ck_assert_msg(strstr(gl, "__ldcg(&bins"), "%s", gl);
    ck_assert_msg(strstr(gl, "] = ((unsigned int)0);"), "%s", gl);
    free(cu);
    tc_free(t);
}
END_TEST

START_TEST(data_movement_codegen)
{
    Define d[] = {{"n", 1000}};
    TC *t = tc_compile_defs("kernel g = nFun(n => fun(n.idx[n])(p => fun(n.f32)(xs => gather(p)(xs) |> mapGlobal(id))))\n"
                            "kernel s = nFun(n => fun(n.idx[n])(p => fun(n.f32)(ys => scatter(p)(ys |> mapGlobal(id)))))\n"
                            "kernel i = nFun(n => fun(n.u32)(js => fun(n.f32)(xs => js |> mapGlobal(fun(j => idx(j)(xs))))))\n"
                            "kernel c = nFun(n => fun(n.f32)(xs => fun(n.f32)(ys => concat(xs)(ys) |> mapGlobal(id))))\n"
                            "kernel w = nFun(n => fun(n.f32)(xs => fun(n.f32)(ys => concat(xs |> mapGlobal(id))(ys |> mapGlobal(id)))))\n"
                            "kernel e = nFun(n => fun(n.f32)(xs => padEmpty(3)(xs |> mapGlobal(id))))\n"
                            "kernel t = nFun(n => fun(n.idx[n])(p => fun(n.f32)(xs => "
                            "xs |> split(n) |> mapBlock(fun(r => r |> toShared |> gather(p) |> mapThreads(id))) |> join)))",
                            d, 1);
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "int ix1 = p[g0];\n        out[g0] = xs[ix1];"), "missing: %s", "int ix1 = p[g0];\n        out[g0] = xs[ix1];");
    ck_assert_msg(strstr(cu, "int ix1 = p[g0];\n        out[ix1] = ys[g0];"), "missing: %s", "int ix1 = p[g0];\n        out[ix1] = ys[g0];");
    ck_assert_msg(strstr(cu, "long long ix1 = ((long long)js[g0]);\n        out[g0] = xs[ix1];"), "missing: %s", "long long ix1 = ((long long)js[g0]);\n        out[g0] = xs[ix1];");
    ck_assert_msg(strstr(cu, "(g0 < 1000) ? xs["), "missing: %s", "(g0 < 1000) ? xs[");
    ck_assert_msg(strstr(cu, "out[(g1 + 1000)] = ys[g1];"), "missing: %s", "out[(g1 + 1000)] = ys[g1];");
    /* padEmpty(3): 1000 elements written of the 1003 */
    ck_assert_msg(strstr(cu, "output:          out: 1003.f32"), "missing: %s", "output:          out: 1003.f32");
    ck_assert_int_eq(count_substr(cu, "< 1003"), 0);
    /* a gather from shared memory: its read is seen by the barrier pass */
    ck_assert_msg(strstr(cu, "__syncthreads();"), "missing: %s", "__syncthreads();");
    for (int i = 0; i < t->c.nkernels; i++) ck_assert_int_eq(t->c.kernels[i]->iw, IW_32);
    free(cu);
    tc_free(t);
    /* a gather read through padCst: its index is read at the padded positions too
     * (before the choice), so at an index clamped into the index array */
    t = tc_compile("kernel gp = nFun(n => fun(n.idx[n])(p => fun(n.f32)(xs =>\n"
                   "  gather(p)(xs) |> padCst(2)(3)(0.0f) |> mapGlobal(id))))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    const char *clamped = "= p[max((patc_int)0, (patc_int)min((patc_int)(n - 1), (patc_int)(g0 - 2)))];";
    ck_assert_msg(strstr(cu, clamped), "missing: %s\n%s", clamped, cu);
    ck_assert_int_eq(count_substr(cu, "= p["), 1);
    ck_assert_msg(strstr(cu, "(((g0 < 2) || ((g0 - 2) >= n)) ? 0.0f : xs[ix"), "%s", cu);
    free(cu);
    tc_free(t);
    /* a symbolic length: the index variable is bounded by it */
    t = tc_compile("kernel g = nFun(n => fun(n.idx[n])(p => fun(n.f32)(xs => gather(p)(xs) |> mapGlobal(id))))");
    EXPECT_OK(t);
    ck_assert_ptr_nonnull(t->c.kernels[0]->index_bound);
    tc_free(t);
    t = tc_compile("kernel s = nFun(n => fun(n.idx[n])(p => fun(n.f32)(ys => scatter(p)(ys) |> mapGlobal(id))))");
    ck_assert(!t->ok);
    ck_assert_msg(strstr(tc_err(t), "the result of scatter is read here without being stored"), "%s", tc_err(t));
    tc_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("codegen");
    TCase *c = tcase_create("core");
    tcase_set_timeout(c, 300);
    tcase_add_test(c, header_and_signature);
    tcase_add_test(c, vector_loads_through_padclamp);
    tcase_add_test(c, padcst_register_reads_stay_in_bounds);
    tcase_add_test(c, evict_first_streams_lookback_kernels);
    tcase_add_test(c, bins_in_result_adds_into_the_output);
    tcase_add_test(c, multisplit_next_outputs);
    tcase_add_test(c, full_tiles_drop_bound_tests);
    tcase_add_test(c, full_tiles_keep_unproved_tests);
    tcase_add_test(c, index_width);
    tcase_add_test(c, literals);
    tcase_add_test(c, padding_block_count);
    tcase_add_test(c, padding_block_count_symbolic);
    tcase_add_test(c, emission_is_fast);
    tcase_add_test(c, examples_compile_with_nvrtc);
    tcase_add_test(c, last_block_protocol_by_type);
    tcase_add_test(c, look_back_as_ir);
    tcase_add_test(c, bound_once_computed_once);
    tcase_add_test(c, shuffle_checker_flags_conditional_code);
    tcase_add_test(c, shuffles_run_on_every_lane);
    tcase_add_test(c, data_movement_codegen);
    tcase_add_test(c, nested_views_codegen);
    tcase_add_test(c, accumulate_codegen);
    tcase_add_test(c, multisplit_match_codegen);
    suite_add_tcase(s, c);
    return run_suite(s);
}
