/* run_data.c: `patc run`'s host data: inputs read from files or made up (--input
 * random), outputs written or summarised, and the comparison of two results
 * (--check-against-cpu). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger inputs or outputs are refused rather than attempted (a typo in -D). */
static const long long MAX_BYTES = 1LL << 36;

/* ---------------------------------------------------------------- host data */

/* splitmix64: a fixed, platform-independent stream, so `--input random` gives the
 * same data everywhere (and on the CPU and GPU sides of one run). */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Rule: floats uniform in [0, 1) (24 or 53 random mantissa bits), integers 0..99,
 * bools 0/1; one stream seeded with RANDOM_SEED fills the inputs in order. */
void run_fill_random(HostData *h, uint64_t *state)
{
    for (long long i = 0; i < h->count; i++) {
        uint64_t r = next_random(state);
        switch (h->type) {
        case PATC_F32: ((float *)h->data)[i] = (float)(r >> 40) * (1.0f / 16777216.0f); break;
        case PATC_F64: ((double *)h->data)[i] = (double)(r >> 11) * (1.0 / 9007199254740992.0); break;
        case PATC_I32: ((int32_t *)h->data)[i] = (int32_t)(r % 100); break;
        case PATC_U32: ((uint32_t *)h->data)[i] = (uint32_t)(r % 100); break;
        case PATC_I64: ((int64_t *)h->data)[i] = (int64_t)(r % 100); break;
        case PATC_U64: ((uint64_t *)h->data)[i] = r % 100; break;
        case PATC_BOOL: ((uint8_t *)h->data)[i] = (uint8_t)(r & 1); break;
        }
    }
}

/* Rule: --input random:LO:HI gives integers uniform in LO..HI (r mod (HI-LO+1) from the
 * stream of `random`, so the same stream; floats hold them exactly), for a test whose
 * result must not depend on the order of additions: sums of small integers of both signs
 * stay exact in f32 where sums of [0,1) values lose everything past 2^24 (an in-order f32
 * sum of 2^28 such values stops at 16777216, 0.875 below the true one). LO and HI are
 * decimal integers with LO <= HI, in the type's range and, for floats, at most 2^24 (f32)
 * or 2^53 (f64) in magnitude; bools and anything else are usage errors. */
bool run_fill_random_range(HostData *h, const char *text, int index, uint64_t *state)
{
    char *end = NULL;
    errno = 0;
    long long lo = strtoll(text, &end, 10), hi = 0;
    bool ok = end != text && *end == ':';
    if (ok) {
        const char *t = end + 1;
        hi = strtoll(t, &end, 10);
        ok = end != t && !*end && !errno && lo <= hi;
    }
    switch (h->type) {
    case PATC_F32: ok = ok && lo >= -(1LL << 24) && hi <= 1LL << 24; break;
    case PATC_F64: ok = ok && lo >= -(1LL << 53) && hi <= 1LL << 53; break;
    case PATC_I32: ok = ok && lo >= INT32_MIN && hi <= INT32_MAX; break;
    case PATC_U32: ok = ok && lo >= 0 && hi <= (long long)UINT32_MAX; break;
    case PATC_I64: break;
    case PATC_U64: ok = ok && lo >= 0; break;
    case PATC_BOOL: ok = false; break;
    }
    if (!ok) {
        run_error(2, "input %d: 'random:%s' is not LO:HI, two integers LO <= HI within %s's exact range", index + 1,
                  text, patc_type_name(h->type));
        return false;
    }
    const uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0: the whole 64-bit range */
    for (long long i = 0; i < h->count; i++) {
        const uint64_t r = next_random(state);
        const long long v = (long long)((uint64_t)lo + (span ? r % span : r));
        switch (h->type) {
        case PATC_F32: ((float *)h->data)[i] = (float)v; break;
        case PATC_F64: ((double *)h->data)[i] = (double)v; break;
        case PATC_I32: ((int32_t *)h->data)[i] = (int32_t)v; break;
        case PATC_U32: ((uint32_t *)h->data)[i] = (uint32_t)v; break;
        case PATC_I64: ((int64_t *)h->data)[i] = v; break;
        case PATC_U64: ((uint64_t *)h->data)[i] = (uint64_t)v; break;
        case PATC_BOOL: break;
        }
    }
    return true;
}

