// sgemm_ladder.cu - the SGEMM optimisation ladder of docs/kernels.md written in
// CUDA C: C[M][N] = A[M][K] * B[K][N], fp32, row-major, any M, N, K.
//
// One kernel per step, each templated by the tiles that step reads (in the
// order bm bn bk tm tn wm wn threads), e.g. sgemm_warptile<128, 128, 8, 4, 4,
// 32, 64, 256>. Each mirrors the generated kernel of models/kgen/gemmgen_emit.c:
// the same thread -> data maps, shared-memory layouts and padding, vector
// widths, zeros past the edges of A and B, the run-time alignment branch
// (K % 4, N % 4) in front of 128-bit loads, and the epilogue's split between
// tiles wholly inside C (wide, unchecked stores) and edge tiles (one checked
// float at a time). Only C = A * B is computed: no bias, GELU or residual.
// `warpscope gemm --source cuda` compiles this file (it is embedded in the
// binary) and runs the instance of the step's tiles.
// Launch: grid (ceil(N/bn), ceil(M/bm), 1), block (threads, 1, 1).
#include <cuda_fp16.h>
#include <warpscope_mma.h>

#define DEV static __device__ __forceinline__

// ---- pieces every step shares ---------------------------------------------------------

// 4 or 1 floats from global memory, zeros where the chunk does not exist.
template <int VW> DEV void load_chunk(float *dst, const float *src, bool exists) {
  if (VW == 4) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (exists) v = *reinterpret_cast<const float4 *>(src);
    dst[0] = v.x, dst[1] = v.y, dst[2] = v.z, dst[3] = v.w;
  } else {
    float v = 0.0f;
    if (exists) v = *src;
    dst[0] = v;
  }
}

// A value the compiler must treat as new at each use: the unaligned paths'
// column tests are loop-invariant, and hoisted out of the k loop they would
// be several predicates live across it (the translator keeps at most 7).
// The empty asm emits no instruction.
DEV int opaque(int v) {
  asm volatile("" : "+r"(v));
  return v;
}

// One element of an unaligned chunk, tested on its own.
DEV float load_elem(const float *src, bool exists) { return exists ? *src : 0.0f; }

template <int VW> DEV void store_shared(float *dst, const float *v) {
  if (VW == 4)
    *reinterpret_cast<float4 *>(dst) = make_float4(v[0], v[1], v[2], v[3]);
  else
    dst[0] = v[0];
}

// Row (column) offset of a thread's output a (b): blocks of TM (TN) spaced
// RS (CS) apart, as the generator's row_off / col_off.
template <int TM, int RS> DEV int row_off(int a) { return (a / TM) * RS + a % TM; }

// The thread's first output row and column in the CTA tile. Without warp
// tiles a grid of (BM/TM) x (BN/TN) threads; with them, warps own WM x WN
// tiles and a warp's lanes form 4 rows x 8 columns.
template <int BN, int TM, int TN, int WM, int WN>
DEV void thread_tile(unsigned tid, unsigned &row, unsigned &col) {
  if (WM == 0) {
    row = tid / (BN / TN) * TM;
    col = tid % (BN / TN) * TN;
    return;
  }
  unsigned warp = tid / 32, lane = tid % 32;
  row = warp / (BN / WN) * WM + lane / 8 * TM;
  col = warp % (BN / WN) * WN + lane % 8 * TN;
}

