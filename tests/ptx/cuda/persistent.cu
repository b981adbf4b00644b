// persistent.cu - a persistent kernel: as many blocks as the GPU holds at
// once, each looping over work items until the queue runs dry. Thread 0 of a
// block spins on a volatile flag until the producer (the host, or another
// kernel) publishes work, then takes the next item with atomicAdd; the
// block scales that item's blockDim.x floats.
// Parameters: volatile int *ready (set non-zero by the producer), int *next_item (zeroed),
//             const float *in, float *out (n_items * blockDim.x floats each), int n_items.
// Launch: grid = number of SMs (or the occupancy limit), block 128.
__global__ void persistent_worker(volatile int *ready, int *next_item, const float *in, float *out, int n_items) {
  __shared__ int item;
  for (;;) {
    if (threadIdx.x == 0) {
      while (*ready == 0) {
      }
      item = atomicAdd(next_item, 1);
    }
    __syncthreads();
    int it = item;
    if (it >= n_items) return;
    size_t idx = (size_t)it * blockDim.x + threadIdx.x;
    out[idx] = in[idx] * 2.0f;
    __syncthreads();
  }
}
