/* test_coalesce.c - the LSU coalescer and the shared-memory bank model,
 * against hand-counted lines, sectors and wavefronts. */
#include <criterion/criterion.h>

#include "sim/sm/coalesce.h"

#define ALL 0xFFFFFFFFu

static uint32_t run(uint64_t base, uint64_t stride, uint32_t mask, uint32_t width, ws_line_access *out) {
  uint64_t a[32];
  for (int i = 0; i < 32; i++) a[i] = base + (uint64_t)i * stride;
  return ws_coalesce_global(a, mask, width, 128, 32, WS_ACCESS_LOAD, out, 64);
}

Test(coalesce, stride1_words_one_line_four_sectors) {
  ws_line_access out[64];
  cr_assert_eq(run(0x1000, 4, ALL, 4, out), 1);
  cr_expect_eq(out[0].line_addr, 0x1000);
  cr_expect_eq(out[0].sector_mask, 0xF);
  cr_expect_eq(out[0].bytes, 128);
  cr_expect_eq(out[0].kind, WS_ACCESS_LOAD);
}

Test(coalesce, stride2_words_two_lines_eight_sectors) {
  ws_line_access out[64];
  cr_assert_eq(run(0x1000, 8, ALL, 4, out), 2);
  cr_expect_eq(out[0].line_addr, 0x1000);
  cr_expect_eq(out[1].line_addr, 0x1080);
  cr_expect_eq(out[0].sector_mask, 0xF);
  cr_expect_eq(out[1].sector_mask, 0xF);
  cr_expect_eq(out[0].bytes + out[1].bytes, 128, "only the bytes used count");
}

Test(coalesce, stride32_words_one_sector_per_line) {
  ws_line_access out[64];
  cr_assert_eq(run(0x1000, 128, ALL, 4, out), 32);
  for (int i = 0; i < 32; i++) {
    cr_expect_eq(out[i].line_addr, 0x1000 + 128u * (unsigned)i);
    cr_expect_eq(out[i].sector_mask, 0x1);
    cr_expect_eq(out[i].bytes, 4);
  }
}

Test(coalesce, wide_accesses) {
  ws_line_access out[64];
  cr_assert_eq(run(0x2000, 8, ALL, 8, out), 2, "32 x 8 B = 256 B = 2 lines");
  cr_expect_eq(out[0].sector_mask, 0xF);
  cr_expect_eq(out[1].bytes, 128);
  cr_assert_eq(run(0x2000, 16, ALL, 16, out), 4, "32 x 16 B = 512 B = 4 lines");
  for (int i = 0; i < 4; i++) cr_expect_eq(out[i].sector_mask, 0xF);
  cr_assert_eq(run(0x2000, 32, ALL, 8, out), 8, "8 B every 32 B: 8 lines, 4 sectors each");
  cr_expect_eq(out[0].sector_mask, 0xF);
  cr_expect_eq(out[0].bytes, 32);
}

Test(coalesce, scattered_sorted_and_deduplicated) {
  uint64_t a[32];
  for (int i = 0; i < 32; i++) a[i] = (uint64_t)(31 - i % 4) * 0x10000 + (uint64_t)(i % 2) * 96;
  ws_line_access out[8];
  cr_assert_eq(ws_coalesce_global(a, ALL, 4, 128, 32, WS_ACCESS_STORE, out, 8), 4);
  for (int i = 0; i < 4; i++) {
    cr_expect_eq(out[i].line_addr, (28u + (unsigned)i) * 0x10000, "ascending line order");
    cr_expect_eq(out[i].kind, WS_ACCESS_STORE);
  }
  /* lines 31 and 29 get lanes with i%2 == 0 (offset 0): sector 0, 4 bytes;
   * lines 30 and 28 get odd lanes (offset 96): sector 3 */
  cr_expect_eq(out[3].sector_mask, 0x1);
  cr_expect_eq(out[2].sector_mask, 0x8);
  cr_expect_eq(out[3].bytes, 4, "a word read by several lanes counts once");
}

Test(coalesce, inactive_lanes_ignored) {
  ws_line_access out[64];
  cr_expect_eq(run(0x1000, 128, 0, 4, out), 0);
  cr_assert_eq(run(0x1000, 128, 0x80000001u, 4, out), 2);
  cr_expect_eq(out[0].line_addr, 0x1000);
  cr_expect_eq(out[1].line_addr, 0x1000 + 31 * 128);
  cr_assert_eq(run(0x1000, 4, 0x0000FF00u, 4, out), 1);
  cr_expect_eq(out[0].sector_mask, 0x2, "lanes 8-15 are bytes 32-63: sector 1");
  cr_expect_eq(out[0].bytes, 32);
}

