/* test_scoreboard.c - the per-instruction dependency table built from the
 * operand signatures (read and write masks, slot lists, predicates, RZ and
 * PT carrying nothing, register pairs and quads, unit, memory class, FLOP
 * kind, register-bank cost) and the two scoreboards (short: ready cycle
 * per slot, latest-of, pruning of past results; long: one bit per register
 * with a count).
 *
 * Why: the issue stage trusts these masks entirely; a missing read would
 * let a warp issue before its operand lands and change nothing visible but
 * the cycle counts. Every expectation is read off the instruction text. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ctx.h"
#include "isa/asm.h"
#include "sim/exec/cta.h"
#include "sim/sm/scoreboard.h"

static const char table_src[] = ".kernel t\n.param .ptr p\n.shared buf 64\n"
                                "FFMA R4, R1, R2, R3\n"               /* 0 */
                                "IADD R5, RZ, 7\n"                    /* 1 */
                                "LDG.64 R6, [R8+16]\n"                /* 2 */
                                "LDS.32 R10, [R12]\n"                 /* 3 */
                                "ISETP.GE.U32 P1, R1, R5\n"           /* 4 */
                                "@P1 IADD R13, R13, R13\n"            /* 5 */
                                "HMMA.16816.F32 R16, R20, R24, R16\n" /* 6 */
                                "DEPBAR 2\n"                          /* 7 */
                                "LDGDEPBAR\n"                         /* 8 */
                                "LDC.32 R26, [R1]\n"                  /* 9 */
                                "LDP.64 R28, [p]\n"                   /* 10 */
                                "STG.32 [R8], R4\n"                   /* 11 */
                                "SEL R30, R1, R2, P1\n"               /* 12 */
                                "FADD R31, R1, 1.0\n"                 /* 13 */
                                "@!PT EXIT\n";                        /* 14 */

enum { NROWS = 32, P1 = NROWS + 1 };

typedef struct sbt {
  ws_ctx *ctx;
  ws_program *prog;
  const ws_kernel *k;
  ws_scoreboard_insn *tab;
} sbt;

static void sbt_init(sbt *t, uint32_t banks) {
  t->ctx = ws_ctx_create();
  cr_assert_eq(ws_asm_parse(t->ctx, table_src, strlen(table_src), "sb.wsa", &t->prog), WS_OK, "%s",
               ws_errmsg(t->ctx));
  t->k = ws_program_find_kernel(t->prog, "t");
  cr_assert_eq(ws_cta_regs_needed(t->k), NROWS, "R31 is the highest register");
  cr_assert_eq(ws_scoreboard_table_build(t->ctx, t->k, NROWS, banks, 0, &t->tab), WS_OK);
}

static void sbt_fini(sbt *t) {
  free(t->tab);
  ws_program_destroy(t->prog);
  ws_ctx_destroy(t->ctx);
}

static bool has_bit(const uint64_t m[4], uint32_t r) { return m[r / 64] >> (r % 64) & 1u; }

/* The set bits of a 256-bit mask as a bitmap of R0..R63 (all tests stay below 64). */
static uint64_t low(const uint64_t m[4]) {
  cr_expect_eq(m[1] | m[2] | m[3], 0);
  return m[0];
}

static void expect_slots(const uint16_t *got, uint32_t n, const uint16_t *want, uint32_t nwant,
                         const char *what) {
  cr_expect_eq(n, nwant, "%s: %u slots, want %u", what, n, nwant);
  for (uint32_t i = 0; i < n && i < nwant; i++)
    cr_expect_eq(got[i], want[i], "%s slot %u: %u, want %u", what, i, got[i], want[i]);
}

#define R(i) (1ull << (i))

