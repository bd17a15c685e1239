/* rt_tune.c: tuned single-launch reductions: the settings file, the tuner that writes
 * it (patc tune) and the reducer that reads it at launch.
 *
 * A tunable kernel has the shape of reduceGrid in patterns/reduce.rise: one input
 * array whose length is a nat n, a grid of (g, 1, 1) for a second nat g, and two nats
 * elemsBlock and elemsWarp that each setting fixes with -D (they shape the code:
 * threads = 32 * elemsBlock / elemsWarp, loads per lane per trip = elemsWarp / 32).
 * The grid is min(blocks_per_sm * SMs, ceil(n / elemsBlock)): enough blocks to fill the
 * device, never a block without a chunk to read. An alternative kernel of the same
 * file may run instead for some sizes (reduceOneBlock: a fixed grid, n the only nat
 * left); the tuner tries it where a fixed grid can cover n in at most 16 trips.
 *
 * Settings file, one line per (kernel, size range); '#' starts a comment:
 *     KERNEL N_MIN N_MAX BLOCKS_PER_SM [kernel=OTHER] [evict_first] NAME=VALUE...
 * (evict_first: the variant is compiled with patc_compile_options.evict_first).
 */
#include "patc.h"
#include "rt_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_DEFS = PATC_TUNING_MAX_DEFS, MAX_VARIANTS = 64, MAX_ALTS = 3 };

/* A settings line is the public patc_tuning_line (patc.h), which patc_tuning_lookup
 * hands out as it is. */
typedef patc_tuning_line Setting;

/* The shape nats of the kernels these calls tune (reduceGrid's, scanDevice's and
 * scanPipe's), declared beside the patterns in algorithms.tune, so that no pattern
 * parameter is named here: its `default reducer` and `default scan` lines are the
 * settings used where a tuning file has no line for the kernel and size (their names,
 * in order, are what the tuners set: a reduction's block and warp element counts, a
 * scan's threads and elements a thread), and `names pipe` names scanPipe's three. */
static struct {
    Setting reducer, scan;
    char pipe[3][32];
    bool ok;
} decl;
static pthread_once_t decl_once = PTHREAD_ONCE_INIT;

static bool parse_line(char *line, Setting *s, bool *bad);

static void decl_load(void)
{
    const char *text = rt_algo_declarations();
    char *copy = text ? lang_strdup(text) : NULL;
    int found = 0;
    char *save = NULL;
    for (char *line = copy ? strtok_r(copy, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        char kind[16], buf[512];
        int used = 0;
        bool bad;
        if (sscanf(line, "default %15s %n", kind, &used) == 1 && used) {
            Setting *d = strcmp(kind, "reducer") == 0 ? &decl.reducer : strcmp(kind, "scan") == 0 ? &decl.scan : NULL;
            /* "KIND 1 1 BPS NAME=VALUE...": a settings line, read as the file's are */
            snprintf(buf, sizeof buf, "%s 1 1 %s", kind, line + used);
            if (d && parse_line(buf, d, &bad) && d->ndefs == 2) found |= d == &decl.reducer ? 1 : 2;
        } else if (sscanf(line, "names pipe %31s %31s %31s", decl.pipe[0], decl.pipe[1], decl.pipe[2]) == 3) {
            found |= 4;
        }
    }
    free(copy);
    decl.ok = found == 7;
}

/* PATC_OK once the declarations are read; a libpatrt without them cannot tune. */
static patc_status need_decl(patc_ctx *c)
{
    pthread_once(&decl_once, decl_load);
    return decl.ok ? PATC_OK
                   : rt_fail(c, PATC_ERR_INVALID, "libpatrt's built-in algorithms.tune lacks its default reducer, "
                             "default scan or names pipe line");
}

typedef struct Variant {
    char kname[128];
    long long values[MAX_DEFS];
    int ndefs;
    int min_blocks; /* a scan's: its compile's min_blocks (the line's BLOCKS_PER_SM when above 1) */
    int evict_first; /* compiled with evict_first */
    patc_program *prog;
    patc_kernel *k;
    int len_nat, grid_nat;
} Variant;

struct patc_reducer {
    patc_ctx *ctx;
    char *path, *kernel;
    Setting *set;
    int nset;
    Variant var[MAX_VARIANTS];
    int nvar;
    int sms;  /* the device's SM count, asked once (0 without a device) */
    /* the last enqueued reduction, planned once (patc_reducer_enqueue), and the variant
     * it launches (whose eviction must close it) */
    RtPlan *plan;
    const Variant *plan_v;
    long long plan_n;
    patc_buffer *plan_in, *plan_out;
    /* a tuned scan (patc_scan_*): one launch of a kernel of one input and one output of
     * n elements, its grid from the kernel's rule; its plan is that one launch */
    bool scan;
};

struct patc_scan {
    patc_reducer r;
};

/* ---------------------------------------------------------------- the file */

/* Parse one settings line; false for blank/comment lines and malformed ones (*bad). */
static bool parse_line(char *line, Setting *s, bool *bad)
{
    *bad = false;
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *tok[5 + MAX_DEFS];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == 5 + MAX_DEFS) {
            *bad = true;
            return false;
        }
        tok[n++] = t;
    }
    if (n == 0) return false;
    memset(s, 0, sizeof *s);
    char *end;
    if (n < 4 || strlen(tok[0]) >= sizeof s->kernel) goto bad;
    strcpy(s->kernel, tok[0]);
    s->n_min = strtoll(tok[1], &end, 10);
    if (*end) goto bad;
    s->n_max = strtoll(tok[2], &end, 10);
    if (*end || s->n_max < s->n_min) goto bad;
    s->blocks_per_sm = (int)strtol(tok[3], &end, 10);
    if (*end || s->blocks_per_sm < 1 || s->blocks_per_sm > 64) goto bad;
    for (int i = 4; i < n; i++) {
        if (strcmp(tok[i], "evict_first") == 0) { /* no '=': never a -D value */
            if (s->evict_first) goto bad;
            s->evict_first = 1;
            continue;
        }
        char *eq = strchr(tok[i], '=');
        if (eq && eq - tok[i] == 6 && strncmp(tok[i], "kernel", 6) == 0) { /* no nat can be called kernel */
            if (eq[1] == 0 || strlen(eq + 1) >= sizeof s->use || s->use[0]) goto bad;
            strcpy(s->use, eq + 1);
            continue;
        }
        if (!eq || eq == tok[i] || (size_t)(eq - tok[i]) >= sizeof s->names[0]) goto bad;
        memcpy(s->names[s->ndefs], tok[i], (size_t)(eq - tok[i]));
        s->values[s->ndefs] = strtoll(eq + 1, &end, 10);
        if (*end || eq[1] == 0) goto bad;
        s->ndefs++;
    }
    return true;
