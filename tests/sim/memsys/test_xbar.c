/* test_xbar.c - the crossbar alone: beats and the s + L + n - 1 completion
 * convention, serialisation per source port, independent ports and
 * directions, credits per destination, the far-partition penalty (request
 * side only, only with two partitions), stall and byte counters, reset.
 *
 * Why: every L2 probe's latency passes through ws_xbar_send twice; the
 * numbers below come from memtest.h's noc: latency 10 cycles, 32-byte SM
 * and slice ports, 8-deep destination queues, 4 SMs and 4 slices. */
#include <criterion/criterion.h>

#include "sim/memsys/xbar.h"
#include "tests/sim/memsys/memtest.h"

typedef struct xt {
  ws_ctx *ctx;
  ws_stats *stats;
  ws_xbar *x;
} xt;

/* Resolves *c first: the suites edit fields after mt_cfg, and the crossbar
 * reads the geometry derived from them (partitions, far latency). */
static void xt_init(xt *t, ws_gpu_cfg *c) {
  mt_resolve(c);
  t->ctx = ws_ctx_create();
  t->stats = ws_stats_create();
  cr_assert_eq(ws_xbar_create(t->ctx, c, t->stats, &t->x), WS_OK, "%s", ws_errmsg(t->ctx));
}

static void xt_fini(xt *t) {
  ws_xbar_destroy(t->x);
  ws_stats_destroy(t->stats);
  ws_ctx_destroy(t->ctx);
}

static uint64_t stat(xt *t, const char *name) {
  uint64_t v = 0;
  cr_assert(ws_stats_get(t->stats, name, &v), "no counter %s", name);
  return v;
}

Test(xbar, beats_round_up_and_are_at_least_one) {
  cr_expect_eq(ws_xbar_beats(0, 32), 1);
  cr_expect_eq(ws_xbar_beats(8, 32), 1);
  cr_expect_eq(ws_xbar_beats(32, 32), 1);
  cr_expect_eq(ws_xbar_beats(33, 32), 2);
  cr_expect_eq(ws_xbar_beats(128, 32), 4);
  cr_expect_eq(ws_xbar_beats(136, 64), 3);
}

Test(xbar, send_latency_and_port_serialisation) {
  ws_gpu_cfg c = mt_cfg();
  xt t;
  xt_init(&t, &c);
  /* an 8-byte read header: 1 beat, 100 + 10 + 1 - 1 */
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_REQ, 0, 0, 8, 100), 110);
  /* the port is busy during cycle 100: the next packet starts at 101 */
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_REQ, 0, 1, 8, 100), 111);
  /* a 128-byte write: 4 beats starting at 102 -> 102 + 10 + 3 = 115; port free at 106 */
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_REQ, 0, 2, 128, 100), 115);
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_REQ, 0, 2, 8, 103), 116);
  /* a packet ready after the port freed starts when ready */
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_REQ, 0, 3, 8, 500), 510);
  /* another SM's port is independent */
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_REQ, 1, 0, 8, 100), 110);
  /* so is the response direction: slice 0's port sending 32 bytes to SM 0 */
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_RESP, 0, 0, 32, 100), 110);
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_RESP, 0, 0, 64, 100), 112, "starts 101, 2 beats");
  /* byte counters per source */
  cr_expect_eq(stat(&t, "noc.sm0.req_bytes"), 8 + 8 + 128 + 8 + 8);
  cr_expect_eq(stat(&t, "noc.sm1.req_bytes"), 8);
  cr_expect_eq(stat(&t, "noc.slice0.resp_bytes"), 96);
  cr_expect_eq(stat(&t, "noc.slice1.resp_bytes"), 0);
  xt_fini(&t);
}

