/* test_fakedriver.c: libpatrt's host side against tests/fakecuda, a stand-in driver
 * (run with its directory in LD_LIBRARY_PATH; ctest runtime_fakedriver does that).
 *
 * No kernel runs: these tests check what the runtime hands the driver (the argument
 * array in the order of the emitted signature, the launch shape, scratch buffers zeroed
 * and grown, misaligned vector inputs refused before a launch) and that every failing
 * driver call comes back as an error with a message, with the device memory freed.
 * What the kernels compute is tested on a GPU (test_runtime gpu, tests/gpu/all.sh).
 * FAKE_VERBOSE=1 in the environment lists each injected failure and what it did. */
#include "../runtime/patc.h"
#include "fakecuda/fakecuda.h"

#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATC_EXAMPLES_DIR
#define PATC_EXAMPLES_DIR "examples"
#endif

static const char *SAXPY =
    "kernel saxpy = nFun(n =>\n"
    "  fun(f32)(a => fun(n.f32)(xs => fun(n.f32)(ys =>\n"
    "    zip(xs)(ys) |> mapGlobal(fun(p => a * fst(p) + snd(p)))))))\n";
static const char *SUM4 = "kernel sum4 = nFun(n => fun((4 * n).f32)(xs => xs |> asVector(4)"
                          " |> mapGlobal(fun(v => v |> reduceSeqUnroll(add)(0.0f)))))";

/* the fake's own entry points */
static struct {
    void (*on_launch)(fakecuda_launch_hook, void *);
    void (*fail_at)(const char *, int, int);
    int (*calls)(const char *);
    long long (*live)(void);
    size_t (*alloc_size)(unsigned long long);
} F;

static char cachedir[256];
static patc_ctx *ctx;

static void *need(void *h, const char *sym)
{
    void *p = dlsym(h, sym);
    ck_assert_msg(p != NULL, "the libcuda.so.1 loaded is not tests/fakecuda's (no %s)", sym);
    return p;
}

static void setup(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h != NULL, "%s", dlerror());
    ck_assert(((bool (*)(void))need(h, "fakecuda_is_fake"))());
    *(void **)&F.on_launch = need(h, "fakecuda_on_launch");
    *(void **)&F.fail_at = need(h, "fakecuda_fail_at");
    *(void **)&F.calls = need(h, "fakecuda_calls");
    *(void **)&F.live = need(h, "fakecuda_live_allocations");
    *(void **)&F.alloc_size = need(h, "fakecuda_allocation_size");
    snprintf(cachedir, sizeof cachedir, "/tmp/patc-fake-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(cachedir));
    setenv("PATC_CACHE_DIR", cachedir, 1);
    ck_assert_int_eq(patc_create(&ctx, 0, 0), PATC_OK);
    ck_assert_msg(patc_device_status(ctx) == PATC_OK, "%s", patc_last_error(ctx));
}

static void teardown(void)
{
    patc_destroy(ctx);
    ctx = NULL;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cachedir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", cachedir);
}

/* One launch as the driver got it, its argument slots read as the test says they are
 * laid out: kinds[i] 'p' a device pointer, 'f' a float, 'i' an int. */
enum { MAXL = 8, MAXA = 12 };
typedef struct Launch {
    char name[64];
    unsigned grid[3], block[3], shared;
    unsigned long long ptr[MAXA];
    float f[MAXA];
    long long i[MAXA];
    bool scratch_zero; /* the slot Seen.scratch_slot points at scratch_need zero bytes */
} Launch;

typedef struct Seen {
    const char *kinds;
    int scratch_slot;    /* >= 0: check the memory at the pointer in that slot */
    size_t scratch_need; /* for this many bytes */
    int n;
    Launch l[MAXL];
} Seen;

static void record(const FakecudaLaunch *L, void *ud)
{
    Seen *s = ud;
    if (s->n >= MAXL) return;
    Launch *r = &s->l[s->n++];
    snprintf(r->name, sizeof r->name, "%s", L->name);
    memcpy(r->grid, L->grid, sizeof r->grid);
    memcpy(r->block, L->block, sizeof r->block);
    r->shared = L->shared;
    for (int a = 0; s->kinds[a]; a++) {
        switch (s->kinds[a]) {
        case 'p': memcpy(&r->ptr[a], L->args[a], 8); break;
        case 'f': memcpy(&r->f[a], L->args[a], 4); break;
        case 'i': { int v; memcpy(&v, L->args[a], 4); r->i[a] = v; break; }
        }
    }
    if (s->scratch_slot >= 0) { /* the look-back state as the kernel finds it */
        unsigned long long p = r->ptr[s->scratch_slot];
        r->scratch_zero = F.alloc_size(p) >= s->scratch_need;
        for (size_t b = 0; r->scratch_zero && b < s->scratch_need; b++)
            r->scratch_zero = ((const unsigned char *)(uintptr_t)p)[b] == 0;
    }
}

static patc_kernel *kernel_of(const char *name, const char *src, const patc_define *d, int nd)
{
    patc_program *p;
    patc_kernel *k;
    if (src) ck_assert_msg(patc_program_from_string(ctx, "t.rise", src, d, nd, &p) == PATC_OK, "%s", patc_last_error(ctx));
    else
        ck_assert_msg(patc_program_from_file(ctx, PATC_EXAMPLES_DIR "/scan_device.rise", d, nd, &p) == PATC_OK, "%s",
                      patc_last_error(ctx));
    ck_assert_int_eq(patc_get_kernel(p, name, &k), PATC_OK);
    return k;
}

/* The argument array is out0.., in0.., scratch.., nat0.. (the emitted signature's
 * order), a scalar input passed by value, nats as 32-bit ints below 2^31. */