Test(scoreboard, alu_reads_writes_and_bank_cost) {
  sbt t;
  sbt_init(&t, 2);
  const ws_scoreboard_insn *si = &t.tab[0]; /* FFMA R4, R1, R2, R3 */
  cr_expect_eq(low(si->dep_mask), R(1) | R(2) | R(3) | R(4));
  cr_expect_eq(low(si->wr_mask), R(4));
  expect_slots(si->deps, si->ndeps, (const uint16_t[]){4, 1, 2, 3}, 4, "FFMA deps");
  expect_slots(si->writes, si->nwrites, (const uint16_t[]){4}, 1, "FFMA writes");
  cr_expect_eq(si->unit, WS_UNIT_FP32);
  cr_expect_eq(si->mem_class, WS_MEMC_NONE);
  cr_expect_eq(si->flop_kind, WS_FLOP_LANE2);
  /* two banks: R1, R3 in bank 1, R2 in bank 0 -> 2 reads in one bank: 1 extra cycle */
  cr_expect_eq(si->bank_extra_cycles, 1);
  si = &t.tab[1]; /* IADD R5, RZ, 7: neither RZ nor the immediate is a dependency */
  cr_expect_eq(low(si->dep_mask), R(5));
  expect_slots(si->deps, si->ndeps, (const uint16_t[]){5}, 1, "IADD deps");
  cr_expect_eq(si->unit, WS_UNIT_INT);
  cr_expect_eq(si->flop_kind, WS_FLOP_NONE);
  cr_expect_eq(si->bank_extra_cycles, 0);
  si = &t.tab[5]; /* @P1 IADD R13, R13, R13: the guard is read; R13 read once */
  cr_expect_eq(low(si->dep_mask), R(13));
  expect_slots(si->deps, si->ndeps, (const uint16_t[]){P1, 13}, 2, "guarded IADD deps");
  expect_slots(si->writes, si->nwrites, (const uint16_t[]){13}, 1, "guarded IADD writes");
  cr_expect_eq(si->bank_extra_cycles, 0, "one distinct source register");
  cr_expect_eq(t.tab[13].flop_kind, WS_FLOP_LANE1, "FADD");
  sbt_fini(&t);
  /* four banks: R1, R2, R3 in banks 1, 2, 3: no conflict */
  sbt_init(&t, 4);
  cr_expect_eq(t.tab[0].bank_extra_cycles, 0);
  sbt_fini(&t);
}

Test(scoreboard, predicates_are_slots_after_the_registers) {
  sbt t;
  sbt_init(&t, 2);
  const ws_scoreboard_insn *si = &t.tab[4]; /* ISETP.GE.U32 P1, R1, R5 */
  cr_expect_eq(low(si->dep_mask), R(1) | R(5), "the predicate has no register bit");
  cr_expect_eq(low(si->wr_mask), 0);
  expect_slots(si->deps, si->ndeps, (const uint16_t[]){P1, 1, 5}, 3, "ISETP deps");
  expect_slots(si->writes, si->nwrites, (const uint16_t[]){P1}, 1, "ISETP writes");
  si = &t.tab[12]; /* SEL R30, R1, R2, P1 */
  expect_slots(si->deps, si->ndeps, (const uint16_t[]){30, 1, 2, P1}, 4, "SEL deps");
  expect_slots(si->writes, si->nwrites, (const uint16_t[]){30}, 1, "SEL writes");
  si = &t.tab[14]; /* @!PT EXIT: PT carries no dependency */
  cr_expect_eq(si->ndeps, 0);
  cr_expect_eq(si->unit, WS_UNIT_CTRL);
  sbt_fini(&t);
}

Test(scoreboard, memory_operands_and_classes) {
  sbt t;
  sbt_init(&t, 2);
  const ws_scoreboard_insn *si = &t.tab[2]; /* LDG.64 R6, [R8+16]: a pair written, a pair read */
  cr_expect_eq(low(si->dep_mask), R(6) | R(7) | R(8) | R(9));
  cr_expect_eq(low(si->wr_mask), R(6) | R(7));
  expect_slots(si->writes, si->nwrites, (const uint16_t[]){6, 7}, 2, "LDG writes");
  cr_expect_eq(si->mem_class, WS_MEMC_GLOBAL);
  cr_expect_eq(si->unit, WS_UNIT_LSU);
  cr_expect_eq(si->bank_extra_cycles, 0, "R8 and R9 are in different banks");
  si = &t.tab[3]; /* LDS.32 R10, [R12]: a shared address is one register */
  cr_expect_eq(low(si->dep_mask), R(10) | R(12));
  cr_expect_eq(si->mem_class, WS_MEMC_SHARED);
  cr_expect_eq(t.tab[7].mem_class, WS_MEMC_WAIT);
  cr_expect_eq(t.tab[7].wait_groups, 2);
  cr_expect_eq(t.tab[7].ndeps, 0);
  cr_expect_eq(t.tab[8].mem_class, WS_MEMC_COMMIT);
  si = &t.tab[9]; /* LDC.32 R26, [R1] */
  cr_expect_eq(si->mem_class, WS_MEMC_CONST);
  cr_expect_eq(low(si->dep_mask), R(26) | R(1));
  si = &t.tab[10]; /* LDP.64 R28, [p]: a param name is no register */
  cr_expect_eq(si->mem_class, WS_MEMC_CONST);
  cr_expect_eq(low(si->dep_mask), R(28) | R(29));
  si = &t.tab[11]; /* STG.32 [R8], R4: reads only */
  cr_expect_eq(low(si->dep_mask), R(8) | R(9) | R(4));
  cr_expect_eq(low(si->wr_mask), 0);
  cr_expect_eq(si->nwrites, 0);
  cr_expect_eq(si->mem_class, WS_MEMC_GLOBAL);
  sbt_fini(&t);
}

