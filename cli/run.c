/* run.c: `patc run` -- JIT-compile one kernel of a .rise program, run it on the GPU
 * through libpatrt and/or on the CPU through the reference interpreter, and report.
 *
 *   patc run FILE --kernel K [-D name=value]... [-I dir]... [--input PATH|random]...
 *            [--output PATH] [--cpu] [--check-against-cpu] [--repeat R] [--time]
 *            [--no-cache] [--cuda EDITED.cu] [--reduce]
 *
 * Nat parameters. Every nat parameter of K must be given with -D. They are specialised
 * at compile time (as with `patc --emit-cuda -D`), except for a reduction (below), whose
 * length nat stays a parameter and is passed at launch: later passes run the same
 * kernel on fewer elements.
 *
 * Reductions. A kernel with exactly one data parameter whose length is a single nat
 * parameter, an output of the same element type and fewer output than input elements
 * is a device-level reduction pass: it is relaunched on its own output until one
 * element is left (patc_reduce_to_one; the CPU side applies the interpreter the same
 * way). This happens automatically for such kernels and is said in the output;
 * --reduce asks for it explicitly (and fails for a kernel of another shape).
 *
 * Exit status: 0 success, 1 errors in the program or while running, 2 bad usage.
 * Every error of patc run itself is one line starting with "patc: error: ".
 *
 * Options: run_opts.c; host data: run_data.c.
 */
#include "../runtime/patc.h"
#include "cli.h"
#include "../interp/interp.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the program's shape */

/* What an unspecialised compile says about the kernel. */
typedef struct Shape {
    bool known;          /* the kernel compiled without -D (else nothing below is set) */
    bool is_pass;        /* one data param whose length is a nat param, same output type */
    char len_nat[128];   /* that nat's name */
    bool shrinks;        /* and the output is shorter at the given -D values */
    char unknown_define[128]; /* a -D that names no nat parameter of the kernel */
} Shape;

/* The environment of a kernel's nat parameters set to `vals` (in k->nats order).
 * Arrays are allocated from `a`. */
static NatEnv nat_env(Arena *a, const KernelDef *k, const int64_t *vals)
{
    int nv = 0;
    for (int i = 0; i < k->nnats; i++)
        if (k->nats[i]->id + 1 > nv) nv = k->nats[i]->id + 1;
    int64_t *v = ANEWN(a, int64_t, nv + 1);
    bool *has = ANEWN(a, bool, nv + 1);
    for (int i = 0; i < k->nnats; i++) {
        v[k->nats[i]->id] = vals[i];
        has[k->nats[i]->id] = true;
    }
    return (NatEnv){v, has, nv};
}

/* Rule: a kernel is a reduction pass when it has exactly one data parameter whose
 * element count is a single nat parameter, and its output has the same element type.
 * It shrinks when, with every nat given by -D, the output count is below the input's.
 * Compiled without -D and silently: failure only means "shape unknown", and the real
 * compile that follows reports the program's errors. */
static void probe_shape(const RunOpts *o, Shape *sh)
{
    memset(sh, 0, sizeof *sh);
    Arena *arena = arena_new();
    StrBuf sink = {0};
    Diag diag;
    diag_init(&diag, NULL, &sink);
    Compilation c = {.arena = arena, .diag = &diag};
    CompileOptions opt = {.only_kernel = o->kernel};
    opt.lang.include_dirs = (const char **)(uintptr_t)o->incs; /* LangOptions is not const-correct */
    opt.lang.ninclude_dirs = o->nincs;
    if (!compile_file(&c, &opt, o->file) || c.nkernels != 1) goto done;
    sh->known = true;
    const Kernel *k = c.kernels[0];
    const KernelDef *d = c.defs[0];
    for (int i = 0; i < o->ndefs && !sh->unknown_define[0]; i++) {
        bool found = false;
        for (int j = 0; j < d->nnats; j++)
            if (!strcmp(d->nats[j]->name, o->defs[i].name)) found = true;
        if (!found) snprintf(sh->unknown_define, sizeof sh->unknown_define, "%s", o->defs[i].name);
    }
    if (k->ninputs != 1 || k->inputs[0]->count->kind != N_VAR || k->out->sk != k->inputs[0]->sk) goto done;
    int len = -1;
    for (int j = 0; j < d->nnats; j++)
        if (d->nats[j] == k->inputs[0]->count->var) len = j;
    if (len < 0 || strlen(d->nats[len]->name) >= sizeof sh->len_nat) goto done;
    sh->is_pass = true;
    snprintf(sh->len_nat, sizeof sh->len_nat, "%s", d->nats[len]->name);
    int64_t *vals = ANEWN(arena, int64_t, d->nnats + 1);
    for (int j = 0; j < d->nnats; j++) {
        long long v;
        if (!run_define_value(o, d->nats[j]->name, &v)) goto done; /* reported later */
        vals[j] = v;
    }
    NatEnv env = nat_env(arena, d, vals);
    int64_t nin, nout;
    if (nat_eval(k->inputs[0]->count, &env, &nin) && nat_eval(k->out->count, &env, &nout))
        sh->shrinks = nout < nin;
done:
    sb_free(&sink);
    arena_free(arena);
}

