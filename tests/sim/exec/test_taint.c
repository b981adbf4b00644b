/* test_taint.c - pixel following (provenance): the exact shadow a small
 * kernel leaves (registers per lane, device bytes, the step record's
 * tag_lanes and tag_result), the tensor core's row/column rule, shared
 * memory, async copies and atomics, the global shadow's byte granularity,
 * and that following changes no value and no counter.
 *
 * Why: the tags are only useful if they are exact. A rule that tagged the
 * whole warp at an HMMA, or a whole 16-byte load for one tagged word, would
 * still "propagate" but would report that a pixel reached outputs it cannot
 * influence; each expectation below is derived from the instruction
 * semantics by hand. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/f16.h"
#include "models/kgen/gemmgen.h"
#include "sim/exec/cta.h"
#include "sim/exec/mem.h"
#include "sim/exec/taint.h"
#include "tests/sim/simtest.h"

/* ---- the global shadow alone -------------------------------------------------------- */

Test(taint, global_shadow_is_byte_granular_and_sparse) {
  ws_taint_mem *tm = ws_taint_mem_create();
  cr_assert(tm);
  const uint64_t base = 0x700000000000ull;
  cr_expect_eq(ws_taint_mem_resident_bytes(tm), 0, "nothing tagged: nothing held");
  cr_expect(!ws_taint_mem_any(tm, base, 1 << 20));
  cr_assert(ws_taint_mem_set(tm, base + 4093, 6, true), "a range across a page boundary");
  cr_expect_eq(ws_taint_mem_count(tm, base, 8192, 1), 6);
  cr_expect_eq(ws_taint_mem_count(tm, base + 4092, 2, 4), 2, "words 4092 and 4096 both hold a tagged byte");
  cr_expect(!ws_taint_mem_any(tm, base + 4092, 1));
  cr_expect(ws_taint_mem_any(tm, base + 4092, 2));
  cr_expect(!ws_taint_mem_any(tm, base + 4099, 100));
  uint8_t tags[10];
  cr_expect(ws_taint_mem_read(tm, base + 4090, tags, sizeof tags));
  const uint8_t want[10] = {0, 0, 0, 1, 1, 1, 1, 1, 1, 0};
  cr_expect_arr_eq(tags, want, sizeof want);
  /* a host buffer's tags: set and clear */
  const uint8_t host[4] = {0, 7, 0, 0};
  cr_assert(ws_taint_mem_write(tm, base + 4094, host, sizeof host));
  cr_expect_eq(ws_taint_mem_count(tm, base, 8192, 1), 3, "4093, 4095 and 4098");
  /* clearing never makes a page */
  uint64_t held = ws_taint_mem_resident_bytes(tm);
  cr_assert(ws_taint_mem_set(tm, base + (1ull << 30), 4096, false));
  cr_assert(ws_taint_mem_write(tm, base + (2ull << 30), NULL, 4096));
  cr_expect_eq(ws_taint_mem_resident_bytes(tm), held);
  cr_assert(ws_taint_mem_set(tm, base, 8192, false));
  cr_expect(!ws_taint_mem_any(tm, base, 8192));
  ws_taint_mem_destroy(tm);
}

/* ---- one CTA driven step by step ------------------------------------------------------ */

typedef struct tt {
  ws_ctx *ctx;
  ws_program *prog;
  ws_mem *mem;
  ws_taint_mem *tm;
  ws_taint *t;
  ws_args args;
  ws_exec_launch launch;
  ws_cta *cta;
  ws_warp_step steps[64]; /* by pc */
} tt;

