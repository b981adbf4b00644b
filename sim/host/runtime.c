/* runtime.c - host buffers, streams, events and the simulated timeline of
 * copies, kernels and host work.
 *
 * Design: list scheduling in issue order. Each operation starts at the
 * latest of three times: when the host issues it, when its stream's
 * previous operation ends (or a waited-on event fires), and when its engine
 * (H2D copy, D2H copy, compute) frees up; it then holds its stream and its
 * engine until it ends. That is how the hardware's per-engine queues
 * behave, it overlaps copies with kernels across streams, and it needs no
 * event queue: one pass, deterministic. The host clock advances only by
 * what keeps the host thread busy: launch calls, pageable copies (CUDA
 * returns from those only once the staging is done), host work the caller
 * measured, and synchronization. */
#include "sim/host/runtime.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ENGINE_H2D, ENGINE_D2H, ENGINE_COMPUTE, ENGINE_COUNT };

typedef struct host_buf {
  uint8_t *data;
  uint64_t size_bytes;
  ws_pcie_host_mem mem;
  bool live;
  uint8_t *tags; /* pixel following: one per byte, nonzero when tagged; NULL: none */
} host_buf;

typedef struct event {
  bool recorded;
  uint64_t time_ns;
} event;

struct ws_runtime {
  ws_device *dev;
  ws_ctx *ctx;
  ws_cfg_pcie pcie;
  uint32_t core_clock_mhz;
  uint64_t host_ns;
  uint64_t engine_free_ns[ENGINE_COUNT];
  uint64_t *stream_ready_ns; /* indexed by stream handle */
  size_t nstreams, cap_streams;
  host_buf *hosts; /* handle h is hosts[h - 1] */
  size_t nhosts, cap_hosts;
  event *events; /* handle e is events[e - 1] */
  size_t nevents, cap_events;
  ws_runtime_record *recs;
  size_t nrecs, cap_recs;
  ws_runtime_region *regions; /* sorted by addr, never overlapping */
  size_t nregions, cap_regions;
  /* where the next observed kernel goes: set by ws_runtime_launch for its
   * own call, or for a whole capture */
  bool placing;
  ws_runtime_stream place_stream;
  char place_name[WS_RUNTIME_NAME_MAX];
};

static ws_status observe(void *user, const ws_kernel *k, ws_dim3 grid, ws_dim3 block,
                         const ws_launch_stats *stats);

static const char *const op_names[] = {"h2d", "d2h", "kernel", "host", "event"};

const char *ws_runtime_op_name(ws_runtime_op op) { return op < WS_RUNTIME_OP_COUNT ? op_names[op] : "?"; }

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Makes room for one more element; false when memory runs out. */
static bool grow(void **items, size_t *cap, size_t count, size_t elem_bytes) {
  if (count < *cap) return true;
  size_t ncap = *cap ? *cap * 2 : 8;
  void *p = realloc(*items, ncap * elem_bytes);
  if (!p) return false;
  *items = p;
  *cap = ncap;
  return true;
}

static ws_status nomem(ws_runtime *rt, const char *what) {
  return ws_ctx_fail(rt->ctx, WS_ERR_NOMEM, "host memory exhausted %s", what);
}

ws_status ws_runtime_create(ws_device *dev, ws_runtime **out) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_runtime *rt = calloc(1, sizeof *rt);
  if (!rt) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating a runtime");
  const ws_gpu_cfg *cfg = ws_device_cfg(dev);
  *rt = (ws_runtime){.dev = dev, .ctx = ctx, .pcie = cfg->pcie, .core_clock_mhz = cfg->gpu.core_clock_mhz};
  if (!grow((void **)&rt->stream_ready_ns, &rt->cap_streams, 0, sizeof *rt->stream_ready_ns)) {
    free(rt);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating a runtime");
  }
  rt->stream_ready_ns[0] = 0; /* the default stream */
  rt->nstreams = 1;
  ws_device_set_observer(dev, observe, rt);
  ws_device_set_keep_l2(dev, true); /* kernels of one process share the L2 */
  *out = rt;
  return WS_OK;
}

void ws_runtime_destroy(ws_runtime *rt) {
  if (!rt) return;
  ws_device_set_observer(rt->dev, NULL, NULL);
  for (size_t i = 0; i < rt->nhosts; i++) {
    free(rt->hosts[i].data);
    free(rt->hosts[i].tags);
  }
  free(rt->recs);
  free(rt->regions);
  free(rt->events);
  free(rt->hosts);
  free(rt->stream_ready_ns);
  free(rt);
}