bad:
    *bad = true;
    return false;
}

/* The lines of a tuning text read from f (`file` names it in messages): every line is
 * checked, and the first malformed one fails the whole text. */
static patc_status read_settings(patc_ctx *c, const char *file, FILE *f, Setting **out, int *nout)
{
    char line[1024];
    int cap = 0, lineno = 0;
    patc_status st = PATC_OK;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        Setting s;
        bool bad;
        if (!parse_line(line, &s, &bad)) {
            if (bad) {
                st = rt_fail(c, PATC_ERR_INVALID, "%s:%d: malformed tuning line (want: KERNEL N_MIN N_MAX "
                             "BLOCKS_PER_SM [kernel=OTHER] [evict_first] NAME=VALUE...)", file, lineno);
                break;
            }
            continue;
        }
        if (*nout == cap) {
            cap = cap ? 2 * cap : 16;
            Setting *ns = lang_realloc(*out, sizeof *ns * (size_t)cap);
            if (!ns) {
                st = rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
                break;
            }
            *out = ns;
        }
        (*out)[(*nout)++] = s;
    }
    return st;
}

patc_status rt_tuning_load(patc_ctx *c, const char *file, Setting **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    if (!file) return PATC_OK;
    /* a regular file only (a FIFO or /dev/zero would block or never end), of at most
     * 16 MiB (a tuning file has a line per kernel and size range) */
    long long size;
    int fd = lang_open_regular(file, &size);
    FILE *f = fd >= 0 && size <= (16 << 20) ? fdopen(fd, "r") : NULL;
    if (!f) {
        int e = fd >= 0 ? EFBIG : errno;
        if (fd >= 0) close(fd);
        return rt_fail(c, PATC_ERR_IO, "cannot read tuning file %s: %s", file,
                       e == EFBIG ? "larger than 16 MiB" : lang_read_error(e));
    }
    patc_status st = read_settings(c, file, f, out, nout);
    fclose(f);
    return st;
}

/* Rule: a tuner's results are appended to a regular file, or to a character device
 * (/dev/null) or a pipe that a process reads; a directory, a block device or a socket
 * is refused. The open is non-blocking, so a FIFO that nothing reads fails at once
 * (ENXIO) instead of hanging the caller; once open, writes block as on any pipe. */
FILE *rt_tuning_append(patc_ctx *c, const char *file, patc_status *st)
{
    struct stat sb;
    int err = 0, fd = -1;
    if (stat(file, &sb) == 0 && (S_ISDIR(sb.st_mode) || S_ISBLK(sb.st_mode) || S_ISSOCK(sb.st_mode)))
        err = lang_notreg_errno(sb.st_mode);
    else if ((fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666)) < 0)
        err = errno == ENXIO && stat(file, &sb) == 0 ? lang_notreg_errno(sb.st_mode) : errno;
    else if (fstat(fd, &sb) != 0)
        err = errno;
    else if (!S_ISREG(sb.st_mode) && !S_ISCHR(sb.st_mode) && !S_ISFIFO(sb.st_mode))
        err = lang_notreg_errno(sb.st_mode);
    int fl = err ? -1 : fcntl(fd, F_GETFL);
    if (!err && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)) err = errno;
    FILE *f = err ? NULL : fdopen(fd, "a");
    if (!f && !err) err = errno;
    if (f) return f;
    if (fd >= 0) close(fd);
    *st = rt_fail(c, PATC_ERR_IO, "cannot write %s: %s", file,
                  err == LANG_EFIFO ? "a FIFO that no process has open for reading" : lang_read_error(err));
    return NULL;
}

patc_status rt_tuning_parse(patc_ctx *c, const char *name, const char *text, patc_tuning_line **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    if (!f) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    patc_status st = read_settings(c, name, f, out, nout);
    fclose(f);
    return st;
}

/* The first line naming `kernel` whose range holds n (NULL: none): the rule of the
 * reducer, the scan and patc_tuning_lookup alike. */
const patc_tuning_line *rt_tuning_find(const patc_tuning_line *set, int nset, const char *kernel, long long n)
{
    for (int i = 0; i < nset; i++)
        if (strcmp(set[i].kernel, kernel) == 0 && n >= set[i].n_min && n <= set[i].n_max) return &set[i];
    return NULL;
}

