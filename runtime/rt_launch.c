/* rt_launch.c: single launches: the checks and argument array of a launch, launch
 * overrides, scratch buffers, and timing with CUDA events. */
#include "patc.h"
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- launches */

/* Leaves L empty, so freeing it twice is harmless (a failed prepare frees its part) */
void rt_launch_free(RtLaunch *L)
{
    free(L->pcfg);
    free(L->pfn);
    free(L->args);
    free(L->ptrs);
    free(L->natv);
    free(L->natv32);
    memset(L, 0, sizeof *L);
}

/* Overrides: grid freely; block only when the code does not assume its block size;
 * shared memory only upwards (the kernel's buffers need what the rule says). */
static patc_status apply_override(patc_kernel *k, const patc_launch_config *o, patc_launch_config *L)
{
    patc_ctx *c = k->prog->ctx;
    if (o->shared_bytes < 0)
        return rt_fail(c, PATC_ERR_LAUNCH_CONFIG, "a launch override's shared_bytes is %lld: give 0 (the kernel's rule) or "
                       "at least what the kernel needs", o->shared_bytes);
    if (o->block[0]) {
        unsigned b[3] = {o->block[0], o->block[1] ? o->block[1] : 1, o->block[2] ? o->block[2] : 1};
        if (k->d->launches[rt_npre(k)].block_fixed && (b[0] != L->block[0] || b[1] != L->block[1] || b[2] != L->block[2]))
            return rt_fail(c, PATC_ERR_LAUNCH_CONFIG,
                        "kernel %s assumes exactly %ux%ux%u threads per block (its code is specialised "
                        "for that block size); a block of %ux%ux%u was requested",
                        k->d->name, L->block[0], L->block[1], L->block[2], b[0], b[1], b[2]);
        memcpy(L->block, b, sizeof b);
    }
    if (o->grid[0]) {
        L->grid[0] = o->grid[0];
        L->grid[1] = o->grid[1] ? o->grid[1] : 1;
        L->grid[2] = o->grid[2] ? o->grid[2] : 1;
    }
    if (o->block[0] || o->grid[0]) {
        int64_t g[3], b[3];
        for (int d = 0; d < 3; d++) {
            g[d] = L->grid[d];
            b[d] = L->block[d];
        }
        patc_status s = rt_check_launch_limits(c, k->d->name, g, b, "the launch override's ");
        if (s != PATC_OK) return s;
    }
    if (o->shared_bytes > 0) {
        if (o->shared_bytes < L->shared_bytes)
            return rt_fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s needs %lld bytes of shared memory; %lld were requested",
                        k->d->name, L->shared_bytes, o->shared_bytes);
        patc_status s = rt_check_shared(k, o->shared_bytes, "the launch override asks for");
        if (s != PATC_OK) return s;
        L->shared_bytes = o->shared_bytes;
    }
    return PATC_OK;
}

/* pb is a buffer of the kernel's context, at least as long as b's count at the bound
 * nats; *bytes (where given) gets that length */
static patc_status check_buffer(patc_kernel *k, const LdBuf *b, const patc_buffer *pb, const char *what, size_t *bytes)
{
    size_t need = 0;
    patc_status s = rt_buffer_info(k, b, what, NULL, NULL, &need);
    if (s != PATC_OK) return s;
    if (bytes) *bytes = need;
    if (!pb) return rt_fail(k->prog->ctx, PATC_ERR_INVALID, "kernel %s: no buffer given for %s", k->d->name, what);
    if (pb->ctx != k->prog->ctx)
        return rt_fail(k->prog->ctx, PATC_ERR_INVALID, "kernel %s: %s belongs to another context", k->d->name, what);
    if (pb->bytes < need)
        return rt_fail(k->prog->ctx, PATC_ERR_SIZE, "kernel %s: %s needs %zu bytes, the buffer has %zu", k->d->name,
                    what, need, pb->bytes);
    return PATC_OK;
}

