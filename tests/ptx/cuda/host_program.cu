// host_program.cu - a complete CUDA sample as one would write it for nvcc:
// standard headers, an error-checking macro, a __constant__ array filled
// with cudaMemcpyToSymbol, streams, events, cuBLAS on the host. Only the
// kernel is compiled (device-only); the host code must still parse.
// Kernel norm computes y[i] = sqrtf(x[i]^2 + coef[0]) + expf(x[i]) + |x[i]| + tanhf(x[i]).
// Parameters: const float *x, float *y, int n; __constant__ float coef[4].
// Launch: grid ceil(n / 256), block 256, on a stream.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <math.h>
#include <vector>
#include <cuda_runtime.h>
#include <device_launch_parameters.h>
#include <cublas_v2.h>
#define CHECK(x)                                                                                                   \
  do {                                                                                                             \
    cudaError_t e = (x);                                                                                           \
    if (e != cudaSuccess) {                                                                                        \
      printf("%s\n", cudaGetErrorString(e));                                                                        \
      exit(1);                                                                                                     \
    }                                                                                                              \
  } while (0)
__constant__ float coef[4];
__global__ void norm(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrtf(x[i] * x[i] + coef[0]) + expf(x[i]) + fabsf(x[i]) + tanhf(x[i]);
}
int main() {
  int n = 1 << 20;
  std::vector<float> h(n, 1.0f);
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc((void **)&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  float c[4] = {1, 2, 3, 4};
  cudaMemcpyToSymbol(coef, c, sizeof c);
  cudaStream_t s; cudaStreamCreate(&s);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  dim3 grid((n + 255) / 256), block(256);
  cudaEventRecord(a);
  norm<<<grid, block, 0, s>>>(dx, dy, n);
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("%f %f\n", ms, sqrtf(2.0f));
  cublasHandle_t hd; cublasCreate(&hd);
  cudaFree(dx); cudaFree(dy);
  return 0;
}
