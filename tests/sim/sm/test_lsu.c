/* test_lsu.c - the LSU on a real memory system (memtest.h's hierarchy):
 * the MIO queue's states and order, one line offered per cycle, stores
 * finishing at their last send, request records (cookie = index, one
 * record per load-like instruction, completed by its last line, reused
 * through the free list, grown past 64), refusals under back-pressure, and
 * the shared-memory pipe's arithmetic.
 *
 * Why: the cookie is the only link between a memory response and the warp
 * that waits for it; a record freed early or reused while in flight would
 * wake the wrong warp. */
#include <criterion/criterion.h>

#include "sim/sm/lsu.h"
#include "tests/sim/memsys/memtest.h"

enum { SMEM_LAT = 25 };

typedef struct lt {
  ws_gpu_cfg cfg;
  ws_ctx *ctx;
  ws_stats *stats;
  ws_eventq q;
  ws_memsys *m;
  ws_lsu lsu;
  uint32_t done_warp[256]; /* by completion order */
  uint64_t done_cookie[256];
  uint32_t ndone;
} lt;

static void lt_init(lt *t) {
  memset(t, 0, sizeof *t);
  t->cfg = mt_cfg();
  t->cfg.smem.lat_cycles = SMEM_LAT;
  t->ctx = ws_ctx_create();
  t->stats = ws_stats_create();
  ws_eventq_init(&t->q);
  cr_assert_eq(ws_memsys_create(t->ctx, &t->cfg, t->stats, &t->q, &t->m), WS_OK, "%s", ws_errmsg(t->ctx));
  cr_assert_eq(ws_lsu_init(t->ctx, &t->lsu, &t->cfg, t->m, 0), WS_OK);
}

static void lt_fini(lt *t) {
  ws_lsu_free(&t->lsu);
  ws_memsys_destroy(t->m);
  ws_eventq_free(&t->q);
  ws_stats_destroy(t->stats);
  ws_ctx_destroy(t->ctx);
}

/* Handles every event; each completed record is logged. */
static void lt_drain(lt *t) {
  ws_event ev;
  while (ws_eventq_pop(&t->q, &ev)) {
    if (ev.kind == WS_EVK_MEM_RESP || ev.kind == WS_EVK_MEM_HITS) {
      const ws_lsu_req *r = ws_lsu_respond(&t->lsu, ev.payload, ev.kind == WS_EVK_MEM_HITS ? ev.arg : 1);
      if (r) {
        cr_assert_lt(t->ndone, 256);
        t->done_warp[t->ndone] = r->warp;
        t->done_cookie[t->ndone++] = ev.payload;
      }
    } else {
      ws_memsys_handle(t->m, &ev);
    }
  }
}

/* A warp instruction of 32 lanes reading `width` bytes at base + lane * stride. */
static ws_warp_step access_ev(uint16_t flags, uint64_t base, uint32_t stride, uint32_t width, uint32_t mask) {
  ws_warp_step ev;
  memset(&ev, 0, sizeof ev);
  ev.pc = 7;
  ev.flags = flags;
  ev.active_mask = mask;
  ev.space = WS_SPACE_GLOBAL;
  ev.width_bytes = (uint8_t)width;
  for (uint32_t l = 0; l < 32; l++) ev.addr[l] = base + (uint64_t)l * stride;
  return ev;
}

static bool push(lt *t, uint32_t warp, const ws_warp_step *ev, uint64_t group) {
  bool has_req = false;
  cr_assert(ws_lsu_push_global(&t->lsu, warp, ev, group, &has_req));
  return has_req;
}

