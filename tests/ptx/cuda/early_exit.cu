// early_exit.cu - threads leave the kernel at different points: past the end
// of the data, after a non-negative value is copied, or after a negative one
// is counted (atomicAdd) and replaced by zero.
// Parameters: const float *x, float *y, int n, int *negatives (zeroed by the host).
// Launch: grid ceil(n / 256), block 256.
__global__ void relu_count(const float *x, float *y, int n, int *negatives) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  if (v >= 0.0f) {
    y[i] = v;
    return;
  }
  atomicAdd(negatives, 1);
  y[i] = 0.0f;
}
