/* xbar.c - crossbar ports: serialisation, fixed latency, credits.
 *
 * Design: a port is one "free at" cycle and a destination one credit count,
 * so a packet costs O(1) and no event of its own: the caller posts the
 * arrival event at the cycle ws_xbar_send returns. Partitions follow the
 * preset: slice partition = slice * partitions / slices, SM partition =
 * sm * partitions / num_sms. far_extra_lat_cycles is the extra latency of
 * a round trip to the other partition (that is what microbenchmarks measure
 * and what the presets are calibrated to); it is charged once, on the
 * request packet. */
#include "sim/memsys/xbar.h"
#include "sim/memsys/addrmap.h"

#include <stdlib.h>
#include <string.h>

typedef struct xdir {
  uint32_t nsrc, ndst;
  uint32_t src_bytes_per_cycle;
  uint64_t *src_free_cycle; /* per source port: first cycle it can start a packet */
  uint32_t *credits;        /* per destination: free input-queue slots */
  uint64_t *src_bytes;      /* stats: bytes sent per source */
  uint64_t *dst_stalls;     /* stats: sends refused for lack of a slot */
} xdir;

struct ws_xbar {
  ws_cfg_noc noc;
  uint32_t far_extra_lat_cycles;
  uint32_t num_sms, slices;
  ws_addrmap map;
  xdir dir[WS_XBAR_DIR_COUNT];
};

static ws_status dir_init(ws_ctx *ctx, xdir *d, uint32_t nsrc, uint32_t ndst, uint32_t bpc) {
  d->nsrc = nsrc;
  d->ndst = ndst;
  d->src_bytes_per_cycle = bpc;
  d->src_free_cycle = calloc(nsrc, sizeof *d->src_free_cycle);
  d->src_bytes = calloc(nsrc, sizeof *d->src_bytes);
  d->credits = calloc(ndst, sizeof *d->credits);
  d->dst_stalls = calloc(ndst, sizeof *d->dst_stalls);
  if (!d->src_free_cycle || !d->src_bytes || !d->credits || !d->dst_stalls)
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "crossbar: out of memory");
  return WS_OK;
}

static void dir_free(xdir *d) {
  free(d->src_free_cycle);
  free(d->src_bytes);
  free(d->credits);
  free(d->dst_stalls);
}

static ws_status register_stats(ws_xbar *x, ws_ctx *ctx, ws_stats *s) {
  ws_status st = WS_OK;
  xdir *rq = &x->dir[WS_XBAR_REQ], *rs = &x->dir[WS_XBAR_RESP];
  for (uint32_t i = 0; i < x->num_sms && st == WS_OK; i++) {
    const ws_stat_def defs[] = {
        {&rq->src_bytes[i], "req_bytes", "request bytes the SM sent into the crossbar"},
        {&rs->dst_stalls[i], "resp_stalls",
         "responses held at a slice because the SM's input queue was full"},
    };
    st = ws_stats_register_table(s, ctx, defs, sizeof defs / sizeof defs[0], "noc.sm%u.", i);
  }
  for (uint32_t i = 0; i < x->slices && st == WS_OK; i++) {
    const ws_stat_def defs[] = {
        {&rs->src_bytes[i], "resp_bytes", "response bytes the slice sent to SMs"},
        {&rq->dst_stalls[i], "req_stalls", "requests held at an SM because the slice's input queue was full"},
    };
    st = ws_stats_register_table(s, ctx, defs, sizeof defs / sizeof defs[0], "noc.slice%u.", i);
  }
  return st;
}

/* Each direction has a free cycle and a byte count per source, a credit
 * count and a stall count per destination; SMs and slices swap roles. */
uint64_t ws_xbar_state_bytes(const ws_gpu_cfg *cfg) {
  uint64_t ports = (uint64_t)cfg->gpu.num_sms + cfg->l2.slices;
  return sizeof(ws_xbar) + ports * (2 * sizeof(uint64_t) + sizeof(uint32_t) + sizeof(uint64_t));
}

ws_status ws_xbar_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_xbar **out) {
  *out = NULL;
  ws_xbar *x = calloc(1, sizeof *x);
  if (!x) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "crossbar: out of memory");
  x->noc = cfg->noc;
  x->far_extra_lat_cycles = cfg->geom.l2_far_extra_lat_cycles;
  ws_addrmap_init(&x->map, cfg);
  x->num_sms = cfg->gpu.num_sms;
  x->slices = cfg->l2.slices;
  ws_status st = dir_init(ctx, &x->dir[WS_XBAR_REQ], x->num_sms, x->slices, cfg->noc.sm_port_bytes_per_cycle);
  if (st == WS_OK)
    st = dir_init(ctx, &x->dir[WS_XBAR_RESP], x->slices, x->num_sms, cfg->noc.slice_port_bytes_per_cycle);
  if (st == WS_OK) st = register_stats(x, ctx, stats);
  if (st != WS_OK) {
    ws_xbar_destroy(x);
    return st;
  }
  ws_xbar_reset(x);
  *out = x;
  return WS_OK;
}

void ws_xbar_destroy(ws_xbar *x) {
  if (!x) return;
  dir_free(&x->dir[WS_XBAR_RESP]);
  dir_free(&x->dir[WS_XBAR_REQ]);
  free(x);
}

void ws_xbar_reset(ws_xbar *x) {
  for (int d = 0; d < WS_XBAR_DIR_COUNT; d++) {
    xdir *xd = &x->dir[d];
    memset(xd->src_free_cycle, 0, xd->nsrc * sizeof *xd->src_free_cycle);
    for (uint32_t i = 0; i < xd->ndst; i++) xd->credits[i] = x->noc.queue_depth;
  }
}

uint32_t ws_xbar_sm_partition(const ws_xbar *x, uint32_t sm) { return ws_addrmap_sm_partition(&x->map, sm); }

uint32_t ws_xbar_slice_partition(const ws_xbar *x, uint32_t slice) {
  return ws_addrmap_slice_partition(&x->map, slice);
}

bool ws_xbar_can_send(const ws_xbar *x, ws_xbar_dir dir, uint32_t src, uint32_t dst) {
  (void)src; /* credits are per destination; kept for per-link flow control */
  return x->dir[dir].credits[dst] > 0;
}

void ws_xbar_count_stall(ws_xbar *x, ws_xbar_dir dir, uint32_t dst) { x->dir[dir].dst_stalls[dst]++; }

uint64_t ws_xbar_send(ws_xbar *x, ws_xbar_dir dir, uint32_t src, uint32_t dst, uint32_t bytes,
                      uint64_t ready_cycle) {
  xdir *d = &x->dir[dir];
  d->credits[dst]--;
  d->src_bytes[src] += bytes;
  uint64_t beats = ws_xbar_beats(bytes, d->src_bytes_per_cycle);
  uint64_t start = ready_cycle > d->src_free_cycle[src] ? ready_cycle : d->src_free_cycle[src];
  d->src_free_cycle[src] = start + beats;
  /* the far penalty is a round-trip figure, charged once, on the request's way */
  bool far = dir == WS_XBAR_REQ && ws_xbar_sm_partition(x, src) != ws_xbar_slice_partition(x, dst);
  return start + x->noc.lat_cycles + (far ? x->far_extra_lat_cycles : 0) + beats - 1;
}

void ws_xbar_release(ws_xbar *x, ws_xbar_dir dir, uint32_t dst) { x->dir[dir].credits[dst]++; }
