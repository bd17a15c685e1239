/* parse.c: the parser's entry points and imports.
 *
 * `import "path"` is a textual include: the imported file's declarations are spliced
 * into the Program where the import appears. A relative path is resolved against the
 * importing file's directory, then each -I directory in order, then the installed
 * patterns directory, then the files built into the library (LangOptions; an import in
 * a built-in file looks among the built-ins first, as a file on disk looks next to
 * itself). Every file is read at most once per top-level parse (deduplicated by its
 * real path, a built-in one by its name), which also makes import cycles harmless. A
 * chain of imports is at most LANG_MAX_IMPORT_DEPTH deep, since each level is a
 * recursive parse on the C stack.
 */
#include "lang.h"
#include "parser.h"
#include "lexer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>

/* The files seen by one top-level parse, and how deep the current import is. */
typedef struct ImportState {
    const LangOptions *opt;
    NameMap *seen; /* canonical path -> itself */
    int depth;     /* imports between the top-level file and the one being parsed */
} ImportState;

/* A canonical name for deduplication: the real path if the file exists, else the name.
 * A built-in file's name is already canonical (and must not be resolved on disk). */
static const char *canonical(Arena *a, const char *path, bool builtin)
{
    /* into a buffer of ours: an arena copy that fails jumps, and a malloc'ed name from
     * realpath would leak */
    char rp[PATH_MAX];
    if (builtin || !realpath(path, rp)) return arena_strdup(a, path);
    return arena_strdup(a, rp);
}

/* True if `path` was seen before; records it otherwise. */
static bool seen_before(Arena *a, ImportState *st, const char *path, bool builtin)
{
    const char *c = canonical(a, path, builtin);
    return namemap_put(st->seen, c, (void *)c) != NULL;
}

/* One file through the scanner and the parser. Our own setjmp sits between the
 * caller's and diag_error so that flex's buffers are freed before the error travels
 * on to the caller's handler (which may be the parse of the importing file). */
static void parse_src(Arena *a, Diag *d, ImportState *st, Program *prog, const SrcFile *f);

static void on_import(LangParseCtx *ctx, Span sp, const char *path);

/* The built-in file called `name`, or NULL. */
static const LangBuiltin *find_builtin(const LangOptions *opt, const char *name)
{
    for (int i = 0; opt && i < opt->nbuiltins; i++)
        if (!strcmp(opt->builtins[i].name, name)) return &opt->builtins[i];
    return NULL;
}

/* True when `f` is one of the built-in files (its text is theirs, not a copy). */
static bool is_builtin(const LangOptions *opt, const SrcFile *f)
{
    for (int i = 0; opt && i < opt->nbuiltins; i++)
        if (f->text == opt->builtins[i].text) return true;
    return false;
}

/* True when `cand` is a regular file. A candidate that is absent, or something else
 * (a FIFO, a directory: "(a FIFO, not a regular file)"), is added to `tried` for the
 * message and the search goes on; one that cannot be looked at (a loop of symbolic
 * links, a directory on its path that may not be searched) stops the import with that
 * reason, since "cannot find" would send the user looking for a missing file. */
static bool try_file(LangParseCtx *ctx, Span sp, const char *cand, StrBuf *tried)
{
    struct stat sb;
    if (stat(cand, &sb) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            int e = errno;
            sb_free(tried); /* diag_error does not return */
            diag_error(ctx->diag, sp, "cannot open import '%s': %s", cand, strerror(e));
        }
        sb_printf(tried, "%s%s", tried->len ? ", " : "", cand);
        return false;
    }
    if (S_ISREG(sb.st_mode)) return true;
    sb_printf(tried, "%s%s (%s)", tried->len ? ", " : "", cand, lang_read_error(lang_notreg_errno(sb.st_mode)));
    return false;
}

