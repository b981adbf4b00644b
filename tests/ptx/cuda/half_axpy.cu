// half_axpy.cu - y = a * x + y in half precision, two values per thread
// (__half2, one fma.rn.f16x2), and a float -> half conversion kernel.
// Parameters: half_axpy: int n2 (pairs), float a, const __half2 *x, __half2 *y;
//             to_half: const float *in, __half *out, int n.
// Launch: grid ceil(n2 / 256) (ceil(n / 256) for to_half), block 256.
#include <cuda_fp16.h>

__global__ void half_axpy(int n2, float a, const __half2 *x, __half2 *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) y[i] = __hfma2(__float2half2_rn(a), x[i], y[i]);
}

__global__ void to_half(const float *in, __half *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2half(in[i]);
}
