/* nngen.c - emitters and run helpers for the non-attention TinyViT32 kernels.
 *
 * Design: every shape (rows, columns, element count, image size) is a kernel
 * parameter and every loop over a dimension is a runtime loop, so the text
 * does not change with the model size; the emitters only fix the CTA shape.
 * Row kernels give each row to one warp: lanes stride the row by 32 and
 * combine with a butterfly shuffle tree (SHFL.BFLY), which leaves the total in
 * every lane, so no shared memory or barrier is needed. Transcendentals go
 * through the SFU: e^x as MUFU.EX2 of x*log2(e), 1/sqrt as MUFU.RSQ,
 * division as MUFU.RCP. The ISA has no integer divide, so the patch kernel
 * maps patch coordinates onto the grid and block indices instead of
 * dividing a flat index. */
#include "models/nngen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"

#define LOG2E_TEXT "1.44269504" /* log2(e) rounded to binary32 by the assembler */
#define NEG_LOG2E_TEXT "-1.44269504"
#define NEG_INF_TEXT "0fFF800000" /* -inf as an exact bit pattern */

/* ---- text builder ----------------------------------------------------------- */

void ws_nngen_text_init(ws_nngen_text *t) { memset(t, 0, sizeof *t); }

static bool text_reserve(ws_nngen_text *t, size_t more_bytes) {
  if (t->len_bytes + more_bytes + 1 <= t->cap_bytes) return true;
  size_t cap = t->cap_bytes ? t->cap_bytes : 4096;
  while (cap < t->len_bytes + more_bytes + 1) cap *= 2;
  char *p = realloc(t->buf, cap);
  if (!p) return false;
  t->buf = p;
  t->cap_bytes = cap;
  return true;
}

void ws_nngen_text_add(ws_nngen_text *t, const char *fmt, ...) {
  if (t->failed) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || !text_reserve(t, (size_t)n)) {
    t->failed = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(t->buf + t->len_bytes, (size_t)n + 1, fmt, ap);
  va_end(ap);
  t->len_bytes += (size_t)n;
}

void ws_nngen_text_free(ws_nngen_text *t) {
  free(t->buf);
  ws_nngen_text_init(t);
}

ws_status ws_nngen_text_take(ws_ctx *ctx, ws_nngen_text *t, char **out) {
  *out = NULL;
  if (t->failed || !t->buf) {
    ws_nngen_text_free(t);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of host memory generating kernel text");
  }
  *out = t->buf;
  ws_nngen_text_init(t);
  return WS_OK;
}

/* ---- assemble and launch ----------------------------------------------------------- */

ws_status ws_nngen_kernel_build(ws_ctx *ctx, const char *src, const char *filename,
                                ws_nngen_kernel *out) {
  memset(out, 0, sizeof *out);
  ws_status st = ws_asm_parse(ctx, src, strlen(src), filename, &out->prog);
  if (st != WS_OK) return st;
  out->kernel = &out->prog->kernels[0];
  ws_args_init(&out->args, out->kernel);
  return WS_OK;
}

void ws_nngen_kernel_release(ws_nngen_kernel *k) {
  if (!k) return;
  ws_program_destroy(k->prog);
  k->prog = NULL;
  k->kernel = NULL;
}

ws_status ws_nngen_kernel_u32(ws_ctx *ctx, ws_nngen_kernel *k, const char *name, uint32_t v) {
  return ws_args_set_u32(ctx, &k->args, name, v);
}

ws_status ws_nngen_kernel_f32(ws_ctx *ctx, ws_nngen_kernel *k, const char *name, float v) {
  return ws_args_set_f32(ctx, &k->args, name, v);
}

ws_status ws_nngen_kernel_ptr(ws_ctx *ctx, ws_nngen_kernel *k, const char *name, uint64_t dptr) {
  return ws_args_set_ptr(ctx, &k->args, name, dptr);
}

ws_status ws_nngen_kernel_launch(ws_device *dev, ws_nngen_kernel *k, ws_dim3 grid, ws_dim3 block,
                                 ws_launch_stats *stats) {
  return ws_device_launch(dev, k->kernel, grid, block, 0, &k->args, stats);
}

/* ---- emitter pieces ------------------------------------------------------------------ */

static ws_status check_warps(ws_ctx *ctx, uint32_t warps_per_cta) {
  if (warps_per_cta >= 1 && warps_per_cta <= 32) return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "warps per CTA must be 1..32, got %u", warps_per_cta);
}

static ws_status check_threads(ws_ctx *ctx, uint32_t threads_per_cta) {
  if (threads_per_cta >= 32 && threads_per_cta <= 1024 && threads_per_cta % 32 == 0) return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "threads per CTA must be a multiple of 32 in 32..1024, got %u",
                     threads_per_cta);
}

