/* device.c - the host API: device memory, constant bank, launch checks,
 * and the choice between the timing model and the functional executor.
 *
 * Design: a launch is validated completely (dimensions, shared memory,
 * registers, arguments, occupancy) before any CTA runs, with messages that
 * name the offending value and the limit, so a misconfigured launch never
 * reaches either driver. Both drivers run the same primitive (ws_cta_step),
 * so results do not depend on the mode. The timing engine is created on the
 * first timed launch, not with the device: functional-only users never pay
 * for the memory system's tables, and its counters are registered once in
 * the device's registry and reused by every later launch. The device checks
 * its copy of the config and derives its geometry (ws_config_resolve) once,
 * at creation: a caller may have changed fields after loading it. */
#include "sim/host/device.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim/exec/cta.h"
#include "sim/exec/exec.h"
#include "sim/exec/local.h"
#include "sim/exec/mem.h"
#include "sim/exec/sanitize.h"
#include "sim/exec/taint.h"
#include "sim/gpu/engine.h"
#include "sim/memsys/uvm.h"
#include "sim/sm/sm.h"

struct ws_device {
  ws_ctx *ctx;
  ws_gpu_cfg cfg;
  ws_mem *mem;
  uint8_t *const_bank;
  ws_exec_mode mode;
  ws_stats *stats;
  ws_engine *engine; /* created on the first timed launch */
  bool keep_l2;
  uint32_t threads;
  ws_sampling sampling;
  const ws_probe *probe;
  ws_pcprof *prof;
  ws_device_observer observer;
  void *observer_user;
  ws_device_observer stop_observer; /* a launch stopped by the watch */
  void *stop_observer_user;
  ws_watch watch;
  bool has_watch;
  const ws_host_agent *agent; /* runs alongside timed launches; NULL: none */
  uint32_t checks;            /* WS_CHECK_* */
  ws_taint_mem *taint;        /* the tags of global memory while following; NULL: off */
};

uint64_t ws_device_state_bytes(const ws_gpu_cfg *cfg) {
  return sizeof(ws_device) + cfg->gpu.const_bank_bytes + ws_engine_state_bytes(cfg);
}

ws_status ws_device_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_device **out) {
  ws_device *dev = calloc(1, sizeof *dev);
  if (!dev) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating a device");
  dev->ctx = ctx;
  dev->cfg = *cfg;
  /* the caller may have edited fields after loading: the simulator below
   * trusts a checked config and its derived geometry, so both are redone */
  ws_status st = ws_config_resolve(ctx, &dev->cfg, cfg->gpu.name);
  if (st != WS_OK) {
    free(dev);
    return st;
  }
  dev->mem = ws_mem_create(dev->cfg.gpu.dram_size_bytes);
  dev->const_bank = calloc(dev->cfg.gpu.const_bank_bytes, 1);
  dev->stats = ws_stats_create();
  dev->mode = WS_MODE_TIMING;
  if (!dev->mem || !dev->const_bank || !dev->stats) {
    ws_device_destroy(dev);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "host memory exhausted creating a device");
  }
  *out = dev;
  return WS_OK;
}

void ws_device_destroy(ws_device *dev) {
  if (!dev) return;
  ws_engine_destroy(dev->engine);
  ws_taint_mem_destroy(dev->taint);
  ws_stats_destroy(dev->stats);
  free(dev->const_bank);
  ws_mem_destroy(dev->mem);
  free(dev);
}

const ws_gpu_cfg *ws_device_cfg(const ws_device *dev) { return &dev->cfg; }

ws_ctx *ws_device_ctx(const ws_device *dev) { return dev->ctx; }

void ws_device_set_mode(ws_device *dev, ws_exec_mode mode) {
  if (mode < WS_MODE_COUNT) dev->mode = mode;
}

ws_exec_mode ws_device_mode(const ws_device *dev) { return dev->mode; }

const ws_stats *ws_device_stats(const ws_device *dev) { return dev->stats; }

ws_status ws_device_malloc(ws_device *dev, uint64_t size_bytes, uint64_t *dptr) {
  return ws_mem_alloc(dev->mem, dev->ctx, size_bytes, dptr);
}

static ws_status need_engine(ws_device *dev);
static uint64_t managed_budget(const ws_device *dev);

static bool is_managed(uint64_t addr) { return addr >= WS_CFG_MANAGED_BASE && addr < WS_CFG_SYSMEM_BASE; }