START_TEST(launch_arguments_in_signature_order)
{
    patc_kernel *k = kernel_of("saxpy", SAXPY, NULL, 0);
    patc_buffer *bx, *by, *bo;
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4000, &bx), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4000, &by), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4000, &bo), PATC_OK);
    static Seen seen = {.kinds = "pfppi", .scratch_slot = -1};
    F.on_launch(record, &seen);
    long long n = 1000;
    float a = 2.5f;
    patc_arg args[3] = {{NULL, &a}, {bx, NULL}, {by, NULL}};
    ck_assert_msg(patc_launch_args(k, &n, args, &bo, NULL) == PATC_OK, "%s", patc_last_error(ctx));
    ck_assert_int_eq(seen.n, 1);
    const Launch *r = &seen.l[0];
    ck_assert_str_eq(r->name, "saxpy");
    ck_assert_uint_eq(r->ptr[0], patc_buffer_device_ptr(bo));
    ck_assert_float_eq(r->f[1], 2.5f);
    ck_assert_uint_eq(r->ptr[2], patc_buffer_device_ptr(bx));
    ck_assert_uint_eq(r->ptr[3], patc_buffer_device_ptr(by));
    ck_assert_int_eq(r->i[4], 1000);
    ck_assert_uint_ge((unsigned long long)r->grid[0] * r->block[0], 1000); /* every element has a thread */
    /* the value is read at each call: a changed between two calls is launched changed */
    a = 7.0f;
    ck_assert_msg(patc_launch_args(k, &n, args, &bo, NULL) == PATC_OK, "%s", patc_last_error(ctx));
    ck_assert_int_eq(seen.n, 2);
    ck_assert_float_eq(seen.l[1].f[1], 7.0f);
    /* a negative shared_bytes in an override is refused before the launch (it was
     * taken as "derive"); 0 derives */
    patc_launch_config cfg = {.shared_bytes = -5};
    ck_assert_int_eq(patc_launch_args(k, &n, args, &bo, &cfg), PATC_ERR_LAUNCH_CONFIG);
    ck_assert_msg(strstr(patc_last_error(ctx), "shared_bytes is -5"), "%s", patc_last_error(ctx));
    ck_assert_int_eq(seen.n, 2);
    cfg.shared_bytes = 0;
    ck_assert_int_eq(patc_launch_args(k, &n, args, &bo, &cfg), PATC_OK);
    ck_assert_int_eq(seen.n, 3);
    F.on_launch(NULL, NULL);
    patc_buffer_free(bx);
    patc_buffer_free(by);
    patc_buffer_free(bo);
}
END_TEST

/* A kernel reading its input with 16-byte vectors (asVector) is refused a buffer that
 * starts elsewhere, before anything is launched (on a GPU the misaligned load would
 * stop the kernel and poison the context); a 16-byte aligned part of a buffer is fine. */
START_TEST(misaligned_vector_input_refused_before_launch)
{
    patc_kernel *k = kernel_of("sum4", SUM4, NULL, 0);
    patc_buffer *bx, *bo, *off4, *off16;
    ck_assert_int_eq(patc_buffer_alloc(ctx, 16 * 1000 + 32, &bx), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4 * 1000, &bo), PATC_OK);
    unsigned long long base = patc_buffer_device_ptr(bx);
    ck_assert_int_eq(patc_buffer_wrap(ctx, base + 4, 16 * 1000, &off4), PATC_OK);
    ck_assert_int_eq(patc_buffer_wrap(ctx, base + 16, 16 * 1000, &off16), PATC_OK);
    static Seen seen = {.kinds = "ppi", .scratch_slot = -1};
    F.on_launch(record, &seen);
    long long n = 1000;
    int before = F.calls("cuLaunchKernel");
    ck_assert_int_eq(patc_launch(k, &n, &off4, bo, NULL), PATC_ERR_INVALID);
    ck_assert_msg(strstr(patc_last_error(ctx), "input 0 (xs) is read with 16-byte vector loads") != NULL, "%s",
                  patc_last_error(ctx));
    ck_assert_int_eq(F.calls("cuLaunchKernel"), before);
    ck_assert_msg(patc_launch(k, &n, &off16, bo, NULL) == PATC_OK, "%s", patc_last_error(ctx));
    ck_assert_int_eq(seen.n, 1);
    ck_assert_uint_eq(seen.l[0].ptr[1], base + 16);
    F.on_launch(NULL, NULL);
    patc_buffer_free(off4);
    patc_buffer_free(off16);
    patc_buffer_free(bx);
    patc_buffer_free(bo);
}
END_TEST

/* The look-back scan's tile state: allocated on the first launch and zeroed (fresh
 * device memory holds anything), grown for a larger n, and zero again then; the
 * kernel leaves it zero, so no launch between them clears it. */
START_TEST(scan_scratch_zeroed_and_grown)
{
    patc_define d[2] = {{"nt", 128}, {"ipt", 9}};
    patc_kernel *k = kernel_of("exclSumI32", NULL, d, 2);
    enum { BIG = 1 << 20 };
    patc_buffer *bi, *bo;
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4 * BIG, &bi), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4 * BIG, &bo), PATC_OK);
    long long sizes[3] = {1000, BIG, 5000};
    for (int r = 0; r < 3; r++) {
        static Seen seen;
        long long tiles = (sizes[r] + 128 * 9 - 1) / (128 * 9);
        seen = (Seen){.kinds = "ppp", .scratch_slot = 2, .scratch_need = (size_t)tiles * 8}; /* a 64-bit word a tile */
        F.on_launch(record, &seen);
        ck_assert_msg(patc_launch(k, &sizes[r], &bi, bo, NULL) == PATC_OK, "%s", patc_last_error(ctx));
        F.on_launch(NULL, NULL);
        ck_assert_int_eq(seen.n, 1);
        ck_assert_msg(seen.l[0].scratch_zero, "n = %lld: the tile state is not %zu zero bytes at the launch", sizes[r],
                      seen.scratch_need);
        ck_assert_uint_ge((unsigned long long)seen.l[0].grid[0], (unsigned long long)tiles);
    }
    patc_buffer_free(bi);
    patc_buffer_free(bo);
}
END_TEST