/* Scratch buffers (the partials and ticket of lastBlock): one set per kernel handle,
 * grown to what these nats need. A fresh one is zeroed; the kernel leaves its ticket
 * at zero and its flagged partials unflagged, so later launches reuse them without a
 * memset. */
static patc_status ensure_scratch(patc_kernel *k)
{
    patc_ctx *c = k->prog->ctx;
    int ns = k->d->nscratch;
    if (!ns) return PATC_OK;
    if (!k->scratch) {
        k->scratch = lang_calloc((size_t)ns, sizeof *k->scratch);
        k->scratch_bytes = lang_calloc((size_t)ns, sizeof *k->scratch_bytes);
        if (!k->scratch || !k->scratch_bytes) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    }
    for (int i = 0; i < ns; i++) {
        size_t need = 0;
        patc_status s = rt_buffer_info(k, &k->d->scratch[i], "a scratch buffer", NULL, NULL, &need);
        if (s != PATC_OK) return s;
        if (need <= k->scratch_bytes[i] && k->scratch[i]) continue;
        if (k->scratch[i]) rt_driver_mem_free(c->drv, k->scratch[i]);
        k->scratch[i] = 0;
        k->scratch_bytes[i] = 0;
        if ((s = rt_drv_check(c, rt_driver_mem_alloc(c->drv, &k->scratch[i], need), "cuMemAlloc (scratch)")) != PATC_OK ||
            /* zeroed on the launches' stream, ahead of them: no host synchronisation
             * (the ready-made calls promise none) and no wait on the null stream */
            (s = rt_drv_check(c, rt_driver_memset0_async(c->drv, k->scratch[i], need, c->stream),
                              "cuMemsetD8Async (scratch)")) != PATC_OK)
            return s;
        k->scratch_bytes[i] = need;
        k->scratch_gen++;
    }
    return PATC_OK;
}

/* The legacy entries take one buffer per data parameter and one output: a kernel with a
 * scalar parameter (passed by value) or several outputs needs patc_launch_args, and the
 * error says so. */
static patc_status need_plain(patc_kernel *k, const char *fn)
{
    const LdKernel *K = k->d;
    for (int i = 0; i < K->ninputs; i++)
        if (K->inputs[i].scalar)
            return rt_fail(k->prog->ctx, PATC_ERR_INVALID,
                           "kernel %s: data parameter %d (%s) is a scalar passed by value, which %s cannot "
                           "give: use patc_launch_args (patc_arg.value)", K->name, i, K->inputs[i].name, fn);
    if (K->nouts != 1)
        return rt_fail(k->prog->ctx, PATC_ERR_INVALID,
                       "kernel %s has %d outputs, %s takes one: use patc_launch_args with an array of outputs",
                       K->name, K->nouts, fn);
    return PATC_OK;
}

/* Check everything and build the argument array (out0.., in0.., scratch0.., nat0..):
 * a buffer's device pointer, or for a scalar parameter its value, copied into the
 * launch (so the caller's memory may change after the call). */
