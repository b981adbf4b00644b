/* test_simt.c - the SIMT reconvergence stack: first its operations one by
 * one on hand-built masks (reset, uniform and divergent branches, the two
 * refinements that keep the stack bounded, settling, exits, growth), then
 * divergence and reconvergence end to end. Each kernel makes every thread
 * write a trace (values, and ballots of which lanes are active at that
 * point), so reconvergence shows up as full ballots after joins.
 *
 * Why: every branch of every kernel goes through ws_simt_branch; a wrong
 * mask or reconvergence pc changes results, not just timing. */
#include "tests/sim/simtest.h"

#include "sim/exec/simt.h"

static void expect_entry(const ws_simt *s, uint32_t i, uint32_t pc, uint32_t rpc, uint32_t mask) {
  cr_assert_lt(i, s->depth, "entry %u of %u", i, s->depth);
  const ws_simt_entry *e = &s->entries[i];
  cr_expect_eq(e->pc, pc, "entry %u pc %u, want %u", i, e->pc, pc);
  cr_expect_eq(e->rpc, rpc, "entry %u rpc %u, want %u", i, e->rpc, rpc);
  cr_expect_eq(e->mask, mask, "entry %u mask 0x%x, want 0x%x", i, e->mask, mask);
}

Test(simt, reset_and_uniform_branches) {
  ws_simt s;
  cr_assert(ws_simt_init(&s));
  ws_simt_reset(&s, 0);
  cr_expect_null(ws_simt_top(&s), "no lanes: nothing to run");
  ws_simt_reset(&s, 0xFF);
  cr_expect_eq(s.depth, 1);
  expect_entry(&s, 0, 0, WS_SIMT_NO_RPC, 0xFF);
  cr_assert(ws_simt_branch(&s, 0, 9, 4, 0xFF)); /* all active lanes taken */
  cr_expect_eq(s.depth, 1);
  expect_entry(&s, 0, 9, WS_SIMT_NO_RPC, 0xFF);
  cr_assert(ws_simt_branch(&s, 9, 2, 12, 0)); /* none taken: fall through */
  expect_entry(&s, 0, 10, WS_SIMT_NO_RPC, 0xFF);
  ws_simt_settle(&s);
  cr_expect_eq(s.depth, 1, "the base entry never reconverges");
  ws_simt_free(&s);
  ws_simt_free(&s);
}

/* if/else: BRA at pc 2 to 10, reconverging at 6; lanes 0-3 of 0-7 taken */
Test(simt, divergent_branch_pushes_both_sides_taken_first) {
  ws_simt s;
  cr_assert(ws_simt_init(&s));
  ws_simt_reset(&s, 0xFF);
  s.entries[0].pc = 2;
  cr_assert(ws_simt_branch(&s, 2, 10, 6, 0x0F));
  cr_expect_eq(s.depth, 3);
  expect_entry(&s, 0, 6, WS_SIMT_NO_RPC, 0xFF); /* waits at the reconvergence pc */
  expect_entry(&s, 1, 3, 6, 0xF0);              /* fall-through side */
  expect_entry(&s, 2, 10, 6, 0x0F);             /* taken side runs first */
  cr_expect_eq(ws_simt_top(&s), &s.entries[2]);
  ws_simt_settle(&s);
  cr_expect_eq(s.depth, 3, "nobody at 6 yet");
  ws_simt_top(&s)->pc = 6; /* the taken side ran into the join */
  ws_simt_settle(&s);
  cr_expect_eq(s.depth, 2);
  expect_entry(&s, 1, 3, 6, 0xF0);
  ws_simt_top(&s)->pc = 6;
  ws_simt_settle(&s);
  cr_expect_eq(s.depth, 1, "both sides done: all 8 lanes run on from 6");
  expect_entry(&s, 0, 6, WS_SIMT_NO_RPC, 0xFF);
  ws_simt_free(&s);
}

/* if without else: BRA at pc 4 to 7, which is also the join: the taken
 * side would start at the join, so it is not pushed; its lanes wait in the
 * entry below. */
Test(simt, a_side_starting_at_the_join_is_not_pushed) {
  ws_simt s;
  cr_assert(ws_simt_init(&s));
  ws_simt_reset(&s, 0xF);
  s.entries[0].pc = 4;
  cr_assert(ws_simt_branch(&s, 4, 7, 7, 0x3)); /* taken lanes 0-1 jump straight to 7 */
  cr_expect_eq(s.depth, 2);
  expect_entry(&s, 0, 7, WS_SIMT_NO_RPC, 0xF);
  expect_entry(&s, 1, 5, 7, 0xC);
  ws_simt_top(&s)->pc = 7;
  ws_simt_settle(&s);
  expect_entry(&s, 0, 7, WS_SIMT_NO_RPC, 0xF);
  cr_expect_eq(s.depth, 1);
  ws_simt_free(&s);
}

