/* test_uvm.c - managed memory in the memory system: a first touch faults
 * and is refused until its batch is done, the batch costing the driver's
 * fixed work plus the block's time on the link; the density prefetcher
 * moves a region once more than 51 % of it is there or faulted; a full
 * device evicts the chunk populated first; the host's touch brings blocks
 * back.
 *
 * Hand values for mt_cfg() at 1000 MHz with the a100 link (gen 4 x16,
 * 256 B TLPs with 24 B of framing, 128b/130b) and the default uvm keys:
 *  a 64 KiB block: 256 TLPs, 65536 + 256 x 24 = 71680 wire bytes,
 *  ceil(71680 x 8 x 130 x 1000 / (128 x 16 x 16000)) = 2275 ns = 2275 cycles
 *  a batch of one block: 45000 (fault_batch_ns) + 2275 = 47275 cycles */
#include <criterion/criterion.h>

#include "sim/memsys/uvm.h"
#include "tests/sim/memsys/memtest.h"

#define M WS_CFG_MANAGED_BASE
#define BLOCK 65536u

static ws_gpu_cfg uvm_cfg(void) {
  ws_gpu_cfg c = mt_cfg();
  c.pcie.gen = 4, c.pcie.lanes = 16, c.pcie.max_payload_bytes = 256, c.pcie.tlp_overhead_bytes = 24;
  c.uvm = (ws_cfg_uvm){.fault_batch_ns = 45000,
                       .batch_faults = 256,
                       .migrate_bytes = BLOCK,
                       .chunk_bytes = 2u << 20,
                       .prefetch_threshold_pct = 51};
  mt_resolve(&c);
  return c;
}

/* Offers a load of `line` until accepted; returns the cycle it was. */
static uint64_t touch(mt_sys *s, uint64_t line, uint64_t cookie) {
  while (!mt_access(s, 0, line, 0x1, WS_ACCESS_LOAD, cookie)) {
    cr_assert(!ws_eventq_empty(&s->q), "refused with nothing to wait for");
    mt_run(s, ws_eventq_next_cycle(&s->q));
  }
  uint64_t at = s->now;
  mt_run(s, UINT64_MAX);
  return at;
}

Test(uvm, a_first_touch_waits_for_its_batch) {
  ws_gpu_cfg c = uvm_cfg();
  cr_assert_eq(ws_config_pcie_dma_ns(&c.pcie, BLOCK), 2275);
  mt_sys s;
  mt_init(&s, &c);
  ws_uvm *u = ws_memsys_uvm(s.m);
  cr_assert_eq(ws_uvm_add_range(u, s.ctx, M, 4 * BLOCK), WS_OK);
  s.now = 100;
  cr_expect_not(mt_access(&s, 0, M + 128, 0x1, WS_ACCESS_LOAD, 1), "not on the device: refused");
  cr_expect(ws_memsys_idle(s.m), "a refused access holds nothing");
  uint64_t at = touch(&s, M + 128, 1);
  cr_expect_eq(at, 100 + 1 + 47275, "the batch starts the next cycle and lasts 45000 + 2275");
  cr_expect_eq(mt_stat(&s, "uvm.faults"), 1);
  cr_expect_eq(mt_stat(&s, "uvm.batches"), 1);
  cr_expect_eq(mt_stat(&s, "uvm.migrated_bytes"), BLOCK);
  cr_expect_eq(mt_stat(&s, "uvm.fault_cycles"), 47275);
  cr_expect_eq(ws_uvm_resident_bytes(u), BLOCK);
  s.now += 10;
  cr_expect(mt_access(&s, 0, M + BLOCK - 128, 0x1, WS_ACCESS_LOAD, 2), "the rest of the block came too");
  mt_run(&s, UINT64_MAX);
  cr_expect_not(mt_access(&s, 0, M + BLOCK, 0x1, WS_ACCESS_LOAD, 3), "the next block did not");
  mt_fini(&s);
}

Test(uvm, faults_of_one_cycle_share_a_batch) {
  ws_gpu_cfg c = uvm_cfg();
  mt_sys s;
  mt_init(&s, &c);
  cr_assert_eq(ws_uvm_add_range(ws_memsys_uvm(s.m), s.ctx, M, 32 * BLOCK), WS_OK);
  s.now = 100;
  /* blocks 0 and 8: far apart, no prefetch; two 4 KiB pages of block 0 */
  cr_expect_not(mt_access(&s, 0, M, 0x1, WS_ACCESS_LOAD, 1));
  cr_expect_not(mt_access(&s, 1, M + 4096, 0x1, WS_ACCESS_LOAD, 2));
  cr_expect_not(mt_access(&s, 2, M + 8 * BLOCK, 0x1, WS_ACCESS_LOAD, 3));
  mt_run(&s, UINT64_MAX);
  cr_expect_eq(mt_stat(&s, "uvm.batches"), 1);
  cr_expect_eq(mt_stat(&s, "uvm.faults"), 3, "three distinct 4 KiB pages");
  cr_expect_eq(mt_stat(&s, "uvm.migrated_bytes"), 2 * BLOCK);
  /* 45000 + 143360 x 8 x 130 x 1000 / 32768000 = 45000 + 4550 */
  cr_expect_eq(mt_stat(&s, "uvm.fault_cycles"), 49550);
  mt_fini(&s);
}

