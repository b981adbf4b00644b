/* test_kbuild.c - the kernel builder: exact text for small kernels, the
 * register high-water mark, unique labels, sticky out-of-memory, and that
 * what it builds assembles with the register count it reports. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"
#include "models/kgen/kbuild.h"

static ws_ctx *ctx;

static void setup(void) { ctx = ws_ctx_create(); }
static void teardown(void) { ws_ctx_destroy(ctx); }

/* Takes the builder's text, failing the test when it cannot. */
static char *take(ws_kbuild *b) {
  char *out = NULL;
  cr_assert_eq(ws_kbuild_take(ctx, b, &out), WS_OK, "%s", ws_errmsg(ctx));
  return out;
}

Test(kbuild, registers_are_handed_out_in_order_with_alignment, .init = setup, .fini = teardown) {
  ws_kbuild b;
  ws_kbuild_init(&b);
  cr_expect_eq(ws_kbuild_nregs(&b), 1, "an empty kernel still has one register");
  cr_expect_eq(ws_kbuild_reg(&b, "i").n, 0);
  cr_expect_eq(ws_kbuild_reg64(&b, "ptr").n, 2, "pairs start even");
  cr_expect_eq(ws_kbuild_reg(&b, "n").n, 4);
  cr_expect_eq(ws_kbuild_regs(&b, "quad", 4, 4).n, 8, "quads start at a multiple of 4");
  cr_expect_eq(ws_kbuild_nregs(&b), 12, "high-water mark: one past the last register");
  ws_kreg acc = ws_kbuild_regs(&b, "acc", 3, 1);
  cr_expect_eq(acc.n, 12);
  cr_expect_eq(ws_kreg_at(acc, 2).n, 14);
  cr_expect_eq(ws_kbuild_nregs(&b), 15);
  ws_kbuild_free(&b);
}

Test(kbuild, instructions_format_registers_labels_and_comments, .init = setup, .fini = teardown) {
  ws_kbuild b;
  ws_kbuild_init(&b);
  ws_kreg a = ws_kbuild_reg(&b, "a"), x = ws_kbuild_reg64(&b, "x");
  ws_klabel top = ws_kbuild_label(&b, "loop");
  ws_kbuild_line(&b, ".kernel k%d", 1);
  ws_kbuild_place(&b, top);
  ws_kbuild_ins(&b, "FFMA %r, %r, %g, %r", a, a, 0.5, a);
  ws_kbuild_ins(&b, "IADD %r, %r, %u // count %s", a, a, 3u, "up");
  ws_kbuild_ins(&b, "@P0 BRA %l // back", top);
  ws_kbuild_ins(&b, "LDG.32 %r, [%r+%d]", a, x, -4);
  ws_kbuild_ins(&b, "AND %r, %r, 3 // 100%% sure", a, a);
  ws_kbuild_ins(&b, "EXIT // N % 4 stays as written");
  char *text = take(&b);
  cr_expect_str_eq(text, ".kernel k1\n"
                         "loop:\n"
                         "    FFMA R0, R0, 0.5, R0\n"
                         "    IADD R0, R0, 3                   // count up\n"
                         "@P0 BRA loop                         // back\n"
                         "    LDG.32 R0, [R2+-4]\n"
                         "    AND R0, R0, 3                    // 100% sure\n"
                         "    EXIT                             // N % 4 stays as written\n");
  free(text);
}

typedef struct pair_regs {
  ws_kreg i, p, v;
} pair_regs;

Test(kbuild, a_register_table_fills_a_struct_in_order, .init = setup, .fini = teardown) {
  static const ws_kbuild_regspec layout[] = {{offsetof(pair_regs, i), "i", 1, 1},
                                             {offsetof(pair_regs, p), "p", 2, 2},
                                             {offsetof(pair_regs, v), "v", 4, 4}};
  ws_kbuild b;
  ws_kbuild_init(&b);
  pair_regs r;
  ws_kbuild_reg_table(&b, &r, layout, 3);
  uint32_t got[4] = {r.i.n, r.p.n, r.v.n, ws_kbuild_nregs(&b)}, want[4] = {0, 2, 4, 8};
  cr_expect_arr_eq(got, want, sizeof got, "i, p, v and the count: %u %u %u %u", got[0], got[1], got[2],
                   got[3]);
  ws_kbuild_free(&b);
}

