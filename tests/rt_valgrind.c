/* rt_valgrind.c: a compile + cache round trip through the public API, for
 *     valgrind --leak-check=full --error-exitcode=1 ./rt_valgrind [program.rise]
 * (ctest runs it so when valgrind is installed). Compiles a program twice (a cache
 * miss, then a hit), a bad program, queries a kernel, and tears everything down. */
#include "../runtime/patc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *SCALE =
    "kernel scale = nFun(n =>\n"
    "  fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 2.0f))))\n";

int main(int argc, char **argv)
{
    char dir[] = "/tmp/patc-vg-XXXXXX";
    if (!mkdtemp(dir)) return 2;
    setenv("PATC_CACHE_DIR", dir, 1);
    int bad = 0;
    patc_ctx *c;
    if (patc_create(&c, 0, 0) != PATC_OK) return 2;
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