/* A loop whose back-edge at pc 8 jumps to 3 and reconverges at 9 (the loop
 * exit). Lanes leave one per trip. The first divergence makes the base
 * entry wait at 9 and pushes only the loop side (the exit side would start
 * at the join); each later trip diverges again inside a side that already
 * reconverges at 9, so the top entry is replaced and the stack stays at
 * depth 2 however many trips there are. */
Test(simt, rediverging_on_the_same_join_replaces_the_top) {
  ws_simt s;
  cr_assert(ws_simt_init(&s));
  ws_simt_reset(&s, 0xFF);
  s.entries[0].pc = 8;
  uint32_t mask = 0xFF;
  for (int trip = 0; trip < 7; trip++) {
    mask >>= 1; /* the highest remaining lane leaves */
    cr_assert(ws_simt_branch(&s, 8, 3, 9, mask));
    cr_expect_eq(s.depth, 2, "trip %d", trip);
    expect_entry(&s, 0, 9, WS_SIMT_NO_RPC, 0xFF);
    expect_entry(&s, 1, 3, 9, mask);
    ws_simt_top(&s)->pc = 8; /* the body runs back to the branch */
  }
  cr_assert(ws_simt_branch(&s, 8, 3, 9, 0)); /* the last lane leaves: falls through */
  ws_simt_settle(&s);
  cr_expect_eq(s.depth, 1);
  expect_entry(&s, 0, 9, WS_SIMT_NO_RPC, 0xFF);
  /* an if/else inside a side that joins at the same pc: the side's entry is
   * replaced by the two halves */
  ws_simt_reset(&s, 0xFF);
  s.entries[0].pc = 2;
  cr_assert(ws_simt_branch(&s, 2, 5, 9, 0x0F)); /* {9,-,FF} {3,9,F0} {5,9,0F} */
  cr_assert(ws_simt_branch(&s, 5, 7, 9, 0x03));
  cr_expect_eq(s.depth, 4);
  expect_entry(&s, 1, 3, 9, 0xF0);
  expect_entry(&s, 2, 6, 9, 0x0C);
  expect_entry(&s, 3, 7, 9, 0x03);
  ws_simt_free(&s);
}

Test(simt, exit_removes_lanes_everywhere) {
  ws_simt s;
  cr_assert(ws_simt_init(&s));
  ws_simt_reset(&s, 0xFF);
  s.entries[0].pc = 2;
  cr_assert(ws_simt_branch(&s, 2, 10, 6, 0x0F));
  ws_simt_exit(&s, 0x03); /* lanes 0-1 of the taken side exit */
  cr_expect_eq(s.depth, 3);
  expect_entry(&s, 0, 6, WS_SIMT_NO_RPC, 0xFC);
  expect_entry(&s, 2, 10, 6, 0x0C);
  ws_simt_exit(&s, 0xF0); /* the whole fall-through side exits: its entry goes */
  cr_expect_eq(s.depth, 2);
  expect_entry(&s, 0, 6, WS_SIMT_NO_RPC, 0x0C);
  expect_entry(&s, 1, 10, 6, 0x0C);
  ws_simt_exit(&s, 0x0C);
  cr_expect_eq(s.depth, 0);
  cr_expect_null(ws_simt_top(&s));
  ws_simt_free(&s);
}

/* Ten nested divergent branches with distinct joins add two entries each:
 * 21 entries, past the initial 8, with every mask kept. */
Test(simt, nesting_grows_the_stack) {
  ws_simt s;
  cr_assert(ws_simt_init(&s));
  ws_simt_reset(&s, 0xFFFFFFFFu);
  uint32_t mask = 0xFFFFFFFFu;
  for (uint32_t d = 0; d < 10; d++) {
    uint32_t pc = ws_simt_top(&s)->pc, taken = mask >> 1 & mask; /* drops the highest lane */
    cr_assert(ws_simt_branch(&s, pc, 100 + d, 1000 - d, taken));
    mask = taken;
  }
  cr_expect_eq(s.depth, 21);
  cr_expect_geq(s.cap, 21);
  expect_entry(&s, 20, 109, 991, 0xFFFFFFFFu >> 10);
  expect_entry(&s, 19, 109, 991, (0xFFFFFFFFu >> 9) & ~(0xFFFFFFFFu >> 10));
  expect_entry(&s, 0, 1000, WS_SIMT_NO_RPC, 0xFFFFFFFFu);
  ws_simt_free(&s);
}

