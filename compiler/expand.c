/* expand.c: definitions inlined, beta-reduction with let semantics.
 *
 * Requires: a parsed Program.
 * Ensures:  for one kernel, a closed AST in which
 *   - no def name remains (each use got a fresh copy, so defs are polymorphic);
 *   - every binder has a unique name "x`N" (the part before ` is the user's name);
 *   - a lambda applied to a function, a variable, a literal or arithmetic on those
 *     was substituted; a lambda applied to any other (data-computing) argument became
 *     A_LET, so the argument is evaluated once however often the body uses it;
 *   - toPrivateFun(f)(x) / toSharedFun(f)(x) became toPrivate(f(x)) / toShared(f(x)).
 * Lambdas that remain are either the kernel's own parameters or function arguments
 * of primitives (or of a primitive spine that is still unsaturated).
 *
 * Copies are not shared: each use of a definition or of a function-valued argument is
 * typed on its own (defs are polymorphic) and becomes code of its own in the kernel, so
 * sharing the AST would save no later work. A definition using the previous one twice,
 * 24 levels deep, is 2^24 copies: the expansion of one kernel is limited to
 * EXPAND_MAX_NODES nodes (and EXPAND_MAX_DEPTH nested calls), an error at the kernel.
 */
#include "compiler.h"

#include <string.h>

/* Far beyond any real kernel (the examples expand to a few hundred nodes); small enough
 * that expansion stays well under a second and a few hundred MB. */
#define EXPAND_MAX_NODES 1000000
/* ex() recursion (nesting of the expanded term), kept well inside an 8 MB stack. */
#define EXPAND_MAX_DEPTH 20000

typedef enum { B_RENAME, B_VALUE } BindKind;

typedef struct Env {
    const char *name;
    BindKind kind;
    const char *newname; /* B_RENAME */
    Ast *value;          /* B_VALUE: an expanded term, copied freshly at each use */
    struct Env *next;
} Env;

typedef struct Active {
    const Decl *d;
    struct Active *next;
} Active;

typedef struct Ex {
    Arena *a;
    Diag *d;
    const Program *p;
    const Decl *kernel;
    Active *active; /* defs being expanded: a def reached again is recursive */
    int depth;
    const UseSite *via; /* the uses of definitions the code being copied was inlined through */
    long nodes;     /* ex() calls so far: about one node each */
    NameMap *uses;  /* def name -> int *: times it was inlined into this kernel */
    const Decl *most_used;
    int most_uses;
} Ex;

static Ast *ex(Ex *x, Ast *e, Env *env);

/* The span of a copy made while inlining a definition records the uses it came
 * through; a span that already has them (an argument written at the use) keeps its own. */
static Span stamp(Ex *x, Span sp)
{
    if (x->via && !sp.via) sp.via = x->via;
    return sp;
}

/* A leaf shared with the source AST, or a copy of it whose span records the uses. */
static Ast *leaf(Ex *x, Ast *e)
{
    Span sp = stamp(x, e->sp);
    if (sp.via == e->sp.via) return e;
    Ast *c = ANEW(x->a, Ast);
    *c = *e;
    c->sp = sp;
    return c;
}

/* The user's spelling of a (possibly renamed) binder. */
static const char *user_name(Arena *a, const char *n)
{
    const char *tick = strchr(n, '`');
    return tick ? arena_strndup(a, n, (size_t)(tick - n)) : n;
}

static const char *fresh(Ex *x, const char *n)
{
    return arena_printf(x->a, "%s`%d", user_name(x->a, n), arena_next_id(x->a));
}

static Env *bind(Ex *x, Env *env, const char *name, BindKind k, const char *newname, Ast *value)
{
    Env *b = ANEW(x->a, Env);
    b->name = name;
    b->kind = k;
    b->newname = newname;
    b->value = value;
    b->next = env;
    return b;
}

static const Decl *find_def(const Program *p, const char *name)
{
    if (p->by_name) {
        const Decl *d = namemap_get(p->by_name, name);
        return d && d->kind == D_DEF ? d : NULL;
    }
    for (const Decl *d = p->decls; d; d = d->next)
        if (d->kind == D_DEF && strcmp(d->name, name) == 0) return d;
    return NULL;
}

/* Count one more inlining of d, for the message of too_big. */
static void count_use(Ex *x, const Decl *d)
{
    int *n = namemap_get(x->uses, d->name);
    if (!n) {
        n = ANEW(x->a, int);
        namemap_put(x->uses, d->name, n);
    }
    if (++*n > x->most_uses) {
        x->most_uses = *n;
        x->most_used = d;
    }
}

