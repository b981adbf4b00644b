/* test_analysis.c - register counts and reconvergence points.
 *
 * Design: each control-flow shape is a small kernel whose expected
 * immediate post-dominators were worked out by hand (listed next to the
 * assertions), covering the cases docs/isa.md explains: if/else, nested
 * if/else, a loop with a break, EXIT inside an if, a guarded EXIT, plus the
 * degenerate ones (infinite loop, unreachable code, branch to the end). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/analysis.h"
#include "isa/asm.h"
#include "isatest.h"

static ws_ctx *ctx;

static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }

TestSuite(analysis, .init = setup, .fini = teardown);

static ws_program *assemble(const char *src) { return it_assemble(ctx, src, "k.wsa"); }

static uint32_t regs_of(const char *body) {
  char src[256];
  snprintf(src, sizeof src, ".kernel k\n%s\n", body);
  ws_program *prog = assemble(src);
  uint32_t regs = prog->kernels[0].regs_per_thread;
  cr_assert_eq(ws_analysis_regs(&prog->kernels[0]), regs);
  ws_program_destroy(prog);
  return regs;
}

Test(analysis, register_counts) {
  cr_assert_eq(regs_of("EXIT"), 1);           /* at least one */
  cr_assert_eq(regs_of("IADD RZ, RZ, 1"), 1); /* RZ is not a register */
  cr_assert_eq(regs_of("MOV R7, 1"), 8);
  cr_assert_eq(regs_of("IADD R0, R0, R9"), 10);        /* sources count */
  cr_assert_eq(regs_of("IMAD.WIDE R6, R0, 4, R2"), 8); /* the pair R6:R7 */
  cr_assert_eq(regs_of("IADD.64 R0, R2, R10"), 12);
  cr_assert_eq(regs_of("LDG.128 R8, [R2]"), 12); /* the quad R8..R11 */
  cr_assert_eq(regs_of("LDG R0, [R30]"), 32);    /* address pair R30:R31 */
  cr_assert_eq(regs_of("LDS R0, [R30+4]"), 31);  /* 32-bit address */
  cr_assert_eq(regs_of("LDS R0, [RZ+4]"), 1);
  cr_assert_eq(regs_of("STG.64 [R2], R252"), 254);
  cr_assert_eq(regs_of("HMMA.16816.F32 R0, R4, R8, R0"), 10);
  cr_assert_eq(regs_of("HMMA.16816.F32 R0, R4, R8, R12"), 16);
  cr_assert_eq(regs_of("MOV R254, 0"), 255);
  cr_assert_eq(regs_of("IMAD.WIDE.U32 R8, R0, 4, RZ"), 10); /* an RZ pair adds nothing */
  cr_assert_eq(regs_of("IMAD.WIDE.U32 RZ, R3, 4, RZ"), 4);
  cr_assert_eq(regs_of("PRMT R1, R2, 0x5410, R5"), 6);
  cr_assert_eq(regs_of("BFE.U32 R1, R2, R3, 8"), 4);
  cr_assert_eq(regs_of("PXOR P1, P2, !PT"), 1); /* predicates are not registers */
  cr_assert_eq(regs_of("ATOMS.INC R3, [R9+4], R1"), 10);
  cr_assert_eq(regs_of("ATOMG.EXCH R3, [R10], R1"), 12);
}

static const ws_kernel *kernel(const ws_program *prog, const char *name) {
  const ws_kernel *k = ws_program_find_kernel(prog, name);
  cr_assert_not_null(k, "no kernel %s", name);
  return k;
}

static ws_program *control_flow(void) {
  ws_program *prog = NULL;
  cr_assert_eq(ws_asm_file(ctx, WS_SOURCE_DIR "/tests/isa/data/control_flow.wsa", &prog), WS_OK, "%s",
               ws_errmsg(ctx));
  return prog;
}

Test(analysis, if_else_reconverges_at_join) {
  ws_program *prog = control_flow();
  const ws_kernel *k = kernel(prog, "if_else");
  /* 2: @!P0 BRA else   4: BRA join   6: join */
  cr_assert_eq(k->insns[2].rpc, 6);
  cr_assert_eq(k->insns[4].rpc, 6);
  cr_assert_eq(k->insns[3].rpc, 0); /* only branches get one */
  ws_program_destroy(prog);
}

Test(analysis, nested_if_else) {
  ws_program *prog = control_flow();
  const ws_kernel *k = kernel(prog, "nested");
  /* 3: @!P0 BRA outer_else(9)  4: @!P1 BRA inner_else(7)  6: BRA inner_join(8)
   * 8: BRA outer_join(10)  10: EXIT */
  cr_assert_eq(k->insns[3].rpc, 10);
  cr_assert_eq(k->insns[4].rpc, 8);
  cr_assert_eq(k->insns[6].rpc, 8);
  cr_assert_eq(k->insns[8].rpc, 10);
  ws_program_destroy(prog);
}

Test(analysis, loop_with_break) {
  ws_program *prog = control_flow();
  const ws_kernel *k = kernel(prog, "loop_break");
  /* 2: head  3: @P0 BRA after(8)  5: @P1 BRA after(8)  7: BRA head(2) */
  cr_assert_eq(k->insns[3].rpc, 8);
  cr_assert_eq(k->insns[5].rpc, 8);
  cr_assert_eq(k->insns[7].rpc, 2);
  ws_program_destroy(prog);
}