static const Setting *lookup(const patc_reducer *r, long long n)
{
    const Setting *s = rt_tuning_find(r->set, r->nset, r->kernel, n);
    return s ? s : r->scan ? &decl.scan : &decl.reducer;
}

patc_status patc_tuning_lookup(patc_ctx *ctx, const char *path, const char *kernel, long long n,
                               patc_tuning_line *out, int *found)
{
    if (!ctx) return PATC_ERR_INVALID;
    if (!path || !kernel || !out || !found) return rt_fail(ctx, PATC_ERR_INVALID, "patc_tuning_lookup: a NULL argument");
    *found = 0;
    Setting *set;
    int nset;
    patc_status st = rt_tuning_load(ctx, path, &set, &nset);
    const Setting *s = st == PATC_OK ? rt_tuning_find(set, nset, kernel, n) : NULL;
    if (s) {
        *out = *s;
        *found = 1;
    }
    free(set); /* rt_tuning_load leaves what it read so far in set, also when it fails */
    return st;
}

static long long def_value(const Setting *s, const char *name)
{
    for (int i = 0; i < s->ndefs; i++)
        if (strcmp(s->names[i], name) == 0) return s->values[i];
    return 0;
}

/* ---------------------------------------------------------------- variants */

static void variant_free(patc_reducer *r, Variant *v)
{
    if (r->plan_v == v) { /* the cached plan launches this variant's kernel */
        rt_plan_close(r->plan);
        r->plan = NULL;
        r->plan_v = NULL;
    }
    patc_program_free(v->prog);
}

/* The kernel a setting runs. */
static const char *setting_kernel(const patc_reducer *r, const Setting *s) { return s->use[0] ? s->use : r->kernel; }

/* The program a setting's kernel is in: the reducer's, or for kernel=FILE:OTHER the file
 * FILE, relative to the directory of the reducer's program unless absolute (as imports
 * are); *kernel is then OTHER. The path is malloc'ed (NULL: out of memory). */
static char *setting_program(const patc_reducer *r, const char *kn, const char **kernel)
{
    const char *colon = strrchr(kn, ':');
    *kernel = kn;
    if (!colon) return lang_strdup(r->path);
    *kernel = colon + 1;
    size_t fl = (size_t)(colon - kn);
    const char *slash = kn[0] == '/' ? NULL : strrchr(r->path, '/');
    size_t dl = slash ? (size_t)(slash - r->path) + 1 : 0;
    char *p = lang_malloc(dl + fl + 1);
    if (!p) return NULL;
    memcpy(p, r->path, dl);
    memcpy(p + dl, kn, fl);
    p[dl + fl] = 0;
    return p;
}

/* The compiled kernel for a setting's kernel and -D values (compiled once per reducer). */
static patc_status variant_for(patc_reducer *r, const Setting *s, Variant **out)
{
    const char *kn = setting_kernel(r, s);
    int minb = r->scan && s->blocks_per_sm > 1 ? s->blocks_per_sm : 0;
    for (int i = 0; i < r->nvar; i++) {
        Variant *v = &r->var[i];
        if (v->ndefs == s->ndefs && v->min_blocks == minb && v->evict_first == s->evict_first && strcmp(v->kname, kn) == 0 &&
            memcmp(v->values, s->values, sizeof(long long) * (size_t)s->ndefs) == 0) {
            *out = v;
            return PATC_OK;
        }
    }
    if (r->nvar == MAX_VARIANTS) variant_free(r, &r->var[--r->nvar]);
    Variant *v = &r->var[r->nvar];
    memset(v, 0, sizeof *v);
    if (strlen(kn) >= sizeof v->kname) return rt_fail(r->ctx, PATC_ERR_INVALID, "kernel name too long: %s", kn);
    strcpy(v->kname, kn);
    patc_define defs[MAX_DEFS];
    for (int i = 0; i < s->ndefs; i++) defs[i] = (patc_define){s->names[i], s->values[i]};
    patc_compile_options opts = {.min_blocks = minb, .evict_first = s->evict_first};
    const char *kname;
    char *path = setting_program(r, kn, &kname);
    if (!path) return rt_fail(r->ctx, PATC_ERR_NO_MEMORY, "out of memory");
    if (!*kname || kname == kn + 1) {
        free(path);
        return rt_fail(r->ctx, PATC_ERR_INVALID, "kernel=%s: give FILE:KERNEL, or a kernel of %s", kn, r->path);
    }
    patc_status st = patc_program_compile(r->ctx, path, defs, s->ndefs, &opts, &v->prog);
    free(path);
    if (st == PATC_OK) st = patc_get_kernel(v->prog, kname, &v->k);
    if (st == PATC_OK && r->scan) {
        v->len_nat = patc_kernel_length_nat(v->k);
        v->grid_nat = -1;
        if (v->len_nat < 0 || patc_kernel_num_nats(v->k) != 1 || patc_kernel_num_outputs(v->k) != 1)
            st = rt_fail(r->ctx, PATC_ERR_INVALID, "kernel %s is not a tunable scan: it must take one array of length n "
                         "and give one array, with no nats besides n once the settings are applied", kn);
    } else if (st == PATC_OK && !rt_kernel_roles(v->k, &v->len_nat, &v->grid_nat))
        st = rt_fail(r->ctx, PATC_ERR_INVALID, "kernel %s is not a tunable reduction: it must take one array of length "
                     "n, have a grid of (g, 1, 1) or a fixed grid, and no nats besides n and g once the settings "
                     "are applied", kn);
    if (st != PATC_OK) {
        patc_program_free(v->prog);
        return st;
    }
    v->ndefs = s->ndefs;
    v->min_blocks = minb;
    v->evict_first = s->evict_first;
    memcpy(v->values, s->values, sizeof(long long) * (size_t)s->ndefs);
    r->nvar++;
    *out = v;
    return PATC_OK;
}