/* The expansion outgrew EXPAND_MAX_NODES: blame the definition inlined most often. */
static _Noreturn void too_big(Ex *x)
{
    const Decl *k = x->kernel, *d = x->most_used;
    if (d && x->most_uses > 1)
        diag_error2(x->d, k->sp, d->sp, arena_printf(x->a, "'%s' is defined here", d->name),
                    "expanding kernel '%s' makes more than %d nodes; definition '%s' is used %d times in it "
                    "(every use of a definition is a copy of its body)",
                    k->name, EXPAND_MAX_NODES, d->name, x->most_uses);
    diag_error(x->d, k->sp,
               "expanding kernel '%s' makes more than %d nodes (every use of a function or definition is a "
               "copy of its body)",
               k->name, EXPAND_MAX_NODES);
}

/* Head of an application spine f(a1)...(ak), and k. */
static Ast *spine_head(Ast *e, int *nargs)
{
    int n = 0;
    while (e->kind == A_APP) {
        e = e->app.fn;
        n++;
    }
    *nargs = n;
    return e;
}

/* The i-th argument (0-based, source order) of a spine with n arguments. */
static Ast *spine_arg(Ast *e, int n, int i)
{
    for (int k = n - 1; k > i; k--) e = e->app.fn;
    return e->app.arg;
}

/* Explicit arity of primitive `p` applied in spine `e` (a leading dimension literal
 * counts as one more argument). */
static int prim_arity(Ast *e, int n, int p)
{
    int ar = prim_info[p].nnats + prim_info[p].nargs;
    if (prim_info[p].has_dim && n >= 1 && spine_arg(e, n, 0)->kind == A_DIM) ar++;
    return ar;
}

/* A primitive spine with fewer arguments than its arity is a function value. */
static bool unsaturated_prim(Ast *e)
{
    int n;
    Ast *h = spine_head(e, &n);
    if (h->kind != A_VAR || strchr(h->var.name, '`')) return false;
    int p = prim_lookup(h->var.name);
    return p >= 0 && n < prim_arity(e, n, p);
}

/* Duplicable arguments are substituted: functions (no work happens until applied),
 * variables and literals. Arithmetic is work, so it is let-bound; typecheck turns a
 * let of a nat expression (elemsBlock * 2) back into a nat binding. */
static bool duplicable(Ast *e)
{
    switch (e->kind) {
    case A_LAM: case A_NLAM: case A_VAR: case A_INT: case A_FLOAT: case A_BOOL: case A_DIM:
        return true;
    case A_UN: return e->un.e->kind == A_INT || e->un.e->kind == A_FLOAT; /* -1, -2.0f */
    case A_BIN: return false;
    case A_APP: return unsaturated_prim(e);
    case A_LET: {
        /* a function whose definition bound an argument (reduceBlockNaive(op, pair(a)(b), 8)
         * is let init = pair(a)(b) in fun(chunk => ...)): a function still, computing the
         * binding where it is applied */
        while (e->kind == A_LET) e = e->let.body;
        return e->kind == A_LAM;
    }
    }
    return false;
}

/* (fun(x => b))(a) -> b[x := a]        when a is duplicable
 * (fun(x => b))(a) -> let x = a in b   otherwise
 * (nFun(n => b))(a) -> b[n := a]
 * (let y = v in g)(a) -> let y = v in g(a)
 * toPrivateFun(f)(v) -> toPrivate(f(v)), toSharedFun likewise */
static Ast *apply(Ex *x, Span sp, Ast *f, Ast *arg)
{
    if (f->kind == A_LET) { /* (let y = v in g)(a) -> let y = v in g(a): y is fresh, so not free in a */
        Ast *l = ast_new(x->a, A_LET, f->sp);
        l->let.name = f->let.name;
        l->let.value = f->let.value;
        l->let.uses = f->let.uses;
        l->let.body = apply(x, sp, f->let.body, arg);
        return l;
    }
    if (f->kind == A_NLAM || (f->kind == A_LAM && duplicable(arg)))
        return ex(x, f->lam.body, bind(x, NULL, f->lam.param, B_VALUE, NULL, arg));
    if (f->kind == A_LAM) {
        Ast *l = ast_new(x->a, A_LET, sp);
        l->let.name = f->lam.param;
        l->let.value = arg;
        l->let.body = f->lam.body;
        l->let.uses = f->sp.via; /* NULL for a lambda the kernel writes itself */
        return l;
    }
    Ast *app = ast_app(x->a, sp, f, arg);
    int n;
    Ast *h = spine_head(app, &n);
    if (h->kind == A_VAR && n == 2 && !strchr(h->var.name, '`') &&
        (strcmp(h->var.name, "toPrivateFun") == 0 || strcmp(h->var.name, "toSharedFun") == 0)) {
        const char *to = h->var.name[2] == 'P' ? "toPrivate" : "toShared";
        Ast *inner = apply(x, sp, spine_arg(app, 2, 0), arg);
        return ast_app(x->a, sp, ast_var(x->a, h->sp, to), inner);
    }
    return app;
}

