/* subpart.c - one SM sub-partition's issue stage: classify every warp
 * (eligible, or why not), let the scheduler pick one eligible warp, execute
 * it through ws_cta_step and book its timing: unit occupancy, result ready
 * cycles, memory requests, branch and barrier effects.
 *
 * Design: classification computes, for each warp that cannot issue, both its
 * stall reason and the cycle at which that reason ends by itself (a result
 * becomes ready, a unit frees) or "never without an event" (memory,
 * barrier); the sub-partition then sleeps until the earliest such cycle, so
 * idle time costs nothing. The checks run in a fixed priority (the first
 * that blocks names the stall), mirroring Nsight Compute's reasons.
 *
 * The file is compiled twice: as itself, and by subpart_probed.c with
 * WS_SUBPART_PROBED set and every public name suffixed _probed. Only the
 * second reports to the probe (sim/sm/smprobe.h), and the SM calls it only
 * when a probe is set, so the issue path without one has no test for it at
 * all: a test per stall-reason change alone cost 2.6% of a timing run. */
#include <inttypes.h>
#include <string.h>

#include "sim/exec/fault.h"
#include "sim/sm/sm_int.h"
#include "sim/sm/smprobe.h"

#ifndef WS_SUBPART_PROBED
#define WS_SUBPART_PROBED 0
#endif

#define NEVER UINT64_MAX

void ws_subpart_init(ws_subpart *sp, ws_sched_policy policy) {
  memset(sp, 0, sizeof *sp);
  ws_sched_init(&sp->sched, policy);
  sp->next_cycle = NEVER;
  sp->issued_cycle = NEVER;
}

#if WS_SUBPART_PROBED
/* One span of slot i's warp in state r, to the probe (whose issue records
 * stand for the `selected` spans) and to the profile: a `selected` span at
 * the instruction the warp issued, any other at the one it waits to issue
 * (a barrier's wait, charged once the release moved the warp on, lands on
 * the instruction after BAR.SYNC, where Nsight Compute shows it too). */
static void watch_span(ws_sm *sm, ws_subpart *sp, uint32_t i, uint8_t r, uint64_t begin, uint64_t end) {
  if (sm->probe && r != WS_STALL_SELECTED) ws_smprobe_stall(sm, sp, i, r, begin, end);
  if (!sm->prof) return;
  uint32_t wslot = sp->slot[i].warp;
  uint32_t pc =
      r == WS_STALL_SELECTED ? sm->issued_pc[wslot] : (uint32_t)(sm->warps[wslot].next - sm->env->table);
  sm->prof[pc].state_cycles[r] += end - begin;
}

/* The spans charged, split where the reason changes as the charge does. */
static __attribute__((noinline, cold)) void probe_charge(ws_sm *sm, ws_subpart *sp, uint32_t i,
                                                         uint64_t cycle) {
  uint64_t since = sp->slot[i].since, split = sp->slot[i].split;
  uint8_t r = sp->slot[i].reason;
  if (split < cycle && split > since) {
    watch_span(sm, sp, i, r, since, split);
    since = split;
  }
  if (split < cycle) r = sp->slot[i].reason2;
  watch_span(sm, sp, i, r, since, cycle);
}

/* The instruction just issued, into the profile's row of its pc. */
static __attribute__((noinline, cold)) void prof_issue(ws_sm *sm, const ws_scoreboard_insn *si,
                                                       uint32_t wslot) {
  const ws_warp_step *step = &sm->step;
  ws_pcprof_row *row = &sm->prof[step->pc];
  sm->issued_pc[wslot] = step->pc;
  row->warp_insns++;
  row->thread_insns += ws_lane_count(step->active_mask);
  if (si->unit != WS_UNIT_LSU || !step->active_mask) return;
  if (si->mem_class == WS_MEMC_SHARED) {
    row->smem_insns++;
    row->smem_wavefronts += sm->smem_wf;
    row->smem_conflicts += sm->smem_wf > sm->smem_ideal ? sm->smem_wf - sm->smem_ideal : 0;
  } else if (si->mem_class == WS_MEMC_GLOBAL) {
    const ws_lsu *l = &sm->lsu;
    const ws_lsu_entry *e = &l->queue[(l->head + l->count - 1) & (l->depth - 1)];
    row->global_insns++;
    for (uint32_t k = 0; k < e->nlines; k++)
      row->sectors += (uint32_t)__builtin_popcount(e->lines[k].sector_mask);
  }
}
#endif

