/* test_verify.c - the structural checks for programs that did not come from
 * the assembler (isa/verify.c). One assembled kernel that uses every operand
 * kind passes; then each check is broken on a fresh copy, one field at a
 * time, and must be refused with WS_ERR_INVALID and its exact message. The
 * expected pcs and operand numbers are read off the source below (pc 0 is
 * S2R, operands count from 1), and the layouts off the assembler's rules:
 * params n@0 (4 bytes) and out@8 (8 bytes, aligned) give 16 bytes; shared
 * tile@0 (64) and flag@64 (4), both 4-aligned, give 68 bytes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "isa/verify.h"
#include "isatest.h"

static const char good_src[] = ".kernel good\n"
                               ".param .u32 n\n"
                               ".param .ptr out\n"
                               ".shared tile 64\n"
                               ".shared flag 4\n"
                               "top:\n"
                               "S2R R0, SR_TID.X\n"        /* pc 0: d,s */
                               "LDP R1, [n]\n"             /* pc 1: dW,a */
                               "LDP.64 R2, [out]\n"        /* pc 2 */
                               "ISETP.GE P0, R0, R1\n"     /* pc 3: p,r,i */
                               "@P0 BRA done\n"            /* pc 4: l */
                               "FFMA R4, -R5, |R6|, 1.5\n" /* pc 5: d,f,f,f */
                               "LDS R7, [R8+4]\n"          /* pc 6: dW,m */
                               "SHFL.BFLY R9, R7, 1\n"     /* pc 7: d,r,i */
                               "STG [R2+8], R7\n"          /* pc 8: g,rW */
                               "VOTE.ALL P1, !P0\n"        /* pc 9: p,q */
                               "DEPBAR 1\n"                /* pc 10: n */
                               "done:\n"
                               "EXIT\n"; /* pc 11 */

static ws_ctx *ctx;

static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }
TestSuite(verify, .init = setup, .fini = teardown);

static ws_program *good(void) { return it_assemble(ctx, good_src, "good.wsa"); }