ws_device *ws_runtime_device(const ws_runtime *rt) { return rt->dev; }

/* ---- memory ------------------------------------------------------------------ */

ws_status ws_runtime_host_alloc(ws_runtime *rt, uint64_t size_bytes, ws_pcie_host_mem mem,
                                ws_runtime_host *out) {
  if (mem >= WS_PCIE_HOST_MEM_COUNT)
    return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "host memory kind %d is neither pinned nor pageable",
                       (int)mem);
  if (size_bytes == 0 || size_bytes > SIZE_MAX)
    return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "cannot allocate a host buffer of %llu bytes",
                       (unsigned long long)size_bytes);
  if (!grow((void **)&rt->hosts, &rt->cap_hosts, rt->nhosts, sizeof *rt->hosts))
    return nomem(rt, "allocating a host buffer");
  uint8_t *data = calloc((size_t)size_bytes, 1);
  if (!data)
    return ws_ctx_fail(rt->ctx, WS_ERR_NOMEM, "host memory exhausted allocating a %llu-byte host buffer",
                       (unsigned long long)size_bytes);
  rt->hosts[rt->nhosts++] = (host_buf){data, size_bytes, mem, true, NULL};
  *out = (ws_runtime_host)rt->nhosts;
  return WS_OK;
}

/* The live buffer behind `h`, or NULL with a message on the context. */
static host_buf *find_host(ws_runtime *rt, ws_runtime_host h) {
  if (h == 0 || h > rt->nhosts) {
    ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "unknown host buffer %u", h);
    return NULL;
  }
  host_buf *b = &rt->hosts[h - 1];
  if (!b->live) {
    ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "host buffer %u is used after it was freed", h);
    return NULL;
  }
  return b;
}

ws_status ws_runtime_host_free(ws_runtime *rt, ws_runtime_host h) {
  host_buf *b = find_host(rt, h);
  if (!b) return WS_ERR_INVALID;
  free(b->data);
  free(b->tags);
  b->data = NULL;
  b->tags = NULL;
  b->live = false;
  return WS_OK;
}

void *ws_runtime_host_data(ws_runtime *rt, ws_runtime_host h) {
  if (h == 0 || h > rt->nhosts || !rt->hosts[h - 1].live) return NULL;
  return rt->hosts[h - 1].data;
}

ws_status ws_runtime_malloc(ws_runtime *rt, uint64_t size_bytes, uint64_t *dptr) {
  return ws_device_malloc(rt->dev, size_bytes, dptr);
}

ws_status ws_runtime_free(ws_runtime *rt, uint64_t dptr) { return ws_device_free(rt->dev, dptr); }

/* ---- named ranges ------------------------------------------------------------ */

static const char *const tensor_names[] = {"image", "weights", "activations", "scores", "other"};

const char *ws_runtime_tensor_name(ws_runtime_tensor t) {
  return (unsigned)t < WS_RUNTIME_TENSOR_COUNT ? tensor_names[t] : "?";
}

/* The index of the first region whose addr is >= addr. */
static size_t region_at(const ws_runtime *rt, uint64_t addr) {
  size_t lo = 0, hi = rt->nregions;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (rt->regions[mid].addr < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A named range that [addr, addr+size) would meet, or NULL: only the
 * neighbours around its place can, since the table never overlaps. */
static const ws_runtime_region *region_meeting(const ws_runtime *rt, size_t at, uint64_t addr,
                                               uint64_t size_bytes) {
  if (at > 0 && rt->regions[at - 1].addr + rt->regions[at - 1].size_bytes > addr) return &rt->regions[at - 1];
  if (at < rt->nregions && rt->regions[at].addr - addr < size_bytes) return &rt->regions[at];
  return NULL;
}

static ws_status check_region(ws_runtime *rt, uint64_t dptr, uint64_t size_bytes, const char *name,
                              ws_runtime_tensor tensor) {
  size_t len = name ? strlen(name) : 0;
  if (len == 0 || len >= WS_RUNTIME_NAME_MAX)
    return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "a range's name must be 1 to %d characters, not %zu",
                       WS_RUNTIME_NAME_MAX - 1, len);
  if ((unsigned)tensor >= WS_RUNTIME_TENSOR_COUNT)
    return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "range '%s': unknown tensor class %d", name, (int)tensor);
  if (size_bytes == 0) return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "range '%s' names 0 bytes", name);
  return ws_device_check_range(rt->dev, "named range", dptr, size_bytes);
}