void ws_subpart_charge(ws_sm *sm, ws_subpart *sp, uint32_t i, uint64_t cycle) {
  uint64_t since = sp->slot[i].since, split = sp->slot[i].split;
  if (cycle <= since) return;
#if WS_SUBPART_PROBED
  probe_charge(sm, sp, i, cycle);
#endif
  if (split < cycle) {
    if (split > since) sm->stall[sp->slot[i].reason] += split - since;
    sp->slot[i].reason = sp->slot[i].reason2;
    since = split > since ? split : since;
    sp->slot[i].split = NEVER;
  }
  sm->stall[sp->slot[i].reason] += cycle - since;
  sp->slot[i].since = cycle;
}

void ws_subpart_charge_warp(ws_sm *sm, ws_twarp *w, uint64_t cycle) {
  ws_subpart_charge(sm, &sm->sp[w->sp], w->sp_slot, cycle);
}

static void set_reason_split(ws_sm *sm, ws_subpart *sp, uint32_t i, ws_stall r, uint64_t cycle,
                             uint64_t split, ws_stall r2) {
  ws_subpart_charge(sm, sp, i, cycle);
  sp->slot[i].reason = (uint8_t)r;
  sp->slot[i].reason2 = (uint8_t)r2;
  sp->slot[i].split = split;
}

void ws_subpart_set_reason(ws_sm *sm, ws_subpart *sp, uint32_t i, ws_stall r, uint64_t cycle) {
  set_reason_split(sm, sp, i, r, cycle, NEVER, r);
}

typedef struct verdict {
  ws_stall reason; /* WS_STALL_SELECTED here means eligible */
  uint64_t until;  /* when the reason ends by itself; NEVER: needs an event */
  uint64_t split;  /* shared-conflict part of a short-scoreboard wait */
  bool resource;   /* the warp itself is ready: only the issue stage, its unit or the LSU hold it */
} verdict;

static verdict blocked(ws_stall r, uint64_t until) { return (verdict){r, until, NEVER, false}; }

static verdict held(ws_stall r, uint64_t until) { return (verdict){r, until, NEVER, true}; }

static verdict classify_deps(const ws_sm *sm, const ws_subpart *sp, const ws_twarp *w,
                             const ws_scoreboard_insn *si, uint64_t t) {
  ws_scoreboard_slot dep = w->next_dep;
  if (dep.ready_cycle > t) {
    if (dep.kind == WS_SCOREBOARD_FIXED) return blocked(WS_STALL_WAIT, dep.ready_cycle);
    verdict v = blocked(WS_STALL_SHORT_SCOREBOARD, dep.ready_cycle);
    if (dep.conflict_cycles) v.split = dep.ready_cycle - dep.conflict_cycles;
    return v;
  }
  if (sp->issue_free > t) return held(WS_STALL_DISPATCH, sp->issue_free);
  if (sp->unit_free[si->unit] > t)
    return held(si->unit == WS_UNIT_LSU ? WS_STALL_LSU_THROTTLE : WS_STALL_MATH_PIPE,
                sp->unit_free[si->unit]);
  if (si->mem_class == WS_MEMC_GLOBAL && ws_lsu_full(&sm->lsu)) return held(WS_STALL_LSU_THROTTLE, NEVER);
  if (si->mem_class == WS_MEMC_SHARED && ws_lsu_smem_accept_cycle(&sm->lsu) > t)
    return held(WS_STALL_LSU_THROTTLE, ws_lsu_smem_accept_cycle(&sm->lsu));
  return held(WS_STALL_SELECTED, t);
}