static patc_status prepare_(patc_kernel *k, const long long *nats, const patc_arg *inputs, patc_buffer *const *outputs,
                           const patc_launch_config *cfg, RtLaunch *L)
{
    patc_ctx *c = k->prog->ctx;
    memset(L, 0, sizeof *L);
    patc_status s = rt_need_device(c);
    if (s != PATC_OK) return s;
    if (k->prog->no_cubin)
        return rt_fail(c, PATC_ERR_INVALID, "kernel %s belongs to a program compiled with no_cubin: it cannot be launched",
                       k->d->name);
    if (!k->fn[0])
        return rt_fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s was compiled for sm_%d, the device is sm_%d: not loaded",
                    k->d->name, k->prog->arch, rt_driver_arch(c->drv));
    if ((s = rt_bind_nats(k, nats)) != PATC_OK || (s = rt_derive(k, &L->cfg)) != PATC_OK) return s;
    int np0 = rt_npre(k);
    if (cfg && np0 && (cfg->block[0] || cfg->grid[0] || cfg->shared_bytes > 0))
        return rt_fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s runs %d launches (toGlobal), each with the configuration "
                       "its own rules give: it takes no launch override", k->d->name, np0 + 1);
    if (cfg && (s = apply_override(k, cfg, &L->cfg)) != PATC_OK) return s;
    bool wide = rt_index_bits(k, &L->cfg) == 64;
    if (np0) { /* the launches before the last, each with its own configuration */
        L->npre = np0;
        if (!(L->pcfg = lang_calloc((size_t)np0, sizeof *L->pcfg)) || !(L->pfn = lang_calloc((size_t)np0, sizeof *L->pfn)))
            return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
        for (int l = 0; l < np0; l++) {
            if ((s = rt_derive_launch(k, l, &L->pcfg[l])) != PATC_OK) return s;
            wide |= rt_index_bits_launch(k, l, &L->pcfg[l]) == 64;
        }
    }
    if (wide && k->d->launches[rt_npre(k)].iw == IW_32)
        return rt_fail(c, PATC_ERR_LAUNCH_CONFIG, "kernel %s has 32-bit indices, and with this launch configuration "
                       "they would pass 2^31", k->d->name);
    int variant = wide && k->d->launches[rt_npre(k)].iw == IW_LAUNCH;
    if (variant && !k->fn[1]) {
        StrBuf name = {0};
        sb_printf(&name, "%s (64-bit indices)", k->prog->cuda_name);
        if (name.oom) {
            sb_free(&name);
            return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
        }
        patc_compile_stats keep = c->stats;
        s = rt_program_build(c, k->prog, name.s, 1);
        c->stats = keep;
        sb_free(&name);
        if (s != PATC_OK) return s;
    }
    L->fn = k->fn[variant];
    for (int l = 0; l < np0; l++) L->pfn[l] = k->pfn[variant][l];
    int no = k->d->nouts, ni = k->d->ninputs, nn = k->d->nnats;
    if (ni > 0 && !inputs) return rt_fail(c, PATC_ERR_INVALID, "kernel %s takes %d inputs; none were given", k->d->name, ni);
    if (!outputs) return rt_fail(c, PATC_ERR_INVALID, "kernel %s: no output buffers given", k->d->name);
    for (int j = 0; j < no; j++) {
        char what[48];
        if (no == 1) snprintf(what, sizeof what, "the output");
        else snprintf(what, sizeof what, "output %d", j);
        /* a kernel that adds into its output (zero_out) has its bytes zeroed first (rt_fire) */
        if ((s = check_buffer(k, &k->d->outs[j], outputs[j], what, j == 0 && k->d->zero_out ? &L->zero_bytes : NULL)) != PATC_OK)
            return s;
        int al = k->d->outs[j].align; /* scanPipe's 16-byte stores */
        if (al > 1 && outputs[j]->ptr % (unsigned)al)
            return rt_fail(c, PATC_ERR_INVALID, "kernel %s: %s is written with %d-byte vector stores, so its buffer "
                           "must start at a multiple of %d bytes; it starts at 0x%llx", k->d->name, what, al, al,
                           (unsigned long long)outputs[j]->ptr);
    }
    for (int i = 0; i < ni; i++) {
        if (k->d->inputs[i].scalar) {
            if (!inputs[i].value)
                return rt_fail(c, PATC_ERR_INVALID, "kernel %s: input %d (%s) is a scalar passed by value: "
                               "give its value (patc_arg.value), not a buffer", k->d->name, i, k->d->inputs[i].name);
            continue;
        }
        char what[48];
        snprintf(what, sizeof what, "input %d", i);
        if ((s = check_buffer(k, &k->d->inputs[i], inputs[i].buffer, what, NULL)) != PATC_OK) return s;
        /* a misaligned vector load would stop the kernel with an error that poisons the context */
        int al = k->d->inputs[i].align;
        if (al > 1 && inputs[i].buffer->ptr % (unsigned)al)
            return rt_fail(c, PATC_ERR_INVALID, "kernel %s: input %d (%s) is read with %d-byte vector loads "
                           "(asVector), so its buffer must start at a multiple of %d bytes; it starts at 0x%llx",
                           k->d->name, i, k->d->inputs[i].name, al, al, (unsigned long long)inputs[i].buffer->ptr);
    }
    int ns = k->d->nscratch, np = no + ni + ns;
    if ((s = ensure_scratch(k)) != PATC_OK) return s;
    L->args = lang_calloc((size_t)(np + nn), sizeof *L->args);
    L->ptrs = lang_calloc((size_t)np, sizeof *L->ptrs);
    L->natv = lang_calloc((size_t)(nn ? nn : 1), sizeof *L->natv);
    L->natv32 = lang_calloc((size_t)(nn ? nn : 1), sizeof *L->natv32);
    if (!L->args || !L->ptrs || !L->natv || !L->natv32) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    for (int j = 0; j < no; j++) {
        L->ptrs[j] = outputs[j]->ptr;
        L->args[j] = &L->ptrs[j];
    }
    for (int i = 0; i < ni; i++) {
        const LdBuf *b = &k->d->inputs[i];
        if (b->scalar) /* the value's bytes in the slot's first bytes: at most 8, aligned */
            memcpy(&L->ptrs[no + i], inputs[i].value, (size_t)b->elem_size);
        else
            L->ptrs[no + i] = inputs[i].buffer->ptr;
        L->args[no + i] = &L->ptrs[no + i];
    }
    for (int i = 0; i < ns; i++) {
        L->ptrs[no + ni + i] = k->scratch[i];
        L->args[no + ni + i] = &L->ptrs[no + ni + i];
    }
    for (int i = 0; i < nn; i++) { /* below 2^31 when not wide: the bound covers every nat */
        L->natv[i] = nats[i];
        L->natv32[i] = (int)nats[i];
        L->args[np + i] = wide ? (void *)&L->natv[i] : (void *)&L->natv32[i];
    }
    L->empty = !L->cfg.grid[0] || !L->cfg.grid[1] || !L->cfg.grid[2];
    return PATC_OK;
}

