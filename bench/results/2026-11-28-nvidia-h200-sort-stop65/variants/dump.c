/* Prints the CUDA text libpatrt generates for one kernel of the f32 key sorter (the u32
 * one with U set; K: its name, MB: the min_blocks the sorter compiles it with),
 * compile-only, no GPU needed. */
#include "rt_sort.c" /* built with -I runtime: its statics (the sorter's fields) are needed */
int main(void) {
    patc_ctx *c; patc_sorter *s; patc_program *p = NULL;
    if (patc_create(&c, 0, PATC_COMPILE_ONLY) != PATC_OK) return 1;
    if (patc_sorter_create(c, getenv("U") ? PATC_U32 : PATC_F32, &s) != PATC_OK) { fprintf(stderr, "%s\n", patc_last_error(c)); return 2; }
    char name[24];
    for (int i = 0; i < s->nsteps; i++) fprintf(stderr, "step %d: %s from %lld: %d x %d minb %d\n", i, step_name(name, i), s->step_from[i], s->step[i].nt, s->step[i].ipt, s->step[i].minb);
    patc_compile_options o = {.kernel = getenv("K"), .bins_in_result = 1, .min_blocks = atoi(getenv("MB"))};
    if (rt_program_from_text(c, "<patc_sorter>", s->source, NULL, 0, &o, &p) != PATC_OK) { fprintf(stderr, "%s\n", patc_last_error(c)); return 3; }
    char *t = rt_program_build_source(p, 0);
    fputs(t, stdout);
    return 0;
}