Test(lsu, a_coalesced_load_is_one_line_and_one_record) {
  lt t;
  lt_init(&t);
  cr_expect_eq(t.lsu.state, WS_LSU_EMPTY);
  /* 32 lanes x 4 bytes from a 128-byte aligned base: one line, all four sectors */
  ws_warp_step ev = access_ev(WS_STEP_LOAD, 0x10000, 4, 4, 0xFFFFFFFFu);
  cr_expect(push(&t, 3, &ev, 0), "a load makes a record");
  cr_expect_eq(t.lsu.count, 1);
  cr_expect_eq(t.lsu.state, WS_LSU_SENDING);
  cr_expect_eq(t.lsu.queue[0].nlines, 1);
  cr_expect_eq(t.lsu.queue[0].lines[0].sector_mask, 0xF);
  cr_expect_eq(t.lsu.queue[0].req, 0, "the first record is cookie 0");
  ws_lsu_sent s = ws_lsu_send(&t.lsu, 10);
  cr_expect(s.entry_done);
  cr_expect_eq(s.store_warp, UINT32_MAX, "not a store");
  cr_expect_eq(t.lsu.state, WS_LSU_EMPTY);
  cr_expect_eq(t.lsu.line_accesses, 1);
  cr_expect_eq(t.lsu.sectors, 4);
  lt_drain(&t);
  cr_expect_eq(t.ndone, 1);
  cr_expect_eq(t.done_warp[0], 3);
  const ws_lsu_req *r = &t.lsu.reqs[0];
  cr_expect_eq(r->pc, 7);
  cr_expect_eq(r->kind, WS_ACCESS_LOAD);
  cr_expect_eq(r->lines_left, 0);
  cr_expect_null(ws_lsu_respond(&t.lsu, 0, 1), "a completed record answers nothing more");
  cr_expect_null(ws_lsu_respond(&t.lsu, 5, 1), "an unknown cookie answers nothing");
  lt_fini(&t);
}

Test(lsu, one_line_per_cycle_and_the_record_waits_for_every_line) {
  lt t;
  lt_init(&t);
  /* 32 lanes x 8 bytes: 256 bytes = two lines */
  ws_warp_step ev = access_ev(WS_STEP_LOAD, 0x20000, 8, 8, 0xFFFFFFFFu);
  push(&t, 5, &ev, 0);
  cr_expect_eq(t.lsu.queue[0].nlines, 2);
  cr_expect_eq(t.lsu.reqs[0].lines_left, 2);
  ws_lsu_sent s = ws_lsu_send(&t.lsu, 0);
  cr_expect_not(s.entry_done, "one line sent, one to go");
  s = ws_lsu_send(&t.lsu, 0);
  cr_expect_not(s.entry_done);
  cr_expect_eq(t.lsu.line_accesses, 1, "at most one line per cycle");
  s = ws_lsu_send(&t.lsu, 1);
  cr_expect(s.entry_done);
  cr_expect_eq(t.lsu.line_accesses, 2);
  lt_drain(&t);
  cr_expect_eq(t.ndone, 1, "one completion for the instruction, after its second line");
  cr_expect_eq(t.done_warp[0], 5);
  lt_fini(&t);
}

/* A load whose lines all hit in the L1 answers in one event: its line
 * count, at the last hit's response cycle (hit latency after its send, the
 * return port free), and each hit's own cycle is marked for a visit. */
Test(lsu, a_loads_l1_hits_answer_in_one_event) {
  lt t;
  lt_init(&t);
  const uint64_t lat = t.cfg.l1.hit_lat_cycles;
  ws_warp_step ev = access_ev(WS_STEP_LOAD, 0x80000, 128, 4, 0xFFu); /* eight lines, one sector each */
  push(&t, 4, &ev, 0);
  uint64_t c = 0;
  for (; t.lsu.count; c++) { /* cold: misses, refused while the MSHRs are busy */
    ws_lsu_send(&t.lsu, c);
    lt_drain(&t);
  }
  cr_assert_eq(t.ndone, 1);
  c = t.q.base + 1; /* after the fills (drained at their own cycles): the return port is free */
  ws_eventq_visit(&t.q, c);
  push(&t, 6, &ev, 0);
  const uint64_t first = c;
  for (uint32_t i = 0; i < 8; i++) cr_assert_eq(ws_lsu_send(&t.lsu, c++).entry_done, i == 7, "line %u", i);
  cr_expect_eq(t.lsu.line_accesses, 8 + 8);
  cr_expect_eq(ws_eventq_next_visit(&t.q), first + lat, "the first hit's cycle is marked");
  ws_event e;
  cr_assert(ws_eventq_pop(&t.q, &e));
  cr_expect(ws_eventq_empty(&t.q), "one event for eight hits");
  cr_expect_eq(e.kind, WS_EVK_MEM_HITS);
  cr_expect_eq(e.arg, 8);
  cr_expect_eq(e.cycle, first + 7 + lat, "the last hit's response cycle");
  const ws_lsu_req *r = ws_lsu_respond(&t.lsu, e.payload, e.arg);
  cr_assert_not_null(r, "eight lines answered: the record completes");
  cr_expect_eq(r->warp, 6);
  lt_fini(&t);
}