/* prepare_, and on failure nothing left allocated in L */
static patc_status prepare(patc_kernel *k, const long long *nats, const patc_arg *inputs, patc_buffer *const *outputs,
                           const patc_launch_config *cfg, RtLaunch *L)
{
    patc_status s = prepare_(k, nats, inputs, outputs, cfg, L);
    if (s != PATC_OK) rt_launch_free(L);
    return s;
}

patc_status rt_prepare(patc_kernel *k, const long long *nats, patc_buffer *const *inputs, patc_buffer *output,
                       const patc_launch_config *cfg, RtLaunch *L)
{
    memset(L, 0, sizeof *L);
    patc_status s = need_plain(k, "patc_launch");
    if (s != PATC_OK) return s;
    int ni = k->d->ninputs;
    patc_arg *args = lang_calloc((size_t)ni + 1, sizeof *args);
    if (!args) return rt_fail(k->prog->ctx, PATC_ERR_NO_MEMORY, "out of memory");
    for (int i = 0; inputs && i < ni; i++) args[i].buffer = inputs[i];
    s = prepare(k, nats, inputs ? args : NULL, &output, cfg, L);
    free(args);
    return s;
}

/* One launch of a prepared kernel: nothing for an empty grid. */
static patc_status fire_one(patc_kernel *k, const char *name, void *fn, const patc_launch_config *g, void **args)
{
    if (!g->grid[0] || !g->grid[1] || !g->grid[2]) return PATC_OK;
    patc_ctx *c = k->prog->ctx;
    int r = rt_driver_launch(c->drv, fn, g->grid, g->block, (unsigned)g->shared_bytes, c->stream, args);
    if (r)
        return rt_fail(c, PATC_ERR_DRIVER, "launching %s (grid %ux%ux%u, block %ux%ux%u, %lld B shared): %s", name,
                    g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2], g->shared_bytes,
                    rt_driver_error_name(c->drv, r));
    return PATC_OK;
}

