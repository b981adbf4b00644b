/* memsys.c - wires the L1s, the crossbar, the L2 slices and the HBM
 * channels into the memory hierarchy of memsys.h.
 *
 * Design: every request in flight below the LSU is one record from a pool
 * sized once from the config's geometry (geom.mem_requests, the sum of
 * every capacity that can hold one: L1 MSHR waiters, write buffers, slice
 * input queues, L2 fetches and write-backs, DRAM queues), so the hot path
 * never allocates; the config is trusted as resolved (config.c checked it
 * when it was loaded). A record is in at most one waiting list at a time (a
 * crossbar virtual output queue or a DRAM wait list), chained through its
 * `next` field. Components never tick: each stage computes when its work
 * completes and posts one event for that cycle; a blocked stage is retried
 * by the event that frees what it waits for (a credit coming back, an MSHR
 * or DRAM slot freeing), never by polling. Events carry the reset epoch in
 * `arg`, so events of a previous launch that are still queued after
 * ws_memsys_reset are ignored. */
#include "sim/memsys/memsys.h"

#include <stdlib.h>
#include <string.h>

#include "sim/memsys/dram.h"
#include "sim/memsys/l1.h"
#include "sim/memsys/l2.h"
#include "sim/memsys/sysmem.h"
#include "sim/memsys/uvm.h"
#include "sim/memsys/xbar.h"

enum {
  EV_REQ_ARRIVE = WS_EVK_MEMSYS_FIRST, /* unit slice: a request packet reached the slice */
  EV_SLICE_PUMP,                       /* unit slice: its pipeline can take the next request */
  EV_DRAM_ARRIVE,                      /* unit channel: a request reached the controller */
  EV_DRAM_SCHED,                       /* unit channel: a bank with queued work is ready */
  EV_L2_FILL,                          /* unit slice: DRAM data reached the slice */
  EV_RESP_ARRIVE,                      /* unit sm: a response packet reached the SM */
  EV_DRAM_WRITTEN,                     /* unit channel: a write's data has crossed the bus */
  EV_SYSMEM_DONE,                      /* unit sm: a zero-copy access's data is back or landed */
  EV_UVM_START,                        /* the driver takes the faults raised so far */
  EV_UVM_DONE,                         /* a fault batch's blocks are on the device */
};

#define NO_ID UINT32_MAX

typedef enum role { ROLE_ACCESS, ROLE_DRAM_READ, ROLE_DRAM_WRITE } role;

typedef struct req {
  uint64_t line;
  uint64_t cookie;
  uint64_t ready_cycle; /* earliest send while it waits in a list */
  uint64_t uop;         /* micro-op number, for the probe */
  uint64_t link;        /* a DRAM read's requester (its uop) */
  uint32_t next;        /* free list or waiting list */
  uint32_t sm, slice;
  uint8_t mask; /* the sectors this packet carries or asks for */
  uint8_t kind; /* ws_access_kind */
  uint8_t role;
  uint8_t flags; /* WS_PROBE_TAGGED */
} req;

typedef struct fifo {
  uint32_t head, tail;
} fifo;

struct ws_memsys {
  ws_gpu_cfg cfg;
  ws_eventq *q;
  uint32_t epoch;
  ws_l1 **l1;
  ws_xbar *xbar;
  ws_l2 *l2;
  ws_dram *dram;
  ws_sysmem *sys;
  ws_uvm *uvm;
  uint8_t *uvm_refused; /* per SM: its waiting access faulted (refusals count as uvm retries) */
  ws_memsys_host_write_fn host_write_fn; /* told when a store lands in mapped host memory */
  void *host_write_user;
  req *pool;
  uint32_t pool_n, free_head, free_n;
  fifo *req_voq;       /* per slice: requests waiting for a slice input slot */
  fifo *resp_voq;      /* per SM: responses waiting for an SM input slot */
  fifo *dram_wait;     /* per channel: requests waiting for a controller slot */
  uint64_t *pump_at;   /* per slice: cycle of its posted pump event (UINT64_MAX: none) */
  uint64_t *dram_wake; /* per channel: cycle of its posted scheduler event */
  /* per SM: whether its L1 may have changed since it last refused an
   * access (a fill, a write-buffer slot freed), i.e. whether a retry could
   * succeed; cleared by a refusal the L1 made, so an LSU waiting on a full
   * set or MSHR is not offered again until what it waits on frees */
  uint8_t *retry_due;
  ws_l1_done *l1_done; /* scratch for fills */
  ws_l2_done *l2_done;
  ws_dram_issue *issues;
  const ws_probe *probe; /* NULL: nobody watches */
  ws_memsys_tag_fn tag_fn;
  void *tag_user;
  uint64_t next_uop;
};

/* ---- pool and lists -------------------------------------------------------- */

static uint32_t pool_alloc(ws_memsys *m) {
  uint32_t id = m->free_head;
  m->free_head = m->pool[id].next;
  m->free_n--;
  m->pool[id].next = NO_ID;
  return id;
}

static void pool_free(ws_memsys *m, uint32_t id) {
  m->pool[id].next = m->free_head;
  m->free_head = id;
  m->free_n++;
}

static void fifo_push(ws_memsys *m, fifo *f, uint32_t id) {
  m->pool[id].next = NO_ID;
  if (f->head == NO_ID)
    f->head = id;
  else
    m->pool[f->tail].next = id;
  f->tail = id;
}