Test(lsu, stores_finish_at_their_last_send_in_queue_order) {
  lt t;
  lt_init(&t);
  for (uint32_t w = 0; w < t.cfg.sm.lsu_queue_insns; w++) {
    ws_warp_step ev = access_ev(WS_STEP_STORE, 0x40000 + w * 128, 4, 4, 0xFFFFFFFFu);
    cr_expect_not(push(&t, 10 + w, &ev, 0), "stores make no record");
  }
  cr_expect(ws_lsu_full(&t.lsu));
  cr_expect_eq(t.lsu.nreqs, 0);
  uint64_t cycle = 0;
  for (uint32_t w = 0; w < 3; w++) {
    ws_lsu_sent s = ws_lsu_send(&t.lsu, cycle++);
    cr_expect(s.entry_done);
    cr_expect_eq(s.store_warp, 10 + w);
  }
  cr_expect_not(ws_lsu_full(&t.lsu));
  /* three more wrap around the ring behind the 13 still queued */
  for (uint32_t w = 0; w < 3; w++) {
    ws_warp_step ev = access_ev(WS_STEP_STORE, 0x50000 + w * 128, 4, 4, 0x1);
    push(&t, 100 + w, &ev, 0);
  }
  for (uint32_t i = 0; i < 16; i++) {
    ws_lsu_sent s;
    do { /* back-pressure may refuse a cycle; the head stays */
      s = ws_lsu_send(&t.lsu, cycle++);
      if (!s.entry_done) lt_drain(&t);
    } while (!s.entry_done);
    cr_expect_eq(s.store_warp, i < 13 ? 13 + i : 100 + (i - 13), "send %u", i);
  }
  cr_expect_eq(t.lsu.state, WS_LSU_EMPTY);
  cr_expect_eq(t.lsu.count, 0);
  lt_drain(&t);
  lt_fini(&t);
}

Test(lsu, access_kinds_and_groups) {
  lt t;
  lt_init(&t);
  ws_warp_step ev = access_ev(WS_STEP_ATOMIC | WS_STEP_LOAD, 0x60000, 4, 4, 0x1);
  push(&t, 1, &ev, 0);
  ev = access_ev(WS_STEP_ASYNC | WS_STEP_LOAD, 0x61000, 4, 4, 0x1);
  push(&t, 2, &ev, 42);
  ev = access_ev(WS_STEP_LOAD, 0x62000, 4, 4, 0x1);
  push(&t, 3, &ev, 0);
  cr_expect_eq(t.lsu.reqs[0].kind, WS_ACCESS_ATOMIC);
  cr_expect_eq(t.lsu.reqs[1].kind, WS_ACCESS_ASYNC);
  cr_expect_eq(t.lsu.reqs[1].group, 42, "an async copy remembers its commit group");
  cr_expect_eq(t.lsu.reqs[2].kind, WS_ACCESS_LOAD);
  cr_expect_eq(t.lsu.queue[0].lines[0].kind, WS_ACCESS_ATOMIC);
  cr_expect_eq(t.lsu.queue[1].lines[0].sector_mask, 0x1, "lane 0 only: one sector");
  for (uint64_t c = 0; t.lsu.count; c++) {
    ws_lsu_send(&t.lsu, c);
    lt_drain(&t);
  }
  lt_drain(&t);
  cr_expect_eq(t.ndone, 3);
  lt_fini(&t);
}

/* memtest.h's L1 has 4 MSHRs: the fifth distinct missing line in flight is
 * refused, the LSU blocks, and the same line is accepted once fills return. */
Test(lsu, refusal_blocks_until_retried) {
  lt t;
  lt_init(&t);
  for (uint32_t i = 0; i < 5; i++) {
    ws_warp_step ev = access_ev(WS_STEP_LOAD, 0x80000 + i * 0x1000, 4, 4, 0x1);
    push(&t, i, &ev, 0);
  }
  for (uint64_t c = 0; c < 4; c++)
    cr_expect(ws_lsu_send(&t.lsu, c).entry_done, "miss %llu", (unsigned long long)c);
  ws_lsu_sent s = ws_lsu_send(&t.lsu, 4);
  cr_expect_not(s.entry_done);
  cr_expect_eq(t.lsu.state, WS_LSU_BLOCKED);
  cr_expect_eq(t.lsu.refusals, 1);
  cr_expect_eq(t.lsu.count, 1, "the refused instruction stays at the head");
  lt_drain(&t); /* the four fills return */
  cr_expect_eq(t.ndone, 4);
  s = ws_lsu_send(&t.lsu, 5000);
  cr_expect(s.entry_done);
  cr_expect_eq(t.lsu.state, WS_LSU_EMPTY);
  cr_expect_eq(t.lsu.line_accesses, 5);
  lt_drain(&t);
  cr_expect_eq(t.ndone, 5);
  cr_expect_eq(t.done_warp[4], 4);
  lt_fini(&t);
}