// The epilogue: NR rows of NS segments of VW outputs per thread; acc holds
// row a, segment s, value v at a * NS * VW + s * VW + v. Tiles wholly inside
// C (and N a multiple of CW) store CW floats at a time unchecked; edge tiles
// test every element.
template <int BM, int BN, int CW, int NR, int NS, int VW, int TM, int RS, int CS>
DEV void epilogue(float *C, unsigned M, unsigned N, unsigned rowb, unsigned colb, const float *acc) {
  bool inside = (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N && (CW == 1 || N % CW == 0);
  if (inside) {
#pragma unroll
    for (int a = 0; a < NR; a++) {
      float *pc = C + ((rowb + row_off<TM, RS>(a)) * N + colb);
#pragma unroll
      for (int s = 0; s < NS; s++)
#pragma unroll
        for (int v = 0; v < VW; v += CW) {
          const float *x = &acc[(a * NS + s) * VW + v];
          if (CW == 4)
            *reinterpret_cast<float4 *>(pc + s * CS + v) = make_float4(x[0], x[1], x[2], x[3]);
          else if (CW == 2)
            *reinterpret_cast<float2 *>(pc + s * CS + v) = make_float2(x[0], x[1]);
          else
            pc[s * CS + v] = x[0];
        }
    }
    return;
  }
  // the column test is written against the row's end (row * N + N), so it
  // depends on the row and is not kept live across rows as NS * VW predicates
#pragma unroll
  for (int a = 0; a < NR; a++) {
    unsigned row = rowb + row_off<TM, RS>(a), first = row * N + colb, end = row * N + N;
    float *pc = C + first;
    bool row_in = row < M;
#pragma unroll
    for (int s = 0; s < NS; s++)
#pragma unroll
      for (int v = 0; v < VW; v++)
        if (row_in && first + s * CS + v < end) pc[s * CS + v] = acc[(a * NS + s) * VW + v];
  }
}

// ---- naive and coalesced: one thread per output ------------------------------------------

// Consecutive threads take consecutive ROWS: a warp's loads of A touch 32 rows.
template <int BM, int BN, int THREADS>
__global__ void sgemm_naive(const float *A, const float *B, float *C, unsigned M, unsigned N, unsigned K) {
  unsigned row = blockIdx.y * BM + threadIdx.x % BM, col = blockIdx.x * BN + threadIdx.x / BM;
  if (row >= M || col >= N) return;
  const float *pa = A + row * K, *pb = B + col;
  float acc = 0.0f;
#pragma unroll 1
  for (unsigned k = 0; k < K; k++, pa++, pb += N) acc = fmaf(*pa, *pb, acc);
  C[row * N + col] = acc;
}

// Consecutive threads take consecutive COLUMNS: A is a broadcast, B one line.
template <int BM, int BN, int THREADS>
__global__ void sgemm_coalesced(const float *A, const float *B, float *C, unsigned M, unsigned N,
                                unsigned K) {
  unsigned row = blockIdx.y * BM + threadIdx.x / BN, col = blockIdx.x * BN + threadIdx.x % BN;
  if (row >= M || col >= N) return;
  const float *pa = A + row * K, *pb = B + col;
  float acc = 0.0f;
#pragma unroll 1
  for (unsigned k = 0; k < K; k++, pa++, pb += N) acc = fmaf(*pa, *pb, acc);
  C[row * N + col] = acc;
}

// ---- the tiled steps with one shared stage: smem, blocktile1d, blocktile2d, vectorized, warptile ----

// VEC: 128-bit global loads, shared reads and stores of C; TRANS: A stored
// As[k][m]. Each k tile: every load in flight into staging registers, then
// the stores to shared memory, a barrier, the fully unrolled outer products,
// a barrier.
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int THREADS, bool VEC, bool TRANS>
DEV void tiled_sync(const float *A, const float *B, float *C, unsigned M, unsigned N, unsigned K) {
  constexpr int VW = VEC ? 4 : 1;
  constexpr int CPR_A = BK / VW, RPP_A = THREADS / CPR_A, PASSES_A = BM / RPP_A;
  constexpr int CPR_B = BN / VW, RPP_B = THREADS / CPR_B, PASSES_B = BK / RPP_B;
  constexpr int RG = WM ? WM / (4 * TM) : 1, CG = WN ? WN / (8 * TN) : 1;
  constexpr int RS = 4 * TM, CS = 8 * TN, NA = RG * TM, NB = CG * TN;
  __shared__ __align__(16) float As[BM * BK]; // As[BK][BM] when TRANS, else As[BM][BK]
  __shared__ __align__(16) float Bs[BK * BN];
  const unsigned tid = threadIdx.x;
  unsigned trow, tcol;
  thread_tile<BN, TM, TN, WM, WN>(tid, trow, tcol);
  // A: thread t copies chunk t % CPR_A of tile row t / CPR_A, then RPP_A rows further per pass
  const unsigned arow = tid / CPR_A, ak = tid % CPR_A * VW, growa = blockIdx.y * BM + arow;
  const unsigned brow = tid / CPR_B, bcol = tid % CPR_B * VW, gcolb = blockIdx.x * BN + bcol;
  const float *pa = A + (growa * K + ak), *pb = B + (brow * N + gcolb);
  int lima[PASSES_A], limb[PASSES_B]; // the chunk exists iff k0 < lim
#pragma unroll
  for (int q = 0; q < PASSES_A; q++) lima[q] = (growa + q * RPP_A < M ? (int)K : 0) - (int)ak;
  const int limb0 = (gcolb < N ? (int)K : 0) - (int)brow, colsb = (int)N - (int)gcolb;
#pragma unroll
  for (int q = 0; q < PASSES_B; q++) limb[q] = limb0 - q * RPP_B;
  const bool aligned_a = K % 4 == 0, aligned_b = N % 4 == 0;
  float acc[NA * NB];
#pragma unroll
  for (int i = 0; i < NA * NB; i++) acc[i] = 0.0f;
#pragma unroll 1
  for (unsigned k0 = 0; k0 < K; k0 += BK) {
    float sa[PASSES_A][VW], sb[PASSES_B][VW];
    if (!VEC || aligned_a) {
#pragma unroll
      for (int q = 0; q < PASSES_A; q++) load_chunk<VW>(sa[q], pa + q * RPP_A * K, (int)k0 < lima[q]);
    } else {
#pragma unroll
      for (int q = 0; q < PASSES_A; q++)
#pragma unroll
        for (int j = 0; j < VW; j++) sa[q][j] = load_elem(pa + q * RPP_A * K + j, (int)k0 + j < lima[q]);
    }
    if (!VEC || aligned_b) {
#pragma unroll
      for (int q = 0; q < PASSES_B; q++) load_chunk<VW>(sb[q], pb + q * RPP_B * N, (int)k0 < limb[q]);
    } else {
#pragma unroll
      for (int q = 0; q < PASSES_B; q++)
#pragma unroll
        for (int j = 0; j < VW; j++)
          sb[q][j] = load_elem(pb + q * RPP_B * N + j, (int)k0 < limb[q] && opaque(colsb) > j);
    }
#pragma unroll
    for (int q = 0; q < PASSES_A; q++) {
      if (TRANS) {
#pragma unroll
        for (int j = 0; j < VW; j++) As[(ak + j) * BM + arow + q * RPP_A] = sa[q][j];
      } else {
        store_shared<VW>(&As[(arow + q * RPP_A) * BK + ak], sa[q]);
      }
    }
#pragma unroll
    for (int q = 0; q < PASSES_B; q++) store_shared<VW>(&Bs[(brow + q * RPP_B) * BN + bcol], sb[q]);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; k++) {
      float fa[NA], fb[NB];
#pragma unroll
      for (int a = 0; a < NA; a += (TRANS ? 4 : 1)) {
        if (TRANS) {
          float4 v = *reinterpret_cast<const float4 *>(&As[k * BM + trow + row_off<TM, RS>(a)]);
          fa[a] = v.x, fa[a + 1] = v.y, fa[a + 2] = v.z, fa[a + 3] = v.w;
        } else {
          fa[a] = As[(trow + row_off<TM, RS>(a)) * BK + k];
        }
      }
#pragma unroll
      for (int b = 0; b < NB; b += VW) {
        const float *src = &Bs[k * BN + tcol + row_off<TN, CS>(b)];
        if (VEC) {
          float4 v = *reinterpret_cast<const float4 *>(src);
          fb[b] = v.x, fb[b + 1] = v.y, fb[b + 2] = v.z, fb[b + 3] = v.w;
        } else {
          fb[b] = *src;
        }
      }
#pragma unroll
      for (int a = 0; a < NA; a++)
#pragma unroll
        for (int b = 0; b < NB; b++) acc[a * NB + b] = fmaf(fa[a], fb[b], acc[a * NB + b]);
    }
    __syncthreads();
    pa += BK;
    pb += BK * N;
  }
  epilogue<BM, BN, VW, NA, CG, TN, TM, RS, CS>(C, M, N, blockIdx.y * BM + trow, blockIdx.x * BN + tcol, acc);
}

