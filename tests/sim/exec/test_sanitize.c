/* test_sanitize.c - the race, init and sync checks: each small kernel below
 * holds exactly one defect and must be reported with both sites, pcs, lines
 * and addresses; its corrected twin, and every shipped kernel, must run
 * clean under all three checks. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../simtest.h"
#include "base/formats/image.h"
#include "models/kgen/attngen.h"
#include "models/kgen/gemmgen.h"
#include "models/kgen/nngen.h"
#include "models/runs/example.h"
#include "models/vit/vitrun.h"

/* Assembles src, turns the checks on (before any allocation, so the init
 * check follows every buffer) in functional or timing mode. */
static void init_checked(simtest *t, const char *src, uint32_t checks, bool timing) {
  st_init(t, src, "k");
  ws_device_set_checks(t->dev, checks);
  ws_device_set_mode(t->dev, timing ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
}

/* Launches grid x block threads and expects the report `want`. */
static void expect_report(simtest *t, uint32_t grid, uint32_t block, const char *want) {
  ws_status st = st_launch(t, (ws_dim3){grid, 1, 1}, (ws_dim3){block, 1, 1}, 0);
  cr_assert_eq(st, WS_ERR_FAULT, "expected a report, got %s: %s", ws_status_name(st), ws_errmsg(t->ctx));
  cr_expect_str_eq(ws_errmsg(t->ctx), want);
}

/* ---- race check --------------------------------------------------------- */

/* Warp 0 stores tid into slot tid; warp 1 reads slot tid - 32 with no
 * barrier between (the functional launcher runs warp 0 first). */
static const char shared_raw_src[] = ".kernel k\n"
                                     ".param .ptr out\n"
                                     ".shared buf 128\n"
                                     "    S2R R0, SR_TID.X\n"
                                     "    AND R1, R0, 31\n"
                                     "    SHL R1, R1, 2\n"
                                     "    ISETP.GE.U32 P0, R0, 32\n"
                                     "@!P0 STS.32 [R1+buf], R0\n"
                                     "%s"
                                     "@P0 LDS.32 R2, [R1+buf]\n"
                                     "@P0 LDP.64 R4, [out]\n"
                                     "@P0 IMAD.WIDE.U32 R4, R1, 1, R4\n"
                                     "@P0 STG.32 [R4], R2\n"
                                     "    EXIT\n";

static void shared_src(char *buf, size_t size, const char *between) {
  snprintf(buf, size, shared_raw_src, between);
}

Test(sanitize, shared_write_then_other_warps_read_without_barrier) {
  char src[1024];
  shared_src(src, sizeof src, "");
  simtest t;
  init_checked(&t, src, WS_CHECK_RACE, false);
  st_buf(&t, "out", 128, NULL);
  expect_report(&t, 1, 64,
                "race check: read-after-write hazard on shared memory at 0x0\n"
                "    read  by CTA (0,0,0) warp 1 lane 0 pc 5 line 9: @P0 LDS.32 R2, [R1]\n"
                "    write by CTA (0,0,0) warp 0 lane 0 pc 4 line 8: @!P0 STS.32 [R1], R0\n"
                "    in kernel 'k' CTA (0,0,0) warp 1 lane 0 pc 5: @P0 LDS.32 R2, [R1]");
  st_fini(&t);
}

Test(sanitize, shared_write_then_read_after_a_barrier_is_clean) {
  char src[1024];
  shared_src(src, sizeof src, "    BAR.SYNC\n");
  simtest t;
  init_checked(&t, src, WS_CHECK_ALL, false);
  uint64_t out = st_buf(&t, "out", 128, NULL);
  st_run(&t, 1, 64);
  uint32_t got[32];
  st_read(&t, got, out, sizeof got);
  for (uint32_t i = 0; i < 32; i++) cr_expect_eq(got[i], i, "slot %u", i);
  st_fini(&t);
}

/* The racy kernel runs as before when the checks are off. */
Test(sanitize, checks_are_off_by_default) {
  char src[1024];
  shared_src(src, sizeof src, "");
  simtest t;
  st_init(&t, src, "k");
  ws_device_set_mode(t.dev, WS_MODE_FUNCTIONAL);
  cr_expect_eq(ws_device_checks(t.dev), 0u);
  st_buf(&t, "out", 128, NULL);
  st_run(&t, 1, 64);
  st_fini(&t);
}

/* Lane 0 of warps 0, 1 and 2 reads a word, then warp 2 writes it: the write
 * races with warp 0's read though warp 2's own read came last. */
Test(sanitize, write_after_reads_of_three_warps) {
  static const char src[] = ".kernel k\n"
                            ".shared buf 4\n"
                            "    S2R R0, SR_TID.X\n"
                            "    AND R1, R0, 31\n"
                            "    ISETP.NE.U32 P0, R1, 0\n"
                            "@P0 EXIT\n"
                            "    LDS.32 R2, [buf]\n"
                            "    ISETP.LT.U32 P1, R0, 64\n"
                            "@P1 EXIT\n"
                            "    STS.32 [buf], R0\n"
                            "    EXIT\n";
  simtest t;
  init_checked(&t, src, WS_CHECK_RACE, false);
  expect_report(&t, 1, 96,
                "race check: write-after-read hazard on shared memory at 0x0\n"
                "    write by CTA (0,0,0) warp 2 lane 0 pc 7 line 10: STS.32 [RZ], R0\n"
                "    read  by CTA (0,0,0) warp 0 lane 0 pc 4 line 7: LDS.32 R2, [RZ]\n"
                "    in kernel 'k' CTA (0,0,0) warp 2 lane 0 pc 7: STS.32 [RZ], R0");
  st_fini(&t);
}

/* Lane 0 of every CTA writes out[0]: CTAs are never ordered. */
static const char global_waw_src[] = ".kernel k\n"
                                     ".param .ptr out\n"
                                     "    S2R R0, SR_TID.X\n"
                                     "    S2R R1, SR_CTAID.X\n"
                                     "    ISETP.NE.U32 P0, R0, 0\n"
                                     "@P0 EXIT\n"
                                     "    LDP.64 R2, [out]\n"
                                     "    STG.32 [R2], R1\n"
                                     "    EXIT\n";

/* The timing model drives the same step: it reports the same hazard. */
static void expect_global_waw(uint32_t checks, bool timing) {
  simtest t;
  init_checked(&t, global_waw_src, checks, timing);
  uint64_t out = st_buf(&t, "out", 4, NULL);
  char want[1024];
  snprintf(want, sizeof want,
           "race check: write-after-write hazard on global memory at 0x%016" PRIx64 "\n"
           "    write by CTA (1,0,0) warp 0 lane 0 pc 5 line 8: STG.32 [R2], R1\n"
           "    write by CTA (0,0,0) warp 0 lane 0 pc 5 line 8: STG.32 [R2], R1\n"
           "    in kernel 'k' CTA (1,0,0) warp 0 lane 0 pc 5: STG.32 [R2], R1",
           out);
  expect_report(&t, 2, 32, want);
  st_fini(&t);
}

Test(sanitize, global_write_write_between_two_ctas) { expect_global_waw(WS_CHECK_RACE, false); }

Test(sanitize, timing_mode_reports_the_same_hazard) { expect_global_waw(WS_CHECK_ALL, true); }

/* Lanes 2i and 2i+1 store to one word: which value lands is undefined. */
Test(sanitize, two_lanes_of_one_store_write_one_address) {
  static const char src[] = ".kernel k\n"
                            ".shared buf 64\n"
                            "    S2R R0, SR_TID.X\n"
                            "    SHR.U32 R1, R0, 1\n"
                            "    SHL R1, R1, 2\n"
                            "    STS.32 [R1+buf], R0\n"
                            "    EXIT\n";
  simtest t;
  init_checked(&t, src, WS_CHECK_RACE, false);
  expect_report(&t, 1, 32,
                "race check: write-after-write hazard on shared memory at 0x0\n"
                "    write by CTA (0,0,0) warp 0 lane 1 pc 3 line 6: STS.32 [R1], R0\n"
                "    write by CTA (0,0,0) warp 0 lane 0 pc 3 line 6: STS.32 [R1], R0\n"
                "    in kernel 'k' CTA (0,0,0) warp 0 lane 1 pc 3: STS.32 [R1], R0");
  st_fini(&t);
}

/* Every thread of 3 CTAs counts itself in shared and global memory with
 * atomics; one thread per CTA adds the CTA's count after a barrier. */
Test(sanitize, atomic_counters_are_clean) {
  static const char src[] = ".kernel k\n"
                            ".param .ptr count\n"
                            ".param .ptr total\n"
                            ".shared n 4\n"
                            "    S2R R0, SR_TID.X\n"
                            "    ISETP.EQ.U32 P0, R0, 0\n"
                            "@P0 STS.32 [n], RZ\n"
                            "    BAR.SYNC\n"
                            "    MOV R1, 1\n"
                            "    LDP.64 R2, [count]\n"
                            "    ATOMG.ADD R4, [R2], R1\n"
                            "    ATOMS.ADD R5, [n], R1\n"
                            "    BAR.SYNC\n"
                            "@!P0 EXIT\n"
                            "    LDS.32 R6, [n]\n"
                            "    LDP.64 R2, [total]\n"
                            "    ATOMG.ADD R4, [R2], R6\n"
                            "    EXIT\n";
  simtest t;
  init_checked(&t, src, WS_CHECK_ALL, false);
  uint64_t count = st_buf(&t, "count", 4, NULL);
  uint64_t total = st_buf(&t, "total", 4, NULL);
  st_run(&t, 3, 96);
  uint32_t got[2];
  st_read(&t, &got[0], count, 4);
  st_read(&t, &got[1], total, 4);
  cr_expect_eq(got[0], 288u);
  cr_expect_eq(got[1], 288u);
  st_fini(&t);
}

/* Every kind of atomic, global and shared, hammering one word from three
 * CTAs of three warps: no race, in either mode (timing mode carries them
 * through the LSU and the memory system like ATOMG.ADD). */
static void expect_atomics_clean(bool timing) {
  static const char src[] = ".kernel k\n"
                            ".param .ptr word\n"
                            ".shared n 4\n"
                            "    S2R R0, SR_TID.X\n"
                            "    ISETP.EQ.U32 P0, R0, 0\n"
                            "@P0 STS.32 [n], RZ\n"
                            "    BAR.SYNC\n"
                            "    MOV R1, 1000\n"
                            "    LDP.64 R2, [word]\n"
                            "    ATOMG.INC R4, [R2], R1\n"
                            "    ATOMG.DEC R4, [R2], R1\n"
                            "    ATOMG.MIN.U32 R4, [R2], R1\n"
                            "    ATOMG.EXCH R4, [R2], R0\n"
                            "    ATOMG.AND R4, [R2], R1\n"
                            "    ATOMG.OR R4, [R2], R0\n"
                            "    ATOMG.XOR R4, [R2], R0\n"
                            "    ATOMS.INC R5, [n], R1\n"
                            "    ATOMS.DEC R5, [n], R1\n"
                            "    ATOMS.MIN.S32 R5, [n], R0\n"
                            "    ATOMS.EXCH R5, [n], R0\n"
                            "    ATOMS.AND R5, [n], R1\n"
                            "    ATOMS.OR R5, [n], R0\n"
                            "    ATOMS.XOR R5, [n], R0\n"
                            "    EXIT\n";
  simtest t;
  init_checked(&t, src, WS_CHECK_ALL, timing);
  st_buf(&t, "word", 4, NULL);
  st_run(&t, 3, 96);
  st_fini(&t);
}

Test(sanitize, every_atomic_is_race_free) { expect_atomics_clean(false); }

Test(sanitize, every_atomic_is_race_free_in_timing_mode) { expect_atomics_clean(true); }

/* ---- init check ------------------------------------------------------------ */

Test(sanitize, read_of_a_register_never_written) {
  static const char src[] = ".kernel k\n"
                            "    S2R R0, SR_TID.X\n"
                            "    ISETP.LT.U32 P0, R0, 4\n"
                            "@P0 MOV R5, 7                    // lanes 4.. never write R5\n"
                            "@P0 IADD R6, R5, RZ              // predicated off: no read\n"
                            "    IADD R6, R5, 1\n"
                            "    EXIT\n";
  simtest t;
  init_checked(&t, src, WS_CHECK_INIT, false);
  expect_report(&t, 1, 32,
                "init check: read of register R5, never written by this thread, at line 6\n"
                "    in kernel 'k' CTA (0,0,0) warp 0 lane 4 pc 4: IADD R6, R5, 1");
  st_fini(&t);
}

Test(sanitize, read_of_a_predicate_never_written) {
  static const char src[] = ".kernel k\n"
                            "    S2R R0, SR_TID.X\n"
                            "@P3 MOV R1, 1\n"
                            "    EXIT\n";
  simtest t;
  init_checked(&t, src, WS_CHECK_INIT, false);
  expect_report(&t, 1, 32,
                "init check: read of predicate P3, never written by this thread, at line 3\n"
                "    in kernel 'k' CTA (0,0,0) warp 0 lane 0 pc 1: @P3 MOV R1, 1");
  st_fini(&t);
}

Test(sanitize, read_of_shared_memory_never_written) {
  static const char src[] = ".kernel k\n"
                            ".shared a 16\n"
                            ".shared b 16\n"
                            "    S2R R0, SR_TID.X\n"
                            "    SHL R1, R0, 2\n"
                            "    STS.32 [R1+a], R0\n"
                            "    BAR.SYNC\n"
                            "    LDS.32 R2, [R1+b]\n"
                            "    EXIT\n";
  simtest t;
  init_checked(&t, src, WS_CHECK_INIT, false);
  expect_report(&t, 1, 4,
                "init check: read of shared memory at 0x10, never written by this CTA, at line 8\n"
                "    in kernel 'k' CTA (0,0,0) warp 0 lane 0 pc 4: LDS.32 R2, [R1+0x10]");
  st_fini(&t);
}

static const char copy_src[] = ".kernel k\n"
                               ".param .ptr in\n"
                               ".param .ptr out\n"
                               "    S2R R0, SR_TID.X\n"
                               "    LDP.64 R2, [in]\n"
                               "    IMAD.WIDE.U32 R2, R0, 4, R2\n"
                               "    LDG.32 R4, [R2]\n"
                               "    LDP.64 R2, [out]\n"
                               "    IMAD.WIDE.U32 R2, R0, 4, R2\n"
                               "    STG.32 [R2], R4\n"
                               "    EXIT\n";

Test(sanitize, read_of_a_device_allocation_never_initialized) {
  simtest t;
  init_checked(&t, copy_src, WS_CHECK_INIT, false);
  uint64_t in = 0;
  cr_assert_eq(ws_device_malloc(t.dev, 128, &in), WS_OK);
  cr_assert_eq(ws_device_memset(t.dev, in, 0, 64), WS_OK); /* threads 0-15 only */
  cr_assert_eq(ws_args_set_ptr(t.ctx, &t.args, "in", in), WS_OK);
  st_buf(&t, "out", 128, NULL);
  char want[512];
  snprintf(want, sizeof want,
           "init check: read of global memory at 0x%016" PRIx64
           ", never written since its allocation, at line 7\n"
           "    in kernel 'k' CTA (0,0,0) warp 0 lane 16 pc 3: LDG.32 R4, [R2]",
           in + 64);
  expect_report(&t, 1, 32, want);
  st_fini(&t);
}

/* A kernel's writes count as initialization for the next launch. */
Test(sanitize, a_kernels_writes_initialize_for_the_next_launch) {
  simtest t;
  init_checked(&t, copy_src, WS_CHECK_INIT, false);
  uint64_t a = 0, b = 0, c = 0;
  cr_assert_eq(ws_device_malloc(t.dev, 128, &a), WS_OK);
  cr_assert_eq(ws_device_malloc(t.dev, 128, &b), WS_OK);
  cr_assert_eq(ws_device_malloc(t.dev, 128, &c), WS_OK);
  uint32_t v[32];
  for (uint32_t i = 0; i < 32; i++) v[i] = i * 3;
  cr_assert_eq(ws_device_memcpy_htod(t.dev, a, v, sizeof v), WS_OK);
  cr_assert_eq(ws_args_set_ptr(t.ctx, &t.args, "in", a), WS_OK);
  cr_assert_eq(ws_args_set_ptr(t.ctx, &t.args, "out", b), WS_OK);
  st_run(&t, 1, 32);
  cr_assert_eq(ws_args_set_ptr(t.ctx, &t.args, "in", b), WS_OK);
  cr_assert_eq(ws_args_set_ptr(t.ctx, &t.args, "out", c), WS_OK);
  st_run(&t, 1, 32);
  uint32_t got[32];
  st_read(&t, got, c, sizeof got);
  cr_expect_eq(got[31], 93u);
  st_fini(&t);
}

/* ---- sync check ------------------------------------------------------------ */

Test(sanitize, barrier_skipped_by_an_exiting_warp) {
  static const char src[] = ".kernel k\n"
                            "    S2R R0, SR_TID.X\n"
                            "    ISETP.GE.U32 P0, R0, 32\n"
                            "@P0 EXIT                         // warp 1 leaves\n"
                            "    BAR.SYNC\n"
                            "    EXIT\n";
  simtest t;
  init_checked(&t, src, WS_CHECK_SYNC, false);
  expect_report(&t, 1, 64,
                "sync check: the barrier at pc 3 line 5 was released with warp 0 waiting, but 32 threads "
                "of warp 1 exited at pc 2 line 4 without reaching it\n"
                "    in kernel 'k' CTA (0,0,0) warp 1 pc 2: @P0 EXIT");
  st_fini(&t);
}

Test(sanitize, warps_at_different_barriers_released_together) {
  static const char src[] = ".kernel k\n"
                            "    S2R R0, SR_TID.X\n"
                            "    ISETP.GE.U32 P0, R0, 32\n"
                            "@P0 BRA other\n"
                            "    BAR.SYNC\n"
                            "    EXIT\n"
                            "other:\n"
                            "    BAR.SYNC\n"
                            "    EXIT\n";
  simtest t;
  init_checked(&t, src, WS_CHECK_SYNC, false);
  expect_report(&t, 1, 64,
                "sync check: warps waiting at different barriers were released together: warp 0 at pc 3 "
                "line 5, warp 1 at pc 5 line 8\n"
                "    in kernel 'k' CTA (0,0,0) warp 1 pc 5: BAR.SYNC");
  st_fini(&t);
}

/* ---- every shipped kernel runs clean ----------------------------------------- */

static ws_device *checked_device(ws_ctx *ctx, ws_exec_mode mode) {
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, "classroom", &cfg), WS_OK, "%s", ws_errmsg(ctx));
  ws_device *dev = NULL;
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK);
  ws_device_set_checks(dev, WS_CHECK_ALL);
  ws_device_set_mode(dev, mode);
  return dev;
}

