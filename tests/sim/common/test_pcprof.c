/* test_pcprof.c - the per-instruction profile a timed launch fills and the
 * source view that sums it per line: issue counts per .wsa line worked out
 * from the kernel text (loop trip count x warps), the memory columns from
 * the access pattern, the per-line sums equal to the launch's totals
 * (instructions and every warp state), a launch with a profile timed exactly
 * as one without, and a CUDA kernel from the corpus whose hottest line is its
 * inner loop's CUDA line.
 *
 * Why: the source view points a student at a line; a cycle charged to the
 * wrong instruction, or lost, would point at the wrong one. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "ptx/ptx.h"
#include "sim/host/report.h"
#include "sim/sm/sm.h"
#include "tests/sim/simtest.h"

/* One instruction per line, so line = the .wsa line. Each warp runs the loop
 * (lines 9-11) n times; the load reads 32 consecutive words per warp (one
 * line, 4 sectors); the store to shared memory has a stride of two words,
 * a 2-way bank conflict (2 wavefronts where 1 would do). */
static const char loop_src[] = ".kernel t\n"                   /* 1 */
                               ".param .ptr p\n"               /* 2 */
                               ".param .u32 n\n"               /* 3 */
                               ".shared sh 512\n"              /* 4 */
                               "S2R R0, SR_TID.X\n"            /* 5 */
                               "LDP.32 R1, [n]\n"              /* 6 */
                               "MOV R8, 0\n"                   /* 7 */
                               "MOV R9, 0\n"                   /* 8 */
                               "loop: FFMA R9, R9, R9, R9\n"   /* 9 */
                               "IADD R8, R8, 1\n"              /* 10 */
                               "ISETP.LT.U32 P0, R8, R1\n"     /* 11 */
                               "@P0 BRA loop\n"                /* 12 */
                               "LDP.64 R2, [p]\n"              /* 13 */
                               "IMAD.WIDE.U32 R2, R0, 4, R2\n" /* 14 */
                               "LDG.32 R4, [R2]\n"             /* 15 */
                               "SHL R5, R0, 3\n"               /* 16 */
                               "AND R5, R5, 255\n"             /* 17 */
                               "STS.32 [R5+sh], R4\n"          /* 18 */
                               "EXIT\n";                       /* 19 */

#define TRIPS 5u
#define CTAS 2u
#define THREADS 64u
#define WARPS (CTAS * THREADS / 32u)

static void run_loop(simtest *t, ws_pcprof *prof) {
  ws_gpu_cfg c = ws_config_default();
  c.gpu.num_sms = 2;
  c.smem.banks = 32;
  c.smem.bank_width_bytes = 4;
  st_init_cfg(t, loop_src, "t", &c);
  st_buf(t, "p", CTAS * THREADS * 4, NULL);
  st_u32(t, "n", TRIPS);
  ws_device_set_pcprof(t->dev, prof);
  st_run(t, CTAS, THREADS);
}

static const ws_report_line *find_line(const ws_report_line *lines, size_t n, uint32_t line) {
  for (size_t i = 0; i < n; i++)
    if (lines[i].line == line) return &lines[i];
  return NULL;
}

Test(pcprof, issues_per_line_follow_the_trip_count) {
  simtest t;
  ws_pcprof prof = {0};
  run_loop(&t, &prof);
  ws_report_line *lines = NULL;
  size_t n = 0;
  cr_assert_eq(ws_report_lines(t.ctx, &prof, t.k, &lines, &n), WS_OK, "%s", ws_errmsg(t.ctx));
  cr_expect_eq(n, 15, "lines 5 to 19 hold one instruction each");
  for (uint32_t l = 5; l <= 19; l++) {
    const ws_report_line *r = find_line(lines, n, l);
    cr_assert_not_null(r, "line %u", l);
    uint64_t per_warp = l >= 9 && l <= 12 ? TRIPS : 1;
    cr_expect_eq(r->ninsns, 1);
    cr_expect_eq(r->sum.warp_insns, per_warp * WARPS, "line %u", l);
    /* lanes whose guard holds: the last BRA (line 12) has none */
    uint64_t lanes = l == 12 ? (TRIPS - 1) * WARPS * 32 : per_warp * WARPS * 32;
    cr_expect_eq(r->sum.thread_insns, lanes, "line %u", l);
  }
  const ws_report_line *ldg = find_line(lines, n, 15), *sts = find_line(lines, n, 18);
  cr_expect_eq(ldg->sum.global_insns, WARPS);
  cr_expect_eq(ldg->sum.sectors, 4 * WARPS, "32 words: 4 sectors per warp");
  cr_expect_eq(sts->sum.smem_insns, WARPS);
  cr_expect_eq(sts->sum.smem_wavefronts, 2 * WARPS, "stride 2 words: 2 wavefronts");
  cr_expect_eq(sts->sum.smem_conflicts, WARPS, "of which 1 extra");
  for (uint32_t l = 5; l <= 19; l++)
    if (l != 15 && l != 18)
      cr_expect_eq(find_line(lines, n, l)->sum.global_insns + find_line(lines, n, l)->sum.smem_insns, 0);
  free(lines);
  ws_pcprof_free(&prof);
  st_fini(&t);
}

