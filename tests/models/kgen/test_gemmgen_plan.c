/* test_gemmgen_plan.c - the GEMM planner (models/kgen/gemmgen_plan.c): for one
 * config of each planning path (simple, tiled, tiled + vectorized, tiled +
 * async warp layout, mma) the derived numbers are worked out by hand from
 * the formulas in plan_*_geometry, and for two of them the register layout
 * is walked allocation by allocation (each array starts at the next
 * multiple of its alignment). The register count must also be what
 * ws_gemmgen_resources reports, and the builder's high-water mark. */
#include <criterion/criterion.h>

#include "models/kgen/gemmgen_int.h"

static ws_gemmgen_plan plan_of(ws_gemmgen_cfg c) {
  ws_ctx *ctx = ws_ctx_create();
  cr_assert_eq(ws_gemmgen_check_structure(ctx, &c), WS_OK, "%s", ws_errmsg(ctx));
  ws_kbuild k;
  ws_kbuild_init(&k);
  ws_gemmgen_plan p;
  ws_gemmgen_plan_make(&k, &c, &p);
  cr_expect_eq(p.regs, ws_kbuild_nregs(&k), "the plan's count is the builder's high-water mark");
  uint32_t regs = 0, smem = 0;
  cr_assert_eq(ws_gemmgen_resources(ctx, &c, &regs, &smem), WS_OK, "%s", ws_errmsg(ctx));
  cr_expect_eq(regs, p.regs, "ws_gemmgen_resources: %u registers, plan %u", regs, p.regs);
  cr_expect_eq(smem, p.smem_bytes, "ws_gemmgen_resources: %u bytes, plan %u", smem, p.smem_bytes);
  ws_kbuild_free(&k);
  ws_ctx_destroy(ctx);
  return p;
}

/* naive + bias + gelu + residual. Head: tid..K are R0-R5, A R6:7, B R8:9,
 * C R10:11; bias R12:13, R R14:15; tail: k0 16, first row 17, first column
 * 18, t0-t2 19-21, address R22:23, A pointer R24:25, B pointer R26:27, A step
 * 28, B step 29; A fragment 30, B fragment 31, accumulator 32, bias chunk 33,
 * residual chunk 34: 35 registers, no shared memory. */
Test(gemmgen_plan, simple_with_epilogue) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_NAIVE);
  c.epilogue = WS_GEMMGEN_EPI_ALL;
  ws_gemmgen_plan p = plan_of(c);
  cr_expect_eq(p.v, WS_GEMMGEN_NAIVE);
  cr_expect_eq(p.tid.n, 0u);
  cr_expect_eq(p.k.n, 5u);
  cr_expect_eq(p.pa.n, 6u);
  cr_expect_eq(p.pc.n, 10u);
  cr_expect_eq(p.pbias.n, 12u);
  cr_expect_eq(p.pres.n, 14u);
  cr_expect_eq(p.k0.n, 16u);
  cr_expect_eq(p.addr.n, 22u);
  cr_expect_eq(p.pbt.n, 26u);
  cr_expect_eq(p.incb.n, 29u);
  cr_expect_eq(p.fa.n, 30u);
  cr_expect_eq(p.fb.n, 31u);
  cr_expect_eq(p.acc.n, 32u);
  cr_expect_eq(p.eb.n, 33u);
  cr_expect_eq(p.er.n, 34u);
  cr_expect_eq(p.nacc, 1u);
  cr_expect_eq(p.cw, 1u);
  cr_expect_eq(p.regs, 35u);
  cr_expect_eq(p.smem_bytes, 0u);
}

/* blocktile2d 128x128, bk=8, 8x8 per thread, 256 threads:
 *  A: 8 chunks of 1 float per row, 256/8 = 32 rows per pass, 128/32 = 4 passes
 *  B: 128 chunks per row, 256/128 = 2 rows per pass, 8/2 = 4 passes
 *  As row = bk*4 = 32 bytes, Bs row = 128*4 = 512; stages 128*32 = 4096 and
 *  8*128*4 = 4096 bytes, 8192 in all; 8*8 = 64 accumulators.
 * Registers: head and tail as in the simple case without epilogue (0-25),
 * A/B pass strides 26, 27, As/Bs store 28, 29, As/Bs read 30, 31, A limits
 * 32-35, B limits 36-39, staging (4+4)*1 = 8 at 40-47, accumulators 48-111,
 * A fragment 112-119, B fragment 120-127: 128 registers. */