/* `dir`/`path`, without a doubled slash. */
static const char *in_dir(Arena *a, const char *dir, const char *path)
{
    size_t n = strlen(dir);
    return arena_printf(a, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", path);
}

/* Rule: an absolute path names that file. A relative one is looked for, first found
 * wins, (1) next to the importing file (for a built-in file: among the built-ins, so
 * that patc's own patterns import each other, not a user's file of the same name),
 * (2) in each -I directory in order, (3) in the installed patterns directory, (4) among
 * the built-in files. So a user's own file of a pattern's name, next to the program or
 * in a -I directory, wins over patc's copies, and an install without its share
 * directory still has its patterns. */
static void on_import(LangParseCtx *ctx, Span sp, const char *path)
{
    ImportState *st = ctx->import_state;
    const LangOptions *opt = st->opt;
    Arena *a = ctx->arena;
    StrBuf tried = {.a = a}; /* in the arena: diag_error and memory failures jump */
    const char *found = NULL;
    const LangBuiltin *bi = NULL;
    if (path[0] == '/') {
        if (try_file(ctx, sp, path, &tried)) found = path;
    } else {
        if (is_builtin(opt, ctx->file)) {
            bi = find_builtin(opt, path);
        } else {
            const char *slash = strrchr(ctx->file->path, '/');
            const char *cand =
                slash ? arena_printf(a, "%.*s/%s", (int)(slash - ctx->file->path), ctx->file->path, path) : path;
            if (try_file(ctx, sp, cand, &tried)) found = cand;
        }
        for (int i = 0; !found && !bi && opt && i < opt->ninclude_dirs; i++) {
            const char *cand = in_dir(a, opt->include_dirs[i], path);
            if (try_file(ctx, sp, cand, &tried)) found = cand;
        }
        if (!found && !bi && opt && opt->pattern_dir) {
            const char *cand = in_dir(a, opt->pattern_dir, path);
            if (try_file(ctx, sp, cand, &tried)) found = cand;
        }
        if (!found && !bi) bi = find_builtin(opt, path);
    }
    if (!found && !bi) {
        bool any = tried.len > 0;
        if (path[0] != '/' && opt && opt->nbuiltins > 0) {
            sb_puts(&tried, any ? " and among patc's built-in patterns: " : "among patc's built-in patterns: ");
            for (int i = 0; i < opt->nbuiltins; i++) sb_printf(&tried, "%s%s", i ? ", " : "", opt->builtins[i].name);
        }
        /* the message must live in the arena: diag_error does not return */
        const char *where = arena_strdup(a, tried.s ? tried.s : "");
        sb_free(&tried);
        diag_error(ctx->diag, sp, "cannot find import \"%s\" (looked %s%s)", path, any ? "for " : "", where);
    }
    sb_free(&tried);
    const char *fpath = bi ? arena_printf(a, LANG_BUILTIN_DIR "/%s", bi->name) : found;
    if (seen_before(a, st, fpath, bi != NULL)) return;
    if (st->depth >= LANG_MAX_IMPORT_DEPTH)
        diag_error(ctx->diag, sp, "imports nested more than %d deep (importing \"%s\")", LANG_MAX_IMPORT_DEPTH, path);
    SrcFile *f = ANEW(a, SrcFile);
    f->path = fpath;
    if (bi) { /* static text: no copy needed for the spans */
        f->text = bi->text;
        f->len = bi->len;
    } else {
        size_t len;
        char *text = lang_read_file_in(a, found, &len);
        if (!text) diag_error(ctx->diag, sp, "cannot read import '%s': %s", found, lang_read_error(errno));
        f->text = text;
        f->len = len;
    }
    st->depth++;
    parse_src(a, ctx->diag, st, ctx->prog, f);
    st->depth--;
}

static void parse_src(Arena *a, Diag *d, ImportState *st, Program *prog, const SrcFile *f)
{
    /* flex's buffers (a copy of the text) are needed while scanning only: scratch
     * memory; the tokens' strings go to the arena */
    LangParseCtx ctx = {
        .arena = a, .scratch = arena_scratch_begin(a), .diag = d, .file = f, .prog = prog, .line = 1, .col = 1,
        .on_import = on_import, .import_state = st,
    };
    if (!prog->tail) prog->tail = &prog->decls;
    yyscan_t sc;
    if (lang_yylex_init_extra(&ctx, &sc)) arena_fail(a); /* its only failure is memory */

    jmp_buf saved;
    memcpy(saved, d->on_error, sizeof saved);
    bool armed = d->jump_armed;
    if (setjmp(d->on_error)) {
        lang_yylex_destroy(sc);
        arena_scratch_end(a, ctx.scratch);
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
    arena_scratch_end(a, ctx.scratch);
    memcpy(d->on_error, saved, sizeof saved);
    d->jump_armed = armed;
    /* yyerror reports every failure through diag_error, so yyparse never returns one */
    if (r != 0) die("parser failed without a diagnostic");
}

void lang_parse_text(Arena *a, Diag *d, const LangOptions *opt, Program *prog, const char *path, const char *text,
                     size_t len, bool in_arena)
{
    if (len > LANG_MAX_FILE_SIZE)
        diag_error_nopos(d, "'%s' is larger than " LANG_MAX_FILE_SIZE_TEXT ", the limit for source files", path);
    ImportState st = {.opt = opt, .seen = namemap_new(a)};
    seen_before(a, &st, path, false);
    /* spans point into the text: it must live as long as the arena (a copy unless it
     * is in the arena already) */
    SrcFile *f = ANEW(a, SrcFile);
    f->path = arena_strdup(a, path);
    f->text = in_arena ? text : arena_strndup(a, text, len);
    f->len = len;
    parse_src(a, d, &st, prog, f);
}

void lang_parse_string(Arena *a, Diag *d, const LangOptions *opt, Program *prog, const char *path,
                       const char *text, size_t len)
{
    lang_parse_text(a, d, opt, prog, path, text, len, false);
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
