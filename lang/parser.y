/* parser.y: the grammar of the pattern language (reentrant bison).
 *
 * Every action makes exactly one constructor call (ast_* or a static helper below);
 * all memory comes from the compilation's arena, so a diagnostic that longjmps out of
 * the middle of a parse leaks nothing (the parser stack itself is arena-allocated too,
 * see YYSTACK_ALLOC).
 *
 * Spans: a node's span is the position of its first token, except
 *   - A_APP from a call `f(a)`: the opening paren of the call,
 *   - A_APP from `e |> f`: the `|>`,
 *   - A_BIN: the operator,
 *   - the lambda made for `f >> g`: the `>>`,
 *   - Decl: the declared name (errors about a definition point at its name),
 * because that is where an error about the application or operator should point.
 * Parenthesised expressions keep the span of the inner expression.
 */

%define api.pure full
%define api.prefix {lang_yy}
%define api.token.prefix {TOK_}
%define api.location.type {Span}
/* custom: bison's "detailed" message, except that a declaration keyword or the end of the
 * file inside an open ( or [ is reported as an unclosed bracket (yyreport_syntax_error) */
%define parse.error custom
/* no default reductions in states that need a lookahead: a bad token is reported where
 * it is (with the tokens expected there) before any action such as "unknown type name"
 * runs on a reduction it does not justify */
%define lr.default-reduction consistent
%locations
%expect 0

%lex-param {void *scanner}
%parse-param {void *scanner} {LangParseCtx *ctx}

%code requires {
#include "lang.h"

/* A list of names with their spans (parameters of def / fun / nFun). */
typedef struct LangNameList {
    const char *name;
    Span sp;
    struct LangNameList *next;
} LangNameList;

/* The state of one parse of one source file (flex's yyextra and bison's parse-param). */
typedef struct LangParseCtx {
    Arena *arena;
    Arena *scratch; /* flex's buffers: needed while this file is scanned only */
    Diag *diag;
    const SrcFile *file;
    Program *prog;
    int line, col;   /* position of the next character the scanner reads */
    int depth;       /* currently open ( and [ */
    Span *open;      /* where the currently open ( and [ are, innermost last */
    int nopen, capopen;
    /* called for `import "path"` at the point where it appears */
    void (*on_import)(struct LangParseCtx *ctx, Span sp, const char *path);
    void *import_state;
} LangParseCtx;

/* Deepest nesting of ( and [ accepted; deeper input gets "nesting too deep". */
#define LANG_MAX_NESTING 500
/* Deepest AST accepted (guards later recursive passes against e.g. 1+1+...+1). */
#define LANG_MAX_AST_DEPTH 2000

#define YYLLOC_DEFAULT(Cur, Rhs, N)               \
    do {                                          \
        if (N) (Cur) = YYRHSLOC(Rhs, 1);          \
        else (Cur) = YYRHSLOC(Rhs, 0);            \
    } while (0)
}

%code provides {
#ifndef YYSTYPE
#define YYSTYPE LANG_YYSTYPE
#endif
#ifndef YYLTYPE
#define YYLTYPE LANG_YYLTYPE
#endif
int lang_yylex(LANG_YYSTYPE *yylval, Span *yylloc, void *scanner);
/* The scanner tells the parser where each ( and [ opens and that one closes. */
void lang_paren_open(LangParseCtx *ctx, Span sp);
void lang_paren_close(LangParseCtx *ctx);
}

