/* test_objfile.c - .wso objects round-trip, and every corruption is an error
 * with a message, never a crash or a program the executor could trip on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "isa/asm.h"
#include "isa/objfile.h"
#include "models/kgen/wsa.h"

/* Offsets of version 4 (isa/objfile.c's layout): a 20-byte header, then per
 * kernel a 64-byte name and seven u32 counts, 73-byte params, 44-byte
 * instructions whose last four bytes are the source line. */
enum { HEADER = 20, KERNEL_RECORD = 64 + 28, PARAM_RECORD = 64 + 9, INSN_RECORD = 44 };

/* saxpy.wsa: one kernel, four params, no shared symbols or labels. */
static size_t saxpy_insn_at(uint32_t pc) {
  return HEADER + KERNEL_RECORD + 4 * PARAM_RECORD + pc * INSN_RECORD;
}

static ws_program *assemble(ws_ctx *ctx, const char *path) {
  const ws_embedded_file *f = ws_wsa_find(path);
  cr_assert_not_null(f, "embedded %s", path);
  ws_program *p = NULL;
  cr_assert_eq(ws_asm_parse(ctx, f->text, f->size_bytes, path, &p), WS_OK, "%s", ws_errmsg(ctx));
  return p;
}

static uint8_t *saxpy_object(ws_ctx *ctx, size_t *size) {
  ws_program *p = assemble(ctx, "models/runs/examples/saxpy.wsa");
  uint8_t *obj = ws_objfile_save(p, size);
  cr_assert_not_null(obj);
  ws_program_destroy(p);
  return obj;
}