/* The block count of a fixed grid (0 if the kernel's rules fail, which they cannot
 * for a kernel that rt_kernel_roles accepted). */
static long long fixed_grid(const Variant *v)
{
    patc_launch_config lc;
    long long one = 1;
    if (patc_kernel_launch_dims(v->k, &one, &lc) != PATC_OK) return 0;
    return (long long)lc.grid[0] * (lc.grid[1] ? lc.grid[1] : 1) * (lc.grid[2] ? lc.grid[2] : 1);
}

/* grid = min(bps * SMs, ceil(n / elements a block reads a trip)), at least 1 */
static long long grid_for(int sms, const Setting *s, long long n)
{
    long long eb = def_value(s, decl.reducer.names[0]);
    long long g = (long long)s->blocks_per_sm * (sms > 0 ? sms : 1);
    if (eb > 0 && (n + eb - 1) / eb < g) g = (n + eb - 1) / eb;
    return g < 1 ? 1 : g;
}

/* A reducer, or the reducer inside a patc_scan (scan: its kernels have no grid nat). */
static patc_status tuned_create(patc_ctx *ctx, const char *path, const char *kernel, const char *tuning_file,
                                bool scan, patc_reducer **out)
{
    if (!ctx || !out) return PATC_ERR_INVALID;
    *out = NULL;
    if (need_decl(ctx) != PATC_OK) return PATC_ERR_INVALID;
    if (!path || !kernel)
        return rt_fail(ctx, PATC_ERR_INVALID, "%s: no program or kernel", scan ? "patc_scan_create" : "patc_reducer_create");
    patc_reducer *r = scan ? (patc_reducer *)lang_calloc(1, sizeof(patc_scan)) : lang_calloc(1, sizeof *r);
    if (!r) return rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
    r->scan = scan;
    r->ctx = ctx;
    r->sms = rt_ctx_sm_count(ctx);
    r->path = lang_strdup(path);
    r->kernel = lang_strdup(kernel);
    if (!tuning_file) tuning_file = getenv("PATC_TUNING");
    patc_status s = !r->path || !r->kernel ? (patc_status)rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory")
                                            : rt_tuning_load(ctx, tuning_file, &r->set, &r->nset);
    Variant *v;
    if (s == PATC_OK) s = variant_for(r, lookup(r, 1), &v); /* reject a wrong kernel now, not at launch */
    if (s != PATC_OK) {
        patc_reducer_free(r);
        return s;
    }
    *out = r;
    return PATC_OK;
}

patc_status patc_reducer_create(patc_ctx *ctx, const char *path, const char *kernel, const char *tuning_file,
                                patc_reducer **out)
{
    return tuned_create(ctx, path, kernel, tuning_file, false, out);
}

void patc_reducer_free(patc_reducer *r)
{
    if (!r) return;
    for (int i = 0; i < r->nvar; i++) variant_free(r, &r->var[i]);
    free(r->set);
    free(r->path);
    free(r->kernel);
    free(r);
}

/* The kernel and nat values for n. */
static patc_status prepare_n(patc_reducer *r, long long n, Variant **v, long long nats[2], const Setting **used)
{
    if (n < 1) return rt_fail(r->ctx, PATC_ERR_INVALID, "a reduction needs at least one element");
    if (n > PATC_DEFINE_MAX)
        return rt_fail(r->ctx, PATC_ERR_SIZE, "n = %lld is above 2^62 (%lld), the largest size patc handles", n,
                       PATC_DEFINE_MAX);
    const Setting *s = lookup(r, n);
    patc_status st = variant_for(r, s, v);
    if (st != PATC_OK) return st;
    nats[(*v)->len_nat] = n;
    if ((*v)->grid_nat >= 0) nats[(*v)->grid_nat] = grid_for(r->sms, s, n);
    if (used) *used = s;
    return PATC_OK;
}

/* Enqueue the reduction (or, for a scan, the one launch) of input[0..n) into output.
 * The same call as the last one: its plan stands (the settings never change after
 * creation, and a variant's eviction closes the plan), so the host does nothing but
 * the launches; an idle GPU waits for every nanosecond spent here. */
static patc_status enqueue_planned(patc_reducer *r, patc_buffer *input, long long n, patc_buffer *output,
                                   const char *fn)
{
    if (r->plan && n == r->plan_n && input == r->plan_in && output == r->plan_out) return (patc_status)rt_plan_fire(r->plan);
    if (!input || !output) return rt_fail(r->ctx, PATC_ERR_INVALID, "%s: no input or output buffer", fn);
    Variant *v;
    long long nats[2];
    patc_status s = prepare_n(r, n, &v, nats, NULL);
    if (s != PATC_OK) return s;
    rt_plan_close(r->plan);
    r->plan = NULL;
    r->plan_v = NULL;
    s = (patc_status)(r->scan ? rt_plan_single(v->k, nats, input, output, &r->plan)
                              : rt_plan_open(v->k, nats, input, n, output, &r->plan));
    if (s != PATC_OK) return s;
    r->plan_v = v;
    r->plan_n = n;
    r->plan_in = input;
    r->plan_out = output;
    return (patc_status)rt_plan_fire(r->plan);
}