/* The host reads or writes managed memory: the pages it touches are the
 * host's now (CUDA migrates them back on the CPU's fault). */
static ws_status host_touch(ws_device *dev, ws_status st, uint64_t addr, uint64_t size_bytes) {
  if (st == WS_OK && is_managed(addr) && dev->engine)
    ws_uvm_host_touch(ws_engine_uvm(dev->engine), addr, size_bytes);
  return st;
}

ws_status ws_device_free(ws_device *dev, uint64_t dptr) {
  ws_status st = ws_mem_free(dev->mem, dev->ctx, dptr);
  if (st == WS_OK && is_managed(dptr) && dev->engine) ws_uvm_remove_range(ws_engine_uvm(dev->engine), dptr);
  return st;
}

ws_status ws_device_malloc_managed(ws_device *dev, uint64_t size_bytes, uint64_t *dptr) {
  ws_status st = need_engine(dev);
  if (st == WS_OK) st = ws_mem_alloc_managed(dev->mem, dev->ctx, size_bytes, dptr);
  if (st == WS_OK &&
      (st = ws_uvm_add_range(ws_engine_uvm(dev->engine), dev->ctx, *dptr, size_bytes)) != WS_OK)
    ws_mem_free(dev->mem, dev->ctx, *dptr);
  return st;
}

ws_status ws_device_managed_prefetch(ws_device *dev, uint64_t dptr, uint64_t size_bytes, uint64_t *in_bytes,
                                     uint64_t *out_bytes) {
  *in_bytes = *out_bytes = 0;
  if (!is_managed(dptr))
    return ws_ctx_fail(dev->ctx, WS_ERR_INVALID, "prefetch of 0x%016" PRIx64 ": not managed memory", dptr);
  ws_status st = ws_mem_check_range(dev->mem, dev->ctx, "prefetch", dptr, size_bytes);
  if (st != WS_OK) return st;
  ws_uvm *u = ws_engine_uvm(dev->engine); /* made by the managed allocation */
  ws_uvm_set_budget(u, managed_budget(dev));
  ws_uvm_prefetch(u, dptr, size_bytes, in_bytes, out_bytes);
  return WS_OK;
}

ws_device_managed_totals ws_device_managed_stats(const ws_device *dev) {
  ws_device_managed_totals t = {0};
  if (!dev->engine) return t;
  ws_uvm *u = ws_engine_uvm(dev->engine);
  ws_uvm_totals u_t = ws_uvm_get_totals(u);
  t.faults = u_t.faults;
  t.batches = u_t.batches;
  t.migrated_bytes = u_t.migrated_bytes;
  t.prefetched_bytes = u_t.prefetched_bytes;
  t.hinted_bytes = u_t.hinted_bytes;
  t.evicted_bytes = u_t.evicted_bytes;
  t.fault_cycles = u_t.fault_cycles;
  t.resident_bytes = ws_uvm_resident_bytes(u);
  return t;
}

ws_status ws_device_host_alloc(ws_device *dev, uint64_t size_bytes, uint64_t *dptr) {
  return ws_mem_alloc_host(dev->mem, dev->ctx, size_bytes, dptr);
}

void ws_device_set_host_agent(ws_device *dev, const ws_host_agent *agent) { dev->agent = agent; }

uint64_t ws_device_allocated_bytes(const ws_device *dev) { return ws_mem_allocated_bytes(dev->mem); }

uint64_t ws_device_peak_allocated_bytes(const ws_device *dev) {
  return ws_mem_peak_allocated_bytes(dev->mem);
}

ws_status ws_device_check_range(ws_device *dev, const char *what, uint64_t dptr, uint64_t size_bytes) {
  return ws_mem_check_range(dev->mem, dev->ctx, what, dptr, size_bytes);
}

static ws_status untag(ws_device *dev, ws_status st, uint64_t dst, uint64_t size_bytes);

ws_status ws_device_memcpy_htod(ws_device *dev, uint64_t dst, const void *src, uint64_t size_bytes) {
  return host_touch(dev,
                    untag(dev, ws_mem_copy_in(dev->mem, dev->ctx, dst, src, size_bytes), dst, size_bytes),
                    dst, size_bytes);
}

ws_status ws_device_memcpy_dtoh(ws_device *dev, void *dst, uint64_t src, uint64_t size_bytes) {
  return host_touch(dev, ws_mem_copy_out(dev->mem, dev->ctx, dst, src, size_bytes), src, size_bytes);
}

