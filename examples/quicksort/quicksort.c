/* quicksort.c: f32 keys sorted by repeated partition launches (examples/partition.rise,
 * partitionLtF32) driven from the host through libpatrt, small segments finished in one
 * block by a bitonic network (examples/quicksort/sort_small.rise, sortSmall4096F32); the
 * result is compared with the C library's qsort.
 *
 *     quicksort N KIND [REPS]     on the GPU: N keys of KIND (random, dup, equal, sorted,
 *                                 reversed, inf); prints the median time of REPS sorts (3)
 *                                 after a warm-up and "ok", or the first mismatch
 *     quicksort --interp N KIND   every partition and small sort run on the CPU
 *                                 interpreter (patc_interp_run_outputs): no GPU needed
 *     quicksort --interp-test [M] --interp at N = 1, 31, 1000, 5000, 20011 for every KIND
 *                                 (those up to M where M is given)
 *     quicksort --compile         the programs (samplesort.rise too) compiled to sm_90
 *                                 cubins by NVRTC
 *     quicksort --sample ...      any of these by the sample sort of samplesort.rise
 *                                 (issue 35 item 3): eight launches and one download
 *                                 whatever n is, buckets of more than a tile of 16384
 *                                 keys (--bucket-max M: M) sorted by the partitions
 *
 * Exit status: 0 when every sort matched qsort, 1 on a mismatch or a failure, 2 for bad
 * usage, 77 when the GPU mode finds no GPU ("skipped: no GPU"). Before any of these, in
 * either order: `--small 1024` finishes segments of at most 1024 keys with sortSmallF32
 * instead of 4096 with sortSmall4096F32 (to compare the two); `--streams K` runs the small
 * sorts on K non-blocking streams in turn (8 by default; 1: all on the null stream).
 *
 * The algorithm (README.md beside this file): a list of the segments of one level, all
 * living in one of two ping-pong buffers A and B; a segment of more than `small_max` keys is
 * partitioned around the median of its first, middle and last key (pickF32, for the
 * whole level at once) into the other buffer, the level's partitions enqueued together
 * and their counts read with one wait; one of at most `small_max` keys (4096) is sorted by
 * sortSmall4096F32 straight into the result buffer R, and so is (by a copy) a segment whose
 * keys are all equal. */
#include <patc.h>

#include <dlfcn.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef PATC_QUICKSORT_DIR
#define PATC_QUICKSORT_DIR "examples/quicksort"
#endif
#ifndef PATC_EXAMPLES_DIR
#define PATC_EXAMPLES_DIR "examples"
#endif

/* A segment of at most `small_max` keys (4096 unless --small 1024 says otherwise) is sorted
 * in one block by sortSmall4096F32 (sortSmallF32 for 1024); the larger ones are
 * partitioned. 4096 takes about a quarter of the partitions and small sorts that 1024
 * does (README.md). */
static long long small_max = 4096;
static const char *small_kernel(void) { return small_max == 1024 ? "sortSmallF32" : "sortSmall4096F32"; }
/* the partition kernel's tile: nt threads of ipt keys each (-D nt, -D ipt) */
enum { PART_NT = 128, PART_IPT = 16 };
/* the ping-pong buffers and the result */
enum { BUF_A, BUF_B, BUF_R };

typedef int (*cu_alloc_fn)(unsigned long long *, size_t);
typedef int (*cu_free_fn)(unsigned long long);
typedef int (*cu_copy_fn)(unsigned long long, unsigned long long, size_t);
typedef int (*cu_stream_create_fn)(void **, unsigned);
typedef int (*cu_stream_fn)(void *);
/* the small sorts' streams (--streams): 8 unless the command line says otherwise */
enum { MAX_STREAMS = 32 };
static int nstreams_wanted = 8;

typedef struct Seg {
    long long off, len;
    int buf; /* BUF_A or BUF_B: where the segment's keys are now */
} Seg;

/* the sample sort's kernels (samplesort.rise) and buffers (samplesort.c) */
enum { SSK_SAMPLE, SSK_TILES, SSK_COUNTS, SSK_SCAN, SSK_SPLIT, SSK_PAD, SSK_BACK, SSK_N };
enum { SSB_SMP0, SSB_SMP, SSB_OFFS, SSB_PAD, SSB_PADS, SSB_N };
static int sample_mode; /* --sample */
/* --bucket-max M: the sample sort's buckets of more than M keys (at most a tile, 16384)
 * go to the partition sort; a smaller M tries that path on small inputs */
static long long ss_max = 16384;

/* the per-level arrays: positions (3 per segment), the keys there, the counts */
enum { LV_POS, LV_KEYS, LV_COUNT, LV_N };

typedef struct Sorter {
    int interp;        /* 1: kernels on the interpreter, base[] are host addresses */
    patc_ctx *ctx;
    patc_program *part_prog, *small_prog, *pick_prog;
    patc_kernel *part, *small, *pick;
    unsigned long long base[3]; /* A, B, R: device pointers or host addresses */
    unsigned long long lv[LV_N]; /* a level's positions (i32), picked keys, counts (u32):
                                    device pointers, or host addresses */
    void *lvhost[LV_N];         /* the host copies of lv (GPU) */
    long long lvcap;            /* segments a level can hold */
    long long n;                /* the keys being sorted (pickF32's n) */
    void *cuda;                 /* libcuda (GPU) */
    cu_alloc_fn mem_alloc;
    cu_free_fn mem_free;
    cu_copy_fn copy_dtod;
    cu_stream_fn stream_sync, stream_destroy;
    void *streams[MAX_STREAMS]; /* non-blocking streams for the small sorts (GPU) */
    int nstreams, next_stream;
    Seg *work, *level;
    float *piv;                 /* a level's pivots */
    long long *ms;              /* a level's counts of keys below them */
    long long nwork, capwork;
    long long partitions, smalls, copies, max_work, levels;
    /* the sample sort (--sample, samplesort.c) */
    patc_program *ss_prog;
    patc_kernel *ssk[SSK_N];
    unsigned long long ssb[SSB_N]; /* its buffers: device pointers, or host addresses */
    unsigned *ss_offs;             /* the host copy of the bucket offsets (GPU) */
    long long ss_buckets, ss_launches, ss_big, ss_big_keys, ss_first_big, ss_first_big_len;
    int ss_whole; /* 1: n too large, the whole sort by partitions */
} Sorter;