Test(gemmgen_plan, blocktile2d) {
  ws_gemmgen_plan p = plan_of(ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D));
  cr_expect_not(p.warp_layout);
  cr_expect_not(p.a_trans);
  cr_expect_not(p.vec);
  cr_expect_not(p.async);
  cr_expect_eq(p.rg, 1u);
  cr_expect_eq(p.cg, 1u);
  cr_expect_eq(p.vw, 1u);
  cr_expect_eq(p.cpr_a, 8u);
  cr_expect_eq(p.rpp_a, 32u);
  cr_expect_eq(p.passes_a, 4u);
  cr_expect_eq(p.cpr_b, 128u);
  cr_expect_eq(p.rpp_b, 2u);
  cr_expect_eq(p.passes_b, 4u);
  cr_expect_eq(p.lda_s, 32u);
  cr_expect_eq(p.ldb_s, 512u);
  cr_expect_eq(p.stage_a_bytes, 4096u);
  cr_expect_eq(p.stage_b_bytes, 4096u);
  cr_expect_eq(p.smem_bytes, 8192u);
  cr_expect_eq(p.cw, 1u);
  cr_expect_eq(p.nacc, 64u);
  cr_expect_eq(p.incb.n, 25u);
  cr_expect_eq(p.stra.n, 26u);
  cr_expect_eq(p.rdb.n, 31u);
  cr_expect_eq(p.lima.n, 32u);
  cr_expect_eq(p.limb.n, 36u);
  cr_expect_eq(p.stage.n, 40u);
  cr_expect_eq(p.acc.n, 48u);
  cr_expect_eq(p.fa.n, 112u);
  cr_expect_eq(p.fb.n, 120u);
  cr_expect_eq(p.regs, 128u);
}

/* vectorized, same tiles: 4-float chunks, A stored transposed.
 *  A: 8/4 = 2 chunks per row, 128 rows per pass, 1 pass
 *  B: 128/4 = 32 chunks per row, 8 rows per pass, 1 pass
 *  As row (transposed: one k) = bm*4 = 512 bytes, bk rows: 4096; Bs 4096. */
Test(gemmgen_plan, vectorized) {
  ws_gemmgen_plan p = plan_of(ws_gemmgen_defaults(WS_GEMMGEN_VECTORIZED));
  cr_expect(p.a_trans);
  cr_expect(p.vec);
  cr_expect_not(p.warp_layout);
  cr_expect_eq(p.vw, 4u);
  cr_expect_eq(p.cpr_a, 2u);
  cr_expect_eq(p.rpp_a, 128u);
  cr_expect_eq(p.passes_a, 1u);
  cr_expect_eq(p.cpr_b, 32u);
  cr_expect_eq(p.rpp_b, 8u);
  cr_expect_eq(p.passes_b, 1u);
  cr_expect_eq(p.lda_s, 512u);
  cr_expect_eq(p.stage_a_bytes, 4096u);
  cr_expect_eq(p.smem_bytes, 8192u);
  cr_expect_eq(p.cw, 4u);
  cr_expect_eq(p.acc.n % 4, 0u, "accumulators are quad-aligned for 128-bit stores");
  cr_expect_eq(p.stage.n % 4, 0u);
}

/* async 128x128, bk=16, 4x4 blocks, 32x64 warp tiles, 256 threads:
 *  rg = 32/(4*4) = 2 row groups 16 apart, cg = 64/(8*4) = 2 column groups 32 apart
 *  A: 16/4 = 4 chunks per row, 64 rows per pass, 2 passes
 *  B: 32 chunks per row, 8 rows per pass, 2 passes
 *  As rows padded by 4 floats: (16+4)*4 = 80 bytes, 128 rows = 10240;
 *  Bs 16*128*4 = 8192; two stages: 2*(10240+8192) = 36864 bytes.
 *  Accumulators 2*4*2*4 = 64; A fragments doubled: 2*4*2 = 16. */