Test(sanitize, shipped_examples_are_clean) {
  ws_ctx *ctx = ws_ctx_create();
  for (int i = 0; ws_example_names[i]; i++) {
    ws_device *dev = checked_device(ctx, WS_MODE_FUNCTIONAL);
    ws_example_shape s = ws_example_default_shape(ws_example_names[i]);
    ws_example_check check;
    cr_expect_eq(ws_example_run(dev, ws_example_names[i], &s, &check), WS_OK, "%s: %s", ws_example_names[i],
                 ws_errmsg(ctx));
    cr_expect(check.pass, "%s", ws_example_names[i]);
    ws_device_destroy(dev);
  }
  ws_ctx_destroy(ctx);
}

static void upload(ws_device *dev, uint64_t *dptr, size_t count, uint64_t seed) {
  float *v = malloc(count * sizeof *v);
  cr_assert(v);
  for (size_t i = 0; i < count; i++) v[i] = (float)((seed * 2654435761u + i * 40503u) % 1000) / 500.0f - 1.0f;
  cr_assert_eq(ws_device_malloc(dev, count * 4, dptr), WS_OK);
  cr_assert_eq(ws_device_memcpy_htod(dev, *dptr, v, count * 4), WS_OK);
  free(v);
}

/* Every step of the GEMM ladder with every epilogue, on a shape whose edges
 * cut through the tiles (the edge path) and the timing model's order. */