/* Butterfly tree: after five steps every lane holds op over all 32 lanes. */
static void emit_warp_allreduce(ws_nngen_text *t, const char *op, int acc, int tmp) {
  ws_nngen_text_add(t, "    // butterfly over the warp (%s): every lane ends with the total\n", op);
  for (int step = 16; step >= 1; step /= 2) {
    ws_nngen_text_add(t, "    SHFL.BFLY R%d, R%d, %d\n", tmp, acc, step);
    ws_nngen_text_add(t, "    %s R%d, R%d, R%d\n", op, acc, acc, tmp);
  }
}

/* Row kernels: R2 = this warp's row (warps past the last row leave),
 * R4 = lane, R5 = cols, R8 = row * cols. */
static void emit_row_prologue(ws_nngen_text *t, uint32_t warps_per_cta) {
  ws_nngen_text_add(t,
                    "    // one warp per row: row = ctaid * %u + warp\n"
                    "    S2R R0, SR_CTAID.X\n"
                    "    S2R R1, SR_WARPID\n"
                    "    IMAD R2, R0, %u, R1\n"
                    "    LDP.32 R3, [rows]\n"
                    "    ISETP.GE.U32 P0, R2, R3\n"
                    "@P0 EXIT                             // whole warps past the last row leave\n"
                    "    S2R R4, SR_LANEID\n"
                    "    LDP.32 R5, [cols]\n"
                    "    IMUL R8, R2, R5                  // index of the row's first element\n",
                    warps_per_cta, warps_per_cta);
}

/* A lane loop over the row's columns col = lane, lane+32, ... in R18; lanes
 * of a row whose length is not a multiple of 32 leave a trip early and wait
 * at the loop's exit for the others. */
static void emit_col_loop_head(ws_nngen_text *t, const char *name) {
  ws_nngen_text_add(t,
                    "    MOV R18, R4                      // col = lane\n"
                    "%s:\n"
                    "    ISETP.GE.U32 P1, R18, R5\n"
                    "@P1 BRA %s_done\n",
                    name, name);
}

static void emit_col_loop_tail(ws_nngen_text *t, const char *name) {
  ws_nngen_text_add(t,
                    "    IADD R18, R18, 32\n"
                    "    BRA %s\n"
                    "%s_done:\n",
                    name, name);
}

/* R22 = x[row][col] (+ a[row][col] when fused); x row base in R10, a in R14. */
static void emit_load_input(ws_nngen_text *t, bool fused_add) {
  ws_nngen_text_add(t, "    IMAD.WIDE.U32 R20, R18, 4, R10\n"
                       "    LDG.32 R22, [R20]\n");
  if (fused_add)
    ws_nngen_text_add(
        t, "    IMAD.WIDE.U32 R24, R18, 4, R14\n"
           "    LDG.32 R23, [R24]\n"
           "    FADD R22, R22, R23               // v = x + a, recomputed in every pass\n");
}

/* ---- LayerNorm --------------------------------------------------------------------- */

static void emit_ln_header(ws_nngen_text *t, bool fused, uint32_t warps) {
  ws_nngen_text_add(
      t,
      "// %s.wsa - y = LayerNorm(%s) * w + b over each row of [rows, cols], fp32.\n"
      "// One warp per row (%u warps per CTA): lanes stride the row by 32 and a\n"
      "// butterfly shuffle tree leaves each sum in every lane. Two-pass statistics\n"
      "// (mean, then the mean of squared deviations: the biased variance), eps = 1e-5,\n"
      "// 1/sqrt on the SFU (MUFU.RSQ). Launch: block %u, grid ceil(rows / %u).\n"
      ".kernel %s\n"
      ".param .ptr x\n",
      fused ? "add_layernorm" : "layernorm", fused ? "x + a" : "x", warps, warps * 32, warps,
      fused ? "add_layernorm" : "layernorm");
  if (fused) ws_nngen_text_add(t, ".param .ptr a\n");
  ws_nngen_text_add(t, ".param .ptr w\n"
                       ".param .ptr b\n"
                       ".param .ptr y\n"
                       ".param .u32 rows\n"
                       ".param .u32 cols\n");
}

static void emit_ln_bases(ws_nngen_text *t, bool fused) {
  ws_nngen_text_add(t, "    LDP.64 R6, [x]\n"
                       "    IMAD.WIDE.U32 R10, R8, 4, R6     // &x[row][0]\n");
  if (fused)
    ws_nngen_text_add(t, "    LDP.64 R12, [a]\n"
                         "    IMAD.WIDE.U32 R14, R8, 4, R12    // &a[row][0]\n");
  ws_nngen_text_add(t, "    I2F.U32 R16, R5\n"
                       "    MUFU.RCP R16, R16                // 1/cols\n");
}

