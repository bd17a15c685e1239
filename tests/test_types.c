/* test_types.c: expand + typecheck (one suite for the type checker). */
#include "testutil.h"
#include "../prims/prims.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>

static const char *body_type(TC *t)
{
    return ty_str(t->a, t->c.defs[0]->body->ty);
}

#define TYPE_IS(src, want)                                                   \
    do {                                                                     \
        TC *t_ = tc_compile(src);                                            \
        EXPECT_OK(t_);                                                       \
        ck_assert_str_eq(body_type(t_), want);                               \
        tc_free(t_);                                                         \
    } while (0)

#define ERR_IS(src, sub)            \
    do {                            \
        TC *t_ = tc_compile(src);   \
        EXPECT_ERR(t_, sub);        \
        tc_free(t_);                \
    } while (0)

START_TEST(views)
{
    TYPE_IS("kernel k = nFun(n => fun((4*n).f32)(xs => xs |> split(4) |> mapGlobal(fun(r => r |> reduceSeq(add)(0.0f)))))",
            "n.f32");
    TYPE_IS("kernel k = nFun((m, n) => fun(m.n.f32)(a => a |> transpose |> mapGlobal(mapSeq(id))))", "n.m.f32");
    TYPE_IS("kernel k = nFun((m, n) => fun(m.n.f32)(a => a |> join |> mapGlobal(id)))", "(m * n).f32");
    TYPE_IS("kernel k = nFun(n => fun(n.f32)(a => a |> padCst(2)(3)(0.0f) |> mapGlobal(id)))", "(n + 5).f32");
    TYPE_IS("kernel k = nFun(n => fun(n.f32)(a => a |> padClamp(1)(1) |> mapGlobal(id)))", "(n + 2).f32");
    TYPE_IS("kernel k = nFun(n => fun((n+8).f32)(a => a |> take(8) |> mapGlobal(id)))", "8.f32");
    TYPE_IS("kernel k = nFun(n => fun((n+8).f32)(a => a |> drop(8) |> mapGlobal(id)))", "n.f32");
    TYPE_IS("kernel k = nFun(n => fun(n.f32)(a => a |> padClamp(1)(1) |> slide(3)(1) |> mapGlobal(reduceSeq(add)(0.0f))))",
            "n.f32");
    TYPE_IS("kernel k = nFun(n => fun(n.f32)(a => fun(n.i32)(b => zip(a)(b) |> mapGlobal(fun(p => snd(p))))))", "n.i32");
}
END_TEST

/* Views of nested arrays (issue 33 item 3): padCst with a row as its value, take/drop
 * of an inner dimension of a map's result; a value of another shape is refused */
START_TEST(nested_views)
{
    TYPE_IS("kernel k = nFun((m, n) => fun(m.n.f32)(a => a |> padCst(1)(2)(generate(fun(j => 0.0f))) "
            "|> mapGlobal(mapSeq(id))))", "(m + 3).n.f32");
    TYPE_IS("kernel k = nFun((m, n) => fun(m.n.f32)(a => fun(n.f32)(row => a |> padCst(0)(1)(row) "
            "|> mapGlobal(mapSeq(id)))))", "(m + 1).n.f32");
    TYPE_IS("kernel k = nFun((m, n) => fun(m.(n+3).f32)(a => a |> mapGlobal(mapSeq(id)) |> mapSeq(take(n))))",
            "m.n.f32");
    TYPE_IS("kernel k = nFun((m, n) => fun(m.(n+1).f32)(a => a |> mapGlobal(mapSeq(id)) |> transpose "
            "|> mapSeq(drop(1))))", "(n + 1).(m - 1).f32");
    ERR_IS("kernel k = nFun((m, n) => fun(m.n.f32)(a => fun(3.f32)(row => a |> padCst(1)(1)(row) "
             "|> mapGlobal(mapSeq(id)))))", "the padding value has type 3.f32 but the elements have type n.f32");
    ERR_IS("kernel k = nFun((m, n) => fun(m.n.f32)(a => a |> padCst(1)(1)(0.0f) |> mapGlobal(mapSeq(id))))",
             "the padding value has type f32 but the elements have type n.f32");
    ERR_IS("kernel k = nFun((m, n) => fun(m.n.f32)(a => a |> mapGlobal(mapSeq(id)) |> mapSeq(take(n + 1))))",
             "take(n + 1): cannot show that n + 1 <= the array length n");
}
END_TEST

/* accumulate (issue 33 item 2): k bins of the values' type, from (bin, value) pairs of an
 * integer or idx bin; the operators the GPU applies atomically and in any order */
