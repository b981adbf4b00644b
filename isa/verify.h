/* verify.h - structural checks of a program that did not come from the
 * assembler (an object file, a generator): every opcode, modifier, operand
 * kind, register range and alignment, label target, param and shared-memory
 * reference is what the opcode table allows, so the executor can trust it. */
#ifndef WS_VERIFY_H
#define WS_VERIFY_H

#include "base/ctx.h"
#include "isa/program.h"

/* The assembler's limits, which any program must respect. */
#define WS_VERIFY_MAX_INSNS 1000000u
#define WS_VERIFY_MAX_SHARED_BYTES (1u << 30)

ws_status ws_verify_kernel(ws_ctx *ctx, const ws_kernel *k);
ws_status ws_verify_program(ws_ctx *ctx, const ws_program *prog);

#endif
