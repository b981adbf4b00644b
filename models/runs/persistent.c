/* persistent.c - N launches against one persistent ring kernel; see
 * persistent.h. */
#include "models/runs/persistent.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/runs/example.h"
#include "sim/host/runtime.h"
#include "sim/memsys/latency.h"

#define KERNELS "models/runs/persistent.wsa"
#define STOP_SEQ UINT32_MAX
#define NEVER UINT64_MAX

ws_persistent_cfg ws_persistent_default_cfg(void) {
  return (ws_persistent_cfg){.items = 64, .elems = 1024, .threads = 256};
}

void ws_persistent_result_free(ws_persistent_result *r) {
  free(r->launch_done_ns);
  free(r->ring_done_ns);
  free(r->launch_kernel_ns);
  memset(r, 0, sizeof *r);
}

/* Item i's scale: exact in fp32, different for every item. */
static float scale_of(uint32_t i) { return 1.0f + (float)i * (1.0f / 256.0f); }

/* ---- one device, its buffers and the two kernels ------------------------------ */

typedef struct env {
  ws_ctx *ctx;
  const ws_persistent_cfg *cfg;
  ws_device *dev;
  ws_runtime *rt;
  ws_program *prog;
  const ws_kernel *item, *ring;
  uint64_t x, b, out;   /* device memory */
  uint64_t queue, done; /* mapped host memory */
  float *hx, *hb;
} env;

static void env_close(env *e) {
  ws_runtime_destroy(e->rt);
  ws_device_destroy(e->dev);
  ws_program_destroy(e->prog);
  free(e->hx);
  free(e->hb);
}

static ws_status fill_inputs(env *e) {
  uint32_t n = e->cfg->elems;
  e->hx = malloc(n * sizeof *e->hx);
  e->hb = malloc(n * sizeof *e->hb);
  if (!e->hx || !e->hb) return ws_ctx_fail(e->ctx, WS_ERR_NOMEM, "host memory exhausted for the inputs");
  for (uint32_t j = 0; j < n; j++) { /* multiples of 1/64: exact, varied */
    e->hx[j] = (float)((j * 37u) % 101u) / 64.0f - 0.75f;
    e->hb[j] = (float)((j * 53u) % 97u) / 64.0f - 0.5f;
  }
  ws_status st = ws_device_memcpy_htod(e->dev, e->x, e->hx, (uint64_t)n * 4u);
  return st == WS_OK ? ws_device_memcpy_htod(e->dev, e->b, e->hb, (uint64_t)n * 4u) : st;
}

static ws_status env_open(env *e, ws_ctx *ctx, const ws_gpu_cfg *gpu, const ws_persistent_cfg *cfg) {
  memset(e, 0, sizeof *e);
  e->ctx = ctx;
  e->cfg = cfg;
  ws_status st = ws_example_program(ctx, KERNELS, &e->prog);
  if (st == WS_OK) st = ws_device_create(ctx, gpu, &e->dev);
  if (st != WS_OK) return st;
  e->item = &e->prog->kernels[0];
  e->ring = &e->prog->kernels[1];
  ws_device_set_keep_l2(e->dev, true); /* a process's kernels share the L2 */
  uint64_t bytes = (uint64_t)cfg->elems * 4u;
  st = ws_runtime_create(e->dev, &e->rt);
  if (st == WS_OK) st = ws_device_malloc(e->dev, bytes, &e->x);
  if (st == WS_OK) st = ws_device_malloc(e->dev, bytes, &e->b);
  if (st == WS_OK) st = ws_device_malloc(e->dev, bytes * cfg->items, &e->out);
  if (st == WS_OK) st = ws_device_host_alloc(e->dev, WS_PERSISTENT_SLOTS * 8u, &e->queue);
  if (st == WS_OK) st = ws_device_host_alloc(e->dev, 4u, &e->done);
  return st == WS_OK ? fill_inputs(e) : st;
}

