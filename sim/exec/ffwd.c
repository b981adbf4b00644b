/* ffwd.c - the fast-forward loop's choice, CTA snapshots, and rounds.
 *
 * Design: see ffwd.h. Every check a step needs is made once: the body was
 * vetted when the loop was chosen, so a step only has to stay inside it
 * (one compare on the pc) to be undoable. Snapshots are flat byte buffers
 * written field by field, so saving a CTA is a few memcpy calls and no
 * allocation once the buffer has grown to the CTA's size. */
#include "sim/exec/ffwd.h"

#include <stdlib.h>
#include <string.h>

/* Instructions a skipped iteration must not run: they reach outside the
 * CTA (global stores and atomics), end warps, or read the time. */
static bool escapes(const ws_insn *insn) {
  switch ((ws_op)insn->op) {
  case WS_OP_STG:
  case WS_OP_EXIT: return true;
  case WS_OP_S2R: return insn->opnd[1].reg == WS_SR_CLOCK || insn->opnd[1].reg == WS_SR_CLOCKHI;
  default: return ws_isa_is_global_atomic((ws_op)insn->op);
  }
}

static bool body_is_closed(const ws_kernel *k, uint32_t lo, uint32_t hi) {
  for (uint32_t pc = lo; pc <= hi; pc++)
    if (escapes(&k->insns[pc])) return false;
  return true;
}

void ws_ffwd_plan_kernel(const ws_kernel *k, ws_ffwd_plan *out) {
  *out = (ws_ffwd_plan){.usable = false, .bar_pc = UINT32_MAX};
  uint32_t best_span = 0;
  for (uint32_t pc = 0; pc < k->ninsns; pc++) {
    const ws_insn *insn = &k->insns[pc];
    if (insn->op != WS_OP_BRA || insn->opnd[0].imm < 0 || (uint64_t)insn->opnd[0].imm > pc) continue;
    uint32_t lo = (uint32_t)insn->opnd[0].imm;
    if (pc - lo + 1 <= best_span || !body_is_closed(k, lo, pc)) continue;
    best_span = pc - lo + 1;
    *out = (ws_ffwd_plan){.usable = true, .lo_pc = lo, .hi_pc = pc, .bar_pc = UINT32_MAX};
  }
  for (uint32_t pc = out->lo_pc; out->usable && pc <= out->hi_pc; pc++)
    if (k->insns[pc].op == WS_OP_BAR) {
      out->bar_pc = pc;
      break;
    }
}

void ws_ffwd_arm(ws_cta *cta, const ws_ffwd_plan *plan) {
  cta->ffwd_bra_pc = plan->usable ? plan->hi_pc : UINT32_MAX;
  cta->ffwd_bar_pc = plan->usable ? plan->bar_pc : UINT32_MAX;
}

void ws_ffwd_mark_warps(ws_cta *cta, bool fresh) {
  for (uint32_t i = 0; i < cta->nwarps; i++) {
    cta->warps[i].ffwd_mark = cta->warps[i].ffwd_backedges;
    if (fresh) cta->warps[i].ffwd_seen = 0;
  }
}

void ws_ffwd_note_warps(ws_cta *cta) {
  for (uint32_t i = 0; i < cta->nwarps; i++)
    cta->warps[i].ffwd_seen += cta->warps[i].ffwd_backedges - cta->warps[i].ffwd_mark;
}

void ws_ffwd_pace_warps(ws_cta *cta, const ws_ffwd_plan *plan) {
  uint64_t sum = 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < cta->nwarps; i++)
    if (cta->warps[i].state != WS_WARP_DONE) sum += cta->warps[i].ffwd_seen, n++;
  for (uint32_t i = 0; i < cta->nwarps; i++) {
    ws_warp *w = &cta->warps[i];
    double pace = plan->bar_pc == UINT32_MAX && sum ? (double)w->ffwd_seen * n / (double)sum : 1.0;
    if (pace > WS_FFWD_PACE_MAX) pace = WS_FFWD_PACE_MAX;
    w->ffwd_pace_q16 = (uint32_t)(pace * WS_FFWD_PACE_ONE + 0.5);
    w->ffwd_owed_q16 = 0;
  }
}

uint64_t ws_ffwd_rounds(const ws_cta *cta, const ws_ffwd_plan *plan) {
  if (plan->bar_pc != UINT32_MAX) return cta->ffwd_releases;
  uint64_t least = UINT64_MAX;
  for (uint32_t i = 0; i < cta->nwarps; i++)
    if (cta->warps[i].state != WS_WARP_DONE && cta->warps[i].ffwd_backedges < least)
      least = cta->warps[i].ffwd_backedges;
  return least == UINT64_MAX ? 0 : least;
}