/* Every atomic of the table in the class of its address space, on the
 * LSU, reading its address and operand and writing only d; IMAD.WIDE's RZ
 * addend and the predicate logic's PT carry no dependency. */
Test(scoreboard, atomics_wide_rz_and_predicate_logic) {
  ws_ctx *ctx = ws_ctx_create();
  char src[8192];
  int n = snprintf(src, sizeof src, ".kernel t\n.shared buf 64\n");
  uint32_t natomic = 0;
  for (unsigned op = 0; op < WS_OP_COUNT; op++) {
    if (!ws_isa_is_atomic((ws_op)op)) continue;
    const ws_opinfo *info = ws_isa_opinfo((ws_op)op);
    bool global = ws_isa_sig((ws_op)op, 1).kind == 'g', cas = ws_isa_nopnds((ws_op)op) == 4;
    n += snprintf(src + n, sizeof src - (size_t)n, "%s R4, %s, R6%s\n", info->mnemonic,
                  global ? "[R8]" : "[R10]", cas ? ", R7" : "");
    natomic++;
  }
  cr_assert_eq(natomic, 20u, "ADD MAX CAS MIN EXCH AND OR XOR INC DEC, global and shared");
  snprintf(src + n, sizeof src - (size_t)n, "IMAD.WIDE.U32 R12, R0, 4, RZ\nPOR P2, !P1, PT\n");
  ws_program *prog = NULL;
  cr_assert_eq(ws_asm_parse(ctx, src, strlen(src), "sb.wsa", &prog), WS_OK, "%s", ws_errmsg(ctx));
  const ws_kernel *k = ws_program_find_kernel(prog, "t");
  ws_scoreboard_insn *tab = NULL;
  cr_assert_eq(ws_scoreboard_table_build(ctx, k, NROWS, 2, 0, &tab), WS_OK);
  for (uint32_t i = 0; i < natomic; i++) {
    const ws_insn *in = &k->insns[i];
    const char *mn = ws_isa_opinfo((ws_op)in->op)->mnemonic;
    bool global = ws_isa_sig((ws_op)in->op, 1).kind == 'g';
    uint64_t addr = global ? R(8) | R(9) : R(10), cmp = ws_isa_nopnds((ws_op)in->op) == 4 ? R(7) : 0;
    cr_expect_eq(tab[i].mem_class, global ? WS_MEMC_GLOBAL : WS_MEMC_SHARED, "%s", mn);
    cr_expect_eq(tab[i].unit, WS_UNIT_LSU, "%s", mn);
    cr_expect_eq(low(tab[i].dep_mask), R(4) | R(6) | addr | cmp, "%s", mn);
    cr_expect_eq(low(tab[i].wr_mask), R(4), "%s", mn);
  }
  const ws_scoreboard_insn *si = &tab[natomic]; /* IMAD.WIDE.U32 R12, R0, 4, RZ */
  cr_expect_eq(low(si->dep_mask), R(12) | R(13) | R(0));
  cr_expect_eq(low(si->wr_mask), R(12) | R(13));
  cr_expect_eq(si->mem_class, WS_MEMC_NONE);
  si = &tab[natomic + 1]; /* POR P2, !P1, PT: reads P1, writes P2 */
  expect_slots(si->deps, si->ndeps, (const uint16_t[]){NROWS + 2, P1}, 2, "POR deps");
  expect_slots(si->writes, si->nwrites, (const uint16_t[]){NROWS + 2}, 1, "POR writes");
  cr_expect_eq(si->unit, WS_UNIT_INT);
  free(tab);
  ws_program_destroy(prog);
  ws_ctx_destroy(ctx);
}

/* HMMA R16, R20, R24, R16: D and C are quads R16-19, A a quad R20-23, B a
 * pair R24-25: 10 distinct registers, 5 even and 5 odd -> with 2 banks the
 * worst bank serves 5 reads: 4 extra cycles. */
Test(scoreboard, hmma_fragments) {
  sbt t;
  sbt_init(&t, 2);
  const ws_scoreboard_insn *si = &t.tab[6];
  cr_expect_eq(low(si->dep_mask), 0x3FFull << 16);
  cr_expect_eq(low(si->wr_mask), 0xFull << 16);
  cr_expect_eq(si->ndeps, 10);
  expect_slots(si->writes, si->nwrites, (const uint16_t[]){16, 17, 18, 19}, 4, "HMMA writes");
  cr_expect_eq(si->unit, WS_UNIT_TENSOR);
  cr_expect_eq(si->flop_kind, WS_FLOP_MMA);
  cr_expect_eq(si->bank_extra_cycles, 4);
  sbt_fini(&t);
}

