/* f16.h - IEEE 754 binary16 and bfloat16 <-> binary32/binary64 conversion,
 * bit-exact.
 *
 * Design: done on bit patterns (or exact power-of-two scaling) with
 * round-to-nearest-even so results are the same on every host and compiler
 * (C11 has no portable half type, and clang 14 lacks _Float16 on x86-64).
 * NaN payloads are kept where they fit; a NaN always stays a NaN. The double
 * forms round a double once, so the half-precision ALU can compute a result
 * exactly (or rounded to odd) in double and round it a single time. */
#ifndef WS_F16_H
#define WS_F16_H

#include <stdint.h>
#include <string.h>

uint16_t ws_f16_from_f32(float f);
float ws_f16_to_f32(uint16_t h);
/* bfloat16 is binary32's top 16 bits: widening is exact. */
float ws_bf16_to_f32(uint16_t h);
/* Rounds a finite or infinite non-NaN double to binary16 / bfloat16, to
 * nearest, ties to even, with subnormal results and overflow to infinity;
 * a NaN gives the format's canonical NaN 0x7FFF. */
uint16_t ws_f16_from_f64(double x);
uint16_t ws_bf16_from_f64(double x);

/* Bit casts, kept here so every module uses the same aliasing-safe form;
 * inline because the executor does one per lane per float instruction. */
static inline uint32_t ws_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static inline float ws_f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

#endif