static ws_status set_common(env *e, ws_args *args) {
  ws_status st = ws_args_set_ptr(e->ctx, args, "done", e->done);
  if (st == WS_OK) st = ws_args_set_ptr(e->ctx, args, "x", e->x);
  if (st == WS_OK) st = ws_args_set_ptr(e->ctx, args, "b", e->b);
  if (st == WS_OK) st = ws_args_set_ptr(e->ctx, args, "out", e->out);
  return st == WS_OK ? ws_args_set_u32(e->ctx, args, "n", e->cfg->elems) : st;
}

/* Every output against the host's fused multiply-add, bit for bit. */
static ws_status check_outputs(env *e, const char *how) {
  uint32_t n = e->cfg->elems;
  float *got = malloc((size_t)n * sizeof *got);
  if (!got) return ws_ctx_fail(e->ctx, WS_ERR_NOMEM, "host memory exhausted checking the outputs");
  ws_status st = WS_OK;
  for (uint32_t i = 0; i < e->cfg->items && st == WS_OK; i++) {
    st = ws_device_memcpy_dtoh(e->dev, got, e->out + (uint64_t)i * n * 4u, (uint64_t)n * 4u);
    for (uint32_t j = 0; j < n && st == WS_OK; j++) {
      float want = fmaf(scale_of(i), e->hx[j], e->hb[j]);
      if (memcmp(&want, &got[j], sizeof want) != 0)
        st = ws_ctx_fail(e->ctx, WS_ERR_FAULT, "%s: item %u element %u is %.9g, the host computes %.9g", how,
                         i, j, (double)got[j], (double)want);
    }
  }
  free(got);
  return st;
}

static ws_status read_done(env *e, uint32_t *count) {
  return ws_device_memcpy_dtoh(e->dev, count, e->done, sizeof *count);
}

/* ---- N launches ------------------------------------------------------------------ */

static ws_status run_launches(env *e, ws_persistent_result *r) {
  ws_args args;
  ws_args_init(&args, e->item);
  ws_status st = set_common(e, &args);
  for (uint32_t i = 0; i < e->cfg->items && st == WS_OK; i++) {
    uint32_t count = 0;
    st = ws_args_set_u32(e->ctx, &args, "i", i);
    if (st == WS_OK) st = ws_args_set_f32(e->ctx, &args, "a", scale_of(i));
    if (st == WS_OK)
      st = ws_runtime_launch(e->rt, WS_RUNTIME_STREAM_DEFAULT, e->item, (ws_dim3){1, 1, 1},
                             (ws_dim3){e->cfg->threads, 1, 1}, 0, &args, "item");
    if (st == WS_OK)
      st = ws_runtime_stream_synchronize(e->rt, WS_RUNTIME_STREAM_DEFAULT, &r->launch_done_ns[i]);
    if (st == WS_OK) st = read_done(e, &count);
    if (st == WS_OK && count != i + 1)
      st = ws_ctx_fail(e->ctx, WS_ERR_FAULT, "item %u's kernel left %u in the done flag, not %u", i, count,
                       i + 1);
  }
  if (st != WS_OK) return st;
  size_t nrec;
  const ws_runtime_record *rec = ws_runtime_timeline(e->rt, &nrec);
  for (size_t i = 0, k = 0; i < nrec && k < e->cfg->items; i++)
    if (rec[i].kind == WS_RUNTIME_OP_KERNEL) r->launch_kernel_ns[k++] = rec[i].end_ns - rec[i].start_ns;
  return check_outputs(e, "launches");
}

/* ---- the ring: the host's side of the queue as a host agent ----------------------------- */

typedef struct host_side {
  env *e;
  uint64_t request_cycles; /* a load's issue to its request at host memory */
  uint64_t next_cycle;     /* of the planned slot write; NEVER: none */
  uint32_t slot_seq;       /* what the planned write puts in its slot */
  float slot_a;
  uint32_t slot;
  uint64_t *done_cycle; /* per item: when its flag landed (NEVER: not yet) */
  ws_status st;
} host_side;

