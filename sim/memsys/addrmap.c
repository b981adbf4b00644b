/* addrmap.c - the address mapping of the L2 slices, partitions and HBM
 * channels, banks and rows, from the config's derived geometry (lines are
 * a power of two, so a line number is a shift, not a division). */
#include "sim/memsys/addrmap.h"

void ws_addrmap_init(ws_addrmap *m, const ws_gpu_cfg *cfg) {
  m->line_shift = cfg->geom.line_shift;
  m->slices = cfg->l2.slices;
  m->partitions = cfg->geom.l2_partitions;
  m->num_sms = cfg->gpu.num_sms;
  m->channels = cfg->hbm.channels;
  m->banks = cfg->hbm.banks_per_channel;
  m->lines_per_row = cfg->geom.hbm_lines_per_row;
}

/* (sum of the base-`base` digits of x) mod base: a skewed interleave. */
static uint32_t digit_fold(uint64_t x, uint32_t base) {
  if (base < 2) return 0; /* one unit: base-1 digits would never end */
  uint64_t sum = 0;
  for (; x; x /= base) sum += x % base;
  return (uint32_t)(sum % base);
}

uint32_t ws_addrmap_slice(const ws_addrmap *m, uint64_t addr) {
  return digit_fold(addr >> m->line_shift, m->slices);
}

uint32_t ws_addrmap_channel(const ws_addrmap *m, uint64_t addr) {
  return digit_fold(addr >> m->line_shift, m->channels);
}

/* Rows rotate over banks with a skew of one bank per round, so a stream that
 * walks rows in order touches every bank before reopening one. */
void ws_addrmap_bank_row(const ws_addrmap *m, uint64_t addr, uint32_t *bank, uint64_t *row) {
  uint64_t local = (addr >> m->line_shift) / m->channels;
  uint64_t row_global = local / m->lines_per_row;
  *bank = (uint32_t)((row_global % m->banks + (row_global / m->banks) % m->banks) % m->banks);
  *row = row_global / m->banks;
}

void ws_addrmap_locate(const ws_addrmap *m, uint32_t sm, uint64_t addr, ws_location *out) {
  out->slice = ws_addrmap_slice(m, addr);
  out->partition = ws_addrmap_slice_partition(m, out->slice);
  out->far = out->partition != ws_addrmap_sm_partition(m, sm);
  out->channel = ws_addrmap_channel(m, addr);
  ws_addrmap_bank_row(m, addr, &out->bank, &out->row);
}