/* Every issue and every warp-cycle of every state lands on exactly one line. */
Test(pcprof, line_sums_are_the_launch_totals) {
  simtest t;
  ws_pcprof prof = {0};
  run_loop(&t, &prof);
  ws_report_line *lines = NULL;
  size_t n = 0;
  cr_assert_eq(ws_report_lines(t.ctx, &prof, t.k, &lines, &n), WS_OK);
  ws_pcprof_row all = {0};
  for (size_t i = 0; i < n; i++) ws_pcprof_add(&all, &lines[i].sum);
  cr_expect_eq(all.warp_insns, t.stats.warp_insns);
  cr_expect_eq(all.thread_insns, t.stats.thread_insns);
  uint64_t states = 0;
  for (int s = 0; s < WS_STALL_COUNT; s++) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "sm*.stall.%s", ws_sm_stall_name((ws_stall)s));
    uint64_t want = ws_stats_sum(ws_device_stats(t.dev), pattern);
    cr_expect_eq(all.state_cycles[s], want, "state %s", ws_sm_stall_name((ws_stall)s));
    states += want;
  }
  cr_expect_gt(states, 0);
  cr_expect_eq(ws_pcprof_cycles(&all), states);
  cr_expect_eq(all.state_cycles[WS_STALL_SELECTED], t.stats.warp_insns, "one issue cycle per instruction");
  /* sorted hottest first */
  for (size_t i = 1; i < n; i++)
    cr_expect_geq(ws_pcprof_cycles(&lines[i - 1].sum), ws_pcprof_cycles(&lines[i].sum));
  free(lines);
  ws_pcprof_free(&prof);
  st_fini(&t);
}

/* The profile only watches: the same launch without one takes the same
 * cycles and warp states. */
Test(pcprof, a_profile_changes_no_timing) {
  simtest a, b;
  ws_pcprof prof = {0};
  run_loop(&a, &prof);
  run_loop(&b, NULL);
  cr_expect_eq(a.stats.cycles, b.stats.cycles);
  cr_expect_eq(a.stats.warp_insns, b.stats.warp_insns);
  for (int s = 0; s < WS_STALL_COUNT; s++) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "sm*.stall.%s", ws_sm_stall_name((ws_stall)s));
    cr_expect_eq(ws_stats_sum(ws_device_stats(a.dev), pattern),
                 ws_stats_sum(ws_device_stats(b.dev), pattern));
  }
  ws_pcprof_free(&prof);
  st_fini(&a);
  st_fini(&b);
}

/* The view's text: file:line, the source line without its indent, the
 * memory columns where the line accesses memory. */
Test(pcprof, printed_lines_quote_the_source) {
  simtest t;
  ws_pcprof prof = {0};
  run_loop(&t, &prof);
  ws_report_line *lines = NULL;
  size_t n = 0;
  cr_assert_eq(ws_report_lines(t.ctx, &prof, t.k, &lines, &n), WS_OK);
  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  ws_report_source src = {"loop.wsa", loop_src, strlen(loop_src)};
  ws_report_print_lines(mem, lines, n, n, &src);
  fclose(mem);
  cr_expect(strstr(text, "hottest 15 of 15"), "%s", text);
  cr_expect(strstr(text, "loop.wsa:15 "), "%s", text);
  cr_expect(strstr(text, "\n        LDG.32 R4, [R2]\n"), "%s", text);
  cr_expect(strstr(text, "4 warp insns"), "%s", text);
  cr_expect(strstr(text, "16 sectors / 4 requests"), "%s", text);
  cr_expect(strstr(text, "8 shared wavefronts (4 conflicts)"), "%s", text);
  cr_expect(strstr(text, "\n        loop: FFMA R9, R9, R9, R9\n"), "%s", text);
  free(text);
  free(lines);
  ws_pcprof_free(&prof);
  st_fini(&t);
}

/* A profile of another kernel's size is refused, not read past its end. */
Test(pcprof, a_profile_of_another_kernel_is_refused) {
  simtest t;
  ws_pcprof prof = {0};
  run_loop(&t, &prof);
  ws_pcprof other = {0};
  cr_assert_eq(ws_pcprof_begin(t.ctx, &other, 3), WS_OK);
  ws_report_line *lines = NULL;
  size_t n = 0;
  cr_expect_eq(ws_report_lines(t.ctx, &other, t.k, &lines, &n), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(t.ctx), "3 instructions; kernel 't' has 15"), "%s", ws_errmsg(t.ctx));
  ws_pcprof_free(&other);
  ws_pcprof_free(&prof);
  st_fini(&t);
}