/* ---------------------------------------------------------------- CPU side */

/* Rule: the output of the interpreter on `inputs`; in reduction mode, the pass is
 * applied to n elements, then to its partials, until one element is left (the same
 * passes as patc_reduce_to_one). nats[len_nat] is rewritten each pass. */
static bool run_cpu(Arena *a, const Compilation *c, int64_t *nats, int len_nat, HostData *inputs, HostData *out,
                    int *passes)
{
    const KernelDef *d = c->defs[0];
    const Kernel *k = c->kernels[0];
    char err[512];
    if (len_nat < 0) {
        const void **in = ANEWN(a, const void *, d->nparams + 1);
        for (int i = 0; i < d->nparams; i++) in[i] = inputs[i].data;
        if (!interp_kernel(d, nats, in, out->data, err, sizeof err)) {
            run_error(1, "interpreter: %s", err);
            return false;
        }
        return true;
    }
    /* reduction: ping-pong through host buffers; `src` starts at the input */
    const void *src = inputs[0].data;
    long long n = inputs[0].count;
    HostData tmp = {0};
    int np = 0;
    bool ok = true;
    while (ok && n > 1) {
        nats[len_nat] = n;
        NatEnv env = nat_env(a, d, nats);
        int64_t m;
        if (!nat_eval(k->out->count, &env, &m) || m < 1 || m >= n) {
            run_error(1, "kernel %s maps %lld elements to %lld: not a reduction pass", d->name, n, (long long)m);
            ok = false;
            break;
        }
        HostData next;
        if (!run_host_alloc(&next, k->out->sk, m, "a partial result")) {
            ok = false;
            break;
        }
        if (!interp_kernel(d, nats, &src, next.data, err, sizeof err)) {
            free(next.data);
            run_error(1, "interpreter (pass %d, %lld elements): %s", np + 1, n, err);
            ok = false;
            break;
        }
        free(tmp.data);
        tmp = next;
        src = tmp.data;
        n = m;
        np++;
    }
    if (ok) memcpy(out->data, src, out->bytes);
    free(tmp.data);
    *passes = np;
    return ok;
}

/* ---------------------------------------------------------------- GPU side */

/* A failed runtime call: its message as one line. */
static bool rt_fail(patc_ctx *ctx, patc_status s, const char *what)
{
    const char *msg = patc_last_error(ctx);
    run_error(1, "%s: %s", what, msg && *msg ? msg : patc_status_string(s));
    return false;
}

/* Rule: compile through libpatrt with the same -D set as the CPU side (an edited .cu
 * with --cuda), upload the inputs, launch once (or reduce to one value), download;
 * with --time also the median over R timed runs after WARMUP untimed ones and the
 * compile statistics. */
