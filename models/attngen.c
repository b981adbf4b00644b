/* attngen.c - emitters and run helpers for naive and flash attention.
 *
 * Design: the flash kernel is emitted fully unrolled over dh and Bc, because
 * its q row, output accumulator and Bc scores live in registers, and a
 * register can only be named by a constant. Each thread owns one query row.
 * K and V rows are read from shared memory by every lane at the same address
 * (a broadcast, one wavefront per LDS.128), a few rows at a time so that the
 * rows' dot products interleave instead of forming one dependent FFMA chain.
 * Scores are computed in base 2 (q is pre-multiplied by scale*log2(e)), so
 * each exponential is a single MUFU.EX2; the online softmax rescales the
 * accumulator once per tile, not once per key. Tile copies issue all their
 * global loads before the first shared store, so a tile costs one memory
 * latency; the output leaves through shared memory so that its stores are
 * coalesced. The naive kernels are plain loops whose trip counts are kernel
 * parameters. */
#include "models/attngen.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/nngen.h"

#define NAIVE_TILE 16 /* the naive kernels' CTA is 16 x 16 threads */
#define SOFTMAX_WARPS 4
#define FLASH_FIXED_REGS 32 /* R0..R31: indices, pointers, m, l, temporaries */
#define ISA_MAX_REGS 255    /* R0..R254 */

static ws_status check_shape(ws_ctx *ctx, const ws_attngen_shape *s) {
  uint64_t d = (uint64_t)s->heads * s->head_dim;
  if (!s->tokens || !s->heads || !s->head_dim || (uint64_t)s->tokens * 3 * d > UINT32_MAX ||
      (uint64_t)s->heads * s->tokens * s->tokens > UINT32_MAX)
    return ws_ctx_fail(
        ctx, WS_ERR_INVALID,
        "attention shape T=%u H=%u dh=%u: each must be at least 1 and T*3*H*dh and H*T*T "
        "must fit in 32 bits",
        s->tokens, s->heads, s->head_dim);
  return WS_OK;
}

/* ---- naive ---------------------------------------------------------------------------- */

ws_status ws_attngen_scores_source(ws_ctx *ctx, char **out) {
  ws_nngen_text t;
  ws_nngen_text_init(&t);
  ws_nngen_text_add(
      &t, "// attn_scores.wsa - naive attention, step 1: S[h][i][j] = scale * Q_h[i] . K_h[j]\n"
          "// for every head, written to device memory [H, T, T]. One thread per score, the\n"
          "// dot product straight from global memory. QKV is [T, 3D]: Q columns [0, D),\n"
          "// K columns [D, 2D); head h owns columns h*dh .. h*dh+dh-1 of each.\n"
          "// Launch: block (16, 16), grid (ceil(T/16), ceil(T/16), H).\n"
          ".kernel attn_scores\n"
          ".param .ptr qkv\n"
          ".param .ptr scores\n"
          ".param .u32 tokens\n"
          ".param .u32 dim\n"
          ".param .u32 head_dim\n"
          ".param .f32 scale\n"
          "    S2R R0, SR_TID.X\n"
          "    S2R R1, SR_TID.Y\n"
          "    S2R R2, SR_CTAID.X\n"
          "    S2R R3, SR_CTAID.Y\n"
          "    S2R R4, SR_CTAID.Z               // head h\n"
          "    IMAD R5, R2, 16, R0              // j: the key\n"
          "    IMAD R6, R3, 16, R1              // i: the query\n"
          "    LDP.32 R7, [tokens]\n"
          "    ISETP.GE.U32 P0, R5, R7\n"
          "@P0 EXIT                             // past the last key\n"
          "    ISETP.GE.U32 P1, R6, R7\n"
          "@P1 EXIT                             // past the last query\n"
          "    LDP.32 R8, [dim]\n"
          "    LDP.32 R9, [head_dim]\n"
          "    IMUL R10, R8, 3                  // QKV row stride: 3D floats\n"
          "    IMUL R11, R4, R9                 // h*dh\n"
          "    IMAD R12, R6, R10, R11           // index of Q[i][h*dh]\n"
          "    IMAD R13, R5, R10, R11\n"
          "    IADD R13, R13, R8                // index of K[j][h*dh]: D columns further\n"
          "    LDP.64 R14, [qkv]\n"
          "    MOV R20, 0                       // dot product\n"
          "    MOV R21, 0                       // d\n"
          "dot_loop:\n"
          "    ISETP.GE.U32 P2, R21, R9\n"
          "@P2 BRA dot_done\n"
          "    IADD R22, R12, R21\n"
          "    IMAD.WIDE.U32 R24, R22, 4, R14\n"
          "    LDG.32 R26, [R24]                // Q[i][h*dh + d]\n"
          "    IADD R22, R13, R21\n"
          "    IMAD.WIDE.U32 R24, R22, 4, R14\n"
          "    LDG.32 R27, [R24]                // K[j][h*dh + d]\n"
          "    FFMA R20, R26, R27, R20\n"
          "    IADD R21, R21, 1\n"
          "    BRA dot_loop\n"
          "dot_done:\n"
          "    LDP.32 R28, [scale]\n"
          "    FMUL R20, R20, R28\n"
          "    IMAD R29, R4, R7, R6             // (h*T + i)\n"
          "    IMAD R29, R29, R7, R5            // (h*T + i)*T + j\n"
          "    LDP.64 R30, [scores]\n"
          "    IMAD.WIDE.U32 R32, R29, 4, R30\n"
          "    STG.32 [R32], R20\n"
          "    EXIT\n");
  return ws_nngen_text_take(ctx, &t, out);
}