/* patc_launch_args(_enqueue) keeps a kernel's last launch prepared and fires it again
 * for the same call. Each launch must carry what its own call says: the kept one for a
 * repeat, a new one for a new scalar value, output buffer or override (a call with an
 * override between two without, so keys of both lengths), and for scratch buffers that
 * another launch reallocated in between (the kept launch held the freed ones). */
START_TEST(kept_launch_matches_each_call)
{
    patc_kernel *k = kernel_of("saxpy", SAXPY, NULL, 0);
    patc_buffer *bx, *by, *bo, *bo2;
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4000, &bx), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4000, &by), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4000, &bo), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4000, &bo2), PATC_OK);
    static Seen seen = {.kinds = "pfppi", .scratch_slot = -1};
    F.on_launch(record, &seen);
    long long n = 1000;
    float a = 2.0f;
    patc_arg args[3] = {{NULL, &a}, {bx, NULL}, {by, NULL}};
    patc_launch_config over = {{0, 0, 0}, {64, 1, 1}, 0};
    /* the calls: a, output, override (-1: none) */
    static const struct { float a; int out2; int over; } calls[] = {
        {2.0f, 0, 0}, {2.0f, 0, 0}, {-3.0f, 0, 0}, {-3.0f, 1, 0}, {-3.0f, 1, 1}, {-3.0f, 1, 1}, {-3.0f, 1, 0}, {2.0f, 0, 0}};
    enum { NC = sizeof calls / sizeof *calls };
    unsigned block0 = 0;
    for (int c = 0; c < NC; c++) {
        a = calls[c].a;
        patc_buffer *o = calls[c].out2 ? bo2 : bo;
        seen.n = 0;
        patc_status st = c % 2 ? patc_launch_args_enqueue(k, &n, args, &o, calls[c].over ? &over : NULL)
                               : patc_launch_args(k, &n, args, &o, calls[c].over ? &over : NULL);
        ck_assert_msg(st == PATC_OK, "call %d: %s", c, patc_last_error(ctx));
        ck_assert_int_eq(seen.n, 1);
        const Launch *r = &seen.l[0];
        ck_assert_msg(r->f[1] == calls[c].a, "call %d: a = %g launched, %g given", c, r->f[1], calls[c].a);
        ck_assert_uint_eq(r->ptr[0], patc_buffer_device_ptr(o));
        ck_assert_uint_eq(r->ptr[2], patc_buffer_device_ptr(bx));
        ck_assert_int_eq(r->i[4], 1000);
        if (c == 0) block0 = r->block[0];
        ck_assert_uint_eq(r->block[0], calls[c].over ? 64u : block0);
    }
    ck_assert_uint_ne(block0, 64u); /* else the override would not show */

    /* the scan: enqueued at n = 1000, patc_launch at 2^20 grows (reallocates) the tile
     * state, then the n = 1000 call again must pass the new, live allocation */
    patc_define d[2] = {{"nt", 128}, {"ipt", 9}};
    patc_kernel *scan = kernel_of("exclSumI32", NULL, d, 2);
    enum { BIG = 1 << 20 };
    patc_buffer *bi, *bs;
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4 * BIG, &bi), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4 * BIG, &bs), PATC_OK);
    long long small = 1000, big = BIG;
    patc_arg sarg[1] = {{bi, NULL}};
    static Seen ss;
    ss = (Seen){.kinds = "ppp", .scratch_slot = 2, .scratch_need = 8};
    F.on_launch(record, &ss);
    ck_assert_int_eq(patc_launch_args_enqueue(scan, &small, sarg, &bs, NULL), PATC_OK);
    ck_assert_int_eq(patc_launch(scan, &big, &bi, bs, NULL), PATC_OK);
    ck_assert_int_eq(patc_launch_args_enqueue(scan, &small, sarg, &bs, NULL), PATC_OK);
    ck_assert_int_eq(ss.n, 3);
    ck_assert_uint_ne(ss.l[0].ptr[2], ss.l[1].ptr[2]); /* grown: a new allocation */
    ck_assert_uint_eq(ss.l[2].ptr[2], ss.l[1].ptr[2]);
    ck_assert_msg(F.alloc_size(ss.l[2].ptr[2]) >= (size_t)(BIG / (128 * 9) + 1) * 8, "the kept launch passed freed scratch");
    ck_assert(ss.l[2].scratch_zero);

    /* a call refused while it is prepared (an output too small) drops the kept launch
     * and leaves the next call working */
    patc_buffer *tiny;
    ck_assert_int_eq(patc_buffer_wrap(ctx, patc_buffer_device_ptr(bs), 16, &tiny), PATC_OK);
    ck_assert_int_eq(patc_launch_args_enqueue(scan, &small, sarg, &tiny, NULL), PATC_ERR_SIZE);
    ck_assert_int_eq(patc_launch_args_enqueue(scan, &small, sarg, &bs, NULL), PATC_OK);
    ck_assert_int_eq(ss.n, 4);
    patc_buffer_free(tiny);
    F.on_launch(NULL, NULL);
    patc_buffer_free(bx);
    patc_buffer_free(by);
    patc_buffer_free(bo);
    patc_buffer_free(bo2);
    patc_buffer_free(bi);
    patc_buffer_free(bs);
}
END_TEST

/* One use of the runtime from context to destroy, stopping at the first failed call;
 * returns how many calls failed (each with a message). */