static void emit_ln_stats(ws_nngen_text *t, bool fused) {
  ws_nngen_text_add(t, "    // pass 1: mean\n    MOV R17, 0\n");
  emit_col_loop_head(t, "mean_loop");
  emit_load_input(t, fused);
  ws_nngen_text_add(t, "    FADD R17, R17, R22\n");
  emit_col_loop_tail(t, "mean_loop");
  emit_warp_allreduce(t, "FADD", 17, 19);
  ws_nngen_text_add(t, "    FMUL R26, R17, R16               // mean\n"
                       "    // pass 2: biased variance = mean of (v - mean)^2\n"
                       "    MOV R17, 0\n");
  emit_col_loop_head(t, "var_loop");
  emit_load_input(t, fused);
  ws_nngen_text_add(t, "    FADD R22, R22, -R26\n"
                       "    FFMA R17, R22, R22, R17\n");
  emit_col_loop_tail(t, "var_loop");
  emit_warp_allreduce(t, "FADD", 17, 19);
  ws_nngen_text_add(t, "    FFMA R27, R17, R16, 1e-05        // var + eps\n"
                       "    MUFU.RSQ R27, R27                // rstd = 1/sqrt(var + eps)\n");
}

static void emit_ln_output(ws_nngen_text *t, bool fused) {
  ws_nngen_text_add(t, "    // pass 3: y = (v - mean) * rstd * w + b\n"
                       "    LDP.64 R28, [w]\n"
                       "    LDP.64 R30, [b]\n"
                       "    LDP.64 R32, [y]\n"
                       "    IMAD.WIDE.U32 R34, R8, 4, R32    // &y[row][0]\n");
  emit_col_loop_head(t, "out_loop");
  emit_load_input(t, fused);
  ws_nngen_text_add(t, "    IMAD.WIDE.U32 R36, R18, 4, R28\n"
                       "    LDG.32 R38, [R36]                // w[col]\n"
                       "    IMAD.WIDE.U32 R36, R18, 4, R30\n"
                       "    LDG.32 R39, [R36]                // b[col]\n"
                       "    FADD R22, R22, -R26\n"
                       "    FMUL R22, R22, R27\n"
                       "    FFMA R22, R22, R38, R39\n"
                       "    IMAD.WIDE.U32 R36, R18, 4, R34\n"
                       "    STG.32 [R36], R22\n");
  emit_col_loop_tail(t, "out_loop");
  ws_nngen_text_add(t, "    EXIT\n");
}

ws_status ws_nngen_layernorm_source(ws_ctx *ctx, ws_nngen_norm kind, uint32_t warps_per_cta,
                                    char **out) {
  *out = NULL;
  if ((unsigned)kind >= WS_NNGEN_NORM_COUNT)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown LayerNorm kind %d", (int)kind);
  ws_status st = check_warps(ctx, warps_per_cta);
  if (st != WS_OK) return st;
  bool fused = kind == WS_NNGEN_NORM_ADD;
  ws_nngen_text t;
  ws_nngen_text_init(&t);
  emit_ln_header(&t, fused, warps_per_cta);
  emit_row_prologue(&t, warps_per_cta);
  emit_ln_bases(&t, fused);
  emit_ln_stats(&t, fused);
  emit_ln_output(&t, fused);
  return ws_nngen_text_take(ctx, &t, out);
}

/* ---- softmax ------------------------------------------------------------------------- */

ws_status ws_nngen_softmax_source(ws_ctx *ctx, uint32_t warps_per_cta, char **out) {
  *out = NULL;
  ws_status st = check_warps(ctx, warps_per_cta);
  if (st != WS_OK) return st;
  ws_nngen_text t;
  ws_nngen_text_init(&t);
  ws_nngen_text_add(
      &t,
      "// softmax.wsa - y = softmax of each row of x [rows, cols], fp32, max-subtracted.\n"
      "// One warp per row (%u warps per CTA), butterfly shuffle reductions for the\n"
      "// max and the sum; e^(v - max) = 2^(v*log2e - max*log2e) on MUFU.EX2, and one\n"
      "// MUFU.RCP of the sum. Launch: block %u, grid ceil(rows / %u). y may alias x.\n"
      ".kernel softmax_rows\n"
      ".param .ptr x\n"
      ".param .ptr y\n"
      ".param .u32 rows\n"
      ".param .u32 cols\n",
      warps_per_cta, warps_per_cta * 32, warps_per_cta);
  emit_row_prologue(&t, warps_per_cta);
  ws_nngen_text_add(&t, "    LDP.64 R6, [x]\n"
                        "    IMAD.WIDE.U32 R10, R8, 4, R6     // &x[row][0]\n"
                        "    // pass 1: row max\n"
                        "    MOV R17, " NEG_INF_TEXT "           // -inf\n");
  emit_col_loop_head(&t, "max_loop");
  emit_load_input(&t, false);
  ws_nngen_text_add(&t, "    FMAX R17, R17, R22\n");
  emit_col_loop_tail(&t, "max_loop");
  emit_warp_allreduce(&t, "FMAX", 17, 19);
  ws_nngen_text_add(&t, "    FMUL R26, R17, " LOG2E_TEXT "       // max * log2(e)\n"
                        "    // pass 2: sum of e^(v - max)\n"
                        "    MOV R17, 0\n");
  emit_col_loop_head(&t, "sum_loop");
  emit_load_input(&t, false);
  ws_nngen_text_add(&t, "    FFMA R22, R22, " LOG2E_TEXT ", -R26\n"
                        "    MUFU.EX2 R22, R22\n"
                        "    FADD R17, R17, R22\n");
  emit_col_loop_tail(&t, "sum_loop");
  emit_warp_allreduce(&t, "FADD", 17, 19);
  ws_nngen_text_add(&t, "    MUFU.RCP R27, R17                // 1 / sum\n"
                        "    // pass 3: y = e^(v - max) / sum\n"
                        "    LDP.64 R32, [y]\n"
                        "    IMAD.WIDE.U32 R34, R8, 4, R32    // &y[row][0]\n");
  emit_col_loop_head(&t, "out_loop");
  emit_load_input(&t, false);
  ws_nngen_text_add(&t, "    FFMA R22, R22, " LOG2E_TEXT ", -R26\n"
                        "    MUFU.EX2 R22, R22\n"
                        "    FMUL R22, R22, R27\n"
                        "    IMAD.WIDE.U32 R36, R18, 4, R34\n"
                        "    STG.32 [R36], R22\n");
  emit_col_loop_tail(&t, "out_loop");
  ws_nngen_text_add(&t, "    EXIT\n");
  return ws_nngen_text_take(ctx, &t, out);
}

