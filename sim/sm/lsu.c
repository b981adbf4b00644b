/* lsu.c - the MIO queue, request records and the shared-memory pipe.
 *
 * Design: records live in one growable array with a free list, so after the
 * first few instructions no allocation happens; the cookie handed to the
 * memory system is the record index. Timing of the shared pipe: an access
 * of W wavefronts starts when the pipe is free, occupies it W cycles, and
 * its data is ready lat_cycles after its first wavefront plus W - 1 more
 * (each further wavefront returns one cycle later). */
#include "sim/sm/lsu.h"

#include <stdlib.h>
#include <string.h>

ws_status ws_lsu_init(ws_ctx *ctx, ws_lsu *l, const ws_gpu_cfg *cfg, ws_memsys *mem, uint32_t sm) {
  memset(l, 0, sizeof *l);
  l->cfg = cfg;
  l->mem = mem;
  l->sm = sm;
  l->depth = cfg->sm.lsu_queue_insns;
  l->smem_backlog = cfg->sm.smem_backlog_cycles;
  l->cap_reqs = 64;
  l->reqs = malloc(l->cap_reqs * sizeof *l->reqs);
  if (!l->reqs) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating an LSU");
  ws_lsu_reset(l);
  return WS_OK;
}

void ws_lsu_free(ws_lsu *l) {
  free(l->reqs);
  l->reqs = NULL;
}

void ws_lsu_reset(ws_lsu *l) {
  l->state = WS_LSU_EMPTY;
  l->head = l->count = 0;
  l->nreqs = 0;
  l->free_req = UINT32_MAX;
  l->smem_free_cycle = 0;
  l->last_send_cycle = UINT64_MAX;
}

static uint32_t alloc_req(ws_lsu *l) {
  if (l->free_req != UINT32_MAX) {
    uint32_t i = l->free_req;
    l->free_req = l->reqs[i].next_free;
    return i;
  }
  if (l->nreqs == l->cap_reqs) {
    ws_lsu_req *grown = realloc(l->reqs, 2 * l->cap_reqs * sizeof *grown);
    if (!grown) return UINT32_MAX;
    l->reqs = grown;
    l->cap_reqs *= 2;
  }
  return l->nreqs++;
}

static ws_access_kind access_kind_of(const ws_warp_step *step) {
  if (step->flags & WS_STEP_ASYNC) return WS_ACCESS_ASYNC;
  if (step->flags & WS_STEP_ATOMIC) return WS_ACCESS_ATOMIC;
  if (step->flags & WS_STEP_STORE) return WS_ACCESS_STORE;
  return WS_ACCESS_LOAD;
}

/* Line accesses of a local access, and its counts. */
static uint32_t coalesce_local(ws_lsu *l, const ws_warp_step *step, ws_access_kind kind,
                               ws_line_access *out) {
  if (kind == WS_ACCESS_STORE)
    l->local_stores++;
  else
    l->local_loads++;
  l->local_bytes += (uint64_t)ws_lane_count(step->active_mask) * step->width_bytes;
  return ws_coalesce_local(step->addr, step->active_mask, step->width_bytes, WS_WARP_LANES * 4u,
                           l->cfg->l1.line_bytes, l->cfg->l1.sector_bytes, kind, out, WS_LSU_MAX_LINES);
}

bool ws_lsu_push_global(ws_lsu *l, uint32_t warp, const ws_warp_step *step, uint64_t group, bool *has_req) {
  ws_lsu_entry *e = &l->queue[(l->head + l->count) & (l->depth - 1)];
  ws_access_kind kind = access_kind_of(step);
  e->warp = warp;
  e->next_line = 0;
  e->hits = 0;
  uint32_t n =
      step->space == WS_SPACE_LOCAL
          ? coalesce_local(l, step, kind, e->lines)
          : ws_coalesce_global(step->addr, step->active_mask, step->width_bytes, l->cfg->l1.line_bytes,
                               l->cfg->l1.sector_bytes, kind, e->lines, WS_LSU_MAX_LINES);
  e->nlines = n < WS_LSU_MAX_LINES ? n : WS_LSU_MAX_LINES;
  e->req = UINT32_MAX;
  *has_req = kind != WS_ACCESS_STORE;
  if (*has_req) {
    e->req = alloc_req(l);
    if (e->req == UINT32_MAX) return false;
    l->reqs[e->req] = (ws_lsu_req){.warp = warp,
                                   .pc = step->pc,
                                   .lines_left = e->nlines,
                                   .next_free = UINT32_MAX,
                                   .group = group,
                                   .kind = (uint8_t)kind};
  }
  l->count++;
  if (l->state == WS_LSU_EMPTY) l->state = WS_LSU_SENDING;
  return true;
}

