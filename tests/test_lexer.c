/* test_lexer.c: the scanner on its own (tokens, values, positions, lexical errors). */
#include "lang.h"
#include "parser.h"
#include "lexer.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAXTOK = 64 };

/* The tokens of one source text; err holds the diagnostic if lexing failed. */
typedef struct Lexed {
    Arena *arena;
    int n;
    int kind[MAXTOK];
    Span sp[MAXTOK];
    LANG_YYSTYPE val[MAXTOK];
    char *err; /* NULL when there was no error */
} Lexed;

static SrcFile file = {"t.rise", NULL, 0};

static void lex(Lexed *L, const char *src)
{
    memset(L, 0, sizeof *L);
    L->arena = arena_new();
    StrBuf buf = {0};
    Diag d;
    diag_init(&d, NULL, &buf);
    file.text = src;
    file.len = strlen(src);
    LangParseCtx ctx = {.arena = L->arena, .diag = &d, .file = &file, .line = 1, .col = 1};
    yyscan_t sc;
    ck_assert_int_eq(lang_yylex_init_extra(&ctx, &sc), 0);
    lang_yy_scan_bytes(src, (int)strlen(src), sc);
    d.jump_armed = true;
    if (setjmp(d.on_error)) {
        L->err = sb_take(&buf);
        lang_yylex_destroy(sc);
        return;
    }
    /* tokens past MAXTOK are scanned (for errors) into the last slot */
    for (;;) {
        int i = L->n < MAXTOK ? L->n++ : MAXTOK - 1;
        int k = lang_yylex(&L->val[i], &L->sp[i], sc);
        L->kind[i] = k;
        if (k == TOK_YYEOF) break;
    }
    lang_yylex_destroy(sc);
    sb_free(&buf);
}

static void done(Lexed *L)
{
    free(L->err);
    arena_free(L->arena);
}

START_TEST(test_keywords_and_names)
{
    Lexed L;
    lex(&L, "def kernel import fun nFun true false defx _a1 Fun");
    ck_assert_ptr_null(L.err);
    int want[] = {TOK_DEF, TOK_KERNEL, TOK_IMPORT, TOK_FUN, TOK_NFUN, TOK_TRUE, TOK_FALSE,
                  TOK_IDENT, TOK_IDENT, TOK_IDENT, TOK_YYEOF};
    ck_assert_int_eq(L.n, 11);
    for (int i = 0; i < 11; i++) ck_assert_int_eq(L.kind[i], want[i]);
    ck_assert_str_eq(L.val[7].str, "defx");
    ck_assert_str_eq(L.val[8].str, "_a1");
    ck_assert_str_eq(L.val[9].str, "Fun");
    done(&L);
}
END_TEST

START_TEST(test_scalar_types)
{
    Lexed L;
    lex(&L, "f32 f64 i32 u32 i64 u64 bool f16");
    ck_assert_ptr_null(L.err);
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(L.kind[i], TOK_SCALAR);
        ck_assert_int_eq(L.val[i].sk, i); /* the same order as SCALAR_TYPES */
    }
    ck_assert_int_eq(L.kind[7], TOK_IDENT);
    done(&L);
}
END_TEST

START_TEST(test_operators)
{
    Lexed L;
    lex(&L, "=> |> >> || && == != <= >= + - * / % < > ! ( ) [ ] , . = & | ^ ~");
    ck_assert_ptr_null(L.err);
    int want[] = {TOK_ARROW, TOK_PIPE, TOK_COMPOSE, TOK_OROR, TOK_ANDAND, TOK_EQ, TOK_NE, TOK_LE,
                  TOK_GE, '+', '-', '*', '/', '%', '<', '>', '!', '(', ')', '[', ']', ',', '.', '=',
                  '&', '|', '^', '~', TOK_YYEOF};
    ck_assert_int_eq(L.n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < L.n; i++) ck_assert_int_eq(L.kind[i], want[i]);
    done(&L);
}
END_TEST

START_TEST(test_int_literals)
{
    Lexed L;
    lex(&L, "0 42 7u 18446744073709551615");
    ck_assert_ptr_null(L.err);
    ck_assert_int_eq(L.kind[0], TOK_INT);
    ck_assert_uint_eq(L.val[1].ast->lit_int.v, 42);
    ck_assert_int_eq(L.val[1].ast->lit_int.sk, SK_I32);
    ck_assert(!L.val[1].ast->lit_int.suffixed);
    ck_assert_uint_eq(L.val[2].ast->lit_int.v, 7);
    ck_assert_int_eq(L.val[2].ast->lit_int.sk, SK_U32);
    ck_assert(L.val[2].ast->lit_int.suffixed);
    ck_assert(L.val[3].ast->lit_int.v == UINT64_MAX);
    done(&L);
    /* hexadecimal, with or without u; a leading 0 is still decimal, not octal */
    lex(&L, "0x1F 0XffFFu 010 0xFFFFFFFFFFFFFFFF");
    ck_assert_ptr_null(L.err);
    ck_assert_uint_eq(L.val[0].ast->lit_int.v, 31);
    ck_assert(!L.val[0].ast->lit_int.suffixed);
    ck_assert_uint_eq(L.val[1].ast->lit_int.v, 0xffffu);
    ck_assert_int_eq(L.val[1].ast->lit_int.sk, SK_U32);
    ck_assert_uint_eq(L.val[2].ast->lit_int.v, 10);
    ck_assert(L.val[3].ast->lit_int.v == UINT64_MAX);
    done(&L);
}
END_TEST