Test(lsu, records_are_reused_and_grow) {
  lt t;
  lt_init(&t);
  /* warm one line into the L1 so later loads hit and are never refused */
  ws_warp_step ev = access_ev(WS_STEP_LOAD, 0x90000, 4, 4, 0x1);
  push(&t, 0, &ev, 0);
  ws_lsu_send(&t.lsu, 0);
  lt_drain(&t);
  cr_expect_eq(t.done_cookie[0], 0);
  /* the completed record 0 is reused first */
  push(&t, 1, &ev, 0);
  cr_expect_eq(t.lsu.queue[t.lsu.head].req, 0);
  ws_lsu_send(&t.lsu, 10000);
  /* 70 loads in flight at once: records 0..69, past the first 64 */
  uint64_t cycle = 10001;
  for (uint32_t i = 1; i < 70; i++) {
    push(&t, 100 + i, &ev, 0);
    cr_assert(ws_lsu_send(&t.lsu, cycle++).entry_done, "L1 hit %u accepted", i);
  }
  cr_expect_eq(t.lsu.nreqs, 70);
  cr_expect_geq(t.lsu.cap_reqs, 70);
  t.ndone = 0;
  lt_drain(&t);
  cr_expect_eq(t.ndone, 70);
  bool seen[70] = {false};
  for (uint32_t i = 0; i < t.ndone; i++) {
    cr_assert_lt(t.done_cookie[i], 70);
    cr_expect_not(seen[t.done_cookie[i]], "cookie %llu twice", (unsigned long long)t.done_cookie[i]);
    seen[t.done_cookie[i]] = true;
    uint32_t want = t.done_cookie[i] == 0 ? 1 : 100 + (uint32_t)t.done_cookie[i];
    cr_expect_eq(t.done_warp[i], want, "cookie %llu", (unsigned long long)t.done_cookie[i]);
  }
  ws_lsu_reset(&t.lsu);
  cr_expect_eq(t.lsu.nreqs, 0);
  cr_expect_eq(t.lsu.line_accesses, 71, "reset keeps the counters");
  lt_fini(&t);
}

/* An access of W wavefronts starts when the pipe is free, holds it W cycles
 * and is ready lat + W - 1 after its start. */
Test(lsu, shared_memory_pipe) {
  lt t;
  lt_init(&t);
  cr_expect_eq(ws_lsu_smem_accept_cycle(&t.lsu), 0);
  cr_expect_eq(ws_lsu_smem(&t.lsu, 10, 1, 1), 10 + SMEM_LAT);
  cr_expect_eq(t.lsu.smem_free_cycle, 11);
  /* 4 wavefronts where 1 would do, arriving while the pipe is busy: starts at 11 */
  cr_expect_eq(ws_lsu_smem(&t.lsu, 10, 4, 1), 11 + SMEM_LAT + 3);
  cr_expect_eq(t.lsu.smem_free_cycle, 15);
  cr_expect_eq(t.lsu.smem_conflicts, 3);
  /* an idle pipe starts at once */
  cr_expect_eq(ws_lsu_smem(&t.lsu, 100, 2, 2), 100 + SMEM_LAT + 1);
  cr_expect_eq(t.lsu.smem_free_cycle, 102);
  cr_expect_eq(ws_lsu_smem(&t.lsu, 200, 0, 0), 201, "no wavefront: ready next cycle");
  cr_expect_eq(t.lsu.smem_free_cycle, 102, "and the pipe is not touched");
  cr_expect_eq(t.lsu.smem_wavefronts, 1 + 4 + 2);
  cr_expect_eq(t.lsu.smem_insns, 3);
  /* the backlog: accept once at most 16 wavefront-cycles are queued */
  cr_expect_eq(ws_lsu_smem_accept_cycle(&t.lsu), 102 - 16, "sm.smem_backlog_cycles");
  ws_lsu_reset(&t.lsu);
  cr_expect_eq(t.lsu.smem_free_cycle, 0);
  lt_fini(&t);
}
