/* test_disasm.c - the disassembler: canonical text, and the round trip
 * asm -> disasm -> asm giving an equal program on every sample file, every
 * example kernel, every opcode with every modifier combination, and a sweep
 * of float bit patterns.
 *
 * Design: the all-opcodes program is generated from the opcode table at test
 * time, so a new row in opcodes.def is covered without editing this file. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "isa/asm.h"
#include "isa/modifiers.h"
#include "isa/verify.h"
#include "isatest.h"

static ws_ctx *ctx;

static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }

TestSuite(disasm, .init = setup, .fini = teardown);

static ws_program *assemble(const char *src, const char *name) { return it_assemble(ctx, src, name); }

/* asm -> disasm -> asm: the programs are equal and the second disassembly
 * is byte-identical to the first (the text is a fixed point). */
static void assert_round_trip(const ws_program *prog, const char *what) {
  char *text = ws_disasm_program(prog);
  cr_assert_not_null(text);
  ws_program *again = NULL;
  ws_status st = ws_asm_parse(ctx, text, strlen(text), "disasm.wsa", &again);
  cr_assert_eq(st, WS_OK, "%s: disassembly does not assemble: %s\n%s", what, ws_errmsg(ctx), text);
  cr_assert(ws_program_equal(prog, again), "%s: round trip changed the program\n%s", what, text);
  char *text2 = ws_disasm_program(again);
  cr_assert_str_eq(text2, text, "%s: disassembly is not stable", what);
  free(text);
  free(text2);
  ws_program_destroy(again);
}

/* Round-trips every .wsa file of a directory; returns how many. */
static int round_trip_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int count = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".wsa") != 0) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    ws_program *prog = NULL;
    cr_assert_eq(ws_asm_file(ctx, path, &prog), WS_OK, "%s", ws_errmsg(ctx));
    assert_round_trip(prog, path);
    ws_program_destroy(prog);
    count++;
  }
  closedir(d);
  return count;
}

Test(disasm, sample_files_round_trip) { cr_assert_geq(round_trip_dir(WS_SOURCE_DIR "/tests/isa/data"), 4); }

Test(disasm, example_kernels_round_trip) {
  /* the examples may not exist in every checkout; whatever is there must pass */
  round_trip_dir(WS_SOURCE_DIR "/models/runs/examples");
}

/* ---- canonical text ----------------------------------------------------------------- */

Test(disasm, canonical_instruction_text) {
  static const char *const expected[] = {
      [4] = "LDP.32 R3, [n]",
      [5] = "ISETP.GE.U32 P0, R0, R3",
      [6] = "@P0 EXIT",
      [7] = "LDP.64 R4, [x]",
      [8] = "IMAD.WIDE.U32 R6, R0, 4, R4",
      [9] = "LDG.32 R8, [R6]",
      [10] = "LDP.32 R9, [a]",
      [11] = "FFMA R8, R8, R9, -R8",
      [12] = "STG.32 [R6+0x10], R8",
      [13] = "@!P1 BRA loop",
      [14] = "MOV R10, 0x3FC00000",
      [15] = "MOV R11, 0",
      [16] = "LDS.128 R12, [R11+0x10]",
      [17] = "LDS.32 R16, [RZ+0x4]",
      [18] = "SHFL.BFLY R17, R8, 16",
      [19] = "VOTE.BALLOT R18, !P0",
      [20] = "HMMA.16816.F32 R20, R24, R28, R20",
      [21] = "FADD R32, |R8|, -|R9|",
      [22] = "FMUL R33, R8, -0",
      [23] = "FMUL R34, R8, 0f7F800001",
      [24] = "IADD R35, R35, -1",
      [25] = "MOV R36, -1",
      [26] = "LDG.64 R38, [R6-0x8]",
      [27] = "F2F.F32.F16.H1 R40, R41",
      [28] = "IMUL.HI.U32 R42, R42, R43",
      [29] = "BRA done",
  };
  ws_program *prog = NULL;
  cr_assert_eq(ws_asm_file(ctx, WS_SOURCE_DIR "/tests/isa/data/syntax_tour.wsa", &prog), WS_OK);
  const ws_kernel *k = &prog->kernels[0];
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
    if (!expected[i]) continue;
    char buf[256];
    ws_disasm_insn(k, &k->insns[i], buf, sizeof buf);
    cr_expect_str_eq(buf, expected[i], "insn %zu", i);
  }
  ws_program_destroy(prog);
}

/* The opcodes a PTX front end emits, in the text it will write: each line
 * assembles, passes the verifier, and disassembles to its canonical form
 * (the type modifier spelled out, immediates under 2^16 in magnitude in
 * decimal). */