ws_status ws_attngen_pv_source(ws_ctx *ctx, char **out) {
  ws_nngen_text t;
  ws_nngen_text_init(&t);
  ws_nngen_text_add(
      &t, "// attn_pv.wsa - naive attention, step 3: O[i][h*dh + c] = sum_j P[h][i][j] V_h[j][c],\n"
          "// P [H, T, T] the softmaxed scores, V columns [2D, 3D) of QKV [T, 3D]. One thread\n"
          "// per output, reading P and V from global memory.\n"
          "// Launch: block (16, 16), grid (ceil(dh/16), ceil(T/16), H).\n"
          ".kernel attn_pv\n"
          ".param .ptr probs\n"
          ".param .ptr qkv\n"
          ".param .ptr out\n"
          ".param .u32 tokens\n"
          ".param .u32 dim\n"
          ".param .u32 head_dim\n"
          "    S2R R0, SR_TID.X\n"
          "    S2R R1, SR_TID.Y\n"
          "    S2R R2, SR_CTAID.X\n"
          "    S2R R3, SR_CTAID.Y\n"
          "    S2R R4, SR_CTAID.Z               // head h\n"
          "    IMAD R5, R2, 16, R0              // c: column within the head\n"
          "    IMAD R6, R3, 16, R1              // i: the query row\n"
          "    LDP.32 R7, [tokens]\n"
          "    LDP.32 R9, [head_dim]\n"
          "    ISETP.GE.U32 P0, R5, R9\n"
          "@P0 EXIT                             // past the head's last column\n"
          "    ISETP.GE.U32 P1, R6, R7\n"
          "@P1 EXIT                             // past the last query\n"
          "    LDP.32 R8, [dim]\n"
          "    IMUL R10, R8, 3                  // QKV row stride: 3D floats\n"
          "    IMAD R11, R4, R9, R5             // h*dh + c\n"
          "    IMAD R12, R8, 2, R11             // column of V: 2D + h*dh + c\n"
          "    IMAD R13, R4, R7, R6\n"
          "    IMUL R13, R13, R7                // index of P[h][i][0]\n"
          "    LDP.64 R14, [probs]\n"
          "    LDP.64 R16, [qkv]\n"
          "    MOV R20, 0                       // accumulator\n"
          "    MOV R21, 0                       // j\n"
          "pv_loop:\n"
          "    ISETP.GE.U32 P2, R21, R7\n"
          "@P2 BRA pv_done\n"
          "    IADD R22, R13, R21\n"
          "    IMAD.WIDE.U32 R24, R22, 4, R14\n"
          "    LDG.32 R26, [R24]                // P[h][i][j]\n"
          "    IMAD R22, R21, R10, R12\n"
          "    IMAD.WIDE.U32 R24, R22, 4, R16\n"
          "    LDG.32 R27, [R24]                // V[j][h*dh + c]\n"
          "    FFMA R20, R26, R27, R20\n"
          "    IADD R21, R21, 1\n"
          "    BRA pv_loop\n"
          "pv_done:\n"
          "    IMAD R22, R6, R8, R11            // O[i][h*dh + c]\n"
          "    LDP.64 R28, [out]\n"
          "    IMAD.WIDE.U32 R30, R22, 4, R28\n"
          "    STG.32 [R30], R20\n"
          "    EXIT\n");
  return ws_nngen_text_take(ctx, &t, out);
}