ws_status ws_runtime_name_range(ws_runtime *rt, uint64_t dptr, uint64_t size_bytes, const char *name,
                                ws_runtime_tensor tensor) {
  ws_status st = check_region(rt, dptr, size_bytes, name, tensor);
  if (st != WS_OK) return st;
  size_t at = region_at(rt, dptr);
  const ws_runtime_region *o = region_meeting(rt, at, dptr, size_bytes);
  if (o)
    return ws_ctx_fail(rt->ctx, WS_ERR_INVALID,
                       "range '%s' at 0x%016" PRIx64 " (%" PRIu64 " bytes) overlaps '%s' at 0x%016" PRIx64
                       " (%" PRIu64 " bytes)",
                       name, dptr, size_bytes, o->name, o->addr, o->size_bytes);
  if (!grow((void **)&rt->regions, &rt->cap_regions, rt->nregions, sizeof *rt->regions))
    return nomem(rt, "naming a range");
  memmove(&rt->regions[at + 1], &rt->regions[at], (rt->nregions - at) * sizeof *rt->regions);
  ws_runtime_region *g = &rt->regions[at];
  *g = (ws_runtime_region){.addr = dptr, .size_bytes = size_bytes, .tensor = tensor};
  memcpy(g->name, name, strlen(name) + 1);
  rt->nregions++;
  return WS_OK;
}

const ws_runtime_region *ws_runtime_regions(const ws_runtime *rt, size_t *count) {
  *count = rt->nregions;
  return rt->regions;
}

/* ---- streams and events ------------------------------------------------------- */

ws_status ws_runtime_stream_create(ws_runtime *rt, ws_runtime_stream *out) {
  if (rt->nstreams >= UINT32_MAX - 1) return ws_ctx_fail(rt->ctx, WS_ERR_LIMIT, "too many streams");
  if (!grow((void **)&rt->stream_ready_ns, &rt->cap_streams, rt->nstreams, sizeof *rt->stream_ready_ns))
    return nomem(rt, "creating a stream");
  rt->stream_ready_ns[rt->nstreams] = 0;
  *out = (ws_runtime_stream)rt->nstreams++;
  return WS_OK;
}

static ws_status check_stream(ws_runtime *rt, ws_runtime_stream s) {
  if (s < rt->nstreams) return WS_OK;
  if (rt->nstreams == 1)
    return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "unknown stream %u (only the default stream 0 exists)", s);
  return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "unknown stream %u (streams 0 to %zu exist)", s,
                     rt->nstreams - 1);
}

ws_status ws_runtime_event_create(ws_runtime *rt, ws_runtime_event *out) {
  if (rt->nevents >= UINT32_MAX - 1) return ws_ctx_fail(rt->ctx, WS_ERR_LIMIT, "too many events");
  if (!grow((void **)&rt->events, &rt->cap_events, rt->nevents, sizeof *rt->events))
    return nomem(rt, "creating an event");
  rt->events[rt->nevents++] = (event){false, 0};
  *out = (ws_runtime_event)rt->nevents;
  return WS_OK;
}

static event *find_event(ws_runtime *rt, ws_runtime_event ev) {
  if (ev == 0 || ev > rt->nevents) {
    ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "unknown event %u", ev);
    return NULL;
  }
  return &rt->events[ev - 1];
}

/* Checks a caller's operation name before anything is done. */
static ws_status check_name(ws_runtime *rt, const char *name) {
  if (!name || strlen(name) < WS_RUNTIME_NAME_MAX) return WS_OK;
  return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "operation name '%.20s...' is longer than %d characters", name,
                     WS_RUNTIME_NAME_MAX - 1);
}

/* Appends a record (kind, stream, name, times); the caller fills the rest. */
static ws_runtime_record *push(ws_runtime *rt, ws_runtime_op kind, uint32_t stream, const char *name,
                               uint64_t start_ns, uint64_t end_ns) {
  if (!grow((void **)&rt->recs, &rt->cap_recs, rt->nrecs, sizeof *rt->recs)) {
    nomem(rt, "recording the timeline");
    return NULL;
  }
  ws_runtime_record *r = &rt->recs[rt->nrecs++];
  memset(r, 0, sizeof *r);
  r->kind = kind;
  r->stream = stream;
  if (name) snprintf(r->name, sizeof r->name, "%s", name); /* a long kernel name is cut */
  r->start_ns = start_ns;
  r->end_ns = end_ns;
  return r;
}

