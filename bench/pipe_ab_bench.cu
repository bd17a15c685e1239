// pipe_ab_bench.cu: the pipe kernels (scanPipe, filterPipe, partitionPipe,
// partitionStablePipe) as two builds of libpatrt generate them, in one process, on one
// stream, interleaved run by run: "before" and "after" a change to the compiler (issue 34
// turned their printed templates into kernel IR; the goal is after within 2% of before at
// every size). Each libpatrt is dlopen'ed from its own path (RTLD_LOCAL: two copies of the
// library, each with its own compiler, cache key and launch rules), so each compiles the
// same examples/*.rise with its own code generator; both wrap the same device buffers.
// For each case and n the two outputs are first compared (integers and the selections word
// for word, the f32 scan within 1e-5 relative: its look-back may combine in another order),
// then a device-to-device copy of the input's bytes, before and after are timed by
// timing.cuh's method (warm-up, interleaved rounds, alone and queued, medians).
//   pipe_ab_bench OUTDIR BEFORE_LIB AFTER_LIB EXAMPLES_DIR [n ...]
// Writes OUTDIR/pipe_ab.csv and OUTDIR/pipe_ab.md (after/before per case and n).
// PIPE_AB_BEFORE_CUDA=DIR / PIPE_AB_AFTER_CUDA=DIR: a side's kernel K is DIR/K.cu when
// that file exists (hand-edited CUDA C, as patc run --cuda), for experiments on one
// library: give the same BEFORE_LIB and AFTER_LIB. PIPE_AB_ONLY=S runs only the cases
// whose label contains S.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include "patc.h"
#include "timing.cuh"

// The part of patc.h this driver calls, looked up in one copy of the library.
struct Lib {
    const char *path;
    void *h;
    patc_ctx *ctx;
    decltype(&patc_create) create;
    decltype(&patc_last_error) last_error;
    decltype(&patc_set_stream) set_stream;
    decltype(&patc_program_compile) compile;
    decltype(&patc_get_kernel) get_kernel;
    decltype(&patc_kernel_num_outputs) num_outputs;
    decltype(&patc_kernel_output_info_at) output_info_at;
    decltype(&patc_buffer_wrap) wrap;
    decltype(&patc_launch_args_enqueue) enqueue;
};

template <class F> static void sym(Lib &l, F &f, const char *name) {
    f = (F)dlsym(l.h, name);
    if (!f) { printf("%s: no symbol %s\n", l.path, name); exit(1); }
}

static void open_lib(Lib &l, const char *path, cudaStream_t s) {
    l.path = path;
    l.h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!l.h) { printf("dlopen %s: %s\n", path, dlerror()); exit(1); }
    sym(l, l.create, "patc_create"); sym(l, l.last_error, "patc_last_error"); sym(l, l.set_stream, "patc_set_stream");
    sym(l, l.compile, "patc_program_compile"); sym(l, l.get_kernel, "patc_get_kernel");
    sym(l, l.num_outputs, "patc_kernel_num_outputs"); sym(l, l.output_info_at, "patc_kernel_output_info_at");
    sym(l, l.wrap, "patc_buffer_wrap"); sym(l, l.enqueue, "patc_launch_args_enqueue");
    // no disk cache: each copy compiles its own text (the two must not share an entry)
    if (l.create(&l.ctx, 0, PATC_NO_CACHE) != PATC_OK) { printf("%s: patc_create: %s\n", path, l.last_error(l.ctx)); exit(1); }
    l.set_stream(l.ctx, s);
}

#define LK(l, x) do { patc_status s_ = (x); if (s_ != PATC_OK) { printf("%s:%d %s (%s): %s\n", __FILE__, __LINE__, #x, (l).path, (l).last_error((l).ctx)); exit(1); } } while (0)

// One kernel: its file, name and -D values; whether it takes the threshold t (0.5) first;
// its element type (f32 inputs uniform in [0, 1), i32 in 0..99); how outputs compare.
struct Case {
    const char *label, *file, *kernel;
    std::vector<patc_define> defs;
    bool threshold, f32, tolerant;
};

struct Side { patc_kernel *k; std::vector<void *> outs; std::vector<size_t> bytes; std::vector<patc_buffer *> pouts; };

static cudaStream_t s;
static HoldFlag holdf;

// $env, when set, names a folder of hand-edited CUDA texts: KERNEL.cu there, when it
// exists, is that side's kernel (patc_compile_options.cuda_file; metadata from the .rise).
static std::string edited(const char *env, const Case &c) {
    const char *d = getenv(env);
    if (!d) return "";
    std::string f = std::string(d) + "/" + c.kernel + ".cu";
    FILE *fp = fopen(f.c_str(), "r");
    if (!fp) return "";
    fclose(fp);
    return f;
}

