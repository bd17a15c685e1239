/* rt_algo.c: the ready-made device algorithms (patc_algo_*, patc_reduce, patc_*_scan).
 *
 * An algorithm (reduce, scan, filter, partition, stable partition: its key) is applied
 * to an element type and an operator or predicate. What it runs is declared beside the
 * patterns, in patterns/algorithms.tune (built into libpatrt with them): its kernel
 * templates (each one kernel of the patterns with the element type, the operator or
 * predicate and the call's scalars to fill in, and its shape nats left for -D), the
 * shapes the tuner tries, and tables of settings per device. This file knows the
 * placeholders of the templates and nothing of the patterns' parameters. Which kernel
 * and which -D values run at a size n is a tuning line (docs/tuning.md's format): the
 * user's file first, then the device's table. Each (kernel, -D values) is compiled
 * once per algorithm, on the first call that needs it.
 */
#include "patc.h"
#include "rt_internal.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_VARIANTS = 64, NUM_TYPES = PATC_U64 + 1, NUM_OPS = PATC_OP_MAX + 1 };

/* A kernel template (a `kernel` line of algorithms.tune): the kernel KEY_NAME of the
 * program, importing `import`, with the shape nats `nats` after n (comma-separated) and
 * the body `text`, whose placeholders fill() fills; g_elems: -1 for no grid nat g, 0
 * when g's blocks read the line's -D value of g_def in elements a trip, else that many
 * (with g_bps blocks per SM; 0: the line's BLOCKS_PER_SM). */
typedef struct Template {
    char name[32], import[64], nats[128], g_def[64];
    char *text;
    long long g_elems;
    int g_bps;
} Template;

enum { MAX_TEMPLATES = 8 };

typedef struct Variant {
    char key[256]; /* template, -D values, evict_first, cubin or not */
    patc_program *prog;
    patc_kernel *k;
    int n_nat, g_nat; /* positions of n and g among the kernel's nats (g: -1 if none) */
    const Template *tpl;
} Variant;

struct patc_algo {
    patc_ctx *ctx;
    patc_algo_spec spec;
    char key[40];          /* the tuning key without its suffix: "scan", "filter", ... */
    Template tpl[MAX_TEMPLATES]; /* the key's kernels, in algorithms.tune's order */
    int ntpl;
    char table[32];        /* the name of the device's table */
    char *source;          /* the generated program */
    patc_tuning_line *user, *builtin;
    int nuser, nbuiltin;
    Variant var[MAX_VARIANTS];
    int nvar;
    struct patc_buffer raw[3]; /* patc_algo_enqueue_ptr's in, out and count, never on a list */
    struct {                /* the last device call's line and variant, by n and alignment: a
                               repeated call skips line_for's and variant_for's keys (about
                               0.5 us of formatting; the lines are fixed at creation, and
                               variants are never freed before the algorithm) */
        bool valid, aligned;
        long long n;
        const patc_tuning_line *l;
        Variant *v;
    } last;
    patc_algo *prev, *next; /* the context's list (patc_destroy frees what is left) */
};

static const char *const type_names[NUM_TYPES] = {"f32", "f64", "i32", "u32", "i64", "u64"};

/* The neutral element of a built-in operator as a .rise expression of the type. */
static const char *neutral(patc_op op, patc_type t)
{
    static const char *const sum[NUM_TYPES] = {"0.0f", "0.0", "0", "0u", "i64(0)", "u64(0)"};
    static const char *const largest[NUM_TYPES] = {
        "inff", "inf", "2147483647", "4294967295u",
        "(i64(1073741824) * i64(1073741824) * i64(4) - i64(1) + i64(1073741824) * i64(1073741824) * i64(4))",
        "(u64(0) - u64(1))"};
    static const char *const lowest[NUM_TYPES] = {
        "(-inff)", "(-inf)", "(0 - 2147483647 - 1)", "0u",
        "(i64(0) - i64(1073741824) * i64(1073741824) * i64(4) - i64(1073741824) * i64(1073741824) * i64(4))", "u64(0)"};
    switch (op) {
    case PATC_OP_SUM: return sum[t];
    case PATC_OP_MIN: return largest[t];
    case PATC_OP_MAX: return lowest[t];
    case PATC_OP_LAMBDA: return NULL;
    }
    return NULL;
}

static const char *op_text(const patc_algo_spec *s)
{
    switch (s->op) {
    case PATC_OP_SUM: return "add";
    case PATC_OP_MIN: return "min";
    case PATC_OP_MAX: return "max";
    case PATC_OP_LAMBDA: return s->lambda;
    }
    return NULL;
}

/* Append the template text with its placeholders filled (see Template). */
static void fill(StrBuf *b, const char *t, const patc_algo_spec *s)
{
    while (*t) {
        if (*t != '$') {
            sb_putc(b, *t++);
            continue;
        }
        if (strncmp(t, "$T", 2) == 0 && (t[2] < 'A' || t[2] > 'Z')) {
            sb_puts(b, type_names[s->type]);
            t += 2;
        } else if (strncmp(t, "$OP", 3) == 0) {
            sb_printf(b, "(%s)", op_text(s));
            t += 3;
        } else if (strncmp(t, "$INIT", 5) == 0) {
            sb_printf(b, "(%s)", s->op == PATC_OP_LAMBDA ? s->init : neutral(s->op, s->type));
            t += 5;
        } else if (strncmp(t, "$P", 2) == 0) {
            sb_printf(b, "(%s)", s->lambda);
            t += 2;
        } else if (strncmp(t, "$VW", 3) == 0) {
            sb_printf(b, "%zu", 16 / patc_type_size(s->type));
            t += 3;
        } else if (strncmp(t, "$EXCL", 5) == 0) {
            if (s->algorithm == PATC_ALGO_EXCLUSIVE_SCAN) sb_puts(b, "Excl");
            t += 5;
        } else if (strncmp(t, "$S(", 3) == 0) {
            for (int i = 0; i < s->nscalars; i++)
                sb_printf(b, "fun(%s)(%s => ", type_names[s->scalar_types[i]], s->scalar_names[i]);
            t += 3;
        } else if (strncmp(t, "$S)", 3) == 0) {
            for (int i = 0; i < s->nscalars; i++) sb_putc(b, ')');
            t += 3;
        } else {
            sb_putc(b, *t++);
        }
    }
}