patc_status patc_reducer_enqueue(patc_reducer *r, patc_buffer *input, long long n, patc_buffer *output)
{
    return r ? enqueue_planned(r, input, n, output, "patc_reducer_enqueue") : PATC_ERR_INVALID;
}

patc_status patc_reducer_run(patc_reducer *r, patc_buffer *input, long long n, void *host_result)
{
    if (!r) return PATC_ERR_INVALID;
    Variant *v = NULL; /* set when prepare_n succeeds (gcc -O3 cannot tell) */
    long long nats[2];
    patc_status s = prepare_n(r, n, &v, nats, NULL);
    return s != PATC_OK ? s : patc_reduce_to_one(v->k, nats, input, n, host_result, NULL);
}

patc_status patc_reducer_time(patc_reducer *r, patc_buffer *input, long long n, int warmup, int reps,
                              float *median_ms, float *each_ms)
{
    if (!r) return PATC_ERR_INVALID;
    Variant *v = NULL; /* set when prepare_n succeeds (gcc -O3 cannot tell) */
    long long nats[2];
    patc_status s = prepare_n(r, n, &v, nats, NULL);
    return s != PATC_OK ? s : (patc_status)rt_time_reduce(v->k, nats, input, n, warmup, reps, median_ms, each_ms);
}

