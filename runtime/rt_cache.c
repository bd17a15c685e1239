/* rt_cache.c: the on-disk cubin cache.
 *
 * One file per key, "<dir>/<key>.cubin", laid out as
 *     magic "PATCCUBN" | u32 format version | u32 0 | u64 payload length |
 *     32-byte SHA-256 of the payload | payload
 * (integers little-endian). The header lets a reader reject a truncated or damaged
 * entry instead of handing junk to the driver. Writers never write in place: they
 * write a uniquely named temporary file in the same directory and rename() it over the
 * entry, so a concurrent reader sees the old entry, the new one, or none.
 *
 * Whatever else is found at an entry's path (a damaged file, a symbolic link, a FIFO, a
 * directory) is a miss, and the store that follows replaces it. A temporary file whose
 * writer died (kill -9 between open and rename) is removed by the next context that
 * opens the cache, once it is RT_CACHE_TEMP_MAX_AGE old: no live writer takes that long,
 * since it writes the whole cubin at once. */
#include "rt_internal.h"
#include "patc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "PATCCUBN"
#define FORMAT_VERSION 1u
#define HEADER_SIZE (8 + 4 + 4 + 8 + 32)
#define TEMP_PREFIX ".tmp-"

static char *xstrcat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = lang_malloc(la + lb + lc + 1);
    if (!s) return NULL;
    memcpy(s, a, la);
    memcpy(s + la, b, lb);
    memcpy(s + la + lb, c, lc + 1);
    return s;
}

/* $PATC_CACHE_DIR, else $XDG_CACHE_HOME/patc, else $HOME/.cache/patc (XDG base dirs). */
char *rt_cache_dir_path(void)
{
    const char *e = getenv("PATC_CACHE_DIR");
    if (e && *e) return xstrcat3(e, "", "");
    e = getenv("XDG_CACHE_HOME");
    if (e && *e) return xstrcat3(e, "/patc", "");
    e = getenv("HOME");
    if (e && *e) return xstrcat3(e, "/.cache/patc", "");
    return NULL;
}

/* ---------------------------------------------------------------- warnings */

static void print_warning(const char *message, void *user)
{
    (void)user;
    fprintf(stderr, "patc: warning: %s\n", message);
}

static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static patc_warning_fn warn_fn = print_warning;
static void *warn_user;
static char *warned[16]; /* the directories warned about (past 16, warned again) */

void patc_set_warning_handler(patc_warning_fn fn, void *user)
{
    pthread_mutex_lock(&warn_lock);
    warn_fn = fn ? fn : print_warning;
    warn_user = fn ? user : NULL;
    pthread_mutex_unlock(&warn_lock);
}

/* One warning per directory or entry (`what`): a program that compiles many kernels
 * hears it once. The handler runs outside the lock, so it may itself set a handler. */
static void warn_once(const char *what, const char *msg)
{
    pthread_mutex_lock(&warn_lock);
    int i = 0;
    while (i < 16 && warned[i] && strcmp(warned[i], what) != 0) i++;
    bool first = i == 16 || !warned[i];
    if (first && i < 16) warned[i] = xstrcat3(what, "", "");
    patc_warning_fn fn = warn_fn;
    void *user = warn_user;
    pthread_mutex_unlock(&warn_lock);
    if (first) fn(msg, user);
}

/* `dir` cannot be used (`reason`): every store would fail, so the cache is as good as off. */
static void warn_dir(const char *dir, const char *reason)
{
    char msg[1024];
    snprintf(msg, sizeof msg,
             "cache directory %s is unusable (%s): compiled kernels are not cached; set PATC_CACHE_DIR "
             "to a writable directory, or turn the cache off (--no-cache, or the PATC_NO_CACHE flag)",
             dir, reason);
    warn_once(dir, msg);
}

/* An entry that cannot be replaced costs that one kernel its caching, not the whole
 * cache: the warning names the entry, not the directory. */
static void warn_entry(const char *path, const char *reason)
{
    char msg[1024];
    snprintf(msg, sizeof msg,
             "cache entry %s cannot be replaced (%s): this kernel is compiled again each time until it is removed",
             path, reason);
    warn_once(path, msg);
}

/* Usable: a directory we may write into, or absent below such a directory (mkdir -p
 * makes it on the first store). Anything else (a file on the path, no write permission)
 * would fail every store, so the cache is turned off and the user told why once,
 * instead of paying a failed store per compile in silence. */
