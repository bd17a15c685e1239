/* rt_algo.c: the ready-made device algorithms (patc_algo_*, patc_reduce, patc_*_scan).
 *
 * An algorithm is a family (reduce, scan, filter, partition, stable partition) applied
 * to an element type and an operator or predicate. Its program is generated here from
 * the family's kernel templates: each template is one kernel of the patterns
 * (patterns/reduce.rise, scan.rise, compact.rise, and the pipe primitives) with the
 * element type, the operator or predicate and the call's scalars filled in, and its
 * shape nats left for -D. Which template and which -D values run at a size n is a
 * tuning line (docs/tuning.md's format): the user's file first, then the built-in
 * table below, whose lines are keyed by the family (and by its form for 8-byte types or
 * unaligned buffers). Each (template, -D values) is compiled once per algorithm, on the
 * first call that needs it.
 */
#include "patc.h"
#include "rt_internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_VARIANTS = 16, NUM_TYPES = PATC_U64 + 1, NUM_OPS = PATC_OP_MAX + 1 };

typedef enum { FAM_REDUCE, FAM_SCAN, FAM_SELECT } Family;

/* A kernel template: `text` is the kernel's body after `nFun((n, <nats>) =>`, with
 *   $T the element type, $OP the operator, $INIT its neutral element, $P the predicate,
 *   $VW the elements of a 16-byte vector (4 or 2), $EXCL "Excl" for an exclusive scan ("" otherwise), $SEL the select form's name
 *   (filter, partition, partitionStable), $S( the scalars' lambdas ("fun(f32)(t => "
 *   each) and $S) their closing parentheses;
 * `g_elems`: the kernel has a grid nat g, the blocks of a grid-stride pass, and each
 * block reads g_elems elements a trip (0: the line's -D value named g_def). */
typedef struct Template {
    const char *name;
    const char *nats;
    const char *text;
    long long g_elems;
    const char *g_def;
    int g_bps; /* blocks per SM of the grid when the line's BLOCKS_PER_SM is not used */
} Template;

typedef struct FamilyDef {
    const char *import;
    const Template *tpl;
    int ntpl;
} FamilyDef;

/* grid, one: 16-byte vector loads (an aligned input); gridu, oneu: element loads */
static const Template reduce_tpl[] = {
    {"grid", "g, elemsBlock, elemsWarp",
     "$S(fun(n.$T)(xs => xs |> reduceGridW(fun(c => c |> asVector($VW)), n, g, elemsBlock, elemsWarp, $OP, $INIT))$S)", 0,
     "elemsBlock", 0},
    {"one", "elemsBlock, elemsWarp",
     "$S(fun(n.$T)(xs => xs |> reduceOneBlockW(fun(c => c |> asVector($VW)), n, elemsBlock, elemsWarp, $OP, $INIT))$S)",
     -1, NULL, 0},
    {"gridu", "g, elemsBlock, elemsWarp",
     "$S(fun(n.$T)(xs => xs |> reduceGridW(fun(c => c |> split(1)), n, g, elemsBlock, elemsWarp, $OP, $INIT))$S)", 0,
     "elemsBlock", 0},
    {"oneu", "elemsBlock, elemsWarp",
     "$S(fun(n.$T)(xs => xs |> reduceOneBlockW(fun(c => c |> split(1)), n, elemsBlock, elemsWarp, $OP, $INIT))$S)", -1,
     NULL, 0},
};
static const Template scan_tpl[] = {
    {"tile", "nt, ipt", "$S(fun(n.$T)(xs => xs |> scanDevice$EXCL(n, $OP, $INIT, nt, ipt))$S)", -1, NULL, 0},
    {"pipe", "w, ipt, s", "$S(fun(n.$T)(xs => xs |> scanPipe$EXCL(w, ipt, s)($OP)($INIT))$S)", -1, NULL, 0},
};
/* filter and partition: the Vec tile loads 16-byte vectors (an aligned input), tileu
 * loads element by element */