/* ---- elementwise ------------------------------------------------------------------------ */

/* R2 = global element index (threads past n leave), R3 = n. */
static void emit_elem_prologue(ws_nngen_text *t, uint32_t threads) {
  ws_nngen_text_add(t,
                    "    // one thread per element: i = ctaid.x * %u + tid\n"
                    "    S2R R0, SR_CTAID.X\n"
                    "    S2R R1, SR_TID.X\n"
                    "    IMAD R2, R0, %u, R1\n"
                    "    LDP.32 R3, [n]\n"
                    "    ISETP.GE.U32 P0, R2, R3\n"
                    "@P0 EXIT                             // threads past the end leave\n",
                    threads, threads);
}

ws_status ws_nngen_gelu_source(ws_ctx *ctx, uint32_t threads_per_cta, char **out) {
  *out = NULL;
  ws_status st = check_threads(ctx, threads_per_cta);
  if (st != WS_OK) return st;
  ws_nngen_text t;
  ws_nngen_text_init(&t);
  ws_nngen_text_add(
      &t,
      "// gelu.wsa - y = GELU(x), tanh form 0.5x(1 + tanh(u)), u = sqrt(2/pi)(x + 0.044715x^3).\n"
      "// Since 0.5(1 + tanh(u)) = 1/(1 + e^(-2u)), the kernel computes\n"
      "// y = x * rcp(1 + 2^(-2u*log2e)): one MUFU.EX2 and one MUFU.RCP, and no\n"
      "// cancellation near x = 0. Saturates correctly: e^(-2u) -> inf gives y -> 0.\n"
      "// Launch: block %u, grid ceil(n / %u). y may alias x.\n"
      ".kernel gelu\n"
      ".param .ptr x\n"
      ".param .ptr y\n"
      ".param .u32 n\n",
      threads_per_cta, threads_per_cta);
  emit_elem_prologue(&t, threads_per_cta);
  ws_nngen_text_add(&t, "    LDP.64 R4, [x]\n"
                        "    LDP.64 R6, [y]\n"
                        "    IMAD.WIDE.U32 R8, R2, 4, R4\n"
                        "    LDG.32 R10, [R8]                 // x\n"
                        "    FMUL R11, R10, R10\n"
                        "    FMUL R11, R11, R10               // x^3\n"
                        "    FFMA R11, R11, 0.044715, R10     // x + 0.044715x^3\n"
                        "    FMUL R11, R11, -2.30220819       // -2u*log2e: -2*sqrt(2/pi)*log2(e)\n"
                        "    MUFU.EX2 R11, R11                // e^(-2u)\n"
                        "    FADD R11, R11, 1\n"
                        "    MUFU.RCP R11, R11                // 0.5(1 + tanh(u))\n"
                        "    FMUL R10, R10, R11\n"
                        "    IMAD.WIDE.U32 R12, R2, 4, R6\n"
                        "    STG.32 [R12], R10\n"
                        "    EXIT\n");
  return ws_nngen_text_take(ctx, &t, out);
}

