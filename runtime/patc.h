/* patc.h: the public API of libpatrt, the patc runtime library.
 *
 * libpatrt compiles .rise programs in-process (front end -> CUDA C -> NVRTC cubin,
 * with an on-disk cache), loads them through the CUDA driver API, and launches kernels
 * with their launch configuration derived from the kernel's own size rules. Neither
 * NVRTC nor libcuda is linked: both are dlopen'ed when first needed (NVRTC on the first
 * compile to a cubin: $PATC_NVRTC_PATH when set, else the toolkit's library directory
 * found at build time, the directories of LD_LIBRARY_PATH, /usr/local/cuda/lib64 and
 * /usr/local/cuda/lib, else the loader's search for libnvrtc.so.MAJOR and libnvrtc.so;
 * libcuda.so.1 when a context is created).
 *
 * Conventions:
 *   - every call returns a patc_status; nothing exits or aborts the caller's process;
 *   - after an error, patc_last_error(ctx) holds a human-readable message (the patc
 *     diagnostics of a bad .rise program, the NVRTC log, or the driver's error name);
 *   - handles are opaque; everything a context allocates is released by the matching
 *     free call, and whatever is still alive when the context is destroyed is released
 *     then (programs, kernels, buffers);
 *   - a context is used by one thread at a time.
 *
 * A context without a GPU driver is valid: programs compile (NVRTC works without a
 * device) for a default architecture (sm_90, or the one set by patc_set_arch), and
 * every call that needs the device returns PATC_ERR_NO_DRIVER or PATC_ERR_NO_DEVICE.
 */
#ifndef PATC_H
#define PATC_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PATC_API_VERSION 1

typedef enum patc_status {
    PATC_OK = 0,
    PATC_ERR_INVALID,       /* a bad argument (NULL handle, index out of range, ...) */
    PATC_ERR_NO_MEMORY,     /* host allocation failed */
    PATC_ERR_IO,            /* a file could not be read */
    PATC_ERR_COMPILE,       /* the .rise program was rejected; last_error has the diagnostics */
    PATC_ERR_NVRTC,         /* NVRTC rejected the CUDA C (last_error has its log), or NVRTC
                               could not be loaded (last_error names the library, what was
                               tried and how to fix it) */
    PATC_ERR_NO_DRIVER,     /* libcuda.so.1 could not be loaded */
    PATC_ERR_NO_DEVICE,     /* the driver loaded but the device does not exist */
    PATC_ERR_DRIVER,        /* a CUDA driver call failed; last_error names the error */
    PATC_ERR_NOT_FOUND,     /* no kernel of that name */
    PATC_ERR_SIZE,          /* a buffer is smaller than the kernel needs, or a nat is out of range */
    PATC_ERR_LAUNCH_CONFIG, /* a launch override the kernel cannot run with */
    PATC_ERR_INTERP,        /* the CPU interpreter stopped at a run-time error of the program */
} patc_status;

/* Context flags. */
#define PATC_NO_CACHE 0x1u     /* never read or write the on-disk cubin cache */
#define PATC_COMPILE_ONLY 0x2u /* do not load the driver at all (compile-only tools) */
#define PATC_INDEX64 0x4u      /* run kernels sized at launch with their 64-bit build at every size
                                  (a test of that build; also set by $PATC_FORCE_INDEX64=1) */

/* Element types of kernel parameters (the innermost scalar of an array). */
typedef enum patc_type {
    PATC_F32, PATC_F64, PATC_I32, PATC_U32, PATC_I64, PATC_U64, PATC_BOOL
} patc_type;

typedef struct patc_ctx patc_ctx;
typedef struct patc_program patc_program;
typedef struct patc_kernel patc_kernel;
typedef struct patc_buffer patc_buffer;

/* -D name=value: specialises a nat parameter at compile time. A name may be given once;
 * the value is at least 1 (nat parameters are >= 1) and at most PATC_DEFINE_MAX. */
#define PATC_DEFINE_MAX 4611686018427387904LL /* 2^62 */
typedef struct patc_define {
    const char *name;
    long long value;
} patc_define;

/* A launch override. A zero grid[0] (block[0]) means "derive the grid (block) from the
 * kernel's rule" (zeros in the other two dimensions mean 1). A negative shared_bytes is
 * refused (PATC_ERR_LAUNCH_CONFIG). A zero shared_bytes means
 * "derive the dynamic shared memory"; more than the rule gives is allowed, less is
 * refused. A kernel whose code assumes its block size (block_fixed) refuses another.
 * A grid or block past CUDA's limits (grid.x 2^31 - 1, grid.y and grid.z 65535,
 * block.x and block.y 1024, block.z 64, 1024 threads a block) is refused
 * (PATC_ERR_LAUNCH_CONFIG, naming the kernel and the dimension), as is a launch whose
 * rule gives one (a mapGlobal along x over more than 2^39 elements): the driver never
 * sees it. */
typedef struct patc_launch_config {
    unsigned grid[3];
    unsigned block[3];
    long long shared_bytes;
} patc_launch_config;

/* What the last compile of a context did (for --time). */
typedef struct patc_compile_stats {
    int cache_hit;        /* 1 when the cubin came from the disk cache */
    int cache_corrupt;    /* 1 when a cache entry was found damaged and rebuilt */
    double frontend_ms;   /* .rise -> CUDA C */
    double compile_ms;    /* CUDA C -> cubin (NVRTC, cache or embedded lookup), ms */
    double load_ms;       /* cuModuleLoadData, ms (0 without a device) */
    int arch;             /* e.g. 90 for sm_90 */
    int embedded;         /* 1 when the cubin was built into libpatrt (a ready-made call's
                             built-in variant for sm_90, docs/api.md): NVRTC was not
                             loaded and the disk cache not touched (cache_hit is 0) */
} patc_compile_stats;

