/* cuda_fp16.h - half precision: __half (half) and __half2, their
 * conversions and basic arithmetic.
 *
 * Design: the storage is a 16-bit integer (as in CUDA's own header) and each
 * operation is one line of inline PTX on a 16-bit register (cvt.rn.f16.f32,
 * add.f16, fma.rn.f16x2, ...), so the PTX shows exactly the half-precision
 * instructions the simulator's fp16 units execute; clang 14's NVPTX back end
 * has no native half arithmetic to lean on without the toolkit's header.
 * A comparison is a setp.f16 inside its own braces (a scoped predicate),
 * turned into the bool C wants with selp. */
#ifndef WARPSCOPE_CUDA_FP16_H
#define WARPSCOPE_CUDA_FP16_H

#define WS_HD static __inline__ __host__ __device__ __attribute__((always_inline))

struct __attribute__((aligned(2))) __half {
  unsigned short x;
};
struct __attribute__((aligned(4))) __half2 {
  unsigned int x;
};
typedef struct __half __half;
typedef struct __half2 __half2;
typedef __half half;
typedef __half2 half2;

WS_HD __half __ws_half_raw(unsigned short bits) {
  __half h;
  h.x = bits;
  return h;
}
WS_HD __half2 __ws_half2_raw(unsigned int bits) {
  __half2 h;
  h.x = bits;
  return h;
}

/* ---- conversions ----------------------------------------------------------- */
WS_HD __half __float2half(float f) {
  unsigned short r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return __ws_half_raw(r);
}
WS_HD __half __float2half_rn(float f) { return __float2half(f); }
WS_HD float __half2float(__half h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.x));
  return f;
}
WS_HD __half __int2half_rn(int i) {
  unsigned short r;
  asm("cvt.rn.f16.s32 %0, %1;" : "=h"(r) : "r"(i));
  return __ws_half_raw(r);
}
WS_HD int __half2int_rz(__half h) {
  int i;
  asm("cvt.rzi.s32.f16 %0, %1;" : "=r"(i) : "h"(h.x));
  return i;
}
WS_HD __half2 __halves2half2(__half lo, __half hi) {
  unsigned int r;
  asm("mov.b32 %0, {%1, %2};" : "=r"(r) : "h"(lo.x), "h"(hi.x));
  return __ws_half2_raw(r);
}
WS_HD __half2 __floats2half2_rn(float lo, float hi) {
  return __halves2half2(__float2half(lo), __float2half(hi));
}
WS_HD __half2 __float2half2_rn(float f) { return __floats2half2_rn(f, f); }
WS_HD __half2 __half2half2(__half h) { return __halves2half2(h, h); }
WS_HD __half __low2half(__half2 h) {
  unsigned short lo, hi;
  asm("mov.b32 {%0, %1}, %2;" : "=h"(lo), "=h"(hi) : "r"(h.x));
  return __ws_half_raw(lo);
}
WS_HD __half __high2half(__half2 h) {
  unsigned short lo, hi;
  asm("mov.b32 {%0, %1}, %2;" : "=h"(lo), "=h"(hi) : "r"(h.x));
  return __ws_half_raw(hi);
}
WS_HD float __low2float(__half2 h) { return __half2float(__low2half(h)); }
WS_HD float __high2float(__half2 h) { return __half2float(__high2half(h)); }
WS_HD unsigned short __half_as_ushort(__half h) { return h.x; }
WS_HD __half __ushort_as_half(unsigned short u) { return __ws_half_raw(u); }

/* ---- arithmetic ------------------------------------------------------------ */
#define WS_HALF_BINARY(name, op)                                                                             \
  WS_HD __half name(__half a, __half b) {                                                                    \
    unsigned short r;                                                                                        \
    asm(op " %0, %1, %2;" : "=h"(r) : "h"(a.x), "h"(b.x));                                                   \
    return __ws_half_raw(r);                                                                                 \
  }
#define WS_HALF2_BINARY(name, op)                                                                            \
  WS_HD __half2 name(__half2 a, __half2 b) {                                                                 \
    unsigned int r;                                                                                          \
    asm(op " %0, %1, %2;" : "=r"(r) : "r"(a.x), "r"(b.x));                                                   \
    return __ws_half2_raw(r);                                                                                \
  }
