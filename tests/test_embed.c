/* test_embed.c: the cubins built into libpatrt (runtime/rt_embed.c, made at build time
 * by runtime/rt_embed_gen.c). Needs no GPU: tests/fakecuda stands in for the driver
 * (run with its directory in LD_LIBRARY_PATH; ctest runtime_embed does that), and NVRTC
 * is made unloadable (PATC_NVRTC_PATH naming a missing file) where a test shows it is
 * not needed.
 *
 * Built with PATC_EMBED_CUBINS=0 (cmake -DPATC_EMBED_CUBINS=OFF) the same tests check
 * the other side: no table, and every first call compiles. */
#include "../runtime/rt_internal.h"
#include "../runtime/patc.h"
#include "tmpdir.h"
#include "fakecuda/fakecuda.h"

#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PATC_EMBED_CUBINS
#define PATC_EMBED_CUBINS 1
#endif

static const patc_algorithm ALGOS[] = {PATC_ALGO_REDUCE, PATC_ALGO_INCLUSIVE_SCAN, PATC_ALGO_EXCLUSIVE_SCAN};
static const patc_op OPS[] = {PATC_OP_SUM, PATC_OP_MIN, PATC_OP_MAX};
enum { NTYPES = PATC_U64 + 1 };


static bool nvrtc_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    bool found = false;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "libnvrtc.so")) found = true;
    if (f) fclose(f);
    return found;
}

static bool has_bytes(const void *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp((const char *)hay + i, needle, k) == 0) return true;
    return false;
}

/* ---------------------------------------------------------------- packing */

static unsigned char *pack_unpack(const unsigned char *base, size_t blen, const unsigned char *in, size_t n,
                                  size_t *plen)
{
    unsigned char *p = rt_embed_pack(base, blen, in, n, plen);
    ck_assert_ptr_nonnull(p);
    unsigned char *back = malloc(n + 1);
    ck_assert(rt_embed_unpack(base, blen, p, *plen, back, n));
    ck_assert(n == 0 || memcmp(back, in, n) == 0);
    free(back);
    return p;
}

/* Whatever the bytes, a packed buffer unpacks to them, alone or after a base; a packed
 * buffer cut short, or unpacked to another length, is refused; damaged bytes never read
 * or write outside the buffers (AddressSanitizer's build checks that). */
START_TEST(pack_round_trip_and_damage)
{
    enum { N = 200000 };
    unsigned char *a = malloc(N), *b = malloc(N), *out = malloc(N + 64);
    unsigned seed = 12345;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        a[i] = i % 4096 < 1500 ? 0 : i % 7 == 0 ? (unsigned char)(seed >> 16) : (unsigned char)(i * 31 >> 3);
    }
    memcpy(b, a, N);
    for (int i = 0; i < N; i += 997) b[i] ^= 0x5a; /* kin of a: a few bytes differ */
    static const size_t sizes[] = {0, 1, 3, 4, 5, 127, 128, 129, 130, 4096, N};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s], plen, plen_base;
        free(pack_unpack(NULL, 0, a, n, &plen));
        unsigned char *p = pack_unpack(a, N, b, n, &plen_base);
        if (n == N) ck_assert_msg(plen_base * 10 < plen, "against its kin %zu bytes, alone %zu", plen_base, plen);
        if (n > 0) {
            ck_assert(!rt_embed_unpack(a, N, p, plen_base - 1, out, n));      /* cut short */
            ck_assert(!rt_embed_unpack(a, N, p, plen_base, out, n - 1));      /* too little room */
            ck_assert(!rt_embed_unpack(a, N, p, plen_base, out, n + 1));      /* too much */
            if (n == N) ck_assert(!rt_embed_unpack(NULL, 0, p, plen_base, out, n)); /* no base */
            for (size_t i = 0; i < plen_base; i += 1 + plen_base / 64) { /* every damage stays in bounds */
                unsigned char keep = p[i];
                p[i] ^= 0xff;
                (void)rt_embed_unpack(a, N, p, plen_base, out, n);
                p[i] = keep;
            }
        }
        free(p);
    }
    /* runs longer than one token's short form, and a buffer of one repeated byte */
    memset(a, 7, N);
    size_t plen;
    free(pack_unpack(NULL, 0, a, N, &plen));
    ck_assert_uint_lt(plen, 64);
    free(a);
    free(b);
    free(out);
}
END_TEST

