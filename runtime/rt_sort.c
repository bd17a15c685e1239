/* rt_sort.c: the ready-made radix sort of keys and of key-value pairs, ascending or
 * descending (patc_sorter_*, issue 35 items 2 and 4).
 *
 * The sort is patterns/radixsort.rise's (docs/language.md, "Radix sort"): a histogram
 * of all four 8-bit digits in one read of the keys, the scan of each digit's counts,
 * then four multisplit passes, in -> tmp -> out -> tmp -> out. Its program is generated
 * for the key type (three kernels: sortHist, sortScan, sortPass) and compiled once per
 * use: with a cubin on the first enqueue, without one on the first CPU run or size
 * query. The sorter owns its temporary memory (the second buffer of keys and the 2 x
 * 1024 counts), allocated on the first enqueue that needs more and kept until it is
 * freed; the kernels own their scratch (multisplit's look-back words), as every
 * kernel does. patc_sorter_temp_bytes states both. A sorter of pairs has a pass over
 * zip(keys)(values) (rsPassPairs) instead, its values moved as u32 words whatever their
 * type, and a second buffer of values; a descending sorter sorts by the complemented
 * order bits (rsOrd*Desc), which keeps equal keys in input order as the ascending one.
 *
 * Up to SMALL_MAX keys the sort is one launch instead (sortSmall0..2: rsSmall, the
 * sortTiles primitive, one block sorting the whole input in shared memory: 512 threads
 * of 4 keys up to 2048, 1024 of 4 up to 4096, 1024 of 8 up to 8192), which needs no
 * temporary memory.
 */
#include "patc.h"
#include "rt_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pass's tile: 384 threads of 16 keys (multisplit's shape in examples/radixsort.rise):
 * on an H100, one pass over 2^24 keys took 161 us at 384x16, 170 at 256x16, 165 at 512x16
 * and 185 at 256x24; pairs 220 us at 384x16, 249 at 256x16 (bench/results/2026-11-26-nvidia-h100-msvar). */
enum { PASS_NT = 384, PASS_IPT = 16, HIST_KEYS_PER_THREAD = 16, COUNTS_BYTES = 2 * 1024 * 4 };

/* The small sort's tiles: up to SMALL_MAX keys one launch of one block (sortSmallK, the
 * first tile that holds n). Six launches cost 41-47 us on an H100 at n = 1000..4097
 * against CUB's 14-16 (bench/results/2026-11-26-nvidia-h100-sort and -sort-small2: CUB
 * sorts such n in one block). 512 threads of 4 keys sorted 1000 keys in 12.3-12.9 us and
 * 2048 in 14.3-14.8, 1024 threads of 4 in 14.0 and 15.7; at 4096 1024 x 4 was the
 * fastest shape tried (20.7 us; 512 x 8 21.1-21.7, 256 x 16 25.1-25.8) (bench/msvar/7,
 * bench/results/2026-11-26-nvidia-h100-msvar/msvar7.txt). 1024 x 8 (8192 keys) takes
 * 131 KB of shared memory, 197 KB for pairs (sortTiles keeps the tile twice), under the
 * 227 KB a block can have. */
static const struct { int nt, ipt; } small_tiles[] = {{512, 4}, {1024, 4}, {1024, 8}};
enum { NSMALL = 3, SMALL_MAX = 1024 * 8 };

struct patc_sorter {
    patc_ctx *ctx;
    patc_type type;
    bool pairs, desc;
    patc_type vtype;       /* pairs: the values' type (4 bytes) */
    char *source;
    patc_program *prog[2]; /* [0] without a cubin (interpreter, queries), [1] with one */
    patc_kernel *hist[2], *scan[2], *pass[2], *small[NSMALL][2];
    patc_buffer *tmp;      /* the second buffer of keys (then, for pairs, of values), tmp_bytes long */
    patc_buffer *counts;   /* the histogram (1024 u32), then the scanned counts (1024 u32) */
    size_t tmp_bytes;
    /* views into counts and of patc_sort_keys_ptr's addresses, never on a list */
    struct patc_buffer hist_view, offs_view[4], raw[4];
    patc_sorter *prev, *next; /* the context's list of live sorters (patc_destroy frees them) */
};