static int scenario(void)
{
    patc_ctx *c;
    int failed = 0;
#define TRY(call)                                                                                   \
    do {                                                                                            \
        patc_status s_ = (call);                                                                    \
        if (s_ != PATC_OK) {                                                                        \
            ck_assert_msg(c && patc_last_error(c)[0], "%s failed without a message", #call);       \
            failed++;                                                                               \
            goto done;                                                                              \
        }                                                                                           \
    } while (0)
    patc_status cs = patc_create(&c, 0, 0);
    ck_assert_ptr_nonnull(c);
    if (cs != PATC_OK) return 1;
    patc_program *p = NULL, *q = NULL;
    patc_kernel *k, *scan;
    patc_buffer *bx = NULL, *by = NULL, *bo = NULL;
    TRY(patc_device_status(c));
    TRY(patc_program_from_string(c, "t.rise", SAXPY, NULL, 0, &p));
    TRY(patc_get_kernel(p, "saxpy", &k));
    patc_define d[2] = {{"nt", 128}, {"ipt", 9}};
    TRY(patc_program_from_file(c, PATC_EXAMPLES_DIR "/scan_device.rise", d, 2, &q));
    TRY(patc_get_kernel(q, "inclSumF32", &scan));
    static float xs[5000];
    TRY(patc_buffer_alloc(c, sizeof xs, &bx));
    TRY(patc_buffer_alloc(c, sizeof xs, &by));
    TRY(patc_buffer_alloc(c, sizeof xs, &bo));
    TRY(patc_buffer_upload(bx, xs, sizeof xs));
    TRY(patc_buffer_upload(by, xs, sizeof xs));
    long long n = 5000;
    float a = 2.0f;
    patc_arg args[3] = {{NULL, &a}, {bx, NULL}, {by, NULL}};
    TRY(patc_launch_args(k, &n, args, &bo, NULL));
    TRY(patc_launch(scan, &n, &bx, bo, NULL));
    float ms;
    TRY(patc_time_launch_args(k, &n, args, &bo, NULL, 1, 3, &ms));
    TRY(patc_buffer_download(bo, xs, sizeof xs));
done:
    patc_buffer_free(bx);
    patc_buffer_free(by);
    patc_buffer_free(bo);
    patc_program_free(p);
    patc_program_free(q);
    patc_destroy(c);
    return failed;
#undef TRY
}

/* Each driver call the runtime makes, failing at its first, second or third use: the
 * failure comes back from the API call that made it, with a message, nothing crashes,
 * and every device allocation is freed by the end. (The calls a free or a destroy makes
 * cannot report anything: their failures are only survived.) */
/* The ready-made calls enqueue one launch each on the stream they are given and never
 * synchronise the host; the variant follows the built-in table (the tile kernel at
 * small n, the pipe kernel at large n, the element-wise tile where a buffer is not
 * 16-byte aligned); bad buffers are refused before any launch. */
typedef struct AlgoSeen {
    int n;
    char name[4][64];
    void *stream[4];
} AlgoSeen;

static void algo_record(const FakecudaLaunch *L, void *ud)
{
    AlgoSeen *s = ud;
    if (s->n < 4) {
        snprintf(s->name[s->n], sizeof s->name[0], "%s", L->name);
        s->stream[s->n] = L->stream;
    }
    s->n++;
}

START_TEST(ready_made_calls_enqueue_without_sync)
{
    long long big = (1 << 21) + 7;
    patc_buffer *in, *out, *cnt, *odd;
    ck_assert_int_eq(patc_buffer_alloc(ctx, (size_t)big * 4 + 16, &in), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, (size_t)big * 4, &out), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4, &cnt), PATC_OK);
    ck_assert_int_eq(patc_buffer_wrap(ctx, patc_buffer_device_ptr(in) + 4, (size_t)big * 4, &odd), PATC_OK);
    int sync0 = F.calls("cuStreamSynchronize") + F.calls("cuCtxSynchronize") + F.calls("cuEventSynchronize");
    AlgoSeen seen = {0};
    F.on_launch(algo_record, &seen);
    void *stream = NULL;
    ck_assert_int_eq(patc_inclusive_scan(ctx, PATC_F32, PATC_OP_SUM, in, out, 1000, stream), PATC_OK);
    ck_assert_int_eq(patc_inclusive_scan(ctx, PATC_F32, PATC_OP_SUM, in, out, big, stream), PATC_OK);
    ck_assert_int_eq(patc_inclusive_scan(ctx, PATC_F32, PATC_OP_SUM, odd, out, big, stream), PATC_OK);
    ck_assert_int_eq(patc_reduce(ctx, PATC_F32, PATC_OP_MAX, in, out, big, stream), PATC_OK);
    ck_assert_int_eq(seen.n, 4);
    ck_assert_str_eq(seen.name[0], "scan_tile");
    ck_assert_str_eq(seen.name[1], "scan_pipe");
    ck_assert_str_eq(seen.name[2], "scan_tile"); /* not the pipe: the input is not 16-byte aligned */
    ck_assert_str_eq(seen.name[3], "reduce_grid");
    patc_algo_spec f = {.algorithm = PATC_ALGO_PARTITION_STABLE, .type = PATC_F32, .lambda = "fun(x => x > t)",
                        .nscalars = 1, .scalar_names = {"t"}, .scalar_types = {PATC_F32}};
    patc_algo *a;
    ck_assert_msg(patc_algo_create(ctx, &f, &a) == PATC_OK, "%s", patc_last_error(ctx));
    float t = 0.5f;
    const void *sc[1] = {&t};
    ck_assert_int_eq(patc_algo_enqueue(a, in, out, cnt, big, sc, stream), PATC_OK);
    ck_assert_int_ge(seen.n, 5); /* the count launch and the partition */
    int before = seen.n;
    /* refused before any launch: the count missing, too small an output, overlap,
     * n too large for the input, a misaligned element */
    ck_assert_int_eq(patc_algo_enqueue(a, in, out, NULL, 1000, sc, stream), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_algo_enqueue(a, in, cnt, cnt, 1000, sc, stream), PATC_ERR_SIZE);
    ck_assert_int_eq(patc_algo_enqueue(a, in, in, cnt, 1000, sc, stream), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_algo_enqueue(a, odd, out, cnt, big + 1, sc, stream), PATC_ERR_SIZE);
    patc_buffer *skew;
    ck_assert_int_eq(patc_buffer_wrap(ctx, patc_buffer_device_ptr(in) + 2, 4000, &skew), PATC_OK);
    ck_assert_int_eq(patc_algo_enqueue(a, skew, out, cnt, 100, sc, stream), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_reduce(ctx, PATC_F32, PATC_OP_SUM, in, out, 0, stream), PATC_ERR_INVALID);
    ck_assert_int_eq(seen.n, before);
    /* raw device addresses: the same launch; alignment and overlap still checked */
    unsigned long long pin = patc_buffer_device_ptr(in), pout = patc_buffer_device_ptr(out), pc = patc_buffer_device_ptr(cnt);
    ck_assert_int_eq(patc_algo_enqueue_ptr(a, pin, pout, pc, 1000, sc, stream), PATC_OK);
    ck_assert_int_eq(seen.n, before + 2);
    ck_assert_int_eq(patc_algo_enqueue_ptr(a, pin + 2, pout, pc, 1000, sc, stream), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_algo_enqueue_ptr(a, pin, pin + 400, pc, 1000, sc, stream), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_algo_enqueue_ptr(a, pin, pout, 0, 1000, sc, stream), PATC_ERR_INVALID);
    ck_assert_int_eq(patc_algo_enqueue_ptr(a, pin, pout, pc, 0, sc, stream), PATC_ERR_INVALID);
    ck_assert_int_eq(seen.n, before + 2);
    ck_assert_int_eq(F.calls("cuStreamSynchronize") + F.calls("cuCtxSynchronize") + F.calls("cuEventSynchronize"),
                     sync0);
    F.on_launch(NULL, NULL);
}
END_TEST

