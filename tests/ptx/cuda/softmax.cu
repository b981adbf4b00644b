// softmax.cu - row softmax of a rows x cols matrix: one warp per row finds
// the row's maximum and the sum of exponentials with butterfly shuffles,
// then writes exp(x - max) / sum (the maximum keeps exp from overflowing).
// Parameters: const float *x, float *y (both rows x cols, row-major), int rows, int cols.
// Launch: grid ceil(rows / 4), block (32, 4): warp threadIdx.y of the block takes one row.
__device__ float warp_max(float v) {
  for (int m = 16; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, m));
  return v;
}

__device__ float warp_add(float v) {
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  return v;
}

__global__ void softmax_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const float *in = x + (size_t)row * cols;
  float m = -3.402823466e38f;
  for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, in[c]);
  m = warp_max(m);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += 32) s += __expf(in[c] - m);
  float inv = 1.0f / warp_add(s);
  for (int c = threadIdx.x; c < cols; c += 32) y[(size_t)row * cols + c] = __expf(in[c] - m) * inv;
}
