// Experiment: small-n reductions timed two ways. "alone": events around one
// operation on an idle stream (the host's launch latency is inside the time);
// "queued": a holding kernel blocks the stream while start event, operation and stop
// event are enqueued, then the host releases it (the GPU time only, as nvbench does).
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>
#include "gen.cuh"   // generated kernels: patc --emit-cuda, renamed per setting

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void hold(volatile int *flag) {
    long long t0 = clock64();
    while (!*flag) { __nanosleep(200); if (clock64() - t0 > 4000000000ll) break; }
}
__global__ void empty_k() {}

static cudaStream_t s;
static cudaEvent_t e0, e1;
static int *hflag, *dflag;

static float med(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2] * 1e3f; }

static void time2(const char *name, long long n, const std::function<void()> &op, float *alone, float *queued) {
    const int reps = 300;
    for (int i = 0; i < 30; i++) op();
    CK(cudaStreamSynchronize(s));
    std::vector<float> a(reps), q(reps);
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(e0, s)); op(); CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&a[i], e0, e1));
    }
    for (int i = 0; i < reps; i++) {
        *(volatile int *)hflag = 0;
        hold<<<1, 1, 0, s>>>(dflag);
        CK(cudaEventRecord(e0, s)); op(); CK(cudaEventRecord(e1, s));
        __sync_synchronize();
        *(volatile int *)hflag = 1;
        CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&q[i], e0, e1));
    }
    CK(cudaGetLastError());
    *alone = med(a); *queued = med(q);
    printf("%-24s n=%-9lld alone %7.2f us  queued %7.2f us\n", name, n, *alone, *queued);
    fflush(stdout);
}

int main(int argc, char **argv) {
    std::vector<long long> sizes = {1000, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304};
    if (argc > 1) { sizes.clear(); for (int i = 1; i < argc; i++) sizes.push_back(atoll(argv[i])); }
    CK(cudaSetDevice(0));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    int sms = p.multiProcessorCount;
    printf("device %s, %d SMs\n", p.name, sms);
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    CK(cudaHostAlloc(&hflag, 4, cudaHostAllocMapped)); CK(cudaHostGetDevicePointer(&dflag, hflag, 0));
    const long long maxn = 1 << 24;
    std::vector<float> h(maxn);
    srand(7); for (auto &x : h) x = (float)(rand() & 0xffff) / 65536.0f;
    float *d, *out, *part; unsigned *ticket;
    CK(cudaMalloc(&d, maxn * 4)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&part, 1 << 20)); CK(cudaMalloc(&ticket, 64));
    CK(cudaMemset(ticket, 0, 64));
    CK(cudaMemcpy(d, h.data(), maxn * 4, cudaMemcpyHostToDevice));
    float a, q;
    time2("empty<<<1,32>>>", 0, [&] { empty_k<<<1, 32, 0, s>>>(); }, &a, &q);
    time2("empty<<<1,256>>>", 0, [&] { empty_k<<<1, 256, 0, s>>>(); }, &a, &q);
    time2("empty<<<528,256>>>", 0, [&] { empty_k<<<528, 256, 0, s>>>(); }, &a, &q);
    time2("2x empty<<<1,256>>>", 0, [&] { empty_k<<<1, 256, 0, s>>>(); empty_k<<<1, 256, 0, s>>>(); }, &a, &q);
    void *tmp = nullptr; size_t tb = 0;
    CK(cub::DeviceReduce::Sum(tmp, tb, d, out, (int)maxn, s)); CK(cudaMalloc(&tmp, tb));
    auto check = [&](const char *name, long long n) {
        double r = 0; for (long long i = 0; i < n; i++) r += h[i];
        float g; CK(cudaMemcpy(&g, out, 4, cudaMemcpyDeviceToHost));
        if (fabs(g - r) > 1e-4 * r + 1e-3) printf("  WRONG %s n=%lld got %f want %f\n", name, n, g, r);
    };
    for (long long n : sizes) {
        time2("cub", n, [&] { size_t t = tb; cub::DeviceReduce::Sum(tmp, t, d, out, (int)n, s); }, &a, &q);
        check("cub", n);
#define ONE(NAME, EB, EW) if (n <= 65536) { \
            time2(#NAME, n, [&] { NAME<<<1, 32 * EB / EW, 128, s>>>(out, d, (int)n); }, &a, &q); check(#NAME, n); }
#define GRID(NAME, EB, EW, BPS) { int g = (int)std::min<long long>((long long)BPS * sms, (n + EB - 1) / EB); \
            char nm[64]; snprintf(nm, sizeof nm, "%s_bps%d(g=%d)", #NAME, BPS, g); \
            time2(nm, n, [&] { NAME<<<g, 32 * EB / EW, 128, s>>>(out, d, part, ticket, (int)n, g); }, &a, &q); check(nm, n); }
#include "gen_calls.inc"
    }
    return 0;
}
