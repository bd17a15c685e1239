/* run.c: `patc run` -- compile one kernel of a .rise program once, through libpatrt,
 * run it on the GPU and/or on the CPU reference interpreter, and report.
 *
 *   patc run FILE --kernel K [-D name=value]... [-I dir]... [--input PATH|random|random:LO:HI|value:X]...
 *            [--output PATH]... [--cpu] [--check-against-cpu] [--repeat R] [--time]
 *            [--no-cache] [--cuda EDITED.cu] [--reduce] [--min-blocks B] [--evict-first]
 *            [--bins-in-result]
 *            [--tolerance T]
 *
 * The output is the kernel's output, always; a kernel returning a pair of arrays has
 * one output per array (none or one --output each, in order; each summary printed).
 * A scalar parameter is passed by value (patc_launch_args). Every nat parameter of K must be given
 * with -D; they are specialised at compile time (as with `patc --emit-cuda -D`).
 *
 * --reduce. A device-level reduction pass (the compiler says which kernels are:
 * patc_kernel_get_role) is relaunched on its own output until one element is left
 * (patc_reduce_to_one; on the CPU patc_interp_reduce_to_one). Its length nat must
 * stay a parameter, so with --reduce the program is compiled without specialising:
 * every -D is passed at launch. --reduce on any other kernel is an error; without
 * --reduce nothing is ever relaunched.
 *
 * One compile serves both sides: --cpu compiles without a cubin (no NVRTC, no driver)
 * and interprets; the GPU path interprets the same program's kernel for
 * --check-against-cpu.
 *
 * Options: run_opts.c; host data: run_data.c.
 * Exit status: 0 success, 1 errors in the program or while running, 2 bad usage.
 * Every error of patc run itself is one line starting with "patc: error: ".
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A failed libpatrt call: a rejected program's diagnostics as they are (whole lines,
 * as `patc --check` prints them), anything else as one line. */
static bool rt_fail(patc_ctx *ctx, patc_status s, const char *what)
{
    const char *msg = patc_last_error(ctx);
    if (s == PATC_ERR_COMPILE && msg && *msg) fputs(msg, stderr);
    else run_error(1, "%s: %s", what, msg && *msg ? msg : patc_status_string(s));
    return false;
}

/* Rule: upload the array inputs (a scalar parameter's value is given at launch),
 * launch once (with --reduce: reduce to one value), download every output; with --time
 * also the median over R timed runs after WARMUP untimed ones and the compile
 * statistics. */
static bool run_gpu(const RunOpts *o, patc_ctx *ctx, patc_kernel *k, const long long *nats, HostData *inputs,
                    int ninputs, HostData *outs, int nouts, int *passes)
{
    bool ok = false;
    patc_status s;
    patc_buffer **in = calloc((size_t)ninputs + 1, sizeof *in);
    patc_buffer **ob = calloc((size_t)nouts + 1, sizeof *ob);
    patc_arg *args = calloc((size_t)ninputs + 1, sizeof *args);
    if (!in || !ob || !args) {
        run_error(1, "out of memory");
        goto done;
    }
    for (int i = 0; i < ninputs; i++) {
        if (patc_kernel_input_by_value(k, i) == 1) {
            args[i].value = inputs[i].data;
            continue;
        }
        if ((s = patc_buffer_alloc(ctx, inputs[i].bytes ? inputs[i].bytes : 1, &in[i])) != PATC_OK ||
            (s = patc_buffer_upload(in[i], inputs[i].data, inputs[i].bytes)) != PATC_OK) {
            rt_fail(ctx, s, "upload");
            goto done;
        }
        args[i].buffer = in[i];
    }
    float ms = 0;
    if (o->reduce) {
        long long n = inputs[0].count;
        if ((s = patc_reduce_to_one(k, nats, in[0], n, outs[0].data, passes)) != PATC_OK) {
            rt_fail(ctx, s, "reduction");
            goto done;
        }
        if (o->time && (s = patc_time_reduce_to_one(k, nats, in[0], n, WARMUP, o->repeat, &ms)) != PATC_OK) {
            rt_fail(ctx, s, "timing");
            goto done;
        }
    } else {
        for (int j = 0; j < nouts; j++)
            if ((s = patc_buffer_alloc(ctx, outs[j].bytes ? outs[j].bytes : 1, &ob[j])) != PATC_OK) {
                rt_fail(ctx, s, "output buffer");
                goto done;
            }
        if ((s = patc_launch_args(k, nats, args, ob, NULL)) != PATC_OK) {
            rt_fail(ctx, s, "launch");
            goto done;
        }
        for (int j = 0; j < nouts; j++)
            if ((s = patc_buffer_download(ob[j], outs[j].data, outs[j].bytes)) != PATC_OK) {
                rt_fail(ctx, s, "download");
                goto done;
            }
        if (o->time && (s = patc_time_launch_args(k, nats, args, ob, NULL, WARMUP, o->repeat, &ms)) != PATC_OK) {
            rt_fail(ctx, s, "timing");
            goto done;
        }
    }
    if (o->time) {
        patc_compile_stats st;
        patc_get_compile_stats(ctx, &st);
        printf("kernel time: %.4f ms (median of %d runs after %d warm-up runs%s)\n", ms, o->repeat, WARMUP,
               o->reduce ? ", all passes" : "");
        printf("front end: %.3f ms\n", st.frontend_ms);
        if (st.embedded) /* a text of a ready-made call's: its cubin is part of libpatrt */
            printf("compile step: %.3f ms (cubin built into libpatrt)\n", st.compile_ms);
        else
            printf("compile step: %.3f ms (cache %s%s)\n", st.compile_ms, st.cache_hit ? "hit" : "miss",
                   st.cache_corrupt ? ", damaged entry rebuilt" : o->no_cache ? ", cache off" : "");
        printf("module load: %.3f ms (sm_%d)\n", st.load_ms, st.arch);
    }
    ok = true;
done:
    free(in); /* the buffers go with the context */
    free(ob);
    free(args);
    return ok;
}

