// half2_math.cu - packed half-precision arithmetic, two values per thread:
// half2_fma runs binary16 __half2 through fma, sub, mul, max, neg, abs and a
// comparison (HFMA2, HADD2, HMUL2, HMNMX2, HSETP2); bf16_axpy runs
// __nv_bfloat162 through fma and the add and mul cuda_bf16.h builds on it.
// Parameters: int n2 (pairs), const T *a, const T *x, T *y.
// Launch: grid ceil(n2 / 256), block 256.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void half2_fma(int n2, const __half2 *a, const __half2 *x, __half2 *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  __half2 r = __hfma2(a[i], x[i], y[i]);
  r = __hmax2(__hsub2(r, __hmul2(x[i], x[i])), __hneg2(__habs2(a[i])));
  if (__hlt(__low2half(r), __high2half(r))) r = __halves2half2(__high2half(r), __low2half(r));
  y[i] = r;
}

__global__ void bf16_axpy(int n2, const __nv_bfloat162 *a, const __nv_bfloat162 *x, __nv_bfloat162 *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) y[i] = __hadd2(__hfma2(a[i], x[i], y[i]), __hmul2(x[i], x[i]));
}