/* ---------------------------------------------------------------- lookup */

typedef struct Texts {
    char *src[64];
    char name[64][64];
    const patc_tuning_line *line[64];
    int n;
} Texts;

static patc_status collect(patc_algo *a, const patc_tuning_line *l, patc_kernel *k, void *user)
{
    (void)a;
    Texts *t = user;
    ck_assert_int_lt(t->n, 64);
    t->src[t->n] = rt_program_build_source(k->prog, 0);
    snprintf(t->name[t->n], sizeof t->name[0], "%s", patc_kernel_name(k));
    t->line[t->n] = l;
    t->n++;
    return PATC_OK;
}

/* Only the very text compiled, for sm_90, finds a cubin: another arch, a changed
 * character (same length, so the hash decides), one more character, none. */
START_TEST(lookup_matches_only_its_own_text)
{
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    patc_algo *a;
    patc_algo_spec spec = {.algorithm = PATC_ALGO_INCLUSIVE_SCAN, .type = PATC_F32, .op = PATC_OP_SUM};
    ck_assert_msg(patc_algo_create(c, &spec, &a) == PATC_OK, "%s", patc_last_error(c));
    Texts t = {0};
    ck_assert_int_eq(rt_algo_builtin_lines(a, collect, &t), PATC_OK);
    ck_assert_int_gt(t.n, 0);
    char *src = t.src[0];
    ck_assert_msg(strstr(src, "#define PATC_INDEX32\n") == src, "build 0 of a kernel sized at launch is 32-bit");
    void *cubin;
    size_t n;
    bool hit = rt_embed_find(src, 90, &cubin, &n);
    ck_assert_int_eq(hit, PATC_EMBED_CUBINS);
    if (hit) {
        ck_assert(n > 64 && memcmp(cubin, "\177ELF", 4) == 0);
        ck_assert_msg(has_bytes(cubin, n, t.name[0]), "the cubin has no %s", t.name[0]);
        free(cubin);
    }
    ck_assert(!rt_embed_find(src, 80, &cubin, &n));
    ck_assert_ptr_null(cubin);
    char *last = src + strlen(src) - 2;
    *last ^= 1;
    ck_assert(!rt_embed_find(src, 90, &cubin, &n));
    *last ^= 1;
    size_t len = strlen(src);
    char *longer = malloc(len + 2);
    memcpy(longer, src, len);
    memcpy(longer + len, " ", 2);
    ck_assert(!rt_embed_find(longer, 90, &cubin, &n));
    ck_assert(!rt_embed_find("", 90, &cubin, &n));
    free(longer);
    /* the key is not the disk cache's for any NVRTC */
    unsigned char key[32];
    rt_embed_key(src, 90, key);
    char archopt[48], hex[65], keyhex[65];
    const char *opts[RT_NVRTC_MAX_OPTIONS];
    int nopts = rt_nvrtc_options(90, archopt, opts);
    rt_cache_key(patc_version(), "", 90, opts, nopts, src, hex);
    rt_hex(key, keyhex);
    ck_assert_str_ne(hex, keyhex);
    for (int i = 0; i < t.n; i++) free(t.src[i]);
    patc_destroy(c);
}
END_TEST

/* Per key, the lines of the built-in table seen, as n ranges. */
typedef struct Coverage {
    char key[64][128];
    long long lo[64][32], hi[64][32];
    int nr[64], nkeys;
    bool *used;       /* the table's entries found */
    int lines, found, wide;
} Coverage;