static Side prepare(Lib &l, const Case &c, const std::string &dir, long long maxn, const std::string &cuda) {
    std::string path = dir + "/" + c.file;
    patc_program *prog;
    patc_compile_options o;
    memset(&o, 0, sizeof o);
    o.cuda_file = cuda.c_str();
    o.kernel = c.kernel; // the text holds this kernel alone
    if (!cuda.empty()) printf("%s: %s from %s\n", l.path, c.kernel, cuda.c_str());
    LK(l, l.compile(l.ctx, path.c_str(), c.defs.data(), (int)c.defs.size(), cuda.empty() ? nullptr : &o, &prog));
    Side sd;
    LK(l, l.get_kernel(prog, c.kernel, &sd.k));
    int no = l.num_outputs(sd.k);
    for (int j = 0; j < no; j++) {
        patc_type t; long long cnt; size_t b;
        LK(l, l.output_info_at(sd.k, j, &maxn, &t, &cnt, &b));
        void *d; CK(cudaMalloc(&d, b));
        sd.outs.push_back(d); sd.bytes.push_back(b);
        patc_buffer *pb; LK(l, l.wrap(l.ctx, (unsigned long long)d, b, &pb));
        sd.pouts.push_back(pb);
    }
    return sd;
}

// Output bytes for n: the output sizes scale with n but for one-element counts.
static size_t out_bytes(const Lib &l, const Side &sd, int j, long long n) {
    patc_type t; long long cnt; size_t b;
    if (l.output_info_at(sd.k, j, &n, &t, &cnt, &b) != PATC_OK) { printf("output_info_at failed\n"); exit(1); }
    return b;
}