Test(uvm, the_prefetcher_fills_a_region_past_the_threshold) {
  ws_gpu_cfg c = uvm_cfg();
  mt_sys s;
  mt_init(&s, &c);
  cr_assert_eq(ws_uvm_add_range(ws_memsys_uvm(s.m), s.ctx, M, 32 * BLOCK), WS_OK);
  s.now = 100;
  touch(&s, M, 1); /* block 0: 1 of 2 is 50 %, not above 51 */
  cr_expect_eq(mt_stat(&s, "uvm.migrated_bytes"), BLOCK);
  touch(&s, M + BLOCK, 2); /* block 1: [0,1] full, [0,4) 2 of 4 = 50 % */
  cr_expect_eq(mt_stat(&s, "uvm.migrated_bytes"), 2 * BLOCK);
  touch(&s, M + 2 * BLOCK, 3); /* block 2: [0,4) 3 of 4 = 75 % > 51: block 3 comes too; [0,8) 3 of 8 no */
  cr_expect_eq(mt_stat(&s, "uvm.migrated_bytes"), 4 * BLOCK);
  cr_expect_eq(mt_stat(&s, "uvm.prefetched_bytes"), BLOCK);
  cr_expect_eq(mt_stat(&s, "uvm.batches"), 3);
  s.now += 10;
  cr_expect(mt_access(&s, 0, M + 3 * BLOCK, 0x1, WS_ACCESS_LOAD, 4), "block 3 is there without a fault");
  mt_run(&s, UINT64_MAX);
  mt_fini(&s);
}

Test(uvm, the_region_never_leaves_the_allocation) {
  ws_gpu_cfg c = uvm_cfg();
  mt_sys s;
  mt_init(&s, &c);
  /* 3 blocks mapped: a fault on block 2 after 0 and 1 fills [0,4)'s mapped 3 blocks, never block 3 */
  cr_assert_eq(ws_uvm_add_range(ws_memsys_uvm(s.m), s.ctx, M, 3 * BLOCK), WS_OK);
  s.now = 100;
  touch(&s, M, 1);
  touch(&s, M + BLOCK, 2);
  touch(&s, M + 2 * BLOCK, 3);
  cr_expect_eq(mt_stat(&s, "uvm.migrated_bytes"), 3 * BLOCK);
  cr_expect_eq(ws_uvm_resident_bytes(ws_memsys_uvm(s.m)), 3 * BLOCK);
  mt_fini(&s);
}

Test(uvm, a_full_device_evicts_the_chunk_populated_first) {
  ws_gpu_cfg c = uvm_cfg();
  c.uvm.chunk_bytes = 2 * BLOCK; /* two blocks per chunk */
  c.uvm.prefetch_threshold_pct = 100;
  mt_resolve(&c);
  mt_sys s;
  mt_init(&s, &c);
  ws_uvm *u = ws_memsys_uvm(s.m);
  cr_assert_eq(ws_uvm_add_range(u, s.ctx, M, 6 * BLOCK), WS_OK);
  ws_uvm_set_budget(u, 4 * BLOCK);
  s.now = 100;
  for (uint32_t b = 0; b < 4; b++) touch(&s, M + (uint64_t)b * BLOCK, b + 1); /* chunks 0 and 1, full */
  cr_expect_eq(mt_stat(&s, "uvm.evicted_bytes"), 0);
  touch(&s, M + 4 * BLOCK, 5); /* chunk 2: chunk 0 (first populated) goes */
  cr_expect_eq(mt_stat(&s, "uvm.evicted_bytes"), 2 * BLOCK);
  cr_expect_not(ws_uvm_resident(u, M));
  cr_expect_not(ws_uvm_resident(u, M + BLOCK));
  cr_expect(ws_uvm_resident(u, M + 2 * BLOCK));
  cr_expect(ws_uvm_resident(u, M + 4 * BLOCK));
  /* 45000 + 2 blocks written back + 1 block in: 45000 + 4550 + 2275 */
  ws_uvm_totals t = ws_uvm_get_totals(u);
  cr_expect_eq(t.batches, 5);
  cr_expect_eq(t.evicted_bytes, 2 * BLOCK);
  mt_fini(&s);
}

Test(uvm, the_host_takes_back_what_it_touches_and_prefetch_moves_the_rest) {
  ws_gpu_cfg c = uvm_cfg();
  mt_sys s;
  mt_init(&s, &c);
  ws_uvm *u = ws_memsys_uvm(s.m);
  cr_assert_eq(ws_uvm_add_range(u, s.ctx, M, 4 * BLOCK), WS_OK);
  uint64_t in, out;
  ws_uvm_prefetch(u, M + 100, 2 * BLOCK, &in, &out); /* touches blocks 0, 1 and 2 */
  cr_expect_eq(in, 3 * BLOCK);
  cr_expect_eq(out, 0);
  ws_uvm_prefetch(u, M, 4 * BLOCK, &in, &out);
  cr_expect_eq(in, BLOCK, "only block 3 was not there");
  ws_uvm_host_touch(u, M + BLOCK + 5, 1);
  cr_expect_not(ws_uvm_resident(u, M + BLOCK));
  cr_expect(ws_uvm_resident(u, M));
  cr_expect_eq(ws_uvm_resident_bytes(u), 3 * BLOCK);
  ws_uvm_remove_range(u, M);
  cr_expect_eq(ws_uvm_resident_bytes(u), 0);
  mt_fini(&s);
}
