/* f16.h - IEEE 754 binary16 <-> binary32 conversion, bit-exact.
 *
 * Design: done on bit patterns with round-to-nearest-even so results are the
 * same on every host and compiler (C11 has no portable half type, and clang 14
 * lacks _Float16 on x86-64). NaN payloads are kept where they fit; a NaN
 * always stays a NaN. */
#ifndef WS_F16_H
#define WS_F16_H

#include <stdint.h>
#include <string.h>

uint16_t ws_f16_from_f32(float f);
float ws_f16_to_f32(uint16_t h);

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