%code {
#include <math.h>
#include <string.h>

/* The parser stack grows in the arena: a longjmp out of an action or out of yyerror
 * then leaks nothing (bison would otherwise malloc the grown stack). */
#define YYSTACK_ALLOC(n) arena_alloc(ctx->arena, (n))
#define YYSTACK_ALLOC_MAXIMUM ((size_t)64 << 20)
#define YYINITDEPTH 256
#define YYMAXDEPTH 10000

static void lang_yyerror(Span *loc, void *scanner, LangParseCtx *ctx, const char *msg)
{
    (void)scanner;
    /* bison's stack limit (YYMAXDEPTH): e.g. 20000 unary minus signs in a row */
    if (strcmp(msg, "memory exhausted") == 0)
        diag_error(ctx->diag, *loc, "nesting too deep: more than %d constructs open at once (each of a run of prefix "
                   "operators is one)", YYMAXDEPTH);
    diag_error(ctx->diag, *loc, "%s", msg);
}

void lang_paren_open(LangParseCtx *ctx, Span sp)
{
    if (ctx->nopen == ctx->capopen) {
        int cap = ctx->capopen ? 2 * ctx->capopen : 16;
        Span *n = ANEWN(ctx->arena, Span, cap);
        if (ctx->nopen) memcpy(n, ctx->open, sizeof *n * (size_t)ctx->nopen);
        ctx->open = n;
        ctx->capopen = cap;
    }
    ctx->open[ctx->nopen++] = sp;
}

void lang_paren_close(LangParseCtx *ctx)
{
    if (ctx->nopen > 0) ctx->nopen--;
}

#define A (ctx->arena)

/* namelist: namelist ',' IDENT -- kept in reverse order, see names_rev */
static LangNameList *names_add(LangParseCtx *ctx, LangNameList *l, const char *name, Span sp)
{
    LangNameList *n = ANEW(ctx->arena, LangNameList);
    n->name = name;
    n->sp = sp;
    n->next = l;
    return n;
}

static LangNameList *names_rev(LangNameList *l)
{
    LangNameList *r = NULL;
    while (l) {
        LangNameList *n = l->next;
        l->next = r;
        r = l;
        l = n;
    }
    return r;
}

/* Walk at most LANG_MAX_AST_DEPTH deep so that later recursive passes are safe. */
static void check_depth(LangParseCtx *ctx, const Ast *e, int depth)
{
    for (; e; depth++) {
        if (depth > LANG_MAX_AST_DEPTH)
            diag_error(ctx->diag, e->sp, "expression nesting too deep: more than %d levels in one declaration (move "
                       "parts of it into definitions)", LANG_MAX_AST_DEPTH);
        switch (e->kind) {
        case A_APP: check_depth(ctx, e->app.arg, depth + 1); e = e->app.fn; break;
        case A_LAM: case A_NLAM: e = e->lam.body; break;
        case A_LET: check_depth(ctx, e->let.value, depth + 1); e = e->let.body; break;
        case A_BIN: check_depth(ctx, e->bin.r, depth + 1); e = e->bin.l; break;
        case A_UN: e = e->un.e; break;
        case A_VAR: case A_INT: case A_FLOAT: case A_BOOL: case A_DIM: return;
        }
    }
}

/* decl: ("def" | "kernel") name params '=' expr */
static void add_decl(LangParseCtx *ctx, DeclKind k, Span sp, const char *name, LangNameList *params,
                     Ast *body)
{
    check_depth(ctx, body, 0);
    Decl *d = ANEW(ctx->arena, Decl);
    d->kind = k;
    d->sp = sp;
    d->name = name;
    int n = 0;
    for (LangNameList *p = params; p; p = p->next) n++;
    if (n) {
        d->params = ANEWN(ctx->arena, const char *, n);
        d->param_spans = ANEWN(ctx->arena, Span, n);
        int i = 0;
        for (LangNameList *p = names_rev(params); p; p = p->next, i++) {
            for (int j = 0; j < i; j++)
                if (strcmp(d->params[j], p->name) == 0)
                    diag_error(ctx->diag, p->sp, "duplicate parameter '%s'", p->name);
            d->params[i] = p->name;
            d->param_spans[i] = p->sp;
        }
    }
    d->nparams = n;
    d->body = body;
    if (!ctx->prog->tail) ctx->prog->tail = &ctx->prog->decls;
    *ctx->prog->tail = d;
    ctx->prog->tail = &d->next;
}

/* fun((x, y, ...) => e) = fun(x => fun(y => ... e)), and the same for nFun.
 * `first` is the first name when the grammar keeps it apart (fun), else NULL. */
static Ast *mk_lams(LangParseCtx *ctx, Span sp, const char *first, Span first_sp,
                    LangNameList *rest, Ast *body, bool nat)
{
    rest = names_rev(rest);
    if (first) rest = names_add(ctx, rest, first, first_sp);
    /* build inside out; each inner lambda points at its parameter, the outer at fun */
    LangNameList *rev = names_rev(rest);
    for (LangNameList *p = rev; p; p = p->next) {
        Span s = p->next ? p->sp : sp;
        body = nat ? ast_nlam(A, s, p->name, body) : ast_lam(A, s, p->name, NULL, body);
    }
    return body;
}

static bool is_data_literal(const Ast *e)
{
    return e->kind == A_INT || e->kind == A_FLOAT || e->kind == A_BOOL;
}

/* f >> g = fun($cN => g(f($cN))); '$' cannot appear in user names, so no capture. */
static Ast *mk_compose(LangParseCtx *ctx, Span sp, Ast *f, Ast *g)
{
    /* a C programmer's x >> 2 is a composition here: say so where it cannot be one */
    if (is_data_literal(f) || is_data_literal(g))
        diag_error(ctx->diag, sp, "'>>' composes functions (f >> g is fun(x => g(f(x)))); to shift bits, "
                   "write shr(x)(k) or shl(x)(k)");
    const char *x = arena_printf(A, "$c%d", arena_next_id(A));
    Ast *inner = ast_app(A, sp, f, ast_var(A, sp, x));
    return ast_lam(A, sp, x, NULL, ast_app(A, sp, g, inner));
}

/* The spelling of a FLOATWORD token (lexer.l), for the message about a keyword used as
 * a name. */
static const char *float_word(const Ast *e)
{
    bool f32 = e->lit_float.sk == SK_F32;
    if (isnan(e->lit_float.v)) return f32 ? "nanf" : "nan";
    return f32 ? "inff" : "inf";
}

static Ast *mk_bool(LangParseCtx *ctx, Span sp, bool v)
{
    Ast *e = ast_new(A, A_BOOL, sp);
    e->lit_bool.v = v;
    return e;
}

/* type: IDENT '[' nexpr ']' -- only idx[N] exists */
static TypeExpr *mk_idx(LangParseCtx *ctx, Span sp, const char *name, Ast *size)
{
    if (strcmp(name, "idx") != 0) diag_error(ctx->diag, sp, "unknown type name '%s'", name);
    return ast_te_idx(A, sp, size);
}
}