/* sgemm_naive from the CUDA corpus, translated from its committed PTX with
 * the .cu beside it (as exec does for a .cu), so the lines are CUDA lines:
 * the inner product's loop (line 13) loads one word of A and one of B per
 * iteration and warp, and is the hottest line by far. */
Test(pcprof, cuda_kernel_hottest_line_is_its_loop) {
  ws_ctx *ctx = ws_ctx_create();
  char *cu = NULL, *ptx = NULL;
  size_t cu_len = 0, ptx_len = 0;
  const char *cu_path = WS_SOURCE_DIR "/tests/ptx/cuda/sgemm_naive.cu";
  cr_assert_eq(ws_file_read(ctx, cu_path, 1 << 20, "CUDA", &cu, &cu_len), WS_OK);
  cr_assert_eq(
      ws_file_read(ctx, WS_SOURCE_DIR "/tests/ptx/cuda/sgemm_naive.ptx", 1 << 20, "PTX", &ptx, &ptx_len),
      WS_OK);
  ws_ptx_opts opts = {.cuda_path = cu_path, .cuda_text = cu, .cuda_len = cu_len};
  ws_ptx_result res;
  cr_assert_eq(ws_ptx_translate(ctx, ptx, ptx_len, "sgemm_naive.ptx", &opts, &res), WS_OK, "%s",
               ws_errmsg(ctx));
  const ws_kernel *k = &res.prog->kernels[0];
  ws_device *dev = NULL;
  ws_gpu_cfg cfg = ws_config_default();
  cr_assert_eq(ws_device_create(ctx, &cfg, &dev), WS_OK);
  enum { M = 32, N = 32, K = 48 };
  uint64_t a, b, c;
  cr_assert_eq(ws_device_malloc(dev, M * K * 4, &a), WS_OK);
  cr_assert_eq(ws_device_malloc(dev, K * N * 4, &b), WS_OK);
  cr_assert_eq(ws_device_malloc(dev, M * N * 4, &c), WS_OK);
  ws_device_memset(dev, a, 0, M * K * 4);
  ws_device_memset(dev, b, 0, K * N * 4);
  ws_device_memset(dev, c, 0, M * N * 4);
  ws_args args;
  ws_args_init(&args, k);
  cr_assert_eq(ws_args_set_u32(ctx, &args, "M", M), WS_OK, "%s", ws_errmsg(ctx));
  ws_args_set_u32(ctx, &args, "N", N);
  ws_args_set_u32(ctx, &args, "K", K);
  ws_args_set_f32(ctx, &args, "alpha", 1.0f);
  ws_args_set_f32(ctx, &args, "beta", 0.0f);
  ws_args_set_ptr(ctx, &args, "A", a);
  ws_args_set_ptr(ctx, &args, "B", b);
  ws_args_set_ptr(ctx, &args, "C", c);
  ws_pcprof prof = {0};
  ws_device_set_pcprof(dev, &prof);
  ws_launch_stats ls;
  cr_assert_eq(ws_device_launch(dev, k, (ws_dim3){N / 16, M / 16, 1}, (ws_dim3){16, 16, 1}, 0, &args, &ls),
               WS_OK, "%s", ws_errmsg(ctx));
  ws_report_line *lines = NULL;
  size_t n = 0;
  cr_assert_eq(ws_report_lines(ctx, &prof, k, &lines, &n), WS_OK);
  cr_assert_gt(n, 0);
  cr_expect_eq(lines[0].line, 13, "hottest line %u", lines[0].line);
  uint32_t warps = M * N / 32;
  cr_expect_eq(lines[0].sum.global_insns, 2u * K * warps,
               "one load of A and one of B per iteration and warp");
  uint64_t insns = 0;
  for (size_t i = 0; i < n; i++) insns += lines[i].sum.warp_insns;
  cr_expect_eq(insns, ls.warp_insns);
  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  ws_report_source src = {"sgemm_naive.cu", cu, cu_len};
  ws_report_print_lines(mem, lines, n, 1, &src);
  fclose(mem);
  cr_expect(strstr(text, "sgemm_naive.cu:13 "), "%s", text);
  cr_expect(strstr(text, "\n        for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];\n"),
            "%s", text);
  free(text);
  free(lines);
  ws_pcprof_free(&prof);
  ws_device_destroy(dev);
  ws_ptx_result_free(&res);
  free(cu);
  free(ptx);
  ws_ctx_destroy(ctx);
}
