/* hint.c: which -D settles a check that needs the value of a nat parameter.
 *
 * A check that cannot show a fact about sizes for every value of the nat parameters
 * (32 divides nt, ipt is a constant, k <= the length) records the fact (hint_fact,
 * hint_const) just before its error. When the fact mentions shape parameters of the
 * kernel, hint_report adds a note after the error, at the kernel's own code where the
 * check failed (its use of the definition the check is in): the parameters, the fact,
 * the -D that fixes them, and values with which the program compiles where a short
 * search finds some.
 *
 * A shape parameter is a kernel's nat parameter that no -D fixes and that does not
 * alone make a dimension of a data parameter's type: a tile size or a thread count,
 * which shapes the code. A data length (n in fun(n.f32) or fun((4*n).f32)) is given at
 * launch: a -D would make a kernel for one length, and the errors about it already say
 * to pad, so the note never names one (a fact may mention one: n <= 32 * r * ipt * ...
 * needs ipt's value to be shown). m in fun((r*m).f32) may be either, and is named.
 *
 * The search compiles the program again, quietly, with candidate values: for the fact's
 * shape parameters, tuples of values (powers of two and the fact's own constants times
 * powers of two, smallest first) that make the fact provable; a compile that fails on a
 * fact about further shape parameters (ipt, once nt is fixed) goes on with candidates
 * for those, depth first. Of the values of the first compile that succeeds, each the
 * program also compiles without is dropped. So values are named only when a compile
 * with exactly them succeeded, and the suggestion, followed, compiles; when the search
 * finds none within HINT_TRIALS compiles (fewer for a large file), the note gives the
 * rule alone. The trials compile the failing kernel alone; the values found must then
 * compile the whole program too, else the search runs again on the whole program.
 */
#include "compiler.h"

#include <stdlib.h>
#include <string.h>

enum {
    HINT_TRIALS = 64,  /* compiles one note may run: most fail early, in a ms or two */
    HINT_TEXT = 65536, /* bytes of source up to which it may run them all: each trial
                          parses the whole file, so a larger one gets proportionally
                          fewer (at least 2), and the note never takes long */
    HINT_MAXVARS = 3,  /* shape parameters of one fact that values are searched for */
    HINT_NCAND = 16,   /* candidate values for one parameter */
    HINT_DEPTH = 8,    /* facts followed one from another */
    HINT_TRIES = 6,    /* values tried for a fact met on the way (past the first): where
                          the smallest few fail, an earlier value is to blame */
    HINT_MAXDEFS = HINT_MAXVARS * HINT_DEPTH,
};

/* Rule: the fact belongs to the next error, which the caller reports at once. */
static void record(Diag *d, Arena *a, HintKind k, Nat *x, Nat *y, int64_t lo, int64_t hi)
{
    HintFact *f = ANEW(a, HintFact);
    f->kind = k;
    f->x = x;
    f->y = y;
    f->lo = lo;
    f->hi = hi;
    d->fact = f;
}

void hint_fact(Diag *d, Arena *a, HintKind k, Nat *x, Nat *y) { record(d, a, k, x, y, 0, 0); }

/* x must be a constant in lo..hi (hi INT64_MAX: any constant). */
void hint_const(Diag *d, Arena *a, Nat *x, int64_t lo, int64_t hi) { record(d, a, HINT_CONST, x, NULL, lo, hi); }

/* The shape parameters f mentions, each once, into vs[0..max): their number (0 also
 * when it mentions more than 32 variables: no note then). */
static int shape_vars(const HintFact *f, NatVar **vs, int max)
{
    NatVar *all[64];
    int n = nat_vars(f->x, all, 32);
    int m = f->y ? nat_vars(f->y, all + (n > 0 ? n : 0), 32) : 0;
    if (n < 0 || m < 0) return 0;
    int k = 0;
    for (int i = 0; i < n + m; i++) {
        NatVar *v = all[i];
        if (!v->param || v->data_len) continue;
        bool seen = false;
        for (int j = 0; j < k; j++) seen |= vs[j] == v;
        if (!seen && k < max) vs[k++] = v;
    }
    return k;
}

/* Ascending order of int64_t, for qsort. */
static int cmp_i64(const void *p, const void *q)
{
    int64_t a = *(const int64_t *)p, b = *(const int64_t *)q;
    return (a > b) - (a < b);
}

/* Candidate values, the HINT_NCAND smallest of: 2^0 .. 2^12, and each constant c of
 * the fact (a side that is one, a constant-in-range's least value) times 2^0 .. 2^12:
 * split(3) wants 3, 6, 12, ... */
