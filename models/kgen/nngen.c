/* nngen.c - the non-attention TinyViT32 kernels: the generated LayerNorm
 * and GELU, the fixed kernels of models/kgen/kernels/, and their run helpers.
 *
 * Design: every shape (rows, columns, element count, image size) is a kernel
 * parameter and every loop over a dimension is a runtime loop, so the text
 * does not change with the model size; only the CTA shape is fixed when the
 * text is made. Kernels whose text is the same for every use are .wsa files
 * (embedded, readable on their own); the generator substitutes at most their
 * block size. LayerNorm (plain or fused with the residual add) and GELU are
 * built with models/kgen/kbuild.h. Row kernels give each row to one warp: lanes
 * stride the row by 32 and combine with a butterfly shuffle tree
 * (SHFL.BFLY), which leaves the total in every lane, so no shared memory or
 * barrier is needed. Transcendentals go through the SFU: e^x as MUFU.EX2 of
 * x*log2(e), 1/sqrt as MUFU.RSQ, division as MUFU.RCP. */
#include "models/kgen/nngen.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"
#include "models/kgen/kbuild.h"
#include "models/kgen/wsa.h"

/* ---- fixed kernels ---------------------------------------------------------------- */

ws_status ws_nngen_fixed_source(ws_ctx *ctx, const char *path, char **out) {
  *out = NULL;
  const ws_embedded_file *f = ws_wsa_find(path);
  if (!f) return ws_ctx_fail(ctx, WS_ERR_INVALID, "no embedded kernel %s", path);
  char *text = malloc(f->size_bytes + 1);
  if (!text) return ws_ctx_fail(ctx, WS_ERR_NOMEM, "out of host memory reading kernel %s", path);
  memcpy(text, f->text, f->size_bytes);
  text[f->size_bytes] = '\0';
  *out = text;
  return WS_OK;
}

/* ---- assemble and launch ----------------------------------------------------------- */

ws_status ws_nngen_kernel_build(ws_ctx *ctx, const char *src, const char *filename, ws_nngen_kernel *out) {
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

/* ---- checks ---------------------------------------------------------------------------- */

static ws_status check_warps(ws_ctx *ctx, uint32_t warps_per_cta) {
  if (warps_per_cta >= 1 && warps_per_cta <= 32) return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "warps per CTA must be 1..32, got %u", warps_per_cta);
}

static ws_status check_threads(ws_ctx *ctx, uint32_t threads_per_cta) {
  if (threads_per_cta >= 32 && threads_per_cta <= 1024 && threads_per_cta % 32 == 0) return WS_OK;
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "threads per CTA must be a multiple of 32 in 32..1024, got %u",
                     threads_per_cta);
}

/* ---- LayerNorm: registers and emitter pieces ------------------------------------------ */

/* Every register the LayerNorm kernel uses. The residual's (a, arow, av,
 * aaddr) are allocated in both forms, so the plain kernel keeps the fused
 * one's numbering, and with it the register-bank pairing of every operand. */
typedef struct ln_regs {
  ws_kreg ctaid, warp, row, rows, lane, cols, x, rowidx, xrow, a, arow, rcols, acc, col, tmp, addr, v, av,
      aaddr, mean, rstd, w, b, y, yrow, oaddr, wv, bv;
} ln_regs;

#define LN(field, name, count)                                                                               \
  { offsetof(ln_regs, field), name, count, count }
static const ws_kbuild_regspec ln_layout[] = {
    LN(ctaid, "ctaid", 1),
    LN(warp, "warp", 1),
    LN(row, "row", 1),
    LN(rows, "rows", 1),
    LN(lane, "lane", 1),
    LN(cols, "cols", 1),
    LN(x, "x", 2),
    LN(rowidx, "row*cols", 1),
    LN(xrow, "&x[row]", 2),
    LN(a, "a (add only)", 2),
    LN(arow, "&a[row] (add only)", 2),
    LN(rcols, "1/cols", 1),
    LN(acc, "sum", 1),
    LN(col, "col", 1),
    LN(tmp, "shuffled", 1),
    LN(addr, "&x[row][col]", 2),
    LN(v, "v", 1),
    LN(av, "a[row][col] (add only)", 1),
    LN(aaddr, "&a[row][col] (add only)", 2),
    LN(mean, "mean", 1),
    LN(rstd, "rstd", 1),
    LN(w, "w", 2),
    LN(b, "b", 2),
    LN(y, "y", 2),
    LN(yrow, "&y[row]", 2),
    LN(oaddr, "address", 2),
    LN(wv, "w[col]", 1),
    LN(bv, "b[col]", 1),
};
#undef LN

