/* tune.c: `patc tune FILE --kernel K [--alt A]... [--kernel K2 [--alt A2]...]...
 * [--scan S [--pipe FILE2:P]]... [--out SETTINGS] [--min-log A] [--max-log B] [--step-log S] [--reps R]`:
 * a --scan is a single-pass scan kernel of FILE whose tile shape (nt, ipt) and launch-bounds
 * minimum (min_blocks) are searched, and then whether the best is faster with evict_first
 * (patc_tune_scan; the settings patc_scan_* reads); a --pipe after it is a scanPipe
 * kernel of the same scan, in FILE2 (relative to FILE's directory), whose shapes are
 * timed with them. Otherwise: search the
 * launch settings of single-launch reductions on this GPU (an --alt is another kernel
 * of FILE that computes the preceding --kernel's reduction, tried at the sizes it
 * suits) and write the best per size range to SETTINGS, which the runtime
 * (patc_reducer_*) reads at launch. The search itself is patc_tune
 * in runtime/rt_tune.c. `patc tune --algo NAME [--type T]...` tunes a ready-made
 * algorithm of libpatrt over the shapes patterns/algorithms.tune declares
 * (patc_algo_tune in runtime/rt_algo.c). */
#include "../runtime/patc.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage_error(const char *msg)
{
    fprintf(stderr, "patc tune: %s\nusage: patc tune FILE --kernel K [--alt A]... [--kernel K [--alt A]...]... "
                    "[--scan S [--pipe FILE2:P]]... [--out SETTINGS] [--min-log A] [--max-log B] [--step-log S] "
                    "[--reps R]\n       patc tune --algo NAME [--type T]... [--out SETTINGS] [--min-log A] ...\n", msg);
    return 2;
}