Test(sanitize, gemm_ladder_is_clean) {
  ws_ctx *ctx = ws_ctx_create();
  ws_device *dev = checked_device(ctx, WS_MODE_TIMING);
  const uint32_t m = 61, n = 75, k = 37;
  ws_gemmgen_problem p = {m, n, k, 0, 0, 0, 0, 0};
  upload(dev, &p.a, (size_t)m * k, 1);
  upload(dev, &p.b, (size_t)k * n, 2);
  upload(dev, &p.bias, n, 3);
  upload(dev, &p.res, (size_t)m * n, 4);
  cr_assert_eq(ws_device_malloc(dev, (size_t)m * n * 4, &p.c), WS_OK);
  for (int v = 0; v < WS_GEMMGEN_VARIANT_COUNT; v++) {
    ws_gemmgen_cfg c = ws_gemmgen_defaults((ws_gemmgen_variant)v);
    c.epilogue = WS_GEMMGEN_EPI_ALL;
    cr_expect_eq(ws_gemmgen_run(dev, &c, &p, NULL), WS_OK, "%s: %s", ws_gemmgen_variant_name(c.variant),
                 ws_errmsg(ctx));
  }
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
}

/* TinyViT32 end to end with both attention paths: the layer kernels
 * (models/kgen/nngen.h), fused and naive attention (models/kgen/attngen.h) and the
 * GEMMs, through the host runtime's copies. */