static ws_status write_slot(env *e, uint32_t slot, uint32_t seq, float a) {
  uint8_t bytes[8];
  memcpy(bytes, &seq, 4);
  memcpy(bytes + 4, &a, 4);
  return ws_device_memcpy_htod(e->dev, e->queue + (uint64_t)slot * 8u, bytes, sizeof bytes);
}

static uint64_t host_next(void *user) { return ((host_side *)user)->next_cycle; }

static ws_status host_act(void *user, uint64_t cycle) {
  host_side *h = user;
  (void)cycle;
  h->next_cycle = NEVER;
  return write_slot(h->e, h->slot, h->slot_seq, h->slot_a);
}

/* The flag lands at `cycle`: the host has item count - 1's result then and
 * hands over the next item (or the stop), written so that the polls that
 * reach host memory from `cycle` on see it. */
static void host_landed(void *user, uint64_t line_addr, uint8_t sector_mask, uint64_t cycle) {
  host_side *h = user;
  env *e = h->e;
  (void)sector_mask;
  if (e->done < line_addr || e->done - line_addr >= 128u) return;
  uint32_t count = 0;
  ws_status st = read_done(e, &count);
  if (st != WS_OK || count == 0 || count > e->cfg->items || h->done_cycle[count - 1] != NEVER) {
    if (h->st == WS_OK)
      h->st =
          st != WS_OK ? st : ws_ctx_fail(e->ctx, WS_ERR_FAULT, "the ring kernel wrote %u items done", count);
    return;
  }
  h->done_cycle[count - 1] = cycle;
  bool last = count == e->cfg->items;
  h->slot = count % WS_PERSISTENT_SLOTS;
  h->slot_seq = last ? STOP_SEQ : count + 1;
  h->slot_a = last ? 0.0f : scale_of(count);
  h->next_cycle = cycle > h->request_cycles ? cycle - h->request_cycles : 0;
}

static ws_status ring_times(env *e, const host_side *h, ws_persistent_result *r) {
  size_t nrec;
  const ws_runtime_record *rec = ws_runtime_timeline(e->rt, &nrec);
  if (nrec == 0) return ws_ctx_fail(e->ctx, WS_ERR_FAULT, "the ring kernel is not on the timeline");
  r->ring_start_ns = rec[nrec - 1].start_ns;
  r->ring_kernel_ns = rec[nrec - 1].end_ns - rec[nrec - 1].start_ns;
  uint32_t mhz = ws_device_cfg(e->dev)->gpu.core_clock_mhz;
  for (uint32_t i = 0; i < e->cfg->items; i++) {
    if (h->done_cycle[i] == NEVER)
      return ws_ctx_fail(e->ctx, WS_ERR_FAULT, "the ring kernel never finished item %u", i);
    r->ring_done_ns[i] = r->ring_start_ns + ws_config_cycles_to_ns(h->done_cycle[i], mhz);
  }
  ws_stats_get(ws_device_stats(e->dev), "sysmem.reads", &r->polls);
  r->poll_ns = ws_config_cycles_to_ns(ws_latency_idle_cycles(ws_device_cfg(e->dev), WS_LEVEL_HOST), mhz);
  return WS_OK;
}

