// hgemm_mma.cu - C = A * B with tensor cores: half inputs, float
// accumulators, one mma.sync.aligned.m16n8k16 per warp per 16-wide step of
// k. Each warp owns a 16 x 8 tile of C; its A (16 x 16) and B (8 x 16, n-major)
// tiles travel global -> shared with cp.async and shared -> registers with
// ldmatrix (warpscope_mma.h).
// Parameters: int M, int N, int K (multiples of 16, 32, 16), const __half *A (M x K, row-major),
//             const __half *Bt (N x K: B stored column-major), float *C (M x N, row-major).
// Launch: grid (N / 32, M / 16), block 128 (four warps side by side in n).
#include <cuda_fp16.h>
#include <warpscope_mma.h>

#define WARPS 4

__global__ void hgemm_mma(int M, int N, int K, const __half *A, const __half *Bt, float *C) {
  __shared__ __align__(16) __half As[WARPS][16][16];
  __shared__ __align__(16) __half Bs[WARPS][8][16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int m0 = blockIdx.y * 16, n0 = (blockIdx.x * WARPS + warp) * 8;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += 16) {
    // 16 rows x 2 chunks of 8 halves (16 B) for A, 8 x 2 for B
    ws_cp_async_16(&As[warp][lane / 2][(lane % 2) * 8], &A[(m0 + lane / 2) * K + k0 + (lane % 2) * 8]);
    if (lane < 16)
      ws_cp_async_16(&Bs[warp][lane / 2][(lane % 2) * 8], &Bt[(n0 + lane / 2) * K + k0 + (lane % 2) * 8]);
    ws_cp_async_commit();
    ws_cp_async_wait(0);
    __syncwarp();
    unsigned a[4], b[2];
    ws_ldmatrix_x4(a, &As[warp][lane % 16][(lane / 16) * 8]);
    ws_ldmatrix_x2(b, &Bs[warp][lane % 8][((lane / 8) % 2) * 8]);
    ws_mma_m16n8k16_f16_f32(acc, a, b, acc);
    __syncwarp();
  }
  // accumulator layout: c0, c1 in row lane / 4, c2, c3 eight rows below
  const int r = m0 + lane / 4, c = n0 + (lane % 4) * 2;
  C[r * N + c] = acc[0];
  C[r * N + c + 1] = acc[1];
  C[(r + 8) * N + c] = acc[2];
  C[(r + 8) * N + c + 1] = acc[3];
}