Test(verify, an_assembled_kernel_passes) {
  ws_program *p = good();
  const ws_kernel *k = &p->kernels[0];
  /* the layouts the header comment works out */
  cr_assert_eq(k->ninsns, 12);
  cr_assert_eq(k->param_size_bytes, 16);
  cr_assert_eq(k->shared_size_bytes, 68);
  cr_assert_eq(k->nlabels, 2);
  cr_expect_eq(ws_verify_kernel(ctx, k), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(ws_verify_program(ctx, p), WS_OK, "%s", ws_errmsg(ctx));
  ws_program_destroy(p);
}

typedef void (*mutation)(ws_kernel *k);

static void expect_refused(mutation m, const char *want, const char *what) {
  ws_program *p = good();
  m(&p->kernels[0]);
  ws_ctx_clear(ctx);
  cr_expect_eq(ws_verify_program(ctx, p), WS_ERR_INVALID, "%s was accepted", what);
  cr_expect_str_eq(ws_errmsg(ctx), want, "%s", what);
  ws_program_destroy(p);
}

static void expect_accepted(mutation m, const char *what) {
  ws_program *p = good();
  m(&p->kernels[0]);
  cr_expect_eq(ws_verify_program(ctx, p), WS_OK, "%s: %s", what, ws_errmsg(ctx));
  ws_program_destroy(p);
}

#define NAME(k, s) snprintf((k)->name, sizeof(k)->name, "%s", s)

/* ---- kernel names and sizes ---- */
static void m_name_reg(ws_kernel *k) { NAME(k, "R5"); }
static void m_name_pred(ws_kernel *k) { NAME(k, "P3"); }
static void m_name_rz(ws_kernel *k) { NAME(k, "RZ"); }
static void m_name_pt(ws_kernel *k) { NAME(k, "PT"); }
static void m_name_empty(ws_kernel *k) { NAME(k, ""); }
static void m_name_digit(ws_kernel *k) { NAME(k, "9lives"); }
static void m_name_dot(ws_kernel *k) { NAME(k, "a.b"); }
static void m_name_unterminated(ws_kernel *k) { memset(k->name, 'a', sizeof k->name); }
static void m_name_r(ws_kernel *k) { NAME(k, "R"); }
static void m_name_r5x(ws_kernel *k) { NAME(k, "R5x"); }
static void m_name_underscore(ws_kernel *k) { NAME(k, "_P7"); }
static void m_no_insns(ws_kernel *k) { k->ninsns = 0; }
static void m_too_many(ws_kernel *k) { k->ninsns = WS_VERIFY_MAX_INSNS + 1; }

Test(verify, kernel_names_and_sizes) {
  static const struct {
    mutation m;
    const char *what;
  } bad[] = {{m_name_reg, "R5"},     {m_name_pred, "P3"},
             {m_name_rz, "RZ"},      {m_name_pt, "PT"},
             {m_name_empty, "\"\""}, {m_name_digit, "9lives"},
             {m_name_dot, "a.b"},    {m_name_unterminated, "64 letters, no NUL"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    expect_refused(bad[i].m, "invalid kernel name", bad[i].what);
  /* register-like only when a single R/P is followed by digits alone */
  expect_accepted(m_name_r, "R");
  expect_accepted(m_name_r5x, "R5x");
  expect_accepted(m_name_underscore, "_P7");
  expect_refused(m_no_insns, "kernel 'good' has no instructions", "no instructions");
  expect_refused(m_too_many, "kernel 'good' has 1000001 instructions, more than 1000000",
                 "too many instructions");
}

/* ---- params ---- */
static void m_ptype(ws_kernel *k) { k->params[1].type = WS_PT_COUNT; }
static void m_poffset(ws_kernel *k) { k->params[1].offset_bytes = 4; } /* a ptr is 8-aligned */
static void m_psize(ws_kernel *k) { k->params[0].size_bytes = 8; }     /* a u32 is 4 bytes */
static void m_pdup(ws_kernel *k) { NAME(&k->params[1], "n"); }
static void m_pname(ws_kernel *k) { NAME(&k->params[0], "P1"); }
static void m_ptotal(ws_kernel *k) { k->param_size_bytes = 12; }

Test(verify, params) {
  expect_refused(m_ptype, "kernel 'good': param 2 is invalid", "unknown type");
  expect_refused(m_poffset, "kernel 'good': param 2 is invalid", "misaligned offset");
  expect_refused(m_psize, "kernel 'good': param 1 is invalid", "size not the type's");
  expect_refused(m_pdup, "kernel 'good': param 2 is invalid", "duplicate name");
  expect_refused(m_pname, "kernel 'good': param 1 is invalid", "register-like name");
  expect_refused(m_ptotal, "kernel 'good': param size 12 does not match its params", "total");
}

/* ---- shared arrays ---- */
static void m_salign3(ws_kernel *k) { k->shared[0].align_bytes = 3; }
static void m_salign0(ws_kernel *k) { k->shared[0].align_bytes = 0; }
static void m_soffset(ws_kernel *k) { k->shared[1].offset_bytes = 60; } /* overlaps tile */
static void m_sdup(ws_kernel *k) { NAME(&k->shared[1], "tile"); }
static void m_stotal(ws_kernel *k) { k->shared_size_bytes = 72; }

Test(verify, shared_arrays) {
  expect_refused(m_salign3, "kernel 'good': shared symbol 1 is invalid", "alignment 3");
  expect_refused(m_salign0, "kernel 'good': shared symbol 1 is invalid", "alignment 0");
  expect_refused(m_soffset, "kernel 'good': shared symbol 2 is invalid", "overlap");
  expect_refused(m_sdup, "kernel 'good': shared symbol 2 is invalid", "duplicate name");
  expect_refused(m_stotal, "kernel 'good': shared size 72 does not match its arrays", "total");
}

/* ---- labels and branch targets ---- */
static void m_lpast(ws_kernel *k) { k->labels[0].pc = 13; }
static void m_lunsorted(ws_kernel *k) { k->labels[0].pc = 11, k->labels[1].pc = 0; }
static void m_ldup(ws_kernel *k) { NAME(&k->labels[1], "top"); }
static void m_lname(ws_kernel *k) { NAME(&k->labels[1], "PT"); }
static void m_unnamed_target(ws_kernel *k) { k->insns[4].opnd[0].imm = 5; }
static void m_label_at_end(ws_kernel *k) { k->labels[1].pc = 12, k->insns[4].opnd[0].imm = 12; }

Test(verify, labels_and_targets) {
  expect_refused(m_lpast, "kernel 'good': label 1 is invalid", "label past the end");
  expect_refused(m_lunsorted, "kernel 'good': label 2 is invalid", "labels out of pc order");
  expect_refused(m_ldup, "kernel 'good': label 2 is invalid", "duplicate label");
  expect_refused(m_lname, "kernel 'good': label 2 is invalid", "register-like label");
  expect_refused(m_unnamed_target, "kernel 'good' pc 4: branch target 5 has no label", "unnamed target");
  expect_accepted(m_label_at_end, "a label just past the last instruction");
}

/* ---- opcodes, guards, modifiers ---- */
static void m_op(ws_kernel *k) { k->insns[0].op = WS_OP_COUNT; }
static void m_guard(ws_kernel *k) { k->insns[0].guard = WS_PRED_PT + 1; }
static void m_guard_neg(ws_kernel *k) { k->insns[4].guard_neg = 2; }
static void m_cmp_unwanted(ws_kernel *k) { k->insns[0].cmp = WS_CMP_EQ; }
static void m_cmp_float_only(ws_kernel *k) { k->insns[3].cmp = WS_CMP_NAN; }
static void m_cmp_missing(ws_kernel *k) { k->insns[3].cmp = WS_CMP_NONE; }
static void m_dtype(ws_kernel *k) { k->insns[3].dtype = WS_DT_F32; }
static void m_width_odd(ws_kernel *k) { k->insns[1].width_bytes = 12; }
static void m_width_missing(ws_kernel *k) { k->insns[1].width_bytes = 0; }
static void m_width_unwanted(ws_kernel *k) { k->insns[5].width_bytes = 4; }
static void m_width_byte_load(ws_kernel *k) { k->insns[6].width_bytes = 1; }
static void m_width_three(ws_kernel *k) { k->insns[8].width_bytes = 3; }
static void m_width_byte_store(ws_kernel *k) { k->insns[8].width_bytes = 1; }
static void m_width_half_store(ws_kernel *k) { k->insns[8].width_bytes = 2; }
static void m_hsel(ws_kernel *k) { k->insns[5].hsel = 1; }
static void m_shfl(ws_kernel *k) { k->insns[7].cmp = WS_SHFL_COUNT; }

Test(verify, opcodes_guards_and_modifiers) {
  char want[128];
  snprintf(want, sizeof want, "kernel 'good' pc 0: invalid opcode %u", (unsigned)WS_OP_COUNT);
  expect_refused(m_op, want, "opcode past the table");
  expect_refused(m_guard, "kernel 'good' pc 0: invalid guard or modifiers for S2R", "guard P8");
  expect_refused(m_guard_neg, "kernel 'good' pc 4: invalid guard or modifiers for BRA", "guard_neg 2");
  expect_refused(m_cmp_unwanted, "kernel 'good' pc 0: invalid guard or modifiers for S2R",
                 "a comparison on S2R");
  expect_refused(m_cmp_float_only, "kernel 'good' pc 3: invalid guard or modifiers for ISETP", "ISETP.NAN");
  expect_refused(m_cmp_missing, "kernel 'good' pc 3: invalid guard or modifiers for ISETP",
                 "ISETP without a comparison");
  expect_refused(m_dtype, "kernel 'good' pc 3: invalid guard or modifiers for ISETP", "ISETP.F32");
  expect_refused(m_width_odd, "kernel 'good' pc 1: invalid guard or modifiers for LDP", "12-byte width");
  expect_refused(m_width_missing, "kernel 'good' pc 1: invalid guard or modifiers for LDP", "no width");
  expect_refused(m_width_unwanted, "kernel 'good' pc 5: invalid guard or modifiers for FFMA",
                 "a width on FFMA");
  /* stores move a byte or a halfword too; loads do not */
  expect_refused(m_width_byte_load, "kernel 'good' pc 6: invalid guard or modifiers for LDS",
                 "LDS of a byte");
  expect_refused(m_width_three, "kernel 'good' pc 8: invalid guard or modifiers for STG", "STG of 3 bytes");
  expect_accepted(m_width_byte_store, "STG of a byte");
  expect_accepted(m_width_half_store, "STG of a halfword");
  expect_refused(m_hsel, "kernel 'good' pc 5: invalid guard or modifiers for FFMA", ".H1 on FFMA");
  expect_refused(m_shfl, "kernel 'good' pc 7: invalid guard or modifiers for SHFL", "shuffle mode 4");
}

/* ---- operands, one per signature kind ---- */
static void m_d_odd_pair(ws_kernel *k) { k->insns[2].opnd[0].reg = 3; }
static void m_d_pair_past(ws_kernel *k) { k->insns[2].opnd[0].reg = 254; } /* R254:R255 */
static void m_d_imm(ws_kernel *k) { k->insns[0].opnd[0].kind = WS_OPND_IMM; }
static void m_d_flags(ws_kernel *k) { k->insns[5].opnd[0].flags = WS_OPND_NEG; }
static void m_s_range(ws_kernel *k) { k->insns[0].opnd[1].reg = WS_SR_COUNT; }
static void m_p_range(ws_kernel *k) { k->insns[3].opnd[0].reg = WS_PRED_PT + 1; }
static void m_p_not(ws_kernel *k) { k->insns[9].opnd[0].flags = WS_OPND_NOT; }
static void m_q_neg(ws_kernel *k) { k->insns[9].opnd[1].flags = WS_OPND_NEG; }
static void m_i_neg(ws_kernel *k) { k->insns[3].opnd[2].flags = WS_OPND_NEG; }
static void m_i_imm_reg(ws_kernel *k) {
  k->insns[3].opnd[2] = (ws_operand){.kind = WS_OPND_IMM, .reg = 1, .imm = 3};
}
static void m_f_not(ws_kernel *k) { k->insns[5].opnd[1].flags = WS_OPND_NOT; }
static void m_r_imm(ws_kernel *k) { k->insns[8].opnd[1].imm = 5; }
static void m_g_rz(ws_kernel *k) { k->insns[8].opnd[0].reg = WS_REG_RZ; }
static void m_g_odd(ws_kernel *k) { k->insns[8].opnd[0].reg = 3; }
static void m_m_kind(ws_kernel *k) { k->insns[6].opnd[1].kind = WS_OPND_REG; }
static void m_a_reg(ws_kernel *k) { k->insns[1].opnd[1].reg = 0; }
static void m_a_past(ws_kernel *k) { k->insns[1].opnd[1].imm = WS_PARAM_MAX_BYTES + 1; }
static void m_a_negative(ws_kernel *k) { k->insns[1].opnd[1].imm = -4; }
static void m_l_past(ws_kernel *k) { k->insns[4].opnd[0].imm = 13; }
static void m_l_negative(ws_kernel *k) { k->insns[4].opnd[0].imm = -1; }
static void m_n_flags(ws_kernel *k) { k->insns[10].opnd[0].flags = WS_OPND_NOT; }
static void m_pad(ws_kernel *k) { k->insns[7].opnd[1].pad = 1; }
static void m_extra_exit(ws_kernel *k) { k->insns[11].opnd[0].kind = WS_OPND_REG; }
static void m_extra_s2r(ws_kernel *k) { k->insns[0].opnd[2].imm = 1; }

Test(verify, operands) {
  static const struct {
    mutation m;
    const char *want, *what;
  } bad[] = {
      {m_d_odd_pair, "kernel 'good' pc 2: operand 1 of LDP is invalid", "LDP.64 into R3"},
      {m_d_pair_past, "kernel 'good' pc 2: operand 1 of LDP is invalid", "LDP.64 into R254"},
      {m_d_imm, "kernel 'good' pc 0: operand 1 of S2R is invalid", "immediate destination"},
      {m_d_flags, "kernel 'good' pc 5: operand 1 of FFMA is invalid", "negated destination"},
      {m_s_range, "kernel 'good' pc 0: operand 2 of S2R is invalid", "special register 16"},
      {m_p_range, "kernel 'good' pc 3: operand 1 of ISETP is invalid", "predicate 8"},
      {m_p_not, "kernel 'good' pc 9: operand 1 of VOTE.ALL is invalid", "!P destination"},
      {m_q_neg, "kernel 'good' pc 9: operand 2 of VOTE.ALL is invalid", "-P source"},
      {m_i_neg, "kernel 'good' pc 3: operand 3 of ISETP is invalid", "-R integer source"},
      {m_i_imm_reg, "kernel 'good' pc 3: operand 3 of ISETP is invalid", "immediate with a reg"},
      {m_f_not, "kernel 'good' pc 5: operand 2 of FFMA is invalid", "!R float source"},
      {m_r_imm, "kernel 'good' pc 8: operand 2 of STG is invalid", "register with an imm"},
      {m_g_rz, "kernel 'good' pc 8: operand 1 of STG is invalid", "global address in RZ"},
      {m_g_odd, "kernel 'good' pc 8: operand 1 of STG is invalid", "global address in R3:R4"},
      {m_m_kind, "kernel 'good' pc 6: operand 2 of LDS is invalid", "shared address as reg"},
      {m_a_reg, "kernel 'good' pc 1: operand 2 of LDP is invalid", "param with a base reg"},
      {m_a_past, "kernel 'good' pc 1: operand 2 of LDP is invalid", "param offset 4097"},
      {m_a_negative, "kernel 'good' pc 1: operand 2 of LDP is invalid", "param offset -4"},
      {m_l_past, "kernel 'good' pc 4: operand 1 of BRA is invalid", "label past the end"},
      {m_l_negative, "kernel 'good' pc 4: operand 1 of BRA is invalid", "label -1"},
      {m_n_flags, "kernel 'good' pc 10: operand 1 of DEPBAR is invalid", "!1"},
      {m_pad, "kernel 'good' pc 7: operand 2 of SHFL is invalid", "pad byte"},
      {m_extra_exit, "kernel 'good' pc 11: operand 1 of EXIT is invalid", "operand on EXIT"},
      {m_extra_s2r, "kernel 'good' pc 0: operand 3 of S2R is invalid", "third S2R operand"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_refused(bad[i].m, bad[i].want, bad[i].what);
}

/* ---- whole programs ---- */
Test(verify, programs) {
  ws_program empty = {NULL, 0};
  cr_expect_eq(ws_verify_program(ctx, &empty), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "program has no kernels");

  ws_program *p = it_assemble(ctx, ".kernel a\nEXIT\n.kernel b\nEXIT\n", "two.wsa");
  cr_expect_eq(ws_verify_program(ctx, p), WS_OK, "%s", ws_errmsg(ctx));
  NAME(&p->kernels[1], "a");
  cr_expect_eq(ws_verify_program(ctx, p), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "kernel 'a' defined twice");
  NAME(&p->kernels[1], "b");
  p->kernels[1].ninsns = 0; /* the second kernel's own fault, under its name */
  cr_expect_eq(ws_verify_program(ctx, p), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "kernel 'b' has no instructions");
  p->kernels[1].ninsns = 1;
  ws_program_destroy(p);
}

/* ---- local memory: a constant offset must lie inside .local ------------------------- */

static const char local_src[] = ".kernel loc\n"
                                ".local 32\n"
                                "STL.64 [RZ+24], R2\n" /* pc 0: the last 8 bytes */
                                "LDL R0, [R1+4096]\n"  /* pc 1: a register's offset, checked at run time */
                                "EXIT\n";

static ws_program *local_prog(void) { return it_assemble(ctx, local_src, "loc.wsa"); }

Test(verify, local_accesses_inside_local_pass) {
  ws_program *p = local_prog();
  cr_expect_eq(ws_verify_program(ctx, p), WS_OK, "%s", ws_errmsg(ctx));
  ws_program_destroy(p);
}

Test(verify, a_constant_local_offset_beyond_local_is_refused) {
  ws_program *p = local_prog();
  p->kernels[0].local_bytes = 28; /* 24 + 8 no longer fits */
  cr_expect_eq(ws_verify_program(ctx, p), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "kernel 'loc' pc 0: STL of 8 bytes at local offset 24 lies outside .local 28 bytes");
  p->kernels[0].local_bytes = 32;
  p->kernels[0].insns[0].opnd[0].imm = 20; /* inside, but not 8-aligned */
  cr_expect_eq(ws_verify_program(ctx, p), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "kernel 'loc' pc 0: STL of 8 bytes at local offset 20 lies outside .local 32 bytes");
  ws_program_destroy(p);
}

Test(verify, a_local_size_that_is_not_whole_words_or_too_large_is_refused) {
  ws_program *p = local_prog();
  p->kernels[0].local_bytes = 34;
  cr_expect_eq(ws_verify_program(ctx, p), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx),
                   "kernel 'loc': .local 34 bytes is not a multiple of 4 of at most 524288 bytes");
  p->kernels[0].local_bytes = WS_LOCAL_MAX_BYTES + 4;
  cr_expect_eq(ws_verify_program(ctx, p), WS_ERR_INVALID);
  ws_program_destroy(p);
}