/* A kernel's launches in order on the context's stream, all with the one argument
 * array: stream order makes each see the whole of the one before (toGlobal). A kernel
 * that adds into its output (compiled with bins_in_result) has it zeroed first, on the
 * same stream, also for an empty grid (whose result is all zeros). */
patc_status rt_fire(patc_kernel *k, RtLaunch *L)
{
    patc_status s = PATC_OK;
    if (L->zero_bytes) {
        patc_ctx *c = k->prog->ctx;
        s = rt_drv_check(c, rt_driver_memset0_async(c->drv, L->ptrs[0], L->zero_bytes, c->stream), "cuMemsetD8Async (the output)");
    }
    for (int l = 0; s == PATC_OK && l < L->npre; l++)
        s = fire_one(k, k->d->launches[l].name, L->pfn[l], &L->pcfg[l], L->args);
    if (s != PATC_OK || L->empty) return s;
    return fire_one(k, k->d->name, L->fn, &L->cfg, L->args);
}

/* The shape of patc_launch_args's arguments, checked before anything else (a device
 * included): one entry per input, a value for a scalar and a buffer for an array, and
 * one buffer per output. */
static patc_status check_args(patc_kernel *k, const patc_arg *inputs, patc_buffer *const *outputs)
{
    patc_ctx *c = k->prog->ctx;
    const LdKernel *K = k->d;
    if (K->ninputs > 0 && !inputs)
        return rt_fail(c, PATC_ERR_INVALID, "kernel %s takes %d inputs; none were given", K->name, K->ninputs);
    for (int i = 0; i < K->ninputs; i++) {
        if (K->inputs[i].scalar && !inputs[i].value)
            return rt_fail(c, PATC_ERR_INVALID, "kernel %s: input %d (%s) is a scalar passed by value: give its value "
                           "(patc_arg.value), not a buffer", K->name, i, K->inputs[i].name);
        if (!K->inputs[i].scalar && !inputs[i].buffer)
            return rt_fail(c, PATC_ERR_INVALID, "kernel %s: input %d (%s) is an array: give a buffer (patc_arg.buffer)",
                           K->name, i, K->inputs[i].name);
    }
    if (!outputs) return rt_fail(c, PATC_ERR_INVALID, "kernel %s: no output buffers given", K->name);
    for (int j = 0; j < K->nouts; j++)
        if (!outputs[j])
            return rt_fail(c, PATC_ERR_INVALID, "kernel %s: output %d of %d is NULL", K->name, j, K->nouts);
    return PATC_OK;
}

/* What a launch's argument array is made of, as bytes: the nats, each input's value
 * (a scalar) or its buffer's address and size, each output's, and the override. Two
 * calls with the same key and no scratch reallocated between them prepare the same
 * launch. A buffer is keyed by what the kernel sees of it, not by its handle: a handle
 * freed and another allocated at the same address and size give the same arguments.
 * Returns the key's length, built in k->key (allocated on first use, with k->last_key). */
static size_t launch_key(patc_kernel *k, const long long *nats, const patc_arg *inputs, patc_buffer *const *outputs,
                         const patc_launch_config *cfg)
{
    const LdKernel *K = k->d;
    if (!k->key) { /* room for the longest key (with an override), twice: this call's and the kept one's */
        size_t cap = (size_t)K->nnats * sizeof(long long) + (size_t)(K->ninputs + K->nouts) * 16 + 1 + 7 * 8;
        if (!(k->key = lang_malloc(2 * cap))) return 0;
        k->last_key = k->key + cap;
    }
    unsigned char *q = k->key;
#define PUT(v) (memcpy(q, &(v), sizeof(v)), q += sizeof(v))
    for (int i = 0; nats && i < K->nnats; i++) PUT(nats[i]); /* none: prepare fails, nothing is kept */
    for (int i = 0; i < K->ninputs; i++) {
        if (K->inputs[i].scalar) {
            unsigned long long v = 0; /* the value's bytes, at most 8 */
            memcpy(&v, inputs[i].value, (size_t)K->inputs[i].elem_size);
            PUT(v);
        } else {
            unsigned long long ptr = inputs[i].buffer->ptr, bytes = inputs[i].buffer->bytes;
            PUT(ptr);
            PUT(bytes);
        }
    }
    for (int j = 0; j < K->nouts; j++) {
        unsigned long long ptr = outputs[j]->ptr, bytes = outputs[j]->bytes;
        PUT(ptr);
        PUT(bytes);
    }
    unsigned char has = cfg != NULL;
    PUT(has);
    if (cfg) { /* field by field: a caller's struct may have padding bytes of any value */
        for (int d = 0; d < 3; d++) PUT(cfg->grid[d]);
        for (int d = 0; d < 3; d++) PUT(cfg->block[d]);
        PUT(cfg->shared_bytes);
    }
#undef PUT
    return (size_t)(q - k->key);
}

