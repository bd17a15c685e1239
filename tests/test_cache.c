/* test_cache.c: the on-disk cubin cache (runtime/rt_cache.c, rt_sha256.c, rt_nvrtc.c).
 * Needs no GPU: NVRTC compiles for sm_90 without one. */
#include "../runtime/rt_internal.h"
#include "../runtime/patc.h"
#include "tmpdir.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>


static char *subdir(const char *name)
{
    static char p[400];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    return p;
}

START_TEST(sha256_known_answers)
{
    uint8_t d[32];
    char hex[65];
    rt_sha256("", 0, d);
    rt_hex(d, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    rt_sha256("abc", 3, d);
    rt_hex(d, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    rt_sha256(m, strlen(m), d);
    rt_hex(d, hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* a million 'a's, fed in uneven pieces to exercise the block buffer */
    RtSha256 s;
    rt_sha256_init(&s);
    char a[997];
    memset(a, 'a', sizeof a);
    size_t left = 1000000;
    while (left) {
        size_t k = left < sizeof a ? left : sizeof a;
        rt_sha256_update(&s, a, k);
        left -= k;
    }
    rt_sha256_final(&s, d);
    rt_hex(d, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

START_TEST(key_changes_with_every_field)
{
    const char *o1[] = {"--gpu-architecture=sm_90", "-lineinfo"};
    const char *o2[] = {"--gpu-architecture=sm_90", "-G"};
    const char *o3[] = {"--gpu-architecture=sm_90-", "lineinfo"};
    char k0[65], k[65];
    rt_cache_key("0.1.0", "nvrtc 13.0", 90, o1, 2, "src", k0);
    rt_cache_key("0.1.0", "nvrtc 13.0", 90, o1, 2, "src", k);
    ck_assert_str_eq(k0, k);
    ck_assert_int_eq(strlen(k0), 64);
    rt_cache_key("0.1.1", "nvrtc 13.0", 90, o1, 2, "src", k);
    ck_assert_str_ne(k0, k);
    rt_cache_key("0.1.0", "nvrtc 13.1", 90, o1, 2, "src", k);
    ck_assert_str_ne(k0, k);
    rt_cache_key("0.1.0", "nvrtc 12.0", 90, o1, 2, "src", k);
    ck_assert_str_ne(k0, k);
    rt_cache_key("0.1.0", "nvrtc 13.0", 80, o1, 2, "src", k);
    ck_assert_str_ne(k0, k);
    rt_cache_key("0.1.0", "nvrtc 13.0", 90, o2, 2, "src", k);
    ck_assert_str_ne(k0, k);
    rt_cache_key("0.1.0", "nvrtc 13.0", 90, o3, 2, "src", k); /* same bytes, split differently */
    ck_assert_str_ne(k0, k);
    rt_cache_key("0.1.0", "nvrtc 13.0", 90, o1, 1, "src", k);
    ck_assert_str_ne(k0, k);
    rt_cache_key("0.1.0", "nvrtc 13.0", 90, o1, 2, "src ", k);
    ck_assert_str_ne(k0, k);
}
END_TEST

START_TEST(default_dir_precedence)
{
    setenv("PATC_CACHE_DIR", "/x/p", 1);
    setenv("XDG_CACHE_HOME", "/x/xdg", 1);
    setenv("HOME", "/x/home", 1);
    char *d = rt_cache_dir_path();
    ck_assert_str_eq(d, "/x/p");
    free(d);
    unsetenv("PATC_CACHE_DIR");
    d = rt_cache_dir_path();
    ck_assert_str_eq(d, "/x/xdg/patc");
    free(d);
    unsetenv("XDG_CACHE_HOME");
    d = rt_cache_dir_path();
    ck_assert_str_eq(d, "/x/home/.cache/patc");
    free(d);
}
END_TEST

static const char KEY[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

START_TEST(miss_then_hit)
{
    void *p;
    size_t n;
    const char *dir = subdir("a/b/c"); /* created on demand */
    ck_assert_int_eq(rt_cache_load(dir, KEY, &p, &n), RT_CACHE_MISS);
    ck_assert_ptr_null(p);
    const char payload[] = "not really a cubin, but bytes all the same";
    ck_assert(rt_cache_store(dir, KEY, payload, sizeof payload));
    ck_assert_int_eq(rt_cache_load(dir, KEY, &p, &n), RT_CACHE_HIT);
    ck_assert_uint_eq(n, sizeof payload);
    ck_assert_mem_eq(p, payload, n);
    free(p);
    /* another key is still a miss */
    ck_assert_int_eq(rt_cache_load(dir, "ff" "00112233445566778899aabbccddeeff00112233445566778899aabbccddee", &p, &n),
                     RT_CACHE_MISS);
}
END_TEST

static void damage(const char *path, long off, int truncate_to)
{
    if (truncate_to >= 0) {
        ck_assert_int_eq(truncate(path, truncate_to), 0);
        return;
    }
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    unsigned char c;
    ck_assert_int_eq(pread(fd, &c, 1, off), 1);
    c ^= 0x5a;
    ck_assert_int_eq(pwrite(fd, &c, 1, off), 1);
    close(fd);
}

START_TEST(corrupt_entries_are_detected_and_rebuilt)
{
    /* byte offsets: magic 0, version 8, length 16, checksum 24, payload 56 */
    static const long offs[] = {0, 8, 17, 30, 56, 56 + 500};
    char payload[1000];
    for (int i = 0; i < 1000; i++) payload[i] = (char)(i * 7);
    char *path = rt_cache_entry_path(tmpdir, KEY);
    for (int t = 0; t < 9; t++) {
        void *p;
        size_t n;
        ck_assert(rt_cache_store(tmpdir, KEY, payload, sizeof payload));
        if (t < 6) damage(path, offs[t], -1);
        else damage(path, 0, t == 6 ? 0 : t == 7 ? 40 : 56 + 999); /* empty, in the header, one byte short */
        ck_assert_msg(rt_cache_load(tmpdir, KEY, &p, &n) == RT_CACHE_CORRUPT, "damage %d not detected", t);
        ck_assert_ptr_null(p);
        ck_assert(rt_cache_store(tmpdir, KEY, payload, sizeof payload)); /* rebuilt, overwritten */
        ck_assert_int_eq(rt_cache_load(tmpdir, KEY, &p, &n), RT_CACHE_HIT);
        ck_assert_mem_eq(p, payload, sizeof payload);
        free(p);
    }
    /* trailing junk after a valid entry is damage too */
    FILE *f = fopen(path, "ab");
    fputs("junk", f);
    fclose(f);
    void *p;
    size_t n;
    ck_assert_int_eq(rt_cache_load(tmpdir, KEY, &p, &n), RT_CACHE_CORRUPT);
    free(path);
}
END_TEST

enum { WRITES = 300, PAYLOAD = 48 * 1024 };

static void fill(unsigned char *b, int writer)
{
    for (int i = 0; i < PAYLOAD; i++) b[i] = (unsigned char)(i * (writer + 3) + writer);
}

START_TEST(two_writers_and_a_reader)
{
    static unsigned char a[PAYLOAD], b[PAYLOAD];
    fill(a, 0);
    fill(b, 1);
    pid_t kids[2];
    for (int w = 0; w < 2; w++) {
        kids[w] = fork();
        ck_assert_int_ge(kids[w], 0);
        if (kids[w] == 0) {
            for (int i = 0; i < WRITES; i++)
                if (!rt_cache_store(tmpdir, KEY, w ? b : a, PAYLOAD)) _exit(1);
            _exit(0);
        }
    }
    int hits = 0, misses = 0, running = 2;
    while (running > 0 || hits + misses < 2000) {
        void *p;
        size_t n;
        RtCacheResult r = rt_cache_load(tmpdir, KEY, &p, &n);
        ck_assert_msg(r != RT_CACHE_CORRUPT, "a reader saw a half-written entry");
        if (r == RT_CACHE_HIT) {
            ck_assert_uint_eq(n, PAYLOAD);
            ck_assert(memcmp(p, a, PAYLOAD) == 0 || memcmp(p, b, PAYLOAD) == 0);
            hits++;
            free(p);
        } else
            misses++;
        for (int w = 0; w < 2; w++) {
            int st;
            if (kids[w] > 0 && waitpid(kids[w], &st, WNOHANG) == kids[w]) {
                ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
                kids[w] = 0;
                running--;
            }
        }
    }
    ck_assert_int_gt(hits, 0);
    /* no temporary files are left behind */
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    int entries = 0;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' || strncmp(e->d_name, ".tmp", 4) == 0) {
            ck_assert_msg(strncmp(e->d_name, ".tmp", 4) != 0, "left over %s", e->d_name);
            entries++;
        }
    closedir(d);
    ck_assert_int_eq(entries, 1);
}
END_TEST

static const char *SRC = "extern \"C\" __global__ void k(float *o, const float *i, int n)\n"
                         "{ int t = blockIdx.x * blockDim.x + threadIdx.x; if (t < n) o[t] = i[t] + 1.0f; }\n";

START_TEST(nvrtc_through_the_cache)
{
    void *c1, *c2;
    size_t n1, n2;
    char *log;
    RtBuildStats st;
    ck_assert_msg(rt_nvrtc_compile(SRC, "k.cu", 90, tmpdir, &c1, &n1, &log, &st), "%s", log ? log : "");
    ck_assert(!st.cache_hit && !st.cache_corrupt);
    ck_assert_uint_gt(n1, 16);
    ck_assert_mem_eq(c1, "\177ELF", 4); /* a cubin, not PTX */
    ck_assert(rt_nvrtc_compile(SRC, "k.cu", 90, tmpdir, &c2, &n2, &log, &st));
    ck_assert(st.cache_hit);
    ck_assert_uint_eq(n1, n2);
    ck_assert_mem_eq(c1, c2, n1);
    free(c2);
    /* another arch is another key */
    ck_assert(rt_nvrtc_compile(SRC, "k.cu", 80, tmpdir, &c2, &n2, &log, &st));
    ck_assert(!st.cache_hit);
    free(c2);
    /* damage the sm_90 entry: rebuilt, flagged, then a hit again */
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            char p[600];
            snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
            damage(p, 200, -1);
        }
    closedir(d);
    ck_assert(rt_nvrtc_compile(SRC, "k.cu", 90, tmpdir, &c2, &n2, &log, &st));
    ck_assert(!st.cache_hit && st.cache_corrupt);
    ck_assert_mem_eq(c1, c2, n1);
    free(c2);
    ck_assert(rt_nvrtc_compile(SRC, "k.cu", 90, tmpdir, &c2, &n2, &log, &st));
    ck_assert(st.cache_hit);
    free(c2);
    free(c1);
    /* no cache directory: always compiles */
    ck_assert(rt_nvrtc_compile(SRC, "k.cu", 90, NULL, &c2, &n2, &log, &st));
    ck_assert(!st.cache_hit);
    free(c2);
}
END_TEST

START_TEST(nvrtc_error_log)
{
    void *c;
    size_t n;
    char *log;
    RtBuildStats st;
    ck_assert(!rt_nvrtc_compile("__global__ void k() { undeclared_thing = 1; }", "bad.cu", 90, tmpdir, &c, &n,
                                &log, &st));
    ck_assert_ptr_nonnull(log);
    ck_assert_msg(strstr(log, "undeclared_thing") != NULL, "log: %s", log);
    ck_assert_msg(strstr(log, "bad.cu") != NULL, "log: %s", log);
    free(log);
}
END_TEST

/* The warnings the library gives, collected instead of printed. */
static int nwarnings;
static char last_warning[1024];
static void collect_warning(const char *message, void *user)
{
    ck_assert_ptr_eq(user, &nwarnings);
    nwarnings++;
    snprintf(last_warning, sizeof last_warning, "%s", message);
}

/* A cache directory that is a file, or one we may not write, turns the cache off with
 * one warning naming it; an absent one below a writable directory is fine (made on the
 * first store). */
START_TEST(unusable_cache_dir_warns_once)
{
    patc_set_warning_handler(collect_warning, &nwarnings);
    nwarnings = 0;
    setenv("PATC_CACHE_DIR", subdir("not/yet/there"), 1);
    char *d = rt_cache_default_dir();
    ck_assert_str_eq(d, subdir("not/yet/there"));
    free(d);
    ck_assert_int_eq(nwarnings, 0);

    char file[400];
    snprintf(file, sizeof file, "%s", subdir("a-file"));
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    for (int i = 0; i < 2; i++) {
        setenv("PATC_CACHE_DIR", file, 1);
        ck_assert_ptr_null(rt_cache_default_dir());
        setenv("PATC_CACHE_DIR", subdir("a-file/below"), 1);
        ck_assert_ptr_null(rt_cache_default_dir());
    }
    /* one warning per directory, however often it is met */
    ck_assert_int_eq(nwarnings, 2);
    ck_assert_msg(strstr(last_warning, "a-file/below") && strstr(last_warning, "not a directory"), "%s",
                  last_warning);

    /* a context turns its cache off and says why once */
    nwarnings = 0;
    snprintf(file, sizeof file, "%s", subdir("b-file"));
    ck_assert_ptr_nonnull(f = fopen(file, "w"));
    fclose(f);
    setenv("PATC_CACHE_DIR", file, 1);
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    ck_assert_ptr_null(patc_cache_dir(c));
    patc_destroy(c);
    ck_assert_int_eq(nwarnings, 1);
    ck_assert_msg(strstr(last_warning, file) && strstr(last_warning, "PATC_CACHE_DIR"), "%s", last_warning);

    /* a store into a directory that is a file fails: the compile still succeeds, and
     * the warning comes once */
    nwarnings = 0;
    void *cubin;
    size_t n;
    char *log;
    RtBuildStats st;
    for (int i = 0; i < 2; i++) {
        ck_assert_msg(rt_nvrtc_compile(SRC, "k.cu", 90, subdir("a-file/c"), &cubin, &n, &log, &st), "%s",
                      log ? log : "");
        free(cubin);
    }
    ck_assert_int_eq(nwarnings, 1);
    ck_assert_msg(strstr(last_warning, "a-file/c"), "%s", last_warning);

    /* read-only: root writes anyway, so only checked for other users */
    if (geteuid() != 0) {
        nwarnings = 0;
        const char *ro = subdir("read-only");
        ck_assert_int_eq(mkdir(ro, 0555), 0);
        setenv("PATC_CACHE_DIR", ro, 1);
        ck_assert_ptr_null(rt_cache_default_dir());
        ck_assert_int_eq(nwarnings, 1);
        ck_assert_msg(strstr(last_warning, "not writable"), "%s", last_warning);
        chmod(ro, 0755);
    }
    unsetenv("PATC_CACHE_DIR");
    patc_set_warning_handler(NULL, NULL);
}
END_TEST

/* A FIFO at an entry's path is opened without waiting for a writer and counted as a
 * damaged entry: the compile finishes, the FIFO is replaced by a real entry. So is a
 * directory there (which once turned into "the cache directory is unusable" at every
 * compile): the compile rebuilds the entry, with no warning. */
START_TEST(fifo_or_directory_entry_is_rebuilt)
{
    alarm(60); /* a hang fails the test instead of waiting for Check's timeout */
    const char *dir = subdir("fifo");
    void *p;
    size_t n;
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    char *path = rt_cache_entry_path(dir, KEY);
    ck_assert_int_eq(mkfifo(path, 0644), 0);
    ck_assert_int_eq(rt_cache_load(dir, KEY, &p, &n), RT_CACHE_CORRUPT);
    ck_assert(rt_cache_store(dir, KEY, "x", 1));
    ck_assert_int_eq(rt_cache_load(dir, KEY, &p, &n), RT_CACHE_HIT);
    free(p);
    free(path);

    /* through the compiler: find the entry NVRTC's cubin went to, make it a FIFO, then
     * a directory with something in it */
    patc_set_warning_handler(collect_warning, &nwarnings);
    nwarnings = 0;
    void *c1, *c2;
    size_t n1, n2;
    char *log;
    RtBuildStats st;
    const char *cdir = subdir("fifo2");
    ck_assert_msg(rt_nvrtc_compile(SRC, "k.cu", 90, cdir, &c1, &n1, &log, &st), "%s", log ? log : "");
    for (int round = 0; round < 2; round++) {
        DIR *d = opendir(cdir);
        ck_assert_ptr_nonnull(d);
        struct dirent *e;
        int entries = 0;
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') {
                char q[700];
                snprintf(q, sizeof q, "%s/%s", cdir, e->d_name);
                ck_assert_int_eq(unlink(q), 0);
                if (round == 0) ck_assert_int_eq(mkfifo(q, 0644), 0);
                else {
                    ck_assert_int_eq(mkdir(q, 0755), 0);
                    snprintf(q, sizeof q, "%s/%s/inside", cdir, e->d_name);
                    ck_assert_int_eq(mkdir(q, 0755), 0);
                }
                entries++;
            }
        closedir(d);
        ck_assert_int_eq(entries, 1);
        ck_assert(rt_nvrtc_compile(SRC, "k.cu", 90, cdir, &c2, &n2, &log, &st));
        ck_assert(!st.cache_hit && st.cache_corrupt);
        ck_assert_uint_eq(n1, n2);
        ck_assert_mem_eq(c1, c2, n1);
        free(c2);
        ck_assert(rt_nvrtc_compile(SRC, "k.cu", 90, cdir, &c2, &n2, &log, &st));
        ck_assert(st.cache_hit);
        free(c2);
    }
    ck_assert_msg(nwarnings == 0, "%s", last_warning);
    patc_set_warning_handler(NULL, NULL);
    free(c1);
    alarm(0);
}
END_TEST

/* Make what `kind` names at `path` (an entry's place): 0 an empty file, 1 a truncated
 * entry, 2 a symbolic link to a good entry elsewhere, 3 a dangling link, 4 a loop of
 * links, 5 a FIFO, 6 an empty directory, 7 a directory holding files, a subdirectory and
 * a link to `keep` (which must survive), 8 a socket. */
static void make_damage(int kind, const char *path, const char *keep)
{
    char p[700];
    switch (kind) {
    case 0: {
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fclose(f);
        break;
    }
    case 1:
        ck_assert(rt_cache_store(tmpdir, KEY, "0123456789", 10));
        ck_assert_int_eq(truncate(path, 30), 0);
        break;
    case 2: ck_assert_int_eq(symlink(keep, path), 0); break;
    case 3: ck_assert_int_eq(symlink("nowhere", path), 0); break;
    case 4: ck_assert_int_eq(symlink(path, path), 0); break;
    case 5: ck_assert_int_eq(mkfifo(path, 0644), 0); break;
    case 6: ck_assert_int_eq(mkdir(path, 0755), 0); break;
    case 7:
        ck_assert_int_eq(mkdir(path, 0755), 0);
        snprintf(p, sizeof p, "%s/sub", path);
        ck_assert_int_eq(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/sub/file", path);
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fclose(f);
        snprintf(p, sizeof p, "%s/sub/fifo", path);
        ck_assert_int_eq(mkfifo(p, 0644), 0);
        snprintf(p, sizeof p, "%s/link", path);
        ck_assert_int_eq(symlink(keep, p), 0);
        break;
    case 8: {
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        ck_assert_uint_lt(strlen(path), sizeof a.sun_path);
        strcpy(a.sun_path, path);
        ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
        close(s);
        break;
    }
    }
}

/* Whatever is found at an entry's path is a damaged entry that the next store replaces:
 * the load says so (without blocking: alarm fails a hang), the store succeeds with no
 * warning, and the entry is then a good one. Nothing a link points to is touched. */
START_TEST(damaged_entries_of_every_kind_are_rebuilt)
{
    alarm(60);
    patc_set_warning_handler(collect_warning, &nwarnings);
    nwarnings = 0;
    char keep[700];
    snprintf(keep, sizeof keep, "%s", subdir("keep"));
    ck_assert(rt_cache_store(keep, KEY, "elsewhere", 9)); /* a good entry in another cache */
    char *kept = rt_cache_entry_path(keep, KEY);
    char *path = rt_cache_entry_path(tmpdir, KEY);
    const char payload[] = "the rebuilt cubin";
    for (int kind = 0; kind < 9; kind++) {
        void *p;
        size_t n;
        make_damage(kind, path, kind == 7 ? keep : kept);
        ck_assert_msg(rt_cache_load(tmpdir, KEY, &p, &n) == RT_CACHE_CORRUPT, "kind %d not damage", kind);
        ck_assert_ptr_null(p);
        ck_assert_msg(rt_cache_store(tmpdir, KEY, payload, sizeof payload), "kind %d: %s", kind, last_warning);
        ck_assert_int_eq(rt_cache_load(tmpdir, KEY, &p, &n), RT_CACHE_HIT);
        ck_assert_uint_eq(n, sizeof payload);
        ck_assert_mem_eq(p, payload, n);
        free(p);
        struct stat st;
        ck_assert_int_eq(lstat(path, &st), 0);
        ck_assert(S_ISREG(st.st_mode));
        ck_assert_int_eq(unlink(path), 0);
        /* what the links pointed to is still there, still good */
        ck_assert_int_eq(rt_cache_load(keep, KEY, &p, &n), RT_CACHE_HIT);
        ck_assert_mem_eq(p, "elsewhere", 9);
        free(p);
    }
    ck_assert_msg(nwarnings == 0, "%s", last_warning);
    free(kept);
    free(path);
    patc_set_warning_handler(NULL, NULL);
    alarm(0);
}
END_TEST

/* An entry that cannot be replaced (here a directory nested deeper than the store
 * removes) costs that kernel its caching: one warning naming the entry, not the cache
 * directory, however often it is met; the compile succeeds and other entries are cached. */
START_TEST(unreplaceable_entry_warns_about_the_entry)
{
    patc_set_warning_handler(collect_warning, &nwarnings);
    nwarnings = 0;
    char *path = rt_cache_entry_path(tmpdir, KEY);
    char deep[4096];
    int len = snprintf(deep, sizeof deep, "%s", path);
    ck_assert_int_eq(mkdir(deep, 0755), 0);
    for (int i = 0; i < 20; i++) {
        len += snprintf(deep + len, sizeof deep - (size_t)len, "/d");
        ck_assert_int_eq(mkdir(deep, 0755), 0);
    }
    for (int i = 0; i < 2; i++) ck_assert(!rt_cache_store(tmpdir, KEY, "x", 1));
    ck_assert_int_eq(nwarnings, 1);
    ck_assert_msg(strstr(last_warning, path) && strstr(last_warning, "cache entry") &&
                      strstr(last_warning, "nested more than 16 deep") && !strstr(last_warning, "unusable"),
                  "%s", last_warning);
    /* no temporary file is left behind by the failed stores */
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while ((e = readdir(d))) ck_assert_msg(strncmp(e->d_name, ".tmp", 4) != 0, "left over %s", e->d_name);
    closedir(d);
    /* through the compiler: find the entry's path, make it the deep directory */
    void *c1, *c2;
    size_t n1, n2;
    char *log;
    RtBuildStats st;
    const char *cdir = subdir("c");
    ck_assert_msg(rt_nvrtc_compile(SRC, "k.cu", 90, cdir, &c1, &n1, &log, &st), "%s", log ? log : "");
    ck_assert_ptr_nonnull(d = opendir(cdir));
    char entry[700] = "";
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') snprintf(entry, sizeof entry, "%s/%s", cdir, e->d_name);
    closedir(d);
    ck_assert_int_eq(unlink(entry), 0);
    snprintf(deep, sizeof deep, "mkdir -p '%s'/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d", entry);
    ck_assert_int_eq(system(deep), 0);
    nwarnings = 0;
    for (int i = 0; i < 2; i++) {
        ck_assert(rt_nvrtc_compile(SRC, "k.cu", 90, cdir, &c2, &n2, &log, &st));
        ck_assert(!st.cache_hit && st.cache_corrupt);
        ck_assert_mem_eq(c1, c2, n1);
        free(c2);
    }
    ck_assert_int_eq(nwarnings, 1);
    ck_assert_msg(strstr(last_warning, entry) && !strstr(last_warning, "unusable"), "%s", last_warning);
    /* another kernel is cached as before */
    ck_assert(rt_nvrtc_compile("extern \"C\" __global__ void k3() {}\n", "k3.cu", 90, cdir, &c2, &n2, &log, &st));
    free(c2);
    ck_assert(rt_nvrtc_compile("extern \"C\" __global__ void k3() {}\n", "k3.cu", 90, cdir, &c2, &n2, &log, &st));
    ck_assert(st.cache_hit);
    free(c2);
    free(c1);
    free(path);
    patc_set_warning_handler(NULL, NULL);
}
END_TEST

/* Touch `name` in the cache directory `dir` (a file, or with is_dir a directory) and
 * set its modification time `age` seconds before `now`. */
static void aged(const char *dir, const char *name, time_t now, long age, bool is_dir)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    if (is_dir) ck_assert_int_eq(mkdir(p, 0755), 0);
    else {
        FILE *f = fopen(p, "w"); /* 0 bytes: what kill -9 between open and write leaves */
        ck_assert_ptr_nonnull(f);
        fclose(f);
    }
    struct timespec t[2] = {{.tv_sec = now - age}, {.tv_sec = now - age}};
    ck_assert_int_eq(utimensat(AT_FDCWD, p, t, 0), 0);
}

static bool exists(const char *dir, const char *name)
{
    char p[700];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &st) == 0;
}

/* Temporary files of stores that never finished are removed when a context opens the
 * cache once they are RT_CACHE_TEMP_MAX_AGE (10 minutes) old; younger ones may be
 * another process's store in progress and stay, as does everything else. patc_create
 * sweeps by the real clock, seconds after `now` on a loaded machine (an ASan build beside
 * the emulator in CI: a file made 599 s old was swept), so the young file there is a
 * minute inside the limit; the boundary itself is checked through rt_cache_sweep's clock. */
START_TEST(stale_temp_files_are_swept)
{
    ck_assert_int_eq(RT_CACHE_TEMP_MAX_AGE, 600); /* docs/usage.md says ten minutes */
    time_t now = time(NULL);
    const char *dir = subdir("sweep");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    aged(dir, ".tmp-0011223344556677-123-abc-1", now, 601, false);
    aged(dir, ".tmp-0011223344556677-124-abc-2", now, 3600 * 24 * 30, false);
    aged(dir, ".tmp-0011223344556677-125-abc-3", now, 540, false);
    aged(dir, ".tmp-0011223344556677-126-abc-4", now, 0, false);
    aged(dir, ".tmp-0011223344556677-127-abc-5", now, 3600, true); /* a directory is not ours */
    aged(dir, "00112233.cubin", now, 3600, false); /* an entry, however old, is not swept */
    /* nor is what only looks a little like a temporary file (a cache directory may be
     * shared with other files) */
    aged(dir, "tmp-not-ours", now, 3600, false);
    aged(dir, ".tmp-notes", now, 3600, false);
    aged(dir, ".tmp-0011223344556677-1-2", now, 3600, false);
    aged(dir, ".tmp-001122334455667-1-2-3", now, 3600, false);
    aged(dir, ".tmp-0011223344556677-1-2-3x", now, 3600, false);
    char link[700];
    snprintf(link, sizeof link, "%s/.tmp-0011223344556677-128-abc-6", dir);
    ck_assert_int_eq(symlink("00112233.cubin", link), 0);
    struct timespec t[2] = {{.tv_sec = now - 3600}, {.tv_sec = now - 3600}};
    ck_assert_int_eq(utimensat(AT_FDCWD, link, t, AT_SYMLINK_NOFOLLOW), 0);
    setenv("PATC_CACHE_DIR", dir, 1);
    patc_ctx *c;
    ck_assert_int_eq(patc_create(&c, 0, PATC_COMPILE_ONLY), PATC_OK);
    ck_assert_str_eq(patc_cache_dir(c), dir);
    patc_destroy(c);
    unsetenv("PATC_CACHE_DIR");
    ck_assert(!exists(dir, ".tmp-0011223344556677-123-abc-1"));
    ck_assert(!exists(dir, ".tmp-0011223344556677-124-abc-2"));
    ck_assert(!exists(dir, ".tmp-0011223344556677-128-abc-6"));
    ck_assert(exists(dir, "00112233.cubin")); /* the link went, not what it named */
    ck_assert(exists(dir, ".tmp-0011223344556677-125-abc-3"));
    ck_assert(exists(dir, ".tmp-0011223344556677-126-abc-4"));
    ck_assert(exists(dir, ".tmp-0011223344556677-127-abc-5"));
    ck_assert(exists(dir, "tmp-not-ours"));
    ck_assert(exists(dir, ".tmp-notes"));
    ck_assert(exists(dir, ".tmp-0011223344556677-1-2"));
    ck_assert(exists(dir, ".tmp-001122334455667-1-2-3"));
    ck_assert(exists(dir, ".tmp-0011223344556677-1-2-3x"));
    /* the boundary, through rt_cache_sweep's clock: a second younger stays, exactly the
     * age goes */
    rt_cache_sweep(dir, now + 59);
    ck_assert(exists(dir, ".tmp-0011223344556677-125-abc-3"));
    rt_cache_sweep(dir, now + 60);
    ck_assert(!exists(dir, ".tmp-0011223344556677-125-abc-3"));
    ck_assert(exists(dir, ".tmp-0011223344556677-126-abc-4"));
    /* a cache directory not made yet is no error */
    rt_cache_sweep(subdir("not-there"), now);
}
END_TEST

/* A store killed in the middle of writing (here by the file size limit's SIGXFSZ, as
 * surely as by kill -9 and at a known byte) leaves its temporary file and no entry; the
 * sweep leaves it while it is young and removes it once it is old. */
START_TEST(killed_store_leaves_a_temp_file_that_is_swept)
{
    const char *dir = subdir("killed");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        static char payload[100000];
        struct rlimit none = {0, 0}, small = {4096, 4096};
        setrlimit(RLIMIT_CORE, &none);
        setrlimit(RLIMIT_FSIZE, &small);
        signal(SIGXFSZ, SIG_DFL);
        rt_cache_store(dir, KEY, payload, sizeof payload);
        _exit(0);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ, "status %d", status);
    char name[300] = "";
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(name, sizeof name, "%s", e->d_name);
            n++;
        }
    closedir(d);
    ck_assert_int_eq(n, 1);
    ck_assert_msg(strncmp(name, ".tmp-0011223344556677-", 22) == 0, "%s", name);
    time_t now = time(NULL);
    rt_cache_sweep(dir, now);
    ck_assert(exists(dir, name));
    rt_cache_sweep(dir, now + RT_CACHE_TEMP_MAX_AGE + 1);
    ck_assert(!exists(dir, name));
}
END_TEST