static uint32_t fifo_pop(ws_memsys *m, fifo *f) {
  uint32_t id = f->head;
  f->head = m->pool[id].next;
  if (f->head == NO_ID) f->tail = NO_ID;
  return id;
}

static void post(ws_memsys *m, uint64_t cycle, uint16_t kind, uint32_t unit, uint64_t payload) {
  /* out of host memory here would lose a request; the heap grows geometrically
   * and is preallocated by the engine, so this is treated as unreachable */
  (void)ws_eventq_push(m->q, cycle, kind, (uint16_t)unit, m->epoch, payload);
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* ---- the probe: each micro-op as one record, built only when one is set ---- */

/* WS_PROBE_TAGGED when a sector of `mask` of `line` holds a followed value. */
static uint8_t sectors_tag(const ws_memsys *m, uint64_t line, uint8_t mask, uint8_t fallback) {
  if (!m->tag_fn) return fallback & WS_PROBE_TAGGED;
  for (uint32_t i = 0; mask >> i; i++)
    if ((mask >> i & 1u) &&
        m->tag_fn(m->tag_user, line + (uint64_t)i * m->cfg.l1.sector_bytes, m->cfg.l1.sector_bytes))
      return WS_PROBE_TAGGED;
  return 0;
}

static ws_probe_event probe_ev(const ws_memsys *m, const req *r, uint8_t kind, uint64_t begin, uint64_t end) {
  return (ws_probe_event){.begin = begin,
                          .end = end,
                          .addr = r->line,
                          .uop = r->uop,
                          .link = r->link,
                          .sm = r->role == ROLE_ACCESS ? (uint16_t)r->sm : WS_PROBE_NONE,
                          .unit = (uint16_t)r->slice,
                          .warp = WS_PROBE_NONE,
                          .pc = UINT32_MAX,
                          .kind = kind,
                          .flags = (uint8_t)(sectors_tag(m, r->line, r->mask, r->flags) |
                                             (r->kind == WS_ACCESS_STORE ? WS_PROBE_WRITE : 0) |
                                             (r->kind == WS_ACCESS_ATOMIC ? WS_PROBE_ATOMIC : 0))};
}

static __attribute__((noinline, cold)) void probe_xbar(ws_memsys *m, const req *r, uint8_t dir,
                                                       uint32_t bytes, uint64_t ready, uint64_t arrive) {
  ws_probe_event ev = probe_ev(m, r, WS_PEV_XBAR, ready, arrive);
  ws_probe_set_xbar_bytes(&ev, bytes);
  ws_probe_set_xbar_sectors(&ev, r->mask);
  ev.outcome = dir;
  m->probe->event(m->probe->user, &ev);
}

static __attribute__((noinline, cold)) void probe_l2(ws_memsys *m, const req *r, const ws_l2_result *res,
                                                     uint64_t now) {
  /* a miss is known after the tag pass */
  ws_probe_event ev = probe_ev(m, r, WS_PEV_L2, now,
                               res->outcome == WS_L2_HIT ? res->ready_cycle : now + m->cfg.l2.hit_lat_cycles);
  uint32_t set, way;
  ws_l2_where(m->l2, r->slice, r->line, &set, &way);
  ws_probe_set_l2_set(&ev, set);
  ws_probe_set_l2_way(&ev, way);
  ws_probe_set_l2_sectors(&ev, r->mask);
  ev.outcome = res->outcome == WS_L2_HIT    ? WS_PROBE_L2_HIT
               : res->outcome == WS_L2_MISS ? WS_PROBE_L2_MISS
                                            : WS_PROBE_L2_WRITTEN;
  if (ws_l2_is_far(m->l2, r->sm, r->slice)) ev.flags |= WS_PROBE_FAR;
  if (res->writeback) ev.flags |= WS_PROBE_WRITEBACK;
  m->probe->event(m->probe->user, &ev);
}

static __attribute__((noinline, cold)) void probe_dram(ws_memsys *m, uint32_t ch, const ws_dram_issue *is,
                                                       uint64_t now) {
  ws_probe_event ev = probe_ev(m, &m->pool[is->id], WS_PEV_DRAM, now, is->done_cycle);
  ev.unit = (uint16_t)ch;
  ws_probe_set_dram_bank(&ev, is->bank);
  ws_probe_set_dram_row(&ev, (uint32_t)is->row);
  ws_probe_set_dram_bytes(&ev, is->bytes);
  ev.outcome = is->row_outcome;
  m->probe->event(m->probe->user, &ev);
}

static __attribute__((noinline, cold)) void probe_l2_fill(ws_memsys *m, const req *r, uint64_t begin,
                                                          uint64_t end) {
  ws_probe_event ev = probe_ev(m, r, WS_PEV_L2_FILL, begin, end);
  ws_probe_set_l2_fill_sectors(&ev, r->mask);
  m->probe->event(m->probe->user, &ev);
}

static __attribute__((noinline, cold)) void probe_l1(ws_memsys *m, uint32_t sm, const ws_line_access *a,
                                                     uint64_t uop, const ws_l1_result *res, uint64_t cycle) {
  static const uint8_t outcome[WS_L1_OUTCOME_COUNT] = {[WS_L1_HIT] = WS_PROBE_L1_HIT,
                                                       [WS_L1_MISS] = WS_PROBE_L1_MISS,
                                                       [WS_L1_MERGED] = WS_PROBE_L1_MERGE,
                                                       [WS_L1_FORWARD] = WS_PROBE_L1_FORWARD,
                                                       [WS_L1_REJECT] = WS_PROBE_L1_RESFAIL};
  bool hit_load = res->outcome == WS_L1_HIT && a->kind != WS_ACCESS_STORE;
  ws_probe_event ev = {.begin = cycle,
                       .end = hit_load ? res->resp_cycle : cycle + m->cfg.l1.hit_lat_cycles,
                       .addr = a->line_addr,
                       .uop = uop,
                       .sm = (uint16_t)sm,
                       .unit = WS_PROBE_NONE,
                       .warp = a->warp,
                       .pc = UINT32_MAX,
                       .kind = WS_PEV_L1,
                       .outcome = outcome[res->outcome],
                       .flags = (uint8_t)(sectors_tag(m, a->line_addr, a->sector_mask, a->flags) |
                                          (a->kind == WS_ACCESS_STORE ? WS_PROBE_WRITE : 0) |
                                          (a->kind == WS_ACCESS_ATOMIC ? WS_PROBE_ATOMIC : 0) |
                                          (res->merged ? WS_PROBE_MERGED : 0))};
  uint32_t set, way;
  ws_l1_where(m->l1[sm], a->line_addr, &set, &way);
  ws_probe_set_l1_set(&ev, set);
  ws_probe_set_l1_way(&ev, way);
  ws_probe_set_l1_sectors(&ev, a->sector_mask);
  m->probe->event(m->probe->user, &ev);
}

/* Where the fill left the line: a streaming L1 chose the way only now. */
static __attribute__((noinline, cold)) void probe_l1_fill(ws_memsys *m, const req *r, uint64_t begin,
                                                          uint64_t end) {
  ws_probe_event ev = probe_ev(m, r, WS_PEV_L1_FILL, begin, end);
  uint32_t set, way;
  ws_l1_where(m->l1[r->sm], r->line, &set, &way);
  ws_probe_set_l1_fill_set(&ev, set);
  ws_probe_set_l1_fill_way(&ev, way);
  ws_probe_set_l1_fill_sectors(&ev, r->mask);
  m->probe->event(m->probe->user, &ev);
}

static uint32_t sector_bytes(const ws_memsys *m, uint8_t mask) {
  return ws_access_sectors(mask) * m->cfg.l1.sector_bytes;
}

/* ---- SM -> slice ------------------------------------------------------------- */

static void transmit_req(ws_memsys *m, uint32_t id, uint64_t ready) {
  req *r = &m->pool[id];
  bool carries_data = r->kind == WS_ACCESS_STORE || r->kind == WS_ACCESS_ATOMIC;
  uint32_t bytes = m->cfg.noc.header_bytes + (carries_data ? sector_bytes(m, r->mask) : 0);
  uint64_t arrive = ws_xbar_send(m->xbar, WS_XBAR_REQ, r->sm, r->slice, bytes, ready);
  if (__builtin_expect(m->probe != NULL, 0)) probe_xbar(m, r, WS_PROBE_DIR_REQ, bytes, ready, arrive);
  post(m, arrive, EV_REQ_ARRIVE, r->slice, id);
  /* a store's write-buffer slot frees as it leaves; an atomic's on its response */
  if (r->kind == WS_ACCESS_STORE) {
    ws_l1_wbuf_release(m->l1[r->sm]);
    m->retry_due[r->sm] = 1;
  }
}

static void send_req(ws_memsys *m, uint32_t id, uint64_t ready) {
  req *r = &m->pool[id];
  fifo *f = &m->req_voq[r->slice];
  if (f->head == NO_ID && ws_xbar_can_send(m->xbar, WS_XBAR_REQ, r->sm, r->slice)) {
    transmit_req(m, id, ready);
    return;
  }
  ws_xbar_count_stall(m->xbar, WS_XBAR_REQ, r->slice);
  r->ready_cycle = ready;
  fifo_push(m, f, id);
}

/* ---- slice -> SM --------------------------------------------------------------- */

static void transmit_resp(ws_memsys *m, uint32_t id, uint64_t ready) {
  req *r = &m->pool[id];
  uint32_t bytes = sector_bytes(m, r->mask);
  uint64_t arrive = ws_xbar_send(m->xbar, WS_XBAR_RESP, r->slice, r->sm, bytes, ready);
  if (__builtin_expect(m->probe != NULL, 0)) probe_xbar(m, r, WS_PROBE_DIR_RESP, bytes, ready, arrive);
  post(m, arrive, EV_RESP_ARRIVE, r->sm, id);
}

static void send_resp(ws_memsys *m, uint32_t id, uint64_t ready) {
  req *r = &m->pool[id];
  fifo *f = &m->resp_voq[r->sm];
  if (f->head == NO_ID && ws_xbar_can_send(m->xbar, WS_XBAR_RESP, r->slice, r->sm)) {
    transmit_resp(m, id, ready);
    return;
  }
  ws_xbar_count_stall(m->xbar, WS_XBAR_RESP, r->sm);
  r->ready_cycle = ready;
  fifo_push(m, f, id);
}

/* ---- slice -> DRAM --------------------------------------------------------------- */

static void pump(ws_memsys *m, uint32_t slice, uint64_t now);

static void enter_dram(ws_memsys *m, uint32_t id, uint64_t ready) {
  req *r = &m->pool[id];
  post(m, ready + m->cfg.hbm.ctrl_lat_cycles, EV_DRAM_ARRIVE, ws_dram_channel(m->dram, r->line), id);
  if (r->role == ROLE_DRAM_WRITE) ws_l2_wb_release(m->l2, r->slice);
}

static void send_dram(ws_memsys *m, uint32_t id, uint64_t ready) {
  req *r = &m->pool[id];
  uint32_t ch = ws_dram_channel(m->dram, r->line);
  fifo *f = &m->dram_wait[ch];
  if (f->head == NO_ID && ws_dram_reserve(m->dram, ch)) {
    enter_dram(m, id, ready);
    return;
  }
  ws_l2_count_dram_stall(m->l2, r->slice);
  r->ready_cycle = ready;
  fifo_push(m, f, id);
}

static uint32_t new_dram_req(ws_memsys *m, role ro, uint64_t line, uint8_t mask, uint32_t slice,
                             const req *cause) {
  uint32_t id = pool_alloc(m);
  m->pool[id] = (req){.line = line,
                      .uop = ++m->next_uop,
                      .link = ro == ROLE_DRAM_READ ? cause->uop : 0,
                      .flags = ro == ROLE_DRAM_READ ? cause->flags : 0,
                      .sm = cause->sm,
                      .next = NO_ID,
                      .slice = slice,
                      .mask = mask,
                      .kind = ro == ROLE_DRAM_WRITE ? WS_ACCESS_STORE : WS_ACCESS_LOAD,
                      .role = (uint8_t)ro};
  return id;
}

/* Controller slots freed: admit waiting requests in order. A write-back
 * admitted frees its slice's write-back slot, which may unblock the slice. */
static void dram_admit(ws_memsys *m, uint32_t ch, uint64_t now) {
  fifo *f = &m->dram_wait[ch];
  while (f->head != NO_ID && ws_dram_reserve(m->dram, ch)) {
    uint32_t id = fifo_pop(m, f);
    req *r = &m->pool[id];
    uint32_t slice = r->slice;
    bool wb = r->role == ROLE_DRAM_WRITE;
    enter_dram(m, id, max_u64(now, r->ready_cycle));
    if (wb) pump(m, slice, now);
  }
}

static void dram_kick(ws_memsys *m, uint32_t ch, uint64_t now) {
  uint64_t wake;
  uint32_t n = ws_dram_schedule(m->dram, ch, now, m->issues, m->cfg.hbm.queue_depth, &wake);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t id = m->issues[i].id;
    if (__builtin_expect(m->probe != NULL, 0)) probe_dram(m, ch, &m->issues[i], now);
    if (m->issues[i].is_write) /* held until its burst is on the bus: a kernel ends after it */
      post(m, m->issues[i].done_cycle, EV_DRAM_WRITTEN, ch, id);
    else
      post(m, m->issues[i].done_cycle + m->cfg.hbm.ctrl_lat_cycles, EV_L2_FILL, m->pool[id].slice, id);
  }
  if (n) dram_admit(m, ch, now);
  if (wake != UINT64_MAX && wake < m->dram_wake[ch]) {
    m->dram_wake[ch] = wake;
    post(m, wake, EV_DRAM_SCHED, ch, 0);
  }
}

