/* gemmgen_int.h - what the files of the GEMM generator share: the plan of a
 * kernel and the functions each file offers the others.
 *
 * Design: the generator is four steps in four files, each using only the
 * ones before it: gemmgen_cfg.c (names, defaults, description),
 * gemmgen_check.c (which configs make a correct kernel),
 * gemmgen_plan.c (thread-to-tile maps, load passes, shared-memory strides,
 * and a named register from the kernel builder for every value the kernel
 * keeps), gemmgen_emit.c (the text, from the plan). gemmgen.c is the public
 * entry on top (resources and device limits too) and gemmgen_ref.c the
 * host reference beside them. */
#ifndef WS_GEMMGEN_INT_H
#define WS_GEMMGEN_INT_H

#include "models/kgen/gemmgen.h"
#include "models/kgen/kbuild.h"

#define WS_GEMMGEN_REG_LIMIT 255u /* R0..R254 */
#define WS_GEMMGEN_MAX_PASSES 64u /* loads per thread per tile */
#define WS_GEMMGEN_LOG2E 1.44269504088896340736
#define WS_GEMMGEN_SQRT_2_OVER_PI 0.79788456080286535588
#define WS_GEMMGEN_GELU_C 0.044715 /* the tanh form's cubic coefficient */

/* ---- gemmgen_cfg.c ---- */
/* What the variant changes, for the top of its kernel. */
const char *ws_gemmgen_variant_note(ws_gemmgen_variant v);
uint32_t ws_gemmgen_ilog2(uint32_t x);

/* ---- gemmgen_plan.c ---- */
typedef struct ws_gemmgen_plan {
  ws_gemmgen_variant v;
  bool warp_layout; /* warps own wm x wn tiles (warptile, async) */
  bool a_trans;     /* A stored As[k][m] in shared memory */
  bool vec;         /* 128-bit global loads and shared reads */
  bool async;
  uint32_t rg, cg, rstride, cstride; /* per thread: rg x cg blocks of tm x tn, spaced so */
  uint32_t vw;                       /* floats per global-load chunk */
  uint32_t cpr_a, rpp_a, passes_a;   /* A: chunks per tile row, rows per pass, passes */
  uint32_t cpr_b, rpp_b, passes_b;   /* B (mma: k pairs, column chunks per pass, passes) */
  uint32_t lda_s, ldb_s;             /* shared row strides, bytes */
  uint32_t stage_a_bytes, stage_b_bytes, smem_bytes;
  uint32_t miter, niter; /* mma: 16x8 tiles per warp */
  uint32_t cw;           /* epilogue chunk width in interior tiles */
  /* registers: ids and sizes, pointers, loop state, load bookkeeping */
  ws_kreg tid, bx, by, m, n, k, pa, pb, pc, pbias, pres, k0, kn;
  ws_kreg pat, pbt, inca, incb, stra, strb, nrow, gcolb, colsb;
  ws_kreg lima, limb; /* first of passes_a / passes_b limits */
  ws_kreg sta, stb, rda, rdb, da, db, rowb, colb, t0, t1, t2, addr, addr2;
  ws_kreg stage, pack, acc, fa, fb, eb, er;
  uint32_t nacc, regs;
} ws_gemmgen_plan;

/* Plans a config ws_gemmgen_check_structure accepted, allocating its
 * registers in `k` (a scratch builder when only the numbers are wanted). */
void ws_gemmgen_plan_make(ws_kbuild *k, const ws_gemmgen_cfg *c, ws_gemmgen_plan *p);

/* ---- gemmgen_check.c ---- */
/* The structural rules (no device limits): WS_ERR_INVALID with the reason. */
ws_status ws_gemmgen_check_structure(ws_ctx *ctx, const ws_gemmgen_cfg *c);

/* ---- gemmgen_emit.c ---- */
/* Writes the planned kernel into `k`. */
void ws_gemmgen_emit_kernel(ws_kbuild *k, const ws_gemmgen_cfg *c, const ws_gemmgen_plan *p);

#endif
