// struct_params.cu - kernels that take structs by value: an affine map
// whose scale, shift, count and source travel in one struct, and a float4
// of channel gains with a struct that mixes an int2 and a pointer.
// Parameters: affine: Affine p (float scale, float shift, int n,
//             const float *src), float *out;
//             gains4: float4 g, Span s (int2 range, float *data).
// Launch: grid ceil(n / 256), block 256.
// affine: out[i] = p.src[i] * p.scale + p.shift for i < p.n.
// gains4: for i in [s.range.x, s.range.y): data[i] *= the gain of channel
// i % 4 (g.x, g.y, g.z, g.w).

struct Affine {
  float scale;
  float shift;
  int n;
  const float *src;
};

typedef struct {
  int2 range;
  float *data;
} Span;

__global__ void affine(Affine p, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) out[i] = p.src[i] * p.scale + p.shift;
}

__global__ void gains4(float4 g, Span s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.range.x || i >= s.range.y) return;
  int c = i % 4;
  float k = c == 0 ? g.x : c == 1 ? g.y : c == 2 ? g.z : g.w;
  s.data[i] *= k;
}
