/* memtest.h - a small, fully explicit memory-hierarchy configuration and an
 * event pump for the memory-system suites.
 *
 * Design: the suites must not depend on preset files (config loading lives
 * elsewhere), so every [gpu]/[l1]/[l2]/[noc]/[hbm] field the memory model
 * reads is set here with round numbers whose consequences the tests work
 * out by hand, then resolved (checked, geometry derived) like a loaded
 * preset:
 *   1000 MHz core clock: 1 ns = 1 cycle, so 14000 ps = 14 cycles;
 *   16000 MB/s per channel = 16 B/cycle: a 32-byte burst takes 2 cycles. */
#ifndef WS_TESTS_MEMTEST_H
#define WS_TESTS_MEMTEST_H

#include <criterion/criterion.h>
#include <string.h>

#include "sim/common/config.h"
#include "sim/common/eventq.h"
#include "sim/common/stats.h"
#include "sim/memsys/memsys.h"

/* Checks a configuration edited field by field and derives its geometry,
 * as the loaders do: the components trust both. */
static inline void mt_resolve(ws_gpu_cfg *c) {
  ws_ctx *ctx = ws_ctx_create();
  cr_assert_eq(ws_config_resolve(ctx, c, "test config"), WS_OK, "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

static inline ws_gpu_cfg mt_cfg(void) {
  ws_gpu_cfg c = ws_config_default();
  c.gpu.num_sms = 4;
  c.gpu.core_clock_mhz = 1000;
  c.l1 = (ws_cfg_l1){.size_kib = 4,
                     .line_bytes = 128,
                     .sector_bytes = 32,
                     .assoc = 4,
                     .hit_lat_cycles = 20,
                     .mshr_entries = 4,
                     .mshr_max_merge = 2,
                     .port_bytes_per_cycle = 64,
                     .write_policy = WS_WRITE_THROUGH_NOALLOC};
  c.l2 = (ws_cfg_l2){.size_kib = 64,
                     .slices = 4,
                     .partitions = 1,
                     .line_bytes = 128,
                     .sector_bytes = 32,
                     .assoc = 4,
                     .hit_lat_cycles = 100,
                     .far_extra_lat_cycles = 0, /* one partition; 30 where a suite makes two */
                     .mshr_entries_per_slice = 8,
                     .slice_bytes_per_cycle = 64};
  c.noc = (ws_cfg_noc){.lat_cycles = 10,
                       .sm_port_bytes_per_cycle = 32,
                       .slice_port_bytes_per_cycle = 32,
                       .queue_depth = 8,
                       .header_bytes = 8};
  c.hbm = (ws_cfg_hbm){.channels = 2,
                       .banks_per_channel = 4,
                       .row_bytes = 1024,
                       .burst_bytes = 32,
                       .channel_mbps = 16000,
                       .t_rcd_ps = 14000,
                       .t_cl_ps = 14000,
                       .t_rp_ps = 14000,
                       .t_ras_ps = 33000,
                       .queue_depth = 8,
                       .ctrl_lat_cycles = 20};
  mt_resolve(&c);
  return c;
}

/* A memory system with its queue, registry and context. */
typedef struct mt_sys {
  ws_ctx *ctx;
  ws_stats *stats;
  ws_eventq q;
  ws_memsys *m;
  uint64_t now;
  uint64_t resp_cycle[4096]; /* by cookie; 0 = not yet */
  uint64_t responses;
} mt_sys;

/* Resolves *cfg first (suites edit fields after mt_cfg), so the formulas a
 * suite compares the simulation with see the same geometry. */
static inline void mt_init(mt_sys *s, ws_gpu_cfg *cfg) {
  mt_resolve(cfg);
  memset(s, 0, sizeof *s);
  s->ctx = ws_ctx_create();
  s->stats = ws_stats_create();
  ws_eventq_init(&s->q);
  cr_assert_eq(ws_memsys_create(s->ctx, cfg, s->stats, &s->q, &s->m), WS_OK, "%s", ws_errmsg(s->ctx));
}

static inline void mt_fini(mt_sys *s) {
  ws_memsys_destroy(s->m);
  ws_eventq_free(&s->q);
  ws_stats_destroy(s->stats);
  ws_ctx_destroy(s->ctx);
}

/* Handles every event up to and including `until` (UINT64_MAX: drain). */
static inline void mt_run(mt_sys *s, uint64_t until) {
  ws_event ev;
  while (!ws_eventq_empty(&s->q) && ws_eventq_next_cycle(&s->q) <= until) {
    ws_eventq_pop(&s->q, &ev);
    cr_assert_geq(ev.cycle, s->now, "time went backwards");
    s->now = ev.cycle;
    if (ev.kind == WS_EVK_MEM_RESP) {
      cr_assert_lt(ev.payload, 4096);
      cr_assert_eq(s->resp_cycle[ev.payload], 0, "two responses for cookie %llu",
                   (unsigned long long)ev.payload);
      s->resp_cycle[ev.payload] = ev.cycle;
      s->responses++;
    } else if (ev.kind >= WS_EVK_MEMSYS_FIRST && ev.kind <= WS_EVK_MEMSYS_LAST) {
      ws_memsys_handle(s->m, &ev);
    }
  }
  if (until != UINT64_MAX && until > s->now) s->now = until;
}

static inline bool mt_access(mt_sys *s, uint32_t sm, uint64_t line, uint8_t mask, ws_access_kind kind,
                             uint64_t cookie) {
  ws_line_access a = {.line_addr = line,
                      .sector_mask = mask,
                      .kind = (uint8_t)kind,
                      .bytes = (uint16_t)(__builtin_popcount(mask) * 32)};
  return ws_memsys_access(s->m, sm, &a, s->now, cookie);
}

/* Offers the access until accepted, processing events in between (what an
 * LSU does under back-pressure). */
static inline void mt_access_retry(mt_sys *s, uint32_t sm, uint64_t line, uint8_t mask, ws_access_kind kind,
                                   uint64_t cookie) {
  while (!mt_access(s, sm, line, mask, kind, cookie)) {
    cr_assert(!ws_eventq_empty(&s->q), "rejected with nothing in flight");
    mt_run(s, ws_eventq_next_cycle(&s->q));
  }
}

static inline uint64_t mt_stat(mt_sys *s, const char *pattern) { return ws_stats_sum(s->stats, pattern); }

#endif