ws_status ws_nngen_add_source(ws_ctx *ctx, uint32_t threads_per_cta, char **out) {
  *out = NULL;
  ws_status st = check_threads(ctx, threads_per_cta);
  if (st != WS_OK) return st;
  ws_nngen_text t;
  ws_nngen_text_init(&t);
  ws_nngen_text_add(&t,
                    "// add.wsa - residual add y = x + a over n floats, one thread per element.\n"
                    "// Launch: block %u, grid ceil(n / %u). y may alias x or a.\n"
                    ".kernel residual_add\n"
                    ".param .ptr x\n"
                    ".param .ptr a\n"
                    ".param .ptr y\n"
                    ".param .u32 n\n",
                    threads_per_cta, threads_per_cta);
  emit_elem_prologue(&t, threads_per_cta);
  ws_nngen_text_add(&t, "    LDP.64 R4, [x]\n"
                        "    LDP.64 R6, [a]\n"
                        "    LDP.64 R8, [y]\n"
                        "    IMAD.WIDE.U32 R10, R2, 4, R4\n"
                        "    IMAD.WIDE.U32 R12, R2, 4, R6\n"
                        "    LDG.32 R14, [R10]\n"
                        "    LDG.32 R15, [R12]\n"
                        "    FADD R14, R14, R15\n"
                        "    IMAD.WIDE.U32 R16, R2, 4, R8\n"
                        "    STG.32 [R16], R14\n"
                        "    EXIT\n");
  return ws_nngen_text_take(ctx, &t, out);
}

ws_status ws_nngen_add_pos_source(ws_ctx *ctx, uint32_t threads_per_cta, char **out) {
  *out = NULL;
  ws_status st = check_threads(ctx, threads_per_cta);
  if (st != WS_OK) return st;
  ws_nngen_text t;
  ws_nngen_text_init(&t);
  ws_nngen_text_add(
      &t,
      "// add_pos.wsa - y[b][i] = x[b][i] + pos[i]: learned positions [tokens, dim] (n =\n"
      "// tokens*dim floats) added to every [tokens, dim] block of a batch. grid.y is the\n"
      "// batch index, so the broadcast needs no integer division.\n"
      "// Launch: block %u, grid (ceil(n / %u), batch). y may alias x.\n"
      ".kernel add_positions\n"
      ".param .ptr x\n"
      ".param .ptr pos\n"
      ".param .ptr y\n"
      ".param .u32 n\n",
      threads_per_cta, threads_per_cta);
  emit_elem_prologue(&t, threads_per_cta);
  ws_nngen_text_add(&t, "    S2R R18, SR_CTAID.Y              // which block of the batch\n"
                        "    IMAD R19, R18, R3, R2            // element index in x and y\n"
                        "    LDP.64 R4, [x]\n"
                        "    LDP.64 R6, [pos]\n"
                        "    LDP.64 R8, [y]\n"
                        "    IMAD.WIDE.U32 R10, R19, 4, R4\n"
                        "    IMAD.WIDE.U32 R12, R2, 4, R6\n"
                        "    LDG.32 R14, [R10]\n"
                        "    LDG.32 R15, [R12]\n"
                        "    FADD R14, R14, R15\n"
                        "    IMAD.WIDE.U32 R16, R19, 4, R8\n"
                        "    STG.32 [R16], R14\n"
                        "    EXIT\n");
  return ws_nngen_text_take(ctx, &t, out);
}

ws_status ws_nngen_meanpool_source(ws_ctx *ctx, uint32_t threads_per_cta, char **out) {
  *out = NULL;
  ws_status st = check_threads(ctx, threads_per_cta);
  if (st != WS_OK) return st;
  ws_nngen_text t;
  ws_nngen_text_init(&t);
  ws_nngen_text_add(
      &t,
      "// meanpool.wsa - y[d] = (1/tokens) * sum over t of x[t][d], x [tokens, dim].\n"
      "// One thread per column: a warp reads 32 consecutive floats of one row per\n"
      "// step, so every load is coalesced. Launch: block %u, grid ceil(dim / %u).\n"
      ".kernel meanpool\n"
      ".param .ptr x\n"
      ".param .ptr y\n"
      ".param .u32 tokens\n"
      ".param .u32 n                       // dim: the columns\n",
      threads_per_cta, threads_per_cta);
  emit_elem_prologue(&t, threads_per_cta);
  ws_nngen_text_add(&t, "    LDP.32 R4, [tokens]\n"
                        "    LDP.64 R6, [x]\n"
                        "    IMAD.WIDE.U32 R8, R2, 4, R6      // &x[0][d]\n"
                        "    MOV R10, 0                       // sum\n"
                        "    MOV R11, 0                       // t\n"
                        "// eight rows at a time: their loads are in flight together, so the\n"
                        "// loop waits one memory latency per eight rows, not per row\n"
                        "oct_loop:\n"
                        "    IADD R19, R11, 8\n"
                        "    ISETP.GT.U32 P1, R19, R4         // fewer than eight rows left\n"
                        "@P1 BRA tok_loop\n");
  for (int i = 0; i < 8; i++)
    ws_nngen_text_add(&t, "    LDG.32 R%d, [R8]\n"
                          "    IMAD.WIDE.U32 R8, R3, 4, R8      // next row: += dim * 4 bytes\n", 20 + i);
  ws_nngen_text_add(&t, "// added in row order: the same sum as one row at a time\n");
  for (int i = 0; i < 8; i++) ws_nngen_text_add(&t, "    FADD R10, R10, R%d\n", 20 + i);
  ws_nngen_text_add(&t, "    MOV R11, R19\n"
                        "    BRA oct_loop\n"
                        "// the rows left over, one at a time\n"
                        "tok_loop:\n"
                        "    ISETP.GE.U32 P1, R11, R4\n"
                        "@P1 BRA tok_done\n"
                        "    LDG.32 R12, [R8]\n"
                        "    FADD R10, R10, R12\n"
                        "    IMAD.WIDE.U32 R8, R3, 4, R8      // next row: += dim * 4 bytes\n"
                        "    IADD R11, R11, 1\n"
                        "    BRA tok_loop\n"
                        "tok_done:\n"
                        "    I2F.U32 R13, R4\n"
                        "    MUFU.RCP R13, R13                // 1/tokens\n"
                        "    FMUL R10, R10, R13\n"
                        "    LDP.64 R14, [y]\n"
                        "    IMAD.WIDE.U32 R16, R2, 4, R14\n"
                        "    STG.32 [R16], R10\n"
                        "    EXIT\n");
  return ws_nngen_text_take(ctx, &t, out);
}

