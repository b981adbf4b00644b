/* test_sm.c - the SM's parts in isolation: scheduling policies, the CTA
 * dispatch rule, the scoreboard's dependency sets and bank-conflict cost.
 *
 * Design: each part is a pure data structure with a tiny interface, so the
 * cases are hand-built (eligibility masks, ages, kernels of one line) and
 * the expected answers follow from the documented rules. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"
#include "sim/gpu/dispatch.h"
#include "sim/sm/sched.h"
#include "sim/sm/scoreboard.h"

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

Test(dispatch, first_wave_round_robin_then_refill) {
  ws_dispatch d;
  ws_dispatch_init(&d, 10, 3, 2);
  uint32_t sm;
  uint64_t cta;
  static const uint32_t want_sm[6] = {0, 1, 2, 0, 1, 2};
  for (uint64_t i = 0; i < 6; i++) {
    cr_assert(ws_dispatch_initial(&d, &sm, &cta));
    cr_expect_eq(cta, i);
    cr_expect_eq(sm, want_sm[i]);
  }
  cr_expect_not(ws_dispatch_initial(&d, &sm, &cta), "the first wave fills ctas_per_sm per SM");
  for (uint64_t i = 6; i < 10; i++) {
    cr_assert(ws_dispatch_next(&d, &cta));
    cr_expect_eq(cta, i, "linear order");
  }
  cr_expect_not(ws_dispatch_next(&d, &cta));
  cr_expect_not(ws_dispatch_all_retired(&d));
  d.retired = 10;
  cr_expect(ws_dispatch_all_retired(&d));
}

Test(dispatch, small_grid_uses_the_first_sms) {
  ws_dispatch d;
  ws_dispatch_init(&d, 2, 108, 4);
  uint32_t sm;
  uint64_t cta;
  cr_assert(ws_dispatch_initial(&d, &sm, &cta));
  cr_expect_eq(sm, 0);
  cr_assert(ws_dispatch_initial(&d, &sm, &cta));
  cr_expect_eq(sm, 1);
  cr_expect_not(ws_dispatch_initial(&d, &sm, &cta));
}

static ws_scoreboard_insn *table_of(const char *body, uint32_t banks, ws_program **prog, ws_ctx *ctx) {
  char src[1024];
  snprintf(src, sizeof src, ".kernel t\n.param .ptr p\n.shared sh 256 16\n%s", body);
  cr_assert_eq(ws_asm_parse(ctx, src, strlen(src), "t.wsa", prog), WS_OK, "%s", ws_errmsg(ctx));
  ws_scoreboard_insn *t = NULL;
  cr_assert_eq(ws_scoreboard_table_build(ctx, &(*prog)->kernels[0], 64, banks, &t), WS_OK);
  return t;
}

static bool has_bit(const uint64_t *m, unsigned r) { return m[r / 64] >> (r % 64) & 1u; }

Test(scoreboard, read_and_write_sets_follow_the_signature) {
  ws_ctx *ctx = ws_ctx_create();
  ws_program *prog = NULL;
  ws_scoreboard_insn *t = table_of("@P1 IMAD.WIDE.U32 R4, R1, 8, R6\nSTG.64 [R8], R10\nISETP.LT P2, R3, 5\n"
                           "HMMA.16816.F32 R12, R16, R20, R24\nLDS.32 R0, [R2+sh]\nEXIT\n", 4, &prog, ctx);
  /* IMAD.WIDE: writes R4:R5, reads R1, R6:R7 and guard P1 */
  cr_expect(has_bit(t[0].wr_mask, 4) && has_bit(t[0].wr_mask, 5) && !has_bit(t[0].wr_mask, 1));
  cr_expect(has_bit(t[0].dep_mask, 1) && has_bit(t[0].dep_mask, 6) && has_bit(t[0].dep_mask, 7));
  cr_expect_eq(t[0].ndeps, 6, "R4 R5 R1 R6 R7 and P1");
  cr_expect_eq(t[0].unit, WS_UNIT_INT);
  /* STG.64: reads the address pair R8:R9 and the data pair R10:R11, writes nothing */
  cr_expect_eq(t[1].nwrites, 0);
  cr_expect(has_bit(t[1].dep_mask, 9) && has_bit(t[1].dep_mask, 11));
  cr_expect_eq(t[1].mem_class, WS_MEMC_GLOBAL);
  /* ISETP writes a predicate slot (64 + 2) */
  cr_expect_eq(t[2].nwrites, 1);
  cr_expect_eq(t[2].writes[0], 64 + 2);
  /* HMMA: writes 4, reads 4 + 2 + 4 */
  cr_expect_eq(t[3].nwrites, 4);
  cr_expect_eq(t[3].ndeps, 14);
  cr_expect_eq(t[3].flop_kind, WS_FLOP_MMA);
  cr_expect_eq(t[4].mem_class, WS_MEMC_SHARED);
  cr_expect_eq(t[5].unit, WS_UNIT_CTRL);
  free(t);
  ws_program_destroy(prog);
  ws_ctx_destroy(ctx);
}