static int fail(Sorter *q, const char *what, patc_status s)
{
    fprintf(stderr, "quicksort: %s: %s\n%s\n", what, patc_status_string(s), q->ctx ? patc_last_error(q->ctx) : "");
    return 1;
}

/* ---------------------------------------------------------------- the three steps */

/* A view of keys off .. off+len of buffer b for a launch (the GPU: a wrapped sub-range). */
static patc_status view(Sorter *q, int b, long long off, long long len, patc_buffer **out)
{
    return patc_buffer_wrap(q->ctx, q->base[b] + (unsigned long long)off * sizeof(float), (size_t)len * sizeof(float), out);
}

static float *host_keys(Sorter *q, int b, long long off) { return (float *)(uintptr_t)q->base[b] + off; }

/* Elements off .. off+len of the level array b (4-byte elements) for a launch or copy. */
static patc_status lv_view(Sorter *q, int b, long long off, long long len, patc_buffer **out)
{
    return patc_buffer_wrap(q->ctx, q->lv[b] + (unsigned long long)off * 4, (size_t)len * 4, out);
}

/* Partition the segment s into the other ping-pong buffer: the m keys below t first
 * (partitionLtF32), the others after them; the count m goes to slot j of the level's
 * counts. On the GPU it is only enqueued: level_counts waits for a level's counts. */
static patc_status partition(Sorter *q, Seg s, float t, long long j)
{
    long long nats[1] = {s.len};
    patc_status st;
    q->partitions++;
    if (q->interp) {
        const void *in[2] = {&t, host_keys(q, s.buf, s.off)};
        void *out[2] = {(unsigned *)(uintptr_t)q->lv[LV_COUNT] + j, host_keys(q, !s.buf, s.off)};
        return patc_interp_run_outputs(q->part, nats, in, out);
    }
    patc_buffer *src = NULL, *dst = NULL, *cnt = NULL;
    if ((st = view(q, s.buf, s.off, s.len, &src)) == PATC_OK && (st = view(q, !s.buf, s.off, s.len, &dst)) == PATC_OK &&
        (st = lv_view(q, LV_COUNT, j, 1, &cnt)) == PATC_OK) {
        patc_arg args[2] = {{.value = &t}, {.buffer = src}};
        patc_buffer *outs[2] = {cnt, dst};
        st = patc_launch_args_enqueue(q->part, nats, args, outs, NULL);
    }
    patc_buffer_free(src);
    patc_buffer_free(dst);
    patc_buffer_free(cnt);
    return st;
}

/* The counts of slots 0..k-1 (on the GPU one download, which waits for the partitions). */
static patc_status level_counts(Sorter *q, long long k, const unsigned **counts)
{
    if (q->interp) {
        *counts = (const unsigned *)(uintptr_t)q->lv[LV_COUNT];
        return PATC_OK;
    }
    patc_buffer *b = NULL;
    patc_status st = lv_view(q, LV_COUNT, 0, k, &b);
    if (st == PATC_OK) st = patc_buffer_download(b, q->lvhost[LV_COUNT], (size_t)k * sizeof(unsigned));
    patc_buffer_free(b);
    *counts = q->lvhost[LV_COUNT];
    return st;
}

/* The keys at the k positions of the level's positions array in buffer b: pickF32, one
 * launch and one download on the GPU (the positions uploaded first). */
static patc_status pick(Sorter *q, int b, long long k, const int *pos, const float **keys)
{
    long long nats[2] = {q->n, k};
    if (q->interp) {
        const void *in[2] = {pos, host_keys(q, b, 0)};
        void *out[1] = {(float *)(uintptr_t)q->lv[LV_KEYS]};
        *keys = out[0];
        return patc_interp_run_outputs(q->pick, nats, in, out);
    }
    patc_buffer *pb = NULL, *xb = NULL, *kb = NULL;
    patc_status st;
    if ((st = lv_view(q, LV_POS, 0, k, &pb)) == PATC_OK && (st = patc_buffer_upload(pb, pos, (size_t)k * 4)) == PATC_OK &&
        (st = view(q, b, 0, q->n, &xb)) == PATC_OK && (st = lv_view(q, LV_KEYS, 0, k, &kb)) == PATC_OK) {
        patc_arg args[2] = {{.buffer = pb}, {.buffer = xb}};
        patc_buffer *outs[1] = {kb};
        if ((st = patc_launch_args_enqueue(q->pick, nats, args, outs, NULL)) == PATC_OK)
            st = patc_buffer_download(kb, q->lvhost[LV_KEYS], (size_t)k * sizeof(float));
    }
    patc_buffer_free(pb);
    patc_buffer_free(xb);
    patc_buffer_free(kb);
    *keys = q->lvhost[LV_KEYS];
    return st;
}

/* Sort the segment s (at most `small_max` keys) into R; enqueued on the GPU, no wait. The
 * small sorts go round the side streams, where they run beside each other and beside the
 * partitions (the null stream): a small sort reads a segment that no later partition
 * touches (the later ones read and write only the ranges of their own segments) and
 * writes its range of R, which nothing else writes; quicksort() waits for the side
 * streams before it returns. */
static patc_status sort_small(Sorter *q, Seg s)
{
    long long nats[1] = {s.len};
    q->smalls++;
    if (q->interp) {
        const void *in[1] = {host_keys(q, s.buf, s.off)};
        void *out[1] = {host_keys(q, BUF_R, s.off)};
        return patc_interp_run_outputs(q->small, nats, in, out);
    }
    patc_buffer *src = NULL, *dst = NULL;
    patc_status st;
    if ((st = view(q, s.buf, s.off, s.len, &src)) == PATC_OK && (st = view(q, BUF_R, s.off, s.len, &dst)) == PATC_OK) {
        patc_arg args[1] = {{.buffer = src}};
        patc_buffer *outs[1] = {dst};
        if (q->nstreams) patc_set_stream(q->ctx, q->streams[q->next_stream++ % q->nstreams]);
        st = patc_launch_args_enqueue(q->small, nats, args, outs, NULL);
        patc_set_stream(q->ctx, NULL);
    }
    patc_buffer_free(src);
    patc_buffer_free(dst);
    return st;
}