/* The order bits of the key type (patterns/radixsort.rise) and the kernels' key type:
 * f32 keys are sorted as the u32 words of their bits. */
static patc_status key_names(patc_type t, bool desc, const char **ord, const char **kt)
{
    switch (t) {
    case PATC_U32: *ord = desc ? "rsOrdU32Desc" : "rsOrdU32"; *kt = "u32"; return PATC_OK;
    case PATC_I32: *ord = desc ? "rsOrdI32Desc" : "rsOrdI32"; *kt = "i32"; return PATC_OK;
    case PATC_F32: *ord = desc ? "rsOrdF32Desc" : "rsOrdF32"; *kt = "u32"; return PATC_OK;
    case PATC_F64:
    case PATC_I64:
    case PATC_U64:
    case PATC_BOOL: break;
    }
    return PATC_ERR_INVALID;
}

patc_status patc_sorter_create_spec(patc_ctx *ctx, const patc_sort_spec *spec, patc_sorter **out)
{
    if (!ctx || !spec || !out)
        return ctx ? rt_fail(ctx, PATC_ERR_INVALID, "patc_sorter_create: a NULL argument") : PATC_ERR_INVALID;
    *out = NULL;
    const char *ord, *kt, *vt;
    patc_type type = spec->key_type;
    if ((unsigned)type > PATC_BOOL || key_names(type, spec->descending != 0, &ord, &kt) != PATC_OK)
        return rt_fail(ctx, PATC_ERR_INVALID, "patc_sorter_create: the keys must be u32, i32 or f32 (64-bit keys are not "
                       "supported yet)");
    if (spec->values && ((unsigned)spec->value_type > PATC_BOOL || key_names(spec->value_type, false, &vt, &vt) != PATC_OK))
        return rt_fail(ctx, PATC_ERR_INVALID, "patc_sorter_create: the values must be u32, i32 or f32 (values of 8 bytes "
                       "are not supported yet)");
    patc_sorter *s = lang_calloc(1, sizeof *s);
    if (!s) return rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
    s->ctx = ctx;
    s->type = type;
    s->pairs = spec->values != 0;
    s->desc = spec->descending != 0;
    s->vtype = s->pairs ? spec->value_type : type;
    StrBuf b = {0};
    sb_puts(&b, "-- generated by libpatrt for patc_sorter_create\nimport \"radixsort.rise\"\n");
    sb_printf(&b, "kernel sortHist = nFun((n, g) => fun(n.%s)(xs => xs |> rsHistogram(n, g, %s)))\n", kt, ord);
    sb_puts(&b, "kernel sortScan = fun(1024.u32)(h => h |> rsScan)\n");
    if (s->pairs) {
        sb_printf(&b, "kernel sortPass = nFun(n => fun(u32)(d => fun(256.u32)(offs => fun(n.%s)(ks => fun(n.u32)(vs => "
                      "zip(ks)(vs) |> rsPassPairs(%d, %d, %s, d, offs))))))\n", kt, PASS_NT, PASS_IPT, ord);
        for (int i = 0; i < NSMALL; i++)
            sb_printf(&b, "kernel sortSmall%d = nFun(n => fun(n.%s)(ks => fun(n.u32)(vs => zip(ks)(vs) |> "
                          "rsSmallPairs(%d, %d, %s))))\n", i, kt, small_tiles[i].nt, small_tiles[i].ipt, ord);
    } else {
        sb_printf(&b, "kernel sortPass = nFun(n => fun(u32)(d => fun(256.u32)(offs => fun(n.%s)(xs => "
                      "xs |> rsPass(%d, %d, %s, d, offs)))))\n", kt, PASS_NT, PASS_IPT, ord);
        for (int i = 0; i < NSMALL; i++)
            sb_printf(&b, "kernel sortSmall%d = nFun(n => fun(n.%s)(xs => xs |> rsSmall(%d, %d, %s)))\n", i, kt,
                      small_tiles[i].nt, small_tiles[i].ipt, ord);
    }
    s->source = sb_take(&b);
    if (!s->source) {
        free(s);
        return rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
    }
    s->next = ctx->sorters;
    if (ctx->sorters) ctx->sorters->prev = s;
    ctx->sorters = s;
    *out = s;
    return PATC_OK;
}