Test(xbar, credits_per_destination) {
  ws_gpu_cfg c = mt_cfg();
  xt t;
  xt_init(&t, &c);
  for (int i = 0; i < 8; i++) {
    cr_assert(ws_xbar_can_send(t.x, WS_XBAR_REQ, (uint32_t)i % 4, 2), "slot %d", i);
    ws_xbar_send(t.x, WS_XBAR_REQ, (uint32_t)i % 4, 2, 8, 0);
  }
  cr_expect_not(ws_xbar_can_send(t.x, WS_XBAR_REQ, 0, 2), "slice 2's queue of 8 is full");
  cr_expect_not(ws_xbar_can_send(t.x, WS_XBAR_REQ, 3, 2), "whichever SM asks");
  cr_expect(ws_xbar_can_send(t.x, WS_XBAR_REQ, 0, 1), "other slices still have room");
  cr_expect(ws_xbar_can_send(t.x, WS_XBAR_RESP, 2, 2), "responses to SM 2 have their own credits");
  ws_xbar_count_stall(t.x, WS_XBAR_REQ, 2);
  ws_xbar_count_stall(t.x, WS_XBAR_REQ, 2);
  ws_xbar_count_stall(t.x, WS_XBAR_RESP, 1);
  cr_expect_eq(stat(&t, "noc.slice2.req_stalls"), 2);
  cr_expect_eq(stat(&t, "noc.sm1.resp_stalls"), 1);
  cr_expect_eq(ws_stats_sum(t.stats, "noc.*.*_stalls"), 3);
  ws_xbar_release(t.x, WS_XBAR_REQ, 2);
  cr_expect(ws_xbar_can_send(t.x, WS_XBAR_REQ, 0, 2), "a consumed packet returns its credit");
  ws_xbar_send(t.x, WS_XBAR_REQ, 0, 2, 8, 0);
  cr_expect_not(ws_xbar_can_send(t.x, WS_XBAR_REQ, 0, 2));
  xt_fini(&t);
}

Test(xbar, reset_frees_ports_and_returns_credits) {
  ws_gpu_cfg c = mt_cfg();
  xt t;
  xt_init(&t, &c);
  for (int i = 0; i < 8; i++) ws_xbar_send(t.x, WS_XBAR_REQ, 0, 0, 128, 0);
  cr_expect_not(ws_xbar_can_send(t.x, WS_XBAR_REQ, 0, 0));
  ws_xbar_reset(t.x);
  cr_expect(ws_xbar_can_send(t.x, WS_XBAR_REQ, 0, 0));
  /* port 0 was busy until cycle 32; after the reset a packet at 0 starts at 0 */
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_REQ, 0, 0, 8, 0), 10);
  cr_expect_eq(stat(&t, "noc.sm0.req_bytes"), 8 * 128 + 8, "reset keeps the counters");
  xt_fini(&t);
}

Test(xbar, far_penalty_on_requests_only) {
  ws_gpu_cfg c = mt_cfg();
  c.l2.partitions = 2; /* SMs 0-1 / slices 0-1 in partition 0, SMs 2-3 / slices 2-3 in 1 */
  c.l2.far_extra_lat_cycles = 30;
  xt t;
  xt_init(&t, &c);
  cr_expect_eq(ws_xbar_sm_partition(t.x, 1), 0);
  cr_expect_eq(ws_xbar_sm_partition(t.x, 2), 1);
  cr_expect_eq(ws_xbar_slice_partition(t.x, 1), 0);
  cr_expect_eq(ws_xbar_slice_partition(t.x, 3), 1);
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_REQ, 0, 1, 8, 0), 10, "near");
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_REQ, 1, 2, 8, 0), 10 + 30, "far: + far_extra_lat_cycles");
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_REQ, 3, 3, 8, 0), 10, "near in partition 1");
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_RESP, 2, 0, 32, 0), 10, "the response way pays nothing");
  xt_fini(&t);
  c.l2.partitions = 1; /* one partition: no far side (a far latency would be refused) */
  c.l2.far_extra_lat_cycles = 0;
  xt_init(&t, &c);
  cr_expect_eq(ws_xbar_send(t.x, WS_XBAR_REQ, 3, 0, 8, 0), 10);
  xt_fini(&t);
}

Test(xbar, registers_two_counters_per_sm_and_per_slice) {
  ws_gpu_cfg c = mt_cfg();
  xt t;
  xt_init(&t, &c);
  cr_expect_eq(ws_stats_count(t.stats), 4 * 2 + 4 * 2);
  cr_expect_str_eq(ws_stats_name(t.stats, 0), "noc.sm0.req_bytes");
  cr_expect_str_eq(ws_stats_name(t.stats, 1), "noc.sm0.resp_stalls");
  cr_expect_str_eq(ws_stats_name(t.stats, 8), "noc.slice0.resp_bytes");
  cr_expect_str_eq(ws_stats_name(t.stats, 9), "noc.slice0.req_stalls");
  /* a second crossbar on the same registry collides on every name */
  ws_xbar *other = (ws_xbar *)1;
  cr_expect_eq(ws_xbar_create(t.ctx, &c, t.stats, &other), WS_ERR_INVALID);
  cr_expect_null(other);
  xt_fini(&t);
}
