/* test_algo.c: the ready-made algorithms (patc_algo_*) without a GPU: every algorithm
 * and element type on the CPU interpreter against a plain C loop at ragged sizes, the
 * generated program's typing (a bad lambda fails at creation with its diagnostics),
 * the spec's and the call's checks, and the choice of built-in or user tuning line.
 * The GPU runs of the same calls against CUB are tests/gpu/all.sh's section a. */
#include "../runtime/patc.h"

#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PATC_SOURCE_DIR
#define PATC_SOURCE_DIR "."
#endif

static patc_ctx *ctx;

static void setup(void)
{
    /* no include directory: the generated programs import the patterns built into
     * libpatrt (or an installed share/patc/patterns) */
    ck_assert_int_eq(patc_create(&ctx, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
}

static void teardown(void)
{
    patc_destroy(ctx);
    ctx = NULL;
}

static patc_algo *make(patc_algorithm alg, patc_type t, patc_op op)
{
    patc_algo_spec s = {.algorithm = alg, .type = t, .op = op};
    patc_algo *a;
    ck_assert_msg(patc_algo_create(ctx, &s, &a) == PATC_OK, "%s", patc_last_error(ctx));
    return a;
}

/* Values as doubles, stored in the type: small integers (-49..49, or 0..98 unsigned) so
 * that sums are exact in every type and order. */
static void put(patc_type t, void *p, long long i, double v)
{
    switch (t) {
    case PATC_F32: ((float *)p)[i] = (float)v; break;
    case PATC_F64: ((double *)p)[i] = v; break;
    case PATC_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case PATC_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case PATC_I64: ((int64_t *)p)[i] = (int64_t)v; break;
    case PATC_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    case PATC_BOOL: break;
    }
}

static double get(patc_type t, const void *p, long long i)
{
    switch (t) {
    case PATC_F32: return ((const float *)p)[i];
    case PATC_F64: return ((const double *)p)[i];
    case PATC_I32: return ((const int32_t *)p)[i];
    case PATC_U32: return ((const uint32_t *)p)[i];
    case PATC_I64: return (double)((const int64_t *)p)[i];
    case PATC_U64: return (double)((const uint64_t *)p)[i];
    case PATC_BOOL: break;
    }
    return 0;
}

static bool is_unsigned(patc_type t) { return t == PATC_U32 || t == PATC_U64; }

static void *fill(patc_type t, long long n, unsigned seed)
{
    void *p = malloc((size_t)n * patc_type_size(t) + 1);
    unsigned x = seed * 2654435761u + 1;
    for (long long i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        int v = (int)((x >> 16) % 99) - 49;
        put(t, p, i, is_unsigned(t) ? v + 49 : v);
    }
    return p;
}

static double apply(patc_op op, double a, double b) { return op == PATC_OP_SUM ? a + b : op == PATC_OP_MIN ? fmin(a, b) : fmax(a, b); }

static const long long sizes[] = {1, 31, 33, 1000, 4097};
static const patc_type types[] = {PATC_F32, PATC_F64, PATC_I32, PATC_U32, PATC_I64, PATC_U64};

/* Reduce and both scans, each type and operator, against a loop in order. */
START_TEST(reduce_and_scans_match_a_loop)
{
    patc_type t = types[_i];
    for (int alg = PATC_ALGO_REDUCE; alg <= PATC_ALGO_EXCLUSIVE_SCAN; alg++)
        for (int op = PATC_OP_SUM; op <= PATC_OP_MAX; op++) {
            patc_algo *a = make(alg, t, op);
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                long long n = sizes[si];
                void *in = fill(t, n, (unsigned)(n + op));
                void *out = malloc((size_t)n * patc_type_size(t));
                ck_assert_msg(patc_algo_run_cpu(a, in, out, NULL, n, NULL) == PATC_OK, "%s", patc_last_error(ctx));
                double acc = 0;
                for (long long i = 0; i < n; i++) {
                    double x = get(t, in, i);
                    if (alg == PATC_ALGO_EXCLUSIVE_SCAN && i > 0)
                        ck_assert_msg(get(t, out, i) == acc, "%s excl op %d n %lld at %lld: %g, want %g",
                                      patc_type_name(t), op, n, i, get(t, out, i), acc);
                    acc = i == 0 ? x : apply(op, acc, x);
                    if (alg == PATC_ALGO_INCLUSIVE_SCAN)
                        ck_assert_msg(get(t, out, i) == acc, "%s incl op %d n %lld at %lld: %g, want %g",
                                      patc_type_name(t), op, n, i, get(t, out, i), acc);
                }
                if (alg == PATC_ALGO_REDUCE)
                    ck_assert_msg(get(t, out, 0) == acc, "%s reduce op %d n %lld: %g, want %g", patc_type_name(t), op, n,
                                  get(t, out, 0), acc);
                free(in);
                free(out);
            }
            patc_algo_free(a);
        }
}
END_TEST

/* The exclusive scan starts from the operator's neutral element: 0, the type's largest
 * value (+inf) for min, its lowest (-inf) for max. */
START_TEST(exclusive_scan_starts_at_the_neutral_element)
{
    float in[3] = {1, 2, 3}, out[3];
    patc_algo *mn = make(PATC_ALGO_EXCLUSIVE_SCAN, PATC_F32, PATC_OP_MIN);
    ck_assert_int_eq(patc_algo_run_cpu(mn, in, out, NULL, 3, NULL), PATC_OK);
    ck_assert(isinf(out[0]) && out[0] > 0);
    patc_algo *mx = make(PATC_ALGO_EXCLUSIVE_SCAN, PATC_F32, PATC_OP_MAX);
    ck_assert_int_eq(patc_algo_run_cpu(mx, in, out, NULL, 3, NULL), PATC_OK);
    ck_assert(isinf(out[0]) && out[0] < 0);
    int64_t li[2] = {5, 6}, lo[2];
    patc_algo *imn = make(PATC_ALGO_EXCLUSIVE_SCAN, PATC_I64, PATC_OP_MIN);
    ck_assert_int_eq(patc_algo_run_cpu(imn, li, lo, NULL, 2, NULL), PATC_OK);
    ck_assert(lo[0] == INT64_MAX && lo[1] == 5);
    patc_algo *imx = make(PATC_ALGO_EXCLUSIVE_SCAN, PATC_I64, PATC_OP_MAX);
    ck_assert_int_eq(patc_algo_run_cpu(imx, li, lo, NULL, 2, NULL), PATC_OK);
    ck_assert(lo[0] == INT64_MIN && lo[1] == 5);
    uint64_t ui[2] = {5, 6}, uo[2];
    patc_algo *umn = make(PATC_ALGO_EXCLUSIVE_SCAN, PATC_U64, PATC_OP_MIN);
    ck_assert_int_eq(patc_algo_run_cpu(umn, ui, uo, NULL, 2, NULL), PATC_OK);
    ck_assert(uo[0] == UINT64_MAX && uo[1] == 5);
}
END_TEST

/* The float min and max reductions and scans are the identity on infinities: a max
 * over elements that are all -inf is -inf and a min over +inf elements +inf (their
 * neutral elements are -inf and +inf, not the largest finite values), for f32 and f64,
 * at sizes that pad a tile and that take several. */
START_TEST(min_max_keep_infinities)
{
    static const long long ns[] = {1, 1000, 5003};
    for (int ti = 0; ti < 2; ti++) {
        patc_type t = ti ? PATC_F64 : PATC_F32;
        for (int mx = 0; mx < 2; mx++) {
            double inf = mx ? -INFINITY : INFINITY;
            for (int alg = PATC_ALGO_REDUCE; alg <= PATC_ALGO_INCLUSIVE_SCAN; alg++) {
                patc_algo *a = make((patc_algorithm)alg, t, mx ? PATC_OP_MAX : PATC_OP_MIN);
                for (size_t si = 0; si < sizeof ns / sizeof ns[0]; si++) {
                    long long n = ns[si];
                    void *in = calloc((size_t)n, 8), *out = calloc((size_t)n, 8);
                    for (long long i = 0; i < n; i++) put(t, in, i, inf);
                    ck_assert_msg(patc_algo_run_cpu(a, in, out, NULL, n, NULL) == PATC_OK, "%s", patc_last_error(ctx));
                    long long check = alg == PATC_ALGO_REDUCE ? 1 : n;
                    for (long long i = 0; i < check; i++)
                        ck_assert_msg(get(t, out, i) == inf, "%s %s alg %d n %lld at %lld: %g, want %g",
                                      patc_type_name(t), mx ? "max" : "min", alg, n, i, get(t, out, i), inf);
                    free(in);
                    free(out);
                }
                patc_algo_free(a);
            }
        }
    }
}
END_TEST

/* Filter and the partitions with x > t (t a scalar of the call), each type: the count,
 * the selected in order; the others reversed (partition) or in order (stable). */
START_TEST(selects_match_a_loop)
{
    patc_type t = types[_i];
    size_t sz = patc_type_size(t);
    for (int alg = PATC_ALGO_FILTER; alg <= PATC_ALGO_PARTITION_STABLE; alg++) {
        patc_algo_spec s = {.algorithm = alg, .type = t, .lambda = "fun(x => x > t)", .nscalars = 1,
                            .scalar_names = {"t"}, .scalar_types = {t}};
        patc_algo *a;
        ck_assert_msg(patc_algo_create(ctx, &s, &a) == PATC_OK, "%s", patc_last_error(ctx));
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            long long n = sizes[si];
            void *in = fill(t, n, (unsigned)(3 * n + alg)), *out = calloc((size_t)n, sz), *want = calloc((size_t)n, sz);
            unsigned char th[8];
            put(t, th, 0, is_unsigned(t) ? 60 : 10);
            const void *sc[1] = {th};
            uint32_t m = 0xdeadbeef;
            ck_assert_msg(patc_algo_run_cpu(a, in, out, &m, n, sc) == PATC_OK, "%s", patc_last_error(ctx));
            double thr = get(t, th, 0);
            long long k = 0, o = 0, others = 0;
            for (long long i = 0; i < n; i++) others += !(get(t, in, i) > thr);
            for (long long i = 0; i < n; i++) {
                double x = get(t, in, i);
                if (x > thr) put(t, want, k++, x);
                else if (alg == PATC_ALGO_PARTITION) put(t, want, n - 1 - o++, x);
                else if (alg == PATC_ALGO_PARTITION_STABLE) put(t, want, n - others + o++, x);
            }
            ck_assert_msg(m == (uint32_t)k, "%s alg %d n %lld: count %u, want %lld", patc_type_name(t), alg, n, m, k);
            long long check = alg == PATC_ALGO_FILTER ? k : n;
            for (long long i = 0; i < check; i++)
                ck_assert_msg(get(t, out, i) == get(t, want, i), "%s alg %d n %lld at %lld: %g, want %g",
                              patc_type_name(t), alg, n, i, get(t, out, i), get(t, want, i));
            free(in);
            free(out);
            free(want);
        }
        patc_algo_free(a);
    }
}
END_TEST

