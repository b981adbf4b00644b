/* cta.c - one CTA's lifecycle and the single-instruction step.
 *
 * Design: the step decodes the guard once into a lane mask, handles control
 * flow (BRA, EXIT, BAR.SYNC) here because it changes the SIMT stack and the
 * barrier, and hands everything else to the unit files. After every step the
 * warp is "settled": reconverged stack entries are popped and an entry that
 * ran past the last instruction exits its lanes, so the next step always
 * finds a real instruction (or the warp done). */
#include "sim/exec/cta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/analysis.h"
#include "sim/exec/exec_int.h"
#include "sim/exec/local.h"
#include "sim/exec/sanitize.h"
#include "sim/exec/slice.h"
#include "sim/exec/taint.h"

uint32_t ws_cta_regs_needed(const ws_kernel *k) {
  uint32_t touched = ws_analysis_regs(k);
  return k->regs_per_thread > touched ? k->regs_per_thread : touched;
}

ws_status ws_cta_create(ws_ctx *ctx, const ws_exec_launch *launch, ws_cta **out) {
  ws_cta *cta = calloc(1, sizeof *cta);
  if (!cta) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating a CTA");
  const ws_dim3 b = launch->block;
  cta->launch = launch;
  cta->ffwd_bra_pc = cta->ffwd_bar_pc = UINT32_MAX;
  cta->nthreads = b.x * b.y * b.z;
  cta->nwarps = (cta->nthreads + WS_WARP_LANES - 1) / WS_WARP_LANES;
  cta->smem_bytes = launch->kernel->shared_size_bytes + launch->dyn_shared_bytes;
  cta->smem = calloc(cta->smem_bytes ? cta->smem_bytes : 1, 1);
  cta->warps = calloc(cta->nwarps ? cta->nwarps : 1, sizeof *cta->warps);
  bool ok = cta->smem && cta->warps;
  uint32_t rows = ws_cta_regs_needed(launch->kernel);
  for (uint32_t i = 0; ok && i < cta->nwarps; i++) ok = ws_warp_init(&cta->warps[i], rows);
  if (!ok) {
    ws_cta_destroy(cta);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating a CTA");
  }
  ws_status st = WS_OK;
  if (launch->sanitize) st = ws_sanitize_cta_create(ctx, launch->sanitize, cta, &cta->san);
  if (st == WS_OK && launch->taint) st = ws_taint_cta_create(ctx, launch->taint, cta, &cta->tnt);
  if (st != WS_OK) {
    ws_cta_destroy(cta);
    return st;
  }
  cta->shadowed = cta->san || cta->tnt;
  *out = cta;
  return WS_OK;
}

void ws_cta_destroy(ws_cta *cta) {
  if (!cta) return;
  ws_sanitize_cta_destroy(cta->san);
  ws_taint_cta_destroy(cta->tnt);
  for (uint32_t i = 0; cta->warps && i < cta->nwarps; i++) ws_warp_free(&cta->warps[i]);
  free(cta->warps);
  free(cta->smem);
  free(cta);
}

static void settle(ws_cta *cta, ws_warp *w, ws_warp_step *step);

void ws_cta_reset(ws_cta *cta, uint64_t linear_id) {
  const ws_dim3 g = cta->launch->grid;
  cta->linear_id = linear_id;
  cta->sm_id = cta->launch->num_sms ? (uint32_t)(linear_id % cta->launch->num_sms) : 0u;
  cta->local_slot = ws_local_functional_slot(cta->launch);
  cta->ctaid.x = (uint32_t)(linear_id % g.x);
  cta->ctaid.y = (uint32_t)(linear_id / g.x % g.y);
  cta->ctaid.z = (uint32_t)(linear_id / ((uint64_t)g.x * g.y));
  memset(cta->smem, 0, cta->smem_bytes);
  if (cta->san) ws_sanitize_cta_reset(cta->san);
  if (cta->tnt) ws_taint_cta_reset(cta->tnt);
  const ws_slice *slice = cta->launch->slice;
  bool sliced = !cta->shadowed && ws_slice_applies(slice, linear_id);
  cta->roles = sliced ? slice->roles : NULL;
  cta->runs = sliced ? slice->runs : NULL;
  cta->warps_waiting = 0;
  cta->warps_done = 0;
  cta->ffwd_releases = 0;
  for (uint32_t i = 0; i < cta->nwarps; i++) {
    uint32_t lanes = cta->nthreads - i * WS_WARP_LANES;
    ws_warp *w = &cta->warps[i];
    ws_warp_reset(w, lanes >= WS_WARP_LANES ? UINT32_MAX : (1u << lanes) - 1u);
    if (w->state == WS_WARP_DONE)
      cta->warps_done++;
    else
      settle(cta, w, NULL);
  }
}

uint32_t ws_cta_warp_pc(const ws_cta *cta, uint32_t warp) {
  const ws_simt *s = &cta->warps[warp].simt;
  return s->depth ? s->entries[s->depth - 1].pc : cta->launch->kernel->ninsns;
}

