// local_array.cu - a per-thread array indexed by data: clang keeps it in local
// memory (__local_depot0). Parameters: const int *idx, float *out; one thread
// per element: out[t] = (idx[t] & 15) * 0.5 + t.
__global__ void k(const int *idx, float *out) {
  float a[16];
  for (int i = 0; i < 16; i++) a[i] = i * 0.5f + threadIdx.x;
  out[threadIdx.x] = a[idx[threadIdx.x] & 15];
}