/* An operator given as a lambda (a running max with its neutral element), and a
 * predicate naming two scalars of the call. */
START_TEST(lambda_operator_and_predicate_with_scalars)
{
    patc_algo_spec s = {.algorithm = PATC_ALGO_INCLUSIVE_SCAN, .type = PATC_I32, .op = PATC_OP_LAMBDA,
                        .lambda = "fun(a => fun(b => max(a)(b)))", .init = "0 - 2147483647 - 1"};
    patc_algo *a;
    ck_assert_msg(patc_algo_create(ctx, &s, &a) == PATC_OK, "%s", patc_last_error(ctx));
    int32_t in[5] = {3, -1, 7, 2, 9}, out[5], want[5] = {3, 3, 7, 7, 9};
    ck_assert_int_eq(patc_algo_run_cpu(a, in, out, NULL, 5, NULL), PATC_OK);
    ck_assert_mem_eq(out, want, sizeof want);
    patc_algo_spec f = {.algorithm = PATC_ALGO_FILTER, .type = PATC_I32, .lambda = "fun(x => x >= lo && x < hi)",
                        .nscalars = 2, .scalar_names = {"lo", "hi"}, .scalar_types = {PATC_I32, PATC_I32}};
    ck_assert_msg(patc_algo_create(ctx, &f, &a) == PATC_OK, "%s", patc_last_error(ctx));
    int32_t lo = 2, hi = 8, fo[5];
    const void *sc[2] = {&lo, &hi};
    uint32_t m;
    ck_assert_int_eq(patc_algo_run_cpu(a, in, fo, &m, 5, sc), PATC_OK);
    ck_assert_uint_eq(m, 3);
    ck_assert(fo[0] == 3 && fo[1] == 7 && fo[2] == 2);
    ck_assert_ptr_nonnull(strstr(patc_algo_source(a), "fun(i32)(lo => fun(i32)(hi => "));
}
END_TEST

