/* asm.h - text assembler (.wsa) and disassembler.
 *
 * Syntax summary (docs/isa.md has the full reference):
 *   .kernel saxpy              // starts a kernel; ends at the next .kernel or EOF
 *   .param .u32 n              // typed params: .u32 .s32 .f32 .u64 .ptr
 *   .shared tile 4096 16       // static shared array: name, bytes, [alignment]
 *   loop:                      // label
 *   @!P0 FFMA R4, -R1, 2.5, R4 ;   // guard, mnemonic.MODS, operands, optional ;
 * Comments run from // or # to end of line.
 *
 * Every error message has the form "FILE:LINE:COL: error: expected X, found Y".
 * The assembler never crashes or hangs on any input (fuzzed). */
#ifndef WS_ASM_H
#define WS_ASM_H

#include <stddef.h>

#include "base/ctx.h"
#include "isa/program.h"

/* Assembles `len` bytes of `src` (need not be NUL-terminated). `filename`
 * is used only in messages. On success *out owns a new program. */
ws_status ws_asm_parse(ws_ctx *ctx, const char *src, size_t len, const char *filename, ws_program **out);
/* Reads and assembles a file. */
ws_status ws_asm_file(ws_ctx *ctx, const char *path, ws_program **out);

/* Disassembles to a malloc'd NUL-terminated text that ws_asm_parse turns
 * back into an equal program. Returns NULL only when out of memory. */
char *ws_disasm_program(const ws_program *prog);
/* One instruction (no guard-free padding, no newline) into buf. */
void ws_disasm_insn(const ws_kernel *k, const ws_insn *insn, char *buf, size_t size);

#endif
