/* util.c: arena, string buffer and die() (shared by every module). */
#include "lang.h"

#include <stdlib.h>
#include <string.h>

_Noreturn void die_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "patc: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* ---------------------------------------------------------------- arena */

/* Chunks are chained; a request larger than the default chunk gets a chunk of its own. */
typedef struct Chunk {
    struct Chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} Chunk;

struct Arena {
    Chunk *head;
    int next_id;
};

enum { CHUNK_SIZE = 64 * 1024 };

Arena *arena_new(void)
{
    Arena *a = calloc(1, sizeof *a);
    if (!a) die("out of memory");
    return a;
}

void arena_free(Arena *a)
{
    if (!a) return;
    for (Chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(a);
}

void *arena_alloc(Arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    Chunk *c = a->head;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;
        c = malloc(sizeof(Chunk) + cap);
        if (!c) die("out of memory");
        c->used = 0;
        c->cap = cap;
        /* keep the partly used head in front when the new chunk is a one-off big one */
        if (a->head && cap > CHUNK_SIZE) {
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

int arena_next_id(Arena *a) { return a->next_id++; }

/* ---------------------------------------------------------------- string buffer */

static void sb_grow(StrBuf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) die("out of memory");
    b->s = s;
    b->cap = cap;
}

void sb_putc(StrBuf *b, char c)
{
    sb_grow(b, 1);
    b->s[b->len++] = c;
    b->s[b->len] = 0;
}

void sb_puts(StrBuf *b, const char *s)
{
    size_t n = strlen(s);
    sb_grow(b, n);
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void sb_vprintf(StrBuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    sb_grow(b, (size_t)n);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}

void sb_printf(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

char *sb_take(StrBuf *b)
{
    char *s = b->s;
    if (!s) {
        s = malloc(1);
        if (!s) die("out of memory");
        s[0] = 0;
    }
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void sb_free(StrBuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* ---------------------------------------------------------------- tables */

const ScalarInfo scalar_info[SK_COUNT] = {
#define X(e, s, c, sz, f, sg) [e] = {s, c, sz, f, sg},
    SCALAR_TYPES(X)
#undef X
};

const char *const binop_spelling[OP_COUNT] = {
#define X(e, s) [e] = s,
    BIN_OPS(X)
#undef X
};

char *lang_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    StrBuf b = {0};
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) {
        sb_grow(&b, n);
        memcpy(b.s + b.len, tmp, n);
        b.len += n;
        b.s[b.len] = 0;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        sb_free(&b);
        return NULL;
    }
    *len = b.len;
    return sb_take(&b);
}
