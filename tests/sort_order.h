/* sort_order.h: the reference order of the radix sort's tests (tests/test_radixsort.c,
 * tests/gpu/sort_check.c), written from the values, not from the sort's order bits.
 * CUB's ascending order of f32 keys (given as their bits): negative NaNs (sign bit set)
 * first, the larger payload first; then the numbers by value (-0.0 == +0.0); then the
 * positive NaNs, the smaller payload first. The same for f64 keys. */
#ifndef PATC_TESTS_SORT_ORDER_H
#define PATC_TESTS_SORT_ORDER_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float sort_order_u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline int sort_order_cmp_f32(uint32_t a, uint32_t b)
{
    float x = sort_order_u2f(a), y = sort_order_u2f(b);
    int ca = isnan(x) ? ((a >> 31) ? 0 : 2) : 1, cb = isnan(y) ? ((b >> 31) ? 0 : 2) : 1;
    if (ca != cb) return ca < cb ? -1 : 1;
    if (ca == 1) return x < y ? -1 : x > y ? 1 : 0;
    if (a == b) return 0;
    return (ca == 0) == (a > b) ? -1 : 1;
}

static inline double sort_order_u2d(uint64_t u)
{
    double f;
    memcpy(&f, &u, 8);
    return f;
}

/* The same order for f64 keys (given as their bits). */
static inline int sort_order_cmp_f64(uint64_t a, uint64_t b)
{
    double x = sort_order_u2d(a), y = sort_order_u2d(b);
    int ca = isnan(x) ? ((a >> 63) ? 0 : 2) : 1, cb = isnan(y) ? ((b >> 63) ? 0 : 2) : 1;
    if (ca != cb) return ca < cb ? -1 : 1;
    if (ca == 1) return x < y ? -1 : x > y ? 1 : 0;
    if (a == b) return 0;
    return (ca == 0) == (a > b) ? -1 : 1;
}

#endif