static const Template select_tpl[] = {
    {"tile", "nt, ipt", "$S(fun(n.$T)(xs => xs |> $SELDeviceVec(n, $P, nt, ipt))$S)", -1, NULL, 0},
    {"tileu", "nt, ipt", "$S(fun(n.$T)(xs => xs |> $SELDevice(n, $P, nt, ipt))$S)", -1, NULL, 0},
    {"pipe", "w, ipt, s", "$S(fun(n.$T)(xs => xs |> $SELPipe(w, ipt, s)($P))$S)", -1, NULL, 0},
};
/* the stable partition counts first (countGrid: 4096 elements a block a trip, the
 * shape of reduceGrid's tuned lines at 2^24-2^28 on an H200; patterns/compact.rise) */
static const Template stable_tpl[] = {
    {"tile", "g, nt, ipt", "$S(fun(n.$T)(xs => xs |> partitionStableDeviceVec(n, g, $P, nt, ipt))$S)", 4096, NULL, 4},
    {"tileu", "g, nt, ipt",
     "$S(fun(n.$T)(xs => xs |> partitionStableDeviceW(fun(c => c |> split(1)), n, g, $P, nt, ipt))$S)", 4096, NULL, 4},
    {"pipe", "g, w, ipt, s",
     "$S(fun(n.$T)(xs => xs |> countGridW(fun(c => c |> asVector($VW)), n, g, 4096, 256, $P) |> toGlobal |> fun(m => "
     "xs |> partitionStablePipe(w, ipt, s)($P)(m)))$S)",
     4096, NULL, 4},
};

/* The built-in settings, one table for every card until per-card tables are measured.
 * Keys: the family ("reduce", "scan", "filter", "partition", "partition_stable"), then
 * "64" for 8-byte types, then "_unaligned" where a buffer is not 16-byte aligned (the
 * vector loads and bulk copies need it). The 4-byte lines come from the H200 runs:
 *   reduce: patc tune of reduceSumF32 (bench/results/2026-11-22-nvidia-h200/tuning.conf);
 *   scan: patc tune --scan of inclSumF32 with the pipe
 *         (bench/results/2026-11-23-nvidia-h200-scan-pipe/scan_tuning.conf), without its
 *         min_blocks and evict_first choices;
 *   filter, partition, partition_stable: bench/select_tuning.conf (a hand choice from
 *         sweeps, with the pipe kernels from 2^21 and 2^23).
 * The 8-byte and unaligned lines are middle-of-the-road shapes, not measured for speed. */