static patc_status cover(patc_algo *a, const patc_tuning_line *l, patc_kernel *k, void *user)
{
    (void)a;
    Coverage *cv = user;
    int i = 0;
    while (i < cv->nkeys && strcmp(cv->key[i], l->kernel) != 0) i++;
    if (i == cv->nkeys) {
        ck_assert_int_lt(cv->nkeys, 64);
        snprintf(cv->key[cv->nkeys++], sizeof cv->key[0], "%s", l->kernel);
    }
    int r = 0; /* each algorithm of the key sees the same lines */
    while (r < cv->nr[i] && !(cv->lo[i][r] == l->n_min && cv->hi[i][r] == l->n_max)) r++;
    if (r == cv->nr[i]) {
        ck_assert_int_lt(cv->nr[i], 32);
        cv->lo[i][r] = l->n_min;
        cv->hi[i][cv->nr[i]++] = l->n_max;
    }
    cv->lines++;
    unsigned builds = rt_embed_builds(k, l->n_min);
    ck_assert(builds & 1);
    for (int b = 0; b < 2; b++) {
        if (!(builds & (1u << b))) continue;
        char *src = rt_program_build_source(k->prog, b);
        void *cubin;
        size_t n;
        bool hit = rt_embed_find(src, 90, &cubin, &n);
        ck_assert_msg(hit == PATC_EMBED_CUBINS, "line %s %lld..%lld (kernel %s, build %d): %s", l->kernel, l->n_min,
                      l->n_max, patc_kernel_name(k), b, hit ? "embedded in a build without" : "not embedded");
        if (hit) {
            ck_assert_msg(has_bytes(cubin, n, patc_kernel_name(k)), "the cubin of %s has no such kernel",
                          patc_kernel_name(k));
            unsigned char key[32];
            rt_embed_key(src, 90, key);
            for (int e = 0; e < rt_nembedded_cubins; e++)
                if (memcmp(rt_embedded_cubins[e].key, key, 32) == 0 && !cv->used[e]) {
                    cv->used[e] = true;
                    cv->found++;
                }
            free(cubin);
        }
        cv->wide += b;
        free(src);
    }
    return PATC_OK;
}

/* Every line of the built-in table that patc_reduce, patc_inclusive_scan or
 * patc_exclusive_scan can choose, for each built-in operator and element type, aligned
 * or not, has its cubin in the table (enumerated with rt_algo_builtin_lines, the
 * generator's own walk); the lines of each key leave no n uncovered, so no size falls
 * outside them; and no entry of the table is left over. */
START_TEST(every_builtin_line_is_embedded)
{
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE), PATC_OK);
    int nt = &rt_nembedded_cubins && rt_embedded_cubins ? rt_nembedded_cubins : 0;
    ck_assert_int_eq(nt > 0, PATC_EMBED_CUBINS);
    static Coverage cv;
    memset(&cv, 0, sizeof cv);
    cv.used = calloc((size_t)nt + 1, 1);
    for (size_t i = 0; i < sizeof ALGOS / sizeof *ALGOS; i++)
        for (int t = 0; t < NTYPES; t++)
            for (size_t o = 0; o < sizeof OPS / sizeof *OPS; o++) {
                patc_algo_spec spec = {.algorithm = ALGOS[i], .type = (patc_type)t, .op = OPS[o]};
                patc_algo *a;
                ck_assert_msg(patc_algo_create(c, &spec, &a) == PATC_OK, "%s", patc_last_error(c));
                ck_assert_int_eq(rt_algo_builtin_lines(a, cover, &cv), PATC_OK);
                patc_algo_free(a);
            }
    /* reduce, scan and their 64 and _unaligned forms */
    ck_assert_int_eq(cv.nkeys, 8);
    for (int k = 0; k < cv.nkeys; k++) {
        long long next = 1; /* the least n not yet covered */
        bool grew = true;
        while (grew && next != LLONG_MAX) {
            grew = false;
            for (int r = 0; r < cv.nr[k]; r++)
                if (cv.lo[k][r] <= next && cv.hi[k][r] >= next) {
                    next = cv.hi[k][r] == LLONG_MAX ? LLONG_MAX : cv.hi[k][r] + 1;
                    grew = true;
                }
        }
        ck_assert_msg(next == LLONG_MAX, "%s: no built-in line for n = %lld", cv.key[k], next);
    }
    ck_assert_int_eq(cv.found, nt);
    printf("every_builtin_line_is_embedded: %d lines (%d with the 64-bit build from their first call), %d cubins\n",
           cv.lines, cv.wide, nt);
    free(cv.used);
    patc_destroy(c);
}
END_TEST

/* ---------------------------------------------------------------- first calls */

static struct {
    void (*on_launch)(fakecuda_launch_hook, void *);
    void (*fail_at)(const char *, int, int);
    int (*calls)(const char *);
} F;