ws_status ws_device_memset(ws_device *dev, uint64_t dst, uint8_t value, uint64_t size_bytes) {
  return host_touch(dev, untag(dev, ws_mem_fill(dev->mem, dev->ctx, dst, value, size_bytes), dst, size_bytes),
                    dst, size_bytes);
}

ws_status ws_device_const_write(ws_device *dev, uint32_t offset_bytes, const void *src, uint32_t size_bytes) {
  if ((uint64_t)offset_bytes + size_bytes > dev->cfg.gpu.const_bank_bytes)
    return ws_ctx_fail(dev->ctx, WS_ERR_INVALID,
                       "constant write of %u bytes at offset %u runs past the end of the "
                       "%u-byte constant bank",
                       size_bytes, offset_bytes, dev->cfg.gpu.const_bank_bytes);
  if (size_bytes) memcpy(dev->const_bank + offset_bytes, src, size_bytes);
  return WS_OK;
}

static ws_status check_dims(ws_device *dev, const char *what, ws_dim3 d, const uint32_t *max) {
  const uint32_t v[3] = {d.x, d.y, d.z};
  static const char axis[3] = {'x', 'y', 'z'};
  if (!d.x || !d.y || !d.z)
    return ws_ctx_fail(dev->ctx, WS_ERR_INVALID, "%s (%u,%u,%u) has a zero dimension", what, d.x, d.y, d.z);
  for (int i = 0; i < 3; i++)
    if (v[i] > max[i])
      return ws_ctx_fail(dev->ctx, WS_ERR_LIMIT, "%s.%c = %u exceeds the device limit %u", what, axis[i],
                         v[i], max[i]);
  return WS_OK;
}

static ws_status check_block(ws_device *dev, ws_dim3 b) {
  if (!b.x || !b.y || !b.z) return check_dims(dev, "block", b, dev->cfg.sm.max_block_dim);
  uint64_t threads = (uint64_t)b.x * b.y * b.z;
  if (threads > dev->cfg.sm.max_threads_per_block)
    return ws_ctx_fail(dev->ctx, WS_ERR_LIMIT,
                       "block (%u,%u,%u) has %" PRIu64 " threads; this device allows at most %u per block",
                       b.x, b.y, b.z, threads, dev->cfg.sm.max_threads_per_block);
  return check_dims(dev, "block", b, dev->cfg.sm.max_block_dim);
}

static ws_status check_kernel(ws_device *dev, const ws_kernel *k, uint32_t dyn_shared_bytes) {
  uint64_t shared = (uint64_t)k->shared_size_bytes + dyn_shared_bytes;
  if (shared > dev->cfg.smem.max_per_block_bytes)
    return ws_ctx_fail(dev->ctx, WS_ERR_LIMIT,
                       "kernel '%s' needs %" PRIu64 " bytes of shared memory per block (%u static + %u "
                       "dynamic); this device allows at most %u",
                       k->name, shared, k->shared_size_bytes, dyn_shared_bytes,
                       dev->cfg.smem.max_per_block_bytes);
  uint32_t regs = ws_cta_regs_needed(k);
  if (regs > dev->cfg.regfile.max_regs_per_thread)
    return ws_ctx_fail(dev->ctx, WS_ERR_LIMIT,
                       "kernel '%s' needs %u registers per thread; this device allows at most %u", k->name,
                       regs, dev->cfg.regfile.max_regs_per_thread);
  return WS_OK;
}

static ws_status check_args(ws_device *dev, const ws_kernel *k, const ws_args *args) {
  if (!args) return ws_ctx_fail(dev->ctx, WS_ERR_INVALID, "launch of kernel '%s' without args", k->name);
  if (args->kernel != k)
    return ws_ctx_fail(dev->ctx, WS_ERR_INVALID,
                       "the args were prepared for kernel '%s', not for kernel '%s'",
                       args->kernel ? args->kernel->name : "(none)", k->name);
  if (k->param_size_bytes > WS_PARAM_MAX_BYTES)
    return ws_ctx_fail(dev->ctx, WS_ERR_INVALID, "kernel '%s' has %u bytes of params; at most %u", k->name,
                       k->param_size_bytes, WS_PARAM_MAX_BYTES);
  return ws_args_check_complete(dev->ctx, args);
}

ws_status ws_device_occupancy(ws_device *dev, const ws_kernel *k, ws_dim3 b, uint32_t dyn_shared_bytes,
                              ws_occupancy *occ) {
  uint32_t threads = b.x * b.y * b.z;
  return ws_occupancy_compute(dev->ctx, &dev->cfg, threads, ws_cta_regs_needed(k),
                              k->shared_size_bytes + dyn_shared_bytes, occ);
}