Test(sanitize, tinyvit_is_clean) {
  ws_ctx *ctx = ws_ctx_create();
  ws_tinyvit_cfg mc = ws_tinyvit_cfg_default();
  ws_tinyvit_weights *w = NULL;
  cr_assert_eq(ws_tinyvit_weights_create(ctx, &mc, &w), WS_OK, "%s", ws_errmsg(ctx));
  ws_tinyvit_weights_init_seeded(w, 7);
  float *images = calloc(2 * WS_TINYVIT_IMAGE_FLOATS, sizeof *images);
  cr_assert(images);
  for (uint32_t i = 0; i < 2; i++) {
    ws_image *img = NULL;
    cr_assert_eq(ws_image_sample(ctx, ws_image_sample_names()[i], &img), WS_OK);
    cr_assert_eq(ws_image_to_input(ctx, img, images + (size_t)i * WS_TINYVIT_IMAGE_FLOATS), WS_OK);
    ws_image_destroy(img);
  }
  for (int a = 0; a < WS_VITRUN_ATTN_COUNT; a++) {
    ws_device *dev = checked_device(ctx, a ? WS_MODE_FUNCTIONAL : WS_MODE_TIMING);
    ws_runtime *rt = NULL;
    cr_assert_eq(ws_runtime_create(dev, &rt), WS_OK);
    ws_vitrun_cfg c = ws_vitrun_defaults();
    c.batch = 2;
    c.attn = (ws_vitrun_attn)a;
    ws_vitrun_result res;
    memset(&res, 0, sizeof res);
    cr_expect_eq(ws_vitrun_run(rt, w, images, &c, &res), WS_OK, "%s attention: %s",
                 ws_vitrun_attn_name(c.attn), ws_errmsg(ctx));
    cr_expect(res.pass, "%s attention", ws_vitrun_attn_name(c.attn));
    ws_vitrun_result_free(&res);
    ws_runtime_destroy(rt);
    ws_device_destroy(dev);
  }
  free(images);
  ws_tinyvit_weights_destroy(w);
  ws_ctx_destroy(ctx);
}