/* Butterfly tree: after five steps every lane holds op over all 32 lanes. */
static void emit_warp_allreduce(ws_kbuild *k, const ln_regs *r, const char *op) {
  ws_kbuild_line(k, "    // butterfly over the warp (%s): every lane ends with the total", op);
  for (unsigned step = 16; step >= 1; step /= 2) {
    ws_kbuild_ins(k, "SHFL.BFLY %r, %r, %u", r->tmp, r->acc, step);
    ws_kbuild_ins(k, "%s %r, %r, %r", op, r->acc, r->acc, r->tmp);
  }
}

static void emit_row_prologue(ws_kbuild *k, const ln_regs *r, uint32_t warps_per_cta) {
  ws_kbuild_line(k, "    // one warp per row: row = ctaid * %u + warp", warps_per_cta);
  ws_kbuild_ins(k, "S2R %r, SR_CTAID.X", r->ctaid);
  ws_kbuild_ins(k, "S2R %r, SR_WARPID", r->warp);
  ws_kbuild_ins(k, "IMAD %r, %r, %u, %r", r->row, r->ctaid, warps_per_cta, r->warp);
  ws_kbuild_ins(k, "LDP.32 %r, [rows]", r->rows);
  ws_kbuild_ins(k, "ISETP.GE.U32 P0, %r, %r", r->row, r->rows);
  ws_kbuild_ins(k, "@P0 EXIT // whole warps past the last row leave");
  ws_kbuild_ins(k, "S2R %r, SR_LANEID", r->lane);
  ws_kbuild_ins(k, "LDP.32 %r, [cols]", r->cols);
  ws_kbuild_ins(k, "IMUL %r, %r, %r // index of the row's first element", r->rowidx, r->row, r->cols);
}

/* A lane loop over the row's columns col = lane, lane+32, ...; lanes of a
 * row whose length is not a multiple of 32 leave a trip early and wait at
 * the loop's exit for the others. Returns the exit label. */
static ws_klabel emit_col_loop_head(ws_kbuild *k, const ln_regs *r, ws_klabel top) {
  char name[WS_KBUILD_NAME_BYTES + 8];
  snprintf(name, sizeof name, "%s_done", ws_kbuild_label_name(k, top));
  ws_klabel done = ws_kbuild_label(k, name);
  ws_kbuild_ins(k, "MOV %r, %r // col = lane", r->col, r->lane);
  ws_kbuild_place(k, top);
  ws_kbuild_ins(k, "ISETP.GE.U32 P1, %r, %r", r->col, r->cols);
  ws_kbuild_ins(k, "@P1 BRA %l", done);
  return done;
}

static void emit_col_loop_tail(ws_kbuild *k, const ln_regs *r, ws_klabel top, ws_klabel done) {
  ws_kbuild_ins(k, "IADD %r, %r, 32", r->col, r->col);
  ws_kbuild_ins(k, "BRA %l", top);
  ws_kbuild_place(k, done);
}

/* v = x[row][col] (+ a[row][col] when fused). */
static void emit_load_input(ws_kbuild *k, const ln_regs *r, bool fused) {
  ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r", r->addr, r->col, r->xrow);
  ws_kbuild_ins(k, "LDG.32 %r, [%r]", r->v, r->addr);
  if (!fused) return;
  ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r", r->aaddr, r->col, r->arow);
  ws_kbuild_ins(k, "LDG.32 %r, [%r]", r->av, r->aaddr);
  ws_kbuild_ins(k, "FADD %r, %r, %r // v = x + a, recomputed in every pass", r->v, r->v, r->av);
}

/* ---- LayerNorm ---------------------------------------------------------------------- */