Test(disasm, front_end_opcodes_canonical_text) {
  static const char *const lines[][2] = {
      {"IMAD.WIDE.U32 R8, R0, 4, RZ"},
      {"IMAD.WIDE R8, R0, R1, RZ", "IMAD.WIDE.S32 R8, R0, R1, RZ"},
      {"BFE R1, R2, 4, 4", "BFE.S32 R1, R2, 4, 4"},
      {"BFE.U32 R1, R2, R3, R4"},
      {"PRMT R1, R2, 0x5410, R3", "PRMT R1, R2, 21520, R3"},
      {"PRMT R1, R2, R4, RZ"},
      {"CLZ R1, R2"},
      {"BREV R1, R2"},
      {"PAND P1, P2, !P3"},
      {"POR PT, !PT, P0"},
      {"PXOR P6, P5, PT"},
      {"MUFU.SIN R1, -R2"},
      {"MUFU.COS R1, |R2|"},
      {"MUFU.TANH R1, 0.5"},
      {"ATOMG.MIN R1, [R2+0x8], R4", "ATOMG.MIN.S32 R1, [R2+0x8], R4"},
      {"ATOMG.MIN.U32 R1, [R2], R4"},
      {"ATOMG.EXCH R1, [R2], R4"},
      {"ATOMG.AND R1, [R2], R4"},
      {"ATOMG.OR R1, [R2], R4"},
      {"ATOMG.XOR R1, [R2], R4"},
      {"ATOMG.INC R1, [R2], R4"},
      {"ATOMG.DEC R1, [R2-0x4], R4"},
      {"ATOMS.MIN.U32 R1, [R3+0x4], R4"},
      {"ATOMS.EXCH R1, [RZ+0x10], R4"},
      {"ATOMS.AND R1, [R3], R4"},
      {"ATOMS.OR R1, [R3], R4"},
      {"ATOMS.XOR R1, [R3], R4"},
      {"ATOMS.INC R1, [R3], R4"},
      {"ATOMS.DEC R1, [R3], R4"},
      {"HADD2 R1, R2, -|R3|", "HADD2.F16_V2 R1, R2, -|R3|"},
      {"HADD2.F16 R1, -R2, R3"},
      {"HMUL2.BF16_V2 R1, R2, 0x3C003C00"},
      {"HMUL2.BF16 R1, R2, 1", "HMUL2.BF16 R1, R2, 0x00000001"},
      {"HFMA2 R1, R2, R3, R4", "HFMA2.F16_V2 R1, R2, R3, R4"},
      {"HMNMX2.BF16 R1, R2, R3, !PT"},
      {"HSETP2.LT P0, P1, R2, R3", "HSETP2.LT.F16_V2 P0, P1, R2, R3"},
      {"HSETP2.BF16.NAN P2, PT, R2, |R3|", "HSETP2.NAN.BF16 P2, PT, R2, |R3|"},
  };
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
    char src[256], buf[256];
    const char *in = lines[i][0], *want = lines[i][1] ? lines[i][1] : in;
    snprintf(src, sizeof src, ".kernel k\n%s\n", in);
    ws_program *prog = assemble(src, "line.wsa");
    const ws_kernel *k = &prog->kernels[0];
    cr_expect_eq(ws_verify_kernel(ctx, k), WS_OK, "%s: %s", in, ws_errmsg(ctx));
    ws_disasm_insn(k, &k->insns[0], buf, sizeof buf);
    cr_expect_str_eq(buf, want);
    assert_round_trip(prog, in);
    ws_program_destroy(prog);
  }
  /* the RZ addend is a register operand naming RZ, not a pair starting at R255+1 */
  ws_program *prog = assemble(".kernel k\nIMAD.WIDE.U32 R8, R0, 4, RZ\n", "rz.wsa");
  const ws_insn *in = &prog->kernels[0].insns[0];
  cr_expect_eq(in->opnd[3].kind, WS_OPND_REG);
  cr_expect_eq(in->opnd[3].reg, WS_REG_RZ);
  cr_expect_eq(prog->kernels[0].regs_per_thread, 10u);
  ws_program_destroy(prog);
}

Test(disasm, program_text) {
  ws_program *prog = assemble(".kernel k\n.param .u32 n\n.param .ptr p\n.shared s 64 16\n"
                              "top: @P0 BRA end\n  MOV R0, 100000\n  FADD R1, R1, 0.1\n"
                              "  LDP.32 R2, [p+4]\n  BRA top\nend:\n",
                              "k.wsa");
  char *text = ws_disasm_program(prog);
  cr_assert_str_eq(text, ".kernel k\n"
                         ".param .u32 n\n"
                         ".param .ptr p\n"
                         ".shared s 64 16\n"
                         "top:\n"
                         "@P0 BRA end\n"
                         "    MOV R0, 0x186A0\n"
                         "    FADD R1, R1, 0.100000001\n"
                         "    LDP.32 R2, [p+4]\n"
                         "    BRA top\n"
                         "end:\n");
  free(text);
  ws_program_destroy(prog);
}

