/* test_program.c - assembled-program lifetime, lookup and comparison
 * (isa/program.c), on programs built by hand with malloc so that
 * ws_program_destroy owns everything (the sanitizer build checks it frees it
 * all). Equality is exercised field by field: one changed field of any kind
 * makes two programs differ, while the operand pad byte and the source-line
 * table never do (program.h says lines are not compared). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/program.h"

static void *dup_bytes(const void *src, size_t n) {
  void *p = malloc(n);
  cr_assert_not_null(p);
  memcpy(p, src, n);
  return p;
}

/* One kernel: "IADD R1, R2, 5 / BRA top" with a u32 and a ptr param, one
 * shared array and the label top at pc 0. */
static void fill_kernel(ws_kernel *k, const char *name) {
  memset(k, 0, sizeof *k);
  snprintf(k->name, sizeof k->name, "%s", name);
  const ws_insn insns[2] = {
      {.op = WS_OP_IADD,
       .guard = WS_PRED_PT,
       .opnd = {{WS_OPND_REG, 1, 0, 0, 0}, {WS_OPND_REG, 2, 0, 0, 0}, {WS_OPND_IMM, 0, 0, 0, 5}}},
      {.op = WS_OP_BRA, .guard = WS_PRED_PT, .opnd = {{WS_OPND_LABEL, 0, 0, 0, 0}}, .rpc = 2}};
  k->insns = dup_bytes(insns, sizeof insns);
  const uint32_t lines[2] = {3, 4};
  k->insn_lines = dup_bytes(lines, sizeof lines);
  k->ninsns = 2;
  ws_param params[2] = {{"n", WS_PT_U32, 0, 4}, {"out", WS_PT_PTR, 8, 8}};
  k->params = dup_bytes(params, sizeof params);
  k->nparams = 2;
  k->param_size_bytes = 16;
  ws_shared_sym sh = {"tile", 0, 256, 16};
  k->shared = dup_bytes(&sh, sizeof sh);
  k->nshared = 1;
  k->shared_size_bytes = 256;
  ws_label l = {"top", 0};
  k->labels = dup_bytes(&l, sizeof l);
  k->nlabels = 1;
  k->regs_per_thread = 3;
}

static ws_program *make_program(void) {
  ws_program *p = calloc(1, sizeof *p);
  cr_assert_not_null(p);
  p->kernels = calloc(2, sizeof *p->kernels);
  cr_assert_not_null(p->kernels);
  p->nkernels = 2;
  fill_kernel(&p->kernels[0], "first");
  fill_kernel(&p->kernels[1], "second");
  return p;
}

Test(program, destroy_frees_everything_and_accepts_null) {
  ws_program_destroy(NULL);
  ws_program_destroy(make_program());
  ws_program *empty = calloc(1, sizeof *empty); /* no kernels: kernels == NULL */
  cr_assert_not_null(empty);
  ws_program_destroy(empty);
}

Test(program, find_kernel_by_name) {
  ws_program *p = make_program();
  cr_expect_eq(ws_program_find_kernel(p, "first"), &p->kernels[0]);
  cr_expect_eq(ws_program_find_kernel(p, "second"), &p->kernels[1]);
  cr_expect_null(ws_program_find_kernel(p, "third"));
  cr_expect_null(ws_program_find_kernel(p, "firs"), "a prefix is not a name");
  cr_expect_null(ws_program_find_kernel(p, NULL));
  cr_expect_null(ws_program_find_kernel(NULL, "first"));
  ws_program_destroy(p);
}

Test(program, equal_to_an_identical_program) {
  ws_program *a = make_program(), *b = make_program();
  cr_expect(ws_program_equal(a, b));
  cr_expect(ws_program_equal(a, a));
  cr_expect(ws_program_equal(NULL, NULL));
  cr_expect_not(ws_program_equal(a, NULL));
  cr_expect_not(ws_program_equal(NULL, b));
  ws_program_destroy(a);
  ws_program_destroy(b);
}

Test(program, source_lines_and_the_pad_byte_are_not_compared) {
  ws_program *a = make_program(), *b = make_program();
  b->kernels[0].insn_lines[0] = 99;
  b->kernels[1].insns[0].opnd[2].pad = 7;
  cr_expect(ws_program_equal(a, b));
  ws_program_destroy(a);
  ws_program_destroy(b);
}

/* Each mutation touches one field of the second copy; each must make the
 * programs differ. */
