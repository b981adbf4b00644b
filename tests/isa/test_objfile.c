/* test_objfile.c - .wso objects round-trip, and every corruption is an error
 * with a message, never a crash or a program the executor could trip on. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"
#include "isa/objfile.h"
#include "models/wsa.h"

static ws_program *assemble(ws_ctx *ctx, const char *path) {
  const ws_embedded_file *f = ws_wsa_find(path);
  cr_assert_not_null(f, "embedded %s", path);
  ws_program *p = NULL;
  cr_assert_eq(ws_asm_parse(ctx, f->text, f->size_bytes, path, &p), WS_OK, "%s", ws_errmsg(ctx));
  return p;
}

Test(objfile, every_embedded_kernel_round_trips) {
  ws_ctx *ctx = ws_ctx_create();
  for (size_t i = 0; i < ws_wsa_files_count; i++) {
    ws_program *p = assemble(ctx, ws_wsa_files[i].path);
    size_t size = 0;
    uint8_t *obj = ws_objfile_save(p, &size);
    cr_assert_not_null(obj);
    ws_program *q = NULL;
    cr_assert_eq(ws_objfile_load(ctx, obj, size, "t.wso", &q), WS_OK, "%s", ws_errmsg(ctx));
    cr_expect(ws_program_equal(p, q), "%s", ws_wsa_files[i].path);
    for (uint32_t k = 0; k < p->nkernels; k++) {
      cr_expect_eq(q->kernels[k].regs_per_thread, p->kernels[k].regs_per_thread);
      for (uint32_t pc = 0; pc < p->kernels[k].ninsns; pc++)
        cr_expect_eq(q->kernels[k].insns[pc].rpc, p->kernels[k].insns[pc].rpc);
    }
    ws_program_destroy(q);
    ws_program_destroy(p);
    free(obj);
  }
  ws_ctx_destroy(ctx);
}

Test(objfile, every_truncation_is_reported) {
  ws_ctx *ctx = ws_ctx_create();
  ws_program *p = assemble(ctx, "models/examples/saxpy.wsa");
  size_t size = 0;
  uint8_t *obj = ws_objfile_save(p, &size);
  for (size_t cut = 4; cut < size; cut++) {
    ws_program *q = (ws_program *)1;
    cr_assert_eq(ws_objfile_load(ctx, obj, cut, "t.wso", &q), WS_ERR_INVALID, "cut %zu", cut);
    cr_assert_null(q);
    cr_assert(strncmp(ws_errmsg(ctx), "t.wso: truncated or corrupt object", 34) == 0, "%s", ws_errmsg(ctx));
  }
  ws_program_destroy(p);
  free(obj);
  ws_ctx_destroy(ctx);
}

Test(objfile, corruptions_have_messages) {
  ws_ctx *ctx = ws_ctx_create();
  ws_program *p = assemble(ctx, "models/examples/saxpy.wsa");
  size_t size = 0;
  uint8_t *obj = ws_objfile_save(p, &size);
  ws_program *q = NULL;
  uint8_t *bad = malloc(size + 1);

  memcpy(bad, obj, size);
  bad[1] = 'X';
  cr_expect_eq(ws_objfile_load(ctx, bad, size, "t.wso", &q), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "t.wso: not a warpscope object (bad magic)");

  memcpy(bad, obj, size);
  bad[4] = 9;
  cr_expect_eq(ws_objfile_load(ctx, bad, size, "t.wso", &q), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "t.wso: object version 9, this warpscope reads version 1");

  memcpy(bad, obj, size);
  bad[size] = 0;
  cr_expect_eq(ws_objfile_load(ctx, bad, size + 1, "t.wso", &q), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "t.wso: 1 unexpected bytes after the last kernel");

  /* the first instruction's opcode sits after the header, kernel record and
   * the four params: 12 + 64 + 24 + 4 * 73 bytes */
  size_t op_at = 12 + 64 + 24 + 4 * (64 + 9);
  memcpy(bad, obj, size);
  bad[op_at] = 0xff;
  bad[op_at + 1] = 0x7f;
  cr_expect_eq(ws_objfile_load(ctx, bad, size, "t.wso", &q), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "t.wso: kernel 'saxpy' pc 0: invalid opcode 32767");

  /* S2R's destination register -> R255 is RZ (legal); the source SR id 200 is not */
  memcpy(bad, obj, size);
  bad[op_at + 8 + 8 + 1] = 200;
  cr_expect_eq(ws_objfile_load(ctx, bad, size, "t.wso", &q), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "t.wso: kernel 'saxpy' pc 0: operand 2 of S2R is invalid");

  cr_expect_null(q);
  free(bad);
  free(obj);
  ws_program_destroy(p);
  ws_ctx_destroy(ctx);
}

/* Found by fuzz_objfile: a label moved off a branch target used to load, and
 * its text form then assembled to a different program. */
Test(objfile, branch_targets_must_be_labelled_and_labels_sorted) {
  ws_ctx *ctx = ws_ctx_create();
  ws_program *p = assemble(ctx, "models/examples/reduce.wsa");
  ws_kernel *k = &p->kernels[0];
  cr_assert_eq(k->nlabels, 2); /* loop, warp_sum */
  size_t size = 0;
  ws_program *q = NULL;
  k->labels[1].pc = k->labels[1].pc + 1; /* warp_sum no longer names the target */
  uint8_t *obj = ws_objfile_save(p, &size);
  cr_expect_eq(ws_objfile_load(ctx, obj, size, "t.wso", &q), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "t.wso: kernel 'reduce_sum' pc 10: branch target 16 has no label");
  free(obj);
  k->labels[1].pc = 0; /* before 'loop': out of order */
  obj = ws_objfile_save(p, &size);
  cr_expect_eq(ws_objfile_load(ctx, obj, size, "t.wso", &q), WS_ERR_INVALID);
  cr_expect_str_eq(ws_errmsg(ctx), "t.wso: kernel 'reduce_sum': label 2 is invalid");
  cr_expect_null(q);
  free(obj);
  ws_program_destroy(p);
  ws_ctx_destroy(ctx);
}
