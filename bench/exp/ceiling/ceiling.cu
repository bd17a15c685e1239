// ceiling.cu: where the single-pass kernels' time goes at 2^24-2^28 (README.md). Not a
// patc feature: an experiment. In one process, stream and run (bench/timing.cuh: warm-up,
// then rounds with every implementation once, CUDA events, medians):
//   scan group:   a device-to-device copy of n floats; CUB InclusiveSum; patc's inclSumF32
//                 as generated (examples/scan_device.rise, nt=512 ipt=25, min-blocks 4: the
//                 tuned shape at 2^28), and rewritten by gen.py without the look-back's
//                 wait (nowait) and without the look-back (nolb); tile_smem and tile_reg,
//                 hand-written copies with the same tiles (512 x 25 floats), grid and
//                 shared-memory footprint, through shared memory and through registers;
//                 tile_reg_noshm, through registers with no shared memory asked for.
//   select group: the copy; CUB DeviceSelect::If and DevicePartition::If (x > 0.5, about
//                 half selected); patc's filterGtF32 and partitionGtF32 (nt=512 ipt=32, the
//                 shape bench/select_tuning.conf gives at 2^28) as generated and nowait;
//                 tile_smem with their tiles (16-byte vectors) writing all of each tile,
//                 and writing half of it (a select at 50% selected).
//   shapes group (2^28 only): filterGtF32 and partitionGtF32 as generated with other tile
//                 shapes (nt x ipt 512x24, 256x48, 1024x12: about 50 KiB of shared memory,
//                 four resident blocks per SM where 512x32's 66 KiB allows three).
//   stats (2^24, 2^26 and 2^27, after the timing): inclSumF32 instrumented by gen.py stats,
//                 launched 10 times, then once more; per tile the poll rounds that found
//                 a predecessor unpublished, the window steps, and the phases' durations
//                 (%globaltimer), summarised.
// The generated kernels are compared with CUB (every n); the copies with their input;
// nowait, nolb and the half copy compute the wrong values by design and are not checked.
//   ceiling SCAN.rise FILTER.rise PARTITION.rise VARIANT_DIR
// VARIANT_DIR holds scan.nowait.cu, scan.nolb.cu, scan.stats.cu, filter.nowait.cu,
// partition.nowait.cu.
#include <cub/cub.cuh>
#include <cmath>
#include <cstring>
#include <string>
#include "patc.h"
#include "timing.cuh"
#include "../exp_util.cuh"

static cudaStream_t s;
static patc_ctx *ctx;

// A tile of NT x IPT floats per block (IPT a multiple of VEC), the tile index drawn from a
// counter as patc's look-back kernels do, every load of a thread issued before its first
// store. SMEM: through shared memory (stored there, a barrier, read back in the same
// places), else registers. HALF: only the first half of each tile's vectors is written, to
// out[tile * TILE / 2 ..] (a select's writes at 50%). The last, partial tile element by element.
template <int NT, int IPT, int VEC, bool SMEM, bool HALF>
__global__ void __launch_bounds__(NT) tile_copy(float *out, const float *xs, long long n, unsigned long long *ctr) {
    constexpr int TILE = NT * IPT, NV = IPT / VEC;
    typedef typename std::conditional<VEC == 4, float4, float>::type V;
    extern __shared__ __align__(16) unsigned char smem[];
    V *sv = (V *)smem;
    __shared__ long long tile;
    if (threadIdx.x == 0) tile = (long long)(atomicAdd(ctr, 1ull) % gridDim.x);
    __syncthreads();
    const long long base = tile * TILE;
    const long long obase = HALF ? tile * (TILE / 2) : base;
    if (base + TILE <= n) {
        V r[NV];
        #pragma unroll
        for (int i = 0; i < NV; i++) r[i] = ((const V *)(xs + base))[threadIdx.x + NT * i];
        if (SMEM) {
            #pragma unroll
            for (int i = 0; i < NV; i++) sv[threadIdx.x + NT * i] = r[i];
            __syncthreads();
            #pragma unroll
            for (int i = 0; i < NV; i++) r[i] = sv[threadIdx.x + NT * i];
        }
        #pragma unroll
        for (int i = 0; i < (HALF ? NV / 2 : NV); i++) ((V *)(out + obase))[threadIdx.x + NT * i] = r[i];
    } else {
        for (long long i = base + threadIdx.x; i < n; i += NT)
            if (!HALF || i - base < TILE / 2) out[obase + (i - base)] = xs[i];
    }
}

