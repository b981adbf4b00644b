/* isatest.h - what the ISA suites share: assemble a source or fail the test
 * with the assembler's message.
 *
 * Design: header-only static inline, so each suite stays one executable. */
#ifndef WS_ISATEST_H
#define WS_ISATEST_H

#include <criterion/criterion.h>
#include <string.h>

#include "isa/asm.h"

static inline ws_program *it_assemble(ws_ctx *ctx, const char *src, const char *name) {
  ws_program *prog = NULL;
  ws_status st = ws_asm_parse(ctx, src, strlen(src), name, &prog);
  cr_assert_eq(st, WS_OK, "assembling %s failed: %s", name, ws_errmsg(ctx));
  return prog;
}

#endif