/* A segment of equal keys is sorted: copied to R as it is. */
static patc_status copy_done(Sorter *q, Seg s)
{
    q->copies++;
    if (q->interp) {
        memcpy(host_keys(q, BUF_R, s.off), host_keys(q, s.buf, s.off), (size_t)s.len * sizeof(float));
        return PATC_OK;
    }
    int r = q->copy_dtod(q->base[BUF_R] + (unsigned long long)s.off * sizeof(float),
                         q->base[s.buf] + (unsigned long long)s.off * sizeof(float), (size_t)s.len * sizeof(float));
    if (r) fprintf(stderr, "quicksort: cuMemcpyDtoD failed (%d)\n", r);
    return r ? PATC_ERR_DRIVER : PATC_OK;
}

static float median3(float a, float b, float c)
{
    if (a > b) {
        float t = a;
        a = b;
        b = t;
    }
    return c <= a ? a : c >= b ? b : c;
}

/* ---------------------------------------------------------------- the level list */

static int push(Sorter *q, Seg s)
{
    if (s.len == 0) return 0;
    if (q->nwork == q->capwork) {
        long long cap = q->capwork ? 2 * q->capwork : 64;
        Seg *w = realloc(q->work, (size_t)cap * sizeof *w);
        if (!w) return -1;
        q->work = w;
        q->capwork = cap;
    }
    q->work[q->nwork++] = s;
    if (q->nwork > q->max_work) q->max_work = q->nwork;
    return 0;
}

/* Sort the n keys in A into R (B is scratch), a level at a time: the list holds the
 * segments of one level, all in the same buffer (each level's partitions write the
 * other one). A segment of more than `small_max` keys with pivot p (the median of its first,
 * middle and last key, picked for the whole level by one pickF32) is partitioned by
 * x < p into m keys and len - m >= 1 (p itself is not below p); the level's partitions
 * are enqueued together and their counts read with one download. When m > 0 both parts
 * are smaller and go to the next level. When m = 0 every key is >= p, so it is
 * partitioned again by x < nextafterf(p, +inf), i.e. x <= p, i.e. x == p: those m2 >= 1
 * keys are equal and final (copied to R), the rest goes on. So each partition makes
 * progress, and all-equal input takes two partitions; with many duplicates each
 * distinct value costs at most two partitions per segment it is pivot of. A level costs
 * three waits (the picked keys, the counts, and the second counts when some m = 0),
 * not four per partition. */
static patc_status quicksort_work(Sorter *q);
static patc_status quicksort(Sorter *q, long long n)
{
    q->n = n;
    q->nwork = 0;
    if (push(q, (Seg){0, n, BUF_A})) return PATC_ERR_NO_MEMORY;
    return quicksort_work(q);
}

/* The level loop of quicksort() on the segments in the list (all in one buffer): the
 * sample sort gives it its buckets of more than a tile. */
static patc_status quicksort_work(Sorter *q)
{
    patc_status st = PATC_OK;
    int *pos = q->interp ? (int *)(uintptr_t)q->lv[LV_POS] : q->lvhost[LV_POS];
    while (q->nwork > 0 && st == PATC_OK) {
        long long nl = 0, k = 0;
        q->levels++;
        for (long long i = 0; i < q->nwork && st == PATC_OK; i++) {
            Seg s = q->work[i];
            if (s.len <= small_max) st = sort_small(q, s);
            else if (nl < q->lvcap) q->level[nl++] = s;
            else st = PATC_ERR_INVALID; /* cannot happen: the segments are disjoint and > small_max */
        }
        q->nwork = 0;
        if (st != PATC_OK || nl == 0) break;
        for (long long j = 0; j < nl; j++) {
            Seg s = q->level[j];
            pos[k++] = (int)s.off;
            pos[k++] = (int)(s.off + s.len / 2);
            pos[k++] = (int)(s.off + s.len - 1);
        }
        const float *keys;
        const unsigned *cnt;
        float *piv = q->piv;
        long long *ms = q->ms;
        if ((st = pick(q, q->level[0].buf, k, pos, &keys)) != PATC_OK) break;
        for (long long j = 0; j < nl && st == PATC_OK; j++) {
            piv[j] = median3(keys[3 * j], keys[3 * j + 1], keys[3 * j + 2]);
            st = partition(q, q->level[j], piv[j], j);
        }
        if (st == PATC_OK) st = level_counts(q, nl, &cnt);
        long long again = 0; /* segments with m = 0 and a finite pivot: partitioned again, slot j */
        for (long long j = 0; j < nl && st == PATC_OK; j++) {
            Seg s = q->level[j];
            ms[j] = cnt[j];
            if (ms[j] >= s.len) {
                fprintf(stderr, "quicksort: %lld of %lld keys below their own pivot %g (a NaN key?)\n", ms[j], s.len,
                        piv[j]);
                st = PATC_ERR_INVALID;
            } else if (ms[j] > 0) {
                if (push(q, (Seg){s.off, ms[j], !s.buf}) || push(q, (Seg){s.off + ms[j], s.len - ms[j], !s.buf}))
                    st = PATC_ERR_NO_MEMORY;
            } else if (piv[j] == INFINITY) { /* every key >= +inf: all equal */
                st = copy_done(q, s);
            } else {
                again++;
            }
        }
        for (long long j = 0; j < nl && again && st == PATC_OK; j++)
            if (ms[j] == 0 && piv[j] != INFINITY) st = partition(q, q->level[j], nextafterf(piv[j], INFINITY), j);
        if (again && st == PATC_OK) st = level_counts(q, nl, &cnt);
        for (long long j = 0; j < nl && again && st == PATC_OK; j++) {
            Seg s = q->level[j];
            if (ms[j] != 0 || piv[j] == INFINITY) continue;
            long long m2 = cnt[j];
            if (m2 < 1 || m2 > s.len) {
                fprintf(stderr, "quicksort: %lld of %lld keys at most their own pivot %g\n", m2, s.len, piv[j]);
                st = PATC_ERR_INVALID;
            } else if ((st = copy_done(q, (Seg){s.off, m2, !s.buf})) == PATC_OK &&
                       push(q, (Seg){s.off + m2, s.len - m2, !s.buf})) {
                st = PATC_ERR_NO_MEMORY;
            }
        }
    }
    for (int i = 0; i < q->nstreams; i++) { /* the small sorts, also after a failure */
        int r = q->stream_sync(q->streams[i]);
        if (r && st == PATC_OK) {
            fprintf(stderr, "quicksort: cuStreamSynchronize failed (%d)\n", r);
            st = PATC_ERR_DRIVER;
        }
    }
    return st;
}