int main(int argc, char **argv) {
    if (argc < 5) { printf("usage: pipe_ab_bench OUTDIR BEFORE_LIB AFTER_LIB EXAMPLES_DIR [n ...]\n"); return 2; }
    const char *outdir = argv[1];
    std::string dir = argv[4];
    std::vector<long long> sizes;
    for (int e = 10; e <= 28; e += 2) sizes.push_back(1ll << e);
    for (long long n : {1000003ll, (1ll << 20) + 7, (1ll << 28) - 5}) sizes.push_back(n);
    if (!sizes_from_args(argc, argv, 5, 1ll << 30, sizes)) return 2;
    long long maxn = sizes.back();
    CK(cudaSetDevice(0));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    holdf.init();
    Lib lb{}, la{};
    open_lib(lb, argv[2], s);
    open_lib(la, argv[3], s);
    const patc_define big[3] = {{"w", 16}, {"ipt", 12}, {"s", 9}};
    std::vector<Case> cases = {
        {"scan_incl_f32", "scan_pipe.rise", "inclSumF32", {big[0], big[1], big[2]}, false, true, true},
        {"scan_excl_i32", "scan_pipe.rise", "exclSumI32", {big[0], big[1], big[2]}, false, false, false},
        {"filter_f32", "filter_pipe.rise", "filterGtF32", {}, true, true, false},
        {"partition_f32", "partition_pipe.rise", "partitionGtF32", {}, true, true, false},
        {"partition_stable_f32", "partition_pipe.rise", "partitionStableGtF32", {{"g", 2 * p.multiProcessorCount}},
         true, true, false},
    };
    // inputs: f32 uniform in [0, 1), i32 in 0..99, made on the host once
    std::vector<float> hf(maxn); std::vector<int> hi(maxn);
    srand(12345);
    for (long long i = 0; i < maxn; i++) { hf[i] = (float)(rand() & 0xffffff) / 16777216.0f; hi[i] = rand() % 100; }
    float *df; int *di; void *dcopy;
    CK(cudaMalloc(&df, maxn * 4)); CK(cudaMalloc(&di, maxn * 4)); CK(cudaMalloc(&dcopy, maxn * 4));
    CK(cudaMemcpy(df, hf.data(), maxn * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(di, hi.data(), maxn * 4, cudaMemcpyHostToDevice));
    patc_buffer *bfb, *bib, *bfa, *bia;
    LK(lb, lb.wrap(lb.ctx, (unsigned long long)df, maxn * 4, &bfb)); LK(lb, lb.wrap(lb.ctx, (unsigned long long)di, maxn * 4, &bib));
    LK(la, la.wrap(la.ctx, (unsigned long long)df, maxn * 4, &bfa)); LK(la, la.wrap(la.ctx, (unsigned long long)di, maxn * 4, &bia));
    FILE *csv = fopen((std::string(outdir) + "/pipe_ab.csv").c_str(), "w");
    FILE *md = fopen((std::string(outdir) + "/pipe_ab.md").c_str(), "w");
    if (!csv || !md) { printf("cannot write to %s\n", outdir); return 2; }
    fprintf(csv, "case,n,impl,alone_us,queued_us,after_over_before_alone,after_over_before_queued\n");
    fprintf(md, "| case | n | copy alone | before alone | after alone | after/before alone | copy queued | before queued | "
                "after queued | after/before queued |\n|---|---|---|---|---|---|---|---|---|---|\n");
    int wrong = 0;
    float worst = 0;
    const float t = 0.5f;
    const char *only = getenv("PIPE_AB_ONLY"); // a label's substring: only those cases
    for (const Case &c : cases) {
        if (only && !strstr(c.label, only)) continue;
        Side sb = prepare(lb, c, dir, maxn, edited("PIPE_AB_BEFORE_CUDA", c)),
             sa = prepare(la, c, dir, maxn, edited("PIPE_AB_AFTER_CUDA", c));
        for (long long n : sizes) {
            patc_arg ab[2], aa[2];
            int na = 0;
            if (c.threshold) { ab[na] = {nullptr, &t}; aa[na] = {nullptr, &t}; na++; }
            ab[na] = {c.f32 ? bfb : bib, nullptr}; aa[na] = {c.f32 ? bfa : bia, nullptr};
            auto before = [&] { LK(lb, lb.enqueue(sb.k, &n, ab, sb.pouts.data(), nullptr)); };
            auto after = [&] { LK(la, la.enqueue(sa.k, &n, aa, sa.pouts.data(), nullptr)); };
            auto copy = [&] { CK(cudaMemcpyAsync(dcopy, c.f32 ? (void *)df : (void *)di, n * 4, cudaMemcpyDeviceToDevice, s)); };
            // the check: both outputs poisoned alike, run, compared
            bool ok = true;
            for (size_t j = 0; j < sb.outs.size(); j++) {
                CK(cudaMemsetAsync(sb.outs[j], 0xa5, out_bytes(lb, sb, (int)j, n), s));
                CK(cudaMemsetAsync(sa.outs[j], 0xa5, out_bytes(la, sa, (int)j, n), s));
            }
            before(); after();
            CK(cudaStreamSynchronize(s));
            for (size_t j = 0; j < sb.outs.size() && ok; j++) {
                size_t b = out_bytes(lb, sb, (int)j, n);
                if (b != out_bytes(la, sa, (int)j, n)) { printf("FAIL %s n=%lld: output %zu sizes differ\n", c.label, n, j); ok = false; break; }
                std::vector<unsigned> x(b / 4), y(b / 4);
                CK(cudaMemcpy(x.data(), sb.outs[j], b, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(y.data(), sa.outs[j], b, cudaMemcpyDeviceToHost));
                for (size_t i = 0; i < x.size() && ok; i++) {
                    if (x[i] == y[i]) continue;
                    if (c.tolerant) {
                        float u, v; memcpy(&u, &x[i], 4); memcpy(&v, &y[i], 4);
                        if (std::fabs(u - v) <= 1e-5f * std::fmax(1.0f, std::fabs(u))) continue;
                    }
                    printf("FAIL %s n=%lld: output %zu differs at %zu (before 0x%08x, after 0x%08x)\n", c.label, n, j, i, x[i], y[i]);
                    ok = false;
                }
            }
            if (!ok) { wrong++; continue; }
            const int reps = n >= (1ll << 26) ? 60 : n >= (1ll << 22) ? 120 : 200;
            std::vector<std::vector<float>> alone, queued;
            time_interleaved({copy, before, after}, s, holdf, 10, reps, alone, queued);
            float ca = median_us(alone[0]), ba = median_us(alone[1]), aa2 = median_us(alone[2]);
            float cq = median_us(queued[0]), bq = median_us(queued[1]), aq = median_us(queued[2]);
            float ra = aa2 / ba, rq = aq / bq;
            if (rq > worst) worst = rq;
            fprintf(csv, "%s,%lld,copy,%.3f,%.3f,,\n%s,%lld,before,%.3f,%.3f,,\n%s,%lld,after,%.3f,%.3f,%.4f,%.4f\n", c.label, n,
                    ca, cq, c.label, n, ba, bq, c.label, n, aa2, aq, ra, rq);
            fprintf(md, "| %s | %lld | %.1f | %.1f | %.1f | %.3f | %.1f | %.1f | %.1f | %.3f |\n", c.label, n, ca, ba, aa2, ra, cq,
                    bq, aq, rq);
            printf("%-22s n=%-10lld copy %8.1f/%8.1f  before %8.1f/%8.1f  after %8.1f/%8.1f us (alone/queued)  after/before %.3f/%.3f\n",
                   c.label, n, ca, cq, ba, bq, aa2, aq, ra, rq);
            fflush(stdout);
        }
    }
    fclose(csv); fclose(md);
    printf("%d mismatches; worst after/before (queued) %.3f\n", wrong, worst);
    return wrong ? 1 : 0;
}