static verdict classify(const ws_sm *sm, const ws_subpart *sp, const ws_twarp *w, uint64_t t) {
  if (w->at_barrier) return blocked(WS_STALL_BARRIER, NEVER);
  if (w->ready_cycle > t) return blocked(WS_STALL_NO_INSTRUCTION, w->ready_cycle);
  const ws_scoreboard_insn *si = w->next;
  if (ws_scoreboard_long_blocked(&w->sb, si)) return blocked(WS_STALL_LONG_SCOREBOARD, NEVER);
  if (si->mem_class == WS_MEMC_WAIT && w->groups_incomplete > si->wait_groups)
    return blocked(WS_STALL_DEPBAR, NEVER);
  if (si->mem_class == WS_MEMC_COMMIT && w->groups_incomplete >= sm->cfg->sm.async_groups)
    return blocked(WS_STALL_DEPBAR, NEVER);
  return classify_deps(sm, sp, w, si, t);
}

void ws_subpart_refresh_pc(const ws_sm *sm, ws_twarp *w) {
  const ws_cta *cta = sm->slots[w->cta_slot].cta;
  uint32_t pc = ws_cta_warp_pc(cta, w->cta_warp);
  /* a finished warp points at a harmless row: it is never classified again */
  w->next = &sm->env->table[pc < sm->env->launch->kernel->ninsns ? pc : 0];
}

void ws_subpart_refresh_warp(const ws_sm *sm, ws_twarp *w) {
  ws_subpart_refresh_pc(sm, w);
  w->next_dep = ws_scoreboard_latest(&w->sb, w->next, 0);
}

static void count_issue(ws_sm *sm, const ws_scoreboard_insn *si, uint32_t active) {
  uint32_t lanes = ws_lane_count(active);
  sm->warp_insns++;
  sm->thread_insns += lanes;
  sm->inst_by_unit[si->unit]++;
  if (si->flop_kind == WS_FLOP_LANE1)
    sm->flops_fp32 += lanes;
  else if (si->flop_kind == WS_FLOP_LANE2)
    sm->flops_fp32 += 2ull * lanes;
  else if (si->flop_kind == WS_FLOP_MMA && active)
    sm->flops_tensor += 2ull * 16 * 8 * 16;
}

static void set_short(ws_twarp *w, const ws_scoreboard_insn *si, uint64_t ready, ws_scoreboard_kind kind,
                      uint32_t conflict) {
  if (!si->nwrites) return;
  ws_scoreboard_set_short(&w->sb, si, ready, kind, (uint16_t)(conflict < UINT16_MAX ? conflict : UINT16_MAX));
  if (ready > w->last_result_cycle) w->last_result_cycle = ready;
}

/* Wavefronts a conflict-free access needs: one per phase with an active
 * lane (phases of 128 bytes of request: the whole warp for <= 4-byte
 * accesses, half-warps for 8, quarter-warps for 16), as ws_coalesce models. */
static uint32_t ideal_wavefronts(uint32_t active, uint32_t width_bytes) {
  uint32_t lanes = width_bytes <= 4 ? 32u : 128u / width_bytes, n = 0;
  for (uint32_t first = 0; first < 32; first += lanes)
    n += (active >> first & (lanes == 32 ? UINT32_MAX : (1u << lanes) - 1u)) != 0;
  return n;
}

/* A full warp reading consecutive words touches each bank once per phase,
 * as does a full warp reading one word (broadcast): skip the bank model for
 * these, the commonest shared accesses. That holds when one bank row holds
 * a phase's 128 bytes and each lane's access is whole bank words; a
 * narrower memory (16 banks, say) goes through the bank model. */
static bool trivially_conflict_free(const ws_warp_step *step, uint32_t banks, uint32_t bank_width_bytes) {
  if (step->active_mask != UINT32_MAX || step->width_bytes < bank_width_bytes) return false;
  if (banks * bank_width_bytes < 128u || step->width_bytes % bank_width_bytes) return false;
  uint64_t stride = step->addr[1] - step->addr[0];
  if ((stride != step->width_bytes && stride != 0) || step->addr[0] % bank_width_bytes) return false;
  uint64_t off = 0; /* accumulated without an early exit: a branch-free loop */
  for (uint32_t l = 2; l < WS_WARP_LANES; l++) off |= (step->addr[l] - step->addr[l - 1]) ^ stride;
  return off == 0;
}