struct Impl { std::string name; std::function<void()> run; };

template <class K>
static int occupancy(K kern, int nt, size_t smem) {
    int b = 0;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kern, nt, smem));
    return b;
}

int main(int argc, char **argv) {
    if (argc != 5) { printf("usage: ceiling SCAN.rise FILTER.rise PARTITION.rise VARIANT_DIR\n"); return 2; }
    const std::string vd = argv[4];
    CK(cudaSetDevice(0));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (patc_create(&ctx, 0, 0) != PATC_OK) { printf("patc_create: %s\n", patc_last_error(ctx)); return 1; }
    patc_set_stream(ctx, s);

    const long long maxn = 1ll << 28;
    float *in, *out, *ref; unsigned *cnt; int *ccnt; unsigned long long *ctr, *bad;
    CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&out, maxn * 4)); CK(cudaMalloc(&ref, maxn * 4));
    CK(cudaMalloc(&cnt, 4)); CK(cudaMalloc(&ccnt, 4)); CK(cudaMalloc(&ctr, 8)); CK(cudaMalloc(&bad, 8));
    CK(cudaMemset(ctr, 0, 8));
    fill<<<1024, 256, 0, s>>>((unsigned *)in, maxn, 0);
    patc_buffer *pin, *pout, *pcnt;
    PK(patc_buffer_wrap(ctx, (unsigned long long)in, maxn * 4, &pin));
    PK(patc_buffer_wrap(ctx, (unsigned long long)out, maxn * 4, &pout));
    PK(patc_buffer_wrap(ctx, (unsigned long long)cnt, 4, &pcnt));
    void *tmp = nullptr; size_t tb = 0, t1 = 0;
    auto gt = [] __host__ __device__(float x) { return x > 0.5f; };
    CK(cub::DeviceScan::InclusiveSum(nullptr, t1, in, out, (int)maxn, s)); tb = std::max(tb, t1);
    CK(cub::DeviceSelect::If(nullptr, t1, in, out, ccnt, (int)maxn, gt, s)); tb = std::max(tb, t1);
    CK(cub::DevicePartition::If(nullptr, t1, in, out, ccnt, (int)maxn, gt, s)); tb = std::max(tb, t1);
    CK(cudaMalloc(&tmp, tb));

    const char *fs = argv[1], *ff = argv[2], *fp = argv[3];
    std::string sn = vd + "/scan.nowait.cu", sl = vd + "/scan.nolb.cu", fn = vd + "/filter.nowait.cu",
                pn = vd + "/partition.nowait.cu";
    patc_kernel *kscan = compile(ctx, fs, "inclSumF32", 512, 25, 4, 0, nullptr);
    patc_kernel *kscan_nw = compile(ctx, fs, "inclSumF32", 512, 25, 4, 0, sn.c_str());
    patc_kernel *kscan_nl = compile(ctx, fs, "inclSumF32", 512, 25, 4, 0, sl.c_str());
    patc_kernel *kfil = compile(ctx, ff, "filterGtF32", 512, 32, 0, 0, nullptr);
    patc_kernel *kfil_nw = compile(ctx, ff, "filterGtF32", 512, 32, 0, 0, fn.c_str());
    patc_kernel *kpar = compile(ctx, fp, "partitionGtF32", 512, 32, 0, 0, nullptr);
    patc_kernel *kpar_nw = compile(ctx, fp, "partitionGtF32", 512, 32, 0, 0, pn.c_str());

    // the hand copies get the generated kernels' shared memory, so that as many blocks share an SM
    const size_t scan_smem = 53264, sel_smem = 67600;
    auto ts = tile_copy<512, 25, 1, true, false>, tr = tile_copy<512, 25, 1, false, false>;
    auto vs = tile_copy<512, 32, 4, true, false>, vh = tile_copy<512, 32, 4, true, true>;
    printf("resident blocks per SM: tile_smem/tile_reg (512x25, %zu B) %d/%d, tile_reg_noshm %d, select tiles (512x32, %zu B) %d/%d\n",
           scan_smem, occupancy(ts, 512, scan_smem), occupancy(tr, 512, scan_smem), occupancy(tr, 512, 0), sel_smem,
           occupancy(vs, 512, sel_smem), occupancy(vh, 512, sel_smem));

    const float half = 0.5f;
    HoldFlag hf; hf.init();
    const int WARM = 20, REPS = 200;
    int wrong = 0;
    for (long long n : {1ll << 24, 1ll << 26, 1ll << 28}) {
        patc_arg a1[1] = {{pin, nullptr}};
        patc_arg a2[2] = {{nullptr, &half}, {pin, nullptr}};
        patc_buffer *o1[1] = {pout}, *o2[2] = {pcnt, pout};
        const unsigned g25 = (unsigned)((n + 12799) / 12800), g32 = (unsigned)((n + 16383) / 16384);
        auto cub_scan = [&] { size_t b = tb; CK(cub::DeviceScan::InclusiveSum(tmp, b, in, out, (int)n, s)); };
        auto cub_sel = [&] { size_t b = tb; CK(cub::DeviceSelect::If(tmp, b, in, out, ccnt, (int)n, gt, s)); };
        auto cub_par = [&] { size_t b = tb; CK(cub::DevicePartition::If(tmp, b, in, out, ccnt, (int)n, gt, s)); };
        std::vector<Impl> scan = {
            {"copy", [&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice, s)); }},
            {"cub_scan", cub_scan},
            {"patc_scan", [&] { PK(patc_launch_args_enqueue(kscan, &n, a1, o1, nullptr)); }},
            {"scan_nowait", [&] { PK(patc_launch_args_enqueue(kscan_nw, &n, a1, o1, nullptr)); }},
            {"scan_nolb", [&] { PK(patc_launch_args_enqueue(kscan_nl, &n, a1, o1, nullptr)); }},
            {"tile_smem", [&] { ts<<<g25, 512, scan_smem, s>>>(out, in, n, ctr); }},
            {"tile_reg", [&] { tr<<<g25, 512, scan_smem, s>>>(out, in, n, ctr); }},
            {"tile_reg_noshm", [&] { tr<<<g25, 512, 0, s>>>(out, in, n, ctr); }},
        };
        std::vector<Impl> sel = {
            {"copy", scan[0].run},
            {"cub_select", cub_sel},
            {"cub_partition", cub_par},
            {"patc_filter", [&] { PK(patc_launch_args_enqueue(kfil, &n, a2, o2, nullptr)); }},
            {"filter_nowait", [&] { PK(patc_launch_args_enqueue(kfil_nw, &n, a2, o2, nullptr)); }},
            {"patc_partition", [&] { PK(patc_launch_args_enqueue(kpar, &n, a2, o2, nullptr)); }},
            {"part_nowait", [&] { PK(patc_launch_args_enqueue(kpar_nw, &n, a2, o2, nullptr)); }},
            {"tile_vec_smem", [&] { vs<<<g32, 512, sel_smem, s>>>(out, in, n, ctr); }},
            {"tile_vec_half", [&] { vh<<<g32, 512, sel_smem, s>>>(out, in, n, ctr); }},
        };
        // checks: each against its reference on a poisoned output
        auto check = [&](const char *what, const std::function<void()> &want, const std::function<void()> &got,
                         long long len, float rel, bool counts) {
            CK(cudaMemsetAsync(ref, 0xee, n * 4, s)); CK(cudaMemsetAsync(out, 0xff, n * 4, s));
            want(); CK(cudaMemcpyAsync(ref, out, n * 4, cudaMemcpyDeviceToDevice, s));
            int mc = 0; unsigned mp = 0;
            if (counts) CK(cudaMemcpyAsync(&mc, ccnt, 4, cudaMemcpyDeviceToHost, s));
            CK(cudaMemsetAsync(out, 0xff, n * 4, s));
            got();
            if (counts) CK(cudaMemcpyAsync(&mp, cnt, 4, cudaMemcpyDeviceToHost, s));
            CK(cudaMemsetAsync(bad, 0, 8, s));
            CK(cudaStreamSynchronize(s));
            if (len < 0) len = mc;
            differ<<<1024, 256, 0, s>>>((const unsigned *)out, (const unsigned *)ref, len, rel, bad);
            unsigned long long h;
            CK(cudaMemcpyAsync(&h, bad, 8, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            const bool ok = h == 0 && (!counts || (long long)mp == (long long)mc);
            printf("check %-14s n=%lld: %s", what, n, ok ? "ok" : "WRONG");
            if (counts) printf(" (count %u, CUB %d)", mp, mc);
            if (h) printf(" (%llu elements differ)", h);
            printf("\n");
            wrong += !ok;
        };
        check("patc_scan", cub_scan, scan[2].run, n, 1e-3f, false);
        check("tile_smem", scan[0].run, scan[5].run, n, 0.0f, false);
        check("tile_reg", scan[0].run, scan[6].run, n, 0.0f, false);
        check("tile_vec_smem", scan[0].run, sel[7].run, n, 0.0f, false);
        check("patc_filter", cub_sel, sel[3].run, -1, 0.0f, true);
        check("patc_partition", cub_par, sel[5].run, n, 0.0f, true);
        for (auto *grp : {&scan, &sel}) {
            std::vector<std::function<void()>> ops;
            for (auto &im : *grp) ops.push_back(im.run);
            std::vector<std::vector<float>> alone, queued;
            time_interleaved(ops, s, hf, WARM, REPS, alone, queued);
            const float copy_a = median_us(alone[0]);
            printf("n=%lld  (median of %d interleaved rounds, us; copy/x: fraction of the copy's speed)\n", n, REPS);
            printf("  %-15s %10s %10s %8s\n", "", "alone", "queued", "copy/x");
            for (size_t k = 0; k < grp->size(); k++) {
                const float a = median_us(alone[k]), q = median_us(queued[k]);
                printf("  %-15s %10.2f %10.2f %8.3f\n", (*grp)[k].name.c_str(), a, q, copy_a / a);
            }
            fflush(stdout);
        }
    }
    {
        const long long n = 1ll << 28;
        patc_arg a2[2] = {{nullptr, &half}, {pin, nullptr}};
        patc_buffer *o2[2] = {pcnt, pout};
        std::vector<Impl> shp = {
            {"copy", [&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice, s)); }},
            {"cub_select", [&] { size_t b = tb; CK(cub::DeviceSelect::If(tmp, b, in, out, ccnt, (int)n, gt, s)); }},
            {"cub_partition", [&] { size_t b = tb; CK(cub::DevicePartition::If(tmp, b, in, out, ccnt, (int)n, gt, s)); }},
        };
        for (const char *kn : {"filterGtF32", "partitionGtF32"})
            for (auto sh : {std::make_pair(512, 32), std::make_pair(512, 24), std::make_pair(256, 48), std::make_pair(1024, 12)}) {
                patc_kernel *k = compile(ctx, std::string(kn) == "filterGtF32" ? ff : fp, kn, sh.first, sh.second, 0, 0, nullptr);
                shp.push_back({std::string(kn).substr(0, 4) + " " + std::to_string(sh.first) + "x" + std::to_string(sh.second),
                               [k, a2, o2, n]() mutable { PK(patc_launch_args_enqueue(k, &n, a2, o2, nullptr)); }});
            }
        // each shape's result against CUB's (filter: the count and the selected prefix; partition: all n)
        for (size_t k = 3; k < shp.size(); k++) {
            const bool fil = shp[k].name[0] == 'f';
            int mc = 0; unsigned mp = 0; unsigned long long h = 0;
            CK(cudaMemsetAsync(out, 0xee, n * 4, s));
            shp[fil ? 1 : 2].run();
            CK(cudaMemcpyAsync(ref, out, n * 4, cudaMemcpyDeviceToDevice, s));
            CK(cudaMemcpyAsync(&mc, ccnt, 4, cudaMemcpyDeviceToHost, s));
            CK(cudaMemsetAsync(out, 0xff, n * 4, s));
            shp[k].run();
            CK(cudaMemcpyAsync(&mp, cnt, 4, cudaMemcpyDeviceToHost, s));
            CK(cudaMemsetAsync(bad, 0, 8, s));
            CK(cudaStreamSynchronize(s));
            differ<<<1024, 256, 0, s>>>((const unsigned *)out, (const unsigned *)ref, fil ? mc : n, 0.0f, bad);
            CK(cudaMemcpyAsync(&h, bad, 8, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            const bool ok = h == 0 && (long long)mp == (long long)mc;
            printf("check %-14s n=%lld: %s (count %u, CUB %d)\n", shp[k].name.c_str(), n, ok ? "ok" : "WRONG", mp, mc);
            wrong += !ok;
        }
        std::vector<std::function<void()>> ops;
        for (auto &im : shp) ops.push_back(im.run);
        std::vector<std::vector<float>> alone, queued;
        time_interleaved(ops, s, hf, WARM, REPS, alone, queued);
        const float copy_a = median_us(alone[0]);
        printf("shapes, n=%lld  (median of %d interleaved rounds, us; copy/x: fraction of the copy's speed)\n", n, REPS);
        printf("  %-15s %10s %10s %8s\n", "", "alone", "queued", "copy/x");
        for (size_t k = 0; k < shp.size(); k++) {
            const float a = median_us(alone[k]), q = median_us(queued[k]);
            printf("  %-15s %10.2f %10.2f %8.3f\n", shp[k].name.c_str(), a, q, copy_a / a);
        }
    }
    {
        std::string ss = vd + "/scan.stats.cu";
        patc_kernel *kst = compile(ctx, fs, "inclSumF32", 512, 25, 4, 0, ss.c_str());
        for (long long n : {1ll << 24, 1ll << 26, 1ll << 27}) {
            const long long tiles = (n + 12799) / 12800;
            patc_arg a1[1] = {{pin, nullptr}};
            patc_buffer *o1[1] = {pout};
            for (int r = 0; r < 11; r++) PK(patc_launch_args_enqueue(kst, &n, a1, o1, nullptr));
            std::vector<unsigned> st(8 * tiles);
            CK(cudaMemcpyAsync(st.data(), out + n, st.size() * 4, cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            std::vector<double> load, wait, rest, life;
            long long waited = 0, steps_hist[4] = {0, 0, 0, 0};
            double polls = 0, steps = 0;
            unsigned t0 = st[2], t1 = st[5];
            for (long long b = 0; b < tiles; b++) {
                const unsigned *x = &st[8 * b];
                if ((int)(x[2] - t0) < 0) t0 = x[2];
                if ((int)(x[5] - t1) > 0) t1 = x[5];
                polls += x[0]; steps += x[1];
                waited += x[0] > 0;
                steps_hist[std::min(x[1], 3u)]++;
                load.push_back(x[3] - x[2]); wait.push_back(x[4] - x[3]); rest.push_back(x[5] - x[4]); life.push_back(x[5] - x[2]);
            }
            auto med = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
            auto p90 = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() * 9 / 10]; };
            auto sum = [](const std::vector<double> &v) { double a = 0; for (double x : v) a += x; return a; };
            printf("stats n=%lld: %lld tiles, kernel span %.1f us (globaltimer)\n", n, tiles, (double)(unsigned)(t1 - t0) / 1e3);
            printf("  tiles whose look-back found a predecessor unpublished: %.1f%%; poll rounds per tile %.2f; "
                   "window steps back per tile %.3f (0: %lld, 1: %lld, 2: %lld, 3+: %lld)\n",
                   100.0 * waited / tiles, polls / tiles, steps / tiles, steps_hist[0], steps_hist[1], steps_hist[2], steps_hist[3]);
            printf("  ns per tile, median / 90th percentile / share of the blocks' summed lifetime: start to count %.0f / %.0f / %.1f%%, "
                   "look-back %.0f / %.0f / %.1f%%, the rest (scan, stores) %.0f / %.0f / %.1f%%; lifetime %.0f / %.0f\n",
                   med(load), p90(load), 100 * sum(load) / sum(life), med(wait), p90(wait), 100 * sum(wait) / sum(life),
                   med(rest), p90(rest), 100 * sum(rest) / sum(life), med(life), p90(life));
            fflush(stdout);
        }
    }
    printf("%s\n", wrong ? "SOME CHECKS FAILED" : "all checks passed");
    patc_destroy(ctx);
    return wrong ? 1 : 0;
}