Test(analysis, exit_inside_if_meets_only_at_kernel_exit) {
  ws_program *prog = control_flow();
  const ws_kernel *k = kernel(prog, "early_exit");
  /* 2: @!P0 BRA skip(4)  3: EXIT  5: @P0 EXIT (guarded: falls through too) */
  cr_assert_eq(k->ninsns, 8);
  cr_assert_eq(k->insns[2].rpc, 8);
  ws_program_destroy(prog);
}

Test(analysis, guarded_exit_before_a_branch) {
  ws_program *prog = assemble(".kernel k\n@P0 EXIT\n@P1 BRA b\nNOP\nb: EXIT\n");
  cr_assert_eq(prog->kernels[0].insns[1].rpc, 3);
  ws_program_destroy(prog);
}

Test(analysis, guarded_exit_inside_a_side_keeps_the_join) {
  /* 0: @P0 BRA else  1: @P1 EXIT  2: NOP  3: BRA join  4: else: NOP  5: join: EXIT
   * lanes leaving at 1 need no reconvergence point; the rest meet at 5 */
  ws_program *prog = assemble(".kernel k\n@P0 BRA else\n@P1 EXIT\nNOP\nBRA join\n"
                              "else: NOP\njoin: EXIT\n");
  cr_assert_eq(prog->kernels[0].insns[0].rpc, 5);
  ws_program_destroy(prog);
}

Test(analysis, branch_to_next_and_to_end) {
  ws_program *prog = assemble(".kernel k\n@P0 BRA next\nnext: @P1 BRA end\nNOP\nend:\n");
  cr_assert_eq(prog->kernels[0].insns[0].rpc, 1);
  cr_assert_eq(prog->kernels[0].insns[1].rpc, 3); /* the virtual exit, ninsns */
  ws_program_destroy(prog);
}

Test(analysis, infinite_loop_and_unreachable_code) {
  ws_program *prog = assemble(".kernel k\n@P0 BRA spin\nEXIT\nspin: BRA spin\n"
                              "NOP\n@P1 BRA spin\n");
  const ws_kernel *k = &prog->kernels[0];
  /* 0: @P0 BRA spin(2)  1: EXIT  2: BRA spin (never leaves)
   * 3: NOP (unreachable)  4: @P1 BRA spin (unreachable, falls off the end) */
  cr_assert_eq(k->insns[0].rpc, 1); /* only the fall-through path can exit */
  cr_assert_eq(k->insns[2].rpc, 5); /* cannot reach exit: ipdom = exit */
  cr_assert_eq(k->insns[4].rpc, 5);
  ws_program_destroy(prog);
}

Test(analysis, kernel_built_in_code) {
  ws_insn insns[4];
  memset(insns, 0, sizeof insns);
  for (int i = 0; i < 4; i++) insns[i].guard = WS_PRED_PT;
  insns[0].op = WS_OP_BRA; /* @P2 BRA 3 */
  insns[0].guard = 2;
  insns[0].opnd[0].kind = WS_OPND_LABEL;
  insns[0].opnd[0].imm = 3;
  insns[1].op = WS_OP_BRA; /* BRA 3 */
  insns[1].opnd[0].kind = WS_OPND_LABEL;
  insns[1].opnd[0].imm = 3;
  insns[2].op = WS_OP_NOP; /* dead */
  insns[3].op = WS_OP_EXIT;
  ws_kernel k;
  memset(&k, 0, sizeof k);
  k.insns = insns;
  k.ninsns = 4;
  cr_assert_eq(ws_analysis_reconvergence(ctx, &k), WS_OK);
  cr_assert_eq(insns[0].rpc, 3);
  cr_assert_eq(insns[1].rpc, 3);
  cr_assert_eq(ws_analysis_regs(&k), 1);
}

Test(analysis, deeply_nested_loops) {
  /* 2000 loops, each inside the next, all sharing their back edges' tail */
  size_t n = 2000;
  char *src = malloc(n * 32 + 64);
  size_t len = (size_t)sprintf(src, ".kernel k\n");
  for (size_t i = 0; i < n; i++) len += (size_t)sprintf(src + len, "l%zu: NOP\n", i);
  for (size_t i = n; i-- > 0;) len += (size_t)sprintf(src + len, "@P0 BRA l%zu\n", i);
  sprintf(src + len, "EXIT\n");
  ws_program *prog = assemble(src);
  const ws_kernel *k = &prog->kernels[0];
  cr_assert_eq(k->ninsns, 2 * n + 1);
  cr_assert_eq(k->insns[n].rpc, n + 1);         /* innermost loop's branch */
  cr_assert_eq(k->insns[2 * n - 1].rpc, 2 * n); /* outermost */
  ws_program_destroy(prog);
  free(src);
}

Test(analysis, million_instruction_kernel) {
  /* the graph walks are iterative: a recursive one would overflow the stack */
  size_t n = 999998;
  char *src = malloc(n * 4 + 64);
  size_t len = (size_t)sprintf(src, ".kernel k\ntop: @P0 BRA top\n");
  for (size_t i = 0; i < n; i++, len += 4) memcpy(src + len, "NOP\n", 4);
  sprintf(src + len, "@P1 BRA top\n");
  ws_program *prog = assemble(src);
  const ws_kernel *k = &prog->kernels[0];
  cr_assert_eq(k->ninsns, 1000000);
  cr_assert_eq(k->insns[0].rpc, 1);           /* a self-loop leaves to the next insn */
  cr_assert_eq(k->insns[n + 1].rpc, 1000000); /* the last insn falls off the end */
  ws_program_destroy(prog);
  free(src);
}