static bool memo_matches(const ws_smem_memo *e, const ws_warp_step *step, uint32_t row_offset) {
  if (e->pc != step->pc || e->mask != step->active_mask || e->row_offset != row_offset ||
      e->width_bytes != step->width_bytes)
    return false;
  uint32_t off = 0; /* accumulated without an early exit: a branch-free loop */
  for (uint32_t l = 0; l < WS_WARP_LANES; l++)
    off |= (uint32_t)(e->delta[l] ^ (int32_t)(step->addr[l] - step->addr[0]));
  return off == 0;
}

static uint32_t smem_wavefronts(ws_sm *sm, const ws_warp_step *step, uint32_t ideal) {
  const ws_gpu_cfg *cfg = sm->cfg;
  if (!step->active_mask) return 0;
  if (trivially_conflict_free(step, cfg->smem.banks, cfg->smem.bank_width_bytes)) return ideal;
  uint32_t row = cfg->smem.banks * cfg->smem.bank_width_bytes;
  uint32_t row_offset = row ? (uint32_t)(step->addr[0] % row) : 0;
  ws_smem_memo *e = &sm->memo[step->pc % WS_SMEM_MEMO_ENTRIES];
  if (memo_matches(e, step, row_offset)) return e->wavefronts;
  e->pc = step->pc;
  e->mask = step->active_mask;
  e->row_offset = row_offset;
  e->width_bytes = step->width_bytes;
  for (uint32_t l = 0; l < WS_WARP_LANES; l++) e->delta[l] = (int32_t)(step->addr[l] - step->addr[0]);
  e->wavefronts = ws_coalesce_smem_wavefronts(step->addr, step->active_mask, step->width_bytes,
                                              cfg->smem.banks, cfg->smem.bank_width_bytes);
  return e->wavefronts;
}

static ws_status issue_global(ws_sm *sm, ws_twarp *w, const ws_scoreboard_insn *si, uint32_t wslot,
                              ws_subpart_outcome *out) {
  const ws_warp_step *step = &sm->step;
  if (!step->active_mask) return WS_OK;
  bool has_req = false;
  uint64_t group = w->groups_committed;
  if (!ws_lsu_push_global(&sm->lsu, wslot, step, group, &has_req))
    return ws_ctx_fail(sm->issue_ctx, WS_ERR_NOMEM, "host memory exhausted queueing a memory request");
  if (step->flags & WS_STEP_ASYNC)
    w->group_reqs[group % WS_ASYNC_GROUPS_MAX]++;
  else if (has_req)
    ws_scoreboard_set_long(&w->sb, si);
  out->actions |= WS_SUBPART_MEM_ISSUED;
  return WS_OK;
}

static void commit_group(ws_twarp *w) {
  uint64_t g = w->groups_committed++;
  if (w->group_reqs[g % WS_ASYNC_GROUPS_MAX]) w->groups_incomplete++;
}

static ws_status issue_lsu(ws_sm *sm, ws_subpart *sp, ws_twarp *w, const ws_scoreboard_insn *si,
                           uint32_t wslot, uint64_t start, ws_subpart_outcome *out) {
  const ws_gpu_cfg *cfg = sm->cfg;
  const ws_warp_step *step = &sm->step;
  sp->unit_free[WS_UNIT_LSU] = start + (cfg->sm.lsu_ii_cycles ? cfg->sm.lsu_ii_cycles : 1);
  switch ((ws_mem_class)si->mem_class) {
  case WS_MEMC_GLOBAL: return issue_global(sm, w, si, wslot, out);
  case WS_MEMC_SHARED: {
    uint32_t ideal = ideal_wavefronts(step->active_mask, step->width_bytes);
    uint32_t wf = smem_wavefronts(sm, step, ideal);
    uint64_t ready = ws_lsu_smem(&sm->lsu, start, wf, ideal);
    set_short(w, si, ready, WS_SCOREBOARD_MIO, wf > ideal ? wf - ideal : 0);
#if WS_SUBPART_PROBED
    sm->smem_wf = wf;
    sm->smem_ideal = ideal;
    sm->smem_ready = ready;
#endif
    return WS_OK;
  }
  case WS_MEMC_CONST: set_short(w, si, start + cfg->sm.const_lat_cycles, WS_SCOREBOARD_MIO, 0); return WS_OK;
  case WS_MEMC_COMMIT: commit_group(w); return WS_OK;
  default: return WS_OK;
  }
}