/* ---------------------------------------------------------------- context */

const char *patc_status_string(patc_status s);
const char *patc_version(void);

/* Create a context for CUDA device `device`. Succeeds without a driver or device (for
 * compile-only use); the reason is kept and returned by every call that needs one. */
patc_status patc_create(patc_ctx **ctx, int device, unsigned flags);
void patc_destroy(patc_ctx *ctx);
/* The message of the last failed call on ctx ("" when none). Valid until the next call. */
const char *patc_last_error(const patc_ctx *ctx);
/* PATC_OK when kernels can be launched; else the reason (and last_error says why). */
patc_status patc_device_status(patc_ctx *ctx);
/* The target architecture as 10*major+minor (e.g. 90). */
int patc_get_arch(const patc_ctx *ctx);
/* Compile for another architecture (compile-only use, or a cross-check). */
patc_status patc_set_arch(patc_ctx *ctx, int arch);
/* Add a directory searched for `import`s after the importing file's directory and the
 * directories added before it, and before patc's own patterns (scan.rise, reduce.rise,
 * compact.rise: the installed share/patc/patterns, then the copies built into the
 * library), so that a file of a pattern's name in `dir` is used instead of patc's. */
patc_status patc_add_include_dir(patc_ctx *ctx, const char *dir);
/* The cache directory in use (NULL when the cache is off). */
const char *patc_cache_dir(const patc_ctx *ctx);
void patc_get_compile_stats(const patc_ctx *ctx, patc_compile_stats *out);

/* Warnings: for now two kinds, a cache directory that cannot be used (a file on its path,
 * no write permission), given once per directory and process, after which the cache is
 * off for that context; and a cache entry that cannot be replaced (that kernel alone is
 * then compiled each time), once per entry. By default a warning is printed to stderr as one line,
 * "patc: warning: MESSAGE". A handler replaces that (NULL restores it); it is
 * process-wide and may be called from any thread that uses a context. */
typedef void (*patc_warning_fn)(const char *message, void *user);
void patc_set_warning_handler(patc_warning_fn fn, void *user);

/* ---------------------------------------------------------------- programs */

/* Options of patc_program_compile; a zeroed struct (or NULL) means the defaults. */
typedef struct patc_compile_options {
    const char *kernel;   /* compile only this kernel (NULL: every kernel of the program) */
    const char *dump;     /* IR dumps after passes, letters of patc_dump_letters() (NULL: none) */
    FILE *dump_out;       /* where the dumps go (NULL: stderr) */
    const char *cuda;     /* hand-edited CUDA C text in place of the generated one, as
                             patc_program_from_cuda's (NULL: generated) */
    int no_cubin;         /* stop after the CUDA C: NVRTC is never called and nothing is
                             loaded. The kernels can be inspected, printed and run on the
                             CPU interpreter, not launched. */
    int min_blocks;       /* 1..32: a kernel with a fixed block size is declared
                             __launch_bounds__(threads, min_blocks), so that nvcc keeps its
                             registers to what min_blocks resident blocks per SM allow
                             (65536 / (threads * min_blocks) on sm_90); 0: no minimum.
                             A multisplit with too few registers then for its elements
                             and their buckets computes each bucket again (language.md) */
    int evict_first;      /* nonzero: a look-back kernel (scan, filter, partition) loads its
                             inputs and stores its outputs evict-first (__ldcs, __stcs), a
                             hint that is faster at some sizes and slower at others (a
                             tuning file's `evict_first`, docs/tuning.md); other kernels
                             are unchanged */
    const char *cuda_file; /* the hand-edited CUDA C read from this file (patc run --cuda);
                              NVRTC's messages name the file. At most one of cuda and
                              cuda_file (NULL: none) */
    int check_only;       /* nonzero: every pass of the compiler runs (so every error of the
                             program is found) and no code is made: no CUDA C
                             (patc_program_cuda gives NULL) and no cubin, as patc --check.
                             The kernels can be inspected and run on the CPU interpreter.
                             Ignored with cuda or cuda_file. */
    int bins_in_result;   /* nonzero: a kernel whose result is a global accumulate, or
                             lastBlock over one, adds into its output buffer, which each
                             launch zeroes first (a memset on the stream), instead of into
                             scratch bins of its own that its last block copies and clears:
                             its bins' bytes less scratch, one operation more a launch
                             (docs/language.md, accumulate; last here, so that bindings
                             written before it keep their layout). Where the result is not the
                             bins as they are, nothing changes */
} patc_compile_options;

/* Compile the .rise file `path`: the front end reads it (diagnostics are the last error,
 * as the patc command prints them), then CUDA C, then (unless no_cubin) a cubin and
 * module as patc_program_from_file does. defs are checked as patc_define says. */
patc_status patc_program_compile(patc_ctx *ctx, const char *path, const patc_define *defs, int ndefs,
                                 const patc_compile_options *opts, patc_program **out);
/* The dump letters and their passes, "aetlosbv": a=ast e=expand t=typecheck l=lower
 * o=loops s=smem b=barrier v=version. */
const char *patc_dump_letters(void);

/* patc_program_compile on program text in memory: `name` is used in diagnostics and to
 * resolve relative imports, as patc_program_from_string's (NULL: "<string>"). The
 * options' cuda_file is refused (give the text as cuda). The Python binding compiles a
 * string with no_cubin through it, for the CPU interpreter without NVRTC. */
patc_status patc_program_compile_string(patc_ctx *ctx, const char *name, const char *text, const patc_define *defs,
                                        int ndefs, const patc_compile_options *opts, patc_program **out);

