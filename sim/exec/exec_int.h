/* exec_int.h - internals shared by the executor's files (cta.c, exec.c,
 * exec_alu.c, exec_mem.c); not part of the public interface.
 *
 * Design: one small "site" struct describes the instruction being executed
 * (which warp, which lanes, where to record the event), so the unit files
 * take a single argument and the fault reporter can name CTA, warp, lane, pc
 * and instruction from it. */
#ifndef WS_EXEC_INT_H
#define WS_EXEC_INT_H

#include "sim/exec/cta.h"

typedef struct ws_exec_site {
  ws_ctx *ctx;
  ws_cta *cta;
  ws_warp *warp;
  uint32_t warp_idx;
  uint32_t pc;
  const ws_insn *insn;
  uint32_t exec;  /* lanes executing: active and guard true */
  uint64_t clock; /* SR_CLOCK */
  ws_warp_event *ev;
} ws_exec_site;

#define WS_EXEC_NO_LANE UINT32_MAX

/* Integer, fp32, SFU, conversion, shuffle and vote instructions. */
void ws_exec_alu(const ws_exec_site *s);
/* HMMA.16816.F32 (faults unless all 32 lanes execute). */
ws_status ws_exec_hmma(const ws_exec_site *s);
/* Loads, stores, atomics and async copies. */
ws_status ws_exec_mem(const ws_exec_site *s);

/* Records a fault: the formatted message, then "\n    in kernel 'k' CTA
 * (x,y,z) warp w lane l pc p: <instruction>" (no lane part when lane is
 * WS_EXEC_NO_LANE). Returns st. */
ws_status ws_exec_fault(const ws_exec_site *s, ws_status st, uint32_t lane, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