/* ---------------------------------------------------------------- the sample sort */

/* The sample sort (--sample; samplesort.rise, README.md "The sample sort"): eight launches
 * and one download of 4096 offsets whatever n is, in place of a launch per segment.
 * Buckets are sorted in tiles of SS_T keys (sortTiles of 1024 threads x 16, the most
 * 4-byte keys a block's shared memory holds); k buckets, a power of two, the fewest with
 * at most SS_AVG keys each on average, so that with SS_SAMPLES samples (one tile) hardly
 * any bucket of random keys passes SS_T. A bucket that does is sorted by partitions
 * (quicksort_work); so is everything when k would pass 4096 (multisplit's most). */
enum { SS_T = 16384, SS_SAMPLES = 16384, SS_AVG = 4352, SS_KMAX = 4096 };

static unsigned long long ss_base(Sorter *q, int id) { return id < 0 ? q->base[-1 - id] : q->ssb[id]; }
/* a buffer id: A, B, R as -1 - BUF_*, the sample sort's as SSB_* */
#define SS_MAIN(b) (-1 - (b))

/* One launch of the sample sort's kernel j with the given nats, its data parameters and
 * outputs the buffers named (ids as ss_base's), each wrapped at the size the kernel
 * gives it; on the interpreter, run there. */
static patc_status ss_run(Sorter *q, int j, const long long *nats, int nin, const int *ins, int nout, const int *outs)
{
    patc_kernel *k = q->ssk[j];
    patc_status st = PATC_OK;
    q->ss_launches++;
    if (q->interp) {
        const void *in[3];
        void *out[2];
        for (int i = 0; i < nin; i++) in[i] = (const void *)(uintptr_t)ss_base(q, ins[i]);
        for (int i = 0; i < nout; i++) out[i] = (void *)(uintptr_t)ss_base(q, outs[i]);
        return patc_interp_run_outputs(k, nats, in, out);
    }
    patc_buffer *ib[3] = {0}, *ob[2] = {0};
    patc_arg args[3];
    for (int i = 0; i < nin && st == PATC_OK; i++) {
        size_t bytes;
        if ((st = patc_kernel_input_info(k, i, nats, NULL, NULL, &bytes)) == PATC_OK)
            st = patc_buffer_wrap(q->ctx, ss_base(q, ins[i]), bytes, &ib[i]);
        args[i] = (patc_arg){.buffer = ib[i]};
    }
    for (int i = 0; i < nout && st == PATC_OK; i++) {
        size_t bytes;
        if ((st = patc_kernel_output_info_at(k, i, nats, NULL, NULL, &bytes)) == PATC_OK)
            st = patc_buffer_wrap(q->ctx, ss_base(q, outs[i]), bytes, &ob[i]);
    }
    if (st == PATC_OK) st = patc_launch_args_enqueue(k, nats, args, ob, NULL);
    for (int i = 0; i < 3; i++) patc_buffer_free(ib[i]);
    for (int i = 0; i < 2; i++) patc_buffer_free(ob[i]);
    return st;
}

/* The shape of a sample sort of n keys: k buckets, s samples (both powers of two, s at
 * least 4k); 0 when n is too large (k past SS_KMAX). */
static int ss_shape(long long n, long long *k, long long *s)
{
    *k = 2;
    while (*k < SS_KMAX && *k * SS_AVG < n) *k *= 2;
    if (*k * SS_AVG < n) return 0;
    for (*s = 4 * *k; *s < n && *s < SS_SAMPLES;) *s *= 2;
    if (*s > SS_SAMPLES) *s = SS_SAMPLES;
    return 1;
}

/* The buffers of a sample sort of n keys (those of the partition sort, A, B, R and the
 * level arrays, come from gpu_alloc or interp_case): the sample twice, the 4096
 * offsets, and the padded tiles twice (k * SS_T words). */
static size_t ss_bytes(long long n, int b)
{
    long long k, s;
    if (!ss_shape(n, &k, &s)) k = s = 1; /* unused: the partition sort does it all */
    switch (b) {
    case SSB_SMP0: case SSB_SMP: return (size_t)s * 4;
    case SSB_OFFS: return SS_KMAX * 4;
    case SSB_PAD: case SSB_PADS: return (size_t)k * SS_T * 4;
    }
    return 0;
}

/* Sort the n keys in A into R (B, and A after the multisplit, are scratch):
 *   ssSample A -> SMP0, ssSortTiles SMP0 -> SMP (the sorted sample), ssCounts (SMP, A)
 *   -> PADS (4096 counts; PADS is not in use yet), ssScan -> OFFS; the offsets
 *   downloaded (the one wait); ssSplit (OFFS, SMP, A) -> B (the keys grouped by
 *   bucket); ssPad (OFFS, B) -> PAD; ssSortTiles PAD -> PADS; ssBack (OFFS, PADS) -> R.
 * Then each bucket of more than SS_T keys (its place in R holds only its tile's first
 * SS_T, garbage) is sorted again from B into R by the partition sort's levels. */
