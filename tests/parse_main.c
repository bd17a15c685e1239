/* parse_main: parse one file and print its diagnostics (or, with -p, the program).
 * A stand-in for the patc CLI in tests of the front end: the diagnostics are the same. */
#include "lang.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    bool print = argc > 1 && strcmp(argv[1], "-p") == 0;
    if (argc != 2 + print) {
        fprintf(stderr, "usage: parse_main [-p] FILE\n");
        return 2;
    }
    Arena *a = arena_new();
    Diag d;
    diag_init(&d, stderr, NULL);
    Program prog = {0};
    d.jump_armed = true;
    if (setjmp(d.on_error)) {
        arena_free(a);
        return 1;
    }
    const char *incs[] = {"patterns"};
    LangOptions opt = {incs, 1};
    lang_parse_file(a, &d, &opt, &prog, argv[1 + print]);
    if (print) {
        StrBuf b = {0};
        ast_print_program(&b, &prog);
        fputs(b.s ? b.s : "", stdout);
        sb_free(&b);
    }
    arena_free(a);
    return 0;
}
