/* rt_reduce.c: device-level reductions: a reduction pass relaunched until one element
 * is left (patc_reduce_to_one), planned chains of passes and their interleaved timing
 * (rt_tune.c), and the shape of a tunable reduction. */
#include "patc.h"
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>

bool rt_kernel_roles(const patc_kernel *k, int *len_nat, int *grid_nat)
{
    *len_nat = k->d->role_len_nat;
    *grid_nat = k->d->role_grid_nat;
    return k->d->role == KR_REDUCE_PASS && k->d->role_tunable;
}

patc_status rt_need_pass(patc_kernel *k, const char *what)
{
    if (k->d->role == KR_REDUCE_PASS) return PATC_OK;
    return rt_fail(k->prog->ctx, PATC_ERR_INVALID,
                   "%s: kernel %s is not a device-level reduction pass (it must take one array whose length is a "
                   "nat parameter not fixed with -D, and return the same element type)", what, k->d->name);
}

patc_status rt_pass_size(patc_kernel *k, long long *nats, long long n, long long *m)
{
    nats[k->d->role_len_nat] = n;
    patc_status s = patc_kernel_output_info(k, nats, NULL, m, NULL);
    if (s == PATC_OK && (*m < 1 || *m >= n))
        s = rt_fail(k->prog->ctx, PATC_ERR_SIZE, "kernel %s maps %lld elements to %lld: not a reduction pass",
                    k->d->name, n, *m);
    return s;
}

/* ---------------------------------------------------------------- multi-launch reduction */

/* The passes of one reduction, checked and ready to fire: pass i reads src(i) and
 * writes tmp[i % 2]; the sizes only depend on n, so they are planned once and a timed
 * run does nothing on the host but the launches. */
typedef struct Chain {
    long long *nats;  /* a copy of the caller's, the length nat rewritten each pass */
    int len_nat;      /* index of the length nat among the kernel's nats */
    size_t elem;      /* bytes of one element */
    patc_buffer *tmp[2];
    RtLaunch *pass;
    int npass;
    patc_buffer *last; /* where the last pass writes */
} Chain;

static void chain_close(Chain *ch)
{
    for (int i = 0; i < ch->npass; i++) rt_launch_free(&ch->pass[i]);
    free(ch->pass);
    patc_buffer_free(ch->tmp[0]);
    patc_buffer_free(ch->tmp[1]);
    free(ch->nats);
}

/* Requires: a reduction pass (role.c) whose output count shrinks each pass. The last
 * pass writes to `final` when it is given, else to a ping-pong buffer. */
static patc_status chain_open(patc_kernel *k, const long long *nats, patc_buffer *input, long long n,
                              patc_buffer *final, Chain *ch)
{
    patc_ctx *c = k->prog->ctx;
    memset(ch, 0, sizeof *ch);
    ch->len_nat = -1;
    if (!input || n < 1) return rt_fail(c, PATC_ERR_INVALID, "patc_reduce_to_one: need an input of at least one element");
    patc_status s = rt_need_pass(k, "patc_reduce_to_one");
    if (s != PATC_OK) return s;
    ch->len_nat = k->d->role_len_nat;
    ch->elem = (size_t)k->d->outs[0].elem_size;
    /* n * elem without wrapping: n past what the buffer can hold is too large whatever
     * the product would wrap to */
    if ((unsigned long long)n > input->bytes / ch->elem)
        return rt_fail(c, PATC_ERR_SIZE, "patc_reduce_to_one: %lld elements of %zu bytes do not fit the buffer's %zu", n,
                       ch->elem, input->bytes);
    if (final && final->bytes < ch->elem)
        return rt_fail(c, PATC_ERR_SIZE, "the result buffer has %zu bytes; one element needs %zu", final->bytes, ch->elem);
    int nn = k->d->nnats;
    if (nn > 1 && !nats) return rt_fail(c, PATC_ERR_INVALID, "kernel %s has %d nat parameters but none were given", k->d->name, nn);
    if (!(ch->nats = lang_calloc((size_t)nn, sizeof *ch->nats)) || !(ch->pass = lang_calloc(64, sizeof *ch->pass)))
        return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    for (int i = 0; i < nn; i++) ch->nats[i] = nats ? nats[i] : 0;
    /* The first pass has the largest output: both ping-pong buffers get its size. */
    long long m = 1;
    s = n > 1 ? rt_pass_size(k, ch->nats, n, &m) : PATC_OK;
    for (int i = 0; s == PATC_OK && i < 2; i++) s = patc_buffer_alloc(c, (size_t)(m ? m : 1) * ch->elem, &ch->tmp[i]);
    patc_buffer *src = input;
    while (s == PATC_OK && n > 1) {
        if ((s = rt_pass_size(k, ch->nats, n, &m)) != PATC_OK) break;
        if (ch->npass == 64) { /* a plan holds 64 passes: enough for any pass that halves */
            s = rt_fail(c, PATC_ERR_SIZE, "kernel %s: more than 64 passes", k->d->name);
            break;
        }
        patc_buffer *dst = m == 1 && final ? final : ch->tmp[ch->npass % 2], *in[1] = {src};
        if ((s = rt_prepare(k, ch->nats, in, dst, NULL, &ch->pass[ch->npass])) != PATC_OK) break;
        ch->npass++;
        ch->last = src = dst;
        n = m;
    }
    return s;
}

