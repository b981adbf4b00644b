/* smprobe.c - the SM's micro-ops as probe records (smprobe.h). */
#include "sim/sm/smprobe.h"

static void emit(const ws_sm *sm, const ws_probe_event *ev) { sm->probe->event(sm->probe->user, ev); }

static ws_probe_event warp_ev(const ws_sm *sm, const ws_subpart *sp, uint32_t wslot, uint8_t kind,
                              uint64_t begin, uint64_t end) {
  return (ws_probe_event){.begin = begin,
                          .end = end,
                          .sm = (uint16_t)sm->id,
                          .unit = sp ? (uint16_t)(sp - sm->sp) : WS_PROBE_NONE,
                          .warp = (uint16_t)wslot,
                          .pc = UINT32_MAX,
                          .kind = kind};
}

/* When the instruction's result is ready, as book() scheduled it; a global
 * load completes later (WS_PEV_MEM_DONE). */
static uint64_t ready_cycle(const ws_sm *sm, const ws_scoreboard_insn *si, uint64_t t) {
  uint64_t start = t + si->bank_extra_cycles;
  if (si->unit == WS_UNIT_CTRL) return t + 1;
  if (si->unit != WS_UNIT_LSU) return start + sm->lat_cycles[si->unit];
  if (si->mem_class == WS_MEMC_SHARED) return sm->smem_ready;
  if (si->mem_class == WS_MEMC_CONST) return start + sm->cfg->sm.const_lat_cycles;
  return start + 1;
}

static uint32_t banks_touched(const ws_sm *sm, const ws_warp_step *step) {
  uint32_t banks = sm->cfg->smem.banks, width = sm->cfg->smem.bank_width_bytes, mask = 0;
  for (uint32_t l = 0; l < WS_WARP_LANES; l++) {
    if (!(step->active_mask >> l & 1u)) continue;
    /* a wide access covers consecutive banks */
    for (uint64_t b = step->addr[l] / width; b <= (step->addr[l] + step->width_bytes - 1) / width; b++)
      mask |= 1u << (b % banks % 32u);
  }
  return mask;
}

static uint8_t smem_op(const ws_warp_step *step) {
  if (step->flags & WS_STEP_ATOMIC) return WS_PROBE_SMEM_ATOMIC;
  return step->flags & WS_STEP_STORE ? WS_PROBE_SMEM_STORE : WS_PROBE_SMEM_LOAD;
}

static void probe_smem(ws_sm *sm, const ws_subpart *sp, uint32_t wslot, const ws_warp_step *step, uint64_t t,
                       uint8_t flags) {
  ws_probe_event ev = warp_ev(sm, sp, wslot, WS_PEV_SMEM, t, sm->smem_ready);
  ev.pc = step->pc;
  ws_probe_set_smem_banks(&ev, banks_touched(sm, step));
  ws_probe_set_smem_wavefronts(&ev, sm->smem_wf);
  ws_probe_set_smem_ideal(&ev, sm->smem_ideal);
  ev.outcome = smem_op(step);
  ev.flags = flags | (ev.outcome == WS_PROBE_SMEM_STORE ? WS_PROBE_WRITE : 0);
  emit(sm, &ev);
}

/* Whether line `line` holds a lane of `lanes`' access. */
static bool line_has_lane(const ws_warp_step *step, uint32_t lanes, uint64_t line, uint32_t line_bytes) {
  for (uint32_t l = 0; l < WS_WARP_LANES; l++)
    if ((lanes >> l & 1u) && step->addr[l] / line_bytes == line / line_bytes) return true;
  return false;
}

static void probe_coalesce(ws_sm *sm, const ws_subpart *sp, uint32_t wslot, const ws_warp_step *step,
                           uint64_t t, uint8_t flags) {
  ws_lsu *l = &sm->lsu;
  ws_lsu_entry *e = &l->queue[(l->head + l->count - 1) & (l->depth - 1)];
  ws_probe_event ev = warp_ev(sm, sp, wslot, WS_PEV_COALESCE, t, t + 1);
  uint32_t sectors = 0, bytes = 0;
  ev.pc = step->pc;
  ev.flags = flags;
  for (uint32_t i = 0; i < e->nlines; i++) {
    ws_line_access *a = &e->lines[i];
    a->warp = (uint16_t)wslot;
    if (step->tag_lanes && line_has_lane(step, step->tag_lanes, a->line_addr, sm->cfg->l1.line_bytes))
      a->flags |= WS_PROBE_TAGGED;
    sectors += (uint32_t)__builtin_popcount(a->sector_mask);
    bytes += a->bytes;
  }
  ws_probe_set_coalesce_lines(&ev, e->nlines);
  ws_probe_set_coalesce_sectors(&ev, sectors);
  ws_probe_set_coalesce_bytes(&ev, bytes);
  emit(sm, &ev);
}

