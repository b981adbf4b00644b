/* sm.c - an SM's lifecycle, CTA slots, memory completions and counters.
 *
 * Design: CTA objects (registers, shared memory) are created the first time
 * a slot is used and reset for every later CTA, so a launch allocates per
 * slot, never per CTA or instruction. A CTA retires when all its warps have
 * exited, every memory instruction it issued has completed (stores sent,
 * loads answered) and every register result it is owed has landed: a warp
 * slot cannot be handed to a new CTA while writes to it are in flight.
 * Residency counters (active cycles, resident warps) are integrated lazily
 * at each change, not per cycle. */
#include "sim/sm/sm_int.h"
#include "sim/sm/smprobe.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEVER UINT64_MAX

static const char *const stall_names[WS_STALL_COUNT] = {
    "selected",           "not_selected", "long_scoreboard", "short_scoreboard", "wait",   "bank_conflict",
    "math_pipe_throttle", "lsu_throttle", "dispatch_stall",  "barrier",          "depbar", "no_instruction"};

static const char *const stall_descs[WS_STALL_COUNT] = {
    "warp-cycles a warp issued",
    "warp-cycles a warp was eligible but another warp of its sub-partition issued",
    "warp-cycles waiting for a global- or local-memory result (LDG, LDL, ATOMG)",
    "warp-cycles waiting for an MIO result (shared memory, LDC/LDP)",
    "warp-cycles waiting for a fixed-latency result (ALU, FMA, SFU, tensor)",
    "warp-cycles waiting for the extra wavefronts of a bank-conflicted shared access",
    "warp-cycles the warp's functional unit was busy (initiation interval)",
    "warp-cycles the LSU queue, the LSU issue interval or the shared-memory backlog blocked issue",
    "warp-cycles the sub-partition's issue was held by register-bank conflicts",
    "warp-cycles waiting at BAR.SYNC",
    "warp-cycles waiting at DEPBAR for LDGSTS groups",
    "warp-cycles waiting for the target of a taken branch"};

_Static_assert(WS_CFG_MAX_WARPS_PER_SUBPARTITION <= WS_SCHED_MAX_SLOTS,
               "every warp the config allows has a scheduler slot");

/* the issue check's one-cache-line promise (sm_int.h) */
_Static_assert(offsetof(ws_twarp, sb) + sizeof(uint32_t) <= 64,
               "the fields the issue scan reads must stay in a warp's first cache line");
_Static_assert(sizeof(ws_slot) == 32, "a slot record is half a cache line");

_Static_assert(WS_STALL_COUNT == WS_PCPROF_STATES, "a profile row holds every warp state");

const char *ws_sm_stall_name(ws_stall s) { return s < WS_STALL_COUNT ? stall_names[s] : "?"; }

static void fill_unit_timing(ws_sm *sm) {
  const ws_cfg_sm *c = &sm->cfg->sm;
  sm->lat_cycles[WS_UNIT_INT] = c->int_lat_cycles, sm->ii_cycles[WS_UNIT_INT] = c->int_ii_cycles;
  sm->lat_cycles[WS_UNIT_FP32] = c->fp32_lat_cycles, sm->ii_cycles[WS_UNIT_FP32] = c->fp32_ii_cycles;
  sm->lat_cycles[WS_UNIT_SFU] = c->sfu_lat_cycles, sm->ii_cycles[WS_UNIT_SFU] = c->sfu_ii_cycles;
  sm->lat_cycles[WS_UNIT_SHFL] = c->shfl_lat_cycles, sm->ii_cycles[WS_UNIT_SHFL] = c->shfl_ii_cycles;
  sm->lat_cycles[WS_UNIT_TENSOR] = c->tensor_lat_cycles, sm->ii_cycles[WS_UNIT_TENSOR] = c->tensor_ii_cycles;
}

