// HAND-WRITTEN TEST FIXTURE for bench_main --patc-dir (not patc output).
// Multi-pass: each block writes one partial; the driver relaunches on the partials.
extern "C" __global__ void fixture_sum_f32(float *out, const float *in, int n) {
    __shared__ float s[256];
    unsigned tid = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) v += in[i];
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
