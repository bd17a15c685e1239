/* test_desc.c: the launch descriptor (compiler/describe.c) and its evaluator
 * (runtime/rt_desc.c). The oracle is nat_eval: every rule of every example kernel's
 * descriptor must give what the kernel's Nat gives (the same value, or undefined for
 * both) over many sizes, hardware sizes and overflowing values, and so must random Nat
 * expressions of every operator. */
#include "testutil.h"
#include "../runtime/rt_internal.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------- the evaluator */

static int64_t run(const LdIns *code, int n, const int64_t *vals, const bool *has, int ns, bool *ok)
{
    LdRule r = {.code = code, .n = n, .depth = n};
    int64_t v = -12345;
    *ok = rt_ld_eval(&r, vals, has, ns, &v);
    return v;
}

#define C(v) {.op = LD_CST, .cst = (v)}
#define S(i) {.op = LD_SLOT, .slot = (i)}
#define O(o) {.op = (o)}

static void expect(const LdIns *code, int n, int64_t want)
{
    int64_t vals[2] = {10, -3};
    bool has[2] = {true, true}, ok;
    int64_t v = run(code, n, vals, has, 2, &ok);
    ck_assert_msg(ok, "undefined, want %lld", (long long)want);
    ck_assert_int_eq(v, want);
}

static void expect_undefined(const LdIns *code, int n)
{
    int64_t vals[2] = {10, -3};
    bool has[2] = {true, false}, ok;
    run(code, n, vals, has, 2, &ok);
    ck_assert(!ok);
}

START_TEST(eval_ops)
{
    expect((LdIns[]){C(7)}, 1, 7);
    expect((LdIns[]){S(0)}, 1, 10);
    expect((LdIns[]){S(0), C(5), O(LD_ADD)}, 3, 15);
    expect((LdIns[]){S(0), C(15), O(LD_SUB)}, 3, -5);
    expect((LdIns[]){S(0), C(-4), O(LD_MUL)}, 3, -40);
    expect((LdIns[]){S(0), C(4), O(LD_DIV)}, 3, 2);
    expect((LdIns[]){C(-7), C(2), O(LD_DIV)}, 3, -4); /* floor, not C's truncation */
    expect((LdIns[]){C(-8), C(2), O(LD_DIV)}, 3, -4);
    expect((LdIns[]){C(7), C(7), O(LD_DIV)}, 3, 1);
    expect((LdIns[]){S(0), C(3), O(LD_MIN)}, 3, 3);
    expect((LdIns[]){S(0), C(3), O(LD_MAX)}, 3, 10);
    expect((LdIns[]){C(-1), C(-2), O(LD_MIN)}, 3, -2);
    /* (n + 255) / 256 * 256 - n, in postfix */
    expect((LdIns[]){S(0), C(255), O(LD_ADD), C(256), O(LD_DIV), C(256), O(LD_MUL), S(0), O(LD_SUB)}, 9, 246);
}
END_TEST

START_TEST(eval_undefined)
{
    expect_undefined((LdIns[]){C(INT64_MAX), C(1), O(LD_ADD)}, 3);
    expect_undefined((LdIns[]){C(INT64_MIN), C(1), O(LD_SUB)}, 3);
    expect_undefined((LdIns[]){C(INT64_MAX / 2 + 1), C(2), O(LD_MUL)}, 3);
    expect_undefined((LdIns[]){C(INT64_MIN), C(-1), O(LD_MUL)}, 3);
    expect_undefined((LdIns[]){C(5), C(0), O(LD_DIV)}, 3);
    expect_undefined((LdIns[]){C(5), C(-1), O(LD_DIV)}, 3);
    expect_undefined((LdIns[]){S(1)}, 1);              /* unbound */
    expect_undefined((LdIns[]){S(-1)}, 1);             /* a variable no launch binds */
    expect_undefined((LdIns[]){S(2)}, 1);              /* past the slots */
    expect_undefined((LdIns[]){C(1), O(LD_ADD)}, 2);   /* malformed: too few operands */
    expect_undefined((LdIns[]){C(1), C(2)}, 2);        /* malformed: two results */
    expect_undefined((LdIns[]){S(1), C(0), O(LD_MUL)}, 3); /* undefined stays so, times 0 */
    LdRule none = {0};
    int64_t v;
    ck_assert(!rt_ld_eval(&none, NULL, NULL, 0, &v));
    /* the edges that still fit */
    expect((LdIns[]){C(INT64_MAX - 1), C(1), O(LD_ADD)}, 3, INT64_MAX);
    expect((LdIns[]){C(INT64_MIN), C(1), O(LD_DIV)}, 3, INT64_MIN);
    expect((LdIns[]){C(INT64_MIN), C(INT64_MAX), O(LD_DIV)}, 3, -2);
    /* a rule deeper than the evaluator's stack is undefined, not a crash */
    enum { D = 100 };
    LdIns deep[2 * D];
    for (int i = 0; i < D; i++) deep[i] = (LdIns)C(1);
    for (int i = 0; i < D - 1; i++) deep[D + i] = (LdIns)O(LD_ADD);
    LdRule r = {.code = deep, .n = 2 * D - 1, .depth = D};
    ck_assert(!rt_ld_eval(&r, NULL, NULL, 0, &v));
    r.depth = 1; /* a rule that understates its depth: still no overflow of the stack */
    ck_assert(!rt_ld_eval(&r, NULL, NULL, 0, &v));
}
END_TEST

