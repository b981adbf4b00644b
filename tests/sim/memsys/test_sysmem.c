/* test_sysmem.c - zero-copy accesses to mapped host memory: a load's round
 * trip over the idle link, worked out by hand; nothing is cached; the link
 * serialises TLPs at its rate; a store lands half a round trip after it has
 * crossed, and the observer is told when.
 *
 * Hand values for mt_cfg() at 1000 MHz with the a100 link (gen 4 x16,
 * 24 B of framing per TLP) and zero_copy_lat_ns = 700 (700 cycles):
 *  wire rate: 16 lanes x 16000 MT/s x 128/130 / 8 = 31507 MB/s
 *  a TLP of B bytes crosses in B x 1000 / 31507 cycles, kept in 1/1024 cycle:
 *  request (24 B) 779/1024, completion of one sector (56 B) 1820/1024
 *  a sector load: 20 (L1 pipeline) + ceil((779 + 350x1024 + 1820 + 350x1024) / 1024) = 20 + 703 = 723 */
#include <criterion/criterion.h>

#include "sim/memsys/latency.h"
#include "tests/sim/memsys/memtest.h"

#define HOST_LINE (WS_CFG_SYSMEM_BASE + 0x4000)

static ws_gpu_cfg host_cfg(void) {
  ws_gpu_cfg c = mt_cfg();
  c.pcie.gen = 4;
  c.pcie.lanes = 16;
  c.pcie.tlp_overhead_bytes = 24;
  c.pcie.zero_copy_lat_ns = 700;
  mt_resolve(&c);
  return c;
}

static uint64_t load(mt_sys *s, uint64_t line, uint8_t mask, uint64_t cookie) {
  uint64_t t = s->now;
  cr_assert(mt_access(s, 0, line, mask, WS_ACCESS_LOAD, cookie));
  mt_run(s, UINT64_MAX);
  cr_assert_neq(s->resp_cycle[cookie], 0, "no response");
  cr_assert(ws_memsys_idle(s->m));
  return s->resp_cycle[cookie] - t;
}

Test(sysmem, a_load_is_one_round_trip_over_the_link) {
  ws_gpu_cfg c = host_cfg();
  cr_assert_eq(c.geom.pcie_wire_mbps, 31507);
  mt_sys s;
  mt_init(&s, &c);
  s.now = 100;
  cr_expect_eq(load(&s, HOST_LINE, 0x1, 1), 723);
  cr_expect_eq(ws_latency_idle_cycles(&c, WS_LEVEL_HOST), 723);
  s.now += 10;
  cr_expect_eq(load(&s, HOST_LINE, 0x1, 2), 723, "mapped host memory is never cached: the same line again");
  cr_expect_eq(mt_stat(&s, "sysmem.reads"), 2);
  cr_expect_eq(mt_stat(&s, "sysmem.read_bytes"), 64);
  cr_expect_eq(mt_stat(&s, "sm*.l1.*"), 0, "the L1 never saw them");
  cr_expect_eq(mt_stat(&s, "l2.slice*.*"), 0, "nor the L2");
  s.now += 10;
  load(&s, 0x10000, 0x1, 3); /* device memory, for contrast: both count it */
  cr_expect_gt(mt_stat(&s, "sm*.l1.*"), 0);
  cr_expect_gt(mt_stat(&s, "l2.slice*.*"), 0);
  mt_fini(&s);
}

Test(sysmem, completions_share_the_link) {
  ws_gpu_cfg c = host_cfg();
  mt_sys s;
  mt_init(&s, &c);
  s.now = 100;
  /* 32 whole-line loads offered on consecutive cycles: each completion
   * (128 + 24 B) holds the downstream link 152000 / 31507 = 4.82 cycles,
   * longer than the cycle between requests, so they leave back to back */
  uint32_t n = 32;
  for (uint32_t i = 0; i < n; i++) {
    mt_access_retry(&s, 0, HOST_LINE + 128u * i, 0xF, WS_ACCESS_LOAD, i + 1);
    mt_run(&s, s.now + 1);
  }
  mt_run(&s, UINT64_MAX);
  uint64_t span = s.resp_cycle[n] - s.resp_cycle[1];
  uint64_t want = (uint64_t)(n - 1) * 152000u / 31507u; /* 149.5 */
  cr_expect(span >= want && span <= want + 1, "32 completions spread over %llu cycles, want ~%llu",
            (unsigned long long)span, (unsigned long long)want);
  mt_fini(&s);
}

typedef struct landing {
  uint64_t line, cycle;
  uint8_t mask;
  uint32_t calls;
} landing;

static void on_land(void *user, uint64_t line_addr, uint8_t sector_mask, uint64_t cycle) {
  landing *l = user;
  l->line = line_addr, l->mask = sector_mask, l->cycle = cycle;
  l->calls++;
}

Test(sysmem, a_store_lands_half_a_round_trip_after_crossing) {
  ws_gpu_cfg c = host_cfg();
  mt_sys s;
  mt_init(&s, &c);
  landing l = {0};
  ws_memsys_set_host_write_observer(s.m, on_land, &l);
  s.now = 1000;
  /* 32 B + 24 B cross in 1820/1024 cycles after the L1 pipeline (20), then
   * 350 cycles to host memory: ceil((1020 x 1024 + 1820 + 358400) / 1024) = 1372 */
  cr_assert(mt_access(&s, 0, HOST_LINE, 0x2, WS_ACCESS_STORE, 7));
  cr_expect_eq(l.calls, 1, "told as the store leaves");
  cr_expect_eq(l.line, HOST_LINE);
  cr_expect_eq(l.mask, 0x2);
  cr_expect_eq(l.cycle, 1372);
  cr_expect_not(ws_memsys_idle(s.m), "the store is in flight until it lands");
  mt_run(&s, 1371);
  cr_expect_not(ws_memsys_idle(s.m));
  mt_run(&s, 1372);
  cr_expect(ws_memsys_idle(s.m));
  cr_expect_eq(s.responses, 0, "a store is posted: no response");
  cr_expect_eq(mt_stat(&s, "sysmem.writes"), 1);
  mt_fini(&s);
}

Test(sysmem, request_reaches_host_memory_half_way) {
  ws_gpu_cfg c = host_cfg();
  /* 20 (L1 pipeline) + ceil((779 + 358400) / 1024) = 20 + 351 */
  cr_expect_eq(ws_latency_host_request_cycles(&c), 371);
}
