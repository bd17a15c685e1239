/* test_parser.c: the grammar, the AST it builds, spans, syntax errors and imports. */
#include "lang.h"

#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One parse: the program printed (out) or the diagnostic (err), and the AST itself. */
typedef struct Parsed {
    Arena *arena;
    Program prog;
    char *out, *err;
} Parsed;

static LangOptions no_opts = {.include_dirs = NULL};

static void parse_with(Parsed *P, const LangOptions *opt, const char *path, const char *src)
{
    memset(P, 0, sizeof *P);
    P->arena = arena_new();
    StrBuf buf = {0};
    Diag d;
    diag_init(&d, NULL, &buf);
    d.jump_armed = true;
    if (setjmp(d.on_error)) {
        P->err = sb_take(&buf);
        return;
    }
    if (src) lang_parse_string(P->arena, &d, opt, &P->prog, path, src, strlen(src));
    else lang_parse_file(P->arena, &d, opt, &P->prog, path);
    ck_assert(d.jump_armed); /* the caller's handler is back in place */
    ck_assert_int_eq(d.nerrors, 0);
    StrBuf out = {0};
    ast_print_program(&out, &P->prog);
    P->out = sb_take(&out);
    sb_free(&buf);
}

static void parse(Parsed *P, const char *src) { parse_with(P, &no_opts, "t.rise", src); }

static void done(Parsed *P)
{
    free(P->out);
    free(P->err);
    arena_free(P->arena);
}

/* The program `src` prints as `want` (fully parenthesised). */
static void expect_print(const char *src, const char *want)
{
    Parsed P;
    parse(&P, src);
    ck_assert_msg(P.err == NULL, "error for %s: %s", src, P.err);
    ck_assert_str_eq(P.out, want);
    done(&P);
}

/* Parsing `src` fails with a diagnostic that contains `msg`. */
static void expect_error(const char *src, const char *msg)
{
    Parsed P;
    parse(&P, src);
    ck_assert_msg(P.err != NULL, "no error for %.60s", src);
    ck_assert_msg(strstr(P.err, msg) != NULL, "for %.60s: got %.300s, wanted %s", src, P.err, msg);
    done(&P);
}

START_TEST(test_core_forms)
{
    expect_print("-- c\ndef addPair = fun(p => fst(p) + snd(p))",
                 "def addPair = fun(p => (fst(p) + snd(p)))\n");
    expect_print("def reduceWarp(op) = fun(w => w)", "def reduceWarp(op) = fun(w => w)\n");
    expect_print("kernel scale = nFun(n =>\n  fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 2.0f))))",
                 "kernel scale = nFun(n => fun(n.f32)(xs => mapGlobal(fun(x => (x * 2.0f)))(xs)))\n");
    expect_print("def f(a, b) = a def g = b", "def f(a, b) = a\ndef g = b\n");
    expect_print("", "");
}
END_TEST

START_TEST(test_application)
{
    expect_print("def a = f(x, y, z)", "def a = f(x)(y)(z)\n");
    expect_print("def a = f(x)(y)", "def a = f(x)(y)\n");
    expect_print("def a = (fun(x => x))(y)", "def a = (fun(x => x))(y)\n");
    expect_print("def a = mapBlock('y')(f)", "def a = mapBlock('y')(f)\n");
}
END_TEST

START_TEST(test_pipes_and_composition)
{
    /* |> is loosest and left-associative */
    expect_print("def a = x |> f |> g", "def a = g(f(x))\n");
    expect_print("def a = x + 1 |> f", "def a = f((x + 1))\n");
    /* >> binds tighter than |> and looser than || */
    expect_print("def a = x |> f >> g",
                 "def a = (fun($c0 => g(f($c0))))(x)\n");
    expect_print("def a = p || q >> g", "def a = fun($c0 => g((p || q)($c0)))\n");
    expect_print("def a = f >> g >> h",
                 "def a = fun($c1 => h((fun($c0 => g(f($c0))))($c1)))\n");
}
END_TEST