static void issue_ctrl(ws_sm *sm, ws_twarp *w, uint32_t pc, uint64_t t) {
  if (sm->step.op != WS_OP_BRA) return;
  const ws_cta *cta = sm->slots[w->cta_slot].cta;
  if (ws_cta_warp_state(cta, w->cta_warp) == WS_WARP_READY && ws_cta_warp_pc(cta, w->cta_warp) == pc + 1)
    return;
  sm->branch_taken++;
  uint64_t lat = sm->cfg->sm.branch_lat_cycles;
  w->ready_cycle = t + (lat ? lat : 1);
}

/* Books the timing of the instruction just executed.
 * Cached verdicts of the sub-partition's other warps stay true: a warp
 * blocked on a unit or on the issue stage until cycle U cannot be overtaken
 * by an issue that needed that same resource free before U. */
static ws_status book(ws_sm *sm, ws_subpart *sp, ws_twarp *w, const ws_scoreboard_insn *si, uint32_t wslot,
                      uint32_t pc, uint64_t t, ws_subpart_outcome *out) {
  uint64_t start = t + si->bank_extra_cycles;
  sp->issue_free = start + 1;
  sm->rf_bank_conflict_cycles += si->bank_extra_cycles;
  ws_status st = WS_OK;
  if (si->unit == WS_UNIT_CTRL)
    issue_ctrl(sm, w, pc, t);
  else if (si->unit == WS_UNIT_LSU)
    st = issue_lsu(sm, sp, w, si, wslot, start, out);
  else {
    sp->unit_free[si->unit] = start + (sm->ii_cycles[si->unit] ? sm->ii_cycles[si->unit] : 1);
    set_short(w, si, start + sm->lat_cycles[si->unit], WS_SCOREBOARD_FIXED, 0);
  }
  if ((sm->step.flags & (WS_STEP_BAR_ARRIVED | WS_STEP_BAR_RELEASED)) == WS_STEP_BAR_ARRIVED)
    w->at_barrier = true;
  if (sm->step.flags & WS_STEP_BAR_RELEASED) out->actions |= WS_SUBPART_BAR_RELEASED | WS_SUBPART_FINISH;
  if (sm->step.flags & WS_STEP_DONE) out->actions |= WS_SUBPART_WARP_DONE | WS_SUBPART_FINISH;
  return st;
}

static ws_status issue(ws_sm *sm, ws_subpart *sp, uint32_t pick, uint64_t t, ws_subpart_outcome *out) {
  uint32_t wslot = sp->slot[pick].warp;
  ws_twarp *w = &sm->warps[wslot];
  out->warp = w;
  ws_cta *cta = sm->slots[w->cta_slot].cta;
  const ws_scoreboard_insn *si = w->next;
  ws_subpart_set_reason(sm, sp, pick, WS_STALL_SELECTED, t);
  /* the watchdog's limits are checked between cycles (sim/gpu/engine.c),
   * from the counts folded then */
  ws_status st = ws_cta_step(sm->issue_ctx, cta, w->cta_warp, t, &sm->step, &sm->tally->ls);
  if (st != WS_OK) return st;
  sm->tally->effects += ws_watchdog_effect(&sm->step);
  if (__builtin_expect(cta->warps[w->cta_warp].insns_issued > sm->env->warp_insn_limit, 0) && !sm->over_limit)
    sm->over_limit = wslot + 1;
  sp->issued_cycle = t;
  sp->issued_warp = wslot;
  ws_subpart_refresh_pc(sm, w); /* before book: issue_ctrl compares the new pc */
  count_issue(sm, si, sm->step.active_mask);
#if WS_SUBPART_PROBED
  st = book(sm, sp, w, si, wslot, sm->step.pc, t, out);
  if (st == WS_OK && sm->probe) ws_smprobe_issue(sm, sp, w, si, wslot, t);
  if (st == WS_OK && sm->prof) prof_issue(sm, si, wslot);
  return st;
#else
  return book(sm, sp, w, si, wslot, sm->step.pc, t, out);
#endif
}