Test(gemmgen_plan, async) {
  ws_gemmgen_plan p = plan_of(ws_gemmgen_defaults(WS_GEMMGEN_ASYNC));
  cr_expect(p.warp_layout);
  cr_expect(p.async);
  cr_expect(p.vec);
  cr_expect_not(p.a_trans);
  cr_expect_eq(p.rg, 2u);
  cr_expect_eq(p.cg, 2u);
  cr_expect_eq(p.rstride, 16u);
  cr_expect_eq(p.cstride, 32u);
  cr_expect_eq(p.cpr_a, 4u);
  cr_expect_eq(p.rpp_a, 64u);
  cr_expect_eq(p.passes_a, 2u);
  cr_expect_eq(p.cpr_b, 32u);
  cr_expect_eq(p.rpp_b, 8u);
  cr_expect_eq(p.passes_b, 2u);
  cr_expect_eq(p.lda_s, 80u);
  cr_expect_eq(p.ldb_s, 512u);
  cr_expect_eq(p.stage_a_bytes, 10240u);
  cr_expect_eq(p.stage_b_bytes, 8192u);
  cr_expect_eq(p.smem_bytes, 36864u);
  cr_expect_eq(p.nacc, 64u);
  cr_expect_eq(p.fb.n - p.fa.n, 16u, "two A fragments of 8 registers");
  /* inside the k loop async reuses dead registers instead of allocating */
  cr_expect_eq(p.kn.n, p.t1.n);
  cr_expect_eq(p.da.n, p.pa.n);
  cr_expect_eq(p.db.n, p.pa.n + 1);
}

/* mma 64x64, bk=32, 32x32 warp tiles, 128 threads:
 *  2 x 4 HMMA tiles (16x8) per warp; A: 8 chunks per row, 16 rows per pass,
 *  4 passes; B: 16 k pairs, 8 column chunks per pass, (64/4)/8 = 2 passes;
 *  fragment-order rows: (32/16)*512 = 1024 and (32/16)*256 = 512 bytes;
 *  binary16 stages 64*32*2 = 4096 each, 8192 in all; 2*4*4 = 32 accumulators. */
Test(gemmgen_plan, mma) {
  ws_gemmgen_plan p = plan_of(ws_gemmgen_defaults(WS_GEMMGEN_MMA));
  cr_expect(p.warp_layout);
  cr_expect(p.vec);
  cr_expect_eq(p.miter, 2u);
  cr_expect_eq(p.niter, 4u);
  cr_expect_eq(p.cpr_a, 8u);
  cr_expect_eq(p.rpp_a, 16u);
  cr_expect_eq(p.passes_a, 4u);
  cr_expect_eq(p.cpr_b, 16u);
  cr_expect_eq(p.rpp_b, 8u);
  cr_expect_eq(p.passes_b, 2u);
  cr_expect_eq(p.lda_s, 1024u);
  cr_expect_eq(p.ldb_s, 512u);
  cr_expect_eq(p.stage_a_bytes, 4096u);
  cr_expect_eq(p.stage_b_bytes, 4096u);
  cr_expect_eq(p.smem_bytes, 8192u);
  cr_expect_eq(p.nacc, 32u);
  cr_expect_eq(p.cw, 2u);
  cr_expect_eq(p.acc.n % 4, 0u);
  cr_expect_eq(p.fb.n % 2, 0u);
}

/* The epilogue's pointers sit between the head and the tail, so adding bias
 * moves the tail by 2 (k0 14 instead of 12); the B limits then end at 41 and
 * the quad-aligned staging starts at 44 instead of 40, so everything from
 * there moves by 4, and a bias chunk of cw = 1 register comes last. */
Test(gemmgen_plan, bias_shifts_the_tail) {
  ws_gemmgen_cfg c = ws_gemmgen_defaults(WS_GEMMGEN_BLOCKTILE2D);
  ws_gemmgen_plan plain = plan_of(c);
  c.epilogue = WS_GEMMGEN_EPI_BIAS;
  ws_gemmgen_plan bias = plan_of(c);
  cr_expect_eq(bias.pbias.n, 12u);
  cr_expect_eq(bias.k0.n, plain.k0.n + 2);
  cr_expect_eq(bias.acc.n, plain.acc.n + 4, "quad alignment turns the shift of 2 into 4");
  cr_expect_eq(bias.eb.n, plain.regs + 4);
  cr_expect_eq(bias.regs, plain.regs + 4 + 1);
}