static ws_status register_stats(ws_sm *sm, ws_ctx *ctx, ws_stats *stats) {
#define C(field, name, desc)                                                                                 \
  { &sm->field, name, desc }
  const ws_stat_def counters[] = {
      C(cycles_active, "cycles_active", "cycles with at least one resident CTA"),
      C(warps_active_sum, "warps_active_sum",
        "sum over cycles of unfinished resident warps (achieved occupancy = this / cycles_active / max "
        "warps)"),
      C(warp_insns, "warp_insns", "warp instructions issued (guard-false included)"),
      C(thread_insns, "thread_insns", "sum over issued warp instructions of executing lanes"),
      C(flops_fp32, "flops.fp32", "fp32 FLOPs: FFMA 2, FADD/FMUL 1 per executing lane"),
      C(flops_tensor, "flops.tensor", "tensor FLOPs: 2*16*8*16 per executing HMMA.16816"),
      C(rf_bank_conflict_cycles, "rf.bank_conflict_cycles",
        "extra operand-read cycles from register-bank conflicts"),
      C(ctas_done, "ctas", "CTAs retired"),
      C(branch_taken, "branches_taken", "warp branches that redirected the warp (taken or divergent)"),
      C(lsu.line_accesses, "lsu.line_accesses",
        "line accesses (one per 128-byte line per warp instruction) accepted by memsys"),
      C(lsu.sectors, "lsu.sectors", "32-byte sectors in those line accesses"),
      C(lsu.refusals, "lsu.refusals", "line accesses memsys refused (back-pressure), retried later"),
      C(lsu.local_loads, "lsu.local_loads",
        "local-memory load warp instructions (LDL) with at least one lane"),
      C(lsu.local_stores, "lsu.local_stores",
        "local-memory store warp instructions (STL) with at least one lane"),
      C(lsu.local_bytes, "lsu.local_bytes",
        "bytes the executing lanes of LDL and STL read or wrote (per thread, before coalescing)"),
      C(lsu.smem_insns, "smem.insns", "shared-memory warp instructions with at least one lane"),
      C(lsu.smem_wavefronts, "smem.wavefronts", "shared-memory wavefronts (pipe cycles)"),
      C(lsu.smem_conflicts, "smem.bank_conflicts", "wavefronts beyond the conflict-free minimum"),
  };
#undef C
  ws_status st =
      ws_stats_register_table(stats, ctx, counters, sizeof counters / sizeof *counters, "sm%u.", sm->id);
  for (int u = 0; u < WS_UNIT_COUNT && st == WS_OK; u++) {
    char unit[16]; /* counter names are lower case: "sm3.inst_by_unit.fp32" */
    snprintf(unit, sizeof unit, "%s", ws_isa_unit_name((ws_unit)u));
    for (char *c = unit; *c; c++) *c = (char)tolower((unsigned char)*c);
    st = ws_stats_register_u64(stats, ctx, &sm->inst_by_unit[u], "warp instructions issued on this unit",
                               "sm%u.inst_by_unit.%s", sm->id, unit);
  }
  for (int s = 0; s < WS_STALL_COUNT && st == WS_OK; s++)
    st = ws_stats_register_u64(stats, ctx, &sm->stall[s], stall_descs[s], "sm%u.stall.%s", sm->id,
                               stall_names[s]);
  return st;
}

uint64_t ws_sm_state_bytes(const ws_gpu_cfg *cfg) {
  const ws_sm *sm = NULL; /* an operand of sizeof only */
  uint64_t warp = sizeof *sm->warps + ws_scoreboard_state_bytes(cfg->regfile.max_regs_per_thread);
  return (sizeof(ws_sm) + 63) / 64 * 64 + 64 * sizeof *sm->lsu.reqs +
         (uint64_t)cfg->sm.max_ctas_per_sm * sizeof *sm->slots + (uint64_t)cfg->sm.max_warps_per_sm * warp;
}

