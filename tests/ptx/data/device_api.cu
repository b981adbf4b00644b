// device_api.cu - every device-side function of warpscope's CUDA headers
// called once, so tests/ptx/test_cuda.c can check that each becomes the PTX
// instruction docs/cuda.md promises. Not a kernel to run: the results only
// go to out[] so that nothing is optimized away.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <warpscope_mma.h>

__global__ void device_api(float *f, int *i, unsigned *u, unsigned long long *ull, double *d, const float4 *v4,
                           const float2 *v2, const int4 *i4, __half *h, __half2 *h2, float *out) {
  __shared__ __align__(16) __half tile[32][8];
  __shared__ int s[32];
  unsigned t = threadIdx.x;
  s[t] = (int)t;
  __syncthreads();
  int c = __syncthreads_count(t > 3) + __syncthreads_and(t > 1) + __syncthreads_or(t > 2);
  __syncwarp();
  __threadfence_block();
  __threadfence();
  __threadfence_system();
  float x = f[t];
  x += __shfl_sync(0xffffffffu, x, 0) + __shfl_up_sync(0xffffffffu, x, 1) + __shfl_down_sync(0xffffffffu, x, 2) +
       __shfl_xor_sync(0xffffffffu, x, 4, 16);
  c += __shfl_sync(0xffffffffu, c, 3) + (int)__shfl_down_sync(0xffffffffu, (unsigned)c, 1);
  c += (int)__ballot_sync(0xffffffffu, x > 0) + __all_sync(0xffffffffu, x > 1) + __any_sync(0xffffffffu, x > 2);
  c += (int)__activemask() + __popc(t) + __clz(c) + __ffs(c) + (int)__brev(t) + (int)__lanemask_lt();
  atomicAdd(i, 1);
  atomicAdd(u, 1u);
  atomicAdd(ull, 1ull);
  atomicAdd(f, 1.0f);
  atomicAdd(d, 1.0);
  atomicSub(i, 2);
  atomicMin(i, 3);
  atomicMin(u, 3u);
  atomicMax(i, 4);
  atomicMax(u, 4u);
  atomicExch(i, 5);
  atomicExch(f + 1, 5.0f);
  atomicCAS(i, 1, 2);
  atomicCAS(ull, 1ull, 2ull);
  atomicAnd(i, 1);
  atomicOr(i, 2);
  atomicXor(i, 3);
  atomicInc(u, 9u);
  atomicDec(u, 9u);
  atomicAdd(&s[t % 4], 1);
  float4 a = __ldg(v4);
  float2 b = __ldg(v2);
  int4 e = __ldg(i4);
  x += __ldg(f + 2) + (float)__ldg(i + 1) + (float)__ldg(u + 1) + a.x + a.w + b.y + (float)e.z;
  x += __expf(x) + __exp2f(x) + __logf(x) + __log2f(x) + __sinf(x) + __cosf(x) + __fdividef(x, 3.0f);
  x += __frcp_rn(x) + __fsqrt_rn(x) + __fmaf_rn(x, x, 1.0f) + __saturatef(x) + rsqrtf(x) + sqrtf(x) + expf(x);
  x += exp2f(x) + logf(x) + log2f(x) + sinf(x) + cosf(x) + powf(x, 2.5f) + fmaxf(x, 1.0f) + fminf(x, 2.0f);
  x += fabsf(x) + fmaf(x, 2.0f, 1.0f) + floorf(x) + ceilf(x) + truncf(x) + roundf(x) + tanhf(x);
  x += min(x, 1.0f) + max(x, 2.0f) + (float)(min(c, 3) + max(c, 4) + (int)min(t, 5u) + (int)max(t, 6u));
  x += (float)(__float2int_rn(x) + __float2int_rz(x) + (int)__float_as_uint(x) + __float_as_int(x));
  x += __uint_as_float(t) + __int_as_float(c) + (float)clock() + (float)clock64();
  __half hx = __float2half(x), hy = __int2half_rn(c);
  __half hz = __hfma(__hadd(hx, hy), __hmul(hx, hy), __hsub(hx, __hneg(hy)));
  hz = __hmax(hz, __hmin(hx, __hdiv(hx, hy))) + hx * hy - hx / hy;
  h[t] = hz;
  __half2 p = __halves2half2(hx, hz), q = __floats2half2_rn(x, 1.0f);
  p = __hfma2(__hadd2(p, q), __hmul2(p, __float2half2_rn(2.0f)), __hsub2(q, __half2half2(hy))) + p * q - q;
  p = __hmax2(__hneg2(p), __habs2(__hmin2(p, q))) - (-q);
  h2[t] = p;
  x += (__hle(hx, __habs(hy)) ? 1.0f : 0.0f) + (__hge(hx, hy) ? 2.0f : 0.0f) + (__hne(hx, hy) ? 4.0f : 0.0f) +
       (__heq(hx, hy) ? 8.0f : 0.0f) + (__hneu(hx, hy) ? 16.0f : 0.0f) + (__hisnan(hx) ? 32.0f : 0.0f) +
       (hx <= hy ? 64.0f : 0.0f) + (hx >= hy ? 128.0f : 0.0f) + (hx != hy ? 256.0f : 0.0f);
  __nv_bfloat162 bp = __floats2bfloat162_rn(x, 2.0f), bq = __float2bfloat162_rn(x);
  bp = __hmax2(__hfma2(bp, bq, bp) + bq * bp - bq, __hmin2(__hneg2(bp), __habs2(bq)));
  __nv_bfloat16 bh = __hfma(__low2bfloat16(bp), __high2bfloat16(bp), __float2bfloat16_rn(x));
  bh = __hadd(__hmul(bh, bh), __halves2bfloat162(bh, bh).x ? bh : __float2bfloat16(1.0f));
  x += __bfloat162float(bh) + __low2float(bp) + __high2float(bp) + (__hlt(bh, __low2bfloat16(bq)) ? 1.0f : 0.0f);
  x += __half2float(hz) + (float)__half2int_rz(hx) + __low2float(p) + __high2float(p) +
       (__hlt(hx, hy) ? 1.0f : 0.0f) + (hx > hy ? 1.0f : 0.0f) + (float)__half_as_ushort(__low2half(p)) +
       __half2float(__ushort_as_half(7)) + __half2float(__high2half(p));
  ws_cp_async_16(&tile[t][0], &h[8 * t]);
  ws_cp_async_commit();
  ws_cp_async_wait(1);
  ws_cp_async_wait_all();
  unsigned ra[4], rb[2], rt[2];
  ws_ldmatrix_x4(ra, &tile[t][0]);
  ws_ldmatrix_x2(rb, &tile[t % 16][0]);
  ws_ldmatrix_x2_trans(rt, &tile[t % 16][0]);
  float acc[4] = {x, x, x, x};
  ws_mma_m16n8k16_f16_f32(acc, ra, rb, acc);
  out[t] = x + acc[0] + acc[3] + (float)(rt[0] + rt[1]) + (float)c;
  printf("%d %f\n", c, x);
  dim3 tid = threadIdx;
  uint3 bid = blockIdx;
  dim3 bd = blockDim;
  uint3 gd = gridDim;
  out[t + 32] = (float)(tid.y + bid.z + bd.x + gd.y + warpSize);
  float4 m4 = make_float4(1, 2, 3, 4);
  int2 m2 = make_int2(1, 2);
  uint4 mu = make_uint4(1, 2, 3, 4);
  out[t + 64] = m4.y + (float)m2.x + (float)mu.w;
}