patc_status patc_sorter_create(patc_ctx *ctx, patc_type type, patc_sorter **out)
{
    patc_sort_spec sp = {.key_type = type};
    return patc_sorter_create_spec(ctx, &sp, out);
}

patc_status patc_sorter_create_pairs(patc_ctx *ctx, patc_type key_type, patc_type value_type, patc_sorter **out)
{
    patc_sort_spec sp = {.key_type = key_type, .values = 1, .value_type = value_type};
    return patc_sorter_create_spec(ctx, &sp, out);
}

const char *patc_sorter_source(const patc_sorter *s) { return s ? s->source : NULL; }

void patc_sorter_free(patc_sorter *s)
{
    if (!s) return;
    if (s->prev) s->prev->next = s->next;
    else s->ctx->sorters = s->next;
    if (s->next) s->next->prev = s->prev;
    for (int i = 0; i < 2; i++) patc_program_free(s->prog[i]);
    patc_buffer_free(s->tmp);
    patc_buffer_free(s->counts);
    free(s->source);
    free(s);
}

/* The program with (cubin 1) or without a cubin, compiled on first use. */
static patc_status program(patc_sorter *s, int cubin)
{
    if (s->prog[cubin]) return PATC_OK;
    patc_compile_options o = {.no_cubin = !cubin};
    patc_status st = rt_program_from_text(s->ctx, "<patc_sorter>", s->source, NULL, 0, &o, &s->prog[cubin]);
    if (st == PATC_OK) st = patc_get_kernel(s->prog[cubin], "sortHist", &s->hist[cubin]);
    if (st == PATC_OK) st = patc_get_kernel(s->prog[cubin], "sortScan", &s->scan[cubin]);
    if (st == PATC_OK) st = patc_get_kernel(s->prog[cubin], "sortPass", &s->pass[cubin]);
    for (int i = 0; st == PATC_OK && i < NSMALL; i++) {
        char name[16];
        snprintf(name, sizeof name, "sortSmall%d", i);
        st = patc_get_kernel(s->prog[cubin], name, &s->small[i][cubin]);
    }
    if (st != PATC_OK) {
        patc_program_free(s->prog[cubin]);
        s->prog[cubin] = NULL;
    }
    return st;
}

/* The one-launch kernel for n <= SMALL_MAX keys: the first tile that holds n. */
static patc_kernel *small_for(const patc_sorter *s, long long n, int cubin)
{
    int i = 0;
    while (i < NSMALL - 1 && n > (long long)small_tiles[i].nt * small_tiles[i].ipt) i++;
    return s->small[i][cubin];
}

/* The histogram's grid: HIST_KEYS_PER_THREAD keys a thread or more, at most two blocks
 * of 1024 threads per SM (264 without a device: an H100's), at least one. */
static long long hist_grid(patc_sorter *s, long long n)
{
    int sms = patc_device_sm_count(s->ctx);
    long long most = 2LL * (sms > 0 ? sms : 132);
    long long g = (n + 1024LL * HIST_KEYS_PER_THREAD - 1) / (1024LL * HIST_KEYS_PER_THREAD);
    return g < 1 ? 1 : g > most ? most : g;
}

/* n in 1..2^32-1: the counts and offsets are u32. */
static patc_status check_n(patc_sorter *s, const char *fn, long long n)
{
    if (n < 1) return rt_fail(s->ctx, PATC_ERR_INVALID, "%s: n must be at least 1 (n = %lld)", fn, n);
    if (n > 4294967295LL)
        return rt_fail(s->ctx, PATC_ERR_SIZE, "%s: at most 2^32-1 keys (the counts are u32); n = %lld", fn, n);
    return PATC_OK;
}

