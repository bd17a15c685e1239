/* rt_internal.h: what the files of runtime/ share (never installed).
 *
 * Layers, each testable on its own:
 *   rt_sha256.c  SHA-256
 *   rt_cache.c   the on-disk cubin cache (bytes in, bytes out)
 *   rt_nvrtc.c   CUDA C -> cubin with NVRTC (dlopen'ed on first use), through the cache
 *   rt_driver.c  the CUDA driver API, dlopen'ed at run time
 * and the public API of patc.h on top of them, the front end and codegen:
 *   rt_ctx.c     contexts and the last-error state
 *   rt_program.c programs (front end, CUDA C, cubin, module) and kernel metadata
 *   rt_desc.c    the launch descriptors' rules evaluated (compiler.h, LdKernel)
 *   rt_buffer.c  device buffers
 *   rt_launch.c  single launches and their timing
 *   rt_reduce.c  device-level reductions and planned chains of passes (rt_tune.c)
 *   rt_interp.c  the CPU interpreter (interp/) on host buffers
 *   rt_tune.c    tuned single-launch reductions
 *   rt_patterns.c where imports find patc's own patterns (installed, or built in)
 *
 * Ownership: a context owns its programs and buffers (kept on lists so that
 * patc_destroy releases whatever the caller left alive); a program owns its CUDA text,
 * its module and its kernel handles, each of which owns its launch descriptor (a copy
 * of the compiler's, one block). The compilation's arena is freed once the CUDA text is
 * made: the runtime launches from the descriptors alone and never evaluates the
 * compiler's Nat, NatEnv or Kernel (tests/layers_test.sh checks runtime/ and cli/ for
 * them). The interpreter and patc_program_ir, which need the typed IR, compile the
 * program again on first use (rt_program_typed) and keep that compilation.
 */
#ifndef PATC_RT_INTERNAL_H
#define PATC_RT_INTERNAL_H