ws_status ws_nngen_head_source(ws_ctx *ctx, char **out) {
  *out = NULL;
  ws_nngen_text t;
  ws_nngen_text_init(&t);
  ws_nngen_text_add(
      &t, "// head.wsa - the classifier head: logit = p . w + b, prob = sigmoid(logit)\n"
          "// = 1/(1 + 2^(-logit*log2e)), for each pooled vector p (one row of [rows, dim]).\n"
          "// One warp per row: lanes stride the dot product by 32, a shuffle tree sums,\n"
          "// lane 0 writes both results. Launch: block 32, grid rows.\n"
          ".kernel head_sigmoid\n"
          ".param .ptr pooled\n"
          ".param .ptr w\n"
          ".param .ptr b\n"
          ".param .ptr logit\n"
          ".param .ptr prob\n"
          ".param .u32 cols\n"
          "    S2R R2, SR_CTAID.X               // row\n"
          "    S2R R4, SR_LANEID\n"
          "    LDP.32 R5, [cols]\n"
          "    IMUL R8, R2, R5\n"
          "    LDP.64 R6, [pooled]\n"
          "    IMAD.WIDE.U32 R10, R8, 4, R6     // &pooled[row][0]\n"
          "    LDP.64 R14, [w]\n"
          "    MOV R17, 0                       // this lane's partial dot product\n");
  emit_col_loop_head(&t, "dot_loop");
  ws_nngen_text_add(&t, "    IMAD.WIDE.U32 R20, R18, 4, R10\n"
                        "    LDG.32 R22, [R20]\n"
                        "    IMAD.WIDE.U32 R24, R18, 4, R14\n"
                        "    LDG.32 R23, [R24]\n"
                        "    FFMA R17, R22, R23, R17\n");
  emit_col_loop_tail(&t, "dot_loop");
  emit_warp_allreduce(&t, "FADD", 17, 19);
  ws_nngen_text_add(&t, "    ISETP.NE.U32 P2, R4, 0\n"
                        "@P2 EXIT                             // lane 0 writes\n"
                        "    LDP.64 R26, [b]\n"
                        "    LDG.32 R28, [R26]\n"
                        "    FADD R17, R17, R28               // logit\n"
                        "    FMUL R29, R17, " NEG_LOG2E_TEXT "      // -logit * log2(e)\n"
                        "    MUFU.EX2 R29, R29\n"
                        "    FADD R29, R29, 1\n"
                        "    MUFU.RCP R29, R29                // sigmoid(logit)\n"
                        "    LDP.64 R30, [logit]\n"
                        "    IMAD.WIDE.U32 R32, R2, 4, R30\n"
                        "    STG.32 [R32], R17\n"
                        "    LDP.64 R30, [prob]\n"
                        "    IMAD.WIDE.U32 R32, R2, 4, R30\n"
                        "    STG.32 [R32], R29\n"
                        "    EXIT\n");
  return ws_nngen_text_take(ctx, &t, out);
}

