/* f16.c - binary16 and bfloat16 conversions (round to nearest even). */
#include "base/f16.h"

#include <math.h>

/* Rounds the magnitude `mant` right by `shift` bits to nearest, ties to even. */
static uint32_t round_shift_rne(uint32_t mant, unsigned shift) {
  if (shift == 0) return mant;
  if (shift > 31) return 0;
  uint32_t kept = mant >> shift;
  uint32_t rem = mant & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (kept & 1u))) kept++;
  return kept;
}

uint16_t ws_f16_from_f32(float f) {
  uint32_t u = ws_f32_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t exp = (u >> 23) & 0xffu;
  uint32_t mant = u & 0x7fffffu;
  if (exp == 0xff) { /* inf or NaN; keep a quiet NaN with the top payload bits */
    if (mant == 0) return (uint16_t)(sign | 0x7c00u);
    return (uint16_t)(sign | 0x7e00u | (mant >> 13));
  }
  int32_t e16 = (int32_t)exp - 127 + 15;
  if (e16 >= 31) return (uint16_t)(sign | 0x7c00u); /* overflow to inf */
  if (e16 <= 0) {              /* subnormal half (or zero): shift the implicit-one mantissa */
    if (exp == 0) return sign; /* f32 subnormals are far below half's range */
    uint32_t full = mant | 0x800000u;
    unsigned shift = (unsigned)(14 - e16);
    return (uint16_t)(sign | round_shift_rne(full, shift));
  }
  /* normal: rounding may carry into the exponent, which is the right answer
   * (including overflow to inf at 65520) */
  uint32_t r = round_shift_rne(mant | ((uint32_t)e16 << 23), 13);
  return (uint16_t)(sign | r);
}

float ws_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return ws_f32_from_bits(sign | 0x7f800000u | (mant << 13));
  if (exp != 0) return ws_f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
  if (mant == 0) return ws_f32_from_bits(sign);
  /* subnormal half: normalise into an f32 normal */
  uint32_t e = 113;
  while (!(mant & 0x400u)) {
    mant <<= 1;
    e--;
  }
  return ws_f32_from_bits(sign | (e << 23) | ((mant & 0x3ffu) << 13));
}

float ws_bf16_to_f32(uint16_t h) { return ws_f32_from_bits((uint32_t)h << 16); }

/* A binary format of `sig_bits` significand bits (the implicit one counted)
 * whose normal exponents run from emin to emax. */
typedef struct narrow_fmt {
  int sig_bits, emin, emax;
} narrow_fmt;

/* Rounds |x| (finite, nonzero) to the format's grid and returns it as a
 * double, +inf on overflow. The quantum 2^q of the grid at x is fixed by x's
 * leading bit (clamped to emin, which gives the subnormals); scaling by a
 * power of two is exact, so rint's single round-to-nearest-even (the
 * default mode) is the only rounding. */
static double round_to_grid(double mag, narrow_fmt f) {
  int e2;
  (void)frexp(mag, &e2); /* mag = m * 2^e2, m in [0.5, 1): leading bit 2^(e2-1) */
  int lead = e2 - 1 < f.emin ? f.emin : e2 - 1;
  int q = lead - (f.sig_bits - 1);
  double r = ldexp(rint(ldexp(mag, -q)), q);
  return r >= ldexp(1.0, f.emax + 1) ? INFINITY : r;
}

uint16_t ws_f16_from_f64(double x) {
  if (isnan(x)) return 0x7FFFu;
  uint16_t sign = signbit(x) ? 0x8000u : 0u;
  double mag = fabs(x);
  if (mag == 0.0) return sign;
  if (isinf(mag)) return (uint16_t)(sign | 0x7C00u);
  /* the rounded magnitude is a half, hence exact as a float: converting it
   * back is exact and ws_f16_from_f32 rounds nothing */
  return (uint16_t)(sign | ws_f16_from_f32((float)round_to_grid(mag, (narrow_fmt){11, -14, 15})));
}

uint16_t ws_bf16_from_f64(double x) {
  if (isnan(x)) return 0x7FFFu;
  uint16_t sign = signbit(x) ? 0x8000u : 0u;
  double mag = fabs(x);
  if (mag == 0.0) return sign;
  double r = isinf(mag) ? mag : round_to_grid(mag, (narrow_fmt){8, -126, 127});
  if (isinf(r)) return (uint16_t)(sign | 0x7F80u);
  return (uint16_t)(sign | (ws_f32_bits((float)r) >> 16)); /* r is a bfloat16, exact as a float */
}