static bool run_gpu(const RunOpts *o, const Define *defs, int ndefs, const char *len_nat, long long n,
                    HostData *inputs, int ninputs, HostData *out, int *passes)
{
    patc_ctx *ctx = NULL;
    patc_status s = patc_create(&ctx, 0, o->no_cache ? PATC_NO_CACHE : 0);
    if (s != PATC_OK) return run_error(1, "cannot create a runtime context: %s", patc_status_string(s)), false;
    bool ok = false;
    patc_program *prog = NULL;
    patc_kernel *k = NULL;
    patc_buffer **in = calloc((size_t)ninputs + 1, sizeof *in);
    patc_buffer *ob = NULL;
    patc_define *pd = calloc((size_t)ndefs + 1, sizeof *pd);
    long long *nats = NULL;
    if (!in || !pd) {
        run_error(1, "out of memory");
        goto done;
    }
    /* no device: say so before spending time in NVRTC */
    if ((s = patc_device_status(ctx)) != PATC_OK) {
        rt_fail(ctx, s, patc_status_string(s));
        goto done;
    }
    for (int i = 0; i < o->nincs; i++)
        if ((s = patc_add_include_dir(ctx, o->incs[i])) != PATC_OK) {
            rt_fail(ctx, s, "-I");
            goto done;
        }
    for (int i = 0; i < ndefs; i++) pd[i] = (patc_define){defs[i].name, defs[i].value};
    s = o->cuda ? patc_program_from_cuda(ctx, o->file, o->cuda, pd, ndefs, &prog)
                : patc_program_from_file(ctx, o->file, pd, ndefs, &prog);
    if (s != PATC_OK) {
        rt_fail(ctx, s, o->cuda ? o->cuda : o->file);
        goto done;
    }
    if ((s = patc_get_kernel(prog, o->kernel, &k)) != PATC_OK) {
        rt_fail(ctx, s, o->kernel);
        goto done;
    }
    int nn = patc_kernel_num_nats(k);
    if (!(nats = calloc((size_t)nn + 1, sizeof *nats))) {
        run_error(1, "out of memory");
        goto done;
    }
    for (int i = 0; i < nn; i++) {
        const char *name = patc_kernel_nat_name(k, i);
        if (len_nat && !strcmp(name, len_nat)) nats[i] = n;
        else if (!run_define_value(o, name, &nats[i])) {
            /* the CPU-side compile has the same nats, so this is a runtime mismatch */
            run_error(1, "the runtime's kernel %s has nat parameter %s, which was not given", o->kernel, name);
            goto done;
        }
    }
    for (int i = 0; i < ninputs; i++)
        if ((s = patc_buffer_alloc(ctx, inputs[i].bytes ? inputs[i].bytes : 1, &in[i])) != PATC_OK ||
            (s = patc_buffer_upload(in[i], inputs[i].data, inputs[i].bytes)) != PATC_OK) {
            rt_fail(ctx, s, "upload");
            goto done;
        }
    float ms = 0;
    if (len_nat) {
        if ((s = patc_reduce_to_one(k, nats, in[0], n, out->data, passes)) != PATC_OK) {
            rt_fail(ctx, s, "reduction");
            goto done;
        }
        if (o->time && (s = patc_time_reduce_to_one(k, nats, in[0], n, WARMUP, o->repeat, &ms)) != PATC_OK) {
            rt_fail(ctx, s, "timing");
            goto done;
        }
    } else {
        if ((s = patc_buffer_alloc(ctx, out->bytes ? out->bytes : 1, &ob)) != PATC_OK) {
            rt_fail(ctx, s, "output buffer");
            goto done;
        }
        if ((s = patc_launch(k, nats, in, ob, NULL)) != PATC_OK) {
            rt_fail(ctx, s, "launch");
            goto done;
        }
        if ((s = patc_buffer_download(ob, out->data, out->bytes)) != PATC_OK) {
            rt_fail(ctx, s, "download");
            goto done;
        }
        if (o->time && (s = patc_time_launch(k, nats, in, ob, NULL, WARMUP, o->repeat, &ms)) != PATC_OK) {
            rt_fail(ctx, s, "timing");
            goto done;
        }
    }
    if (o->time) {
        patc_compile_stats st;
        patc_get_compile_stats(ctx, &st);
        printf("kernel time: %.4f ms (median of %d runs after %d warm-up runs%s)\n", ms, o->repeat, WARMUP,
               len_nat ? ", all passes" : "");
        printf("front end: %.3f ms\n", st.frontend_ms);
        printf("compile step: %.3f ms (cache %s%s)\n", st.compile_ms, st.cache_hit ? "hit" : "miss",
               st.cache_corrupt ? ", damaged entry rebuilt" : o->no_cache ? ", cache off" : "");
        printf("module load: %.3f ms (sm_%d)\n", st.load_ms, st.arch);
    }
    ok = true;
done:
    free(nats);
    free(pd);
    free(in); /* the buffers and the program go with the context */
    patc_destroy(ctx);
    return ok;
}

/* ---------------------------------------------------------------- patc run */