START_TEST(test_float_literals)
{
    Lexed L;
    lex(&L, "2.0f 2f 2.0 1e-3 1.5E+2f 0.25");
    ck_assert_ptr_null(L.err);
    for (int i = 0; i < 6; i++) ck_assert_int_eq(L.kind[i], TOK_FLOAT);
    ck_assert_int_eq(L.val[0].ast->lit_float.sk, SK_F32);
    ck_assert_int_eq(L.val[1].ast->lit_float.sk, SK_F32);
    ck_assert_int_eq(L.val[2].ast->lit_float.sk, SK_F64);
    ck_assert_int_eq(L.val[3].ast->lit_float.sk, SK_F64);
    ck_assert(L.val[3].ast->lit_float.v == 1e-3);
    ck_assert_int_eq(L.val[4].ast->lit_float.sk, SK_F32);
    ck_assert(L.val[4].ast->lit_float.v == 150.0);
    ck_assert(L.val[5].ast->lit_float.v == 0.25);
    done(&L);
}
END_TEST

/* inf and nan are f64, inff and nanf f32 (the suffix of 2.0f); a longer name that
 * starts with them is a name, and -inff is '-' then the word */
START_TEST(test_float_words)
{
    Lexed L;
    lex(&L, "inf inff nan nanf info nanx Inf -inff");
    ck_assert_ptr_null(L.err);
    int want[] = {TOK_FLOATWORD, TOK_FLOATWORD, TOK_FLOATWORD, TOK_FLOATWORD, TOK_IDENT, TOK_IDENT, TOK_IDENT,
                  '-', TOK_FLOATWORD, TOK_YYEOF};
    ck_assert_int_eq(L.n, 10);
    for (int i = 0; i < 10; i++) ck_assert_int_eq(L.kind[i], want[i]);
    ck_assert(isinf(L.val[0].ast->lit_float.v) && L.val[0].ast->lit_float.v > 0);
    ck_assert_int_eq(L.val[0].ast->lit_float.sk, SK_F64);
    ck_assert(isinf(L.val[1].ast->lit_float.v) && L.val[1].ast->lit_float.v > 0);
    ck_assert_int_eq(L.val[1].ast->lit_float.sk, SK_F32);
    ck_assert(isnan(L.val[2].ast->lit_float.v));
    ck_assert_int_eq(L.val[2].ast->lit_float.sk, SK_F64);
    ck_assert(isnan(L.val[3].ast->lit_float.v));
    ck_assert_int_eq(L.val[3].ast->lit_float.sk, SK_F32);
    ck_assert_str_eq(L.val[4].str, "info");
    ck_assert_int_eq(L.sp[8].col, 34);
    done(&L);
}
END_TEST

/* `4.4.f32` is an array type: INT '.' INT '.' SCALAR, not FLOAT '.' SCALAR */
START_TEST(test_array_type_digits)
{
    Lexed L;
    lex(&L, "4.4.f32 32.t");
    ck_assert_ptr_null(L.err);
    int want[] = {TOK_INT, '.', TOK_INT, '.', TOK_SCALAR, TOK_INT, '.', TOK_IDENT, TOK_YYEOF};
    ck_assert_int_eq(L.n, 9);
    for (int i = 0; i < 9; i++) ck_assert_int_eq(L.kind[i], want[i]);
    ck_assert_int_eq(L.sp[2].col, 3);
    ck_assert_int_eq(L.sp[3].col, 4);
    ck_assert_int_eq(L.sp[4].col, 5);
    done(&L);
}
END_TEST

START_TEST(test_strings_dims_comments)
{
    Lexed L;
    lex(&L, "import \"a/b.rise\" -- a comment 'q' \"\n'x' 'y' 'z'");
    ck_assert_ptr_null(L.err);
    ck_assert_int_eq(L.kind[1], TOK_STRING);
    ck_assert_str_eq(L.val[1].str, "a/b.rise");
    ck_assert_int_eq(L.kind[2], TOK_DIM);
    ck_assert_int_eq(L.val[2].ast->dim.d, 0);
    ck_assert_int_eq(L.val[3].ast->dim.d, 1);
    ck_assert_int_eq(L.val[4].ast->dim.d, 2);
    ck_assert_int_eq(L.kind[5], TOK_YYEOF);
    done(&L);
}
END_TEST

