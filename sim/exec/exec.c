/* exec.c - the functional launcher and the fault reporter.
 *
 * Design: the launcher is deliberately the simplest possible driver of
 * ws_cta_step: one CTA object reused for every CTA in linear order, warps
 * visited round-robin, each run until it waits at a barrier or finishes.
 * Because values are computed at issue and barriers order all shared-memory
 * communication, any other legal schedule (the timing model's) gives the same
 * results for data-race-free kernels. */
#include "sim/exec/exec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "isa/asm.h"
#include "sim/exec/exec_int.h"

uint32_t ws_exec_regs_needed(const ws_kernel *k) {
  uint32_t need = k->regs_per_thread;
  for (uint32_t i = 0; i < k->ninsns; i++) {
    const ws_insn *insn = &k->insns[i];
    unsigned n = ws_isa_nopnds((ws_op)insn->op);
    for (unsigned j = 0; j < n && j < WS_MAX_OPERANDS; j++) {
      const ws_operand *o = &insn->opnd[j];
      if ((o->kind != WS_OPND_REG && o->kind != WS_OPND_MEM) || o->reg >= WS_REG_RZ) continue;
      unsigned cnt = o->kind == WS_OPND_MEM ? 2u : ws_isa_opnd_nregs(insn, j);
      uint32_t top = o->reg + cnt < WS_REG_RZ ? o->reg + cnt : WS_REG_RZ;
      if (top > need) need = top;
    }
  }
  return need ? need : 1;
}

ws_status ws_exec_fault(const ws_exec_site *s, ws_status st, uint32_t lane, const char *fmt, ...) {
  char head[512], text[160], where[96];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(head, sizeof head, fmt, ap);
  va_end(ap);
  const ws_kernel *k = s->cta->launch->kernel;
  if (ws_isa_opinfo((ws_op)s->insn->op)) ws_disasm_insn(k, s->insn, text, sizeof text);
  else snprintf(text, sizeof text, "<invalid opcode %u>", s->insn->op);
  if (lane == WS_EXEC_NO_LANE) snprintf(where, sizeof where, "warp %u", s->warp_idx);
  else snprintf(where, sizeof where, "warp %u lane %u", s->warp_idx, lane);
  const ws_dim3 c = s->cta->ctaid;
  return ws_ctx_fail(s->ctx, st, "%s\n    in kernel '%s' CTA (%u,%u,%u) %s pc %u: %s", head,
                     k->name, c.x, c.y, c.z, where, s->pc, text);
}

static ws_status budget_exhausted(ws_ctx *ctx, const ws_cta *cta, uint32_t warp,
                                  uint64_t budget) {
  const ws_kernel *k = cta->launch->kernel;
  uint32_t pc = ws_cta_warp_pc(cta, warp);
  char text[160] = "";
  if (pc < k->ninsns) ws_disasm_insn(k, &k->insns[pc], text, sizeof text);
  const ws_dim3 c = cta->ctaid;
  return ws_ctx_fail(ctx, WS_ERR_BUDGET,
                     "instruction budget of %" PRIu64 " warp instructions exhausted in kernel '%s'"
                     " (runaway loop?) at CTA (%u,%u,%u) warp %u pc %u: %s",
                     budget, k->name, c.x, c.y, c.z, warp, pc, text);
}

/* Runs one warp until it waits at a barrier, finishes or faults. */
static ws_status run_warp(ws_ctx *ctx, ws_cta *cta, uint32_t warp, uint64_t budget,
                          ws_warp_event *ev, ws_launch_stats *stats) {
  ws_warp *w = &cta->warps[warp];
  while (w->state == WS_WARP_READY) {
    if (stats->warp_insns >= budget) return budget_exhausted(ctx, cta, warp, budget);
    ws_status st = ws_cta_step(ctx, cta, warp, w->insns_issued, ev, stats);
    if (st != WS_OK) return st;
  }
  return WS_OK;
}

static ws_status run_cta(ws_ctx *ctx, ws_cta *cta, uint64_t budget, ws_warp_event *ev,
                         ws_launch_stats *stats) {
  while (!ws_cta_done(cta)) {
    for (uint32_t w = 0; w < cta->nwarps; w++) {
      ws_status st = run_warp(ctx, cta, w, budget, ev, stats);
      if (st != WS_OK) return st;
    }
  }
  return WS_OK;
}

ws_status ws_exec_run(ws_ctx *ctx, const ws_exec_launch *launch, uint64_t budget_warp_insns,
                      ws_launch_stats *stats) {
  ws_launch_stats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  ws_cta *cta = NULL;
  ws_status st = ws_cta_create(ctx, launch, &cta);
  if (st != WS_OK) return st;
  ws_warp_event ev;
  uint64_t nctas = (uint64_t)launch->grid.x * launch->grid.y * launch->grid.z;
  for (uint64_t id = 0; id < nctas && st == WS_OK; id++) {
    ws_cta_reset(cta, id);
    st = run_cta(ctx, cta, budget_warp_insns, &ev, stats);
    if (st == WS_OK) stats->ctas++;
  }
  ws_cta_destroy(cta);
  return st;
}
