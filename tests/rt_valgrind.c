/* rt_valgrind.c: a compile + cache round trip through the public API, for
 *     valgrind --leak-check=full --error-exitcode=1 ./rt_valgrind [program.rise]
 * (ctest runs it so when valgrind is installed). Compiles a program twice (a cache
 * miss, then a hit), a bad program, queries a kernel, and tears everything down. On the
 * way, the paths of files that are not regular: a stale temporary file swept when the
 * context opens the cache, a cache entry turned into a directory and rebuilt, sources,
 * imports and tuning files that are FIFOs, directories or loops of links. */
#include "../runtime/patc.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *SCALE =
    "kernel scale = nFun(n =>\n"
    "  fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 2.0f))))\n";

/* `dir`/`name`, in one of two buffers */
static const char *in(const char *dir, const char *name)
{
    static char p[2][512];
    static int i;
    i ^= 1;
    snprintf(p[i], sizeof p[i], "%s/%s", dir, name);
    return p[i];
}

/* The cache's one entry turned into a directory holding a file: the next compile
 * rebuilds it (cache_corrupt), the one after hits. Sources, an import and a tuning file
 * that are not regular files fail with PATC_ERR_IO or PATC_ERR_COMPILE. 0 when all held. */
static int special_files(patc_ctx *c, const char *dir)
{
    int bad = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    char entry[512] = "";
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".cubin")) snprintf(entry, sizeof entry, "%s", in(dir, e->d_name));
    if (d) closedir(d);
    if (!entry[0] || unlink(entry) != 0 || mkdir(entry, 0755) != 0 || mkdir(in(entry, "inside"), 0755) != 0) return 1;
    for (int i = 0; i < 2; i++) {
        patc_program *p;
        patc_compile_stats st;
        if (patc_program_from_string(c, "scale.rise", SCALE, NULL, 0, &p) != PATC_OK) return 1;
        patc_get_compile_stats(c, &st);
        printf("entry made a directory, compile %d: cache %s%s\n", i, st.cache_hit ? "hit" : "miss",
               st.cache_corrupt ? ", damaged entry rebuilt" : "");
        if (st.cache_hit != i || st.cache_corrupt != !i) bad = 1;
        patc_program_free(p);
    }
    if (mkfifo(in(dir, "fifo"), 0600) != 0 || symlink("loop", in(dir, "loop")) != 0) return 1;
    patc_program *p;
    const char *refused[] = {"fifo", "loop", "inside"};
    for (int i = 0; i < 3; i++)
        if (patc_program_from_file(c, in(i == 2 ? entry : dir, refused[i]), NULL, 0, &p) != PATC_ERR_IO) bad = 1;
    if (patc_program_from_string(c, in(dir, "m.rise"), "import \"loop\"\n", NULL, 0, &p) != PATC_ERR_COMPILE) bad = 1;
    patc_tuning_line t;
    int found;
    if (patc_tuning_lookup(c, in(dir, "fifo"), "k", 1, &t, &found) != PATC_ERR_IO ||
        patc_tuning_lookup(c, dir, "k", 1, &t, &found) != PATC_ERR_IO)
        bad = 1;
    return bad;
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/patc-vg-XXXXXX";
    if (!mkdtemp(dir)) return 2;
    setenv("PATC_CACHE_DIR", dir, 1);
    int bad = 0;
    /* a store killed an hour ago left this; opening the cache removes it */
    int fd = open(in(dir, ".tmp-0123456789abcdef-42-1f-1"), O_WRONLY | O_CREAT, 0644);
    struct timespec old[2] = {{.tv_sec = time(NULL) - 3600}, {.tv_sec = time(NULL) - 3600}};
    if (fd < 0 || futimens(fd, old) != 0 || close(fd) != 0) return 2;
    patc_ctx *c;
    if (patc_create(&c, 0, 0) != PATC_OK) return 2;
    if (access(in(dir, ".tmp-0123456789abcdef-42-1f-1"), F_OK) == 0) bad = 1;
    for (int i = 0; i < 2; i++) {
        patc_program *p;
        patc_status s = argc > 1 ? patc_program_from_file(c, argv[1], NULL, 0, &p)
                                 : patc_program_from_string(c, "scale.rise", SCALE, NULL, 0, &p);
        if (s != PATC_OK) {
            fprintf(stderr, "compile: %s\n", patc_last_error(c));
            bad = 1;
            break;
        }
        patc_compile_stats st;
        patc_get_compile_stats(c, &st);
        printf("compile %d: cache %s, %.1f ms\n", i, st.cache_hit ? "hit" : "miss", st.compile_ms);
        if (st.cache_hit != i) bad = 1;
        patc_kernel *k;
        long long n = 1000, count;
        if (patc_get_kernel(p, patc_program_kernel_name(p, 0), &k) != PATC_OK ||
            patc_kernel_output_info(k, &n, NULL, &count, NULL) != PATC_OK)
            bad = 1;
        if (i == 0) patc_program_free(p); /* the second is left to patc_destroy */
    }
    if (argc == 1 && special_files(c, dir)) bad = 1;
    patc_program *p;
    if (patc_program_from_string(c, "bad.rise", "kernel bad = undefined_name\n", NULL, 0, &p) != PATC_ERR_COMPILE)
        bad = 1;
    patc_buffer *b;
    if (patc_buffer_alloc(c, 64, &b) == PATC_OK) patc_buffer_free(b);
    patc_destroy(c);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) bad = 1;
    printf("%s\n", bad ? "FAILED" : "ok");
    return bad;
}