static int candidates(const HintFact *f, int64_t *out)
{
    int64_t pool[64], cs[3], c;
    int n = 0, nc = 0;
    for (int j = 0; j <= 12; j++) pool[n++] = (int64_t)1 << j;
    if (nat_is_const(f->x, &c)) cs[nc++] = c;
    if (f->y && nat_is_const(f->y, &c)) cs[nc++] = c;
    if (f->kind == HINT_CONST) cs[nc++] = f->lo;
    for (int i = 0; i < nc; i++)
        if (cs[i] >= 1 && cs[i] <= ((int64_t)1 << 40))
            for (int j = 0; j <= 12; j++) pool[n++] = cs[i] << j;
    qsort(pool, (size_t)n, sizeof *pool, cmp_i64);
    int k = 0;
    for (int i = 0; i < n && k < HINT_NCAND; i++)
        if (k == 0 || out[k - 1] != pool[i]) out[k++] = pool[i];
    return k;
}

/* The fact with vs[i] = vals[i] is provable. */
static bool provable(Arena *a, const HintFact *f, NatVar **vs, const int64_t *vals, int nv)
{
    Nat *x = f->x, *y = f->y;
    for (int i = 0; i < nv; i++) {
        x = nat_subst(a, x, vs[i], nat_cst(a, vals[i]));
        if (y) y = nat_subst(a, y, vs[i], nat_cst(a, vals[i]));
    }
    bool ok = false;
    int64_t c;
    switch (f->kind) {
    case HINT_DIVIDES: ok = nat_divides(a, x, y); break;
    case HINT_LE: ok = nat_prove_ge(a, y, x); break;
    case HINT_EQ: ok = nat_equal(x, y); break;
    case HINT_CONST: ok = nat_is_const(x, &c) && c >= f->lo && c <= f->hi; break;
    }
    return ok;
}

/* The same, where a size past 2^63 on the way (a large -D times a candidate) counts as
 * not provable rather than as an error. */
static bool holds(Arena *a, const HintFact *f, NatVar **vs, const int64_t *vals, int nv)
{
    Diag quiet;
    diag_init(&quiet, NULL, NULL);
    quiet.jump_armed = true;
    /* memory running out makes the fact not provable here, too */
    jmp_buf *outer = arena_catch(a, &quiet.on_error);
    if (setjmp(quiet.on_error)) {
        nat_disarm_overflow();
        arena_catch(a, outer);
        return false;
    }
    nat_arm_overflow(&quiet, (Span){0});
    bool ok = provable(a, f, vs, vals, nv);
    nat_disarm_overflow();
    arena_catch(a, outer);
    return ok;
}

typedef struct Search {
    const CompileOptions *opt;
    const char *path, *text;
    size_t len;
    const Decl *kernel; /* the kernel of the error: the order of its nat parameters */
    bool alone;         /* compile that kernel alone (the program's others are not the
                           error's, and a large program's would cost each trial) */
    Arena *keep;        /* the failed compilation's arena: the names of the values tried */
    Define *defs;       /* opt's defines, then the values being tried */
    int ndefs;
    int trials;         /* compiles left */
} Search;

/* Where the nat parameter `name` comes in kernel k's nFun (past the end when not
 * there), so that parameters are named and tried in the kernel's order. */
static int param_rank(const Decl *k, const char *name)
{
    int r = 0;
    for (const Ast *l = k->body; l && l->kind == A_NLAM; l = l->lam.body, r++) {
        const char *tick = strchr(l->lam.param, '`');
        size_t len = tick ? (size_t)(tick - l->lam.param) : strlen(l->lam.param);
        if (strlen(name) == len && !strncmp(name, l->lam.param, len)) return r;
    }
    return r + 1;
}

/* vs in the order of kernel k's nat parameters (insertion sort: a handful). */
static void sort_vars(const Decl *k, NatVar **vs, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && param_rank(k, vs[j]->name) < param_rank(k, vs[j - 1]->name); j--) {
            NatVar *t = vs[j];
            vs[j] = vs[j - 1];
            vs[j - 1] = t;
        }
}

/* Compile the program again with s's defines, printing nothing. True when it compiles;
 * else *fact is its error's fact (or NULL), living in *a, which the caller frees. */
