// transpose_shared.cu - out = in^T through a TILE x TILE tile in shared
// memory, so both the global read and the global write are coalesced; the
// tile's column reads all fall in one bank (32-way conflicts).
// Parameters: const float *in (rows x cols), float *out (cols x rows), int rows, int cols.
// Launch: grid (ceil(cols / TILE), ceil(rows / TILE)), block (TILE, TILE) with TILE = 32.
#define TILE 32

__global__ void transpose_shared(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