void ws_smprobe_issue(ws_sm *sm, const ws_subpart *sp, const ws_twarp *w, const ws_scoreboard_insn *si,
                      uint32_t wslot, uint64_t t) {
  const ws_warp_step *step = &sm->step;
  uint8_t flags = step->tag_result || step->tag_lanes ? WS_PROBE_TAGGED : 0;
  ws_probe_event ev = warp_ev(sm, sp, wslot, WS_PEV_ISSUE, t, ready_cycle(sm, si, t));
  ev.pc = step->pc;
  ws_probe_set_issue_mask(&ev, step->active_mask);
  ws_probe_set_issue_opcode(&ev, step->op);
  ws_probe_set_issue_tagged(&ev, step->tag_result);
  ev.flags = flags;
  emit(sm, &ev);
  if (si->bank_extra_cycles) {
    ws_probe_event rf = warp_ev(sm, sp, wslot, WS_PEV_RF_BANK, t, t + si->bank_extra_cycles);
    rf.pc = step->pc;
    ws_probe_set_rf_bank_cycles(&rf, si->bank_extra_cycles);
    emit(sm, &rf);
  }
  if (si->unit == WS_UNIT_LSU && si->mem_class == WS_MEMC_SHARED && step->active_mask)
    probe_smem(sm, sp, wslot, step, t, flags);
  if (si->unit == WS_UNIT_LSU && si->mem_class == WS_MEMC_GLOBAL && step->active_mask)
    probe_coalesce(sm, sp, wslot, step, t, flags);
  if (step->flags & (WS_STEP_BAR_ARRIVED | WS_STEP_BAR_RELEASED)) {
    ws_probe_event bar = warp_ev(sm, sp, wslot, WS_PEV_BARRIER, t, t);
    bar.pc = step->pc;
    ws_probe_set_barrier_cta_slot(&bar, w->cta_slot);
    bar.outcome = step->flags & WS_STEP_BAR_RELEASED ? WS_PROBE_BAR_RELEASE : WS_PROBE_BAR_ARRIVE;
    emit(sm, &bar);
  }
}

void ws_smprobe_stall(ws_sm *sm, const ws_subpart *sp, uint32_t i, uint8_t reason, uint64_t begin,
                      uint64_t end) {
  uint32_t wslot = sp->slot[i].warp;
  bool depbar = reason == WS_STALL_DEPBAR;
  ws_probe_event ev = warp_ev(sm, sp, wslot, depbar ? WS_PEV_DEPBAR : WS_PEV_STALL, begin, end);
  if (depbar) { /* the warp waits at its DEPBAR: its next instruction */
    const ws_scoreboard_insn *next = sm->warps[wslot].next;
    ev.pc = (uint32_t)(next - sm->env->table);
    ws_probe_set_depbar_groups(&ev, next->wait_groups);
  } else {
    ws_probe_set_stall_reason(&ev, reason);
  }
  emit(sm, &ev);
}

void ws_smprobe_mem_done(ws_sm *sm, uint32_t warp, uint32_t pc, uint64_t cycle) {
  ws_probe_event ev = warp_ev(sm, NULL, warp, WS_PEV_MEM_DONE, cycle, cycle);
  ev.unit = (uint16_t)sm->warps[warp].sp;
  ev.pc = pc;
  emit(sm, &ev);
}

void ws_smprobe_cta(ws_sm *sm, uint32_t s, uint64_t cycle) {
  const ws_cta_slot *slot = &sm->slots[s];
  ws_probe_event ev = warp_ev(sm, NULL, WS_PROBE_NONE, WS_PEV_CTA, slot->start_cycle, cycle);
  ws_probe_set_cta_index(&ev, (uint32_t)slot->cta->linear_id);
  ws_probe_set_cta_slot(&ev, s);
  emit(sm, &ev);
}
