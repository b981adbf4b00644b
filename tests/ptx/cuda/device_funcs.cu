// device_funcs.cu - device functions clang keeps as calls (__noinline__):
// one returning a float, called from two sites (one of them in a divergent
// branch); one taking a pointer and several scalars and returning nothing;
// one calling another (a nested call); and one returning from inside a
// loop, called only by some lanes (a divergent call).
// Parameters: n elements, input x, outputs y, z and w, scale s.
// Launch: grid ceil(n / 128), block 128; one thread per element.
__device__ __noinline__ float poly(float v, float c) { return v * v + c; }

__device__ __noinline__ int clampi(int v, int lo, int hi) {
    if (v < lo) return lo;
    if (v > hi) return hi;
    return v;
}

__device__ __noinline__ float twice_poly(float v) { return poly(v, 1.0f) + poly(-v, 2.0f); }

__device__ __noinline__ void store_scaled(float *out, int i, float v, float s, int bias) {
    out[i] = v * s + (float)clampi(bias + i, -4, 40);
}

// The first of x[0..n) above t, its index; -1 if none.
__device__ __noinline__ int first_above(const float *x, int n, float t) {
    for (int k = 0; k < n; k++)
        if (x[k] > t) return k;
    return -1;
}

__global__ void device_funcs(int n, const float *x, float *y, float *z, int *w, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float a = poly(v, 0.5f);
    if (i % 3 == 0) a = poly(a, -1.0f);
    store_scaled(y, i, a, s, i % 7 - 10);
    z[i] = twice_poly(v);
    int left = n - i < 8 ? n - i : 8;
    w[i] = v < 0.0f ? first_above(x + i, left, v + 1.0f) : -2;
}