ws_status ws_attngen_naive_geometry(ws_ctx *ctx, const ws_attngen_shape *s, ws_attngen_stage stage,
                                    ws_dim3 *grid, ws_dim3 *block) {
  ws_status st = check_shape(ctx, s);
  if (st != WS_OK) return st;
  uint32_t t16 = (s->tokens + NAIVE_TILE - 1) / NAIVE_TILE;
  *block = (ws_dim3){NAIVE_TILE, NAIVE_TILE, 1};
  switch (stage) {
  case WS_ATTNGEN_SCORES:
    *grid = (ws_dim3){t16, t16, s->heads};
    return WS_OK;
  case WS_ATTNGEN_SOFTMAX:
    return ws_nngen_rows_geometry(ctx, s->heads * s->tokens, SOFTMAX_WARPS, grid, block);
  case WS_ATTNGEN_PV:
    *grid = (ws_dim3){(s->head_dim + NAIVE_TILE - 1) / NAIVE_TILE, t16, s->heads};
    return WS_OK;
  default:
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown attention stage %d", (int)stage);
  }
}

/* Assembles generated text, freeing it. */
static ws_status build(ws_ctx *ctx, ws_status gen_status, char **src, const char *filename,
                       ws_nngen_kernel *k) {
  memset(k, 0, sizeof *k);
  if (gen_status != WS_OK) return gen_status;
  ws_status st = ws_nngen_kernel_build(ctx, *src, filename, k);
  free(*src);
  *src = NULL;
  return st;
}

/* Binds the params every attention kernel shares. */
static ws_status bind_common(ws_ctx *ctx, ws_nngen_kernel *k, const ws_attngen_shape *s,
                             uint64_t qkv) {
  ws_status st = ws_nngen_kernel_ptr(ctx, k, "qkv", qkv);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, k, "tokens", s->tokens);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, k, "dim", s->heads * s->head_dim);
  return st;
}

static ws_status run_scores(ws_device *dev, const ws_attngen_shape *s, uint64_t qkv,
                            uint64_t scores, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_dim3 grid, block;
  ws_status st = build(ctx, ws_attngen_scores_source(ctx, &src), &src, "attn_scores.wsa", &k);
  if (st == WS_OK) st = bind_common(ctx, &k, s, qkv);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "scores", scores);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, &k, "head_dim", s->head_dim);
  if (st == WS_OK) st = ws_nngen_kernel_f32(ctx, &k, "scale", 1.0f / sqrtf((float)s->head_dim));
  if (st == WS_OK) st = ws_attngen_naive_geometry(ctx, s, WS_ATTNGEN_SCORES, &grid, &block);
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, &k, grid, block, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

static ws_status run_pv(ws_device *dev, const ws_attngen_shape *s, uint64_t qkv, uint64_t probs,
                        uint64_t out, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_dim3 grid, block;
  ws_status st = build(ctx, ws_attngen_pv_source(ctx, &src), &src, "attn_pv.wsa", &k);
  if (st == WS_OK) st = bind_common(ctx, &k, s, qkv);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "probs", probs);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "out", out);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, &k, "head_dim", s->head_dim);
  if (st == WS_OK) st = ws_attngen_naive_geometry(ctx, s, WS_ATTNGEN_PV, &grid, &block);
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, &k, grid, block, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

ws_status ws_attngen_naive_stage_run(ws_device *dev, const ws_attngen_shape *s,
                                     ws_attngen_stage stage, uint64_t qkv, uint64_t scores,
                                     uint64_t out, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_status st = check_shape(ctx, s);
  if (st != WS_OK) return st;
  switch (stage) {
  case WS_ATTNGEN_SCORES:
    return run_scores(dev, s, qkv, scores, stats);
  case WS_ATTNGEN_SOFTMAX:
    return ws_nngen_softmax_run(dev, s->heads * s->tokens, s->tokens, scores, scores, stats);
  case WS_ATTNGEN_PV:
    return run_pv(dev, s, qkv, scores, out, stats);
  default:
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown attention stage %d", (int)stage);
  }
}

ws_status ws_attngen_naive_run(ws_device *dev, const ws_attngen_shape *s, uint64_t qkv,
                               uint64_t scores, uint64_t out,
                               ws_launch_stats stats[WS_ATTNGEN_STAGE_COUNT]) {
  ws_status st = WS_OK;
  for (int k = 0; k < WS_ATTNGEN_STAGE_COUNT && st == WS_OK; k++)
    st = ws_attngen_naive_stage_run(dev, s, (ws_attngen_stage)k, qkv, scores, out,
                                    stats ? &stats[k] : NULL);
  return st;
}

/* ---- flash: plan and validation ---------------------------------------------------------- */

/* Where everything lives: R0..R31 fixed (see emit_flash_setup); the q row
 * (dh + 4 registers: q_d is in q+1+d, an odd shift that puts q_d and K[j][d]
 * in different register banks, so an FFMA collects its operands in two
 * cycles rather than three); the output accumulator; `group` K or V rows;
 * and the Bc scores. The group is how many K rows have their dot products
 * interleaved (4 when the registers allow, else 2 or 1): a lone dot product
 * is a chain of dh dependent FFMAs, each waiting out the FP32 latency. */
