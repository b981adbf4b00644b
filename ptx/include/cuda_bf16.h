/* cuda_bf16.h - bfloat16: __nv_bfloat16 and __nv_bfloat162, their
 * conversions and basic arithmetic.
 *
 * Design: as cuda_fp16.h, a 16-bit storage type and one line of inline PTX
 * per operation on the bf16/bf16x2 instructions; the conversions are plain
 * C on the bits (bfloat16 is binary32's top half, rounded to nearest even),
 * which compiles to a few integer instructions. An add is fma.rn with 1.0,
 * as sm_80 has it (add.bf16 needs sm_90), so it rounds once like an add. */
#ifndef WARPSCOPE_CUDA_BF16_H
#define WARPSCOPE_CUDA_BF16_H

#define WS_HD static __inline__ __host__ __device__ __attribute__((always_inline))

struct __attribute__((aligned(2))) __nv_bfloat16 {
  unsigned short x;
};
struct __attribute__((aligned(4))) __nv_bfloat162 {
  unsigned int x;
};
typedef struct __nv_bfloat16 __nv_bfloat16;
typedef struct __nv_bfloat162 __nv_bfloat162;

WS_HD __nv_bfloat16 __ws_bf16_raw(unsigned short bits) {
  __nv_bfloat16 h;
  h.x = bits;
  return h;
}
WS_HD __nv_bfloat162 __ws_bf162_raw(unsigned int bits) {
  __nv_bfloat162 h;
  h.x = bits;
  return h;
}

/* ---- conversions ----------------------------------------------------------- */
WS_HD float __bfloat162float(__nv_bfloat16 h) { return __uint_as_float((unsigned int)h.x << 16); }
WS_HD __nv_bfloat16 __float2bfloat16(float f) {
  unsigned int u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return __ws_bf16_raw(0x7fff);              /* NaN */
  return __ws_bf16_raw((unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16)); /* nearest, ties to even */
}
WS_HD __nv_bfloat16 __float2bfloat16_rn(float f) { return __float2bfloat16(f); }
WS_HD __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 lo, __nv_bfloat16 hi) {
  return __ws_bf162_raw((unsigned int)lo.x | (unsigned int)hi.x << 16);
}
WS_HD __nv_bfloat162 __floats2bfloat162_rn(float lo, float hi) {
  return __halves2bfloat162(__float2bfloat16(lo), __float2bfloat16(hi));
}
WS_HD __nv_bfloat162 __float2bfloat162_rn(float f) { return __floats2bfloat162_rn(f, f); }
WS_HD __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return __ws_bf16_raw((unsigned short)h.x); }
WS_HD __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return __ws_bf16_raw((unsigned short)(h.x >> 16)); }
WS_HD float __low2float(__nv_bfloat162 h) { return __bfloat162float(__low2bfloat16(h)); }
WS_HD float __high2float(__nv_bfloat162 h) { return __bfloat162float(__high2bfloat16(h)); }

/* ---- arithmetic ------------------------------------------------------------ */
WS_HD __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  unsigned int r;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a.x), "r"(b.x), "r"(c.x));
  return __ws_bf162_raw(r);
}
WS_HD __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
  unsigned short r;
  asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(a.x), "h"(b.x), "h"(c.x));
  return __ws_bf16_raw(r);
}
WS_HD __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) {
  return __hfma2(a, __ws_bf162_raw(0x3f803f80u), b);
}
WS_HD __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b) {
  return __hfma2(b, __ws_bf162_raw(0xbf80bf80u), a);
}
WS_HD __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) {
  return __hfma2(a, b, __ws_bf162_raw(0x80008000u));
}
WS_HD __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return __hfma(a, __ws_bf16_raw(0x3f80), b); }
WS_HD __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return __hfma(a, b, __ws_bf16_raw(0x8000)); }
#define WS_BF162_BINARY(name, op)                                                                            \
  WS_HD __nv_bfloat162 name(__nv_bfloat162 a, __nv_bfloat162 b) {                                            \
    unsigned int r;                                                                                          \
    asm(op " %0, %1, %2;" : "=r"(r) : "r"(a.x), "r"(b.x));                                                   \
    return __ws_bf162_raw(r);                                                                                \
  }
WS_BF162_BINARY(__hmax2, "max.bf16x2")
WS_BF162_BINARY(__hmin2, "min.bf16x2")
#undef WS_BF162_BINARY
WS_HD __nv_bfloat162 __hneg2(__nv_bfloat162 a) {
  unsigned int r;
  asm("neg.bf16x2 %0, %1;" : "=r"(r) : "r"(a.x));
  return __ws_bf162_raw(r);
}
WS_HD __nv_bfloat162 __habs2(__nv_bfloat162 a) {
  unsigned int r;
  asm("abs.bf16x2 %0, %1;" : "=r"(r) : "r"(a.x));
  return __ws_bf162_raw(r);
}
WS_HD bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) {
  unsigned int r;
  asm("{ .reg .pred %%hp; setp.lt.bf16 %%hp, %1, %2; selp.u32 %0, 1, 0, %%hp; }"
      : "=r"(r)
      : "h"(a.x), "h"(b.x));
  return r != 0;
}

WS_HD __nv_bfloat162 operator+(__nv_bfloat162 a, __nv_bfloat162 b) { return __hadd2(a, b); }
WS_HD __nv_bfloat162 operator-(__nv_bfloat162 a, __nv_bfloat162 b) { return __hsub2(a, b); }
WS_HD __nv_bfloat162 operator*(__nv_bfloat162 a, __nv_bfloat162 b) { return __hmul2(a, b); }

#undef WS_HD
#endif
