/* fault.c - wording of the reports that stop a launch. */
#include "sim/exec/fault.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "isa/asm.h"

ws_status ws_fault_report(const ws_exec_site *s, ws_status st, uint32_t lane, const char *fmt, ...) {
  char head[WS_ERRMSG_MAX_BYTES], text[160], where[96]; /* a race report quotes two sites */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(head, sizeof head, fmt, ap);
  va_end(ap);
  const ws_kernel *k = s->cta->launch->kernel;
  if (ws_isa_opinfo((ws_op)s->insn->op))
    ws_disasm_insn(k, s->insn, text, sizeof text);
  else
    snprintf(text, sizeof text, "<invalid opcode %u>", s->insn->op);
  if (lane == WS_FAULT_NO_LANE)
    snprintf(where, sizeof where, "warp %u", s->warp_idx);
  else
    snprintf(where, sizeof where, "warp %u lane %u", s->warp_idx, lane);
  const ws_dim3 c = s->cta->ctaid;
  return ws_ctx_fail(s->ctx, st, "%s\n    in kernel '%s' CTA (%u,%u,%u) %s pc %u: %s", head, k->name, c.x,
                     c.y, c.z, where, s->pc, text);
}