/* Registers past nrows are not tracked (a table built for fewer rows). */
Test(scoreboard, rows_beyond_nrows_are_ignored) {
  sbt t;
  sbt_init(&t, 2);
  ws_scoreboard_insn *tab;
  cr_assert_eq(ws_scoreboard_table_build(t.ctx, t.k, 4, 2, 0, &tab), WS_OK);
  /* FFMA R4, R1, R2, R3 with 4 rows: R4 is out of range */
  cr_expect_eq(low(tab[0].dep_mask), R(1) | R(2) | R(3));
  cr_expect_eq(tab[0].nwrites, 0);
  /* ISETP P1 with 4 rows: the predicate slot is 4 + 1 */
  cr_expect_eq(tab[4].writes[0], 5);
  free(tab);
  sbt_fini(&t);
}

Test(scoreboard, short_results_latest_and_pruning) {
  sbt t;
  sbt_init(&t, 2);
  ws_scoreboard sb;
  cr_assert(ws_scoreboard_init(&sb, NROWS));
  cr_expect_eq(sb.nslots, NROWS + 8);
  const ws_scoreboard_insn *ffma = &t.tab[0], *iadd = &t.tab[1], *isetp = &t.tab[4], *stg = &t.tab[11],
                           *lds = &t.tab[3], *sel = &t.tab[12];
  ws_scoreboard_slot s = ws_scoreboard_latest(&sb, stg, 0);
  cr_expect_eq(s.ready_cycle, 0, "nothing pending");
  ws_scoreboard_set_short(&sb, ffma, 105, WS_SCOREBOARD_FIXED, 0); /* R4 ready at 105 */
  ws_scoreboard_set_short(&sb, iadd, 103, WS_SCOREBOARD_FIXED, 0); /* R5 ready at 103 */
  ws_scoreboard_set_short(&sb, lds, 140, WS_SCOREBOARD_MIO, 3);    /* R10 ready at 140, 3 conflict cycles */
  s = ws_scoreboard_latest(&sb, stg, 100);                         /* STG reads R4 */
  cr_expect_eq(s.ready_cycle, 105);
  cr_expect_eq(s.kind, WS_SCOREBOARD_FIXED);
  s = ws_scoreboard_latest(&sb, isetp, 100); /* reads R1 and R5 */
  cr_expect_eq(s.ready_cycle, 103);
  s = ws_scoreboard_latest(&sb, ffma, 100); /* writes R4 again: write-after-write waits too */
  cr_expect_eq(s.ready_cycle, 105);
  s = ws_scoreboard_latest(&sb, lds, 100);
  cr_expect_eq(s.ready_cycle, 140);
  cr_expect_eq(s.kind, WS_SCOREBOARD_MIO);
  cr_expect_eq(s.conflict_cycles, 3);
  cr_expect_eq(ws_scoreboard_latest(&sb, sel, 100).ready_cycle, 0, "SEL touches none of R4, R5, R10");
  /* at cycle 105 R4 is ready: reported as none and its pending bit dropped */
  cr_expect_eq(ws_scoreboard_latest(&sb, stg, 105).ready_cycle, 0);
  cr_expect_eq(ws_scoreboard_latest(&sb, stg, 0).ready_cycle, 0, "pruned for good");
  /* with now = 0 a result is kept whatever its cycle */
  cr_expect_eq(ws_scoreboard_latest(&sb, isetp, 0).ready_cycle, 103);
  /* the predicate written by ISETP blocks the guarded IADD and SEL */
  ws_scoreboard_set_short(&sb, isetp, 200, WS_SCOREBOARD_FIXED, 0);
  cr_expect_eq(ws_scoreboard_latest(&sb, &t.tab[5], 150).ready_cycle, 200);
  cr_expect_eq(ws_scoreboard_latest(&sb, sel, 150).ready_cycle, 200);
  ws_scoreboard_reset(&sb);
  cr_expect_eq(ws_scoreboard_latest(&sb, sel, 0).ready_cycle, 0);
  cr_expect_eq(ws_scoreboard_latest(&sb, lds, 0).ready_cycle, 0);
  ws_scoreboard_free(&sb);
  sbt_fini(&t);
}