/* ---- the probe: the timeline's records and the DMA bursts of copies ---- */

static const uint8_t probe_op[WS_RUNTIME_OP_COUNT] = {[WS_RUNTIME_OP_H2D] = WS_PROBE_HOST_H2D,
                                                      [WS_RUNTIME_OP_D2H] = WS_PROBE_HOST_D2H,
                                                      [WS_RUNTIME_OP_KERNEL] = WS_PROBE_HOST_KERNEL,
                                                      [WS_RUNTIME_OP_HOST] = WS_PROBE_HOST_WORK,
                                                      [WS_RUNTIME_OP_EVENT] = WS_PROBE_HOST_EVENT};

/* rec: the timeline record it belongs to (a launch's overhead: the kernel's, next) */
static void probe_host(const ws_runtime *rt, uint8_t op, uint32_t stream, size_t rec, uint64_t begin_ns,
                       uint64_t end_ns, uint64_t bytes) {
  const ws_probe *p = ws_device_probe(rt->dev);
  if (!p) return;
  ws_probe_event ev = {.begin = begin_ns,
                       .end = end_ns,
                       .addr = bytes,
                       .sm = WS_PROBE_NONE,
                       .unit = (uint16_t)(stream == WS_RUNTIME_STREAM_HOST ? WS_PROBE_NONE : stream),
                       .warp = WS_PROBE_NONE,
                       .pc = UINT32_MAX,
                       .kind = WS_PEV_HOST,
                       .outcome = op};
  ws_probe_set_host_record(&ev, (uint32_t)rec);
  p->event(p->user, &ev);
}

static void probe_record(const ws_runtime *rt, const ws_runtime_record *r) {
  probe_host(rt, probe_op[r->kind], r->stream, (size_t)(r - rt->recs), r->start_ns, r->end_ns, r->size_bytes);
}

typedef struct chunk_ctx {
  const ws_runtime *rt;
  const ws_runtime_record *r;
  const uint8_t *tags; /* the host side's tags at the copy's offset; NULL: none */
} chunk_ctx;

/* Whether a burst carries a followed byte (the host side's tags after the
 * copy: what it read for H2D, what it wrote for D2H). */
static bool chunk_tagged(const chunk_ctx *x, const ws_pcie_chunk *c, uint64_t *first) {
  if (!x->tags) return false;
  for (uint64_t i = 0; i < c->size_bytes; i++)
    if (x->tags[c->offset_bytes + i]) {
      *first = c->offset_bytes + i;
      return true;
    }
  return false;
}

static void probe_chunk(void *user, const ws_pcie_chunk *c) {
  const chunk_ctx *x = user;
  const ws_probe *p = ws_device_probe(x->rt->dev);
  uint64_t first = 0;
  bool tagged = chunk_tagged(x, c, &first);
  ws_probe_event ev = {.begin = x->r->start_ns + c->dma_begin_ns,
                       .end = x->r->start_ns + c->dma_end_ns,
                       .addr = c->offset_bytes,
                       .sm = WS_PROBE_NONE,
                       .unit = (uint16_t)x->r->stream,
                       .warp = WS_PROBE_NONE,
                       .pc = UINT32_MAX,
                       .kind = WS_PEV_PCIE,
                       .outcome = x->r->kind == WS_RUNTIME_OP_H2D ? WS_PROBE_PCIE_H2D : WS_PROBE_PCIE_D2H,
                       .flags = tagged ? WS_PROBE_TAGGED : 0};
  ws_probe_set_pcie_record(&ev, (uint32_t)(x->rt->nrecs - 1));
  ws_probe_set_pcie_first_tagged(&ev, (uint32_t)first);
  ws_probe_set_pcie_bytes(&ev, (uint32_t)c->size_bytes);
  p->event(p->user, &ev);
}