static void emit_ln_header(ws_kbuild *k, bool fused, uint32_t warps) {
  const char *name = fused ? "add_layernorm" : "layernorm";
  ws_kbuild_line(k, "// %s.wsa - y = LayerNorm(%s) * w + b over each row of [rows, cols], fp32.", name,
                 fused ? "x + a" : "x");
  ws_kbuild_line(k, "// One warp per row (%u warps per CTA): lanes stride the row by 32 and a", warps);
  ws_kbuild_line(k, "// butterfly shuffle tree leaves each sum in every lane. Two-pass statistics");
  ws_kbuild_line(k, "// (mean, then the mean of squared deviations: the biased variance), eps = 1e-5,");
  ws_kbuild_line(k, "// 1/sqrt on the SFU (MUFU.RSQ). Launch: block %u, grid ceil(rows / %u).", warps * 32,
                 warps);
  ws_kbuild_reg_map(k);
  ws_kbuild_line(k, ".kernel %s", name);
  ws_kbuild_line(k, ".param .ptr x");
  if (fused) ws_kbuild_line(k, ".param .ptr a");
  ws_kbuild_line(k, ".param .ptr w\n.param .ptr b\n.param .ptr y\n.param .u32 rows\n.param .u32 cols");
}

static void emit_ln_bases(ws_kbuild *k, const ln_regs *r, bool fused) {
  ws_kbuild_ins(k, "LDP.64 %r, [x]", r->x);
  ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r // &x[row][0]", r->xrow, r->rowidx, r->x);
  if (fused) {
    ws_kbuild_ins(k, "LDP.64 %r, [a]", r->a);
    ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r // &a[row][0]", r->arow, r->rowidx, r->a);
  }
  ws_kbuild_ins(k, "I2F.U32 %r, %r", r->rcols, r->cols);
  ws_kbuild_ins(k, "MUFU.RCP %r, %r // 1/cols", r->rcols, r->rcols);
}

/* One pass over the row: loop head, the input, `body`, loop tail. */
typedef void (*pass_body)(ws_kbuild *k, const ln_regs *r);

static void emit_pass(ws_kbuild *k, const ln_regs *r, bool fused, const char *name, pass_body body) {
  ws_klabel top = ws_kbuild_label(k, name);
  ws_klabel done = emit_col_loop_head(k, r, top);
  emit_load_input(k, r, fused);
  body(k, r);
  emit_col_loop_tail(k, r, top, done);
}

static void body_sum(ws_kbuild *k, const ln_regs *r) {
  ws_kbuild_ins(k, "FADD %r, %r, %r", r->acc, r->acc, r->v);
}

static void body_squares(ws_kbuild *k, const ln_regs *r) {
  ws_kbuild_ins(k, "FADD %r, %r, -%r", r->v, r->v, r->mean);
  ws_kbuild_ins(k, "FFMA %r, %r, %r, %r", r->acc, r->v, r->v, r->acc);
}

static void body_output(ws_kbuild *k, const ln_regs *r) {
  ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r", r->oaddr, r->col, r->w);
  ws_kbuild_ins(k, "LDG.32 %r, [%r] // w[col]", r->wv, r->oaddr);
  ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r", r->oaddr, r->col, r->b);
  ws_kbuild_ins(k, "LDG.32 %r, [%r] // b[col]", r->bv, r->oaddr);
  ws_kbuild_ins(k, "FADD %r, %r, -%r", r->v, r->v, r->mean);
  ws_kbuild_ins(k, "FMUL %r, %r, %r", r->v, r->v, r->rstd);
  ws_kbuild_ins(k, "FFMA %r, %r, %r, %r", r->v, r->v, r->wv, r->bv);
  ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r", r->oaddr, r->col, r->yrow);
  ws_kbuild_ins(k, "STG.32 [%r], %r", r->oaddr, r->v);
}

static void emit_ln_stats(ws_kbuild *k, const ln_regs *r, bool fused) {
  ws_kbuild_line(k, "    // pass 1: mean");
  ws_kbuild_ins(k, "MOV %r, 0", r->acc);
  emit_pass(k, r, fused, "mean_loop", body_sum);
  emit_warp_allreduce(k, r, "FADD");
  ws_kbuild_ins(k, "FMUL %r, %r, %r // mean", r->mean, r->acc, r->rcols);
  ws_kbuild_line(k, "    // pass 2: biased variance = mean of (v - mean)^2");
  ws_kbuild_ins(k, "MOV %r, 0", r->acc);
  emit_pass(k, r, fused, "var_loop", body_squares);
  emit_warp_allreduce(k, r, "FADD");
  ws_kbuild_ins(k, "FFMA %r, %r, %r, 1e-05 // var + eps", r->rstd, r->acc, r->rcols);
  ws_kbuild_ins(k, "MUFU.RSQ %r, %r // rstd = 1/sqrt(var + eps)", r->rstd, r->rstd);
}