START_TEST(test_operators)
{
    expect_print("def a = 1 + 2 * 3 - 4 / 5 % 6", "def a = ((1 + (2 * 3)) - ((4 / 5) % 6))\n");
    expect_print("def a = a < b == c >= d", "def a = ((a < b) == (c >= d))\n");
    expect_print("def a = a || b && c != d", "def a = (a || (b && (c != d)))\n");
    expect_print("def a = -x * !b", "def a = ((-x) * (!b))\n");
    expect_print("def a = -f(x)", "def a = (-f(x))\n");
    expect_print("def a = (1 + 2) * 3 <= 4 > 5", "def a = ((((1 + 2) * 3) <= 4) > 5)\n");
    /* the bitwise operators at C's levels: & below ==, then ^, then |, then && */
    expect_print("def a = p && a | b ^ c & d == e", "def a = (p && (a | (b ^ (c & (d == e)))))\n");
    expect_print("def a = a & b & c | d + 1", "def a = (((a & b) & c) | (d + 1))\n");
    expect_print("def a = ~x + ~-y", "def a = ((~x) + (~(-y)))\n");
    /* >> is composition: with a literal beside it, a C shift is meant; say so */
    expect_error("def a = x >> 2", "t.rise:1:11: error: '>>' composes functions");
}
END_TEST

START_TEST(test_literals)
{
    expect_print("def a = f(2.0f, 2f, 2.0, 1e-3, 2, 2u, true, false, 'x', 'z')",
                 "def a = f(2.0f)(2.0f)(2.0)(0.001)(2)(2u)(true)(false)('x')('z')\n");
    Parsed P;
    parse(&P, "def a = 0.1f");
    ck_assert_int_eq(P.prog.decls->body->kind, A_FLOAT);
    ck_assert_int_eq(P.prog.decls->body->lit_float.sk, SK_F32);
    ck_assert_str_eq(P.out, "def a = 0.1f\n");
    done(&P);
    /* the float words print as written, so the printed program reads back the same */
    expect_print("def a = f(inf, inff, -inff, nan, nanf, -inf)", "def a = f(inf)(inff)((-inff))(nan)(nanf)((-inf))\n");
    parse(&P, "def a = -inff");
    ck_assert_int_eq(P.prog.decls->body->kind, A_UN);
    ck_assert_int_eq(P.prog.decls->body->un.e->kind, A_FLOAT);
    ck_assert_int_eq(P.prog.decls->body->un.e->lit_float.sk, SK_F32);
    done(&P);
}
END_TEST

START_TEST(test_lambdas)
{
    expect_print("def a = fun((x, y) => x + y)", "def a = fun(x => fun(y => (x + y)))\n");
    expect_print("def a = nFun((a, b, n) => n)", "def a = nFun(a => nFun(b => nFun(n => n)))\n");
    expect_print("def a = nFun((n) => n)", "def a = nFun(n => n)\n");
    Parsed P;
    parse(&P, "def a = fun((x, y) => x)");
    Ast *e = P.prog.decls->body;
    ck_assert_int_eq(e->kind, A_LAM);
    ck_assert_str_eq(e->lam.param, "x");
    ck_assert_int_eq(e->lam.body->kind, A_LAM);
    ck_assert_int_eq(e->lam.body->sp.col, 17); /* the inner lambda points at y */
    done(&P);
}
END_TEST

START_TEST(test_types)
{
    expect_print("def a = fun(m.n.f32)(x => x)", "def a = fun(m.n.f32)(x => x)\n");
    expect_print("def a = fun((n+2).f32)(x => x)", "def a = fun((n + 2).f32)(x => x)\n");
    expect_print("def a = fun((f32, n.i32))(x => x)", "def a = fun((f32, n.i32))(x => x)\n");
    expect_print("def a = fun(32.idx[32])(x => x)", "def a = fun(32.idx[32])(x => x)\n");
    expect_print("def a = fun(4.4.f32)(x => x)", "def a = fun(4.4.f32)(x => x)\n");
    expect_print("def a = fun(((n).f32, ((m*2 - 1)/k).bool))(x => x)",
                 "def a = fun((n.f32, (((m * 2) - 1) / k).bool))(x => x)\n");
    Parsed P;
    parse(&P, "def a = fun(n.(u64, idx[k % 2]))(x => x)");
    TypeExpr *t = P.prog.decls->body->lam.ptype;
    ck_assert_int_eq(t->kind, TE_ARRAY);
    ck_assert_int_eq(t->arr.size->kind, A_VAR);
    ck_assert_int_eq(t->arr.elem->kind, TE_PAIR);
    ck_assert_int_eq(t->arr.elem->pair.a->sk, SK_U64);
    ck_assert_int_eq(t->arr.elem->pair.b->kind, TE_IDX);
    ck_assert_int_eq(t->arr.elem->pair.b->idx.size->kind, A_BIN);
    ck_assert_int_eq(t->arr.elem->pair.b->idx.size->bin.op, OP_MOD);
    done(&P);
}
END_TEST