patc_status patc_program_from_file(patc_ctx *ctx, const char *path, const patc_define *defs,
                                   int ndefs, patc_program **out);
/* `name` is used in diagnostics and to resolve relative imports. */
patc_status patc_program_from_string(patc_ctx *ctx, const char *name, const char *text,
                                     const patc_define *defs, int ndefs, patc_program **out);
/* Use hand-edited CUDA C in place of the generated one; the kernel metadata (parameters,
 * launch rules) still comes from the .rise file rise_path. `cuda` is the CUDA text itself,
 * never a path (NVRTC's messages name it "<cuda text>"); for CUDA C in a file, give
 * patc_program_compile the path as patc_compile_options.cuda_file. */
patc_status patc_program_from_cuda(patc_ctx *ctx, const char *rise_path, const char *cuda,
                                   const patc_define *defs, int ndefs, patc_program **out);
void patc_program_free(patc_program *prog);
/* The CUDA C the program was built from (owned by the program; NULL for a program
 * compiled with check_only). */
const char *patc_program_cuda(const patc_program *prog);
/* The typed functional IR and the kernel IR of each kernel, as `patc --emit-ir` prints
 * them (owned by the program; NULL when out of memory, or when compiling the program
 * again for it fails: a program keeps only what launches need, so the first call
 * compiles it again, and the context's last error says why it failed). */
const char *patc_program_ir(patc_program *prog);
int patc_program_num_kernels(const patc_program *prog);
const char *patc_program_kernel_name(const patc_program *prog, int i);

/* ---------------------------------------------------------------- kernels */

/* The kernel handle belongs to the program (freed with it). */
patc_status patc_get_kernel(patc_program *prog, const char *name, patc_kernel **k);
const char *patc_kernel_name(const patc_kernel *k);
int patc_kernel_num_inputs(const patc_kernel *k);
int patc_kernel_num_nats(const patc_kernel *k);
/* Name of nat parameter i (those left after -D), in the order nat_values are given.
 * Every call that takes nat values, or an element count n, checks them as a -D value
 * is checked: 1 to PATC_DEFINE_MAX (2^62), and every size the kernel's types give for
 * them at most 2^63 bytes; anything else is PATC_ERR_SIZE (PATC_ERR_INVALID for an n
 * below 1 where the call says so) before memory or the device is touched. */
const char *patc_kernel_nat_name(const patc_kernel *k, int i);
/* Element type, element count and bytes of data parameter i for the given nat values. */
patc_status patc_kernel_input_info(patc_kernel *k, int i, const long long *nat_values,
                                   patc_type *type, long long *count, size_t *bytes);
/* A scalar data parameter (`fun(f32)(a => ...)`) is passed by value: 1 for such a
 * parameter i (its input_info count is 1), 0 for an array (a buffer), -1 when there is
 * no parameter i. */
int patc_kernel_input_by_value(const patc_kernel *k, int i);
/* A kernel returning a pair (or nested pairs) of arrays has one output per array, in
 * the order of the pair's leaves, left to right (out0, out1, ... in the CUDA signature).
 * output_info is output_info_at(k, 0, ...) for a kernel of one output, and an error
 * naming output_info_at for a kernel of several. */
int patc_kernel_num_outputs(const patc_kernel *k);
patc_status patc_kernel_output_info(patc_kernel *k, const long long *nat_values,
                                    patc_type *type, long long *count, size_t *bytes);
patc_status patc_kernel_output_info_at(patc_kernel *k, int j, const long long *nat_values,
                                       patc_type *type, long long *count, size_t *bytes);
/* A result of a data-dependent length (compactTo: filter) is two outputs, its count (one
 * element of an integer type) and its elements, sized for the most there can be. For
 * output j of that kind, the index of the output holding how many of its first
 * elements are the result; -1 for any other output (partitionTo's elements are all
 * written: its count, also an output, says where the others start). */
int patc_kernel_output_count_of(const patc_kernel *k, int j);
/* What a kernel is, decided by the compiler (never by the shape of the values given).
 * A device-level reduction pass has exactly one data parameter whose element count is a
 * single nat parameter n (not fixed with -D) and an output of the same element type; only
 * such a kernel may be relaunched on its own output (patc_reduce_to_one,
 * patc_interp_reduce_to_one), each pass having to shrink n. */
typedef enum patc_kernel_role {
    PATC_KERNEL_PLAIN = 0,       /* its output is its result */
    PATC_KERNEL_REDUCTION_PASS,
} patc_kernel_role;
patc_kernel_role patc_kernel_get_role(const patc_kernel *k);
/* For a reduction pass, the index among the nat parameters of n, its input's length;
 * else -1. */
int patc_kernel_length_nat(const patc_kernel *k);
/* The launch configuration the kernel's rules give for these nat values;
 * PATC_ERR_LAUNCH_CONFIG when they need more shared memory than a block can have (the
 * device's opt-in maximum, or sm_90's 227 KiB without a device). patc_launch checks the
 * same, and the override's shared_bytes too. */
patc_status patc_kernel_launch_dims(patc_kernel *k, const long long *nat_values,
                                    patc_launch_config *out);
/* The width of the kernel's index arithmetic for a launch with these nat values and the
 * kernel's own launch rule: 32 or 64 (0 after an error). A kernel whose sizes are fixed
 * has one width; one sized at launch runs a 32-bit build while every index it computes
 * stays below 2^31 and a 64-bit build (compiled on first use) otherwise. */
int patc_kernel_index_bits(patc_kernel *k, const long long *nat_values);
const char *patc_type_name(patc_type t);
size_t patc_type_size(patc_type t);

/* ---------------------------------------------------------------- buffers */