/* The call's prepared launch: the kept one when the key and the scratch are the same,
 * else a new one (checked and built by prepare), which is kept in its place. */
static patc_status last_launch(patc_kernel *k, const long long *nats, const patc_arg *inputs,
                               patc_buffer *const *outputs, const patc_launch_config *cfg, RtLaunch **out)
{
    patc_ctx *c = k->prog->ctx;
    patc_status s = rt_need_device(c); /* first, as prepare does: no buffer is read without one */
    if (s != PATC_OK) return s;
    size_t len = launch_key(k, nats, inputs, outputs, cfg);
    if (!len) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    if (k->last && k->last_gen == k->scratch_gen && len == k->last_key_len && memcmp(k->key, k->last_key, len) == 0) {
        *out = k->last;
        return PATC_OK;
    }
    if (k->last) rt_launch_free(k->last); /* the kept launch is replaced, or dropped on failure */
    k->last_key_len = 0;
    /* calloc: a launch left unprepared by a failure here must be safe to free */
    if (!k->last && !(k->last = lang_calloc(1, sizeof *k->last))) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    if ((s = prepare(k, nats, inputs, outputs, cfg, k->last)) != PATC_OK) return s; /* k->last left empty */
    memcpy(k->last_key, k->key, len);
    k->last_key_len = len;
    k->last_gen = k->scratch_gen; /* after prepare's ensure_scratch */
    *out = k->last;
    return PATC_OK;
}

/* patc_launch_args, waiting for the launches or not. A loop that enqueues the same
 * launch again and again (a benchmark, a solver's step) pays for the checks once: on
 * an idle GPU every microsecond of host work before the launch is a microsecond of the
 * call's time. */
static patc_status launch_args(patc_kernel *k, const long long *nats, const patc_arg *inputs,
                               patc_buffer *const *outputs, const patc_launch_config *cfg, bool wait)
{
    if (!k) return PATC_ERR_INVALID;
    patc_status s = check_args(k, inputs, outputs);
    if (s != PATC_OK) return s;
    RtLaunch *L = NULL;
    if ((s = last_launch(k, nats, inputs, outputs, cfg, &L)) != PATC_OK) return s;
    if ((s = rt_fire(k, L)) == PATC_OK && wait)
        s = rt_drv_check(k->prog->ctx, rt_driver_sync(k->prog->ctx->drv), "kernel execution");
    return s;
}

patc_status patc_launch_args(patc_kernel *k, const long long *nats, const patc_arg *inputs,
                             patc_buffer *const *outputs, const patc_launch_config *cfg)
{
    return launch_args(k, nats, inputs, outputs, cfg, true);
}

patc_status patc_launch_args_enqueue(patc_kernel *k, const long long *nats, const patc_arg *inputs,
                                     patc_buffer *const *outputs, const patc_launch_config *cfg)
{
    return launch_args(k, nats, inputs, outputs, cfg, false);
}