Test(kbuild, labels_never_collide, .init = setup, .fini = teardown) {
  ws_kbuild b;
  ws_kbuild_init(&b);
  ws_klabel l1 = ws_kbuild_label(&b, "loop"), l2 = ws_kbuild_label(&b, "loop");
  ws_klabel l3 = ws_kbuild_label(&b, "loop_2"), l4 = ws_kbuild_label(&b, "loop");
  cr_expect_str_eq(ws_kbuild_label_name(&b, l1), "loop");
  cr_expect_str_eq(ws_kbuild_label_name(&b, l2), "loop_2");
  cr_expect_str_eq(ws_kbuild_label_name(&b, l3), "loop_2_2", "a requested name already made");
  cr_expect_str_eq(ws_kbuild_label_name(&b, l4), "loop_3");
  cr_expect_str_eq(ws_kbuild_label_name(&b, (ws_klabel){99}), "?");
  ws_kbuild_free(&b);
}

Test(kbuild, register_map_lists_every_allocation, .init = setup, .fini = teardown) {
  ws_kbuild b;
  ws_kbuild_init(&b);
  ws_kbuild_reg(&b, "tid");
  ws_kbuild_reg64(&b, "x");
  ws_kbuild_regs(&b, "acc", 8, 4);
  ws_kbuild_reg_map(&b);
  char *text = take(&b);
  cr_expect_str_eq(text, "// registers: 12 per thread\n"
                         "//   R0 tid, R2..R3 x, R4..R11 acc\n");
  free(text);
}

Test(kbuild, running_out_of_memory_is_sticky_and_reported_once, .init = setup, .fini = teardown) {
  ws_kbuild b;
  ws_kbuild_init(&b);
  ws_kbuild_ins(&b, "EXIT");
  b.text.failed = true; /* as after a failed growth */
  ws_kbuild_ins(&b, "EXIT");
  char *out = (char *)1;
  cr_expect_eq(ws_kbuild_take(ctx, &b, &out), WS_ERR_NOMEM);
  cr_expect_null(out);
  cr_expect(strstr(ws_errmsg(ctx), "out of host memory") != NULL, "%s", ws_errmsg(ctx));
  cr_expect_null(b.text.buf, "take resets the builder");
  ws_kbuild_free(&b);
}

Test(kbuild, built_kernel_assembles_with_the_counted_registers, .init = setup, .fini = teardown) {
  ws_kbuild b;
  ws_kbuild_init(&b);
  ws_kreg i = ws_kbuild_reg(&b, "i"), p = ws_kbuild_reg64(&b, "p");
  ws_kreg v = ws_kbuild_regs(&b, "v", 4, 4);
  uint32_t regs = ws_kbuild_nregs(&b);
  ws_klabel done = ws_kbuild_label(&b, "done");
  ws_kbuild_line(&b, ".kernel k\n.param .ptr x");
  ws_kbuild_ins(&b, "S2R %r, SR_TID.X", i);
  ws_kbuild_ins(&b, "LDP.64 %r, [x] // the array", p);
  ws_kbuild_ins(&b, "IMAD.WIDE.U32 %r, %r, 16, %r", p, i, p);
  ws_kbuild_ins(&b, "ISETP.GE.U32 P0, %r, 4", i);
  ws_kbuild_ins(&b, "@P0 BRA %l", done);
  ws_kbuild_ins(&b, "LDG.128 %r, [%r]", v, p);
  ws_kbuild_ins(&b, "STG.128 [%r], %r", p, v);
  ws_kbuild_place(&b, done);
  ws_kbuild_ins(&b, "EXIT");
  char *text = take(&b);
  ws_program *prog = NULL;
  cr_assert_eq(ws_asm_parse(ctx, text, strlen(text), "k.wsa", &prog), WS_OK, "%s\n%s", ws_errmsg(ctx), text);
  cr_expect_eq(prog->kernels[0].regs_per_thread, regs);
  ws_program_destroy(prog);
  free(text);
}