/* def f(a, b) = e  is  def f = fun(a => fun(b => e)) */
static Ast *def_as_term(Ex *x, const Decl *d)
{
    Ast *body = d->body;
    for (int i = d->nparams - 1; i >= 0; i--)
        body = ast_lam(x->a, d->param_spans ? d->param_spans[i] : d->sp, d->params[i], NULL, body);
    return body;
}

static TypeExpr *ex_type(Ex *x, TypeExpr *t, Env *env)
{
    if (!t) return NULL;
    TypeExpr *r = ANEW(x->a, TypeExpr);
    *r = *t;
    r->sp = stamp(x, t->sp);
    switch (t->kind) {
    case TE_SCALAR: break;
    case TE_ARRAY:
        r->arr.size = ex(x, t->arr.size, env);
        r->arr.elem = ex_type(x, t->arr.elem, env);
        break;
    case TE_PAIR:
        r->pair.a = ex_type(x, t->pair.a, env);
        r->pair.b = ex_type(x, t->pair.b, env);
        break;
    case TE_IDX: r->idx.size = ex(x, t->idx.size, env); break;
    }
    return r;
}

/* Levenshtein distance of a and b, or `cap` + 1 when it is larger than cap (names
 * longer than 64 bytes are never close). */
static int edit_distance(const char *a, const char *b, int cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64 || (la > lb ? la - lb : lb - la) > (size_t)cap) return cap + 1;
    int row[65];
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb] > cap ? cap + 1 : row[lb];
}

/* Keep `cand` if it is closer to `n` than the best so far (at most 2 edits, and fewer
 * edits than n has characters, so that `y` does not suggest `x`). */
static void consider(const char *n, const char *cand, const char **best, int *bestd)
{
    if (cand[0] == '$' || strchr(cand, '`')) return; /* names patc made */
    int dist = edit_distance(n, cand, 2);
    if (dist <= 2 && dist < (int)strlen(n) && dist < *bestd) {
        *best = cand;
        *bestd = dist;
    }
}

/* unknown name 'n'[; did you mean 'm'?] where m is the closest name n could have
 * meant: a variable in scope, a definition, a kernel or a primitive. */
static _Noreturn void unknown_name(Ex *x, Ast *e, Env *env)
{
    const char *n = e->var.name, *best = NULL;
    int bestd = 3;
    for (Env *b = env; b; b = b->next) consider(n, b->name, &best, &bestd);
    for (const Decl *d = x->p->decls; d; d = d->next) consider(n, d->name, &best, &bestd);
    for (int p = 0; p < P_COUNT; p++) consider(n, prim_info[p].name, &best, &bestd);
    if (best) diag_error(x->d, stamp(x, e->sp), "unknown name '%s'; did you mean '%s'?", n, best);
    diag_error(x->d, stamp(x, e->sp), "unknown name '%s'", n);
}

/* A name resolves, innermost first, to a binder, a def (inlined afresh), or a
 * primitive; anything else is an error. */
static Ast *ex_var(Ex *x, Ast *e, Env *env)
{
    const char *n = e->var.name;
    for (Env *b = env; b; b = b->next) {
        if (strcmp(b->name, n) != 0) continue;
        if (b->kind == B_RENAME) return ast_var(x->a, stamp(x, e->sp), b->newname);
        /* a fresh copy, its binders renamed again; an expanded term keeps its spans */
        const UseSite *via = x->via;
        x->via = NULL;
        Ast *r = ex(x, b->value, NULL);
        x->via = via;
        return r;
    }
    if (strchr(n, '`')) return leaf(x, e); /* bound further out, already renamed */
    const Decl *d = find_def(x->p, n);
    if (d) {
        for (Active *a = x->active; a; a = a->next)
            if (a->d == d) diag_error(x->d, stamp(x, e->sp), "definition '%s' refers to itself; recursion is not supported", n);
        count_use(x, d);
        Active act = {d, x->active};
        x->active = &act;
        UseSite *use = ANEW(x->a, UseSite);
        use->name = n;
        use->sp = stamp(x, e->sp);
        const UseSite *via = x->via;
        x->via = use;
        Ast *r = ex(x, def_as_term(x, d), NULL);
        x->via = via;
        x->active = act.next;
        return r;
    }
    if (prim_lookup(n) >= 0) return leaf(x, e);
    unknown_name(x, e, env);
}