%union {
    Ast *ast;
    TypeExpr *ty;
    const char *str;
    LangNameList *names;
    int sk;
}

%token DEF "def" KERNEL "kernel" IMPORT "import" FUN "fun" NFUN "nFun" TRUE "true" FALSE "false"
%token ARROW "=>" PIPE "|>" COMPOSE ">>" OROR "||" ANDAND "&&" EQ "==" NE "!=" LE "<=" GE ">="
%token <str> IDENT "identifier" STRING "string"
%token <ast> INT "integer literal" FLOAT "float literal" DIM "dimension literal"
%token <ast> FLOATWORD "'inf' or 'nan'"
%token <sk> SCALAR "scalar type"

%type <ast> expr comp or and bor bxor band eq rel add mul unary postfix call primary lambda natatom nexpr nterm
%type <ty> type type_nb
%type <str> name keyword
%type <names> params namelist

%%

/* program: { decl } */
program:
    %empty
  | program decl
  ;

/* decl: "def" name [params] '=' expr | "kernel" name [params] '=' expr | "import" STRING */
decl:
    DEF name params '=' expr      { add_decl(ctx, D_DEF, @2, $2, $3, $5); }
  | KERNEL name params '=' expr   { add_decl(ctx, D_KERNEL, @2, $2, $3, $5); }
  | IMPORT STRING                 { ctx->on_import(ctx, @2, $2); }
  ;

/* name: IDENT; a keyword here gets a clearer message than bison's */
name:
    IDENT
  | keyword   { diag_error(ctx->diag, @1, "'%s' is a keyword and cannot be used as a name", $1); }
  ;

keyword:
    DEF { $$ = "def"; } | KERNEL { $$ = "kernel"; } | IMPORT { $$ = "import"; }
  | FUN { $$ = "fun"; } | NFUN { $$ = "nFun"; } | TRUE { $$ = "true"; } | FALSE { $$ = "false"; }
  | SCALAR { $$ = scalar_info[$1].name; }
  | FLOATWORD { $$ = float_word($1); }
  ;

/* params: [ '(' name { ',' name } ')' ] */
params:
    %empty            { $$ = NULL; }
  | '(' namelist ')'  { $$ = $2; }
  ;

namelist:
    name               { $$ = names_add(ctx, NULL, $1, @1); }
  | namelist ',' name  { $$ = names_add(ctx, $1, $3, @3); }
  ;

/* expr: expr "|>" comp  -- e |> f = f(e), loosest, left-associative */
expr:
    expr PIPE comp  { $$ = ast_app(A, @2, $3, $1); }
  | comp
  ;

/* comp: comp ">>" or  -- composition, between |> and || */
comp:
    comp COMPOSE or  { $$ = mk_compose(ctx, @2, $1, $3); }
  | or
  ;

/* or: or "||" and;  and: and "&&" bor;  eq: eq ("==" | "!=") rel */
or:
    or OROR and  { $$ = ast_bin(A, @2, OP_OR, $1, $3); }
  | and
  ;