typedef struct flash_plan {
  uint32_t dh, br, bc;
  uint32_t qs_stride_words; /* Qs rows padded by 4 words: conflict-free LDS.128 of a row per lane */
  uint32_t group;
  uint32_t q, o, kv, s; /* first register of each array */
  uint32_t regs;
} flash_plan;

static flash_plan flash_plan_make(uint32_t head_dim, const ws_attngen_flash_cfg *fc) {
  flash_plan p = {
      .dh = head_dim, .br = fc->br, .bc = fc->bc, .qs_stride_words = head_dim + 4, .group = 4};
  while (p.group > 1 && FLASH_FIXED_REGS + 4 + (2 + p.group) * head_dim + fc->bc > ISA_MAX_REGS)
    p.group /= 2;
  p.q = FLASH_FIXED_REGS;
  p.o = p.q + head_dim + 4;
  p.kv = p.o + head_dim;
  p.s = p.kv + p.group * head_dim;
  p.regs = p.s + fc->bc;
  return p;
}

uint32_t ws_attngen_flash_regs(uint32_t head_dim, const ws_attngen_flash_cfg *fc) {
  return flash_plan_make(head_dim, fc).regs;
}

uint32_t ws_attngen_flash_smem_bytes(uint32_t head_dim, const ws_attngen_flash_cfg *fc) {
  uint64_t q = (uint64_t)fc->br * (head_dim + 4) * 4, kv = 2ull * fc->bc * head_dim * 4;
  return q + kv > UINT32_MAX ? UINT32_MAX : (uint32_t)(q + kv);
}

static ws_status check_flash_code(ws_ctx *ctx, uint32_t dh, const ws_attngen_flash_cfg *fc) {
  if (dh < 4 || dh > 64 || (dh & (dh - 1)))
    return ws_ctx_fail(
        ctx, WS_ERR_INVALID,
        "flash attention: head_dim must be a power of two from 4 to 64 (rows move as "
        "16-byte quads), got %u",
        dh);
  if (fc->br == 0 || fc->br % 32)
    return ws_ctx_fail(
        ctx, WS_ERR_INVALID,
        "flash attention: Br must be a positive multiple of 32 (one thread per Q row, whole "
        "warps), got %u",
        fc->br);
  if (fc->bc == 0 || fc->bc > ISA_MAX_REGS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "flash attention: Bc must be 1..%u, got %u",
                       ISA_MAX_REGS, fc->bc);
  return WS_OK;
}

ws_status ws_attngen_flash_validate(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t head_dim,
                                    const ws_attngen_flash_cfg *fc) {
  ws_status st = check_flash_code(ctx, head_dim, fc);
  if (st != WS_OK) return st;
  if (fc->br > cfg->sm.max_threads_per_block)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "flash attention: Br=%u threads per CTA exceeds %s's limit of %u", fc->br,
                       cfg->gpu.name, cfg->sm.max_threads_per_block);
  uint32_t regs = ws_attngen_flash_regs(head_dim, fc);
  uint32_t reg_limit = cfg->regfile.max_regs_per_thread < ISA_MAX_REGS
                           ? cfg->regfile.max_regs_per_thread
                           : ISA_MAX_REGS;
  if (regs > reg_limit)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "flash attention: Bc=%u with dh=%u needs %u registers per thread (at least "
                       "36 + 3*dh + Bc); "
                       "%s allows %u",
                       fc->bc, head_dim, regs, cfg->gpu.name, reg_limit);
  uint32_t smem = ws_attngen_flash_smem_bytes(head_dim, fc);
  if (smem > cfg->smem.max_per_block_bytes)
    return ws_ctx_fail(
        ctx, WS_ERR_LIMIT,
        "flash attention: Br=%u, Bc=%u, dh=%u needs %u bytes of shared memory per CTA "
        "(Q tile Br*(dh+4)*4 + K and V tiles 2*Bc*dh*4); %s allows %u",
        fc->br, fc->bc, head_dim, smem, cfg->gpu.name, cfg->smem.max_per_block_bytes);
  ws_occupancy occ;
  return ws_occupancy_compute(ctx, cfg, fc->br, regs, smem, &occ);
}

ws_status ws_attngen_flash_geometry(ws_ctx *ctx, const ws_attngen_shape *s,
                                    const ws_attngen_flash_cfg *fc, ws_dim3 *grid, ws_dim3 *block) {
  ws_status st = check_shape(ctx, s);
  if (st == WS_OK) st = check_flash_code(ctx, s->head_dim, fc);
  if (st != WS_OK) return st;
  *grid = (ws_dim3){(s->tokens + fc->br - 1) / fc->br, s->heads, 1};
  *block = (ws_dim3){fc->br, 1, 1};
  return WS_OK;
}