/* A sorter's kernels are compiled and loaded on their first launch each (rt_sort.c's
 * kernel_cubin): a small sort loads its one kernel, a sort through the passes of 4-byte
 * keys the histogram with its scan and one pass, the same sorts again load nothing, and
 * each sort's launches are what rt_sort.c says (one; the offsets and four passes). */
START_TEST(sorter_compiles_the_kernels_it_launches)
{
    patc_sorter *so;
    patc_buffer *in, *out;
    ck_assert_int_eq(patc_sorter_create(ctx, PATC_U32, &so), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 100000 * 4, &in), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 100000 * 4, &out), PATC_OK);
    int m0 = F.calls("cuModuleLoadData"), l0 = F.calls("cuLaunchKernel");
    ck_assert_msg(patc_sort_keys(so, in, out, 5000, NULL) == PATC_OK, "%s", patc_last_error(ctx));
    ck_assert_int_eq(F.calls("cuModuleLoadData"), m0 + 1);
    ck_assert_int_eq(F.calls("cuLaunchKernel"), l0 + 1);
    ck_assert_msg(patc_sort_keys(so, in, out, 100000, NULL) == PATC_OK, "%s", patc_last_error(ctx));
    ck_assert_int_eq(F.calls("cuModuleLoadData"), m0 + 3);
    ck_assert_int_eq(F.calls("cuLaunchKernel"), l0 + 6);
    ck_assert_int_eq(patc_sort_keys(so, in, out, 5000, NULL), PATC_OK);
    ck_assert_int_eq(patc_sort_keys(so, in, out, 99999, NULL), PATC_OK);
    ck_assert_int_eq(F.calls("cuModuleLoadData"), m0 + 3);
    ck_assert_int_eq(F.calls("cuLaunchKernel"), l0 + 12);
    patc_sorter_free(so);
}
END_TEST

/* patc tune --algo's search: every setting of algorithms.tune's space that compiles is
 * timed, and the file gets one table line per size, the ranges meeting halfway. */
START_TEST(algo_tuner_writes_table_lines)
{
    char path[] = "/tmp/patc-algo-tune-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    patc_algo_spec spec = {.algorithm = PATC_ALGO_FILTER, .type = PATC_F32, .lambda = "fun(x => x > t)", .nscalars = 1,
                           .scalar_names = {"t"}, .scalar_types = {PATC_F32}};
    float t = 0.5f;
    const void *sc[1] = {&t};
    long long sizes[2] = {1000, 5000};
    ck_assert_msg(patc_algo_tune(ctx, &spec, sc, sizes, 2, 2, path, NULL) == PATC_OK, "%s", patc_last_error(ctx));
    FILE *f = fopen(path, "r");
    char line[2][256];
    ck_assert_ptr_nonnull(fgets(line[0], sizeof line[0], f));
    ck_assert_ptr_nonnull(fgets(line[1], sizeof line[1], f));
    fclose(f);
    ck_assert_msg(strncmp(line[0], "filter 1 3000 1 kernel=", 23) == 0, "%s", line[0]);
    ck_assert_msg(strncmp(line[1], "filter 3001 9223372036854775807 1 kernel=", 41) == 0, "%s", line[1]);
    /* sizes must increase */
    long long bad[2] = {5000, 1000};
    ck_assert_int_eq(patc_algo_tune(ctx, &spec, sc, bad, 2, 2, path, NULL), PATC_ERR_INVALID);
    unlink(path);
}
END_TEST

/* A tuner's output file: a directory, a FIFO that nothing reads and a loop of symbolic
 * links are refused with the file and the reason named (the FIFO at once: alarm fails
 * a hang); /dev/null and a FIFO that a process reads take the lines. */