and:
    and ANDAND bor  { $$ = ast_bin(A, @2, OP_AND, $1, $3); }
  | bor
  ;

/* bor: bor '|' bxor;  bxor: bxor '^' band;  band: band '&' eq -- C's levels, so that
 * a C programmer's reading holds (m & 1 == 0 is m & (1 == 0), a type error) */
bor:
    bor '|' bxor  { $$ = ast_bin(A, @2, OP_BOR, $1, $3); }
  | bxor
  ;

bxor:
    bxor '^' band  { $$ = ast_bin(A, @2, OP_BXOR, $1, $3); }
  | band
  ;

band:
    band '&' eq  { $$ = ast_bin(A, @2, OP_BAND, $1, $3); }
  | eq
  ;

eq:
    eq EQ rel  { $$ = ast_bin(A, @2, OP_EQ, $1, $3); }
  | eq NE rel  { $$ = ast_bin(A, @2, OP_NE, $1, $3); }
  | rel
  ;

/* rel: rel ('<' | '>' | "<=" | ">=") add */
rel:
    rel '<' add  { $$ = ast_bin(A, @2, OP_LT, $1, $3); }
  | rel '>' add  { $$ = ast_bin(A, @2, OP_GT, $1, $3); }
  | rel LE add   { $$ = ast_bin(A, @2, OP_LE, $1, $3); }
  | rel GE add   { $$ = ast_bin(A, @2, OP_GE, $1, $3); }
  | add
  ;

/* add: add ('+' | '-') mul;  mul: mul ('*' | '/' | '%') unary */
add:
    add '+' mul  { $$ = ast_bin(A, @2, OP_ADD, $1, $3); }
  | add '-' mul  { $$ = ast_bin(A, @2, OP_SUB, $1, $3); }
  | mul
  ;

mul:
    mul '*' unary  { $$ = ast_bin(A, @2, OP_MUL, $1, $3); }
  | mul '/' unary  { $$ = ast_bin(A, @2, OP_DIV, $1, $3); }
  | mul '%' unary  { $$ = ast_bin(A, @2, OP_MOD, $1, $3); }
  | unary
  ;

/* unary: ('-' | '!' | '~') unary | postfix */
unary:
    '-' unary  { $$ = ast_un(A, @1, UOP_NEG, $2); }
  | '!' unary  { $$ = ast_un(A, @1, UOP_NOT, $2); }
  | '~' unary  { $$ = ast_un(A, @1, UOP_BNOT, $2); }
  | postfix
  ;

/* postfix: primary | postfix '(' expr { ',' expr } ')'  -- f(a, b) = f(a)(b) */
postfix:
    primary
  | call ')'  { $$ = $1; }
  ;

/* the location of `call` is its opening paren, so every argument's A_APP points there */
call:
    postfix '(' expr  { $$ = ast_app(A, @2, $1, $3); @$ = @2; }
  | call ',' expr     { $$ = ast_app(A, @1, $1, $3); }
  ;

/* primary: IDENT | SCALAR | literal | '(' expr ')' | lambda
 * A scalar type name used as a value is the cast to that type: f32(x) applies the
 * primitive "f32". */
primary:
    IDENT         { $$ = ast_var(A, @1, $1); }
  | SCALAR        { $$ = ast_var(A, @1, scalar_info[$1].name); }
  | INT
  | FLOAT
  | FLOATWORD
  | DIM
  | TRUE          { $$ = mk_bool(ctx, @1, true); }
  | FALSE         { $$ = mk_bool(ctx, @1, false); }
  | '(' expr ')'  { $$ = $2; }
  | lambda
  ;

/* lambda: "fun" '(' IDENT "=>" expr ')'
 *       | "fun" '(' '(' IDENT ',' namelist ')' "=>" expr ')'
 *       | "fun" '(' type ')' '(' IDENT "=>" expr ')'
 *       | "nFun" '(' IDENT "=>" expr ')'
 *       | "nFun" '(' '(' namelist ')' "=>" expr ')'
 * After "fun(" an IDENT followed by "=>" is a parameter, followed by '.' an array
 * size; a parenthesised parameter list of fun needs two names or more, because
 * `fun((n).f32)` is a type. */