static bool trial(Search *s, Arena **a, const HintFact **fact)
{
    s->trials--;
    *fact = NULL;
    if (!(*a = arena_new())) return false;
    Diag d;
    diag_init(&d, NULL, NULL);
    Compilation c = {.arena = *a, .diag = &d};
    CompileOptions o = *s->opt;
    o.defines = s->defs;
    o.ndefines = s->ndefs;
    o.dump = (DumpFlags){0};
    o.no_hint = true;
    if (s->alone) {
        o.only_kernel = s->kernel->name;
        o.defines_unchecked = true;
    }
    bool ok = compile_string(&c, &o, s->path, s->text, s->len);
    *fact = ok ? NULL : d.fact;
    return ok;
}

static bool search(Search *s, const HintFact *f, NatVar **vs, int nv, int depth);

/* The values vals for vs[0..nv) tried: a compile, and when it fails on a fact about
 * further shape parameters, the search for those. */
static bool try_values(Search *s, NatVar **vs, const int64_t *vals, int nv, int depth)
{
    int base = s->ndefs;
    for (int i = 0; i < nv; i++) s->defs[base + i] = (Define){arena_strdup(s->keep, vs[i]->name), vals[i]};
    s->ndefs = base + nv;
    Arena *a;
    const HintFact *g;
    bool found = trial(s, &a, &g);
    NatVar *ws[HINT_MAXVARS + 1];
    int nw = found || !g ? 0 : shape_vars(g, ws, HINT_MAXVARS + 1);
    if (nw > 0 && nw <= HINT_MAXVARS && depth + 1 < HINT_DEPTH && s->trials > 0)
        found = search(s, g, ws, nw, depth + 1);
    arena_free(a);
    if (!found) s->ndefs = base;
    return found;
}

/* Depth first, for fact f about the shape parameters vs[0..nv): fixing one of them,
 * then two, ... (fewest first: a row count that the launch may choose stays free
 * where a tile size settles the fact); for each choice, each tuple of candidates that
 * makes f provable, smallest first (by the largest candidate's rank, then in order),
 * is tried. True when a compile succeeded, its values left at the end of s->defs. */
static bool search(Search *s, const HintFact *f, NatVar **vs, int nv, int depth)
{
    int64_t cand[HINT_NCAND];
    int nc = candidates(f, cand);
    sort_vars(s->kernel, vs, nv);
    Arena *scratch = arena_new();
    bool found = false;
    int tries = depth == 0 ? HINT_TRIALS : HINT_TRIES;
    for (int size = 1; size <= nv && !found && s->trials > 0 && tries > 0; size++)
        for (int mask = 1; mask < 1 << nv && !found && s->trials > 0 && tries > 0; mask++) {
            NatVar *sub[HINT_MAXVARS];
            int ns = 0;
            for (int i = 0; i < nv; i++)
                if (mask >> i & 1) sub[ns++] = vs[i];
            if (ns != size) continue;
            for (int m = 0; m < nc && !found && s->trials > 0 && tries > 0; m++) {
                int ix[HINT_MAXVARS] = {0};
                for (;;) {
                    bool has_m = false;
                    int64_t vals[HINT_MAXVARS];
                    for (int i = 0; i < ns; i++) {
                        has_m |= ix[i] == m;
                        vals[i] = cand[ix[i]];
                    }
                    if (has_m && holds(scratch, f, sub, vals, ns)) {
                        found = try_values(s, sub, vals, ns, depth);
                        if (found || s->trials == 0 || --tries == 0) break;
                    }
                    /* the next tuple of [0..m]^ns, in order */
                    int i = ns - 1;
                    while (i >= 0 && ix[i] == m) ix[i--] = 0;
                    if (i < 0) break;
                    ix[i]++;
                }
            }
        }
    arena_free(scratch);
    return found;
}

/* Values for the fact's parameters (search), in the order of the kernel's nat
 * parameters, less each the program also compiles without (the search may fix a row
 * count r before it meets ipt, which was enough). True when found, the values left at
 * the end of s->defs. */
static bool find_values(Search *s, const HintFact *f, NatVar **vs, int nv)
{
    int base = s->ndefs;
    if (!search(s, f, vs, nv, 0)) return false;
    Define *got = s->defs + base;
    int ngot = s->ndefs - base;
    for (int i = 1; i < ngot; i++)
        for (int j = i; j > 0 && param_rank(s->kernel, got[j].name) < param_rank(s->kernel, got[j - 1].name); j--) {
            Define t = got[j];
            got[j] = got[j - 1];
            got[j - 1] = t;
        }
    for (int i = 0; i < ngot;) {
        Define t = got[i];
        memmove(got + i, got + i + 1, sizeof *got * (size_t)(ngot - i - 1));
        s->ndefs--;
        Arena *a;
        const HintFact *g;
        bool ok = trial(s, &a, &g);
        arena_free(a);
        if (ok) {
            ngot--;
            continue;
        }
        memmove(got + i + 1, got + i, sizeof *got * (size_t)(ngot - i - 1));
        got[i] = t;
        s->ndefs++;
        i++;
    }
    return true;
}