patc_status patc_launch(patc_kernel *k, const long long *nats, patc_buffer *const *inputs, patc_buffer *output,
                        const patc_launch_config *cfg)
{
    if (!k) return PATC_ERR_INVALID;
    RtLaunch L;
    patc_status s = rt_prepare(k, nats, inputs, output, cfg, &L);
    if (s == PATC_OK && (s = rt_fire(k, &L)) == PATC_OK)
        s = rt_drv_check(k->prog->ctx, rt_driver_sync(k->prog->ctx->drv), "kernel execution");
    rt_launch_free(&L);
    return s;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

patc_status rt_timer_open(patc_ctx *c, RtTimer *t, int reps)
{
    memset(t, 0, sizeof *t);
    if (!(t->ms = lang_calloc((size_t)reps, sizeof *t->ms))) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    patc_status s = rt_drv_check(c, rt_driver_event_create(c->drv, &t->start), "cuEventCreate");
    if (s == PATC_OK) s = rt_drv_check(c, rt_driver_event_create(c->drv, &t->stop), "cuEventCreate");
    return s;
}

void rt_timer_close(patc_ctx *c, RtTimer *t)
{
    if (t->start) rt_driver_event_destroy(c->drv, t->start);
    if (t->stop) rt_driver_event_destroy(c->drv, t->stop);
    free(t->ms);
}

float rt_median(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

static patc_status time_prepared(patc_kernel *k, RtLaunch *L, int warmup, int reps, float *median_ms)
{
    patc_ctx *c = k->prog->ctx;
    RtTimer t;
    patc_status s;
    if ((s = rt_timer_open(c, &t, reps)) == PATC_OK) {
        for (int i = 0; s == PATC_OK && i < warmup; i++) s = rt_fire(k, L);
        for (int i = 0; s == PATC_OK && i < reps; i++) {
            if ((s = rt_drv_check(c, rt_driver_event_record(c->drv, t.start, c->stream), "cuEventRecord")) != PATC_OK) break;
            if ((s = rt_fire(k, L)) != PATC_OK) break;
            if ((s = rt_drv_check(c, rt_driver_event_record(c->drv, t.stop, c->stream), "cuEventRecord")) != PATC_OK) break;
            s = rt_drv_check(c, rt_driver_event_elapsed(c->drv, t.start, t.stop, &t.ms[i]), "kernel execution");
        }
        if (s == PATC_OK) *median_ms = rt_median(t.ms, reps);
    }
    rt_timer_close(c, &t);
    return s;
}

patc_status patc_time_launch(patc_kernel *k, const long long *nats, patc_buffer *const *inputs, patc_buffer *output,
                             const patc_launch_config *cfg, int warmup, int reps, float *median_ms)
{
    if (!k) return PATC_ERR_INVALID;
    patc_ctx *c = k->prog->ctx;
    if (warmup < 0 || reps < 1 || !median_ms) return rt_fail(c, PATC_ERR_INVALID, "patc_time_launch: bad warmup/reps/result");
    RtLaunch L;
    patc_status s = rt_prepare(k, nats, inputs, output, cfg, &L);
    if (s == PATC_OK) s = time_prepared(k, &L, warmup, reps, median_ms);
    rt_launch_free(&L);
    return s;
}

patc_status patc_time_launch_args(patc_kernel *k, const long long *nats, const patc_arg *inputs,
                                  patc_buffer *const *outputs, const patc_launch_config *cfg, int warmup, int reps,
                                  float *median_ms)
{
    if (!k) return PATC_ERR_INVALID;
    patc_ctx *c = k->prog->ctx;
    if (warmup < 0 || reps < 1 || !median_ms)
        return rt_fail(c, PATC_ERR_INVALID, "patc_time_launch_args: bad warmup/reps/result");
    patc_status s = check_args(k, inputs, outputs);
    if (s != PATC_OK) return s;
    RtLaunch L;
    s = prepare(k, nats, inputs, outputs, cfg, &L);
    if (s == PATC_OK) s = time_prepared(k, &L, warmup, reps, median_ms);
    rt_launch_free(&L);
    return s;
}