/* ---- the slice pipeline --------------------------------------------------------- */

static void slice_outcome(ws_memsys *m, uint32_t slice, uint32_t id, const ws_l2_result *res, uint64_t now) {
  req *r = &m->pool[id];
  if (__builtin_expect(m->probe != NULL, 0)) probe_l2(m, r, res, now);
  if (res->writeback)
    send_dram(m, new_dram_req(m, ROLE_DRAM_WRITE, res->wb_line, res->wb_mask, slice, r), now);
  if (res->outcome == WS_L2_HIT) {
    send_resp(m, id, res->ready_cycle);
  } else if (res->outcome == WS_L2_MISS && res->fetch_mask) {
    /* the miss is known after the slice's tag pass */
    uint32_t d = new_dram_req(m, ROLE_DRAM_READ, r->line, res->fetch_mask, slice, r);
    send_dram(m, d, now + m->cfg.l2.hit_lat_cycles);
  } else if (res->outcome == WS_L2_WRITTEN) {
    pool_free(m, id);
  }
}

/* Feeds the slice's input FIFO into its pipeline, one request per
 * occupancy period, until it is empty, busy (then one pump event) or
 * stalled on an MSHR / write-back slot (then the freeing event re-pumps). */
static void pump(ws_memsys *m, uint32_t slice, uint64_t now) {
  uint32_t id;
  while (!ws_l2_stalled(m->l2, slice) && ws_l2_head(m->l2, slice, &id)) {
    uint64_t free_at = ws_l2_free_cycle(m->l2, slice);
    if (free_at > now) {
      if (m->pump_at[slice] != free_at) {
        m->pump_at[slice] = free_at;
        post(m, free_at, EV_SLICE_PUMP, slice, 0);
      }
      return;
    }
    req *r = &m->pool[id];
    ws_l2_result res;
    ws_l2_lookup(m->l2, slice, id, r->line, r->mask, (ws_access_kind)r->kind, now, &res);
    if (res.outcome == WS_L2_STALL) return;
    ws_l2_pop(m->l2, slice);
    ws_l2_occupy(m->l2, slice, sector_bytes(m, r->mask), r->kind == WS_ACCESS_ATOMIC, now);
    ws_xbar_release(m->xbar, WS_XBAR_REQ, slice);
    slice_outcome(m, slice, id, &res, now);
    fifo *f = &m->req_voq[slice];
    if (f->head != NO_ID && ws_xbar_can_send(m->xbar, WS_XBAR_REQ, m->pool[f->head].sm, slice)) {
      uint32_t w = fifo_pop(m, f);
      transmit_req(m, w, max_u64(now, m->pool[w].ready_cycle));
    }
  }
}