ws_status ws_sm_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t id, ws_memsys *mem, ws_stats *stats,
                       ws_sm **out) {
  /* 64-byte aligned: the slot records are laid out by cache line */
  size_t bytes = (sizeof(ws_sm) + 63) / 64 * 64;
  ws_sm *sm = aligned_alloc(64, bytes);
  if (!sm) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating an SM");
  memset(sm, 0, bytes);
  sm->cfg = cfg;
  sm->ctx = ctx;
  sm->id = id;
  sm->nsp = cfg->sm.subpartitions;
  sm->next_cycle = NEVER;
  fill_unit_timing(sm);
  sm->issue_ctx = ws_ctx_create();
  if (!sm->issue_ctx) {
    free(sm);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating an SM");
  }
  ws_status st = ws_lsu_init(ctx, &sm->lsu, cfg, mem, id);
  if (st == WS_OK) st = register_stats(sm, ctx, stats);
  if (st != WS_OK) {
    ws_sm_destroy(sm);
    return st;
  }
  *out = sm;
  return WS_OK;
}

void ws_sm_destroy(ws_sm *sm) {
  if (!sm) return;
  ws_sm_end(sm);
  ws_lsu_free(&sm->lsu);
  ws_ctx_destroy(sm->issue_ctx);
  free(sm);
}

static void layout_warps(ws_sm *sm) {
  for (uint32_t p = 0; p < sm->nsp; p++) ws_subpart_init(&sm->sp[p], sm->cfg->sm.scheduler);
  sm->sp_next_cycle = NEVER;
  for (uint32_t s = 0; s < sm->nwarps; s++) {
    ws_twarp *w = &sm->warps[s];
    ws_subpart *sp = &sm->sp[s % sm->nsp];
    w->cta_slot = s / sm->env->warps_per_cta;
    w->cta_warp = s % sm->env->warps_per_cta;
    w->sp = s % sm->nsp;
    w->sp_slot = sp->nslots;
    sp->slot[sp->nslots++].warp = (uint16_t)s;
  }
}

ws_status ws_sm_begin(ws_sm *sm, const ws_sm_env *env) {
  ws_sm_end(sm);
  sm->env = env;
  sm->probe = env->probe;
  sm->prof = env->prof ? env->prof->rows : NULL;
  sm->watched = env->probe || env->prof;
  sm->nslots = env->ctas_per_sm;
  /* the occupancy rules keep nwarps <= max_warps_per_sm, which the config
   * check keeps <= subpartitions x WS_CFG_MAX_WARPS_PER_SUBPARTITION */
  sm->nwarps = env->ctas_per_sm * env->warps_per_cta;
  sm->slots = calloc(sm->nslots, sizeof *sm->slots);
  size_t warps_bytes = (sm->nwarps ? sm->nwarps : 1) * sizeof *sm->warps; /* a multiple of 64 */
  sm->warps = aligned_alloc(_Alignof(ws_twarp), warps_bytes);
  if (sm->warps) memset(sm->warps, 0, warps_bytes);
  if (sm->prof) sm->issued_pc = calloc(sm->nwarps ? sm->nwarps : 1, sizeof *sm->issued_pc);
  bool ok = sm->slots && sm->warps && (!sm->prof || sm->issued_pc);
  for (uint32_t i = 0; ok && i < sm->nwarps; i++) ok = ws_scoreboard_init(&sm->warps[i].sb, env->nrows);
  if (!ok) return ws_ctx_fail(sm->ctx, WS_ERR_NOMEM, "host memory exhausted preparing an SM");
  layout_warps(sm);
  ws_lsu_reset(&sm->lsu);
  for (uint32_t i = 0; i < WS_SMEM_MEMO_ENTRIES; i++) sm->memo[i].pc = UINT32_MAX;
  sm->next_cycle = NEVER;
  sm->next_retire_cycle = NEVER;
  sm->age_counter = 0;
  sm->over_limit = 0;
  sm->live_warps = sm->busy_ctas = 0;
  sm->acc_cycle = 0;
  return WS_OK;
}