void ws_device_set_watch(ws_device *dev, const ws_watch *watch) {
  dev->has_watch = watch != NULL;
  if (watch) dev->watch = *watch;
}

void ws_device_set_checks(ws_device *dev, uint32_t checks) {
  dev->checks = checks & WS_CHECK_ALL;
  ws_mem_set_track_init(dev->mem, (dev->checks & WS_CHECK_INIT) != 0);
}

uint32_t ws_device_checks(const ws_device *dev) { return dev->checks; }

void ws_device_set_keep_l2(ws_device *dev, bool keep_l2) {
  dev->keep_l2 = keep_l2;
  if (dev->engine) ws_engine_set_keep_l2(dev->engine, keep_l2);
}

void ws_device_write_back_l2(ws_device *dev) {
  if (dev->engine) ws_engine_write_back_l2(dev->engine);
}

void ws_device_set_threads(ws_device *dev, uint32_t threads) {
  dev->threads = threads;
  if (dev->engine) ws_engine_set_threads(dev->engine, threads);
}

void ws_device_set_sampling(ws_device *dev, const ws_sampling *cfg) {
  dev->sampling = cfg ? *cfg : (ws_sampling){0};
  if (dev->engine) ws_engine_set_sampling(dev->engine, &dev->sampling);
}

void ws_device_set_probe(ws_device *dev, const ws_probe *probe) {
  dev->probe = probe;
  if (dev->engine) ws_engine_set_probe(dev->engine, probe);
}

const ws_probe *ws_device_probe(const ws_device *dev) { return dev->probe; }

void ws_device_set_pcprof(ws_device *dev, ws_pcprof *prof) {
  dev->prof = prof;
  if (dev->engine) ws_engine_set_pcprof(dev->engine, prof);
}

const char *ws_device_stall_name(uint32_t r) { return ws_sm_stall_name((ws_stall)r); }

uint32_t ws_device_stall_count(void) { return WS_STALL_COUNT; }

void ws_device_set_observer(ws_device *dev, ws_device_observer fn, void *user) {
  dev->observer = fn;
  dev->observer_user = user;
}

void ws_device_set_stop_observer(ws_device *dev, ws_device_observer fn, void *user) {
  dev->stop_observer = fn;
  dev->stop_observer_user = user;
}

static ws_status run_launch(ws_device *dev, const ws_kernel *k, ws_dim3 grid, ws_dim3 block,
                            uint32_t dyn_shared_bytes, const ws_args *args, ws_launch_stats *stats);

ws_status ws_device_launch(ws_device *dev, const ws_kernel *k, ws_dim3 grid, ws_dim3 block,
                           uint32_t dyn_shared_bytes, const ws_args *args, ws_launch_stats *stats) {
  ws_launch_stats local;
  if (!stats) stats = &local;
  ws_status st = run_launch(dev, k, grid, block, dyn_shared_bytes, args, stats);
  bool stopped = st == WS_ERR_BUDGET || st == WS_ERR_INTERRUPTED;
  if (stopped && dev->stop_observer) dev->stop_observer(dev->stop_observer_user, k, grid, block, stats);
  if (st == WS_OK && dev->observer) st = dev->observer(dev->observer_user, k, grid, block, stats);
  return st;
}

/* The timing model, made on first need: managed memory's state lives in it. */
static ws_status need_engine(ws_device *dev) {
  if (dev->engine) return WS_OK;
  ws_status st = ws_engine_create(dev->ctx, &dev->cfg, dev->stats, &dev->engine);
  if (st != WS_OK) return st;
  ws_engine_set_keep_l2(dev->engine, dev->keep_l2);
  ws_engine_set_probe(dev->engine, dev->probe);
  ws_engine_set_pcprof(dev->engine, dev->prof);
  ws_engine_set_sampling(dev->engine, &dev->sampling);
  ws_engine_set_threads(dev->engine, dev->threads);
  return WS_OK;
}

/* Device memory the managed blocks may take: what the allocations leave. */
static uint64_t managed_budget(const ws_device *dev) {
  uint64_t used = ws_mem_allocated_bytes(dev->mem);
  return used < dev->cfg.gpu.dram_size_bytes ? dev->cfg.gpu.dram_size_bytes - used : 0;
}

