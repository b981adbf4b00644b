/* gf2.c - pivot selection for XOR maps by Gaussian elimination on columns. */
#include "base/gf2.h"

/* Column `bit` of the masks: bit i set when mask i takes address bit `bit`. */
static uint64_t column(const uint64_t *masks, uint32_t count, uint32_t bit) {
  uint64_t col = 0;
  for (uint32_t i = 0; i < count; i++) col |= ((masks[i] >> bit) & 1u) << i;
  return col;
}

uint32_t ws_gf2_pivots(const uint64_t *masks, uint32_t count, uint32_t lo_bit, uint32_t hi_bit,
                       uint8_t *pivot_bits) {
  uint64_t basis[64] = {0}; /* basis[b]: a chosen combination whose highest set bit is b */
  uint32_t found = 0;
  for (uint32_t bit = lo_bit; bit < hi_bit && bit < 64 && found < count; bit++) {
    uint64_t v = column(masks, count, bit);
    while (v) {
      uint32_t top = 63u - (uint32_t)__builtin_clzll(v);
      if (!basis[top]) break;
      v ^= basis[top];
    }
    if (!v) continue; /* a combination of columns already chosen */
    basis[63u - (uint32_t)__builtin_clzll(v)] = v;
    pivot_bits[found++] = (uint8_t)bit;
  }
  return found;
}