static void on_l2_fill(ws_memsys *m, uint32_t slice, uint32_t id, uint64_t now) {
  req *r = &m->pool[id];
  if (__builtin_expect(m->probe != NULL, 0)) probe_l2_fill(m, r, now, now);
  uint32_t n = ws_l2_fill(m->l2, slice, r->line, r->mask, now, m->l2_done);
  pool_free(m, id);
  for (uint32_t i = 0; i < n; i++) send_resp(m, m->l2_done[i].id, m->l2_done[i].ready_cycle);
  pump(m, slice, now);
}

/* ---- responses at the SM ----------------------------------------------------------- */

static void on_resp_arrive(ws_memsys *m, uint32_t sm, uint32_t id, uint64_t now) {
  ws_xbar_release(m->xbar, WS_XBAR_RESP, sm);
  fifo *f = &m->resp_voq[sm];
  if (f->head != NO_ID && ws_xbar_can_send(m->xbar, WS_XBAR_RESP, m->pool[f->head].slice, sm)) {
    uint32_t w = fifo_pop(m, f);
    transmit_resp(m, w, max_u64(now, m->pool[w].ready_cycle));
  }
  req *r = &m->pool[id];
  ws_l1 *l1 = m->l1[sm];
  m->retry_due[sm] = 1; /* a fill or a write-buffer slot: the L1 changed */
  if (r->kind == WS_ACCESS_ATOMIC) {
    post(m, ws_l1_deliver(l1, r->mask, now), WS_EVK_MEM_RESP, sm, r->cookie);
    ws_l1_wbuf_release(l1);
    pool_free(m, id);
    return;
  }
  uint32_t n = ws_l1_fill(l1, r->line, r->mask, now, m->l1_done);
  if (__builtin_expect(m->probe != NULL, 0)) probe_l1_fill(m, r, now, n ? m->l1_done[n - 1].resp_cycle : now);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t done = m->l1_done[i].id;
    post(m, m->l1_done[i].resp_cycle, WS_EVK_MEM_RESP, sm, m->pool[done].cookie);
    pool_free(m, done);
  }
}