START_TEST(algo_tuner_output_files)
{
    alarm(120);
    char dir[] = "/tmp/patc-algo-out-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char fifo[64], loop[64];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(loop, sizeof loop, "%s/loop", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(symlink("loop", loop), 0);
    patc_algo_spec spec = {.algorithm = PATC_ALGO_REDUCE, .type = PATC_F32, .op = PATC_OP_SUM};
    long long sizes[1] = {1000};
    static const struct { int which; const char *why; } bad[] = {
        {0, "a directory, not a regular file"},
        {1, "a FIFO that no process has open for reading"},
        {2, "Too many levels of symbolic links"},
    };
    for (int i = 0; i < 3; i++) {
        const char *path = bad[i].which == 0 ? dir : bad[i].which == 1 ? fifo : loop;
        ck_assert_int_eq(patc_algo_tune(ctx, &spec, NULL, sizes, 1, 2, path, NULL), PATC_ERR_IO);
        ck_assert_msg(strstr(patc_last_error(ctx), bad[i].why) && strstr(patc_last_error(ctx), path), "%s",
                      patc_last_error(ctx));
    }
    ck_assert_msg(patc_algo_tune(ctx, &spec, NULL, sizes, 1, 2, "/dev/null", NULL) == PATC_OK, "%s",
                  patc_last_error(ctx));
    /* a reader: this process, so that the line waits in the pipe's buffer */
    int rfd = open(fifo, O_RDONLY | O_NONBLOCK);
    ck_assert_int_ge(rfd, 0);
    ck_assert_msg(patc_algo_tune(ctx, &spec, NULL, sizes, 1, 2, fifo, NULL) == PATC_OK, "%s", patc_last_error(ctx));
    char got[512] = {0};
    ck_assert_int_gt(read(rfd, got, sizeof got - 1), 0);
    ck_assert_msg(strncmp(got, "reduce 1 9223372036854775807 ", 29) == 0, "%s", got);
    close(rfd);
    unlink(fifo);
    unlink(loop);
    rmdir(dir);
    alarm(0);
}
END_TEST

/* patc_reduce_to_one's size check cannot wrap: 2^62 f32 elements are 2^64 bytes, which
 * a size_t product made 0, and a 16-byte buffer passed the check. */
START_TEST(reduce_to_one_size_check_does_not_wrap)
{
    patc_program *p;
    patc_kernel *k;
    ck_assert_msg(patc_program_from_file(ctx, PATC_EXAMPLES_DIR "/reduce_device_naive.rise", NULL, 0, &p) == PATC_OK, "%s",
                  patc_last_error(ctx));
    ck_assert_int_eq(patc_get_kernel(p, "reduceNaive", &k), PATC_OK);
    patc_buffer *b;
    ck_assert_int_eq(patc_buffer_alloc(ctx, 16, &b), PATC_OK);
    float r;
    ck_assert_int_eq(patc_reduce_to_one(k, NULL, b, 1LL << 62, &r, NULL), PATC_ERR_SIZE);
    ck_assert_int_eq(patc_reduce_to_one(k, NULL, b, 5, &r, NULL), PATC_ERR_SIZE);
}
END_TEST

/* Every public call that takes nat values or an element count refuses the extreme
 * ones (below 1, above 2^62, products past 2^63) with PATC_ERR_SIZE or
 * PATC_ERR_INVALID before it touches memory or the device: the limits of
 * patc_kernel_input_info, applied by each entry point. */
START_TEST(extreme_nats_refused_at_every_entry_point)
{
    static const long long bad[] = {0, -1, -4611686018427387904LL, (-9223372036854775807LL - 1),
                                    9223372036854775807LL, 4611686018427387905LL, 6917529027641081856LL,
                                    9223372036854775807LL - 255};
    patc_kernel *k = kernel_of("saxpy", SAXPY, NULL, 0), *k4 = kernel_of("sum4", SUM4, NULL, 0);
    patc_program *rp;
    patc_kernel *rk;
    ck_assert_msg(patc_program_from_file(ctx, PATC_EXAMPLES_DIR "/reduce_device_naive.rise", NULL, 0, &rp) == PATC_OK,
                  "%s", patc_last_error(ctx));
    ck_assert_int_eq(patc_get_kernel(rp, "reduceNaive", &rk), PATC_OK);
    patc_reducer *red;
    ck_assert_msg(patc_reducer_create(ctx, PATC_EXAMPLES_DIR "/reduce_fast.rise", "reduceSumF32", NULL, &red) == PATC_OK,
                  "%s", patc_last_error(ctx));
    patc_algo *algo;
    patc_algo_spec spec = {.algorithm = PATC_ALGO_FILTER, .type = PATC_F32, .lambda = "fun(x => x > 0.5f)"};
    ck_assert_msg(patc_algo_create(ctx, &spec, &algo) == PATC_OK, "%s", patc_last_error(ctx));
    patc_buffer *b, *o, *cnt;
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4096, &b), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4096, &o), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 8, &cnt), PATC_OK);
    float host[1024] = {0}, res[1024];
    float a = 2;
    patc_buffer *ins[1] = {b}, *outs[1] = {o};
    patc_arg args[3] = {{.value = &a}, {.buffer = b}, {.buffer = b}};
    const void *hin[3] = {&a, host, host};
    void *hout[1] = {res};
    char text[256];
    int launches = F.calls("cuLaunchKernel");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        long long n = bad[i];
        patc_type t;
        long long count;
        size_t bytes;
        patc_launch_config cfg;
        float ms;
        patc_status got[] = {
            patc_kernel_input_info(k, 1, &n, &t, &count, &bytes),
            patc_kernel_output_info(k, &n, &t, &count, &bytes),
            patc_kernel_output_info_at(k, 0, &n, &t, &count, &bytes),
            patc_kernel_launch_dims(k, &n, &cfg),
            patc_launch(k4, &n, ins, o, NULL),
            patc_launch_args(k, &n, args, outs, NULL),
            patc_launch_args_enqueue(k, &n, args, outs, NULL),
            patc_time_launch(k4, &n, ins, o, NULL, 1, 3, &ms),
            patc_time_launch_args(k, &n, args, outs, NULL, 1, 3, &ms),
            patc_interp_run(k, &n, hin, res),
            patc_interp_run_outputs(k, &n, hin, hout),
            patc_reduce_to_one(rk, NULL, b, n, res, NULL),
            patc_time_reduce_to_one(rk, NULL, b, n, 1, 3, &ms),
            patc_interp_reduce_to_one(rk, NULL, host, n, res, NULL),
            patc_reducer_run(red, b, n, res),
            patc_reducer_enqueue(red, b, n, o),
            patc_reducer_time(red, b, n, 1, 3, &ms, NULL),
            patc_reducer_describe(red, n, text, sizeof text),
            patc_algo_enqueue(algo, b, o, cnt, n, NULL, NULL),
            patc_algo_enqueue_ptr(algo, patc_buffer_device_ptr(b), patc_buffer_device_ptr(o),
                                  patc_buffer_device_ptr(cnt), n, NULL, NULL),
            patc_algo_run_cpu(algo, host, res, &count, n, NULL),
            patc_algo_describe(algo, n, text, sizeof text),
            patc_reduce(ctx, PATC_F32, PATC_OP_SUM, b, o, n, NULL),
            patc_inclusive_scan(ctx, PATC_F32, PATC_OP_SUM, b, o, n, NULL),
            patc_exclusive_scan(ctx, PATC_F32, PATC_OP_SUM, b, o, n, NULL),
        };
        long long sizes[1] = {n};
        char tf[] = "/tmp/patc-extreme-XXXXXX";
        int fd = mkstemp(tf);
        ck_assert_int_ge(fd, 0);
        close(fd);
        patc_status tuned[] = {
            patc_algo_tune(ctx, &spec, NULL, sizes, 1, 1, tf, NULL),
            patc_tune(ctx, PATC_EXAMPLES_DIR "/reduce_fast.rise", "reduceSumF32", NULL, 0, sizes, 1, 1, tf, NULL),
            patc_tune_scan(ctx, PATC_EXAMPLES_DIR "/scan_device.rise", "inclSumF32", NULL, sizes, 1, 1, tf, NULL),
        };
        unlink(tf);
        for (size_t j = 0; j < sizeof tuned / sizeof tuned[0]; j++)
            ck_assert_msg(tuned[j] == PATC_ERR_SIZE || tuned[j] == PATC_ERR_INVALID, "n = %lld: tuner %zu returned %d (%s)",
                          n, j, tuned[j], patc_last_error(ctx));
        for (size_t j = 0; j < sizeof got / sizeof got[0]; j++)
            ck_assert_msg(got[j] == PATC_ERR_SIZE || got[j] == PATC_ERR_INVALID, "n = %lld: call %zu returned %d (%s)",
                          n, j, got[j], patc_last_error(ctx));
        ck_assert_int_eq(patc_kernel_index_bits(k, &n), 0);
    }
    ck_assert_int_eq(F.calls("cuLaunchKernel"), launches);
    patc_algo_free(algo);
    patc_reducer_free(red);
}
END_TEST