void ws_sm_end(ws_sm *sm) {
  for (uint32_t i = 0; sm->slots && i < sm->nslots; i++) ws_cta_destroy(sm->slots[i].cta);
  for (uint32_t i = 0; sm->warps && i < sm->nwarps; i++) ws_scoreboard_free(&sm->warps[i].sb);
  free(sm->slots);
  free(sm->warps);
  free(sm->issued_pc);
  sm->slots = NULL;
  sm->warps = NULL;
  sm->issued_pc = NULL;
  sm->nslots = sm->nwarps = 0;
}

void ws_sm_flush(ws_sm *sm, uint64_t cycle) {
  if (cycle <= sm->acc_cycle) return;
  if (sm->busy_ctas) sm->cycles_active += cycle - sm->acc_cycle;
  sm->warps_active_sum += (uint64_t)sm->live_warps * (cycle - sm->acc_cycle);
  sm->acc_cycle = cycle;
}

uint32_t ws_sm_free_slots(const ws_sm *sm) { return sm->nslots - sm->busy_ctas; }

uint64_t ws_sm_warp_insns(const ws_sm *sm) { return sm->warp_insns; }

uint64_t ws_sm_next_cycle(const ws_sm *sm) { return sm->next_cycle; }

static void wake_sp(ws_sm *sm, uint32_t sp, uint64_t cycle) {
  if (cycle < sm->sp[sp].next_cycle) sm->sp[sp].next_cycle = cycle;
  if (cycle < sm->sp[sp].woken) sm->sp[sp].woken = cycle;
  if (cycle < sm->sp_next_cycle) sm->sp_next_cycle = cycle;
  if (cycle < sm->next_cycle) sm->next_cycle = cycle;
}

/* Wakes one warp whose wait ended by an event. */
static void wake_warp(ws_sm *sm, ws_twarp *w, uint64_t cycle) {
  sm->sp[w->sp].slot[w->sp_slot].until = 0;
  wake_sp(sm, w->sp, cycle);
}

static void wake_all(ws_sm *sm, uint64_t cycle) {
  for (uint32_t p = 0; p < sm->nsp; p++) {
    for (uint32_t i = 0; i < sm->sp[p].nslots; i++) sm->sp[p].slot[i].until = 0;
    wake_sp(sm, p, cycle);
  }
}

static void start_warp(ws_sm *sm, ws_twarp *w, const ws_cta *cta, uint64_t cycle) {
  ws_scoreboard_reset(&w->sb);
  w->resident = true;
  w->finished = ws_cta_warp_state(cta, w->cta_warp) == WS_WARP_DONE;
  ws_subpart_refresh_warp(sm, w);
  w->ready_cycle = cycle;
  w->at_barrier = false;
  sm->sp[w->sp].ready_mask &= ~(1u << w->sp_slot);
  sm->sp[w->sp].not_selected_mask &= ~(1u << w->sp_slot);
  if (!w->finished) sm->sp[w->sp].live_mask |= 1u << w->sp_slot;
  w->last_result_cycle = 0;
  memset(w->group_reqs, 0, sizeof w->group_reqs);
  w->groups_committed = 0;
  w->groups_incomplete = 0;
  ws_subpart *sp = &sm->sp[w->sp];
  sp->slot[w->sp_slot].reason = sp->slot[w->sp_slot].reason2 = WS_STALL_NO_INSTRUCTION;
  sp->slot[w->sp_slot].since = cycle;
  sp->slot[w->sp_slot].split = NEVER;
  ws_sched_arrive(&sm->sp[w->sp].sched, w->sp_slot, sm->age_counter++);
}

static uint32_t find_free_slot(const ws_sm *sm) {
  for (uint32_t i = 0; i < sm->nslots; i++)
    if (!sm->slots[i].busy) return i;
  return UINT32_MAX;
}

static void check_retire(ws_sm *sm, uint32_t s, uint64_t cycle);