/* A name the generated program can bind: a .rise identifier that is not a keyword. */
static bool good_name(const char *s)
{
    static const char *const kw[] = {"def", "kernel", "import", "fun", "nFun", "true", "false",
                                     "f32", "f64", "i32", "u32", "i64", "u64", "bool"};
    if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (strcmp(s, kw[i]) == 0) return false;
    return strlen(s) < 64;
}

static bool is_select(patc_algorithm a)
{
    return a == PATC_ALGO_FILTER || a == PATC_ALGO_PARTITION || a == PATC_ALGO_PARTITION_STABLE;
}

/* The spec's checks: each failure names the field. */
static patc_status check_spec(patc_ctx *c, const patc_algo_spec *s)
{
    if ((unsigned)s->algorithm > PATC_ALGO_PARTITION_STABLE)
        return rt_fail(c, PATC_ERR_INVALID, "patc_algo_create: unknown algorithm %d", (int)s->algorithm);
    if ((unsigned)s->type >= NUM_TYPES)
        return rt_fail(c, PATC_ERR_INVALID, "patc_algo_create: the element type must be f32, f64, i32, u32, i64 or u64");
    if (is_select(s->algorithm)) {
        if (!s->lambda || !*s->lambda)
            return rt_fail(c, PATC_ERR_INVALID, "patc_algo_create: a filter or partition needs a predicate (spec.lambda, "
                           "e.g. \"fun(x => x > t)\")");
    } else if ((unsigned)s->op > PATC_OP_LAMBDA) {
        return rt_fail(c, PATC_ERR_INVALID, "patc_algo_create: unknown operator %d", (int)s->op);
    } else if (s->op == PATC_OP_LAMBDA && (!s->lambda || !*s->lambda || !s->init || !*s->init)) {
        return rt_fail(c, PATC_ERR_INVALID, "patc_algo_create: PATC_OP_LAMBDA needs spec.lambda (the operator, e.g. "
                       "\"fun(a => fun(b => a + b))\") and spec.init (its neutral element)");
    }
    if (s->nscalars < 0 || s->nscalars > PATC_ALGO_MAX_SCALARS)
        return rt_fail(c, PATC_ERR_INVALID, "patc_algo_create: nscalars must be 0 to %d", PATC_ALGO_MAX_SCALARS);
    for (int i = 0; i < s->nscalars; i++) {
        if (!good_name(s->scalar_names[i]))
            return rt_fail(c, PATC_ERR_INVALID, "patc_algo_create: scalar %d's name \"%s\" is not a name the program can "
                           "bind (letters, digits and _, not a keyword)",
                           i, s->scalar_names[i] ? s->scalar_names[i] : "(null)");
        if ((unsigned)s->scalar_types[i] > PATC_BOOL)
            return rt_fail(c, PATC_ERR_INVALID, "patc_algo_create: scalar %s has an unknown type", s->scalar_names[i]);
        for (int j = 0; j < i; j++)
            if (strcmp(s->scalar_names[i], s->scalar_names[j]) == 0)
                return rt_fail(c, PATC_ERR_INVALID, "patc_algo_create: two scalars are named %s", s->scalar_names[i]);
    }
    return PATC_OK;
}

/* The program: each kernel of the key, after the imports its kernels name. */
static char *make_source(const patc_algo *a)
{
    StrBuf b = {0};
    sb_puts(&b, "-- generated by libpatrt for patc_algo_create\n");
    for (int i = 0; i < a->ntpl; i++) {
        bool seen = false;
        for (int j = 0; j < i; j++) seen = seen || strcmp(a->tpl[j].import, a->tpl[i].import) == 0;
        if (!seen) sb_printf(&b, "import \"%s\"\n", a->tpl[i].import);
    }
    for (int i = 0; i < a->ntpl; i++) {
        const Template *t = &a->tpl[i];
        sb_printf(&b, "kernel %s_%s = nFun((n, %s) =>\n  ", a->key, t->name, t->nats);
        fill(&b, t->text, &a->spec);
        sb_puts(&b, ")\n");
    }
    return sb_take(&b); /* NULL when memory ran out */
}

static const Template *find_template(const patc_algo *a, const char *name)
{
    for (int i = 0; i < a->ntpl; i++)
        if (strcmp(a->tpl[i].name, name) == 0) return &a->tpl[i];
    return NULL;
}

/* ---------------------------------------------------------------- algorithms.tune */

const char *rt_algo_declarations(void)
{
    for (int i = 0; i < rt_nbuiltin_data; i++)
        if (strcmp(rt_builtin_data[i].name, "algorithms.tune") == 0) return rt_builtin_data[i].text;
    return NULL;
}

/* A `table` line's conditions hold for the context's device: each word is sm_XY (its
 * compute capability, 10*major+minor = XY) or memory>=G (at least G GiB; any_memory:
 * taken to hold); none: any. */
static bool table_matches(patc_ctx *c, char *conds, bool any_memory, bool *bad)
{
    char *save = NULL;
    for (char *w = strtok_r(conds, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        long v;
        char *end;
        if (strncmp(w, "sm_", 3) == 0) {
            v = strtol(w + 3, &end, 10);
            if (*end || end == w + 3) return *bad = true, false;
            if (v != c->arch) return false;
        } else if (strncmp(w, "memory>=", 8) == 0) {
            v = strtol(w + 8, &end, 10);
            if (*end || end == w + 8) return *bad = true, false;
            if (!any_memory && rt_ctx_total_mem(c) < ((size_t)v << 30)) return false;
        } else {
            return *bad = true, false;
        }
    }
    return true;
}

/* kernel KEY NAME IMPORT NATS GRID TEXT: the template, if KEY is the algorithm's */
static bool parse_kernel(patc_algo *a, char *line, bool *bad)
{
    char key[40], name[32], import[64], nats[128], grid[64];
    int used = 0;
    if (sscanf(line, "kernel %39s %31s %63s %127s %63s %n", key, name, import, nats, grid, &used) != 5 || !used)
        return *bad = true, false;
    if (strcmp(key, a->key) != 0) return false;
    if (a->ntpl == MAX_TEMPLATES) return *bad = true, false;
    Template *t = &a->tpl[a->ntpl];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->import, sizeof t->import, "%s", import);
    /* "g,nt,ipt" -> "g, nt, ipt", for nFun((n, g, nt, ipt) => */
    size_t o = 0;
    for (char *p = nats; *p && o + 3 < sizeof t->nats; p++) {
        t->nats[o++] = *p;
        if (*p == ',') t->nats[o++] = ' ';
    }
    t->nats[o] = 0;
    t->g_elems = -1;
    if (strcmp(grid, "-") != 0) {
        char *end;
        if (strncmp(grid, "g:", 2) != 0) return *bad = true, false;
        long long cnt = strtoll(grid + 2, &end, 10);
        if (end == grid + 2) {
            t->g_elems = 0;
            snprintf(t->g_def, sizeof t->g_def, "%s", grid + 2);
        } else if (*end == ':' && cnt > 0) {
            t->g_elems = cnt;
            t->g_bps = (int)strtol(end + 1, &end, 10);
            if (*end || t->g_bps < 1) return *bad = true, false;
        } else {
            return *bad = true, false;
        }
    }
    t->text = rt_strdup(line + used);
    if (!t->text) return *bad = true, false;
    a->ntpl++;
    return true;
}

