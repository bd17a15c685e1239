/* util.c: arena, string buffer and die() (shared by every module). */
#include "lang.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

const char *const unop_spelling[UOP_COUNT] = {
#define X(e, s) [e] = s,
    UN_OPS(X)
#undef X
};

/* ---------------------------------------------------------------- name tables */

/* Open addressing with linear probing; the table doubles at 1/2 load. Old slot arrays
 * stay in the arena (at most as much again as the live one). */
typedef struct NameSlot {
    const char *key;
    void *value;
} NameSlot;

struct NameMap {
    Arena *a;
    NameSlot *slot;
    size_t cap, n; /* cap is a power of two */
};

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

NameMap *namemap_new(Arena *a)
{
    NameMap *m = ANEW(a, NameMap);
    m->a = a;
    m->cap = 16;
    m->slot = ANEWN(a, NameSlot, m->cap);
    return m;
}

static NameSlot *name_find(NameSlot *slot, size_t cap, const char *key)
{
    for (size_t i = name_hash(key) & (cap - 1);; i = (i + 1) & (cap - 1))
        if (!slot[i].key || strcmp(slot[i].key, key) == 0) return &slot[i];
}

void *namemap_get(const NameMap *m, const char *key)
{
    return name_find(m->slot, m->cap, key)->value;
}

void *namemap_put(NameMap *m, const char *key, void *value)
{
    NameSlot *s = name_find(m->slot, m->cap, key);
    if (s->key) return s->value;
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = 2 * m->cap;
        NameSlot *slot = ANEWN(m->a, NameSlot, cap);
        for (size_t i = 0; i < m->cap; i++)
            if (m->slot[i].key) *name_find(slot, cap, m->slot[i].key) = m->slot[i];
        m->slot = slot;
        m->cap = cap;
        s = name_find(slot, cap, key);
    }
    s->key = key;
    s->value = value;
    m->n++;
    return NULL;
}

/* ---------------------------------------------------------------- source files */

/* Only regular files are opened for reading (a FIFO or /dev/zero would block or never
 * end; the open is non-blocking so that even opening a FIFO with no writer returns at
 * once): the descriptor with *size set, or -1 with errno (EISDIR, LANG_ENOTREG). */
int lang_open_regular(const char *path, long long *size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    int err = 0;
    if (fstat(fd, &st) != 0) err = errno;
    else if (S_ISDIR(st.st_mode)) err = EISDIR;
    else if (!S_ISREG(st.st_mode)) err = LANG_ENOTREG;
    if (err) {
        close(fd);
        errno = err;
        return -1;
    }
    *size = (long long)st.st_size;
    return fd;
}

/* A regular file (lang_open_regular) of at most LANG_MAX_FILE_SIZE bytes, read whole. */
char *lang_read_file(const char *path, size_t *len)
{
    long long size;
    int fd = lang_open_regular(path, &size);
    if (fd < 0) return NULL;
    int err = size > LANG_MAX_FILE_SIZE ? EFBIG : 0;
    StrBuf b = {0};
    while (!err) {
        /* one byte past the cap tells a file that grew since fstat */
        size_t want = (size_t)LANG_MAX_FILE_SIZE + 1 - b.len;
        if (want > 65536) want = 65536;
        sb_grow(&b, want);
        ssize_t n = read(fd, b.s + b.len, want);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) err = errno;
        if (n <= 0) break;
        b.len += (size_t)n;
        b.s[b.len] = 0;
        if (b.len > LANG_MAX_FILE_SIZE) err = EFBIG;
    }
    close(fd);
    if (err) {
        sb_free(&b);
        errno = err;
        return NULL;
    }
    *len = b.len;
    return sb_take(&b);
}

const char *lang_read_error(int err)
{
    if (err == LANG_ENOTREG) return "not a regular file";
    if (err == EFBIG) return "larger than " LANG_MAX_FILE_SIZE_TEXT ", the limit for source files";
    return strerror(err);
}