// The CTA stages a bm x bk tile of A and a bk x bn tile of B in shared memory.
template <int BM, int BN, int BK, int THREADS>
__global__ void sgemm_smem(const float *A, const float *B, float *C, unsigned M, unsigned N, unsigned K) {
  tiled_sync<BM, BN, BK, 1, 1, 0, 0, THREADS, false, false>(A, B, C, M, N, K);
}

// Each thread computes TM outputs of a column (TN = 1 by default).
template <int BM, int BN, int BK, int TM, int TN, int THREADS>
__global__ void sgemm_blocktile1d(const float *A, const float *B, float *C, unsigned M, unsigned N,
                                  unsigned K) {
  tiled_sync<BM, BN, BK, TM, TN, 0, 0, THREADS, false, false>(A, B, C, M, N, K);
}

// Each thread computes a TM x TN block: an outer product per k.
template <int BM, int BN, int BK, int TM, int TN, int THREADS>
__global__ void sgemm_blocktile2d(const float *A, const float *B, float *C, unsigned M, unsigned N,
                                  unsigned K) {
  tiled_sync<BM, BN, BK, TM, TN, 0, 0, THREADS, false, false>(A, B, C, M, N, K);
}

// 128-bit global loads, A stored transposed so both fragments are LDS.128.
template <int BM, int BN, int BK, int TM, int TN, int THREADS>
__global__ void sgemm_vectorized(const float *A, const float *B, float *C, unsigned M, unsigned N,
                                 unsigned K) {
  tiled_sync<BM, BN, BK, TM, TN, 0, 0, THREADS, true, true>(A, B, C, M, N, K);
}

