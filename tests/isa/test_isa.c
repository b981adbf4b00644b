/* test_isa.c - the opcode table's queries (isa/isa.c): mnemonic, unit and
 * modifier groups of a few rows, operand counts and parsed signature items,
 * register counts from the signature or the width modifier, the name tables,
 * and what each query answers outside its enum. Expected values are read off
 * the rows of isa/opcodes.def quoted beside each check. */
#include <criterion/criterion.h>
#include <string.h>

#include "isa/isa.h"

Test(isa, opinfo_of_a_few_rows) {
  /* WS_OP(IADD, "IADD", INT, "d,r,i", 0, ...) */
  const ws_opinfo *i = ws_isa_opinfo(WS_OP_IADD);
  cr_assert_not_null(i);
  cr_expect_str_eq(i->mnemonic, "IADD");
  cr_expect_eq(i->unit, WS_UNIT_INT);
  cr_expect_str_eq(i->signature, "d,r,i");
  cr_expect_eq(i->mods, 0u);
  /* WS_OP(FSETP, "FSETP", FP32, "p,f,f", WS_MOD_FCMP, ...) */
  i = ws_isa_opinfo(WS_OP_FSETP);
  cr_expect_str_eq(i->mnemonic, "FSETP");
  cr_expect_eq(i->unit, WS_UNIT_FP32);
  cr_expect_eq(i->mods, (uint32_t)WS_MOD_FCMP);
  /* WS_OP(HMMA, "HMMA.16816.F32", TENSOR, "d4,r4,r2,r4", 0, ...) */
  i = ws_isa_opinfo(WS_OP_HMMA);
  cr_expect_str_eq(i->mnemonic, "HMMA.16816.F32");
  cr_expect_eq(i->unit, WS_UNIT_TENSOR);
  /* WS_OP(LDG, "LDG", LSU, "dW,g", WS_MOD_WIDTH, ...); MUFU.EX2 on the SFU */
  cr_expect_eq(ws_isa_opinfo(WS_OP_LDG)->unit, WS_UNIT_LSU);
  cr_expect_eq(ws_isa_opinfo(WS_OP_LDG)->mods, (uint32_t)WS_MOD_WIDTH);
  cr_expect_str_eq(ws_isa_opinfo(WS_OP_EX2)->mnemonic, "MUFU.EX2");
  cr_expect_eq(ws_isa_opinfo(WS_OP_EX2)->unit, WS_UNIT_SFU);
  cr_expect_eq(ws_isa_opinfo(WS_OP_SHFL)->unit, WS_UNIT_SHFL);
  cr_expect_eq(ws_isa_opinfo(WS_OP_BRA)->unit, WS_UNIT_CTRL);
  cr_expect_str_eq(ws_isa_opinfo(WS_OP_BAR)->mnemonic, "BAR.SYNC");
}

Test(isa, unknown_opcode) {
  cr_expect_null(ws_isa_opinfo(WS_OP_COUNT));
  cr_expect_null(ws_isa_opinfo((ws_op)-1));
  cr_expect_eq(ws_isa_nopnds(WS_OP_COUNT), 0u);
  ws_opnd_sig s = ws_isa_sig(WS_OP_COUNT, 0);
  cr_expect_eq(s.kind, 0);
  cr_expect_eq(s.nregs, 0);
}

/* Operand count = commas + 1, or 0 for an empty signature. */
Test(isa, operand_counts) {
  cr_expect_eq(ws_isa_nopnds(WS_OP_IADD), 3u); /* "d,r,i" */
  cr_expect_eq(ws_isa_nopnds(WS_OP_FFMA), 4u); /* "d,f,f,f" */
  cr_expect_eq(ws_isa_nopnds(WS_OP_MOV), 2u);  /* "d,i" */
  cr_expect_eq(ws_isa_nopnds(WS_OP_BRA), 1u);  /* "l" */
  cr_expect_eq(ws_isa_nopnds(WS_OP_EXIT), 0u); /* "" */
  cr_expect_eq(ws_isa_nopnds(WS_OP_LDGDEPBAR), 0u);
  cr_expect_eq(ws_isa_nopnds(WS_OP_HMMA), 4u); /* "d4,r4,r2,r4" */
}

static void expect_sig(ws_op op, unsigned idx, char kind, unsigned nregs) {
  ws_opnd_sig s = ws_isa_sig(op, idx);
  cr_expect_eq(s.kind, kind, "%s operand %u: kind '%c', want '%c'", ws_isa_opinfo(op)->mnemonic, idx,
               s.kind ? s.kind : '0', kind ? kind : '0');
  cr_expect_eq(s.nregs, nregs, "%s operand %u: %u registers, want %u", ws_isa_opinfo(op)->mnemonic, idx,
               s.nregs, nregs);
}