/* ---------------------------------------------------------------- against nat_eval */

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Sizes as launches meet them: small, near powers of two, and huge (overflowing). */
static int64_t a_size(void)
{
    switch (next() % 5) {
    case 0: return 1 + (int64_t)(next() % 70);
    case 1: {
        int64_t p = (int64_t)1 << (next() % 40);
        return p + (int64_t)(next() % 3) - 1 > 0 ? p + (int64_t)(next() % 3) - 1 : 1;
    }
    case 2: return 1 + (int64_t)(next() % 100000);
    case 3: return 1 + (int64_t)(next() % ((uint64_t)1 << 62));
    default: return 1 + (int64_t)(next() % 5000000000ull);
    }
}

/* One comparison: the Nat under nat_eval and the rule under rt_ld_eval, with the same
 * values: slot i of the descriptor is variable slot_var[i]. */
typedef struct Cmp {
    int ns;
    const NatVar *slot_var[64];
    int64_t vals[64];
    bool has[64];
    long compared, defined;
} Cmp;

static void compare(Cmp *c, const Nat *x, const LdRule *r, const char *what)
{
    ck_assert_msg((x == NULL) == (r->n == 0), "%s: a rule where there is no Nat, or none where there is", what);
    if (!x) return;
    int maxid = 0;
    for (int i = 0; i < c->ns; i++)
        if (c->slot_var[i] && c->slot_var[i]->id > maxid) maxid = c->slot_var[i]->id;
    int64_t *ev = calloc((size_t)maxid + 1, sizeof *ev);
    bool *eh = calloc((size_t)maxid + 1, sizeof *eh);
    for (int i = 0; i < c->ns; i++)
        if (c->slot_var[i] && c->has[i]) {
            ev[c->slot_var[i]->id] = c->vals[i];
            eh[c->slot_var[i]->id] = true;
        }
    NatEnv env = {ev, eh, maxid + 1, 0};
    int64_t a = 0, b = 0;
    bool oa = nat_eval(x, &env, &a), ob = rt_ld_eval(r, c->vals, c->has, c->ns, &b);
    if (oa != ob || (oa && a != b)) {
        StrBuf s = {0};
        nat_print(&s, x);
        ck_abort_msg("%s = %s: nat_eval %s %lld, the descriptor %s %lld", what, sb_str(&s), oa ? "gives" : "fails",
                     (long long)a, ob ? "gives" : "fails", (long long)b);
    }
    c->compared++;
    c->defined += oa;
    free(ev);
    free(eh);
}

static void compare_buf(Cmp *c, const Buffer *b, const LdBuf *d)
{
    compare(c, b->count, &d->count, b->name);
    ck_assert_str_eq(d->name, b->name);
    ck_assert_int_eq(d->sk, b->sk);
    ck_assert_int_eq(d->elem_size, b->flagged ? 8 : scalar_info[b->sk].size);
    ck_assert_int_eq(d->align, b->align);
    ck_assert_int_eq(d->scalar, b->scalar);
}