/* Without --kernel, a program with exactly one kernel runs that one; with several,
 * the user must say which (the names are listed). Returns an exit status, or -1. */
static int pick_kernel(RunOpts *o)
{
    if (o->kernel) return -1;
    Arena *arena = arena_new();
    Diag diag;
    diag_init(&diag, stderr, NULL);
    int rc = -1;
    diag.jump_armed = true;
    if (setjmp(diag.on_error)) {
        rc = 1;
        goto done;
    }
    Program p = {0};
    p.tail = &p.decls;
    LangOptions lo = {(const char **)(uintptr_t)o->incs, o->nincs};
    lang_parse_file(arena, &diag, &lo, &p, o->file);
    int n = 0;
    StrBuf names = {0};
    for (Decl *d = p.decls; d; d = d->next)
        if (d->kind == D_KERNEL) {
            sb_printf(&names, "%s%s", n++ ? ", " : "", d->name);
            snprintf(o->kernel_buf, sizeof o->kernel_buf, "%s", d->name);
        }
    if (n == 1) o->kernel = o->kernel_buf;
    else rc = run_error(2, n ? "%s has several kernels (%s): say which with --kernel NAME" : "%s has no kernel%s",
                    o->file, n ? names.s : "");
    sb_free(&names);
done:
    diag.jump_armed = false;
    arena_free(arena);
    return rc;
}