/* Fire the planned passes; the result is in last_buffer(ch, input). */
static patc_status chain_fire(patc_kernel *k, Chain *ch)
{
    patc_status s = PATC_OK;
    for (int i = 0; s == PATC_OK && i < ch->npass; i++) s = rt_fire(k, &ch->pass[i]);
    return s;
}

static patc_buffer *chain_last(Chain *ch, patc_buffer *input)
{
    return ch->npass ? ch->last : input;
}

patc_status patc_reduce_to_one(patc_kernel *k, const long long *nats, patc_buffer *input, long long n,
                               void *host_result, int *launches)
{
    if (!k) return PATC_ERR_INVALID;
    patc_ctx *c = k->prog->ctx;
    if (!host_result) return rt_fail(c, PATC_ERR_INVALID, "patc_reduce_to_one: no result pointer");
    Chain ch;
    patc_status s = rt_need_device(c);
    if (s != PATC_OK) return s;
    if ((s = chain_open(k, nats, input, n, NULL, &ch)) == PATC_OK && (s = chain_fire(k, &ch)) == PATC_OK &&
        (s = rt_drv_check(c, rt_driver_sync(c->drv), "kernel execution")) == PATC_OK)
        s = patc_buffer_download(chain_last(&ch, input), host_result, ch.elem);
    if (s == PATC_OK && launches) *launches = ch.npass;
    chain_close(&ch);
    return s;
}

int rt_time_reduce(patc_kernel *k, const long long *nats, patc_buffer *input, long long n, int warmup,
                   int reps, float *median_ms, float *each_ms)
{
    if (!k) return PATC_ERR_INVALID;
    patc_ctx *c = k->prog->ctx;
    if (warmup < 0 || reps < 1 || !median_ms) return rt_fail(c, PATC_ERR_INVALID, "patc_time_reduce_to_one: bad warmup/reps/result");
    RtPlan *p;
    patc_status s = (patc_status)rt_plan_open(k, nats, input, n, NULL, &p);
    if (s == PATC_OK) s = (patc_status)rt_time_plans(c, &p, 1, warmup, reps, median_ms, each_ms);
    rt_plan_close(p);
    return s;
}

patc_status patc_time_reduce_to_one(patc_kernel *k, const long long *nats, patc_buffer *input, long long n,
                                    int warmup, int reps, float *median_ms)
{
    return (patc_status)rt_time_reduce(k, nats, input, n, warmup, reps, median_ms, NULL);
}

/* ---------------------------------------------------------------- plans (rt_tune.c) */

struct RtPlan {
    patc_kernel *k;
    Chain ch;
};