Test(isa, signature_items) {
  expect_sig(WS_OP_IADD, 0, 'd', 1);
  expect_sig(WS_OP_IADD, 1, 'r', 1);
  expect_sig(WS_OP_IADD, 2, 'i', 1);
  expect_sig(WS_OP_IADD, 3, 0, 0); /* past the last item */
  /* "d2,r,i,r2" */
  expect_sig(WS_OP_IMADWIDE, 0, 'd', 2);
  expect_sig(WS_OP_IMADWIDE, 1, 'r', 1);
  expect_sig(WS_OP_IMADWIDE, 3, 'r', 2);
  /* "d4,r4,r2,r4" */
  expect_sig(WS_OP_HMMA, 0, 'd', 4);
  expect_sig(WS_OP_HMMA, 2, 'r', 2);
  /* "dW,g": W = by width modifier, stored as 0 */
  expect_sig(WS_OP_LDG, 0, 'd', 0);
  expect_sig(WS_OP_LDG, 1, 'g', 1);
  /* "p,q", "d,s", "n", "l", "dW,a" */
  expect_sig(WS_OP_VOTEALL, 0, 'p', 1);
  expect_sig(WS_OP_VOTEALL, 1, 'q', 1);
  expect_sig(WS_OP_S2R, 1, 's', 1);
  expect_sig(WS_OP_DEPBAR, 0, 'n', 1);
  expect_sig(WS_OP_BRA, 0, 'l', 1);
  expect_sig(WS_OP_LDP, 1, 'a', 1);
  expect_sig(WS_OP_EXIT, 0, 0, 0);
}

/* Register operands: a count in the signature wins; 'W' follows the insn's
 * width (4, 8, 16 bytes -> 1, 2, 4 registers), and no width counts as 1. */
Test(isa, operand_register_counts) {
  ws_insn in = {.op = WS_OP_LDG, .width_bytes = 16};
  cr_expect_eq(ws_isa_opnd_nregs(&in, 0), 4u);
  in.width_bytes = 8;
  cr_expect_eq(ws_isa_opnd_nregs(&in, 0), 2u);
  in.width_bytes = 4;
  cr_expect_eq(ws_isa_opnd_nregs(&in, 0), 1u);
  in.width_bytes = 0;
  cr_expect_eq(ws_isa_opnd_nregs(&in, 0), 1u);
  ws_insn st = {.op = WS_OP_STG, .width_bytes = 8}; /* "g,rW": the data is operand 1 */
  cr_expect_eq(ws_isa_opnd_nregs(&st, 1), 2u);
  ws_insn mma = {.op = WS_OP_HMMA, .width_bytes = 16}; /* fixed counts ignore the width */
  cr_expect_eq(ws_isa_opnd_nregs(&mma, 0), 4u);
  cr_expect_eq(ws_isa_opnd_nregs(&mma, 2), 2u);
  ws_insn wide = {.op = WS_OP_IMADWIDE};
  cr_expect_eq(ws_isa_opnd_nregs(&wide, 0), 2u);
  cr_expect_eq(ws_isa_opnd_nregs(&wide, 1), 1u);
}

Test(isa, names) {
  cr_expect_str_eq(ws_isa_unit_name(WS_UNIT_INT), "INT");
  cr_expect_str_eq(ws_isa_unit_name(WS_UNIT_TENSOR), "TENSOR");
  cr_expect_str_eq(ws_isa_unit_name(WS_UNIT_CTRL), "CTRL");
  cr_expect_str_eq(ws_isa_unit_name(WS_UNIT_COUNT), "?");
  cr_expect_null(ws_isa_cmp_name(WS_CMP_NONE));
  cr_expect_str_eq(ws_isa_cmp_name(WS_CMP_EQ), "EQ");
  cr_expect_str_eq(ws_isa_cmp_name(WS_CMP_GEU), "GEU");
  cr_expect_str_eq(ws_isa_cmp_name(WS_CMP_NAN), "NAN");
  cr_expect_null(ws_isa_cmp_name(WS_CMP_COUNT));
  cr_expect_str_eq(ws_isa_dtype_name(WS_DT_S32), "S32");
  cr_expect_str_eq(ws_isa_dtype_name(WS_DT_F32), "F32");
  cr_expect_str_eq(ws_isa_dtype_name(WS_DT_COUNT), "?");
  cr_expect_str_eq(ws_isa_shfl_name(WS_SHFL_IDX), "IDX");
  cr_expect_str_eq(ws_isa_shfl_name(WS_SHFL_BFLY), "BFLY");
  cr_expect_str_eq(ws_isa_shfl_name(WS_SHFL_COUNT), "?");
  cr_expect_str_eq(ws_isa_sreg_name(WS_SR_TID_X), "SR_TID.X");
  cr_expect_str_eq(ws_isa_sreg_name(WS_SR_CTAID_Y), "SR_CTAID.Y");
  cr_expect_str_eq(ws_isa_sreg_name(WS_SR_NCTAID_Z), "SR_NCTAID.Z");
  cr_expect_str_eq(ws_isa_sreg_name(WS_SR_LANEID), "SR_LANEID");
  cr_expect_str_eq(ws_isa_sreg_name(WS_SR_CLOCK), "SR_CLOCK");
  cr_expect_str_eq(ws_isa_sreg_name(WS_SR_COUNT), "?");
}