static void probe_copy(const ws_runtime *rt, const ws_runtime_record *r, ws_pcie_dir dir,
                       const uint8_t *tags) {
  if (!ws_device_probe(rt->dev)) return;
  probe_record(rt, r);
  chunk_ctx x = {rt, r, tags};
  ws_pcie_for_each_chunk(&rt->pcie, r->size_bytes, dir, r->host_mem, probe_chunk, &x);
}

ws_status ws_runtime_event_record(ws_runtime *rt, ws_runtime_event ev, ws_runtime_stream s,
                                  const char *name) {
  event *e = find_event(rt, ev);
  if (!e) return WS_ERR_INVALID;
  if (check_stream(rt, s) != WS_OK || check_name(rt, name) != WS_OK) return WS_ERR_INVALID;
  uint64_t t = max_u64(rt->host_ns, rt->stream_ready_ns[s]);
  ws_runtime_record *r = push(rt, WS_RUNTIME_OP_EVENT, s, name, t, t);
  if (!r) return WS_ERR_NOMEM;
  probe_record(rt, r);
  *e = (event){true, t};
  return WS_OK;
}

ws_status ws_runtime_stream_wait_event(ws_runtime *rt, ws_runtime_stream s, ws_runtime_event ev) {
  event *e = find_event(rt, ev);
  if (!e) return WS_ERR_INVALID;
  if (check_stream(rt, s) != WS_OK) return WS_ERR_INVALID;
  if (!e->recorded)
    return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "stream %u waits on event %u, which was never recorded", s,
                       ev);
  rt->stream_ready_ns[s] = max_u64(rt->stream_ready_ns[s], e->time_ns);
  return WS_OK;
}

ws_status ws_runtime_event_elapsed_ns(ws_runtime *rt, ws_runtime_event start, ws_runtime_event end,
                                      uint64_t *elapsed_ns) {
  event *a = find_event(rt, start);
  event *b = a ? find_event(rt, end) : NULL;
  if (!b) return WS_ERR_INVALID;
  if (!a->recorded || !b->recorded)
    return ws_ctx_fail(rt->ctx, WS_ERR_INVALID,
                       "elapsed time between events %u and %u: event %u was never recorded", start, end,
                       a->recorded ? end : start);
  if (b->time_ns < a->time_ns)
    return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "event %u (%llu ns) precedes event %u (%llu ns)", end,
                       (unsigned long long)b->time_ns, start, (unsigned long long)a->time_ns);
  *elapsed_ns = b->time_ns - a->time_ns;
  return WS_OK;
}

/* ---- operations ------------------------------------------------------------------ */

/* Places an operation of duration_ns on stream s and engine `engine`;
 * returns its start. */
static uint64_t place(ws_runtime *rt, ws_runtime_stream s, int engine, uint64_t duration_ns) {
  uint64_t start = max_u64(rt->host_ns, max_u64(rt->stream_ready_ns[s], rt->engine_free_ns[engine]));
  rt->stream_ready_ns[s] = rt->engine_free_ns[engine] = start + duration_ns;
  return start;
}

/* The host buffer and range a copy names, checked. */
static host_buf *copy_host_side(ws_runtime *rt, ws_runtime_host h, uint64_t offset, uint64_t size_bytes) {
  host_buf *b = find_host(rt, h);
  if (b && (offset > b->size_bytes || size_bytes > b->size_bytes - offset)) {
    ws_ctx_fail(rt->ctx, WS_ERR_INVALID,
                "copy of %llu bytes at offset %llu runs past the end of the %llu-byte host buffer %u",
                (unsigned long long)size_bytes, (unsigned long long)offset, (unsigned long long)b->size_bytes,
                h);
    return NULL;
  }
  return b;
}

static ws_status copy_tags(ws_runtime *rt, ws_pcie_dir dir, host_buf *b, uint64_t host_offset, uint64_t dptr,
                           uint64_t size_bytes);