/* Read algorithms.tune for the algorithm: its key's kernels into a->tpl, and the lines
 * of the first table whose conditions the device meets into *table (malloc'ed). */
static patc_status read_declarations(patc_algo *a, char **table)
{
    patc_ctx *c = a->ctx;
    const char *text = rt_algo_declarations();
    *table = NULL;
    if (!text) return rt_fail(c, PATC_ERR_INVALID, "libpatrt was built without patterns/algorithms.tune");
    char *copy = rt_strdup(text);
    if (!copy) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    StrBuf tb = {0};
    int state = 0; /* 0: before the device's table, 1: in it, 2: after it */
    int lineno = 0;
    bool bad = false;
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line && !bad; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (strncmp(line, "kernel ", 7) == 0) {
            parse_kernel(a, line, &bad);
        } else if (strncmp(line, "table ", 6) == 0) {
            char name[32];
            int used = 0;
            if (sscanf(line, "table %31s %n", name, &used) != 1) bad = true;
            else if (state == 0 && table_matches(c, line + used, false, &bad)) {
                state = 1;
                snprintf(a->table, sizeof a->table, "%s", name);
            } else if (state == 1) {
                state = 2;
            }
        } else if (state == 1) {
            sb_printf(&tb, "%s\n", line);
        }
    }
    free(copy);
    if (tb.oom) {
        sb_free(&tb);
        return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory while reading the built-in algorithms.tune");
    }
    if (bad || a->ntpl == 0 || !tb.s) {
        sb_free(&tb);
        return rt_fail(c, PATC_ERR_INVALID, "the built-in algorithms.tune is malformed (near line %d, or no %s for %s)",
                       lineno, a->ntpl ? "table" : "kernel", a->key);
    }
    *table = sb_take(&tb);
    return *table ? PATC_OK : rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory while reading the built-in algorithms.tune");
}

/* The key of a size's line: the family's, + "64" for 8-byte types, + "_unaligned"
 * when a buffer is not 16-byte aligned. */
static void line_key(const patc_algo *a, bool aligned, char key[64])
{
    snprintf(key, 64, "%s%s%s", a->key, patc_type_size(a->spec.type) == 8 ? "64" : "", aligned ? "" : "_unaligned");
}

/* The line for n: the user's lines for the key first, then the built-in ones. */
static const patc_tuning_line *line_for(const patc_algo *a, long long n, bool aligned, bool *user)
{
    char key[64];
    line_key(a, aligned, key);
    const patc_tuning_line *l = rt_tuning_find(a->user, a->nuser, key, n);
    *user = l != NULL;
    return l ? l : rt_tuning_find(a->builtin, a->nbuiltin, key, n);
}

static void variant_free(Variant *v) { patc_program_free(v->prog); }

/* The compiled kernel of a line (compiled once per algorithm; cubin false: for the
 * interpreter only, NVRTC never called). */
static patc_status variant_for(patc_algo *a, const patc_tuning_line *l, bool cubin, Variant **out)
{
    patc_ctx *c = a->ctx;
    const char *tname = l->use[0] ? l->use : a->tpl[0].name;
    const Template *t = find_template(a, tname);
    if (!t) return rt_fail(c, PATC_ERR_INVALID, "tuning line for %s: kernel=%s is not one of this algorithm's kernels", l->kernel, tname);
    char key[256];
    int len = snprintf(key, sizeof key, "%s%s%s", tname, l->evict_first ? " evict_first" : "", cubin ? "" : " cpu");
    for (int i = 0; i < l->ndefs && len < (int)sizeof key; i++)
        len += snprintf(key + len, sizeof key - (size_t)len, " %s=%lld", l->names[i], l->values[i]);
    for (int i = 0; i < a->nvar; i++)
        if (strcmp(a->var[i].key, key) == 0) {
            *out = &a->var[i];
            return PATC_OK;
        }
    /* no eviction: a variant's launches may still be running on the device, and freeing
     * its module under them would be a use-after-free there */
    if (a->nvar == MAX_VARIANTS)
        return rt_fail(c, PATC_ERR_INVALID, "patc_algo: more than %d distinct settings for one algorithm", MAX_VARIANTS);
    Variant *v = &a->var[a->nvar];
    memset(v, 0, sizeof *v);
    snprintf(v->key, sizeof v->key, "%s", key);
    v->tpl = t;
    patc_define defs[PATC_TUNING_MAX_DEFS];
    for (int i = 0; i < l->ndefs; i++) defs[i] = (patc_define){l->names[i], l->values[i]};
    char kname[200]; /* the key names the kernel in profiles: scan_tile, filter_pipe, ... */
    snprintf(kname, sizeof kname, "%s_%s", a->key, tname);
    patc_compile_options o = {.kernel = kname, .no_cubin = !cubin, .evict_first = l->evict_first};
    patc_status s = rt_program_from_text(c, "<patc_algo>", a->source, defs, l->ndefs, &o, &v->prog);
    if (s == PATC_OK) s = patc_get_kernel(v->prog, kname, &v->k);
    if (s != PATC_OK) {
        patc_program_free(v->prog);
        return s;
    }
    v->n_nat = v->g_nat = -1;
    for (int i = 0; i < patc_kernel_num_nats(v->k); i++) {
        const char *nm = patc_kernel_nat_name(v->k, i);
        if (strcmp(nm, "n") == 0) v->n_nat = i;
        else if (strcmp(nm, "g") == 0 && t->g_elems >= 0) v->g_nat = i;
        else {
            patc_program_free(v->prog);
            return rt_fail(c, PATC_ERR_INVALID, "tuning line for %s: kernel %s still has the nat %s: give it a value", l->kernel, tname, nm);
        }
    }
    a->nvar++;
    *out = v;
    return PATC_OK;
}