static uint32_t get_le32(const uint8_t *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void set_le32(uint8_t *b, uint32_t v) {
  for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
}

/* Loads bytes that must be refused; returns the message. */
static const char *refused(ws_ctx *ctx, const uint8_t *obj, size_t size) {
  ws_program *q = (ws_program *)1;
  cr_assert_eq(ws_objfile_load(ctx, obj, size, "t.wso", &q), WS_ERR_INVALID, "loaded: %s", ws_errmsg(ctx));
  cr_assert_null(q);
  return ws_errmsg(ctx);
}

Test(objfile, every_embedded_kernel_round_trips) {
  ws_ctx *ctx = ws_ctx_create();
  for (size_t i = 0; i < ws_wsa_files_count; i++) {
    ws_program *p = assemble(ctx, ws_wsa_files[i].path);
    size_t size = 0, again_size = 0;
    uint8_t *obj = ws_objfile_save(p, &size);
    cr_assert_not_null(obj);
    ws_program *q = NULL;
    cr_assert_eq(ws_objfile_load(ctx, obj, size, "t.wso", &q), WS_OK, "%s", ws_errmsg(ctx));
    cr_expect(ws_program_equal(p, q), "%s", ws_wsa_files[i].path);
    for (uint32_t k = 0; k < p->nkernels; k++) {
      cr_expect_eq(q->kernels[k].regs_per_thread, p->kernels[k].regs_per_thread);
      for (uint32_t pc = 0; pc < p->kernels[k].ninsns; pc++) {
        cr_expect_eq(q->kernels[k].insns[pc].rpc, p->kernels[k].insns[pc].rpc);
        cr_expect_eq(q->kernels[k].insn_lines[pc], p->kernels[k].insn_lines[pc]);
      }
    }
    /* the loaded program writes back the same bytes: nothing was lost or unread */
    uint8_t *again = ws_objfile_save(q, &again_size);
    cr_expect(again_size == size && memcmp(again, obj, size) == 0, "%s", ws_wsa_files[i].path);
    free(again);
    ws_program_destroy(q);
    ws_program_destroy(p);
    free(obj);
  }
  ws_ctx_destroy(ctx);
}

Test(objfile, header_records_size_and_crc32) {
  ws_ctx *ctx = ws_ctx_create();
  size_t size = 0;
  uint8_t *obj = saxpy_object(ctx, &size);
  cr_assert_eq(size, saxpy_insn_at(17)); /* 17 instructions, nothing after */
  cr_expect_eq(get_le32(obj + 4), 4);
  cr_expect_eq(get_le32(obj + 8), size);
  /* zlib's CRC-32 of the file with the checksum field zeroed */
  uint8_t *copy = malloc(size);
  memcpy(copy, obj, size);
  set_le32(copy + 12, 0);
  cr_expect_eq(get_le32(obj + 12), (uint32_t)crc32(0L, copy, (uInt)size));
  free(copy);
  free(obj);
  ws_ctx_destroy(ctx);
}

Test(objfile, every_truncation_is_reported) {
  ws_ctx *ctx = ws_ctx_create();
  size_t size = 0;
  uint8_t *obj = saxpy_object(ctx, &size);
  for (size_t cut = 4; cut < size; cut++) {
    const char *msg = refused(ctx, obj, cut);
    cr_assert(strncmp(msg, "t.wso: truncated or corrupt object", 34) == 0, "cut %zu: %s", cut, msg);
  }
  cr_expect_str_eq(refused(ctx, obj, 10),
                   "t.wso: truncated or corrupt object: 10 bytes, the header alone is 20");
  char want[128];
  snprintf(want, sizeof want,
           "t.wso: truncated or corrupt object: the header records %zu bytes, the file has %zu", size,
           size - 1);
  cr_expect_str_eq(refused(ctx, obj, size - 1), want);
  free(obj);
  ws_ctx_destroy(ctx);
}

/* Every single-bit change anywhere in a real object is refused with a
 * message naming the file, the header field or the checksum. */
Test(objfile, every_bit_flip_is_refused) {
  ws_ctx *ctx = ws_ctx_create();
  size_t size = 0;
  uint8_t *obj = saxpy_object(ctx, &size);
  size_t by_checksum = 0;
  for (size_t byte = 0; byte < size; byte++) {
    for (int bit = 0; bit < 8; bit++) {
      obj[byte] ^= (uint8_t)(1u << bit);
      const char *msg = refused(ctx, obj, size);
      cr_assert(strncmp(msg, "t.wso: ", 7) == 0, "byte %zu bit %d: %s", byte, bit, msg);
      bool clear =
          strstr(msg, "corrupt object") || strstr(msg, "(bad magic)") || strstr(msg, "object format version");
      cr_assert(clear, "byte %zu bit %d: %s", byte, bit, msg);
      by_checksum += strstr(msg, "checksum mismatch") != NULL;
      obj[byte] ^= (uint8_t)(1u << bit);
    }
  }
  /* all but the magic, version and size fields (12 bytes) fall to the checksum */
  cr_expect_eq(by_checksum, (size - 12) * 8);
  free(obj);
  ws_ctx_destroy(ctx);
}

/* A stride 4 -> 8 is a valid program: only the checksum can tell. */
Test(objfile, checksum_catches_a_valid_looking_change) {
  ws_ctx *ctx = ws_ctx_create();
  size_t size = 0;
  uint8_t *obj = saxpy_object(ctx, &size);
  size_t imm_at = saxpy_insn_at(9) + 8 + 2 * 8 + 4; /* IMAD.WIDE.U32 R8, R0, 4, R4: operand 3's imm */
  cr_assert_eq(get_le32(obj + imm_at), 4);
  uint32_t stored = get_le32(obj + 12);
  obj[imm_at] = 8;
  uint8_t *copy = malloc(size);
  memcpy(copy, obj, size);
  set_le32(copy + 12, 0);
  uint32_t found = (uint32_t)crc32(0L, copy, (uInt)size);
  char want[160];
  snprintf(want, sizeof want,
           "t.wso: corrupt object: checksum mismatch, the header says 0x%08x, the contents give 0x%08x",
           stored, found);
  cr_expect_str_eq(refused(ctx, obj, size), want);
  /* resealed, it loads: the field checks alone could not have refused it */
  cr_assert(ws_objfile_seal(obj, size));
  ws_program *q = NULL;
  cr_assert_eq(ws_objfile_load(ctx, obj, size, "t.wso", &q), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(q->kernels[0].insns[9].opnd[2].imm, 8);
  ws_program_destroy(q);
  free(copy);
  free(obj);
  ws_ctx_destroy(ctx);
}

Test(objfile, old_or_unknown_versions_say_reassemble) {
  ws_ctx *ctx = ws_ctx_create();
  size_t size = 0;
  uint8_t *obj = saxpy_object(ctx, &size);
  set_le32(obj + 4, 1);
  cr_expect_str_eq(refused(ctx, obj, size),
                   "t.wso: object format version 1, this warpscope reads 4; reassemble the .wsa");
  /* version 1 had no size field: a short version-1 object still gets the version message */
  cr_expect_str_eq(refused(ctx, obj, 12),
                   "t.wso: object format version 1, this warpscope reads 4; reassemble the .wsa");
  set_le32(obj + 4, 9);
  cr_assert(ws_objfile_seal(obj, size));
  cr_expect_str_eq(refused(ctx, obj, size),
                   "t.wso: object format version 9, this warpscope reads 4; reassemble the .wsa");
  free(obj);
  ws_ctx_destroy(ctx);
}

/* The remaining cases reseal the image, so each field check is shown to
 * refuse on its own, with the byte offset of the field. */
Test(objfile, corruptions_have_messages) {
  ws_ctx *ctx = ws_ctx_create();
  size_t size = 0;
  uint8_t *obj = saxpy_object(ctx, &size);
  uint8_t *bad = malloc(size + 1);

  memcpy(bad, obj, size);
  bad[1] = 'X';
  cr_expect_str_eq(refused(ctx, bad, size), "t.wso: not a warpscope object (bad magic)");

  memcpy(bad, obj, size);
  bad[size] = 0;
  cr_assert(ws_objfile_seal(bad, size + 1));
  char want[160];
  snprintf(want, sizeof want,
           "t.wso: corrupt object at byte %zu: expected the end of the file after the last kernel, found 1 "
           "more byte",
           size);
  cr_expect_str_eq(refused(ctx, bad, size + 1), want);

  size_t op_at = saxpy_insn_at(0);
  memcpy(bad, obj, size);
  bad[op_at] = 0xff;
  bad[op_at + 1] = 0x7f;
  cr_assert(ws_objfile_seal(bad, size));
  cr_expect_str_eq(refused(ctx, bad, size), "t.wso: kernel 'saxpy' pc 0: invalid opcode 32767");

  /* S2R's destination register -> R255 is RZ (legal); the source SR id 200 is not */
  memcpy(bad, obj, size);
  bad[op_at + 8 + 8 + 1] = 200;
  cr_assert(ws_objfile_seal(bad, size));
  cr_expect_str_eq(refused(ctx, bad, size), "t.wso: kernel 'saxpy' pc 0: operand 2 of S2R is invalid");

  /* an operand's reserved pad byte */
  memcpy(bad, obj, size);
  bad[op_at + 8 + 3] = 1;
  cr_assert(ws_objfile_seal(bad, size));
  cr_expect_str_eq(refused(ctx, bad, size), "t.wso: kernel 'saxpy' pc 0: operand 1 of S2R is invalid");

  free(bad);
  free(obj);
  ws_ctx_destroy(ctx);
}

Test(objfile, name_padding_must_be_zero) {
  ws_ctx *ctx = ws_ctx_create();
  size_t size = 0;
  uint8_t *obj = saxpy_object(ctx, &size);
  uint8_t *bad = malloc(size);
  size_t param0 = HEADER + KERNEL_RECORD; /* "n", then 63 zero bytes */
  cr_assert_eq(obj[param0], 'n');

  memcpy(bad, obj, size);
  bad[param0 + 40] = 'A';
  cr_assert(ws_objfile_seal(bad, size));
  char want[160];
  snprintf(want, sizeof want,
           "t.wso: corrupt object at byte %zu: byte 0x41 in the padding of param name 'n', expected zero",
           param0 + 40);
  cr_expect_str_eq(refused(ctx, bad, size), want);

  memcpy(bad, obj, size);
  bad[HEADER + 63] = 0x80; /* the last byte of the kernel name field */
  cr_assert(ws_objfile_seal(bad, size));
  snprintf(want, sizeof want,
           "t.wso: corrupt object at byte %d: byte 0x80 in the padding of kernel name 'saxpy', expected zero",
           HEADER + 63);
  cr_expect_str_eq(refused(ctx, bad, size), want);

  memcpy(bad, obj, size);
  memset(bad + param0, 'a', 64);
  cr_assert(ws_objfile_seal(bad, size));
  snprintf(want, sizeof want,
           "t.wso: corrupt object at byte %zu: param name has no terminating NUL within its 64 bytes",
           param0);
  cr_expect_str_eq(refused(ctx, bad, size), want);

  free(bad);
  free(obj);
  ws_ctx_destroy(ctx);
}

Test(objfile, source_lines_must_follow_the_text) {
  ws_ctx *ctx = ws_ctx_create();
  size_t size = 0;
  uint8_t *obj = saxpy_object(ctx, &size);
  uint8_t *bad = malloc(size);
  size_t line_at[3];
  for (uint32_t pc = 0; pc < 3; pc++) line_at[pc] = saxpy_insn_at(pc + 1) - 4;
  cr_assert_eq(get_le32(obj + line_at[0]), 8); /* S2R R0 is on line 8 of saxpy.wsa */
  cr_assert_eq(get_le32(obj + line_at[2]), 10);
  char want[192];

  memcpy(bad, obj, size);
  set_le32(bad + line_at[2], 9); /* pc 2 on pc 1's line */
  cr_assert(ws_objfile_seal(bad, size));
  snprintf(
      want, sizeof want,
      "t.wso: corrupt object at byte %zu: kernel 'saxpy' pc 2: source line 9, expected a line after 9 (one "
      "instruction a line)",
      line_at[2]);
  cr_expect_str_eq(refused(ctx, bad, size), want);

  memcpy(bad, obj, size);
  set_le32(bad + line_at[1], 0);
  cr_assert(ws_objfile_seal(bad, size));
  snprintf(
      want, sizeof want,
      "t.wso: corrupt object at byte %zu: kernel 'saxpy' pc 1: source line 0, expected a line after 8 (one "
      "instruction a line)",
      line_at[1]);
  cr_expect_str_eq(refused(ctx, bad, size), want);

  memcpy(bad, obj, size);
  set_le32(bad + line_at[0], 0); /* pc 0 unnumbered, the rest numbered */
  cr_assert(ws_objfile_seal(bad, size));
  snprintf(want, sizeof want,
           "t.wso: corrupt object at byte %zu: kernel 'saxpy' pc 1: source line 9, but pc 0 has none "
           "(expected all "
           "or none)",
           line_at[1]);
  cr_expect_str_eq(refused(ctx, bad, size), want);

  free(bad);
  free(obj);
  ws_ctx_destroy(ctx);
}

/* Kernels follow each other in the text; a program built without text has
 * no lines at all, and that loads. */
Test(objfile, source_lines_across_kernels) {
  ws_ctx *ctx = ws_ctx_create();
  static const char text[] = ".kernel a\n    EXIT\n.kernel b\n    EXIT\n";
  ws_program *p = NULL;
  cr_assert_eq(ws_asm_parse(ctx, text, sizeof text - 1, "two.wsa", &p), WS_OK, "%s", ws_errmsg(ctx));
  size_t size = 0;
  uint8_t *obj = ws_objfile_save(p, &size);
  size_t b_line_at = size - 4, a_line_at = HEADER + KERNEL_RECORD + INSN_RECORD - 4;
  cr_assert_eq(get_le32(obj + a_line_at), 2);
  cr_assert_eq(get_le32(obj + b_line_at), 4);
  set_le32(obj + b_line_at, 2);
  cr_assert(ws_objfile_seal(obj, size));
  char want[160];
  snprintf(want, sizeof want,
           "t.wso: corrupt object at byte %zu: kernel 'b' pc 0: source line 2, expected a line after 2 (one "
           "instruction a line)",
           b_line_at);
  cr_expect_str_eq(refused(ctx, obj, size), want);
  free(obj);

  free(p->kernels[0].insn_lines);
  p->kernels[0].insn_lines = NULL;
  obj = ws_objfile_save(p, &size);
  ws_program *q = NULL;
  cr_assert_eq(ws_objfile_load(ctx, obj, size, "t.wso", &q), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(q->kernels[0].insn_lines[0], 0);
  cr_expect_eq(q->kernels[1].insn_lines[0], 4);
  ws_program_destroy(q);
  free(obj);
  ws_program_destroy(p);
  ws_ctx_destroy(ctx);
}

/* Found by fuzz_objfile: a label moved off a branch target used to load, and
 * its text form then assembled to a different program. */
Test(objfile, branch_targets_must_be_labelled_and_labels_sorted) {
  ws_ctx *ctx = ws_ctx_create();
  ws_program *p = assemble(ctx, "models/runs/examples/reduce.wsa");
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
