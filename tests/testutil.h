/* testutil.h: helpers shared by the compiler test suites. */
#ifndef PATC_TESTUTIL_H
#define PATC_TESTUTIL_H

#include "../codegen/codegen.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

typedef struct TC {
    Arena *a;
    Diag d;
    StrBuf err;
    Compilation c;
    bool ok;
} TC;

/* Compile `src`, named `path` (imports resolve relative to it), with optional -D
 * defines and the code-generation flags of `flags` (min_blocks, evict_first,
 * bins_in_result; NULL: none);
 * diagnostics go to tc->err. */
static inline TC *tc_compile_flags(const char *path, const char *src, const Define *defs, int ndefs,
                                   const CompileOptions *flags)
{
    TC *t = calloc(1, sizeof *t);
    t->a = arena_new();
    diag_init(&t->d, NULL, &t->err);
    t->c.arena = t->a;
    t->c.diag = &t->d;
    CompileOptions opt = {0};
    if (flags) {
        opt.min_blocks = flags->min_blocks;
        opt.evict_first = flags->evict_first;
        opt.bins_in_result = flags->bins_in_result;
    }
    static const char *inc[] = {PATC_SOURCE_DIR "/patterns"};
    opt.lang.include_dirs = inc;
    opt.lang.ninclude_dirs = 1;
    opt.defines = defs;
    opt.ndefines = ndefs;
    t->ok = compile_string(&t->c, &opt, path, src, strlen(src));
    return t;
}

static inline TC *tc_compile_named(const char *path, const char *src, const Define *defs, int ndefs)
{
    return tc_compile_flags(path, src, defs, ndefs, NULL);
}

static inline TC *tc_compile_defs(const char *src, const Define *defs, int ndefs)
{
    return tc_compile_named("t.rise", src, defs, ndefs);
}

static inline TC *tc_compile(const char *src) { return tc_compile_defs(src, NULL, 0); }

static inline void tc_free(TC *t)
{
    sb_free(&t->err);
    arena_free(t->a);
    free(t);
}

static inline const char *tc_err(TC *t) { return t->err.s ? t->err.s : ""; }

/* The CUDA text of the whole compilation (caller frees). */
static inline char *tc_cuda(TC *t)
{
    StrBuf b = {0};
    cu_emit_module(t->a, &b, t->c.kernels, t->c.nkernels);
    return sb_take(&b);
}

static inline int count_substr(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub)) n++;
    return n;
}

#define EXPECT_OK(t) ck_assert_msg((t)->ok, "compile failed:\n%s", tc_err(t))

/* Compile the file at `path`, which must succeed. */
static inline TC *tc_compile_file(const char *path)
{
    size_t len;
    char *src = lang_read_file(path, &len);
    ck_assert_ptr_nonnull(src);
    TC *t = tc_compile_named(path, src, NULL, 0);
    free(src);
    EXPECT_OK(t);
    return t;
}
#define EXPECT_ERR(t, sub)                                                                      \
    do {                                                                                        \
        ck_assert_msg(!(t)->ok, "expected an error containing '%s'", sub);                     \
        ck_assert_msg(strstr(tc_err(t), sub), "error text lacks '%s':\n%s", sub, tc_err(t));  \
    } while (0)

static inline int run_suite(Suite *s)
{
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int nf = srunner_ntests_failed(r);
    srunner_free(r);
    return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
