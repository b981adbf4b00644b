/* exec_int.h - the instruction units ws_cta_step hands an instruction to
 * (exec_alu.c, exec_mem.c); private to sim/exec/.
 *
 * Design: a unit takes the one site record (fault.h) that describes the
 * instruction being executed, so its functions take a single argument and a
 * fault it reports names CTA, warp, lane, pc and instruction. The units
 * call nothing in cta.c: the CTA drives them, never the other way round. */
#ifndef WS_EXEC_INT_H
#define WS_EXEC_INT_H

#include "sim/exec/fault.h"
#include "sim/exec/mem.h"

/* What a memory access does to a word, as the units and the checks
 * (sanitize.c) name it. */
typedef enum ws_exec_access { ACC_READ, ACC_WRITE, ACC_ATOMIC } ws_exec_access;

/* Source lane of a shuffle, or the lane itself when out of range. The value
 * read is the source lane's register even if that lane is inactive or
 * guarded off (deterministic; on hardware it is undefined). The provenance
 * shadow (taint.c) moves tags with the same rule. */
static inline unsigned ws_exec_shfl_src(ws_shfl_mode mode, unsigned lane, uint32_t b) {
  switch (mode) {
  case WS_SHFL_IDX: return b & 31u;
  case WS_SHFL_UP: return b > lane ? lane : lane - b;
  case WS_SHFL_DOWN: return b > 31u - lane ? lane : lane + b;
  case WS_SHFL_BFLY: return lane ^ (b & 31u);
  default: return lane;
  }
}

/* Integer, fp32, SFU, conversion, shuffle and vote instructions. */
void ws_exec_alu(const ws_exec_site *s);
/* HMMA.16816.F32 (faults unless all 32 lanes execute). */
ws_status ws_exec_alu_hmma(const ws_exec_site *s);
/* Loads, stores, atomics and async copies. */
ws_status ws_exec_mem(const ws_exec_site *s);

#endif
