// divergent_loop.cu - a loop whose trip count comes from data: thread i
// iterates trips[i] times (v = v * 0.5 + 1), so lanes of one warp leave the
// loop at different iterations and the warp runs as long as its longest lane.
// Parameters: const int *trips, const float *x, float *y, int n.
// Launch: grid ceil(n / 128), block 128.
__global__ void divergent_loop(const int *trips, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    int t = trips[i];
    for (int k = 0; k < t; k++) v = v * 0.5f + 1.0f;
    y[i] = v;
  }
}