int cli_run(int argc, char **argv)
{
    RunOpts o = {0};
    int rc = run_parse_args(argc, argv, &o);
    Arena *arena = NULL;
    HostData *inputs = NULL, gpu_out = {0}, cpu_out = {0};
    int ninputs = 0;
    if (rc >= 0) goto out;
    if ((rc = pick_kernel(&o)) >= 0) goto out;
    rc = 1;

    /* Which nats are specialised depends on whether this is a reduction. */
    Shape sh;
    probe_shape(&o, &sh);
    if (sh.unknown_define[0]) {
        rc = run_error(2, "-D %s: kernel %s has no nat parameter of that name", sh.unknown_define, o.kernel);
        goto out;
    }
    if (o.reduce && sh.known && !sh.is_pass) {
        rc = run_error(1, "--reduce: kernel %s is not a reduction pass (it must take one array whose length is a nat "
                      "parameter and return the same element type)", o.kernel);
        goto out;
    }
    bool reduce = sh.is_pass && (o.reduce || sh.shrinks);
    const char *len_nat = reduce ? sh.len_nat : NULL;
    long long n = 0;
    if (len_nat && !run_define_value(&o, len_nat, &n)) {
        rc = run_error(2, "kernel %s needs -D %s=VALUE (the length of its input)", o.kernel, len_nat);
        goto out;
    }
    /* -D set of the compile: all of them but the reduction's length */
    Define defs[MAX_ARGS];
    int ndefs = 0;
    for (int i = 0; i < o.ndefs; i++)
        if (!len_nat || strcmp(o.defs[i].name, len_nat)) defs[ndefs++] = o.defs[i];

    arena = arena_new();
    Diag diag;
    diag_init(&diag, stderr, NULL);
    Compilation c = {.arena = arena, .diag = &diag};
    CompileOptions copt = {.only_kernel = o.kernel, .defines = defs, .ndefines = ndefs};
    copt.lang.include_dirs = o.incs;
    copt.lang.ninclude_dirs = o.nincs;
    double t0 = run_now_ms();
    if (!compile_file(&c, &copt, o.file)) goto out; /* diagnostics printed */
    double frontend_ms = run_now_ms() - t0;
    if (c.nkernels != 1) {
        rc = run_error(1, "no kernel named '%s' in %s", o.kernel, o.file);
        goto out;
    }
    const KernelDef *d = c.defs[0];
    const Kernel *k = c.kernels[0];
    int64_t *nats = ANEWN(arena, int64_t, d->nnats + 1);
    int len_idx = -1;
    for (int i = 0; i < d->nnats; i++) {
        if (len_nat && !strcmp(d->nats[i]->name, len_nat)) {
            len_idx = i;
            nats[i] = n;
        } else {
            rc = run_error(2, "kernel %s needs -D %s=VALUE", o.kernel, d->nats[i]->name);
            goto out;
        }
    }
    if (len_nat && len_idx < 0) {
        rc = run_error(1, "kernel %s: the length nat %s did not stay a parameter", o.kernel, len_nat);
        goto out;
    }
    if (len_nat && n < 1) {
        rc = run_error(1, "a reduction needs at least one element (-D %s=%lld)", len_nat, n);
        goto out;
    }
    /* the nats' bounds (the runtime checks them too; the interpreter relies on them) */
    NatEnv env = nat_env(arena, d, nats);
    for (int i = 0; i < d->nnats; i++) {
        int64_t ub;
        if (nats[i] < d->nats[i]->lb || (d->nats[i]->ub && nat_eval(d->nats[i]->ub, &env, &ub) && nats[i] >= ub)) {
            rc = run_error(1, "nat %s = %lld is out of range for kernel %s", d->nats[i]->name, (long long)nats[i],
                       o.kernel);
            goto out;
        }
    }

    /* inputs: one --input per data parameter, in declaration order */
    ninputs = k->ninputs;
    if (o.ninputs != ninputs) {
        rc = run_error(2, "kernel %s has %d data parameter%s but %d --input option%s given", o.kernel, ninputs,
                   ninputs == 1 ? "" : "s", o.ninputs, o.ninputs == 1 ? " was" : "s were");
        goto out;
    }
    inputs = calloc((size_t)ninputs + 1, sizeof *inputs);
    if (!inputs) {
        rc = run_error(1, "out of memory");
        goto out;
    }
    uint64_t seed = RUN_RANDOM_SEED;
    for (int i = 0; i < ninputs; i++) {
        int64_t cnt;
        char what[64];
        snprintf(what, sizeof what, "input %d", i + 1);
        if (!nat_eval(k->inputs[i]->count, &env, &cnt)) {
            rc = run_error(1, "cannot evaluate the size of input %d for the given -D values", i + 1);
            goto out;
        }
        if (!run_host_alloc(&inputs[i], k->inputs[i]->sk, cnt, what)) goto out;
        if (!strcmp(o.inputs[i], "random")) run_fill_random(&inputs[i], &seed);
        else if (!run_read_input(&inputs[i], o.inputs[i], i)) goto out;
    }
    int64_t ocnt = 1;
    if (!len_nat && !nat_eval(k->out->count, &env, &ocnt)) {
        rc = run_error(1, "cannot evaluate the output size for the given -D values");
        goto out;
    }
    if (!run_host_alloc(&gpu_out, k->out->sk, ocnt, "the output") || !run_host_alloc(&cpu_out, k->out->sk, ocnt, "the output"))
        goto out;

    int gpu_passes = 0, cpu_passes = 0;
    if (!o.cpu && !run_gpu(&o, defs, ndefs, len_nat, n, inputs, ninputs, &gpu_out, &gpu_passes)) goto out;
    double cpu_ms = 0;
    if (o.cpu || o.check) {
        t0 = run_now_ms();
        if (!run_cpu(arena, &c, nats, len_idx, inputs, &cpu_out, &cpu_passes)) goto out;
        cpu_ms = run_now_ms() - t0;
    }
    const HostData *res = o.cpu ? &cpu_out : &gpu_out;
    if (len_nat)
        printf("%s: device-level reduction pass, relaunched until one element is left: %lld elements, %d %s\n",
               o.kernel, n, o.cpu ? cpu_passes : gpu_passes,
               o.cpu ? ((cpu_passes == 1) ? "interpreter pass" : "interpreter passes")
                     : ((gpu_passes == 1) ? "launch" : "launches"));
    if (o.output) {
        if (!run_write_output(res, o.output)) goto out;
    } else {
        run_print_summary(res, "");
    }
    if (o.time && o.cpu) printf("front end: %.3f ms\ninterpreter: %.3f ms\n", frontend_ms, cpu_ms);
    rc = 0;
    if (o.check) {
        double cs = 0;
        for (long long i = 0; i < cpu_out.count; i++) cs += run_elem_double(&cpu_out, i);
        printf("cpu sum: %.17g\n", cs);
        rc = run_compare(&gpu_out, &cpu_out) ? 0 : 1;
    }
out:
    for (int i = 0; inputs && i < ninputs; i++) free(inputs[i].data);
    free(inputs);
    free(gpu_out.data);
    free(cpu_out.data);
    for (int i = 0; i < o.ndefs; i++) free((char *)o.defs[i].name);
    arena_free(arena);
    fflush(stdout);
    return rc;
}