/* Every launch stays within CUDA's limits (grid.x 2^31-1, grid.y and .z 65535, block.x
 * and .y 1024, block.z 64, 1024 threads): a map along y past 65535 rows launches a grid
 * capped at 65535 (its code loops), and a launch past a limit, a rule's or an override's,
 * is refused before the driver (which would answer CUDA_ERROR_INVALID_VALUE, as the fake
 * does) with a message naming the kernel, the dimension and the limit. */
static const char *ROWS =
    "kernel rowSums = nFun((r, c) => fun(r.c.f32)(a => a |> mapGlobal('y')(reduceSeq(add)(0.0f))))\n"
    "kernel scaleRows = nFun((r, c) => fun(r.c.f32)(a => a |> mapGlobal('y')(mapGlobal('x')(fun(x => x * 2.0f)))))\n"
    "kernel deepZ = nFun(n => fun(n.128.f32)(a => a |> mapBlock(mapThreads('z')(fun(x => x + 1.0f)))))\n";

START_TEST(launch_limits_refused_before_the_driver)
{
    patc_kernel *rows = kernel_of("rowSums", ROWS, NULL, 0), *scale = kernel_of("scaleRows", ROWS, NULL, 0),
                *deep = kernel_of("deepZ", ROWS, NULL, 0);
    patc_buffer *in, *out;
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4 * 3 * 70000, &in), PATC_OK);
    ck_assert_int_eq(patc_buffer_alloc(ctx, 4 * 3 * 70000, &out), PATC_OK);
    static Seen seen = {.kinds = "pp", .scratch_slot = -1};
    F.on_launch(record, &seen);
    /* the rule: r rows on grid.y, capped at 65535 */
    static const long long rs[][2] = {{70000, 65535}, {65536, 65535}, {65535, 65535}, {1000, 1000}};
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        long long nats[2] = {rs[i][0], 3};
        seen.n = 0;
        ck_assert_msg(patc_launch(rows, nats, &in, out, NULL) == PATC_OK, "r = %lld: %s", rs[i][0], patc_last_error(ctx));
        ck_assert_int_eq(seen.n, 1);
        ck_assert_uint_eq(seen.l[0].grid[1], (unsigned)rs[i][1]);
        seen.n = 0;
        ck_assert_msg(patc_launch(scale, nats, &in, out, NULL) == PATC_OK, "r = %lld: %s", rs[i][0], patc_last_error(ctx));
        ck_assert_int_eq(seen.n, 1);
        ck_assert_uint_eq(seen.l[0].grid[1], (unsigned)rs[i][1]);
        ck_assert_uint_eq(seen.l[0].grid[0], 1);
    }
    /* 128 threads along z: a block of 64 there, each thread two elements */
    long long one = 1;
    seen.n = 0;
    ck_assert_msg(patc_launch(deep, &one, &in, out, NULL) == PATC_OK, "%s", patc_last_error(ctx));
    ck_assert_int_eq(seen.n, 1);
    ck_assert_uint_eq(seen.l[0].block[2], 64);

    /* overrides past a limit */
    static const struct { patc_launch_config cfg; const char *msg; } over[] = {
        {{{1, 70000, 1}, {0, 0, 0}, 0}, "kernel rowSums: the launch override's grid.y = 70000 is above CUDA's limit 65535"},
        {{{1, 1, 65536}, {0, 0, 0}, 0}, "kernel rowSums: the launch override's grid.z = 65536 is above CUDA's limit 65535"},
        {{{2147483648u, 1, 1}, {0, 0, 0}, 0},
         "kernel rowSums: the launch override's grid.x = 2147483648 is above CUDA's limit 2147483647"},
        {{{0, 0, 0}, {2048, 1, 1}, 0}, "kernel rowSums: the launch override's block.x = 2048 is above CUDA's limit 1024"},
        {{{0, 0, 0}, {1, 1, 128}, 0}, "kernel rowSums: the launch override's block.z = 128 is above CUDA's limit 64"},
        {{{0, 0, 0}, {32, 32, 2}, 0},
         "kernel rowSums: the launch override's block of 32x32x2 = 2048 threads is above CUDA's limit 1024"},
    };
    long long nats[2] = {70000, 3};
    int launches = F.calls("cuLaunchKernel");
    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++) {
        ck_assert_int_eq(patc_launch(rows, nats, &in, out, &over[i].cfg), PATC_ERR_LAUNCH_CONFIG);
        ck_assert_msg(strstr(patc_last_error(ctx), over[i].msg), "%zu: %s", i, patc_last_error(ctx));
    }
    /* at the limits, an override is launched as given */
    patc_launch_config at = {{1, 65535, 1}, {1, 1, 64}, 0};
    seen.n = 0;
    ck_assert_msg(patc_launch(rows, nats, &in, out, &at) == PATC_OK, "%s", patc_last_error(ctx));
    ck_assert_int_eq(F.calls("cuLaunchKernel"), launches + 1);
    ck_assert_uint_eq(seen.l[0].grid[1], 65535);
    ck_assert_uint_eq(seen.l[0].block[2], 64);

    /* a rule past grid.x's limit: 2^40 elements on blocks of 256 are 2^32 blocks (the
     * compiler caps x only where every size passes it); refused before the buffers are
     * looked at, by patc_kernel_launch_dims too */
    patc_kernel *sx = kernel_of("saxpy", SAXPY, NULL, 0);
    long long big = 1LL << 40;
    float a = 1;
    patc_arg args[3] = {{NULL, &a}, {in, NULL}, {in, NULL}};
    const char *want = "kernel saxpy: grid.x = 4294967296 is above CUDA's limit 2147483647";
    ck_assert_int_eq(patc_launch_args(sx, &big, args, &out, NULL), PATC_ERR_LAUNCH_CONFIG);
    ck_assert_msg(strstr(patc_last_error(ctx), want), "%s", patc_last_error(ctx));
    patc_launch_config dims;
    ck_assert_int_eq(patc_kernel_launch_dims(sx, &big, &dims), PATC_ERR_LAUNCH_CONFIG);
    ck_assert_msg(strstr(patc_last_error(ctx), want), "%s", patc_last_error(ctx));
    ck_assert_int_eq(F.calls("cuLaunchKernel"), launches + 1);
    F.on_launch(NULL, NULL);
    patc_buffer_free(in);
    patc_buffer_free(out);
}
END_TEST