static ws_status copy(ws_runtime *rt, ws_runtime_stream s, ws_pcie_dir dir, ws_runtime_host h,
                      uint64_t host_offset, uint64_t dptr, uint64_t size_bytes, const char *name) {
  if (check_stream(rt, s) != WS_OK || check_name(rt, name) != WS_OK) return WS_ERR_INVALID;
  host_buf *b = copy_host_side(rt, h, host_offset, size_bytes);
  if (!b) return WS_ERR_INVALID;
  ws_status st = dir == WS_PCIE_H2D ? ws_device_memcpy_htod(rt->dev, dptr, b->data + host_offset, size_bytes)
                                    : ws_device_memcpy_dtoh(rt->dev, b->data + host_offset, dptr, size_bytes);
  if (st == WS_OK) st = copy_tags(rt, dir, b, host_offset, dptr, size_bytes);
  if (st != WS_OK) return st;
  uint64_t dur = ws_pcie_transfer_ns(&rt->pcie, size_bytes, dir, b->mem);
  uint64_t start = place(rt, s, dir == WS_PCIE_H2D ? ENGINE_H2D : ENGINE_D2H, dur);
  ws_runtime_record *r =
      push(rt, dir == WS_PCIE_H2D ? WS_RUNTIME_OP_H2D : WS_RUNTIME_OP_D2H, s, name, start, start + dur);
  if (!r) return WS_ERR_NOMEM;
  r->size_bytes = size_bytes;
  r->host_mem = b->mem;
  probe_copy(rt, r, dir, b->tags ? b->tags + host_offset : NULL);
  /* the call returns only once the CPU has finished staging a pageable copy */
  if (b->mem == WS_PCIE_PAGEABLE) rt->host_ns = max_u64(rt->host_ns, start + dur);
  return WS_OK;
}

ws_status ws_runtime_prefetch(ws_runtime *rt, ws_runtime_stream s, uint64_t dptr, uint64_t size_bytes,
                              const char *name) {
  if (check_stream(rt, s) != WS_OK || check_name(rt, name) != WS_OK) return WS_ERR_INVALID;
  uint64_t in = 0, out = 0;
  ws_status st = ws_device_managed_prefetch(rt->dev, dptr, size_bytes, &in, &out);
  if (st != WS_OK) return st;
  /* evictions first (device to host), then the blocks in, on the H2D engine */
  uint64_t dur = ws_pcie_transfer_ns(&rt->pcie, out, WS_PCIE_D2H, WS_PCIE_PINNED) +
                 ws_pcie_transfer_ns(&rt->pcie, in, WS_PCIE_H2D, WS_PCIE_PINNED);
  uint64_t start = place(rt, s, ENGINE_H2D, dur);
  ws_runtime_record *r = push(rt, WS_RUNTIME_OP_H2D, s, name ? name : "prefetch", start, start + dur);
  if (!r) return WS_ERR_NOMEM;
  r->size_bytes = in;
  r->host_mem = WS_PCIE_PINNED;
  probe_copy(rt, r, WS_PCIE_H2D, NULL);
  return WS_OK;
}

ws_status ws_runtime_memcpy_htod(ws_runtime *rt, ws_runtime_stream s, uint64_t dst, ws_runtime_host h,
                                 uint64_t host_offset, uint64_t size_bytes, const char *name) {
  return copy(rt, s, WS_PCIE_H2D, h, host_offset, dst, size_bytes, name);
}

ws_status ws_runtime_memcpy_dtoh(ws_runtime *rt, ws_runtime_stream s, ws_runtime_host h, uint64_t host_offset,
                                 uint64_t src, uint64_t size_bytes, const char *name) {
  return copy(rt, s, WS_PCIE_D2H, h, host_offset, src, size_bytes, name);
}

/* The device's launch observer: puts the kernel just run on the timeline
 * when a ws_runtime_launch call or a capture is placing kernels. */
static ws_status observe(void *user, const ws_kernel *k, ws_dim3 grid, ws_dim3 block,
                         const ws_launch_stats *stats) {
  ws_runtime *rt = user;
  if (!rt->placing) return WS_OK;
  probe_host(rt, WS_PROBE_HOST_LAUNCH_OVERHEAD, WS_RUNTIME_STREAM_HOST, rt->nrecs, rt->host_ns,
             rt->host_ns + rt->pcie.launch_overhead_ns, 0);
  rt->host_ns += rt->pcie.launch_overhead_ns; /* the launch call itself keeps the host busy */
  uint64_t dur = ws_config_cycles_to_ns(stats->cycles, rt->core_clock_mhz);
  uint64_t start = place(rt, rt->place_stream, ENGINE_COMPUTE, dur);
  ws_runtime_record *r = push(rt, WS_RUNTIME_OP_KERNEL, rt->place_stream,
                              rt->place_name[0] ? rt->place_name : k->name, start, start + dur);
  if (!r) return WS_ERR_NOMEM;
  r->grid = grid;
  r->block = block;
  r->stats = *stats;
  snprintf(r->kernel, sizeof r->kernel, "%s", k->name);
  ws_report_summarize(ws_device_cfg(rt->dev), ws_device_stats(rt->dev), &r->summary);
  probe_record(rt, r);
  return WS_OK;
}

