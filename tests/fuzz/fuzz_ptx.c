/* fuzz_ptx.c - libFuzzer target for the PTX front end.
 *
 * Arbitrary bytes go through ws_ptx_translate; it must return without
 * crashing, hanging or leaking. A refusal must carry a "FILE:LINE...:
 * error:" message (or be a register limit or out of memory); a translation
 * must give a program the ISA's verifier accepts, whose every kernel keeps
 * a PTX line per instruction. Any violation abort()s. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/verify.h"
#include "ptx/ptx.h"

#define FILE_NAME "fuzz.ptx"

static void check_message(const ws_ctx *ctx, ws_status st) {
  const char *msg = ws_errmsg(ctx);
  if (st == WS_ERR_NOMEM || st == WS_ERR_LIMIT) return;
  if (st == WS_ERR_INVALID && strncmp(msg, FILE_NAME, strlen(FILE_NAME)) == 0 && strstr(msg, ": error: "))
    return;
  if (st == WS_ERR_INVALID && strstr(msg, FILE_NAME ": no kernel")) return;
  if (st == WS_ERR_INVALID && strstr(msg, FILE_NAME ": PTX text expected")) return;
  fprintf(stderr, "unexpected failure %d: %s\n", (int)st, msg);
  abort();
}

static void check_program(ws_ctx *ctx, const ws_ptx_result *r) {
  if (ws_verify_program(ctx, r->prog) != WS_OK) {
    fprintf(stderr, "a translation the verifier refuses: %s\n%s", ws_errmsg(ctx), r->wsa);
    abort();
  }
  if (r->nkernels != r->prog->nkernels) abort();
  for (size_t i = 0; i < r->nkernels; i++)
    if (r->kernels[i].ninsns != r->prog->kernels[i].ninsns) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ws_ctx *ctx = ws_ctx_create();
  if (!ctx) return 0;
  ws_ptx_result res;
  ws_ptx_opts opts = {.max_regs = size % 2 ? 24 : 0}; /* half the inputs under register pressure */
  ws_status st = ws_ptx_translate(ctx, (const char *)data, size, FILE_NAME, &opts, &res);
  if (st == WS_OK)
    check_program(ctx, &res);
  else
    check_message(ctx, st);
  ws_ptx_result_free(&res);
  ws_ctx_destroy(ctx);
  return 0;
}