/* A lambda that does not type-check fails at creation, with patc's diagnostics located
 * in the generated program, whose text the algorithm shows. */
START_TEST(bad_lambda_fails_at_creation)
{
    patc_algo_spec s = {.algorithm = PATC_ALGO_FILTER, .type = PATC_F32, .lambda = "fun(x => x + 1.0f)"};
    patc_algo *a = (patc_algo *)1;
    ck_assert_int_eq(patc_algo_create(ctx, &s, &a), PATC_ERR_COMPILE);
    ck_assert_ptr_null(a);
    ck_assert_msg(strstr(patc_last_error(ctx), "<patc_algo>:") && strstr(patc_last_error(ctx), "^"), "%s",
                  patc_last_error(ctx));
    s.lambda = "fun(x => x > t)"; /* t not declared */
    ck_assert_int_eq(patc_algo_create(ctx, &s, &a), PATC_ERR_COMPILE);
    ck_assert_msg(strstr(patc_last_error(ctx), "t"), "%s", patc_last_error(ctx));
    patc_algo_spec r = {.algorithm = PATC_ALGO_REDUCE, .type = PATC_F32, .op = PATC_OP_LAMBDA,
                        .lambda = "fun(a => fun(b => a + b))", .init = "0"}; /* i32 init for f32 */
    ck_assert_int_eq(patc_algo_create(ctx, &r, &a), PATC_ERR_COMPILE);
}
END_TEST