/* The lines of every table that a device of the context's architecture can take,
 * whatever its memory (an H100's and an H200's for sm_90), malloc'ed. */
static patc_status arch_tables(patc_algo *a, char **out)
{
    char *copy = rt_strdup(rt_algo_declarations());
    if (!copy) return rt_fail(a->ctx, PATC_ERR_NO_MEMORY, "out of memory");
    StrBuf tb = {0};
    bool in = false, bad = false;
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char name[32];
        int used = 0;
        if (strncmp(line, "table ", 6) == 0 && sscanf(line, "table %31s %n", name, &used) == 1)
            in = table_matches(a->ctx, line + used, true, &bad);
        else if (in && strncmp(line, "kernel ", 7) != 0 && strncmp(line, "space ", 6) != 0)
            sb_printf(&tb, "%s\n", line);
    }
    free(copy);
    *out = sb_take(&tb); /* NULL when memory ran out */
    return *out ? PATC_OK : rt_fail(a->ctx, PATC_ERR_NO_MEMORY, "out of memory");
}

/* Rule: the variants a call of `a` can run with the built-in tables alone, on any
 * device of the context's architecture, are those of the lines of its two keys
 * (aligned and unaligned buffers, for its element width) in every table such a device
 * can take. Each line's is made here as variant_for makes it for a call, but without a
 * cubin (the caller builds rt_program_build_source's text itself: the embedded cubins,
 * rt_embed_gen.c), and handed to fn before the next is made (a variant may be evicted
 * later). Lines that share a variant get the same program. */
patc_status rt_algo_builtin_lines(patc_algo *a, RtAlgoLineFn fn, void *user)
{
    char *text;
    patc_tuning_line *lines = NULL;
    int nlines = 0;
    patc_status s = arch_tables(a, &text);
    if (s == PATC_OK) s = rt_tuning_parse(a->ctx, "<built-in algorithms.tune>", text, &lines, &nlines);
    free(text);
    for (int k = 0; s == PATC_OK && k < 2; k++) {
        char key[64];
        line_key(a, k == 0, key);
        for (int j = 0; s == PATC_OK && j < nlines; j++) {
            const patc_tuning_line *l = &lines[j];
            if (strcmp(l->kernel, key) != 0) continue;
            Variant *v;
            s = variant_for(a, l, false, &v);
            if (s == PATC_OK) s = fn(a, l, v->k, user);
        }
    }
    free(lines);
    return s;
}

static long long def_value(const patc_tuning_line *l, const char *name)
{
    for (int i = 0; name && i < l->ndefs; i++)
        if (strcmp(l->names[i], name) == 0) return l->values[i];
    return 0;
}

/* n, and g = min(blocks per SM * SMs, ceil(n / elements a block reads a trip)), at
 * least 1: enough blocks to fill the device, none without a chunk of its own. */
static void nats_for(const patc_algo *a, const Variant *v, const patc_tuning_line *l, long long n, long long nats[2])
{
    nats[v->n_nat] = n;
    if (v->g_nat < 0) return;
    long long per = v->tpl->g_elems ? v->tpl->g_elems : def_value(l, v->tpl->g_def);
    int sms = rt_ctx_sm_count(a->ctx);
    long long g = (long long)(v->tpl->g_bps ? v->tpl->g_bps : l->blocks_per_sm) * (sms > 0 ? sms : 1);
    if (per > 0 && (n + per - 1) / per < g) g = (n + per - 1) / per;
    nats[v->g_nat] = g < 1 ? 1 : g;
}

/* Type-check each template that some line of the key's tables uses, with the first
 * such line's -D values: a lambda that does not type-check fails at creation. */
static patc_status check_templates(patc_algo *a)
{
    for (int i = 0; i < a->ntpl; i++) {
        const char *tn = a->tpl[i].name;
        const patc_tuning_line *l = NULL;
        for (int k = 0; k < 2 && !l; k++) {
            char key[64];
            line_key(a, k == 0, key);
            for (int j = 0; j < a->nbuiltin && !l; j++)
                if (strcmp(a->builtin[j].kernel, key) == 0 && strcmp(a->builtin[j].use, tn) == 0) l = &a->builtin[j];
        }
        if (!l) continue;
        Variant *v;
        patc_status s = variant_for(a, l, false, &v);
        if (s != PATC_OK) return s;
    }
    return PATC_OK;
}

/* Whether `w` occurs as a whole identifier in `text`. */
static bool has_word(const char *text, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(text, w); p; p = strstr(p + 1, w)) {
        bool before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after) return true;
    }
    return false;
}

/* A scalar's name must not be a name the kernels bind or use (n, their shape nats, the
 * names inside their bodies): the scalar's binding would hide it. */
static patc_status check_scalar_names(patc_algo *a, const patc_algo_spec *spec)
{
    for (int i = 0; i < spec->nscalars; i++) {
        const char *w = spec->scalar_names[i];
        bool clash = strcmp(w, "n") == 0;
        for (int t = 0; t < a->ntpl && !clash; t++) clash = has_word(a->tpl[t].nats, w) || has_word(a->tpl[t].text, w);
        if (clash)
            return rt_fail(a->ctx, PATC_ERR_INVALID, "patc_algo_create: scalar %d's name \"%s\" is not a name the program "
                           "can bind: the algorithm's kernels use it (patterns/algorithms.tune)", i, w);
    }
    return PATC_OK;
}