typedef void (*mutation)(ws_program *p);
static void m_nkernels(ws_program *p) { p->nkernels = 1; }
static void m_name(ws_program *p) { p->kernels[1].name[0] = 'S'; }
static void m_op(ws_program *p) { p->kernels[0].insns[0].op = WS_OP_ISUB; }
static void m_guard(ws_program *p) { p->kernels[0].insns[0].guard = 0; }
static void m_guard_neg(ws_program *p) { p->kernels[0].insns[0].guard_neg = 1; }
static void m_cmp(ws_program *p) { p->kernels[0].insns[0].cmp = 1; }
static void m_dtype(ws_program *p) { p->kernels[0].insns[0].dtype = 1; }
static void m_width(ws_program *p) { p->kernels[0].insns[0].width_bytes = 4; }
static void m_hsel(ws_program *p) { p->kernels[0].insns[0].hsel = 1; }
static void m_rpc(ws_program *p) { p->kernels[1].insns[1].rpc = 1; }
static void m_kind(ws_program *p) { p->kernels[0].insns[0].opnd[2].kind = WS_OPND_REG; }
static void m_reg(ws_program *p) { p->kernels[0].insns[0].opnd[1].reg = 4; }
static void m_flags(ws_program *p) { p->kernels[0].insns[0].opnd[1].flags = WS_OPND_NEG; }
static void m_imm(ws_program *p) { p->kernels[1].insns[0].opnd[2].imm = 6; }
static void m_ninsns(ws_program *p) { p->kernels[0].ninsns = 1; }
static void m_pname(ws_program *p) { p->kernels[0].params[1].name[0] = 'O'; }
static void m_ptype(ws_program *p) { p->kernels[0].params[0].type = WS_PT_S32; }
static void m_poff(ws_program *p) { p->kernels[0].params[1].offset_bytes = 4; }
static void m_psize(ws_program *p) { p->kernels[0].params[1].size_bytes = 4; }
static void m_nparams(ws_program *p) { p->kernels[0].nparams = 1; }
static void m_psz(ws_program *p) { p->kernels[0].param_size_bytes = 12; }
static void m_sname(ws_program *p) { p->kernels[1].shared[0].name[1] = 'x'; }
static void m_soff(ws_program *p) { p->kernels[1].shared[0].offset_bytes = 16; }
static void m_ssize(ws_program *p) { p->kernels[1].shared[0].size_bytes = 128; }
static void m_salign(ws_program *p) { p->kernels[1].shared[0].align_bytes = 4; }
static void m_nshared(ws_program *p) { p->kernels[1].nshared = 0; }
static void m_ssz(ws_program *p) { p->kernels[1].shared_size_bytes = 512; }
static void m_lname(ws_program *p) { p->kernels[1].labels[0].name[0] = 'T'; }
static void m_lpc(ws_program *p) { p->kernels[1].labels[0].pc = 1; }
static void m_nlabels(ws_program *p) { p->kernels[1].nlabels = 0; }
static void m_regs(ws_program *p) { p->kernels[1].regs_per_thread = 4; }

Test(program, any_other_field_makes_programs_differ) {
  static const struct {
    const char *what;
    mutation m;
  } cases[] = {{"nkernels", m_nkernels},
               {"kernel name", m_name},
               {"op", m_op},
               {"guard", m_guard},
               {"guard_neg", m_guard_neg},
               {"cmp", m_cmp},
               {"dtype", m_dtype},
               {"width", m_width},
               {"hsel", m_hsel},
               {"rpc", m_rpc},
               {"operand kind", m_kind},
               {"operand reg", m_reg},
               {"operand flags", m_flags},
               {"operand imm", m_imm},
               {"ninsns", m_ninsns},
               {"param name", m_pname},
               {"param type", m_ptype},
               {"param offset", m_poff},
               {"param size", m_psize},
               {"nparams", m_nparams},
               {"param bytes", m_psz},
               {"shared name", m_sname},
               {"shared offset", m_soff},
               {"shared size", m_ssize},
               {"shared align", m_salign},
               {"nshared", m_nshared},
               {"shared bytes", m_ssz},
               {"label name", m_lname},
               {"label pc", m_lpc},
               {"nlabels", m_nlabels},
               {"regs per thread", m_regs}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ws_program *a = make_program(), *b = make_program();
    uint32_t nk = b->nkernels;
    cases[i].m(b);
    cr_expect_not(ws_program_equal(a, b), "a different %s went unnoticed", cases[i].what);
    cr_expect_not(ws_program_equal(b, a), "a different %s went unnoticed (swapped)", cases[i].what);
    b->nkernels = nk; /* so destroy frees both kernels */
    ws_program_destroy(a);
    ws_program_destroy(b);
  }
}

Test(program, ptype_names) {
  cr_expect_str_eq(ws_program_ptype_name(WS_PT_U32), "u32");
  cr_expect_str_eq(ws_program_ptype_name(WS_PT_S32), "s32");
  cr_expect_str_eq(ws_program_ptype_name(WS_PT_F32), "f32");
  cr_expect_str_eq(ws_program_ptype_name(WS_PT_U64), "u64");
  cr_expect_str_eq(ws_program_ptype_name(WS_PT_PTR), "ptr");
  cr_expect_str_eq(ws_program_ptype_name(WS_PT_COUNT), "?");
}