ws_status ws_sm_launch_cta(ws_sm *sm, uint64_t linear_id, uint64_t cycle) {
  uint32_t s = find_free_slot(sm);
  if (s == UINT32_MAX) return ws_ctx_fail(sm->ctx, WS_ERR_INVALID, "SM %u has no free CTA slot", sm->id);
  ws_cta_slot *slot = &sm->slots[s];
  if (!slot->cta) {
    ws_status st = ws_cta_create(sm->ctx, sm->env->launch, &slot->cta);
    if (st != WS_OK) return st;
  }
  ws_sm_flush(sm, cycle);
  ws_cta_reset(slot->cta, linear_id);
  slot->cta->sm_id = sm->id;
  /* its warps' local memory: the regions of the warp slots they run in */
  slot->cta->local_slot = sm->id * sm->cfg->sm.max_warps_per_sm + s * sm->env->warps_per_cta;
  if (sm->env->ffwd) ws_ffwd_arm(slot->cta, sm->env->ffwd);
  slot->ffwd_mark = 0;
  slot->busy = true;
  slot->mem_outstanding = 0;
  slot->done_cycle = cycle;
  slot->retire_cycle = NEVER;
  slot->start_cycle = cycle;
  slot->warps_left = 0;
  for (uint32_t i = 0; i < sm->env->warps_per_cta; i++) {
    ws_twarp *w = &sm->warps[s * sm->env->warps_per_cta + i];
    start_warp(sm, w, slot->cta, cycle);
    slot->warps_left += !w->finished;
  }
  sm->busy_ctas++;
  sm->live_warps += slot->warps_left;
  if (!slot->warps_left) check_retire(sm, s, cycle);
  wake_all(sm, cycle);
  return WS_OK;
}

static void check_retire(ws_sm *sm, uint32_t s, uint64_t cycle) {
  ws_cta_slot *slot = &sm->slots[s];
  if (slot->warps_left || slot->mem_outstanding) return;
  slot->retire_cycle = slot->done_cycle > cycle ? slot->done_cycle : cycle;
  if (slot->retire_cycle < sm->next_retire_cycle) sm->next_retire_cycle = slot->retire_cycle;
  if (slot->retire_cycle < sm->next_cycle) sm->next_cycle = slot->retire_cycle;
}

/* out of line, like barrier_released: rare next to the visits, and kept out of ws_sm_cycle's loop */
__attribute__((noinline)) static void warp_finished(ws_sm *sm, ws_twarp *w, uint64_t cycle) {
  ws_cta_slot *slot = &sm->slots[w->cta_slot];
  /* its final issue cycle */
  (sm->watched ? ws_subpart_charge_warp_probed : ws_subpart_charge_warp)(sm, w, cycle + 1);
  w->finished = true;
  sm->sp[w->sp].live_mask &= ~(1u << w->sp_slot);
  ws_sm_flush(sm, cycle + 1);
  sm->live_warps--;
  uint64_t done = w->last_result_cycle > cycle + 1 ? w->last_result_cycle : cycle + 1;
  if (done > slot->done_cycle) slot->done_cycle = done;
  slot->warps_left--;
  check_retire(sm, w->cta_slot, cycle);
}

__attribute__((noinline)) static void barrier_released(ws_sm *sm, uint32_t cta_slot, uint64_t cycle) {
  for (uint32_t i = 0; i < sm->env->warps_per_cta; i++) {
    ws_twarp *w = &sm->warps[cta_slot * sm->env->warps_per_cta + i];
    if (w->finished) continue;
    w->at_barrier = false;
    ws_subpart_refresh_warp(sm, w); /* the release moved it past BAR.SYNC */
    if (w->ready_cycle < cycle + 1) w->ready_cycle = cycle + 1;
    wake_warp(sm, w, cycle + 1);
    /* looked at again exactly when it can restart, whether or not its
     * sub-partition is still to be visited this cycle: the cycle between
     * the release and the restart always counts as barrier */
    sm->sp[w->sp].slot[w->sp_slot].until = cycle + 1;
  }
}

