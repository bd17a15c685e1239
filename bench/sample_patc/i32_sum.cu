// HAND-WRITTEN TEST FIXTURE for bench_main --patc-dir (not patc output).
// Single launch: every block writes its partial, takes a ticket; the last block
// reduces the partials, writes out[0] and resets the ticket to 0 so the zeroed
// scratch stays reusable. Scratch params: ticket (4 bytes), partials (4096 bytes).
__device__ int block_sum(int v, int *s) {
    unsigned tid = threadIdx.x;
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    int r = s[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void fixture_sum_i32_single(int *out, const int *in, int n,
                                                  unsigned int *ticket, int *partials) {
    __shared__ int s[256];
    __shared__ bool last;
    unsigned tid = threadIdx.x;
    int v = 0;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) v += in[i];
    v = block_sum(v, s);
    if (tid == 0) {
        partials[blockIdx.x] = v;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    int w = 0;
    for (unsigned i = tid; i < gridDim.x; i += blockDim.x) w += ((volatile int *)partials)[i];
    w = block_sum(w, s);
    if (tid == 0) { out[0] = w; *ticket = 0u; }
}
