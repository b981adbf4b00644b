/* fault.c - wording of the reports that stop a launch. */
#include "sim/exec/fault.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "isa/asm.h"

ws_status ws_fault_report(const ws_exec_site *s, ws_status st, uint32_t lane, const char *fmt, ...) {
  char head[512], text[160], where[96];
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

ws_status ws_fault_budget(ws_ctx *ctx, const ws_cta *cta, uint32_t warp, uint32_t pc,
                          uint64_t budget_warp_insns) {
  const ws_kernel *k = cta->launch->kernel;
  char text[160] = "";
  if (pc < k->ninsns) ws_disasm_insn(k, &k->insns[pc], text, sizeof text);
  const ws_dim3 c = cta->ctaid;
  return ws_ctx_fail(ctx, WS_ERR_BUDGET,
                     "instruction budget of %" PRIu64 " warp instructions exhausted in kernel '%s'"
                     " (runaway loop?) at CTA (%u,%u,%u) warp %u pc %u: %s",
                     budget_warp_insns, k->name, c.x, c.y, c.z, warp, pc, text);
}