static void set_placing(ws_runtime *rt, ws_runtime_stream s, const char *name) {
  rt->placing = true;
  rt->place_stream = s;
  snprintf(rt->place_name, sizeof rt->place_name, "%s", name ? name : "");
}

ws_status ws_runtime_capture_begin(ws_runtime *rt, ws_runtime_stream s, const char *name) {
  if (check_stream(rt, s) != WS_OK || check_name(rt, name) != WS_OK) return WS_ERR_INVALID;
  if (rt->placing)
    return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "capture '%s' begins inside capture '%s'", name ? name : "",
                       rt->place_name);
  set_placing(rt, s, name);
  return WS_OK;
}

void ws_runtime_capture_end(ws_runtime *rt) { rt->placing = false; }

ws_status ws_runtime_launch(ws_runtime *rt, ws_runtime_stream s, const ws_kernel *k, ws_dim3 grid,
                            ws_dim3 block, uint32_t dyn_shared_bytes, const ws_args *args, const char *name) {
  if (check_stream(rt, s) != WS_OK || check_name(rt, name) != WS_OK) return WS_ERR_INVALID;
  if (rt->placing) return ws_ctx_fail(rt->ctx, WS_ERR_INVALID, "launch inside capture '%s'", rt->place_name);
  set_placing(rt, s, name);
  ws_status st = ws_device_launch(rt->dev, k, grid, block, dyn_shared_bytes, args, NULL);
  rt->placing = false;
  return st;
}

ws_status ws_runtime_host_work(ws_runtime *rt, const char *name, uint64_t duration_ns) {
  if (check_name(rt, name) != WS_OK) return WS_ERR_INVALID;
  ws_runtime_record *r =
      push(rt, WS_RUNTIME_OP_HOST, WS_RUNTIME_STREAM_HOST, name, rt->host_ns, rt->host_ns + duration_ns);
  if (!r) return WS_ERR_NOMEM;
  probe_record(rt, r);
  rt->host_ns += duration_ns;
  return WS_OK;
}

/* ---- time ------------------------------------------------------------------------- */

ws_status ws_runtime_stream_synchronize(ws_runtime *rt, ws_runtime_stream s, uint64_t *now_ns) {
  if (check_stream(rt, s) != WS_OK) return WS_ERR_INVALID;
  rt->host_ns = max_u64(rt->host_ns, rt->stream_ready_ns[s]);
  if (now_ns) *now_ns = rt->host_ns;
  return WS_OK;
}

uint64_t ws_runtime_synchronize(ws_runtime *rt) {
  for (size_t i = 0; i < rt->nstreams; i++) rt->host_ns = max_u64(rt->host_ns, rt->stream_ready_ns[i]);
  for (int e = 0; e < ENGINE_COUNT; e++) rt->host_ns = max_u64(rt->host_ns, rt->engine_free_ns[e]);
  return rt->host_ns;
}

uint64_t ws_runtime_now_ns(const ws_runtime *rt) { return rt->host_ns; }

const ws_runtime_record *ws_runtime_timeline(const ws_runtime *rt, size_t *count) {
  *count = rt->nrecs;
  return rt->recs;
}

/* The "what" column: the bytes of a copy, the shape of a launch. */
static void describe(const ws_runtime_record *r, char *buf, size_t buf_bytes) {
  if (r->kind == WS_RUNTIME_OP_H2D || r->kind == WS_RUNTIME_OP_D2H)
    snprintf(buf, buf_bytes, "%" PRIu64 " B %s", r->size_bytes,
             r->host_mem == WS_PCIE_PAGEABLE ? "pageable" : "pinned");
  else if (r->kind == WS_RUNTIME_OP_KERNEL)
    snprintf(buf, buf_bytes, "grid %ux%ux%u block %ux%ux%u", r->grid.x, r->grid.y, r->grid.z, r->block.x,
             r->block.y, r->block.z);
  else
    buf[0] = '\0';
}

