// transpose_padded.cu - transpose_shared with one float of padding per tile
// row: a column of the tile now spans 32 distinct banks, no conflicts.
// Parameters: const float *in (rows x cols), float *out (cols x rows), int rows, int cols.
// Launch: grid (ceil(cols / TILE), ceil(rows / TILE)), block (TILE, TILE) with TILE = 32.
#define TILE 32

__global__ void transpose_padded(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
