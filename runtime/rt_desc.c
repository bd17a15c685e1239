/* rt_desc.c: the rules of the compiler's launch descriptors (compiler.h, LdRule)
 * evaluated and printed: the only arithmetic the runtime does on what the compiler
 * hands it. */
#include "rt_internal.h"

enum { RT_LD_STACK = 64 };

/* Floor division for r > 0 (the compiler's `/`). */
static int64_t floor_div(int64_t l, int64_t r)
{
    int64_t q = l / r;
    return q * r != l && l < 0 ? q - 1 : q;
}

/* Postfix on a fixed stack; every result is checked as nat_eval checks it: an
 * overflow, a divisor <= 0 or an unbound slot makes the rule undefined. A rule deeper
 * than the stack is undefined too (describe.c makes none: a rule's depth is the
 * nesting of its divisions, mins and maxes). */
bool rt_ld_eval(const LdRule *r, const int64_t *vals, const bool *has, int nslots, int64_t *out)
{
    int64_t st[RT_LD_STACK];
    int sp = 0;
    if (r->n <= 0 || r->depth > RT_LD_STACK) return false;
    for (int i = 0; i < r->n; i++) {
        const LdIns *c = &r->code[i];
        int64_t a, b;
        if (sp == RT_LD_STACK && (c->op == LD_CST || c->op == LD_SLOT)) return false;
        switch (c->op) {
        case LD_CST: st[sp++] = c->cst; continue;
        case LD_SLOT:
            if (c->slot < 0 || c->slot >= nslots || !has[c->slot]) return false;
            st[sp++] = vals[c->slot];
            continue;
        case LD_ADD: case LD_SUB: case LD_MUL: case LD_DIV: case LD_MIN: case LD_MAX: break;
        }
        if (sp < 2) return false;
        b = st[--sp];
        a = st[sp - 1];
        switch (c->op) {
        case LD_CST: case LD_SLOT: return false;
        case LD_ADD: if (__builtin_add_overflow(a, b, &a)) return false; break;
        case LD_SUB: if (__builtin_sub_overflow(a, b, &a)) return false; break;
        case LD_MUL: if (__builtin_mul_overflow(a, b, &a)) return false; break;
        case LD_DIV:
            if (b <= 0) return false;
            a = floor_div(a, b);
            break;
        case LD_MIN: a = a < b ? a : b; break;
        case LD_MAX: a = a > b ? a : b; break;
        }
        st[sp - 1] = a;
    }
    if (sp != 1) return false;
    *out = st[0];
    return true;
}

/* The first instruction of the operand that ends at code[i]. */
static int operand_start(const LdRule *r, int i)
{
    if (i < 0) return 0;
    if (r->code[i].op == LD_CST || r->code[i].op == LD_SLOT) return i;
    return operand_start(r, operand_start(r, i - 1) - 1);
}

static void print_at(StrBuf *b, const LdRule *r, const LdKernel *d, int i)
{
    static const char *const hw[LD_HW_SLOTS] = {"blockDim.x", "blockDim.y", "blockDim.z", "gridDim.x",
                                                "gridDim.y",  "gridDim.z",  "nwarps"};
    const LdIns *c = &r->code[i];
    const char *op = "?";
    switch (c->op) {
    case LD_CST: sb_printf(b, "%lld", (long long)c->cst); return;
    case LD_SLOT:
        if (c->slot >= 0 && c->slot < d->nnats) sb_puts(b, d->nats[c->slot].name);
        else if (c->slot >= d->nnats && c->slot < d->nnats + LD_HW_SLOTS) sb_puts(b, hw[c->slot - d->nnats]);
        else sb_puts(b, "?");
        return;
    case LD_ADD: op = " + "; break;
    case LD_SUB: op = " - "; break;
    case LD_MUL: op = " * "; break;
    case LD_DIV: op = " / "; break;
    case LD_MIN: op = "min"; break;
    case LD_MAX: op = "max"; break;
    }
    int rs = operand_start(r, i - 1);
    bool fn = c->op == LD_MIN || c->op == LD_MAX;
    sb_puts(b, fn ? op : "");
    sb_putc(b, '(');
    if (rs > 0) print_at(b, r, d, rs - 1);
    sb_puts(b, fn ? ", " : op);
    print_at(b, r, d, i - 1);
    sb_putc(b, ')');
}

void rt_ld_print(StrBuf *b, const LdRule *r, const LdKernel *d)
{
    if (r->n > 0) print_at(b, r, d, r->n - 1);
}