START_TEST(accumulate_types)
{
    TYPE_IS("kernel k = nFun(n => fun(n.u32)(xs => xs |> mapGlobal(fun(x => pair(x)(1u))) |> accumulate(256)(add)(0u)))",
            "256.u32");
    TYPE_IS("kernel k = nFun(n => fun(n.idx[n])(is => fun(n.f32)(xs => zip(is)(xs) |> mapGlobal(id) "
            "|> accumulate(n)(add)(0.0f))))",
            "n.f32");
    TYPE_IS("kernel k = nFun(n => fun(n.i64)(xs => xs |> mapGlobal(fun(x => pair(x)(x))) "
            "|> accumulate(8)(fun(a => fun(b => b | a)))(i64(0))))",
            "8.i64");
    ERR_IS("kernel k = nFun(n => fun(n.u32)(xs => xs |> mapGlobal(fun(x => pair(x)(1u))) "
           "|> accumulate(4)(fun(a => fun(b => a - b)))(0u)))",
           "accumulate needs an operator that the GPU applies atomically");
    ERR_IS("kernel k = nFun(n => fun(n.u32)(xs => xs |> mapGlobal(fun(x => pair(x)(1u))) "
           "|> accumulate(4)(fun(a => fun(b => a + a)))(0u)))",
           "accumulate needs an operator that the GPU applies atomically");
    ERR_IS("kernel k = nFun(n => fun(n.f64)(xs => xs |> mapGlobal(fun(x => pair(1u)(x))) |> accumulate(4)(max)(0.0)))",
           "CUDA has no atomic max on f64");
    ERR_IS("kernel k = nFun(n => fun(n.u32)(xs => xs |> mapGlobal(fun(x => pair(x > 3u)(1u))) |> accumulate(4)(add)(0u)))",
           "a bin must be an index");
    ERR_IS("kernel k = nFun(n => fun(n.u32)(xs => xs |> mapGlobal(fun(x => pair(x)(x > 3u))) |> accumulate(4)(add)(false)))",
           "CUDA has no atomic add on bool");
}
END_TEST

/* Pairs as data (issue 33 item 1): a pair accumulator, shuffles of warp arrays of pairs,
 * unzip of a computed array as the result (a pair of arrays); shuffles of pairs holding
 * arrays stay errors */
START_TEST(pairs_as_data_types)
{
    TYPE_IS("kernel k = nFun(n => fun((8*n).f32)(xs => fun((8*n).i32)(is => zip(xs)(is) |> split(8) |> "
            "mapGlobal(reduceSeq(fun(a => fun(p => select(fst(p) > fst(a))(p)(a))))(pair(-inff)(0))) |> unzip)))",
            "(n.f32, n.i32)");
    TYPE_IS("kernel k = nFun(n => fun((32*n).f32)(xs => fun((32*n).i32)(is => zip(xs)(is) |> split(32) |> "
            "mapWarp(fun(w => w |> mapLane(id) |> shflDownWarp(1) |> mapLane(fun(p => pair(snd(p))(fst(p)))))) |> join |> unzip)))",
            "((32 * n).i32, (32 * n).f32)");
    TYPE_IS("kernel k = nFun(n => fun((32*n).f32)(xs => xs |> split(32) |> mapWarp(fun(w => "
            "zip(w)(zip(w)(w)) |> mapLane(id) |> shflXorWarp(3) |> mapLane(fun(p => fst(snd(p)))))) |> join))",
            "(32 * n).f32");
    ERR_IS("kernel k = nFun(n => fun((64*n).f32)(xs => xs |> split(64) |> mapWarp(fun(w => zip(w |> split(2))(w |> split(2)) "
           "|> shflDownWarp(1) |> mapLane(fun(p => fst(p) |> reduceSeq(add)(0.0f)))))))",
           "shflDownWarp expects a 32-element warp array of scalars (or pairs of scalars), but this has type 32.(2.f32, 2.f32)");
}
END_TEST

START_TEST(padding_idiom)
{
    /* symbolic n and k: the padded length must be shown divisible by k */
    TYPE_IS("kernel k = nFun((n, k) => fun(n.f32)(xs => xs |> padCst(0)((k - n % k) % k)(0.0f) |> split(k) "
            "|> mapBlock(fun(c => c |> reduceSeq(add)(0.0f)))))",
            "((n + k - 1) / k).f32");
    TC *t = tc_compile("kernel k = nFun(n => fun(n.f32)(xs => xs |> padCst(0)((32 - n % 32) % 32)(0.0f) |> split(32) "
                       "|> mapBlock(fun(c => c |> reduceSeq(add)(0.0f)))))");
    EXPECT_OK(t);
    ck_assert_str_eq(body_type(t), "((n + 31) / 32).f32");
    tc_free(t);
}
END_TEST

/* inff and nanf are f32, inf and nan f64, as 2.0f and 2.0; -inff is folded into one
 * literal like -2.0f; inff is no literal out of f32's range, 3.5e38f still is */
START_TEST(float_words)
{
    TYPE_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => max(x)(-inff) + nanf))))", "n.f32");
    TYPE_IS("kernel k = nFun(n => fun(n.f64)(xs => xs |> mapGlobal(fun(x => min(x)(inf) - nan))))", "n.f64");
    TC *t = tc_compile("kernel k = nFun(n => fun(n.f32)(xs => xs |> split(n) |> mapGlobal(reduceSeq(max)(-inff))))");
    EXPECT_OK(t);
    const Expr *m = t->c.defs[0]->body; /* mapGlobal(reduceSeq(op)(init))(...) */
    const Expr *f = m->prim.args[0];
    ck_assert_int_eq(f->kind, E_LAM);
    const Expr *r = f->lam.body;
    ck_assert_int_eq(r->kind, E_PRIM);
    const Expr *init = r->prim.args[1];
    ck_assert_int_eq(init->kind, E_LIT);
    ck_assert_int_eq(init->ty->sk, SK_F32);
    ck_assert(isinf(init->lit.f) && init->lit.f < 0);
    tc_free(t);
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => max(x)(inf)))))",
           "max expects two scalars of the same type, got f32 and f64");
    ERR_IS("kernel k = nFun(n => fun(n.f64)(xs => xs |> mapGlobal(fun(x => x + nanf))))",
           "operator '+' on different types f64 and f32");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x + 3.5e38f))))", "out of range for f32");
    ERR_IS("kernel k = nFun(n => fun(n.i32)(xs => xs |> mapGlobal(fun(x => x + inff))))",
           "operator '+' on different types i32 and f32");
}
END_TEST

