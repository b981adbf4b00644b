/* test_f16.c - binary16 conversions: exhaustive round trip and rounding
 * cases whose expected bit patterns are worked out by hand below. */
#include <criterion/criterion.h>
#include <math.h>

#include "base/f16.h"

/* The value of a half from first principles (IEEE 754-2008, binary16). */
static double half_value(uint16_t h) {
  int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
  if (e == 31) v = m ? NAN : INFINITY;
  return sign ? -v : v;
}

Test(f16, every_half_round_trips_exactly) {
  for (uint32_t h = 0; h < 65536; h++) {
    float f = ws_f16_to_f32((uint16_t)h);
    double want = half_value((uint16_t)h);
    uint16_t back = ws_f16_from_f32(f);
    if (isnan(want)) {
      cr_assert(isnan(f), "half 0x%04x should widen to NaN", h);
      cr_assert((back & 0x7c00) == 0x7c00 && (back & 0x3ff), "NaN 0x%04x narrowed to 0x%04x", h, back);
      cr_assert_eq(back & 0x8000, h & 0x8000);
    } else {
      cr_assert((double)f == want && !!signbit(f) == !!signbit(want), "half 0x%04x", h);
      cr_assert_eq(back, h, "half 0x%04x came back as 0x%04x", h, back);
    }
  }
}

static void expect(float f, uint16_t want) {
  uint16_t got = ws_f16_from_f32(f);
  cr_expect_eq(got, want, "%a -> 0x%04x, expected 0x%04x", (double)f, got, want);
}

Test(f16, rounding_ties_to_even) {
  expect(1.0f, 0x3c00);
  expect(1.0f + 0x1p-11f, 0x3c00);            /* halfway 1 .. 1+2^-10: even is 1 */
  expect(1.0f + 3 * 0x1p-11f, 0x3c02);        /* halfway 1+2^-10 .. 1+2^-9: even mantissa 2 */
  expect(1.0f + 0x1p-11f + 0x1p-20f, 0x3c01); /* just above the tie rounds up */
  expect(-2.0f, 0xc000);
  expect(-0.0f, 0x8000);
  expect(0.0f, 0x0000);
}

Test(f16, overflow_boundary) {
  expect(65504.0f, 0x7bff);  /* largest finite half */
  expect(65519.99f, 0x7bff); /* below the midpoint 65520 */
  expect(65520.0f, 0x7c00);  /* the midpoint ties to even: exponent overflow -> inf */
  expect(65536.0f, 0x7c00);
  expect(-65520.0f, 0xfc00);
  expect(INFINITY, 0x7c00);
  expect(-INFINITY, 0xfc00);
  cr_expect((ws_f16_from_f32(NAN) & 0x7fff) > 0x7c00);
}

Test(f16, subnormals) {
  expect(0x1p-24f, 0x0001);        /* smallest subnormal */
  expect(0x1p-25f, 0x0000);        /* half of it: tie, even is 0 */
  expect(3 * 0x1p-26f, 0x0001);    /* 0.75 ulp rounds up */
  expect(5 * 0x1p-26f, 0x0001);    /* 1.25 ulp rounds down */
  expect(5 * 0x1p-25f, 0x0002);    /* 2.5 ulp: tie, even is 2 */
  expect(1023 * 0x1p-24f, 0x03ff); /* largest subnormal */
  expect(0x1p-14f, 0x0400);        /* smallest normal */
  expect(1e-10f, 0x0000);
  expect(-0x1p-24f, 0x8001);
  cr_expect_eq(ws_f16_to_f32(0x0001), 0x1p-24f);
  cr_expect_eq(ws_f16_to_f32(0x03ff), 1023 * 0x1p-24f);
}

Test(f16, bit_casts) {
  cr_expect_eq(ws_f32_bits(1.0f), 0x3f800000u);
  cr_expect_eq(ws_f32_bits(-0.0f), 0x80000000u);
  cr_expect_eq(ws_f32_from_bits(0x40490fdbu), 3.14159274f);
}

/* The double forms round once: every float narrows as ws_f16_from_f32 does
 * (a float is a double exactly), and values between two halves that no
 * float can hold round by their true position. */
Test(f16, from_double_matches_from_float_and_rounds_once) {
  for (uint32_t u = 0; u < 0x7F800000u; u += 0x1FFu) {
    float f = ws_f32_from_bits(u);
    cr_assert_eq(ws_f16_from_f64(f), ws_f16_from_f32(f), "%a", (double)f);
    cr_assert_eq(ws_f16_from_f64(-(double)f), ws_f16_from_f32(-f), "-%a", (double)f);
  }
  /* 1 + 2^-11 + 2^-40: above the tie, so up to 1 + 2^-10 (0x3C01); through
   * a float it would be the tie and round to 1 */
  cr_expect_eq(ws_f16_from_f64(1.0 + 0x1p-11 + 0x1p-40), 0x3C01);
  cr_expect_eq(ws_f16_from_f64(0x1p-25 + 0x1p-60), 0x0001); /* just over half the smallest subnormal */
  cr_expect_eq(ws_f16_from_f64(0x1p-25), 0x0000);           /* the tie goes to even zero */
  cr_expect_eq(ws_f16_from_f64(65520.0 - 0x1p-30), 0x7BFF); /* just under the overflow tie */
  cr_expect_eq(ws_f16_from_f64(65520.0), 0x7C00);
  cr_expect_eq(ws_f16_from_f64(-INFINITY), 0xFC00);
  cr_expect_eq(ws_f16_from_f64(NAN), 0x7FFF);
  cr_expect_eq(ws_f16_from_f64(-0.0), 0x8000);
}

/* bfloat16 is binary32's top half: its values widen by a shift, and a
 * double rounds at the eighth significant bit. */
Test(f16, bfloat16_conversions) {
  cr_expect_eq(ws_f32_bits(ws_bf16_to_f32(0x3F80)), 0x3F800000u);
  cr_expect_eq(ws_f32_bits(ws_bf16_to_f32(0x0001)), 0x00010000u); /* the smallest subnormal, 2^-133 */
  cr_expect_eq(ws_bf16_from_f64(1.0 + 0x1p-8), 0x3F80);           /* tie, to even */
  cr_expect_eq(ws_bf16_from_f64(1.0 + 0x1p-8 + 0x1p-40), 0x3F81); /* above the tie */
  cr_expect_eq(ws_bf16_from_f64(1.0 + 3 * 0x1p-8), 0x3F82);       /* tie, to the even 0x3F82 */
  cr_expect_eq(ws_bf16_from_f64(0x1p-134), 0x0000);               /* half the smallest subnormal: tie to 0 */
  cr_expect_eq(ws_bf16_from_f64(3 * 0x1p-134), 0x0002);           /* 1.5 subnormal steps: tie to 2 */
  cr_expect_eq(ws_bf16_from_f64(0x1.FFp127), 0x7F80);             /* past the overflow tie */
  cr_expect_eq(ws_bf16_from_f64(0x1.FEp127), 0x7F7F);             /* the largest finite */
  cr_expect_eq(ws_bf16_from_f64(-0x1p200), 0xFF80);
  cr_expect_eq(ws_bf16_from_f64(NAN), 0x7FFF);
  for (uint32_t h = 0; h < 0x7F80u; h++) /* every finite bfloat16 comes back */
    cr_assert_eq(ws_bf16_from_f64(ws_bf16_to_f32((uint16_t)h)), h, "0x%04x", h);
}
