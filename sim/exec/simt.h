/* simt.h - the per-warp SIMT reconvergence stack.
 *
 * Design: the post-dominator stack of Fung et al. (MICRO 2007), as in
 * GPGPU-Sim. Each entry is {pc, rpc, mask}: the lanes in `mask` run from `pc`
 * until they reach `rpc`. The top entry is what the warp executes.
 *
 *  - Branch with taken lanes T of the active mask A, reconvergence pc r (the
 *    branch's immediate post-dominator, computed by the assembler):
 *      T == A: top.pc = target.   T == 0: top.pc = pc + 1.
 *      otherwise the top entry becomes the reconvergence entry (top.pc = r,
 *      mask A unchanged) and {pc+1, r, A&~T} then {target, r, T} are pushed,
 *      so the taken side runs first.
 *    Two refinements keep the stack bounded without changing behaviour: a
 *    side whose start pc already equals r is not pushed (it would be popped
 *    at once; its lanes simply wait in the reconvergence entry), and when the
 *    top entry's own rpc equals r (a loop back-edge diverging again inside a
 *    side that reconverges at the same point) the top entry is replaced by
 *    the two sides instead of becoming a second reconvergence entry, since
 *    the entry below it already waits at r with a superset mask.
 *  - Before every instruction, entries whose pc has reached their rpc are
 *    popped; the entry below resumes with the union of the lanes.
 *  - EXIT removes its lanes from every entry; entries left empty are dropped
 *    wherever they are, so a side whose lanes all exited never runs.
 *
 * The stack is a growable array; it grows only on deeper divergence than
 * seen before, never per instruction. */
#ifndef WS_SIMT_H
#define WS_SIMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WS_SIMT_NO_RPC UINT32_MAX /* the base entry never reconverges */

typedef struct ws_simt_entry {
  uint32_t pc;
  uint32_t rpc;
  uint32_t mask;
} ws_simt_entry;

typedef struct ws_simt {
  ws_simt_entry *entries;
  uint32_t depth;
  uint32_t cap;
} ws_simt;

/* false when host memory runs out. */
bool ws_simt_init(ws_simt *s);
void ws_simt_free(ws_simt *s);
/* One entry {pc 0, no rpc, live_mask}; empty when live_mask is 0. */
void ws_simt_reset(ws_simt *s, uint32_t live_mask);

/* The executing entry; NULL when no lanes remain. */
static inline ws_simt_entry *ws_simt_top(ws_simt *s) { return s->depth ? &s->entries[s->depth - 1] : NULL; }
/* Pops entries that reached their reconvergence pc. */
void ws_simt_settle(ws_simt *s);
/* Applies a BRA at `pc` of the top entry; taken is a subset of top.mask.
 * false when host memory runs out. */
bool ws_simt_branch(ws_simt *s, uint32_t pc, uint32_t target, uint32_t rpc, uint32_t taken);
/* Removes `lanes` from every entry, dropping entries that become empty. */
void ws_simt_exit(ws_simt *s, uint32_t lanes);

#endif