#define TRACE_WORDS 16
#define PROLOGUE                                                                                             \
  ".kernel t\n.param .ptr out\nS2R R0, SR_TID.X\nLDP.64 R20, [out]\nIMAD.WIDE.U32 R20, R0, 64, R20\n"
/* appends R1 (or a ballot of the active lanes) to this thread's trace */
#define TRACE "STG.32 [R20], R1\nIADD R20, R20, 4\n"
#define TRACE_BALLOT "VOTE.BALLOT R1, PT\n" TRACE

static uint32_t traces[64][TRACE_WORDS];

static void run_traces(const char *src, uint32_t n, ws_launch_stats *stats) {
  simtest t;
  st_init(&t, src, "t");
  uint64_t o = st_buf(&t, "out", n * TRACE_WORDS * 4, NULL);
  st_run(&t, 1, n);
  st_read(&t, traces, o, n * TRACE_WORDS * 4);
  if (stats) *stats = t.stats;
  st_fini(&t);
}

static void expect_trace(uint32_t tid, const uint32_t *want, int n) {
  for (int i = 0; i < TRACE_WORDS; i++)
    cr_expect_eq(traces[tid][i], i < n ? want[i] : 0, "thread %u trace[%d] = 0x%08x, expected 0x%08x", tid, i,
                 traces[tid][i], i < n ? want[i] : 0);
}

/* Mask of lanes [0, 32) satisfying pred. */
static uint32_t lanes_where(int (*pred)(uint32_t)) {
  uint32_t m = 0;
  for (uint32_t l = 0; l < 32; l++) m |= (uint32_t)(pred(l) != 0) << l;
  return m;
}
static int is_even(uint32_t l) { return !(l & 1); }
static int is_mod4_0(uint32_t l) { return (l & 3) == 0; }
static int is_mod4_2(uint32_t l) { return (l & 3) == 2; }

Test(divergence, nested_if_else_reconverges) {
  const char *src =
      PROLOGUE "MOV R1, 1\n" TRACE "AND R2, R0, 1\nISETP.EQ.U32 P0, R2, 0\n@!P0 BRA odd\n"
               "  MOV R1, 2\n" TRACE "  AND R3, R0, 2\nISETP.EQ.U32 P1, R3, 0\n@!P1 BRA even_b\n"
               "    MOV R1, 3\n" TRACE TRACE_BALLOT "    BRA even_end\n"
               "  even_b:\n    MOV R1, 4\n" TRACE TRACE_BALLOT "  even_end:\n  MOV R1, 5\n" TRACE TRACE_BALLOT
               "  BRA join\n"
               "odd:\n  MOV R1, 6\n" TRACE TRACE_BALLOT "join:\n  MOV R1, 7\n" TRACE TRACE_BALLOT "EXIT\n";
  run_traces(src, 32, NULL);
  const uint32_t even = lanes_where(is_even);
  for (uint32_t l = 0; l < 32; l++) {
    if (l & 1) {
      uint32_t want[] = {1, 6, ~even, 7, 0xFFFFFFFFu};
      expect_trace(l, want, 5);
    } else if ((l & 2) == 0) {
      uint32_t want[] = {1, 2, 3, lanes_where(is_mod4_0), 5, even, 7, 0xFFFFFFFFu};
      expect_trace(l, want, 8);
    } else {
      uint32_t want[] = {1, 2, 4, lanes_where(is_mod4_2), 5, even, 7, 0xFFFFFFFFu};
      expect_trace(l, want, 8);
    }
  }
}

Test(divergence, loop_with_lane_varying_trip_count) {
  const char *src = PROLOGUE "MOV R4, 0\nAND R2, R0, 7\n"
                             "loop:\n  ISETP.GE.U32 P0, R4, R2\n  @P0 BRA done\n" TRACE_BALLOT
                             "  IADD R4, R4, 1\n  BRA loop\n"
                             "done:\n" TRACE_BALLOT "MOV R1, R4\n" TRACE "EXIT\n";
  ws_launch_stats stats;
  run_traces(src, 32, &stats);
  for (uint32_t l = 0; l < 32; l++) {
    uint32_t want[TRACE_WORDS], n = 0, count = l & 7;
    for (uint32_t i = 0; i < count; i++) {
      uint32_t m = 0;
      for (uint32_t o = 0; o < 32; o++) m |= (uint32_t)((o & 7) > i) << o;
      want[n++] = m;
    }
    want[n++] = 0xFFFFFFFFu;
    want[n++] = count;
    expect_trace(l, want, (int)n);
  }
  cr_expect_lt(stats.thread_insns, stats.warp_insns * 32, "divergent lanes idle");
}

