/* test_probedef.c - the probe table (sim/common/probe.def) as probe.h turns it
 * into C: the kind and outcome names traces have always used, the typed
 * accessors against a record built by hand, and a record layout that the
 * .wst format depends on.
 *
 * Design: the expected names and values are written out here, not derived
 * from the table, so a reordered or renamed row fails a test instead of
 * silently changing every trace and export. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <string.h>

#include "sim/common/probe.h"

Test(probedef, kind_names_are_the_trace_names_in_their_stored_order) {
  static const char *const names[] = {"kernel",  "cta",      "issue",   "stall",  "rf_bank", "coalesce",
                                      "smem",    "l1",       "xbar",    "l2",     "dram",    "l2_fill",
                                      "l1_fill", "mem_done", "barrier", "depbar", "host",    "pcie"};
  cr_assert_eq(WS_PEV_COUNT, sizeof names / sizeof names[0]);
  for (uint32_t k = 0; k < WS_PEV_COUNT; k++) cr_expect_str_eq(ws_probe_kind_lookup(k)->name, names[k]);
  cr_expect_eq(WS_PEV_L1, 7);
  cr_expect_eq(WS_PEV_PCIE, 17);
  cr_expect_null(ws_probe_kind_lookup(WS_PEV_COUNT));
}

Test(probedef, outcomes_count_from_zero_within_their_set) {
  cr_expect_eq(WS_PROBE_DIR_REQ, 0);
  cr_expect_eq(WS_PROBE_DIR_RESP, 1);
  cr_expect_eq(WS_PROBE_L1_HIT, 0);
  cr_expect_eq(WS_PROBE_L1_RESFAIL, 4);
  cr_expect_eq(WS_PROBE_L2_WRITTEN, 2);
  cr_expect_eq(WS_PROBE_ROW_CONFLICT, 2);
  cr_expect_eq(WS_PROBE_BAR_RELEASE, 1);
  cr_expect_eq(WS_PROBE_SMEM_ASYNC_FILL, 3);
  cr_expect_eq(WS_PROBE_HOST_LAUNCH_OVERHEAD, 5);
  /* a DMA burst's direction kept the crossbar's values */
  cr_expect_eq(WS_PROBE_PCIE_H2D, WS_PROBE_DIR_REQ);
  cr_expect_eq(WS_PROBE_PCIE_D2H, WS_PROBE_DIR_RESP);
}

Test(probedef, outcome_names_by_kind) {
  const ws_probe_kind_info *dram = ws_probe_kind_lookup(WS_PEV_DRAM),
                           *pcie = ws_probe_kind_lookup(WS_PEV_PCIE);
  cr_expect_str_eq(ws_probe_outcome_lookup(dram->outcomes, WS_PROBE_ROW_CONFLICT)->name, "row_conflict");
  cr_expect_null(ws_probe_outcome_lookup(dram->outcomes, 3), "past the set's last outcome");
  cr_expect_str_eq(ws_probe_outcome_lookup(pcie->outcomes, WS_PROBE_PCIE_D2H)->name, "d2h");
  cr_expect_str_eq(ws_probe_outcome_lookup(WS_PROBE_OUTCOMES_HOST, WS_PROBE_HOST_WORK)->name, "host_work");
  cr_expect_str_eq(ws_probe_outcome_lookup(WS_PROBE_OUTCOMES_L1, WS_PROBE_L1_MERGE)->name, "merge");
  cr_expect_eq(ws_probe_kind_lookup(WS_PEV_STALL)->outcomes, WS_PROBE_OUTCOMES_NONE);
  cr_expect_null(ws_probe_outcome_lookup(WS_PROBE_OUTCOMES_NONE, 0));
  cr_expect_null(ws_probe_outcome_lookup(WS_PROBE_OUTCOMES_COUNT, 0));
}

Test(probedef, accessors_read_and_write_the_slots_of_a_hand_built_record) {
  ws_probe_event ev = {.kind = WS_PEV_DRAM, .a = 5, .b = 1234, .c = 64};
  cr_expect_eq(ws_probe_dram_bank(&ev), 5);
  cr_expect_eq(ws_probe_dram_row(&ev), 1234);
  cr_expect_eq(ws_probe_dram_bytes(&ev), 64);
  ws_probe_event l1 = {.kind = WS_PEV_L1};
  ws_probe_set_l1_set(&l1, 17);
  ws_probe_set_l1_way(&l1, UINT32_MAX);
  ws_probe_set_l1_sectors(&l1, 0x9);
  cr_expect(l1.a == 17 && l1.b == UINT32_MAX && l1.c == 0x9);
  ws_probe_event issue = {.kind = WS_PEV_ISSUE, .a = 0xffffffffu, .b = 3, .c = 0x10};
  cr_expect_eq(ws_probe_issue_mask(&issue), 0xffffffffu);
  cr_expect_eq(ws_probe_issue_opcode(&issue), 3);
  cr_expect_eq(ws_probe_issue_tagged(&issue), 0x10);
  cr_expect_eq(ws_probe_slot_value(&issue, WS_PROBE_SLOT_B), 3);
}

Test(probedef, fields_name_their_slots) {
  const ws_probe_field_info *way = ws_probe_field_lookup(WS_PEV_L1, WS_PROBE_SLOT_B);
  cr_assert_not_null(way);
  cr_expect_str_eq(way->name, "l1_way");
  cr_expect_str_eq(way->arg, "way");
  cr_expect_eq(way->form, WS_PROBE_FORM_WAY);
  cr_expect_str_eq(ws_probe_field_lookup(WS_PEV_KERNEL, WS_PROBE_SLOT_B)->arg, "threads_per_cta");
  cr_expect_eq(ws_probe_field_lookup(WS_PEV_SMEM, WS_PROBE_SLOT_A)->form, WS_PROBE_FORM_MASK32);
  cr_expect_null(ws_probe_field_lookup(WS_PEV_XBAR, WS_PROBE_SLOT_B), "unused");
  cr_expect_null(ws_probe_field_lookup(WS_PEV_MEM_DONE, WS_PROBE_SLOT_A), "unused");
  cr_expect_null(ws_probe_field_lookup(WS_PEV_COUNT, WS_PROBE_SLOT_A));
  cr_expect_null(ws_probe_field_lookup(WS_PEV_L1, WS_PROBE_SLOTS));
}

/* The .wst codec and every test that compares records rely on this layout. */
Test(probedef, record_layout_is_unchanged) {
  cr_expect_eq(sizeof(ws_probe_event), 72);
  cr_expect_eq(offsetof(ws_probe_event, begin), 0);
  cr_expect_eq(offsetof(ws_probe_event, end), 8);
  cr_expect_eq(offsetof(ws_probe_event, addr), 16);
  cr_expect_eq(offsetof(ws_probe_event, uop), 24);
  cr_expect_eq(offsetof(ws_probe_event, link), 32);
  cr_expect_eq(offsetof(ws_probe_event, a), 40);
  cr_expect_eq(offsetof(ws_probe_event, b), 44);
  cr_expect_eq(offsetof(ws_probe_event, c), 48);
  cr_expect_eq(offsetof(ws_probe_event, pc), 52);
  cr_expect_eq(offsetof(ws_probe_event, sm), 56);
  cr_expect_eq(offsetof(ws_probe_event, unit), 58);
  cr_expect_eq(offsetof(ws_probe_event, warp), 60);
  cr_expect_eq(offsetof(ws_probe_event, kind), 62);
  cr_expect_eq(offsetof(ws_probe_event, outcome), 63);
  cr_expect_eq(offsetof(ws_probe_event, flags), 64);
}