Test(scoreboard, long_bits_and_count) {
  sbt t;
  sbt_init(&t, 2);
  ws_scoreboard sb;
  cr_assert(ws_scoreboard_init(&sb, NROWS));
  const ws_scoreboard_insn *ldg = &t.tab[2], *stg = &t.tab[11], *ffma = &t.tab[0];
  cr_expect_not(ws_scoreboard_long_blocked(&sb, ldg));
  ws_scoreboard_set_long(&sb, ldg); /* R6, R7 */
  cr_expect_eq(sb.long_count, 2);
  cr_expect(has_bit(sb.long_mask, 6) && has_bit(sb.long_mask, 7));
  cr_expect(ws_scoreboard_long_blocked(&sb, ldg), "a second LDG to R6 waits (write after write)");
  cr_expect_not(ws_scoreboard_long_blocked(&sb, stg), "STG reads R4, R8, R9");
  cr_expect_not(ws_scoreboard_long_blocked(&sb, ffma));
  ws_scoreboard_set_long(&sb, ldg);
  cr_expect_eq(sb.long_count, 2, "setting a pending register again does not count it twice");
  ws_scoreboard_clear_long(&sb, ldg);
  cr_expect_eq(sb.long_count, 0);
  cr_expect_not(ws_scoreboard_long_blocked(&sb, ldg));
  ws_scoreboard_clear_long(&sb, ldg);
  cr_expect_eq(sb.long_count, 0, "clearing clear bits removes nothing");
  ws_scoreboard_set_long(&sb, &t.tab[6]); /* HMMA writes R16-R19 */
  cr_expect_eq(sb.long_count, 4);
  ws_scoreboard_reset(&sb);
  cr_expect_eq(sb.long_count, 0);
  cr_expect_not(ws_scoreboard_long_blocked(&sb, &t.tab[6]));
  ws_scoreboard_free(&sb);
  sbt_fini(&t);
}

static ws_scoreboard_insn *table_of(const char *body, uint32_t banks, ws_program **prog, ws_ctx *ctx) {
  char src[1024];
  snprintf(src, sizeof src, ".kernel t\n.param .ptr p\n.shared sh 256 16\n%s", body);
  cr_assert_eq(ws_asm_parse(ctx, src, strlen(src), "t.wsa", prog), WS_OK, "%s", ws_errmsg(ctx));
  ws_scoreboard_insn *t = NULL;
  cr_assert_eq(ws_scoreboard_table_build(ctx, &(*prog)->kernels[0], 64, banks, 0, &t), WS_OK);
  return t;
}

Test(scoreboard, read_and_write_sets_follow_the_signature) {
  ws_ctx *ctx = ws_ctx_create();
  ws_program *prog = NULL;
  ws_scoreboard_insn *t = table_of("@P1 IMAD.WIDE.U32 R4, R1, 8, R6\nSTG.64 [R8], R10\nISETP.LT P2, R3, 5\n"
                                   "HMMA.16816.F32 R12, R16, R20, R24\nLDS.32 R0, [R2+sh]\nEXIT\n",
                                   4, &prog, ctx);
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
                                   "FFMA R0, R4, R8, R12\nFFMA R0, RZ, R4, RZ\n",
                                   4, &prog, ctx);
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

/* HMMA reads ten registers: over two banks, five on the busiest, so four
 * extra reads; they stream into the tensor pipe over its initiation
 * interval, which hides up to tensor_ii - 1 of them. */
Test(scoreboard, hmma_operand_reads_hide_in_the_tensor_pipe) {
  ws_ctx *ctx = ws_ctx_create();
  const char src[] = ".kernel t\n    HMMA.16816.F32 R12, R16, R20, R24\n    FFMA R1, R2, R4, R6\n    EXIT\n";
  ws_program *prog = NULL;
  cr_assert_eq(ws_asm_parse(ctx, src, strlen(src), "t.wsa", &prog), WS_OK, "%s", ws_errmsg(ctx));
  const uint32_t iis[] = {0, 2, 4, 5, 8, 16};
  const uint8_t want[] = {4, 3, 1, 0, 0, 0};
  for (size_t i = 0; i < sizeof iis / sizeof *iis; i++) {
    ws_scoreboard_insn *t = NULL;
    cr_assert_eq(ws_scoreboard_table_build(ctx, &prog->kernels[0], 64, 2, iis[i], &t), WS_OK);
    cr_expect_eq(t[0].bank_extra_cycles, want[i], "tensor_ii %u", iis[i]);
    cr_expect_eq(t[1].bank_extra_cycles, 2, "FFMA's three even registers: no pipe hides them");
    free(t);
  }
  ws_program_destroy(prog);
  ws_ctx_destroy(ctx);
}
