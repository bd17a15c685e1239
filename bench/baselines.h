// baselines.h: host launchers for the reference reductions timed by bench_main.
// Every launcher enqueues the WHOLE reduction (all launches) on stream s and
// leaves the scalar result in out[0].  No allocation happens inside a launcher.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>

// ---- CUB (cub::DeviceReduce) ------------------------------------------------
// Query the temp-storage bytes CUB needs for n items (call outside timing).
size_t cub_temp_f32_sum(int n);
size_t cub_temp_i32_sum(int n);
size_t cub_temp_f32_max(int n);
cudaError_t cub_f32_sum(void *temp, size_t bytes, const float *in, float *out, int n, cudaStream_t s);
cudaError_t cub_i32_sum(void *temp, size_t bytes, const int *in, int *out, int n, cudaStream_t s);
cudaError_t cub_f32_max(void *temp, size_t bytes, const float *in, float *out, int n, cudaStream_t s);

// ---- "Faster Parallel Reductions on Kepler" (shuffle, 2 launches) -----------
// partials must hold kepler_max_partials() elements.
int kepler_max_partials();
void kepler_f32_sum(const float *in, float *partials, float *out, int n, cudaStream_t s);
void kepler_i32_sum(const int *in, int *partials, int *out, int n, cudaStream_t s);
void kepler_f32_max(const float *in, float *partials, float *out, int n, cudaStream_t s);

// ---- Harris reduce6-style shared-memory tree (2 launches) -------------------
int harris_max_partials();
void harris_f32_sum(const float *in, float *partials, float *out, int n, cudaStream_t s);
void harris_i32_sum(const int *in, int *partials, int *out, int n, cudaStream_t s);
void harris_f32_max(const float *in, float *partials, float *out, int n, cudaStream_t s);