START_TEST(every_driver_failure_reported_and_cleaned_up)
{
    static const char *reported[] = {"cuInit", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetAttribute",
                                     "cuDevicePrimaryCtxRetain", "cuModuleLoadData", "cuModuleGetFunction",
                                     "cuMemAlloc_v2", "cuMemcpyHtoD_v2", "cuMemsetD8_v2", "cuMemcpyDtoH_v2",
                                     "cuLaunchKernel", "cuCtxSynchronize", "cuEventCreate", "cuEventRecord",
                                     "cuEventSynchronize", "cuEventElapsedTime"};
    static const char *survived[] = {"cuMemFree_v2", "cuModuleUnload", "cuEventDestroy_v2",
                                     "cuDevicePrimaryCtxRelease_v2", "cuCtxSetCurrent"};
    ck_assert_int_eq(scenario(), 0);
    long long live0 = F.live();
    ck_assert_int_eq(live0, 0);
    for (int w = 0; w < 2; w++) {
        const char **fns = w ? survived : reported;
        int nf = w ? (int)(sizeof survived / sizeof *survived) : (int)(sizeof reported / sizeof *reported);
        for (int f = 0; f < nf; f++)
            for (int nth = 1; nth <= 3; nth++) {
                int before = F.calls(fns[f]);
                F.fail_at(fns[f], nth, 999 /* CUDA_ERROR_UNKNOWN */);
                int failed = scenario();
                bool hit = F.calls(fns[f]) - before >= nth;
                F.fail_at("", 0, 0);
                if (getenv("FAKE_VERBOSE")) fprintf(stderr, "%s@%d: hit %d failed %d live %lld\n", fns[f], nth, hit, failed, F.live());
                if (!w && hit)
                    ck_assert_msg(failed > 0, "the failure of %s at its call %d was not reported", fns[f], nth);
                if (!w) ck_assert_msg(F.live() == 0, "%lld device allocations left after %s failed at call %d",
                                      F.live(), fns[f], nth);
            }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("runtime-fakedriver");
    TCase *tc = tcase_create("fake");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, launch_arguments_in_signature_order);
    tcase_add_test(tc, misaligned_vector_input_refused_before_launch);
    tcase_add_test(tc, scan_scratch_zeroed_and_grown);
    tcase_add_test(tc, kept_launch_matches_each_call);
    tcase_add_test(tc, ready_made_calls_enqueue_without_sync);
    tcase_add_test(tc, sorter_compiles_the_kernels_it_launches);
    tcase_add_test(tc, algo_tuner_writes_table_lines);
    tcase_add_test(tc, algo_tuner_output_files);
    tcase_add_test(tc, reduce_to_one_size_check_does_not_wrap);
    tcase_add_test(tc, extreme_nats_refused_at_every_entry_point);
    tcase_add_test(tc, launch_limits_refused_before_the_driver);
    tcase_add_test(tc, every_driver_failure_reported_and_cleaned_up);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