/* ---- snapshots ------------------------------------------------------------------- */

/* The fixed-size part of a warp; registers and the SIMT stack follow it. */
typedef struct warp_rec {
  uint32_t preds[8];
  uint32_t live, state, async_uncommitted_copies, simt_depth, ffwd_owed_q16;
  uint64_t insns_issued, async_groups_committed, ffwd_backedges;
} warp_rec;

typedef struct cta_rec {
  uint32_t warps_waiting, warps_done;
  uint64_t ffwd_releases;
} cta_rec;

static size_t regs_bytes(const ws_warp *w) { return (size_t)w->nrows * WS_WARP_LANES * sizeof *w->regs; }

static size_t snap_size(const ws_cta *cta) {
  size_t n = sizeof(cta_rec) + cta->smem_bytes;
  for (uint32_t i = 0; i < cta->nwarps; i++)
    n += sizeof(warp_rec) + regs_bytes(&cta->warps[i]) + cta->warps[i].simt.depth * sizeof(ws_simt_entry);
  return n;
}

static uint8_t *put(uint8_t *p, const void *src, size_t n) {
  if (n) memcpy(p, src, n);
  return p + n;
}

static const uint8_t *get(const uint8_t *p, void *dst, size_t n) {
  if (n) memcpy(dst, p, n);
  return p + n;
}

static uint8_t *put_warp(uint8_t *p, const ws_warp *w) {
  warp_rec r = {.live = w->live,
                .state = (uint32_t)w->state,
                .async_uncommitted_copies = w->async_uncommitted_copies,
                .simt_depth = w->simt.depth,
                .ffwd_owed_q16 = w->ffwd_owed_q16,
                .insns_issued = w->insns_issued,
                .async_groups_committed = w->async_groups_committed,
                .ffwd_backedges = w->ffwd_backedges};
  memcpy(r.preds, w->preds, sizeof r.preds);
  p = put(p, &r, sizeof r);
  p = put(p, w->regs, regs_bytes(w));
  return put(p, w->simt.entries, w->simt.depth * sizeof(ws_simt_entry));
}

ws_status ws_ffwd_save(ws_ctx *ctx, const ws_cta *cta, ws_ffwd_snap *snap) {
  size_t need = snap_size(cta);
  snap->bytes.len = 0;
  if (!ws_bytes_reserve(&snap->bytes, need)) {
    ws_bytes_free(&snap->bytes);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted saving a CTA (%zu bytes)", need);
  }
  cta_rec c = {cta->warps_waiting, cta->warps_done, cta->ffwd_releases};
  uint8_t *p = put(snap->bytes.data, &c, sizeof c);
  p = put(p, cta->smem, cta->smem_bytes);
  for (uint32_t i = 0; i < cta->nwarps; i++) p = put_warp(p, &cta->warps[i]);
  snap->bytes.len = need;
  return WS_OK;
}

/* The SIMT stack only grows, so it still holds the depth it had when saved. */
static const uint8_t *get_warp(const uint8_t *p, ws_warp *w) {
  warp_rec r;
  p = get(p, &r, sizeof r);
  memcpy(w->preds, r.preds, sizeof r.preds);
  w->live = r.live;
  w->state = (ws_warp_state)r.state;
  w->async_uncommitted_copies = r.async_uncommitted_copies;
  w->insns_issued = r.insns_issued;
  w->async_groups_committed = r.async_groups_committed;
  w->ffwd_backedges = r.ffwd_backedges;
  w->ffwd_owed_q16 = r.ffwd_owed_q16;
  p = get(p, w->regs, regs_bytes(w));
  w->simt.depth = r.simt_depth;
  return get(p, w->simt.entries, r.simt_depth * sizeof(ws_simt_entry));
}

void ws_ffwd_restore(ws_cta *cta, const ws_ffwd_snap *snap) {
  cta_rec c;
  const uint8_t *p = get(snap->bytes.data, &c, sizeof c);
  cta->warps_waiting = c.warps_waiting;
  cta->warps_done = c.warps_done;
  cta->ffwd_releases = c.ffwd_releases;
  p = get(p, cta->smem, cta->smem_bytes);
  for (uint32_t i = 0; i < cta->nwarps; i++) p = get_warp(p, &cta->warps[i]);
}

void ws_ffwd_snap_free(ws_ffwd_snap *snap) { ws_bytes_free(&snap->bytes); }

/* ---- rounds ---------------------------------------------------------------------- */

static bool in_body(const ws_ffwd_plan *plan, uint32_t pc) { return pc >= plan->lo_pc && pc <= plan->hi_pc; }

