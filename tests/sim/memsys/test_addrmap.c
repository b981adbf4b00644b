/* test_addrmap.c - the address mapping as a pure function: L2 slice and
 * HBM channel by digit-sum interleave of the line number, bank and row with
 * the per-round skew or by an XOR map, partitions of slices and SMs, and
 * ws_addrmap_locate.
 *
 * Why: the L2, the crossbar, the DRAM model, ws_device_locate and the
 * microbenchmarks all place lines with this one function, so its values
 * are pinned here by hand on small configurations. The running example:
 * 128-byte lines, 4 slices, 2 channels of 4 banks, 1 KiB rows (8 lines per
 * row per channel). */
#include <criterion/criterion.h>

#include "sim/memsys/addrmap.h"
#include "tests/sim/memsys/memtest.h"

/* The map of a resolved copy of *c: the suites edit fields after mt_cfg,
 * and the map reads the geometry derived from them. */
static ws_addrmap map_of(const ws_gpu_cfg *c) {
  ws_gpu_cfg r = *c;
  mt_resolve(&r);
  ws_addrmap m;
  ws_addrmap_init(&m, &r);
  return m;
}

Test(addrmap, init_copies_the_geometry) {
  ws_gpu_cfg c = mt_cfg();
  ws_addrmap m = map_of(&c);
  cr_expect_eq(m.line_shift, 7, "128-byte lines");
  cr_expect_eq(m.slices, 4);
  cr_expect_eq(m.partitions, 1);
  cr_expect_eq(m.num_sms, 4);
  cr_expect_eq(m.channels, 2);
  cr_expect_eq(m.banks, 4);
  cr_expect_eq(m.lines_per_row, 8, "1024 / 128");
  c.hbm.row_bytes = 64; /* a row smaller than a line still holds one line */
  m = map_of(&c);
  cr_expect_eq(m.lines_per_row, 1);
}