static void mem_done(ws_sm *sm, uint32_t cta_slot, uint64_t cycle) {
  sm->slots[cta_slot].mem_outstanding--;
  check_retire(sm, cta_slot, cycle);
}

static void async_done(ws_sm *sm, ws_twarp *w, uint64_t group, uint64_t cycle) {
  uint32_t *reqs = &w->group_reqs[group % WS_ASYNC_GROUPS_MAX];
  if (--*reqs == 0 && group < w->groups_committed) {
    w->groups_incomplete--;
    wake_warp(sm, w, cycle);
  }
}

bool ws_sm_mem_response(ws_sm *sm, uint64_t cookie, uint32_t lines, uint64_t cycle) {
  const ws_lsu_req *r = ws_lsu_respond(&sm->lsu, cookie, lines);
  if (!r) return false;
  if (__builtin_expect(sm->probe != NULL, 0)) ws_smprobe_mem_done(sm, r->warp, r->pc, cycle);
  ws_twarp *w = &sm->warps[r->warp];
  if (r->kind == WS_ACCESS_ASYNC)
    async_done(sm, w, r->group, cycle);
  else {
    ws_scoreboard_clear_long(&w->sb, &sm->env->table[r->pc]);
    if (!w->finished) wake_warp(sm, w, cycle);
  }
  mem_done(sm, w->cta_slot, cycle);
  return true;
}

bool ws_sm_lsu_blocked(const ws_sm *sm) { return sm->lsu.state == WS_LSU_BLOCKED; }

void ws_sm_mem_progress(ws_sm *sm, uint64_t cycle) {
  if (sm->lsu.state != WS_LSU_BLOCKED) return;
  sm->lsu.state = WS_LSU_SENDING;
  if (cycle < sm->next_cycle) sm->next_cycle = cycle;
}

void ws_sm_count_refusals(ws_sm *sm, uint64_t n) { sm->lsu.refusals += n; }

static void retire_ctas(ws_sm *sm, uint64_t cycle, uint32_t *retired) {
  if (sm->next_retire_cycle > cycle) return;
  sm->next_retire_cycle = NEVER;
  for (uint32_t s = 0; s < sm->nslots; s++) {
    ws_cta_slot *slot = &sm->slots[s];
    if (!slot->busy) continue;
    if (slot->retire_cycle > cycle) {
      if (slot->retire_cycle < sm->next_retire_cycle) sm->next_retire_cycle = slot->retire_cycle;
      continue;
    }
    ws_sm_flush(sm, cycle);
    if (sm->probe) ws_smprobe_cta(sm, s, cycle);
    slot->busy = false;
    slot->retire_cycle = NEVER;
    sm->busy_ctas--;
    sm->ctas_done++;
    for (uint32_t i = 0; i < sm->env->warps_per_cta; i++)
      sm->warps[s * sm->env->warps_per_cta + i].resident = false;
    (*retired)++;
  }
}

static void lsu_cycle(ws_sm *sm, uint64_t cycle) {
  if (sm->lsu.state != WS_LSU_SENDING) return;
  bool was_full = ws_lsu_full(&sm->lsu);
  ws_lsu_sent sent = ws_lsu_send(&sm->lsu, cycle);
  if (sent.entry_done && was_full) wake_all(sm, cycle);
  if (sent.store_warp != UINT32_MAX) mem_done(sm, sm->warps[sent.store_warp].cta_slot, cycle);
}

/* One visit of a due sub-partition: it issues, the SM acts on what the
 * issue reported (in the order the hardware's bookkeeping needs: the memory
 * instruction counts toward its CTA before a finishing warp can retire it),
 * then the sub-partition settles its next cycle. */