/* Rule: the interpreter on the same kernel (with --reduce, the same passes). */
static bool run_cpu(const RunOpts *o, patc_ctx *ctx, patc_kernel *k, const long long *nats, HostData *inputs,
                    int ninputs, HostData *outs, int nouts, int *passes)
{
    patc_status s;
    if (o->reduce) {
        s = patc_interp_reduce_to_one(k, nats, inputs[0].data, inputs[0].count, outs[0].data, passes);
    } else {
        const void **in = calloc((size_t)ninputs + 1, sizeof *in);
        void **ov = calloc((size_t)nouts + 1, sizeof *ov);
        if (!in || !ov) {
            free(in);
            free(ov);
            return run_error(1, "out of memory"), false;
        }
        for (int i = 0; i < ninputs; i++) in[i] = inputs[i].data;
        for (int j = 0; j < nouts; j++) ov[j] = outs[j].data;
        s = patc_interp_run_outputs(k, nats, in, ov);
        free(in);
        free(ov);
    }
    return s == PATC_OK || rt_fail(ctx, s, o->reduce ? "reduction on the CPU" : patc_kernel_name(k));
}

/* Without --kernel, a program with exactly one kernel runs that one; with several,
 * the user must say which (the names are listed). NULL after the message. */
static const char *pick_kernel(const RunOpts *o, patc_program *prog)
{
    if (o->kernel) return o->kernel;
    int n = patc_program_num_kernels(prog);
    if (n == 1) return patc_program_kernel_name(prog, 0);
    if (n == 0) return run_error(2, "%s has no kernel", o->file), NULL;
    size_t len = 1;
    for (int i = 0; i < n; i++) len += strlen(patc_program_kernel_name(prog, i)) + 2;
    char *names = calloc(len, 1);
    for (int i = 0; names && i < n; i++) {
        if (i) strcat(names, ", ");
        strcat(names, patc_program_kernel_name(prog, i));
    }
    run_error(2, "%s has several kernels (%s): say which with --kernel NAME", o->file, names ? names : "?");
    free(names);
    return NULL;
}

/* The nat values of k from the -D options, in k's order; exit status 2 after the
 * message when one is missing or a -D names none of k's nats (only possible with
 * --reduce: otherwise the compiler rejects such a -D). Returns -1 on success. */
static int fill_nats(const RunOpts *o, patc_kernel *k, long long *nats)
{
    const char *name = patc_kernel_name(k);
    int nn = patc_kernel_num_nats(k), len = patc_kernel_length_nat(k);
    for (int i = 0; i < nn; i++) {
        const char *nat = patc_kernel_nat_name(k, i);
        if (!run_define_value(o, nat, &nats[i]))
            return run_error(2, "kernel %s needs -D %s=VALUE%s", name, nat,
                             o->reduce && i == len ? " (the length of its input)" : "");
    }
    for (int j = 0; o->reduce && j < o->ndefs; j++) {
        bool found = false;
        for (int i = 0; i < nn; i++)
            if (!strcmp(patc_kernel_nat_name(k, i), o->defs[j].name)) found = true;
        if (!found) return run_error(2, "-D %s: kernel %s has no nat parameter of that name", o->defs[j].name, name);
    }
    return -1;
}

/* A result of a data-dependent length (filter, partition): its elements' output counts
 * as the first `count` elements where compactTo says so (the rest of the buffer is not
 * the result); a count past the room there is is an error, not a read past the end. */