START_TEST(size_errors)
{
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> split(4) |> mapGlobal(id)))",
           "split(4): cannot show that 4 divides the array length n");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> split(0) |> mapGlobal(id)))", "split size must be positive");
    ERR_IS("kernel k = nFun((n, m) => fun(n.f32)(a => fun(m.f32)(b => zip(a)(b) |> mapGlobal(fst))))",
           "zip of arrays of different sizes: n.f32 and m.f32");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(a => a |> take(8) |> mapGlobal(id)))", "take(8): cannot show that 8 <= the array length n");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(a => a |> transpose))", "transpose expects an array of arrays");
}
END_TEST

START_TEST(scalar_errors)
{
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 2))))", "integer literal where f32 is expected");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => fun(n.i32)(ys => zip(xs)(ys) |> mapGlobal(fun(p => fst(p) + snd(p))))))",
           "operator '+' on different types f32 and i32");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x % 2.0f))))", "defined on integers only");
    ERR_IS("kernel k = nFun(n => fun(n.i32)(xs => xs |> mapGlobal(fun(x => x + 3000000000))))", "does not fit in i32");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x && x))))", "takes bool operands");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x && true))))", "on different types f32 and bool");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => y))))", "unknown name 'y'");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => fst(x)))))", "fst expects a pair");
}
END_TEST

START_TEST(nesting_errors)
{
    ERR_IS("kernel k = nFun(n => fun((32*n).f32)(xs => xs |> split(32) |> mapThreads(fun(c => c |> mapBlock(id)))))",
           "mapBlock cannot run inside mapThreads");
    ERR_IS("kernel k = nFun(n => fun((32*n).f32)(xs => xs |> split(32) |> mapBlock(fun(c => c |> mapLane(id)))))",
           "mapLane must be nested inside mapWarp");
    ERR_IS("kernel k = nFun(n => fun((32*n).f32)(xs => xs |> split(32) |> mapBlock(fun(c => c |> split(4) |> mapBlock(mapThreads(id))))))",
           "mapBlock('x') nested inside mapBlock('x')");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x |> mapGlobal(id)))))", "mapGlobal expects an array");
}
END_TEST

START_TEST(defs_and_lets)
{
    TYPE_IS("def chunked(k) = fun(xs => xs |> split(k * 2))\n"
            "kernel k = nFun(n => fun((8*n).f32)(xs => xs |> chunked(4) |> mapGlobal(reduceSeq(add)(0.0f))))",
            "n.f32");
    TYPE_IS("def twice(f) = fun(x => f(f(x)))\n"
            "kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(twice(fun(y => y * 3.0f)))))",
            "n.f32");
    ERR_IS("def loop(x) = loop(x)\nkernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(loop)))", "refers to itself");
    /* a let binds once: the typed IR keeps the let for a data argument */
    TC *t = tc_compile("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => (x * x) |> fun(y => y + y)))))");
    EXPECT_OK(t);
    StrBuf b = {0};
    expr_print(&b, t->c.defs[0]->body);
    ck_assert_ptr_nonnull(strstr(b.s, "let y_"));
    sb_free(&b);
    tc_free(t);
    ERR_IS("kernel k = nFun(n => fun((2*n).f32)(xs => split(2)(xs)(xs) |> mapGlobal(id)))", "too many arguments");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x)(3))))", "expected a function here");
    /* a definition that returns a function, called with a computed argument (let-bound
     * by expand.c), is still a function where one is expected: one and two parameters */
    TYPE_IS("def scaleBy(s) = fun(x => x * s)\n"
            "kernel k = nFun(n => fun(n.f32)(xs => fun(f32)(c => xs |> mapGlobal(scaleBy(c * 2.0f)))))",
            "n.f32");
    TYPE_IS("def addScaled(s) = fun(a => fun(x => a + x * s))\n"
            "kernel k = nFun(n => fun(n.f32)(xs => fun(f32)(c =>\n"
            "  xs |> split(n) |> mapSeq(fun(r => r |> reduceSeq(addScaled(u32(3) |> f32))(0.0f))))))",
            "1.f32");
    ERR_IS("kernel k = fun(xs => xs)", "needs a type");
    ERR_IS("def a = 1\ndef a = 2\nkernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(id)))", "defined twice");
}
END_TEST

