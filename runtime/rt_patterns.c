/* rt_patterns.c: where the front end finds patc's own patterns (patterns/NAME.rise) for
 * an `import "scan.rise"` that is neither next to the importing file nor in a -I
 * directory (lang/parse.c, on_import, gives the order).
 *
 * First the installed copies, <prefix>/<datadir>/patc/patterns: real files, so that a
 * diagnostic inside a pattern names a file the user can open. That directory is found
 * from where the code that runs now was loaded from, not from the install prefix
 * baked in at build time: an installed tree that is moved (`cmake --install --prefix
 * X`, a package unpacked elsewhere) still finds its own patterns, and a build tree,
 * where no share directory is beside the binaries, never picks up an older install's.
 * libpatrt.so is in <prefix>/<libdir>; the patc command, or a program linked with
 * libpatrt.a, is an executable in <prefix>/<bindir>. CMake gives the relative path from
 * each to the patterns (PATC_LIB_TO_PATTERNS, PATC_BIN_TO_PATTERNS).
 *
 * Then the copies built into the library (rt_builtin_patterns, generated at build time
 * from patterns/NAME.rise by cmake/embed_patterns.cmake into the build directory's
 * rt_patterns_text.c), so that a library without its share directory, a program
 * linked statically and run anywhere, and the build tree all have the patterns.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "rt_internal.h"

#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATC_LIB_TO_PATTERNS
#define PATC_LIB_TO_PATTERNS "../share/patc/patterns"
#endif
#ifndef PATC_BIN_TO_PATTERNS
#define PATC_BIN_TO_PATTERNS "../share/patc/patterns"
#endif

/* An object of this file: its address says which loaded file holds libpatrt's code. */
static const char anchor = 0;

static pthread_once_t located = PTHREAD_ONCE_INIT;
static char patterns_dir[4096]; /* "" when there is none */

/* The loaded file whose segments hold `anchor`. */
typedef struct Owner {
    uintptr_t addr;
    bool found;
    bool main_program;     /* dl_iterate_phdr names the executable "" */
    char name[4096];
} Owner;

/* dl_iterate_phdr's callback: stops at the object one of whose loaded segments holds
 * o->addr. */
static int find_owner(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    Owner *o = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
        if (ph->p_type != PT_LOAD || o->addr < lo || o->addr - lo >= (uintptr_t)ph->p_memsz) continue;
        o->found = true;
        o->main_program = !info->dlpi_name || !info->dlpi_name[0];
        snprintf(o->name, sizeof o->name, "%s", o->main_program ? "" : info->dlpi_name);
        return 1;
    }
    return 0;
}

/* Rule: the patterns directory is PATC_LIB_TO_PATTERNS from the directory of the
 * shared library that holds this code, or PATC_BIN_TO_PATTERNS from the executable's
 * when the code is linked into it (symbolic links resolved: a link to bin/patc
 * elsewhere still finds the real tree), and only when it is a directory. Run once. */
static void locate(void)
{
    Owner o = {.addr = (uintptr_t)&anchor};
    dl_iterate_phdr(find_owner, &o);
    if (!o.found) return;
    char *obj = realpath(o.main_program ? "/proc/self/exe" : o.name, NULL);
    if (!obj) return;
    char *slash = strrchr(obj, '/');
    if (slash) *slash = '\0';
    char cand[sizeof patterns_dir];
    int n = snprintf(cand, sizeof cand, "%s/%s", slash ? obj : ".",
                     o.main_program ? PATC_BIN_TO_PATTERNS : PATC_LIB_TO_PATTERNS);
    free(obj);
    if (n < 0 || (size_t)n >= sizeof cand) return;
    char *dir = realpath(cand, NULL); /* "/opt/patc/share/...", not ".../lib/../share/..." */
    struct stat sb;
    if (dir && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) && strlen(dir) < sizeof patterns_dir)
        memcpy(patterns_dir, dir, strlen(dir) + 1);
    free(dir);
}

const char *rt_patterns_dir(void)
{
    pthread_once(&located, locate);
    return patterns_dir[0] ? patterns_dir : NULL;
}

void rt_patterns_options(LangOptions *lang)
{
    lang->pattern_dir = rt_patterns_dir();
    lang->builtins = rt_builtin_patterns;
    lang->nbuiltins = rt_nbuiltin_patterns;
}