/* The fake driver's own entry points; false (and why on stderr) when the libcuda.so.1
 * found is not tests/fakecuda's. */
static bool need_fake(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    bool (*is_fake)(void) = h ? (bool (*)(void))dlsym(h, "fakecuda_is_fake") : NULL;
    if (!is_fake || !is_fake()) {
        fprintf(stderr, "test_embed: the libcuda.so.1 found is not tests/fakecuda's (%s): run with its directory in "
                        "LD_LIBRARY_PATH\n", h ? "another" : dlerror());
        return false;
    }
    *(void **)&F.on_launch = dlsym(h, "fakecuda_on_launch");
    *(void **)&F.fail_at = dlsym(h, "fakecuda_fail_at");
    *(void **)&F.calls = dlsym(h, "fakecuda_calls");
    return F.on_launch && F.fail_at && F.calls;
}

static void record_launch(const FakecudaLaunch *L, void *ud)
{
    char *name = ud;
    snprintf(name, 64, "%s", L->name);
}

/* Run this test's binary again as `mode` (a fresh process: nothing of NVRTC mapped)
 * with the environment given; its exit status must be 0. */
static void run_child(const char *mode, const char *nvrtc_path, const char *cache_dir)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char self[4096];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0) _exit(90);
        self[len] = 0;
        setenv("PATC_NVRTC_PATH", nvrtc_path, 1);
        setenv("PATC_CACHE_DIR", cache_dir, 1);
        unsetenv("PATC_TUNING");
        unsetenv("PATC_FORCE_INDEX64");
        execl(self, self, mode, (char *)NULL);
        _exit(91);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %s: status %d (its stderr says why)", mode,
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

