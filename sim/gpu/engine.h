/* engine.h - the timing-mode driver of a launch: the event queue, the
 * memory system, the SMs and the CTA dispatcher, advanced in simulated time.
 *
 * Design: time jumps. The main loop moves to the earliest of (the next
 * event, the next cycle any SM can do something), processes every event of
 * that cycle (memory responses to their SM's LSU, memory-system events to
 * ws_memsys_handle, wake-ups), then lets each SM due at that cycle issue;
 * an SM that waits only for events is never visited. Idle cycles are
 * skipped, never ticked. One engine per device: its counters are registered
 * once in the device's registry and zeroed at the start of every launch. */
#ifndef WS_ENGINE_H
#define WS_ENGINE_H

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/common/occupancy.h"
#include "sim/common/pcprof.h"
#include "sim/common/probe.h"
#include "sim/common/stats.h"
#include "sim/exec/exec.h"
#include "sim/gpu/sampler.h"

typedef struct ws_engine ws_engine;

/* cfg and stats must outlive the engine. */
ws_status ws_engine_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_engine **out);
/* Host bytes an engine of cfg takes at most: its SMs filled to their warp
 * and CTA limits, and the memory hierarchy (ws_memsys_state_bytes); the
 * counters' names and the functional CTAs of a launch aside. */
uint64_t ws_engine_state_bytes(const ws_gpu_cfg *cfg);
void ws_engine_destroy(ws_engine *e);
/* Whether each launch keeps the L2 contents the previous one left
 * (default: no, every launch starts with empty caches). */
void ws_engine_set_keep_l2(ws_engine *e, bool keep);
/* Writes the L2's dirty lines back, counted with the last launch's
 * counters (ws_memsys_write_back_l2). */
void ws_engine_write_back_l2(ws_engine *e);
/* Every later launch reports its micro-ops to `probe` (sim/common/probe.h;
 * NULL: none, the default). It must outlive those launches. */
void ws_engine_set_probe(ws_engine *e, const ws_probe *probe);
/* Every later timed launch fills `prof` (sim/common/pcprof.h; NULL: none,
 * the default), sized and zeroed at its start. It must outlive them. */
void ws_engine_set_pcprof(ws_engine *e, ws_pcprof *prof);

/* Later launches sample CTA waves and loop iterations (sim/gpu/sampler.h)
 * as cfg says (NULL: neither), except while a probe or a profile is set: a
 * trace holds every micro-op of a launch and a profile counts every
 * instruction, so such a launch is timed in full. Loops
 * are not sampled under checks or pixel following either, which watch
 * every instruction where it runs. */
void ws_engine_set_sampling(ws_engine *e, const ws_sampling *cfg);

/* Host threads later launches may use (0 or 1: the caller's alone; at most
 * WS_TEAM_MAX_THREADS): each visited cycle's SMs issue on them when a
 * launch lets them, and a sampled launch's gaps run on them. Results,
 * counters and traces are the same whatever the number; only the wall time
 * changes. A launch runs on one thread when its CTAs may see each other's
 * memory in an order the threads would change (global atomics), or when it
 * is traced, profiled, checked, followed or runs host code beside it:
 * those watch every instruction in the order one thread issues them. */
void ws_engine_set_threads(ws_engine *e, uint32_t threads);

/* Managed memory's state (sim/memsys/uvm.h), which lasts across launches. */
struct ws_uvm *ws_engine_uvm(ws_engine *e);

/* Runs `launch` to completion under the timing model, with occ (ctas_per_sm
 * > 0) from ws_occupancy_compute. Zeroes every registered counter first.
 * ls (not NULL) is zeroed and filled, cycles included. Faults, the limits
 * of launch->budget_warp_insns and launch->watch, interrupts, warps that
 * provably spin forever (sim/exec/watchdog.h) and host-memory failures
 * return their status and message. */
ws_status ws_engine_run(ws_engine *e, const ws_exec_launch *launch, const ws_occupancy *occ,
                        ws_launch_stats *ls);

#endif