ws_status ws_nngen_patch_source(ws_ctx *ctx, char **out) {
  *out = NULL;
  ws_nngen_text t;
  ws_nngen_text_init(&t);
  ws_nngen_text_add(
      &t, "// patch.wsa - image CHW [C, height, width] -> patches [tokens, C*P*P]: token\n"
          "// t = py*(width/P) + px, each row ordered (c, ky, kx). The patch geometry is the\n"
          "// launch geometry: block (P, P, C) = (kx, ky, c), grid (width/P, height/P) =\n"
          "// (px, py), so no index needs an integer division. One thread copies one value.\n"
          ".kernel patch_extract\n"
          ".param .ptr image\n"
          ".param .ptr patches\n"
          ".param .u32 height\n"
          ".param .u32 width\n"
          "    S2R R0, SR_TID.X                 // kx\n"
          "    S2R R1, SR_TID.Y                 // ky\n"
          "    S2R R2, SR_TID.Z                 // c\n"
          "    S2R R3, SR_CTAID.X               // px\n"
          "    S2R R4, SR_CTAID.Y               // py\n"
          "    S2R R5, SR_NCTAID.X              // patches per image row\n"
          "    S2R R6, SR_NTID.X                // P\n"
          "    S2R R7, SR_NTID.Z                // C\n"
          "    LDP.32 R8, [height]\n"
          "    LDP.32 R9, [width]\n"
          "    // source: image[c][py*P + ky][px*P + kx]\n"
          "    IMAD R10, R4, R6, R1\n"
          "    IMAD R11, R3, R6, R0\n"
          "    IMAD R12, R2, R8, R10\n"
          "    IMAD R12, R12, R9, R11\n"
          "    // destination: patches[t][(c*P + ky)*P + kx], rows of C*P*P floats\n"
          "    IMAD R13, R4, R5, R3             // t\n"
          "    IMAD R14, R2, R6, R1\n"
          "    IMAD R14, R14, R6, R0            // k\n"
          "    IMUL R15, R6, R6\n"
          "    IMUL R15, R15, R7                // C*P*P\n"
          "    IMAD R16, R13, R15, R14\n"
          "    LDP.64 R18, [image]\n"
          "    LDP.64 R20, [patches]\n"
          "    IMAD.WIDE.U32 R22, R12, 4, R18\n"
          "    LDG.32 R24, [R22]\n"
          "    IMAD.WIDE.U32 R26, R16, 4, R20\n"
          "    STG.32 [R26], R24\n"
          "    EXIT\n");
  return ws_nngen_text_take(ctx, &t, out);
}

/* ---- geometry -------------------------------------------------------------------------- */

ws_status ws_nngen_rows_geometry(ws_ctx *ctx, uint32_t rows, uint32_t warps_per_cta, ws_dim3 *grid,
                                 ws_dim3 *block) {
  ws_status st = check_warps(ctx, warps_per_cta);
  if (st != WS_OK) return st;
  if (rows == 0) return ws_ctx_fail(ctx, WS_ERR_INVALID, "rows must be at least 1");
  *grid = (ws_dim3){(rows + warps_per_cta - 1) / warps_per_cta, 1, 1};
  *block = (ws_dim3){32 * warps_per_cta, 1, 1};
  return WS_OK;
}

ws_status ws_nngen_elems_geometry(ws_ctx *ctx, uint64_t count, uint32_t batch,
                                  uint32_t threads_per_cta, ws_dim3 *grid, ws_dim3 *block) {
  ws_status st = check_threads(ctx, threads_per_cta);
  if (st != WS_OK) return st;
  if (count == 0 || count > UINT32_MAX || batch == 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "element count must be 1..%u and batch at least 1, got %llu and %u",
                       UINT32_MAX, (unsigned long long)count, batch);
  *grid = (ws_dim3){(uint32_t)((count + threads_per_cta - 1) / threads_per_cta), batch, 1};
  *block = (ws_dim3){threads_per_cta, 1, 1};
  return WS_OK;
}

/* ---- run helpers -------------------------------------------------------------------------- */

#define ROW_WARPS 4      /* warps per CTA for the row kernels */
#define ELEM_THREADS 256 /* threads per CTA for the elementwise kernels */

/* Assembles generated text (freeing it) into *k. */
static ws_status build_from(ws_ctx *ctx, ws_status gen_status, char **src, const char *filename,
                            ws_nngen_kernel *k) {
  memset(k, 0, sizeof *k);
  if (gen_status != WS_OK) return gen_status;
  ws_status st = ws_nngen_kernel_build(ctx, *src, filename, k);
  free(*src);
  *src = NULL;
  return st;
}

static ws_status check_cols(ws_ctx *ctx, const char *what, uint32_t rows, uint32_t cols) {
  if (rows && cols) return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: rows and cols must be at least 1, got %u x %u", what,
                     rows, cols);
}

ws_status ws_nngen_patch_run(ws_device *dev, const ws_nngen_patch_shape *s, uint64_t image,
                             uint64_t patches, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  if (!s->channels || !s->patch || !s->height || !s->width || s->height % s->patch ||
      s->width % s->patch)
    return ws_ctx_fail(
        ctx, WS_ERR_INVALID,
        "patch: need channels, patch >= 1 and the patch size %u dividing the image %ux%u", s->patch,
        s->height, s->width);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_status st = build_from(ctx, ws_nngen_patch_source(ctx, &src), &src, "patch.wsa", &k);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "image", image);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "patches", patches);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, &k, "height", s->height);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, &k, "width", s->width);
  ws_dim3 grid = {s->width / s->patch, s->height / s->patch, 1},
          block = {s->patch, s->patch, s->channels};
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, &k, grid, block, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

/* Sets x, y, rows, cols and launches one warp per row. */
static ws_status launch_rows(ws_device *dev, ws_nngen_kernel *k, uint32_t rows, uint32_t cols,
                             uint64_t x, uint64_t y, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_dim3 grid, block;
  ws_status st = ws_nngen_rows_geometry(ctx, rows, ROW_WARPS, &grid, &block);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, k, "x", x);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, k, "y", y);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, k, "rows", rows);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, k, "cols", cols);
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, k, grid, block, stats);
  return st;
}