static void tt_init(tt *t, const char *src, uint32_t threads, bool follow) {
  memset(t, 0, sizeof *t);
  t->ctx = ws_ctx_create();
  cr_assert_eq(ws_asm_parse(t->ctx, src, strlen(src), "taint.wsa", &t->prog), WS_OK, "%s", ws_errmsg(t->ctx));
  const ws_kernel *k = ws_program_find_kernel(t->prog, "t");
  cr_assert(k);
  t->mem = ws_mem_create(1 << 20);
  t->tm = ws_taint_mem_create();
  if (follow) cr_assert_eq(ws_taint_create(t->ctx, t->tm, k, &t->t), WS_OK);
  ws_args_init(&t->args, k);
  t->launch = (ws_exec_launch){.kernel = k,
                               .grid = {1, 1, 1},
                               .block = {threads, 1, 1},
                               .params = t->args.buf,
                               .mem = t->mem,
                               .num_sms = 1,
                               .taint = t->t};
}

static uint64_t tt_buf(tt *t, const char *name, const void *init, uint64_t bytes) {
  uint64_t p;
  cr_assert_eq(ws_mem_alloc(t->mem, t->ctx, bytes, &p), WS_OK);
  cr_assert_eq(ws_mem_copy_in(t->mem, t->ctx, p, init, bytes), WS_OK);
  cr_assert_eq(ws_args_set_ptr(t->ctx, &t->args, name, p), WS_OK);
  return p;
}

/* Runs warp 0 of the single CTA to the end, keeping each pc's step record. */
static void tt_run(tt *t) {
  cr_assert_eq(ws_cta_create(t->ctx, &t->launch, &t->cta), WS_OK, "%s", ws_errmsg(t->ctx));
  ws_cta_reset(t->cta, 0);
  for (uint32_t w = 0; w < t->cta->nwarps; w++)
    while (ws_cta_warp_state(t->cta, w) == WS_WARP_READY) {
      ws_warp_step step;
      memset(&step, 0xA5, sizeof step); /* the step must set the tag fields itself */
      cr_assert_eq(ws_cta_step(t->ctx, t->cta, w, 0, &step, NULL), WS_OK, "%s", ws_errmsg(t->ctx));
      if (w == 0 && step.pc < 64) t->steps[step.pc] = step;
    }
}

static void tt_fini(tt *t) {
  ws_cta_destroy(t->cta);
  ws_taint_destroy(t->t);
  ws_taint_mem_destroy(t->tm);
  ws_mem_destroy(t->mem);
  ws_program_destroy(t->prog);
  ws_ctx_destroy(t->ctx);
}

/* Lane 3 loads the word holding the tagged byte, adds 1, SHFL.UP by 2
 * moves it to lane 5, and every lane stores its value to out[lane]. */
static const char lane3_src[] = ".kernel t\n.param .ptr in\n.param .ptr out\n"
                                "S2R R0, SR_LANEID\n"           /* pc 0 */
                                "LDP.64 R2, [in]\n"             /* 1 */
                                "IMAD.WIDE.U32 R2, R0, 4, R2\n" /* 2 */
                                "LDG.32 R4, [R2]\n"             /* 3 */
                                "IADD R5, R4, 1\n"              /* 4 */
                                "SHFL.UP R6, R5, 2\n"           /* 5 */
                                "LDP.64 R2, [out]\n"            /* 6 */
                                "IMAD.WIDE.U32 R2, R0, 4, R2\n" /* 7 */
                                "STG.32 [R2], R6\n"             /* 8 */
                                "EXIT\n";                       /* 9 */

