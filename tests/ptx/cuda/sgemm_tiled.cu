// sgemm_tiled.cu - C = alpha * A * B + beta * C, row-major, with TILE x TILE
// tiles of A and B staged in shared memory: each element loaded from
// global memory is used TILE times.
// Parameters: int M, int N, int K, float alpha, const float *A (M x K),
//             const float *B (K x N), float beta, float *C (M x N).
// Launch: grid (ceil(N / TILE), ceil(M / TILE)), block (TILE, TILE) with TILE = 16.
#ifndef TILE
#define TILE 16
#endif

__global__ void sgemm_tiled(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                            float *C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = row < M && k0 + tx < K ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = k0 + ty < K && col < N ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