/* A warp of a loop without a barrier that has left it (its last iteration
 * done, the code after the loop next): it stays there in a gap. */
static bool past_body(const ws_ffwd_plan *plan, const ws_cta *cta, uint32_t i) {
  return plan->bar_pc == UINT32_MAX && cta->warps[i].state != WS_WARP_DONE &&
         ws_cta_warp_pc(cta, i) > plan->hi_pc;
}

/* Every unfinished warp inside the body, and ready unless the body has a
 * barrier it may wait at. */
static bool starts_in_body(const ws_ffwd_plan *plan, const ws_cta *cta) {
  for (uint32_t i = 0; i < cta->nwarps; i++) {
    ws_warp_state s = cta->warps[i].state;
    if (s == WS_WARP_DONE || past_body(plan, cta, i)) continue;
    if (!in_body(plan, ws_cta_warp_pc(cta, i))) return false;
    if (s == WS_WARP_AT_BARRIER && plan->bar_pc == UINT32_MAX) return false;
  }
  return true;
}

/* One step of warp i, if it stays in the body and inside the limits. */
static ws_status step_warp(const ws_ffwd_env *env, ws_cta *cta, uint32_t i, bool *ok) {
  const ws_warp *w = &cta->warps[i];
  *ok = in_body(env->plan, ws_cta_warp_pc(cta, i)) && w->insns_issued < env->per_warp_limit &&
        env->stats->warp_insns < env->launch_limit;
  if (!*ok) return WS_OK;
  /* a run the slice skips, inside the limits */
  uint64_t room = env->per_warp_limit - w->insns_issued, left = env->launch_limit - env->stats->warp_insns;
  if (ws_cta_pass(cta, i, room < left ? room : left, env->stats)) return WS_OK;
  /* the body reads no clock, so the step needs none */
  ws_status st = ws_cta_step(env->ctx, cta, i, 0, env->step, env->stats);
  if (st == WS_OK && env->on_step) env->on_step(env->user, env->step);
  return st;
}

/* With a barrier: the warps run, each until it waits, until the body's
 * first barrier releases; a pass in which no warp can step is a deadlock
 * (warps that do not all take the same path), and stops the round. */
static ws_status round_together(const ws_ffwd_env *env, ws_cta *cta, bool *advanced) {
  uint64_t target = cta->ffwd_releases + 1;
  for (;;) {
    bool stepped = false;
    for (uint32_t i = 0; i < cta->nwarps; i++) {
      while (cta->warps[i].state == WS_WARP_READY) {
        ws_status st = step_warp(env, cta, i, advanced);
        if (st != WS_OK || !*advanced) return st;
        stepped = true;
        if (cta->ffwd_releases >= target) return WS_OK;
      }
    }
    if (!stepped) {
      *advanced = false;
      return WS_OK;
    }
  }
}

/* Without one: every unfinished warp takes the back-edge as often as its
 * pace gives it this round (once, unless ws_ffwd_pace_warps said). */
static ws_status round_apart(const ws_ffwd_env *env, ws_cta *cta, bool *advanced) {
  bool moving = false; /* a warp in the body that its pace moves on, this round or a later one */
  for (uint32_t i = 0; i < cta->nwarps; i++) {
    ws_warp *w = &cta->warps[i];
    uint64_t owed = (uint64_t)w->ffwd_owed_q16 + w->ffwd_pace_q16;
    w->ffwd_owed_q16 = (uint32_t)(owed & (WS_FFWD_PACE_ONE - 1));
    uint64_t target = w->ffwd_backedges + (owed >> 16);
    /* a warp that left the loop waits after it for the timing model */
    while (w->state == WS_WARP_READY && w->ffwd_backedges < target && !past_body(env->plan, cta, i)) {
      ws_status st = step_warp(env, cta, i, advanced);
      if (st != WS_OK || !*advanced) return st;
    }
    if (w->state == WS_WARP_AT_BARRIER) {
      *advanced = false;
      return WS_OK;
    }
    moving |= w->state != WS_WARP_DONE && !past_body(env->plan, cta, i) && w->ffwd_pace_q16;
  }
  *advanced = moving;
  return WS_OK;
}

ws_status ws_ffwd_round(const ws_ffwd_env *env, ws_cta *cta, bool *advanced) {
  *advanced = false;
  if (!env->plan->usable || ws_cta_done(cta) || !starts_in_body(env->plan, cta)) return WS_OK;
  if (env->plan->bar_pc != UINT32_MAX) return round_together(env, cta, advanced);
  return round_apart(env, cta, advanced);
}