Test(taint, lane3_load_add_shuffle_store_leaves_the_exact_shadow) {
  tt t;
  tt_init(&t, lane3_src, 32, true);
  uint32_t zeros[32] = {0}, in[32];
  for (uint32_t l = 0; l < 32; l++) in[l] = 100 + l;
  uint64_t pin = tt_buf(&t, "in", in, sizeof in), pout = tt_buf(&t, "out", zeros, sizeof zeros);
  cr_assert(ws_taint_mem_set(t.tm, pin + 3 * 4 + 1, 1, true), "one byte of in[3]");
  tt_run(&t);
  const uint32_t want_lanes[10] = {0, 0, 0, 1u << 3, 0, 0, 0, 0, 1u << 5, 0};
  const uint32_t want_result[10] = {0, 0, 0, 1u << 3, 1u << 3, 1u << 5, 0, 0, 1u << 5, 0};
  for (uint32_t pc = 0; pc < 10; pc++) {
    cr_expect_eq(t.steps[pc].tag_lanes, want_lanes[pc], "pc %u tag_lanes 0x%x", pc, t.steps[pc].tag_lanes);
    cr_expect_eq(t.steps[pc].tag_result, want_result[pc], "pc %u tag_result 0x%x", pc,
                 t.steps[pc].tag_result);
  }
  const ws_taint_cta *tc = t.cta->tnt;
  cr_expect_eq(ws_taint_cta_reg(tc, 0, 4), 1u << 3, "R4: the load");
  cr_expect_eq(ws_taint_cta_reg(tc, 0, 5), 1u << 3, "R5: the add");
  cr_expect_eq(ws_taint_cta_reg(tc, 0, 6), 1u << 5, "R6: the shuffle moved it to lane 5");
  for (uint32_t r = 0; r < 4; r++) cr_expect_eq(ws_taint_cta_reg(tc, 0, r), 0, "R%u: ids and addresses", r);
  for (uint32_t l = 0; l < 32; l++) {
    cr_expect_eq(ws_taint_mem_any(t.tm, pout + 4 * l, 4), l == 5, "out[%u]", l);
    cr_expect_eq(ws_taint_mem_count(t.tm, pin + 4 * l, 4, 1), l == 3, "in[%u] keeps its one byte", l);
  }
  /* the values are the untagged run's */
  uint32_t out[32];
  cr_assert_eq(ws_mem_copy_out(t.mem, t.ctx, out, pout, sizeof out), WS_OK);
  for (uint32_t l = 0; l < 32; l++) cr_expect_eq(out[l], 101 + (l >= 2 ? l - 2 : l), "out[%u]", l);
  tt_fini(&t);
}

Test(taint, off_means_no_shadow_and_zero_step_fields) {
  tt t;
  tt_init(&t, lane3_src, 32, false);
  uint32_t zeros[32] = {0};
  uint64_t pin = tt_buf(&t, "in", zeros, sizeof zeros);
  tt_buf(&t, "out", zeros, sizeof zeros);
  cr_assert(ws_taint_mem_set(t.tm, pin, sizeof zeros, true), "tagged, but the launch does not follow");
  tt_run(&t);
  cr_expect_null(t.cta->tnt);
  cr_expect(!t.cta->shadowed);
  for (uint32_t pc = 0; pc < 10; pc++) {
    cr_expect_eq(t.steps[pc].tag_lanes, 0, "pc %u", pc);
    cr_expect_eq(t.steps[pc].tag_result, 0, "pc %u", pc);
  }
  tt_fini(&t);
}

/* LDGSTS copies tags byte by byte into shared memory; LDS of the partner's
 * slot (lane ^ 1) moves in[3]'s tag to lane 2; STS, LDS round trip; an
 * atomic add of a tagged value taints the word and the old value every
 * later lane reads; SEL on a tagged predicate taints its result. */
static const char shared_src[] =
    ".kernel t\n.param .ptr in\n.param .ptr out\n.param .ptr acc\n.shared s 128\n"
    "S2R R0, SR_LANEID\n"           /* 0 */
    "SHL R1, R0, 2\n"               /* 1 */
    "LDP.64 R2, [in]\n"             /* 2 */
    "IMAD.WIDE.U32 R2, R0, 4, R2\n" /* 3 */
    "LDGSTS.32 [R1+s], [R2]\n"      /* 4 */
    "LDGDEPBAR\n"                   /* 5 */
    "DEPBAR 0\n"                    /* 6 */
    "XOR R7, R0, 1\n"               /* 7 */
    "SHL R7, R7, 2\n"               /* 8 */
    "LDS.32 R4, [R7+s]\n"           /* 9: lane 2 reads slot 3 */
    "STS.32 [R1+s], R4\n"           /* 10: slot 2 now tagged, 3 not */
    "LDS.32 R5, [R1+s]\n"           /* 11 */
    "LDP.64 R2, [acc]\n"            /* 12 */
    "ATOMG.ADD.U32 R8, [R2], R5\n"  /* 13: lane 2 adds a tagged value */
    "ISETP.NE.U32 P1, R5, 12345\n"  /* 14 */
    "SEL R9, R0, RZ, P1\n"          /* 15 */
    "LDP.64 R2, [out]\n"            /* 16 */
    "IMAD.WIDE.U32 R2, R0, 4, R2\n" /* 17 */
    "STG.32 [R2], R9\n"             /* 18 */
    "EXIT\n";

