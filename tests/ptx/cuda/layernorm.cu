// layernorm.cu - LayerNorm over each row of a rows x D matrix:
// y = (x - mean) * rsqrt(var + eps) * gamma + beta. One block per row; the
// block reduces the sum and the sum of squares through warp shuffles and a
// shared-memory array of warp partials.
// Parameters: const float *x, float *y (rows x D), const float *gamma, const float *beta (D), int D, float eps.
// Launch: grid rows, block 128 (a multiple of 32, at most 1024).
__device__ float2 warp_sum2(float2 v) {
  for (int o = 16; o > 0; o >>= 1) {
    v.x += __shfl_down_sync(0xffffffffu, v.x, o);
    v.y += __shfl_down_sync(0xffffffffu, v.y, o);
  }
  return v;
}

__global__ void layernorm(const float *x, float *y, const float *gamma, const float *beta, int D, float eps) {
  __shared__ float2 partial[32];
  __shared__ float stats[2];
  const float *in = x + (size_t)blockIdx.x * D;
  float2 acc = make_float2(0.0f, 0.0f);
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    float v = in[i];
    acc.x += v;
    acc.y += v * v;
  }
  acc = warp_sum2(acc);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : make_float2(0.0f, 0.0f);
    acc = warp_sum2(acc);
    if (threadIdx.x == 0) {
      float mean = acc.x / D;
      stats[0] = mean;
      stats[1] = rsqrtf(acc.y / D - mean * mean + eps);
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < D; i += blockDim.x)
    y[(size_t)blockIdx.x * D + i] = (in[i] - stats[0]) * stats[1] * gamma[i] + beta[i];
}