#include "patc.h"
#include "../codegen/codegen.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

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
 * (patc_set_warning_handler's handler) naming the directory and the reason. A usable
 * directory is swept of stale temporary files (rt_cache_sweep). */
char *rt_cache_default_dir(void);
/* The key of a cubin: SHA-256 over every field that changes the cubin. Each field is
 * hashed with its length in front, so ("ab","c") and ("a","bc") differ. */
void rt_cache_key(const char *patc_version, const char *nvrtc_id, int arch, const char *const *options, int noptions,
                  const char *cuda_src, char key[65]);
/* Look `key` up. On a hit *data (malloc'ed, caller frees) and *len hold the payload.
 * A damaged entry (bad magic, length, checksum), or anything at the entry's path that
 * is not a regular file (a symbolic link, a FIFO, a directory, a device), is reported
 * as RT_CACHE_CORRUPT and counts as a miss; the next store replaces it. Never blocks on
 * what it opens; a payload over RT_CACHE_MAX_ENTRY bytes is damage too. */
RtCacheResult rt_cache_load(const char *dir, const char *key, void **data, size_t *len);
#define RT_CACHE_MAX_ENTRY ((uint64_t)1 << 34)
/* Store atomically: a temporary file in `dir` with a unique name, then rename(), over
 * whatever is at the entry's path (a directory there is removed). Creates `dir` as
 * needed. On failure warns once (that the directory is unusable, or, when only the
 * entry cannot be replaced, naming the entry) and returns false with errno set; a failed
 * store never leaves a partial entry under the key's name. */
bool rt_cache_store(const char *dir, const char *key, const void *data, size_t len);
/* Remove the temporary files in `dir` that were last written RT_CACHE_TEMP_MAX_AGE
 * seconds or more before `now` (a store killed before its rename leaves one);
 * rt_cache_default_dir calls it. */
void rt_cache_sweep(const char *dir, time_t now);
#define RT_CACHE_TEMP_MAX_AGE 600
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
/* Whether the text passes NVRTC's front end for compute_<arch> (no code generated); *log
 * as above. */
bool rt_nvrtc_front(const char *src, const char *name, int arch, char **log);
/* The NVRTC options of a compile for sm_<arch> (archopt holds the first): their count. */
enum { RT_NVRTC_MAX_OPTIONS = 8 };
int rt_nvrtc_options(int arch, char archopt[48], const char *opts[RT_NVRTC_MAX_OPTIONS]);
/* (0, 0) when NVRTC cannot be loaded. */
void rt_nvrtc_version(int *major, int *minor);
/* dlopen NVRTC unless it is loaded. On failure returns false with a malloc'ed message in
 * *why naming the library, what was tried and how to fix it. */
bool rt_nvrtc_load(char **why);

/* ---------------------------------------------------------------- embedded cubins */

/* The cubins of the ready-made calls' built-in variants, built with libpatrt
 * (rt_embed_gen.c writes rt_cubins.c in the build directory): each under the key of its
 * CUDA text, the text's length first so that most texts are ruled out unhashed. A cubin
 * is packed against another (its base: the same variant with another operator or type,
 * which differs in a few instructions), or alone (base -1). */
typedef struct RtEmbeddedCubin {
    unsigned char key[32];      /* rt_embed_key of the text */
    size_t src_len;             /* strlen of the text */
    int base;                   /* the entry it is packed against, or -1 */
    const unsigned char *data;  /* the cubin, packed (rt_embed.c) */
    size_t len, raw_len;        /* packed and unpacked bytes */
} RtEmbeddedCubin;
/* The table (none in a build with PATC_EMBED_CUBINS off, nor in programs that link
 * patrt_internal and not rt_cubins.c's object: both symbols are weak references). */
extern const RtEmbeddedCubin rt_embedded_cubins[] __attribute__((weak));
extern const int rt_nembedded_cubins __attribute__((weak));
/* The key of a CUDA text compiled for sm_<arch>: SHA-256 over patc's version, a marker,
 * the arch, rt_nvrtc_options and the text (rt_cache_key's fields, without NVRTC's
 * identity, since NVRTC is not loaded to look it up). */
void rt_embed_key(const char *src, int arch, unsigned char key[32]);
/* The embedded cubin of `src` for sm_<arch>: true with a malloc'ed copy (caller frees)
 * in *cubin, false when there is none (or no memory for it). Touches neither NVRTC nor
 * the disk cache. */
bool rt_embed_find(const char *src, int arch, void **cubin, size_t *cubin_len);
/* The builds (bit v: rt_program_build's variant v) that the first call of kernel k at
 * n elements makes: build 0 always, and build 1 too where the kernel is sized at launch
 * and its indices pass 2^31 already at n. The embedded cubins are those of each
 * built-in line's builds at its least n. */
unsigned rt_embed_builds(patc_kernel *k, long long n);
/* Entry i of `table` unpacked (its bases first): malloc'ed, NULL when out of memory or
 * when the entry is damaged. */
unsigned char *rt_embed_unpack_entry(const RtEmbeddedCubin *table, int n, int i);
/* Pack `in` against `base` (base_len 0: alone): the packed bytes (malloc'ed) and their
 * count in *out_len, NULL when out of memory. rt_embed_unpack undoes it, false when `in`
 * does not unpack to exactly raw_len bytes. */
unsigned char *rt_embed_pack(const unsigned char *base, size_t base_len, const unsigned char *in, size_t len,
                             size_t *out_len);
bool rt_embed_unpack(const unsigned char *base, size_t base_len, const unsigned char *in, size_t len,
                     unsigned char *out, size_t raw_len);

/* ---------------------------------------------------------------- driver */

typedef struct RtDriver RtDriver;

/* ---------------------------------------------------------------- api internals */

typedef unsigned long long RtDevPtr;

/* the one-call forms' algorithms (patc_reduce, patc_*_scan): one per (algorithm, type,
 * operator), three algorithms of six types and three operators */
enum { RT_ALGO_SLOTS = 3 * 6 * 3 };

struct patc_ctx {
    int device;
    unsigned flags;
    RtDriver *drv;          /* NULL without a driver or device */
    patc_status drv_status; /* why drv is NULL */
    char *drv_why;
    int arch;
    int sms;                /* the device's SM count once asked (rt_ctx_sm_count); 0 before */
    char *cache_dir;        /* NULL when the cache is off */
    char **include_dirs;
    int ninclude_dirs;
    StrBuf err;
    char err_short[256]; /* the message, cut short, when err could not grow (memory ran out) */
    patc_compile_stats stats;
    patc_program *programs;
    patc_buffer *buffers;
    void *stream;           /* CUstream of launches and timing events; NULL: the default stream */
    patc_algo *algos;       /* every live algorithm (rt_algo.c), freed by patc_destroy */
    patc_sorter *sorters;   /* every live sorter (rt_sort.c), freed by patc_destroy */
    patc_algo *algo_slot[RT_ALGO_SLOTS];
};

struct patc_kernel {
    patc_program *prog;
    LdKernel *d;   /* its launch descriptor (ld_copy's block, owned) */
    int index;     /* its place in the program (and in the compilation) */
    void *fn[2];   /* CUfunction in module[0] and module[1] (see patc_program), NULL without a device */
    void **pfn[2]; /* the same for each launch before the last (d->nlaunches - 1 of them, toGlobal) */
    int64_t *vals; /* the rules' slots (d->nnats + LD_HW_SLOTS) and which are bound */
    bool *has;
    RtDevPtr *scratch;     /* the kernel's scratch buffers (d->scratch), allocated on first launch */
    size_t *scratch_bytes; /* and grown when a launch needs more; zeroed when (re)allocated */
    unsigned scratch_gen;  /* counts the scratch (re)allocations: a prepared launch holds their addresses */
    /* The last launch of patc_launch_args(_enqueue), kept prepared (rt_launch.c,
     * last_launch): called again with the same key (nats, each input's value or buffer
     * address and size, each output's, the override) and the same scratch_gen, it is
     * fired as it is, without checks, rules or allocations. */
    struct RtLaunch *last;
    unsigned char *key, *last_key; /* room to build a call's key, and the last launch's (one allocation) */
    size_t last_key_len;
    unsigned last_gen;
};

/* What the front end was given, kept to compile the program again for its typed IR. */
typedef struct RtSource {
    char *name;
    char *text;          /* NULL: the file at `name` */
    patc_define *defs;   /* names copied */
    int ndefs;
    int min_blocks;
    bool evict_first;
    bool bins_in_result;
    char *kernel;        /* patc_compile_options.kernel */
} RtSource;

struct patc_program {
    patc_ctx *ctx;
    /* a compilation, alive only while the program is made and after rt_program_typed */
    Arena *arena;
    Diag diag;
    Compilation comp;
    RtSource src;
    char *cuda;
    char *ir;       /* patc_program_ir's text, made on first use */
    StrBuf buf;     /* the diagnostics while the front end runs, then the CUDA text while it
                       is generated (here, not on the stack: a longjmp may end either) */
    const char *name; /* the name it was made under (src.name) */
    /* NVRTC's name of its CUDA text (malloc'ed): `name` for the generated text, the
     * file's path or "<cuda text>" for hand-edited CUDA C */
    char *cuda_name;
    bool no_cubin;  /* patc_compile_options.no_cubin: never built, never loaded */
    /* module[0]: the cubin of the CUDA text, built at once; where a kernel's index width
     * is chosen at launch (IW_LAUNCH), built with PATC_INDEX32 defined (32-bit), and
     * module[1] is the 64-bit build, made on the first launch that needs it */
    void *module[2];
    bool launch_width; /* some kernel is IW_LAUNCH */
    int arch;       /* the sm_XY its cubin was built for */
    patc_kernel *kernels;
    int nkernels;
    patc_program *prev, *next;
};

struct patc_buffer {
    patc_ctx *ctx;
    RtDevPtr ptr;
    size_t bytes;
    bool wrapped;           /* memory the caller owns (patc_buffer_wrap): never freed here */
    patc_buffer *prev, *next;
};

/* rt_ctx.c */
/* Set the context's last error; returns s. */
patc_status rt_fail(patc_ctx *c, patc_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A driver call's result: PATC_OK, or PATC_ERR_DRIVER naming the CUresult. */
patc_status rt_drv_check(patc_ctx *c, int r, const char *what);
/* PATC_OK with the device's context bound, or why there is no device. */
patc_status rt_need_device(patc_ctx *c);
/* A malloc'ed copy (NULL when out of memory). */
char *rt_strdup(const char *s);

/* rt_program.c */
/* patc_program_from_string with compile options (the ready-made algorithms' programs). */
patc_status rt_program_from_text(patc_ctx *c, const char *name, const char *text, const patc_define *defs, int ndefs,
                                 const patc_compile_options *opts, patc_program **out);
/* k->def->nats[i] gets nats[i], checked against the variable's bounds. */
patc_status rt_bind_nats(patc_kernel *k, const long long *nats);
/* Type, element count and bytes of one of the kernel's buffers under the bound nats. */
patc_status rt_buffer_info(patc_kernel *k, const LdBuf *b, const char *what, patc_type *type,
                           long long *count, size_t *bytes);
/* The launches before the kernel's own (toGlobal; launch l is k->d->launches[l], the
 * last one, whose configuration the public API reports, is the kernel itself). */
int rt_npre(const patc_kernel *k);
/* The program compiled again, for its typed IR (the interpreter, patc_program_ir):
 * p->comp, whose kernels are the program's in order; made once and kept. */
patc_status rt_program_typed(patc_program *p);
/* grid, block and dynamic shared memory from the kernel's rules (nats already bound);
 * rt_derive_launch for launch l. */
patc_status rt_derive(patc_kernel *k, patc_launch_config *o);
patc_status rt_derive_launch(patc_kernel *k, int l, patc_launch_config *o);
/* PATC_ERR_LAUNCH_CONFIG, naming the kernel and the dimension, when a grid or block is
 * past CUDA's limits; `whose` ("" or "the launch override's ") goes before the name. */
patc_status rt_check_launch_limits(patc_ctx *c, const char *kernel, const int64_t grid[3], const int64_t block[3],
                                   const char *whose);
/* PATC_ERR_LAUNCH_CONFIG when `bytes` of dynamic shared memory are more than a block of
 * kernel k can have on the context's device (SMEM_OPTIN_MAX without one); `what` says
 * where the number came from. */
patc_status rt_check_shared(patc_kernel *k, long long bytes, const char *what);
patc_status rt_check_shared_launch(patc_kernel *k, int l, long long bytes, const char *what);
/* The index width (32 or 64) of a launch of k with this configuration (nats bound). */
int rt_index_bits(patc_kernel *k, const patc_launch_config *cfg);
int rt_index_bits_launch(patc_kernel *k, int l, const patc_launch_config *cfg);
/* Build `variant` of the program's CUDA (0: the one built with the program; 1: the
 * 64-bit build of kernels sized at launch) and load it when there is a device. */
patc_status rt_program_build(patc_ctx *c, patc_program *p, const char *name, int variant);
/* The CUDA text that rt_program_build compiles for `variant` (malloc'ed; NULL when out of
 * memory). */
char *rt_program_build_source(const patc_program *p, int variant);

/* rt_desc.c */
/* The value of rule r (n > 0) with slot i's value vals[i] where has[i] (nslots of
 * them): false where it has none, as nat_eval (an unbound slot, a divisor <= 0, an
 * overflow). */
bool rt_ld_eval(const LdRule *r, const int64_t *vals, const bool *has, int nslots, int64_t *out);
/* r in infix, with the kernel's nat names, for messages. */
void rt_ld_print(StrBuf *b, const LdRule *r, const LdKernel *d);

/* rt_algo.c */
/* Called with each built-in line of rt_algo_builtin_lines and k, the kernel of the
 * variant it chooses (in a program made without a cubin; lines that choose the same
 * variant get the same k). */
typedef patc_status (*RtAlgoLineFn)(patc_algo *a, const patc_tuning_line *l, patc_kernel *k, void *user);
/* Every line of the built-in table that a call of `a` can choose (the keys of its
 * family and width, aligned and unaligned), in the table's order; stops at the first
 * status fn returns that is not PATC_OK. */
/* The text of patterns/algorithms.tune built into libpatrt (NULL if it was not). */
const char *rt_algo_declarations(void);
patc_status rt_algo_builtin_lines(patc_algo *a, RtAlgoLineFn fn, void *user);

/* rt_patterns.c and the generated rt_patterns_text.c: patc's own patterns */
/* The installed patterns directory (<prefix>/<datadir>/patc/patterns) beside the file
 * this code was loaded from, found once; NULL when there is none. */
const char *rt_patterns_dir(void);
/* The text of each patterns/NAME.rise, built into the library. */
extern const LangBuiltin rt_builtin_patterns[];
extern const int rt_nbuiltin_patterns;
/* the other files of patterns/ (algorithms.tune), data for libpatrt, not imports */
extern const LangBuiltin rt_builtin_data[];
extern const int rt_nbuiltin_data;
/* Sets the front end's patterns directory and built-in files (what an import looks
 * for after the -I directories). */
void rt_patterns_options(LangOptions *lang);

/* rt_launch.c */
/* A launch, checked and ready: the configuration and the kernel's argument array. */
typedef struct RtLaunch {
    patc_launch_config cfg;
    bool empty;     /* a zero grid: nothing to run */
    void **args;
    RtDevPtr *ptrs;
    long long *natv;  /* the nat parameters in the launch's index type: long long, */
    int *natv32;      /* or int in a 32-bit build */
    void *fn;         /* the build of the kernel this launch runs */
    int npre;         /* a kernel of several launches (toGlobal): the ones before the last, */
    patc_launch_config *pcfg; /* their configurations */
    void **pfn;       /* and builds, fired in order before fn with the same args */
    size_t zero_bytes; /* LdKernel.zero_out: the output's bytes zeroed before the launches */
} RtLaunch;
void rt_launch_free(RtLaunch *L);
/* Check everything and build the argument array (out, in0.., scratch0.., nat0..). */
patc_status rt_prepare(patc_kernel *k, const long long *nats, patc_buffer *const *inputs, patc_buffer *output,
                       const patc_launch_config *cfg, RtLaunch *L);
/* Enqueue a prepared launch on the context's stream. */
patc_status rt_fire(patc_kernel *k, RtLaunch *L);
/* A timer: one event pair, reused for every rep (each rep waits on its stop event). */
typedef struct RtTimer {
    void *start, *stop;
    float *ms;
} RtTimer;
patc_status rt_timer_open(patc_ctx *c, RtTimer *t, int reps);
void rt_timer_close(patc_ctx *c, RtTimer *t);
/* The median of v[0..n) (sorts v). */
float rt_median(float *v, int n);

/* rt_reduce.c */
/* For a kernel of the tuned-reduction shape: the index of the nat that is its one input's
 * length and of the nat that is its grid (grid = (g, 1, 1)); *grid_nat is -1 for a
 * fixed grid (then n must be the only nat). Returns false for any other shape. */
bool rt_kernel_roles(const patc_kernel *k, int *len_nat, int *grid_nat);
/* PATC_OK when k is a device-level reduction pass (the compiler's role, role.c), else
 * PATC_ERR_INVALID with a message that starts with `what`. */
patc_status rt_need_pass(patc_kernel *k, const char *what);
/* The output count *m of pass k on n elements (nats[length nat] is set to n), which must
 * shrink: 1 <= *m < n, else PATC_ERR_SIZE "... not a reduction pass". */
patc_status rt_pass_size(patc_kernel *k, long long *nats, long long n, long long *m);
/* patc_time_reduce_to_one, also giving each run's time (each_ms: reps entries, or NULL). */
int rt_time_reduce(patc_kernel *k, const long long *nats, patc_buffer *input, long long n, int warmup,
                   int reps, float *median_ms, float *each_ms);
/* A planned reduction: the passes of patc_reduce_to_one for one (kernel, nats, input,
 * n), checked and bound once, the last pass writing to `output` (one element). Firing
 * only enqueues the launches on the context's stream. */
typedef struct RtPlan RtPlan;
int rt_plan_open(patc_kernel *k, const long long *nats, patc_buffer *input, long long n,
                 patc_buffer *output, RtPlan **out);
/* A plan of one launch of k (input -> output), checked and prepared once: a scan
 * (patc_scan_enqueue, patc_tune_scan). */
int rt_plan_single(patc_kernel *k, const long long *nats, patc_buffer *input, patc_buffer *output, RtPlan **out);
int rt_plan_fire(RtPlan *p);
void rt_plan_close(RtPlan *p);
/* Time the plans interleaved (each round runs each plan once, each run timed alone with
 * CUDA events) after `warmup` rounds; median_ms[i] is plan i's median of reps runs, and
 * all_ms (may be NULL) gets every run's time, plan by plan (count * reps entries). */
/* Interleaved timing of `count` calls (fire(ud, j) enqueues call j on the context's
 * stream): warm-up rounds, then reps rounds each timing every call once with CUDA
 * events; median_ms[j] the median of call j (all_ms: every time, call by call). */
int rt_time_calls(struct patc_ctx *c, int (*fire)(void *ud, int j), void *ud, int count, int warmup, int reps,
                  float *median_ms, float *all_ms);
int rt_time_plans(patc_ctx *c, RtPlan *const *plans, int count, int warmup, int reps, float *median_ms,
                  float *all_ms);
/* The context's device's SM count (0 without a device). */
int rt_ctx_sm_count(patc_ctx *c);
/* The device's memory in bytes (0 without a device). */
size_t rt_ctx_total_mem(patc_ctx *c);

/* rt_tune.c: tuning texts (docs/tuning.md's format). The lines of `text` (`name` in
 * messages) or of the file `file` (NULL: none), malloc'ed into *out; a malformed line
 * fails the whole text. */
patc_status rt_tuning_parse(patc_ctx *c, const char *name, const char *text, patc_tuning_line **out, int *nout);
patc_status rt_tuning_load(patc_ctx *c, const char *file, patc_tuning_line **out, int *nout);
/* The file a tuner appends its lines to, opened for appending (a regular file, made if
 * absent, a character device or a pipe that a process reads); else NULL with *st and
 * the context's error set. Never waits for a reader. */
FILE *rt_tuning_append(patc_ctx *c, const char *file, patc_status *st);
/* A tuner's best line for sizes[i] covers from past best[i-1]'s range to the middle
 * between sizes[i] and sizes[i+1] (the last: up to `last`); sets its n_min and n_max. */
void rt_tuning_cover(patc_tuning_line *best, const long long *sizes, int i, int count, long long last);
/* The first line naming `kernel` whose range holds n (NULL: none). */
const patc_tuning_line *rt_tuning_find(const patc_tuning_line *set, int nset, const char *kernel, long long n);

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
int rt_driver_total_mem(RtDriver *d, size_t *bytes);
/* the same, ordered on `stream` (a CUstream; NULL the default stream) */
int rt_driver_memset0_async(RtDriver *d, RtDevPtr p, size_t bytes, void *stream);
int rt_driver_sm_count(RtDriver *d, int *n);
/* CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: the most shared memory (static
 * and dynamic) one block can have once the function opts in. */
int rt_driver_smem_optin(RtDriver *d, int *n);
int rt_driver_htod(RtDriver *d, RtDevPtr dst, const void *src, size_t bytes);
int rt_driver_dtoh(RtDriver *d, void *dst, RtDevPtr src, size_t bytes);
int rt_driver_module_load(RtDriver *d, const void *image, void **module);
/* A cuModuleLoadData result that refuses the image itself (rt_program_build then
 * compiles the text instead of an embedded cubin). */
bool rt_driver_image_refused(int err);
int rt_driver_module_unload(RtDriver *d, void *module);
int rt_driver_get_function(RtDriver *d, void *module, const char *name, void **fn);
/* Launch on the default stream; raises the function's dynamic shared memory limit
 * first when `shared` is near or above the 48 KiB default. */
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