START_TEST(defines)
{
    Define d[] = {{"k", 32}};
    TC *t = tc_compile_defs("kernel r = nFun((n, k) => fun(n.f32)(xs => xs |> padCst(0)((k - n % k) % k)(0.0f) "
                            "|> split(k) |> mapBlock(fun(c => c |> reduceSeq(add)(0.0f)))))", d, 1);
    EXPECT_OK(t);
    ck_assert_int_eq(t->c.defs[0]->nnats, 1);
    ck_assert_str_eq(t->c.defs[0]->nats[0]->name, "n");
    ck_assert_str_eq(body_type(t), "((n + 31) / 32).f32");
    tc_free(t);
    Define bad[] = {{"kk", 32}};
    t = tc_compile_defs("kernel r = nFun((n, k) => fun(n.f32)(xs => xs |> mapGlobal(id)))", bad, 1);
    EXPECT_ERR(t, "-D kk: no kernel has a nat parameter named 'kk'");
    tc_free(t);
}
END_TEST

/* The values of a -D note's "e.g. with -D a=1 -D b=2 ... compiles", into d (names in
 * buf): their number, 0 when the note gives none. */
static int hint_values(const char *err, Define *d, int max, char *buf, size_t bufsz)
{
    const char *p = strstr(err, "e.g. with");
    const char *end = p ? strstr(p, " compiles") : NULL;
    int n = 0;
    size_t used = 0;
    for (p = p ? strstr(p, "-D ") : NULL; p && p < end && n < max; p = strstr(p, "-D ")) {
        p += 3;
        size_t len = strcspn(p, "=");
        ck_assert_uint_lt(used + len + 1, bufsz);
        memcpy(buf + used, p, len);
        buf[used + len] = 0;
        d[n].name = buf + used;
        d[n].value = strtoll(p + len + 1, NULL, 10);
        used += len + 1;
        n++;
    }
    return n;
}

/* The line of the diagnostics that holds `sub`, from its start. */
static const char *line_of(const char *err, const char *sub)
{
    const char *p = strstr(err, sub);
    ck_assert_msg(p, "no '%s' in:\n%s", sub, err);
    while (p > err && p[-1] != '\n') p--;
    return p;
}

/* Compile src with the values its -D note suggests: it must compile (hint.c names no
 * value that a compile has not confirmed). */
static void follow_hint(const char *src, TC *failed, const Define *given, int ngiven)
{
    Define d[16];
    char names[256];
    if (ngiven) memcpy(d, given, sizeof *d * (size_t)ngiven);
    int n = hint_values(tc_err(failed), d + ngiven, 16 - ngiven, names, sizeof names);
    ck_assert_msg(n > 0, "the note gives no values:\n%s", tc_err(failed));
    TC *t = tc_compile_defs(src, d, ngiven + n);
    EXPECT_OK(t);
    tc_free(t);
}

/* A check that needs the value of a shape parameter no -D fixes gets a note at the
 * kernel's use of the definition: the parameter, the fact, -D NAME=VALUE, and values
 * with which the program compiles. A value fixed by -D (wrong), or a data length, gets
 * no note. */