static void emit_ln_output(ws_kbuild *k, const ln_regs *r, bool fused) {
  ws_kbuild_line(k, "    // pass 3: y = (v - mean) * rstd * w + b");
  ws_kbuild_ins(k, "LDP.64 %r, [w]", r->w);
  ws_kbuild_ins(k, "LDP.64 %r, [b]", r->b);
  ws_kbuild_ins(k, "LDP.64 %r, [y]", r->y);
  ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r // &y[row][0]", r->yrow, r->rowidx, r->y);
  emit_pass(k, r, fused, "out_loop", body_output);
  ws_kbuild_ins(k, "EXIT");
}

ws_status ws_nngen_layernorm_source(ws_ctx *ctx, ws_nngen_norm kind, uint32_t warps_per_cta, char **out) {
  *out = NULL;
  if ((unsigned)kind >= WS_NNGEN_NORM_COUNT)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown LayerNorm kind %d", (int)kind);
  ws_status st = check_warps(ctx, warps_per_cta);
  if (st != WS_OK) return st;
  bool fused = kind == WS_NNGEN_NORM_ADD;
  ws_kbuild k;
  ws_kbuild_init(&k);
  ln_regs r;
  ws_kbuild_reg_table(&k, &r, ln_layout, sizeof ln_layout / sizeof ln_layout[0]);
  emit_ln_header(&k, fused, warps_per_cta);
  emit_row_prologue(&k, &r, warps_per_cta);
  emit_ln_bases(&k, &r, fused);
  emit_ln_stats(&k, &r, fused);
  emit_ln_output(&k, &r, fused);
  return ws_kbuild_take(ctx, &k, out);
}

/* ---- GELU ---------------------------------------------------------------------------- */

static void emit_gelu_header(ws_kbuild *k, uint32_t threads) {
  ws_kbuild_line(k,
                 "// gelu.wsa - y = GELU(x), tanh form 0.5x(1 + tanh(u)), u = sqrt(2/pi)(x + 0.044715x^3).");
  ws_kbuild_line(k, "// Since 0.5(1 + tanh(u)) = 1/(1 + e^(-2u)), the kernel computes");
  ws_kbuild_line(k, "// y = x * rcp(1 + 2^(-2u*log2e)): one MUFU.EX2 and one MUFU.RCP, and no");
  ws_kbuild_line(k, "// cancellation near x = 0. Saturates correctly: e^(-2u) -> inf gives y -> 0.");
  ws_kbuild_line(k, "// Launch: block %u, grid ceil(n / %u). y may alias x.", threads, threads);
  ws_kbuild_reg_map(k);
  ws_kbuild_line(k, ".kernel gelu\n.param .ptr x\n.param .ptr y\n.param .u32 n");
}