/* Rule: --input value:X sets every element (one, for a scalar parameter) to X, read
 * as C reads a literal of the element's type (strtod, strtoll, strtoull; a bool is
 * true, false, 1 or 0); text that is not wholly such a number, or out of the type's
 * range, is a usage error. */
bool run_fill_value(HostData *h, const char *text, int index)
{
    char *end = NULL;
    double d = 0;
    long long i = 0;
    unsigned long long u = 0;
    bool b = false, ok = *text != 0;
    errno = 0;
    switch (h->type) {
    case PATC_F32: case PATC_F64: d = strtod(text, &end); break;
    case PATC_I32: case PATC_I64: i = strtoll(text, &end, 0); break;
    case PATC_U32: case PATC_U64: u = text[0] == '-' ? (ok = false, 0) : strtoull(text, &end, 0); break;
    case PATC_BOOL:
        b = !strcmp(text, "true") || !strcmp(text, "1");
        ok = b || !strcmp(text, "false") || !strcmp(text, "0");
        break;
    }
    if (end && (*end || errno)) ok = false;
    if (ok && h->type == PATC_F32 && isfinite(d) && fabs(d) > 3.4028234663852886e38) ok = false;
    if (ok && h->type == PATC_I32 && (i < INT32_MIN || i > INT32_MAX)) ok = false;
    if (ok && h->type == PATC_U32 && u > UINT32_MAX) ok = false;
    if (!ok) {
        run_error(2, "input %d: 'value:%s' is not a %s value", index + 1, text, patc_type_name(h->type));
        return false;
    }
    for (long long k = 0; k < h->count; k++) {
        switch (h->type) {
        case PATC_F32: ((float *)h->data)[k] = (float)d; break;
        case PATC_F64: ((double *)h->data)[k] = d; break;
        case PATC_I32: ((int32_t *)h->data)[k] = (int32_t)i; break;
        case PATC_U32: ((uint32_t *)h->data)[k] = (uint32_t)u; break;
        case PATC_I64: ((int64_t *)h->data)[k] = (int64_t)i; break;
        case PATC_U64: ((uint64_t *)h->data)[k] = (uint64_t)u; break;
        case PATC_BOOL: ((uint8_t *)h->data)[k] = b; break;
        }
    }
    return true;
}

/* Allocate a buffer of `count` elements of `type`; false (message printed) when too big. */
bool run_host_alloc(HostData *h, patc_type type, long long count, const char *what)
{
    h->type = type;
    h->count = count;
    long long size = (long long)patc_type_size(type);
    if (count < 0 || count > MAX_BYTES / size) {
        run_error(1, "%s has %lld elements of %s: more than the %lld bytes patc run handles", what, count,
              patc_type_name(type), MAX_BYTES);
        return false;
    }
    h->bytes = (size_t)(count * size);
    /* at least one byte, so that an empty array still has an address */
    if (!(h->data = calloc(h->bytes ? h->bytes : 1, 1))) {
        run_error(1, "out of memory for %s (%zu bytes)", what, h->bytes);
        return false;
    }
    return true;
}

/* Rule: an input file is a regular file (a FIFO or a device is refused at once, never
 * waited on) of raw little-endian data, exactly the parameter's size. */
bool run_read_input(HostData *h, const char *path, int index)
{
    long long size = 0;
    char why[128];
    int fd = cli_open_input(path, &size, why, sizeof why);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        run_error(1, "input %d: cannot open '%s': %s", index + 1, path, fd >= 0 ? strerror(errno) : why);
        if (fd >= 0) close(fd);
        return false;
    }
    if (size != (long long)h->bytes) {
        fclose(f);
        run_error(1, "input %d ('%s'): expected %zu bytes (%lld elements of %s), the file has %lld bytes", index + 1,
                  path, h->bytes, h->count, patc_type_name(h->type), size);
        return false;
    }
    size_t got = fread(h->data, 1, h->bytes, f);
    bool bad = ferror(f) || got != h->bytes;
    fclose(f);
    if (bad) {
        run_error(1, "input %d: cannot read '%s' (it changed while being read?)", index + 1, path);
        return false;
    }
    return true;
}

/* Rule: an output goes where cli_open_output allows (a regular file, /dev/null, a pipe). */
bool run_write_output(const HostData *h, const char *path)
{
    char why[128];
    FILE *f = cli_open_output(path, why, sizeof why);
    if (!f) {
        run_error(1, "cannot write '%s': %s", path, why);
        return false;
    }
    bool ok = fwrite(h->data, 1, h->bytes, f) == h->bytes;
    if (fclose(f) != 0) ok = false;
    if (!ok) run_error(1, "cannot write '%s': %s", path, strerror(errno));
    return ok;
}