static ws_status visit_subpart(ws_sm *sm, ws_subpart *sp, uint64_t cycle) {
  ws_subpart_outcome out;
  ws_status st = __builtin_expect(sm->watched, 0) ? ws_subpart_issue_probed(sm, sp, cycle, &out)
                                                  : ws_subpart_issue(sm, sp, cycle, &out);
  if (st != WS_OK) return st;
  if (!out.actions) return WS_OK;
  uint32_t cta_slot = out.warp->cta_slot;
  if (out.actions & WS_SUBPART_MEM_ISSUED) sm->slots[cta_slot].mem_outstanding++;
  if (out.actions & WS_SUBPART_BAR_RELEASED) barrier_released(sm, cta_slot, cycle);
  if (out.actions & WS_SUBPART_WARP_DONE) warp_finished(sm, out.warp, cycle);
  if (out.actions & WS_SUBPART_FINISH)
    (sm->watched ? ws_subpart_finish_probed : ws_subpart_finish)(sm, sp, cycle, &out);
  return WS_OK;
}

static uint64_t compute_next(const ws_sm *sm, uint64_t cycle) {
  uint64_t next = sm->lsu.state == WS_LSU_SENDING ? cycle + 1 : NEVER;
  if (sm->sp_next_cycle < next) next = sm->sp_next_cycle;
  if (sm->next_retire_cycle < next) next = sm->next_retire_cycle;
  return next > cycle ? next : cycle + 1;
}

/* Visits the due sub-partitions; a visit may move any of their next
 * cycles (its own, and others' through a barrier release), so the
 * earliest is taken again after all of them. */
static ws_status visit_subparts(ws_sm *sm, uint64_t cycle) {
  for (uint32_t p = 0; p < sm->nsp; p++) {
    if (sm->sp[p].next_cycle > cycle) continue; /* asleep: skip the call */
    ws_status st = visit_subpart(sm, &sm->sp[p], cycle);
    if (st != WS_OK) return st;
  }
  sm->sp_next_cycle = NEVER;
  for (uint32_t p = 0; p < sm->nsp; p++)
    if (sm->sp[p].next_cycle < sm->sp_next_cycle) sm->sp_next_cycle = sm->sp[p].next_cycle;
  return WS_OK;
}

void ws_sm_cycle_send(ws_sm *sm, uint64_t cycle, uint32_t *retired) {
  *retired = 0;
  retire_ctas(sm, cycle, retired);
  lsu_cycle(sm, cycle);
}

ws_status ws_sm_cycle_issue(ws_sm *sm, uint64_t cycle, ws_sm_tally *tally, ws_sm_issued *out) {
  out->retired = 0;
  sm->tally = tally;
  ws_status st = WS_OK;
  if (sm->sp_next_cycle <= cycle) st = visit_subparts(sm, cycle);
  if (st == WS_OK) {
    retire_ctas(sm, cycle, &out->retired);
    sm->next_cycle = sm->busy_ctas || sm->lsu.count ? compute_next(sm, cycle) : NEVER;
  }
  out->next_cycle = sm->next_cycle;
  out->lsu_blocked = sm->lsu.state == WS_LSU_BLOCKED;
  out->over_limit = sm->over_limit != 0;
  return st;
}

ws_ctx *ws_sm_issue_ctx(const ws_sm *sm) { return sm->issue_ctx; }

bool ws_sm_over_limit(const ws_sm *sm, const ws_cta **cta, uint32_t *warp) {
  if (!sm->over_limit) return false;
  const ws_twarp *w = &sm->warps[sm->over_limit - 1];
  *cta = sm->slots[w->cta_slot].cta;
  *warp = w->cta_warp;
  return true;
}

bool ws_sm_issued_at(const ws_sm *sm, uint32_t sp, uint64_t cycle, const ws_cta **cta, uint32_t *warp) {
  if (sp >= sm->nsp || sm->sp[sp].issued_cycle != cycle || !sm->warps) return false;
  const ws_twarp *w = &sm->warps[sm->sp[sp].issued_warp];
  *cta = sm->slots[w->cta_slot].cta;
  *warp = w->cta_warp;
  return true;
}

