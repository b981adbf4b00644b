/* device.h - the host API: a simulated GPU you allocate on, copy to and from,
 * and launch kernels on.
 *
 * Design: callers (tests, models, the CLI) see only this interface, CUDA
 * runtime-shaped. What happens underneath a launch (today the functional
 * SIMT executor; the cycle model plugs in below the same call) is invisible
 * to them; results come back in ws_launch_stats. */
#ifndef WS_DEVICE_H
#define WS_DEVICE_H

#include <stdint.h>

#include "base/ctx.h"
#include "isa/program.h"
#include "sim/common/config.h"
#include "sim/common/occupancy.h"
#include "sim/common/pcprof.h"
#include "sim/common/probe.h"
#include "sim/common/stats.h"
#include "sim/exec/args.h"
#include "sim/exec/launch.h"
#include "sim/gpu/sampler.h"
#include "sim/memsys/addrmap.h"

typedef struct ws_device ws_device;

typedef enum ws_exec_mode {
  WS_MODE_TIMING,     /* the cycle model runs under the functional executor (default) */
  WS_MODE_FUNCTIONAL, /* values only: fastest, no cycles */
  WS_MODE_COUNT
} ws_exec_mode;

/* The device keeps `ctx` (not owned) for its messages. */
ws_status ws_device_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_device **out);
/* Host bytes the simulator of a device of cfg (resolved) takes at most,
 * beside the simulated memory it backs: the constant bank and the timing
 * engine's SMs and memory hierarchy, which grow with the preset's SMs,
 * caches, MSHRs, slices and channels (a preset with every size key at its
 * maximum takes about 3.5 GB). For a caller's memory check before work. */
uint64_t ws_device_state_bytes(const ws_gpu_cfg *cfg);
void ws_device_destroy(ws_device *dev);
const ws_gpu_cfg *ws_device_cfg(const ws_device *dev);
ws_ctx *ws_device_ctx(const ws_device *dev);

void ws_device_set_mode(ws_device *dev, ws_exec_mode mode);
/* By default every timed launch starts with empty caches, so a kernel's
 * statistics do not depend on what ran before (what benchmarks and the
 * tests want), and ends by writing back the lines it left dirty in the L2,
 * counted as its DRAM writes (hbm.ch*.bytes_written, after its last cycle:
 * untimed), so a kernel's stores are never left out of its traffic. With
 * keep_l2 a launch finds the L2 as the previous launch left it, valid and
 * dirty lines included, as kernels in one process do on a real GPU: dirty
 * lines are written back when evicted, or by ws_device_write_back_l2. The
 * L1s are emptied at every launch either way. */
void ws_device_set_keep_l2(ws_device *dev, bool keep_l2);
/* Writes the L2's dirty lines back now, counted with the last timed
 * launch's counters: the end of a run of launches that kept the L2. */
void ws_device_write_back_l2(ws_device *dev);
/* Whether later timed launches are sampled (sim/gpu/sampler.h: copied):
 * CTA waves when measure_waves is not 0, loop iterations inside CTAs when
 * measure_rounds is not 0 (NULL or both 0: everything timed, the default).
 * A launch with too few waves and no loop long enough, or run while a
 * probe is set (or, for loops, with checks or pixel following), is timed
 * in full anyway; its ws_launch_stats says which happened. */
void ws_device_set_sampling(ws_device *dev, const ws_sampling *cfg);
/* Host threads later timed launches may use (ws_engine_set_threads; 0 or
 * 1: one, the default). Results are the same whatever the number. */
void ws_device_set_threads(ws_device *dev, uint32_t threads);
/* The limits, interrupt flag and progress callback every later launch runs
 * under (ws_watch in sim/exec/launch.h; copied; NULL: the defaults). */
void ws_device_set_watch(ws_device *dev, const ws_watch *watch);
/* The checks every later launch runs under (WS_CHECK_RACE | WS_CHECK_INIT |
 * WS_CHECK_SYNC, sim/exec/launch.h; 0: none, the default); the first finding
 * stops a launch with WS_ERR_FAULT and a report. Set them before allocating:
 * the init check follows which bytes were written only for allocations made
 * while it is on (older ones count as written), and turning it off forgets. */
void ws_device_set_checks(ws_device *dev, uint32_t checks);
uint32_t ws_device_checks(const ws_device *dev);
ws_exec_mode ws_device_mode(const ws_device *dev);
/* Pixel following (provenance; sim/exec/taint.h, docs/usage.md): while it
 * is on, every byte of device memory carries a tag that travels with its
 * value through every launch (loads, every arithmetic result, shared
 * memory, stores) in both modes, and each step record marks the lanes that
 * moved a tagged value. Turn it on before the bytes to follow are written;
 * turning it off forgets every tag. Copies from plain host memory and
 * memset write untagged bytes; the host runtime's buffers carry tags of
 * their own (ws_runtime_host_follow). Tags never change a value or a
 * counter. */
