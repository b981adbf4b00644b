/* test_sched.c - the warp scheduling policies on hand-built eligibility
 * masks: LRR takes the first eligible slot after the last issuer (wrapping),
 * GTO keeps the last issuer while it stays eligible and otherwise takes the
 * oldest warp (lowest slot on equal ages); names and the policy table.
 *
 * Why: the policy decides which warp's latency is hidden; these are the
 * picks the header promises, one bit pattern at a time. */
#include <criterion/criterion.h>

#include "sim/sm/sched.h"

#define B(i) (1u << (i))

Test(sched, names) {
  cr_expect_str_eq(ws_sched_name(WS_SCHED_LRR), "lrr");
  cr_expect_str_eq(ws_sched_name(WS_SCHED_GTO), "gto");
  cr_expect_str_eq(ws_sched_name(WS_SCHED_COUNT), "?");
  ws_sched s;
  ws_sched_init(&s, WS_SCHED_COUNT);
  cr_expect_str_eq(s.ops->name, "lrr", "an unknown policy falls back to LRR");
}

Test(sched, lrr_rotates_from_after_the_last_issuer) {
  ws_sched s;
  ws_sched_init(&s, WS_SCHED_LRR);
  const uint32_t m = B(1) | B(3) | B(7);
  cr_expect_eq(ws_sched_pick(&s, m), 1, "a fresh scheduler starts at slot 0");
  cr_expect_eq(s.last, 1);
  cr_expect_eq(ws_sched_pick(&s, m), 3);
  cr_expect_eq(ws_sched_pick(&s, m), 7);
  cr_expect_eq(ws_sched_pick(&s, m), 1, "wraps around");
  /* the last issuer is picked again only when nothing else is eligible */
  cr_expect_eq(ws_sched_pick(&s, B(1)), 1);
  cr_expect_eq(ws_sched_pick(&s, B(1) | B(2)), 2);
  cr_expect_eq(ws_sched_pick(&s, B(0) | B(2) | B(31)), 31, "after 2 comes 31 before wrapping to 0");
  cr_expect_eq(ws_sched_pick(&s, B(0) | B(2) | B(31)), 0, "after 31 comes 0");
  cr_expect_eq(ws_sched_pick(&s, 0xFFFFFFFFu), 1);
}

Test(sched, lrr_ignores_ages) {
  ws_sched s;
  ws_sched_init(&s, WS_SCHED_LRR);
  ws_sched_arrive(&s, 5, 0); /* oldest */
  ws_sched_arrive(&s, 2, 10);
  cr_expect_eq(ws_sched_pick(&s, B(2) | B(5)), 2);
  cr_expect_eq(ws_sched_pick(&s, B(2) | B(5)), 5);
}

Test(sched, gto_greedy_then_oldest) {
  ws_sched s;
  ws_sched_init(&s, WS_SCHED_GTO);
  /* arrival order: slot 4 first, then 1, then 9, then 6 */
  ws_sched_arrive(&s, 4, 100);
  ws_sched_arrive(&s, 1, 101);
  ws_sched_arrive(&s, 9, 102);
  ws_sched_arrive(&s, 6, 103);
  const uint32_t all = B(1) | B(4) | B(6) | B(9);
  cr_expect_eq(ws_sched_pick(&s, all), 4, "the oldest first");
  cr_expect_eq(ws_sched_pick(&s, all), 4, "greedy: the same warp while it is eligible");
  cr_expect_eq(ws_sched_pick(&s, B(1) | B(6) | B(9)), 1, "4 stalled: the oldest of the rest");
  cr_expect_eq(ws_sched_pick(&s, all), 1, "greedy on 1 even though 4 is older and eligible again");
  cr_expect_eq(ws_sched_pick(&s, B(6) | B(9)), 9);
  cr_expect_eq(ws_sched_pick(&s, B(6)), 6);
  /* a new warp arriving in slot 4 is the youngest */
  ws_sched_arrive(&s, 4, 200);
  cr_expect_eq(ws_sched_pick(&s, B(4) | B(9)), 9);
}

