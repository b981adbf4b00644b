// bytes.cu - kernels that store 8- and 16-bit values: an RGBA8 brighten
// (channel by channel, and as whole uchar4 pixels), a float -> uint8
// quantizer that reverses each block's bytes through shared memory, and a
// float -> uint16 quantizer.
// Parameters: brighten, brighten4: const uchar4 *in, unsigned char *out
//             (uchar4 *out for brighten4), int n (pixels), float gain;
//             quantize_u8: const float *in, unsigned char *out, int n;
//             quantize_u16: const float *in, unsigned short *out, int n.
// Launch: grid ceil(n / 256), block 256.
// brighten: out[4i + c] = min(255, (int)(in[i].c * gain)) for c = x, y, z,
// and out[4i + 3] = in[i].w, each channel stored as its own byte;
// brighten4 the same, a pixel per store. quantize_u8: q(x) = x * 255
// clamped to [0, 255], plus 0.5, truncated (ties round up); block b's
// thread t writes the q of element b * 256 + (255 - t) (a whole block; past
// n the value 0). quantize_u16: q with 65535, element by element.

__global__ void brighten(const uchar4 *in, unsigned char *out, int n, float gain) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uchar4 p = in[i];
  out[4 * i + 0] = (unsigned char)min(255, (int)(p.x * gain));
  out[4 * i + 1] = (unsigned char)min(255, (int)(p.y * gain));
  out[4 * i + 2] = (unsigned char)min(255, (int)(p.z * gain));
  out[4 * i + 3] = p.w;
}

__global__ void brighten4(const uchar4 *in, uchar4 *out, int n, float gain) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uchar4 p = in[i];
  out[i] = make_uchar4((unsigned char)min(255, (int)(p.x * gain)), (unsigned char)min(255, (int)(p.y * gain)),
                       (unsigned char)min(255, (int)(p.z * gain)), p.w);
}

__device__ __forceinline__ unsigned quantize(float x, float top) {
  return (unsigned)(fminf(fmaxf(x * top, 0.0f), top) + 0.5f);
}

__global__ void quantize_u8(const float *in, unsigned char *out, int n) {
  __shared__ unsigned char tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? (unsigned char)quantize(in[i], 255.0f) : 0;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void quantize_u16(const float *in, unsigned short *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (unsigned short)quantize(in[i], 65535.0f);
}
