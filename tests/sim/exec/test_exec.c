/* test_exec.c - the functional launcher on its own (no device): CTAs in
 * linear order, warps visited round-robin and each run until it waits at a
 * barrier or finishes, SR_SMID and SR_CLOCK as the launcher defines them,
 * launch statistics (zeroed first), the instruction budget to the exact
 * instruction, a fault stopping the launch.
 *
 * Why: functional mode is the reference the timing model must match bit for
 * bit; the order it runs things in is part of its contract (atomics hand out
 * tickets in that order), so it is observed through tickets here. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/ctx.h"
#include "isa/asm.h"
#include "sim/exec/args.h"
#include "sim/exec/exec.h"
#include "sim/exec/mem.h"

typedef struct xt {
  ws_ctx *ctx;
  ws_program *prog;
  const ws_kernel *k;
  ws_mem *mem;
  ws_args args;
  ws_exec_launch launch;
  ws_launch_stats stats;
} xt;

static void xt_init(xt *t, const char *src, ws_dim3 grid, ws_dim3 block, uint32_t num_sms) {
  memset(t, 0, sizeof *t);
  t->ctx = ws_ctx_create();
  cr_assert_eq(ws_asm_parse(t->ctx, src, strlen(src), "exec.wsa", &t->prog), WS_OK, "%s", ws_errmsg(t->ctx));
  t->k = ws_program_find_kernel(t->prog, "t");
  cr_assert(t->k);
  t->mem = ws_mem_create(1 << 24);
  ws_args_init(&t->args, t->k);
  t->launch = (ws_exec_launch){
      .kernel = t->k, .grid = grid, .block = block, .params = t->args.buf, .mem = t->mem, .num_sms = num_sms};
}

static void xt_fini(xt *t) {
  ws_mem_destroy(t->mem);
  ws_program_destroy(t->prog);
  ws_ctx_destroy(t->ctx);
}

/* A zeroed buffer of `bytes` bound to ptr param `name`. */
static uint64_t xt_buf(xt *t, const char *name, uint64_t bytes) {
  uint64_t a = 0;
  cr_assert_eq(ws_mem_alloc(t->mem, t->ctx, bytes, &a), WS_OK, "%s", ws_errmsg(t->ctx));
  cr_assert_eq(ws_mem_fill(t->mem, t->ctx, a, 0, bytes), WS_OK);
  cr_assert_eq(ws_args_set_ptr(t->ctx, &t->args, name, a), WS_OK, "%s", ws_errmsg(t->ctx));
  return a;
}

static ws_status xt_run(xt *t, uint64_t budget) {
  t->launch.budget_warp_insns = budget;
  return ws_exec_run(t->ctx, &t->launch, &t->stats);
}

static void xt_read(xt *t, void *dst, uint64_t src, uint64_t bytes) {
  cr_assert_eq(ws_mem_copy_out(t->mem, t->ctx, dst, src, bytes), WS_OK, "%s", ws_errmsg(t->ctx));
}

/* Thread 0 of each CTA takes a ticket and stores {ticket, SR_SMID,
 * SR_CLOCK} at out[linear CTA id]. SR_CLOCK is read by the 12th instruction
 * its warp issues (index 11), so it reads 11. */
static const char order_src[] =
    ".kernel t\n.param .ptr ctr\n.param .ptr out\n"
    "S2R R0, SR_TID.X\nISETP.NE.U32 P0, R0, 0\n@P0 EXIT\n"
    "S2R R1, SR_CTAID.X\nS2R R2, SR_CTAID.Y\nS2R R3, SR_NCTAID.X\nIMAD R4, R2, R3, R1\n"
    "LDP.64 R6, [ctr]\nMOV R8, 1\nATOMG.ADD.U32 R9, [R6], R8\n"
    "S2R R10, SR_SMID\nS2R R11, SR_CLOCK\n"
    "LDP.64 R12, [out]\nIMAD.WIDE.U32 R12, R4, 12, R12\n"
    "STG.32 [R12], R9\nSTG.32 [R12+4], R10\nSTG.32 [R12+8], R11\nEXIT\n";