/* Runs a checked launch record in the device's mode. */
static ws_status run_mode(ws_device *dev, const ws_exec_launch *launch, const ws_occupancy *occ,
                          ws_launch_stats *stats) {
  ws_status st = WS_OK;
  if (dev->mode == WS_MODE_FUNCTIONAL && launch->agent)
    return ws_ctx_fail(dev->ctx, WS_ERR_INVALID,
                       "kernel '%s': host code running alongside a kernel needs the timing model "
                       "(functional mode has no time for it to act at)",
                       launch->kernel->name);
  if (dev->mode == WS_MODE_FUNCTIONAL) {
    st = ws_exec_run(dev->ctx, launch, stats);
    stats->occupancy = *occ;
    return st;
  }
  if ((st = need_engine(dev)) != WS_OK) return st;
  ws_uvm_set_budget(ws_engine_uvm(dev->engine), managed_budget(dev));
  return ws_engine_run(dev->engine, launch, occ, stats);
}

/* The launch's local memory window (sim/exec/local.h): .local bytes for
 * every thread the GPU can hold at once, as the driver reserves it, taken
 * from device memory (sparse: pages cost host memory only once written) and
 * refused before anything runs when device memory cannot hold it. Local
 * memory does not limit occupancy. *base stays 0 for a kernel without. */
static ws_status local_window(ws_device *dev, const ws_kernel *k, ws_dim3 block, uint64_t *base) {
  *base = 0;
  if (!k->local_bytes) return WS_OK;
  const ws_gpu_cfg *c = &dev->cfg;
  uint32_t warps_per_cta = (block.x * block.y * block.z + WS_WARP_LANES - 1) / WS_WARP_LANES;
  uint64_t slots = ws_local_window_slots(c->gpu.num_sms, c->sm.max_warps_per_sm, warps_per_cta);
  uint64_t bytes = slots * ws_local_region_bytes(k->local_bytes);
  uint64_t used = ws_mem_allocated_bytes(dev->mem), cap = c->gpu.dram_size_bytes;
  uint64_t free_bytes = used < cap ? cap - used : 0;
  if (bytes > free_bytes)
    return ws_ctx_fail(dev->ctx, WS_ERR_LIMIT,
                       "kernel '%s' needs %" PRIu64 " bytes of local memory (.local %u bytes x %" PRIu64
                       " threads: %u SMs x %u resident threads, and one block); the device has %" PRIu64
                       " of its %" PRIu64 " bytes free",
                       k->name, bytes, k->local_bytes, slots * WS_WARP_LANES, c->gpu.num_sms,
                       c->sm.max_warps_per_sm * WS_WARP_LANES, free_bytes, cap);
  return ws_mem_alloc(dev->mem, dev->ctx, bytes, base);
}

static ws_status run_launch(ws_device *dev, const ws_kernel *k, ws_dim3 grid, ws_dim3 block,
                            uint32_t dyn_shared_bytes, const ws_args *args, ws_launch_stats *stats) {
  memset(stats, 0, sizeof *stats);
  if (!k) return ws_ctx_fail(dev->ctx, WS_ERR_INVALID, "launch without a kernel");
  ws_status st = check_dims(dev, "grid", grid, dev->cfg.sm.max_grid_dim);
  if (st == WS_OK) st = check_block(dev, block);
  if (st == WS_OK) st = check_kernel(dev, k, dyn_shared_bytes);
  if (st == WS_OK) st = check_args(dev, k, args);
  ws_occupancy occ;
  if (st == WS_OK) st = ws_device_occupancy(dev, k, block, dyn_shared_bytes, &occ);
  if (st != WS_OK) return st;
  uint64_t local_base = 0;
  if ((st = local_window(dev, k, block, &local_base)) != WS_OK) return st;
  ws_sanitize *san = NULL;
  ws_taint *tnt = NULL;
  if (dev->checks) st = ws_sanitize_create(dev->ctx, dev->checks, k, &san);
  if (st == WS_OK && dev->taint) st = ws_taint_create(dev->ctx, dev->taint, k, &tnt);
  if (st != WS_OK) {
    ws_sanitize_destroy(san);
    if (local_base) ws_mem_free(dev->mem, dev->ctx, local_base);
    return st;
  }
  const ws_exec_launch launch = {.kernel = k,
                                 .grid = grid,
                                 .block = block,
                                 .dyn_shared_bytes = dyn_shared_bytes,
                                 .params = args->buf,
                                 .mem = dev->mem,
                                 .const_bank = dev->const_bank,
                                 .const_bank_bytes = dev->cfg.gpu.const_bank_bytes,
                                 .num_sms = dev->cfg.gpu.num_sms,
                                 .budget_warp_insns = dev->cfg.gpu.insn_budget_warp_insns,
                                 .watch = dev->has_watch ? &dev->watch : NULL,
                                 .sanitize = san,
                                 .taint = tnt,
                                 .agent = dev->agent,
                                 .local_base = local_base,
                                 .local_warps_per_sm = dev->cfg.sm.max_warps_per_sm};
  st = run_mode(dev, &launch, &occ, stats);
  ws_taint_destroy(tnt);
  ws_sanitize_destroy(san);
  /* released after the launch, as the driver does; the launch's own status
   * (a fault's report) stays the one on the context */
  if (local_base) ws_mem_free(dev->mem, dev->ctx, local_base);
  return st;
}