static patc_status samplesort(Sorter *q, long long n)
{
    long long k, s;
    q->n = n;
    q->ss_launches = q->ss_big = q->ss_big_keys = q->ss_first_big = q->ss_first_big_len = 0;
    q->ss_whole = !ss_shape(n, &k, &s);
    q->ss_buckets = q->ss_whole ? 0 : k;
    if (q->ss_whole) return quicksort(q, n);
    const long long r = s / k, g = n / 65536 < 1 ? 1 : n / 65536 > 264 ? 264 : n / 65536;
    const long long tiles = k * SS_T;
    patc_status st;
    if ((st = ss_run(q, SSK_SAMPLE, (long long[]){n, s}, 1, (int[]){SS_MAIN(BUF_A)}, 1, (int[]){SSB_SMP0})) ||
        (st = ss_run(q, SSK_TILES, (long long[]){s}, 1, (int[]){SSB_SMP0}, 1, (int[]){SSB_SMP})) ||
        (st = ss_run(q, SSK_COUNTS, (long long[]){n, g, k, r}, 2, (int[]){SSB_SMP, SS_MAIN(BUF_A)}, 1, (int[]){SSB_PADS})) ||
        (st = ss_run(q, SSK_SCAN, (long long[]){0}, 1, (int[]){SSB_PADS}, 1, (int[]){SSB_OFFS})))
        return st;
    const unsigned *offs = (const unsigned *)(uintptr_t)q->ssb[SSB_OFFS];
    if (!q->interp) {
        patc_buffer *b = NULL;
        if ((st = patc_buffer_wrap(q->ctx, q->ssb[SSB_OFFS], SS_KMAX * 4, &b)) == PATC_OK)
            st = patc_buffer_download(b, q->ss_offs, SS_KMAX * 4); /* waits */
        patc_buffer_free(b);
        if (st) return st;
        offs = q->ss_offs;
    }
    /* the buckets past k-1 are empty, and every count is at most n: else a wrong kernel */
    q->nwork = 0;
    for (long long b = 0; b < SS_KMAX; b++) {
        long long end = b + 1 < SS_KMAX ? offs[b + 1] : n, len = end - offs[b];
        if (offs[0] != 0 || len < 0 || end > n || (b >= k && len)) {
            fprintf(stderr, "quicksort: the sample sort's bucket %lld runs from %u to %lld of %lld keys\n", b, offs[b], end, n);
            return PATC_ERR_INVALID;
        }
        if (len > ss_max) {
            if (!q->ss_big++) q->ss_first_big = b, q->ss_first_big_len = len;
            q->ss_big_keys += len;
            if (push(q, (Seg){offs[b], len, BUF_B})) return PATC_ERR_NO_MEMORY;
        }
    }
    if ((st = ss_run(q, SSK_SPLIT, (long long[]){n, k, r}, 3, (int[]){SSB_OFFS, SSB_SMP, SS_MAIN(BUF_A)}, 1,
                     (int[]){SS_MAIN(BUF_B)})) ||
        (st = ss_run(q, SSK_PAD, (long long[]){n, k}, 2, (int[]){SSB_OFFS, SS_MAIN(BUF_B)}, 1, (int[]){SSB_PAD})) ||
        (st = ss_run(q, SSK_TILES, (long long[]){tiles}, 1, (int[]){SSB_PAD}, 1, (int[]){SSB_PADS})) ||
        (st = ss_run(q, SSK_BACK, (long long[]){n, k}, 2, (int[]){SSB_OFFS, SSB_PADS}, 1, (int[]){SS_MAIN(BUF_R)})))
        return st;
    if (!q->nwork) return PATC_OK;
    /* The partition sort's small sorts run on side streams, which do not wait for the
     * null stream: wait for the launches above (ssSplit writes B, ssBack R) first. */
    if (!q->interp && q->nstreams > 1) {
        int r = q->stream_sync(NULL);
        if (r) {
            fprintf(stderr, "quicksort: cuStreamSynchronize failed (%d)\n", r);
            return PATC_ERR_DRIVER;
        }
    }
    return quicksort_work(q);
}

/* What the sample sort did, for the output line. */
static void ss_describe(const Sorter *q, char *buf, size_t size)
{
    if (q->ss_whole) {
        snprintf(buf, size, "fallback: n above %d x %d, all by partitions: %lld levels, %lld partitions, %lld small sorts",
                 SS_KMAX, SS_AVG, q->levels, q->partitions, q->smalls);
        return;
    }
    int m = snprintf(buf, size, "sample sort: %lld buckets, %lld launches and 1 download, padded to %lld keys (%.1f MiB, twice)",
                     q->ss_buckets, q->ss_launches, q->ss_buckets * SS_T, q->ss_buckets * SS_T * 4.0 / 1048576);
    if (q->ss_big && m > 0 && (size_t)m < size)
        snprintf(buf + m, size - (size_t)m,
                 "; fallback: %lld buckets of more than %lld keys (%lld keys; bucket %lld holds %lld) by partitions: "
                 "%lld levels, %lld partitions, %lld small sorts, %lld copies",
                 q->ss_big, ss_max, q->ss_big_keys, q->ss_first_big, q->ss_first_big_len, q->levels, q->partitions,
                 q->smalls, q->copies);
}

/* ---------------------------------------------------------------- inputs and checks */

static const char *const KINDS[] = {"random", "dup", "equal", "sorted", "reversed", "inf"};
enum { NKINDS = sizeof KINDS / sizeof KINDS[0] };

/* N keys of a kind: random in [-1e6, 1e6), dup in {0..9}, equal (all 3.5), sorted
 * (0, 1, 2, ...), reversed (N-1 down to 0), inf in {-inf, -0, 0, 1, FLT_MAX, +inf}
 * with the first, middle and last -inf (the small sort's padding, a segment of +inf keys,
 * a pivot of -inf); the same seed for every run. */
static int make_keys(float *x, long long n, const char *kind)
{
    uint64_t r = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
    for (long long i = 0; i < n; i++) {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        if (!strcmp(kind, "random")) x[i] = (float)((double)(r >> 11) / 9007199254740992.0 * 2e6 - 1e6);
        else if (!strcmp(kind, "dup")) x[i] = (float)(r % 10);
        else if (!strcmp(kind, "equal")) x[i] = 3.5f;
        else if (!strcmp(kind, "sorted")) x[i] = (float)i;
        else if (!strcmp(kind, "reversed")) x[i] = (float)(n - 1 - i);
        else if (!strcmp(kind, "inf")) x[i] = (float[]){-INFINITY, -0.0f, 0.0f, 1.0f, FLT_MAX, INFINITY}[r % 6];
        else return -1;
    }
    /* inf: the first pivot is -inf (below which nothing is) */
    if (!strcmp(kind, "inf")) x[0] = x[n / 2] = x[n - 1] = -INFINITY;
    return 0;
}

