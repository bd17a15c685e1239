/* util.c: checked allocation, arena, string buffer and die() (shared by every module). */
#include "lang.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

/* ---------------------------------------------------------------- allocation */

/* The fault-injection counter (per thread, so that a test's hook does not reach other
 * threads): `fault_at` > 0 counts down to the allocation that fails. */
static _Thread_local long fault_at, fault_seen;
static _Thread_local bool fault_sticky, fault_hit;

void lang_fault_arm(long n, bool sticky)
{
    fault_at = n;
    fault_sticky = sticky;
    fault_seen = 0;
    fault_hit = false;
}

void lang_fault_env(void)
{
    const char *e = getenv("PATC_FAULT_ALLOC");
    if (!e || !*e) return;
    char *end;
    long n = strtol(e, &end, 10);
    if (n > 0 && (*end == 0 || (end[0] == '+' && end[1] == 0))) lang_fault_arm(n, *end == '+');
}

long lang_fault_count(void) { return fault_seen; }

bool lang_fault_fired(void) { return fault_hit; }

/* Whether this allocation is the injected failure: the n-th after arming, and with
 * `sticky` each after it. */
static bool fault_now(void)
{
    if (fault_at <= 0) return false;
    fault_seen++;
    if (fault_seen == fault_at || (fault_sticky && fault_seen > fault_at)) {
        fault_hit = true;
        return true;
    }
    return false;
}

void *lang_malloc(size_t n) { return fault_now() ? NULL : malloc(n ? n : 1); }

void *lang_calloc(size_t n, size_t size) { return fault_now() ? NULL : calloc(n ? n : 1, size ? size : 1); }

void *lang_realloc(void *p, size_t n) { return fault_now() ? NULL : realloc(p, n ? n : 1); }

char *lang_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = lang_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
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
    bool failed;
    jmp_buf *catch;
    Arena *scratch;    /* arena_scratch_begin's, made on first use */
    Arena *parent;     /* for a scratch arena: the arena it serves */
    int scratch_depth; /* scratch uses under way (nested proofs) */
};

enum { CHUNK_SIZE = 64 * 1024 };

Arena *arena_new(void) { return lang_calloc(1, sizeof(Arena)); }