START_TEST(define_hints)
{
    const char *scan = "import \"scan.rise\"\n"
                       "kernel inclSum = nFun((n, nt, ipt) => fun(n.f32)(xs => xs |> scanDevice(n, add, 0.0f, nt, ipt)))";
    TC *t = tc_compile(scan);
    EXPECT_ERR(t, "split(32): cannot show that 32 divides the array length nt");
    EXPECT_ERR(t, "note: nt is a nat parameter of kernel 'inclSum' that no -D fixes, and this check needs 32 to "
                  "divide nt: fix it with -D nt=VALUE; e.g. with -D nt=32 -D ipt=1 the program compiles");
    /* at the scanDevice use in the kernel (line 2, column 62), after the library's place */
    ck_assert(line_of(tc_err(t), "note: nt is") > strstr(tc_err(t), "scan.rise:55:19: error"));
    ck_assert(!strncmp(line_of(tc_err(t), "note: nt is"), "t.rise:2:62: note:", 18));
    follow_hint(scan, t, NULL, 0);
    tc_free(t);

    /* nt fixed, ipt not: toPrivate needs ipt's value */
    Define nt[] = {{"nt", 128}};
    t = tc_compile_defs(scan, nt, 1);
    EXPECT_ERR(t, "note: ipt is a nat parameter of kernel 'inclSum' that no -D fixes, and this check needs ipt to be "
                  "a constant: fix it with -D ipt=VALUE");
    follow_hint(scan, t, nt, 1);
    tc_free(t);

    /* fixed, but to a value 32 does not divide: the error names it, and no note offers a -D */
    Define wrong[] = {{"nt", 100}, {"ipt", 25}};
    t = tc_compile_defs(scan, wrong, 2);
    EXPECT_ERR(t, "split(32): cannot show that 32 divides the array length 100");
    ck_assert_ptr_null(strstr(tc_err(t), "no -D fixes"));
    tc_free(t);

    const char *grid = "import \"reduce.rise\"\n"
                       "kernel reduceSum = nFun((n, g, elemsBlock, elemsWarp) => fun(n.f32)(xs =>\n"
                       "  xs |> reduceGrid(n, g, elemsBlock, elemsWarp, add, 0.0f)))";
    t = tc_compile(grid);
    EXPECT_ERR(t, "note: elemsBlock and elemsWarp are nat parameters of kernel 'reduceSum' that no -D fixes, and this "
                  "check needs elemsWarp to divide elemsBlock: fix them with -D elemsBlock=VALUE -D elemsWarp=VALUE; e.g. with");
    ck_assert(!strncmp(line_of(tc_err(t), "note: elemsBlock and"), "t.rise:3:9: note:", 17));
    ck_assert_ptr_null(strstr(tc_err(t), "-D g=")); /* g is not in the fact */
    follow_hint(grid, t, NULL, 0);
    tc_free(t);

    /* m is one of two factors of the data's length: a shape, named */
    const char *rows = "kernel k = nFun((r, m) => fun((r*m).f32)(xs => xs |> split(m) |> mapGlobal(fun(row => "
                       "row |> split(32) |> mapSeq(reduceSeq(add)(0.0f))))))";
    t = tc_compile(rows);
    EXPECT_ERR(t, "note: m is a nat parameter of kernel 'k' that no -D fixes, and this check needs 32 to divide m: "
                  "fix it with -D m=VALUE; e.g. with -D m=32 the program compiles");
    follow_hint(rows, t, NULL, 0);
    tc_free(t);

    /* t = 32 compiles kernel a, where the error is, but not kernel b: the values must
     * compile the whole program */
    const char *two = "kernel a = nFun((n, t) => fun((n*t).f32)(xs => xs |> split(t) |> mapGlobal(fun(r => "
                      "r |> split(32) |> mapSeq(reduceSeq(add)(0.0f))))))\n"
                      "kernel b = nFun((n, t) => fun((n*t).f32)(xs => xs |> split(t) |> mapGlobal(fun(r => "
                      "r |> split(64) |> mapSeq(reduceSeq(add)(0.0f))))))";
    t = tc_compile(two);
    EXPECT_ERR(t, "note: t is a nat parameter of kernel 'a' that no -D fixes, and this check needs 32 to divide t: "
                  "fix it with -D t=VALUE; e.g. with -D t=64 the program compiles");
    follow_hint(two, t, NULL, 0);
    tc_free(t);

    /* n alone makes the input's length: given at launch, never suggested */
    t = tc_compile("kernel k = nFun(n => fun((4*n).f32)(xs => xs |> split(3) |> mapGlobal(reduceSeq(add)(0.0f))))");
    EXPECT_ERR(t, "split(3): cannot show that 3 divides the array length 4 * n");
    ck_assert_ptr_null(strstr(tc_err(t), "no -D fixes"));
    tc_free(t);
}
END_TEST

START_TEST(generate_and_shfl_types)
{
    /* the pattern types as 32.idx[32]; lowering then wants a warp array */
    ERR_IS("kernel k = nFun(n => fun((32*n).f32)(xs => xs |> split(32) |> mapGlobal(fun(c => c |> "
           "shflWarp(generate(fun(i => (5*i + 3) % 32))) |> reduceSeq(add)(0.0f)))))",
           "only supported on a warp array");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => generate(fun(i => i))))))",
           "generate takes its length from the context");
    ERR_IS("kernel k = nFun(n => fun((16*n).f32)(xs => xs |> split(16) |> mapGlobal(fun(c => c |> shflDownWarp(1) |> reduceSeq(add)(0.0f)))))",
           "expects a 32-element warp array");
}
END_TEST

/* idx, gather, scatter, concat, padEmpty and an annotated generate: result types and misuse */
static const char *out_type(const char *src)
{
    static char buf[256];
    TC *t = tc_compile(src);
    EXPECT_OK(t);
    snprintf(buf, sizeof buf, "%s", ty_str(t->a, t->c.defs[0]->body->ty));
    tc_free(t);
    return buf;
}