/* Element i as a double (for sums and errors). */
double run_elem_double(const HostData *h, long long i)
{
    switch (h->type) {
    case PATC_F32: return ((const float *)h->data)[i];
    case PATC_F64: return ((const double *)h->data)[i];
    case PATC_I32: return ((const int32_t *)h->data)[i];
    case PATC_U32: return ((const uint32_t *)h->data)[i];
    case PATC_I64: return (double)((const int64_t *)h->data)[i];
    case PATC_U64: return (double)((const uint64_t *)h->data)[i];
    case PATC_BOOL: return ((const uint8_t *)h->data)[i];
    }
    return 0;
}

/* Element i exactly as C prints it: floats round-trip, integers in full. */
static void print_elem(FILE *f, const HostData *h, long long i)
{
    switch (h->type) {
    case PATC_F32: fprintf(f, "%.9g", (double)((const float *)h->data)[i]); break;
    case PATC_F64: fprintf(f, "%.17g", ((const double *)h->data)[i]); break;
    case PATC_I32: fprintf(f, "%d", (int)((const int32_t *)h->data)[i]); break;
    case PATC_U32: fprintf(f, "%u", (unsigned)((const uint32_t *)h->data)[i]); break;
    case PATC_I64: fprintf(f, "%lld", (long long)((const int64_t *)h->data)[i]); break;
    case PATC_U64: fprintf(f, "%llu", (unsigned long long)((const uint64_t *)h->data)[i]); break;
    case PATC_BOOL: fprintf(f, "%d", ((const uint8_t *)h->data)[i] ? 1 : 0); break;
    }
}

/* The summary printed without --output: type, count, the first elements, the sum
 * as a double and, for one element, its value. `label` prefixes each line. */
void run_print_summary(const HostData *h, const char *label)
{
    printf("%soutput: %s, %lld element%s\n", label, patc_type_name(h->type), h->count, h->count == 1 ? "" : "s");
    if (h->count > 1) {
        printf("%sfirst:", label);
        for (long long i = 0; i < h->count && i < SHOW_ELEMS; i++) {
            putchar(' ');
            print_elem(stdout, h, i);
        }
        printf("%s\n", h->count > SHOW_ELEMS ? " ..." : "");
    }
    double sum = 0;
    for (long long i = 0; i < h->count; i++) sum += run_elem_double(h, i);
    printf("%ssum: %.17g\n", label, sum);
    if (h->count == 1) {
        printf("%svalue: ", label);
        print_elem(stdout, h, 0);
        putchar('\n');
    }
}

/* Rule: error of element i = |gpu - cpu| / max(|cpu|, 1e-30); the maximum over all
 * elements is reported. Tolerances: f32 1e-5, f64 1e-12 (or tol when it is not 0:
 * --tolerance), integers and bools exact (compared bit for bit, since the double
 * conversion of 64-bit values is inexact). Returns true when within tolerance. */
bool run_compare(const HostData *gpu, const HostData *cpu, double tol)
{
    double maxerr = 0;
    bool exact = !(gpu->type == PATC_F32 || gpu->type == PATC_F64);
    bool same = true;
    size_t es = (size_t)patc_type_size(gpu->type);
    for (long long i = 0; i < gpu->count; i++) {
        double g = run_elem_double(gpu, i), c = run_elem_double(cpu, i), e;
        if (isnan(g) || isnan(c)) e = isnan(g) && isnan(c) ? 0 : INFINITY;
        else if (g == c) e = 0; /* also equal infinities */
        else e = fabs(g - c) / fmax(fabs(c), 1e-30);
        if (e > maxerr || isnan(e)) maxerr = isnan(e) ? INFINITY : e;
        if (exact && memcmp((const char *)gpu->data + (size_t)i * es, (const char *)cpu->data + (size_t)i * es, es))
            same = false;
    }
    if (exact) tol = 0;
    else if (tol == 0) tol = gpu->type == PATC_F32 ? 1e-5 : 1e-12;
    bool ok = exact ? same : maxerr <= tol;
    printf("max relative error: %.3g (tolerance %s%g): %s\n", maxerr, exact ? "exact, " : "", tol,
           ok ? "ok" : "FAIL");
    return ok;
}