void ws_device_set_follow(ws_device *dev, bool on);
bool ws_device_following(const ws_device *dev);
/* Every timing component's counters, by hierarchical name (docs/stats.md);
 * zeroed at the start of each timed launch, so after a launch they describe
 * that launch. */
const ws_stats *ws_device_stats(const ws_device *dev);

ws_status ws_device_malloc(ws_device *dev, uint64_t size_bytes, uint64_t *dptr);
ws_status ws_device_free(ws_device *dev, uint64_t dptr);
/* Mapped pinned host memory (cudaHostAlloc with cudaHostAllocMapped):
 * host bytes a kernel addresses directly, at WS_CFG_SYSMEM_BASE and above.
 * A kernel's accesses to it cross the host link (sim/memsys/sysmem.h:
 * pcie.zero_copy_lat_ns per load, the link's rate, no caching); the host
 * reads and writes it with ws_device_memcpy_* at no cost (it is host
 * memory). It does not count against the device's memory; all of it
 * together is at most WS_MEM_HOST_MAX_BYTES. Freed by ws_device_free. */
ws_status ws_device_host_alloc(ws_device *dev, uint64_t size_bytes, uint64_t *dptr);
/* Managed memory (cudaMallocManaged): one address for the host and the
 * device, at WS_CFG_MANAGED_BASE and above. Its pages start on the host; a
 * timed kernel's access to a page not on the device faults, and NVIDIA's UVM
 * driver as sim/memsys/uvm.h models it migrates it over the link in
 * batches (uvm.* keys: the batch's fixed cost, 64 KiB blocks, density
 * prefetch within 2 MiB chunks, eviction of whole chunks when the device
 * memory the allocations leave is full). Residency lasts across launches.
 * The host's copies to or from it (ws_device_memcpy_*, memset) bring the
 * pages they touch back to the host. Functional launches read and write it
 * like device memory. All of it together is at most WS_MEM_MANAGED_MAX_BYTES;
 * freed by ws_device_free. */
ws_status ws_device_malloc_managed(ws_device *dev, uint64_t size_bytes, uint64_t *dptr);
/* cudaMemPrefetchAsync to the device: the blocks of [dptr, dptr+size) not on
 * the device move now (no fault); *in_bytes moved in, *out_bytes were
 * evicted to make room. The caller times the transfer (the runtime puts it
 * on its copy engine: ws_runtime_prefetch). */
ws_status ws_device_managed_prefetch(ws_device *dev, uint64_t dptr, uint64_t size_bytes, uint64_t *in_bytes,
                                     uint64_t *out_bytes);
/* Managed memory's traffic since the device was made. */
typedef struct ws_device_managed_totals {
  uint64_t faults;           /* distinct 4 KiB pages faulted, per batch */
  uint64_t batches;          /* fault batches the driver serviced */
  uint64_t migrated_bytes;   /* moved to the device by fault batches (prefetcher's included) */
  uint64_t prefetched_bytes; /* of those, added by the density prefetcher */
  uint64_t hinted_bytes;     /* moved by ws_device_managed_prefetch */
  uint64_t evicted_bytes;    /* written back to the host to make room */
  uint64_t fault_cycles;     /* cycles the driver spent on fault batches */
  uint64_t resident_bytes;   /* on the device now */
} ws_device_managed_totals;
ws_device_managed_totals ws_device_managed_stats(const ws_device *dev);
/* Host code that every later timed launch runs alongside the kernel
 * (ws_host_agent in sim/exec/launch.h; not copied: it must outlive those
 * launches; NULL, the default: none). A launch with one is timed in full
 * (never sampled), and a functional launch with one is refused: the agent
 * acts at simulated times. */
void ws_device_set_host_agent(ws_device *dev, const ws_host_agent *agent);
/* Device memory the live allocations hold now, and the most they have held
 * at once since the device was created (what a run's peak memory is). */
uint64_t ws_device_allocated_bytes(const ws_device *dev);
uint64_t ws_device_peak_allocated_bytes(const ws_device *dev);
/* WS_OK when [dptr, dptr+size) lies inside one live allocation; otherwise
 * WS_ERR_INVALID with "WHAT of N bytes at ADDR: why" on the context. */
ws_status ws_device_check_range(ws_device *dev, const char *what, uint64_t dptr, uint64_t size_bytes);
ws_status ws_device_memcpy_htod(ws_device *dev, uint64_t dst, const void *src, uint64_t size_bytes);
ws_status ws_device_memcpy_dtoh(ws_device *dev, void *dst, uint64_t src, uint64_t size_bytes);
ws_status ws_device_memset(ws_device *dev, uint64_t dst, uint8_t value, uint64_t size_bytes);
/* Writes the device's constant bank (read by LDC). */
ws_status ws_device_const_write(ws_device *dev, uint32_t offset_bytes, const void *src, uint32_t size_bytes);