/* ---- flash: emitter ------------------------------------------------------------------------- */

static uint32_t log2_u32(uint32_t v) {
  uint32_t n = 0;
  while (v > 1) {
    v >>= 1;
    n++;
  }
  return n;
}

static void emit_flash_header(ws_nngen_text *t, const flash_plan *p) {
  ws_nngen_text_add(
      t,
      "// flash_attention.wsa - fused multi-head attention, FlashAttention style, for\n"
      "// dh = %u, Br = %u query rows per CTA, Bc = %u key/value rows per tile.\n"
      "// A CTA of Br threads handles one Q tile of one head; thread r owns query row\n"
      "// i0 + r. The Q tile is staged through shared memory into registers, then K/V\n"
      "// tiles stream through shared memory; per tile each thread computes its Bc\n"
      "// scores (in base 2: q is pre-scaled by scale*log2(e)), updates the running max m\n"
      "// and sum l, rescales its accumulator once, and adds p_j * V[j]. O is written\n"
      "// once. S never reaches device memory.\n"
      "// Registers: R%u.. q row (q_d in R%u+d: odd, so not in K[j][d]'s bank), R%u.. "
      "accumulator,\n"
      "// R%u.. %u K or V rows at a time, R%u.. scores.\n"
      "// Launch: block %u, grid (ceil(T/%u), H).\n"
      ".kernel flash_attention\n"
      ".param .ptr qkv                      // [T, 3D]\n"
      ".param .ptr out                      // [T, D]\n"
      ".param .u32 tokens                   // T\n"
      ".param .u32 dim                      // D = H*dh\n"
      ".param .f32 scale                    // 1/sqrt(dh)\n"
      ".shared Qs %u 16                     // [Br][dh+4]: rows padded against bank conflicts\n"
      ".shared Ks %u 16                     // [Bc][dh]\n"
      ".shared Vs %u 16                     // [Bc][dh]\n",
      p->dh, p->br, p->bc, p->q, p->q + 1, p->o, p->kv, p->group, p->s, p->br, p->br,
      p->br * p->qs_stride_words * 4, p->bc * p->dh * 4, p->bc * p->dh * 4);
}

static void emit_flash_setup(ws_nngen_text *t, const flash_plan *p) {
  ws_nngen_text_add(t,
                    "    S2R R0, SR_TID.X                 // r: this thread's row in the Q tile\n"
                    "    S2R R1, SR_CTAID.X               // which Q tile\n"
                    "    S2R R2, SR_CTAID.Y               // head h\n"
                    "    LDP.32 R3, [tokens]              // T\n"
                    "    LDP.32 R4, [dim]                 // D\n"
                    "    IMUL R5, R4, 3                   // QKV row stride: 3D floats\n"
                    "    LDP.64 R6, [qkv]\n"
                    "    LDP.64 R8, [out]\n"
                    "    IMUL R10, R1, %u                 // i0: the tile's first query\n"
                    "    IMUL R12, R2, %u                 // h*dh: the head's Q columns\n"
                    "    IADD R28, R12, R4                // its K columns: D + h*dh\n"
                    "    IADD R29, R28, R4                // its V columns: 2D + h*dh\n"
                    "    LDP.32 R13, [scale]\n"
                    "    FMUL R13, R13, 1.44269504        // scale*log2(e)\n"
                    "    IMUL R30, R0, %u                 // byte offset of this thread's Qs row\n",
                    p->br, p->dh, p->qs_stride_words * 4);
}

/* One tile of a cooperative copy from QKV to shared memory: `rows` rows x dh
 * columns, first row in register row0, first column in register col. */
typedef struct tile_copy {
  const char *sym;
  uint32_t stride_words, rows;
  int row0, col;
} tile_copy;

/* Quad e = tid + k*Br of a tile: R17 = e, R18 = its row in the tile, R19 =
 * its quad within the row, R20 = its row of the matrix; P2 = e exists (only
 * the last pass over a tile can be partial). */
static void emit_quad_index(ws_nngen_text *t, const flash_plan *p, const tile_copy *c, uint32_t k) {
  uint32_t qpr = p->dh / 4, total = c->rows * qpr;
  ws_nngen_text_add(t,
                    "    IADD R17, R0, %u                 // %s quad e = tid + %u\n"
                    "    SHR.U32 R18, R17, %u               // row of the tile\n"
                    "    AND R19, R17, %u                   // quad within the row\n"
                    "    IADD R20, R18, R%d\n",
                    k * p->br, c->sym, k * p->br, log2_u32(qpr), qpr - 1, c->row0);
  if ((k + 1) * p->br > total)
    ws_nngen_text_add(t, "    ISETP.LT.U32 P2, R17, %u         // a partial last pass\n", total);
}