static ws_lsu_sent pop_head(ws_lsu *l, const ws_lsu_entry *e) {
  ws_lsu_sent r = {true, e->req == UINT32_MAX ? e->warp : UINT32_MAX};
  l->head = (l->head + 1) & (l->depth - 1);
  l->count--;
  l->state = l->count ? WS_LSU_SENDING : WS_LSU_EMPTY;
  return r;
}

/* The head's gathered hits answer now, in one event at the last one's cycle. */
static void respond_hits(ws_lsu *l, ws_lsu_entry *e) {
  if (!e->hits) return;
  ws_memsys_respond_hits(l->mem, l->sm, e->hit_cycle, e->req, e->hits);
  e->hits = 0;
}

/* Offers one line; a load's L1 hit is gathered into its entry's response. */
static bool offer(ws_lsu *l, ws_lsu_entry *e, const ws_line_access *a, uint64_t cycle) {
  if (e->req == UINT32_MAX) return ws_memsys_access(l->mem, l->sm, a, cycle, e->req);
  uint64_t hit;
  if (!ws_memsys_access_gather(l->mem, l->sm, a, cycle, e->req, &hit)) return false;
  if (hit) e->hits++, e->hit_cycle = hit; /* a later hit responds later (one return port) */
  return true;
}

ws_lsu_sent ws_lsu_send(ws_lsu *l, uint64_t cycle) {
  ws_lsu_sent none = {false, UINT32_MAX};
  if (!l->count || l->last_send_cycle == cycle) return none;
  ws_lsu_entry *e = &l->queue[l->head];
  const ws_line_access *a = &e->lines[e->next_line];
  if (!offer(l, e, a, cycle)) {
    respond_hits(l, e); /* when the line is offered again is not known */
    l->refusals++;
    l->state = WS_LSU_BLOCKED;
    return none;
  }
  l->last_send_cycle = cycle;
  l->state = WS_LSU_SENDING;
  l->line_accesses++;
  l->sectors += ws_access_sectors(a->sector_mask);
  if (++e->next_line < e->nlines) {
    if (e->hits && e->hit_cycle <= cycle + 1) respond_hits(l, e);
    /* sent next cycle, after every other SM's work of this one: an
     * uncoalesced load's 32 lines span eight host cache lines, and each
     * first touch was a miss of the host's caches */
    __builtin_prefetch(&e->lines[e->next_line]);
    return none;
  }
  respond_hits(l, e);
  return pop_head(l, e);
}

const ws_lsu_req *ws_lsu_respond(ws_lsu *l, uint64_t cookie, uint32_t lines) {
  if (cookie >= l->nreqs) return NULL;
  ws_lsu_req *r = &l->reqs[cookie];
  if (!r->lines_left) return NULL;
  if (r->lines_left > lines) {
    r->lines_left -= lines;
    return NULL;
  }
  r->lines_left = 0;
  r->next_free = l->free_req;
  l->free_req = (uint32_t)cookie;
  return r;
}

uint64_t ws_lsu_smem(ws_lsu *l, uint64_t cycle, uint32_t wavefronts, uint32_t ideal) {
  uint64_t start = l->smem_free_cycle > cycle ? l->smem_free_cycle : cycle;
  if (!wavefronts) return cycle + 1;
  l->smem_free_cycle = start + wavefronts;
  l->smem_wavefronts += wavefronts;
  l->smem_conflicts += wavefronts > ideal ? wavefronts - ideal : 0;
  l->smem_insns++;
  return start + l->cfg->smem.lat_cycles + wavefronts - 1;
}