Test(disasm, float_immediates) {
  static const struct {
    const char *in, *out;
  } cases[] = {
      {"1.5", "1.5"},
      {"-0.0", "-0"},
      {"inf", "inf"},
      {"-inf", "-inf"},
      {"nan", "0f7FC00000"},
      {"0fFFC00001", "0fFFC00001"},
      {"1e-45", "1.40129846e-45"},
      {"16777216", "16777216"},
      {"3e38", "3.00000001e+38"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char src[96], buf[96], want[96];
    snprintf(src, sizeof src, ".kernel k\nFMUL R0, R1, %s\n", cases[i].in);
    ws_program *prog = assemble(src, "k.wsa");
    ws_disasm_insn(&prog->kernels[0], &prog->kernels[0].insns[0], buf, sizeof buf);
    snprintf(want, sizeof want, "FMUL R0, R1, %s", cases[i].out);
    cr_expect_str_eq(buf, want);
    ws_program_destroy(prog);
  }
}

Test(disasm, insn_output_is_bounded) {
  ws_program *prog = assemble(".kernel k\nHMMA.16816.F32 R20, R24, R28, R20\n", "k.wsa");
  char buf[8];
  memset(buf, 'x', sizeof buf);
  ws_disasm_insn(&prog->kernels[0], &prog->kernels[0].insns[0], buf, 6);
  cr_assert_str_eq(buf, "HMMA.");
  cr_assert_eq(buf[6], 'x');
  ws_program_destroy(prog);
}

/* ---- a kernel built in code: no label table ---------------------------------------- */

Test(disasm, unlabelled_branch_targets_get_synthetic_labels) {
  ws_insn insns[3];
  memset(insns, 0, sizeof insns);
  insns[0].op = WS_OP_BRA;
  insns[0].guard = 0;
  insns[0].opnd[0].kind = WS_OPND_LABEL;
  insns[0].opnd[0].imm = 2;
  insns[1].op = WS_OP_NOP;
  insns[1].guard = WS_PRED_PT;
  insns[2].op = WS_OP_EXIT;
  insns[2].guard = WS_PRED_PT;
  ws_kernel k;
  memset(&k, 0, sizeof k);
  strcpy(k.name, "built");
  k.insns = insns;
  k.ninsns = 3;
  ws_program prog = {&k, 1};
  char *text = ws_disasm_program(&prog);
  cr_assert_str_eq(text, ".kernel built\n@P0 BRA pc2\n    NOP\npc2:\n    EXIT\n");
  ws_program *again = assemble(text, "built.wsa");
  cr_assert_eq(again->kernels[0].insns[0].opnd[0].imm, 2);
  cr_assert_eq(again->kernels[0].insns[0].rpc, 2);
  free(text);
  ws_program_destroy(again);
}

/* ---- every opcode, every modifier combination --------------------------------------- */

/* Operand text for signature item `sig`; `variant` alternates between the
 * register and the immediate/modifier forms. */
static const char *operand_text(ws_opnd_sig sig, unsigned variant) {
  switch (sig.kind) {
  case 'd': return variant ? "RZ" : "R4";
  case 'r': return variant ? "R8" : "RZ";
  case 'i': return variant ? "-7" : "R12";
  case 'f': return variant ? "-2.5e-3" : "-|R13|";
  case 'q': return variant ? "!P2" : "PT";
  case 'p': return variant ? "P1" : "PT";
  case 's': return variant ? "SR_LANEID" : "SR_NCTAID.Z";
  case 'g': return variant ? "[R16-0x20]" : "[R16]";
  case 'm': return variant ? "[R20+tile+4]" : "[RZ+0x40]";
  case 'o': return variant ? "[R21-0x8]" : "[RZ+0x40]";
  case 'a': return variant ? "[p+4]" : "[n]";
  case 'l': return variant ? "top" : "end";
  default: return variant ? "2" : "0x12345"; /* 'n' */
  }
}

static void emit_insn(ws_text *t, unsigned op, const unsigned *choice, unsigned variant) {
  const ws_opinfo *info = ws_isa_opinfo((ws_op)op);
  ws_text_printf(t, "%s%s", variant ? "@!P3 " : "", info->mnemonic);
  for (unsigned gi = 0; gi < WS_MODGROUP_COUNT; gi++) {
    const ws_modgroup *g = ws_modifiers_group(gi);
    if (info->mods & g->bit) ws_text_printf(t, ".%s", g->names[choice[gi]]);
  }
  unsigned n = ws_isa_nopnds((ws_op)op);
  for (unsigned i = 0; i < n; i++)
    ws_text_printf(t, "%s%s", i ? ", " : " ", operand_text(ws_isa_sig((ws_op)op, i), variant));
  ws_text_puts(t, "\n");
}

/* Advances the odometer of modifier choices; false after the last one. */
static bool next_choice(uint32_t mods, unsigned *choice) {
  for (unsigned gi = 0; gi < WS_MODGROUP_COUNT; gi++) {
    const ws_modgroup *g = ws_modifiers_group(gi);
    if (!(mods & g->bit)) continue;
    if (++choice[gi] < g->count) return true;
    choice[gi] = 0;
  }
  return false;
}

Test(disasm, every_opcode_and_modifier_combination) {
  ws_text t;
  ws_text_init(&t);
  ws_text_puts(&t, ".kernel all\n.param .u32 n\n.param .ptr p\n.shared tile 128 16\n.local 96\ntop:\n");
  unsigned count = 0;
  for (unsigned op = 0; op < WS_OP_COUNT; op++) {
    unsigned choice[WS_MODGROUP_COUNT] = {0};
    do {
      for (unsigned variant = 0; variant < 2; variant++, count++) emit_insn(&t, op, choice, variant);
    } while (next_choice(ws_isa_opinfo((ws_op)op)->mods, choice));
  }
  ws_text_puts(&t, "end:\n");
  char *src = ws_text_take(&t);
  ws_program *prog = assemble(src, "all.wsa");
  cr_assert_eq(prog->kernels[0].ninsns, count);
  /* at least: 14 FSETP comparisons, 6 x 2 ISETP forms, 3 widths of 9 memory ops */
  cr_assert_geq(count, 2 * (WS_OP_COUNT + 13 + 11 + 9 * 2));
  assert_round_trip(prog, "all opcodes");
  free(src);
  ws_program_destroy(prog);
}

/* ---- floats: a sweep of bit patterns over every exponent ----------------------------- */

Test(disasm, float_bit_patterns_round_trip) {
  ws_text t;
  ws_text_init(&t);
  ws_text_puts(&t, ".kernel floats\n");
  uint32_t n = 0;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += 65521, n++)
    ws_text_printf(&t, "FADD R0, R0, 0f%08X\n", (unsigned)bits);
  const uint32_t edges[] = {0x00000001u, 0x007FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0x80000000u, 0x80000001u,
                            0xFF7FFFFFu, 0x7F800000u, 0xFF800000u, 0x7FFFFFFFu, 0x3EAAAAABu};
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++, n++)
    ws_text_printf(&t, "FADD R0, R0, 0f%08X\n", edges[i]);
  char *src = ws_text_take(&t);
  ws_program *prog = assemble(src, "floats.wsa");
  cr_assert_eq(prog->kernels[0].ninsns, n);
  assert_round_trip(prog, "float sweep");
  free(src);
  ws_program_destroy(prog);
}

