/* rt_interp.c: the CPU interpreter (interp/) behind patc.h: a kernel of a program run on
 * host buffers, once or as a reduction relaunched on its own output (the same passes as
 * patc_reduce_to_one, decided by the same rules in rt_reduce.c). */
#include "patc.h"
#include "rt_internal.h"
#include "../interp/interp.h"

#include <stdlib.h>
#include <string.h>

/* Rule: the nats are checked as for a launch (bounds, upper bounds); the interpreter
 * then runs on the kernel's typed IR, which the generated code was lowered from (the
 * program compiled again on the first call: rt_program_typed). */
patc_status patc_interp_run_outputs(patc_kernel *k, const long long *nats, const void *const *inputs,
                                    void *const *outputs)
{
    if (!k) return PATC_ERR_INVALID;
    patc_ctx *c = k->prog->ctx;
    int ni = k->d->ninputs;
    if (!outputs || (ni > 0 && !inputs)) return rt_fail(c, PATC_ERR_INVALID, "patc_interp_run: no buffers");
    for (int j = 0; j < k->d->nouts; j++)
        if (!outputs[j]) return rt_fail(c, PATC_ERR_INVALID, "patc_interp_run: output %d is NULL", j);
    for (int i = 0; i < ni; i++)
        if (!inputs[i]) return rt_fail(c, PATC_ERR_INVALID, "patc_interp_run: input %d is NULL", i);
    patc_status s = rt_bind_nats(k, nats);
    if (s != PATC_OK) return s;
    /* every array's size within the limits patc_kernel_input_info and output_info keep
     * (the interpreter indexes them with these nats: a size past them overflowed) */
    for (int i = 0; i < ni; i++) {
        patc_type t;
        long long cnt;
        size_t b;
        if ((s = patc_kernel_input_info(k, i, nats, &t, &cnt, &b)) != PATC_OK) return s;
    }
    for (int j = 0; j < k->d->nouts; j++) {
        patc_type t;
        long long cnt;
        size_t b;
        if ((s = patc_kernel_output_info_at(k, j, nats, &t, &cnt, &b)) != PATC_OK) return s;
    }
    if ((s = rt_program_typed(k->prog)) != PATC_OK) return s;
    const KernelDef *d = k->prog->comp.defs[k->index];
    int64_t *v = lang_calloc((size_t)d->nnats + 1, sizeof *v);
    if (!v) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory while running kernel %s on the CPU", k->d->name);
    for (int i = 0; i < d->nnats; i++) v[i] = nats[i];
    char err[512];
    if (!interp_kernel_outs(d, v, inputs, outputs, err, sizeof err))
        s = !strcmp(err, INTERP_NO_MEMORY)
                ? rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory while running kernel %s on the CPU", k->d->name)
                : rt_fail(c, PATC_ERR_INTERP, "interpreter: %s", err);
    free(v);
    return s;
}

patc_status patc_interp_run(patc_kernel *k, const long long *nats, const void *const *inputs, void *output)
{
    if (!k) return PATC_ERR_INVALID;
    if (k->d->nouts != 1)
        return rt_fail(k->prog->ctx, PATC_ERR_INVALID, "kernel %s has %d outputs: use patc_interp_run_outputs",
                       k->d->name, k->d->nouts);
    void *outs[1] = {output};
    return patc_interp_run_outputs(k, nats, inputs, output ? outs : NULL);
}

/* Ping-pong through two host buffers sized for the first (largest) pass's output. */
patc_status patc_interp_reduce_to_one(patc_kernel *k, const long long *nats, const void *input, long long n,
                                      void *result, int *passes)
{
    if (!k) return PATC_ERR_INVALID;
    patc_ctx *c = k->prog->ctx;
    if (!input || !result || n < 1)
        return rt_fail(c, PATC_ERR_INVALID, "patc_interp_reduce_to_one: need an input of at least one element");
    patc_status s = rt_need_pass(k, "patc_interp_reduce_to_one");
    if (s != PATC_OK) return s;
    int nn = k->d->nnats;
    if (nn > 1 && !nats) return rt_fail(c, PATC_ERR_INVALID, "kernel %s has %d nat parameters but none were given", k->d->name, nn);
    size_t elem = (size_t)k->d->outs[0].elem_size;
    long long *v = lang_calloc((size_t)nn + 1, sizeof *v), m = 1;
    void *tmp[2] = {NULL, NULL};
    if (!v) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    for (int i = 0; i < nn; i++) v[i] = nats ? nats[i] : 0;
    int np = 0;
    if (n > 1 && (s = rt_pass_size(k, v, n, &m)) == PATC_OK &&
        (!(tmp[0] = lang_malloc((size_t)m * elem)) || !(tmp[1] = lang_malloc((size_t)m * elem))))
        s = rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory for %lld partial results", m);
    const void *src = input;
    while (s == PATC_OK && n > 1) {
        if ((s = rt_pass_size(k, v, n, &m)) != PATC_OK) break;
        void *dst = tmp[np % 2];
        if ((s = patc_interp_run(k, v, &src, dst)) != PATC_OK) {
            char *msg = rt_strdup(patc_last_error(c));
            s = rt_fail(c, s, "pass %d (%lld elements): %s", np + 1, n, msg ? msg : "");
            free(msg);
            break;
        }
        src = dst;
        n = m;
        np++;
    }
    if (s == PATC_OK) {
        memcpy(result, src, elem);
        if (passes) *passes = np;
    }
    free(tmp[0]);
    free(tmp[1]);
    free(v);
    return s;
}