/* slice = (sum of the base-4 digits of the line number) mod 4 */
Test(addrmap, slice_is_the_base4_digit_sum) {
  ws_gpu_cfg c = mt_cfg();
  ws_addrmap m = map_of(&c);
  static const struct {
    uint64_t line;
    uint32_t slice;
  } rows[] = {
      {0, 0},  {1, 1}, {3, 3}, {4, 1}, /* "10" */
      {5, 2},                          /* "11" */
      {6, 3},                          /* "12" */
      {7, 0},                          /* "13": 4 mod 4 */
      {15, 2},                         /* "33": 6 mod 4 */
      {16, 1},                         /* "100" */
      {27, 2},                         /* "123": 6 mod 4 */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    cr_expect_eq(ws_addrmap_slice(&m, rows[i].line * 128), rows[i].slice, "line %llu",
                 (unsigned long long)rows[i].line);
  cr_expect_eq(ws_addrmap_slice(&m, 0x3FFF * 128 + 127), ws_addrmap_slice(&m, 0x3FFF * 128),
               "every byte of a line maps with it");
  /* 0x3FFF = 14 ones in base 2 = "3333333" base 4: 7 * 3 = 21 mod 4 = 1 */
  cr_expect_eq(ws_addrmap_slice(&m, 0x3FFF * 128), 1);
  /* a stride of 4 lines shifts one digit: k * 4 for k = 0..3 hits every slice */
  uint32_t seen = 0;
  for (uint64_t k = 0; k < 4; k++) seen |= 1u << ws_addrmap_slice(&m, k * 4 * 128);
  cr_expect_eq(seen, 0xF);
}

Test(addrmap, non_power_of_two_and_single_units) {
  ws_gpu_cfg c = mt_cfg();
  c.l2.slices = 3;
  c.l2.size_kib = 48; /* 48 KiB / (3 slices x 4 ways x 128 B) = 32 sets per slice */
  c.hbm.channels = 1;
  ws_addrmap m = map_of(&c);
  cr_expect_eq(ws_addrmap_slice(&m, 4 * 128), 2, "4 = \"11\" base 3");
  cr_expect_eq(ws_addrmap_slice(&m, 5 * 128), 0, "5 = \"12\" base 3: 3 mod 3");
  cr_expect_eq(ws_addrmap_slice(&m, 26 * 128), 0, "26 = \"222\": 6 mod 3");
  cr_expect_eq(ws_addrmap_slice(&m, 25 * 128), 2, "25 = \"221\": 5 mod 3");
  for (uint64_t ln = 0; ln < 64; ln++) cr_expect_eq(ws_addrmap_channel(&m, ln * 128), 0, "one channel");
  c.l2.slices = 1;
  c.l2.size_kib = 16; /* 128 sets in the one slice */
  m = map_of(&c);
  for (uint64_t ln = 0; ln < 64; ln++) cr_expect_eq(ws_addrmap_slice(&m, ln * 128 + 5), 0, "one slice");
}

/* channel = parity of the line number's bits (base-2 digit sum mod 2) */
Test(addrmap, channel_is_the_bit_parity) {
  ws_gpu_cfg c = mt_cfg();
  ws_addrmap m = map_of(&c);
  cr_expect_eq(ws_addrmap_channel(&m, 0), 0);
  cr_expect_eq(ws_addrmap_channel(&m, 1 * 128), 1);
  cr_expect_eq(ws_addrmap_channel(&m, 2 * 128), 1);
  cr_expect_eq(ws_addrmap_channel(&m, 3 * 128), 0);
  cr_expect_eq(ws_addrmap_channel(&m, 7 * 128), 1);
  cr_expect_eq(ws_addrmap_channel(&m, 0x55 * 128), 0, "four ones");
  cr_expect_eq(ws_addrmap_channel(&m, 0x57 * 128 + 100), 1, "five ones");
  c.hbm.channels = 3;
  m = map_of(&c);
  cr_expect_eq(ws_addrmap_channel(&m, 8 * 128), 1, "8 = \"22\" base 3: 4 mod 3");
}

/* local line = line / channels; row_global = local / 8;
 * bank = (rg mod 4 + (rg / 4) mod 4) mod 4; row = rg / 4. */
Test(addrmap, bank_and_row_rotate_with_a_skew) {
  ws_gpu_cfg c = mt_cfg();
  ws_addrmap m = map_of(&c);
  static const struct {
    uint64_t line;
    uint32_t bank;
    uint64_t row;
  } rows[] = {
      {0, 0, 0},   {15, 0, 0}, /* lines 0-15: local 0-7, row_global 0 */
      {16, 1, 0},              /* local 8: rg 1 */
      {48, 3, 0},              /* local 24: rg 3 */
      {64, 1, 1},              /* local 32: rg 4 -> (0 + 1) mod 4 */
      {80, 2, 1},              /* rg 5 -> (1 + 1) */
      {112, 0, 1},             /* rg 7 -> (3 + 1) mod 4 */
      {256, 0, 4},             /* rg 16 -> (0 + 4 mod 4) */
      {272, 1, 4},             /* rg 17 */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint32_t bank = 99;
    uint64_t row = 99;
    ws_addrmap_bank_row(&m, rows[i].line * 128 + 64, &bank, &row);
    cr_expect_eq(bank, rows[i].bank, "line %llu bank", (unsigned long long)rows[i].line);
    cr_expect_eq(row, rows[i].row, "line %llu row", (unsigned long long)rows[i].line);
  }
  /* walking row_global 0..15: every 4 consecutive rows cover all 4 banks */
  static const uint32_t want[16] = {0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2};
  for (uint64_t rg = 0; rg < 16; rg++) {
    uint32_t bank;
    uint64_t row;
    ws_addrmap_bank_row(&m, rg * 8 * 2 * 128, &bank, &row);
    cr_expect_eq(bank, want[rg], "row_global %llu", (unsigned long long)rg);
  }
}

/* The XOR map on the running example: channel = bit 10 ^ bit 16, bank bit 0
 * = bit 11 ^ bit 17, bank bit 1 = bit 12 ^ bit 18, a permutation-based
 * interleave (row bits 16-18 permute the channel and bank). Pivots are bits
 * 10, 11 and 12; the column is the next three free bits, 7-9 (8 lines a
 * row); the row is the rest, address >> 13. */
static ws_addrmap xor_map(void) {
  ws_gpu_cfg c = mt_cfg();
  c.hbm.channel_xor = (ws_cfg_xor){1, {0x10400}};
  c.hbm.bank_xor = (ws_cfg_xor){2, {0x20800, 0x41000}};
  return map_of(&c);
}

Test(addrmap, xor_map_by_hand) {
  ws_addrmap m = xor_map();
  static const struct {
    uint64_t addr;
    uint32_t channel, bank;
    uint64_t row;
  } rows[] = {
      {0x0, 0, 0, 0},      {0x380, 0, 0, 0},    /* lines 0-7: one row */
      {0x400, 1, 0, 0},    {0x800, 0, 1, 0},    /* the pivots alone */
      {0x1c00, 1, 3, 0},   {0x2000, 0, 0, 1},   /* bits 10-12; bit 13 starts the row */
      {0x10000, 1, 0, 8},  {0x10400, 0, 0, 8},  /* bit 16 flips the channel; with bit 10 they cancel */
      {0x30000, 1, 1, 24}, {0x70000, 1, 3, 56}, /* bits 16-17, 16-18 */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint32_t bank = 99;
    uint64_t row = 99;
    ws_addrmap_bank_row(&m, rows[i].addr + 5, &bank, &row);
    cr_expect_eq(ws_addrmap_channel(&m, rows[i].addr + 5), rows[i].channel, "0x%llx channel",
                 (unsigned long long)rows[i].addr);
    cr_expect_eq(bank, rows[i].bank, "0x%llx bank", (unsigned long long)rows[i].addr);
    cr_expect_eq(row, rows[i].row, "0x%llx row", (unsigned long long)rows[i].addr);
  }
}

/* A bijection: over 2^14 lines every (channel, bank, row) holds exactly a
 * row's 8 lines, and they differ only in the column bits 7-9. */
Test(addrmap, xor_map_is_a_bijection) {
  ws_addrmap m = xor_map();
  enum { LINES = 1 << 14, SLOTS = LINES / 8 };
  static uint32_t count[SLOTS];
  static uint64_t first[SLOTS];
  for (uint64_t line = 0; line < LINES; line++) {
    uint64_t addr = line << 7, row;
    uint32_t bank;
    ws_addrmap_bank_row(&m, addr, &bank, &row);
    uint64_t slot = (row * 4 + bank) * 2 + ws_addrmap_channel(&m, addr);
    cr_assert_lt(slot, SLOTS, "line %llu: row %llu", (unsigned long long)line, (unsigned long long)row);
    if (count[slot]++ == 0) first[slot] = addr;
    cr_assert_eq((addr ^ first[slot]) & ~0x380ull, 0, "line %llu shares a row with 0x%llx",
                 (unsigned long long)line, (unsigned long long)first[slot]);
  }
  for (uint32_t s = 0; s < SLOTS; s++) cr_assert_eq(count[s], 8, "slot %u", s);
}

Test(addrmap, partitions_of_slices_and_sms) {
  ws_gpu_cfg c = mt_cfg();
  c.l2.partitions = 2;
  c.gpu.num_sms = 6;
  ws_addrmap m = map_of(&c);
  /* slice * 2 / 4 and sm * 2 / 6 */
  const uint32_t slice_part[4] = {0, 0, 1, 1}, sm_part[6] = {0, 0, 0, 1, 1, 1};
  for (uint32_t s = 0; s < 4; s++) cr_expect_eq(ws_addrmap_slice_partition(&m, s), slice_part[s]);
  for (uint32_t s = 0; s < 6; s++) cr_expect_eq(ws_addrmap_sm_partition(&m, s), sm_part[s]);
  c.l2.partitions = 1;
  m = map_of(&c);
  for (uint32_t s = 0; s < 4; s++) cr_expect_eq(ws_addrmap_slice_partition(&m, s), 0);
  for (uint32_t s = 0; s < 6; s++) cr_expect_eq(ws_addrmap_sm_partition(&m, s), 0);
}

Test(addrmap, locate_combines_everything) {
  ws_gpu_cfg c = mt_cfg();
  c.l2.partitions = 2;
  ws_addrmap m = map_of(&c);
  /* line 86 = "1112" base 4 -> slice 5 mod 4 = 1 (partition 0);
   * 86 = 0b1010110 -> four ones -> channel 0; local 43, rg 5 -> bank 2, row 1 */
  ws_location loc;
  ws_addrmap_locate(&m, 0, 86 * 128 + 3, &loc);
  cr_expect_eq(loc.slice, 1);
  cr_expect_eq(loc.partition, 0);
  cr_expect_eq(loc.channel, 0);
  cr_expect_eq(loc.bank, 2);
  cr_expect_eq(loc.row, 1);
  cr_expect_not(loc.far, "SM 0 is in partition 0");
  ws_addrmap_locate(&m, 3, 86 * 128, &loc);
  cr_expect(loc.far, "SM 3 of 4 is in partition 1");
  /* line 3: slice 3 (partition 1); seen from SM 2 it is near */
  ws_addrmap_locate(&m, 2, 3 * 128, &loc);
  cr_expect_eq(loc.slice, 3);
  cr_expect_eq(loc.partition, 1);
  cr_expect_not(loc.far);
}