/* Every rule of kernel k against its descriptor d, over `trials` valuations. */
static void check_kernel(const Kernel *k, const LdKernel *d, int trials, Cmp *c)
{
    const KernelDef *def = k->def;
    ck_assert_str_eq(d->name, k->name);
    ck_assert_int_eq(d->nnats, def->nnats);
    ck_assert_int_eq(d->nlaunches, k->npre + 1);
    ck_assert_int_eq(d->ninputs, k->ninputs);
    ck_assert_int_eq(d->nouts, k->nouts);
    ck_assert_int_eq(d->nscratch, k->nscratch);
    ck_assert_int_eq(d->role, k->role);
    ck_assert_int_eq(d->role_len_nat, k->role_len_nat);
    ck_assert(def->nnats + LD_HW_SLOTS <= 64);
    for (int t = 0; t < trials; t++) {
        for (int l = 0; l <= k->npre; l++) {
            const Kernel *K = l < k->npre ? k->pre[l] : k;
            const LdLaunch *L = &d->launches[l];
            c->ns = def->nnats + LD_HW_SLOTS;
            for (int i = 0; i < def->nnats; i++) c->slot_var[i] = def->nats[i];
            for (int i = 0; i < 3; i++) {
                c->slot_var[def->nnats + LD_SLOT_BDIM + i] = K->hw.bdim[i];
                c->slot_var[def->nnats + LD_SLOT_GDIM + i] = K->hw.gdim[i];
            }
            c->slot_var[def->nnats + LD_SLOT_NWARPS] = K->hw.nwarps;
            for (int i = 0; i < c->ns; i++) {
                c->vals[i] = i < def->nnats ? a_size() : 1 + (int64_t)(next() % (i % 2 ? 2147483647 : 1024));
                c->has[i] = next() % 16 != 0; /* now and then one unbound */
            }
            for (int i = 0; i < 3; i++) {
                compare(c, K->block[i], &L->block[i], "block");
                compare(c, K->grid[i], &L->grid[i], "grid");
            }
            compare(c, K->shared_bytes, &L->shared, "shared_bytes");
            compare(c, K->index_bound, &L->index_bound, "index_bound");
            ck_assert_str_eq(L->name, K->name);
            ck_assert_int_eq(L->iw, K->iw);
            ck_assert_int_eq(L->block_fixed, K->block_fixed);
            ck_assert_int_eq(L->persistent, K->persistent);
            ck_assert_int_eq(SMEM_OPTIN_MAX - L->static_smem, smem_budget(K, SMEM_OPTIN_MAX));
            ck_assert_str_eq(L->static_note, smem_budget_note(K));
        }
        for (int i = 0; i < def->nnats; i++) {
            ck_assert_str_eq(d->nats[i].name, def->nats[i]->name);
            ck_assert_int_eq(d->nats[i].lb, def->nats[i]->lb);
            compare(c, def->nats[i]->ub, &d->nats[i].ub, "an upper bound");
        }
        for (int i = 0; i < k->ninputs; i++) compare_buf(c, k->inputs[i], &d->inputs[i]);
        for (int i = 0; i < k->nouts; i++) {
            compare_buf(c, k->outs[i], &d->outs[i]);
            int cb = -1;
            for (int j = 0; j < k->nouts; j++)
                if (k->outs[i]->counted_by == k->outs[j]) cb = j;
            ck_assert_int_eq(d->outs[i].counted_by, cb);
        }
        for (int i = 0; i < k->nscratch; i++) compare_buf(c, k->scratch[i], &d->scratch[i]);
    }
}

/* The -D values of a golden file's first line (-- golden-args: -D a=1 -D b=2). */
static int golden_defines(const char *src, Define *defs, char names[][64])
{
    int n = 0;
    const char *p = strncmp(src, "-- golden-args:", 15) ? NULL : src + 15;
    const char *eol = p ? strchr(p, '\n') : NULL;
    while (p && (p = strstr(p, "-D ")) && p < eol && n < 8) {
        long long v;
        if (sscanf(p + 3, "%63[^=]=%lld", names[n], &v) != 2) break;
        defs[n].name = names[n];
        defs[n].value = v;
        n++;
        p += 3;
    }
    return n;
}

/* Every example's kernels: the descriptor the driver made, copied as the runtime keeps
 * it (ld_copy), against the kernels' Nats. */
START_TEST(examples_match_nat_eval)
{
    const char *dirs[] = {PATC_SOURCE_DIR "/examples", PATC_SOURCE_DIR "/tests/programs"};
    Cmp c = {0};
    int files = 0, kernels = 0, launches = 0;
    size_t bytes = 0;
    for (int di = 0; di < 2; di++) {
        DIR *dir = opendir(dirs[di]);
        ck_assert_ptr_nonnull(dir);
        struct dirent *e;
        while ((e = readdir(dir))) {
            size_t len = strlen(e->d_name);
            if (len < 6 || strcmp(e->d_name + len - 5, ".rise")) continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[di], e->d_name);
            size_t n;
            char *src = lang_read_file(path, &n);
            ck_assert_ptr_nonnull(src);
            Define defs[8];
            char names[8][64];
            int nd = golden_defines(src, defs, names);
            TC *t = tc_compile_named(path, src, defs, nd);
            free(src);
            if (!t->ok) { /* tests/programs holds a few that are errors on purpose */
                ck_assert_msg(di == 1, "%s: %s", path, tc_err(t));
                tc_free(t);
                continue;
            }
            files++;
            for (int i = 0; i < t->c.nkernels; i++) {
                LdKernel *d = ld_copy(t->c.descs[i]);
                ck_assert_ptr_nonnull(d);
                check_kernel(t->c.kernels[i], d, 60, &c);
                kernels++;
                launches += d->nlaunches;
                bytes += d->bytes;
                free(d);
            }
            tc_free(t);
        }
        closedir(dir);
    }
    fprintf(stderr, "test_desc: %d files, %d kernels, %d launches; %ld rule evaluations compared, %ld defined; "
            "descriptors %zu bytes in all (%zu a kernel)\n", files, kernels, launches, c.compared, c.defined, bytes,
            kernels ? bytes / (size_t)kernels : 0);
    ck_assert_int_ge(files, 30);
    ck_assert_int_gt(launches, kernels); /* toGlobal kernels are among them */
    ck_assert_int_gt(c.defined, c.compared / 2);
    ck_assert_int_lt(c.defined, c.compared); /* and undefined ones: unbound, overflowing */
}
END_TEST