char *rt_cache_default_dir(void)
{
    char *dir = rt_cache_dir_path();
    if (!dir) return NULL;
    char *p = xstrcat3(dir, "", "");
    const char *why = NULL;
    char buf[600];
    struct stat st;
    while (p && !why) {
        if (stat(p, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                snprintf(buf, sizeof buf, "%s is not a directory", p);
                why = buf;
            } else if (access(p, W_OK | X_OK) != 0) {
                snprintf(buf, sizeof buf, "%s is not writable: %s", p, strerror(errno));
                why = buf;
            }
            break;
        }
        if (errno != ENOENT && errno != ENOTDIR) { /* else the parent says why */
            snprintf(buf, sizeof buf, "%s: %s", p, strerror(errno));
            why = buf;
            break;
        }
        char *slash = strrchr(p, '/');
        if (!slash) { /* a relative path: its first component is in the working directory */
            p[0] = '.', p[1] = 0;
            continue;
        }
        if (slash == p) slash[1] = 0;
        else *slash = 0;
    }
    free(p);
    if (why) {
        warn_dir(dir, why);
        free(dir);
        return NULL;
    }
    rt_cache_sweep(dir, time(NULL));
    return dir;
}

/* True for a name that temp_name makes: TEMP_PREFIX, the key's first 16 hex digits,
 * then the pid, a hex number and a counter, each after a '-'. Only such a file is swept,
 * so that a cache directory shared with other files (PATC_CACHE_DIR=$HOME, say) loses
 * nothing of theirs. */
static bool is_temp_name(const char *s)
{
    static const char *const digits[] = {"0123456789abcdef", "0123456789", "0123456789abcdef", "0123456789"};
    if (strncmp(s, TEMP_PREFIX, strlen(TEMP_PREFIX)) != 0) return false;
    s += strlen(TEMP_PREFIX);
    for (int f = 0; f < 4; f++) {
        size_t k = strspn(s, digits[f]);
        if (k == 0 || (f == 0 && k != 16)) return false;
        s += k;
        if (f < 3 && *s++ != '-') return false;
    }
    return *s == 0;
}

/* Rule: a temporary file (is_temp_name) last written RT_CACHE_TEMP_MAX_AGE seconds or
 * more before `now` has no writer left and is removed; a younger one may be another
 * process's store in progress and is left alone. Only files and links go (a directory of
 * that name is not one of ours), and nothing here can fail the caller. */
void rt_cache_sweep(const char *dir, time_t now)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        if (!is_temp_name(e->d_name) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            S_ISDIR(st.st_mode))
            continue;
        if (st.st_mtime <= now - RT_CACHE_TEMP_MAX_AGE) unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

static void put_field(RtSha256 *s, const void *p, size_t n)
{
    uint64_t len = n;
    rt_sha256_update(s, &len, sizeof len);
    rt_sha256_update(s, p, n);
}

/* key = SHA-256(len|"patc-cubin" , len|version, len|nvrtc, len|arch, len|opt..., len|src) */
void rt_cache_key(const char *patc_version, const char *nvrtc_id, int arch, const char *const *options, int noptions,
                  const char *cuda_src, char key[65])
{
    RtSha256 s;
    char num[64];
    uint8_t d[32];
    rt_sha256_init(&s);
    put_field(&s, "patc-cubin", 10);
    put_field(&s, patc_version, strlen(patc_version));
    put_field(&s, nvrtc_id, strlen(nvrtc_id));
    snprintf(num, sizeof num, "arch %d nopt %d", arch, noptions);
    put_field(&s, num, strlen(num));
    for (int i = 0; i < noptions; i++) put_field(&s, options[i], strlen(options[i]));
    put_field(&s, cuda_src, strlen(cuda_src));
    rt_sha256_final(&s, d);
    rt_hex(d, key);
}

char *rt_cache_entry_path(const char *dir, const char *key)
{
    char *name = xstrcat3("/", key, ".cubin");
    if (!name) return NULL;
    char *p = xstrcat3(dir, name, "");
    free(name);
    return p;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* Read exactly n bytes unless the file ends first; returns bytes read or -1. */
static ssize_t read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static bool write_full(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, (const char *)buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        done += (size_t)w;
    }
    return true;
}

/* An entry is a hit only when it is a regular file (not a link to one: patc makes none),
 * the magic and version match, the file holds exactly header + payload length bytes and
 * the payload hashes to the stored checksum. Nothing at the path is a miss; anything
 * else found there is damage. Only a regular file is opened, without blocking and
 * without following a link, so a FIFO or a device put there cannot stall the read. */
RtCacheResult rt_cache_load(const char *dir, const char *key, void **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    char *path = rt_cache_entry_path(dir, key);
    if (!path) return RT_CACHE_MISS;
    struct stat st;
    int fd = -1;
    bool there = lstat(path, &st) == 0;
    if (there && S_ISREG(st.st_mode)) fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    free(path);
    if (fd < 0) return there ? RT_CACHE_CORRUPT : RT_CACHE_MISS;
    RtCacheResult res = RT_CACHE_CORRUPT;
    uint8_t hdr[HEADER_SIZE];
    uint8_t *payload = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || read_full(fd, hdr, HEADER_SIZE) != HEADER_SIZE) goto out;
    if (memcmp(hdr, MAGIC, 8) != 0 || get_u32(hdr + 8) != FORMAT_VERSION) goto out;
    uint64_t n = get_u64(hdr + 16);
    if ((uint64_t)st.st_size != HEADER_SIZE + n || n == 0 || n > RT_CACHE_MAX_ENTRY) goto out;
    payload = lang_malloc((size_t)n);
    if (!payload) {
        res = RT_CACHE_MISS;
        goto out;
    }
    if (read_full(fd, payload, (size_t)n) != (ssize_t)n) goto out;
    uint8_t d[32];
    rt_sha256(payload, (size_t)n, d);
    if (memcmp(d, hdr + 24, 32) != 0) goto out;
    *data = payload;
    *len = (size_t)n;
    payload = NULL;
    res = RT_CACHE_HIT;