/* The scratch bytes of kernel k at these nats (what rt_launch.c allocates). */
static patc_status scratch_bytes(patc_kernel *k, const long long *nats, size_t *sum)
{
    patc_status st = rt_bind_nats(k, nats);
    for (int i = 0; st == PATC_OK && i < k->d->nscratch; i++) {
        size_t b = 0;
        st = rt_buffer_info(k, &k->d->scratch[i], "a scratch buffer", NULL, NULL, &b);
        *sum += b;
    }
    return st;
}

/* n keys' bytes rounded up to 256: the sorter's second buffer of keys, and of values
 * after it for pairs (tmp_need(s, n) in all). */
static size_t half_bytes(long long n) { return ((size_t)n * 4 + 255) / 256 * 256; }
static size_t tmp_need(const patc_sorter *s, long long n) { return half_bytes(n) * (s->pairs ? 2 : 1); }

patc_status patc_sorter_temp_bytes(patc_sorter *s, long long n, size_t *bytes)
{
    if (!s || !bytes) return s ? rt_fail(s->ctx, PATC_ERR_INVALID, "patc_sorter_temp_bytes: a NULL argument") : PATC_ERR_INVALID;
    patc_status st = check_n(s, "patc_sorter_temp_bytes", n);
    int p = s->prog[1] ? 1 : 0;
    if (st == PATC_OK) st = program(s, p);
    if (st != PATC_OK) return st;
    long long hn[2] = {n, hist_grid(s, n)}, pn[1] = {n};
    if (n <= SMALL_MAX) { /* the one launch: no second buffer, no counts; its scratch (none) */
        size_t sum = 0;
        if ((st = scratch_bytes(small_for(s, n, p), pn, &sum)) != PATC_OK) return st;
        *bytes = sum;
        return PATC_OK;
    }
    size_t sum = tmp_need(s, n) + COUNTS_BYTES;
    if ((st = scratch_bytes(s->hist[p], hn, &sum)) != PATC_OK || (st = scratch_bytes(s->pass[p], pn, &sum)) != PATC_OK)
        return st;
    *bytes = sum;
    return PATC_OK;
}

static bool overlap(const patc_buffer *a, size_t na, const patc_buffer *b, size_t nb)
{
    return a->ptr < b->ptr + nb && b->ptr < a->ptr + na;
}

/* The temporary buffers for n keys: grown (freed and allocated again) when too small. */
static patc_status temp_for(patc_sorter *s, long long n)
{
    patc_status st;
    size_t need = tmp_need(s, n);
    if (!s->counts) {
        if ((st = patc_buffer_alloc(s->ctx, COUNTS_BYTES, &s->counts)) != PATC_OK) return st;
        s->hist_view = (struct patc_buffer){.ctx = s->ctx, .ptr = s->counts->ptr, .bytes = 4096, .wrapped = true};
        for (int d = 0; d < 4; d++)
            s->offs_view[d] = (struct patc_buffer){
                .ctx = s->ctx, .ptr = s->counts->ptr + 4096 + 1024 * (RtDevPtr)d, .bytes = 1024, .wrapped = true};
    }
    if (s->tmp && s->tmp_bytes >= need) return PATC_OK;
    patc_buffer_free(s->tmp);
    s->tmp = NULL;
    s->tmp_bytes = 0;
    if ((st = patc_buffer_alloc(s->ctx, need, &s->tmp)) != PATC_OK) return st;
    s->tmp_bytes = need;
    return PATC_OK;
}

/* A pairs call on a keys sorter, or a keys call on a pairs sorter: refused. */
static patc_status check_kind(patc_sorter *s, const char *fn, bool pairs)
{
    if (s->pairs == pairs) return PATC_OK;
    return rt_fail(s->ctx, PATC_ERR_INVALID, "%s: this sorter sorts %s (made by %s)", fn,
                   s->pairs ? "key-value pairs" : "keys alone",
                   s->pairs ? "patc_sorter_create_pairs; call patc_sort_pairs" : "patc_sorter_create; call patc_sort_keys");
}

/* The arguments of a device sort: buffers of this context, n * 4 bytes each, aligned to
 * 4; each input and its output one buffer (in place) or not overlapping, and no other
 * two overlapping. */
