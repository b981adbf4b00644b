/* gf2.h - linear algebra over GF(2) on 64-bit masks: which address bits
 * an XOR map can be solved for.
 *
 * Design: an XOR address map computes each index bit as the parity of the
 * address under a mask; it is a bijection once one address bit per index
 * bit (a pivot) is set aside, the other bits are kept as they are, and the
 * index bits restricted to the pivots form an invertible matrix. The
 * config checks that such pivots exist and the address map uses them, so
 * the choice lives once, here. */
#ifndef WS_GF2_H
#define WS_GF2_H

#include <stdint.h>

/* Parity of the bits of x & mask: one XOR-map index bit. */
static inline uint32_t ws_gf2_parity(uint64_t x, uint64_t mask) {
  return (uint32_t)__builtin_parityll(x & mask);
}

/* Chooses pivots for `count` masks (at most 64) among bits [lo_bit, hi_bit):
 * the lowest bits whose columns are independent of the ones chosen before,
 * written to pivot_bits in rising order. Returns how many were found; fewer
 * than count means the masks are dependent over those bits. */
uint32_t ws_gf2_pivots(const uint64_t *masks, uint32_t count, uint32_t lo_bit, uint32_t hi_bit,
                       uint8_t *pivot_bits);

#endif
