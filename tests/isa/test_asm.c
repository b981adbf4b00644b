/* test_asm.c - the assembler: exact fields of assembled instructions, symbol
 * layout, literals, and a table of malformed inputs with their exact
 * messages.
 *
 * Design: expected values are written out by hand (bit patterns, offsets,
 * label pcs, message text), never computed by the code under test, so a
 * change in behaviour shows up as a failing line with the right answer
 * beside it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"
#include "isatest.h"

static ws_ctx *ctx;

static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }

TestSuite(asm, .init = setup, .fini = teardown);

static ws_program *assemble(const char *src) { return it_assemble(ctx, src, "k.wsa"); }

/* Assembles a one-kernel program and returns a copy of its first insn. */
static ws_insn first_insn(const char *body) {
  char src[512];
  snprintf(src, sizeof src, ".kernel k\n.shared tile 64\n.shared tail 8\n%s\n", body);
  ws_program *prog = assemble(src);
  ws_insn in = prog->kernels[0].insns[0];
  ws_program_destroy(prog);
  return in;
}

static void assert_reg(const ws_operand *o, unsigned reg, unsigned flags) {
  cr_assert_eq(o->kind, WS_OPND_REG);
  cr_assert_eq(o->reg, reg);
  cr_assert_eq(o->flags, flags);
}

static void assert_mem(const ws_operand *o, unsigned reg, int32_t imm) {
  cr_assert_eq(o->kind, WS_OPND_MEM);
  cr_assert_eq(o->reg, reg);
  cr_assert_eq(o->imm, imm);
}

static void assert_imm(const ws_operand *o, uint32_t bits) {
  cr_assert_eq(o->kind, WS_OPND_IMM);
  cr_assert_eq((uint32_t)o->imm, bits, "imm 0x%08X, expected 0x%08X", (uint32_t)o->imm, bits);
}

/* ---- the syntax tour, field by field --------------------------------------------- */