/* In a child process (NVRTC stays loaded once a process has it): with PATC_NVRTC_PATH
 * naming no library, compiling fails with a message naming the library, what was tried
 * and the fix, through rt_nvrtc_compile and through the C API; emitting CUDA works. */
START_TEST(nvrtc_missing_is_a_clear_error)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setenv("PATC_NVRTC_PATH", "/nonexistent/libnvrtc.so.13", 1);
        void *cubin;
        size_t n;
        char *log = NULL;
        RtBuildStats st;
        if (rt_nvrtc_compile(SRC, "k.cu", 90, NULL, &cubin, &n, &log, &st)) _exit(10);
        if (!log || !strstr(log, "cannot load NVRTC") || !strstr(log, "/nonexistent/libnvrtc.so.13") ||
            !strstr(log, "PATC_NVRTC_PATH"))
            _exit(11);
        free(log);
        patc_ctx *c;
        patc_program *prog = NULL;
        unsetenv("PATC_CACHE_DIR");
        if (patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE) != PATC_OK) _exit(12);
        const char *text = "kernel scale = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 2.0f))))\n";
        patc_status s = patc_program_from_string(c, "k.rise", text, NULL, 0, &prog);
        if (s != PATC_ERR_NVRTC) {
            fprintf(stderr, "status %d: %s\n", s, patc_last_error(c));
            _exit(13);
        }
        if (!strstr(patc_last_error(c), "cannot load NVRTC")) _exit(14);
        patc_destroy(c);
        /* the override is not second-guessed: unset, the usual search finds NVRTC */
        unsetenv("PATC_NVRTC_PATH");
        if (!rt_nvrtc_compile(SRC, "k.cu", 90, NULL, &cubin, &n, &log, &st)) _exit(15);
        free(cubin);
        _exit(0);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status %d", status);
}
END_TEST

