/* rt_stubs.c: TEST-ONLY stand-ins for the compiler (compile_string, cu_emit_module,
 * nat_eval, nat_print) so the runtime can be built and tested before compiler/ and
 * codegen/ exist. Never linked into libpatrt.
 *
 * compile_string ignores the program text except for one trigger: a text containing
 * "undefined_name" is rejected through diag_error (as the real front end would reject
 * an unknown name). Otherwise it yields two kernels with hand-built launch metadata:
 *   scale(out: n.f32, in0: n.f32, n)       block 256, grid (n+255)/256
 *   reduceNaive(out: ((n+511)/512).f32, in0: n.f32, n)
 *                                          block 256 (fixed), grid (n+511)/512, 1024 B shared
 * and cu_emit_module prints matching hand-written CUDA. */
#include "../compiler/compiler.h"
#include "../codegen/codegen.h"

#include <string.h>

static Nat *mk(Arena *a, NatKind k)
{
    Nat *x = ANEW(a, Nat);
    x->kind = k;
    return x;
}
static Nat *cst(Arena *a, int64_t v)
{
    Nat *x = mk(a, N_CST);
    x->cst = v;
    return x;
}
/* (n + (d-1)) / d */
static Nat *ceildiv(Arena *a, NatVar *n, int64_t d)
{
    Nat *v = mk(a, N_VAR), *s = mk(a, N_SUM), *q = mk(a, N_DIV);
    v->var = n;
    s->sum.terms = ANEWN(a, Nat *, 2);
    s->sum.terms[0] = v;
    s->sum.terms[1] = cst(a, d - 1);
    s->sum.n = 2;
    q->bin.l = s;
    q->bin.r = cst(a, d);
    return q;
}

static Buffer *buf(Arena *a, const char *name, int param, Nat *count)
{
    Buffer *b = ANEW(a, Buffer);
    b->name = name;
    b->as = AS_GLOBAL;
    b->sk = SK_F32;
    b->count = count;
    b->param = param;
    return b;
}

static Kernel *kernel(Arena *a, const char *name, bool reduce)
{
    NatVar *n = ANEW(a, NatVar);
    n->name = "n";
    n->lb = reduce ? 1 : 0;
    n->id = arena_next_id(a);
    Nat *nv = mk(a, N_VAR);
    nv->var = n;
    KernelDef *d = ANEW(a, KernelDef);
    d->name = name;
    d->nats = ANEWN(a, NatVar *, 1);
    d->nats[0] = n;
    d->nnats = 1;
    d->nparams = 1;
    Kernel *k = ANEW(a, Kernel);
    k->name = name;
    k->def = d;
    k->inputs = ANEWN(a, Buffer *, 1);
    k->inputs[0] = buf(a, "xs", 0, nv);
    k->ninputs = 1;
    k->out = buf(a, "out", -1, reduce ? ceildiv(a, n, 512) : nv);
    k->block[0] = cst(a, 256);
    k->block[1] = k->block[2] = cst(a, 1);
    k->grid[0] = ceildiv(a, n, reduce ? 512 : 256);
    k->grid[1] = k->grid[2] = cst(a, 1);
    k->block_fixed = reduce;
    k->shared_bytes = cst(a, reduce ? 1024 : 0);
    return k;
}

bool compile_string(Compilation *c, const CompileOptions *opt, const char *path, const char *text, size_t len)
{
    (void)opt;
    if (setjmp(c->diag->on_error)) return false;
    c->diag->jump_armed = true;
    const char *bad = strstr(text, "undefined_name");
    if (bad) {
        SrcFile *f = ANEW(c->arena, SrcFile);
        f->path = path;
        f->text = text;
        f->len = len;
        Span sp = {f, 1, (int)(bad - text) + 1};
        for (const char *p = text; p < bad; p++)
            if (*p == '\n') sp.line++, sp.col = (int)(bad - p);
        diag_error(c->diag, sp, "unknown name 'undefined_name'");
    }
    c->nkernels = 2;
    c->kernels = ANEWN(c->arena, Kernel *, 2);
    c->kernels[0] = kernel(c->arena, "scale", false);
    c->kernels[1] = kernel(c->arena, "reduceNaive", true);
    c->diag->jump_armed = false;
    return true;
}

void cu_emit_module(Arena *a, StrBuf *out, Kernel **ks, int n)
{
    (void)a, (void)ks, (void)n;
    sb_puts(out,
            "extern \"C\" __global__ void scale(float *out, const float *in0, int n)\n"
            "{\n"
            "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
            "        out[i] = in0[i] * 2.0f;\n"
            "}\n"
            "extern \"C\" __global__ void reduceNaive(float *out, const float *in0, int n)\n"
            "{\n"
            "    extern __shared__ float s[];\n"
            "    int t = threadIdx.x;\n"
            "    long long base = blockIdx.x * 512LL;\n"
            "    float a = 0.0f;\n"
            "    if (base + t < n) a += in0[base + t];\n"
            "    if (base + t + 256 < n) a += in0[base + t + 256];\n"
            "    s[t] = a;\n"
            "    __syncthreads();\n"
            "    for (int w = 128; w > 0; w >>= 1) {\n"
            "        if (t < w) s[t] += s[t + w];\n"
            "        __syncthreads();\n"
            "    }\n"
            "    if (t == 0) out[blockIdx.x] = s[0];\n"
            "}\n");
}

static int64_t fdiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

bool nat_eval(const Nat *x, const NatEnv *env, int64_t *out)
{
    int64_t l, r;
    switch (x->kind) {
    case N_CST: *out = x->cst; return true;
    case N_VAR:
        if (x->var->id < 0 || x->var->id >= env->n || !env->has[x->var->id]) return false;
        *out = env->vals[x->var->id];
        return true;
    case N_SUM:
        *out = 0;
        for (int i = 0; i < x->sum.n; i++) {
            if (!nat_eval(x->sum.terms[i], env, &l)) return false;
            *out += l;
        }
        return true;
    case N_PROD:
        *out = x->prod.coef;
        for (int i = 0; i < x->prod.n; i++) {
            if (!nat_eval(x->prod.factors[i], env, &l)) return false;
            *out *= l;
        }
        return true;
    case N_DIV: case N_MIN: case N_MAX:
        if (!nat_eval(x->bin.l, env, &l) || !nat_eval(x->bin.r, env, &r)) return false;
        if (x->kind == N_DIV) {
            if (r <= 0) return false;
            *out = fdiv(l, r);
        } else
            *out = (x->kind == N_MIN) == (l < r) ? l : r;
        return true;
    }
    return false;
}

void nat_print(StrBuf *b, const Nat *x)
{
    switch (x->kind) {
    case N_CST: sb_printf(b, "%lld", (long long)x->cst); return;
    case N_VAR: sb_puts(b, x->var->name); return;
    default: sb_puts(b, "<nat>"); return;
    }
}
