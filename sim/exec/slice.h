/* slice.h - the part of a kernel its timing depends on, and what a CTA may
 * leave out when only its timing is wanted.
 *
 * Design: a warp's timing depends on its instructions' opcodes, active
 * masks and addresses, never on the values an ALU computes unless they
 * reach a branch, a guard, an address or a value one of those reads through
 * memory. The slice is that closure, found once per kernel by a
 * flow-insensitive pass over registers and predicates (a register any
 * needed instruction reads is needed wherever it is written) and memory
 * spaces (a load whose result is needed makes every store to its space
 * write its data). Everything else is either a pure instruction whose
 * results nothing needed reads (skipped: counted as issued, not computed)
 * or a memory access whose data nothing needed reads (a store or copy
 * that writes nothing, a load that reads nothing: their addresses checked
 * and timed as always). A CTA run that way times exactly as in full, so
 * a sampled launch computes in full only a spread subset of its CTAs and
 * checks their outputs; every other CTA runs the slice, in timing and in
 * the functional gaps alike. Values loaded from memory may decide timing
 * (a data-dependent branch or gather): those loads and whatever writes
 * what they read are in the slice, so such kernels stay exact, only less
 * is left out. */
#ifndef WS_SLICE_H
#define WS_SLICE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ctx.h"
#include "isa/program.h"

typedef enum ws_slice_role {
  WS_SLICE_RUN,     /* executed as always */
  WS_SLICE_SKIP,    /* a pure instruction nothing needed reads: issued, not computed */
  WS_SLICE_NOWRITE, /* a store (or async copy) whose data nothing needed reads: addresses only */
  WS_SLICE_NOREAD,  /* a load whose result nothing needed reads: addresses only */
} ws_slice_role;

/* Spread over a sampled grid, the CTAs computed in full (their outputs
 * checked); a grid of fewer than twice as many computes every CTA. */
#define WS_SLICE_COMPUTED_CTAS 16u

typedef struct ws_slice {
  uint8_t *roles;  /* ws_slice_role per instruction */
  uint32_t *runs;  /* per instruction: skipped instructions from it on that a functional run passes at
                      once (unguarded, no reconvergence point inside); 0 when it is not skipped */
  uint32_t ninsns; /* the kernel's */
  uint32_t skipped, nowrite, noread; /* instructions with each role */
  bool global_writes;                /* a CTA running the slice may write global memory */
  /* one CTA in every keep_every is computed in full: in the b-th block of
   * keep_every consecutive CTAs, the one b % keep_every into it (a
   * diagonal over a 2-D grid, not one column of tiles) */
  uint64_t keep_every;
} ws_slice;

/* The slice of k for a grid of `ctas` CTAs; free with ws_slice_free. */
ws_status ws_slice_build(ws_ctx *ctx, const ws_kernel *k, uint64_t ctas, ws_slice *out);
void ws_slice_free(ws_slice *s);
/* Whether CTA `linear_id` runs the slice (NULL: no CTA does). */
static inline bool ws_slice_applies(const ws_slice *s, uint64_t linear_id) {
  return s && s->keep_every > 1 && linear_id % s->keep_every != linear_id / s->keep_every % s->keep_every;
}
/* CTAs of a grid of `ctas` computed in full. */
uint64_t ws_slice_computed_ctas(const ws_slice *s, uint64_t ctas);

#endif