Test(coalesce, broadcast_and_straddle) {
  ws_line_access out[4];
  cr_assert_eq(run(0x1004, 0, ALL, 4, out), 1);
  cr_expect_eq(out[0].sector_mask, 0x1);
  cr_expect_eq(out[0].bytes, 4);
  cr_assert_eq(run(0x107E, 0, 1, 4, out), 2, "a misaligned word straddles two lines");
  cr_expect_eq(out[0].sector_mask, 0x8);
  cr_expect_eq(out[1].sector_mask, 0x1);
  cr_expect_eq(out[0].bytes + out[1].bytes, 4);
}

Test(coalesce, truncates_but_counts) {
  ws_line_access out[4];
  uint64_t a[32];
  for (int i = 0; i < 32; i++) a[i] = (uint64_t)i * 4096;
  cr_expect_eq(ws_coalesce_global(a, ALL, 4, 128, 32, WS_ACCESS_LOAD, out, 4), 32);
  cr_expect_eq(out[3].line_addr, 3 * 4096);
}

static uint64_t gcd(uint64_t a, uint64_t b) { return b ? gcd(b, a % b) : a; }

Test(smem, stride_sweep_gcd_conflicts) {
  for (uint64_t s = 1; s <= 64; s++) {
    uint64_t off[32];
    for (int i = 0; i < 32; i++) off[i] = (uint64_t)i * s * 4;
    uint32_t expect = (uint32_t)gcd(s, 32);
    cr_expect_eq(ws_coalesce_smem_wavefronts(off, ALL, 4, 32, 4), expect, "stride %llu words",
                 (unsigned long long)s);
  }
}

Test(smem, broadcast_and_inactive) {
  uint64_t off[32] = {0};
  cr_expect_eq(ws_coalesce_smem_wavefronts(off, ALL, 4, 32, 4), 1, "one word to all lanes");
  for (int i = 0; i < 32; i++) off[i] = (uint64_t)(i % 2) * 128; /* two words of bank 0 */
  cr_expect_eq(ws_coalesce_smem_wavefronts(off, ALL, 4, 32, 4), 2);
  cr_expect_eq(ws_coalesce_smem_wavefronts(off, 0x55555555u, 4, 32, 4), 1, "only even lanes");
  cr_expect_eq(ws_coalesce_smem_wavefronts(off, 0, 4, 32, 4), 0);
  for (int i = 0; i < 32; i++) off[i] = (uint64_t)i; /* bytes of 8 words, 1-byte loads */
  cr_expect_eq(ws_coalesce_smem_wavefronts(off, ALL, 1, 32, 4), 1);
}

Test(smem, wide_accesses_use_phases) {
  uint64_t off[32];
  for (int i = 0; i < 32; i++) off[i] = (uint64_t)i * 8;
  cr_expect_eq(ws_coalesce_smem_wavefronts(off, ALL, 8, 32, 4), 2, "64-bit: 2 conflict-free half-warps");
  for (int i = 0; i < 32; i++) off[i] = (uint64_t)i * 16;
  cr_expect_eq(ws_coalesce_smem_wavefronts(off, ALL, 16, 32, 4), 4, "128-bit: 4 quarter-warps");
  cr_expect_eq(ws_coalesce_smem_wavefronts(off, ALL, 8, 32, 4), 4,
               "64-bit at a 16 B stride: each half-warp spans 256 B, 2 words per bank");
  cr_expect_eq(ws_coalesce_smem_wavefronts(off, 0x0000FFFFu, 8, 32, 4), 2, "one active half-warp");
  for (int i = 0; i < 32; i++) off[i] = 0;
  cr_expect_eq(ws_coalesce_smem_wavefronts(off, ALL, 16, 32, 4), 4, "broadcast within each phase");
}

/* A full warp of consecutive elements, of one element, or of elements a
 * line or more apart is coalesced by walking its lines (or lanes) directly;
 * the same addresses in another lane order take the sorting path. Both must give the same lines, for every
 * width, base offset, geometry and output limit. */