int rt_plan_open(patc_kernel *k, const long long *nats, patc_buffer *input, long long n, patc_buffer *output,
                 RtPlan **out)
{
    patc_ctx *c = k->prog->ctx;
    *out = NULL;
    patc_status s = rt_need_device(c);
    if (s != PATC_OK) return s;
    RtPlan *p = lang_calloc(1, sizeof *p);
    if (!p) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    p->k = k;
    if ((s = chain_open(k, nats, input, n, output, &p->ch)) != PATC_OK) {
        chain_close(&p->ch);
        free(p);
        return s;
    }
    if (!p->ch.npass && output) /* n == 1: the input is the result */
        s = rt_fail(c, PATC_ERR_INVALID, "a one-element reduction has nothing to launch");
    if (s != PATC_OK) {
        rt_plan_close(p);
        return s;
    }
    *out = p;
    return PATC_OK;
}

int rt_plan_fire(RtPlan *p) { return chain_fire(p->k, &p->ch); }

int rt_plan_single(patc_kernel *k, const long long *nats, patc_buffer *input, patc_buffer *output, RtPlan **out)
{
    patc_ctx *c = k->prog->ctx;
    *out = NULL;
    patc_status s = rt_need_device(c);
    if (s != PATC_OK) return s;
    RtPlan *p = lang_calloc(1, sizeof *p);
    if (!p || !(p->ch.pass = lang_calloc(1, sizeof *p->ch.pass))) {
        free(p);
        return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    }
    p->k = k;
    p->ch.len_nat = -1;
    if ((s = rt_prepare(k, nats, &input, output, NULL, &p->ch.pass[0])) != PATC_OK) {
        rt_plan_close(p);
        return s;
    }
    p->ch.npass = 1;
    p->ch.last = output;
    *out = p;
    return PATC_OK;
}

void rt_plan_close(RtPlan *p)
{
    if (!p) return;
    chain_close(&p->ch);
    free(p);
}

/* Interleaved timing: every round times each call once, in turn, so that a drift of the
 * host or the clocks during the measurement affects all calls alike. fire(ud, j) enqueues
 * call j on the context's stream. */
int rt_time_calls(struct patc_ctx *c, int (*fire)(void *ud, int j), void *ud, int count, int warmup, int reps,
                  float *median_ms, float *all_ms)
{
    if (count < 1 || reps < 1 || warmup < 0) return rt_fail(c, PATC_ERR_INVALID, "rt_time_calls: bad arguments");
    RtTimer t = {0};
    float *all = lang_calloc((size_t)count * (size_t)reps, sizeof *all);
    patc_status s = all ? rt_timer_open(c, &t, 1) : rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    for (int i = 0; s == PATC_OK && i < warmup; i++)
        for (int j = 0; s == PATC_OK && j < count; j++) s = fire(ud, j);
    if (s == PATC_OK) s = rt_drv_check(c, rt_driver_sync(c->drv), "kernel execution");
    for (int i = 0; s == PATC_OK && i < reps; i++)
        for (int j = 0; s == PATC_OK && j < count; j++) {
            if ((s = rt_drv_check(c, rt_driver_event_record(c->drv, t.start, c->stream), "cuEventRecord")) != PATC_OK) break;
            if ((s = fire(ud, j)) != PATC_OK) break;
            if ((s = rt_drv_check(c, rt_driver_event_record(c->drv, t.stop, c->stream), "cuEventRecord")) != PATC_OK) break;
            s = rt_drv_check(c, rt_driver_event_elapsed(c->drv, t.start, t.stop, &all[(size_t)j * (size_t)reps + (size_t)i]),
                          "kernel execution");
        }
    if (s == PATC_OK && all_ms) memcpy(all_ms, all, sizeof *all * (size_t)count * (size_t)reps);
    for (int j = 0; s == PATC_OK && j < count; j++) median_ms[j] = rt_median(all + (size_t)j * (size_t)reps, reps);
    rt_timer_close(c, &t);
    free(all);
    return s;
}

static int fire_plan(void *ud, int j) { return rt_plan_fire(((RtPlan *const *)ud)[j]); }

int rt_time_plans(struct patc_ctx *c, RtPlan *const *plans, int count, int warmup, int reps, float *median_ms,
                  float *all_ms)
{
    return rt_time_calls(c, fire_plan, (void *)plans, count, warmup, reps, median_ms, all_ms);
}
