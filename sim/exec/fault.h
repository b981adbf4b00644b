/* fault.h - the report that stops a launch at a faulting instruction (the
 * limits and spin detection that stop one too are sim/exec/watchdog.h).
 *
 * Design: both the functional launcher and the timing model stop a kernel
 * for the same reasons, so one file words the reports: the message names
 * kernel, CTA, warp, lane where one is at fault, pc and the instruction,
 * as a student needs to find the line. */
#ifndef WS_FAULT_H
#define WS_FAULT_H

#include <stdint.h>

#include "base/ctx.h"
#include "sim/exec/cta.h"

/* The instruction being executed: which warp, which lanes, where to record
 * the step record, so the unit files take a single argument and a fault report can
 * name CTA, warp, lane, pc and instruction from it. */
typedef struct ws_exec_site {
  ws_ctx *ctx;
  ws_cta *cta;
  ws_warp *warp;
  uint32_t warp_idx;
  uint32_t pc;
  const ws_insn *insn;
  uint32_t exec;  /* lanes executing: active and guard true */
  uint64_t clock; /* SR_CLOCK */
  ws_warp_step *step;
} ws_exec_site;

#define WS_FAULT_NO_LANE UINT32_MAX

/* Records a fault: the formatted message, then "\n    in kernel 'k' CTA
 * (x,y,z) warp w lane l pc p: <instruction>" (no lane part when lane is
 * WS_FAULT_NO_LANE). Returns st. */
ws_status ws_fault_report(const ws_exec_site *s, ws_status st, uint32_t lane, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
