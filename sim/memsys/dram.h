/* dram.h - the HBM channels: address mapping, per-channel FR-FCFS request
 * queue, banks with open-page row buffers, the channel data bus.
 *
 * Design: a request is scheduled once, when its bank can take a command;
 * the scheduler computes its whole command sequence (PRE, ACT, RD/WR) and
 * its data-bus slot in closed form from the bank's state, so a request costs
 * one scheduling step and no per-cycle work. The queue slot is reserved
 * when the L2 decides to send (ws_dram_reserve), so a full controller is
 * back-pressure the L2 can see before it commits. Timing parameters come
 * from the preset in picoseconds; the config's geometry holds them in core
 * cycles (converted once, with ceil, when the config is loaded). */
#ifndef WS_DRAM_H
#define WS_DRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "sim/common/config.h"
#include "sim/common/probe.h"
#include "sim/common/stats.h"

typedef struct ws_dram ws_dram;

/* One request the scheduler issued: its id and the cycle its last data beat
 * is on the bus (read data complete at the controller, write data taken). */
typedef struct ws_dram_issue {
  uint32_t id;
  bool is_write;
  uint8_t row_outcome; /* WS_PROBE_ROW_*: hit, miss (bank closed) or conflict (another row open) */
  uint32_t bank;
  uint32_t bytes;
  uint64_t row;
  uint64_t done_cycle;
} ws_dram_issue;

/* cfg must be resolved: it is trusted, not checked. */
ws_status ws_dram_create(ws_ctx *ctx, const ws_gpu_cfg *cfg, ws_stats *stats, ws_dram **out);
/* Host bytes ws_dram_create of cfg allocates (its counters' names aside). */
uint64_t ws_dram_state_bytes(const ws_gpu_cfg *cfg);
void ws_dram_destroy(ws_dram *d);
/* Empties the queues and closes every row. */
void ws_dram_reset(ws_dram *d);

/* The channel that owns an L2 line. */
uint32_t ws_dram_channel(const ws_dram *d, uint64_t line_addr);
/* Bank and row of an L2 line inside its channel. */
void ws_dram_locate(const ws_dram *d, uint64_t line_addr, uint32_t *bank, uint64_t *row);

/* Claims a queue slot on `ch`; false when the queue is full. */
bool ws_dram_reserve(ws_dram *d, uint32_t ch);
/* The request (whose slot was reserved) reaches the controller. */
/* Counts a request's transfer on its channel as if it had been served,
 * with no time: what work a sampled launch skips would have moved
 * (ws_memsys_warm). */
void ws_dram_count_untimed(ws_dram *d, uint64_t line_addr, uint32_t bytes, bool is_write);
/* Counts a write-back made after the launch's last cycle (the L2 emptied
 * between launches), apart from the launch's timed traffic. */
void ws_dram_count_end_write(ws_dram *d, uint64_t line_addr, uint32_t bytes);
void ws_dram_enqueue(ws_dram *d, uint32_t ch, uint32_t id, uint64_t line_addr, uint32_t bytes, bool is_write);
/* FR-FCFS at cycle `now`: repeatedly issues, among queued requests whose
 * bank is ready, the oldest row hit, else the oldest. Writes at most
 * `max_out` issues and returns their count; each issue frees its queue slot.
 * *wake_cycle is when a bank with queued work becomes ready (UINT64_MAX if
 * the queue is empty). */
uint32_t ws_dram_schedule(ws_dram *d, uint32_t ch, uint64_t now, ws_dram_issue *out, uint32_t max_out,
                          uint64_t *wake_cycle);
/* Requests queued or reserved on `ch`. */
uint32_t ws_dram_occupancy(const ws_dram *d, uint32_t ch);

/* Core cycles the channel bus needs for `bytes`, rounded up to whole bursts:
 * ceil(bursts * burst_bytes * core_clock_mhz / channel_mbps). */
uint64_t ws_dram_bus_cycles(const ws_gpu_cfg *cfg, uint32_t bytes);

#endif
