/* addrmap.h - where an address lives: its L2 slice and that slice's
 * partition, the partition of an SM, its HBM channel, bank and row.
 *
 * Design: the mapping is a pure function of the preset, shared by the L2,
 * the crossbar and the DRAM model and exported to callers (microbenchmarks
 * place their pointer chains with it; ws_device_locate offers it on the host
 * API), so no caller builds a component to learn where a line goes. The
 * hashes skew consecutive lines over slices and channels so that power-of-two
 * strides do not camp on one of them (digit-sum interleaving).
 * A preset that gives hbm.channel_xor and hbm.bank_xor takes its DRAM
 * channel and bank from XOR functions of the address bits instead, as real
 * controllers do (the functions reverse-engineered on the part): the
 * address bits left after one pivot bit per index bit (base/gf2.h) give the
 * column (the lowest of them, a row's worth of lines) and the row (the
 * rest, in order), so the map stays a bijection. */
#ifndef WS_ADDRMAP_H
#define WS_ADDRMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/common/config.h"

typedef struct ws_addrmap {
  uint32_t line_shift;    /* geom.line_shift: lines are the unit of slice and channel interleave */
  uint32_t slices;        /* l2.slices */
  uint32_t partitions;    /* geom.l2_partitions (at least 1) */
  uint32_t num_sms;       /* gpu.num_sms */
  uint32_t channels;      /* hbm.channels */
  uint32_t banks;         /* hbm.banks_per_channel */
  uint32_t lines_per_row; /* geom.hbm_lines_per_row (at least 1) */
  /* the XOR map (xor_bits 0: the skewed interleave) */
  uint32_t xor_bits;                       /* channel bits, then bank bits */
  uint32_t channel_bits;                   /* the first channel_bits masks give the channel */
  uint64_t masks[2 * WS_CFG_MAX_XOR_BITS]; /* hbm.channel_xor then hbm.bank_xor */
  /* the row: the address bits above the line that are neither pivots nor
   * column, gathered as runs of consecutive kept bits (v100: one run) */
  uint32_t run_count;
  struct ws_addrmap_run {
    uint8_t from_bit, to_bit; /* run starts at address bit from_bit, lands at row bit to_bit */
    uint64_t mask;            /* its width, as low ones */
  } runs[2 * WS_CFG_MAX_XOR_BITS + 33];
} ws_addrmap;

/* Where one address lives, and whether its slice is in another partition
 * than the SM asked about (the far side of a two-partition L2). */
typedef struct ws_location {
  uint32_t slice;
  uint32_t partition;
  uint32_t channel;
  uint32_t bank;
  uint64_t row;
  bool far;
} ws_location;

/* cfg must be resolved (its geometry derived). */
void ws_addrmap_init(ws_addrmap *m, const ws_gpu_cfg *cfg);
uint32_t ws_addrmap_slice(const ws_addrmap *m, uint64_t addr);
/* Inline: the crossbar asks both on every request it sends. */
static inline uint32_t ws_addrmap_slice_partition(const ws_addrmap *m, uint32_t slice) {
  return (uint32_t)((uint64_t)slice * m->partitions / m->slices);
}
static inline uint32_t ws_addrmap_sm_partition(const ws_addrmap *m, uint32_t sm) {
  return (uint32_t)((uint64_t)sm * m->partitions / m->num_sms);
}
uint32_t ws_addrmap_channel(const ws_addrmap *m, uint64_t addr);
/* Bank and row within the address's channel. */
void ws_addrmap_bank_row(const ws_addrmap *m, uint64_t addr, uint32_t *bank, uint64_t *row);
/* Everything above for one address, seen from SM `sm`. */
void ws_addrmap_locate(const ws_addrmap *m, uint32_t sm, uint64_t addr, ws_location *out);

#endif