static patc_status check_bufs(patc_sorter *s, const char *fn, patc_buffer *const *b, int nbufs, long long n)
{
    patc_ctx *c = s->ctx;
    size_t nb = (size_t)n * 4;
    static const char *const what[4] = {"key input", "key output", "value input", "value output"};
    for (int i = 0; i < nbufs; i++) {
        if (!b[i]) return rt_fail(c, PATC_ERR_INVALID, "%s: no %s buffer", fn, what[i]);
        if (b[i]->ctx != c) return rt_fail(c, PATC_ERR_INVALID, "%s: a buffer of another context", fn);
        if (b[i]->bytes < nb)
            return rt_fail(c, PATC_ERR_SIZE, "%s: the %s has %zu bytes, %lld elements of %s need %zu", fn, what[i],
                           b[i]->bytes, n, patc_type_name(i < 2 ? s->type : s->vtype), nb);
        if (b[i]->ptr % 4) return rt_fail(c, PATC_ERR_INVALID, "%s: a buffer is not aligned to 4 bytes", fn);
    }
    for (int i = 0; i < nbufs; i++)
        for (int j = i + 1; j < nbufs; j++)
            if (!(j == i + 1 && i % 2 == 0 && b[i]->ptr == b[j]->ptr) && overlap(b[i], nb, b[j], nb))
                return rt_fail(c, PATC_ERR_INVALID, "%s: the %s and the %s overlap (give an input and its output as one "
                               "buffer to sort in place)", fn, what[i], what[j]);
    return PATC_OK;
}

/* The six launches: histogram and scan of the keys, then the passes in -> tmp -> out ->
 * tmp -> out (the input only read, by pass 0, so an in-place sort is the same chain),
 * the values (vin, vout non-NULL for pairs) alongside through the second half of tmp.
 * Up to SMALL_MAX keys, one launch of a sortSmallK (small_for) in -> out
 * instead, no temporary memory (one block reads all of its tile into shared memory
 * before it writes any of it, so in place is the same launch). */
static patc_status sort_dev(patc_sorter *s, patc_buffer *in, patc_buffer *out, patc_buffer *vin, patc_buffer *vout,
                            long long n, void *stream)
{
    patc_ctx *c = s->ctx;
    patc_status st;
    size_t nb = (size_t)n * 4, half = half_bytes(n);
    if ((st = rt_need_device(c)) != PATC_OK || (st = program(s, 1)) != PATC_OK) return st;
    if (n <= SMALL_MAX) {
        patc_set_stream(c, stream);
        long long sn[1] = {n};
        patc_buffer *sout[2] = {out, vout};
        return patc_launch_args_enqueue(small_for(s, n, 1), sn, (patc_arg[]){{in, NULL}, {vin, NULL}}, sout, NULL);
    }
    if ((st = temp_for(s, n)) != PATC_OK) return st;
    patc_set_stream(c, stream);
    struct patc_buffer tmpv = {.ctx = c, .ptr = s->tmp->ptr, .bytes = nb, .wrapped = true};
    struct patc_buffer tmpw = {.ctx = c, .ptr = s->tmp->ptr + half, .bytes = nb, .wrapped = true};
    long long hn[2] = {n, hist_grid(s, n)}, pn[1] = {n};
    patc_buffer *hout[1] = {&s->hist_view};
    if ((st = patc_launch_args_enqueue(s->hist[1], hn, (patc_arg[]){{in, NULL}}, hout, NULL)) != PATC_OK) return st;
    struct patc_buffer offs_all = {.ctx = c, .ptr = s->counts->ptr + 4096, .bytes = 4096, .wrapped = true};
    patc_buffer *sout[1] = {&offs_all};
    if ((st = patc_launch_args_enqueue(s->scan[1], NULL, (patc_arg[]){{&s->hist_view, NULL}}, sout, NULL)) != PATC_OK)
        return st;
    patc_buffer *src[4] = {in, &tmpv, out, &tmpv}, *dst[4] = {&tmpv, out, &tmpv, out};
    patc_buffer *vsrc[4] = {vin, &tmpw, vout, &tmpw}, *vdst[4] = {&tmpw, vout, &tmpw, vout};
    for (unsigned d = 0; d < 4; d++) {
        patc_arg args[4] = {{NULL, &d}, {&s->offs_view[d], NULL}, {src[d], NULL}, {vsrc[d], NULL}};
        patc_buffer *pout[2] = {dst[d], vdst[d]};
        if ((st = patc_launch_args_enqueue(s->pass[1], pn, args, pout, NULL)) != PATC_OK) return st;
    }
    return PATC_OK;
}