patc_status patc_algo_create(patc_ctx *ctx, const patc_algo_spec *spec, patc_algo **out)
{
    if (!ctx) return PATC_ERR_INVALID;
    if (!spec || !out) return rt_fail(ctx, PATC_ERR_INVALID, "patc_algo_create: a NULL argument");
    *out = NULL;
    patc_status s = check_spec(ctx, spec);
    if (s != PATC_OK) return s;
    patc_algo *a = lang_calloc(1, sizeof *a);
    if (!a) return rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
    a->ctx = ctx;
    a->spec = *spec;
    const char *key = NULL;
    switch (spec->algorithm) {
    case PATC_ALGO_REDUCE: key = "reduce"; break;
    case PATC_ALGO_INCLUSIVE_SCAN: case PATC_ALGO_EXCLUSIVE_SCAN: key = "scan"; break;
    case PATC_ALGO_FILTER: key = "filter"; break;
    case PATC_ALGO_PARTITION: key = "partition"; break;
    case PATC_ALGO_PARTITION_STABLE: key = "partition_stable"; break;
    }
    snprintf(a->key, sizeof a->key, "%s", key);
    a->next = ctx->algos;
    if (ctx->algos) ctx->algos->prev = a;
    ctx->algos = a;
    char *table = NULL;
    s = read_declarations(a, &table);
    if (s == PATC_OK) s = check_scalar_names(a, spec);
    if (s == PATC_OK && !(a->source = make_source(a))) s = rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
    /* the spec's strings are the caller's: the source holds all the program needs */
    a->spec.lambda = a->spec.init = a->spec.tuning_file = NULL;
    for (int i = 0; i < spec->nscalars; i++) a->spec.scalar_names[i] = NULL;
    const char *tf = spec->tuning_file ? spec->tuning_file : getenv("PATC_TUNING");
    if (s == PATC_OK) s = rt_tuning_parse(ctx, "<built-in algorithms.tune>", table, &a->builtin, &a->nbuiltin);
    free(table);
    if (s == PATC_OK && tf && *tf) s = rt_tuning_load(ctx, tf, &a->user, &a->nuser);
    /* only a caller's lambda can fail to type-check: the built-in operators' programs are
     * compiled while libpatrt is built (the embedded cubins) and by its tests, and their
     * front ends would cost a first call about 0.7 ms a kernel */
    if (s == PATC_OK && (is_select(spec->algorithm) || spec->op == PATC_OP_LAMBDA)) s = check_templates(a);
    if (s != PATC_OK) {
        patc_algo_free(a);
        return s;
    }
    *out = a;
    return PATC_OK;
}

void patc_algo_free(patc_algo *a)
{
    if (!a) return;
    for (int i = 0; i < a->nvar; i++) variant_free(&a->var[i]);
    if (a->prev) a->prev->next = a->next;
    else a->ctx->algos = a->next;
    if (a->next) a->next->prev = a->prev;
    for (int i = 0; i < RT_ALGO_SLOTS; i++)
        if (a->ctx->algo_slot[i] == a) a->ctx->algo_slot[i] = NULL;
    for (int i = 0; i < a->ntpl; i++) free(a->tpl[i].text);
    free(a->source);
    free(a->user);
    free(a->builtin);
    free(a);
}

const char *patc_algo_source(const patc_algo *a) { return a ? a->source : NULL; }

static bool overlap(const patc_buffer *x, size_t xb, const patc_buffer *y, size_t yb)
{
    return x->ptr < y->ptr + yb && y->ptr < x->ptr + xb;
}

/* The call's checks, before anything is enqueued; *aligned: every buffer is 16-byte
 * aligned (the vector and bulk-copy kernels may run). */
static patc_status check_call(patc_algo *a, const patc_buffer *in, const patc_buffer *out, const patc_buffer *count,
                              long long n, const void *const *scalars, bool *aligned)
{
    patc_ctx *c = a->ctx;
    const char *fn = "patc_algo";
    bool sel = is_select(a->spec.algorithm);
    size_t sz = patc_type_size(a->spec.type);
    if (n < 1) return rt_fail(c, PATC_ERR_INVALID, "%s: n must be at least 1 (n = %lld)", fn, n);
    if ((unsigned long long)n > SIZE_MAX / sz || (unsigned long long)n > (unsigned long long)PATC_DEFINE_MAX)
        return rt_fail(c, PATC_ERR_SIZE, "%s: n = %lld elements is more than can be addressed", fn, n);
    if (sel && n > 4294967295LL)
        return rt_fail(c, PATC_ERR_SIZE, "%s: a filter or partition takes at most 2^32-1 elements (its count is a u32); n = %lld", fn, n);
    if (!in || !out) return rt_fail(c, PATC_ERR_INVALID, "%s: no input or output buffer", fn);
    if (in->ctx != c || out->ctx != c || (count && count->ctx != c))
        return rt_fail(c, PATC_ERR_INVALID, "%s: a buffer of another context", fn);
    if (sel && !count) return rt_fail(c, PATC_ERR_INVALID, "%s: a filter or partition needs a count buffer (4 bytes)", fn);
    if (!sel && count) return rt_fail(c, PATC_ERR_INVALID, "%s: only a filter or partition has a count (give NULL)", fn);
    if (a->spec.nscalars > 0 && !scalars)
        return rt_fail(c, PATC_ERR_INVALID, "%s: the algorithm takes %d scalar(s): scalars is NULL", fn, a->spec.nscalars);
    for (int i = 0; scalars && i < a->spec.nscalars; i++)
        if (!scalars[i]) return rt_fail(c, PATC_ERR_INVALID, "%s: scalar %d is NULL", fn, i);
    size_t inb = (size_t)n * sz, outb = a->spec.algorithm == PATC_ALGO_REDUCE ? sz : (size_t)n * sz;
    if (in->bytes < inb)
        return rt_fail(c, PATC_ERR_SIZE, "%s: the input has %zu bytes, %lld elements of %s need %zu", fn, in->bytes, n,
                       patc_type_name(a->spec.type), inb);
    if (out->bytes < outb)
        return rt_fail(c, PATC_ERR_SIZE, "%s: the output has %zu bytes, the result needs %zu", fn, out->bytes, outb);
    if (count && count->bytes < 4) return rt_fail(c, PATC_ERR_SIZE, "%s: the count buffer has %zu bytes, a u32 needs 4", fn, count->bytes);
    if (in->ptr % sz || out->ptr % sz || (count && count->ptr % 4))
        return rt_fail(c, PATC_ERR_INVALID, "%s: a buffer is not aligned to its element's %zu bytes", fn, sz);
    if (overlap(in, inb, out, outb) || (count && (overlap(count, 4, in, inb) || overlap(count, 4, out, outb))))
        return rt_fail(c, PATC_ERR_INVALID, "%s: the input, output and count must not overlap", fn);
    *aligned = in->ptr % 16 == 0 && out->ptr % 16 == 0;
    return PATC_OK;
}

