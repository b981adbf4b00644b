/* test_ptx.c - the PTX front end: PTX text read, translated onto the ISA
 * and run on the simulated GPU, each result checked against the same
 * computation done here in C; refusals located at the PTX line.
 *
 * Design: the PTX is written out here (hand-written in the style clang
 * emits) so the suite depends on no compiler version; tests/ptx/cuda/
 * covers what clang itself produces. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/f16.h"
#include "ptx/ptx.h"
#include "sim/host/device.h"

typedef struct run {
  ws_ctx *ctx;
  ws_ptx_result res;
  ws_device *dev;
  const ws_kernel *k;
  ws_args args;
  ws_launch_stats stats;
} run;

static void start(run *r, const char *ptx, const char *kernel) {
  memset(r, 0, sizeof *r);
  r->ctx = ws_ctx_create();
  ws_status st = ws_ptx_translate(r->ctx, ptx, strlen(ptx), "t.ptx", NULL, &r->res);
  cr_assert_eq(st, WS_OK, "%s", ws_errmsg(r->ctx));
  r->k = ws_program_find_kernel(r->res.prog, kernel);
  cr_assert_not_null(r->k, "no kernel %s", kernel);
  ws_gpu_cfg cfg = ws_config_default();
  cr_assert_eq(ws_device_create(r->ctx, &cfg, &r->dev), WS_OK);
  ws_args_init(&r->args, r->k);
}

static uint64_t buf(run *r, const char *param, size_t bytes, const void *init) {
  uint64_t p = 0;
  cr_assert_eq(ws_device_malloc(r->dev, bytes, &p), WS_OK);
  if (init)
    cr_assert_eq(ws_device_memcpy_htod(r->dev, p, init, bytes), WS_OK);
  else
    cr_assert_eq(ws_device_memset(r->dev, p, 0, bytes), WS_OK);
  if (param) cr_assert_eq(ws_args_set_ptr(r->ctx, &r->args, param, p), WS_OK, "%s", ws_errmsg(r->ctx));
  return p;
}

static void launch(run *r, uint32_t grid, uint32_t block, ws_exec_mode mode) {
  ws_device_set_mode(r->dev, mode);
  ws_status st =
      ws_device_launch(r->dev, r->k, (ws_dim3){grid, 1, 1}, (ws_dim3){block, 1, 1}, 0, &r->args, &r->stats);
  cr_assert_eq(st, WS_OK, "%s", ws_errmsg(r->ctx));
}

static void read_back(run *r, void *dst, uint64_t src, size_t bytes) {
  cr_assert_eq(ws_device_memcpy_dtoh(r->dev, dst, src, bytes), WS_OK);
}

static void stop(run *r) {
  ws_device_destroy(r->dev);
  ws_ptx_result_free(&r->res);
  ws_ctx_destroy(r->ctx);
}

/* The failure message of translating `ptx`, which must fail with `st`. */
static const char *refused(ws_ctx *ctx, const char *ptx, ws_status st) {
  ws_ptx_result res;
  ws_status got = ws_ptx_translate(ctx, ptx, strlen(ptx), "bad.ptx", NULL, &res);
  cr_assert_eq(got, st, "status %d, expected %d: %s", got, st, ws_errmsg(ctx));
  return ws_errmsg(ctx);
}

/* ---- SAXPY as clang -O3 emits it for the seeds' kernel ---------------------------- */

static const char saxpy_ptx[] = ".version 7.0\n"
                                ".target sm_80\n"
                                ".address_size 64\n"
                                "\n"
                                ".visible .entry _Z5saxpyifPKfPf(\n"
                                "\t.param .u32 _Z5saxpyifPKfPf_param_0,\n"
                                "\t.param .f32 _Z5saxpyifPKfPf_param_1,\n"
                                "\t.param .u64 _Z5saxpyifPKfPf_param_2,\n"
                                "\t.param .u64 _Z5saxpyifPKfPf_param_3\n"
                                ")\n"
                                "{\n"
                                "\t.reg .pred \t%p<2>;\n"
                                "\t.reg .b32 \t%r<6>;\n"
                                "\t.reg .f32 \t%f<5>;\n"
                                "\t.reg .b64 \t%rd<8>;\n"
                                "\n"
                                "\tld.param.u32 \t%r2, [_Z5saxpyifPKfPf_param_0];\n"
                                "\tmov.u32 \t%r3, %ctaid.x;\n"
                                "\tmov.u32 \t%r4, %ntid.x;\n"
                                "\tmov.u32 \t%r5, %tid.x;\n"
                                "\tmad.lo.s32 \t%r1, %r3, %r4, %r5;\n"
                                "\tsetp.ge.s32 \t%p1, %r1, %r2;\n"
                                "\t@%p1 bra \tLBB0_2;\n"
                                "\tld.param.f32 \t%f1, [_Z5saxpyifPKfPf_param_1];\n"
                                "\tld.param.u64 \t%rd3, [_Z5saxpyifPKfPf_param_3];\n"
                                "\tcvta.to.global.u64 \t%rd1, %rd3;\n"
                                "\tld.param.u64 \t%rd4, [_Z5saxpyifPKfPf_param_2];\n"
                                "\tcvta.to.global.u64 \t%rd2, %rd4;\n"
                                "\tmul.wide.s32 \t%rd5, %r1, 4;\n"
                                "\tadd.s64 \t%rd6, %rd2, %rd5;\n"
                                "\tld.global.f32 \t%f2, [%rd6];\n"
                                "\tadd.s64 \t%rd7, %rd1, %rd5;\n"
                                "\tld.global.f32 \t%f3, [%rd7];\n"
                                "\tfma.rn.f32 \t%f4, %f2, %f1, %f3;\n"
                                "\tst.global.f32 \t[%rd7], %f4;\n"
                                "LBB0_2:\n"
                                "\tret;\n"
                                "\n"
                                "}\n";