/* Each malformed spec is refused with a message naming what is wrong. */
START_TEST(bad_specs_refused)
{
    patc_algo *a;
    struct { patc_algo_spec s; const char *msg; } cases[] = {
        {{.algorithm = (patc_algorithm)99}, "unknown algorithm"},
        {{.algorithm = PATC_ALGO_REDUCE, .type = PATC_BOOL}, "element type"},
        {{.algorithm = PATC_ALGO_REDUCE, .type = PATC_F32, .op = (patc_op)9}, "unknown operator"},
        {{.algorithm = PATC_ALGO_REDUCE, .type = PATC_F32, .op = PATC_OP_LAMBDA, .lambda = "fun(a => fun(b => a))"}, "spec.init"},
        {{.algorithm = PATC_ALGO_FILTER, .type = PATC_F32}, "predicate"},
        {{.algorithm = PATC_ALGO_FILTER, .type = PATC_F32, .lambda = "fun(x => x > t)", .nscalars = 5}, "nscalars"},
        {{.algorithm = PATC_ALGO_FILTER, .type = PATC_F32, .lambda = "fun(x => x > t)", .nscalars = 1,
          .scalar_names = {"n"}}, "not a name"},
        {{.algorithm = PATC_ALGO_FILTER, .type = PATC_F32, .lambda = "fun(x => x > nt)", .nscalars = 1,
          .scalar_names = {"nt"}}, "kernels use it"},
        {{.algorithm = PATC_ALGO_PARTITION_STABLE, .type = PATC_F32, .lambda = "fun(x => x > g)", .nscalars = 1,
          .scalar_names = {"g"}}, "kernels use it"},
        {{.algorithm = PATC_ALGO_FILTER, .type = PATC_F32, .lambda = "fun(x => x > t)", .nscalars = 1,
          .scalar_names = {"t)(x"}}, "not a name"},
        {{.algorithm = PATC_ALGO_FILTER, .type = PATC_F32, .lambda = "fun(x => x > t)", .nscalars = 2,
          .scalar_names = {"t", "t"}}, "two scalars"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(patc_algo_create(ctx, &cases[i].s, &a), PATC_ERR_INVALID);
        ck_assert_msg(strstr(patc_last_error(ctx), cases[i].msg), "case %zu: %s", i, patc_last_error(ctx));
    }
    ck_assert_int_eq(patc_algo_create(ctx, NULL, &a), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_algo_create(NULL, &cases[0].s, &a), PATC_ERR_INVALID);
}
END_TEST

/* The built-in line for each size (the first line of the key whose range holds n), and
 * a user's tuning file overriding it line by line. */
START_TEST(built_in_and_user_tuning_lines)
{
    patc_algo *a = make(PATC_ALGO_INCLUSIVE_SCAN, PATC_F32, PATC_OP_SUM);
    char d[200];
    ck_assert_int_eq(patc_algo_describe(a, 1000, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "scan.tile nt=256 ipt=5 (built-in h100)");
    ck_assert_int_eq(patc_algo_describe(a, 1 << 28, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "scan.pipe w=16 ipt=12 s=9 (built-in h100)");
    patc_algo *r = make(PATC_ALGO_REDUCE, PATC_F64, PATC_OP_SUM);
    ck_assert_int_eq(patc_algo_describe(r, 1 << 20, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "reduce64.grid elemsBlock=2048 elemsWarp=128 (built-in h100)");
    char path[] = "/tmp/patc-algo-tune-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char *text = "# a user's line for small scans\nscan 1 5000 1 kernel=tile nt=256 ipt=5\n";
    ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    patc_algo_spec s = {.algorithm = PATC_ALGO_INCLUSIVE_SCAN, .type = PATC_F32, .tuning_file = path};
    patc_algo *u;
    ck_assert_msg(patc_algo_create(ctx, &s, &u) == PATC_OK, "%s", patc_last_error(ctx));
    ck_assert_int_eq(patc_algo_describe(u, 1000, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "scan.tile nt=256 ipt=5 (tuning file)");
    ck_assert_int_eq(patc_algo_describe(u, 6000, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "scan.tile nt=128 ipt=5 (built-in h100)"); /* the built-in line for 2561..10240 */
    float in[1000], out[1000];
    for (int i = 0; i < 1000; i++) in[i] = 1;
    ck_assert_int_eq(patc_algo_run_cpu(u, in, out, NULL, 1000, NULL), PATC_OK);
    ck_assert(out[999] == 1000.0f);
    /* a line naming a kernel the algorithm does not have */
    fd = open(path, O_WRONLY | O_TRUNC);
    const char *bad = "scan 1 5000 1 kernel=nosuch nt=256 ipt=5\n";
    ck_assert_int_eq(write(fd, bad, strlen(bad)), (int)strlen(bad));
    close(fd);
    ck_assert_int_eq(patc_algo_create(ctx, &s, &u), PATC_OK);
    ck_assert_int_eq(patc_algo_run_cpu(u, in, out, NULL, 1000, NULL), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(ctx), "kernel=nosuch"), "%s", patc_last_error(ctx));
    unlink(path);
}
END_TEST

/* The table follows the device: without one, sm_90 and no memory give the h100 table;
 * another architecture gets the table of tile kernels only (no bulk copies). */
START_TEST(table_chosen_by_the_device)
{
    char d[200];
    patc_algo *a = make(PATC_ALGO_INCLUSIVE_SCAN, PATC_F32, PATC_OP_SUM);
    ck_assert_int_eq(patc_algo_describe(a, 1 << 28, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "scan.pipe w=16 ipt=12 s=9 (built-in h100)");
    ck_assert_int_eq(patc_set_arch(ctx, 80), PATC_OK);
    patc_algo *o = make(PATC_ALGO_INCLUSIVE_SCAN, PATC_F32, PATC_OP_SUM);
    ck_assert_int_eq(patc_algo_describe(o, 1 << 28, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "scan.tile nt=256 ipt=15 (built-in other)");
    patc_algo *f = NULL;
    patc_algo_spec fs = {.algorithm = PATC_ALGO_PARTITION_STABLE, .type = PATC_F32, .lambda = "fun(x => x > 0.0f)"};
    ck_assert_int_eq(patc_algo_create(ctx, &fs, &f), PATC_OK);
    ck_assert_int_eq(patc_algo_describe(f, 1 << 28, d, sizeof d), PATC_OK);
    ck_assert_str_eq(d, "partition_stable.tile nt=256 ipt=32 (built-in other)");
    ck_assert_ptr_nonnull(strstr(patc_algo_source(f), "kernel partition_stable_pipe = nFun((n, g, w, ipt, s) =>"));
}
END_TEST

/* The element-wise kernels that unaligned buffers get (reduce's gridu and oneu, the
 * stable partition's tileu), forced through a tuning file, on the interpreter. */
START_TEST(element_wise_kernels_match_a_loop)
{
    char path[] = "/tmp/patc-algo-elem-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char *text = "reduce 1 2000 1 kernel=oneu elemsBlock=1024 elemsWarp=128\n"
                       "reduce 2001 100000 3 kernel=gridu elemsBlock=2048 elemsWarp=256\n"
                       "reduce64 1 100000 2 kernel=gridu elemsBlock=1024 elemsWarp=128\n"
                       "partition_stable 1 100000 1 kernel=tileu nt=128 ipt=16\n";
    ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    for (int ti = 0; ti < 2; ti++) {
        patc_type t = ti ? PATC_I64 : PATC_F32;
        patc_algo_spec r = {.algorithm = PATC_ALGO_REDUCE, .type = t, .op = PATC_OP_SUM, .tuning_file = path};
        patc_algo *a;
        ck_assert_msg(patc_algo_create(ctx, &r, &a) == PATC_OK, "%s", patc_last_error(ctx));
        long long ns[] = {1, 33, 1000, 4097, 70001};
        for (int i = 0; i < 5; i++) {
            void *in = fill(t, ns[i], 7u + (unsigned)i);
            unsigned char out[8];
            ck_assert_msg(patc_algo_run_cpu(a, in, out, NULL, ns[i], NULL) == PATC_OK, "%s", patc_last_error(ctx));
            double want = 0;
            for (long long j = 0; j < ns[i]; j++) want += get(t, in, j);
            ck_assert_msg(get(t, out, 0) == want, "%s n %lld: %g, want %g", patc_type_name(t), ns[i], get(t, out, 0), want);
            free(in);
        }
    }
    patc_algo_spec p = {.algorithm = PATC_ALGO_PARTITION_STABLE, .type = PATC_F32, .lambda = "fun(x => x > 0.0f)",
                        .tuning_file = path};
    patc_algo *a;
    ck_assert_msg(patc_algo_create(ctx, &p, &a) == PATC_OK, "%s", patc_last_error(ctx));
    long long n = 5001;
    float *in = fill(PATC_F32, n, 3), *out = malloc((size_t)n * 4);
    uint32_t m;
    ck_assert_int_eq(patc_algo_run_cpu(a, in, out, &m, n, NULL), PATC_OK);
    long long k = 0;
    for (long long i = 0; i < n; i++)
        if (in[i] > 0) ck_assert(out[k++] == in[i]);
    ck_assert_int_eq(m, k);
    for (long long i = 0; i < n; i++)
        if (!(in[i] > 0)) ck_assert(out[k++] == in[i]);
    free(in);
    free(out);
    unlink(path);
}
END_TEST

/* An algorithm keeps every variant it compiled (none is evicted while its launches may
 * run): the 65th distinct setting is refused with a message. */
START_TEST(variants_are_kept_not_evicted)
{
    char path[] = "/tmp/patc-algo-many-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    for (int i = 1; i <= 65; i++) fprintf(f, "scan %d %d 1 kernel=tile nt=32 ipt=%d\n", i, i, i);
    fclose(f);
    patc_algo_spec s = {.algorithm = PATC_ALGO_INCLUSIVE_SCAN, .type = PATC_I32, .tuning_file = path};
    patc_algo *a;
    ck_assert_msg(patc_algo_create(ctx, &s, &a) == PATC_OK, "%s", patc_last_error(ctx));
    int32_t in[65], out[65];
    for (int i = 0; i < 65; i++) in[i] = 1;
    for (int n = 1; n <= 64; n++) {
        ck_assert_msg(patc_algo_run_cpu(a, in, out, NULL, n, NULL) == PATC_OK, "n %d: %s", n, patc_last_error(ctx));
        ck_assert_int_eq(out[n - 1], n);
    }
    ck_assert_int_eq(patc_algo_run_cpu(a, in, out, NULL, 65, NULL), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(ctx), "more than 64 distinct settings"), "%s", patc_last_error(ctx));
    unlink(path);
}
END_TEST

/* Calls refused before anything runs: no context device here, so the checks that come
 * before the device's (sizes, alignment, counts, scalars) are what answers. */
START_TEST(bad_calls_refused)
{
    patc_algo *a = make(PATC_ALGO_REDUCE, PATC_F32, PATC_OP_SUM);
    float x[4] = {0};
    ck_assert_int_eq(patc_algo_run_cpu(a, x, x, NULL, 0, NULL), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_algo_run_cpu(a, NULL, x, NULL, 4, NULL), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_algo_enqueue(a, NULL, NULL, NULL, 4, NULL, NULL), PATC_ERR_INVALID);
    patc_algo_spec f = {.algorithm = PATC_ALGO_FILTER, .type = PATC_F32, .lambda = "fun(x => x > t)", .nscalars = 1,
                        .scalar_names = {"t"}, .scalar_types = {PATC_F32}};
    patc_algo *fa;
    ck_assert_int_eq(patc_algo_create(ctx, &f, &fa), PATC_OK);
    uint32_t m;
    ck_assert_int_eq(patc_algo_run_cpu(fa, x, x, &m, 4, NULL), PATC_ERR_INVALID); /* no scalars */
    ck_assert_int_eq(patc_algo_run_cpu(fa, x, x, NULL, 4, (const void *[]){x}), PATC_ERR_INVALID); /* no count */
    ck_assert_int_eq(patc_reduce(ctx, PATC_BOOL, PATC_OP_SUM, NULL, NULL, 4, NULL), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_reduce(ctx, PATC_F32, PATC_OP_LAMBDA, NULL, NULL, 4, NULL), PATC_ERR_INVALID);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("algo");
    TCase *tc = tcase_create("algo");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, reduce_and_scans_match_a_loop, 0, 6);
    tcase_add_test(tc, exclusive_scan_starts_at_the_neutral_element);
    tcase_add_test(tc, min_max_keep_infinities);
    tcase_add_loop_test(tc, selects_match_a_loop, 0, 6);
    tcase_add_test(tc, lambda_operator_and_predicate_with_scalars);
    tcase_add_test(tc, bad_lambda_fails_at_creation);
    tcase_add_test(tc, bad_specs_refused);
    tcase_add_test(tc, built_in_and_user_tuning_lines);
    tcase_add_test(tc, table_chosen_by_the_device);
    tcase_add_test(tc, element_wise_kernels_match_a_loop);
    tcase_add_test(tc, variants_are_kept_not_evicted);
    tcase_add_test(tc, bad_calls_refused);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
