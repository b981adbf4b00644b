// sgemm_reg.cu - register-blocked SGEMM template sgemm_reg<BM, BN, BK, TM, TN>:
// C = alpha * A * B + beta * C, row-major, M, N, K multiples of the tile
// sizes. A block computes a BM x BN tile of C with (BM / TM) * (BN / TN)
// threads, each holding a TM x TN tile of accumulators in registers; A and
// B tiles come through shared memory with float4 loads (through __ldg, the
// read-only path: one ld.global.nc.v4.f32 each; A stored transposed
// so both inner-loop reads are contiguous).
// Parameters: int M, int N, int K, float alpha, const float *A (M x K),
//             const float *B (K x N), float beta, float *C (M x N).
// Launch: grid (N / BN, M / BM), block (BM / TM) * (BN / TN) threads;
// the committed PTX holds sgemm_reg<64,64,8,8,8> (64 threads) and
// sgemm_reg<128,128,8,8,8> (256 threads).
// instantiate: sgemm_reg<64,64,8,8,8> sgemm_reg<128,128,8,8,8>
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    sgemm_reg(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float As[BK][BM];
  __shared__ __align__(16) float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int trow = tid / (BN / TN), tcol = tid % (BN / TN);
  A += (size_t)blockIdx.y * BM * K;
  B += blockIdx.x * BN;
  C += (size_t)blockIdx.y * BM * N + blockIdx.x * BN;
  float acc[TM][TN] = {};
  float a_frag[TM], b_frag[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = tid; i < BM * BK / 4; i += THREADS) {
      int r = i / (BK / 4), c4 = i % (BK / 4);
      float4 v = __ldg(reinterpret_cast<const float4 *>(&A[r * K + k0 + c4 * 4]));
      As[c4 * 4 + 0][r] = v.x;
      As[c4 * 4 + 1][r] = v.y;
      As[c4 * 4 + 2][r] = v.z;
      As[c4 * 4 + 3][r] = v.w;
    }
    for (int i = tid; i < BK * BN / 4; i += THREADS) {
      int r = i / (BN / 4), c4 = i % (BN / 4);
      float4 w = __ldg(reinterpret_cast<const float4 *>(&B[(k0 + r) * N + c4 * 4]));
      *reinterpret_cast<float4 *>(&Bs[r][c4 * 4]) = w;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; k++) {
#pragma unroll
      for (int m = 0; m < TM; m++) a_frag[m] = As[k][trow * TM + m];
#pragma unroll
      for (int n = 0; n < TN; n++) b_frag[n] = Bs[k][tcol * TN + n];
#pragma unroll
      for (int m = 0; m < TM; m++)
#pragma unroll
        for (int n = 0; n < TN; n++) acc[m][n] += a_frag[m] * b_frag[n];
    }
    __syncthreads();
  }
#pragma unroll
  for (int m = 0; m < TM; m++)
#pragma unroll
    for (int n = 0; n < TN; n++) {
      float *c = &C[(size_t)(trow * TM + m) * N + tcol * TN + n];
      *c = alpha * acc[m][n] + beta * *c;
    }
}