patc_status patc_buffer_alloc(patc_ctx *ctx, size_t bytes, patc_buffer **out);
patc_status patc_buffer_upload(patc_buffer *b, const void *host, size_t bytes);
/* Waits for the work enqueued before it (on the stream of patc_set_stream too). */
patc_status patc_buffer_download(patc_buffer *b, void *host, size_t bytes);
size_t patc_buffer_size(const patc_buffer *b);
/* The buffer's device address (a CUdeviceptr), for other CUDA code or for wrapping a
 * part of it (patc_buffer_wrap); 0 for NULL. */
unsigned long long patc_buffer_device_ptr(const patc_buffer *b);
/* A buffer over device memory the caller allocated (cudaMalloc, cuMemAlloc) in the
 * device's primary context; patc_buffer_free forgets it without freeing the memory. */
patc_status patc_buffer_wrap(patc_ctx *ctx, unsigned long long device_ptr, size_t bytes, patc_buffer **out);
/* Set every byte of the buffer to zero. */
patc_status patc_buffer_zero(patc_buffer *b);
void patc_buffer_free(patc_buffer *b);

/* ---------------------------------------------------------------- launches */

/* Launch and time on this CUstream (e.g. a cudaStream_t); NULL, the default, is the
 * legacy default stream. */
void patc_set_stream(patc_ctx *ctx, void *stream);

/* Launch `k` with its nat parameters set to nat_values[0..num_nats) and wait for it.
 * The C signature is NAME(out, in0, .., inN-1, nat0, .., natM-1) (a kernel of one output
 * and no scalar parameter; else patc_launch_args). Buffer sizes are
 * checked against the sizes the kernel's types give. cfg may be NULL. */
patc_status patc_launch(patc_kernel *k, const long long *nat_values, patc_buffer *const *inputs,
                        patc_buffer *output, const patc_launch_config *cfg);
/* One data parameter of a launch: `buffer` for an array parameter; for a scalar one
 * (patc_kernel_input_by_value), `value`: a host pointer to one element of its type
 * (patc_kernel_input_info), copied when the launch is made. The other field is ignored. */
typedef struct patc_arg {
    patc_buffer *buffer;
    const void *value;
} patc_arg;
/* The general launch: inputs[0..num_inputs) one per data parameter, outputs[0..
 * num_outputs) one buffer per output. The C signature is NAME(out0, .., in0, ..,
 * scalars by value in their place, nat0, ..). patc_launch and patc_time_launch serve
 * kernels of one output and no scalar parameter; for another kernel they fail with
 * PATC_ERR_INVALID, and last_error says to call these. */
patc_status patc_launch_args(patc_kernel *k, const long long *nat_values, const patc_arg *inputs,
                             patc_buffer *const *outputs, const patc_launch_config *cfg);
/* patc_launch_args without waiting: the launches are enqueued on the stream of
 * patc_set_stream (the arguments are copied when they are enqueued). Launches of one
 * kernel share its scratch buffers (the look-back's tile state): do not run two of them
 * at once on different streams. Both calls keep the last launch of a kernel prepared:
 * the same call again (the same nat values, scalar values, buffers at the same
 * addresses and sizes, and override) skips the checks and the launch rules and only
 * enqueues, so a loop of identical launches pays for them once. */
patc_status patc_launch_args_enqueue(patc_kernel *k, const long long *nat_values, const patc_arg *inputs,
                                     patc_buffer *const *outputs, const patc_launch_config *cfg);
patc_status patc_time_launch_args(patc_kernel *k, const long long *nat_values, const patc_arg *inputs,
                                  patc_buffer *const *outputs, const patc_launch_config *cfg, int warmup,
                                  int reps, float *median_ms);
/* Launch `warmup` times, then time `reps` launches with CUDA events; *median_ms is
 * the median of the reps. */
patc_status patc_time_launch(patc_kernel *k, const long long *nat_values, patc_buffer *const *inputs,
                             patc_buffer *output, const patc_launch_config *cfg, int warmup,
                             int reps, float *median_ms);
/* Reduce `n` elements of `input` to one value by launching the device-level reduction
 * pass `k` until one element is left. `k` has one data parameter whose element count
 * is a single nat variable (set to the current length each pass); the values of the
 * other nats come from nat_values (the entry of the length nat is ignored). The value
 * is written to host_result (one element of the output type). `input` is not changed.
 * launches (may be NULL) receives the number of passes. */
patc_status patc_reduce_to_one(patc_kernel *k, const long long *nat_values, patc_buffer *input,
                               long long n, void *host_result, int *launches);
/* The same, timed as a whole (all passes) with CUDA events: median of reps. */
patc_status patc_time_reduce_to_one(patc_kernel *k, const long long *nat_values, patc_buffer *input,
                                    long long n, int warmup, int reps, float *median_ms);

/* ---------------------------------------------------------------- CPU interpreter */

/* Run kernel `k` on the host with the reference interpreter (the semantics the generated
 * code is checked against). host_inputs[i] holds data parameter i and host_output
 * receives the output, each packed as on the device (patc_kernel_input_info and
 * patc_kernel_output_info give their sizes). Needs neither a driver nor NVRTC: a
 * program compiled with no_cubin, or in a PATC_COMPILE_ONLY context, runs here. The
 * first run of a program's kernel compiles the program again for its typed IR (a
 * program keeps only what launches need); a file changed since fails it. A
 * run-time error of the program (a division by zero, a shuffle source outside the warp)
 * is PATC_ERR_INTERP with its message. */
patc_status patc_interp_run(patc_kernel *k, const long long *nat_values, const void *const *host_inputs,
                            void *host_output);
/* The same for a kernel of several outputs: output j goes to host_outputs[j]. (A scalar
 * parameter is one element at host_inputs[i], as in patc_interp_run.) */