/* The verdict on a slot that was eligible and has not issued since: only
 * the issue stage, its unit and the LSU can hold it now (its own scoreboard,
 * barrier and fetch state change only when it issues), checked in the order
 * classify_deps checks them, so the verdict is the one a full
 * classification would give. */
static verdict ready_verdict(const ws_sm *sm, const ws_subpart *sp, uint32_t i, uint64_t t) {
  if (sp->issue_free > t) return blocked(WS_STALL_DISPATCH, sp->issue_free);
  uint8_t unit = sp->slot[i].unit;
  if (sp->unit_free[unit] > t)
    return blocked(unit == WS_UNIT_LSU ? WS_STALL_LSU_THROTTLE : WS_STALL_MATH_PIPE, sp->unit_free[unit]);
  if (sp->slot[i].memc == WS_MEMC_GLOBAL && ws_lsu_full(&sm->lsu))
    return blocked(WS_STALL_LSU_THROTTLE, NEVER);
  if (sp->slot[i].memc == WS_MEMC_SHARED && ws_lsu_smem_accept_cycle(&sm->lsu) > t)
    return blocked(WS_STALL_LSU_THROTTLE, ws_lsu_smem_accept_cycle(&sm->lsu));
  return blocked(WS_STALL_SELECTED, t);
}

/* A ready slot held by the issue stage, its unit or the LSU stays ready; its
 * warp is charged only when the reason changes. */
static void hold_ready(ws_sm *sm, ws_subpart *sp, uint32_t i, verdict v, uint64_t t, uint64_t *next) {
  if (sp->slot[i].held_reason != v.reason) {
    ws_subpart_set_reason(sm, sp, i, v.reason, t);
    sp->slot[i].held_reason = (uint8_t)v.reason;
  }
  sp->not_selected_mask &= ~(1u << i);
  sp->slot[i].until = v.until;
  if (v.until < *next) *next = v.until;
}

/* Classifies slot i from scratch; returns true when it is eligible.
 * Inlined into both callers: it runs once or twice per issue, and its call
 * (five arguments, a verdict passed back) cost 3 % of all host instructions. */
static inline __attribute__((always_inline)) bool reclassify(ws_sm *sm, ws_subpart *sp, uint32_t i,
                                                             uint64_t t, uint64_t *next) {
  ws_twarp *w = &sm->warps[sp->slot[i].warp];
  verdict v = classify(sm, sp, w, t);
  uint32_t bit = 1u << i;
  if (v.resource) { /* ready: from now on only re-checked against the resources */
    sp->ready_mask |= bit;
    sp->slot[i].unit = w->next->unit;
    sp->slot[i].memc = w->next->mem_class;
    sp->slot[i].held_reason = WS_SLOT_REASON_UNKNOWN;
    if (v.reason == WS_STALL_SELECTED) return true;
    hold_ready(sm, sp, i, v, t, next);
    return false;
  }
  set_reason_split(sm, sp, i, v.reason, t, v.split, WS_STALL_BANK_CONFLICT);
  sp->not_selected_mask &= ~bit;
  sp->slot[i].until = v.until;
  if (v.until < *next) *next = v.until;
  return false;
}

static uint32_t find_eligible(ws_sm *sm, ws_subpart *sp, uint64_t t, uint64_t *next) {
  uint32_t eligible = 0;
  for (uint32_t m = sp->live_mask; m; m &= m - 1) {
    uint32_t i = (uint32_t)__builtin_ctz(m);
    if (sp->slot[i].until > t) { /* still blocked for the same reason */
      if (sp->slot[i].until < *next) *next = sp->slot[i].until;
      continue;
    }
    if (sp->ready_mask >> i & 1u) {
      verdict v = ready_verdict(sm, sp, i, t);
      if (v.reason == WS_STALL_SELECTED)
        eligible |= 1u << i;
      else
        hold_ready(sm, sp, i, v, t, next);
      continue;
    }
    if (reclassify(sm, sp, i, t, next)) eligible |= 1u << i;
  }
  return eligible;
}