START_TEST(test_spans)
{
    Parsed P;
    parse(&P, "def x = f(a, b)\nkernel k = a + b |> g\n");
    Decl *d = P.prog.decls;
    ck_assert_int_eq(d->kind, D_DEF);
    ck_assert_int_eq(d->sp.col, 5);                 /* decl: its name */
    Ast *app2 = d->body, *app1 = app2->app.fn;
    ck_assert_int_eq(app2->sp.col, 10);             /* f(a, b): both at the paren */
    ck_assert_int_eq(app1->sp.col, 10);
    ck_assert_int_eq(app1->app.fn->sp.col, 9);
    ck_assert_int_eq(app2->app.arg->sp.col, 14);
    Decl *k = d->next;
    ck_assert_int_eq(k->kind, D_KERNEL);
    ck_assert_int_eq(k->body->kind, A_APP);
    ck_assert_int_eq(k->body->sp.line, 2);
    ck_assert_int_eq(k->body->sp.col, 18);          /* |> */
    ck_assert_int_eq(k->body->app.arg->sp.col, 14); /* + */
    ck_assert_ptr_null(k->next);
    ck_assert_ptr_eq(P.prog.tail, &k->next);
    done(&P);
}
END_TEST

START_TEST(test_syntax_errors)
{
    expect_error("def a = fun(x x)", "t.rise:1:15: error: syntax error, unexpected identifier");
    /* a declaration keyword or the end of the file inside brackets: the bracket is at fault */
    expect_error("def a = f(x", "t.rise:1:10: error: unclosed '('\n");
    expect_error("def a = f(x", "t.rise:1:12: note: the file ends here, with the '(' still open\n");
    expect_error("def a = fun(idx[3\ndef b = 2", "t.rise:1:16: error: unclosed '['\n");
    expect_error("def a = fun(idx[3\ndef b = 2", "t.rise:2:1: note: the next declaration starts here");
    expect_error("def a = (1\nkernel k = 2", "t.rise:1:9: error: unclosed '('");
    expect_error("def a = (1\nimport \"x\"", "t.rise:1:9: error: unclosed '('");
    /* other tokens inside brackets keep bison's message */
    expect_error("def a = f(x\n  y)", "t.rise:2:3: error: syntax error, unexpected identifier\n");
    expect_error("def a", "unexpected end of file, expecting '=' or '('");
    expect_error("def fun = 1", "t.rise:1:5: error: 'fun' is a keyword and cannot be used as a name");
    expect_error("def f(x, f32) = 1", "'f32' is a keyword");
    expect_error("def inff = 1", "t.rise:1:5: error: 'inff' is a keyword and cannot be used as a name");
    expect_error("def f(x, nan) = 1", "'nan' is a keyword");
    expect_error("def a = fun(inf => inf)", "unexpected 'inf' or 'nan'");
    expect_error("def a = fun(float)(x => x)", "t.rise:1:13: error: unknown type name 'float'");
    expect_error("def a = fun(n.vec)(x => x)", "unknown type name 'vec'");
    expect_error("def a = fun(ix[3])(x => x)", "unknown type name 'ix'");
    expect_error("def f(a, a) = 1", "t.rise:1:10: error: duplicate parameter 'a'");
    expect_error("def a = f()", "unexpected ')'");
    expect_error("a = 1", "unexpected identifier");
    expect_error("def a = (1\n  + x))", "t.rise:2:7: error: syntax error, unexpected ')'");
    expect_error("def a = 1 x", "t.rise:1:11: error: syntax error, unexpected identifier");
    expect_error("def a = fun(x => 1", "t.rise:1:12: error: unclosed '('");
    expect_error("def a = fun((f32, f32) => 1)", "unexpected =>");
    /* the diagnostic shows the line and a caret */
    expect_error("def a = 1 +\n", "    2 | \n      | ^\n");
}
END_TEST