#define CHILD_CHECK(cond, code, ...)                                                                                  \
    do {                                                                                                              \
        if (!(cond)) {                                                                                                \
            fprintf(stderr, "no-nvrtc child: " __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                                      \
            return code;                                                                                              \
        }                                                                                                             \
    } while (0)

static bool dir_is_empty_or_absent(const char *path)
{
    DIR *d = opendir(path);
    if (!d) return true;
    struct dirent *e;
    bool empty = true;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = false;
    closedir(d);
    return empty;
}

/* Per line of the built-in table: a call at its least n on buffers aligned as its key
 * says, in the context `fc` (fake driver, NVRTC unloadable). */
typedef struct Calls {
    patc_ctx *fc;
    patc_algorithm alg;
    patc_type type;
    patc_op op;
    int calls, bad;
} Calls;

static patc_status call_line(patc_algo *a, const patc_tuning_line *l, patc_kernel *k, void *user)
{
    (void)a;
    (void)k;
    Calls *cl = user;
    size_t sz = patc_type_size(cl->type);
    bool unaligned = strstr(l->kernel, "_unaligned") != NULL;
    /* wrapped, never touched: the fake driver runs no kernel */
    patc_buffer *in, *out;
    if (patc_buffer_wrap(cl->fc, 0x100000000000ull + (unaligned ? sz : 0), (size_t)1 << 40, &in) != PATC_OK ||
        patc_buffer_wrap(cl->fc, 0x300000000000ull, (size_t)1 << 40, &out) != PATC_OK)
        return PATC_ERR_INVALID;
    patc_status s = cl->alg == PATC_ALGO_REDUCE ? patc_reduce(cl->fc, cl->type, cl->op, in, out, l->n_min, NULL)
                    : cl->alg == PATC_ALGO_INCLUSIVE_SCAN
                        ? patc_inclusive_scan(cl->fc, cl->type, cl->op, in, out, l->n_min, NULL)
                        : patc_exclusive_scan(cl->fc, cl->type, cl->op, in, out, l->n_min, NULL);
    patc_compile_stats st;
    patc_get_compile_stats(cl->fc, &st);
    if (s != PATC_OK || !st.embedded) {
        fprintf(stderr, "no-nvrtc child: %s type %d op %d line %s %lld..: %s (embedded %d)\n",
                cl->alg == PATC_ALGO_REDUCE ? "reduce" : "scan", (int)cl->type, (int)cl->op, l->kernel, l->n_min,
                s != PATC_OK ? patc_last_error(cl->fc) : "ok", st.embedded);
        cl->bad++;
    }
    cl->calls++;
    patc_buffer_free(in);
    patc_buffer_free(out);
    return PATC_OK;
}

/* The child of first_calls_need_no_nvrtc: PATC_NVRTC_PATH names a missing file and
 * PATC_CACHE_DIR a directory not yet made. Exit 0 when everything held. */
static int no_nvrtc_child(void)
{
    if (!need_fake()) return 19;
    const char *cache_dir = getenv("PATC_CACHE_DIR");
    CHILD_CHECK(!nvrtc_mapped(), 1, "NVRTC mapped at start");
    patc_ctx *c;
    CHILD_CHECK(patc_create(&c, 0, 0) == PATC_OK && patc_device_status(c) == PATC_OK, 2, "no fake device");
    patc_buffer *in, *out;
    CHILD_CHECK(patc_buffer_alloc(c, 1000 * 4, &in) == PATC_OK && patc_buffer_alloc(c, 1000 * 4, &out) == PATC_OK, 3,
                "alloc");
    char launched[64] = "";
    F.on_launch(record_launch, launched);
    patc_status s = patc_inclusive_scan(c, PATC_F32, PATC_OP_SUM, in, out, 1000, NULL);
    F.on_launch(NULL, NULL);
    patc_compile_stats st;
    patc_get_compile_stats(c, &st);
    if (PATC_EMBED_CUBINS) {
        CHILD_CHECK(s == PATC_OK, 4, "the first f32 inclusive sum: %s", patc_last_error(c));
        CHILD_CHECK(strcmp(launched, "scan_tile") == 0, 5, "launched '%s', not scan_tile", launched);
        CHILD_CHECK(st.embedded == 1 && st.cache_hit == 0 && st.arch == 90, 6, "stats: embedded %d cache_hit %d",
                    st.embedded, st.cache_hit);
    } else {
        CHILD_CHECK(s == PATC_ERR_NVRTC && strstr(patc_last_error(c), "PATC_NVRTC_PATH"), 4,
                    "without embedded cubins the first call needs NVRTC: %s", patc_last_error(c));
    }
    /* every built-in line of every one-call form: its first call, without NVRTC */
    if (PATC_EMBED_CUBINS) {
        patc_ctx *lc;
        CHILD_CHECK(patc_create(&lc, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE) == PATC_OK, 7, "context");
        Calls cl = {.fc = c};
        for (size_t i = 0; i < sizeof ALGOS / sizeof *ALGOS; i++)
            for (int t = 0; t < NTYPES; t++)
                for (size_t o = 0; o < sizeof OPS / sizeof *OPS; o++) {
                    patc_algo_spec spec = {.algorithm = ALGOS[i], .type = (patc_type)t, .op = OPS[o]};
                    patc_algo *a;
                    CHILD_CHECK(patc_algo_create(lc, &spec, &a) == PATC_OK, 8, "%s", patc_last_error(lc));
                    cl.alg = ALGOS[i];
                    cl.type = (patc_type)t;
                    cl.op = OPS[o];
                    CHILD_CHECK(rt_algo_builtin_lines(a, call_line, &cl) == PATC_OK, 9, "walk");
                    patc_algo_free(a);
                }
        patc_destroy(lc);
        CHILD_CHECK(cl.bad == 0 && cl.calls > 100, 10, "%d of %d first calls needed NVRTC or failed", cl.bad, cl.calls);
        fprintf(stderr, "no-nvrtc child: %d calls, one per built-in line, none needed NVRTC\n", cl.calls);
    }
    CHILD_CHECK(!nvrtc_mapped(), 11, "NVRTC got mapped");
    CHILD_CHECK(dir_is_empty_or_absent(cache_dir), 12, "the cache was written");
    /* a variant that is not embedded (a lambda operator) goes through NVRTC: unloadable
     * here, so it fails saying so; then found, it compiles and fills the cache */
    patc_algo_spec lam = {.algorithm = PATC_ALGO_INCLUSIVE_SCAN, .type = PATC_F32, .op = PATC_OP_LAMBDA,
                          .lambda = "fun(a => fun(b => a + b))", .init = "0.0f"};
    patc_algo *a;
    CHILD_CHECK(patc_algo_create(c, &lam, &a) == PATC_OK, 13, "%s", patc_last_error(c));
    s = patc_algo_enqueue(a, in, out, NULL, 1000, NULL, NULL);
    CHILD_CHECK(s == PATC_ERR_NVRTC && strstr(patc_last_error(c), "PATC_NVRTC_PATH"), 14,
                "a lambda's first call without NVRTC: %d %s", s, patc_last_error(c));
    unsetenv("PATC_NVRTC_PATH");
    s = patc_algo_enqueue(a, in, out, NULL, 1000, NULL, NULL);
    patc_get_compile_stats(c, &st);
    CHILD_CHECK(s == PATC_OK, 15, "a lambda's first call with NVRTC: %s", patc_last_error(c));
    CHILD_CHECK(st.embedded == 0 && st.cache_hit == 0, 16, "stats: embedded %d cache_hit %d", st.embedded,
                st.cache_hit);
    CHILD_CHECK(nvrtc_mapped(), 17, "the lambda compiled without NVRTC?");
    CHILD_CHECK(!dir_is_empty_or_absent(cache_dir), 18, "the lambda's cubin was not cached");
    patc_destroy(c);
    return 0;
}

/* The first f32 inclusive sum in a fresh process, empty cache, NVRTC unloadable: built
 * from the embedded cubin and launched, neither NVRTC nor the cache touched; so is the
 * first call of every other built-in line; a lambda operator's variant still needs
 * NVRTC, and gets it once it can be loaded. */
START_TEST(first_calls_need_no_nvrtc)
{
    char missing[400], cache[400];
    snprintf(missing, sizeof missing, "%s/no-such-dir/libnvrtc.so", tmpdir);
    snprintf(cache, sizeof cache, "%s/cache", tmpdir);
    run_child("no-nvrtc-child", missing, cache);
}
END_TEST

/* An embedded cubin that the driver refuses as an image (one from a toolkit newer than
 * the driver) is replaced by NVRTC's; a failure that is not the image's is reported. */
START_TEST(refused_image_falls_back_to_nvrtc)
{
    if (!PATC_EMBED_CUBINS) return;
    ck_assert(need_fake());
    char cache[400];
    snprintf(cache, sizeof cache, "%s/cache", tmpdir);
    setenv("PATC_CACHE_DIR", cache, 1);
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, 0), PATC_OK);
    patc_buffer *in, *out;
    ck_assert_int_eq(patc_buffer_alloc(c, 4000, &in), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(c, 4000, &out), PATC_OK);
    int loads = F.calls("cuModuleLoadData");
    F.fail_at("cuModuleLoadData", 1, 200 /* CUDA_ERROR_INVALID_IMAGE */);
    ck_assert_msg(patc_inclusive_scan(c, PATC_F32, PATC_OP_SUM, in, out, 1000, NULL) == PATC_OK, "%s",
                  patc_last_error(c));
    F.fail_at("", 0, 0);
    patc_compile_stats st;
    patc_get_compile_stats(c, &st);
    ck_assert_int_eq(st.embedded, 0);
    ck_assert_int_eq(F.calls("cuModuleLoadData"), loads + 2);
    F.fail_at("cuModuleLoadData", 1, 2 /* CUDA_ERROR_OUT_OF_MEMORY */);
    ck_assert_int_eq(patc_reduce(c, PATC_F32, PATC_OP_SUM, in, out, 1000, NULL), PATC_ERR_DRIVER);
    F.fail_at("", 0, 0);
    ck_assert_int_eq(F.calls("cuModuleLoadData"), loads + 3);
    ck_assert_int_eq(patc_reduce(c, PATC_F32, PATC_OP_SUM, in, out, 1000, NULL), PATC_OK);
    patc_get_compile_stats(c, &st);
    ck_assert_int_eq(st.embedded, 1);
    patc_destroy(c);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "no-nvrtc-child") == 0) return no_nvrtc_child();
    Suite *s = suite_create("embed");
    TCase *tc = tcase_create("embed");
    tcase_add_checked_fixture(tc, tmpdir_setup, tmpdir_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, pack_round_trip_and_damage);
    tcase_add_test(tc, lookup_matches_only_its_own_text);
    tcase_add_test(tc, every_builtin_line_is_embedded);
    tcase_add_test(tc, first_calls_need_no_nvrtc);
    tcase_add_test(tc, refused_image_falls_back_to_nvrtc);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