static ws_program *tour(void) {
  ws_program *prog = NULL;
  ws_status st = ws_asm_file(ctx, WS_SOURCE_DIR "/tests/isa/data/syntax_tour.wsa", &prog);
  cr_assert_eq(st, WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(prog->nkernels, 1);
  return prog;
}

Test(asm, tour_symbols) {
  ws_program *prog = tour();
  const ws_kernel *k = &prog->kernels[0];
  cr_assert_str_eq(k->name, "tour");
  cr_assert_eq(k->nparams, 3);
  cr_assert_str_eq(k->params[0].name, "n");
  cr_assert_eq(k->params[0].type, WS_PT_U32);
  cr_assert_eq(k->params[0].offset_bytes, 0);
  cr_assert_eq(k->params[1].type, WS_PT_PTR);
  cr_assert_eq(k->params[1].offset_bytes, 8);
  cr_assert_eq(k->params[1].size_bytes, 8);
  cr_assert_eq(k->params[2].offset_bytes, 16);
  cr_assert_eq(k->param_size_bytes, 20);
  cr_assert_eq(k->nshared, 3);
  cr_assert_eq(k->shared[0].offset_bytes, 0);
  cr_assert_eq(k->shared[0].align_bytes, 16);
  cr_assert_eq(k->shared[1].offset_bytes, 4096);
  cr_assert_eq(k->shared[1].align_bytes, 4);
  cr_assert_eq(k->shared[2].offset_bytes, 4160); /* 4100 rounded up to 64 */
  cr_assert_eq(k->shared_size_bytes, 4224);
  cr_assert_eq(k->ninsns, 32);
  cr_assert_eq(k->nlabels, 2);
  cr_assert_str_eq(k->labels[0].name, "loop");
  cr_assert_eq(k->labels[0].pc, 13);
  cr_assert_str_eq(k->labels[1].name, "done");
  cr_assert_eq(k->labels[1].pc, 31);
  cr_assert_eq(k->regs_per_thread, 44); /* R42:R43 of IMUL.HI is the highest */
  cr_assert_eq(k->insn_lines[0], 10);
  cr_assert_eq(k->insn_lines[6], 16);
  cr_assert_eq(k->insn_lines[31], 42);
  ws_program_destroy(prog);
}

Test(asm, tour_integer_and_control) {
  ws_program *prog = tour();
  const ws_insn *in = prog->kernels[0].insns;
  cr_assert_eq(in[0].op, WS_OP_S2R);
  cr_assert_eq(in[0].guard, WS_PRED_PT);
  assert_reg(&in[0].opnd[0], 0, 0);
  cr_assert_eq(in[0].opnd[1].kind, WS_OPND_SREG);
  cr_assert_eq(in[0].opnd[1].reg, WS_SR_CTAID_X);
  cr_assert_eq(in[3].op, WS_OP_IMAD);
  assert_reg(&in[3].opnd[3], 2, 0);
  cr_assert_eq(in[5].op, WS_OP_ISETP);
  cr_assert_eq(in[5].cmp, WS_CMP_GE);
  cr_assert_eq(in[5].dtype, WS_DT_U32);
  cr_assert_eq(in[5].opnd[0].kind, WS_OPND_PRED);
  cr_assert_eq(in[6].op, WS_OP_EXIT);
  cr_assert_eq(in[6].guard, 0);
  cr_assert_eq(in[6].guard_neg, 0);
  cr_assert_eq(in[6].opnd[0].kind, WS_OPND_NONE);
  cr_assert_eq(in[8].op, WS_OP_IMADWIDE);
  cr_assert_eq(in[8].dtype, WS_DT_U32);
  assert_imm(&in[8].opnd[2], 4);
  assert_reg(&in[8].opnd[3], 4, 0);
  cr_assert_eq(in[13].op, WS_OP_BRA);
  cr_assert_eq(in[13].guard, 1);
  cr_assert_eq(in[13].guard_neg, 1);
  cr_assert_eq(in[13].opnd[0].kind, WS_OPND_LABEL);
  cr_assert_eq(in[13].opnd[0].imm, 13);
  cr_assert_eq(in[13].rpc, 14);
  cr_assert_eq(in[29].opnd[0].imm, 31); /* forward reference */
  cr_assert_eq(in[29].rpc, 31);
  assert_imm(&in[24].opnd[2], 0xFFFFFFFFu);
  assert_imm(&in[25].opnd[1], 0xFFFFFFFFu);
  cr_assert_eq(in[28].op, WS_OP_IMULHI);
  cr_assert_eq(in[28].dtype, WS_DT_U32);
  cr_assert_eq(in[30].op, WS_OP_NOP);
  ws_program_destroy(prog);
}

Test(asm, tour_memory) {
  ws_program *prog = tour();
  const ws_insn *in = prog->kernels[0].insns;
  cr_assert_eq(in[4].op, WS_OP_LDP);
  cr_assert_eq(in[4].width_bytes, 4);
  assert_mem(&in[4].opnd[1], WS_REG_RZ, 0);
  cr_assert_eq(in[7].width_bytes, 8);
  assert_mem(&in[7].opnd[1], WS_REG_RZ, 8);
  assert_mem(&in[9].opnd[1], 6, 0);
  assert_mem(&in[10].opnd[1], WS_REG_RZ, 16);
  cr_assert_eq(in[12].op, WS_OP_STG);
  assert_mem(&in[12].opnd[0], 6, 16);
  assert_reg(&in[12].opnd[1], 8, 0);
  assert_imm(&in[15].opnd[1], 0); /* MOV R11, tile */
  cr_assert_eq(in[16].width_bytes, 16);
  assert_mem(&in[16].opnd[1], 11, 16);
  assert_mem(&in[17].opnd[1], WS_REG_RZ, 4);
  cr_assert_eq(in[26].width_bytes, 8);
  assert_mem(&in[26].opnd[1], 6, -8);
  ws_program_destroy(prog);
}

/* A byte or halfword store holds its value in one register, whatever the
 * width; the disassembler prints the width back. */
Test(asm, byte_and_halfword_stores) {
  static const char *const src[] = {"STG.8 [R4+3], R1", "STS.16 [R2+6], R9", "STL.8 [RZ+5], R7"};
  static const char *const canon[] = {"STG.8 [R4+0x3], R1", "STS.16 [R2+0x6], R9", "STL.8 [RZ+0x5], R7"};
  static const uint8_t widths[] = {1, 2, 1};
  static const ws_op ops[] = {WS_OP_STG, WS_OP_STS, WS_OP_STL};
  for (unsigned i = 0; i < 3; i++) {
    char text[128];
    snprintf(text, sizeof text, ".kernel k\n.local 8\n%s\n", src[i]);
    ws_program *prog = assemble(text);
    const ws_insn *in = &prog->kernels[0].insns[0];
    cr_expect_eq(in->op, ops[i], "%s", src[i]);
    cr_expect_eq(in->width_bytes, widths[i], "%s", src[i]);
    cr_expect_eq(ws_isa_opnd_nregs(in, 1), 1u, "%s: one register", src[i]);
    char out[128];
    ws_disasm_insn(&prog->kernels[0], in, out, sizeof out);
    cr_expect_str_eq(out, canon[i]);
    ws_program_destroy(prog);
  }
}

Test(asm, tour_float_and_warp) {
  ws_program *prog = tour();
  const ws_insn *in = prog->kernels[0].insns;
  assert_reg(&in[11].opnd[3], 8, WS_OPND_NEG);
  assert_imm(&in[14].opnd[1], 0x3FC00000u); /* MOV R10, 1.5 */
  cr_assert_eq(in[18].op, WS_OP_SHFL);
  cr_assert_eq(in[18].cmp, WS_SHFL_BFLY);
  assert_imm(&in[18].opnd[2], 16);
  cr_assert_eq(in[19].opnd[1].kind, WS_OPND_PRED);
  cr_assert_eq(in[19].opnd[1].flags, WS_OPND_NOT);
  cr_assert_eq(in[20].op, WS_OP_HMMA);
  assert_reg(&in[20].opnd[2], 28, 0);
  assert_reg(&in[21].opnd[1], 8, WS_OPND_ABS);
  assert_reg(&in[21].opnd[2], 9, WS_OPND_ABS | WS_OPND_NEG);
  assert_imm(&in[22].opnd[2], 0x80000000u);
  assert_imm(&in[23].opnd[2], 0x7F800001u); /* a signalling NaN stays exact */
  cr_assert_eq(in[27].op, WS_OP_H2F);
  cr_assert_eq(in[27].hsel, 1);
  ws_program_destroy(prog);
}

/* ---- symbol layout ----------------------------------------------------------------- */

Test(asm, param_layout_is_natural) {
  ws_program *prog = assemble(".kernel k\n.param .u32 a\n.param .ptr b\n.param .s32 c\n"
                              ".param .f32 d\n.param .u64 e\nLDP R0, [a]\n");
  const ws_kernel *k = &prog->kernels[0];
  cr_assert_eq(k->params[0].offset_bytes, 0);
  cr_assert_eq(k->params[1].offset_bytes, 8);
  cr_assert_eq(k->params[2].offset_bytes, 16);
  cr_assert_eq(k->params[3].offset_bytes, 20);
  cr_assert_eq(k->params[4].offset_bytes, 24);
  cr_assert_eq(k->params[4].size_bytes, 8);
  cr_assert_eq(k->param_size_bytes, 32);
  ws_program_destroy(prog);
  prog = assemble(".kernel k\n.param .u32 n\n.param .ptr x\nLDP.64 R2, [x]\nLDP R0, [x+4]\n"
                  "LDP R1, [x-8]\n");
  k = &prog->kernels[0];
  cr_assert_eq(k->param_size_bytes, 16);
  assert_mem(&k->insns[0].opnd[1], WS_REG_RZ, 8);
  assert_mem(&k->insns[1].opnd[1], WS_REG_RZ, 12);
  assert_mem(&k->insns[2].opnd[1], WS_REG_RZ, 0);
  ws_program_destroy(prog);
}

Test(asm, shared_layout_aligns_each_symbol) {
  ws_program *prog = assemble(".kernel k\n.shared a 3 1\n.shared b 10\n.shared c 1 256\n"
                              ".shared d 0 8\nMOV R0, c\nMOV R1, d-a+1\n");
  const ws_kernel *k = &prog->kernels[0];
  cr_assert_eq(k->shared[0].offset_bytes, 0);
  cr_assert_eq(k->shared[1].offset_bytes, 4);
  cr_assert_eq(k->shared[1].align_bytes, 4);
  cr_assert_eq(k->shared[2].offset_bytes, 256);
  cr_assert_eq(k->shared[3].offset_bytes, 264);
  cr_assert_eq(k->shared_size_bytes, 264);
  assert_imm(&k->insns[0].opnd[1], 256);
  assert_imm(&k->insns[1].opnd[1], 265);
  ws_program_destroy(prog);
}

Test(asm, labels_forward_backward_and_at_end) {
  ws_program *prog = assemble(".kernel k\ntop: NOP\n@P0 BRA top\nBRA end ; // to the end\n"
                              "a: b:\n  NOP\nend:\n");
  const ws_kernel *k = &prog->kernels[0];
  cr_assert_eq(k->ninsns, 4);
  cr_assert_eq(k->insns[1].opnd[0].imm, 0);
  cr_assert_eq(k->insns[2].opnd[0].imm, 4);
  cr_assert_eq(k->nlabels, 4);
  cr_assert_str_eq(k->labels[1].name, "a");
  cr_assert_eq(k->labels[1].pc, 3);
  cr_assert_eq(k->labels[2].pc, 3);
  cr_assert_eq(k->labels[3].pc, 4);
  ws_program_destroy(prog);
}

Test(asm, guards) {
  ws_insn in = first_insn("@PT EXIT");
  cr_assert_eq(in.guard, WS_PRED_PT);
  cr_assert_eq(in.guard_neg, 0);
  in = first_insn("@!PT NOP");
  cr_assert_eq(in.guard, WS_PRED_PT);
  cr_assert_eq(in.guard_neg, 1);
  in = first_insn("@!P6 IADD R1, R2, 3");
  cr_assert_eq(in.guard, 6);
  cr_assert_eq(in.guard_neg, 1);
  in = first_insn("IADD R1, R2, 3");
  cr_assert_eq(in.guard, WS_PRED_PT);
  cr_assert_eq(in.guard_neg, 0);
}

Test(asm, several_kernels) {
  ws_program *prog = assemble(".kernel a\nEXIT\n.kernel b\n.param .u32 n\nNOP\nEXIT\n");
  cr_assert_eq(prog->nkernels, 2);
  const ws_kernel *b = ws_program_find_kernel(prog, "b");
  cr_assert_not_null(b);
  cr_assert_eq(b->ninsns, 2);
  cr_assert_eq(b->insn_lines[1], 6);
  cr_assert_eq(ws_program_find_kernel(prog, "a"), &prog->kernels[0]);
  cr_assert_null(ws_program_find_kernel(prog, "c"));
  ws_program_destroy(prog);
}

/* ---- mnemonics and modifiers -------------------------------------------------------- */

Test(asm, longest_mnemonic_prefix) {
  ws_insn in = first_insn("IMUL.HI.U32 R0, R1, R2");
  cr_assert_eq(in.op, WS_OP_IMULHI);
  cr_assert_eq(in.dtype, WS_DT_U32);
  in = first_insn("IMUL R0, R1, R2");
  cr_assert_eq(in.op, WS_OP_IMUL);
  in = first_insn("IADD.64 R0, R2, R4");
  cr_assert_eq(in.op, WS_OP_IADD64);
  in = first_insn("F2F.F32.F16 R0, R1");
  cr_assert_eq(in.op, WS_OP_H2F);
  cr_assert_eq(in.hsel, 0);
  in = first_insn("F2F.F16.F32 R0, R1");
  cr_assert_eq(in.op, WS_OP_F2H);
  in = first_insn("MUFU.SQRT R0, R1");
  cr_assert_eq(in.op, WS_OP_SQRT);
}

Test(asm, modifier_defaults_and_any_order) {
  ws_insn in = first_insn("ISETP.U32.LT P0, R1, R2");
  cr_assert_eq(in.cmp, WS_CMP_LT);
  cr_assert_eq(in.dtype, WS_DT_U32);
  in = first_insn("ISETP.LT P0, R1, R2");
  cr_assert_eq(in.dtype, WS_DT_S32);
  in = first_insn("FSETP.GEU P0, R1, R2");
  cr_assert_eq(in.cmp, WS_CMP_GEU);
  in = first_insn("LDS R0, [R1]");
  cr_assert_eq(in.width_bytes, 4);
  in = first_insn("STS.64 [R1], R2");
  cr_assert_eq(in.width_bytes, 8);
  in = first_insn("IADD R0, R1, R2");
  cr_assert_eq(in.width_bytes, 0);
  in = first_insn("ATOMG.ADD.F32 R0, [R2], R4");
  cr_assert_eq(in.dtype, WS_DT_F32);
  in = first_insn("SHFL.UP R0, R1, 1");
  cr_assert_eq(in.cmp, WS_SHFL_UP);
}

/* ---- literals --------------------------------------------------------------------- */

typedef struct literal_case {
  const char *text;
  uint32_t bits;
} literal_case;

Test(asm, float_literals) {
  static const literal_case cases[] = {
      {"1.5", 0x3FC00000u},
      {"-0.0", 0x80000000u},
      {"-0", 0x80000000u},
      {"0", 0x00000000u},
      {"2", 0x40000000u},
      {"-2e-3", 0xBB03126Fu},
      {"1e+2", 0x42C80000u},
      {"inf", 0x7F800000u},
      {"-inf", 0xFF800000u},
      {"nan", 0x7FC00000u},
      {"-nan", 0xFFC00000u},
      {"0f7F800001", 0x7F800001u},
      {"0f3f800000", 0x3F800000u},
      {"-0f3F800000", 0xBF800000u},
      {"0.1", 0x3DCCCCCDu},
      {"1.40129846e-45", 0x00000001u},
      {"3.40282347e+38", 0x7F7FFFFFu},
      {"1e39", 0x7F800000u},
      {"16777217", 0x4B800000u},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char line[64];
    snprintf(line, sizeof line, "FADD R0, R1, %s", cases[i].text);
    ws_insn in = first_insn(line);
    cr_assert_eq((uint32_t)in.opnd[2].imm, cases[i].bits, "%s: 0x%08X, expected 0x%08X", cases[i].text,
                 (uint32_t)in.opnd[2].imm, cases[i].bits);
  }
}

Test(asm, integer_literals) {
  static const literal_case cases[] = {
      {"0x10", 16},
      {"0X1f", 31},
      {"-1", 0xFFFFFFFFu},
      {"4294967295", 0xFFFFFFFFu},
      {"-2147483648", 0x80000000u},
      {"007", 7},
      {"tile", 0},
      {"tail", 64},
      {"tail+4-2", 66},
      {"tail - -1", 65},
      {"0-tail", 0xFFFFFFC0u},
      {"2147483648", 0x80000000u},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char line[64];
    snprintf(line, sizeof line, "IADD R0, R1, %s", cases[i].text);
    ws_insn in = first_insn(line);
    cr_assert_eq((uint32_t)in.opnd[2].imm, cases[i].bits, "%s: 0x%08X", cases[i].text,
                 (uint32_t)in.opnd[2].imm);
  }
}

Test(asm, mov_takes_float_literals_as_bits) {
  assert_imm(&first_insn("MOV R0, 1.5").opnd[1], 0x3FC00000u);
  assert_imm(&first_insn("MOV R0, -1.0").opnd[1], 0xBF800000u);
  assert_imm(&first_insn("MOV R0, -inf").opnd[1], 0xFF800000u);
  assert_imm(&first_insn("MOV R0, 0f00000001").opnd[1], 1);
  assert_imm(&first_insn("MOV R0, 2").opnd[1], 2); /* integer text stays an integer */
  assert_reg(&first_insn("MOV R0, RZ").opnd[1], WS_REG_RZ, 0);
}

Test(asm, register_edges) {
  ws_insn in = first_insn("LDS.128 R248, [RZ+8]");
  assert_reg(&in.opnd[0], 248, 0);
  in = first_insn("IADD.64 RZ, RZ, R252");
  assert_reg(&in.opnd[0], WS_REG_RZ, 0);
  assert_reg(&in.opnd[2], 252, 0);
  in = first_insn("HMMA.16816.F32 RZ, RZ, RZ, RZ");
  assert_reg(&in.opnd[1], WS_REG_RZ, 0);
  in = first_insn("MOV R254, 1 ;");
  assert_reg(&in.opnd[0], 254, 0);
  in = first_insn("LDS R0, [tail+4]");
  assert_mem(&in.opnd[1], WS_REG_RZ, 68);
}

Test(asm, source_need_not_be_nul_terminated) {
  const char src[] = ".kernel k\nEXIT\nGARBAGE !!";
  ws_program *prog = NULL;
  cr_assert_eq(ws_asm_parse(ctx, src, 15, "k.wsa", &prog), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(prog->kernels[0].ninsns, 1);
  ws_program_destroy(prog);
}

Test(asm, crlf_and_long_comment_lines) {
  size_t n = 200000;
  char *src = malloc(n + 64);
  strcpy(src, ".kernel k\r\n//");
  memset(src + strlen(src), 'x', n);
  strcpy(src + 13 + n, "\r\nEXIT\r\n");
  ws_program *prog = assemble(src);
  cr_assert_eq(prog->kernels[0].insn_lines[0], 3);
  ws_program_destroy(prog);
  free(src);
}

Test(asm, any_bytes_in_comments) {
  ws_program *prog = assemble(".kernel k // caf\xC3\xA9 \xFF\x01\n# \x80\nEXIT\n");
  cr_assert_eq(prog->kernels[0].ninsns, 1);
  ws_program_destroy(prog);
}

Test(asm, missing_file) {
  ws_program *prog = (ws_program *)&prog;
  cr_assert_eq(ws_asm_file(ctx, "/nonexistent/x.wsa", &prog), WS_ERR_IO);
  cr_assert_null(prog);
  cr_assert_str_eq(ws_errmsg(ctx), "cannot open '/nonexistent/x.wsa': No such file or directory");
}

/* ---- malformed inputs -------------------------------------------------------------- */

typedef struct bad_case {
  const char *src;
  const char *msg;
} bad_case;

static const bad_case bad_cases[] = {
    {".kernel k\n  FADDD R1, R2, R3\n", "k.wsa:2:3: error: unknown mnemonic 'FADDD'"},
    {".kernel k\niadd R1, R2, R3\n", "k.wsa:2:1: error: unknown mnemonic 'iadd'"},
    {".kernel k\nIADD R1 R3, R4\n", "k.wsa:2:9: error: expected ',' after operand 1, found 'R3'"},
    {"// no kernel yet\nIADD R1, R2, R3\n",
     "k.wsa:2:1: error: expected a directive .kernel before the first instruction, found 'IADD'"},
    {"x:\n", "k.wsa:1:1: error: expected a directive .kernel before the first label, found 'x'"},
    {".param .u32 n\n",
     "k.wsa:1:1: error: expected a directive .kernel before the first .param, found '.param'"},
    {".kernel k\nMOV R255, 1\n", "k.wsa:2:5: error: expected a register R0..R254 or RZ, found 'R255'"},
    {".kernel k\nIADD R1, R2, R999\n", "k.wsa:2:14: error: expected a register R0..R254 or RZ, found 'R999'"},
    {".kernel k\n  BRA loop\n", "k.wsa:2:7: error: label 'loop' is not defined"},
    {".kernel k\nNOP\nx:\nNOP\nx: NOP\n", "k.wsa:5:1: error: label 'x' defined twice (first at line 3)"},
    {".kernel k\n.param .u32 n\n.param .f32 n\n", "k.wsa:3:13: error: param 'n' declared twice"},
    {".kernel k\n.param .u32 n\nLDP R0, [m]\n", "k.wsa:3:10: error: unknown param 'm'"},
    {".kernel k\nMOV R0, 4294967296\n", "k.wsa:2:9: error: immediate 4294967296 does not fit in 32 bits"},
    {".kernel k\nHADD2 R0, R1, 1.5\n", "k.wsa:2:15: error: expected an integer, found '1.5'"},
    {".kernel k\nHADD2.F32 R0, R1, R2\n",
     "k.wsa:2:6: error: unexpected modifier '.F32' on HADD2 (allowed: .F16_V2 .BF16_V2 .F16 .BF16)"},
    {".kernel k\nHSETP2.LT P0, R1, R2\n", "k.wsa:2:15: error: expected a predicate P0..P6 or PT, found 'R1'"},
    {".kernel k\nMOV R0, -2147483649\n", "k.wsa:2:9: error: immediate -2147483649 does not fit in 32 bits"},
    {".kernel k\nMOV R0, 0xFFFFFFFF+1\n", "k.wsa:2:9: error: immediate 4294967296 does not fit in 32 bits"},
    {".kernel k\nLDG R0, [R2+0x80000000]\n",
     "k.wsa:2:12: error: offset 2147483648 does not fit in 32 bits (signed)"},
    {".kernel k\n.local 6\n", "k.wsa:2:8: error: local memory of 6 bytes is not a multiple of 4"},
    {".kernel k\n.local 524292\n",
     "k.wsa:2:8: error: local memory of 524292 bytes per thread exceeds the limit of 524288 (512 KiB)"},
    {".kernel k\n.local 16\n.local 16\n", "k.wsa:3:1: error: kernel 'k' declares .local twice"},
    {".kernel k\nNOP\n.local 16\n",
     "k.wsa:3:1: error: .local of kernel 'k' must come before its first instruction"},
    {".kernel k\n.local\n", "k.wsa:2:7: error: expected a local memory size in bytes, found end of line"},
    {".kernel k\n.local 16\nLDL R0, [RZ+16]\n",
     "k.wsa:3:10: error: local access of 4 bytes at offset 16 lies outside the kernel's .local 16 bytes"},
    {".kernel k\nLDL R0, [0]\n",
     "k.wsa:2:10: error: local access of 4 bytes at offset 0 lies outside the kernel's .local 0 bytes"},
    {".kernel k\n.local 16\nSTL.128 [-16], R4\n",
     "k.wsa:3:10: error: local access of 16 bytes at offset -16 lies outside the kernel's .local 16 bytes"},
    {".kernel k\n.local 16\nSTL.64 [4], R2\n",
     "k.wsa:3:9: error: local access of 8 bytes at offset 4 is not aligned to its width"},
    {".kernel k\n.shared t 16\n.local 16\nLDL R0, [R1+t]\n",
     "k.wsa:4:13: error: expected an integer, found 't'"},
    {".kernel k\nISETP.LT.LT P0, R1, R2\n", "k.wsa:2:9: error: modifier '.LT' given twice"},
    {".kernel k\nISETP.LT.GE P0, R1, R2\n", "k.wsa:2:9: error: modifier '.GE' conflicts with '.LT'"},
    {".kernel k\nIADD.U32 R0, R1, R2\n",
     "k.wsa:2:5: error: unexpected modifier '.U32' on IADD (allowed: none)"},
    {".kernel k\nLDG.16 R0, [R2]\n",
     "k.wsa:2:4: error: unexpected modifier '.16' on LDG (allowed: .32 .64 .128)"},
    {".kernel k\nSTS.24 [R2], R0\n",
     "k.wsa:2:4: error: unexpected modifier '.24' on STS (allowed: .8 .16 .32 .64 .128)"},
    {".kernel k\n.local 16\nSTL.16 [3], R2\n",
     "k.wsa:3:9: error: local access of 2 bytes at offset 3 is not aligned to its width"},
    {".kernel k\nISETP.U32 P0, R1, R2\n",
     "k.wsa:2:1: error: expected a comparison modifier (.EQ, .NE, ...), found 'ISETP.U32'"},
    {".kernel k\nSHFL R0, R1, 1\n",
     "k.wsa:2:1: error: expected a shuffle mode modifier (.IDX, .UP, .DOWN, .BFLY), found 'SHFL'"},
    {".kernel k\nLDG.64 R3, [R4]\n",
     "k.wsa:2:8: error: register pair must start at an even register, found R3"},
    {".kernel k\nLDS.128 R6, [R0]\n",
     "k.wsa:2:9: error: register quad must start at a multiple of 4, found R6"},
    {".kernel k\nLDG.64 R254, [R2]\n", "k.wsa:2:8: error: register pair R254..R255 runs past R254"},
    {".kernel k\nLDG R0, [RZ]\n",
     "k.wsa:2:10: error: expected a register pair R0, R2, ... holding a 64-bit address, found 'RZ'"},
    {".kernel k\nLDG R0, [R3+4]\n",
     "k.wsa:2:10: error: register pair must start at an even register, found R3"},
    {".kernel k\nNOP \xC3\xA9\n", "k.wsa:2:5: error: unexpected character '\\xC3'"},
    {".kernel k\nMOV R0, $1\n", "k.wsa:2:9: error: unexpected character '$'"},
    {".kernel a\n.kernel b\nNOP\n", "k.wsa:1:9: error: kernel 'a' has no instructions"},
    {".kernel a\n", "k.wsa:1:9: error: kernel 'a' has no instructions"},
    {"", "k.wsa:1:1: error: expected a .kernel directive, found end of file"},
    {"// only a comment\n", "k.wsa:2:1: error: expected a .kernel directive, found end of file"},
    {".kernel k\nEXIT\n.kernel k\nEXIT\n", "k.wsa:3:9: error: kernel 'k' defined twice (first at line 1)"},
    {".kernel k\nabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl: EXIT\n",
     "k.wsa:2:1: error: label name 'abcdefghijklmnopqrstuvwxyzabcdefghijklmn...' is longer "
     "than 63 characters"},
    {".kernel k\n.shared R5 4\n",
     "k.wsa:2:9: error: shared symbol name 'R5' is reserved: it reads as a register"},
    {".kernel k\n.foo\n",
     "k.wsa:2:1: error: expected a directive (.kernel, .param, .shared, .local), found '.foo'"},
    {".kernel k\n.param .u16 n\n",
     "k.wsa:2:8: error: expected a param type (.u32, .s32, .f32, .u64, .ptr), found '.u16'"},
    {".kernel k\n.param .u32\n", "k.wsa:2:12: error: expected a param name, found end of line"},
    {".kernel k\n.shared s 16 3\n",
     "k.wsa:2:14: error: expected a power-of-two alignment of at most 1 GiB, found '3'"},
    {".kernel k\n.shared s -1\n", "k.wsa:2:11: error: expected a size in bytes, found '-'"},
    {".kernel k\n.shared a 1073741824\n.shared b 1\n",
     "k.wsa:3:11: error: shared memory of kernel 'k' would exceed 1 GiB"},
    {".kernel k\nIADD R0, R1, 1.5\n", "k.wsa:2:14: error: expected an integer or shared symbol, found '1.5'"},
    {".kernel k\nFADD R0, R1, 1.5x\n", "k.wsa:2:14: error: expected a float, found '1.5x'"},
    {".kernel k\nFADD R0, R1, 0f3F80\n",
     "k.wsa:2:14: error: expected a float bit pattern 0f followed by 8 hex digits, found '0f3F80'"},
    {".kernel k\nFADD R0, R1, P0\n", "k.wsa:2:14: error: expected a register R0..R254 or RZ, found 'P0'"},
    {".kernel k\nFADD R0, |R1, R2\n", "k.wsa:2:13: error: expected '|' to close |R|, found ','"},
    {".kernel k\nFADD R0, --R1, R2\n", "k.wsa:2:11: error: expected a register or float, found '-'"},
    {".kernel k\nNOT R1, R2, R3\n", "k.wsa:2:11: error: expected end of line after operand 2, found ','"},
    {".kernel k\nIADD R1, R2\n", "k.wsa:2:12: error: expected ',' after operand 2, found end of line"},
    {".kernel k\nEXIT R1\n", "k.wsa:2:6: error: expected end of line after EXIT, found 'R1'"},
    {".kernel k\n@P7 EXIT\n", "k.wsa:2:2: error: expected a predicate P0..P6 or PT, found 'P7'"},
    {".kernel k\n@P0\n", "k.wsa:2:4: error: expected a mnemonic, found end of line"},
    {".kernel k\nISETP.EQ !P0, R1, R2\n", "k.wsa:2:10: error: expected a predicate P0..P6 or PT, found '!'"},
    {".kernel k\nMOV R1, tilee\n", "k.wsa:2:9: error: unknown shared symbol 'tilee'"},
    {".kernel k\nS2R R0, SR_TID.W\n",
     "k.wsa:2:9: error: expected a special register (SR_TID.X, SR_LANEID, ...), found 'SR_TID.W'"},
    {".kernel k\nLDG R0, [R2\n",
     "k.wsa:2:12: error: expected '+', '-' or ']' in the address, found end of line"},
    {".kernel k\nLDS R0, R2\n", "k.wsa:2:9: error: expected '[' to start an address, found 'R2'"},
    {".kernel k\n5 NOP\n", "k.wsa:2:1: error: expected an instruction, label or directive, found '5'"},
    {".kernel k\nNOP NOP\n", "k.wsa:2:5: error: expected end of line after NOP, found 'NOP'"},
    {".kernel k\nBRA 12\n", "k.wsa:2:5: error: expected a label name, found '12'"},
    {".kernel k\nEXIT\n.kernel\n", "k.wsa:3:8: error: expected a kernel name, found end of line"},
    {".kernel k\nNOP ; NOP\n", "k.wsa:2:7: error: expected end of line, found 'NOP'"},
};

Test(asm, malformed_inputs_report_exact_messages) {
  for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
    ws_program *prog = (ws_program *)&prog;
    ws_status st = ws_asm_parse(ctx, bad_cases[i].src, strlen(bad_cases[i].src), "k.wsa", &prog);
    cr_expect_eq(st, WS_ERR_INVALID, "case %zu assembled", i);
    cr_expect_null(prog);
    cr_expect_str_eq(ws_errmsg(ctx), bad_cases[i].msg, "case %zu", i);
  }
}

Test(asm, nul_byte_is_an_unexpected_character) {
  const char src[] = ".kernel k\nNOP\0\n";
  ws_program *prog = NULL;
  cr_assert_eq(ws_asm_parse(ctx, src, sizeof src - 1, "k.wsa", &prog), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx), "k.wsa:2:4: error: unexpected character '\\x00'");
}