Test(disasm, null_program_is_empty_text) {
  char *text = ws_disasm_program(NULL);
  cr_assert_str_eq(text, "");
  free(text);
}

/* ---- local memory ------------------------------------------------------------------- */

Test(disasm, local_directive_and_addresses_round_trip) {
  ws_program *prog = assemble(".kernel spill\n.param .ptr out\n.local 48\n"
                              "STL.128 [RZ+32], R4\nLDL.64 R2, [R1-8]\nLDL R0, [0]\nEXIT\n",
                              "spill.wsa");
  cr_assert_eq(prog->kernels[0].local_bytes, 48);
  char *text = ws_disasm_program(prog);
  cr_expect_str_eq(text,
                   ".kernel spill\n.param .ptr out\n.local 48\n"
                   "    STL.128 [RZ+0x20], R4\n    LDL.64 R2, [R1-0x8]\n    LDL.32 R0, [RZ]\n    EXIT\n");
  free(text);
  assert_round_trip(prog, "local");
  ws_program_destroy(prog);
}

Test(disasm, a_kernel_without_local_memory_prints_no_directive) {
  ws_program *prog = assemble(".kernel k\nEXIT\n", "k.wsa");
  cr_assert_eq(prog->kernels[0].local_bytes, 0);
  char *text = ws_disasm_program(prog);
  cr_expect_str_eq(text, ".kernel k\n    EXIT\n");
  free(text);
  ws_program_destroy(prog);
}