/* Whether this process has NVRTC mapped. */
static bool nvrtc_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    bool found = false;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "libnvrtc.so")) found = true;
    if (f) fclose(f);
    return found;
}

/* A cache hit in a fresh process does not load NVRTC (the key names NVRTC's file, found
 * without loading it): a warm compile costs a file read, not the 5-10 ms of mapping
 * 100 MB. The same child then compiles a new source, which loads it. */
START_TEST(cache_hit_does_not_load_nvrtc)
{
    void *c1;
    size_t n1;
    char *log = NULL;
    RtBuildStats st;
    ck_assert_msg(rt_nvrtc_compile(SRC, "k.cu", 90, tmpdir, &c1, &n1, &log, &st), "%s", log ? log : "");
    free(c1);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* a forked child inherits the mapping: start a fresh image of this test instead */
        char self[4096];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0) _exit(20);
        self[len] = 0;
        setenv("PATC_TEST_CACHE_HIT_DIR", tmpdir, 1);
        execl(self, self, "cache-hit-child", (char *)NULL);
        _exit(21);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status %d", status);
}
END_TEST

/* The child of cache_hit_does_not_load_nvrtc: exit 0 when the hit left NVRTC unmapped
 * and a miss then mapped it. */
static int cache_hit_child(void)
{
    const char *dir = getenv("PATC_TEST_CACHE_HIT_DIR");
    void *c;
    size_t n;
    char *log = NULL;
    RtBuildStats st;
    if (!dir || nvrtc_mapped()) return 1;
    if (!rt_nvrtc_compile(SRC, "k.cu", 90, dir, &c, &n, &log, &st) || !st.cache_hit) return 2;
    free(c);
    if (nvrtc_mapped()) return 3;
    if (!rt_nvrtc_compile("extern \"C\" __global__ void k2() {}\n", "k2.cu", 90, dir, &c, &n, &log, &st) ||
        st.cache_hit)
        return 4;
    free(c);
    return nvrtc_mapped() ? 0 : 5;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "cache-hit-child") == 0) return cache_hit_child();
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("cache");
    tcase_add_checked_fixture(tc, tmpdir_setup, tmpdir_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sha256_known_answers);
    tcase_add_test(tc, key_changes_with_every_field);
    tcase_add_test(tc, default_dir_precedence);
    tcase_add_test(tc, miss_then_hit);
    tcase_add_test(tc, corrupt_entries_are_detected_and_rebuilt);
    tcase_add_test(tc, two_writers_and_a_reader);
    tcase_add_test(tc, nvrtc_through_the_cache);
    tcase_add_test(tc, nvrtc_error_log);
    tcase_add_test(tc, unusable_cache_dir_warns_once);
    tcase_add_test(tc, fifo_or_directory_entry_is_rebuilt);
    tcase_add_test(tc, damaged_entries_of_every_kind_are_rebuilt);
    tcase_add_test(tc, unreplaceable_entry_warns_about_the_entry);
    tcase_add_test(tc, stale_temp_files_are_swept);
    tcase_add_test(tc, killed_store_leaves_a_temp_file_that_is_swept);
    tcase_add_test(tc, nvrtc_missing_is_a_clear_error);
    tcase_add_test(tc, cache_hit_does_not_load_nvrtc);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists each test */
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