/* ---- mapped host memory (sysmem.h) -------------------------------------------------- */

/* A record waits, holding the pool slot that keeps the hierarchy busy,
 * until the link says the access is done. */
static bool sysmem_access(ws_memsys *m, uint32_t sm, const ws_line_access *a, uint64_t cycle,
                          uint64_t cookie) {
  bool read = a->kind != WS_ACCESS_STORE;
  if (m->free_n < 1 || (read && !ws_sysmem_can_read(m->sys))) {
    m->retry_due[sm] = 1;
    return false;
  }
  uint32_t id = pool_alloc(m);
  m->pool[id] = (req){.line = a->line_addr,
                      .cookie = cookie,
                      .next = NO_ID,
                      .sm = sm,
                      .mask = a->sector_mask,
                      .kind = a->kind,
                      .role = ROLE_ACCESS};
  uint64_t leave = cycle + m->cfg.l1.hit_lat_cycles;
  uint64_t done = read ? ws_sysmem_read(m->sys, leave, sector_bytes(m, a->sector_mask))
                       : ws_sysmem_write(m->sys, leave, a->bytes);
  post(m, done, EV_SYSMEM_DONE, sm, id);
  if (!read && m->host_write_fn) m->host_write_fn(m->host_write_user, a->line_addr, a->sector_mask, done);
  return true;
}

static void on_sysmem_done(ws_memsys *m, uint32_t sm, uint32_t id, uint64_t now) {
  req *r = &m->pool[id];
  if (r->kind != WS_ACCESS_STORE) {
    ws_sysmem_read_done(m->sys);
    post(m, now, WS_EVK_MEM_RESP, sm, r->cookie);
  }
  m->retry_due[sm] = 1;
  pool_free(m, id);
}

void ws_memsys_set_host_write_observer(ws_memsys *m, ws_memsys_host_write_fn fn, void *user) {
  m->host_write_fn = fn;
  m->host_write_user = user;
}

/* ---- managed memory (uvm.h) ---------------------------------------------------------- */

/* A faulting access is refused; the LSU offers it again once a batch is
 * done (every SM may then retry). */
static bool uvm_fault(ws_memsys *m, uint32_t sm, uint64_t line, uint64_t cycle) {
  uint64_t start = ws_uvm_fault(m->uvm, line, cycle);
  if (start != UINT64_MAX) post(m, start, EV_UVM_START, 0, 0);
  m->retry_due[sm] = 0;
  m->uvm_refused[sm] = 1;
  return false;
}

static void on_uvm(ws_memsys *m, uint16_t kind, uint64_t now) {
  if (kind == EV_UVM_START) {
    post(m, ws_uvm_batch_start(m->uvm, now), EV_UVM_DONE, 0, 0);
    return;
  }
  uint64_t next = ws_uvm_batch_done(m->uvm, now);
  if (next != UINT64_MAX) post(m, next, EV_UVM_START, 0, 0);
  memset(m->retry_due, 1, m->cfg.gpu.num_sms);
}