/* The fact as the note says it: "32 to divide nt", "ipt to be a constant". */
static const char *fact_str(Arena *a, const HintFact *f)
{
    StrBuf b = {.a = a};
    const char *x = nat_str(a, f->x), *y = f->y ? nat_str(a, f->y) : "";
    switch (f->kind) {
    case HINT_DIVIDES: sb_printf(&b, "%s to divide %s", x, y); break;
    case HINT_LE: sb_printf(&b, "%s <= %s", x, y); break;
    case HINT_EQ: sb_printf(&b, "%s = %s", x, y); break;
    case HINT_CONST:
        sb_printf(&b, "%s to be a constant", x);
        if (f->lo > 1 || f->hi < INT64_MAX) sb_printf(&b, " in %lld..%lld", (long long)f->lo, (long long)f->hi);
        break;
    }
    return sb_str(&b);
}

/* Rule: an error whose check needed a fact about shape parameters gets one note after
 * it, at the outermost place of the error in the kernel's own code (the use of the
 * definition the check is in): the parameters, the fact, the -D that fixes them, and,
 * where the search found them, values with which the program (with --kernel, that
 * kernel) compiles. Where fixing some of the fact's parameters was enough, the note
 * names those. */
void hint_report(Compilation *c, const CompileOptions *opt, const char *path, const char *text, size_t len)
{
    Diag *d = c->diag;
    const HintFact *f = d->fact;
    if (!f || opt->no_hint || !c->current) return;
    NatVar *vs[8];
    int nv = shape_vars(f, vs, 8);
    if (nv == 0) return;
    sort_vars(c->current, vs, nv);
    Arena *a = c->arena;
    Define *defs = ANEWN(a, Define, opt->ndefines + HINT_MAXDEFS);
    if (opt->ndefines) memcpy(defs, opt->defines, sizeof *defs * (size_t)opt->ndefines);
    Search s = {.opt = opt, .path = path, .text = text, .len = len, .kernel = c->current, .keep = a,
                .defs = defs, .ndefs = opt->ndefines};
    s.trials = len <= HINT_TEXT ? HINT_TRIALS : (int)(HINT_TRIALS * (int64_t)HINT_TEXT / (int64_t)len);
    if (s.trials < 2) s.trials = 2;
    /* the kernel alone first; then the values must compile the whole program (its
     * selected kernel), else the search runs again on it */
    s.alone = !opt->only_kernel;
    bool found = nv <= HINT_MAXVARS && find_values(&s, f, vs, nv);
    if (found && s.alone) {
        Arena *ta;
        const HintFact *g;
        s.alone = false;
        found = trial(&s, &ta, &g);
        arena_free(ta);
        if (!found) {
            s.ndefs = opt->ndefines;
            found = find_values(&s, f, vs, nv);
        }
    }
    Define *got = s.defs + opt->ndefines;
    int ngot = found ? s.ndefs - opt->ndefines : 0;
    /* named: the fact's parameters that the values fix (all of them when none were found) */
    const char *names[8];
    int nn = 0;
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < ngot; j++)
            if (!strcmp(got[j].name, vs[i]->name)) names[nn++] = vs[i]->name;
    if (nn == 0)
        for (; nn < nv; nn++) names[nn] = vs[nn]->name;

    StrBuf b = {.a = a};
    for (int i = 0; i < nn; i++) sb_printf(&b, "%s%s", i == 0 ? "" : i == nn - 1 ? " and " : ", ", names[i]);
    bool one = nn == 1;
    sb_printf(&b, " %s of kernel '%s' that no -D fixes, and this check needs %s: fix %s with",
              one ? "is a nat parameter" : "are nat parameters", c->current->name, fact_str(a, f), one ? "it" : "them");
    for (int i = 0; i < nn; i++) sb_printf(&b, " -D %s=VALUE", names[i]);
    if (found) {
        sb_printf(&b, "; e.g. with");
        for (int i = 0; i < ngot; i++) sb_printf(&b, " -D %s=%lld", got[i].name, (long long)got[i].value);
        if (opt->only_kernel) sb_printf(&b, " kernel '%s' compiles", opt->only_kernel);
        else sb_printf(&b, " the program compiles");
    }
    Span at = d->at;
    while (at.via) at = at.via->sp;
    diag_note(d, at, "%s", sb_str(&b));
}
