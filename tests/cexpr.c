/* cexpr.c: a recursive-descent evaluator of C integer expressions (see cexpr.h). */
#include "cexpr.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct P {
    const char *s;
    const char **names;
    const long long *vals;
    int nvars;
    char *err;
    size_t errlen;
    bool failed;
} P;

static bool fail(P *p, const char *fmt, ...)
{
    if (!p->failed && p->err && p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err, p->errlen, fmt, ap);
        va_end(ap);
    }
    p->failed = true;
    return false;
}

static void skip(P *p)
{
    while (isspace((unsigned char)*p->s)) p->s++;
}

static bool eat(P *p, char c)
{
    skip(p);
    if (*p->s != c) return false;
    p->s++;
    return true;
}

static bool expr(P *p, long long *v);

/* C99 semantics: `/` truncates toward zero and a % b == a - (a / b) * b. */
static bool c_divmod(P *p, char op, long long x, long long y, long long *v)
{
    if (y == 0) return fail(p, "division by zero");
    if (x == LLONG_MIN && y == -1) return fail(p, "overflow in division");
    *v = op == '/' ? x / y : x % y;
    return true;
}

/* Floor semantics as the kernel prelude defines patc_fdiv / patc_fmod (divisor > 0). */
static bool floor_divmod(P *p, bool div, long long x, long long y, long long *v)
{
    if (y <= 0) return fail(p, "patc_f%s with divisor %lld <= 0", div ? "div" : "mod", y);
    long long q = x / y;
    if (x % y != 0 && x < 0) q--;
    *v = div ? q : x - q * y;
    return true;
}

static bool primary(P *p, long long *v)
{
    skip(p);
    const char *s = p->s;
    if (isdigit((unsigned char)*s)) {
        unsigned long long n = 0;
        while (isdigit((unsigned char)*s)) {
            unsigned d = (unsigned)(*s++ - '0');
            if (n > (ULLONG_MAX - d) / 10) return fail(p, "literal too large");
            n = n * 10 + d;
        }
        while (*s == 'L' || *s == 'l' || *s == 'U' || *s == 'u') s++;
        /* 9223372036854775808 only makes sense under unary minus; reject it plainly */
        if (n > LLONG_MAX) return fail(p, "literal too large");
        p->s = s;
        *v = (long long)n;
        return true;
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        const char *b = s;
        while (isalnum((unsigned char)*s) || *s == '_') s++;
        size_t len = (size_t)(s - b);
        p->s = s;
        skip(p);
        if (*p->s == '(') {
            p->s++;
            long long x, y;
            if (!expr(p, &x)) return false;
            if (!eat(p, ',')) return fail(p, "expected ','");
            if (!expr(p, &y)) return false;
            if (!eat(p, ')')) return fail(p, "expected ')'");
            if (len == 9 && !strncmp(b, "patc_fdiv", len)) return floor_divmod(p, true, x, y, v);
            if (len == 9 && !strncmp(b, "patc_fmod", len)) return floor_divmod(p, false, x, y, v);
            if (len == 3 && !strncmp(b, "min", len)) return *v = x < y ? x : y, true;
            if (len == 3 && !strncmp(b, "max", len)) return *v = x > y ? x : y, true;
            return fail(p, "unknown function '%.*s'", (int)len, b);
        }
        for (int i = 0; i < p->nvars; i++)
            if (strlen(p->names[i]) == len && !strncmp(p->names[i], b, len)) {
                *v = p->vals[i];
                return true;
            }
        return fail(p, "unbound name '%.*s'", (int)len, b);
    }
    if (*s == '(') {
        p->s++;
        if (!expr(p, v)) return false;
        if (!eat(p, ')')) return fail(p, "expected ')'");
        return true;
    }
    return fail(p, "unexpected '%c' at \"%s\"", *s ? *s : '$', s);
}

static bool unary(P *p, long long *v)
{
    skip(p);
    if (*p->s == '-') {
        p->s++;
        long long x;
        if (!unary(p, &x)) return false;
        if (x == LLONG_MIN) return fail(p, "overflow in negation");
        *v = -x;
        return true;
    }
    if (*p->s == '+') {
        p->s++;
        return unary(p, v);
    }
    return primary(p, v);
}

static bool term(P *p, long long *v)
{
    if (!unary(p, v)) return false;
    for (;;) {
        skip(p);
        char op = *p->s;
        if (op != '*' && op != '/' && op != '%') return true;
        p->s++;
        long long y;
        if (!unary(p, &y)) return false;
        if (op == '*') {
            if (__builtin_mul_overflow(*v, y, v)) return fail(p, "overflow in *");
        } else if (!c_divmod(p, op, *v, y, v)) {
            return false;
        }
    }
}

static bool expr(P *p, long long *v)
{
    if (!term(p, v)) return false;
    for (;;) {
        skip(p);
        char op = *p->s;
        if (op != '+' && op != '-') return true;
        p->s++;
        long long y;
        if (!term(p, &y)) return false;
        if (op == '+' ? __builtin_add_overflow(*v, y, v) : __builtin_sub_overflow(*v, y, v))
            return fail(p, "overflow in %c", op);
    }
}

bool cexpr_eval(const char *src, const char **names, const long long *vals, int nvars, long long *out,
                char *err, size_t errlen)
{
    P p = {src, names, vals, nvars, err, errlen, false};
    if (err && errlen) err[0] = 0;
    long long v;
    if (!expr(&p, &v)) return false;
    skip(&p);
    if (*p.s) return fail(&p, "trailing text \"%s\"", p.s);
    *out = v;
    return true;
}