static int cmp_f32(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* 0 when got equals want (qsort's order), else a message and 1 */
static int check(const float *got, const float *want, long long n, const char *what)
{
    for (long long i = 0; i < n; i++)
        if (got[i] != want[i]) {
            printf("FAIL %s: key %lld is %.9g, qsort has %.9g\n", what, i, got[i], want[i]);
            return 1;
        }
    return 0;
}

/* ---------------------------------------------------------------- set-up */

/* Both programs compiled: partition.rise with the tile fixed, sort_small.rise; no_cubin
 * for the interpreter. */
static patc_status load(Sorter *q, int no_cubin)
{
    patc_define defs[2] = {{"nt", PART_NT}, {"ipt", PART_IPT}};
    patc_compile_options o = {.no_cubin = no_cubin};
    patc_status st;
    if ((st = patc_program_compile(q->ctx, PATC_EXAMPLES_DIR "/partition.rise", defs, 2, &o, &q->part_prog)) != PATC_OK ||
        (st = patc_get_kernel(q->part_prog, "partitionLtF32", &q->part)) != PATC_OK ||
        (st = patc_program_compile(q->ctx, PATC_QUICKSORT_DIR "/sort_small.rise", NULL, 0, &o, &q->small_prog)) != PATC_OK ||
        (st = patc_get_kernel(q->small_prog, small_kernel(), &q->small)) != PATC_OK ||
        (st = patc_program_compile(q->ctx, PATC_QUICKSORT_DIR "/pick.rise", NULL, 0, &o, &q->pick_prog)) != PATC_OK ||
        (st = patc_get_kernel(q->pick_prog, "pickF32", &q->pick)) != PATC_OK)
        return st;
    if (sample_mode) {
        static const char *const names[SSK_N] = {"ssSample", "ssSortTiles", "ssCounts", "ssScan",
                                                 "ssSplit",  "ssPad",       "ssBack"};
        if ((st = patc_program_compile(q->ctx, PATC_QUICKSORT_DIR "/samplesort.rise", NULL, 0, &o, &q->ss_prog)) != PATC_OK)
            return st;
        for (int j = 0; j < SSK_N; j++)
            if ((st = patc_get_kernel(q->ss_prog, names[j], &q->ssk[j])) != PATC_OK) return st;
    }
    /* the one nat left of each must be the segment's length */
    if (patc_kernel_num_nats(q->part) != 1 || strcmp(patc_kernel_nat_name(q->part, 0), "n") ||
        patc_kernel_num_nats(q->small) != 1 || strcmp(patc_kernel_nat_name(q->small, 0), "n")) {
        fprintf(stderr, "quicksort: partitionLtF32 and %s must each have the one nat n left\n", small_kernel());
        return PATC_ERR_INVALID;
    }
    return PATC_OK;
}

/* A level holds at most n / (small_max + 1) + 1 segments of more than `small_max` keys (they are
 * disjoint): the level list, its pivots and counts, and the sizes of its arrays. */
static int level_alloc(Sorter *q, long long n)
{
    q->lvcap = n / (small_max + 1) + 1;
    free(q->level);
    free(q->piv);
    free(q->ms);
    q->level = malloc((size_t)q->lvcap * sizeof *q->level);
    q->piv = malloc((size_t)q->lvcap * sizeof *q->piv);
    q->ms = malloc((size_t)q->lvcap * sizeof *q->ms);
    return q->level && q->piv && q->ms ? 0 : (fprintf(stderr, "quicksort: out of memory\n"), 1);
}

static size_t lv_bytes(const Sorter *q, int b) { return (size_t)q->lvcap * (b == LV_COUNT ? 1 : 3) * 4; }

/* The GPU's buffers come from cuMemAlloc (libcuda, loaded by the runtime already), and
 * the sub-ranges are wrapped. Written before patc.h had patc_buffer_device_ptr; libcuda
 * is needed for cuMemcpyDtoD (the keys equal to a pivot, copied to R) all the same. */
static int gpu_alloc(Sorter *q, long long n)
{
    q->cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!q->cuda) return fprintf(stderr, "quicksort: %s\n", dlerror()), 1;
    q->mem_alloc = (cu_alloc_fn)dlsym(q->cuda, "cuMemAlloc_v2");
    q->mem_free = (cu_free_fn)dlsym(q->cuda, "cuMemFree_v2");
    q->copy_dtod = (cu_copy_fn)dlsym(q->cuda, "cuMemcpyDtoD_v2");
    if (!q->mem_alloc || !q->mem_free || !q->copy_dtod) return fprintf(stderr, "quicksort: libcuda lacks cuMemAlloc_v2\n"), 1;
    cu_stream_create_fn create = (cu_stream_create_fn)dlsym(q->cuda, "cuStreamCreate");
    q->stream_sync = (cu_stream_fn)dlsym(q->cuda, "cuStreamSynchronize");
    q->stream_destroy = (cu_stream_fn)dlsym(q->cuda, "cuStreamDestroy_v2");
    if (nstreams_wanted > 1 && (!create || !q->stream_sync || !q->stream_destroy))
        return fprintf(stderr, "quicksort: libcuda lacks cuStreamCreate\n"), 1;
    for (; nstreams_wanted > 1 && q->nstreams < nstreams_wanted; q->nstreams++) {
        int r = create(&q->streams[q->nstreams], 1 /* CU_STREAM_NON_BLOCKING: no wait for the null stream */);
        if (r) return fprintf(stderr, "quicksort: cuStreamCreate failed (%d)\n", r), 1;
    }
    for (int b = 0; b < 3; b++) {
        int r = q->mem_alloc(&q->base[b], (size_t)n * sizeof(float));
        if (r) return fprintf(stderr, "quicksort: cuMemAlloc of %lld keys failed (%d)\n", n, r), 1;
    }
    for (int b = 0; b < SSB_N && sample_mode; b++) {
        int r = q->mem_alloc(&q->ssb[b], ss_bytes(n, b));
        if (r) return fprintf(stderr, "quicksort: cuMemAlloc of %zu bytes failed (%d)\n", ss_bytes(n, b), r), 1;
    }
    if (sample_mode && !(q->ss_offs = malloc(SS_KMAX * 4))) return fprintf(stderr, "quicksort: out of memory\n"), 1;
    if (level_alloc(q, n)) return 1;
    for (int b = 0; b < LV_N; b++) {
        int r = q->mem_alloc(&q->lv[b], lv_bytes(q, b));
        if (r) return fprintf(stderr, "quicksort: cuMemAlloc of a level's arrays failed (%d)\n", r), 1;
        if (!(q->lvhost[b] = malloc(lv_bytes(q, b)))) return fprintf(stderr, "quicksort: out of memory\n"), 1;
    }
    return 0;
}

static void release(Sorter *q)
{
    for (int i = 0; i < q->nstreams; i++) q->stream_destroy(q->streams[i]);
    if (q->cuda && q->mem_free) {
        for (int b = 0; b < 3; b++)
            if (q->base[b]) q->mem_free(q->base[b]);
        for (int b = 0; b < LV_N; b++)
            if (q->lv[b]) q->mem_free(q->lv[b]);
        for (int b = 0; b < SSB_N; b++)
            if (q->ssb[b]) q->mem_free(q->ssb[b]);
    }
    if (q->interp) {
        for (int b = 0; b < 3; b++) free((void *)(uintptr_t)q->base[b]);
        for (int b = 0; b < LV_N; b++) free((void *)(uintptr_t)q->lv[b]);
        for (int b = 0; b < SSB_N; b++) free((void *)(uintptr_t)q->ssb[b]);
    }
    free(q->ss_offs);
    for (int b = 0; b < LV_N; b++) free(q->lvhost[b]);
    free(q->level);
    free(q->piv);
    free(q->ms);
    if (q->ctx) patc_destroy(q->ctx);
    if (q->cuda) dlclose(q->cuda);
    free(q->work);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* One sort on the interpreter; prints PASS or FAIL; 0 when it matched qsort. */
static int interp_case(Sorter *q, long long n, const char *kind)
{
    for (int b = 0; b < 3; b++) {
        free((void *)(uintptr_t)q->base[b]);
        q->base[b] = (uintptr_t)malloc((size_t)n * sizeof(float));
        if (!q->base[b]) return fprintf(stderr, "quicksort: out of memory\n"), 1;
    }
    if (level_alloc(q, n)) return 1;
    for (int b = 0; b < LV_N; b++) {
        free((void *)(uintptr_t)q->lv[b]);
        q->lv[b] = (uintptr_t)malloc(lv_bytes(q, b));
        if (!q->lv[b]) return fprintf(stderr, "quicksort: out of memory\n"), 1;
    }
    for (int b = 0; b < SSB_N && sample_mode; b++) {
        free((void *)(uintptr_t)q->ssb[b]);
        q->ssb[b] = (uintptr_t)malloc(ss_bytes(n, b));
        if (!q->ssb[b]) return fprintf(stderr, "quicksort: out of memory\n"), 1;
    }
    float *want = malloc((size_t)n * sizeof *want);
    if (!want) return fprintf(stderr, "quicksort: out of memory\n"), 1;
    if (make_keys(host_keys(q, BUF_A, 0), n, kind)) {
        free(want);
        return fprintf(stderr, "quicksort: unknown kind '%s'\n", kind), 2;
    }
    memcpy(want, host_keys(q, BUF_A, 0), (size_t)n * sizeof *want);
    qsort(want, (size_t)n, sizeof *want, cmp_f32);
    q->partitions = q->smalls = q->copies = q->max_work = q->levels = 0;
    patc_status st = sample_mode ? samplesort(q, n) : quicksort(q, n);
    char what[64];
    snprintf(what, sizeof what, "interp n=%lld %s", n, kind);
    int bad = st != PATC_OK ? fail(q, what, st) : check(host_keys(q, BUF_R, 0), want, n, what);
    char how[512];
    if (!bad && sample_mode) {
        ss_describe(q, how, sizeof how);
        printf("PASS %s: %s\n", what, how);
    } else if (!bad)
        printf("PASS %s: %lld levels, %lld partitions, %lld small sorts, %lld copies, level <= %lld segments\n", what,
               q->levels, q->partitions, q->smalls, q->copies, q->max_work);
    free(want);
    return bad;
}

/* run_interp's suite: the sizes up to this many (--interp-test M) */
static long long interp_test_max = LLONG_MAX;

static int run_interp(long long n, const char *kind, int suite)
{
    Sorter q = {.interp = 1};
    patc_status st = patc_create(&q.ctx, 0, PATC_COMPILE_ONLY);
    if (st != PATC_OK) return fail(&q, "patc_create", st);
    if ((st = load(&q, 1)) != PATC_OK) {
        int r = fail(&q, "compile", st);
        release(&q);
        return r;
    }
    int bad = 0;
    if (suite) {
        static const long long sizes[] = {1, 31, 1000, 5000, 20011};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && sizes[i] <= interp_test_max; i++)
            for (int k = 0; k < NKINDS; k++) bad |= interp_case(&q, sizes[i], KINDS[k]);
        /* the sample sort again with buckets of more than 1024 keys sorted by partitions
         * (small sorts, partitions and copies): at 5000 keys (two buckets) every kind, at
         * 20011 (eight) two (the interpreter's small sorts take a second there) */
        for (int k = 0; k < NKINDS && sample_mode; k++) {
            ss_max = 1024;
            if (interp_test_max >= 5000) bad |= interp_case(&q, 5000, KINDS[k]);
            if ((!strcmp(KINDS[k], "random") || !strcmp(KINDS[k], "inf")) && interp_test_max >= 20011)
                bad |= interp_case(&q, 20011, KINDS[k]);
            ss_max = SS_T;
        }
    } else {
        bad = interp_case(&q, n, kind);
    }
    release(&q);
    return bad;
}

static int run_compile(void)
{
    Sorter q = {0};
    /* no cache: NVRTC compiles each time */
    patc_status st = patc_create(&q.ctx, 0, PATC_NO_CACHE);
    if (st != PATC_OK) return fail(&q, "patc_create", st);
    patc_set_arch(q.ctx, 90);
    sample_mode = 1; /* samplesort.rise too */
    st = load(&q, 0);
    int bad = st != PATC_OK ? fail(&q, "compile for sm_90", st) : 0;
    /* the 64-bit builds too (launches past 2^31 index values run them): the text as
     * emitted, with the PATC_INDEX32 the runtime puts ahead of it taken back */
    patc_program *progs[4] = {q.part_prog, q.small_prog, q.pick_prog, q.ss_prog};
    const char *paths[4] = {PATC_EXAMPLES_DIR "/partition.rise", PATC_QUICKSORT_DIR "/sort_small.rise",
                            PATC_QUICKSORT_DIR "/pick.rise", PATC_QUICKSORT_DIR "/samplesort.rise"};
    patc_define defs[2] = {{"nt", PART_NT}, {"ipt", PART_IPT}};
    for (int i = 0; i < 4 && !bad; i++) {
        const char *cu = patc_program_cuda(progs[i]);
        char *text = malloc(strlen(cu) + 32);
        if (!text) return fprintf(stderr, "quicksort: out of memory\n"), 1;
        strcpy(text, "#undef PATC_INDEX32\n");
        strcat(text, cu);
        patc_compile_options o = {.cuda = text};
        patc_program *p64 = NULL;
        if ((st = patc_program_compile(q.ctx, paths[i], i == 0 ? defs : NULL, i == 0 ? 2 : 0, &o, &p64)) != PATC_OK)
            bad = fail(&q, "compile the 64-bit build for sm_90", st);
        patc_program_free(p64);
        free(text);
    }
    if (!bad)
        printf("ok: partition.rise, sort_small.rise, pick.rise and samplesort.rise compiled to sm_90 cubins (32- and "
               "64-bit index builds)\n");
    release(&q);
    return bad;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A warm-up sort (the first launches load the modules), then reps timed sorts, each
 * from a fresh upload of the same keys (not timed) and each compared with qsort; the
 * time runs from the first launch to the result downloaded. */
static int run_gpu(long long n, const char *kind, int reps)
{
    Sorter q = {0};
    patc_status st = patc_create(&q.ctx, 0, 0);
    if (st != PATC_OK) return fail(&q, "patc_create", st);
    if (patc_device_status(q.ctx) != PATC_OK) {
        printf("skipped: no GPU (%s)\n", patc_last_error(q.ctx));
        release(&q);
        return 77;
    }
    float *keys = malloc((size_t)n * sizeof *keys), *got = malloc((size_t)n * sizeof *got);
    float *want = malloc((size_t)n * sizeof *want);
    double *ms = calloc((size_t)reps + 1, sizeof *ms);
    patc_buffer *a = NULL, *r = NULL;
    char what[64];
    snprintf(what, sizeof what, "gpu n=%lld %s", n, kind);
    int bad = 0;
    if (!keys || !got || !want || !ms) {
        fprintf(stderr, "quicksort: out of memory\n");
        bad = 1;
    } else if (make_keys(keys, n, kind)) {
        fprintf(stderr, "quicksort: unknown kind '%s'\n", kind);
        bad = 2;
    } else if ((st = load(&q, 0)) != PATC_OK) bad = fail(&q, "compile", st);
    else if (!(bad = gpu_alloc(&q, n)) &&
             ((st = view(&q, BUF_A, 0, n, &a)) != PATC_OK || (st = view(&q, BUF_R, 0, n, &r)) != PATC_OK))
        bad = fail(&q, "wrap", st);
    if (!bad) {
        memcpy(want, keys, (size_t)n * sizeof *want);
        qsort(want, (size_t)n, sizeof *want, cmp_f32);
    }
    for (int i = 0; i <= reps && !bad; i++) {
        if ((st = patc_buffer_upload(a, keys, (size_t)n * sizeof *keys)) != PATC_OK) {
            bad = fail(&q, "upload", st);
            break;
        }
        q.partitions = q.smalls = q.copies = q.max_work = q.levels = 0;
        double t0 = now_ms();
        st = sample_mode ? samplesort(&q, n) : quicksort(&q, n);
        if (st == PATC_OK) st = patc_buffer_download(r, got, (size_t)n * sizeof *got); /* waits */
        ms[i] = now_ms() - t0;
        if (st != PATC_OK) bad = fail(&q, what, st);
        else bad = check(got, want, n, what);
    }
    if (!bad && sample_mode) {
        char how[512];
        qsort(ms + 1, (size_t)reps, sizeof *ms, cmp_double);
        ss_describe(&q, how, sizeof how);
        printf("%s: %.3f ms (median of %d; %s) ok\n", what, ms[1 + reps / 2], reps, how);
    } else if (!bad) {
        qsort(ms + 1, (size_t)reps, sizeof *ms, cmp_double);
        printf("%s: %.3f ms (median of %d; %lld levels, %lld partitions, %lld small sorts, %lld copies, level <= %lld "
               "segments) ok\n", what, ms[1 + reps / 2], reps, q.levels, q.partitions, q.smalls, q.copies, q.max_work);
    }
    free(ms);
    free(keys);
    free(got);
    free(want);
    release(&q);
    return bad;
}

int main(int argc, char **argv)
{
    /* --sample, --streams K (1..32) and --small 1024|4096, in any order, before the mode */
    while (argc >= 2) {
        if (!strcmp(argv[1], "--sample")) {
            sample_mode = 1;
            argv[1] = argv[0];
            argv++;
            argc--;
            continue;
        }
        if (argc >= 3 && !strcmp(argv[1], "--bucket-max")) {
            ss_max = atoll(argv[2]);
            if (ss_max < 1 || ss_max > SS_T) return fprintf(stderr, "quicksort: --bucket-max takes 1 to %d\n", SS_T), 2;
            argv[2] = argv[0];
            argv += 2;
            argc -= 2;
            continue;
        }
        if (argc < 3 || (strcmp(argv[1], "--streams") && strcmp(argv[1], "--small"))) break;
        const int streams = !strcmp(argv[1], "--streams");
        const long long v = atoll(argv[2]);
        if (streams ? v < 1 || v > MAX_STREAMS : v != 1024 && v != 4096) {
            if (streams) fprintf(stderr, "quicksort: --streams takes 1 to %d\n", MAX_STREAMS);
            else fprintf(stderr, "quicksort: --small takes 1024 or 4096\n");
            return 2;
        }
        if (streams) nstreams_wanted = (int)v;
        else small_max = v;
        argv[2] = argv[0];
        argv += 2;
        argc -= 2;
    }
    if ((argc == 2 || (argc == 3 && atoll(argv[2]) >= 1)) && !strcmp(argv[1], "--interp-test")) {
        if (argc == 3) interp_test_max = atoll(argv[2]);
        return run_interp(0, NULL, 1);
    }
    if (argc == 2 && !strcmp(argv[1], "--compile")) return run_compile();
    if (argc == 4 && !strcmp(argv[1], "--interp") && atoll(argv[2]) >= 1) return run_interp(atoll(argv[2]), argv[3], 0);
    if ((argc == 3 || (argc == 4 && atoi(argv[3]) >= 1)) && atoll(argv[1]) >= 1)
        return run_gpu(atoll(argv[1]), argv[2], argc == 4 ? atoi(argv[3]) : 3);
    fprintf(stderr, "usage: quicksort [--sample [--bucket-max M]] [--streams K] [--small 1024|4096] (N KIND [REPS] | --interp N KIND | --interp-test [M] | "
                    "--compile)\n"
                    "  KIND: random, dup, equal, sorted, reversed, inf\n");
    return 2;
}