Test(exec, ctas_run_in_linear_order) {
  xt t;
  xt_init(&t, order_src, (ws_dim3){3, 2, 1}, (ws_dim3){64, 1, 1}, 4);
  xt_buf(&t, "ctr", 4);
  uint64_t out = xt_buf(&t, "out", 6 * 12);
  cr_assert_eq(xt_run(&t, 1000000), WS_OK, "%s", ws_errmsg(t.ctx));
  uint32_t got[6][3];
  xt_read(&t, got, out, sizeof got);
  for (uint32_t id = 0; id < 6; id++) {
    cr_expect_eq(got[id][0], id, "CTA %u took ticket %u", id, got[id][0]);
    cr_expect_eq(got[id][1], id % 4, "SR_SMID = linear id mod 4 SMs");
    cr_expect_eq(got[id][2], 11, "SR_CLOCK = instructions the warp issued before");
  }
  cr_expect_eq(t.stats.ctas, 6);
  cr_expect_eq(t.stats.cycles, 0);
  xt_fini(&t);
}

/* Lane 0 of each of 3 warps takes a ticket before and after BAR.SYNC.
 * Warp 0 runs to the barrier (0), warp 1 too (1), warp 2's arrival (2)
 * releases all, and warp 2 runs on to its end (3); the next round gives
 * warp 0 (4) and warp 1 (5). */
static const char rr_src[] = ".kernel t\n.param .ptr ctr\n.param .ptr out\n"
                             "S2R R0, SR_LANEID\nS2R R1, SR_WARPID\nISETP.EQ.U32 P0, R0, 0\n"
                             "LDP.64 R2, [ctr]\nLDP.64 R4, [out]\nIMAD.WIDE.U32 R4, R1, 8, R4\nMOV R6, 1\n"
                             "@P0 ATOMG.ADD.U32 R7, [R2], R6\n@P0 STG.32 [R4], R7\n"
                             "%s"
                             "@P0 ATOMG.ADD.U32 R7, [R2], R6\n@P0 STG.32 [R4+4], R7\nEXIT\n";

static void round_robin(const char *mid, uint32_t got[3][2]) {
  char src[1024];
  snprintf(src, sizeof src, rr_src, mid);
  xt t;
  xt_init(&t, src, (ws_dim3){1, 1, 1}, (ws_dim3){96, 1, 1}, 1);
  xt_buf(&t, "ctr", 4);
  uint64_t out = xt_buf(&t, "out", 3 * 8);
  cr_assert_eq(xt_run(&t, 1000000), WS_OK, "%s", ws_errmsg(t.ctx));
  xt_read(&t, got, out, 3 * 8);
  xt_fini(&t);
}

Test(exec, warps_run_until_they_wait_or_finish) {
  uint32_t got[3][2];
  round_robin("BAR.SYNC\n", got);
  static const uint32_t with_bar[3][2] = {{0, 4}, {1, 5}, {2, 3}};
  for (int w = 0; w < 3; w++)
    for (int i = 0; i < 2; i++) cr_expect_eq(got[w][i], with_bar[w][i], "barrier: warp %d ticket %d", w, i);
  round_robin("", got);
  static const uint32_t without[3][2] = {{0, 1}, {2, 3}, {4, 5}};
  for (int w = 0; w < 3; w++)
    for (int i = 0; i < 2; i++) cr_expect_eq(got[w][i], without[w][i], "no barrier: warp %d ticket %d", w, i);
}