/* Builds ".kernel k\n" followed by `count` copies of `line`. */
static char *repeat(const char *head, const char *line, size_t count) {
  size_t hn = strlen(head), ln = strlen(line);
  char *src = malloc(hn + ln * count + 1);
  memcpy(src, head, hn);
  for (size_t i = 0; i < count; i++) memcpy(src + hn + i * ln, line, ln);
  src[hn + ln * count] = '\0';
  return src;
}

Test(asm, instruction_limit) {
  char *src = repeat(".kernel k\n", "NOP\n", 1000001);
  ws_program *prog = NULL;
  cr_assert_eq(ws_asm_parse(ctx, src, strlen(src), "k.wsa", &prog), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx), "k.wsa:1000002:1: error: kernel 'k' has more than 1000000 instructions");
  free(src);
}

Test(asm, param_limit) {
  char *src = malloc(1100 * 24 + 32);
  size_t n = (size_t)sprintf(src, ".kernel k\n");
  for (int i = 0; i < 1025; i++) n += (size_t)sprintf(src + n, ".param .u32 p%d\n", i);
  sprintf(src + n, "EXIT\n");
  ws_program *prog = NULL;
  cr_assert_eq(ws_asm_parse(ctx, src, strlen(src), "k.wsa", &prog), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx), "k.wsa:1026:13: error: params of kernel 'k' take more than 4096 bytes");
  free(src);
}

Test(asm, error_context_may_be_null) {
  ws_program *prog = NULL;
  cr_assert_eq(ws_asm_parse(NULL, "NOP", 3, NULL, &prog), WS_ERR_INVALID);
  cr_assert_null(prog);
  cr_assert_eq(ws_asm_parse(ctx, "NOP", 3, NULL, &prog), WS_ERR_INVALID);
  cr_assert_str_eq(ws_errmsg(ctx),
                   "<input>:1:1: error: expected a directive .kernel before the first instruction, "
                   "found 'NOP'");
}