/* ---- byte granularity ---------------------------------------------------------------------- */

/* Each thread of two warps stores one byte of shared memory, at the byte
 * the %s line computes into R1, with no barrier between the warps. */
static const char byte_src[] = ".kernel k\n"
                               ".shared buf 64\n"
                               "    S2R R0, SR_TID.X\n"
                               "    %s\n"
                               "    STS.8 [R1+buf], R0\n"
                               "    EXIT\n";

static void byte_kernel(char *buf, size_t size, const char *addr) { snprintf(buf, size, byte_src, addr); }

/* Byte 2t % 64 + t / 32: warp 0 writes the even bytes 0..62, warp 1 the odd
 * ones 1..63, so every word is written by both warps, byte by byte apart. */
Test(sanitize, two_warps_writing_different_bytes_of_a_word_do_not_race) {
  char src[512];
  byte_kernel(src, sizeof src,
              "SHL R1, R0, 1\n    AND R1, R1, 63\n    SHR.U32 R2, R0, 5\n    IADD R1, R1, R2");
  simtest t;
  init_checked(&t, src, WS_CHECK_ALL, false);
  st_run(&t, 1, 64);
  st_fini(&t);
}

/* Byte t % 32: warp 1 writes the bytes warp 0 wrote, with no barrier. */
Test(sanitize, two_warps_writing_one_byte_race) {
  char src[512];
  byte_kernel(src, sizeof src, "AND R1, R0, 31");
  simtest t;
  init_checked(&t, src, WS_CHECK_RACE, false);
  expect_report(&t, 1, 64,
                "race check: write-after-write hazard on shared memory at 0x0\n"
                "    write by CTA (0,0,0) warp 1 lane 0 pc 2 line 5: STS.8 [R1], R0\n"
                "    write by CTA (0,0,0) warp 0 lane 0 pc 2 line 5: STS.8 [R1], R0\n"
                "    in kernel 'k' CTA (0,0,0) warp 1 lane 0 pc 2: STS.8 [R1], R0");
  st_fini(&t);
}