START_TEST(data_movement_types)
{
    ck_assert_str_eq(out_type("kernel k = nFun(n => fun(n.i64)(js => fun(n.f32)(xs => js |> mapGlobal(fun(j => idx(j)(xs))))))"),
                     "n.f32");
    ck_assert_str_eq(out_type("kernel k = nFun((n, m) => fun(m.idx[n])(is => fun(n.f32)(xs => gather(is)(xs) |> mapGlobal(id))))"),
                     "m.f32");
    ck_assert_str_eq(out_type("kernel k = nFun((n, m) => fun(n.idx[m])(is => fun(n.i32)(vs => scatter(is)(vs |> mapGlobal(id)))))"),
                     "m.i32");
    ck_assert_str_eq(out_type("kernel k = nFun((n, m) => fun(n.f32)(xs => fun(m.f32)(ys => concat(xs)(ys) |> mapGlobal(id))))"),
                     "(n + m).f32");
    ck_assert_str_eq(out_type("kernel k = nFun(n => fun(n.f32)(xs => padEmpty(3)(xs |> mapGlobal(id))))"), "(n + 3).f32");
    ck_assert_str_eq(out_type("kernel k = nFun(n => fun(n.f32)(xs => zip(generate(fun(idx[n])(i => i)))(xs) |> mapGlobal(fun(p => fst(p)))))"),
                     "n.idx[n]");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(is => fun(n.f32)(xs => gather(is)(xs) |> mapGlobal(id))))",
           "gather expects an array of indices (m.idx[n], or of i32, u32 or i64), but this has type n.f32");
    ERR_IS("kernel k = nFun(n => fun(n.i32)(is => fun(n.f32)(xs => scatter(is)(xs |> mapGlobal(id)))))",
           "scatter expects the output positions as an array of type n.idx[m]");
    ERR_IS("kernel k = nFun(n => fun((n+1).idx[n])(is => fun(n.f32)(xs => scatter(is)(xs |> mapGlobal(id)))))",
           "scatter: n + 1 positions for n values");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => fun(n.f32)(ys => fun(n.f32)(is => ys |> mapGlobal(fun(y => idx(y)(xs)))))))",
           "idx expects an index (idx[n], i32, u32 or i64), but this has type f32");
    ERR_IS("kernel k = nFun(n => fun(n.idx[n+1])(is => fun(n.f32)(xs => gather(is)(xs) |> mapGlobal(id))))",
           "gather: the indices have type idx[n + 1], but the array has only n elements");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => fun(n.i32)(ys => concat(xs)(ys) |> mapGlobal(id))))",
           "concat of arrays of different element types");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => zip(generate(fun(f32)(i => i)))(xs) |> mapGlobal(fun(p => fst(p)))))",
           "generate's function takes an idx[n], but its parameter is annotated f32");
}
END_TEST

/* scanSeq/scanSeqExcl : (s -> t -> t) -> t -> n.s -> n.t, the operator taking the
 * element first (shine's order); reduceSeq with an array accumulator k.t : k.t */
START_TEST(scan_types)
{
    TYPE_IS("kernel k = nFun(n => fun((8*n).f32)(xs => xs |> split(8) |> mapGlobal(scanSeq(add)(0.0f))))", "n.8.f32");
    TYPE_IS("kernel k = nFun(n => fun(n.i32)(xs => xs |> scanSeqExcl(add)(0)))", "n.i32");
    /* s = i32, t = f32: the element comes first, the accumulator second */
    TYPE_IS("kernel k = nFun(n => fun(n.i32)(xs => xs |> scanSeq(fun(x => fun(a => a + 1.0f)))(0.0f)))", "n.f32");
    ERR_IS("kernel k = nFun(n => fun(n.i32)(xs => xs |> scanSeq(fun(a => fun(x => a + 1.0f)))(0.0f)))",
           "operator '+' on different types i32 and f32");
    ERR_IS("kernel k = nFun(n => fun(n.i32)(xs => xs |> scanSeq(fun(x => fun(a => x)))(0.0f)))",
           "scanSeq: the operator returns i32 but the accumulator has type f32");
    ERR_IS("kernel k = nFun(n => fun(n.i32)(xs => 1 |> scanSeq(add)(0)))", "scanSeq");
    TYPE_IS("kernel k = nFun(n => fun((n*4).f32)(xs => xs |> split(4) |> reduceSeq(fun(acc => fun(r => "
            "zip(acc)(r) |> mapSeq(fun(p => fst(p) + snd(p))))))(generate(fun(i => 0.0f)))))", "4.f32");
    /* an integer literal as the initial value takes the accumulator's annotated type,
     * also over float elements (a count); unannotated, the message names the fixes */
    TYPE_IS("kernel k = nFun(n => fun((8*n).f32)(xs => xs |> split(8) |> mapGlobal(reduceSeq("
            "fun(i32)(acc => fun(x => acc + i32(x > 0.5f))))(0))))", "n.i32");
    TYPE_IS("kernel k = nFun(n => fun((8*n).f32)(xs => xs |> split(8) |> mapGlobal(reduceSeq("
            "fun(u64)(acc => fun(x => acc + u64(x > 0.5f))))(7))))", "n.u64");
    TYPE_IS("kernel k = nFun(n => fun((8*n).i32)(xs => xs |> split(8) |> mapGlobal(reduceSeq("
            "fun(i64)(acc => fun(x => acc + i64(x))))(0))))", "n.i64");
    TYPE_IS("kernel k = nFun(n => fun((8*n).f32)(xs => xs |> split(8) |> mapGlobal(scanSeq("
            "fun(x => fun(i32)(acc => acc + i32(x > 0.5f))))(0))))", "n.8.i32");
    ERR_IS("kernel k = nFun(n => fun((8*n).f32)(xs => xs |> split(8) |> mapGlobal(reduceSeq("
           "fun(acc => fun(x => acc + i32(x > 0.5f))))(0))))",
           "reduceSeq: the initial value is an integer literal, but the elements are f32 and the operator does not "
           "give its accumulator a type: write 0.0f for an f32 accumulator, or i32(0) (or annotate the accumulator: "
           "fun(i32)(acc => ...)) for an integer one");
    ERR_IS("kernel k = nFun(n => fun((8*n).f64)(xs => xs |> split(8) |> mapGlobal(scanSeq("
           "fun(x => fun(acc => acc + x)))(0))))", "write 0.0 for an f64 accumulator");
    /* a primitive operator takes equal types: the literal is a float, as before */
    ERR_IS("kernel k = nFun(n => fun((8*n).f32)(xs => xs |> split(8) |> mapGlobal(reduceSeq(add)(0))))",
           "integer literal where f32 is expected; write 0.0f");
    ERR_IS("kernel k = nFun(n => fun((8*n).f32)(xs => xs |> split(8) |> mapGlobal(reduceSeq("
           "fun(i32)(acc => fun(x => acc + x)))(0))))", "operator '+' on different types i32 and f32");
}
END_TEST