patc_status patc_reducer_describe(patc_reducer *r, long long n, char *buf, size_t len)
{
    if (!r || !buf || !len) return PATC_ERR_INVALID;
    Variant *v;
    long long nats[2];
    const Setting *s;
    patc_status st = prepare_n(r, n, &v, nats, &s);
    if (st != PATC_OK) return st;
    size_t o = 0;
    if (s->use[0]) o += (size_t)snprintf(buf, len, "kernel=%s ", s->use);
    for (int i = 0; i < s->ndefs && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s=%lld ", s->names[i], s->values[i]);
    patc_launch_config lc;
    if (r->scan && o < len && v->min_blocks)
        o += (size_t)snprintf(buf + o, len - o, "min_blocks=%d ", v->min_blocks);
    if (o < len && v->evict_first) o += (size_t)snprintf(buf + o, len - o, "evict_first ");
    if (r->scan && o < len && patc_kernel_launch_dims(v->k, nats, &lc) == PATC_OK)
        snprintf(buf + o, len - o, "grid=%u%s", lc.grid[0], s == &decl.scan ? " (default setting)" : "");
    else if (o < len)
        snprintf(buf + o, len - o, "blocks_per_sm=%d grid=%s%lld%s", s->blocks_per_sm, v->grid_nat >= 0 ? "" : "fixed ",
                 v->grid_nat >= 0 ? nats[v->grid_nat] : fixed_grid(v), s == &decl.reducer ? " (default setting)" : "");
    return PATC_OK;
}

/* ---------------------------------------------------------------- tuned scans */

patc_status patc_scan_create(patc_ctx *ctx, const char *path, const char *kernel, const char *tuning_file,
                             patc_scan **out)
{
    patc_reducer *r;
    if (out) *out = NULL;
    patc_status s = tuned_create(ctx, path, kernel, tuning_file, true, &r);
    if (s == PATC_OK) *out = (patc_scan *)r;
    return s;
}

void patc_scan_free(patc_scan *s)
{
    if (s) patc_reducer_free(&s->r);
}

patc_status patc_scan_enqueue(patc_scan *sc, patc_buffer *input, patc_buffer *output, long long n, void *stream)
{
    if (!sc) return PATC_ERR_INVALID;
    patc_set_stream(sc->r.ctx, stream);
    return enqueue_planned(&sc->r, input, n, output, "patc_scan_enqueue");
}

patc_status patc_scan_describe(patc_scan *sc, long long n, char *buf, size_t len)
{
    return sc ? patc_reducer_describe(&sc->r, n, buf, len) : PATC_ERR_INVALID;
}

/* ---------------------------------------------------------------- the tuner */

/* The sizes the best setting for sizes[i] covers: from past the previous one's range
 * up to the middle between sizes[i] and the next size (the last: up to `last`). */
void rt_tuning_cover(patc_tuning_line *best, const long long *sizes, int i, int count, long long last)
{
    best[i].n_min = i == 0 ? 1 : best[i - 1].n_max + 1;
    best[i].n_max = i + 1 == count ? last : sizes[i] + (sizes[i + 1] - sizes[i]) / 2;
}

/* The search space: elemsWarp = 32 lanes x 4-wide vectors x {1, 2, 4, 8} loads per lane
 * per trip; {4, 8, 16} warps per block; {1, 2, 4, 8, 16} blocks per SM, as far as
 * 2048 threads per SM allow. */
static const long long tune_ew[] = {128, 256, 512, 1024};
static const int tune_warps[] = {4, 8, 16};
static const int tune_bps[] = {1, 2, 4, 8, 16};
enum { TUNE_SHAPES = 12, MAX_CANDIDATES = TUNE_SHAPES * (5 + MAX_ALTS) };

/* One launch the tuner times: a setting and its plan for the current size. */
typedef struct Candidate {
    Setting s;
    long long g;
    RtPlan *plan;
} Candidate;

/* The candidates for size n: every shape of the main kernel with each blocks-per-SM
 * count that gives a new grid, and every shape of each fixed-grid alternative whose
 * grid reads n in at most 16 trips (beyond that one block is far behind). */
static patc_status candidates_for(patc_reducer *r, const char *const *alts, int nalts, long long n, patc_buffer *in,
                                  patc_buffer *out, Candidate *cs, int *ncs)
{
    patc_status st = PATC_OK;
    *ncs = 0;
    for (int k = -1; st == PATC_OK && k < nalts; k++)
        for (int a = 0; st == PATC_OK && a < TUNE_SHAPES; a++) {
            int w = tune_warps[a % 3];
            long long ew = tune_ew[a / 3];
            Setting s = {.blocks_per_sm = 1, .ndefs = 2, .values = {ew * w, ew}};
            memcpy(s.names, decl.reducer.names, sizeof s.names[0] * 2);
            snprintf(s.kernel, sizeof s.kernel, "%s", r->kernel);
            if (k >= 0) snprintf(s.use, sizeof s.use, "%s", alts[k]);
            Variant *v;
            if ((st = variant_for(r, &s, &v)) != PATC_OK) break;
            long long last_g = -1;
            for (size_t c = 0; st == PATC_OK && c < sizeof tune_bps / sizeof *tune_bps; c++) {
                if (tune_bps[c] * 32 * w > 2048) break;
                s.blocks_per_sm = tune_bps[c];
                long long g = v->grid_nat >= 0 ? grid_for(r->sms, &s, n) : fixed_grid(v);
                if (g == last_g) continue; /* the same launch as the last one */
                last_g = g;
                if (v->grid_nat < 0 && n > 16 * s.values[0] * g) break;
                long long nats[2];
                nats[v->len_nat] = n;
                if (v->grid_nat >= 0) nats[v->grid_nat] = g;
                Candidate *cd = &cs[(*ncs)++];
                cd->s = s;
                cd->g = g;
                st = (patc_status)rt_plan_open(v->k, nats, in, n, out, &cd->plan);
                if (v->grid_nat < 0) break; /* blocks per SM do not matter */
            }
        }
    return st;
}

patc_status patc_tune(patc_ctx *ctx, const char *path, const char *kernel, const char *const *alts, int nalts,
                      const long long *sizes, int count, int reps, const char *out_file, FILE *log)
{
    if (!ctx || !path || !kernel || !sizes || count < 1 || reps < 1 || !out_file || nalts < 0 || (nalts && !alts))
        return PATC_ERR_INVALID;
    if (nalts > MAX_ALTS) return rt_fail(ctx, PATC_ERR_INVALID, "patc_tune: at most %d alternative kernels", MAX_ALTS);
    patc_status st = patc_device_status(ctx);
    if (st != PATC_OK) return st;
    long long maxn = 0;
    for (int i = 0; i < count; i++) {
        if (sizes[i] < 2 || (i && sizes[i] <= sizes[i - 1]))
            return rt_fail(ctx, PATC_ERR_INVALID, "patc_tune: sizes must be at least 2 and increasing");
        if (sizes[i] > PATC_DEFINE_MAX)
            return rt_fail(ctx, PATC_ERR_SIZE, "patc_tune: size %lld is above 2^62 (%lld)", sizes[i], PATC_DEFINE_MAX);
        if (sizes[i] > maxn) maxn = sizes[i];
    }
    patc_reducer *r;
    if ((st = patc_reducer_create(ctx, path, kernel, NULL, &r)) != PATC_OK) return st;
    Setting *best = lang_calloc((size_t)count, sizeof *best);
    float *best_ms = lang_malloc(sizeof *best_ms * (size_t)count);
    Candidate *cs = lang_calloc(MAX_CANDIDATES, sizeof *cs);
    float *ms = lang_malloc(sizeof *ms * MAX_CANDIDATES);
    long long *best_g = lang_calloc((size_t)count, sizeof *best_g);
    patc_buffer *in = NULL, *out = NULL;
    patc_type ty;
    size_t esz = 0;
    if (!best || !best_ms || !cs || !ms || !best_g) st = rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
    if (st == PATC_OK) st = patc_kernel_input_info(r->var[0].k, 0, (long long[2]){1, 1}, &ty, NULL, NULL);
    if (st == PATC_OK) {
        esz = patc_type_size(ty);
        st = patc_buffer_alloc(ctx, (size_t)maxn * esz, &in);
    }
    if (st == PATC_OK) st = patc_buffer_zero(in);
    if (st == PATC_OK) st = patc_buffer_alloc(ctx, esz, &out);
    for (int i = 0; st == PATC_OK && i < count; i++) {
        int ncs = 0;
        st = candidates_for(r, alts, nalts, sizes[i], in, out, cs, &ncs);
        RtPlan *plans[MAX_CANDIDATES];
        for (int j = 0; j < ncs; j++) plans[j] = cs[j].plan;
        if (st == PATC_OK) st = (patc_status)rt_time_plans(ctx, plans, ncs, reps / 10 + 2, reps, ms, NULL);
        best_ms[i] = 1e30f;
        for (int j = 0; st == PATC_OK && j < ncs; j++) {
            const Setting *s = &cs[j].s;
            if (log)
                fprintf(log, "tune %s n=%lld %s%s%s%s=%lld %s=%lld blocks_per_sm=%d grid=%lld: %.2f us\n", kernel,
                        sizes[i], s->use[0] ? "kernel=" : "", s->use, s->use[0] ? " " : "", s->names[0], s->values[0],
                        s->names[1], s->values[1], s->blocks_per_sm, cs[j].g, ms[j] * 1e3);
            if (ms[j] < best_ms[i]) {
                best_ms[i] = ms[j];
                best[i] = *s;
                best_g[i] = cs[j].g;
            }
        }
        for (int j = 0; j < ncs; j++) rt_plan_close(cs[j].plan);
    }
    /* each size covers up to the middle between it and the next one */
    if (st == PATC_OK) {
        FILE *f = rt_tuning_append(ctx, out_file, &st);
        for (int i = 0; f && i < count; i++) {
            rt_tuning_cover(best, sizes, i, count, 2147483647LL);
            fprintf(f, "%s %lld %lld %d %s%s%s%s=%lld %s=%lld # %.2f us at n=%lld, grid %lld on %d SMs\n",
                    kernel, best[i].n_min, best[i].n_max, best[i].blocks_per_sm, best[i].use[0] ? "kernel=" : "", best[i].use, best[i].use[0] ? " " : "",
                    best[i].names[0], best[i].values[0], best[i].names[1], best[i].values[1], best_ms[i] * 1e3, sizes[i],
                    best_g[i], r->sms);
        }
        if (f && fclose(f) != 0) st = rt_fail(ctx, PATC_ERR_IO, "cannot write %s: %s", out_file, strerror(errno));
    }
    patc_buffer_free(in);
    patc_buffer_free(out);
    free(best);
    free(best_ms);
    free(best_g);
    free(cs);
    free(ms);
    patc_reducer_free(r);
    return st;
}

/* ---------------------------------------------------------------- the scan tuner */

/* The scans' search space: 128, 256 or 512 threads, 5 to 25 elements each (tiles of 640
 * to 12800 elements); odd counts keep a thread's run of shared memory off the banks of
 * its neighbours'. Each shape also with __launch_bounds__'s minimum of 2048 / nt blocks
 * per SM (BLOCKS_PER_SM in the line; 1 is no minimum): at 40 registers a 512x25 scan
 * held 3 blocks where its shared memory allows 4, and 32 registers, which 4 need, cost
 * it no spill (bench/results/2026-11-23-nvidia-h200-scan-launch-bounds). */
static const int scan_nt[] = {128, 256, 512};
static const int scan_ipt[] = {5, 9, 15, 25};
/* scanPipe's shapes (w, ipt, s) for a pipe alternative: the best of the hand-written
 * prototype's sweep on an H200 (16, 12, 9) and its neighbours, each filling most of
 * sm_90's 227 KiB (bench/results/2026-11-23-nvidia-h200-wspec) */
static const int pipe_shape[][3] = {{16, 12, 9}, {16, 20, 5}, {24, 12, 5}, {8, 12, 16}};
enum {
    SCAN_NT = sizeof scan_nt / sizeof scan_nt[0], SCAN_IPT = sizeof scan_ipt / sizeof scan_ipt[0],
    PIPE_SHAPES = sizeof pipe_shape / sizeof pipe_shape[0], SCAN_SHAPES = SCAN_NT * SCAN_IPT * 2 + PIPE_SHAPES
};

/* A launch of the scan with setting s on n elements of in into out, planned for timing. */
static patc_status scan_plan(patc_reducer *r, const Setting *s, long long n, patc_buffer *in, patc_buffer *out,
                             RtPlan **plan)
{
    Variant *v;
    patc_status st = variant_for(r, s, &v);
    return st != PATC_OK ? st : (patc_status)rt_plan_single(v->k, (long long[1]){n}, in, out, plan);
}

/* For each n: every shape compiled once (a variant of the scan's settings), launched
 * on an input of nonzero bytes, the shapes interleaved run by run, each run alone between CUDA
 * events; the fastest median per size goes to out_file, each covering the sizes up to
 * the middle between it and the next. */
/* A setting's -D values as "name=v name=v", after "kernel=OTHER " when it has one */
static void setting_text(const Setting *s, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    if (s->use[0]) o += (size_t)snprintf(buf, len, "kernel=%s ", s->use);
    for (int i = 0; i < s->ndefs && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s=%lld", i ? " " : "", s->names[i], s->values[i]);
}

patc_status patc_tune_scan(patc_ctx *ctx, const char *path, const char *kernel, const char *pipe, const long long *sizes,
                           int count, int reps, const char *out_file, FILE *log)
{
    if (!ctx || !path || !kernel || !sizes || count < 1 || reps < 1 || !out_file) return PATC_ERR_INVALID;
    if (pipe && (strlen(pipe) >= sizeof(((Setting *)0)->use) || !strchr(pipe, ':')))
        return rt_fail(ctx, PATC_ERR_INVALID, "patc_tune_scan: the pipe alternative '%s' is not FILE:KERNEL", pipe);
    patc_status st = patc_device_status(ctx);
    if (st != PATC_OK) return st;
    long long maxn = 0;
    for (int i = 0; i < count; i++) {
        if (sizes[i] < 1 || (i && sizes[i] <= sizes[i - 1]))
            return rt_fail(ctx, PATC_ERR_INVALID, "patc_tune_scan: sizes must be at least 1 and increasing");
        if (sizes[i] > PATC_DEFINE_MAX)
            return rt_fail(ctx, PATC_ERR_SIZE, "patc_tune_scan: size %lld is above 2^62 (%lld)", sizes[i], PATC_DEFINE_MAX);
        if (sizes[i] > maxn) maxn = sizes[i];
    }
    patc_scan *sc;
    if ((st = patc_scan_create(ctx, path, kernel, NULL, &sc)) != PATC_OK) return st;
    patc_reducer *r = &sc->r;
    Setting best[64];
    float best_ms[64];
    if (count > 64) st = rt_fail(ctx, PATC_ERR_INVALID, "patc_tune_scan: at most 64 sizes");
    patc_buffer *in = NULL, *out = NULL;
    patc_type ty;
    if (st == PATC_OK) st = patc_kernel_input_info(r->var[0].k, 0, (long long[1]){1}, &ty, NULL, NULL);
    size_t bytes = st == PATC_OK ? (size_t)maxn * patc_type_size(ty) : 0;
    if (st == PATC_OK) st = patc_buffer_alloc(ctx, bytes, &in);
    if (st == PATC_OK) { /* not zeros: every byte 0x3c (f32 0.0115, i32 1010580540) */
        unsigned char *h = lang_malloc(bytes);
        if (!h) st = rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
        else {
            memset(h, 0x3c, bytes);
            st = patc_buffer_upload(in, h, bytes);
            free(h);
        }
    }
    if (st == PATC_OK) st = patc_buffer_alloc(ctx, bytes, &out);
    for (int i = 0; st == PATC_OK && i < count; i++) {
        Setting cs[SCAN_SHAPES];
        RtPlan *plans[SCAN_SHAPES];
        float med[SCAN_SHAPES];
        int nc = 0;
        for (int a = 0; a < SCAN_NT && st == PATC_OK; a++)
            for (int b = 0; b < SCAN_IPT * 2 && st == PATC_OK; b++) {
                Setting s = {.blocks_per_sm = b % 2 ? 2048 / scan_nt[a] : 1, .ndefs = 2,
                             .values = {scan_nt[a], scan_ipt[b / 2]}};
                memcpy(s.names, decl.scan.names, sizeof s.names[0] * 2);
                strcpy(s.kernel, r->kernel);
                if ((st = scan_plan(r, &s, sizes[i], in, out, &plans[nc])) != PATC_OK) break;
                cs[nc++] = s;
            }
        for (int a = 0; pipe && a < PIPE_SHAPES && st == PATC_OK; a++) {
            Setting s = {.blocks_per_sm = 1, .ndefs = 3, .values = {pipe_shape[a][0], pipe_shape[a][1], pipe_shape[a][2]}};
            memcpy(s.names, decl.pipe, sizeof decl.pipe);
            strcpy(s.kernel, r->kernel);
            strcpy(s.use, pipe);
            if ((st = scan_plan(r, &s, sizes[i], in, out, &plans[nc])) != PATC_OK) break;
            cs[nc++] = s;
        }
        if (st == PATC_OK) st = (patc_status)rt_time_plans(ctx, plans, nc, reps / 10 + 2, reps, med, NULL);
        best_ms[i] = 1e30f;
        for (int j = 0; st == PATC_OK && j < nc; j++) {
            char txt[256];
            setting_text(&cs[j], txt, sizeof txt);
            if (log) fprintf(log, "tune %s n=%lld %s min_blocks=%d: %.2f us\n", kernel, sizes[i], txt, cs[j].blocks_per_sm, med[j] * 1e3);
            if (med[j] < best_ms[i]) {
                best_ms[i] = med[j];
                best[i] = cs[j];
            }
        }
        for (int j = 0; j < nc; j++) rt_plan_close(plans[j]);
        /* the best shape against itself with evict_first, interleaved (scanPipe's loads are
         * bulk copies: evict_first does not apply to it) */
        if (st == PATC_OK && !best[i].use[0]) {
            Setting pair[2] = {best[i], best[i]};
            pair[1].evict_first = 1;
            nc = 0;
            for (int j = 0; j < 2 && st == PATC_OK; j++)
                if ((st = scan_plan(r, &pair[j], sizes[i], in, out, &plans[nc])) == PATC_OK) nc++;
            if (st == PATC_OK) st = (patc_status)rt_time_plans(ctx, plans, nc, reps / 10 + 2, reps, med, NULL);
            if (st == PATC_OK && log)
                fprintf(log, "tune %s n=%lld %s=%lld %s=%lld min_blocks=%d: %.2f us, with evict_first %.2f us\n", kernel,
                        sizes[i], best[i].names[0], best[i].values[0], best[i].names[1], best[i].values[1],
                        best[i].blocks_per_sm, med[0] * 1e3, med[1] * 1e3);
            if (st == PATC_OK && med[1] < med[0]) {
                best[i] = pair[1];
                best_ms[i] = med[1];
            } else if (st == PATC_OK) best_ms[i] = med[0];
            for (int j = 0; j < nc; j++) rt_plan_close(plans[j]);
        }
    }
    if (st == PATC_OK) {
        FILE *f = rt_tuning_append(ctx, out_file, &st);
        for (int i = 0; f && i < count; i++) {
            rt_tuning_cover(best, sizes, i, count, 2147483647LL);
            char txt[256];
            setting_text(&best[i], txt, sizeof txt);
            fprintf(f, "%s %lld %lld %d%s %s # %.2f us at n=%lld\n", kernel, best[i].n_min, best[i].n_max,
                    best[i].blocks_per_sm, best[i].evict_first ? " evict_first" : "", txt, best_ms[i] * 1e3, sizes[i]);
        }
        if (f && fclose(f) != 0) st = rt_fail(ctx, PATC_ERR_IO, "cannot write %s: %s", out_file, strerror(errno));
    }
    patc_buffer_free(in);
    patc_buffer_free(out);
    patc_scan_free(sc);
    return st;
}
