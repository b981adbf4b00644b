/* fuzz_objfile.c - libFuzzer target: any bytes given to the .wso loader give
 * a program or an error, never a crash; a loaded program disassembles to
 * text that assembles back to an equal program. */
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"
#include "isa/objfile.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  ws_ctx *ctx = ws_ctx_create();
  ws_program *prog = NULL;
  if (ws_objfile_load(ctx, data, size, "fuzz.wso", &prog) == WS_OK) {
    char *text = ws_disasm_program(prog);
    ws_program *again = NULL;
    if (!text || ws_asm_parse(ctx, text, strlen(text), "fuzz.wsa", &again) != WS_OK ||
        !ws_program_equal(prog, again))
      abort();
    ws_program_destroy(again);
    free(text);
  }
  ws_program_destroy(prog);
  ws_ctx_destroy(ctx);
  return 0;
}