ws_uvm *ws_memsys_uvm(ws_memsys *m) { return m->uvm; }

/* ---- public ------------------------------------------------------------------------ */

/* An access the L1 sends on toward its slice. The slice is looked up only
 * here: most accesses of a memory-bound kernel hit in the L1 or merge into
 * a pending miss, and the slice hash (even memoised) was a cache miss of
 * its own on each. */
static void leave_l1(ws_memsys *m, uint32_t id, uint64_t ready) {
  req *r = &m->pool[id];
  r->slice = ws_l2_slice_of(m->l2, r->line);
  send_req(m, id, ready);
}

/* A load's L1 hit responding at `resp`: its own response, or (hit_cycle
 * not NULL, ws_memsys_access_gather) its cycle marked and handed back. */
static void respond_hit(ws_memsys *m, uint32_t sm, uint64_t resp, uint64_t cookie, uint64_t *hit_cycle) {
  if (hit_cycle && !m->probe && ws_eventq_mark(m->q, resp))
    *hit_cycle = resp;
  else
    post(m, resp, WS_EVK_MEM_RESP, sm, cookie);
}

/* *hit_cycle: NULL, a hit posts its response; else as
 * ws_memsys_access_gather says. */
static bool access(ws_memsys *m, uint32_t sm, const ws_line_access *a, uint64_t cycle, uint64_t cookie,
                   uint64_t *hit_cycle) {
  /* an out-of-range SM or kind is a caller bug; refusing keeps memory safe */
  if (sm >= m->cfg.gpu.num_sms || a->kind >= WS_ACCESS_KIND_COUNT) return false;
  if (a->line_addr >= WS_CFG_MANAGED_BASE) {
    if (a->line_addr >= WS_CFG_SYSMEM_BASE) return sysmem_access(m, sm, a, cycle, cookie);
    if (!ws_uvm_resident(m->uvm, a->line_addr)) return uvm_fault(m, sm, a->line_addr, cycle);
  }
  /* the pool holds every record the capacities allow (config.c), so this
   * does not happen; if it did, the SM would retry on every memory event */
  if (m->free_n < 2) {
    m->retry_due[sm] = 1;
    return false;
  }
  /* the record the access takes if it outlives this call (it waits on an
   * MSHR or travels on): the pool's head, taken only then. An L1 hit, most
   * accesses of a memory-bound kernel, took it and gave it back at once,
   * which left the pool as it found it; now it does not write it at all */
  uint32_t id = m->free_head;
  ws_l1_result res;
  ws_l1_access(m->l1[sm], a, id, cycle, &res);
  /* whatever leaves the L1 has gone through its pipeline (tag check) first */
  uint64_t leave = cycle + m->cfg.l1.hit_lat_cycles, uop = m->next_uop + 1;
  bool accepted = res.outcome != WS_L1_REJECT;
  if (__builtin_expect(m->probe != NULL, 0)) probe_l1(m, sm, a, accepted ? uop : 0, &res, cycle);
  if (!accepted) {
    m->uvm_refused[sm] = 0; /* this refusal is the L1's */
    /* with a probe every retry is a record of its own, so it is made */
    m->retry_due[sm] = m->probe != NULL;
    return false;
  }
  m->next_uop++;
  if (res.outcome == WS_L1_HIT && !res.writeback) {
    if (a->kind != WS_ACCESS_STORE) respond_hit(m, sm, res.resp_cycle, cookie, hit_cycle);
    return true;
  }
  req *r = &m->pool[pool_alloc(m)]; /* id: the head, as the L1 was told */
  *r = (req){.line = a->line_addr,
             .cookie = cookie,
             .uop = uop,
             .flags = a->flags,
             .next = NO_ID,
             .sm = sm,
             .mask = a->sector_mask,
             .kind = a->kind,
             .role = ROLE_ACCESS};
  if (res.writeback) {
    uint32_t w = pool_alloc(m);
    m->pool[w] = (req){.line = res.wb_line,
                       .uop = ++m->next_uop,
                       .next = NO_ID,
                       .sm = sm,
                       .slice = ws_l2_slice_of(m->l2, res.wb_line),
                       .mask = res.wb_mask,
                       .kind = WS_ACCESS_STORE,
                       .role = ROLE_ACCESS};
    send_req(m, w, leave);
  }
  switch (res.outcome) {
  case WS_L1_HIT:
    if (a->kind != WS_ACCESS_STORE) respond_hit(m, sm, res.resp_cycle, cookie, hit_cycle);
    pool_free(m, id);
    break;
  case WS_L1_MISS:
    r->mask = res.send_mask;
    leave_l1(m, id, leave);
    break;
  case WS_L1_FORWARD: leave_l1(m, id, leave); break;
  default: /* MERGED: the record waits on the MSHR */ break;
  }
  return true;
}

bool ws_memsys_access(ws_memsys *m, uint32_t sm, const ws_line_access *a, uint64_t cycle, uint64_t cookie) {
  return access(m, sm, a, cycle, cookie, NULL);
}

bool ws_memsys_access_gather(ws_memsys *m, uint32_t sm, const ws_line_access *a, uint64_t cycle,
                             uint64_t cookie, uint64_t *hit_cycle) {
  *hit_cycle = 0;
  return access(m, sm, a, cycle, cookie, hit_cycle);
}