/* Random Nat expressions of every constructor over three nat parameters, as a fake
 * kernel's buffer counts: the descriptor's rule of each must agree with nat_eval. */
static Nat *random_nat(Arena *a, NatVar **v, int depth)
{
    if (depth == 0 || next() % 4 == 0)
        return next() % 3 ? nat_var(a, v[next() % 3]) : nat_cst(a, (int64_t)(next() % 19) - 9);
    Nat *x = random_nat(a, v, depth - 1), *y = random_nat(a, v, depth - 1);
    switch (next() % 7) {
    case 0: return nat_add(a, x, y);
    case 1: return nat_sub(a, x, y);
    case 2: return nat_mul(a, x, y);
    case 3: return nat_div(a, x, y);
    case 4: return nat_mod(a, x, y);
    case 5: return nat_min(a, x, y);
    default: return nat_max(a, x, y);
    }
}

START_TEST(random_nats_match_nat_eval)
{
    Cmp c = {0};
    for (int round = 0; round < 200; round++) {
        Arena *a = arena_new();
        KernelDef *def = ANEW(a, KernelDef);
        NatVar *v[3];
        for (int i = 0; i < 3; i++) v[i] = nat_newvar_static(a, i == 0 ? "n" : i == 1 ? "m" : "k", 0, NULL);
        def->nats = v;
        def->nnats = 3;
        Kernel *k = ANEW(a, Kernel);
        k->name = "fake";
        k->def = def;
        enum { NB = 16 };
        k->ninputs = NB;
        k->inputs = ANEWN(a, Buffer *, NB);
        for (int i = 0; i < NB; i++) {
            k->inputs[i] = ANEW(a, Buffer);
            k->inputs[i]->name = "b";
            k->inputs[i]->sk = SK_F32;
            k->inputs[i]->count = random_nat(a, v, 4);
        }
        LdKernel *d = ld_copy(ld_describe(a, k));
        ck_assert_ptr_nonnull(d);
        for (int t = 0; t < 40; t++) {
            c.ns = 3 + LD_HW_SLOTS;
            for (int i = 0; i < c.ns; i++) {
                c.slot_var[i] = i < 3 ? v[i] : NULL;
                /* small values make divisors of 0 and negatives; huge ones overflow */
                c.vals[i] = next() % 8 ? (int64_t)(next() % 41) - 20 : a_size();
                c.has[i] = next() % 20 != 0;
            }
            for (int i = 0; i < NB; i++) compare(&c, k->inputs[i]->count, &d->inputs[i].count, "a random nat");
        }
        free(d);
        arena_free(a);
    }
    ck_assert_int_gt(c.defined, c.compared / 3);
    ck_assert_int_lt(c.defined, c.compared);
}
END_TEST

/* The message a rule that cannot be evaluated gets: the rule in infix with its names. */
START_TEST(print_rule)
{
    TC *t = tc_compile("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x + 1.0f))))");
    EXPECT_OK(t);
    LdKernel *d = t->c.descs[0];
    StrBuf b = {0};
    rt_ld_print(&b, &d->outs[0].count, d);
    ck_assert_str_eq(sb_str(&b), "n");
    sb_free(&b);
    LdIns code[] = {S(0), C(255), O(LD_ADD), C(256), O(LD_DIV), S(1), O(LD_MAX)};
    LdRule r = {.code = code, .n = 7, .depth = 2};
    rt_ld_print(&b, &r, d);
    ck_assert_str_eq(sb_str(&b), "max(((n + 255) / 256), blockDim.x)");
    sb_free(&b);
    tc_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("desc");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, eval_ops);
    tcase_add_test(tc, eval_undefined);
    tcase_add_test(tc, examples_match_nat_eval);
    tcase_add_test(tc, random_nats_match_nat_eval);
    tcase_add_test(tc, print_rule);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(suite()); }