patc_status patc_algo_enqueue(patc_algo *a, patc_buffer *in, patc_buffer *out, patc_buffer *count, long long n,
                              const void *const *scalars, void *stream)
{
    if (!a) return PATC_ERR_INVALID;
    bool aligned = false, user;
    patc_status s = check_call(a, in, out, count, n, scalars, &aligned);
    if (s != PATC_OK) return s;
    const patc_tuning_line *l;
    Variant *v;
    if (a->last.valid && a->last.n == n && a->last.aligned == aligned) {
        l = a->last.l;
        v = a->last.v;
    } else {
        if (!(l = line_for(a, n, aligned, &user)))
            return rt_fail(a->ctx, PATC_ERR_INVALID, "patc_algo: no tuning line for %s at n = %lld", a->key, n);
        if ((s = variant_for(a, l, true, &v)) != PATC_OK) return s;
        a->last.valid = true;
        a->last.n = n;
        a->last.aligned = aligned;
        a->last.l = l;
        a->last.v = v;
    }
    long long nats[2];
    nats_for(a, v, l, n, nats);
    patc_arg args[PATC_ALGO_MAX_SCALARS + 1];
    int ns = a->spec.nscalars;
    for (int i = 0; i < ns; i++) args[i] = (patc_arg){NULL, scalars[i]};
    args[ns] = (patc_arg){in, NULL};
    patc_buffer *outs[2] = {count ? count : out, out};
    patc_set_stream(a->ctx, stream);
    return patc_launch_args_enqueue(v->k, nats, args, outs, NULL);
}

/* The raw addresses as buffers of exactly the sizes the call needs: the checks of
 * patc_algo_enqueue then hold for what can be checked (alignment, overlap). */
patc_status patc_algo_enqueue_ptr(patc_algo *a, unsigned long long in, unsigned long long out, unsigned long long count,
                                  long long n, const void *const *scalars, void *stream)
{
    if (!a) return PATC_ERR_INVALID;
    size_t sz = patc_type_size(a->spec.type);
    if (n < 1 || (unsigned long long)n > SIZE_MAX / sz) return check_call(a, NULL, NULL, NULL, n, scalars, &(bool){0});
    if (!in || !out) return rt_fail(a->ctx, PATC_ERR_INVALID, "patc_algo: a NULL device address");
    unsigned long long addr[3] = {in, out, count};
    size_t bytes[3] = {(size_t)n * sz, a->spec.algorithm == PATC_ALGO_REDUCE ? sz : (size_t)n * sz, 4};
    for (int i = 0; i < 3; i++) a->raw[i] = (struct patc_buffer){.ctx = a->ctx, .ptr = addr[i], .bytes = bytes[i], .wrapped = true};
    return patc_algo_enqueue(a, &a->raw[0], &a->raw[1], count ? &a->raw[2] : NULL, n, scalars, stream);
}

patc_status patc_algo_run_cpu(patc_algo *a, const void *in, void *out, void *count, long long n,
                              const void *const *scalars)
{
    if (!a) return PATC_ERR_INVALID;
    patc_ctx *c = a->ctx;
    bool sel = is_select(a->spec.algorithm), user;
    if (n < 1) return rt_fail(c, PATC_ERR_INVALID, "patc_algo_run_cpu: n must be at least 1 (n = %lld)", n);
    if (!in || !out || (sel && !count)) return rt_fail(c, PATC_ERR_INVALID, "patc_algo_run_cpu: a NULL array");
    if (a->spec.nscalars > 0 && !scalars) return rt_fail(c, PATC_ERR_INVALID, "patc_algo_run_cpu: scalars is NULL");
    const patc_tuning_line *l = line_for(a, n, true, &user);
    if (!l) return rt_fail(c, PATC_ERR_INVALID, "patc_algo: no tuning line for %s at n = %lld", a->key, n);
    Variant *v;
    patc_status s = variant_for(a, l, false, &v);
    if (s != PATC_OK) return s;
    long long nats[2];
    nats_for(a, v, l, n, nats);
    const void *ins[PATC_ALGO_MAX_SCALARS + 1];
    int ns = a->spec.nscalars;
    for (int i = 0; i < ns; i++) ins[i] = scalars[i];
    ins[ns] = in;
    void *outs[2] = {sel ? count : out, out};
    return patc_interp_run_outputs(v->k, nats, ins, outs);
}

patc_status patc_algo_describe(patc_algo *a, long long n, char *buf, size_t len)
{
    if (!a || !buf || !len) return PATC_ERR_INVALID;
    if (n < 1 || n > PATC_DEFINE_MAX)
        return rt_fail(a->ctx, n < 1 ? PATC_ERR_INVALID : PATC_ERR_SIZE,
                       "patc_algo: n = %lld: a size is 1 to 2^62 (%lld)", n, PATC_DEFINE_MAX);
    bool user;
    const patc_tuning_line *l = line_for(a, n, true, &user);
    if (!l) return rt_fail(a->ctx, PATC_ERR_INVALID, "patc_algo: no tuning line for %s at n = %lld", a->key, n);
    int w = snprintf(buf, len, "%s.%s", l->kernel, l->use[0] ? l->use : a->tpl[0].name);
    for (int i = 0; i < l->ndefs && w >= 0 && (size_t)w < len; i++)
        w += snprintf(buf + w, len - (size_t)w, " %s=%lld", l->names[i], l->values[i]);
    if (w >= 0 && (size_t)w < len)
        snprintf(buf + w, len - (size_t)w, "%s (%s%s)", l->evict_first ? " evict_first" : "",
                 user ? "tuning file" : "built-in ", user ? "" : a->table);
    return PATC_OK;
}