static const char builtin_table[] =
    "reduce 1 10240 1 kernel=one elemsBlock=1024 elemsWarp=128\n"
    "reduce 10241 40960 1 kernel=one elemsBlock=2048 elemsWarp=128\n"
    "reduce 40961 163840 1 kernel=grid elemsBlock=1024 elemsWarp=256\n"
    "reduce 163841 655360 2 kernel=grid elemsBlock=1024 elemsWarp=128\n"
    "reduce 655361 2621440 2 kernel=grid elemsBlock=4096 elemsWarp=256\n"
    "reduce 2621441 10485760 4 kernel=grid elemsBlock=1024 elemsWarp=128\n"
    "reduce 10485761 41943040 2 kernel=grid elemsBlock=4096 elemsWarp=256\n"
    "reduce 41943041 9223372036854775807 4 kernel=grid elemsBlock=4096 elemsWarp=256\n"
    "reduce_unaligned 1 10240 1 kernel=oneu elemsBlock=1024 elemsWarp=128\n"
    "reduce_unaligned 10241 9223372036854775807 4 kernel=gridu elemsBlock=2048 elemsWarp=256\n"
    "reduce64 1 10240 1 kernel=one elemsBlock=1024 elemsWarp=128\n"
    "reduce64 10241 9223372036854775807 4 kernel=grid elemsBlock=2048 elemsWarp=128\n"
    "reduce64_unaligned 1 10240 1 kernel=oneu elemsBlock=1024 elemsWarp=128\n"
    "reduce64_unaligned 10241 9223372036854775807 4 kernel=gridu elemsBlock=2048 elemsWarp=128\n"
    "scan 1 1536 1 kernel=tile nt=128 ipt=15\n"
    "scan 1537 6144 1 kernel=tile nt=256 ipt=9\n"
    "scan 6145 12288 1 kernel=tile nt=128 ipt=9\n"
    "scan 12289 98304 1 kernel=tile nt=256 ipt=5\n"
    "scan 98305 196608 1 kernel=tile nt=256 ipt=9\n"
    "scan 196609 393216 1 kernel=tile nt=256 ipt=15\n"
    "scan 393217 786432 1 kernel=tile nt=256 ipt=25\n"
    "scan 786433 1572864 1 kernel=pipe w=24 ipt=12 s=5\n"
    "scan 1572865 3145728 1 kernel=pipe w=16 ipt=20 s=5\n"
    "scan 3145729 6291456 1 kernel=pipe w=24 ipt=12 s=5\n"
    "scan 6291457 25165824 1 kernel=pipe w=16 ipt=20 s=5\n"
    "scan 25165825 9223372036854775807 1 kernel=pipe w=16 ipt=12 s=9\n"
    "scan_unaligned 1 9223372036854775807 1 kernel=tile nt=128 ipt=25\n"
    "scan64 1 9223372036854775807 1 kernel=tile nt=128 ipt=25\n"
    "scan64_unaligned 1 9223372036854775807 1 kernel=tile nt=128 ipt=25\n"
    "filter 1 600000 1 kernel=tile nt=128 ipt=16\n"
    "filter 600001 2097152 1 kernel=tile nt=512 ipt=16\n"
    "filter 2097153 9223372036854775807 1 kernel=pipe w=16 ipt=20 s=5\n"
    "filter_unaligned 1 9223372036854775807 1 kernel=tileu nt=128 ipt=16\n"
    "filter64 1 9223372036854775807 1 kernel=tileu nt=128 ipt=16\n"
    "filter64_unaligned 1 9223372036854775807 1 kernel=tileu nt=128 ipt=16\n"
    "partition 1 600000 1 kernel=tile nt=128 ipt=16\n"
    "partition 600001 2097152 1 kernel=tile nt=512 ipt=16\n"
    "partition 2097153 9223372036854775807 1 kernel=pipe w=16 ipt=12 s=9\n"
    "partition_unaligned 1 9223372036854775807 1 kernel=tileu nt=128 ipt=16\n"
    "partition64 1 9223372036854775807 1 kernel=tileu nt=128 ipt=16\n"
    "partition64_unaligned 1 9223372036854775807 1 kernel=tileu nt=128 ipt=16\n"
    "partition_stable 1 600000 1 kernel=tile nt=128 ipt=16\n"
    "partition_stable 600001 8388608 1 kernel=tile nt=256 ipt=32\n"
    "partition_stable 8388609 9223372036854775807 1 kernel=pipe w=16 ipt=12 s=9\n"
    "partition_stable_unaligned 1 9223372036854775807 1 kernel=tileu nt=128 ipt=16\n"
    "partition_stable64 1 9223372036854775807 1 kernel=tileu nt=128 ipt=16\n"
    "partition_stable64_unaligned 1 9223372036854775807 1 kernel=tileu nt=128 ipt=16\n";

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
    Family fam;
    const FamilyDef *def;
    char key[40];          /* the tuning key without its suffix: "scan", "filter", ... */
    char *source;          /* the generated program */
    patc_tuning_line *user, *builtin;
    int nuser, nbuiltin;
    Variant var[MAX_VARIANTS];
    int nvar;
    patc_algo *prev, *next; /* the context's list (patc_destroy frees what is left) */
};

static const FamilyDef families[] = {
    [FAM_REDUCE] = {"reduce.rise", reduce_tpl, 4},
    [FAM_SCAN] = {"scan.rise", scan_tpl, 2},
    [FAM_SELECT] = {"compact.rise", select_tpl, 3},
};
static const FamilyDef stable_family = {"compact.rise", stable_tpl, 3};