patc_status patc_interp_run_outputs(patc_kernel *k, const long long *nat_values, const void *const *host_inputs,
                                    void *const *host_outputs);
/* patc_reduce_to_one on the host: the pass is interpreted on n elements of host_input,
 * then on its partials, until one element is left (written to host_result). */
patc_status patc_interp_reduce_to_one(patc_kernel *k, const long long *nat_values, const void *host_input,
                                      long long n, void *host_result, int *passes);

/* ---------------------------------------------------------------- tuned reductions */

/* The number of SMs of the context's device (0 without one). */
int patc_device_sm_count(patc_ctx *ctx);

/* A single-launch reduction (lastBlock) whose settings come from a tuning file. The
 * kernel `kernel` of the .rise file `path` must take one array of length n, have a
 * grid of (g, 1, 1) for a second nat g, and nats elemsBlock and elemsWarp that the
 * settings fix with -D (patterns/reduce.rise: reduceGrid). For an input of n elements
 * the reducer uses the file's line for (kernel, n), compiles that variant once, and
 * launches it with g = min(blocks_per_sm * SMs, ceil(n / elemsBlock)). A line may name
 * another kernel of the same file to run for its sizes (kernel=OTHER), which may have a
 * fixed grid (reduceOneBlock). tuning_file NULL means $PATC_TUNING; with no file, or no
 * line for n, it uses elemsBlock=4096 elemsWarp=512 and 4 blocks per SM (the `default reducer`
 * line of patterns/algorithms.tune, which also names the nats the tuner sets). File format:
 * docs/tuning.md. */
typedef struct patc_reducer patc_reducer;
patc_status patc_reducer_create(patc_ctx *ctx, const char *path, const char *kernel, const char *tuning_file,
                                patc_reducer **out);
void patc_reducer_free(patc_reducer *r);
/* Reduce input[0..n) to one value, written to host_result (one element). */
patc_status patc_reducer_run(patc_reducer *r, patc_buffer *input, long long n, void *host_result);
/* Enqueue the reduction of input[0..n) into output[0] on the context's stream and return
 * without waiting (n >= 2). The launch is planned on the first call for (n, input,
 * output) and reused while they stay the same. */
patc_status patc_reducer_enqueue(patc_reducer *r, patc_buffer *input, long long n, patc_buffer *output);
/* Time the reduction of n elements: warm-up runs, then the median of reps runs, each
 * timed alone with CUDA events; each_ms (may be NULL) receives every run's time. */
patc_status patc_reducer_time(patc_reducer *r, patc_buffer *input, long long n, int warmup, int reps,
                              float *median_ms, float *each_ms);
/* The settings used for n, e.g. "elemsBlock=4096 elemsWarp=512 blocks_per_sm=4 grid=528". */
patc_status patc_reducer_describe(patc_reducer *r, long long n, char *buf, size_t len);
/* The tuner (patc tune): for each n in sizes[0..count) (increasing, >= 2), time every
 * setting of elemsWarp in {128, 256, 512, 1024}, 4, 8 or 16 warps per block and 1..16
 * blocks per SM, and the same shapes of the alternative kernels alts[0..nalts) (at most
 * 3; a fixed grid is tried while it reads n in at most 16 trips). The candidates are
 * timed interleaved, each run alone with CUDA events, median of reps runs. The best per
 * size is appended to out_file, each covering the sizes up to the middle between it and
 * the next. Progress goes to log (may be NULL). */
patc_status patc_tune(patc_ctx *ctx, const char *path, const char *kernel, const char *const *alts, int nalts,
                      const long long *sizes, int count, int reps, const char *out_file, FILE *log);

/* ---------------------------------------------------------------- tuned scans */

/* A single-pass scan (patterns/scan.rise: scanDevice, scanDeviceExcl) whose settings
 * come from a tuning file. The kernel `kernel` of the .rise file `path` must take one
 * array of length n and give one array, with no nat besides n once the settings' -D
 * values (nt, ipt) are applied; its grid comes from its own rule (one block per tile).
 * The file's line for (kernel, n) chooses the variant (the format of patc_reducer's;
 * BLOCKS_PER_SM above 1 compiles it with that min_blocks, see patc_compile_options),
 * compiled once; with no line, nt=128 ipt=25 (the `default scan` line of
 * patterns/algorithms.tune). tuning_file NULL means $PATC_TUNING. */
typedef struct patc_scan patc_scan;
patc_status patc_scan_create(patc_ctx *ctx, const char *path, const char *kernel, const char *tuning_file,
                             patc_scan **out);
void patc_scan_free(patc_scan *s);
/* Enqueue the scan of input[0..n) into output[0..n) on `stream` (a CUstream or
 * cudaStream_t; NULL the default stream; it becomes the context's stream) and return
 * without waiting. The launch is prepared on the first call for (n, input, output) and
 * reused while they stay the same. Scans of one patc_scan must not run concurrently
 * (they share the look-back state): use one stream, or one patc_scan per stream. */
patc_status patc_scan_enqueue(patc_scan *s, patc_buffer *input, patc_buffer *output, long long n, void *stream);
/* The settings used for n, e.g. "nt=128 ipt=25 grid=313" or "nt=512 ipt=25 min_blocks=4 grid=20972"
 * (with "evict_first " before the grid when the line has it). */