void ws_memsys_respond_hits(ws_memsys *m, uint32_t sm, uint64_t cycle, uint64_t cookie, uint32_t lines) {
  (void)ws_eventq_push(m->q, cycle, WS_EVK_MEM_HITS, (uint16_t)sm, lines, cookie);
}

void ws_memsys_handle(ws_memsys *m, const ws_event *ev) {
  if (ev->arg != m->epoch) return;
  uint32_t unit = ev->unit, id = (uint32_t)ev->payload;
  switch (ev->kind) {
  case EV_REQ_ARRIVE:
    ws_l2_push(m->l2, unit, id);
    pump(m, unit, ev->cycle);
    break;
  case EV_SLICE_PUMP:
    if (m->pump_at[unit] == ev->cycle) m->pump_at[unit] = UINT64_MAX;
    pump(m, unit, ev->cycle);
    break;
  case EV_DRAM_ARRIVE: {
    req *r = &m->pool[id];
    ws_dram_enqueue(m->dram, unit, id, r->line, sector_bytes(m, r->mask), r->role == ROLE_DRAM_WRITE);
    dram_kick(m, unit, ev->cycle);
    break;
  }
  case EV_DRAM_SCHED:
    if (m->dram_wake[unit] == ev->cycle) m->dram_wake[unit] = UINT64_MAX;
    dram_kick(m, unit, ev->cycle);
    break;
  case EV_L2_FILL: on_l2_fill(m, unit, id, ev->cycle); break;
  case EV_RESP_ARRIVE: on_resp_arrive(m, unit, id, ev->cycle); break;
  case EV_DRAM_WRITTEN: pool_free(m, id); break;
  case EV_SYSMEM_DONE: on_sysmem_done(m, unit, id, ev->cycle); break;
  case EV_UVM_START:
  case EV_UVM_DONE: on_uvm(m, ev->kind, ev->cycle); break;
  default: break;
  }
}

bool ws_memsys_retry_due(const ws_memsys *m, uint32_t sm) { return m->retry_due[sm] != 0; }

void ws_memsys_count_refusals(ws_memsys *m, uint32_t sm, uint64_t n) {
  if (m->uvm_refused[sm])
    ws_uvm_count_retries(m->uvm, n);
  else
    ws_l1_count_rejects(m->l1[sm], n);
}

void ws_memsys_set_probe(ws_memsys *m, const ws_probe *probe) { m->probe = probe; }

void ws_memsys_set_tag_query(ws_memsys *m, ws_memsys_tag_fn fn, void *user) {
  m->tag_fn = fn;
  m->tag_user = user;
}

bool ws_memsys_idle(const ws_memsys *m) { return m->free_n == m->pool_n; }

static void reset(ws_memsys *m, bool keep_l2) {
  m->epoch++;
  m->next_uop = 0;
  for (uint32_t i = 0; i < m->cfg.gpu.num_sms; i++) ws_l1_reset(m->l1[i]);
  ws_xbar_reset(m->xbar);
  if (keep_l2)
    ws_l2_reset_timing(m->l2);
  else
    ws_l2_reset(m->l2);
  ws_dram_reset(m->dram);
  ws_sysmem_reset(m->sys);
  ws_uvm_reset_batches(m->uvm);
  memset(m->uvm_refused, 0, m->cfg.gpu.num_sms);
  m->free_head = NO_ID;
  for (uint32_t i = m->pool_n; i-- > 0;) {
    m->pool[i].next = m->free_head;
    m->free_head = i;
  }
  m->free_n = m->pool_n;
  for (uint32_t i = 0; i < m->cfg.l2.slices; i++) {
    m->req_voq[i] = (fifo){NO_ID, NO_ID};
    m->pump_at[i] = UINT64_MAX;
  }
  for (uint32_t i = 0; i < m->cfg.gpu.num_sms; i++) {
    m->resp_voq[i] = (fifo){NO_ID, NO_ID};
    m->retry_due[i] = 1;
  }
  for (uint32_t i = 0; i < m->cfg.hbm.channels; i++) {
    m->dram_wait[i] = (fifo){NO_ID, NO_ID};
    m->dram_wake[i] = UINT64_MAX;
  }
}

void ws_memsys_reset(ws_memsys *m) { reset(m, false); }

void ws_memsys_reset_keep_l2(ws_memsys *m) { reset(m, true); }

/* Event units and crossbar ports are 16-bit, sector masks 8-bit: the key
 * table's bounds keep every config inside them. */
_Static_assert(WS_CFG_MAX_SMS - 1u <= UINT16_MAX, "SM numbers are event units");
_Static_assert(WS_CFG_MAX_L2_SLICES - 1u <= UINT16_MAX, "slice numbers are event units");
_Static_assert(WS_CFG_MAX_HBM_CHANNELS - 1u <= UINT16_MAX, "channel numbers are event units");
_Static_assert(WS_CFG_MAX_SECTORS_PER_LINE <= 8u, "a line's sectors fit a uint8_t mask");