START_TEST(test_nesting)
{
    StrBuf b = {0};
    sb_puts(&b, "def a = ");
    for (int i = 0; i < 20000; i++) sb_putc(&b, '(');
    sb_putc(&b, 'x');
    for (int i = 0; i < 20000; i++) sb_putc(&b, ')');
    expect_error(b.s, "error: nesting too deep: more than 500 '(' and '[' open at once");
    sb_free(&b);
    sb_puts(&b, "def a = ");
    for (int i = 0; i < 20000; i++) sb_puts(&b, "- ");
    sb_putc(&b, 'x');
    expect_error(b.s, "error: nesting too deep: more than 10000 constructs open at once");
    sb_free(&b);
    sb_puts(&b, "def a = 1");
    for (int i = 0; i < 5000; i++) sb_puts(&b, "+1");
    expect_error(b.s, "error: expression nesting too deep: more than 2000 levels in one declaration");
    sb_free(&b);
    /* a moderately deep program is fine */
    sb_puts(&b, "def a = ");
    for (int i = 0; i < 200; i++) sb_puts(&b, "f(");
    sb_putc(&b, 'x');
    for (int i = 0; i < 200; i++) sb_putc(&b, ')');
    Parsed P;
    parse(&P, b.s);
    ck_assert_ptr_null(P.err);
    done(&P);
    sb_free(&b);
}
END_TEST

/* ---------------------------------------------------------------- imports */

static char tmpdir[64];