Test(sched, gto_equal_ages_take_the_lowest_slot) {
  ws_sched s;
  ws_sched_init(&s, WS_SCHED_GTO);
  for (uint32_t i = 0; i < 8; i++) ws_sched_arrive(&s, i, 7);
  cr_expect_eq(ws_sched_pick(&s, B(3) | B(5) | B(6)), 3);
  cr_expect_eq(ws_sched_pick(&s, B(5) | B(6)), 5);
}

Test(sched, lrr_rotates_past_the_last_issuer) {
  ws_sched s;
  ws_sched_init(&s, WS_SCHED_LRR);
  cr_expect_str_eq(ws_sched_name(WS_SCHED_LRR), "lrr");
  cr_expect_eq(ws_sched_pick(&s, 0xF), 0);
  cr_expect_eq(ws_sched_pick(&s, 0xF), 1);
  cr_expect_eq(ws_sched_pick(&s, 0xF), 2);
  cr_expect_eq(ws_sched_pick(&s, 0xB), 3);
  cr_expect_eq(ws_sched_pick(&s, 0xB), 0, "wraps around");
  cr_expect_eq(ws_sched_pick(&s, 0x8), 3);
  cr_expect_eq(ws_sched_pick(&s, 1u << 31 | 1u), 31);
  cr_expect_eq(ws_sched_pick(&s, 1u << 31 | 1u), 0);
}

Test(sched, gto_keeps_the_greedy_warp_then_takes_the_oldest) {
  ws_sched s;
  ws_sched_init(&s, WS_SCHED_GTO);
  cr_expect_str_eq(ws_sched_name(WS_SCHED_GTO), "gto");
  /* slot 2 arrived first, then 0, then 1 */
  ws_sched_arrive(&s, 2, 10);
  ws_sched_arrive(&s, 0, 11);
  ws_sched_arrive(&s, 1, 12);
  cr_expect_eq(ws_sched_pick(&s, 0x7), 2, "oldest first");
  cr_expect_eq(ws_sched_pick(&s, 0x7), 2, "greedy: stays while eligible");
  cr_expect_eq(ws_sched_pick(&s, 0x3), 0, "then the oldest of the rest");
  cr_expect_eq(ws_sched_pick(&s, 0x7), 0, "greedy beats older slot 2");
  cr_expect_eq(ws_sched_pick(&s, 0x6), 2);
}

Test(sched, the_two_policies_differ_on_the_same_masks) {
  ws_sched lrr, gto;
  ws_sched_init(&lrr, WS_SCHED_LRR);
  ws_sched_init(&gto, WS_SCHED_GTO);
  for (uint32_t i = 0; i < 4; i++) {
    ws_sched_arrive(&lrr, i, i);
    ws_sched_arrive(&gto, i, i);
  }
  uint32_t a[4], b[4];
  for (int i = 0; i < 4; i++) {
    a[i] = ws_sched_pick(&lrr, 0xF);
    b[i] = ws_sched_pick(&gto, 0xF);
  }
  cr_expect(a[0] == 0 && a[1] == 1 && a[2] == 2 && a[3] == 3);
  cr_expect(b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0);
}

/* Before any warp issued GTO has no greedy slot: slot 31 is no exception
 * (it once was, LRR's starting point leaking into GTO). Only a
 * sub-partition with 32 warp slots (128 warps per SM) could see it. */
Test(sched, gto_first_pick_is_the_oldest_even_with_slot_31) {
  ws_sched s;
  ws_sched_init(&s, WS_SCHED_GTO);
  ws_sched_arrive(&s, 0, 1);
  ws_sched_arrive(&s, 31, 2);
  cr_expect_eq(ws_sched_pick(&s, B(0) | B(31)), 0);
}
