// scan.cu - block-level inclusive prefix sum: each block scans its BLOCK
// elements (Hillis-Steele within each warp through __shfl_up_sync, then the
// warp totals scanned by warp 0, then added back) and writes the block's
// total to block_sums for a second pass to combine.
// Parameters: const int *in, int *out, int *block_sums (one per block), int n.
// Launch: grid ceil(n / BLOCK), block BLOCK = 256.
#define BLOCK 256

__device__ int warp_inclusive_scan(int v) {
  int lane = threadIdx.x % 32;
  for (int d = 1; d < 32; d *= 2) {
    int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  return v;
}

__global__ void scan_inclusive(const int *in, int *out, int *block_sums, int n) {
  __shared__ int warp_totals[BLOCK / 32];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int v = i < n ? in[i] : 0;
  v = warp_inclusive_scan(v);
  if (lane == 31) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int t = lane < BLOCK / 32 ? warp_totals[lane] : 0;
    t = warp_inclusive_scan(t);
    if (lane < BLOCK / 32) warp_totals[lane] = t;
  }
  __syncthreads();
  if (warp > 0) v += warp_totals[warp - 1];
  if (i < n) out[i] = v;
  if (threadIdx.x == BLOCK - 1) block_sums[blockIdx.x] = v;
}
