/* diag.c: the one way user errors are reported.
 *
 * Format (as gcc and clang print it, so editors can jump to it):
 *     file:line:col: error: message
 *        12 |   xs |> split(0)
 *           |         ^
 */
#include "lang.h"

#include <string.h>

void diag_init(Diag *d, FILE *sink, StrBuf *buf)
{
    memset(d, 0, sizeof *d);
    d->sink = sink;
    d->buf = buf;
}

static void emit(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(Diag *d, const char *fmt, ...)
{
    va_list ap;
    if (d->sink) {
        va_start(ap, fmt);
        vfprintf(d->sink, fmt, ap);
        va_end(ap);
    }
    if (d->buf) {
        va_start(ap, fmt);
        sb_vprintf(d->buf, fmt, ap);
        va_end(ap);
    }
}

/* Print the source line of `sp` and a caret under its column. Non-printable bytes are
 * shown as '?' so binary junk cannot corrupt the terminal. */
static void show_line(Diag *d, Span sp)
{
    if (!sp.file || sp.line <= 0) return;
    const char *p = sp.file->text, *end = p + sp.file->len;
    for (int l = 1; l < sp.line && p < end; p++)
        if (*p == '\n') l++;
    const char *e = p;
    while (e < end && *e != '\n' && e - p < 400) e++;
    StrBuf line = {0};
    for (const char *q = p; q < e; q++) {
        unsigned char c = (unsigned char)*q;
        sb_putc(&line, c == '\t' ? ' ' : (c < 32 || c == 127) ? '?' : (char)c);
    }
    emit(d, "%5d | %s\n      | ", sp.line, sb_str(&line));
    d->oom |= line.oom;
    sb_free(&line);
    for (int i = 1; i < sp.col && i < 400; i++) emit(d, " ");
    emit(d, "^\n");
}

/* For code inlined from definitions: "note: in the use of 'f' here" at each use the
 * code went through, innermost first (at most 8, then how many more). */
static void show_uses(Diag *d, Span sp)
{
    int n = 0;
    for (const UseSite *u = sp.via; u; u = u->sp.via, n++) {
        if (n == 8) {
            int more = 0;
            for (; u; u = u->sp.via) more++;
            emit(d, "patc: note: and %d more uses\n", more);
            return;
        }
        if (u->sp.file)
            emit(d, "%s:%d:%d: note: in the use of '%s' here\n", u->sp.file->path, u->sp.line, u->sp.col, u->name);
        else
            emit(d, "patc: note: in the use of '%s'\n", u->name);
        show_line(d, u->sp);
    }
}

static void vreport(Diag *d, const char *kind, Span sp, const char *fmt, va_list ap)
{
    StrBuf msg = {0};
    sb_vprintf(&msg, fmt, ap);
    if (sp.file)
        emit(d, "%s:%d:%d: %s: %s\n", sp.file->path, sp.line, sp.col, kind, sb_str(&msg));
    else
        emit(d, "patc: %s: %s\n", kind, sb_str(&msg));
    d->oom |= msg.oom;
    sb_free(&msg);
    show_line(d, sp);
    show_uses(d, sp);
}

static _Noreturn void abandon(Diag *d)
{
    d->nerrors++;
    if (d->jump_armed) longjmp(d->on_error, 1);
    die("diag_error called with no error handler armed");
}

void diag_error(Diag *d, Span sp, const char *fmt, ...)
{
    va_list ap;
    d->at = sp;
    va_start(ap, fmt);
    vreport(d, "error", sp, fmt, ap);
    va_end(ap);
    abandon(d);
}

void diag_error2(Diag *d, Span sp, Span note_sp, const char *note, const char *fmt, ...)
{
    va_list ap;
    d->at = sp;
    va_start(ap, fmt);
    vreport(d, "error", sp, fmt, ap);
    va_end(ap);
    if (note_sp.file) {
        emit(d, "%s:%d:%d: note: %s\n", note_sp.file->path, note_sp.line, note_sp.col, note);
        show_line(d, note_sp);
        show_uses(d, note_sp);
    }
    abandon(d);
}

void diag_note(Diag *d, Span sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(d, "note", sp, fmt, ap);
    va_end(ap);
}

void diag_error_nopos(Diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Span none = {0};
    d->at = none;
    vreport(d, "error", none, fmt, ap);
    va_end(ap);
    abandon(d);
}