static const char *const type_names[NUM_TYPES] = {"f32", "f64", "i32", "u32", "i64", "u64"};

/* The neutral element of a built-in operator as a .rise expression of the type. */
static const char *neutral(patc_op op, patc_type t)
{
    static const char *const sum[NUM_TYPES] = {"0.0f", "0.0", "0", "0u", "i64(0)", "u64(0)"};
    static const char *const largest[NUM_TYPES] = {
        "(1.0f / 0.0f)", "(1.0 / 0.0)", "2147483647", "4294967295u",
        "(i64(1073741824) * i64(1073741824) * i64(4) - i64(1) + i64(1073741824) * i64(1073741824) * i64(4))",
        "(u64(0) - u64(1))"};
    static const char *const lowest[NUM_TYPES] = {
        "(0.0f - 1.0f / 0.0f)", "(0.0 - 1.0 / 0.0)", "(0 - 2147483647 - 1)", "0u",
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
static void fill(StrBuf *b, const char *t, const patc_algo_spec *s, const char *sel)
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
        } else if (strncmp(t, "$SEL", 4) == 0) {
            sb_puts(b, sel);
            t += 4;
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
                                     "f32", "f64", "i32", "u32", "i64", "u64", "bool", "n", "xs", "m"};
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
                           "bind (letters, digits and _, not a keyword, nor n, xs or m)",
                           i, s->scalar_names[i] ? s->scalar_names[i] : "(null)");
        if ((unsigned)s->scalar_types[i] > PATC_BOOL)
            return rt_fail(c, PATC_ERR_INVALID, "patc_algo_create: scalar %s has an unknown type", s->scalar_names[i]);
        for (int j = 0; j < i; j++)
            if (strcmp(s->scalar_names[i], s->scalar_names[j]) == 0)
                return rt_fail(c, PATC_ERR_INVALID, "patc_algo_create: two scalars are named %s", s->scalar_names[i]);
    }
    return PATC_OK;
}

static const char *sel_name(patc_algorithm a)
{
    return a == PATC_ALGO_FILTER ? "filter" : a == PATC_ALGO_PARTITION ? "partition" : "partitionStable";
}

/* The program: the family's import and one kernel per template. */
static char *make_source(const patc_algo *a)
{
    StrBuf b = {0};
    sb_printf(&b, "-- generated by libpatrt for patc_algo_create\nimport \"%s\"\n", a->def->import);
    for (int i = 0; i < a->def->ntpl; i++) {
        const Template *t = &a->def->tpl[i];
        sb_printf(&b, "kernel %s_%s = nFun((n, %s) =>\n  ", a->key, t->name, t->nats);
        fill(&b, t->text, &a->spec, sel_name(a->spec.algorithm));
        sb_puts(&b, ")\n");
    }
    return b.s ? sb_take(&b) : NULL;
}