static uint32_t tile_passes(const flash_plan *p, const tile_copy *c) {
  return (c->rows * (p->dh / 4) + p->br - 1) / p->br;
}

/* Issues the global loads of `n` quads (pass index and tile of each) into
 * staging quads from register `stage`, then stores them all to shared
 * memory: every load is in flight before the first store waits for one, so
 * the copy costs one memory latency rather than one per quad. Rows past T
 * load as zeros. */
static void emit_copy_batch(ws_nngen_text *t, const flash_plan *p, const tile_copy *const *tiles,
                            const uint32_t *pass, uint32_t n, uint32_t stage) {
  for (uint32_t i = 0; i < n; i++) {
    uint32_t r = stage + 4 * i;
    emit_quad_index(t, p, tiles[i], pass[i]);
    ws_nngen_text_add(t, "    ISETP.LT.U32 P1, R20, R3         // a row of the matrix (< T)?\n");
    if ((pass[i] + 1) * p->br > tiles[i]->rows * (p->dh / 4))
      ws_nngen_text_add(t, "@!P2 ISETP.NE.U32 P1, RZ, RZ\n");
    ws_nngen_text_add(t,
                      "    IMAD R21, R20, R5, R%d\n"
                      "    IMAD R21, R19, 4, R21\n"
                      "    IMAD.WIDE.U32 R22, R21, 4, R6\n"
                      "    MOV R%u, 0\n    MOV R%u, 0\n    MOV R%u, 0\n    MOV R%u, 0\n"
                      "@P1 LDG.128 R%u, [R22]\n",
                      tiles[i]->col, r, r + 1, r + 2, r + 3, r);
  }
  for (uint32_t i = 0; i < n; i++) {
    bool partial = (pass[i] + 1) * p->br > tiles[i]->rows * (p->dh / 4);
    emit_quad_index(t, p, tiles[i], pass[i]);
    ws_nngen_text_add(t,
                      "    IMUL R21, R18, %u\n"
                      "    IMAD R21, R19, 16, R21\n"
                      "%sSTS.128 [R21+%s], R%u\n",
                      tiles[i]->stride_words * 4, partial ? "@P2 " : "    ", tiles[i]->sym,
                      stage + 4 * i);
  }
}

/* Copies the tiles, batching as many quads as the free registers from `kv`
 * up can stage (the kv rows and scores are dead while tiles load). */
static void emit_tile_copy(ws_nngen_text *t, const flash_plan *p, const tile_copy *tiles,
                           uint32_t ntiles) {
  uint32_t cap = (p->regs - p->kv) / 4, n = 0;
  const tile_copy *batch_tiles[64];
  uint32_t batch_pass[64];
  if (cap > 64) cap = 64;
  for (uint32_t i = 0; i < ntiles; i++)
    for (uint32_t k = 0; k < tile_passes(p, &tiles[i]); k++) {
      batch_tiles[n] = &tiles[i];
      batch_pass[n++] = k;
      if (n == cap) {
        emit_copy_batch(t, p, batch_tiles, batch_pass, n, p->kv);
        n = 0;
      }
    }
  if (n) emit_copy_batch(t, p, batch_tiles, batch_pass, n, p->kv);
}

static void emit_flash_q(ws_nngen_text *t, const flash_plan *p) {
  ws_nngen_text_add(
      t, "    // ---- stage the Q tile through shared memory (coalesced 16-byte loads)\n");
  const tile_copy q = {"Qs", p->qs_stride_words, p->br, 10, 12};
  emit_tile_copy(t, p, &q, 1);
  ws_nngen_text_add(t,
                    "    BAR.SYNC\n    // ---- this thread's q row into registers, pre-scaled\n");
  for (uint32_t k = 0; k < p->dh / 4; k++)
    ws_nngen_text_add(t, "    LDS.128 R%u, [R30+Qs+%u]\n", p->kv + 4 * k, 16 * k);
  for (uint32_t d = 0; d < p->dh; d++)
    ws_nngen_text_add(t, "    FMUL R%u, R%u, R13\n", p->q + 1 + d, p->kv + d);
  for (uint32_t d = 0; d < p->dh; d++) ws_nngen_text_add(t, "    MOV R%u, 0\n", p->o + d);
  ws_nngen_text_add(t, "    MOV R15, 0fFF800000              // m = -inf: running max (base 2)\n"
                       "    MOV R16, 0                       // l: running sum of 2^(s - m)\n"
                       "    MOV R14, 0                       // j0: the K/V tile's first row\n");
}

