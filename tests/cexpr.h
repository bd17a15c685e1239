/* cexpr.h: evaluate a C integer expression the way C does (test helper).
 *
 * Grammar: + - * / % (C precedence, left associative), unary - and +, parentheses,
 * decimal literals (optional L/LL/U suffixes are accepted and ignored), identifiers
 * bound to values, and the calls patc_fdiv(a, b) / patc_fmod(a, b) (floor semantics)
 * and min(a, b) / max(a, b). `/` and `%` truncate toward zero as in C99. Arithmetic is
 * long long; overflow, division by zero and unknown names are errors.
 */
#ifndef PATC_TESTS_CEXPR_H
#define PATC_TESTS_CEXPR_H

#include <stdbool.h>
#include <stddef.h>

bool cexpr_eval(const char *src, const char **names, const long long *vals, int nvars, long long *out,
                char *err, size_t errlen);

#endif
