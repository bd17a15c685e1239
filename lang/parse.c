/* parse.c: the parser's entry points and imports.
 *
 * `import "path"` is a textual include: the imported file's declarations are spliced
 * into the Program where the import appears. The path is resolved relative to the
 * importing file's directory, then against each -I directory in order. Every file is
 * read at most once per top-level parse (deduplicated by its real path), which also
 * makes import cycles harmless. A chain of imports is at most LANG_MAX_IMPORT_DEPTH
 * deep, since each level is a recursive parse on the C stack.
 */
#include "lang.h"
#include "parser.h"
#include "lexer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The files seen by one top-level parse, and how deep the current import is. */
typedef struct ImportState {
    const LangOptions *opt;
    NameMap *seen; /* canonical path -> itself */
    int depth;     /* imports between the top-level file and the one being parsed */
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
    return namemap_put(st->seen, c, (void *)c) != NULL;
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
        bool exists = stat(cand, &sb) == 0;
        if (exists && S_ISREG(sb.st_mode)) found = cand;
        else sb_printf(&tried, "%s%s%s", i ? ", " : "", cand, exists ? " (not a regular file)" : "");
    }
    if (!found) {
        /* the message must live in the arena: diag_error does not return */
        const char *where = arena_strdup(a, tried.s ? tried.s : "");
        sb_free(&tried);
        diag_error(ctx->diag, sp, "cannot find import \"%s\" (looked for %s)", path, where);
    }
    sb_free(&tried);
    if (seen_before(a, st, found)) return;
    if (st->depth >= LANG_MAX_IMPORT_DEPTH)
        diag_error(ctx->diag, sp, "imports nested more than %d deep (importing \"%s\")", LANG_MAX_IMPORT_DEPTH, path);
    size_t len;
    char *text = lang_read_file(found, &len);
    if (!text) diag_error(ctx->diag, sp, "cannot read import '%s': %s", found, lang_read_error(errno));
    SrcFile *f = ANEW(a, SrcFile);
    f->path = found;
    f->text = arena_strndup(a, text, len);
    f->len = len;
    free(text);
    st->depth++;
    parse_src(a, ctx->diag, st, ctx->prog, f);
    st->depth--;
}

static void parse_src(Arena *a, Diag *d, ImportState *st, Program *prog, const SrcFile *f)
{
    LangParseCtx ctx = {
        .arena = a, .diag = d, .file = f, .prog = prog, .line = 1, .col = 1,
        .on_import = on_import, .import_state = st,
    };
    if (!prog->tail) prog->tail = &prog->decls;
    yyscan_t sc;
    if (lang_yylex_init_extra(&ctx, &sc)) diag_error_nopos(d, "out of memory reading '%s'", f->path);

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
    /* flex's fatal errors (out of memory) come back through diag_error too, see lexer.l */
    lang_yy_scan_bytes(f->text, (int)f->len, sc);
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
    if (len > LANG_MAX_FILE_SIZE)
        diag_error_nopos(d, "'%s' is larger than " LANG_MAX_FILE_SIZE_TEXT ", the limit for source files", path);
    ImportState st = {.opt = opt, .seen = namemap_new(a)};
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
    if (!text) diag_error_nopos(d, "cannot read '%s': %s", path, lang_read_error(errno));
    char *copy = arena_strndup(a, text, len);
    free(text);
    lang_parse_string(a, d, opt, prog, path, copy, len);
}