START_TEST(test_positions)
{
    Lexed L;
    lex(&L, "def a =\n\tfoo(  1)\n-- c\n  x");
    ck_assert_ptr_null(L.err);
    ck_assert_int_eq(L.sp[0].line, 1);
    ck_assert_int_eq(L.sp[0].col, 1);
    ck_assert_int_eq(L.sp[2].col, 7);
    ck_assert_int_eq(L.sp[3].line, 2); /* foo after a tab: column 2 */
    ck_assert_int_eq(L.sp[3].col, 2);
    ck_assert_int_eq(L.sp[5].col, 8);  /* 1 */
    ck_assert_int_eq(L.sp[7].line, 4); /* x */
    ck_assert_int_eq(L.sp[7].col, 3);
    ck_assert_ptr_eq(L.sp[7].file, &file);
    done(&L);
}
END_TEST

/* Each lexical error: the message and where it points. */
static void expect_error(const char *src, const char *msg)
{
    Lexed L;
    lex(&L, src);
    ck_assert_msg(L.err != NULL, "no error for %.40s", src);
    ck_assert_msg(strstr(L.err, msg) != NULL, "for %.40s: got %.200s, wanted %s", src, L.err, msg);
    done(&L);
}

START_TEST(test_errors)
{
    expect_error("a @ b", "t.rise:1:3: error: unexpected character '@'");
    expect_error("a\n \x01", "t.rise:2:2: error: unexpected byte 0x01");
    expect_error("x \xc3\xa9", "unexpected byte 0xc3");
    expect_error("import \"abc\n", "t.rise:1:8: error: unterminated string");
    expect_error("18446744073709551616", "integer literal '18446744073709551616' does not fit in 64 bits");
    expect_error("1.5e", "bad float literal '1.5e'");
    expect_error("2.0u", "bad float literal '2.0u'");
    expect_error("0x", "bad number literal '0x'");
    expect_error("0x1G", "bad number literal '0x1G'");
    expect_error("0x10000000000000000", "integer literal '0x10000000000000000' does not fit in 64 bits");
    expect_error("1e400", "out of range for f64");
    expect_error("1e39f", "out of range for f32");
    expect_error("'w'", "bad dimension literal");
    expect_error("'x", "bad dimension literal");
}
END_TEST

START_TEST(test_nesting_limit)
{
    char *s = malloc(20002);
    memset(s, '(', 20000);
    s[20000] = 0;
    expect_error(s, "t.rise:1:501: error: nesting too deep: more than 500 '(' and '[' open at once");
    free(s);
}
END_TEST

/* flex's fatal errors (here: its buffer cannot be allocated) come back as the arena's
 * out-of-memory failure, through its catch, instead of exit() (Check would report the
 * exit); the compilation reports them as memory, not as the program's error. */
START_TEST(test_flex_fatal_error_is_a_diagnostic)
{
    Arena *a = arena_new();
    StrBuf buf = {0};
    Diag d;
    diag_init(&d, NULL, &buf);
    file.text = "x";
    file.len = 1;
    LangParseCtx ctx = {.arena = a, .diag = &d, .file = &file, .line = 1, .col = 1};
    yyscan_t sc;
    ck_assert_int_eq(lang_yylex_init_extra(&ctx, &sc), 0);
    jmp_buf jb;
    arena_catch(a, &jb);
    volatile bool jumped = false;
    if (setjmp(jb)) {
        jumped = true;
    } else {
        /* a length of -3 asks flex for SIZE_MAX bytes, which lang_yyalloc refuses */
        lang_yy_scan_bytes("x", -3, sc);
    }
    ck_assert(jumped);
    ck_assert(arena_failed(a));
    ck_assert_int_eq(d.nerrors, 0);
    arena_catch(a, NULL);
    lang_yylex_destroy(sc);
    sb_free(&buf);
    arena_free(a);
}
END_TEST

/* Tokens of many megabytes are ordinary: the whole input is one flex buffer. */
START_TEST(test_very_long_tokens)
{
    size_t n = 10u << 20;
    char *src = malloc(n + 16);
    ck_assert_ptr_nonnull(src);
    memset(src, 'a', n);
    strcpy(src + n, " 1");
    Lexed L;
    lex(&L, src);
    ck_assert_ptr_null(L.err);
    ck_assert_int_eq(L.kind[0], TOK_IDENT);
    ck_assert_uint_eq(strlen(L.val[0].str), n);
    ck_assert_int_eq(L.kind[1], TOK_INT);
    ck_assert_int_eq(L.sp[1].col, (int)n + 2);
    done(&L);
    memcpy(src, "--", 2); /* a 10 MB comment */
    lex(&L, src);
    ck_assert_ptr_null(L.err);
    ck_assert_int_eq(L.kind[0], TOK_YYEOF);
    done(&L);
    free(src);
}
END_TEST

static Suite *lexer_suite(void)
{
    Suite *s = suite_create("lexer");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_keywords_and_names);
    tcase_add_test(tc, test_scalar_types);
    tcase_add_test(tc, test_operators);
    tcase_add_test(tc, test_int_literals);
    tcase_add_test(tc, test_float_literals);
    tcase_add_test(tc, test_float_words);
    tcase_add_test(tc, test_array_type_digits);
    tcase_add_test(tc, test_strings_dims_comments);
    tcase_add_test(tc, test_positions);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_nesting_limit);
    tcase_add_test(tc, test_flex_fatal_error_is_a_diagnostic);
    tcase_add_test(tc, test_very_long_tokens);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(lexer_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