/* The columns of the primitive table agree with each other: the maps and only they
 * have a level, the warp family and only it a shuffle kind, function arities stay
 * within the arguments, and every level and shuffle kind belongs to some primitive. */
/* The scalar forms (issue 11 item 2): select, casts, math functions, the operators as
 * functions; each type rule and its misuse. */
#define MAP1(t, body) "kernel k = nFun(n => fun(n." t ")(xs => xs |> mapGlobal(fun(x => " body "))))"
START_TEST(scalar_forms)
{
    TYPE_IS(MAP1("f32", "select(x > 0.5f)(x)(0.0f)"), "n.f32");
    TYPE_IS(MAP1("i32", "select(x > 0)(x)(1)"), "n.i32");
    TYPE_IS(MAP1("f32", "select(true)(pair(x)(1))(pair(x)(2)) |> snd"), "n.i32");
    TYPE_IS("kernel k = nFun(n => fun(n.f32)(a => fun(n.f32)(b => select(n > 3)(a)(b) |> mapGlobal(id))))", "n.f32");
    TYPE_IS("kernel k = nFun(n => fun(n.f32)(a => fun((n+1).f32)(b => select(true)(a)(b |> take(n)) |> mapGlobal(id))))",
            "n.f32");
    TYPE_IS(MAP1("f32", "f64(x)"), "n.f64");
    TYPE_IS(MAP1("f32", "i32(x)"), "n.i32");
    TYPE_IS(MAP1("f32", "u32(x)"), "n.u32");
    TYPE_IS(MAP1("i32", "i64(x)"), "n.i64");
    TYPE_IS(MAP1("i32", "u64(x)"), "n.u64");
    TYPE_IS(MAP1("i32", "bool(x)"), "n.bool");
    TYPE_IS(MAP1("bool", "f32(x)"), "n.f32");
    TYPE_IS(MAP1("f32", "exp(x) + sqrt(x) + rsqrt(x) + tanh(x) + erf(x) + floor(x) + ceil(x)"), "n.f32");
    TYPE_IS(MAP1("f64", "pow(x)(2.0) + fma(x)(x)(1.0) + log2(x) + exp2(x) + sin(x) + cos(x) + log(x)"), "n.f64");
    TYPE_IS(MAP1("i32", "abs(x)"), "n.i32");
    TYPE_IS(MAP1("i64", "abs(x) + min(x)(2) + max(x)(3)"), "n.i64");
    TYPE_IS(MAP1("i32", "sub(x)(1) + div(x)(2) + mod(x)(3) + neg(x)"), "n.i32");
    TYPE_IS(MAP1("f32", "gt(x)(1.0f)"), "n.bool");
    TYPE_IS(MAP1("u32", "lt(x)(1)"), "n.bool");
    TYPE_IS(MAP1("i32", "not(equal(x)(1))"), "n.bool");
    /* as function arguments, like add */
    TYPE_IS("kernel k = nFun(n => fun((4*n).i32)(xs => xs |> split(4) |> mapGlobal(reduceSeq(sub)(0))))", "n.i32");
    TYPE_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(exp)))", "n.f32");
    TYPE_IS("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(i32)))", "n.i32");

    ERR_IS(MAP1("f32", "select(x > 0.5f)(x)(1)"), "integer literal where f32 is expected");
    ERR_IS(MAP1("f32", "select(x > 0.5f)(x)(i32(x))"), "select of different types f32 and i32");
    ERR_IS(MAP1("f32", "select(x)(x)(x)"), "select: the condition must be a bool, but this has type f32");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(a => fun(n.i32)(b => select(true)(a)(b) |> mapGlobal(id))))",
           "select of different types n.f32 and n.i32");
    ERR_IS(MAP1("f32", "f64(pair(x)(x))"), "f64(x) converts a scalar, but this has type (f32, f32)");
    ERR_IS("kernel k = nFun(n => fun(n.f32)(xs => f32(xs)))", "f32(x) converts a scalar, but this has type n.f32");
    ERR_IS(MAP1("i32", "exp(x)"), "exp takes f32 or f64 (convert an integer with f32(x)), but this has type i32");
    ERR_IS(MAP1("u32", "abs(x)"), "abs takes f32, f64, i32 or i64, but this has type u32");
    ERR_IS(MAP1("f32", "pow(x)(2.0)"), "pow: argument 2 has type f64 but the first has type f32");
    ERR_IS(MAP1("f32", "fma(x)(x)"), "'fma' is applied to 2 arguments but takes 3");
    ERR_IS(MAP1("f32", "mod(x)(2.0f)"), "mod is defined on integers only, got f32");
    ERR_IS(MAP1("f32", "sub(x)(1.0)"), "sub on different types f32 and f64");
    ERR_IS(MAP1("u32", "neg(x)"), "neg does not apply to u32");
    ERR_IS(MAP1("i32", "not(x)"), "not takes a bool, but this has type i32");
    ERR_IS(MAP1("bool", "gt(x)(x)"), "gt does not apply to bool");
}
END_TEST

