// reduce_warp.cu - sum of n floats into *out: each thread strides over the
// input, warps reduce with __shfl_down_sync, warp leaders meet in shared
// memory, and one atomicAdd per block adds the block's sum.
// Parameters: const float *x, float *out (zeroed by the host), int n.
// Launch: any grid (e.g. 64 blocks), block BLOCK (256, a multiple of 32).
#include <cuda_runtime.h>

#ifndef BLOCK
#define BLOCK 256
#endif

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduce_sum(const float *x, float *out, int n) {
  __shared__ float partial[BLOCK / 32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
  v = warp_sum(v);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < BLOCK / 32 ? partial[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(out, v);
  }
}