/* One store, two lanes, one byte: lanes 0 and 1 both write byte 0. */
Test(sanitize, two_lanes_of_one_byte_store_write_one_byte) {
  char src[512];
  byte_kernel(src, sizeof src, "SHR.U32 R1, R0, 1");
  simtest t;
  init_checked(&t, src, WS_CHECK_RACE, false);
  expect_report(&t, 1, 32,
                "race check: write-after-write hazard on shared memory at 0x0\n"
                "    write by CTA (0,0,0) warp 0 lane 1 pc 2 line 5: STS.8 [R1], R0\n"
                "    write by CTA (0,0,0) warp 0 lane 0 pc 2 line 5: STS.8 [R1], R0\n"
                "    in kernel 'k' CTA (0,0,0) warp 0 lane 1 pc 2: STS.8 [R1], R0");
  st_fini(&t);
}

/* Bytes written one at a time initialize only themselves: a word load
 * over a byte never written is an uninitialized read, named at that byte. */
Test(sanitize, init_check_follows_bytes_of_shared_memory) {
  static const char src[] = ".kernel k\n"
                            ".shared buf 8\n"
                            "    S2R R0, SR_TID.X\n"
                            "    STS.8 [R0+buf], R0\n"
                            "    BAR.SYNC\n"
                            "    LDS.32 R2, [RZ+buf]\n"
                            "    EXIT\n";
  simtest t;
  init_checked(&t, src, WS_CHECK_INIT, false);
  st_run(&t, 1, 4);
  st_fini(&t);
  init_checked(&t, src, WS_CHECK_INIT, false);
  expect_report(&t, 1, 3,
                "init check: read of shared memory at 0x3, never written by this CTA, at line 6\n"
                "    in kernel 'k' CTA (0,0,0) warp 0 lane 0 pc 3: LDS.32 R2, [RZ]");
  st_fini(&t);
}
