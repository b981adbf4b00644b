/* probe.h - the seam through which the simulator reports every micro-op as
 * it happens: one table of callbacks, set on a device (ws_device_set_probe)
 * and handed down to the components where each micro-op already funnels.
 *
 * Design: the probe is NULL by default and every site is one predictable
 * test of a pointer the component already holds, so a simulation without a
 * probe does the work it did before. Every micro-op is one fixed-size
 * record (ws_probe_event) whose fields mean what the table in
 * docs/traces.md says for its kind; a fixed record lets the trace writer
 * encode columns without a case per component, and lets a test compare
 * records field by field. The simulator never reads anything back from a
 * probe: results, counters and timing are the same with and without one.
 * A probe that fails (a full disk) keeps its first error itself and reports
 * it when its owner asks; the simulation is not interrupted. */
#ifndef WS_PROBE_H
#define WS_PROBE_H

#include <stdint.h>

/* The kinds of micro-op, in the order of docs/traces.md. Cycles are the
 * launch's core cycles (0: the launch starts) except for the host kinds,
 * whose begin/end are nanoseconds on the runtime's timeline. */
typedef enum ws_probe_kind {
  WS_PEV_KERNEL,   /* a launch: begin 0, end its last cycle; a = CTAs, b = threads per CTA */
  WS_PEV_CTA,      /* sm; a = CTA linear index, b = CTA slot; begin dispatch, end retire */
  WS_PEV_ISSUE,    /* sm, unit = sub-partition, warp, pc; a = active mask, b = opcode;
                      c = lanes whose result depends on a followed value; end = result ready */
  WS_PEV_STALL,    /* sm, unit, warp; a = stall reason (names in the trace); [begin, end) */
  WS_PEV_RF_BANK,  /* sm, unit, warp, pc; a = extra cycles the operand reads took */
  WS_PEV_COALESCE, /* sm, warp, pc; a = lines, b = sectors, c = bytes the lanes use */
  WS_PEV_SMEM,     /* sm, warp, pc; a = banks touched (bit mask), b = wavefronts, c = ideal wavefronts;
                      outcome = ws_probe_smem_op; begin issue, end data ready */
  WS_PEV_L1,       /* sm, uop, addr = line; a = set, b = way (UINT32_MAX: the line holds none, as a
                      streaming miss), c = sector mask; outcome ws_probe_l1; flags MERGED */
  WS_PEV_XBAR,     /* sm, unit = slice, uop; a = bytes; outcome ws_probe_dir; begin send, end arrival */
  WS_PEV_L2,       /* sm, unit = slice, uop, addr = line; a = set, b = way, c = sector mask;
                      outcome ws_probe_l2; flags FAR, WRITEBACK; end = data ready (hit) or the
                      end of the tag pass (miss, write) */
  WS_PEV_DRAM,     /* unit = channel, uop, link = the uop whose miss asked for it, addr = line;
                      a = bank, b = row, c = bytes; outcome ws_probe_row; flags WRITE;
                      begin = reached the controller, end = burst done */
  WS_PEV_L2_FILL,  /* unit = slice, uop (the DRAM read), addr = line; c = sector mask */
  WS_PEV_L1_FILL,  /* sm, uop, addr = line; a = set, b = way it is in after the fill (UINT32_MAX:
                      none); c = sector mask; begin arrival, end data at the warp */
  WS_PEV_MEM_DONE, /* sm, warp, pc: a load-like instruction's last line is back (its completion) */
  WS_PEV_BARRIER,  /* sm, warp; a = CTA slot; outcome ws_probe_bar */
  WS_PEV_DEPBAR,   /* sm, warp, pc; a = groups allowed in flight; [begin, end) the wait */
  WS_PEV_HOST,     /* runtime timeline (ns): outcome ws_probe_host_op, unit = stream,
                      addr = bytes (copies), a = timeline record index */
  WS_PEV_PCIE,     /* one DMA chunk (ns): outcome ws_probe_dir (H2D = REQ), addr = offset in the copy,
                      c = bytes, a = timeline record index; b = offset of its first followed byte */
  WS_PEV_COUNT
} ws_probe_kind;

enum { WS_PROBE_DIR_REQ, WS_PROBE_DIR_RESP }; /* crossbar: SM -> slice, slice -> SM */
enum { WS_PROBE_L1_HIT, WS_PROBE_L1_MISS, WS_PROBE_L1_MERGE, WS_PROBE_L1_FORWARD, WS_PROBE_L1_RESFAIL };
enum { WS_PROBE_L2_HIT, WS_PROBE_L2_MISS, WS_PROBE_L2_WRITTEN };
enum { WS_PROBE_ROW_HIT, WS_PROBE_ROW_MISS, WS_PROBE_ROW_CONFLICT };
enum { WS_PROBE_BAR_ARRIVE, WS_PROBE_BAR_RELEASE };
enum { WS_PROBE_SMEM_LOAD, WS_PROBE_SMEM_STORE, WS_PROBE_SMEM_ATOMIC, WS_PROBE_SMEM_ASYNC_FILL };
enum {
  WS_PROBE_HOST_H2D,
  WS_PROBE_HOST_D2H,
  WS_PROBE_HOST_KERNEL,
  WS_PROBE_HOST_WORK,
  WS_PROBE_HOST_EVENT,
  WS_PROBE_HOST_LAUNCH_OVERHEAD
};

/* flags */
#define WS_PROBE_TAGGED 0x01u    /* it moves or computes a value that depends on the followed input */
#define WS_PROBE_WRITE 0x02u     /* a store / DRAM write */
#define WS_PROBE_FAR 0x04u       /* the slice is in the far L2 partition from the SM */
#define WS_PROBE_WRITEBACK 0x08u /* a dirty victim was written back */
#define WS_PROBE_ATOMIC 0x10u
#define WS_PROBE_MERGED 0x20u /* L1 miss: joined the line's MSHR already in flight */

#define WS_PROBE_NONE 0xFFFFu /* sm / unit / warp that does not apply */

typedef struct ws_probe_event {
  uint64_t begin, end; /* core cycles of the launch (host kinds: ns) */
  uint64_t addr;       /* line address, or bytes (host kinds) */
  uint64_t uop;        /* memory micro-op id, unique within a launch (0: none) */
  uint64_t link;       /* a related uop (the DRAM read's requester), 0: none */
  uint32_t a, b, c;    /* per kind, see above */
  uint32_t pc;
  uint16_t sm, unit, warp;
  uint8_t kind;    /* ws_probe_kind */
  uint8_t outcome; /* per kind */
  uint8_t flags;   /* WS_PROBE_* */
} ws_probe_event;

/* What a launch is, for the probe's kernel table. The kernel's text is not
 * the simulator's business: the probe's owner knows which program it
 * assembled. */
typedef struct ws_probe_launch {
  const char *kernel_name;
  const void *kernel; /* the ws_kernel launched, as an identity for the probe's kernel table */
  uint32_t grid[3], block[3];
  uint32_t regs_per_thread, shared_bytes;
  uint32_t ctas_per_sm;
  uint64_t cycles; /* launch_end only */
} ws_probe_launch;

typedef struct ws_probe {
  void *user;
  /* Called before the first micro-op of a launch and after its last. */
  void (*launch_begin)(void *user, const ws_probe_launch *l);
  void (*launch_end)(void *user, const ws_probe_launch *l);
  /* Every micro-op, in the order the simulator processes them: begin
   * cycles are not sorted (a transfer's end is known when it starts). */
  void (*event)(void *user, const ws_probe_event *ev);
} ws_probe;

#endif