/* ---------------------------------------------------------------- the tuner */

enum { MAX_CANDIDATES = 256 };

/* The settings of `space KEY NAME NAT=V1,V2... [bps=B1,...] [max_n=N]` lines for the
 * algorithm's key: every combination of each kernel's values, as tuning lines of `key`
 * (n_max: the space's max_n, the largest n the kernel is tried at). */
static patc_status space_lines(patc_algo *a, const char *key, patc_tuning_line *out, int *nout)
{
    char *copy = rt_strdup(rt_algo_declarations());
    if (!copy) return rt_fail(a->ctx, PATC_ERR_NO_MEMORY, "out of memory");
    *nout = 0;
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char k[40], name[32];
        int used = 0;
        if (sscanf(line, "space %39s %31s %n", k, name, &used) != 2 || strcmp(k, a->key) != 0) continue;
        /* the nats and their values; bps is BLOCKS_PER_SM */
        char names[PATC_TUNING_MAX_DEFS + 1][32];
        long long vals[PATC_TUNING_MAX_DEFS + 1][8];
        int nv[PATC_TUNING_MAX_DEFS + 1], nn = 0, bps = -1;
        long long max_n = INT64_MAX;
        char *s2 = NULL;
        for (char *w = strtok_r(line + used, " \t", &s2); w && nn <= PATC_TUNING_MAX_DEFS; w = strtok_r(NULL, " \t", &s2)) {
            char *eq = strchr(w, '=');
            if (!eq || eq - w >= 32) continue;
            if (strncmp(w, "max_n=", 6) == 0) {
                max_n = strtoll(eq + 1, NULL, 10);
                continue;
            }
            snprintf(names[nn], sizeof names[nn], "%.*s", (int)(eq - w), w);
            nv[nn] = 0;
            for (char *v = eq + 1; *v && nv[nn] < 8; v++) {
                vals[nn][nv[nn]++] = strtoll(v, &v, 10);
                if (*v != ',') break;
            }
            if (strcmp(names[nn], "bps") == 0) bps = nn;
            nn++;
        }
        int idx[PATC_TUNING_MAX_DEFS + 1] = {0};
        for (;;) {
            if (*nout == MAX_CANDIDATES) break;
            patc_tuning_line *l = &out[(*nout)++];
            memset(l, 0, sizeof *l);
            snprintf(l->kernel, sizeof l->kernel, "%s", key);
            snprintf(l->use, sizeof l->use, "%s", name);
            l->n_min = 1;
            l->n_max = max_n;
            l->blocks_per_sm = 1;
            for (int i = 0; i < nn; i++) {
                if (i == bps) {
                    l->blocks_per_sm = (int)vals[i][idx[i]];
                    continue;
                }
                snprintf(l->names[l->ndefs], sizeof l->names[0], "%s", names[i]);
                l->values[l->ndefs++] = vals[i][idx[i]];
            }
            int i = 0; /* the next combination, the last nat fastest */
            for (i = nn - 1; i >= 0 && ++idx[i] == nv[i]; i--) idx[i] = 0;
            if (i < 0) break;
        }
    }
    free(copy);
    return PATC_OK;
}

/* One candidate's call, fired by rt_time_calls. */
typedef struct TuneCall {
    patc_kernel *k;
    long long nats[2];
    patc_arg args[PATC_ALGO_MAX_SCALARS + 1];
    patc_buffer *outs[2];
} TuneCall;

static int fire_call(void *ud, int j)
{
    TuneCall *c = &((TuneCall *)ud)[j];
    return patc_launch_args_enqueue(c->k, c->nats, c->args, c->outs, NULL);
}

/* A random input: uniform in [0, 1) for floats, 0..99 for integers. */
static void *tune_input(patc_type t, long long n)
{
    size_t sz = patc_type_size(t);
    unsigned char *p = lang_malloc((size_t)n * sz);
    uint64_t x = 88172645463325252ull;
    for (long long i = 0; p && i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double u = (double)(x >> 11) / 9007199254740992.0;
        switch (t) {
        case PATC_F32: ((float *)p)[i] = (float)u; break;
        case PATC_F64: ((double *)p)[i] = u; break;
        case PATC_I32: ((int32_t *)p)[i] = (int32_t)(x % 100); break;
        case PATC_U32: ((uint32_t *)p)[i] = (uint32_t)(x % 100); break;
        case PATC_I64: ((int64_t *)p)[i] = (int64_t)(x % 100); break;
        case PATC_U64: ((uint64_t *)p)[i] = x % 100; break;
        case PATC_BOOL: break;
        }
    }
    return p;
}

