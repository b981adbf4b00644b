/* fuzz_objfile.c - libFuzzer target: any bytes given to the .wso loader give
 * a program or an error, never a crash; a loaded program disassembles to
 * text that assembles back to an equal program, and saves back to exactly
 * the bytes it was loaded from (no field goes unread or unchecked).
 *
 * The input is resealed (size and checksum recomputed) before loading:
 * otherwise nearly every mutation stops at the checksum, and the field
 * checks behind it, the part worth exploring, would go unfuzzed. The header
 * checks are covered by tests/isa/test_objfile.c. */
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"
#include "isa/objfile.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void check_round_trips(ws_ctx *ctx, const ws_program *prog, const uint8_t *image, size_t size) {
  char *text = ws_disasm_program(prog);
  ws_program *again = NULL;
  if (!text || ws_asm_parse(ctx, text, strlen(text), "fuzz.wsa", &again) != WS_OK ||
      !ws_program_equal(prog, again))
    abort();
  size_t saved_size = 0;
  uint8_t *saved = ws_objfile_save(prog, &saved_size);
  if (!saved || saved_size != size || memcmp(saved, image, size) != 0) abort();
  free(saved);
  ws_program_destroy(again);
  free(text);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  uint8_t *image = malloc(size ? size : 1);
  if (!image) return 0;
  if (size) memcpy(image, data, size);
  ws_objfile_seal(image, size); /* false (and untouched) when too short for a header */
  ws_ctx *ctx = ws_ctx_create();
  ws_program *prog = NULL;
  if (ws_objfile_load(ctx, image, size, "fuzz.wso", &prog) == WS_OK)
    check_round_trips(ctx, prog, image, size);
  ws_program_destroy(prog);
  ws_ctx_destroy(ctx);
  free(image);
  return 0;
}
