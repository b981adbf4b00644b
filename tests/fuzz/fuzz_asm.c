/* fuzz_asm.c - libFuzzer target for the assembler.
 *
 * Arbitrary bytes go through ws_asm_parse; it must return without crashing,
 * hanging or leaking, and a failure must carry a "FILE:LINE:COL: error:"
 * message. When the bytes assemble, the program is disassembled and
 * re-assembled: the result must be an equal program and its disassembly the
 * same text (the canonical form is a fixed point). Any violation abort()s,
 * which libFuzzer reports as a finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"

#define FILE_NAME "fuzz.wsa"

static void check_message(const ws_ctx *ctx, ws_status st) {
  const char *msg = ws_errmsg(ctx);
  if (st == WS_ERR_INVALID && strncmp(msg, FILE_NAME ":", strlen(FILE_NAME ":")) == 0 &&
      strstr(msg, ": error: "))
    return;
  if (st == WS_ERR_NOMEM) return;
  fprintf(stderr, "unexpected failure %d: %s\n", (int)st, msg);
  abort();
}

static void check_round_trip(ws_ctx *ctx, const ws_program *prog) {
  char *text = ws_disasm_program(prog);
  if (!text) abort();
  ws_program *again = NULL;
  if (ws_asm_parse(ctx, text, strlen(text), "disasm.wsa", &again) != WS_OK) {
    fprintf(stderr, "disassembly does not assemble: %s\n%s", ws_errmsg(ctx), text);
    abort();
  }
  char *text2 = ws_disasm_program(again);
  if (!ws_program_equal(prog, again) || !text2 || strcmp(text, text2) != 0) {
    fprintf(stderr, "round trip changed the program:\n%s---\n%s", text, text2 ? text2 : "");
    abort();
  }
  free(text);
  free(text2);
  ws_program_destroy(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ws_ctx *ctx = ws_ctx_create();
  if (!ctx) return 0;
  ws_program *prog = NULL;
  ws_status st = ws_asm_parse(ctx, (const char *)data, size, FILE_NAME, &prog);
  if (st == WS_OK)
    check_round_trip(ctx, prog);
  else
    check_message(ctx, st);
  ws_program_destroy(prog);
  ws_ctx_destroy(ctx);
  return 0;
}