START_TEST(prim_table)
{
    bool level_seen[LVL_LANE + 1] = {0}, shfl_seen[SHFL_BALLOT + 1] = {0};
    for (int p = 0; p < P_COUNT; p++) {
        const PrimInfo *pi = &prim_info[p];
        ck_assert_msg((pi->family == PF_MAP) == (pi->level != NOLVL), "%s: map family vs level", pi->name);
        ck_assert_msg((pi->family == PF_WARP) == (pi->shfl != NOSHFL), "%s: warp family vs shuffle", pi->name);
        ck_assert_msg(!pi->has_dim || (pi->level != NOLVL && pi->level != LVL_SEQ), "%s: a dimension", pi->name);
        if (pi->level != NOLVL) level_seen[pi->level] = true;
        if (pi->shfl != NOSHFL) shfl_seen[pi->shfl] = true;
        for (int i = 0; i < 3; i++)
            ck_assert_msg(pi->fnarity[i] >= 0 && pi->fnarity[i] <= 2 && (i < pi->nargs || !pi->fnarity[i]),
                          "%s: argument %d", pi->name, i);
        ck_assert_int_eq(prim_lookup(pi->name), p);
    }
    for (int l = 0; l <= LVL_LANE; l++) ck_assert_msg(level_seen[l], "level %d has no map", l);
    for (int k = 0; k <= SHFL_BALLOT; k++) ck_assert_msg(shfl_seen[k], "shuffle %d has no primitive", k);
    ck_assert_int_eq(prim_info[P_REDUCESEQ].fnarity[0], 2);
    ck_assert_int_eq(prim_info[P_MAPWARP].level, LVL_WARP);
    ck_assert_int_eq(prim_info[P_SHFLWARP].shfl, SHFL_IDX);
}
END_TEST

/* Every primitive of the table has a type rule, a lowering and an interpreter meaning in
 * the handler table of its family's file in prims/ (prim_ops picks the file by the family
 * column): a row missing there, or written in another family's file, fails here. */
START_TEST(prim_handlers)
{
    for (int p = 0; p < P_COUNT; p++) {
        const PrimOps *ops = prim_ops((Prim)p);
        ck_assert_msg(ops->infer, "primitive '%s' has no type rule (infer) in prims/", prim_info[p].name);
        ck_assert_msg(ops->lower, "primitive '%s' has no lowering (lower) in prims/", prim_info[p].name);
        ck_assert_msg(ops->eval, "primitive '%s' has no interpreter meaning (eval) in prims/", prim_info[p].name);
    }
}
END_TEST

/* Every primitive of the table is named in the first column of the primitives table
 * of docs/language.md (rows may name several: "pair, fst, snd", "toPrivateFun(f)"). */
START_TEST(prims_documented)
{
    FILE *f = fopen(PATC_SOURCE_DIR "/docs/language.md", "r");
    ck_assert_ptr_nonnull(f);
    bool named[P_COUNT] = {0}, in_section = false;
    int rows = 0;
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            in_section = strncmp(line, "## Primitives", 13) == 0;
            continue;
        }
        if (!in_section || line[0] != '|' || line[1] == '-') continue;
        /* the first cell: up to the next '|' not escaped as "\|" */
        char *end = line + 1;
        while (*end && !(*end == '|' && end[-1] != '\\')) end++;
        *end = 0;
        rows++;
        for (char *p = line + 1; *p;) {
            if (!isalpha((unsigned char)*p)) {
                p++;
                continue;
            }
            char *q = p;
            while (isalnum((unsigned char)*q)) q++;
            char save = *q;
            *q = 0;
            int prim = prim_lookup(p);
            if (prim >= 0) named[prim] = true;
            *q = save;
            p = q;
        }
    }
    fclose(f);
    ck_assert_int_gt(rows, 10);
    for (int p = 0; p < P_COUNT; p++)
        ck_assert_msg(named[p], "primitive '%s' is missing from the primitives table of docs/language.md",
                      prim_info[p].name);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("types");
    TCase *c = tcase_create("core");
    tcase_add_test(c, views);
    tcase_add_test(c, accumulate_types);
    tcase_add_test(c, padding_idiom);
    tcase_add_test(c, size_errors);
    tcase_add_test(c, scalar_errors);
    tcase_add_test(c, float_words);
    tcase_add_test(c, nesting_errors);
    tcase_add_test(c, defs_and_lets);
    tcase_add_test(c, defines);
    tcase_add_test(c, define_hints);
    tcase_add_test(c, generate_and_shfl_types);
    tcase_add_test(c, scalar_forms);
    tcase_add_test(c, scan_types);
    tcase_add_test(c, prim_table);
    tcase_add_test(c, prim_handlers);
    tcase_add_test(c, data_movement_types);
    tcase_add_test(c, prims_documented);
    tcase_add_test(c, nested_views);
    tcase_add_test(c, pairs_as_data_types);
    suite_add_tcase(s, c);
    return run_suite(s);
}
