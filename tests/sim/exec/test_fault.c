/* test_faults.c - kernel faults and the instruction budget: each case
 * checks the exact report (what, where, which instruction). */
#include "tests/sim/simtest.h"

/* thread i reads x[i] and writes it to y[i] */
static const char *copy_kernel =
    ".kernel t\n.param .ptr x\n.param .ptr y\n"
    "S2R R0, SR_TID.X\nLDP.64 R2, [x]\nLDP.64 R4, [y]\n"
    "IMAD.WIDE.U32 R6, R0, 4, R2\nLDG.32 R8, [R6]\nIMAD.WIDE.U32 R10, R0, 4, R4\nSTG.32 [R10], R8\nEXIT\n";

static void expect_fault(simtest *t, uint32_t block, ws_status want, const char *msg) {
  ws_status st = st_launch(t, (ws_dim3){1, 1, 1}, (ws_dim3){block, 1, 1}, 0);
  cr_expect_eq(st, want, "status %d: %s", st, ws_errmsg(t->ctx));
  cr_expect_str_eq(ws_errmsg(t->ctx), msg);
}

Test(faults, global_read_past_the_end) {
  simtest t;
  st_init(&t, copy_kernel, "t");
  st_buf(&t, "x", 1020, NULL);
  st_buf(&t, "y", 4096, NULL);
  expect_fault(
      &t, 300, WS_ERR_FAULT,
      "invalid global read of size 4 at 0x00007000000003fc: address is past the end of any "
      "allocation: it is 0 bytes after the nearest allocation at 0x0000700000000000 of size 1020 bytes\n"
      "    in kernel 't' CTA (0,0,0) warp 7 lane 31 pc 4: LDG.32 R8, [R6]");
  st_fini(&t);
}

Test(faults, use_after_free) {
  simtest t;
  st_init(&t, copy_kernel, "t");
  uint64_t x = st_buf(&t, "x", 256, NULL);
  st_buf(&t, "y", 256, NULL);
  cr_assert_eq(ws_device_free(t.dev, x), WS_OK);
  expect_fault(&t, 32, WS_ERR_FAULT,
               "invalid global read of size 4 at 0x0000700000000000: address was freed (it lay in "
               "the 256-byte allocation at 0x0000700000000000)\n"
               "    in kernel 't' CTA (0,0,0) warp 0 lane 0 pc 4: LDG.32 R8, [R6]");
  st_fini(&t);
}

Test(faults, misaligned_global_write) {
  const char *k = ".kernel t\n.param .ptr y\nLDP.64 R4, [y]\nS2R R0, SR_TID.X\n"
                  "IMAD.WIDE.U32 R4, R0, 4, R4\nSTG.64 [R4], R0\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  st_buf(&t, "y", 256, NULL);
  expect_fault(&t, 32, WS_ERR_FAULT,
               "misaligned global write of size 8 at 0x0000700000000004\n"
               "    in kernel 't' CTA (0,0,0) warp 0 lane 1 pc 3: STG.64 [R4], R0");
  st_fini(&t);
}

Test(faults, shared_out_of_bounds_and_misaligned) {
  const char *oob =
      ".kernel t\n.shared buf 4096\nS2R R0, SR_TID.X\nSHL R1, R0, 7\nLDS.32 R2, [R1+buf]\nEXIT\n";
  simtest t;
  st_init(&t, oob, "t");
  expect_fault(&t, 64, WS_ERR_FAULT,
               "invalid shared read of size 4 at 0x1000: address is past the end of the shared window "
               "(shared window is 4096 bytes)\n"
               "    in kernel 't' CTA (0,0,0) warp 1 lane 0 pc 2: LDS.32 R2, [R1]");
  st_fini(&t);
  const char *mis = ".kernel t\n.shared buf 64\nMOV R1, 6\nSTS.64 [R1], R2\nEXIT\n";
  st_init(&t, mis, "t");
  expect_fault(&t, 1, WS_ERR_FAULT,
               "misaligned shared write of size 8 at 0x6\n"
               "    in kernel 't' CTA (0,0,0) warp 0 lane 0 pc 1: STS.64 [R1], R2");
  st_fini(&t);
}

Test(faults, dynamic_shared_extends_the_window) {
  const char *k = ".kernel t\n.shared buf 16\nMOV R1, 1020\nSTS.32 [R1], R1\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){1, 1, 1}, 1008), WS_OK, "%s", ws_errmsg(t.ctx));
  expect_fault(&t, 1, WS_ERR_FAULT,
               "invalid shared write of size 4 at 0x3fc: address is past the end of the shared window "
               "(shared window is 16 bytes)\n"
               "    in kernel 't' CTA (0,0,0) warp 0 lane 0 pc 1: STS.32 [R1], R1");
  st_fini(&t);
}

