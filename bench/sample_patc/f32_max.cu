// HAND-WRITTEN TEST FIXTURE for bench_main --patc-dir (not patc output).
// Multi-pass max; with E=256, G=4096 a 2^28 input takes three launches.
extern "C" __global__ void fixture_max_f32(float *out, const float *in, int n) {
    __shared__ float s[256];
    unsigned tid = threadIdx.x;
    float v = -__int_as_float(0x7f800000);  // -inf
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) v = fmaxf(v, in[i]);
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] = fmaxf(s[tid], s[tid + k]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
