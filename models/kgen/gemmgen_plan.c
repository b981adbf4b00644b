/* gemmgen_plan.c - turns a checked GEMM config into a plan: thread-to-tile
 * maps, load passes, shared-memory strides, and a named register for every
 * value the kernel keeps.
 *
 * Design: the registers come from the kernel builder in one fixed order,
 * pairs even and arrays that LDG.128 / LDS.128 fill aligned to four, so the
 * builder's high-water mark is the register count ws_gemmgen_check judges
 * and the assembler later finds. Tile sizes are powers of two: the kernels
 * split thread indices with shifts and masks (the ISA has no integer
 * division). */
#include <stddef.h>
#include <string.h>

#include "models/kgen/gemmgen_int.h"

#define GP(field, name, count)                                                                               \
  { offsetof(ws_gemmgen_plan, field), name, count, count }
/* Every kernel's first registers: ids, sizes and pointers, then (after the
 * epilogue's pointers) loop state, temporaries and the walking pointers. */
static const ws_kbuild_regspec common_head[] = {
    GP(tid, "tid", 1), GP(bx, "tile column", 1), GP(by, "tile row", 1), GP(m, "M", 1),  GP(n, "N", 1),
    GP(k, "K", 1),     GP(pa, "A", 2),           GP(pb, "B", 2),        GP(pc, "C", 2),
};
static const ws_kbuild_regspec common_tail[] = {
    GP(k0, "k0", 1),         GP(rowb, "first row", 1), GP(colb, "first column", 1), GP(t0, "t0", 1),
    GP(t1, "t1", 1),         GP(t2, "t2", 1),          GP(addr, "address", 2),      GP(pat, "A pointer", 2),
    GP(pbt, "B pointer", 2), GP(inca, "A step", 1),    GP(incb, "B step", 1),
};
#undef GP

static void plan_common_regs(const ws_gemmgen_cfg *c, ws_gemmgen_plan *p, ws_kbuild *k) {
  ws_kbuild_reg_table(k, p, common_head, sizeof common_head / sizeof common_head[0]);
  if (c->epilogue & WS_GEMMGEN_EPI_BIAS) p->pbias = ws_kbuild_reg64(k, "bias");
  if (c->epilogue & WS_GEMMGEN_EPI_RESIDUAL) p->pres = ws_kbuild_reg64(k, "R");
  ws_kbuild_reg_table(k, p, common_tail, sizeof common_tail / sizeof common_tail[0]);
}

/* Registers the epilogue needs beside the accumulators (bias and residual chunks). */
static void plan_epilogue_regs(const ws_gemmgen_cfg *c, ws_gemmgen_plan *p, ws_kbuild *k) {
  if (c->epilogue & WS_GEMMGEN_EPI_BIAS) p->eb = ws_kbuild_regs(k, "bias chunk", p->cw, p->cw);
  if (c->epilogue & WS_GEMMGEN_EPI_RESIDUAL) p->er = ws_kbuild_regs(k, "residual chunk", p->cw, p->cw);
}

static void plan_simple(ws_kbuild *k, const ws_gemmgen_cfg *c, ws_gemmgen_plan *p) {
  plan_common_regs(c, p, k);
  p->fa = ws_kbuild_reg(k, "A fragment");
  p->fb = ws_kbuild_reg(k, "B fragment");
  p->acc = ws_kbuild_reg(k, "accumulators");
  p->nacc = 1;
  p->cw = 1;
  plan_epilogue_regs(c, p, k);
  p->regs = ws_kbuild_nregs(k);
}

static void plan_tiled_geometry(const ws_gemmgen_cfg *c, ws_gemmgen_plan *p) {
  ws_gemmgen_variant v = c->variant;
  p->warp_layout = v == WS_GEMMGEN_WARPTILE || v == WS_GEMMGEN_ASYNC;
  p->a_trans = v == WS_GEMMGEN_VECTORIZED || v == WS_GEMMGEN_WARPTILE;
  p->vec = v >= WS_GEMMGEN_VECTORIZED;
  p->async = v == WS_GEMMGEN_ASYNC;
  p->rg = p->cg = 1;
  p->rstride = p->cstride = 0;
  if (p->warp_layout) {
    p->rg = c->wm / (4 * c->tm);
    p->cg = c->wn / (8 * c->tn);
    p->rstride = 4 * c->tm;
    p->cstride = 8 * c->tn;
  }
  p->vw = p->vec ? 4 : 1;
  p->cpr_a = c->bk / p->vw;
  p->rpp_a = c->threads / p->cpr_a;
  p->passes_a = c->bm / p->rpp_a;
  p->cpr_b = c->bn / p->vw;
  p->rpp_b = c->threads / p->cpr_b;
  p->passes_b = c->bk / p->rpp_b;
  /* async rows are padded by 4 floats: the 4 rows a warp reads at once
   * (4*tm apart) then fall in different banks */
  p->lda_s = (p->a_trans ? c->bm : p->async ? c->bk + 4 : c->bk) * 4;
  p->ldb_s = c->bn * 4;
  p->stage_a_bytes = (p->a_trans ? c->bk : c->bm) * p->lda_s;
  p->stage_b_bytes = c->bk * c->bn * 4;
  p->smem_bytes = (p->async ? 2 : 1) * (p->stage_a_bytes + p->stage_b_bytes);
  p->cw = p->vec ? 4 : 1;
}

