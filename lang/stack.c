/* stack.c: how much of the calling thread's stack is left.
 *
 * The recursive passes (expand, typecheck, lower, the interpreter) recurse as deep as
 * the user's program nests, and the library runs on whatever stack its host gives it
 * (8 MiB on a main thread, often less on others; an ASan build's frames are several
 * times larger). A fixed depth limit cannot fit all of these, so the passes also ask
 * how much stack is left and report "nested too deeply" before it runs out. */
#define _GNU_SOURCE /* pthread_getattr_np */
#include "lang.h"

#include <pthread.h>
#include <stdint.h>

static _Thread_local const char *stack_lo; /* lowest usable address; NULL: not asked yet */
static _Thread_local bool stack_unknown;

/* The thread's lowest stack address, asked of pthreads once per thread. */
static void find_bounds(void)
{
    if (!stack_lo && !stack_unknown) {
        pthread_attr_t a;
        void *addr = NULL;
        size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &a) == 0) {
            if (pthread_attr_getstack(&a, &addr, &size) != 0) addr = NULL;
            pthread_attr_destroy(&a);
        }
        if (addr) stack_lo = addr;
        else stack_unknown = true;
    }
}

/* left = the caller's frame address - the lowest address of this thread's stack (the
 * stack grows down on every target patc builds for); SIZE_MAX when the bounds are
 * unknown. */
size_t lang_stack_left(void)
{
    find_bounds();
    if (stack_unknown) return SIZE_MAX;
    const char *here = __builtin_frame_address(0);
    return here > stack_lo ? (size_t)(here - stack_lo) : 0;
}

/* floor = the lowest address + the reserve: a frame below it has less than the reserve
 * left, as lang_stack_left would say */
const char *lang_stack_floor(void)
{
    find_bounds();
    return stack_unknown ? NULL : stack_lo + LANG_STACK_RESERVE;
}