Test(ptx, saxpy_runs_as_the_host_computes_it_in_both_modes) {
  for (int mode = 0; mode < 2; mode++) {
    run r;
    start(&r, saxpy_ptx, "saxpy");
    enum { N = 1000 };
    static float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f - 7.0f, y[i] = (float)(i % 13) + 0.25f;
    buf(&r, "param_2", sizeof x, x);
    uint64_t dy = buf(&r, "param_3", sizeof y, y);
    cr_assert_eq(ws_args_set_u32(r.ctx, &r.args, "param_0", N), WS_OK);
    cr_assert_eq(ws_args_set_f32(r.ctx, &r.args, "param_1", 2.5f), WS_OK);
    launch(&r, (N + 255) / 256, 256, mode ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
    read_back(&r, out, dy, sizeof out);
    for (int i = 0; i < N; i++) cr_assert_eq(out[i], fmaf(x[i], 2.5f, y[i]), "y[%d] = %g", i, out[i]);
    if (mode) cr_expect_gt(r.stats.cycles, 0);
    stop(&r);
  }
}

Test(ptx, each_instruction_keeps_its_ptx_line) {
  run r;
  start(&r, saxpy_ptx, "saxpy");
  const ws_ptx_kernel_info *ki = &r.res.kernels[0];
  cr_assert_eq(ki->ninsns, r.k->ninsns);
  /* the first instruction is the param read of PTX line 17; the FFMA is line 34's fma */
  cr_expect_eq(ki->ptx_line[0], 17);
  bool found = false;
  for (uint32_t i = 0; i < r.k->ninsns; i++)
    if (r.k->insns[i].op == WS_OP_FFMA) {
      found = true;
      cr_expect_eq(ki->ptx_line[i], 34);
    }
  cr_expect(found, "no FFMA in the translation");
  cr_expect(strstr(r.res.wsa, ".param .ptr param_2"), "pointers become .ptr params:\n%s", r.res.wsa);
  cr_expect(strstr(r.res.wsa, ".param .f32 param_1"));
  stop(&r);
}

/* ---- integer division, which the ISA composes from the reciprocal ------------------ */

static const char divrem_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry divrem(.param .u64 pa, .param .u64 pb, .param .u64 out)\n{\n"
    "  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [out];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n  cvta.to.global.u64 %rd3, %rd3;\n"
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n"
    "  mad.lo.s32 %r4, %r2, %r3, %r1;\n"
    "  mul.wide.u32 %rd4, %r4, 4;\n  add.s64 %rd5, %rd1, %rd4;\n  add.s64 %rd6, %rd2, %rd4;\n"
    "  ld.global.u32 %r5, [%rd5];\n  ld.global.u32 %r6, [%rd6];\n"
    "  div.u32 %r7, %r5, %r6;\n  rem.u32 %r8, %r5, %r6;\n"
    "  div.s32 %r9, %r5, %r6;\n  rem.s32 %r10, %r5, %r6;\n"
    "  mul.wide.u32 %rd7, %r4, 16;\n  add.s64 %rd8, %rd3, %rd7;\n"
    "  st.global.v4.u32 [%rd8], {%r7, %r8, %r9, %r10};\n"
    "  ret;\n}\n";

Test(ptx, division_and_remainder_match_c_on_hard_cases) {
  enum { N = 512 };
  static uint32_t a[N], b[N], out[4 * N];
  uint64_t s = 12345;
  const uint32_t edges[] = {1,     2,          3,           7,           10,          255,   65535,
                            65536, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFFEu, 46341, 3000000000u};
  for (int i = 0; i < N; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    a[i] = i < 196 ? edges[i % 14] : (uint32_t)(s >> 32);
    b[i] = i < 196 ? edges[(i / 14) % 14] : (uint32_t)(s >> (i % 31)) | 1u;
  }
  run r;
  start(&r, divrem_ptx, "divrem");
  buf(&r, "pa", sizeof a, a);
  buf(&r, "pb", sizeof b, b);
  uint64_t d = buf(&r, "out", sizeof out, NULL);
  launch(&r, N / 128, 128, WS_MODE_FUNCTIONAL);
  read_back(&r, out, d, sizeof out);
  for (int i = 0; i < N; i++) {
    cr_assert_eq(out[4 * i], a[i] / b[i], "%u / %u gave %u", a[i], b[i], out[4 * i]);
    cr_assert_eq(out[4 * i + 1], a[i] % b[i], "%u %% %u gave %u", a[i], b[i], out[4 * i + 1]);
    int32_t sa = (int32_t)a[i], sb = (int32_t)b[i];
    if (sa == INT32_MIN && sb == -1) continue; /* overflows in C too */
    cr_assert_eq((int32_t)out[4 * i + 2], sa / sb, "%d / %d gave %d", sa, sb, (int32_t)out[4 * i + 2]);
    cr_assert_eq((int32_t)out[4 * i + 3], sa % sb, "%d %% %d gave %d", sa, sb, (int32_t)out[4 * i + 3]);
  }
  stop(&r);
}

/* ---- 64-bit values, bit fields, selects --------------------------------------------- */

static const char bits_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry bits(.param .u64 pa, .param .u64 out)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<24>;\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [out];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 8;\n  add.s64 %rd4, %rd1, %rd3;\n"
    "  ld.global.u64 %rd5, [%rd4];\n"
    "  shl.b64 %rd6, %rd5, 13;\n  shr.u64 %rd7, %rd5, 40;\n  shr.s64 %rd8, %rd5, 7;\n"
    "  xor.b64 %rd9, %rd6, %rd7;\n  add.s64 %rd10, %rd9, %rd8;\n"
    "  sub.s64 %rd11, %rd10, %rd5;\n"
    "  setp.lt.u64 %p1, %rd5, 0x8000000000000000;\n"
    "  selp.b64 %rd12, %rd11, %rd6, %p1;\n"
    "  mul.lo.s64 %rd13, %rd12, %rd5;\n"
    "  cvt.u32.u64 %r2, %rd13;\n"
    "  bfe.s32 %r3, %r2, 4, 9;\n  bfi.b32 %r4, %r3, %r2, 8, 12;\n"
    "  cvt.s64.s32 %rd14, %r4;\n  add.s64 %rd15, %rd13, %rd14;\n"
    "  mul.wide.u32 %rd16, %r1, 8;\n  add.s64 %rd17, %rd2, %rd16;\n"
    "  st.global.u64 [%rd17], %rd15;\n"
    "  ret;\n}\n";

static uint64_t bits_host(uint64_t x) {
  uint64_t a = x << 13, b = x >> 40, c = (uint64_t)((int64_t)x >> 7);
  uint64_t t = ((a ^ b) + c) - x;
  uint64_t sel = x < 0x8000000000000000ull ? t : a;
  uint64_t m = sel * x;
  uint32_t lo = (uint32_t)m;
  int32_t f = (int32_t)(lo << (32 - 13)) >> (32 - 9); /* bits 4..12, sign-extended */
  uint32_t mask = 0xFFFu << 8;
  uint32_t ins = (((uint32_t)f << 8) & mask) | (lo & ~mask);
  return m + (uint64_t)(int64_t)(int32_t)ins;
}

Test(ptx, sixty_four_bit_arithmetic_and_bit_fields_match_c) {
  enum { N = 64 };
  static uint64_t a[N], out[N];
  uint64_t s = 99;
  for (int i = 0; i < N; i++) s = s * 6364136223846793005ull + 1442695040888963407ull, a[i] = s ^ (s >> 29);
  run r;
  start(&r, bits_ptx, "bits");
  buf(&r, "pa", sizeof a, a);
  uint64_t d = buf(&r, "out", sizeof out, NULL);
  launch(&r, 1, N, WS_MODE_FUNCTIONAL);
  read_back(&r, out, d, sizeof out);
  for (int i = 0; i < N; i++)
    cr_assert_eq(out[i], bits_host(a[i]), "lane %d: 0x%llx, expected 0x%llx", i, (unsigned long long)out[i],
                 (unsigned long long)bits_host(a[i]));
  stop(&r);
}

/* ---- shared memory, barriers, shuffles, divergent loops ------------------------------- */

static const char reduce_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".shared .align 4 .b8 _ZZ6reducePKfPfiE4part[128];\n"
    ".visible .entry _Z6reducePKfPfi(.param .u64 x, .param .u64 out, .param .u32 n)\n{\n"
    "  .reg .pred %p<6>;\n  .reg .b32 %r<32>;\n  .reg .f32 %f<32>;\n  .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [x];\n  cvta.to.global.u64 %rd1, %rd1;\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n  mov.u32 %r5, %nctaid.x;\n"
    "  mad.lo.s32 %r6, %r3, %r4, %r2;\n  mul.lo.s32 %r7, %r4, %r5;\n"
    "  mov.f32 %f1, 0f00000000;\n"
    "  setp.ge.u32 %p1, %r6, %r1;\n  @%p1 bra $L__BB0_3;\n"
    "$L__BB0_2:\n"
    "  mul.wide.u32 %rd2, %r6, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  ld.global.nc.f32 %f2, [%rd3];\n"
    "  add.f32 %f1, %f1, %f2;\n  add.s32 %r6, %r6, %r7;\n"
    "  setp.lt.u32 %p2, %r6, %r1;\n  @%p2 bra $L__BB0_2;\n"
    "$L__BB0_3:\n"
    "  shfl.sync.down.b32 %f3, %f1, 16, 31, -1;\n  add.f32 %f1, %f1, %f3;\n"
    "  shfl.sync.down.b32 %f3, %f1, 8, 31, -1;\n  add.f32 %f1, %f1, %f3;\n"
    "  shfl.sync.down.b32 %f3, %f1, 4, 31, -1;\n  add.f32 %f1, %f1, %f3;\n"
    "  shfl.sync.down.b32 %f3, %f1, 2, 31, -1;\n  add.f32 %f1, %f1, %f3;\n"
    "  shfl.sync.down.b32 %f3, %f1, 1, 31, -1;\n  add.f32 %f1, %f1, %f3;\n"
    "  and.b32 %r8, %r2, 31;\n  shr.u32 %r9, %r2, 5;\n"
    "  setp.ne.s32 %p3, %r8, 0;\n"
    "  mov.u32 %r10, _ZZ6reducePKfPfiE4part;\n  shl.b32 %r11, %r9, 2;\n  add.s32 %r12, %r10, %r11;\n"
    "  @!%p3 st.shared.f32 [%r12], %f1;\n"
    "  bar.sync 0;\n"
    "  setp.ne.s32 %p4, %r9, 0;\n  @%p4 bra $L__BB0_5;\n"
    "  shr.u32 %r13, %r4, 5;\n  setp.lt.u32 %p5, %r8, %r13;\n  mov.f32 %f4, 0f00000000;\n"
    "  shl.b32 %r14, %r8, 2;\n  add.s32 %r15, %r10, %r14;\n"
    "  @%p5 ld.shared.f32 %f4, [%r15];\n"
    "  shfl.sync.bfly.b32 %f5, %f4, 16, 31, -1;\n  add.f32 %f4, %f4, %f5;\n"
    "  shfl.sync.bfly.b32 %f5, %f4, 8, 31, -1;\n  add.f32 %f4, %f4, %f5;\n"
    "  shfl.sync.bfly.b32 %f5, %f4, 4, 31, -1;\n  add.f32 %f4, %f4, %f5;\n"
    "  shfl.sync.bfly.b32 %f5, %f4, 2, 31, -1;\n  add.f32 %f4, %f4, %f5;\n"
    "  shfl.sync.bfly.b32 %f5, %f4, 1, 31, -1;\n  add.f32 %f4, %f4, %f5;\n"
    "  setp.ne.s32 %p5, %r8, 0;\n  @%p5 bra $L__BB0_5;\n"
    "  ld.param.u64 %rd4, [out];\n  cvta.to.global.u64 %rd5, %rd4;\n"
    "  red.global.add.f32 [%rd5], %f4;\n"
    "$L__BB0_5:\n  ret;\n}\n";

Test(ptx, a_shuffle_reduction_with_shared_memory_and_atomics_sums_exactly) {
  enum { N = 3000 };
  static float x[N];
  for (int i = 0; i < N; i++) x[i] = (float)(i % 17); /* small integers: every order of sums is exact */
  double want = 0;
  for (int i = 0; i < N; i++) want += x[i];
  for (int mode = 0; mode < 2; mode++) {
    run r;
    start(&r, reduce_ptx, "reduce");
    buf(&r, "x", sizeof x, x);
    uint64_t d = buf(&r, "out", 4, NULL);
    cr_assert_eq(ws_args_set_u32(r.ctx, &r.args, "n", N), WS_OK);
    launch(&r, 4, 256, mode ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
    float got = 0;
    read_back(&r, &got, d, 4);
    cr_expect_eq(got, (float)want, "sum %g, expected %g", got, want);
    cr_expect(strstr(r.res.wsa, ".shared part 128 4"), "the local static's own name:\n%s", r.res.wsa);
    stop(&r);
  }
}

/* ---- registers ---------------------------------------------------------------------------- */

/* n values loaded, all live until they are summed in reverse order. */
static char *many_live_ptx(int n) {
  size_t cap = 4096 + (size_t)n * 160;
  char *s = malloc(cap);
  size_t at =
      (size_t)snprintf(s, cap,
                       ".version 7.0\n.target sm_80\n.address_size 64\n"
                       ".visible .entry live(.param .u64 pa)\n{\n  .reg .b32 %%r<%d>;\n  .reg .b64 %%rd<4>;\n"
                       "  ld.param.u64 %%rd1, [pa];\n  cvta.to.global.u64 %%rd2, %%rd1;\n",
                       2 * n + 2);
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(s + at, cap - at, "  ld.global.u32 %%r%d, [%%rd2+%d];\n", i, 4 * i);
  at += (size_t)snprintf(s + at, cap - at, "  mov.u32 %%r%d, 0;\n", n);
  for (int i = n - 1; i >= 0; i--)
    at += (size_t)snprintf(s + at, cap - at, "  add.s32 %%r%d, %%r%d, %%r%d;\n", n, n, i);
  snprintf(s + at, cap - at, "  st.global.u32 [%%rd2], %%r%d;\n  ret;\n}\n", n);
  return s;
}

Test(ptx, registers_are_shared_by_values_whose_lives_do_not_overlap) {
  char *s = many_live_ptx(100);
  ws_ctx *ctx = ws_ctx_create();
  ws_ptx_result res;
  cr_assert_eq(ws_ptx_translate(ctx, s, strlen(s), "live.ptx", NULL, &res), WS_OK, "%s", ws_errmsg(ctx));
  /* 100 live values, the sum and the pointer pair: at most 104 registers, and
   * no fewer than the 100 values need */
  uint32_t regs = res.kernels[0].regs_per_thread;
  cr_expect(regs >= 100 && regs <= 104, "%u registers", regs);
  ws_ptx_result_free(&res);
  ws_ptx_opts one = {.max_regs = 1}; /* a pointer pair cannot fit, spilled or not */
  cr_expect_eq(ws_ptx_translate(ctx, s, strlen(s), "live.ptx", &one, &res), WS_ERR_LIMIT);
  cr_expect(strstr(ws_errmsg(ctx), "kernel 'live': does not fit in 1 registers even with spilling"), "%s",
            ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
  free(s);
}

/* Under --max-regs 64 the 100 live values spill to local memory; the sum
 * comes out the same, in both modes, and the spills are real traffic. */
Test(ptx, spilled_values_come_back_from_local_memory) {
  char *s = many_live_ptx(100);
  for (int mode = 0; mode < 2; mode++) {
    run r;
    memset(&r, 0, sizeof r);
    r.ctx = ws_ctx_create();
    ws_ptx_opts small = {.max_regs = 64};
    cr_assert_eq(ws_ptx_translate(r.ctx, s, strlen(s), "live.ptx", &small, &r.res), WS_OK, "%s",
                 ws_errmsg(r.ctx));
    const ws_ptx_kernel_info *ki = &r.res.kernels[0];
    cr_expect_leq(ki->regs_per_thread, 64);
    cr_expect(ki->spill_bytes >= 4 * (100 - 64) && ki->spill_bytes % 4 == 0, "%u bytes spilled",
              ki->spill_bytes);
    r.k = ws_program_find_kernel(r.res.prog, "live");
    cr_assert_not_null(r.k);
    cr_expect_eq(r.k->local_bytes, ki->spill_bytes);
    ws_gpu_cfg cfg = ws_config_default();
    cr_assert_eq(ws_device_create(r.ctx, &cfg, &r.dev), WS_OK);
    ws_args_init(&r.args, r.k);
    static uint32_t v[100];
    for (int i = 0; i < 100; i++) v[i] = (uint32_t)(i + 1) * 3u;
    uint64_t d = buf(&r, "pa", sizeof v, v);
    launch(&r, 1, 1, mode ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
    uint32_t got = 0;
    read_back(&r, &got, d, 4);
    cr_expect_eq(got, 3u * 5050u, "sum %u", got);
    stop(&r);
  }
  free(s);
}

/* ---- half precision ---------------------------------------------------------------------------- */

/* A scalar f16 subtraction of a pair's halves (unpacked into .b16
 * registers) and an f16x2 comparison writing p|q, each into half of out. */
static const char half_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry h(.param .u64 pa, .param .u64 out)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b16 %h<4>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [out];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n"
    "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd3, %r1, 4;\n"
    "  add.s64 %rd4, %rd1, %rd3;\n  add.s64 %rd5, %rd2, %rd3;\n"
    "  ld.global.u32 %r2, [%rd4];\n  mov.b32 {%h1, %h2}, %r2;\n"
    "  sub.f16 %h3, %h1, %h2;\n"
    "  mov.b32 %r3, 0x3C003C00;\n  setp.lt.f16x2 %p1|%p2, %r2, %r3;\n"
    "  selp.u32 %r4, 1, 0, %p1;\n  selp.u32 %r5, 2, 0, %p2;\n  add.u32 %r4, %r4, %r5;\n"
    "  shl.b32 %r4, %r4, 16;\n  mov.b32 %r6, {%h3, %h3};\n  and.b32 %r6, %r6, 65535;\n"
    "  or.b32 %r6, %r6, %r4;\n  st.global.u32 [%rd5], %r6;\n  ret;\n}\n";

Test(ptx, half_arithmetic_and_paired_comparisons_translate_and_run) {
  for (int mode = 0; mode < 2; mode++) {
    run r;
    start(&r, half_ptx, "h");
    cr_expect(strstr(r.res.wsa, "HADD2.F16 R"), "sub.f16 is a scalar HADD2:\n%s", r.res.wsa);
    cr_expect(strstr(r.res.wsa, "HSETP2.LT.F16_V2 P"), "setp.lt.f16x2 is one HSETP2:\n%s", r.res.wsa);
    ws_gpu_cfg cfg = ws_config_default();
    cr_assert_eq(ws_device_create(r.ctx, &cfg, &r.dev), WS_OK);
    ws_args_init(&r.args, r.k);
    /* (lo, hi) halves: 1, 2 -> -1 (0xBC00), neither below 1; 0.5, 0.25 ->
     * 0.25, both below 1; NaN, 0 -> NaN (0x7FFF), only hi below 1; 2^-24,
     * 2^-23 -> -2^-24 (subnormal 0x8001), both below 1 */
    static const uint32_t in[4] = {0x40003C00, 0x34003800, 0x00007E00, 0x00020001};
    static const uint32_t want[4] = {0x0000BC00, 0x00033400, 0x00027FFF, 0x00038001};
    uint64_t pa = buf(&r, "pa", sizeof in, in), out = buf(&r, "out", sizeof in, NULL);
    (void)pa;
    launch(&r, 1, 4, mode ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
    uint32_t got[4];
    read_back(&r, got, out, sizeof got);
    for (int i = 0; i < 4; i++)
      cr_expect_eq(got[i], want[i], "lane %d: 0x%08x, expected 0x%08x", i, got[i], want[i]);
    stop(&r);
  }
}

/* match.all.sync over a warp: out[lane] = (mask, p) for 32-bit values read
 * from pa, and the mask for 64-bit values (pa's word and the lane's tid as
 * the high word, never all equal). */
static const char match_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry m(.param .u64 pa, .param .u64 out)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [out];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n"
    "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd3, %r1, 4;\n"
    "  add.s64 %rd4, %rd1, %rd3;\n  ld.global.u32 %r2, [%rd4];\n"
    "  match.all.sync.b32 %r3|%p1, %r2, 0xffffffff;\n"
    "  selp.u32 %r4, 1, 0, %p1;\n"
    "  mov.b64 %rd5, {%r2, %r1};\n  match.all.sync.b64 %r5, %rd5, 0xffffffff;\n"
    "  mul.wide.u32 %rd3, %r1, 12;\n  add.s64 %rd6, %rd2, %rd3;\n"
    "  st.global.u32 [%rd6], %r3;\n  st.global.u32 [%rd6+4], %r4;\n  st.global.u32 [%rd6+8], %r5;\n"
    "  ret;\n}\n";

/* The same value in every lane: the whole mask and p set (the 64-bit
 * values differ by their high word, so their mask is 0); one lane apart:
 * 0 and p clear, whichever lane it is. */
Test(ptx, match_all_tells_whether_every_lane_agrees) {
  for (int mode = 0; mode < 2; mode++)
    for (int odd = -1; odd < 32; odd += 11) {
      run r;
      start(&r, match_ptx, "m");
      ws_gpu_cfg cfg = ws_config_default();
      cr_assert_eq(ws_device_create(r.ctx, &cfg, &r.dev), WS_OK);
      ws_args_init(&r.args, r.k);
      uint32_t in[32], got[32][3];
      for (int i = 0; i < 32; i++) in[i] = i == odd ? 0x1235u : 0x1234u;
      buf(&r, "pa", sizeof in, in);
      uint64_t out = buf(&r, "out", sizeof got, NULL);
      launch(&r, 1, 32, mode ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
      read_back(&r, got, out, sizeof got);
      for (int i = 0; i < 32; i++) {
        cr_expect_eq(got[i][0], odd < 0 ? 0xFFFFFFFFu : 0u, "lane %d, odd lane %d: mask 0x%x", i, odd,
                     got[i][0]);
        cr_expect_eq(got[i][1], odd < 0 ? 1u : 0u, "lane %d, odd lane %d: p", i, odd);
        cr_expect_eq(got[i][2], 0u, "lane %d: 64-bit values differ in their high word", i);
      }
      stop(&r);
    }
}

/* ---- refusals --------------------------------------------------------------------------------- */

#define HEAD ".version 7.0\n.target sm_80\n.address_size 64\n"
#define ENTRY                                                                                                \
  HEAD ".visible .entry k(.param .u64 p)\n{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  .reg .f64 %fd<2>;\n"

Test(ptx, unsupported_constructs_are_refused_at_their_line) {
  ws_ctx *ctx = ws_ctx_create();
  const struct {
    const char *ptx, *says;
  } cases[] = {
      {ENTRY "  ld.param.u64 %rd1, [p];\n  ld.global.v2.u8 {%r1, %r2}, [%rd1];\n  ret;\n}\n",
       "bad.ptx:10: error: 'ld.global.v2.u8 {...}, [%rd1+0]': a vector of two 8-bit values is not "
       "supported (vectors of 4 bytes or more are)"},
      {ENTRY "  ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r0, %r1}, [%r1];\n  ret;\n}\n",
       "ldmatrix is supported as ldmatrix.sync.aligned.m8n8.x1/.x2/.x4[.trans].shared.b16"},
      {ENTRY "  add.ftz.f16x2 %r1, %r1, %r2;\n  ret;\n}\n",
       "bad.ptx:9: error: 'add.ftz.f16x2 %r1, %r1, %r2': .ftz on half-precision arithmetic is not supported"},
      {ENTRY "  fma.rn.sat.bf16x2 %r1, %r1, %r2, %r3;\n  ret;\n}\n",
       ".sat on half-precision arithmetic is not supported"},
      {ENTRY "  min.NaN.f16x2 %r1, %r1, %r2;\n  ret;\n}\n",
       ".NaN on half-precision arithmetic is not supported"},
      {ENTRY "  fma.f16x2 %r1, %r1, %r2, %r3;\n  ret;\n}\n", "fma is supported with .rn"},
      {ENTRY "  div.rn.f16x2 %r1, %r1, %r2;\n  ret;\n}\n",
       "div on half precision is not supported (convert to f32)"},
      {ENTRY "  .reg .pred %p<2>;\n  setp.lt.f16x2 %p1, %r1, %r2;\n  ret;\n}\n",
       "setp on a half pair writes two predicates (p|q)"},
      {ENTRY "  .reg .pred %p<2>;\n  setp.lo.f16 %p1, %r1, %r2;\n  ret;\n}\n",
       "comparison 'lo' is not supported for this type"},
      {ENTRY "  match.any.sync.b32 %r1, %r2, 0xffffffff;\n  ret;\n}\n",
       "match is supported as match.all.sync (match.any has no cheap lowering)"},
      {ENTRY "  cp.async.ca.shared.global [%r1], [%rd1], 16, %r2;\n  ret;\n}\n",
       "cp.async with a source size (zero fill) is not supported"},
      {ENTRY "  add.f64 %fd1, %fd0, %fd0;\n  ret;\n}\n",
       "bad.ptx:9: error: 'add.f64 %fd1, %fd0, %fd0': this type is not supported here"},
      {ENTRY "  add.s32 %r1, %r9, 1;\n  ret;\n}\n",
       "bad.ptx:9: error: 'add.s32 %r1, %r9, 1': register '%r9' is not declared"},
      {HEAD
       ".func f()\n{\n  call.uni f, ();\n  ret;\n}\n.visible .entry k()\n{\n  call.uni f, ();\n  ret;\n}\n",
       "bad.ptx:6: error: 'call.uni f': recursion: 'f' calls itself; device functions are inlined"},
      {ENTRY "  ld.param.u64 %rd1, [p];\n  proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
             "  call (%r1), %rd1, (%r2), proto;\n  ret;\n}\n",
       "bad.ptx:11: error: 'call %rd1': an indirect call (through a register or a prototype)"},
      {HEAD ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n.visible .entry k()\n{\n"
            "  .reg .b64 %rd<2>;\n  .reg .b32 %r<2>;\n  call.uni (%r1), vprintf, (%rd1, %rd1);\n  ret;\n}\n",
       "bad.ptx:9: error: 'call.uni vprintf': 'vprintf' is declared but not defined in this PTX"},
      {HEAD ".func (.param .b32 r) f(.param .b32 a)\n{\n  ret;\n}\n.visible .entry k()\n{\n"
            "  .reg .b32 %r<2>;\n  call.uni (%r1), f, (%r1, %r1);\n  ret;\n}\n",
       "passes 2 params to 'f', which takes 1"},
      {ENTRY "  shfl.sync.down.b32 %r1, %r2, 1, 15, -1;\n  ret;\n}\n",
       "shfl is supported over the whole warp"},
      {ENTRY "  bar.sync 1;\n  ret;\n}\n", "barrier 0 over the whole CTA is supported"},
      {ENTRY "  st.param.b32 [p], %r1;\n  ret;\n}\n",
       "stores to the param and const spaces are not supported"},
      {HEAD
       ".const .align 4 .f32 coef;\n.visible .entry k()\n{\n  .reg .f32 %f<2>;\n  st.const.f32 [coef], %f1;\n"
       "  ret;\n}\n",
       "bad.ptx:8: error: 'st.const.f32 [coef+0], %f1': stores to the param and const spaces are not "
       "supported"},
      {HEAD ".global .align 4 .u32 g;\n.visible .entry k()\n{\n  .reg .b32 %r<2>;\n  ld.global.u32 %r1, "
            "[g];\n  ret;\n}\n",
       "global variables are not supported; pass a pointer instead"},
      {ENTRY "  vote.sync.uni.pred %p1, %p1, -1;\n  ret;\n}\n", "register '%p1' is not declared"},
      {ENTRY "  add.sat.s32 %r1, %r1, %r2;\n  ret;\n}\n", "saturating integer arithmetic is not supported"},
      {ENTRY "  cvt.rni.s32.f32 %r1, %r2;\n  ret;\n}\n",
       "float to integer is supported with .rzi (truncation)"},
      {ENTRY "  div.s64 %rd1, %rd2, %rd3;\n  ret;\n}\n", "this type is not supported here"},
      {ENTRY "  mov.u32 %r1, %clock64;\n  ret;\n}\n", "%clock64 is read into a 64-bit register"},
      {ENTRY "  mov.u32 %r1, %globaltimer;\n  ret;\n}\n", "special register '%globaltimer' is not supported"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *msg = refused(ctx, cases[i].ptx, WS_ERR_INVALID);
    cr_expect(strstr(msg, cases[i].says), "case %zu: %s", i, msg);
  }
  ws_ctx_destroy(ctx);
}

/* ---- device functions, inlined at their calls ----------------------------------------- */

static char *slurp(const char *rel, size_t *n);

static int32_t step_host(int32_t a, int32_t b) { return a > 100 ? 100 : a + b; }

/* calls.ptx passes registers and an 8-byte aggregate, returns from the
 * middle of a function and calls one under a divergent predicate; every
 * lane's result is the host's, in both modes. */
Test(ptx, device_functions_run_inlined_at_each_call) {
  enum { N = 64 };
  int32_t x[N], y[N];
  float z[N];
  for (int i = 0; i < N; i++) x[i] = (i * 13) % 140 - 20;
  size_t n = 0;
  char *ptx = slurp("tests/ptx/data/calls.ptx", &n);
  for (int mode = 0; mode < 2; mode++) {
    run r;
    memset(&r, 0, sizeof r);
    r.ctx = ws_ctx_create();
    cr_assert_eq(ws_ptx_translate(r.ctx, ptx, n, "calls.ptx", NULL, &r.res), WS_OK, "%s", ws_errmsg(r.ctx));
    r.k = ws_program_find_kernel(r.res.prog, "calls");
    cr_assert_not_null(r.k);
    ws_gpu_cfg cfg = ws_config_default();
    cr_assert_eq(ws_device_create(r.ctx, &cfg, &r.dev), WS_OK);
    ws_args_init(&r.args, r.k);
    buf(&r, "param_0", sizeof x, x);
    uint64_t dy = buf(&r, "param_1", sizeof y, NULL), dz = buf(&r, "param_2", sizeof z, NULL);
    launch(&r, 1, N, mode ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
    read_back(&r, y, dy, sizeof y);
    read_back(&r, z, dz, sizeof z);
    for (int t = 0; t < N; t++) {
      int32_t want = step_host(x[t], 7);
      if (t % 2) want = step_host(want, t);
      cr_assert_eq(y[t], want, "mode %d lane %d: y = %d, expected %d", mode, t, y[t], want);
      cr_assert_eq(z[t], ((float)want + (float)t) * 0.5f, "mode %d lane %d: z = %g", mode, t, z[t]);
    }
    stop(&r);
  }
  free(ptx);
}

/* PTX's .sat on f32: the result clamped to [0, 1] and NaN made +0. */
static float sat_host(float v) {
  if (isnan(v) || v <= 0.0f) return 0.0f; /* -0 too: +0 */
  return v > 1.0f ? 1.0f : v;
}

/* saturate.ptx on edge values, compared bit for bit with the host (so a -0
 * or a NaN left through fails); its %clock64 reads, in the timed run,
 * bracket the %clock read between them. */
Test(ptx, saturating_f32_arithmetic_and_the_64_bit_clock) {
  enum { N = 32 };
  float x[N];
  const float edge[] = {NAN,  -0.0f,    2.0f,      -1.0f,     0.5f, 0.0f,
                        1.0f, INFINITY, -INFINITY, 0.999999f, 1.5f, 0.75f};
  for (int i = 0; i < N; i++) x[i] = i < 12 ? edge[i] : (float)(i - 20) / 8.0f;
  size_t n = 0;
  char *ptx = slurp("tests/ptx/data/saturate.ptx", &n);
  run r;
  memset(&r, 0, sizeof r);
  r.ctx = ws_ctx_create();
  cr_assert_eq(ws_ptx_translate(r.ctx, ptx, n, "saturate.ptx", NULL, &r.res), WS_OK, "%s", ws_errmsg(r.ctx));
  r.k = ws_program_find_kernel(r.res.prog, "sat");
  cr_assert_not_null(r.k);
  ws_gpu_cfg cfg = ws_config_default();
  cr_assert_eq(ws_device_create(r.ctx, &cfg, &r.dev), WS_OK);
  ws_args_init(&r.args, r.k);
  buf(&r, "param_0", sizeof x, x);
  uint64_t dy = buf(&r, "param_1", 1024 + N * 24, NULL);
  launch(&r, 1, N, WS_MODE_TIMING);
  float y[N * 8];
  uint8_t clk[N * 24];
  read_back(&r, y, dy, sizeof y);
  read_back(&r, clk, dy + 1024, sizeof clk);
  for (int t = 0; t < N; t++) {
    float want[5] = {sat_host(x[t] + 0.0f), sat_host(x[t] - 0.5f), sat_host(x[t] * 2.0f),
                     sat_host(fmaf(x[t], x[t], -1.0f)), sat_host(x[t])};
    for (int k = 0; k < 5; k++)
      cr_assert(memcmp(&y[t * 8 + k], &want[k], 4) == 0, "x = %g, op %d: %g, expected %g", x[t], k,
                y[t * 8 + k], want[k]);
    uint64_t before, after;
    uint32_t mid;
    memcpy(&before, clk + t * 24, 8), memcpy(&mid, clk + t * 24 + 8, 4), memcpy(&after, clk + t * 24 + 16, 8);
    cr_assert(before > 0 && before <= mid && mid <= after,
              "lane %d: clock64 %" PRIu64 ", clock %u, clock64 %" PRIu64, t, before, mid, after);
  }
  stop(&r);
  free(ptx);
}

/* Mutual recursion is refused at the call that closes the cycle. */
Test(ptx, recursion_is_refused_at_the_call_closing_the_cycle) {
  ws_ctx *ctx = ws_ctx_create();
  ws_ptx_result res;
  ws_status st = ws_ptx_load_file(ctx, WS_SOURCE_DIR "/tests/ptx/data/recursion.ptx", NULL, NULL, &res);
  cr_assert_eq(st, WS_ERR_INVALID, "%s", ws_errmsg(ctx));
  cr_expect(strstr(ws_errmsg(ctx), "recursion.ptx:23: error: 'call.uni down': recursion: 'down' calls itself "
                                   "through 'back'"),
            "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

/* A struct passed by value has no place among the ISA's 4- and 8-byte params. */
/* A struct by value read as clang reads one, through its address and by
 * name: with no source, its fields are the words and doublewords read
 * (the doubleword at 0 holds the word read at 4; the byte at 9 and the
 * halfword at 10 widen to the word at 8), each a param the host fills. */
static const char struct_ptx[] =
    HEAD ".visible .entry k(.param .align 8 .b8 k_param_0[16], .param .u64 k_param_1)\n"
         "{\n"
         "  .reg .b32 %r<4>;\n"
         "  .reg .b64 %rd<6>;\n"
         "  mov.b64 %rd1, k_param_0;\n"
         "  mov.u64 %rd5, %rd1;\n"
         "  ld.param.u64 %rd2, [k_param_1];\n"
         "  ld.param.u32 %r1, [%rd5+4];\n"
         "  ld.param.s8 %r2, [%rd1+9];\n"
         "  ld.param.u16 %r3, [k_param_0+10];\n"
         "  ld.param.u64 %rd3, [k_param_0];\n"
         "  cvta.to.global.u64 %rd4, %rd2;\n"
         "  st.global.u32 [%rd4], %r1;\n"
         "  st.global.u32 [%rd4+4], %r2;\n"
         "  st.global.u32 [%rd4+8], %r3;\n"
         "  st.global.u64 [%rd4+16], %rd3;\n"
         "  ret;\n"
         "}\n";

Test(ptx, a_struct_param_becomes_one_param_per_field_read) {
  run r;
  start(&r, struct_ptx, "k");
  cr_assert_eq(r.k->nparams, 3);
  const char *want[] = {"param_0.0", "param_0.8", "param_1"};
  for (int i = 0; i < 3; i++) cr_assert_str_eq(r.k->params[i].name, want[i]);
  cr_assert(strstr(r.res.wsa, ".param .u64 param_0.0") &&
                strstr(r.res.wsa, "bytes 8..11 of a 16-byte struct"),
            "%s", r.res.wsa);
  uint8_t bytes[16];
  const uint64_t lo = 0x1122334455667788u;
  const uint32_t hi = 0xA1B2F3C4u;
  memcpy(bytes, &lo, 8);
  memcpy(bytes + 8, &hi, 4);
  cr_assert_eq(ws_args_set_u64(r.ctx, &r.args, "param_0.0", lo), WS_OK, "%s", ws_errmsg(r.ctx));
  cr_assert_eq(ws_args_set_u32(r.ctx, &r.args, "param_0.8", hi), WS_OK, "%s", ws_errmsg(r.ctx));
  uint64_t out = buf(&r, "param_1", 24, NULL);
  launch(&r, 1, 1, WS_MODE_FUNCTIONAL);
  uint8_t got[24];
  read_back(&r, got, out, sizeof got);
  uint32_t w4, w8, h10, r1, r2, r3;
  uint64_t d0, rd3;
  memcpy(&w4, bytes + 4, 4), memcpy(&w8, bytes + 8, 4), memcpy(&d0, bytes, 8);
  h10 = w8 >> 16;
  memcpy(&r1, got, 4), memcpy(&r2, got + 4, 4), memcpy(&r3, got + 8, 4), memcpy(&rd3, got + 16, 8);
  cr_expect_eq(r1, w4);
  cr_expect_eq((int32_t)r2, (int32_t)(int8_t)bytes[9], "the byte at 9, sign-extended: 0x%08x", r2);
  cr_expect_eq(r3, h10);
  cr_expect_eq(rd3, d0);
  stop(&r);
}

Test(ptx, struct_reads_past_the_param_or_through_an_escaped_address_are_refused) {
  ws_ctx *ctx = ws_ctx_create();
  const char *msg =
      refused(ctx,
              HEAD ".visible .entry k(.param .align 8 .b8 k_param_0[16])\n{\n  .reg .b32 %r<2>;\n"
                   "  ld.param.u32 %r1, [k_param_0+16];\n  ret;\n}\n",
              WS_ERR_INVALID);
  cr_expect(strstr(msg, "bad.ptx:7: error: 'ld.param.u32 %r1, [k_param_0+16]': reads bytes 16..19 of param "
                        "'k_param_0', which has 16"),
            "%s", msg);
  msg = refused(ctx,
                HEAD ".visible .entry k(.param .align 8 .b8 k_param_0[16], .param .u64 k_param_1)\n{\n"
                     "  .reg .b64 %rd<3>;\n  mov.b64 %rd1, k_param_0;\n  ld.param.u64 %rd2, [k_param_1];\n"
                     "  st.global.u64 [%rd2], %rd1;\n  ret;\n}\n",
                WS_ERR_INVALID);
  cr_expect(strstr(msg, "bad.ptx:9: error:") && strstr(msg, "'%rd1' holds the address of a param"), "%s",
            msg);
  msg = refused(ctx, HEAD ".visible .entry k(.param .u8 k_param_0)\n{\n  ret;\n}\n", WS_ERR_INVALID);
  cr_expect(strstr(msg, "bad.ptx:4: error: param 'k_param_0' of 'k' is 1 bytes; scalars of 4 and 8 bytes, "
                        "pointers and structs are supported, not narrow integers"),
            "%s", msg);
  ws_ctx_destroy(ctx);
}

Test(ptx, bad_text_is_located_and_never_read_past_its_end) {
  ws_ctx *ctx = ws_ctx_create();
  const struct {
    const char *ptx, *says;
  } cases[] = {
      {HEAD ".visible .entry k(\n  .param .u32 n\n{\n  ret;\n}\n",
       "bad.ptx:6:1: error: expected ',' or ')' after a param, found '{'"},
      {HEAD ".visible .entry k()\n{\n  add.s32 %r1 %r2;\n}\n",
       "bad.ptx:6:15: error: expected ',' or ';' after an operand"},
      {HEAD ".visible .entry k()\n{\n  ret;\n",
       "bad.ptx:5:1: error: expected the entry's body closed by '}'"},
      {".target sm_80\n", "bad.ptx:1:1: error: expected a PTX module starting with '.version', found none"},
      {HEAD ".address_size 32\n", "expected '.address_size 64' (32-bit addressing is not supported)"},
      {HEAD "/* unterminated", "expected the end of a comment"},
      {HEAD ".visible .entry k()\n{\n  mov.u32 %r1, 0f3F80;\n}\n",
       "bad.ptx:6:16: error: expected a number, found '0f3F80'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *msg = refused(ctx, cases[i].ptx, WS_ERR_INVALID);
    cr_expect(strstr(msg, cases[i].says), "case %zu: %s", i, msg);
  }
  char binary[] = {'.', 'v', 'e', 'r', 0, 1, 2};
  ws_ptx_result res;
  cr_expect_eq(ws_ptx_translate(ctx, binary, sizeof binary, "bin.ptx", NULL, &res), WS_ERR_INVALID);
  cr_expect(strstr(ws_errmsg(ctx), "a NUL byte found"), "%s", ws_errmsg(ctx));
  ws_ctx_destroy(ctx);
}

/* ---- tensor cores: cp.async, ldmatrix and mma.sync from clang ----------------------- */

static char *slurp(const char *rel, size_t *n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", WS_SOURCE_DIR, rel);
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)size + 1);
  cr_assert_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  buf[size] = '\0';
  *n = (size_t)size;
  return buf;
}

/* The corpus' tensor-core GEMM (tests/ptx/cuda/hgemm_mma.cu) on small
 * integers, exact in binary16 and in the fp32 sums: C must be A * B to the
 * bit, in both modes. */
Test(ptx, the_tensor_core_gemm_with_async_copies_and_ldmatrix_is_exact) {
  enum { M = 32, N = 64, K = 48 };
  static uint16_t a[M * K], bt[N * K];
  static float want[M * N], got[M * N];
  uint64_t s = 7;
  static int av[M * K], bv[N * K];
  for (int i = 0; i < M * K; i++) s = s * 6364136223846793005ull + 1, av[i] = (int)(s >> 61) - 3;
  for (int i = 0; i < N * K; i++) s = s * 6364136223846793005ull + 1, bv[i] = (int)(s >> 61) - 3;
  for (int i = 0; i < M * K; i++) a[i] = ws_f16_from_f32((float)av[i]);
  for (int i = 0; i < N * K; i++) bt[i] = ws_f16_from_f32((float)bv[i]);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int acc = 0;
      for (int k = 0; k < K; k++) acc += av[i * K + k] * bv[j * K + k];
      want[i * N + j] = (float)acc;
    }
  size_t n = 0;
  char *ptx = slurp("tests/ptx/cuda/hgemm_mma.ptx", &n);
  for (int mode = 0; mode < 2; mode++) {
    run r;
    start(&r, ptx, "hgemm_mma");
    cr_assert_eq(ws_args_set_u32(r.ctx, &r.args, "param_0", M), WS_OK);
    cr_assert_eq(ws_args_set_u32(r.ctx, &r.args, "param_1", N), WS_OK);
    cr_assert_eq(ws_args_set_u32(r.ctx, &r.args, "param_2", K), WS_OK);
    buf(&r, "param_3", sizeof a, a);
    buf(&r, "param_4", sizeof bt, bt);
    uint64_t d = buf(&r, "param_5", sizeof got, NULL);
    ws_device_set_mode(r.dev, mode ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
    cr_assert_eq(ws_device_launch(r.dev, r.k, (ws_dim3){N / 32, M / 16, 1}, (ws_dim3){128, 1, 1}, 0, &r.args,
                                  &r.stats),
                 WS_OK, "%s", ws_errmsg(r.ctx));
    read_back(&r, got, d, sizeof got);
    for (int i = 0; i < M * N; i++)
      cr_assert_eq(got[i], want[i], "C[%d] = %g, expected %g", i, got[i], want[i]);
    stop(&r);
  }
  free(ptx);
}

/* ---- ldmatrix, with and without .trans ------------------------------------------------ */

/* 32 rows of 16 halves in shared memory, 32 bytes apart (row q is half
 * q * 16 + c of `in`); lane t holds the address of row t. The kernel loads
 * x4.trans from column 8 on, x1.trans and x2 from column 0, and writes each
 * lane's seven registers to out[7t..7t+6]. */
static const char ldmatrix_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry ldm(.param .u64 in, .param .u64 out)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<8>;\n"
    "  .shared .align 16 .b8 tile[1024];\n"
    "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r0, %tid.x;\n  mov.u32 %r1, %r0;\n  mov.u32 %r4, tile;\n"
    "LOOP:\n"
    "  mul.wide.u32 %rd3, %r1, 4;\n  add.s64 %rd4, %rd1, %rd3;\n  ld.global.u32 %r2, [%rd4];\n"
    "  shl.b32 %r3, %r1, 2;\n  add.s32 %r5, %r4, %r3;\n  st.shared.u32 [%r5], %r2;\n"
    "  add.s32 %r1, %r1, 32;\n  setp.lt.u32 %p0, %r1, 256;\n  @%p0 bra LOOP;\n"
    "  bar.sync 0;\n"
    "  shl.b32 %r6, %r0, 5;\n  add.s32 %r7, %r4, %r6;\n"
    "  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r10, %r11, %r12, %r13}, [%r7+16];\n"
    "  ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%r14}, [%r7];\n"
    "  ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r15, %r16}, [%r7];\n"
    "  mul.wide.u32 %rd5, %r0, 28;\n  add.s64 %rd6, %rd2, %rd5;\n"
    "  st.global.u32 [%rd6], %r10;\n  st.global.u32 [%rd6+4], %r11;\n  st.global.u32 [%rd6+8], %r12;\n"
    "  st.global.u32 [%rd6+12], %r13;\n  st.global.u32 [%rd6+16], %r14;\n  st.global.u32 [%rd6+20], %r15;\n"
    "  st.global.u32 [%rd6+24], %r16;\n  ret;\n}\n";

/* Element (r, c) of matrix i read from column `col` on: rows 8i..8i+7. */
static uint32_t tile_half(const uint16_t *h, unsigned i, unsigned r, unsigned c, unsigned col) {
  return h[(8 * i + r) * 16 + col + c];
}

/* The PTX ISA's fragments: without .trans lane t holds row t/4, columns
 * 2(t%4) and 2(t%4) + 1; with .trans column t/4, rows 2(t%4) and
 * 2(t%4) + 1; the first element in the low half. */
static uint32_t fragment(const uint16_t *h, unsigned i, unsigned t, unsigned col, bool trans) {
  unsigned a = t / 4, b = 2 * (t % 4);
  if (trans) return tile_half(h, i, b, a, col) | tile_half(h, i, b + 1, a, col) << 16;
  return tile_half(h, i, a, b, col) | tile_half(h, i, a, b + 1, col) << 16;
}

Test(ptx, ldmatrix_fragments_with_and_without_trans) {
  static uint16_t h[512];
  for (unsigned j = 0; j < 512; j++) h[j] = (uint16_t)(j * 37 + 11);
  for (int mode = 0; mode < 2; mode++) {
    run r;
    start(&r, ldmatrix_ptx, "ldm");
    ws_device_set_checks(r.dev, mode ? 0 : WS_CHECK_ALL);
    buf(&r, "in", sizeof h, h);
    uint32_t got[32 * 7];
    uint64_t o = buf(&r, "out", sizeof got, NULL);
    launch(&r, 1, 32, mode ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
    read_back(&r, got, o, sizeof got);
    for (unsigned t = 0; t < 32; t++) {
      uint32_t want[7] = {fragment(h, 0, t, 8, true), fragment(h, 1, t, 8, true), fragment(h, 2, t, 8, true),
                          fragment(h, 3, t, 8, true), fragment(h, 0, t, 0, true), fragment(h, 0, t, 0, false),
                          fragment(h, 1, t, 0, false)};
      for (unsigned k = 0; k < 7; k++)
        cr_assert_eq(got[7 * t + k], want[k], "mode %d lane %u register %u = 0x%08x, expected 0x%08x", mode,
                     t, k, got[7 * t + k], want[k]);
    }
    stop(&r);
  }
}

/* ---- more predicates than the ISA has ------------------------------------------------ */

/* Twelve predicates set from the thread index, all live until a chain of
 * selects adds bit k for each that holds: the translator keeps the ones
 * that do not fit in P0..P6 in registers, and the sum is the index's low
 * twelve bits whatever it does. */
static char *many_preds_ptx(void) {
  enum { NP = 12 };
  size_t cap = 8192;
  char *s = malloc(cap);
  size_t at = (size_t)snprintf(s, cap,
                               ".version 7.0\n.target sm_80\n.address_size 64\n"
                               ".visible .entry preds(.param .u64 out)\n{\n  .reg .pred %%p<%d>;\n"
                               "  .reg .b32 %%r<%d>;\n  .reg .b64 %%rd<4>;\n"
                               "  mov.u32 %%r0, %%tid.x;\n",
                               NP, 3 * NP + 4);
  for (int k = 0; k < NP; k++)
    at += (size_t)snprintf(s + at, cap - at, "  and.b32 %%r%d, %%r0, %d;\n  setp.ne.s32 %%p%d, %%r%d, 0;\n",
                           k + 1, 1 << k, k, k + 1);
  at += (size_t)snprintf(s + at, cap - at, "  mov.u32 %%r%d, 0;\n", NP + 1);
  for (int k = 0; k < NP; k++)
    at += (size_t)snprintf(s + at, cap - at,
                           "  selp.b32 %%r%d, %d, 0, %%p%d;\n  add.s32 %%r%d, %%r%d, %%r%d;\n", NP + 2 + k,
                           1 << k, k, NP + 1, NP + 1, NP + 2 + k);
  snprintf(s + at, cap - at,
           "  ld.param.u64 %%rd1, [out];\n  cvta.to.global.u64 %%rd1, %%rd1;\n"
           "  mul.wide.u32 %%rd2, %%r0, 4;\n  add.s64 %%rd3, %%rd1, %%rd2;\n  st.global.u32 [%%rd3], %%r%d;\n"
           "  ret;\n}\n",
           NP + 1);
  return s;
}

Test(ptx, predicates_beyond_seven_are_kept_in_registers) {
  char *s = many_preds_ptx();
  for (int mode = 0; mode < 2; mode++) {
    run r;
    start(&r, s, "preds");
    static uint32_t got[1024];
    uint64_t d = buf(&r, "out", sizeof got, NULL);
    launch(&r, 1, 1024, mode ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
    read_back(&r, got, d, sizeof got);
    for (uint32_t i = 0; i < 1024; i++) cr_assert_eq(got[i], i & 0xFFFu, "thread %u: %u", i, got[i]);
    cr_expect(strstr(r.res.wsa, "ISETP.NE.U32"), "no predicate was read back from a register:\n%s",
              r.res.wsa);
    stop(&r);
  }
  free(s);
}

/* ---- local arrays ---------------------------------------------------------------------- */

/* clang's output for tests/ptx/data/local_array.cu: a 16-float array per
 * thread in local memory, read back at a data-dependent index; with 6
 * registers the spills share the local window, after the array. */
Test(ptx, a_local_array_indexed_by_data_reads_back_per_thread) {
  enum { N = 64 };
  static int32_t idx[N];
  static float got[N];
  for (int i = 0; i < N; i++) idx[i] = (i * 7) % 23;
  size_t n = 0;
  char *ptx = slurp("tests/ptx/data/local_array.ptx", &n);
  for (int variant = 0; variant < 4; variant++) {
    run r;
    memset(&r, 0, sizeof r);
    r.ctx = ws_ctx_create();
    ws_ptx_opts opts = {.max_regs = variant >= 2 ? 6 : 0};
    cr_assert_eq(ws_ptx_translate(r.ctx, ptx, n, "local_array.ptx", &opts, &r.res), WS_OK, "%s",
                 ws_errmsg(r.ctx));
    const ws_ptx_kernel_info *ki = &r.res.kernels[0];
    cr_expect_eq(ki->local_bytes - ki->spill_bytes, 64, "the array: %u bytes",
                 ki->local_bytes - ki->spill_bytes);
    if (variant >= 2) cr_expect_gt(ki->spill_bytes, 0);
    r.k = &r.res.prog->kernels[0];
    ws_gpu_cfg cfg = ws_config_default();
    cr_assert_eq(ws_device_create(r.ctx, &cfg, &r.dev), WS_OK);
    ws_args_init(&r.args, r.k);
    buf(&r, "param_0", sizeof idx, idx);
    uint64_t d = buf(&r, "param_1", sizeof got, NULL);
    launch(&r, 1, N, variant % 2 ? WS_MODE_TIMING : WS_MODE_FUNCTIONAL);
    read_back(&r, got, d, sizeof got);
    for (int t = 0; t < N; t++)
      cr_assert_eq(got[t], (float)(idx[t] & 15) * 0.5f + (float)t, "variant %d thread %d: %g", variant, t,
                   got[t]);
    stop(&r);
  }
  free(ptx);
}

/* ---- __constant__ tables ------------------------------------------------------------------ */

/* Initialized .const variables are laid out from offset 0 of the constant
 * bank at their alignment, their bytes handed over for the launch; a load
 * of one is an LDC at its offset. */
Test(ptx, initialized_constants_come_back_from_the_constant_bank) {
  static const char src[] =
      ".version 7.0\n.target sm_80\n.address_size 64\n"
      ".const .align 4 .u32 n = 7;\n"
      ".const .align 16 .f32 coef[4] = {0f3F000000, 0f40000000, 0fBF800000, 0f40400000};\n"
      ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<4>;\n  .reg .f32 %f<4>;\n  .reg .b64 %rd<6>;\n"
      "  mov.u32 %r1, %tid.x;\n  and.b32 %r2, %r1, 3;\n  mul.wide.u32 %rd1, %r2, 4;\n"
      "  mov.u64 %rd2, coef;\n  add.s64 %rd3, %rd2, %rd1;\n  ld.const.f32 %f1, [%rd3];\n"
      "  ld.const.u32 %r3, [n];\n  cvt.rn.f32.u32 %f2, %r3;\n  add.f32 %f3, %f1, %f2;\n"
      "  ld.param.u64 %rd4, [out];\n  cvta.to.global.u64 %rd4, %rd4;\n  mul.wide.u32 %rd5, %r1, 4;\n"
      "  add.s64 %rd4, %rd4, %rd5;\n  st.global.f32 [%rd4], %f3;\n  ret;\n}\n";
  run r;
  start(&r, src, "k");
  cr_assert_eq(r.res.const_bytes, 32, "n at 0, coef at 16: %u bytes", r.res.const_bytes);
  cr_assert_eq(ws_device_const_write(r.dev, 0, r.res.const_image, r.res.const_bytes), WS_OK);
  static float got[8];
  uint64_t d = buf(&r, "out", sizeof got, NULL);
  launch(&r, 1, 8, WS_MODE_TIMING);
  read_back(&r, got, d, sizeof got);
  const float coef[4] = {0.5f, 2.0f, -1.0f, 3.0f};
  for (int t = 0; t < 8; t++) cr_expect_eq(got[t], coef[t % 4] + 7.0f, "thread %d: %g", t, got[t]);
  cr_expect(strstr(r.res.wsa, "LDC.32"), "%s", r.res.wsa);
  stop(&r);
}
