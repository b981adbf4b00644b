// transpose_naive.cu - out = in^T for a rows x cols row-major matrix, read
// coalesced and written with a stride of rows floats (each warp's store
// touches 32 different lines).
// Parameters: const float *in (rows x cols), float *out (cols x rows), int rows, int cols.
// Launch: grid (ceil(cols / TILE), ceil(rows / TILE)), block (TILE, TILE) with TILE = 32.
#define TILE 32

__global__ void transpose_naive(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
