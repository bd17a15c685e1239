/* rt_internal.h: what the files of runtime/ share (never installed).
 *
 * Layers, each testable on its own:
 *   rt_sha256.c  SHA-256
 *   rt_cache.c   the on-disk cubin cache (bytes in, bytes out)
 *   rt_nvrtc.c   CUDA C -> cubin with NVRTC (dlopen'ed on first use), through the cache
 *   rt_driver.c  the CUDA driver API, dlopen'ed at run time
 *   rt_api.c     the public API of patc.h
 */
#ifndef PATC_RT_INTERNAL_H
#define PATC_RT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- sha256 */

typedef struct RtSha256 {
    uint32_t h[8];
    uint64_t len;
    uint8_t buf[64];
    size_t nbuf;
} RtSha256;
void rt_sha256_init(RtSha256 *s);
void rt_sha256_update(RtSha256 *s, const void *data, size_t n);
void rt_sha256_final(RtSha256 *s, uint8_t out[32]);
void rt_sha256(const void *data, size_t n, uint8_t out[32]);
void rt_hex(const uint8_t d[32], char out[65]);

/* ---------------------------------------------------------------- cache */

typedef enum { RT_CACHE_MISS, RT_CACHE_HIT, RT_CACHE_CORRUPT } RtCacheResult;

/* The cache directory's path: $PATC_CACHE_DIR, else $XDG_CACHE_HOME/patc, else
 * ~/.cache/patc. Returns a malloc'ed path, or NULL when none can be determined. */
char *rt_cache_dir_path(void);
/* rt_cache_dir_path if that directory is usable (a writable directory, or absent with a
 * writable directory as its nearest existing ancestor); else NULL, after one warning
 * (rt_cache_warn) naming the directory and the reason. */
char *rt_cache_default_dir(void);
/* Warn, through patc_set_warning_handler's handler, that `dir` cannot be used (`reason`),
 * once per directory and process. */
void rt_cache_warn(const char *dir, const char *reason);
/* The key of a cubin: SHA-256 over every field that changes the cubin. Each field is
 * hashed with its length in front, so ("ab","c") and ("a","bc") differ. */
void rt_cache_key(const char *patc_version, int nvrtc_major, int nvrtc_minor, int arch,
                  const char *const *options, int noptions, const char *cuda_src, char key[65]);
/* Look `key` up. On a hit *data (malloc'ed, caller frees) and *len hold the payload.
 * A damaged entry (bad magic, length, checksum), or anything at the entry's path that
 * is not a regular file (a FIFO, a directory, a device), is reported as RT_CACHE_CORRUPT
 * and counts as a miss; the next store replaces it. Never blocks on what it opens. */
RtCacheResult rt_cache_load(const char *dir, const char *key, void **data, size_t *len);
/* Store atomically: a temporary file in `dir` with a unique name, then rename().
 * Creates `dir` as needed. Returns false (with errno set) on failure; a failed store
 * never leaves a partial entry under the key's name. */
bool rt_cache_store(const char *dir, const char *key, const void *data, size_t len);
/* The path of the entry for `key` (malloc'ed), for tests and messages. */
char *rt_cache_entry_path(const char *dir, const char *key);

/* ---------------------------------------------------------------- nvrtc */

typedef struct RtBuildStats {
    bool cache_hit, cache_corrupt;
    double ms;
} RtBuildStats;

/* Compile CUDA C to a cubin for sm_<arch>. Uses the cache in `cache_dir` when it is
 * non-NULL. On failure returns false and *log holds the NVRTC log or the reason
 * (malloc'ed, caller frees). On success *cubin is malloc'ed. */
bool rt_nvrtc_compile(const char *src, const char *name, int arch, const char *cache_dir,
                      void **cubin, size_t *cubin_len, char **log, RtBuildStats *st);
/* (0, 0) when NVRTC cannot be loaded. */
void rt_nvrtc_version(int *major, int *minor);
/* dlopen NVRTC unless it is loaded. On failure returns false with a malloc'ed message in
 * *why naming the library, what was tried and how to fix it. */
bool rt_nvrtc_load(char **why);