/* Loads rows j .. j+g-1 of a K or V tile into the kv registers: every lane
 * reads the same address, so each LDS.128 is a broadcast. */
static void emit_kv_rows(ws_nngen_text *t, const flash_plan *p, const char *sym, uint32_t j,
                         uint32_t g) {
  for (uint32_t r = 0; r < g; r++)
    for (uint32_t k = 0; k < p->dh / 4; k++)
      ws_nngen_text_add(t, "    LDS.128 R%u, [RZ+%s+%u]\n", p->kv + r * p->dh + 4 * k, sym,
                        ((j + r) * p->dh + 4 * k) * 4);
}

static uint32_t group_at(const flash_plan *p, uint32_t j) {
  return p->bc - j < p->group ? p->bc - j : p->group;
}

static void emit_flash_scores(ws_nngen_text *t, const flash_plan *p) {
  ws_nngen_text_add(
      t, "    // ---- scores s_j = q . K[j], %u rows at a time, their FFMAs interleaved\n",
      p->group);
  for (uint32_t j = 0; j < p->bc; j += p->group) {
    uint32_t g = group_at(p, j);
    emit_kv_rows(t, p, "Ks", j, g);
    for (uint32_t r = 0; r < g; r++)
      ws_nngen_text_add(t, "    FMUL R%u, R%u, R%u\n", p->s + j + r, p->q + 1, p->kv + r * p->dh);
    for (uint32_t d = 1; d < p->dh; d++)
      for (uint32_t r = 0; r < g; r++)
        ws_nngen_text_add(t, "    FFMA R%u, R%u, R%u, R%u\n", p->s + j + r, p->q + 1 + d,
                          p->kv + r * p->dh + d, p->s + j + r);
  }
  ws_nngen_text_add(t,
                    "    // keys past T (only in a last, partial tile) get s = -inf, so p = 0\n"
                    "    ISUB R31, R3, R14                // keys left: T - j0\n"
                    "    ISETP.GE.U32 P4, R31, %u\n"
                    "@P4 BRA masked\n",
                    p->bc);
  for (uint32_t j = 1; j < p->bc; j++)
    ws_nngen_text_add(t, "    ISETP.LE.U32 P5, R31, %u\n@P5 MOV R%u, 0fFF800000\n", j, p->s + j);
  ws_nngen_text_add(t, "masked:\n");
}

static void emit_flash_softmax(ws_nngen_text *t, const flash_plan *p) {
  ws_nngen_text_add(
      t, "    // ---- online softmax: new max, rescale l and the accumulator once per tile\n");
  ws_nngen_text_add(t, "    FMAX R17, R15, R%u\n", p->s);
  for (uint32_t j = 1; j < p->bc; j++) ws_nngen_text_add(t, "    FMAX R17, R17, R%u\n", p->s + j);
  ws_nngen_text_add(
      t, "    FADD R18, R15, -R17              // m_old - m_new (-inf on the first tile)\n"
         "    MUFU.EX2 R18, R18                // correction 2^(m_old - m_new)\n"
         "    MOV R15, R17\n"
         "    FMUL R16, R16, R18\n");
  for (uint32_t d = 0; d < p->dh; d++)
    ws_nngen_text_add(t, "    FMUL R%u, R%u, R18\n", p->o + d, p->o + d);
  ws_nngen_text_add(
      t,
      "    // p_j = 2^(s_j - m), l += p_j: each step over all j, so no step waits on the last\n");
  for (uint32_t j = 0; j < p->bc; j++)
    ws_nngen_text_add(t, "    FADD R%u, R%u, -R15\n", p->s + j, p->s + j);
  for (uint32_t j = 0; j < p->bc; j++)
    ws_nngen_text_add(t, "    MUFU.EX2 R%u, R%u\n", p->s + j, p->s + j);
  for (uint32_t j = 0; j < p->bc; j++) ws_nngen_text_add(t, "    FADD R16, R16, R%u\n", p->s + j);
  ws_nngen_text_add(t, "    // ---- accumulator += p_j * V[j]\n");
  for (uint32_t j = 0; j < p->bc; j += p->group) {
    uint32_t g = group_at(p, j);
    emit_kv_rows(t, p, "Vs", j, g);
    for (uint32_t r = 0; r < g; r++)
      for (uint32_t d = 0; d < p->dh; d++)
        ws_nngen_text_add(t, "    FFMA R%u, R%u, R%u, R%u\n", p->o + d, p->s + j + r,
                          p->kv + r * p->dh + d, p->o + d);
  }
}