ws_status ws_nngen_layernorm_run(ws_device *dev, ws_nngen_norm kind, uint32_t rows, uint32_t cols,
                                 uint64_t x, uint64_t a, uint64_t w, uint64_t b, uint64_t y,
                                 ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_status st = check_cols(ctx, "layernorm", rows, cols);
  if (st != WS_OK) return st;
  char *src = NULL;
  ws_nngen_kernel k;
  st = build_from(ctx, ws_nngen_layernorm_source(ctx, kind, ROW_WARPS, &src), &src, "layernorm.wsa",
                  &k);
  if (st == WS_OK && kind == WS_NNGEN_NORM_ADD) st = ws_nngen_kernel_ptr(ctx, &k, "a", a);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "w", w);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "b", b);
  if (st == WS_OK) st = launch_rows(dev, &k, rows, cols, x, y, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

ws_status ws_nngen_softmax_run(ws_device *dev, uint32_t rows, uint32_t cols, uint64_t x, uint64_t y,
                               ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_status st = check_cols(ctx, "softmax", rows, cols);
  if (st != WS_OK) return st;
  char *src = NULL;
  ws_nngen_kernel k;
  st = build_from(ctx, ws_nngen_softmax_source(ctx, ROW_WARPS, &src), &src, "softmax.wsa", &k);
  if (st == WS_OK) st = launch_rows(dev, &k, rows, cols, x, y, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

/* Elementwise launch: x, y and n set here, the rest by the caller. */
static ws_status launch_elems(ws_device *dev, ws_nngen_kernel *k, uint32_t count, uint32_t batch,
                              uint64_t x, uint64_t y, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_dim3 grid, block;
  ws_status st = ws_nngen_elems_geometry(ctx, count, batch, ELEM_THREADS, &grid, &block);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, k, "x", x);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, k, "y", y);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, k, "n", count);
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, k, grid, block, stats);
  return st;
}

ws_status ws_nngen_gelu_run(ws_device *dev, uint32_t count, uint64_t x, uint64_t y,
                            ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_status st =
      build_from(ctx, ws_nngen_gelu_source(ctx, ELEM_THREADS, &src), &src, "gelu.wsa", &k);
  if (st == WS_OK) st = launch_elems(dev, &k, count, 1, x, y, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

ws_status ws_nngen_add_run(ws_device *dev, uint32_t count, uint64_t x, uint64_t a, uint64_t y,
                           ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_status st = build_from(ctx, ws_nngen_add_source(ctx, ELEM_THREADS, &src), &src, "add.wsa", &k);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "a", a);
  if (st == WS_OK) st = launch_elems(dev, &k, count, 1, x, y, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

ws_status ws_nngen_add_pos_run(ws_device *dev, uint32_t batch, uint32_t tokens, uint32_t dim,
                               uint64_t x, uint64_t pos, uint64_t y, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  uint64_t count = (uint64_t)tokens * dim;
  if (count == 0 || count > UINT32_MAX || count * batch > UINT32_MAX)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "add_pos: batch*tokens*dim must be 1..%u, got %u*%u*%u",
                       UINT32_MAX, batch, tokens, dim);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_status st =
      build_from(ctx, ws_nngen_add_pos_source(ctx, ELEM_THREADS, &src), &src, "add_pos.wsa", &k);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "pos", pos);
  if (st == WS_OK) st = launch_elems(dev, &k, (uint32_t)count, batch, x, y, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

ws_status ws_nngen_meanpool_run(ws_device *dev, uint32_t tokens, uint32_t dim, uint64_t x,
                                uint64_t y, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_status st = check_cols(ctx, "meanpool", tokens, dim);
  if (st != WS_OK) return st;
  char *src = NULL;
  ws_nngen_kernel k;
  st = build_from(ctx, ws_nngen_meanpool_source(ctx, ELEM_THREADS, &src), &src, "meanpool.wsa", &k);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, &k, "tokens", tokens);
  if (st == WS_OK) st = launch_elems(dev, &k, dim, 1, x, y, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

ws_status ws_nngen_head_run(ws_device *dev, uint32_t rows, uint32_t dim, uint64_t pooled,
                            uint64_t w, uint64_t b, uint64_t logit, uint64_t prob,
                            ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_status st = check_cols(ctx, "head", rows, dim);
  if (st != WS_OK) return st;
  char *src = NULL;
  ws_nngen_kernel k;
  st = build_from(ctx, ws_nngen_head_source(ctx, &src), &src, "head.wsa", &k);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "pooled", pooled);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "w", w);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "b", b);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "logit", logit);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "prob", prob);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, &k, "cols", dim);
  if (st == WS_OK)
    st = ws_nngen_kernel_launch(dev, &k, (ws_dim3){rows, 1, 1}, (ws_dim3){32, 1, 1}, stats);
  ws_nngen_kernel_release(&k);
  return st;
}