Test(taint, shared_memory_async_copies_atomics_and_predicates) {
  tt t;
  tt_init(&t, shared_src, 32, true);
  uint32_t zeros[32] = {0}, in[32];
  for (uint32_t l = 0; l < 32; l++) in[l] = l;
  uint64_t pin = tt_buf(&t, "in", in, sizeof in), pout = tt_buf(&t, "out", zeros, sizeof zeros);
  uint64_t pacc = tt_buf(&t, "acc", zeros, 4);
  cr_assert(ws_taint_mem_set(t.tm, pin + 12, 4, true), "in[3]");
  tt_run(&t);
  const ws_taint_cta *tc = t.cta->tnt;
  cr_expect_eq(t.steps[4].tag_lanes, 1u << 3, "LDGSTS: lane 3 copied a tagged word");
  cr_expect_eq(t.steps[9].tag_lanes, 1u << 2, "LDS: lane 2 read slot 3");
  cr_expect_eq(ws_taint_cta_reg(tc, 0, 4), 1u << 2);
  cr_expect_eq(t.steps[10].tag_lanes, 1u << 2, "STS: lane 2 stored a tagged value");
  for (uint32_t b = 0; b < 128; b++)
    cr_expect_eq(ws_taint_cta_smem(tc, b), b >= 8 && b < 12, "shared byte %u", b);
  cr_expect_eq(ws_taint_cta_reg(tc, 0, 5), 1u << 2);
  /* lanes 0 and 1 read an untagged word, lane 2 writes a tagged sum, every
   * later lane reads and writes a tagged one */
  cr_expect_eq(ws_taint_cta_reg(tc, 0, 8), 0xFFFFFFF8u, "old values");
  cr_expect_eq(t.steps[13].tag_lanes, 0xFFFFFFFCu);
  cr_expect(ws_taint_mem_any(t.tm, pacc, 4));
  cr_expect_eq(ws_taint_cta_pred(tc, 0, 1), 1u << 2, "the compare of a tagged value");
  cr_expect_eq(t.steps[15].tag_result, 1u << 2, "SEL reads the tagged predicate");
  cr_expect_eq(ws_taint_mem_count(t.tm, pout, 32, 4), 1);
  cr_expect(ws_taint_mem_any(t.tm, pout + 8, 4), "out[2]");
  tt_fini(&t);
}

/* ---- the tensor core, through the device in both modes ------------------------------------------ */

/* Each lane loads its A (4 registers), B (2) and C (4) fragments from
 * per-lane rows, D = A B + C (D aliases C) is stored the same way. */
static const char hmma_src[] = ".kernel t\n.param .ptr fa\n.param .ptr fb\n.param .ptr fc\n.param .ptr out\n"
                               "S2R R0, SR_LANEID\n"
                               "LDP.64 R2, [fa]\nIMAD.WIDE.U32 R2, R0, 16, R2\nLDG.128 R4, [R2]\n"
                               "LDP.64 R2, [fb]\nIMAD.WIDE.U32 R2, R0, 8, R2\nLDG.64 R8, [R2]\n"
                               "LDP.64 R2, [fc]\nIMAD.WIDE.U32 R2, R0, 16, R2\nLDG.128 R12, [R2]\n"
                               "HMMA.16816.F32 R12, R4, R8, R12\n"
                               "LDP.64 R2, [out]\nIMAD.WIDE.U32 R2, R0, 16, R2\nSTG.128 [R2], R12\nEXIT\n";