static const Template *find_template(const patc_algo *a, const char *name)
{
    for (int i = 0; i < a->def->ntpl; i++)
        if (strcmp(a->def->tpl[i].name, name) == 0) return &a->def->tpl[i];
    return NULL;
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
    const char *tname = l->use[0] ? l->use : a->def->tpl[0].name;
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
    if (a->nvar == MAX_VARIANTS) variant_free(&a->var[--a->nvar]);
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

/* Rule: the variants a call of `a` can run with the built-in table alone are those of
 * the lines of its two keys (aligned and unaligned buffers, for its element width).
 * Each line's is made here as variant_for makes it for a call, but without a cubin (the
 * caller builds rt_program_build_source's text itself: the embedded cubins,
 * rt_embed_gen.c), and handed to fn before the next is made (a variant may be evicted
 * later). Lines that share a variant get the same program. */
patc_status rt_algo_builtin_lines(patc_algo *a, RtAlgoLineFn fn, void *user)
{
    for (int k = 0; k < 2; k++) {
        char key[64];
        line_key(a, k == 0, key);
        for (int j = 0; j < a->nbuiltin; j++) {
            const patc_tuning_line *l = &a->builtin[j];
            if (strcmp(l->kernel, key) != 0) continue;
            Variant *v;
            patc_status s = variant_for(a, l, false, &v);
            if (s == PATC_OK) s = fn(a, l, v->k, user);
            if (s != PATC_OK) return s;
        }
    }
    return PATC_OK;
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
    for (int i = 0; i < a->def->ntpl; i++) {
        const char *tn = a->def->tpl[i].name;
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

patc_status patc_algo_create(patc_ctx *ctx, const patc_algo_spec *spec, patc_algo **out)
{
    if (!ctx) return PATC_ERR_INVALID;
    if (!spec || !out) return rt_fail(ctx, PATC_ERR_INVALID, "patc_algo_create: a NULL argument");
    *out = NULL;
    patc_status s = check_spec(ctx, spec);
    if (s != PATC_OK) return s;
    patc_algo *a = calloc(1, sizeof *a);
    if (!a) return rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
    a->ctx = ctx;
    a->spec = *spec;
    switch (spec->algorithm) {
    case PATC_ALGO_REDUCE: a->fam = FAM_REDUCE; break;
    case PATC_ALGO_INCLUSIVE_SCAN: case PATC_ALGO_EXCLUSIVE_SCAN: a->fam = FAM_SCAN; break;
    case PATC_ALGO_FILTER: case PATC_ALGO_PARTITION: case PATC_ALGO_PARTITION_STABLE: a->fam = FAM_SELECT; break;
    }
    a->def = spec->algorithm == PATC_ALGO_PARTITION_STABLE ? &stable_family : &families[a->fam];
    snprintf(a->key, sizeof a->key, "%s",
             a->fam == FAM_REDUCE ? "reduce" : a->fam == FAM_SCAN ? "scan"
             : spec->algorithm == PATC_ALGO_FILTER ? "filter" : spec->algorithm == PATC_ALGO_PARTITION ? "partition"
             : "partition_stable");
    a->next = ctx->algos;
    if (ctx->algos) ctx->algos->prev = a;
    ctx->algos = a;
    a->source = make_source(a);
    /* the spec's strings are the caller's: the source holds all the program needs */
    a->spec.lambda = a->spec.init = a->spec.tuning_file = NULL;
    for (int i = 0; i < spec->nscalars; i++) a->spec.scalar_names[i] = NULL;
    const char *tf = spec->tuning_file ? spec->tuning_file : getenv("PATC_TUNING");
    if (!a->source) s = rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
    if (s == PATC_OK) s = rt_tuning_parse(ctx, "<built-in tuning>", builtin_table, &a->builtin, &a->nbuiltin);
    if (s == PATC_OK && tf && *tf) s = rt_tuning_load(ctx, tf, &a->user, &a->nuser);
    if (s == PATC_OK) s = check_templates(a);
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
    const patc_tuning_line *l = line_for(a, n, aligned, &user);
    if (!l) return rt_fail(a->ctx, PATC_ERR_INVALID, "patc_algo: no tuning line for %s at n = %lld", a->key, n);
    Variant *v;
    if ((s = variant_for(a, l, true, &v)) != PATC_OK) return s;
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
    bool user;
    const patc_tuning_line *l = line_for(a, n, true, &user);
    if (!l) return rt_fail(a->ctx, PATC_ERR_INVALID, "patc_algo: no tuning line for %s at n = %lld", a->key, n);
    int w = snprintf(buf, len, "%s.%s", l->kernel, l->use[0] ? l->use : a->def->tpl[0].name);
    for (int i = 0; i < l->ndefs && w >= 0 && (size_t)w < len; i++)
        w += snprintf(buf + w, len - (size_t)w, " %s=%lld", l->names[i], l->values[i]);
    if (w >= 0 && (size_t)w < len) snprintf(buf + w, len - (size_t)w, "%s (%s)", l->evict_first ? " evict_first" : "",
                                            user ? "tuning file" : "built-in");
    return PATC_OK;
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
