// sgemm_naive.cu - C = alpha * A * B + beta * C, row-major, one thread per
// element of C reading a row of A and a column of B straight from global
// memory.
// Parameters: int M, int N, int K, float alpha, const float *A (M x K),
//             const float *B (K x N), float beta, float *C (M x N).
// Launch: grid (ceil(N / 16), ceil(M / 16)), block (16, 16).
__global__ void sgemm_naive(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                            float *C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