// Warps own WM x WN tiles; lanes 4 x 8, each 2 x 2 blocks of TM x TN outputs.
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int THREADS>
__global__ void sgemm_warptile(const float *A, const float *B, float *C, unsigned M, unsigned N,
                               unsigned K) {
  tiled_sync<BM, BN, BK, TM, TN, WM, WN, THREADS, true, true>(A, B, C, M, N, K);
}

// ---- async: two stages filled by cp.async ---------------------------------------------------

// 4 bytes global -> shared (the unaligned path's copy of one element).
DEV void cp_async_4(void *smem_dst, const void *gmem_src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(ws_smem_addr(smem_dst)), "l"(gmem_src)
               : "memory");
}

// Rows of As are padded by 4 floats, so the 4 rows a warp reads at once
// (4*TM apart) fall in different banks; LDGSTS cannot transpose, so A is
// read along k, two k at a time (LDS.64).
template <int BM, int BN, int BK, int TM, int TN, int WM, int WN, int THREADS>
__global__ void sgemm_async(const float *A, const float *B, float *C, unsigned M, unsigned N, unsigned K) {
  constexpr int LDA = BK + 4;
  constexpr int CPR_A = BK / 4, RPP_A = THREADS / CPR_A, PASSES_A = BM / RPP_A;
  constexpr int CPR_B = BN / 4, RPP_B = THREADS / CPR_B, PASSES_B = BK / RPP_B;
  constexpr int RG = WM / (4 * TM), CG = WN / (8 * TN), RS = 4 * TM, CS = 8 * TN, NA = RG * TM, NB = CG * TN;
  __shared__ __align__(16) float As[2][BM * LDA];
  __shared__ __align__(16) float Bs[2][BK * BN];
  const unsigned tid = threadIdx.x;
  unsigned trow, tcol;
  thread_tile<BN, TM, TN, WM, WN>(tid, trow, tcol);
  const unsigned arow = tid / CPR_A, ak = tid % CPR_A * 4, growa = blockIdx.y * BM + arow;
  const unsigned brow = tid / CPR_B, bcol = tid % CPR_B * 4, gcolb = blockIdx.x * BN + bcol;
  const float *pa = A + (growa * K + ak), *pb = B + (brow * N + gcolb);
  int lima[PASSES_A], limb[PASSES_B];
#pragma unroll
  for (int q = 0; q < PASSES_A; q++) lima[q] = (growa + q * RPP_A < M ? (int)K : 0) - (int)ak;
  const int limb0 = (gcolb < N ? (int)K : 0) - (int)brow, colsb = (int)N - (int)gcolb;
#pragma unroll
  for (int q = 0; q < PASSES_B; q++) limb[q] = limb0 - q * RPP_B;
  const bool aligned_a = K % 4 == 0, aligned_b = N % 4 == 0;
  float acc[NA * NB];
#pragma unroll
  for (int i = 0; i < NA * NB; i++) acc[i] = 0.0f;
  // the tile at k0 into stage s: a copy per existing chunk, zeros in shared memory for missing ones
  auto issue = [&](int s, unsigned k0) __attribute__((always_inline)) {
    float *as = &As[s][arow * LDA + ak], *bs = &Bs[s][brow * BN + bcol];
#pragma unroll
    for (int q = 0; q < PASSES_A; q++) {
      float *dst = as + q * RPP_A * LDA;
      const float *src = pa + q * RPP_A * K;
      if (aligned_a) {
        if ((int)k0 < lima[q])
          ws_cp_async_16(dst, src);
        else
          *reinterpret_cast<float4 *>(dst) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
          if ((int)k0 + j < lima[q])
            cp_async_4(dst + j, src + j);
          else
            dst[j] = 0.0f;
      }
    }
#pragma unroll
    for (int q = 0; q < PASSES_B; q++) {
      float *dst = bs + q * RPP_B * BN;
      const float *src = pb + q * RPP_B * N;
      if (aligned_b) {
        if ((int)k0 < limb[q])
          ws_cp_async_16(dst, src);
        else
          *reinterpret_cast<float4 *>(dst) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      } else {
#pragma unroll
        for (int j = 0; j < 4; j++)
          if ((int)k0 < limb[q] && opaque(colsb) > j)
            cp_async_4(dst + j, src + j);
          else
            dst[j] = 0.0f;
      }
    }
    pa += BK;
    pb += BK * N;
  };
  issue(0, 0);
  ws_cp_async_commit();
  int s = 0;
#pragma unroll 1
  for (unsigned k0 = 0; k0 < K; k0 += BK) {
    if (k0 + BK < K) issue(s ^ 1, k0 + BK);
    ws_cp_async_commit(); // an empty group on the last tile
    ws_cp_async_wait(1);  // all but the newest group landed: tile k0 is in
    __syncthreads();
    const float *as = &As[s][trow * LDA], *bs = &Bs[s][tcol];
#pragma unroll
    for (int k = 0; k < BK; k += 2) {
      float fa[NA][2], fb[NB];
#pragma unroll
      for (int a = 0; a < NA; a++) {
        float2 v = *reinterpret_cast<const float2 *>(&as[row_off<TM, RS>(a) * LDA + k]);
        fa[a][0] = v.x, fa[a][1] = v.y;
      }
#pragma unroll
      for (int kk = 0; kk < 2; kk++) {
#pragma unroll
        for (int b = 0; b < NB; b += 4) {
          float4 v = *reinterpret_cast<const float4 *>(&bs[(k + kk) * BN + row_off<TN, CS>(b)]);
          fb[b] = v.x, fb[b + 1] = v.y, fb[b + 2] = v.z, fb[b + 3] = v.w;
        }
#pragma unroll
        for (int a = 0; a < NA; a++)
#pragma unroll
          for (int b = 0; b < NB; b++) acc[a * NB + b] = fmaf(fa[a][kk], fb[b], acc[a * NB + b]);
      }
    }
    __syncthreads(); // the stage just read is the next copy's target
    s ^= 1;
  }
  epilogue<BM, BN, 4, NA, CG, TN, TM, RS, CS>(C, M, N, blockIdx.y * BM + trow, blockIdx.x * BN + tcol, acc);
}