static void plan_tiled(ws_kbuild *k, const ws_gemmgen_cfg *c, ws_gemmgen_plan *p) {
  plan_tiled_geometry(c, p);
  plan_common_regs(c, p, k);
  p->stra = ws_kbuild_reg(k, "A pass stride");
  p->strb = ws_kbuild_reg(k, "B pass stride");
  if (p->vec) p->colsb = ws_kbuild_reg(k, "B columns left");
  p->sta = ws_kbuild_reg(k, "As store offset");
  p->stb = ws_kbuild_reg(k, "Bs store offset");
  p->rda = ws_kbuild_reg(k, "As read offset");
  p->rdb = ws_kbuild_reg(k, "Bs read offset");
  if (p->async) {
    /* registers dead inside the k loop: t1, and the A pointer once pat is set */
    p->kn = p->t1;
    p->da = p->pa;
    p->db = ws_kreg_at(p->pa, 1);
  }
  p->lima = ws_kbuild_regs(k, "A limits", p->passes_a, 1);
  p->limb = ws_kbuild_regs(k, "B limits", p->passes_b, 1);
  if (!p->async) p->stage = ws_kbuild_regs(k, "staging", (p->passes_a + p->passes_b) * p->vw, 4);
  p->nacc = p->rg * c->tm * p->cg * c->tn;
  p->acc = ws_kbuild_regs(k, "accumulators", p->nacc, 4);
  p->fa = ws_kbuild_regs(k, "A fragment", p->rg * c->tm * (p->async ? 2 : 1), 4);
  p->fb = ws_kbuild_regs(k, "B fragment", p->cg * c->tn, 4);
  plan_epilogue_regs(c, p, k);
  p->regs = ws_kbuild_nregs(k);
}

static void plan_mma_geometry(const ws_gemmgen_cfg *c, ws_gemmgen_plan *p) {
  p->warp_layout = true;
  p->vec = true;
  p->vw = 4;
  p->miter = c->wm / 16;
  p->niter = c->wn / 8;
  p->cpr_a = c->bk / 4;
  p->rpp_a = c->threads / p->cpr_a;
  p->passes_a = c->bm / p->rpp_a;
  p->cpr_b = c->bk / 2;             /* k pairs per tile */
  p->rpp_b = c->threads / p->cpr_b; /* 4-column chunks per pass */
  p->passes_b = (c->bn / 4) / p->rpp_b;
  /* fragment order (see emit_mma_a_setup): a 16x16 block of A is 512
   * bytes, lane L's four registers at L*16; an 8x16 block of B is 256 bytes,
   * lane L's two at L*8. lda_s / ldb_s: bytes per 16-row / 8-column block row. */
  p->lda_s = (c->bk / 16) * 512;
  p->ldb_s = (c->bk / 16) * 256;
  p->stage_a_bytes = c->bm * c->bk * 2;
  p->stage_b_bytes = c->bn * c->bk * 2;
  p->smem_bytes = p->stage_a_bytes + p->stage_b_bytes;
  p->cw = 2;
}

static void plan_mma(ws_kbuild *k, const ws_gemmgen_cfg *c, ws_gemmgen_plan *p) {
  plan_mma_geometry(c, p);
  plan_common_regs(c, p, k);
  p->nrow = ws_kbuild_reg64(k, "B row bytes");
  p->addr2 = ws_kbuild_reg64(k, "B row 2p+1");
  p->stra = ws_kbuild_reg(k, "A pass stride");
  p->gcolb = ws_kbuild_reg(k, "B column");
  p->sta = ws_kbuild_regs(k, "As store offset", p->passes_a, 1); /* one shared address per pass */
  p->stb = ws_kbuild_regs(k, "Bs store offset", p->passes_b, 1);
  p->rda = ws_kbuild_reg(k, "As read offset");
  p->rdb = ws_kbuild_reg(k, "Bs read offset");
  p->kn = ws_kbuild_reg(k, "k0+1");
  p->lima = ws_kbuild_regs(k, "A limits", p->passes_a, 1);
  p->limb = ws_kbuild_regs(k, "B limits", p->passes_b, 1);
  p->stage = ws_kbuild_regs(k, "staging", p->passes_a * 4 + p->passes_b * 8, 4);
  p->pack = ws_kbuild_regs(k, "packed halves", 4, 4);
  p->nacc = p->miter * p->niter * 4;
  p->acc = ws_kbuild_regs(k, "accumulators", p->nacc, 4);
  p->fa = ws_kbuild_regs(k, "A fragment", p->miter * 4, 4);
  p->fb = ws_kbuild_regs(k, "B fragment", p->niter * 2, 2);
  plan_epilogue_regs(c, p, k);
  p->regs = ws_kbuild_nregs(k);
}

void ws_gemmgen_plan_make(ws_kbuild *k, const ws_gemmgen_cfg *c, ws_gemmgen_plan *p) {
  memset(p, 0, sizeof *p);
  p->v = c->variant;
  if (c->variant <= WS_GEMMGEN_COALESCED)
    plan_simple(k, c, p);
  else if (c->variant == WS_GEMMGEN_MMA)
    plan_mma(k, c, p);
  else
    plan_tiled(k, c, p);
}