void ws_device_locate(const ws_device *dev, uint32_t sm, uint64_t addr, ws_location *out) {
  ws_addrmap map;
  ws_addrmap_init(&map, &dev->cfg);
  ws_addrmap_locate(&map, sm, addr, out);
}

/* ---- pixel following ------------------------------------------------------------ */

void ws_device_set_follow(ws_device *dev, bool on) {
  if (on && !dev->taint) dev->taint = ws_taint_mem_create(); /* NULL: reported by the calls that need it */
  if (!on) {
    ws_taint_mem_destroy(dev->taint);
    dev->taint = NULL;
  }
}

bool ws_device_following(const ws_device *dev) { return dev->taint != NULL; }

/* After a host write of plain bytes: they are untagged. Clearing never
 * allocates, so it cannot fail. */
static ws_status untag(ws_device *dev, ws_status st, uint64_t dst, uint64_t size_bytes) {
  if (st == WS_OK && dev->taint) ws_taint_mem_set(dev->taint, dst, size_bytes, false);
  return st;
}

static ws_status follow_nomem(ws_device *dev) {
  return ws_ctx_fail(dev->ctx, WS_ERR_NOMEM, "host memory exhausted following a pixel");
}

ws_status ws_device_follow_range(ws_device *dev, uint64_t dptr, uint64_t size_bytes) {
  if (!dev->taint)
    return ws_ctx_fail(dev->ctx, WS_ERR_INVALID,
                       "cannot tag device bytes: following is off (ws_device_set_follow first)");
  ws_status st = ws_mem_check_range(dev->mem, dev->ctx, "tag", dptr, size_bytes);
  if (st == WS_OK && !ws_taint_mem_set(dev->taint, dptr, size_bytes, true)) st = follow_nomem(dev);
  return st;
}

ws_status ws_device_followed(ws_device *dev, uint64_t dptr, uint64_t size_bytes, uint32_t elem_bytes,
                             uint64_t *count) {
  *count = 0;
  if (!elem_bytes || size_bytes % elem_bytes)
    return ws_ctx_fail(dev->ctx, WS_ERR_INVALID,
                       "count of tagged elements: %" PRIu64
                       " bytes are not a whole number of %u-byte elements",
                       size_bytes, elem_bytes);
  ws_status st = ws_mem_check_range(dev->mem, dev->ctx, "count of tagged elements", dptr, size_bytes);
  if (st == WS_OK && dev->taint)
    *count = ws_taint_mem_count(dev->taint, dptr, size_bytes / elem_bytes, elem_bytes);
  return st;
}

ws_status ws_device_follow_htod(ws_device *dev, uint64_t dst, const uint8_t *tags, uint64_t size_bytes) {
  ws_status st = ws_mem_check_range(dev->mem, dev->ctx, "tagged copy", dst, size_bytes);
  if (st == WS_OK && dev->taint && !ws_taint_mem_write(dev->taint, dst, tags, size_bytes))
    st = follow_nomem(dev);
  return st;
}

ws_status ws_device_follow_dtoh(ws_device *dev, uint8_t *tags, uint64_t src, uint64_t size_bytes, bool *any) {
  ws_status st = ws_mem_check_range(dev->mem, dev->ctx, "tagged copy", src, size_bytes);
  bool some = false;
  if (st == WS_OK && dev->taint)
    some = ws_taint_mem_read(dev->taint, src, tags, size_bytes);
  else if (st == WS_OK)
    memset(tags, 0, (size_t)size_bytes);
  if (any) *any = some;
  return st;
}