lambda:
    FUN '(' IDENT ARROW expr ')'
        { $$ = ast_lam(A, @1, $3, NULL, $5); }
  | FUN '(' '(' IDENT ',' namelist ')' ARROW expr ')'
        { $$ = mk_lams(ctx, @1, $4, @4, $6, $9, false); }
  | FUN '(' type ')' '(' IDENT ARROW expr ')'
        { $$ = ast_lam(A, @1, $6, $3, $8); }
  | NFUN '(' IDENT ARROW expr ')'
        { $$ = ast_nlam(A, @1, $3, $5); }
  | NFUN '(' '(' namelist ')' ARROW expr ')'
        { $$ = mk_lams(ctx, @1, NULL, @1, $4, $7, true); }
  ;

/* type: SCALAR | natatom '.' type | '(' type ',' type ')' | "idx" '[' nexpr ']'
 * A bare identifier is no type; it is accepted by the grammar only to report
 * "unknown type name". It cannot be the first member of a pair, where
 * `fun((a, b) => e)` must stay a lambda. */
type:
    type_nb
  | IDENT  { diag_error(ctx->diag, @1, "unknown type name '%s'", $1); }
  ;

type_nb:
    SCALAR                      { $$ = ast_te_scalar(A, @1, (ScalarKind)$1); }
  | natatom '.' type            { $$ = ast_te_array(A, @1, $1, $3); }
  | '(' type_nb ',' type ')'    { $$ = ast_te_pair(A, @1, $2, $4); }
  | IDENT '[' nexpr ']'         { $$ = mk_idx(ctx, @1, $1, $3); }
  ;

/* natatom: IDENT | INT | '(' nexpr ')'  -- nat expressions are plain expression ASTs */
natatom:
    IDENT             { $$ = ast_var(A, @1, $1); }
  | INT
  | '(' nexpr ')'     { $$ = $2; }
  ;

/* nexpr: nexpr ('+' | '-') nterm;  nterm: nterm ('*' | '/' | '%') natatom */
nexpr:
    nexpr '+' nterm   { $$ = ast_bin(A, @2, OP_ADD, $1, $3); }
  | nexpr '-' nterm   { $$ = ast_bin(A, @2, OP_SUB, $1, $3); }
  | nterm
  ;

nterm:
    nterm '*' natatom { $$ = ast_bin(A, @2, OP_MUL, $1, $3); }
  | nterm '/' natatom { $$ = ast_bin(A, @2, OP_DIV, $1, $3); }
  | nterm '%' natatom { $$ = ast_bin(A, @2, OP_MOD, $1, $3); }
  | natatom
  ;

%%

/* A syntax error: "syntax error, unexpected T[, expecting A or B ...]" at the token (as
 * bison's detailed messages, which list at most four expected tokens). A declaration
 * keyword or the end of the file can never be inside brackets, so when one arrives
 * while a ( or [ is open, the bracket is what is wrong: the error is at the innermost
 * open bracket, and a note says where the parser found out. */
static int yyreport_syntax_error(const yypcontext_t *yyctx, void *scanner, LangParseCtx *ctx)
{
    (void)scanner;
    yysymbol_kind_t tok = yypcontext_token(yyctx);
    Span at = *yypcontext_location(yyctx);
    yysymbol_kind_t exp[4];
    int nexp = yypcontext_expected_tokens(yyctx, exp, 4);
    StrBuf m = {.a = ctx->arena}; /* diag_error does not return: nothing to free */
    sb_puts(&m, "syntax error");
    if (tok != YYSYMBOL_YYEMPTY) {
        sb_printf(&m, ", unexpected %s", yysymbol_name(tok));
        for (int i = 0; i < nexp; i++) sb_printf(&m, "%s%s", i ? " or " : ", expecting ", yysymbol_name(exp[i]));
    }
    const char *msg = sb_str(&m);
    bool outside = tok == YYSYMBOL_YYEOF || tok == YYSYMBOL_DEF || tok == YYSYMBOL_KERNEL || tok == YYSYMBOL_IMPORT;
    if (outside && ctx->nopen > 0) {
        Span open = ctx->open[ctx->nopen - 1];
        const char *p = open.file->text; /* the bracket's own character, at its line and column */
        for (int l = 1; l < open.line; p++)
            if (*p == '\n') l++;
        char c = p[open.col - 1];
        const char *note = arena_printf(ctx->arena, "%s here, with the '%c' still open",
                                        tok == YYSYMBOL_YYEOF ? "the file ends" : "the next declaration starts", c);
        diag_error2(ctx->diag, open, at, note, "unclosed '%c'", c);
    }
    diag_error(ctx->diag, at, "%s", msg);
}