WS_HALF_BINARY(__hadd, "add.f16")
WS_HALF_BINARY(__hsub, "sub.f16")
WS_HALF_BINARY(__hmul, "mul.f16")
WS_HALF_BINARY(__hmax, "max.f16")
WS_HALF_BINARY(__hmin, "min.f16")
WS_HALF2_BINARY(__hadd2, "add.f16x2")
WS_HALF2_BINARY(__hsub2, "sub.f16x2")
WS_HALF2_BINARY(__hmul2, "mul.f16x2")
WS_HALF2_BINARY(__hmax2, "max.f16x2")
WS_HALF2_BINARY(__hmin2, "min.f16x2")
#undef WS_HALF_BINARY
#undef WS_HALF2_BINARY
WS_HD __half __hdiv(__half a, __half b) { return __float2half(__half2float(a) / __half2float(b)); }
WS_HD __half __hfma(__half a, __half b, __half c) {
  unsigned short r;
  asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a.x), "h"(b.x), "h"(c.x));
  return __ws_half_raw(r);
}
WS_HD __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  unsigned int r;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a.x), "r"(b.x), "r"(c.x));
  return __ws_half2_raw(r);
}
WS_HD __half __hneg(__half a) {
  unsigned short r;
  asm("neg.f16 %0, %1;" : "=h"(r) : "h"(a.x));
  return __ws_half_raw(r);
}
WS_HD __half __habs(__half a) {
  unsigned short r;
  asm("abs.f16 %0, %1;" : "=h"(r) : "h"(a.x));
  return __ws_half_raw(r);
}
WS_HD __half2 __hneg2(__half2 a) {
  unsigned int r;
  asm("neg.f16x2 %0, %1;" : "=r"(r) : "r"(a.x));
  return __ws_half2_raw(r);
}
WS_HD __half2 __habs2(__half2 a) {
  unsigned int r;
  asm("abs.f16x2 %0, %1;" : "=r"(r) : "r"(a.x));
  return __ws_half2_raw(r);
}

/* ---- comparisons: one setp.f16 each (ordered: false on NaN, except ne's
 * unordered twin __hneu) ------------------------------------------------------ */
#define WS_HALF_COMPARE(name, cmp)                                                                           \
  WS_HD bool name(__half a, __half b) {                                                                      \
    unsigned int r;                                                                                          \
    asm("{ .reg .pred %%hp; setp." cmp ".f16 %%hp, %1, %2; selp.u32 %0, 1, 0, %%hp; }"                       \
        : "=r"(r)                                                                                            \
        : "h"(a.x), "h"(b.x));                                                                               \
    return r != 0;                                                                                           \
  }
WS_HALF_COMPARE(__heq, "eq")
WS_HALF_COMPARE(__hne, "ne")
WS_HALF_COMPARE(__hlt, "lt")
WS_HALF_COMPARE(__hle, "le")
WS_HALF_COMPARE(__hgt, "gt")
WS_HALF_COMPARE(__hge, "ge")
WS_HALF_COMPARE(__hneu, "neu")
WS_HALF_COMPARE(__ws_hunordered, "nan")
#undef WS_HALF_COMPARE
WS_HD bool __hisnan(__half a) { return __ws_hunordered(a, a); }

/* C++ operators, so `a * b + c` reads as it does under nvcc */
WS_HD __half operator+(__half a, __half b) { return __hadd(a, b); }
WS_HD __half operator-(__half a, __half b) { return __hsub(a, b); }
WS_HD __half operator*(__half a, __half b) { return __hmul(a, b); }
WS_HD __half operator/(__half a, __half b) { return __hdiv(a, b); }
WS_HD __half operator-(__half a) { return __hneg(a); }
WS_HD __half &operator+=(__half &a, __half b) { return a = __hadd(a, b); }
WS_HD __half &operator*=(__half &a, __half b) { return a = __hmul(a, b); }
WS_HD bool operator<(__half a, __half b) { return __hlt(a, b); }
WS_HD bool operator>(__half a, __half b) { return __hgt(a, b); }
WS_HD bool operator==(__half a, __half b) { return __heq(a, b); }
WS_HD bool operator!=(__half a, __half b) { return __hneu(a, b); }
WS_HD bool operator<=(__half a, __half b) { return __hle(a, b); }
WS_HD bool operator>=(__half a, __half b) { return __hge(a, b); }
WS_HD __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
WS_HD __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
WS_HD __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
WS_HD __half2 operator-(__half2 a) { return __hneg2(a); }
WS_HD __half2 &operator+=(__half2 &a, __half2 b) { return a = __hadd2(a, b); }
WS_HD __half2 &operator*=(__half2 &a, __half2 b) { return a = __hmul2(a, b); }

#undef WS_HD
#endif