static void emit_flash_store(ws_nngen_text *t, const flash_plan *p) {
  ws_nngen_text_add(
      t, "    // ---- O leaves through shared memory: row-per-thread in, coalesced quads out\n");
  for (uint32_t k = 0; k < p->dh / 4; k++)
    ws_nngen_text_add(t, "    STS.128 [R30+Qs+%u], R%u\n", 16 * k, p->o + 4 * k);
  ws_nngen_text_add(t, "    BAR.SYNC\n");
  uint32_t qpr = p->dh / 4;
  for (uint32_t k = 0; k < qpr; k++)
    ws_nngen_text_add(t,
                      "    IADD R17, R0, %u                 // quad e = tid + %u\n"
                      "    SHR.U32 R18, R17, %u\n"
                      "    AND R19, R17, %u\n"
                      "    IADD R20, R18, R10               // the query row\n"
                      "    ISETP.LT.U32 P1, R20, R3\n"
                      "    IMUL R21, R18, %u\n"
                      "    IMAD R21, R19, 16, R21\n"
                      "    LDS.128 R24, [R21+Qs]\n"
                      "    IMAD R21, R20, R4, R12           // O[row][h*dh + 4*quad]\n"
                      "    IMAD R21, R19, 4, R21\n"
                      "    IMAD.WIDE.U32 R22, R21, 4, R8\n"
                      "@P1 STG.128 [R22], R24\n",
                      k * p->br, k * p->br, log2_u32(qpr), qpr - 1, p->qs_stride_words * 4);
  ws_nngen_text_add(t, "    EXIT\n");
}

static void emit_flash_loop(ws_nngen_text *t, const flash_plan *p) {
  ws_nngen_text_add(
      t, "kv_loop:                             // uniform: every thread runs every tile\n"
         "    ISETP.GE.U32 P3, R14, R3\n"
         "@P3 BRA kv_done\n"
         "    BAR.SYNC                         // the previous K/V tile is no longer read\n"
         "    // ---- stream the K and V tiles into shared memory\n");
  const tile_copy kv[2] = {{"Ks", p->dh, p->bc, 14, 28}, {"Vs", p->dh, p->bc, 14, 29}};
  emit_tile_copy(t, p, kv, 2);
  ws_nngen_text_add(t, "    BAR.SYNC\n");
  emit_flash_scores(t, p);
  emit_flash_softmax(t, p);
  ws_nngen_text_add(t,
                    "    IADD R14, R14, %u\n"
                    "    BRA kv_loop\n"
                    "kv_done:\n"
                    "    // ---- O = accumulator / l, written once\n"
                    "    MUFU.RCP R16, R16\n",
                    p->bc);
  for (uint32_t d = 0; d < p->dh; d++)
    ws_nngen_text_add(t, "    FMUL R%u, R%u, R16\n", p->o + d, p->o + d);
  emit_flash_store(t, p);
}

ws_status ws_attngen_flash_source(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t head_dim,
                                  const ws_attngen_flash_cfg *fc, char **out) {
  *out = NULL;
  ws_status st = ws_attngen_flash_validate(ctx, cfg, head_dim, fc);
  if (st != WS_OK) return st;
  flash_plan p = flash_plan_make(head_dim, fc);
  ws_nngen_text t;
  ws_nngen_text_init(&t);
  emit_flash_header(&t, &p);
  emit_flash_setup(&t, &p);
  emit_flash_q(&t, &p);
  emit_flash_loop(&t, &p);
  return ws_nngen_text_take(ctx, &t, out);
}

ws_status ws_attngen_flash_run(ws_device *dev, const ws_attngen_shape *s,
                               const ws_attngen_flash_cfg *fc, uint64_t qkv, uint64_t out,
                               ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_dim3 grid, block;
  ws_status st = ws_attngen_flash_geometry(ctx, s, fc, &grid, &block);
  if (st != WS_OK) return st;
  if ((qkv | out) % 16)
    return ws_ctx_fail(
        ctx, WS_ERR_INVALID,
        "flash attention: qkv (0x%llx) and out (0x%llx) must be 16-byte aligned (LDG.128/STG.128)",
        (unsigned long long)qkv, (unsigned long long)out);
  char *src = NULL;
  ws_nngen_kernel k;
  st = build(ctx, ws_attngen_flash_source(ctx, ws_device_cfg(dev), s->head_dim, fc, &src), &src,
             "flash_attention.wsa", &k);
  if (st == WS_OK) st = bind_common(ctx, &k, s, qkv);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "out", out);
  if (st == WS_OK) st = ws_nngen_kernel_f32(ctx, &k, "scale", 1.0f / sqrtf((float)s->head_dim));
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, &k, grid, block, stats);
  ws_nngen_kernel_release(&k);
  return st;
}