patc_status patc_sort_keys(patc_sorter *s, patc_buffer *in, patc_buffer *out, long long n, void *stream)
{
    if (!s) return PATC_ERR_INVALID;
    const char *fn = "patc_sort_keys";
    patc_status st = check_n(s, fn, n);
    if (st == PATC_OK) st = check_kind(s, fn, false);
    if (st == PATC_OK) st = check_bufs(s, fn, (patc_buffer *[]){in, out}, 2, n);
    return st == PATC_OK ? sort_dev(s, in, out, NULL, NULL, n, stream) : st;
}

patc_status patc_sort_pairs(patc_sorter *s, patc_buffer *keys_in, patc_buffer *keys_out, patc_buffer *values_in,
                            patc_buffer *values_out, long long n, void *stream)
{
    if (!s) return PATC_ERR_INVALID;
    const char *fn = "patc_sort_pairs";
    patc_status st = check_n(s, fn, n);
    if (st == PATC_OK) st = check_kind(s, fn, true);
    if (st == PATC_OK) st = check_bufs(s, fn, (patc_buffer *[]){keys_in, keys_out, values_in, values_out}, 4, n);
    return st == PATC_OK ? sort_dev(s, keys_in, keys_out, values_in, values_out, n, stream) : st;
}

patc_status patc_sort_keys_ptr(patc_sorter *s, unsigned long long in, unsigned long long out, long long n, void *stream)
{
    if (!s) return PATC_ERR_INVALID;
    patc_status st = check_n(s, "patc_sort_keys_ptr", n);
    if (st != PATC_OK) return st;
    if (!in || !out) return rt_fail(s->ctx, PATC_ERR_INVALID, "patc_sort_keys_ptr: a NULL device address");
    s->raw[0] = (struct patc_buffer){.ctx = s->ctx, .ptr = in, .bytes = (size_t)n * 4, .wrapped = true};
    s->raw[1] = (struct patc_buffer){.ctx = s->ctx, .ptr = out, .bytes = (size_t)n * 4, .wrapped = true};
    return patc_sort_keys(s, &s->raw[0], &s->raw[1], n, stream);
}

patc_status patc_sort_pairs_ptr(patc_sorter *s, unsigned long long keys_in, unsigned long long keys_out,
                                unsigned long long values_in, unsigned long long values_out, long long n, void *stream)
{
    if (!s) return PATC_ERR_INVALID;
    patc_status st = check_n(s, "patc_sort_pairs_ptr", n);
    if (st != PATC_OK) return st;
    unsigned long long p[4] = {keys_in, keys_out, values_in, values_out};
    for (int i = 0; i < 4; i++) {
        if (!p[i]) return rt_fail(s->ctx, PATC_ERR_INVALID, "patc_sort_pairs_ptr: a NULL device address");
        s->raw[i] = (struct patc_buffer){.ctx = s->ctx, .ptr = p[i], .bytes = (size_t)n * 4, .wrapped = true};
    }
    return patc_sort_pairs(s, &s->raw[0], &s->raw[1], &s->raw[2], &s->raw[3], n, stream);
}

/* The launch of sort_dev for n <= SMALL_MAX, interpreted, from copies of the inputs (so
 * that an input and its output may be one array). */