/* What the scan at t + 1 would find for the slots an issue at t changed:
 * the issuing warp (now at its next instruction) and the eligible warps it
 * passed over (the issue stage and unit it took), decided now, as of t + 1,
 * with the same charges that scan would make. When none of them can issue
 * at t + 1 and no other slot's wait ends then, that visit is skipped: in an
 * FMA stream with a 2-cycle initiation interval, every other one. Exact:
 * what could let a warp issue sooner (a memory response, an LSU entry
 * leaving a full queue, a barrier release) wakes the sub-partition itself. */
static uint64_t after_issue(ws_sm *sm, ws_subpart *sp, uint32_t pick, uint32_t passed, uint64_t t,
                            uint64_t next) {
  uint64_t t1 = t + 1;
  if ((sp->live_mask >> pick & 1u) && sp->slot[pick].until <= t1 && reclassify(sm, sp, pick, t1, &next))
    next = t1;
  for (uint32_t m = passed; m; m &= m - 1) {
    uint32_t i = (uint32_t)__builtin_ctz(m);
    if (sp->slot[i].until > t1 || !(sp->ready_mask >> i & 1u)) continue;
    verdict v = ready_verdict(sm, sp, i, t1);
    if (v.reason == WS_STALL_SELECTED)
      next = t1;
    else
      hold_ready(sm, sp, i, v, t1, &next);
  }
  return next;
}

/* The sub-partition's next visit: the earliest of its slots' own next
 * cycles and any wake posted during this one (a barrier release). */
static void settle(ws_subpart *sp, uint64_t t, uint64_t next) {
  if (sp->woken < next) next = sp->woken;
  sp->next_cycle = next < sp->next_cycle || sp->next_cycle <= t ? next : sp->next_cycle;
}

/* The end of a visit that issued: the issuing warp's next dependency (the
 * issue set this instruction's results) and the slots to look at again. */
static inline void settle_issue(ws_sm *sm, ws_subpart *sp, uint64_t t, const ws_subpart_outcome *out) {
  ws_twarp *w = out->warp;
  w->next_dep = ws_scoreboard_latest(&w->sb, w->next, t);
  settle(sp, t, after_issue(sm, sp, out->pick, out->others, t, out->next));
}

ws_status ws_subpart_issue(ws_sm *sm, ws_subpart *sp, uint64_t t, ws_subpart_outcome *out) {
  uint64_t next = NEVER;
  sp->woken = NEVER;
  uint32_t eligible = find_eligible(sm, sp, t, &next);
  out->actions = 0;
  if (!eligible) {
    settle(sp, t, next);
    return WS_OK;
  }
  out->next = next;
  uint32_t pick = ws_sched_pick(&sp->sched, eligible);
  /* the waiting eligible warps are charged lazily: only a change of reason touches them */
  for (uint32_t m = eligible & ~(1u << pick) & ~sp->not_selected_mask; m; m &= m - 1) {
    uint32_t i = (uint32_t)__builtin_ctz(m);
    ws_subpart_set_reason(sm, sp, i, WS_STALL_NOT_SELECTED, t);
    sp->slot[i].held_reason = WS_STALL_NOT_SELECTED;
  }
  sp->not_selected_mask |= eligible & ~(1u << pick);
  sp->not_selected_mask &= ~(1u << pick);
  sp->ready_mask &= ~(1u << pick);
  out->pick = pick;
  out->others = eligible & ~(1u << pick);
  ws_status st = issue(sm, sp, pick, t, out);
  /* Only a barrier release or a warp's exit changes what the settling
   * reads, so only then must the SM act first; otherwise the visit ends here
   * (the SM's count of memory instructions is not read by the settling). */
  if (st == WS_OK && !(out->actions & WS_SUBPART_FINISH)) settle_issue(sm, sp, t, out);
  return st;
}

void ws_subpart_finish(ws_sm *sm, ws_subpart *sp, uint64_t t, const ws_subpart_outcome *out) {
  settle_issue(sm, sp, t, out);
}