out:
    free(payload);
    close(fd);
    return res;
}

/* mkdir -p: create each missing component of `dir`. */
static bool mkdir_p(const char *dir)
{
    char *p = xstrcat3(dir, "", "");
    if (!p) return false;
    bool ok = true;
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == 0) {
            char c = *s;
            *s = 0;
            if (mkdir(p, 0755) != 0 && errno != EEXIST) ok = false;
            *s = c;
            if (!c || !ok) break;
        }
    }
    free(p);
    return ok;
}

/* A name no other process or thread picks: pid, a clock reading and a counter. */
static char *temp_name(const char *dir, const char *key)
{
    static unsigned counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char tail[160];
    snprintf(tail, sizeof tail, "/" TEMP_PREFIX "%.16s-%ld-%lx-%u", key, (long)getpid(),
             (unsigned long)ts.tv_nsec ^ (unsigned long)ts.tv_sec * 2654435761u ^ (unsigned long)rand(),
             __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
    return xstrcat3(dir, tail, "");
}

/* Remove `name` (relative to `at`) and, for a directory, all it holds, without following
 * a symbolic link (a link inside goes, not what it points to), at most 16 levels deep so
 * that a deep tree cannot use up the stack or the descriptors (*why then says so; other
 * failures leave errno). */
static bool remove_tree(int at, const char *name, int depth, const char **why)
{
    if (unlinkat(at, name, 0) == 0 || errno == ENOENT) return true;
    if (errno != EISDIR && errno != EPERM) return false;
    if (depth >= 16) {
        *why = "it is a directory nested more than 16 deep";
        return false;
    }
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return false;
    }
    /* removing while reading may hide names from readdir: read again until none is left */
    bool ok = true, any = true;
    while (ok && any) {
        any = false;
        rewinddir(d);
        struct dirent *e;
        while (ok && (e = readdir(d)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                ok = remove_tree(fd, e->d_name, depth + 1, why);
                any = true;
            }
    }
    int err = errno;
    closedir(d);
    if (!ok) {
        errno = err;
        return false;
    }
    return unlinkat(at, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
}

/* Rule: write header and payload to a fresh temporary file, then rename() it into
 * place: rename within one directory is atomic, so readers never see a half-written
 * entry. rename replaces a file, a link or a FIFO at the entry's path, but not a
 * directory: that is removed, with all it holds, and the rename tried once more. A
 * failure warns once: about the directory when the temporary file cannot be made or
 * written (every store would fail), about the entry when only it cannot be replaced. */
bool rt_cache_store(const char *dir, const char *key, const void *data, size_t len)
{
    char *tmp = NULL, *path = NULL;
    const char *why = NULL;
    bool ok = false, entry_failed = false;
    int fd = -1;
    if (!mkdir_p(dir)) goto out;
    tmp = temp_name(dir, key);
    path = rt_cache_entry_path(dir, key);
    if (!tmp || !path) goto out;
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) goto out;
    uint8_t hdr[HEADER_SIZE];
    memcpy(hdr, MAGIC, 8);
    put_u32(hdr + 8, FORMAT_VERSION);
    put_u32(hdr + 12, 0);
    put_u64(hdr + 16, len);
    rt_sha256(data, len, hdr + 24);
    if (!write_full(fd, hdr, HEADER_SIZE) || !write_full(fd, data, len)) goto out;
    if (close(fd) != 0) {
        fd = -1;
        goto out;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        entry_failed = true;
        if (errno != EISDIR && errno != ENOTEMPTY && errno != EEXIST) goto out;
        /* the rename decides: another process may have removed the directory meanwhile */
        bool removed = remove_tree(AT_FDCWD, path, 0, &why);
        int remove_err = errno;
        if (rename(tmp, path) != 0) {
            if (!removed) errno = remove_err;
            goto out;
        }
    }
    ok = true;
out:;
    int e = errno;
    if (fd >= 0) close(fd);
    if (!ok && tmp) unlink(tmp);
    if (!ok && entry_failed) warn_entry(path, why ? why : strerror(e));
    else if (!ok) warn_dir(dir, strerror(e));
    free(tmp);
    free(path);
    errno = e;
    return ok;
}