Test(faults, constant_and_param_out_of_bounds) {
  const char *k = ".kernel t\nMOV R1, 0xFFFC\nLDC.64 R2, [R1]\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  expect_fault(&t, 1, WS_ERR_FAULT,
               "misaligned constant read of size 8 at 0xfffc\n"
               "    in kernel 't' CTA (0,0,0) warp 0 lane 0 pc 1: LDC.64 R2, [R1]");
  st_fini(&t);
  st_init(&t, ".kernel t\nMOV R1, 0x10000\nLDC.32 R2, [R1]\nEXIT\n", "t");
  expect_fault(&t, 1, WS_ERR_FAULT,
               "invalid constant read of size 4 at 0x10000: address is past the end of the constant "
               "bank (constant bank is 65536 bytes)\n"
               "    in kernel 't' CTA (0,0,0) warp 0 lane 0 pc 1: LDC.32 R2, [R1]");
  st_fini(&t);
  st_init(&t, ".kernel t\n.param .u32 n\nLDP.64 R2, [n]\nEXIT\n", "t");
  st_u32(&t, "n", 1);
  expect_fault(&t, 1, WS_ERR_FAULT,
               "invalid param read of size 8 at 0x0: address is past the end of the parameter buffer "
               "(parameter buffer is 4 bytes)\n"
               "    in kernel 't' CTA (0,0,0) warp 0 lane 0 pc 0: LDP.64 R2, [n]");
  st_fini(&t);
}

Test(faults, fault_in_a_later_cta_names_it) {
  const char *k = ".kernel t\n.param .ptr x\nS2R R0, SR_CTAID.Y\nLDP.64 R2, [x]\n"
                  "IMAD.WIDE.U32 R2, R0, 256, R2\nLDG.32 R4, [R2]\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  st_buf(&t, "x", 512, NULL);
  ws_status st = st_launch(&t, (ws_dim3){2, 3, 1}, (ws_dim3){32, 1, 1}, 0);
  cr_expect_eq(st, WS_ERR_FAULT);
  cr_expect_str_eq(
      ws_errmsg(t.ctx),
      "invalid global read of size 4 at 0x0000700000000200: address is past the end of any "
      "allocation: it is 0 bytes after the nearest allocation at 0x0000700000000000 of size 512 bytes\n"
      "    in kernel 't' CTA (0,2,0) warp 0 lane 0 pc 3: LDG.32 R4, [R2]");
  /* the functional launcher runs CTAs one after another, so exactly the
   * CTAs before the faulting one completed; the timing model runs them side
   * by side on different SMs, so the count is only fixed in that mode */
  ws_device_set_mode(t.dev, WS_MODE_FUNCTIONAL);
  st = st_launch(&t, (ws_dim3){2, 3, 1}, (ws_dim3){32, 1, 1}, 0);
  cr_expect_eq(st, WS_ERR_FAULT);
  cr_expect_eq(t.stats.ctas, 4, "the CTAs before the fault completed");
  st_fini(&t);
}

Test(faults, hmma_needs_the_whole_warp) {
  const char *k = ".kernel t\nHMMA.16816.F32 R0, R4, R8, R12\nEXIT\n";
  simtest t;
  st_init(&t, k, "t");
  expect_fault(
      &t, 16, WS_ERR_FAULT,
      "HMMA requires all 32 lanes of the warp to be active (active and guard-true lanes: 0x0000ffff)\n"
      "    in kernel 't' CTA (0,0,0) warp 0 pc 0: HMMA.16816.F32 R0, R4, R8, R12");
  st_fini(&t);
}

Test(faults, instruction_budget) {
  ws_gpu_cfg cfg = ws_config_default();
  cfg.gpu.insn_budget_warp_insns = 1000;
  simtest t;
  st_init_cfg(&t, ".kernel spin\nMOV R1, 0\nloop:\nIADD R1, R1, 1\nBRA loop\n", "spin", &cfg);
  /* the two warps sit on two sub-partitions and issue in the same cycles,
   * and the timing model looks at the limit after each cycle: the launch
   * stops at the end of the cycle that passed 1000, at 1002 instructions,
   * each warp having issued MOV, then 250 (IADD, BRA) pairs: its next is
   * the IADD at pc 1 (line 4). The warp named is the one the watchdog
   * looked at; its looks take the warps that issued in turn */
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){64, 1, 1}, 0), WS_ERR_BUDGET);
  const char *msg = ws_errmsg(t.ctx);
  cr_expect(strstr(msg, "kernel 'spin' stopped: the launch issued 1002 warp instructions, past the launch's "
                        "limit of 1000"),
            "%s", msg);
  cr_expect(strstr(msg,
                   "0 of 1 CTAs done, 1002 warp instructions)\n    next to issue: CTA (0,0,0) warp 1 at "
                   "pc 1 (line 4): IADD R1, R1, 1\n    raise it with --set gpu.insn_budget_warp_insns=N"),
            "%s", msg);
  cr_expect_eq(t.stats.warp_insns, 1002);
  st_fini(&t);
  /* exactly the budget is fine */
  st_init_cfg(&t, ".kernel k\nNOP\nNOP\nEXIT\n", "k", &cfg);
  cfg.gpu.insn_budget_warp_insns = 3;
  ws_device_destroy(t.dev);
  cr_assert_eq(ws_device_create(t.ctx, &cfg, &t.dev), WS_OK);
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){32, 1, 1}, 0), WS_OK, "%s", ws_errmsg(t.ctx));
  cr_expect_eq(st_launch(&t, (ws_dim3){1, 1, 1}, (ws_dim3){33, 1, 1}, 0), WS_ERR_BUDGET);
  st_fini(&t);
}