void ws_runtime_print_timeline(FILE *out, const ws_runtime *rt) {
  fprintf(out, "%4s  %-6s  %6s  %-20s  %-28s  %12s  %12s  %12s\n", "#", "op", "stream", "name", "what",
          "start_ns", "end_ns", "dur_ns");
  for (size_t i = 0; i < rt->nrecs; i++) {
    const ws_runtime_record *r = &rt->recs[i];
    char stream[16], what[64];
    if (r->stream == WS_RUNTIME_STREAM_HOST)
      snprintf(stream, sizeof stream, "host");
    else
      snprintf(stream, sizeof stream, "%u", r->stream);
    describe(r, what, sizeof what);
    fprintf(out, "%4zu  %-6s  %6s  %-20s  %-28s  %12" PRIu64 "  %12" PRIu64 "  %12" PRIu64 "\n", i,
            ws_runtime_op_name(r->kind), stream, r->name, what, r->start_ns, r->end_ns,
            r->end_ns - r->start_ns);
  }
}

/* ---- pixel following ------------------------------------------------------------------ */

/* A copy carries its bytes' tags: H2D gives the device bytes the host
 * bytes' tags (ws_device_memcpy_htod has already cleared them), D2H the
 * host bytes the device bytes'. A host buffer gets its tag array on its
 * first tagged byte. */
static ws_status copy_tags(ws_runtime *rt, ws_pcie_dir dir, host_buf *b, uint64_t host_offset, uint64_t dptr,
                           uint64_t size_bytes) {
  if (dir == WS_PCIE_H2D)
    return b->tags && ws_device_following(rt->dev)
               ? ws_device_follow_htod(rt->dev, dptr, b->tags + host_offset, size_bytes)
               : WS_OK;
  if (!ws_device_following(rt->dev)) {
    if (b->tags) memset(b->tags + host_offset, 0, (size_t)size_bytes);
    return WS_OK;
  }
  bool fresh = !b->tags, any = false;
  if (fresh && !(b->tags = calloc((size_t)b->size_bytes, 1))) return nomem(rt, "following a pixel");
  ws_status st = ws_device_follow_dtoh(rt->dev, b->tags + host_offset, dptr, size_bytes, &any);
  if (fresh && !any) {
    free(b->tags);
    b->tags = NULL;
  }
  return st;
}

/* The live buffer h with [offset, offset+size) inside it. */
static host_buf *host_range(ws_runtime *rt, ws_runtime_host h, const char *what, uint64_t offset,
                            uint64_t size_bytes) {
  host_buf *b = find_host(rt, h);
  if (b && (offset > b->size_bytes || size_bytes > b->size_bytes - offset)) {
    ws_ctx_fail(rt->ctx, WS_ERR_INVALID,
                "%s of %llu bytes at offset %llu runs past the end of the %llu-byte host buffer %u", what,
                (unsigned long long)size_bytes, (unsigned long long)offset, (unsigned long long)b->size_bytes,
                h);
    return NULL;
  }
  return b;
}

ws_status ws_runtime_host_follow(ws_runtime *rt, ws_runtime_host h, uint64_t offset, uint64_t size_bytes) {
  host_buf *b = host_range(rt, h, "tag", offset, size_bytes);
  if (!b) return WS_ERR_INVALID;
  if (!b->tags && !(b->tags = calloc((size_t)b->size_bytes, 1))) return nomem(rt, "following a pixel");
  memset(b->tags + offset, 1, (size_t)size_bytes);
  return WS_OK;
}

ws_status ws_runtime_host_followed(ws_runtime *rt, ws_runtime_host h, uint64_t offset, uint64_t size_bytes,
                                   uint32_t elem_bytes, uint64_t *count) {
  *count = 0;
  host_buf *b = host_range(rt, h, "count of tagged elements", offset, size_bytes);
  if (!b) return WS_ERR_INVALID;
  if (!elem_bytes || size_bytes % elem_bytes)
    return ws_ctx_fail(rt->ctx, WS_ERR_INVALID,
                       "count of tagged elements: %llu bytes are not a whole number of %u-byte elements",
                       (unsigned long long)size_bytes, elem_bytes);
  for (uint64_t e = 0; b->tags && e < size_bytes / elem_bytes; e++) {
    const uint8_t *t = b->tags + offset + e * elem_bytes;
    bool tagged = false;
    for (uint32_t i = 0; i < elem_bytes && !tagged; i++) tagged = t[i] != 0;
    *count += tagged;
  }
  return WS_OK;
}
