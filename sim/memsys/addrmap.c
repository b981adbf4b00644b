/* addrmap.c - the address mapping of the L2 slices, partitions and HBM
 * channels, banks and rows, from the config's derived geometry (lines are
 * a power of two, so a line number is a shift, not a division). */
#include "sim/memsys/addrmap.h"

#include <stdbool.h>

#include "base/gf2.h"

/* The row's runs: each stretch of address bits above the line that no
 * pivot or column bit took, packed from row bit 0 up. */
static void init_runs(ws_addrmap *m, const bool *taken) {
  m->run_count = 0;
  uint32_t to = 0;
  for (uint32_t bit = m->line_shift; bit < 64;) {
    if (taken[bit]) {
      bit++;
      continue;
    }
    uint32_t end = bit;
    while (end < 64 && !taken[end]) end++;
    uint32_t width = end - bit;
    m->runs[m->run_count++] = (struct ws_addrmap_run){
        .from_bit = (uint8_t)bit, .to_bit = (uint8_t)to, .mask = width == 64 ? ~0ull : (1ull << width) - 1u};
    to += width;
    bit = end;
  }
}

/* The XOR map's column and row: the column is the lowest col_bits address
 * bits above the line that are not pivots, the row everything else above
 * the line. cfg passed check_address_map, so the pivots exist. */
static void init_xor(ws_addrmap *m, const ws_cfg_hbm *h) {
  m->channel_bits = h->channel_xor.count;
  m->xor_bits = ws_config_xor_masks(h, m->masks);
  uint8_t pivots[2 * WS_CFG_MAX_XOR_BITS];
  uint32_t found = ws_gf2_pivots(m->masks, m->xor_bits, m->line_shift, 64, pivots);
  bool taken[64] = {false};
  for (uint32_t i = 0; i < found; i++) taken[pivots[i]] = true;
  uint32_t col_bits = (uint32_t)__builtin_ctz(m->lines_per_row), cols = 0;
  for (uint32_t bit = m->line_shift; bit < 64 && cols < col_bits; bit++)
    if (!taken[bit]) taken[bit] = true, cols++;
  init_runs(m, taken);
}

void ws_addrmap_init(ws_addrmap *m, const ws_gpu_cfg *cfg) {
  m->line_shift = cfg->geom.line_shift;
  m->slices = cfg->l2.slices;
  m->partitions = cfg->geom.l2_partitions;
  m->num_sms = cfg->gpu.num_sms;
  m->channels = cfg->hbm.channels;
  m->banks = cfg->hbm.banks_per_channel;
  m->lines_per_row = cfg->geom.hbm_lines_per_row;
  m->xor_bits = 0;
  if (cfg->hbm.channel_xor.count) init_xor(m, &cfg->hbm);
}

/* Index bits [first, first + count) of the XOR map for addr. */
static uint32_t xor_index(const ws_addrmap *m, uint64_t addr, uint32_t first, uint32_t count) {
  uint32_t v = 0;
  for (uint32_t i = 0; i < count; i++) v |= ws_gf2_parity(addr, m->masks[first + i]) << i;
  return v;
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
  if (m->xor_bits) return xor_index(m, addr, 0, m->channel_bits);
  return digit_fold(addr >> m->line_shift, m->channels);
}

/* The XOR map's bank, and its row: the runs of kept bits, packed. */
static void xor_bank_row(const ws_addrmap *m, uint64_t addr, uint32_t *bank, uint64_t *row) {
  *bank = xor_index(m, addr, m->channel_bits, m->xor_bits - m->channel_bits);
  uint64_t r = 0;
  for (uint32_t i = 0; i < m->run_count; i++)
    r |= ((addr >> m->runs[i].from_bit) & m->runs[i].mask) << m->runs[i].to_bit;
  *row = r;
}

/* Rows rotate over banks with a skew of one bank per round, so a stream that
 * walks rows in order touches every bank before reopening one. */
void ws_addrmap_bank_row(const ws_addrmap *m, uint64_t addr, uint32_t *bank, uint64_t *row) {
  if (m->xor_bits) {
    xor_bank_row(m, addr, bank, row);
    return;
  }
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