ws_status ws_nngen_gelu_source(ws_ctx *ctx, uint32_t threads_per_cta, char **out) {
  *out = NULL;
  ws_status st = check_threads(ctx, threads_per_cta);
  if (st != WS_OK) return st;
  ws_kbuild k;
  ws_kbuild_init(&k);
  ws_kreg ctaid = ws_kbuild_reg(&k, "ctaid"), tid = ws_kbuild_reg(&k, "tid");
  ws_kreg i = ws_kbuild_reg(&k, "i"), n = ws_kbuild_reg(&k, "n");
  ws_kreg x = ws_kbuild_reg64(&k, "x"), y = ws_kbuild_reg64(&k, "y");
  ws_kreg xaddr = ws_kbuild_reg64(&k, "&x[i]"), v = ws_kbuild_reg(&k, "v");
  ws_kreg g = ws_kbuild_reg(&k, "t"), yaddr = ws_kbuild_reg64(&k, "&y[i]");
  emit_gelu_header(&k, threads_per_cta);
  ws_kbuild_line(&k, "    // one thread per element: i = ctaid.x * %u + tid", threads_per_cta);
  ws_kbuild_ins(&k, "S2R %r, SR_CTAID.X", ctaid);
  ws_kbuild_ins(&k, "S2R %r, SR_TID.X", tid);
  ws_kbuild_ins(&k, "IMAD %r, %r, %u, %r", i, ctaid, threads_per_cta, tid);
  ws_kbuild_ins(&k, "LDP.32 %r, [n]", n);
  ws_kbuild_ins(&k, "ISETP.GE.U32 P0, %r, %r", i, n);
  ws_kbuild_ins(&k, "@P0 EXIT // threads past the end leave");
  ws_kbuild_ins(&k, "LDP.64 %r, [x]", x);
  ws_kbuild_ins(&k, "LDP.64 %r, [y]", y);
  ws_kbuild_ins(&k, "IMAD.WIDE.U32 %r, %r, 4, %r", xaddr, i, x);
  ws_kbuild_ins(&k, "LDG.32 %r, [%r] // x", v, xaddr);
  ws_kbuild_ins(&k, "FMUL %r, %r, %r", g, v, v);
  ws_kbuild_ins(&k, "FMUL %r, %r, %r // x^3", g, g, v);
  ws_kbuild_ins(&k, "FFMA %r, %r, 0.044715, %r // x + 0.044715x^3", g, g, v);
  ws_kbuild_ins(&k, "FMUL %r, %r, -2.30220819 // -2u*log2e: -2*sqrt(2/pi)*log2(e)", g, g);
  ws_kbuild_ins(&k, "MUFU.EX2 %r, %r // e^(-2u)", g, g);
  ws_kbuild_ins(&k, "FADD %r, %r, 1", g, g);
  ws_kbuild_ins(&k, "MUFU.RCP %r, %r // 0.5(1 + tanh(u))", g, g);
  ws_kbuild_ins(&k, "FMUL %r, %r, %r", v, v, g);
  ws_kbuild_ins(&k, "IMAD.WIDE.U32 %r, %r, 4, %r", yaddr, i, y);
  ws_kbuild_ins(&k, "STG.32 [%r], %r", yaddr, v);
  ws_kbuild_ins(&k, "EXIT");
  return ws_kbuild_take(ctx, &k, out);
}

/* ---- the fixed kernels ----------------------------------------------------------------- */

ws_status ws_nngen_add_source(ws_ctx *ctx, char **out) {
  return ws_nngen_fixed_source(ctx, "models/kgen/kernels/add.wsa", out);
}

ws_status ws_nngen_add_pos_source(ws_ctx *ctx, char **out) {
  return ws_nngen_fixed_source(ctx, "models/kgen/kernels/add_pos.wsa", out);
}

ws_status ws_nngen_meanpool_source(ws_ctx *ctx, char **out) {
  return ws_nngen_fixed_source(ctx, "models/kgen/kernels/meanpool.wsa", out);
}

ws_status ws_nngen_softmax_source(ws_ctx *ctx, char **out) {
  return ws_nngen_fixed_source(ctx, "models/kgen/kernels/softmax.wsa", out);
}

ws_status ws_nngen_head_source(ws_ctx *ctx, char **out) {
  return ws_nngen_fixed_source(ctx, "models/kgen/kernels/head.wsa", out);
}

ws_status ws_nngen_patch_source(ws_ctx *ctx, char **out) {
  return ws_nngen_fixed_source(ctx, "models/kgen/kernels/patch.wsa", out);
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

ws_status ws_nngen_elems_geometry(ws_ctx *ctx, uint64_t count, uint32_t batch, uint32_t threads_per_cta,
                                  ws_dim3 *grid, ws_dim3 *block) {
  ws_status st = check_threads(ctx, threads_per_cta);
  if (st != WS_OK) return st;
  if (count == 0 || count > UINT32_MAX || batch == 0)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "element count must be 1..%u and batch at least 1, got %llu and %u", UINT32_MAX,
                       (unsigned long long)count, batch);
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
  return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s: rows and cols must be at least 1, got %u x %u", what, rows,
                     cols);
}

ws_status ws_nngen_patch_run(ws_device *dev, const ws_nngen_patch_shape *s, uint64_t image, uint64_t patches,
                             ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  if (!s->channels || !s->patch || !s->height || !s->width || s->height % s->patch || s->width % s->patch)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "patch: need channels, patch >= 1 and the patch size %u dividing the image %ux%u",
                       s->patch, s->height, s->width);
  uint32_t batch = s->batch ? s->batch : 1;
  if ((uint64_t)batch * s->channels * s->height * s->width > UINT32_MAX)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "patch: %u images of %ux%ux%u hold more than 2^32 values (32-bit indices)", batch,
                       s->channels, s->height, s->width);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_status st = build_from(ctx, ws_nngen_patch_source(ctx, &src), &src, "patch.wsa", &k);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "image", image);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "patches", patches);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, &k, "height", s->height);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, &k, "width", s->width);
  ws_dim3 grid = {s->width / s->patch, s->height / s->patch, batch},
          block = {s->patch, s->patch, s->channels};
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, &k, grid, block, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