/* ---------------------------------------------------------------- driver */

typedef struct RtDriver RtDriver;

/* ---------------------------------------------------------------- api internals (rt_api.c) */

struct patc_ctx;
struct patc_kernel;
struct patc_buffer;
/* Set the context's last error; returns s. */
int rt_fail(struct patc_ctx *c, int s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* For a kernel of the tuned-reduction shape: the index of the nat that is its one input's
 * length and of the nat that is its grid (grid = (g, 1, 1)); *grid_nat is -1 for a
 * fixed grid (then n must be the only nat). Returns false for any other shape. */
bool rt_kernel_roles(const struct patc_kernel *k, int *len_nat, int *grid_nat);
/* patc_time_reduce_to_one, also giving each run's time (each_ms: reps entries, or NULL). */
int rt_time_reduce(struct patc_kernel *k, const long long *nats, struct patc_buffer *input, long long n, int warmup,
                   int reps, float *median_ms, float *each_ms);
/* A planned reduction: the passes of patc_reduce_to_one for one (kernel, nats, input,
 * n), checked and bound once, the last pass writing to `output` (one element). Firing
 * only enqueues the launches on the context's stream. */
typedef struct RtPlan RtPlan;
int rt_plan_open(struct patc_kernel *k, const long long *nats, struct patc_buffer *input, long long n,
                 struct patc_buffer *output, RtPlan **out);
int rt_plan_fire(RtPlan *p);
void rt_plan_close(RtPlan *p);
/* Time the plans interleaved (each round runs each plan once, each run timed alone with
 * CUDA events) after `warmup` rounds; median_ms[i] is plan i's median of reps runs, and
 * all_ms (may be NULL) gets every run's time, plan by plan (count * reps entries). */
int rt_time_plans(struct patc_ctx *c, RtPlan *const *plans, int count, int warmup, int reps, float *median_ms,
                  float *all_ms);
/* The context's device's SM count (0 without a device). */
int rt_ctx_sm_count(struct patc_ctx *c);
typedef unsigned long long RtDevPtr;

/* Load libcuda.so.1, initialise it and retain the primary context of `device`.
 * Returns NULL and a malloc'ed reason in *why (naming the missing driver or device);
 * *no_device is set when the driver loaded but the device is absent. */
RtDriver *rt_driver_open(int device, char **why, bool *no_device);
void rt_driver_close(RtDriver *d);
/* Compute capability as 10*major+minor. */
int rt_driver_arch(const RtDriver *d);
/* Each returns 0 on success, else the CUresult; rt_driver_error_name names it. */
int rt_driver_bind(RtDriver *d);
const char *rt_driver_error_name(RtDriver *d, int err);
int rt_driver_mem_alloc(RtDriver *d, RtDevPtr *p, size_t bytes);
int rt_driver_mem_free(RtDriver *d, RtDevPtr p);
int rt_driver_memset0(RtDriver *d, RtDevPtr p, size_t bytes);
int rt_driver_sm_count(RtDriver *d, int *n);
int rt_driver_htod(RtDriver *d, RtDevPtr dst, const void *src, size_t bytes);
int rt_driver_dtoh(RtDriver *d, void *dst, RtDevPtr src, size_t bytes);
int rt_driver_module_load(RtDriver *d, const void *image, void **module);
int rt_driver_module_unload(RtDriver *d, void *module);
int rt_driver_get_function(RtDriver *d, void *module, const char *name, void **fn);
/* Launch on the default stream; raises the function's dynamic shared memory limit
 * first when `shared` is above the 48 KiB default. */
int rt_driver_launch(RtDriver *d, void *fn, const unsigned grid[3], const unsigned block[3],
                     unsigned shared, void *stream, void **args);
int rt_driver_sync(RtDriver *d);
int rt_driver_event_create(RtDriver *d, void **ev);
int rt_driver_event_destroy(RtDriver *d, void *ev);
int rt_driver_event_record(RtDriver *d, void *ev, void *stream);
int rt_driver_event_elapsed(RtDriver *d, void *start, void *stop, float *ms);

/* Milliseconds of a monotonic clock. */
double rt_now_ms(void);

#endif