static ws_status run_ring(env *e, ws_persistent_result *r) {
  host_side h = {.e = e,
                 .request_cycles = ws_latency_host_request_cycles(ws_device_cfg(e->dev)),
                 .next_cycle = NEVER,
                 .done_cycle = malloc(e->cfg->items * sizeof *h.done_cycle)};
  if (!h.done_cycle) return ws_ctx_fail(e->ctx, WS_ERR_NOMEM, "host memory exhausted for the ring's items");
  for (uint32_t i = 0; i < e->cfg->items; i++) h.done_cycle[i] = NEVER;
  const ws_host_agent agent = {.user = &h, .next_cycle = host_next, .act = host_act, .landed = host_landed};
  ws_args args;
  ws_args_init(&args, e->ring);
  ws_status st = set_common(e, &args);
  if (st == WS_OK) st = ws_args_set_ptr(e->ctx, &args, "queue", e->queue);
  if (st == WS_OK) st = write_slot(e, 0, 1, scale_of(0)); /* item 0 is ready before the launch */
  ws_device_set_host_agent(e->dev, &agent);
  if (st == WS_OK)
    st = ws_runtime_launch(e->rt, WS_RUNTIME_STREAM_DEFAULT, e->ring, (ws_dim3){1, 1, 1},
                           (ws_dim3){e->cfg->threads, 1, 1}, 0, &args, "ring");
  ws_device_set_host_agent(e->dev, NULL);
  if (st == WS_OK) st = h.st;
  if (st == WS_OK) st = ring_times(e, &h, r);
  free(h.done_cycle);
  return st == WS_OK ? check_outputs(e, "ring kernel") : st;
}

/* ---- both ----------------------------------------------------------------------- */

static ws_status check_cfg(ws_ctx *ctx, const ws_gpu_cfg *gpu, const ws_persistent_cfg *c) {
  if (c->items < 1 || c->items > WS_PERSISTENT_MAX_ITEMS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "items must be 1..%u, got %u", WS_PERSISTENT_MAX_ITEMS, c->items);
  if (c->elems < 1 || c->elems > WS_PERSISTENT_MAX_ELEMS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "elements per item must be 1..%u, got %u",
                       WS_PERSISTENT_MAX_ELEMS, c->elems);
  if ((uint64_t)c->items * c->elems > WS_PERSISTENT_MAX_OUTPUTS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "%u items of %u floats are %" PRIu64 " outputs, more than %u",
                       c->items, c->elems, (uint64_t)c->items * c->elems, WS_PERSISTENT_MAX_OUTPUTS);
  if (c->threads < 32 || c->threads % 32 || c->threads > gpu->sm.max_threads_per_block)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "threads must be a multiple of 32 from 32 to %u, got %u",
                       gpu->sm.max_threads_per_block, c->threads);
  return WS_OK;
}

static void find_crossover(ws_persistent_result *r) {
  r->crossover = 0;
  for (uint32_t n = 1; n <= r->items && !r->crossover; n++)
    if (r->ring_done_ns[n - 1] < r->launch_done_ns[n - 1]) r->crossover = n;
}

ws_status ws_persistent_run(ws_ctx *ctx, const ws_gpu_cfg *gpu, const ws_persistent_cfg *cfg,
                            ws_persistent_result *out) {
  memset(out, 0, sizeof *out);
  ws_status st = check_cfg(ctx, gpu, cfg);
  if (st != WS_OK) return st;
  out->items = cfg->items;
  out->launch_done_ns = calloc(cfg->items, sizeof *out->launch_done_ns);
  out->ring_done_ns = calloc(cfg->items, sizeof *out->ring_done_ns);
  out->launch_kernel_ns = calloc(cfg->items, sizeof *out->launch_kernel_ns);
  if (!out->launch_done_ns || !out->ring_done_ns || !out->launch_kernel_ns)
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted for %u items' times", cfg->items);
  env e;
  st = env_open(&e, ctx, gpu, cfg);
  if (st == WS_OK) st = run_launches(&e, out);
  env_close(&e);
  if (st == WS_OK) st = env_open(&e, ctx, gpu, cfg);
  if (st == WS_OK) st = run_ring(&e, out);
  env_close(&e);
  if (st != WS_OK) return st;
  out->launch_ns = out->launch_done_ns[cfg->items - 1];
  out->ring_ns = out->ring_done_ns[cfg->items - 1];
  find_crossover(out);
  return WS_OK;
}