static patc_status sort_cpu_small(patc_sorter *s, const void *in, void *out, const void *vin, void *vout, long long n)
{
    int w = vin ? 2 : 1;
    uint32_t *m[2] = {NULL, NULL};
    for (int i = 0; i < w; i++)
        if (!(m[i] = lang_malloc((size_t)n * 4))) {
            free(m[0]);
            return rt_fail(s->ctx, PATC_ERR_NO_MEMORY, "out of memory");
        }
    memcpy(m[0], in, (size_t)n * 4);
    if (vin) memcpy(m[1], vin, (size_t)n * 4);
    long long sn[1] = {n};
    patc_status st = patc_interp_run_outputs(small_for(s, n, 0), sn, (const void *[]){m[0], m[1]}, (void *[]){out, vout});
    for (int i = 0; i < w; i++) free(m[i]);
    return st;
}

/* The launches of sort_dev, interpreted, through arrays of the interpreter's own (so
 * that an input and its output may be one array); vin, vout NULL for keys alone. */
static patc_status sort_cpu(patc_sorter *s, const void *in, void *out, const void *vin, void *vout, long long n)
{
    patc_status st;
    if ((st = program(s, 0)) != PATC_OK) return st;
    if (n <= SMALL_MAX) return sort_cpu_small(s, in, out, vin, vout, n);
    uint32_t hist[1024], offs[1024];
    long long hn[2] = {n, hist_grid(s, n)}, pn[1] = {n};
    if ((st = patc_interp_run(s->hist[0], hn, (const void *[]){in}, hist)) != PATC_OK ||
        (st = patc_interp_run(s->scan[0], NULL, (const void *[]){hist}, offs)) != PATC_OK)
        return st;
    int w = vin ? 4 : 2;
    uint32_t *m[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < w; i++)
        if (!(m[i] = lang_malloc((size_t)n * 4))) {
            for (int j = 0; j < i; j++) free(m[j]);
            return rt_fail(s->ctx, PATC_ERR_NO_MEMORY, "out of memory");
        }
    /* m[0], m[1]: the keys from and to; m[2], m[3]: the values */
    memcpy(m[0], in, (size_t)n * 4);
    if (vin) memcpy(m[2], vin, (size_t)n * 4);
    for (unsigned d = 0; d < 4 && st == PATC_OK; d++) {
        if (vin)
            st = patc_interp_run_outputs(s->pass[0], pn, (const void *[]){&d, offs + 256 * d, m[0], m[2]},
                                         (void *[]){m[1], m[3]});
        else
            st = patc_interp_run(s->pass[0], pn, (const void *[]){&d, offs + 256 * d, m[0]}, m[1]);
        for (int i = 0; i < w; i += 2) {
            uint32_t *t = m[i];
            m[i] = m[i + 1];
            m[i + 1] = t;
        }
    }
    if (st == PATC_OK) {
        memcpy(out, m[0], (size_t)n * 4);
        if (vin) memcpy(vout, m[2], (size_t)n * 4);
    }
    for (int i = 0; i < w; i++) free(m[i]);
    return st;
}

patc_status patc_sort_keys_cpu(patc_sorter *s, const void *in, void *out, long long n)
{
    if (!s) return PATC_ERR_INVALID;
    patc_status st = check_n(s, "patc_sort_keys_cpu", n);
    if (st == PATC_OK) st = check_kind(s, "patc_sort_keys_cpu", false);
    if (st != PATC_OK) return st;
    if (!in || !out) return rt_fail(s->ctx, PATC_ERR_INVALID, "patc_sort_keys_cpu: a NULL array");
    return sort_cpu(s, in, out, NULL, NULL, n);
}

patc_status patc_sort_pairs_cpu(patc_sorter *s, const void *keys_in, void *keys_out, const void *values_in,
                                void *values_out, long long n)
{
    if (!s) return PATC_ERR_INVALID;
    patc_status st = check_n(s, "patc_sort_pairs_cpu", n);
    if (st == PATC_OK) st = check_kind(s, "patc_sort_pairs_cpu", true);
    if (st != PATC_OK) return st;
    if (!keys_in || !keys_out || !values_in || !values_out)
        return rt_fail(s->ctx, PATC_ERR_INVALID, "patc_sort_pairs_cpu: a NULL array");
    return sort_cpu(s, keys_in, keys_out, values_in, values_out, n);
}
