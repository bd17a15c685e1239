// baselines.cu: reference reductions that patc's generated kernels are compared with.
//   1. CUB cub::DeviceReduce::Sum / ::Max (the library a user would pick).
//   2. The two-pass shuffle reduction from NVIDIA's blog post "Faster Parallel
//      Reductions on Kepler" (Luitjens, 2014): warpReduceSum with __shfl_down_sync,
//      blockReduceSum, deviceReduceKernel launched twice; threads 512,
//      blocks = min((n + threads - 1) / threads, 1024); 2nd launch <<<1, 1024>>>.
//   3. A Harris-style ("Optimizing Parallel Reduction in CUDA", reduce6) shared-memory
//      tree: first op during load, grid-stride loop, sequential addressing, last warp
//      unrolled with __syncwarp() between steps (safe under independent thread
//      scheduling); 256 threads, blocks = min(ceil(n / 512), 1024); 2nd launch 1 block.
#include "baselines.h"
#include <cub/cub.cuh>
#include <cfloat>

namespace {

struct SumOp {
    template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
    template <class T> __device__ __forceinline__ static T identity() { return T(0); }
};
struct MaxOp {
    __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
    __device__ __forceinline__ int operator()(int a, int b) const { return max(a, b); }  // NOLINT: for int max plug-ins
    template <class T> __device__ __forceinline__ static T identity();
};
template <> __device__ __forceinline__ float MaxOp::identity<float>() { return -INFINITY; }
template <> __device__ __forceinline__ int MaxOp::identity<int>() { return INT_MIN; }

// ---------------------------------------------------------------- Kepler blog
template <class T, class Op>
__inline__ __device__ T warpReduce(T val) {
    Op op;
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val = op(val, __shfl_down_sync(0xffffffffu, val, offset));
    return val;
}

template <class T, class Op>
__inline__ __device__ T blockReduce(T val) {
    static __shared__ T shared[32];
    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;
    val = warpReduce<T, Op>(val);
    if (lane == 0) shared[wid] = val;
    __syncthreads();
    val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : Op::template identity<T>();
    if (wid == 0) val = warpReduce<T, Op>(val);
    return val;
}

template <class T, class Op>
__global__ void deviceReduceKernel(const T *in, T *out, int N) {
    Op op;
    T sum = Op::template identity<T>();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x)
        sum = op(sum, in[i]);
    sum = blockReduce<T, Op>(sum);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

constexpr int KEPLER_THREADS = 512;
constexpr int KEPLER_MAX_BLOCKS = 1024;

template <class T, class Op>
void keplerReduce(const T *in, T *partials, T *out, int n, cudaStream_t s) {
    int blocks = (n + KEPLER_THREADS - 1) / KEPLER_THREADS;
    if (blocks > KEPLER_MAX_BLOCKS) blocks = KEPLER_MAX_BLOCKS;
    deviceReduceKernel<T, Op><<<blocks, KEPLER_THREADS, 0, s>>>(in, partials, n);
    deviceReduceKernel<T, Op><<<1, 1024, 0, s>>>(partials, out, blocks);
}

// ---------------------------------------------------------------- Harris reduce6
constexpr int HARRIS_THREADS = 256;
constexpr int HARRIS_MAX_BLOCKS = 1024;

template <class T, class Op, unsigned blockSize>
__global__ void __launch_bounds__(blockSize) reduce6(const T *g_idata, T *g_odata, unsigned n) {
    __shared__ T sdata[blockSize];
    Op op;
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockSize * 2) + tid;
    unsigned gridSize = blockSize * 2 * gridDim.x;
    T v = Op::template identity<T>();
    // first op during load + grid-stride loop
    while (i < n) {
        v = op(v, g_idata[i]);
        if (i + blockSize < n) v = op(v, g_idata[i + blockSize]);
        i += gridSize;
    }
    sdata[tid] = v;
    __syncthreads();
    // sequential addressing
#pragma unroll
    for (unsigned s = blockSize / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = v = op(v, sdata[tid + s]);
        __syncthreads();
    }
    // last warp: unrolled, __syncwarp() between every read and write
    if (tid < 32) {
        if (blockSize >= 64) v = op(v, sdata[tid + 32]);
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
#pragma unroll
        for (unsigned off = 16; off > 0; off >>= 1) {
            v = op(v, sdata[tid + off]);
            __syncwarp();
            sdata[tid] = v;
            __syncwarp();
        }
        if (tid == 0) g_odata[blockIdx.x] = v;
    }
}

template <class T, class Op>
void harrisReduce(const T *in, T *partials, T *out, int n, cudaStream_t s) {
    int blocks = (n + 2 * HARRIS_THREADS - 1) / (2 * HARRIS_THREADS);
    if (blocks > HARRIS_MAX_BLOCKS) blocks = HARRIS_MAX_BLOCKS;
    reduce6<T, Op, HARRIS_THREADS><<<blocks, HARRIS_THREADS, 0, s>>>(in, partials, (unsigned)n);
    reduce6<T, Op, HARRIS_THREADS><<<1, HARRIS_THREADS, 0, s>>>(partials, out, (unsigned)blocks);
}


} // namespace

// ---------------------------------------------------------------- CUB
size_t cub_temp_f32_sum(int n) {
    size_t b = 0;
    cub::DeviceReduce::Sum(nullptr, b, (const float *)nullptr, (float *)nullptr, n);
    return b;
}
size_t cub_temp_i32_sum(int n) {
    size_t b = 0;
    cub::DeviceReduce::Sum(nullptr, b, (const int *)nullptr, (int *)nullptr, n);
    return b;
}
size_t cub_temp_f32_max(int n) {
    size_t b = 0;
    cub::DeviceReduce::Max(nullptr, b, (const float *)nullptr, (float *)nullptr, n);
    return b;
}
cudaError_t cub_f32_sum(void *t, size_t b, const float *in, float *out, int n, cudaStream_t s) {
    return cub::DeviceReduce::Sum(t, b, in, out, n, s);
}
cudaError_t cub_i32_sum(void *t, size_t b, const int *in, int *out, int n, cudaStream_t s) {
    return cub::DeviceReduce::Sum(t, b, in, out, n, s);
}
cudaError_t cub_f32_max(void *t, size_t b, const float *in, float *out, int n, cudaStream_t s) {
    return cub::DeviceReduce::Max(t, b, in, out, n, s);
}

int kepler_max_partials() { return KEPLER_MAX_BLOCKS; }
void kepler_f32_sum(const float *in, float *p, float *o, int n, cudaStream_t s) { keplerReduce<float, SumOp>(in, p, o, n, s); }
void kepler_i32_sum(const int *in, int *p, int *o, int n, cudaStream_t s) { keplerReduce<int, SumOp>(in, p, o, n, s); }
void kepler_f32_max(const float *in, float *p, float *o, int n, cudaStream_t s) { keplerReduce<float, MaxOp>(in, p, o, n, s); }

int harris_max_partials() { return HARRIS_MAX_BLOCKS; }
void harris_f32_sum(const float *in, float *p, float *o, int n, cudaStream_t s) { harrisReduce<float, SumOp>(in, p, o, n, s); }
void harris_i32_sum(const int *in, int *p, int *o, int n, cudaStream_t s) { harrisReduce<int, SumOp>(in, p, o, n, s); }
void harris_f32_max(const float *in, float *p, float *o, int n, cudaStream_t s) { harrisReduce<float, MaxOp>(in, p, o, n, s); }