/* ---- sampling inside CTAs --------------------------------------------------------- */

void ws_sm_ffwd_view_init(ws_sm_ffwd_view *v) {
  *v = (ws_sm_ffwd_view){.min_rounds = NEVER, .min_since_mark = NEVER};
}

void ws_sm_ffwd_look(const ws_sm *sm, ws_sm_ffwd_view *v) {
  for (uint32_t s = 0; s < sm->nslots; s++) {
    const ws_cta_slot *slot = &sm->slots[s];
    if (!slot->busy) continue;
    uint64_t r = ws_ffwd_rounds(slot->cta, sm->env->ffwd);
    v->ctas++;
    if (r < v->min_rounds) v->min_rounds = r;
    uint64_t since = r >= slot->ffwd_mark ? r - slot->ffwd_mark : 0;
    if (since < v->min_since_mark) v->min_since_mark = since;
  }
}

static uint64_t cta_insns(const ws_cta *cta) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < cta->nwarps; i++) n += cta->warps[i].insns_issued;
  return n;
}

void ws_sm_ffwd_mark(ws_sm *sm) {
  for (uint32_t s = 0; s < sm->nslots; s++) {
    ws_cta_slot *slot = &sm->slots[s];
    if (!slot->busy) continue;
    slot->ffwd_mark = ws_ffwd_rounds(slot->cta, sm->env->ffwd);
    ws_ffwd_mark_warps(slot->cta, false);
    slot->ffwd_mark_insns = cta_insns(slot->cta);
  }
}

uint32_t ws_sm_ffwd_ctas(ws_sm *sm, ws_cta **out, uint64_t *insns, uint32_t max) {
  uint32_t n = 0;
  for (uint32_t s = 0; s < sm->nslots && n < max; s++) {
    if (!sm->slots[s].busy) continue;
    insns[n] = cta_insns(sm->slots[s].cta) - sm->slots[s].ffwd_mark_insns;
    out[n++] = sm->slots[s].cta;
  }
  return n;
}

/* A warp whose pc moved under the timing model: it is looked at afresh
 * from the next cycle, as after a barrier release; what it had in flight
 * (loads, LDGSTS groups, results) still lands when it was due. */
static void ffwd_follow(ws_sm *sm, ws_twarp *w, uint64_t cycle) {
  const ws_cta *cta = sm->slots[w->cta_slot].cta;
  ws_subpart *sp = &sm->sp[w->sp];
  uint32_t bit = 1u << w->sp_slot;
  w->at_barrier = ws_cta_warp_state(cta, w->cta_warp) == WS_WARP_AT_BARRIER;
  ws_subpart_refresh_warp(sm, w);
  if (w->ready_cycle < cycle + 1) w->ready_cycle = cycle + 1;
  sp->ready_mask &= ~bit;
  sp->not_selected_mask &= ~bit;
  wake_warp(sm, w, cycle + 1);
}

static void ffwd_resume_slot(ws_sm *sm, uint32_t s, uint64_t cycle) {
  for (uint32_t i = 0; i < sm->env->warps_per_cta; i++) {
    ws_twarp *w = &sm->warps[s * sm->env->warps_per_cta + i];
    if (!w->finished) ffwd_follow(sm, w, cycle);
  }
}

void ws_sm_ffwd_resume(ws_sm *sm, uint64_t cycle) {
  for (uint32_t s = 0; s < sm->nslots; s++)
    if (sm->slots[s].busy) ffwd_resume_slot(sm, s, cycle);
}

bool ws_sm_ffwd_resume_cta(ws_sm *sm, const ws_cta *cta, uint64_t cycle) {
  for (uint32_t s = 0; s < sm->nslots; s++)
    if (sm->slots[s].busy && sm->slots[s].cta == cta) {
      ffwd_resume_slot(sm, s, cycle);
      return true;
    }
  return false;
}