Test(divergence, early_exit_and_exit_inside_loop) {
  /* odd lanes leave the loop by EXIT at iteration (tid>>1)&3; even lanes
   * run 5 iterations. A guarded EXIT falls through for reconvergence, so the
   * branch around it reconverges at 'stay' every iteration: each ballot sees
   * all even lanes plus the odd lanes that have not exited yet. */
  const char *src =
      PROLOGUE "MOV R4, 0\nAND R2, R0, 1\nSHR.U32 R3, R0, 1\nAND R3, R3, 3\n"
               "loop:\n  ISETP.NE.U32 P0, R2, 0\n  ISETP.EQ.U32 P1, R4, R3\n"
               "  @!P0 BRA stay\n  @P1 EXIT\n"
               "stay:\n" TRACE_BALLOT
               "  IADD R4, R4, 1\n  ISETP.LT.U32 P2, R4, 5\n  @P2 BRA loop\n" TRACE_BALLOT "EXIT\n";
  run_traces(src, 32, NULL);
  for (uint32_t l = 0; l < 32; l++) {
    uint32_t want[TRACE_WORDS], n = 0;
    uint32_t iters = (l & 1) ? ((l >> 1) & 3) : 5;
    for (uint32_t i = 0; i < iters; i++) {
      uint32_t m = 0;
      for (uint32_t o = 0; o < 32; o++) m |= (uint32_t)(!(o & 1) || ((o >> 1) & 3) > i) << o;
      want[n++] = m;
    }
    if (!(l & 1)) want[n++] = lanes_where(is_even);
    expect_trace(l, want, (int)n);
  }
}

Test(divergence, early_exit_then_continue) {
  const char *src = PROLOGUE "AND R2, R0, 1\nISETP.NE.U32 P0, R2, 0\n@P0 EXIT\n" TRACE_BALLOT "EXIT\n";
  run_traces(src, 64, NULL);
  for (uint32_t l = 0; l < 64; l++) {
    uint32_t want[] = {0x55555555u};
    expect_trace(l, want, (l & 1) ? 0 : 1);
  }
}

Test(divergence, running_off_the_end_is_an_exit) {
  /* lanes >= 8 branch to a label after the last instruction; the others
   * finish their side first; nobody executes an explicit EXIT */
  const char *src =
      PROLOGUE "ISETP.GE.U32 P0, R0, 8\n@P0 BRA end\n" TRACE_BALLOT "MOV R1, 9\n" TRACE "end:\n";
  run_traces(src, 40, NULL);
  for (uint32_t l = 0; l < 40; l++) {
    uint32_t want[] = {0xFFu, 9};
    expect_trace(l, want, l < 8 ? 2 : 0);
  }
}

Test(divergence, deep_nesting_and_uniform_branches) {
  /* a 5-level binary decision tree on the low tid bits: each leaf records
   * its path; uniform branches (all lanes agree) push nothing */
  const char *src = PROLOGUE
      "MOV R1, 0\nMOV R5, 0\n"
      "AND R2, R0, 1\nISETP.NE.U32 P0, R2, 0\n@P0 IADD R5, R5, 1\n@P0 BRA l1\nIADD R5, R5, 0\nl1:\n"
      "AND R2, R0, 2\nISETP.NE.U32 P0, R2, 0\n@!P0 BRA l2\nIADD R5, R5, 2\nl2:\n"
      "AND R2, R0, 4\nISETP.NE.U32 P0, R2, 0\n@!P0 BRA l3\nIADD R5, R5, 4\n"
      "  AND R2, R0, 8\n  ISETP.NE.U32 P1, R2, 0\n  @!P1 BRA l3\n  IADD R5, R5, 8\n"
      "    AND R2, R0, 16\n    ISETP.NE.U32 P1, R2, 0\n    @!P1 BRA l3\n    IADD R5, R5, 16\n"
      "l3:\nISETP.EQ.U32 P3, RZ, 0\n@!P3 BRA never\n" TRACE_BALLOT "MOV R1, R5\n" TRACE "never:\nEXIT\n";
  run_traces(src, 32, NULL);
  for (uint32_t l = 0; l < 32; l++) {
    uint32_t v =
        (l & 1) + (l & 2) + (l & 4) + ((l & 4) ? (l & 8) : 0) + (((l & 4) && (l & 8)) ? (l & 16) : 0);
    uint32_t want[] = {0xFFFFFFFFu, v};
    expect_trace(l, want, 2);
  }
}