static void write_file(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void setup_imports(void)
{
    strcpy(tmpdir, "/tmp/patc_test_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    char p[128];
    snprintf(p, sizeof p, "%s/lib", tmpdir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/inc", tmpdir);
    mkdir(p, 0700);
    write_file("lib/a.rise", "def a1 = 1\nimport \"b.rise\"\ndef a2 = 2\n");
    write_file("lib/b.rise", "import \"a.rise\"\ndef b = 3\n");      /* a cycle */
    write_file("inc/c.rise", "def c = 4\n");
    write_file("main.rise", "import \"lib/a.rise\"\nimport \"c.rise\"\nimport \"lib/b.rise\"\ndef m = a1\n");
    write_file("bad.rise", "def ok = 1\nimport \"lib/broken.rise\"\n");
    write_file("lib/broken.rise", "def x = (\n");
    /* the search order (test_import_order): near/ holds the programs, inc/ is the -I
     * directory, share/ the installed patterns; the built-ins are in order_builtins */
    snprintf(p, sizeof p, "%s/near", tmpdir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/share", tmpdir);
    mkdir(p, 0700);
    write_file("inc/q.rise", "def q = 31\n");
    write_file("share/q.rise", "def q = 21\n");
    write_file("near/main_q.rise", "import \"q.rise\"\n");
    write_file("near/main_p.rise", "import \"p.rise\"\nimport \"q.rise\"\n");
    write_file("near/main_bad.rise", "def m = 1\nimport \"bad.rise\"\n");
    write_file("near/main_nope.rise", "import \"nope.rise\"\n");
}

static void teardown_imports(void)
{
    const char *files[] = {"lib/a.rise", "lib/b.rise", "inc/c.rise", "main.rise", "bad.rise", "lib/broken.rise",
                           "inc/q.rise", "share/q.rise", "near/main_q.rise", "near/main_p.rise",
                           "near/main_bad.rise", "near/main_nope.rise", "lib", "inc", "near", "share"};
    char p[128];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", tmpdir, files[i]);
        remove(p);
    }
    rmdir(tmpdir);
}

START_TEST(test_imports)
{
    char main_path[128], inc[128];
    snprintf(main_path, sizeof main_path, "%s/main.rise", tmpdir);
    snprintf(inc, sizeof inc, "%s/inc", tmpdir);
    const char *dirs[] = {inc};
    LangOptions opt = {.include_dirs = dirs, .ninclude_dirs = 1};
    Parsed P;
    parse_with(&P, &opt, main_path, NULL);
    ck_assert_msg(P.err == NULL, "%s", P.err);
    /* spliced in order; b.rise once; the cycle back to a.rise is harmless */
    ck_assert_str_eq(P.out, "def a1 = 1\ndef b = 3\ndef a2 = 2\ndef c = 4\ndef m = a1\n");
    /* spans name the imported file */
    ck_assert(strstr(P.prog.decls->next->sp.file->path, "lib/b.rise") != NULL);
    done(&P);

    /* without -I, c.rise is not found; the message lists where patc looked */
    parse_with(&P, &no_opts, main_path, NULL);
    ck_assert_ptr_nonnull(P.err);
    ck_assert(strstr(P.err, "main.rise:2:8: error: cannot find import \"c.rise\" (looked for ") != NULL);
    ck_assert(strstr(P.err, "/c.rise)") != NULL);
    done(&P);

    /* an error inside an imported file points into that file */
    snprintf(main_path, sizeof main_path, "%s/bad.rise", tmpdir);
    parse_with(&P, &opt, main_path, NULL);
    ck_assert_ptr_nonnull(P.err);
    ck_assert(strstr(P.err, "lib/broken.rise:1:9: error: unclosed '('") != NULL);
    done(&P);
}
END_TEST

/* Three files built in, as libpatrt's patterns are: p.rise imports q.rise, as
 * compact.rise imports scan.rise. */
static const char order_p[] = "import \"q.rise\"\ndef p = 10\n", order_q[] = "def q = 11\n",
                  order_bad[] = "def x = (\n", order_r[] = "import \"gone.rise\"\n";
static const LangBuiltin order_builtins[] = {
    {"p.rise", order_p, sizeof order_p - 1},
    {"q.rise", order_q, sizeof order_q - 1},
    {"bad.rise", order_bad, sizeof order_bad - 1},
    {"r.rise", order_r, sizeof order_r - 1},
};

/* Rule (lang/parse.c, on_import): the importing file's directory, then the -I
 * directories, then the installed patterns directory, then the built-in files; an
 * import inside a built-in file looks among the built-ins first. */
START_TEST(test_import_order)
{
    char path[128], inc[128], share[128];
    snprintf(inc, sizeof inc, "%s/inc", tmpdir);
    snprintf(share, sizeof share, "%s/share", tmpdir);
    const char *dirs[] = {inc};
    LangOptions all = {.include_dirs = dirs, .ninclude_dirs = 1, .pattern_dir = share,
                       .builtins = order_builtins, .nbuiltins = 4};
    LangOptions no_inc = all, builtins_only = all;
    no_inc.include_dirs = NULL;
    no_inc.ninclude_dirs = 0;
    builtins_only = no_inc;
    builtins_only.pattern_dir = NULL;
    Parsed P;

    /* q.rise is in inc/, share/ and built in: -I wins, then share/, then the built-in */
    snprintf(path, sizeof path, "%s/near/main_q.rise", tmpdir);
    parse_with(&P, &all, path, NULL);
    ck_assert_msg(P.err == NULL, "%s", P.err);
    ck_assert_str_eq(P.out, "def q = 31\n");
    done(&P);
    parse_with(&P, &no_inc, path, NULL);
    ck_assert_msg(P.err == NULL, "%s", P.err);
    ck_assert_str_eq(P.out, "def q = 21\n");
    ck_assert(strstr(P.prog.decls->sp.file->path, "/share/q.rise") != NULL);
    done(&P);
    parse_with(&P, &builtins_only, path, NULL);
    ck_assert_msg(P.err == NULL, "%s", P.err);
    ck_assert_str_eq(P.out, "def q = 11\n");
    ck_assert_str_eq(P.prog.decls->sp.file->path, LANG_BUILTIN_DIR "/q.rise");
    done(&P);

    /* p.rise is only built in; its own import of q.rise stays among the built-ins, while
     * the program's import of q.rise finds the -I directory's */
    snprintf(path, sizeof path, "%s/near/main_p.rise", tmpdir);
    parse_with(&P, &all, path, NULL);
    ck_assert_msg(P.err == NULL, "%s", P.err);
    ck_assert_str_eq(P.out, "def q = 11\ndef p = 10\ndef q = 31\n");
    done(&P);
    /* with only the built-ins, q.rise is read once */
    parse_with(&P, &builtins_only, path, NULL);
    ck_assert_msg(P.err == NULL, "%s", P.err);
    ck_assert_str_eq(P.out, "def q = 11\ndef p = 10\n");
    done(&P);

    /* a missing import lists every place, the built-ins by name */
    snprintf(path, sizeof path, "%s/near/main_nope.rise", tmpdir);
    parse_with(&P, &all, path, NULL);
    ck_assert_ptr_nonnull(P.err);
    char want[512];
    snprintf(want, sizeof want,
             "main_nope.rise:1:8: error: cannot find import \"nope.rise\" (looked for %s/near/nope.rise, "
             "%s/nope.rise, %s/nope.rise and among patc's built-in patterns: p.rise, q.rise, bad.rise, r.rise)\n",
             tmpdir, inc, share);
    ck_assert_msg(strstr(P.err, want) != NULL, "%s", P.err);
    done(&P);

    /* an error inside a built-in file names it and shows its line */
    snprintf(path, sizeof path, "%s/near/main_bad.rise", tmpdir);
    parse_with(&P, &builtins_only, path, NULL);
    ck_assert_ptr_nonnull(P.err);
    const char *at = LANG_BUILTIN_DIR "/bad.rise:1:9: error: unclosed '('\n"
                     "    1 | def x = (\n"
                     "      |         ^\n";
    ck_assert_msg(!strncmp(P.err, at, strlen(at)), "%s", P.err);
    done(&P);
    /* a built-in file's import found nowhere: no directory was tried */
    parse_with(&P, &builtins_only, "t.rise", "import \"r.rise\"\n");
    ck_assert_ptr_nonnull(P.err);
    at = LANG_BUILTIN_DIR "/r.rise:1:8: error: cannot find import \"gone.rise\" (looked among patc's built-in "
         "patterns: p.rise, q.rise, bad.rise, r.rise)\n";
    ck_assert_msg(!strncmp(P.err, at, strlen(at)), "%s", P.err);
    done(&P);
}
END_TEST

START_TEST(test_missing_file)
{
    Parsed P;
    parse_with(&P, &no_opts, "/nonexistent/x.rise", NULL);
    ck_assert_str_eq(P.err, "patc: error: cannot read '/nonexistent/x.rise': No such file or directory\n");
    done(&P);
    expect_error("import \"nope.rise\"", "t.rise:1:8: error: cannot find import \"nope.rise\" (looked for nope.rise)");
}
END_TEST


/* The interpreter's stack test (one comparison with lang_stack_floor, asked once per
 * run) says what lang_stack_left says, here on a thread of 1 MiB where the reserve is
 * half of it. */
static void *floor_vs_left(void *arg)
{
    long long *d = arg;
    const char *floor = lang_stack_floor();
    size_t left = lang_stack_left();
    const char *here = __builtin_frame_address(0);
    d[0] = floor != NULL;
    d[1] = floor ? (long long)(here - (floor - LANG_STACK_RESERVE)) - (long long)left : 0;
    return NULL;
}

START_TEST(test_stack_floor_matches_stack_left)
{
    pthread_attr_t a;
    pthread_t th;
    long long d[2] = {0, 0};
    ck_assert_int_eq(pthread_attr_init(&a), 0);
    ck_assert_int_eq(pthread_attr_setstacksize(&a, (size_t)1 << 20), 0);
    ck_assert_int_eq(pthread_create(&th, &a, floor_vs_left, d), 0);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    pthread_attr_destroy(&a);
    ck_assert_int_eq(d[0], 1);
    ck_assert_msg(d[1] > -4096 && d[1] < 4096, "floor and left disagree by %lld bytes", d[1]);
}
END_TEST
static Suite *parser_suite(void)
{
    Suite *s = suite_create("parser");
    TCase *tc = tcase_create("grammar");
    tcase_add_test(tc, test_core_forms);
    tcase_add_test(tc, test_application);
    tcase_add_test(tc, test_pipes_and_composition);
    tcase_add_test(tc, test_operators);
    tcase_add_test(tc, test_literals);
    tcase_add_test(tc, test_lambdas);
    tcase_add_test(tc, test_types);
    tcase_add_test(tc, test_spans);
    tcase_add_test(tc, test_syntax_errors);
    tcase_add_test(tc, test_nesting);
    tcase_add_test(tc, test_stack_floor_matches_stack_left);
    tcase_add_test(tc, test_missing_file);
    suite_add_tcase(s, tc);
    TCase *ti = tcase_create("imports");
    tcase_add_checked_fixture(ti, setup_imports, teardown_imports);
    tcase_add_test(ti, test_imports);
    tcase_add_test(ti, test_import_order);
    suite_add_tcase(s, ti);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(parser_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