static ws_status alloc_tables(ws_memsys *m, ws_ctx *ctx) {
  const ws_gpu_cfg *c = &m->cfg;
  m->pool_n = (uint32_t)c->geom.mem_requests;
  m->pool = calloc(m->pool_n, sizeof *m->pool);
  m->l1 = calloc(c->gpu.num_sms, sizeof *m->l1);
  m->req_voq = calloc(c->l2.slices, sizeof *m->req_voq);
  m->pump_at = calloc(c->l2.slices, sizeof *m->pump_at);
  m->resp_voq = calloc(c->gpu.num_sms, sizeof *m->resp_voq);
  m->dram_wait = calloc(c->hbm.channels, sizeof *m->dram_wait);
  m->dram_wake = calloc(c->hbm.channels, sizeof *m->dram_wake);
  m->retry_due = calloc(c->gpu.num_sms, sizeof *m->retry_due);
  m->uvm_refused = calloc(c->gpu.num_sms, sizeof *m->uvm_refused);
  m->l1_done = calloc(c->l1.mshr_max_merge, sizeof *m->l1_done);
  m->l2_done = calloc(m->pool_n, sizeof *m->l2_done);
  m->issues = calloc(c->hbm.queue_depth, sizeof *m->issues);
  if (!m->pool || !m->l1 || !m->req_voq || !m->pump_at || !m->resp_voq || !m->dram_wait || !m->dram_wake ||
      !m->retry_due || !m->uvm_refused || !m->l1_done || !m->l2_done || !m->issues)
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "memsys: out of memory for %u requests", m->pool_n);
  return WS_OK;
}

/* Mirrors alloc_tables and create_parts; `m` is only an operand of sizeof. */
uint64_t ws_memsys_state_bytes(const ws_gpu_cfg *c) {
  const ws_memsys *m = NULL;
  uint64_t pool = c->geom.mem_requests, sms = c->gpu.num_sms;
  uint64_t tables =
      pool * (sizeof *m->pool + sizeof *m->l2_done) +
      sms * (sizeof *m->l1 + sizeof *m->resp_voq + sizeof *m->retry_due + sizeof *m->uvm_refused) +
      (uint64_t)c->l2.slices * (sizeof *m->req_voq + sizeof *m->pump_at) +
      (uint64_t)c->hbm.channels * (sizeof *m->dram_wait + sizeof *m->dram_wake) +
      (uint64_t)c->l1.mshr_max_merge * sizeof *m->l1_done + (uint64_t)c->hbm.queue_depth * sizeof *m->issues;
  return sizeof(ws_memsys) + tables + sms * ws_l1_state_bytes(c) + ws_xbar_state_bytes(c) +
         ws_l2_state_bytes(c, (uint32_t)pool) + ws_dram_state_bytes(c) + ws_sysmem_state_bytes() +
         ws_uvm_state_bytes(c);
}

static ws_status create_parts(ws_memsys *m, ws_ctx *ctx, ws_stats *stats) {
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < m->cfg.gpu.num_sms && st == WS_OK; i++)
    st = ws_l1_create(ctx, &m->cfg, i, stats, &m->l1[i]);
  if (st == WS_OK) st = ws_xbar_create(ctx, &m->cfg, stats, &m->xbar);
  if (st == WS_OK) st = ws_l2_create(ctx, &m->cfg, stats, m->pool_n, &m->l2);
  if (st == WS_OK) st = ws_dram_create(ctx, &m->cfg, stats, &m->dram);
  if (st == WS_OK) st = ws_sysmem_create(ctx, &m->cfg, stats, &m->sys);
  if (st == WS_OK) st = ws_uvm_create(ctx, &m->cfg, stats, &m->uvm);
  return st;
}

ws_status ws_memsys_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_eventq *q,
                           ws_memsys **out) {
  *out = NULL;
  ws_memsys *m = calloc(1, sizeof *m);
  if (!m) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "memsys: out of memory");
  m->cfg = *cfg;
  m->q = q;
  ws_status st = alloc_tables(m, ctx);
  if (st == WS_OK) st = create_parts(m, ctx, stats);
  if (st != WS_OK) {
    ws_memsys_destroy(m);
    return st;
  }
  reset(m, false);
  *out = m;
  return WS_OK;
}

void ws_memsys_destroy(ws_memsys *m) {
  if (!m) return;
  ws_uvm_destroy(m->uvm);
  ws_sysmem_destroy(m->sys);
  ws_dram_destroy(m->dram);
  ws_l2_destroy(m->l2);
  ws_xbar_destroy(m->xbar);
  for (uint32_t i = 0; m->l1 && i < m->cfg.gpu.num_sms; i++) ws_l1_destroy(m->l1[i]);
  free(m->issues);
  free(m->l2_done);
  free(m->l1_done);
  free(m->retry_due);
  free(m->uvm_refused);
  free(m->dram_wake);
  free(m->dram_wait);
  free(m->resp_voq);
  free(m->pump_at);
  free(m->req_voq);
  free(m->l1);
  free(m->pool);
  free(m);
}

static void count_write_back(void *user, uint64_t line_addr, uint8_t mask) {
  ws_memsys *m = user;
  ws_dram_count_end_write(m->dram, line_addr, sector_bytes(m, mask));
}

void ws_memsys_write_back_l2(ws_memsys *m) { ws_l2_write_back(m->l2, count_write_back, m); }

void ws_memsys_warm(ws_memsys *m, uint64_t line_addr, uint8_t mask, bool write, bool count_reads) {
  ws_l2_warmed w = ws_l2_warm(m->l2, line_addr, mask, write);
  if (count_reads) ws_dram_count_untimed(m->dram, line_addr, sector_bytes(m, w.fetch_mask), false);
  if (w.wb_mask) ws_dram_count_untimed(m->dram, w.wb_line, sector_bytes(m, w.wb_mask), true);
}