static bool trim_counted(patc_kernel *k, HostData *outs, int nouts, const char *who)
{
    for (int j = 0; j < nouts; j++) {
        int c = patc_kernel_output_count_of(k, j);
        if (c < 0) continue;
        double m = run_elem_double(&outs[c], 0);
        if (!(m >= 0 && m <= (double)outs[j].count)) {
            run_error(1, "%s: out%d says %.17g elements of out%d are the result, but it has room for %lld", who, c, m,
                      j, outs[j].count);
            return false;
        }
        outs[j].count = (long long)m;
        outs[j].bytes = (size_t)outs[j].count * patc_type_size(outs[j].type);
    }
    return true;
}

int cli_run(int argc, char **argv)
{
    RunOpts o = {0};
    int rc = run_parse_args(argc, argv, &o);
    patc_ctx *ctx = NULL;
    patc_program *prog = NULL;
    patc_kernel *k = NULL;
    HostData *inputs = NULL, *gpu_out = NULL, *cpu_out = NULL;
    long long *nats = NULL;
    int ninputs = 0, nouts = 0;
    patc_status s;
    if (rc >= 0) goto out;
    rc = 1;

    /* --cpu needs neither the driver nor NVRTC (nor the cubin cache) */
    unsigned flags = o.cpu ? PATC_COMPILE_ONLY | PATC_NO_CACHE : o.no_cache ? PATC_NO_CACHE : 0;
    if ((s = patc_create(&ctx, 0, flags)) != PATC_OK) {
        run_error(1, "cannot create a runtime context: %s", patc_status_string(s));
        goto out;
    }
    /* no device: say so before spending time in NVRTC */
    if (!o.cpu && (s = patc_device_status(ctx)) != PATC_OK) {
        rt_fail(ctx, s, patc_status_string(s));
        goto out;
    }
    for (int i = 0; i < o.nincs; i++)
        if ((s = patc_add_include_dir(ctx, o.incs[i])) != PATC_OK) {
            rt_fail(ctx, s, "-I");
            goto out;
        }
    patc_compile_options copt = {.kernel = o.kernel, .cuda_file = o.cuda, .no_cubin = o.cpu, .min_blocks = o.min_blocks,
                                 .evict_first = o.evict_first, .bins_in_result = o.bins_in_result};
    /* a reduction's length changes from pass to pass: nothing is specialised */
    if ((s = patc_program_compile(ctx, o.file, o.defs, o.reduce ? 0 : o.ndefs, &copt, &prog)) != PATC_OK) {
        rt_fail(ctx, s, o.cuda ? o.cuda : o.file);
        goto out;
    }
    const char *kname = pick_kernel(&o, prog);
    if (!kname) {
        rc = 2;
        goto out;
    }
    if ((s = patc_get_kernel(prog, kname, &k)) != PATC_OK) {
        rt_fail(ctx, s, kname);
        goto out;
    }
    if (o.reduce && patc_kernel_get_role(k) != PATC_KERNEL_REDUCTION_PASS) {
        run_error(1, "--reduce: kernel %s is not a device-level reduction pass (it must take one array whose length "
                     "is a nat parameter and return the same element type)", kname);
        goto out;
    }
    int nn = patc_kernel_num_nats(k);
    if (!(nats = calloc((size_t)nn + 1, sizeof *nats))) {
        run_error(1, "out of memory");
        goto out;
    }
    if ((rc = fill_nats(&o, k, nats)) >= 0) goto out;
    rc = 1;

    /* inputs: one --input per data parameter, in declaration order */
    ninputs = patc_kernel_num_inputs(k);
    if (o.ninputs != ninputs) {
        rc = run_error(2, "kernel %s has %d data parameter%s but %d --input option%s given", kname, ninputs,
                       ninputs == 1 ? "" : "s", o.ninputs, o.ninputs == 1 ? " was" : "s were");
        goto out;
    }
    if (!(inputs = calloc((size_t)ninputs + 1, sizeof *inputs))) {
        run_error(1, "out of memory");
        goto out;
    }
    uint64_t seed = RUN_RANDOM_SEED;
    for (int i = 0; i < ninputs; i++) {
        patc_type t;
        long long cnt;
        char what[64];
        snprintf(what, sizeof what, "input %d", i + 1);
        /* also checks the nats against their bounds */
        if ((s = patc_kernel_input_info(k, i, nats, &t, &cnt, NULL)) != PATC_OK) {
            rt_fail(ctx, s, kname);
            goto out;
        }
        if (!run_host_alloc(&inputs[i], t, cnt, what)) goto out;
        if (!strcmp(o.inputs[i], "random")) {
            run_fill_random(&inputs[i], &seed);
        } else if (!strncmp(o.inputs[i], "random:", 7)) {
            if (!run_fill_random_range(&inputs[i], o.inputs[i] + 7, i, &seed)) {
                rc = 2;
                goto out;
            }
        } else if (!strncmp(o.inputs[i], "value:", 6)) {
            if (!run_fill_value(&inputs[i], o.inputs[i] + 6, i)) {
                rc = 2;
                goto out;
            }
        } else if (!run_read_input(&inputs[i], o.inputs[i], i)) {
            goto out;
        }
    }
    /* outputs: none or one --output per output, in order */
    nouts = patc_kernel_num_outputs(k);
    if (o.noutputs && o.noutputs != nouts) {
        rc = run_error(2, "kernel %s has %d output%s but %d --output option%s given", kname, nouts, nouts == 1 ? "" : "s",
                       o.noutputs, o.noutputs == 1 ? " was" : "s were");
        goto out;
    }
    if (!(gpu_out = calloc((size_t)nouts + 1, sizeof *gpu_out)) || !(cpu_out = calloc((size_t)nouts + 1, sizeof *cpu_out))) {
        run_error(1, "out of memory");
        goto out;
    }
    for (int j = 0; j < nouts; j++) {
        patc_type ot;
        long long ocnt;
        if ((s = patc_kernel_output_info_at(k, j, nats, &ot, &ocnt, NULL)) != PATC_OK) {
            rt_fail(ctx, s, kname);
            goto out;
        }
        if (o.reduce) ocnt = 1;
        char what[48];
        if (nouts == 1) snprintf(what, sizeof what, "the output");
        else snprintf(what, sizeof what, "output %d", j);
        if (!run_host_alloc(&gpu_out[j], ot, ocnt, what) || !run_host_alloc(&cpu_out[j], ot, ocnt, what)) goto out;
    }

    int gpu_passes = 0, cpu_passes = 0;
    if (!o.cpu && !run_gpu(&o, ctx, k, nats, inputs, ninputs, gpu_out, nouts, &gpu_passes)) goto out;
    double cpu_ms = 0;
    if (o.cpu || o.check) {
        double t0 = run_now_ms();
        if (!run_cpu(&o, ctx, k, nats, inputs, ninputs, cpu_out, nouts, &cpu_passes)) goto out;
        cpu_ms = run_now_ms() - t0;
    }
    /* filter's elements: only the counted prefix is the result (written, printed, compared) */
    if ((!o.cpu && !trim_counted(k, gpu_out, nouts, "the GPU")) || ((o.cpu || o.check) && !trim_counted(k, cpu_out, nouts, "the interpreter")))
        goto out;
    const HostData *res = o.cpu ? cpu_out : gpu_out;
    if (o.reduce)
        printf("%s: device-level reduction pass, relaunched until one element is left (--reduce): %lld elements, "
               "%d %s\n", kname, inputs[0].count, o.cpu ? cpu_passes : gpu_passes,
               o.cpu ? ((cpu_passes == 1) ? "interpreter pass" : "interpreter passes")
                     : ((gpu_passes == 1) ? "launch" : "launches"));
    /* several outputs: each summary's lines start with its name in the CUDA signature */
    for (int j = 0; j < nouts; j++) {
        char label[32] = "";
        if (nouts > 1) snprintf(label, sizeof label, "out%d: ", j);
        if (o.noutputs) {
            if (!run_write_output(&res[j], o.outputs[j])) goto out;
        } else {
            run_print_summary(&res[j], label);
        }
    }
    if (o.time && o.cpu) {
        patc_compile_stats st;
        patc_get_compile_stats(ctx, &st);
        printf("front end: %.3f ms\ninterpreter: %.3f ms\n", st.frontend_ms, cpu_ms);
    }
    rc = 0;
    if (o.check) {
        for (int j = 0; j < nouts; j++) {
            double cs = 0;
            for (long long i = 0; i < cpu_out[j].count; i++) cs += run_elem_double(&cpu_out[j], i);
            if (nouts > 1) printf("out%d: ", j);
            printf("cpu sum: %.17g\n", cs);
            if (nouts > 1) printf("out%d: ", j);
            if (!run_compare(&gpu_out[j], &cpu_out[j], o.tol)) rc = 1;
        }
    }
out:
    for (int i = 0; inputs && i < ninputs; i++) free(inputs[i].data);
    free(inputs);
    for (int j = 0; gpu_out && j < nouts; j++) free(gpu_out[j].data);
    for (int j = 0; cpu_out && j < nouts; j++) free(cpu_out[j].data);
    free(gpu_out);
    free(cpu_out);
    free(nats);
    patc_destroy(ctx); /* the program and buffers go with it */
    cli_free_defines(o.defs, o.ndefs);
    fflush(stdout);
    return rc;
}
