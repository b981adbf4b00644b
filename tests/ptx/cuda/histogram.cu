// histogram.cu - a 256-bin histogram of n bytes: each block counts into a
// shared-memory histogram with shared atomics, then adds its bins to the
// global histogram with one global atomicAdd per bin.
// Parameters: const unsigned char *data, int n, unsigned *bins (256, zeroed).
// Launch: any grid (e.g. 32 blocks), block 256 (one thread per bin for the
// clearing and the merge).
#define BINS 256

__global__ void histogram256(const unsigned char *data, int n, unsigned *bins) {
  __shared__ unsigned local[BINS];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  if (local[threadIdx.x] != 0) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