patc_status patc_scan_describe(patc_scan *s, long long n, char *buf, size_t len);
/* The scan tuner (patc tune --scan): for each n in sizes[0..count) (increasing), time
 * nt in {128, 256, 512} x ipt in {5, 9, 15, 25}, each without and with min_blocks
 * 2048 / nt, interleaved, each run alone with CUDA events, median of reps; then the best
 * against itself compiled with evict_first; append the faster per size to out_file as
 * "KERNEL N_MIN N_MAX B [evict_first] nt=.. ipt=.." (B: 1, or the min_blocks), each
 * covering the sizes up to the middle between it and the next. pipe, when not NULL, is
 * "FILE:KERNEL", a scanPipe kernel of the same scan (FILE relative to path's directory)
 * whose shape is -D w, ipt, s: four shapes of it are timed with the others, and a line it
 * wins reads "KERNEL N_MIN N_MAX 1 kernel=FILE:KERNEL w=.. ipt=.. s=..". Progress goes to
 * log (may be NULL). */
patc_status patc_tune_scan(patc_ctx *ctx, const char *path, const char *kernel, const char *pipe, const long long *sizes,
                           int count, int reps, const char *out_file, FILE *log);

/* ---------------------------------------------------------------- tuning files */

/* One line of a tuning file (docs/tuning.md), as patc_reducer and patc_scan read it:
 *     KERNEL N_MIN N_MAX BLOCKS_PER_SM [kernel=OTHER] [evict_first] NAME=VALUE...
 * for a program that launches kernels itself with a file's settings (bench/select_bench). */
enum { PATC_TUNING_MAX_DEFS = 8 };
typedef struct patc_tuning_line {
    char kernel[128];      /* KERNEL */
    char use[128];         /* OTHER of kernel=OTHER (the kernel to run instead), else "" */
    long long n_min, n_max;
    int blocks_per_sm;     /* 1..64 */
    int evict_first;       /* 1 when the line has the word evict_first */
    int ndefs;             /* the NAME=VALUE pairs, in the line's order: the -D values */
    char names[PATC_TUNING_MAX_DEFS][32];
    long long values[PATC_TUNING_MAX_DEFS];
} patc_tuning_line;
/* Read the tuning file `path` and give its line for `kernel` at n: the first line naming
 * `kernel` whose range holds n, the one patc_reducer and patc_scan would use. *found is 1
 * with the line in *out, or 0 when the file has none (*out untouched). The whole file is
 * checked at each call: a file that cannot be read fails with PATC_ERR_IO, a malformed
 * line anywhere in it with PATC_ERR_INVALID (patc_last_error says FILE:LINE), so that a
 * typo cannot leave a program on its defaults unnoticed. */
patc_status patc_tuning_lookup(patc_ctx *ctx, const char *path, const char *kernel, long long n,
                               patc_tuning_line *out, int *found);

/* ---------------------------------------------------------------- ready-made algorithms */

/* Device-wide algorithms, as CUB's DeviceReduce, DeviceScan, DeviceSelect and
 * DevicePartition, built from the patterns compiled into libpatrt (no .rise file) with
 * settings built into libpatrt (no tuning file): docs/api.md.
 *
 * An algorithm is made once (patc_algo_create: its program text is generated for the
 * element type and operator or predicate, and each kernel variant is compiled on the
 * first call that needs it) and called many times (patc_algo_enqueue). Every call is
 * asynchronous on the stream it is given, never synchronises the host, and writes its
 * result (and a filter's or partition's count) to device memory. */
typedef enum patc_algorithm {
    PATC_ALGO_REDUCE,           /* out[0] = in[0] op in[1] op ... op in[n-1] */
    PATC_ALGO_INCLUSIVE_SCAN,   /* out[i] = in[0] op ... op in[i] */
    PATC_ALGO_EXCLUSIVE_SCAN,   /* out[i] = init op in[0] op ... op in[i-1]; out[0] = init */
    PATC_ALGO_FILTER,           /* the m selected elements in order at out[0..m); count = m */
    PATC_ALGO_PARTITION,        /* the selected in order, then the others in reverse order
                                   (as CUB's DevicePartition::If); count = m */
    PATC_ALGO_PARTITION_STABLE, /* the selected in order, then the others in order */
} patc_algorithm;

/* The operator of a reduction or scan. init is its neutral element: 0 for SUM, the
 * type's largest value for MIN (+inf for floats), its lowest for MAX (-inf for floats). */
typedef enum patc_op {
    PATC_OP_SUM,
    PATC_OP_MIN,
    PATC_OP_MAX,
    PATC_OP_LAMBDA, /* spec.lambda, associative, with spec.init its neutral element */
} patc_op;

enum { PATC_ALGO_MAX_SCALARS = 4 };

typedef struct patc_algo_spec {
    patc_algorithm algorithm;
    patc_type type;          /* the element type: F32 F64 I32 U32 I64 U64 */
    patc_op op;              /* reductions and scans */
    /* PATC_OP_LAMBDA: the operator as a .rise lambda of two elements, e.g.
     * "fun(a => fun(b => max(a)(b) + c))"; a filter or partition: the predicate, a .rise
     * lambda of one element giving bool, e.g. "fun(x => x > t)" */
    const char *lambda;
    const char *init;        /* PATC_OP_LAMBDA: the neutral element as a .rise expression */
    /* the scalars the lambda names besides its parameters (t above), given by value at
     * each call in this order; a name the algorithm's kernels use (n, their shape nats)
     * is refused */
    int nscalars;
    const char *scalar_names[PATC_ALGO_MAX_SCALARS];
    patc_type scalar_types[PATC_ALGO_MAX_SCALARS];
    /* a tuning file whose lines override the built-in settings (docs/api.md); NULL:
     * $PATC_TUNING if set, else none */
    const char *tuning_file;
} patc_algo_spec;

typedef struct patc_algo patc_algo;

/* Make the algorithm of `spec` on ctx: the program is generated and type-checked at
 * once, so a lambda that does not type-check, an unsupported type or a bad spec fails
 * here (PATC_ERR_COMPILE with the diagnostics, or PATC_ERR_INVALID), never at a call. */
