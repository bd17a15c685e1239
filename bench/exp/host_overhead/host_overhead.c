/* host_overhead.c: the host time of one patc_launch_args_enqueue of examples/filter.rise's
 * filterGtF32 (nt=256, ipt=32, n = 2^20), the same call repeated R times, five rounds.
 * Run against tests/fakecuda's stand-in driver (run.sh), whose cuLaunchKernel returns
 * at once, it measures libpatrt's own work per call, not the driver's. */
#include "patc.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: host_overhead FILTER.rise R\n");
        return 2;
    }
    patc_ctx *c;
    patc_program *p;
    patc_kernel *k;
    if (patc_create(&c, 0, 0) != PATC_OK || patc_device_status(c) != PATC_OK) {
        fprintf(stderr, "no device: %s\n", patc_last_error(c));
        return 1;
    }
    patc_define d[2] = {{"nt", 256}, {"ipt", 32}};
    if (patc_program_from_file(c, argv[1], d, 2, &p) != PATC_OK || patc_get_kernel(p, "filterGtF32", &k) != PATC_OK) {
        fprintf(stderr, "%s\n", patc_last_error(c));
        return 1;
    }
    long long n = 1 << 20;
    patc_buffer *bx, *bc, *bo;
    if (patc_buffer_alloc(c, 4 * (size_t)n, &bx) || patc_buffer_alloc(c, 4, &bc) || patc_buffer_alloc(c, 4 * (size_t)n, &bo)) {
        fprintf(stderr, "%s\n", patc_last_error(c));
        return 1;
    }
    float t = 0.5f;
    patc_arg a[2] = {{NULL, &t}, {bx, NULL}};
    patc_buffer *outs[2] = {bc, bo};
    int R = atoi(argv[2]);
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (int i = 0; i < R; i++)
            if (patc_launch_args_enqueue(k, &n, a, outs, NULL) != PATC_OK) {
                fprintf(stderr, "%s\n", patc_last_error(c));
                return 1;
            }
        printf("%.3f us/call\n", (now() - t0) / R * 1e6);
    }
    patc_destroy(c);
    return 0;
}
