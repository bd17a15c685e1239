/* parse.c: the parser's entry points and imports.
 *
 * `import "path"` is a textual include: the imported file's declarations are spliced
 * into the Program where the import appears. The path is resolved relative to the
 * importing file's directory, then against each -I directory in order. Every file is
 * read at most once per top-level parse (deduplicated by its real path), which also
 * makes import cycles harmless.
 */
#include "lang.h"
#include "parser.h"
#include "lexer.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The files seen by one top-level parse. */
typedef struct ImportState {
    const LangOptions *opt;
    const char **seen; /* canonical paths */
    int nseen, cap;
} ImportState;

/* A canonical name for deduplication: the real path if the file exists, else the name. */
static const char *canonical(Arena *a, const char *path)
{
    char *rp = realpath(path, NULL);
    if (!rp) return arena_strdup(a, path);
    const char *r = arena_strdup(a, rp);
    free(rp);
    return r;
}

/* True if `path` was seen before; records it otherwise. */
static bool seen_before(Arena *a, ImportState *st, const char *path)
{
    const char *c = canonical(a, path);
    for (int i = 0; i < st->nseen; i++)
        if (strcmp(st->seen[i], c) == 0) return true;
    if (st->nseen == st->cap) {
        int cap = st->cap ? 2 * st->cap : 16;
        const char **n = ANEWN(a, const char *, cap);
        if (st->nseen) memcpy(n, st->seen, sizeof *n * (size_t)st->nseen);
        st->seen = n;
        st->cap = cap;
    }
    st->seen[st->nseen++] = c;
    return false;
}

/* One file through the scanner and the parser. Our own setjmp sits between the
 * caller's and diag_error so that flex's buffers are freed before the error travels
 * on to the caller's handler (which may be the parse of the importing file). */
static void parse_src(Arena *a, Diag *d, ImportState *st, Program *prog, const SrcFile *f);

static void on_import(LangParseCtx *ctx, Span sp, const char *path);

/* import "path": try the importing file's directory, then each -I directory. */
static void on_import(LangParseCtx *ctx, Span sp, const char *path)
{
    ImportState *st = ctx->import_state;
    Arena *a = ctx->arena;
    StrBuf tried = {0};
    const char *found = NULL;
    int ncand = 1 + (path[0] == '/' ? 0 : st->opt ? st->opt->ninclude_dirs : 0);
    for (int i = 0; i < ncand && !found; i++) {
        const char *cand;
        if (path[0] == '/') {
            cand = path;
        } else if (i == 0) {
            const char *slash = strrchr(ctx->file->path, '/');
            cand = slash ? arena_printf(a, "%.*s/%s", (int)(slash - ctx->file->path), ctx->file->path, path)
                         : path;
        } else {
            const char *dir = st->opt->include_dirs[i - 1];
            size_t n = strlen(dir);
            cand = arena_printf(a, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", path);
        }
        struct stat sb;
        if (stat(cand, &sb) == 0 && S_ISREG(sb.st_mode)) found = cand;
        else sb_printf(&tried, "%s%s", i ? ", " : "", cand);
    }
    if (!found) {
        /* the message must live in the arena: diag_error does not return */
        const char *where = arena_strdup(a, tried.s ? tried.s : "");
        sb_free(&tried);
        diag_error(ctx->diag, sp, "cannot find import \"%s\" (looked for %s)", path, where);
    }
    sb_free(&tried);
    if (seen_before(a, st, found)) return;
    size_t len;
    char *text = lang_read_file(found, &len);
    if (!text) diag_error(ctx->diag, sp, "cannot read import '%s': %s", found, strerror(errno));
    SrcFile *f = ANEW(a, SrcFile);
    f->path = found;
    f->text = arena_strndup(a, text, len);
    f->len = len;
    free(text);
    parse_src(a, ctx->diag, st, ctx->prog, f);
}

static void parse_src(Arena *a, Diag *d, ImportState *st, Program *prog, const SrcFile *f)
{
    LangParseCtx ctx = {
        .arena = a, .diag = d, .file = f, .prog = prog, .line = 1, .col = 1,
        .on_import = on_import, .import_state = st,
    };
    if (!prog->tail) prog->tail = &prog->decls;
    yyscan_t sc;
    if (lang_yylex_init_extra(&ctx, &sc)) die("out of memory");
    lang_yy_scan_bytes(f->text, (int)f->len, sc);

    jmp_buf saved;
    memcpy(saved, d->on_error, sizeof saved);
    bool armed = d->jump_armed;
    if (setjmp(d->on_error)) {
        lang_yylex_destroy(sc);
        memcpy(d->on_error, saved, sizeof saved);
        d->jump_armed = armed;
        if (!armed) die("diag_error called with no error handler armed");
        longjmp(d->on_error, 1);
    }
    d->jump_armed = true;
    int r = lang_yyparse(sc, &ctx);
    lang_yylex_destroy(sc);
    memcpy(d->on_error, saved, sizeof saved);
    d->jump_armed = armed;
    /* yyerror reports every failure through diag_error, so yyparse never returns one */
    if (r != 0) die("parser failed without a diagnostic");
}

void lang_parse_string(Arena *a, Diag *d, const LangOptions *opt, Program *prog, const char *path,
                       const char *text, size_t len)
{
    if (len > INT_MAX) diag_error_nopos(d, "'%s' is too large", path);
    ImportState st = {.opt = opt};
    seen_before(a, &st, path);
    /* the text is copied so that spans stay valid as long as the arena */
    SrcFile *f = ANEW(a, SrcFile);
    f->path = arena_strdup(a, path);
    f->text = arena_strndup(a, text, len);
    f->len = len;
    parse_src(a, d, &st, prog, f);
}

void lang_parse_file(Arena *a, Diag *d, const LangOptions *opt, Program *prog, const char *path)
{
    size_t len;
    char *text = lang_read_file(path, &len);
    if (!text) diag_error_nopos(d, "cannot read '%s': %s", path, strerror(errno));
    char *copy = arena_strndup(a, text, len);
    free(text);
    lang_parse_string(a, d, opt, prog, path, copy, len);
}
