/* taint.h - provenance ("follow a pixel"): a tag that rides beside the
 * values, from device bytes into registers, through every instruction, into
 * shared memory and back out to device bytes.
 *
 * Design: a shadow beside the real state, like the checks (sanitize.h), and
 * touched only while following is on, so a launch without it pays nothing
 * beyond the one test per instruction in ws_cta_step that the checks share
 * (cta->shadowed). State comes in three levels. ws_taint_mem is the
 * device's: one bit per byte of global memory, in 4 KiB pages kept in a hash
 * table, so only pages that ever held a tagged byte cost host memory; it
 * outlives launches, since a tag must travel from one kernel to the next.
 * ws_taint is one launch's: the registers and predicates each instruction
 * reads and writes, found once from the opcode table. ws_taint_cta is one
 * CTA object's: a 32-bit lane mask per register and per predicate of each
 * warp, and a byte per byte of shared memory.
 *
 * Rules. A lane's result is tagged when any source register or predicate it
 * reads is tagged (explicit data flow: the guard and branches, that is
 * control dependence, do not tag, nor does an address register, as in
 * TaintCheck and libdft). A load tags a destination register when any of its
 * four bytes is tagged; a store sets the tags of the bytes it writes from
 * the stored register's tag, clearing them when it is untagged; an atomic
 * does both, the new memory word tagged when the old word or an operand
 * was. Constant-bank and parameter loads are untagged. SHFL moves a lane's
 * tag with its value; VOTE and BALLOT tag every executing lane when any
 * executing lane's predicate is tagged; HMMA tags an element of D exactly
 * when its row of A, its column of B or its own element of C holds a tagged
 * value (at register granularity: a register holds two halves of one row of
 * A or one column of B). LDGSTS copies the tags byte by byte. Tagging never
 * changes a value or a counter. */
#ifndef WS_TAINT_H
#define WS_TAINT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/exec/fault.h"

typedef struct ws_taint_mem ws_taint_mem;
typedef struct ws_taint ws_taint;
typedef struct ws_taint_cta ws_taint_cta;

/* ---- the device's global-memory shadow -------------------------------------- */

ws_taint_mem *ws_taint_mem_create(void);
void ws_taint_mem_destroy(ws_taint_mem *tm);
/* Tags (on) or clears [addr, addr+size); false when host memory for a page
 * ran out. Clearing never allocates. */
bool ws_taint_mem_set(ws_taint_mem *tm, uint64_t addr, uint64_t size_bytes, bool on);
/* Sets the tags of [addr, addr+size) from tags[i] != 0, one byte per byte
 * (a host buffer's tags); tags NULL clears. false on host memory. */
bool ws_taint_mem_write(ws_taint_mem *tm, uint64_t addr, const uint8_t *tags, uint64_t size_bytes);
/* tags[i] = 1 where byte addr+i is tagged, else 0; returns whether any is. */
bool ws_taint_mem_read(ws_taint_mem *tm, uint64_t addr, uint8_t *tags, uint64_t size_bytes);
/* Whether any byte of [addr, addr+size) is tagged. */
bool ws_taint_mem_any(ws_taint_mem *tm, uint64_t addr, uint64_t size_bytes);
/* Elements of elem_bytes (>= 1) in [addr, addr + n*elem_bytes) that hold
 * at least one tagged byte. */
uint64_t ws_taint_mem_count(ws_taint_mem *tm, uint64_t addr, uint64_t n, uint32_t elem_bytes);
/* Host bytes the shadow holds (its pages and table). */
uint64_t ws_taint_mem_resident_bytes(const ws_taint_mem *tm);

/* ---- one launch --------------------------------------------------------------- */

/* The launch-wide state for kernel k over the device's shadow tm. */
ws_status ws_taint_create(ws_ctx *ctx, ws_taint_mem *tm, const ws_kernel *k, ws_taint **out);
void ws_taint_destroy(ws_taint *t);
/* The global-memory tags the launch reads and writes. */
ws_taint_mem *ws_taint_memory(const ws_taint *t);

/* ---- one CTA object (created with the CTA, reset with it) ---------------------- */

ws_status ws_taint_cta_create(ws_ctx *ctx, ws_taint *t, const ws_cta *cta, ws_taint_cta **out);
void ws_taint_cta_destroy(ws_taint_cta *tc);
void ws_taint_cta_reset(ws_taint_cta *tc);

/* Around one instruction: before it executes (the tags of what it reads,
 * which it may overwrite), after it executed (the tags of what it wrote,
 * memory included, from the step record's addresses; the step's tag_lanes
 * and tag_result). WS_ERR_NOMEM when the global shadow cannot grow. */
void ws_taint_before(ws_taint_cta *tc, const ws_exec_site *s);
ws_status ws_taint_after(ws_taint_cta *tc, const ws_exec_site *s);

/* Queries, for tests and tools: the lanes of warp `warp` whose register
 * `reg` (or predicate `pred`) is tagged; whether shared byte `offset` is. */
uint32_t ws_taint_cta_reg(const ws_taint_cta *tc, uint32_t warp, uint32_t reg);
uint32_t ws_taint_cta_pred(const ws_taint_cta *tc, uint32_t warp, uint32_t pred);
bool ws_taint_cta_smem(const ws_taint_cta *tc, uint32_t offset);

#endif