/* Releases the barrier once every unfinished warp waits at it. */
static void try_release(ws_cta *cta, ws_warp_step *step) {
  if (!cta->warps_waiting || cta->warps_waiting + cta->warps_done != cta->nwarps) return;
  if (cta->san) ws_sanitize_barrier(cta->san, cta);
  cta->warps_waiting = 0;
  if (step) {
    step->flags |= WS_STEP_BAR_RELEASED;
    cta->ffwd_releases += step->pc == cta->ffwd_bar_pc;
  }
  for (uint32_t i = 0; i < cta->nwarps; i++) {
    ws_warp *w = &cta->warps[i];
    if (w->state != WS_WARP_AT_BARRIER) continue;
    w->state = WS_WARP_READY;
    settle(cta, w, NULL);
  }
}

/* `lanes` finish: they leave the SIMT stack; the warp is done when none live. */
static void finish_lanes(ws_cta *cta, ws_warp *w, uint32_t lanes, ws_warp_step *step) {
  ws_simt_exit(&w->simt, lanes);
  w->live &= ~lanes;
  if (w->live || w->state == WS_WARP_DONE) return;
  w->state = WS_WARP_DONE;
  cta->warps_done++;
  if (step) step->flags |= WS_STEP_DONE;
  try_release(cta, step);
}

/* Pops reconverged entries; an entry past the last instruction exits. */
static void settle(ws_cta *cta, ws_warp *w, ws_warp_step *step) {
  const uint32_t ninsns = cta->launch->kernel->ninsns;
  for (;;) {
    ws_simt_settle(&w->simt);
    ws_simt_entry *top = ws_simt_top(&w->simt);
    if (!top || top->pc < ninsns) break;
    finish_lanes(cta, w, top->mask, step);
  }
}

static void exec_exit(ws_cta *cta, ws_warp *w, const ws_exec_site *s) {
  ws_simt_entry *top = ws_simt_top(&w->simt);
  if (top->mask & ~s->exec) top->pc = s->pc + 1;
  if (s->exec) finish_lanes(cta, w, s->exec, s->step);
}

/* Writes "lanes 0-15,20" style text for a lane mask. */
static void lane_list(uint32_t mask, char *buf, size_t size) {
  size_t used = (size_t)snprintf(buf, size, "lane%s ", (mask & (mask - 1)) ? "s" : "");
  const char *sep = "";
  for (uint32_t l = 0; l < WS_WARP_LANES && used < size; l++) {
    if (!(mask >> l & 1u)) continue;
    uint32_t end = l;
    while (end + 1 < WS_WARP_LANES && (mask >> (end + 1) & 1u)) end++;
    if (end == l)
      used += (size_t)snprintf(buf + used, size - used, "%s%u", sep, l);
    else
      used += (size_t)snprintf(buf + used, size - used, "%s%u-%u", sep, l, end);
    sep = ",";
    l = end;
  }
}

static ws_status exec_bar(ws_cta *cta, ws_warp *w, const ws_exec_site *s) {
  ws_simt_entry *top = ws_simt_top(&w->simt);
  top->pc = s->pc + 1;
  if (!s->exec) return WS_OK;
  if (s->exec != w->live) {
    char lanes[160];
    lane_list(s->exec, lanes, sizeof lanes);
    return ws_fault_report(s, WS_ERR_FAULT, WS_FAULT_NO_LANE,
                           "divergent barrier: reached by %d of %d live threads of warp %u (%s)",
                           __builtin_popcount(s->exec), __builtin_popcount(w->live), s->warp_idx, lanes);
  }
  w->state = WS_WARP_AT_BARRIER;
  cta->warps_waiting++;
  s->step->flags |= WS_STEP_BAR_ARRIVED;
  try_release(cta, s->step);
  return WS_OK;
}

static ws_status exec_bra(ws_warp *w, const ws_exec_site *s) {
  const ws_insn *insn = s->insn;
  uint32_t target = (uint32_t)insn->opnd[0].imm;
  w->ffwd_backedges += s->pc == s->cta->ffwd_bra_pc && s->exec;
  if (!ws_simt_branch(&w->simt, s->pc, target, insn->rpc, s->exec))
    return ws_ctx_fail(s->ctx, WS_ERR_NOMEM, "host memory exhausted growing a SIMT stack");
  return WS_OK;
}

static void count(ws_launch_stats *stats, const ws_opinfo *info, uint32_t exec) {
  stats->warp_insns++;
  stats->thread_insns += ws_lane_count(exec);
  stats->warp_insns_by_unit[info->unit]++;
}

/* Inlined into both steps: called from two places, the compiler would
 * otherwise make it a call on every instruction (+5 % host instructions in
 * functional mode, measured with callgrind). */