Test(exec, stats_are_zeroed_then_counted) {
  xt t;
  /* 40 threads: 2 warps (32 + 8 lanes), 2 instructions each */
  xt_init(&t, ".kernel t\nS2R R0, SR_TID.X\nEXIT\n", (ws_dim3){2, 1, 1}, (ws_dim3){40, 1, 1}, 1);
  memset(&t.stats, 0xFF, sizeof t.stats);
  cr_assert_eq(xt_run(&t, 1000), WS_OK);
  cr_expect_eq(t.stats.cycles, 0);
  cr_expect_eq(t.stats.ctas, 2);
  cr_expect_eq(t.stats.warp_insns, 2 * 2 * 2);
  cr_expect_eq(t.stats.thread_insns, 2 * 2 * 40);
  cr_expect_eq(t.stats.warp_insns_by_unit[WS_UNIT_INT], 4);
  cr_expect_eq(t.stats.warp_insns_by_unit[WS_UNIT_CTRL], 4);
  cr_expect_eq(t.stats.warp_insns_by_unit[WS_UNIT_LSU], 0);
  cr_expect_eq(t.stats.occupancy.ctas_per_sm, 0, "the launcher leaves occupancy to its caller");
  t.launch.budget_warp_insns = 1000;
  cr_expect_eq(ws_exec_run(t.ctx, &t.launch, NULL), WS_OK, "stats may be NULL");
  xt_fini(&t);
}

/* 3 CTAs x 2 warps x 2 instructions = 12 warp instructions. */
Test(exec, budget_is_exact) {
  xt t;
  xt_init(&t, ".kernel t\nIADD R1, R1, 1\nEXIT\n", (ws_dim3){3, 1, 1}, (ws_dim3){64, 1, 1}, 1);
  cr_expect_eq(xt_run(&t, 12), WS_OK, "%s", ws_errmsg(t.ctx));
  cr_expect_eq(t.stats.warp_insns, 12);
  cr_expect_eq(xt_run(&t, 11), WS_ERR_BUDGET);
  cr_expect_eq(t.stats.warp_insns, 11);
  cr_expect_eq(t.stats.ctas, 2, "two CTAs completed");
  /* the 12th instruction would have been CTA 2's warp 1 at pc 1 (EXIT) */
  const char *msg = ws_errmsg(t.ctx);
  cr_expect(strstr(msg, "kernel 't' stopped: the launch issued 11 warp instructions, the launch's limit "
                        "(2 of 3 CTAs done, 11 warp instructions)"),
            "%s", msg);
  cr_expect(strstr(msg, "next to issue: CTA (2,0,0) warp 1 at pc 1 (line 3): EXIT"), "%s", msg);
  cr_expect_eq(xt_run(&t, 0), WS_ERR_BUDGET, "no instruction at all");
  cr_expect_eq(t.stats.warp_insns, 0);
  xt_fini(&t);
}

Test(exec, a_fault_stops_the_launch) {
  xt t;
  /* CTA 1 stores to address 0, which no allocation covers */
  xt_init(
      &t,
      ".kernel t\n.param .ptr out\nS2R R1, SR_CTAID.X\nISETP.EQ.U32 P0, R1, 1\n"
      "MOV R6, 0\nMOV R7, 0\n@P0 STG.32 [R6], R1\nLDP.64 R2, [out]\nIMAD.WIDE.U32 R2, R1, 4, R2\nMOV R4, 7\n"
      "STG.32 [R2], R4\nEXIT\n",
      (ws_dim3){3, 1, 1}, (ws_dim3){32, 1, 1}, 1);
  uint64_t out = xt_buf(&t, "out", 12);
  cr_expect_eq(xt_run(&t, 1000), WS_ERR_FAULT);
  cr_expect_eq(t.stats.ctas, 1);
  uint32_t got[3];
  xt_read(&t, got, out, sizeof got);
  cr_expect_eq(got[0], 7, "CTA 0 ran");
  cr_expect_eq(got[1], 0, "CTA 1 stopped at its fault");
  cr_expect_eq(got[2], 0, "CTA 2 never started");
  xt_fini(&t);
}

Test(exec, an_empty_grid_runs_nothing) {
  xt t;
  xt_init(&t, ".kernel t\nEXIT\n", (ws_dim3){0, 1, 1}, (ws_dim3){32, 1, 1}, 1);
  cr_expect_eq(xt_run(&t, 10), WS_OK);
  cr_expect_eq(t.stats.ctas, 0);
  cr_expect_eq(t.stats.warp_insns, 0);
  xt_fini(&t);
}