/* Parse a small positive integer option value. */
static bool int_arg(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == 0 || *end || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

/* --algo NAME --type T: the spec of a ready-made algorithm; a filter's or partition's
 * predicate is x > t */
static bool algo_spec(const char *name, const char *type, patc_algo_spec *s)
{
    static const char *const tn[] = {"f32", "f64", "i32", "u32", "i64", "u64"};
    static const struct { const char *name; patc_algorithm alg; patc_op op; } an[] = {
        {"reduce", PATC_ALGO_REDUCE, PATC_OP_SUM}, {"reduce_min", PATC_ALGO_REDUCE, PATC_OP_MIN},
        {"reduce_max", PATC_ALGO_REDUCE, PATC_OP_MAX}, {"inclusive_scan", PATC_ALGO_INCLUSIVE_SCAN, PATC_OP_SUM},
        {"exclusive_scan", PATC_ALGO_EXCLUSIVE_SCAN, PATC_OP_SUM}, {"filter", PATC_ALGO_FILTER, PATC_OP_SUM},
        {"partition", PATC_ALGO_PARTITION, PATC_OP_SUM}, {"partition_stable", PATC_ALGO_PARTITION_STABLE, PATC_OP_SUM},
    };
    memset(s, 0, sizeof *s);
    int t = -1;
    for (int i = 0; i < 6; i++)
        if (strcmp(type, tn[i]) == 0) t = i;
    for (size_t i = 0; t >= 0 && i < sizeof an / sizeof an[0]; i++)
        if (strcmp(name, an[i].name) == 0) {
            s->algorithm = an[i].alg;
            s->op = an[i].op;
            s->type = (patc_type)t;
            if (an[i].alg >= PATC_ALGO_FILTER) {
                s->lambda = "fun(x => x > t)";
                s->nscalars = 1;
                s->scalar_names[0] = "t";
                s->scalar_types[0] = (patc_type)t;
            }
            return true;
        }
    return false;
}

int cli_tune(int argc, char **argv)
{
    const char *file = NULL, *out = "patc-tuning.conf", *kernels[16], *alts[16][3], *scans[16], *pipes[16] = {0};
    const char *algos[16], *types[16];
    int nk = 0, nalt[16] = {0}, nsc = 0, na = 0, lo = 10, hi = 28, step = 2, reps = 50;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--kernel") == 0 && v) {
            if (nk == 16) return usage_error("at most 16 kernels");
            kernels[nk++] = v;
            i++;
        } else if (strcmp(a, "--scan") == 0 && v) {
            if (nsc == 16) return usage_error("at most 16 scans");
            scans[nsc++] = v;
            i++;
        } else if (strcmp(a, "--pipe") == 0 && v) {
            if (!nsc) return usage_error("--pipe belongs to the --scan before it");
            if (pipes[nsc - 1]) return usage_error("at most one --pipe per --scan");
            if (!strchr(v, ':')) return usage_error("--pipe wants FILE:KERNEL (a scanPipe kernel, FILE relative to FILE's directory)");
            pipes[nsc - 1] = v;
            i++;
        } else if (strcmp(a, "--algo") == 0 && v) {
            if (na == 16) return usage_error("at most 16 --algo");
            types[na] = "f32";
            algos[na++] = v;
            i++;
        } else if (strcmp(a, "--type") == 0 && v) {
            if (!na) return usage_error("--type belongs to the --algo before it");
            types[na - 1] = v;
            i++;
        } else if (strcmp(a, "--alt") == 0 && v) {
            if (!nk) return usage_error("--alt belongs to the --kernel before it");
            if (nalt[nk - 1] == 3) return usage_error("at most 3 --alt per --kernel");
            alts[nk - 1][nalt[nk - 1]++] = v;
            i++;
        } else if (strcmp(a, "--out") == 0 && v) {
            out = v;
            i++;
        } else if (strcmp(a, "--min-log") == 0 && v) {
            if (!int_arg(v, 1, 30, &lo)) return usage_error("--min-log wants 1..30");
            i++;
        } else if (strcmp(a, "--max-log") == 0 && v) {
            if (!int_arg(v, 0, 30, &hi)) return usage_error("--max-log wants 0..30");
            i++;
        } else if (strcmp(a, "--step-log") == 0 && v) {
            if (!int_arg(v, 1, 30, &step)) return usage_error("--step-log wants 1..30");
            i++;
        } else if (strcmp(a, "--reps") == 0 && v) {
            if (!int_arg(v, 1, 100000, &reps)) return usage_error("--reps wants 1..100000");
            i++;
        } else if (a[0] == '-') {
            return usage_error("unknown option or missing value");
        } else if (!file) {
            file = a;
        } else {
            return usage_error("more than one FILE");
        }
    }
    if (na && (file || nk || nsc)) return usage_error("--algo tunes libpatrt's ready-made algorithms: no FILE, --kernel or --scan with it");
    if (!na && (!file || (!nk && !nsc))) return usage_error("need FILE and at least one --kernel or --scan, or --algo");
    patc_algo_spec specs[16];
    for (int i = 0; i < na; i++)
        if (!algo_spec(algos[i], types[i], &specs[i]))
            return usage_error("--algo wants reduce, reduce_min, reduce_max, inclusive_scan, exclusive_scan, filter, partition or "
                               "partition_stable, and --type f32, f64, i32, u32, i64 or u64");
    if (lo > hi) return usage_error("--min-log is above --max-log");
    long long sizes[31];
    int ns = 0;
    for (int e = lo; e <= hi; e += step) sizes[ns++] = 1LL << e;
    patc_ctx *ctx;
    patc_status s = patc_create(&ctx, 0, 0);
    if (s == PATC_OK) s = patc_device_status(ctx);
    if (s != PATC_OK) {
        fprintf(stderr, "patc tune: error: %s\n", ctx ? patc_last_error(ctx) : patc_status_string(s));
        patc_destroy(ctx);
        return 1;
    }
    char why[128];
    FILE *f = cli_open_output(out, why, sizeof why);
    if (!f) {
        fprintf(stderr, "patc tune: error: cannot write %s: %s\n", out, why);
        patc_destroy(ctx);
        return 1;
    }
    fprintf(f, "# patc tuning settings, written by: patc tune%s%s", file ? " " : "", file ? file : "");
    for (int i = 0; i < na; i++) fprintf(f, " --algo %s --type %s", algos[i], types[i]);
    for (int i = 0; i < nk; i++) {
        fprintf(f, " --kernel %s", kernels[i]);
        for (int j = 0; j < nalt[i]; j++) fprintf(f, " --alt %s", alts[i][j]);
    }
    for (int i = 0; i < nsc; i++) fprintf(f, " --scan %s%s%s", scans[i], pipes[i] ? " --pipe " : "", pipes[i] ? pipes[i] : "");
    fprintf(f, " --min-log %d --max-log %d --step-log %d --reps %d\n", lo, hi, step, reps);
    fprintf(f, "# device: %d SMs, sm_%d. Format: KERNEL N_MIN N_MAX BLOCKS_PER_SM [kernel=OTHER] [evict_first] NAME=VALUE... "
               "(docs/tuning.md)\n",
            patc_device_sm_count(ctx), patc_get_arch(ctx));
    fclose(f);
    int rc = 0;
    for (int i = 0; i < nk && rc == 0; i++) {
        s = patc_tune(ctx, file, kernels[i], alts[i], nalt[i], sizes, ns, reps, out, stdout);
        if (s != PATC_OK) {
            fprintf(stderr, "patc tune: error: %s\n", patc_last_error(ctx));
            rc = 1;
        }
    }
    for (int i = 0; i < nsc && rc == 0; i++) {
        s = patc_tune_scan(ctx, file, scans[i], pipes[i], sizes, ns, reps, out, stdout);
        if (s != PATC_OK) {
            fprintf(stderr, "patc tune: error: %s\n", patc_last_error(ctx));
            rc = 1;
        }
    }
    for (int i = 0; i < na && rc == 0; i++) {
        /* a filter's and partition's predicate x > t: half the tuner's input (docs/api.md) */
        double t = 0.5;
        long long ti = 49;
        unsigned char tv[8];
        if (specs[i].type == PATC_F32) {
            float f32 = (float)t;
            memcpy(tv, &f32, 4);
        } else if (specs[i].type == PATC_F64) {
            memcpy(tv, &t, 8);
        } else {
            memcpy(tv, &ti, 8); /* little-endian: the low bytes are the value for 4-byte types */
        }
        const void *sc[1] = {tv};
        s = patc_algo_tune(ctx, &specs[i], specs[i].nscalars ? sc : NULL, sizes, ns, reps, out, stdout);
        if (s != PATC_OK) {
            fprintf(stderr, "patc tune: error: %s\n", patc_last_error(ctx));
            rc = 1;
        }
    }
    if (rc == 0) printf("settings written to %s\n", out);
    patc_destroy(ctx);
    return rc;
}