patc_status patc_algo_tune(patc_ctx *ctx, const patc_algo_spec *spec, const void *const *scalars, const long long *sizes,
                           int count, int reps, const char *out_file, FILE *log)
{
    if (!ctx) return PATC_ERR_INVALID;
    if (!spec || !sizes || count < 1 || reps < 1 || !out_file)
        return rt_fail(ctx, PATC_ERR_INVALID, "patc_algo_tune: bad arguments");
    for (int i = 0; i < count; i++) {
        if (sizes[i] < 1 || (i && sizes[i] <= sizes[i - 1]))
            return rt_fail(ctx, PATC_ERR_INVALID, "patc_algo_tune: sizes must be at least 1 and increase");
        if (sizes[i] > PATC_DEFINE_MAX)
            return rt_fail(ctx, PATC_ERR_SIZE, "patc_algo_tune: size %lld is above 2^62 (%lld)", sizes[i], PATC_DEFINE_MAX);
    }
    patc_status s = rt_need_device(ctx);
    if (s != PATC_OK) return s;
    patc_algo *a;
    if ((s = patc_algo_create(ctx, spec, &a)) != PATC_OK) return s;
    patc_tuning_line *cand = lang_calloc(MAX_CANDIDATES, sizeof *cand), *best = lang_calloc((size_t)count, sizeof *best);
    TuneCall *calls = lang_calloc(MAX_CANDIDATES, sizeof *calls);
    float *ms = lang_calloc(MAX_CANDIDATES, sizeof *ms), *best_ms = lang_calloc((size_t)count, sizeof *best_ms);
    int *which = lang_calloc(MAX_CANDIDATES, sizeof *which);
    long long nmax = sizes[count - 1];
    void *host = tune_input(spec->type, nmax);
    patc_buffer *in = NULL, *out = NULL, *cnt = NULL;
    char key[64];
    line_key(a, true, key);
    int ncand = 0;
    if (!cand || !best || !calls || !ms || !best_ms || !which || !host) s = rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
    if (s == PATC_OK) s = space_lines(a, key, cand, &ncand);
    if (s == PATC_OK && ncand == 0) s = rt_fail(ctx, PATC_ERR_INVALID, "algorithms.tune has no space for %s", a->key);
    size_t bytes = (size_t)nmax * patc_type_size(spec->type);
    if (s == PATC_OK) s = patc_buffer_alloc(ctx, bytes, &in);
    if (s == PATC_OK) s = patc_buffer_alloc(ctx, bytes, &out);
    if (s == PATC_OK) s = patc_buffer_alloc(ctx, 8, &cnt);
    if (s == PATC_OK) s = patc_buffer_upload(in, host, bytes);
    bool sel = is_select(spec->algorithm);
    for (int si = 0; s == PATC_OK && si < count; si++) {
        long long n = sizes[si];
        bool aligned;
        if ((s = check_call(a, in, out, sel ? cnt : NULL, n, scalars, &aligned)) != PATC_OK) break;
        int nc = 0;
        for (int ci = 0; ci < ncand; ci++) {
            Variant *v;
            if (n > cand[ci].n_max) continue;
            if (variant_for(a, &cand[ci], true, &v) != PATC_OK) continue; /* e.g. too large a tile */
            TuneCall *c = &calls[nc];
            c->k = v->k;
            nats_for(a, v, &cand[ci], n, c->nats);
            for (int i = 0; i < spec->nscalars; i++) c->args[i] = (patc_arg){NULL, scalars[i]};
            c->args[spec->nscalars] = (patc_arg){in, NULL};
            c->outs[0] = sel ? cnt : out;
            c->outs[1] = out;
            if (patc_launch_args_enqueue(c->k, c->nats, c->args, c->outs, NULL) != PATC_OK) continue; /* cannot launch */
            which[nc++] = ci;
        }
        if (nc == 0) {
            s = rt_fail(ctx, PATC_ERR_INVALID, "patc_algo_tune: no setting of %s runs at n = %lld", a->key, n);
            break;
        }
        if ((s = (patc_status)rt_time_calls(ctx, fire_call, calls, nc, reps / 10 + 2, reps, ms, NULL)) != PATC_OK) break;
        int b = 0;
        for (int j = 1; j < nc; j++)
            if (ms[j] < ms[b]) b = j;
        best[si] = cand[which[b]];
        best_ms[si] = ms[b];
        if (log) {
            char d[200];
            int w = snprintf(d, sizeof d, "kernel=%s", best[si].use);
            for (int i = 0; i < best[si].ndefs && w < (int)sizeof d; i++)
                w += snprintf(d + w, sizeof d - (size_t)w, " %s=%lld", best[si].names[i], best[si].values[i]);
            fprintf(log, "%s n=%lld: %d settings, best %s bps=%d %.2f us\n", key, n, nc, d, best[si].blocks_per_sm,
                    1000.0 * ms[b]);
            fflush(log);
        }
    }
    if (s == PATC_OK) {
        FILE *f = rt_tuning_append(ctx, out_file, &s);
        for (int i = 0; f && i < count; i++) {
            rt_tuning_cover(best, sizes, i, count, INT64_MAX);
            fprintf(f, "%s %lld %lld %d kernel=%s", key, best[i].n_min, best[i].n_max, best[i].blocks_per_sm, best[i].use);
            for (int d = 0; d < best[i].ndefs; d++) fprintf(f, " %s=%lld", best[i].names[d], best[i].values[d]);
            fprintf(f, " # %.2f us at n=%lld\n", 1000.0 * best_ms[i], sizes[i]);
        }
        if (f && fclose(f) != 0) s = rt_fail(ctx, PATC_ERR_IO, "cannot write %s", out_file);
    }
    patc_buffer_free(in);
    patc_buffer_free(out);
    patc_buffer_free(cnt);
    free(host);
    free(cand);
    free(best);
    free(calls);
    free(ms);
    free(best_ms);
    free(which);
    patc_algo_free(a);
    return s;
}

/* The one-call forms: the context keeps one algorithm per (algorithm, type, op). */
static patc_status one_call(patc_ctx *c, patc_algorithm alg, patc_type t, patc_op op, patc_buffer *in,
                            patc_buffer *out, long long n, void *stream)
{
    if (!c) return PATC_ERR_INVALID;
    if ((unsigned)t >= NUM_TYPES || (unsigned)op >= NUM_OPS)
        return rt_fail(c, PATC_ERR_INVALID, "patc_%s: the type must be f32 to u64 and the operator SUM, MIN or MAX",
                       alg == PATC_ALGO_REDUCE ? "reduce" : "scan");
    int slot = ((int)alg * NUM_TYPES + (int)t) * NUM_OPS + (int)op;
    if (!c->algo_slot[slot]) {
        patc_algo_spec spec = {.algorithm = alg, .type = t, .op = op};
        patc_status s = patc_algo_create(c, &spec, &c->algo_slot[slot]);
        if (s != PATC_OK) return s;
    }
    return patc_algo_enqueue(c->algo_slot[slot], in, out, NULL, n, NULL, stream);
}

patc_status patc_reduce(patc_ctx *ctx, patc_type type, patc_op op, patc_buffer *in, patc_buffer *out, long long n,
                        void *stream)
{
    return one_call(ctx, PATC_ALGO_REDUCE, type, op, in, out, n, stream);
}

patc_status patc_inclusive_scan(patc_ctx *ctx, patc_type type, patc_op op, patc_buffer *in, patc_buffer *out,
                                long long n, void *stream)
{
    return one_call(ctx, PATC_ALGO_INCLUSIVE_SCAN, type, op, in, out, n, stream);
}

patc_status patc_exclusive_scan(patc_ctx *ctx, patc_type type, patc_op op, patc_buffer *in, patc_buffer *out,
                                long long n, void *stream)
{
    return one_call(ctx, PATC_ALGO_EXCLUSIVE_SCAN, type, op, in, out, n, stream);
}