// ---- mma: tensor cores, fragments stored in HMMA order (no ldmatrix) --------------------------

DEV unsigned pack_half2(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<unsigned *>(&h);
}

// A and B are converted to binary16 while staged and stored in fragment
// order: As in 16x16 blocks of 512 bytes (block row m/16, block column
// k/16), the half pair A[m][k..k+1] at lane 4*(m%8) + (k/2)%4, register
// (m/8)%2 + 2*((k/8)%2), byte lane*16 + register*4; Bs in 8x16 blocks of 256
// bytes, B[k..k+1][n] at lane 4*(n%8) + (k/2)%4, register (k/8)%2, byte
// lane*8 + register*4. A lane reads its A fragment with one LDS.128 and its
// B fragment with one LDS.64. The next tile is loaded into registers while
// the current one is multiplied.
template <int BM, int BN, int BK, int WM, int WN, int THREADS>
__global__ void sgemm_mma(const float *A, const float *B, float *C, unsigned M, unsigned N, unsigned K) {
  constexpr int MITER = WM / 16, NITER = WN / 8;
  constexpr int CPR_A = BK / 4, RPP_A = THREADS / CPR_A, PASSES_A = BM / RPP_A;
  constexpr int CPR_B = BK / 2, RPP_B = THREADS / CPR_B, PASSES_B = (BN / 4) / RPP_B;
  constexpr int LDA = (BK / 16) * 512, LDB = (BK / 16) * 256; // bytes per 16-row / 8-column block row
  __shared__ __align__(16) char As[BM * BK * 2];
  __shared__ __align__(16) char Bs[BN * BK * 2];
  const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const unsigned wrow = warp / (BN / WN), wcol = warp % (BN / WN);
  const unsigned rda = lane * 16 + wrow * MITER * LDA, rdb = lane * 8 + wcol * NITER * LDB;
  // A: row m, k = 4 * (tid % CPR_A); its two half pairs (k, k+1), (k+2, k+3) go 16 bytes apart
  const unsigned arow = tid / CPR_A, ak = tid % CPR_A * 4, growa = blockIdx.y * BM + arow;
  const unsigned akpart = ak / 16 * 512 + (ak / 2 % 4) * 16 + (ak / 8 % 2) * 8;
  unsigned sta[PASSES_A];
#pragma unroll
  for (int q = 0; q < PASSES_A; q++) {
    unsigned m = arow + q * RPP_A;
    sta[q] = m / 16 * LDA + akpart + (m % 8) * 64 + (m / 8 % 2) * 4;
  }
  // B: k pair p, rows 2p and 2p+1 of a 4-column chunk; column n + j is 4 lanes (32 bytes) further
  const unsigned p = tid % CPR_B, bcol = tid / CPR_B * 4;
  const unsigned bkpart = p / 8 * 256 + (p % 4) * 8 + (p / 4 % 2) * 4;
  unsigned stb[PASSES_B];
#pragma unroll
  for (int q = 0; q < PASSES_B; q++) {
    unsigned n = bcol + q * RPP_B * 4;
    stb[q] = n / 8 * LDB + bkpart + (n % 8) * 32;
  }
  const unsigned gcolb = blockIdx.x * BN + bcol;
  const float *pa = A + (growa * K + ak), *pb = B + (2 * p * N + gcolb);
  int lima[PASSES_A], limb[PASSES_B];
#pragma unroll
  for (int q = 0; q < PASSES_A; q++) lima[q] = (growa + q * RPP_A < M ? (int)K : 0) - (int)ak;
#pragma unroll
  for (int q = 0; q < PASSES_B; q++) limb[q] = (gcolb + q * RPP_B * 4 < N ? (int)K : 0) - (int)(2 * p);
  const int colsb = (int)N - (int)gcolb;
  const bool aligned_a = K % 4 == 0, aligned_b = N % 4 == 0;
  float acc[MITER * NITER * 4];
#pragma unroll
  for (int i = 0; i < MITER * NITER * 4; i++) acc[i] = 0.0f;
  float sa[PASSES_A][4], sb[PASSES_B][8];
  // global -> staging registers for the tile at k0 (zeros past the edges)
  auto load = [&](unsigned k0) __attribute__((always_inline)) {
    const float *pb2 = pb + N; // row 2p + 1
#pragma unroll
    for (int q = 0; q < PASSES_A; q++) {
      if (aligned_a) {
        load_chunk<4>(sa[q], pa + q * RPP_A * K, (int)k0 < lima[q]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; j++) sa[q][j] = load_elem(pa + q * RPP_A * K + j, (int)k0 + j < lima[q]);
      }
    }
#pragma unroll
    for (int q = 0; q < PASSES_B; q++) {
      if (aligned_b) {
        load_chunk<4>(sb[q], pb + q * RPP_B * 4, (int)k0 < limb[q]);
        load_chunk<4>(sb[q] + 4, pb2 + q * RPP_B * 4, (int)k0 + 1 < limb[q]);
      } else {
#pragma unroll
        for (int r = 0; r < 2; r++)
#pragma unroll
          for (int j = 0; j < 4; j++)
            sb[q][r * 4 + j] = load_elem((r ? pb2 : pb) + q * RPP_B * 4 + j,
                                         (int)k0 + r < limb[q] && opaque(colsb) > q * RPP_B * 4 + j);
      }
    }
  };
  load(0);
#pragma unroll 1
  for (unsigned k0 = 0; k0 < K;) {
#pragma unroll
    for (int q = 0; q < PASSES_A; q++) {
      *reinterpret_cast<unsigned *>(As + sta[q]) = pack_half2(sa[q][0], sa[q][1]);
      *reinterpret_cast<unsigned *>(As + sta[q] + 16) = pack_half2(sa[q][2], sa[q][3]); // k+2: the next lane
    }
#pragma unroll
    for (int q = 0; q < PASSES_B; q++)
#pragma unroll
      for (int j = 0; j < 4; j++)
        *reinterpret_cast<unsigned *>(Bs + stb[q] + j * 32) = pack_half2(sb[q][j], sb[q][4 + j]);
    __syncthreads();
    pa += BK;
    pb += BK * N;
    k0 += BK;
    load(k0); // in flight during the HMMAs
#pragma unroll
    for (int ks = 0; ks < BK / 16; ks++) {
      unsigned fa[MITER][4], fb[NITER][2];
#pragma unroll
      for (int mi = 0; mi < MITER; mi++) {
        uint4 v = *reinterpret_cast<const uint4 *>(As + rda + mi * LDA + ks * 512);
        fa[mi][0] = v.x, fa[mi][1] = v.y, fa[mi][2] = v.z, fa[mi][3] = v.w;
      }
#pragma unroll
      for (int ni = 0; ni < NITER; ni++) {
        uint2 v = *reinterpret_cast<const uint2 *>(Bs + rdb + ni * LDB + ks * 256);
        fb[ni][0] = v.x, fb[ni][1] = v.y;
      }
#pragma unroll
      for (int mi = 0; mi < MITER; mi++)
#pragma unroll
        for (int ni = 0; ni < NITER; ni++) {
          float *d = &acc[(mi * NITER + ni) * 4];
          ws_mma_m16n8k16_f16_f32(d, fa[mi], fb[ni], d);
        }
    }
    __syncthreads();
  }
  // lane = 4g + t holds rows g and g+8 of each 16x8 tile, columns 2t, 2t+1
  const unsigned rowb = blockIdx.y * BM + wrow * WM + lane / 4, colb = blockIdx.x * BN + wcol * WN + lane % 4 * 2;
  // rows: (mi, half) = a -> 16 mi + 8 half, i.e. row_off<2, 16> scaled by 8
  float out[MITER * 2 * NITER * 2];
#pragma unroll
  for (int mi = 0; mi < MITER; mi++)
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
      for (int ni = 0; ni < NITER; ni++)
#pragma unroll
        for (int v = 0; v < 2; v++) out[((mi * 2 + h) * NITER + ni) * 2 + v] = acc[(mi * NITER + ni) * 4 + h * 2 + v];
  epilogue<BM, BN, 2, MITER * 2, NITER, 2, 1, 8, 8>(C, M, N, rowb, colb, out);
}