/* Sets x, y, rows, cols and launches one warp per row. */
static ws_status launch_rows(ws_device *dev, ws_nngen_kernel *k, uint32_t rows, uint32_t cols, uint64_t x,
                             uint64_t y, ws_launch_stats *stats) {
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

ws_status ws_nngen_layernorm_run(ws_device *dev, ws_nngen_norm kind, uint32_t rows, uint32_t cols, uint64_t x,
                                 uint64_t a, uint64_t w, uint64_t b, uint64_t y, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_status st = check_cols(ctx, "layernorm", rows, cols);
  if (st != WS_OK) return st;
  char *src = NULL;
  ws_nngen_kernel k;
  st = build_from(ctx, ws_nngen_layernorm_source(ctx, kind, ROW_WARPS, &src), &src, "layernorm.wsa", &k);
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
  st = build_from(ctx, ws_nngen_softmax_source(ctx, &src), &src, "softmax.wsa", &k);
  if (st == WS_OK) st = launch_rows(dev, &k, rows, cols, x, y, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

/* Elementwise launch: x, y and n set here, the rest by the caller. */
static ws_status launch_elems(ws_device *dev, ws_nngen_kernel *k, uint32_t count, uint32_t batch, uint64_t x,
                              uint64_t y, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_dim3 grid, block;
  ws_status st = ws_nngen_elems_geometry(ctx, count, batch, ELEM_THREADS, &grid, &block);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, k, "x", x);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, k, "y", y);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, k, "n", count);
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, k, grid, block, stats);
  return st;
}

ws_status ws_nngen_gelu_run(ws_device *dev, uint32_t count, uint64_t x, uint64_t y, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_status st = build_from(ctx, ws_nngen_gelu_source(ctx, ELEM_THREADS, &src), &src, "gelu.wsa", &k);
  if (st == WS_OK) st = launch_elems(dev, &k, count, 1, x, y, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

ws_status ws_nngen_add_run(ws_device *dev, uint32_t count, uint64_t x, uint64_t a, uint64_t y,
                           ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_status st = build_from(ctx, ws_nngen_add_source(ctx, &src), &src, "add.wsa", &k);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "a", a);
  if (st == WS_OK) st = launch_elems(dev, &k, count, 1, x, y, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

ws_status ws_nngen_add_pos_run(ws_device *dev, uint32_t batch, uint32_t tokens, uint32_t dim, uint64_t x,
                               uint64_t pos, uint64_t y, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  uint64_t count = (uint64_t)tokens * dim;
  if (count == 0 || count > UINT32_MAX || count * batch > UINT32_MAX)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "add_pos: batch*tokens*dim must be 1..%u, got %u*%u*%u",
                       UINT32_MAX, batch, tokens, dim);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_status st = build_from(ctx, ws_nngen_add_pos_source(ctx, &src), &src, "add_pos.wsa", &k);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "pos", pos);
  if (st == WS_OK) st = launch_elems(dev, &k, (uint32_t)count, batch, x, y, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

ws_status ws_nngen_meanpool_run(ws_device *dev, uint32_t batch, uint32_t tokens, uint32_t dim, uint64_t x,
                                uint64_t y, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_status st = check_cols(ctx, "meanpool", tokens, dim);
  if (st != WS_OK) return st;
  if (!batch || (uint64_t)batch * tokens * dim > UINT32_MAX)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "meanpool: %u images of %u x %u: need at least one and at most 2^32 values in all",
                       batch, tokens, dim);
  char *src = NULL;
  ws_nngen_kernel k;
  st = build_from(ctx, ws_nngen_meanpool_source(ctx, &src), &src, "meanpool.wsa", &k);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, &k, "tokens", tokens);
  if (st == WS_OK) st = launch_elems(dev, &k, dim, batch, x, y, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

ws_status ws_nngen_head_run(ws_device *dev, uint32_t rows, uint32_t dim, uint64_t pooled, uint64_t w,
                            uint64_t b, uint64_t logit, uint64_t prob, ws_launch_stats *stats) {
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
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, &k, (ws_dim3){rows, 1, 1}, (ws_dim3){32, 1, 1}, stats);
  ws_nngen_kernel_release(&k);
  return st;
}