/* The atomics are the ATOMG.* and ATOMS.* rows, and only those; their
 * address (operand 1) says the space. */
Test(isa, atomics_are_the_atom_rows) {
  unsigned global = 0, shared = 0;
  for (unsigned op = 0; op < WS_OP_COUNT; op++) {
    const char *mn = ws_isa_opinfo((ws_op)op)->mnemonic;
    bool named = strncmp(mn, "ATOMG.", 6) == 0 || strncmp(mn, "ATOMS.", 6) == 0;
    cr_expect_eq(ws_isa_is_atomic((ws_op)op), named, "%s", mn);
    if (!named) continue;
    char space = ws_isa_sig((ws_op)op, 1).kind;
    cr_expect_eq(space, mn[4] == 'G' ? 'g' : 'm', "%s", mn);
    global += space == 'g';
    shared += space == 'm';
  }
  cr_expect_eq(global, 10u); /* ADD MAX CAS MIN EXCH AND OR XOR INC DEC */
  cr_expect_eq(shared, 10u);
  cr_expect(ws_isa_is_atomic(WS_OP_ATOMSDEC));
  cr_expect_not(ws_isa_is_atomic(WS_OP_LDG));
  cr_expect_not(ws_isa_is_atomic(WS_OP_COUNT));
  /* the rows the PTX front end relies on */
  cr_expect_str_eq(ws_isa_opinfo(WS_OP_BFE)->signature, "d,r,i,i");
  cr_expect_eq(ws_isa_opinfo(WS_OP_BFE)->mods, (uint32_t)WS_MOD_ITYPE);
  cr_expect_str_eq(ws_isa_opinfo(WS_OP_PRMT)->signature, "d,r,i,r");
  cr_expect_str_eq(ws_isa_opinfo(WS_OP_PAND)->signature, "p,q,q");
  cr_expect_eq(ws_isa_opinfo(WS_OP_PXOR)->unit, WS_UNIT_INT);
  cr_expect_eq(ws_isa_opinfo(WS_OP_TANH)->unit, WS_UNIT_SFU);
  cr_expect_str_eq(ws_isa_opinfo(WS_OP_SIN)->mnemonic, "MUFU.SIN");
  cr_expect_eq(ws_isa_opinfo(WS_OP_ATOMGMIN)->mods, (uint32_t)WS_MOD_ITYPE);
  cr_expect_eq(ws_isa_opinfo(WS_OP_ATOMSINC)->unit, WS_UNIT_LSU);
}

/* Every row has a mnemonic, a unit inside the enum and a parsable signature
 * whose items are kind letters of "dprifhqsgmalno". */
Test(isa, every_row_is_well_formed) {
  for (unsigned op = 0; op < WS_OP_COUNT; op++) {
    const ws_opinfo *i = ws_isa_opinfo((ws_op)op);
    cr_assert_not_null(i);
    cr_expect(i->mnemonic && i->mnemonic[0], "op %u has no mnemonic", op);
    cr_expect_lt((unsigned)i->unit, (unsigned)WS_UNIT_COUNT, "%s", i->mnemonic);
    cr_expect_leq(ws_isa_nopnds((ws_op)op), (unsigned)WS_MAX_OPERANDS, "%s", i->mnemonic);
    for (unsigned k = 0; k < ws_isa_nopnds((ws_op)op); k++) {
      ws_opnd_sig s = ws_isa_sig((ws_op)op, k);
      cr_expect(s.kind && strchr("dprifhqsgmalno", s.kind), "%s operand %u", i->mnemonic, k);
    }
  }
}