Test(scoreboard, bank_conflicts_count_distinct_sources_per_bank) {
  ws_ctx *ctx = ws_ctx_create();
  ws_program *prog = NULL;
  ws_scoreboard_insn *t = table_of("FFMA R0, R1, R2, R3\nFFMA R0, R1, R5, R9\nFFMA R0, R1, R1, R1\n"
                           "FFMA R0, R4, R8, R12\nFFMA R0, RZ, R4, RZ\n", 4, &prog, ctx);
  cr_expect_eq(t[0].bank_extra_cycles, 0, "banks 1, 2, 3");
  cr_expect_eq(t[1].bank_extra_cycles, 2, "R1, R5, R9 all in bank 1");
  cr_expect_eq(t[2].bank_extra_cycles, 0, "one register read once");
  cr_expect_eq(t[3].bank_extra_cycles, 2);
  cr_expect_eq(t[4].bank_extra_cycles, 0, "RZ is not read from a bank");
  free(t);
  ws_program_destroy(prog);
  ws_ctx_destroy(ctx);
}

Test(scoreboard, short_and_long_entries) {
  ws_ctx *ctx = ws_ctx_create();
  ws_program *prog = NULL;
  ws_scoreboard_insn *t = table_of("LDG.64 R4, [R2]\nIADD R6, R5, 1\nIADD R7, R8, 1\n", 4, &prog, ctx);
  ws_scoreboard sb;
  cr_assert(ws_scoreboard_init(&sb, 64));
  ws_scoreboard_set_long(&sb, &t[0]);
  cr_expect_eq(sb.long_count, 2);
  cr_expect(ws_scoreboard_long_blocked(&sb, &t[1]), "reads R5");
  cr_expect_not(ws_scoreboard_long_blocked(&sb, &t[2]));
  ws_scoreboard_clear_long(&sb, &t[0]);
  cr_expect_not(ws_scoreboard_long_blocked(&sb, &t[1]));
  ws_scoreboard_set_short(&sb, &t[2], 40, WS_SCOREBOARD_MIO, 3);
  ws_scoreboard_slot s = ws_scoreboard_latest(&sb, &t[2], 0);
  cr_expect_eq(s.ready_cycle, 40, "WAW on R7");
  cr_expect_eq(s.kind, WS_SCOREBOARD_MIO);
  cr_expect_eq(s.conflict_cycles, 3);
  cr_expect_eq(ws_scoreboard_latest(&sb, &t[1], 0).ready_cycle, 0);
  /* asked at cycle 39 the result is still pending; at 40 it is in the past
   * and stays reported as none, even to a later question with now = 0 */
  cr_expect_eq(ws_scoreboard_latest(&sb, &t[2], 39).ready_cycle, 40);
  cr_expect_eq(ws_scoreboard_latest(&sb, &t[2], 40).ready_cycle, 0);
  cr_expect_eq(ws_scoreboard_latest(&sb, &t[2], 0).ready_cycle, 0);
  ws_scoreboard_set_short(&sb, &t[2], 90, WS_SCOREBOARD_FIXED, 0);
  cr_expect_eq(ws_scoreboard_latest(&sb, &t[2], 40).ready_cycle, 90, "a new result re-arms the slot");
  ws_scoreboard_free(&sb);
  free(t);
  ws_program_destroy(prog);
  ws_ctx_destroy(ctx);
}