patc_status patc_algo_create(patc_ctx *ctx, const patc_algo_spec *spec, patc_algo **out);
void patc_algo_free(patc_algo *a);

/* Enqueue the algorithm on n elements of `in` (1 <= n, and n < 2^32 for filters and
 * partitions, whose count is a u32) on `stream` (a CUstream or cudaStream_t; NULL the
 * default stream; it becomes the context's stream) and return without waiting.
 *   out:   one element (reduce) or n elements (the others) of the type;
 *   count: filters and partitions: a buffer of at least 4 bytes receiving the u32 count
 *          m of selected elements (NULL for the others);
 *   scalars[i]: a host pointer to the value of spec.scalar_names[i] (copied at the call).
 * Buffers too small, or not aligned to the element size, are refused (PATC_ERR_SIZE,
 * PATC_ERR_INVALID) before anything is enqueued. Calls of one patc_algo must not run
 * concurrently on different streams (they share the kernels' look-back state): use one
 * patc_algo per stream. */
patc_status patc_algo_enqueue(patc_algo *a, patc_buffer *in, patc_buffer *out, patc_buffer *count, long long n,
                              const void *const *scalars, void *stream);
/* patc_algo_enqueue on raw device addresses (a CUdeviceptr, or a pointer from cudaMalloc
 * cast to unsigned long long) in the device's primary context, taken to hold what the
 * call needs (in: n elements; out: one or n; count: 4 bytes, or 0 where none belongs):
 * their sizes cannot be checked, their alignment and overlap are. No allocation. */
patc_status patc_algo_enqueue_ptr(patc_algo *a, unsigned long long in, unsigned long long out, unsigned long long count,
                                  long long n, const void *const *scalars, void *stream);
/* The same algorithm on the CPU interpreter, on host arrays (in: n elements; out: one
 * or n elements; count: one u32 for filters and partitions, else NULL). The variant
 * patc_algo_enqueue would launch for n is the one interpreted, so this is the reference
 * its results are checked against. Needs no driver and no NVRTC. */
patc_status patc_algo_run_cpu(patc_algo *a, const void *in, void *out, void *count, long long n,
                              const void *const *scalars);
/* The settings used for n: the kernel and its -D values and where the line came from,
 * e.g. "scan.tile nt=256 ipt=9 (built-in)". */
patc_status patc_algo_describe(patc_algo *a, long long n, char *buf, size_t len);
/* The generated .rise program of the algorithm (owned by it). */
const char *patc_algo_source(const patc_algo *a);

/* The tuner of the ready-made algorithms (patc tune --algo): for the algorithm of spec
 * (its 16-byte aligned form: the key of spec.type without _unaligned), at each n of
 * sizes[0..count) (increasing), time every setting of the `space` lines of
 * patterns/algorithms.tune for its key (every kernel with a space, every combination of
 * its values; a setting that does not compile or launch is skipped), interleaved, each
 * call alone with CUDA events, median of reps; append the fastest per size to out_file
 * as a table line, each covering the sizes up to the middle between it and the next (the
 * first from 1, the last to 2^63-1). The input is uniform in [0, 1) for floats and in
 * 0..99 for integers; scalars as for patc_algo_enqueue. Progress to log (may be NULL). */
patc_status patc_algo_tune(patc_ctx *ctx, const patc_algo_spec *spec, const void *const *scalars, const long long *sizes,
                           int count, int reps, const char *out_file, FILE *log);

/* ---------------------------------------------------------------- sorting keys */

/* The ready-made radix sort of keys, or of keys each carrying a value, ascending or
 * descending (issue 35; patterns/radixsort.rise, docs/api.md "Sorting keys" and
 * "Sorting pairs, descending order, bit ranges"): u32, i32, f32, u64, i64 or f64 keys,
 * floats in CUB DeviceRadixSort's order (NaNs with the sign bit set first, -inf, ...,
 * -0.0 and +0.0 as equals in their input order, ..., +inf, then the other NaNs); values
 * of any of those types, moved as their 4 or 8 bytes. A histogram of all the 8-bit
 * digits and their scan in one launch, a multisplit pass per digit (five launches for
 * 4-byte keys, nine for 8-byte ones); up to 8192 keys (5120 where a key or value has 8
 * bytes and the other 4 or 8) one launch (one block sorts them all: the sortTiles
 * primitive, in registers up to 5120 keys). A sorter is made once per key
 * type and called many times; its program is compiled on the first call that needs
 * it. Calls of one sorter must not run concurrently on different streams (they share
 * its temporary memory and the kernels' look-back state): one sorter per stream.
 * The sort is stable: equal keys (-0.0 and +0.0 among them) keep their input order,
 * ascending and descending alike (as CUB's). Descending order is the ascending order
 * reversed but for the order among equal keys (NaNs with the sign bit clear first,
 * then +inf, ..., -inf, then the other NaNs).
 * n may be more than 2^28 (up to 2^40): such a sort runs in portions of at most 2^28
 * keys (patc_sort_spec.portion), each pass a launch a portion, with u64 offsets. */