void arena_free(Arena *a)
{
    if (!a) return;
    arena_free(a->scratch);
    for (Chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(a);
}

jmp_buf *arena_catch(Arena *a, jmp_buf *jb)
{
    jmp_buf *old = a->catch;
    a->catch = jb;
    return old;
}

bool arena_failed(const Arena *a) { return a->failed; }

_Noreturn void arena_fail(Arena *a)
{
    /* a scratch arena fails as the one it serves */
    for (Arena *x = a; x; x = x->parent) {
        x->failed = true;
        if (x->catch) longjmp(*x->catch, 1);
    }
    die("out of memory in an arena with no catch");
}

void *arena_alloc(Arena *a, size_t size)
{
    if (size > SIZE_MAX - sizeof(Chunk) - 15 || fault_now()) arena_fail(a);
    size = (size + 15) & ~(size_t)15;
    Chunk *c = a->head;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;
        c = malloc(sizeof(Chunk) + cap);
        if (!c) arena_fail(a);
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

/* A scratch arena numbers from its parent's counter: a variable made there must not
 * share an id (the order of normal forms) with one of the parent's. */
int arena_next_id(Arena *a) { return a->parent ? arena_next_id(a->parent) : a->next_id++; }

Arena *arena_scratch_begin(Arena *a)
{
    if (a->parent) return a; /* already scratch: nested uses share it */
    if (!a->scratch) {
        if (!(a->scratch = arena_new())) return a; /* no scratch: the work goes in a itself */
        a->scratch->parent = a;
    }
    a->scratch_depth++;
    return a->scratch;
}

/* The outermost use empties the scratch arena, keeping one standard chunk for the next. */
void arena_scratch_end(Arena *a, Arena *s)
{
    if (s == a || --a->scratch_depth > 0) return;
    Chunk *keep = NULL;
    for (Chunk *c = s->head, *n; c; c = n) {
        n = c->next;
        if (!keep && c->cap == CHUNK_SIZE) keep = c;
        else free(c);
    }
    if (keep) {
        keep->next = NULL;
        keep->used = 0;
    }
    s->head = keep;
}

bool arena_is_scratch(const Arena *a) { return a->parent != NULL; }

/* ---------------------------------------------------------------- string buffer */

void sb_fail(StrBuf *b)
{
    if (b->a) arena_fail(b->a);
    b->oom = true;
}

/* Room for `extra` more bytes and the NUL; false (and the buffer failed) when memory
 * runs out or the size would overflow. An arena buffer leaves its old copy in the
 * arena: it at most doubles what the final text takes. */
static bool sb_grow(StrBuf *b, size_t extra)
{
    if (b->oom) return false;
    if (extra > SIZE_MAX / 4 - b->len) {
        sb_fail(b);
        return false;
    }
    if (b->len + extra + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) cap *= 2;
    char *s;
    if (b->a) {
        s = arena_alloc(b->a, cap);
        if (b->len) memcpy(s, b->s, b->len + 1);
    } else if (!(s = lang_realloc(b->s, cap))) {
        sb_fail(b);
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void sb_putc(StrBuf *b, char c)
{
    if (!sb_grow(b, 1)) return;
    b->s[b->len++] = c;
    b->s[b->len] = 0;
}

void sb_puts(StrBuf *b, const char *s)
{
    size_t n = strlen(s);
    if (!sb_grow(b, n)) return;
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void sb_vprintf(StrBuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n >= 0 && sb_grow(b, (size_t)n)) {
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

void sb_printf(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void sb_insert(StrBuf *b, size_t at, const char *s)
{
    size_t n = strlen(s);
    if (!b->s) {
        sb_puts(b, s);
        return;
    }
    if (at > b->len || !sb_grow(b, n)) return;
    memmove(b->s + at + n, b->s + at, b->len - at + 1);
    memcpy(b->s + at, s, n);
    b->len += n;
}

const char *sb_str(const StrBuf *b) { return b->s ? b->s : ""; }

char *sb_take(StrBuf *b)
{
    char *s = b->s;
    if (b->oom) {
        sb_free(b);
        return NULL;
    }
    if (!s) {
        s = b->a ? arena_alloc(b->a, 1) : lang_malloc(1);
        if (s) s[0] = 0;
    }
    /* a heap string is cut to its length: the buffer doubled as it grew, and a
     * program's CUDA text is kept as long as the program */
    if (!b->a && b->cap > b->len + 1) {
        char *t = realloc(s, b->len + 1);
        if (t) s = t;
    }
    Arena *a = b->a;
    *b = (StrBuf){.a = a};
    return s;
}

void sb_free(StrBuf *b)
{
    if (!b->a) free(b->s);
    *b = (StrBuf){.a = b->a};
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

/* Each kind that cannot be read as a source has its own value, so a message names it. */
int lang_notreg_errno(unsigned mode)
{
    if (S_ISDIR(mode)) return EISDIR;
    if (S_ISFIFO(mode)) return LANG_EFIFO;
    if (S_ISCHR(mode)) return LANG_ECHR;
    if (S_ISBLK(mode)) return LANG_EBLK;
    if (S_ISSOCK(mode)) return LANG_ESOCK;
    return LANG_ENOTREG;
}

/* Only regular files are opened for reading (a FIFO or /dev/zero would block or never
 * end). What is not one is refused from stat() before any open, since opening some
 * devices does something (a tape rewinds) and opening a socket fails with a puzzling
 * ENXIO. The open itself is non-blocking and checked again with fstat, so a FIFO put in
 * the file's place between the two calls cannot block it either. */
int lang_open_regular(const char *path, long long *size)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISREG(st.st_mode)) {
        errno = lang_notreg_errno(st.st_mode);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return -1;
    int err = 0;
    if (fstat(fd, &st) != 0) err = errno;
    else if (!S_ISREG(st.st_mode)) err = lang_notreg_errno(st.st_mode);
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
    /* the size fstat gave and a byte to see the end in: no doubling for a file that
     * stays as it was */
    if (!err && !sb_grow(&b, (size_t)size + 1)) err = ENOMEM;
    while (!err) {
        /* one byte past the cap tells a file that grew since fstat */
        size_t want = (size_t)LANG_MAX_FILE_SIZE + 1 - b.len;
        if (want > 65536) want = 65536;
        size_t room = b.cap - b.len - 1;
        if (room > 0 && want > room) want = room;
        if (room == 0 && !sb_grow(&b, want)) {
            err = ENOMEM;
            break;
        }
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
    char *t = sb_take(&b);
    if (!t) errno = ENOMEM;
    return t;
}

/* lang_read_file into the arena; memory running out there (while reading or while
 * copying) is the arena's failure, not the file's. */
char *lang_read_file_in(Arena *a, const char *path, size_t *len)
{
    char *text = lang_read_file(path, len);
    if (!text && errno == ENOMEM) arena_fail(a);
    if (!text) return NULL;
    jmp_buf jb;
    jmp_buf *outer = arena_catch(a, &jb);
    if (setjmp(jb)) {
        arena_catch(a, outer);
        free(text);
        arena_fail(a);
    }
    char *copy = arena_strndup(a, text, *len);
    arena_catch(a, outer);
    free(text);
    return copy;
}

const char *lang_read_error(int err)
{
    switch (err) {
    case EISDIR: return "a directory, not a regular file";
    case LANG_EFIFO: return "a FIFO, not a regular file";
    case LANG_ECHR: return "a character device, not a regular file";
    case LANG_EBLK: return "a block device, not a regular file";
    case LANG_ESOCK: return "a socket, not a regular file";
    case LANG_ENOTREG: return "not a regular file";
    }
    if (err == EFBIG) return "larger than " LANG_MAX_FILE_SIZE_TEXT ", the limit for source files";
    return strerror(err);
}