typedef enum { TAG_A, TAG_B, TAG_C } hmma_case;

/* Tags one register of one lane's fragment (one byte of it), runs, and
 * checks every element of D against `want(i, j)`. */
static void hmma_case_run(bool timing, hmma_case which, uint32_t lane, uint32_t reg,
                          bool (*want)(int i, int j)) {
  simtest t;
  st_init(&t, hmma_src, "t");
  ws_device_set_mode(t.dev, timing ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
  ws_device_set_follow(t.dev, true);
  uint32_t fa[32][4], fb[32][2], fc[32][4];
  for (uint32_t l = 0; l < 32; l++) {
    for (uint32_t r = 0; r < 4; r++) fa[l][r] = 0x3C003C00u, fc[l][r] = 0x3F800000u;
    fb[l][0] = fb[l][1] = 0x3C003C00u;
  }
  uint64_t pa = st_buf(&t, "fa", sizeof fa, fa), pb = st_buf(&t, "fb", sizeof fb, fb);
  uint64_t pc = st_buf(&t, "fc", sizeof fc, fc), po = st_buf(&t, "out", sizeof fc, NULL);
  uint64_t at = which == TAG_A   ? pa + (lane * 4 + reg) * 4
                : which == TAG_B ? pb + (lane * 2 + reg) * 4
                                 : pc + (lane * 4 + reg) * 4;
  cr_assert_eq(ws_device_follow_range(t.dev, at + 2, 1), WS_OK, "%s", ws_errmsg(t.ctx));
  st_run(&t, 1, 32);
  uint64_t total = 0, n;
  for (uint32_t l = 0; l < 32; l++)
    for (uint32_t r = 0; r < 4; r++) {
      int i = (int)(l >> 2) + (int)(r >> 1) * 8, j = (int)(l & 3u) * 2 + (int)(r & 1u);
      cr_assert_eq(ws_device_followed(t.dev, po + (l * 4 + r) * 4, 4, 4, &n), WS_OK);
      cr_expect_eq(n, want(i, j), "%s case %d: D[%d][%d]", timing ? "timing" : "functional", which, i, j);
      total += n;
    }
  uint32_t d[32][4];
  st_read(&t, d, po, sizeof d);
  cr_expect_eq(d[7][3], 0x41880000u, "1 + 16 * (1 * 1) = 17: the values are the usual ones");
  st_fini(&t);
  cr_expect_gt(total, 0);
}

static bool row5(int i, int j) { return (void)j, i == 5; }
static bool col3(int i, int j) { return (void)i, j == 3; }
static bool elem_10_3(int i, int j) { return i == 10 && j == 3; }

/* A[5][8..9] is lane 4*5 + 0's register 2 (row g + 8*(2%2), columns 2t +
 * 8*(2/2)); B[2..3][3] is lane 4*3 + 1's register 0 (column g = 3); C[10][3]
 * is lane 4*2 + 1's register 3 (row g + 8, column 2t + 1). */
Test(taint, hmma_tags_exactly_the_row_column_or_element) {
  for (int timing = 0; timing < 2; timing++) {
    hmma_case_run(timing, TAG_A, 20, 2, row5);
    hmma_case_run(timing, TAG_B, 13, 0, col3);
    hmma_case_run(timing, TAG_C, 9, 3, elem_10_3);
  }
}

/* ---- a whole GEMM: exact rows, and nothing changes but the tags ---------------------------------- */

typedef struct gemm_run {
  float c[64 * 64];
  ws_launch_stats ls;
  uint64_t *counters;
  size_t ncounters;
  uint64_t tagged, tagged_row5;
} gemm_run;

static void gemm_once(ws_gemmgen_variant v, bool timing, bool follow, gemm_run *out) {
  enum { M = 64, N = 64, K = 64 };
  ws_ctx *ctx = ws_ctx_create();
  ws_gpu_cfg cfg;
  cr_assert_eq(ws_config_load_preset(ctx, "classroom", &cfg), WS_OK);
  ws_device *dev;
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK);
  ws_device_set_mode(dev, timing ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
  if (follow) ws_device_set_follow(dev, true);
  static float a[M * K], b[K * N];
  for (int i = 0; i < M * K; i++) a[i] = (float)((i * 7) % 11 - 5) * 0.125f;
  for (int i = 0; i < K * N; i++) b[i] = (float)((i * 5) % 13 - 6) * 0.25f;
  uint64_t pa, pb, pc;
  cr_assert_eq(ws_device_malloc(dev, sizeof a, &pa), WS_OK);
  cr_assert_eq(ws_device_malloc(dev, sizeof b, &pb), WS_OK);
  cr_assert_eq(ws_device_malloc(dev, sizeof out->c, &pc), WS_OK);
  cr_assert_eq(ws_device_memcpy_htod(dev, pa, a, sizeof a), WS_OK);
  cr_assert_eq(ws_device_memcpy_htod(dev, pb, b, sizeof b), WS_OK);
  cr_assert_eq(ws_device_memset(dev, pc, 0, sizeof out->c), WS_OK);
  if (follow) cr_assert_eq(ws_device_follow_range(dev, pa + 5 * K * 4, K * 4), WS_OK, "row 5 of A");
  ws_gemmgen_cfg g = ws_gemmgen_defaults(v);
  if (v == WS_GEMMGEN_BLOCKTILE2D) g.bm = g.bn = 32, g.bk = 16, g.tm = g.tn = 2, g.threads = 256;
  ws_gemmgen_problem p = {M, N, K, pa, pb, pc, 0, 0};
  cr_assert_eq(ws_gemmgen_run(dev, &g, &p, &out->ls), WS_OK, "%s", ws_errmsg(ctx));
  cr_assert_eq(ws_device_memcpy_dtoh(dev, out->c, pc, sizeof out->c), WS_OK);
  const ws_stats *st = ws_device_stats(dev);
  out->ncounters = ws_stats_count(st);
  out->counters = calloc(out->ncounters + 1, sizeof *out->counters);
  for (size_t i = 0; i < out->ncounters; i++) out->counters[i] = ws_stats_value(st, i);
  cr_assert_eq(ws_device_followed(dev, pc, sizeof out->c, 4, &out->tagged), WS_OK);
  cr_assert_eq(ws_device_followed(dev, pc + 5 * N * 4, N * 4, 4, &out->tagged_row5), WS_OK);
  ws_device_destroy(dev);
  ws_ctx_destroy(ctx);
}

/* Row 5 of A reaches row 5 of C and nothing else: N elements. Values, the
 * launch's statistics and every counter of the timing model are those of
 * the run without following. */
static void gemm_compare(ws_gemmgen_variant v, bool timing) {
  static gemm_run off, on;
  gemm_once(v, timing, false, &off);
  gemm_once(v, timing, true, &on);
  const char *name = ws_gemmgen_variant_name(v);
  cr_expect_eq(memcmp(off.c, on.c, sizeof off.c), 0, "%s: values", name);
  cr_expect_eq(memcmp(&off.ls, &on.ls, sizeof off.ls), 0, "%s: launch statistics", name);
  cr_expect_eq(off.ls.cycles > 0, timing);
  cr_assert_eq(off.ncounters, on.ncounters);
  for (size_t i = 0; i < off.ncounters; i++)
    cr_expect_eq(off.counters[i], on.counters[i], "%s: counter %zu", name, i);
  cr_expect_eq(off.tagged, 0);
  cr_expect_eq(on.tagged, 64, "%s %s: row 5 of C only", name, timing ? "timing" : "functional");
  cr_expect_eq(on.tagged_row5, 64);
  free(off.counters);
  free(on.counters);
}

Test(taint, following_changes_no_value_and_no_counter_of_a_gemm) {
  for (int timing = 0; timing < 2; timing++) {
    gemm_compare(WS_GEMMGEN_BLOCKTILE2D, timing);
    gemm_compare(WS_GEMMGEN_MMA, timing);
  }
}