typedef struct patc_sorter patc_sorter;
/* A sorter of keys alone, ascending. PATC_ERR_INVALID for a PATC_BOOL key. */
patc_status patc_sorter_create(patc_ctx *ctx, patc_type type, patc_sorter **out);
/* What a sorter sorts. */
typedef struct patc_sort_spec {
    patc_type key_type;   /* PATC_U32, PATC_I32, PATC_F32, PATC_U64, PATC_I64 or PATC_F64 */
    int values;           /* nonzero: each key carries a value (patc_sort_pairs*); 0: keys alone */
    patc_type value_type; /* with values: any of the key types, moved as the 4 or 8 bytes they are */
    int descending;       /* nonzero: the largest key first */
    /* Sort by bits begin_bit..end_bit-1 of the keys' order bits only (CUB's bit range;
     * both 0: all bits): keys equal in those bits keep their input order. The order
     * bits are those the type's order gives (f32: the sign-flipped bits, see above;
     * descending: complemented), so a range of a signed or float key is of those. */
    int begin_bit, end_bit;
    /* The width of a pass's digit: 0 for 8 (CUB's), or 5 to 11; a sort takes
     * ceil((end_bit - begin_bit) / digit_bits) passes of 2^digit_bits buckets. */
    int digit_bits;
    /* The most keys one launch of a pass takes (0: 2^28): a sort of more keys runs each
     * pass as one launch per portion, as few portions as this allows and of one length
     * (the last shorter by less than a key a portion), each starting its buckets where the
     * one before ended them; the look-back words are those of one portion. 1 to
     * 2^30 - 1; a smaller one bounds the kernels' scratch, or tests the portions at
     * small n. */
    long long portion;
} patc_sort_spec;
/* A sorter as spec says (PATC_ERR_INVALID for types other than those above). */
patc_status patc_sorter_create_spec(patc_ctx *ctx, const patc_sort_spec *spec, patc_sorter **out);
/* A sorter of pairs, ascending: patc_sorter_create_spec with values = 1. */
patc_status patc_sorter_create_pairs(patc_ctx *ctx, patc_type key_type, patc_type value_type, patc_sorter **out);
/* Frees the sorter and its temporary memory; patc_destroy frees the sorters still alive. */
void patc_sorter_free(patc_sorter *s);
/* The temporary device memory a sort of n keys uses: none up to 8192 keys (one launch;
 * up to 5120 pairs with an 8-byte key or value); above, the sorter's second
 * buffer of n keys (rounded up to 256 bytes; for pairs, and another of n values) and 4
 * bytes of offsets per bucket per pass (4 KiB for four 8-bit digits; in portions, 12
 * bytes a portion and 8 more: a u32 count and a u64 offset), which it allocates on the
 * first call that needs more and keeps, plus the kernels' scratch (multisplit's
 * look-back: a 4-byte word per bucket per tile of a portion but its last, 1 KiB a tile
 * of 256 buckets; the tiles are 6144 to 12288 keys by type and size, rt_sort.c's
 * tile_steps, docs/api.md), which they keep. With 8-bit digits, at most CUB's DeviceRadixSort's for
 * the same call. */
patc_status patc_sorter_temp_bytes(patc_sorter *s, long long n, size_t *bytes);
/* Sort n keys (1 <= n <= 2^40) of `in` into `out` on `stream` (NULL the default stream;
 * it becomes the context's stream) and return without waiting. in == out sorts in
 * place; otherwise they must not overlap, and in is not changed. A call that needs more
 * temporary memory than the sorter holds allocates it first (cuMemAlloc), which may
 * synchronise the device: size it once with the largest n to avoid that. */
patc_status patc_sort_keys(patc_sorter *s, patc_buffer *in, patc_buffer *out, long long n, void *stream);
/* patc_sort_keys on raw device addresses (CUdeviceptr) in the device's primary context. */
patc_status patc_sort_keys_ptr(patc_sorter *s, unsigned long long in, unsigned long long out, long long n,
                               void *stream);
/* The same sort on the CPU interpreter, on host arrays (in == out allowed): the kernels
 * patc_sort_keys launches, interpreted. Needs no driver and no NVRTC. */
patc_status patc_sort_keys_cpu(patc_sorter *s, const void *in, void *out, long long n);
/* Sort n pairs by key (a sorter of pairs): keys_in[i] and values_in[i] are pair i; the
 * sorted keys go to keys_out, each one's value at the same index of values_out. As
 * patc_sort_keys otherwise: an input and its output may be one buffer (in place), and
 * the four must not overlap otherwise. A keys call on a pairs sorter, or the reverse,
 * is PATC_ERR_INVALID. */
patc_status patc_sort_pairs(patc_sorter *s, patc_buffer *keys_in, patc_buffer *keys_out, patc_buffer *values_in,
                            patc_buffer *values_out, long long n, void *stream);
patc_status patc_sort_pairs_ptr(patc_sorter *s, unsigned long long keys_in, unsigned long long keys_out,
                                unsigned long long values_in, unsigned long long values_out, long long n,
                                void *stream);
patc_status patc_sort_pairs_cpu(patc_sorter *s, const void *keys_in, void *keys_out, const void *values_in,
                                void *values_out, long long n);
/* The generated .rise program of the sorter (owned by it): kernels sortHistScan and
 * sortPass (for pairs, a pass over zip(keys)(values) with two outputs), the passes of
 * other tiles (sortPassB0, ...), those of a sort in portions (sortHist, sortScan,
 * sortPassN) and the one-launch sorts (sortSmall0, ...). */
const char *patc_sorter_source(const patc_sorter *s);

/* One-call forms for the built-in operators: the algorithm is made on first use and
 * kept by the context (one per algorithm, type and operator) until patc_destroy. */
patc_status patc_reduce(patc_ctx *ctx, patc_type type, patc_op op, patc_buffer *in, patc_buffer *out, long long n,
                        void *stream);
patc_status patc_inclusive_scan(patc_ctx *ctx, patc_type type, patc_op op, patc_buffer *in, patc_buffer *out,
                                long long n, void *stream);
patc_status patc_exclusive_scan(patc_ctx *ctx, patc_type type, patc_op op, patc_buffer *in, patc_buffer *out,
                                long long n, void *stream);

#ifdef __cplusplus
}
#endif

#endif
