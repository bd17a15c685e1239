/* fakecuda.h: what tests/fakecuda's stand-in libcuda.so.1 offers a test beside the
 * driver API. A test dlopens "libcuda.so.1" (the same library the runtime gets through
 * LD_LIBRARY_PATH) and looks these up with dlsym; fakecuda_is_fake tells it apart from
 * the real driver. */
#ifndef FAKECUDA_H
#define FAKECUDA_H

#include <stdbool.h>
#include <stddef.h>

/* One cuLaunchKernel as the driver got it; args as given (valid during the hook). */
typedef struct FakecudaLaunch {
    const char *name; /* the function's name in its module */
    unsigned grid[3], block[3], shared;
    void *stream;
    void **args;
} FakecudaLaunch;

typedef void (*fakecuda_launch_hook)(const FakecudaLaunch *launch, void *ud);

bool fakecuda_is_fake(void);
/* call hook(launch, ud) for every launch the driver accepts (NULL: none) */
void fakecuda_on_launch(fakecuda_launch_hook hook, void *ud);
/* the nth call of driver entry point fn from now on (its symbol: "cuMemAlloc_v2")
 * returns result (a CUresult) and does nothing */
void fakecuda_fail_at(const char *fn, int nth, int result);
/* calls of entry point fn so far, the failing one included */
int fakecuda_calls(const char *fn);
/* device allocations not yet freed */
long long fakecuda_live_allocations(void);
/* the size of the allocation starting at ptr, 0 if none does */
size_t fakecuda_allocation_size(unsigned long long ptr);

#endif