/* roles: the CTA's slice roles (NULL, a constant in the common step, lets
 * the compiler drop the test): a skipped instruction is issued, not
 * computed (HMMA still faults on a partial warp). */
static inline __attribute__((always_inline)) ws_status
dispatch(ws_cta *cta, ws_warp *w, const ws_exec_site *s, const ws_opinfo *info, const uint8_t *roles) {
  ws_status st = WS_OK;
  bool skip = roles && roles[s->pc] == WS_SLICE_SKIP;
  switch ((ws_op)s->insn->op) {
  case WS_OP_BRA: return exec_bra(w, s);
  case WS_OP_EXIT: exec_exit(cta, w, s); return WS_OK;
  case WS_OP_BAR: return exec_bar(cta, w, s);
  case WS_OP_NOP: break;
  case WS_OP_HMMA: st = s->exec && !(skip && s->exec == UINT32_MAX) ? ws_exec_alu_hmma(s) : WS_OK; break;
  default:
    if (info->unit == WS_UNIT_LSU)
      st = ws_exec_mem(s);
    else if (s->exec && !skip)
      ws_exec_alu(s);
    break;
  }
  ws_simt_top(&w->simt)->pc = s->pc + 1;
  return st;
}

/* The step under a shadow (--check, pixel following): the checks and the
 * tags see the register reads before the instruction runs, and its writes
 * and memory accesses after. */
static __attribute__((noinline, cold)) ws_status step_shadowed(ws_cta *cta, ws_warp *w, const ws_exec_site *s,
                                                               const ws_opinfo *info) {
  ws_status st = cta->san ? ws_sanitize_before(cta->san, s) : WS_OK;
  if (cta->tnt) ws_taint_before(cta->tnt, s);
  if (st == WS_OK) st = dispatch(cta, w, s, info, NULL);
  if (st != WS_OK) return st;
  if (w->state == WS_WARP_READY) settle(cta, w, s->step);
  if (cta->tnt && (st = ws_taint_after(cta->tnt, s)) != WS_OK) return st;
  return cta->san ? ws_sanitize_after(cta->san, s) : WS_OK;
}

/* The step of a CTA running the slice. */
static __attribute__((noinline)) ws_status step_sliced(ws_cta *cta, ws_warp *w, const ws_exec_site *s,
                                                       const ws_opinfo *info) {
  ws_status st = dispatch(cta, w, s, info, cta->roles);
  if (st == WS_OK && w->state == WS_WARP_READY) settle(cta, w, s->step);
  return st;
}

ws_status ws_cta_step(ws_ctx *ctx, ws_cta *cta, uint32_t warp, uint64_t clock, ws_warp_step *step,
                      ws_launch_stats *stats) {
  ws_warp *w = &cta->warps[warp];
  const ws_simt_entry *top = ws_simt_top(&w->simt);
  const ws_insn *insn = &cta->launch->kernel->insns[top->pc];
  uint32_t guard = w->preds[insn->guard & 7u] ^ (insn->guard_neg ? UINT32_MAX : 0u);
  ws_exec_site s = {ctx, cta, w, warp, top->pc, insn, top->mask & guard, clock, step};
  step->pc = s.pc;
  step->op = insn->op;
  step->flags = 0;
  step->active_mask = s.exec;
  step->space = WS_SPACE_NONE;
  step->width_bytes = 0;
  step->tag_lanes = 0;
  step->tag_result = 0;
  const ws_opinfo *info = ws_isa_opinfo((ws_op)insn->op);
  if (!info) return ws_fault_report(&s, WS_ERR_FAULT, WS_FAULT_NO_LANE, "invalid opcode %u", insn->op);
  w->insns_issued++;
  if (stats) count(stats, info, s.exec);
  if (cta->shadowed) return step_shadowed(cta, w, &s, info);
  if (cta->roles) return step_sliced(cta, w, &s, info);
  ws_status st = dispatch(cta, w, &s, info, NULL);
  if (st != WS_OK) return st;
  if (w->state == WS_WARP_READY) settle(cta, w, step);
  return WS_OK;
}

uint64_t ws_cta_pass_run(ws_cta *cta, uint32_t warp, uint64_t max, ws_launch_stats *stats) {
  ws_warp *w = &cta->warps[warp];
  ws_simt_entry *top = ws_simt_top(&w->simt);
  uint64_t n = cta->runs[top->pc];
  if (n > max) n = max;
  if (n < 2) return 0; /* one instruction: the step is as cheap */
  const ws_insn *insns = cta->launch->kernel->insns;
  for (uint64_t i = 0; i < n; i++)
    stats->warp_insns_by_unit[ws_isa_opinfo((ws_op)insns[top->pc + i].op)->unit]++;
  stats->warp_insns += n;
  stats->thread_insns += n * ws_lane_count(top->mask);
  w->insns_issued += n;
  top->pc += (uint32_t)n;
  settle(cta, w, NULL); /* a run ends before the kernel's end: this only pops a reconvergence */
  return n;
}