/* Checks grid/block/shared/register limits, then runs the kernel to
 * completion. A kernel fault returns WS_ERR_FAULT with a report naming CTA,
 * warp, lane, PC, instruction and address. stats may be NULL. */
ws_status ws_device_launch(ws_device *dev, const ws_kernel *k, ws_dim3 grid, ws_dim3 block,
                           uint32_t dyn_shared_bytes, const ws_args *args, ws_launch_stats *stats);

/* The theoretical occupancy of kernel k launched with `block` threads and
 * dyn_shared_bytes of dynamic shared memory, with the registers the
 * executor holds for it. A CTA that cannot be resident on an SM can never
 * run: WS_ERR_LIMIT naming the limiter, as cudaLaunchKernel fails. */
ws_status ws_device_occupancy(ws_device *dev, const ws_kernel *k, ws_dim3 block, uint32_t dyn_shared_bytes,
                              ws_occupancy *out);

/* Where `addr` lives in the memory hierarchy (L2 slice and partition, HBM
 * channel, bank and row), and whether its slice is on the far side of the L2
 * from SM `sm`: the mapping the L2, crossbar and DRAM use. */
void ws_device_locate(const ws_device *dev, uint32_t sm, uint64_t addr, ws_location *out);

/* Every later timed launch reports each of its micro-ops to `probe`
 * (sim/common/probe.h; NULL, the default: none), which must outlive them.
 * Functional launches have no micro-ops and report nothing. Values,
 * counters and cycles are the same with and without a probe. */
void ws_device_set_probe(ws_device *dev, const ws_probe *probe);
const ws_probe *ws_device_probe(const ws_device *dev);
/* Every later timed launch fills `prof` with its counters per instruction
 * (sim/common/pcprof.h; NULL, the default: none), which the caller owns and
 * which must outlive those launches; each launch sizes and zeroes it first.
 * Like a probe, a profile turns sampling off and changes no value, counter
 * or cycle. */
void ws_device_set_pcprof(ws_device *dev, ws_pcprof *prof);
/* The name of stall reason r (WS_PEV_STALL's a; "?" when out of range), and
 * how many there are. */
const char *ws_device_stall_name(uint32_t r);
uint32_t ws_device_stall_count(void);

/* Called after every successful launch, with the launch's statistics (the
 * device's stats registry still describes it): how the host runtime puts
 * kernels that library helpers launch on its timeline. A failure it
 * returns becomes the launch's result. One observer at a time; NULL
 * removes it. */
typedef ws_status (*ws_device_observer)(void *user, const ws_kernel *k, ws_dim3 grid, ws_dim3 block,
                                        const ws_launch_stats *stats);
void ws_device_set_observer(ws_device *dev, ws_device_observer fn, void *user);
/* Called instead when a launch stops early at a watch limit or on an
 * interrupt (WS_ERR_BUDGET, WS_ERR_INTERRUPTED), with what it simulated so
 * far (the stats registry describes that part), so a caller can report it
 * before the stop ends the run. What it returns is ignored: the stop is
 * the launch's result. NULL removes it. */
void ws_device_set_stop_observer(ws_device *dev, ws_device_observer fn, void *user);

/* ---- pixel following (see ws_device_set_follow) --------------------------------- */

/* Tags the bytes [dptr, dptr+size) of one live allocation; following must
 * be on. */
ws_status ws_device_follow_range(ws_device *dev, uint64_t dptr, uint64_t size_bytes);
/* *count = the elements of elem_bytes in [dptr, dptr+size) (one live
 * allocation, size a multiple of elem_bytes) that hold at least one tagged
 * byte; 0 while following is off. */
ws_status ws_device_followed(ws_device *dev, uint64_t dptr, uint64_t size_bytes, uint32_t elem_bytes,
                             uint64_t *count);
/* The tags of a copy's host side, one byte per byte (nonzero: tagged), for
 * host memory that carries tags: after ws_device_memcpy_htod of the same
 * range, follow_htod gives the device bytes the host bytes' tags (tags
 * NULL: untagged); follow_dtoh fills tags from the device bytes' and sets
 * *any (may be NULL) when one is tagged. Both do nothing while following
 * is off (follow_dtoh then reports every byte untagged). */
ws_status ws_device_follow_htod(ws_device *dev, uint64_t dst, const uint8_t *tags, uint64_t size_bytes);
ws_status ws_device_follow_dtoh(ws_device *dev, uint8_t *tags, uint64_t src, uint64_t size_bytes, bool *any);

#endif