Test(coalesce, consecutive_runs_match_the_lane_path) {
  static const uint32_t geometry[][2] = {{128, 32}, {64, 32}, {128, 16}, {32, 32}};
  uint64_t seed = 12345;
  for (uint32_t g = 0; g < 4; g++) {
    for (uint32_t width = 1; width <= 16; width *= 2) {
      if (width > geometry[g][1]) continue;
      for (uint32_t iter = 0; iter < 400; iter++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t base = (0x7000000000ull + (seed >> 40) % 4096) & ~(uint64_t)(width - 1);
        /* a broadcast, consecutive elements, a line or more apart, less than a line apart */
        uint64_t strides[4] = {0, width, geometry[g][0] * (1 + (seed >> 8) % 3) + width * ((seed >> 4) % 3),
                               width * (2 + (seed >> 12) % 7)};
        uint64_t stride = strides[iter % 4];
        uint32_t max_out = 1 + (uint32_t)(seed >> 20) % 32;
        uint64_t a[32], b[32];
        for (int i = 0; i < 32; i++) a[i] = base + (uint64_t)i * stride;
        for (int i = 0; i < 32; i++) b[i] = a[i ^ 1];
        ws_line_access fast[32] = {0}, slow[32] = {0};
        uint32_t nf =
            ws_coalesce_global(a, ALL, width, geometry[g][0], geometry[g][1], WS_ACCESS_STORE, fast, max_out);
        uint32_t ns =
            ws_coalesce_global(b, ALL, width, geometry[g][0], geometry[g][1], WS_ACCESS_STORE, slow, max_out);
        cr_assert_eq(nf, ns, "base %#llx width %u", (unsigned long long)base, width);
        for (uint32_t i = 0; i < 32; i++) {
          cr_assert_eq(fast[i].line_addr, slow[i].line_addr);
          cr_assert_eq(fast[i].sector_mask, slow[i].sector_mask, "base %#llx width %u line %u",
                       (unsigned long long)base, width, i);
          cr_assert_eq(fast[i].bytes, slow[i].bytes, "bytes %u %u base %#llx width %u line %u g %u max %u",
                       fast[i].bytes, slow[i].bytes, (unsigned long long)base, width, i, g, max_out);
          cr_assert_eq(fast[i].kind, slow[i].kind);
        }
      }
    }
  }
}

/* ---- local memory: word w of lane L at region + (w * 32 + L) * 4 ------------------- */

/* Each lane's first word of a local access at byte offset `off` (a
 * multiple of 4) of a warp region at 0x40000, by the layout above. */
static void local_addrs(uint32_t off, uint64_t a[32]) {
  for (uint32_t l = 0; l < 32; l++) a[l] = 0x40000 + ((uint64_t)(off / 4) * 32 + l) * 4;
}

Test(coalesce, a_warp_on_one_local_word_is_one_line_of_four_sectors) {
  uint64_t a[32];
  ws_line_access out[64];
  local_addrs(16, a); /* word 4: 0x40000 + 4 * 128 */
  cr_assert_eq(ws_coalesce_local(a, ALL, 4, 128, 128, 32, WS_ACCESS_LOAD, out, 64), 1);
  cr_expect_eq(out[0].line_addr, 0x40200);
  cr_expect_eq(out[0].sector_mask, 0xF);
  cr_expect_eq(out[0].bytes, 128);
}

Test(coalesce, wide_local_accesses_take_a_line_per_word) {
  uint64_t a[32];
  ws_line_access out[64];
  local_addrs(32, a); /* .128 at offset 32: words 8..11, lines 0x40400 .. 0x40580 */
  cr_assert_eq(ws_coalesce_local(a, ALL, 16, 128, 128, 32, WS_ACCESS_STORE, out, 64), 4);
  for (uint32_t i = 0; i < 4; i++) {
    cr_expect_eq(out[i].line_addr, 0x40400 + 128u * i);
    cr_expect_eq(out[i].sector_mask, 0xF);
    cr_expect_eq(out[i].bytes, 128);
    cr_expect_eq(out[i].kind, WS_ACCESS_STORE);
  }
  /* lanes 0..7 only, .64 at offset 8: words 2 and 3, sector 0 of each line */
  local_addrs(8, a);
  cr_assert_eq(ws_coalesce_local(a, 0xFFu, 8, 128, 128, 32, WS_ACCESS_LOAD, out, 64), 2);
  cr_expect_eq(out[0].line_addr, 0x40100);
  cr_expect_eq(out[1].line_addr, 0x40180);
  cr_expect_eq(out[0].sector_mask, 0x1);
  cr_expect_eq(out[1].sector_mask, 0x1);
  cr_expect_eq(out[0].bytes, 32);
}

Test(coalesce, local_words_shared_by_lanes_count_once) {
  /* lane L's .64 starts at word L % 2: lanes use words 0..2, so lines 0x40000..0x40100 */
  uint64_t a[32];
  ws_line_access out[64];
  for (uint32_t l = 0; l < 32; l++) a[l] = 0x40000 + ((uint64_t)(l % 2) * 32 + l) * 4;
  cr_assert_eq(ws_coalesce_local(a, ALL, 8, 128, 128, 32, WS_ACCESS_LOAD, out, 64), 3);
  cr_expect_eq(out[0].line_addr, 0x40000);
  cr_expect_eq(out[1].line_addr, 0x40080);
  cr_expect_eq(out[2].line_addr, 0x40100);
  cr_expect_eq(out[0].bytes + out[1].bytes + out[2].bytes, 32 * 8);
}