/* Is `name` unbound here (no binder, no def), so that it means the built-in reading? */
static bool unbound(Ex *x, Env *env, const char *name)
{
    for (Env *b = env; b; b = b->next)
        if (strcmp(b->name, name) == 0) return false;
    return !find_def(x->p, name);
}

/* l(v) = v for a literal v: the thesis's literal wrapper (l(0f)), unless the program
 * binds or defines its own `l`. A literal is a number, true/false, or a negated number. */
static Ast *literal_wrapper(Ex *x, Ast *e)
{
    Ast *v = e->app.arg;
    const Ast *n = v->kind == A_UN && v->un.op == UOP_NEG ? v->un.e : v;
    if (n->kind == A_INT || n->kind == A_FLOAT || (n->kind == A_BOOL && n == v)) return ex(x, v, NULL);
    diag_error(x->d, stamp(x, v->sp), "l(...) wraps a literal (as in l(0f)); its argument must be a number or true/false, "
               "not an expression; write the expression without l(...)");
}

static Ast *ex(Ex *x, Ast *e, Env *env)
{
    if (++x->depth > EXPAND_MAX_DEPTH)
        diag_error(x->d, stamp(x, e->sp), "program too deeply nested after inlining definitions (more than %d levels)",
                   EXPAND_MAX_DEPTH);
    if (lang_stack_left() < LANG_STACK_RESERVE)
        diag_error(x->d, stamp(x, e->sp), "program too deeply nested after inlining definitions");
    if (++x->nodes > EXPAND_MAX_NODES) too_big(x);
    Ast *r = NULL;
    switch (e->kind) {
    case A_VAR: r = ex_var(x, e, env); break;
    case A_INT: case A_FLOAT: case A_BOOL: case A_DIM: r = leaf(x, e); break;
    case A_LAM: case A_NLAM: {
        const char *p = fresh(x, e->lam.param);
        Env *inner = bind(x, env, e->lam.param, B_RENAME, p, NULL);
        r = ast_new(x->a, e->kind, stamp(x, e->sp));
        r->lam.param = p;
        r->lam.ptype = ex_type(x, e->lam.ptype, env);
        r->lam.body = ex(x, e->lam.body, inner);
        break;
    }
    case A_LET: {
        const char *p = fresh(x, e->let.name);
        r = ast_new(x->a, A_LET, stamp(x, e->sp));
        r->let.name = p;
        r->let.uses = e->let.uses;
        r->let.value = ex(x, e->let.value, env);
        r->let.body = ex(x, e->let.body, bind(x, env, e->let.name, B_RENAME, p, NULL));
        break;
    }
    case A_APP:
        if (e->app.fn->kind == A_VAR && strcmp(e->app.fn->var.name, "l") == 0 && unbound(x, env, "l")) {
            r = literal_wrapper(x, e);
            break;
        }
        r = apply(x, stamp(x, e->sp), ex(x, e->app.fn, env), ex(x, e->app.arg, env)); break;
    case A_BIN: r = ast_bin(x->a, stamp(x, e->sp), e->bin.op, ex(x, e->bin.l, env), ex(x, e->bin.r, env)); break;
    case A_UN: r = ast_un(x->a, stamp(x, e->sp), e->un.op, ex(x, e->un.e, env)); break;
    }
    x->depth--;
    return r;
}

/* A kernel is expanded like any term: its parameters are renamed too (codegen prints
 * the user's part of the name). */
Ast *expand_kernel(Arena *a, Diag *d, const Program *p, const Decl *k)
{
    /* the count of inlinings is needed while expanding only: scratch memory (the map
     * and its counters; the names it keys on live in the program) */
    Arena *s = arena_scratch_begin(a);
    Ex x = {.a = a, .d = d, .p = p, .kernel = k, .uses = namemap_new(s)};
    Ast *r = ex(&x, k->body, NULL);
    arena_scratch_end(a, s);
    return r;
}
