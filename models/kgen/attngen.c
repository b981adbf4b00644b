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
 * coalesced. The flash kernel is written through models/kgen/kbuild.h, which
 * names its registers; the naive kernels are fixed files
 * (models/kgen/kernels/attn_*.wsa), plain loops whose trip counts are kernel
 * parameters. */
#include "models/kgen/attngen.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/kgen/kbuild.h"
#include "models/kgen/nngen.h"

#define NAIVE_TILE 16 /* the naive kernels' CTA is 16 x 16 threads */
#define SOFTMAX_WARPS 4
#define FLASH_FIXED_REGS 32 /* the scalars flash_alloc_scalars hands out: R0..R31 */
#define ISA_MAX_REGS 255    /* R0..R254 */

static uint32_t batch_of(const ws_attngen_shape *s) { return s->batch ? s->batch : 1; }

static ws_status check_shape(ws_ctx *ctx, const ws_attngen_shape *s) {
  uint64_t d = (uint64_t)s->heads * s->head_dim, n = batch_of(s);
  if (!s->tokens || !s->heads || !s->head_dim || n * s->tokens * 3 * d > UINT32_MAX ||
      n * s->heads * s->tokens * s->tokens > UINT32_MAX)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "attention shape T=%u H=%u dh=%u batch %u: each must be at least 1 and batch*T*3*H*dh "
                       "and batch*H*T*T must fit in 32 bits",
                       s->tokens, s->heads, s->head_dim, (uint32_t)n);
  return WS_OK;
}

/* ---- naive ---------------------------------------------------------------------------- */

ws_status ws_attngen_scores_source(ws_ctx *ctx, char **out) {
  return ws_nngen_fixed_source(ctx, "models/kgen/kernels/attn_scores.wsa", out);
}

ws_status ws_attngen_pv_source(ws_ctx *ctx, char **out) {
  return ws_nngen_fixed_source(ctx, "models/kgen/kernels/attn_pv.wsa", out);
}

ws_status ws_attngen_naive_geometry(ws_ctx *ctx, const ws_attngen_shape *s, ws_attngen_stage stage,
                                    ws_dim3 *grid, ws_dim3 *block) {
  ws_status st = check_shape(ctx, s);
  if (st != WS_OK) return st;
  uint32_t t16 = (s->tokens + NAIVE_TILE - 1) / NAIVE_TILE;
  *block = (ws_dim3){NAIVE_TILE, NAIVE_TILE, 1};
  switch (stage) {
  case WS_ATTNGEN_SCORES: *grid = (ws_dim3){t16, t16, batch_of(s) * s->heads}; return WS_OK;
  case WS_ATTNGEN_SOFTMAX:
    return ws_nngen_rows_geometry(ctx, batch_of(s) * s->heads * s->tokens, SOFTMAX_WARPS, grid, block);
  case WS_ATTNGEN_PV:
    *grid = (ws_dim3){(s->head_dim + NAIVE_TILE - 1) / NAIVE_TILE, t16, batch_of(s) * s->heads};
    return WS_OK;
  default: return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown attention stage %d", (int)stage);
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
static ws_status bind_common(ws_ctx *ctx, ws_nngen_kernel *k, const ws_attngen_shape *s, uint64_t qkv) {
  ws_status st = ws_nngen_kernel_ptr(ctx, k, "qkv", qkv);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, k, "tokens", s->tokens);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, k, "dim", s->heads * s->head_dim);
  return st;
}

/* z = n*H + h of a naive kernel split without a division (attn_scores.wsa):
 * n = hi32(z * head_magic) + z * head_one, h = z + n * neg_heads. */
static ws_status bind_heads(ws_ctx *ctx, ws_nngen_kernel *k, const ws_attngen_shape *s) {
  uint32_t magic = s->heads > 1 ? (uint32_t)((((uint64_t)1 << 32) + s->heads - 1) / s->heads) : 0;
  ws_status st = ws_nngen_kernel_u32(ctx, k, "head_magic", magic);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, k, "head_one", s->heads == 1);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, k, "neg_heads", 0u - s->heads);
  return st;
}

static ws_status run_scores(ws_device *dev, const ws_attngen_shape *s, uint64_t qkv, uint64_t scores,
                            ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_dim3 grid, block;
  ws_status st = build(ctx, ws_attngen_scores_source(ctx, &src), &src, "attn_scores.wsa", &k);
  if (st == WS_OK) st = bind_common(ctx, &k, s, qkv);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "scores", scores);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, &k, "head_dim", s->head_dim);
  if (st == WS_OK) st = ws_nngen_kernel_f32(ctx, &k, "scale", 1.0f / sqrtf((float)s->head_dim));
  if (st == WS_OK) st = bind_heads(ctx, &k, s);
  if (st == WS_OK) st = ws_attngen_naive_geometry(ctx, s, WS_ATTNGEN_SCORES, &grid, &block);
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, &k, grid, block, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

static ws_status run_pv(ws_device *dev, const ws_attngen_shape *s, uint64_t qkv, uint64_t probs, uint64_t out,
                        ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  char *src = NULL;
  ws_nngen_kernel k;
  ws_dim3 grid, block;
  ws_status st = build(ctx, ws_attngen_pv_source(ctx, &src), &src, "attn_pv.wsa", &k);
  if (st == WS_OK) st = bind_common(ctx, &k, s, qkv);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "probs", probs);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "out", out);
  if (st == WS_OK) st = ws_nngen_kernel_u32(ctx, &k, "head_dim", s->head_dim);
  if (st == WS_OK) st = bind_heads(ctx, &k, s);
  if (st == WS_OK) st = ws_attngen_naive_geometry(ctx, s, WS_ATTNGEN_PV, &grid, &block);
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, &k, grid, block, stats);
  ws_nngen_kernel_release(&k);
  return st;
}

ws_status ws_attngen_naive_stage_run(ws_device *dev, const ws_attngen_shape *s, ws_attngen_stage stage,
                                     uint64_t qkv, uint64_t scores, uint64_t out, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_status st = check_shape(ctx, s);
  if (st != WS_OK) return st;
  switch (stage) {
  case WS_ATTNGEN_SCORES: return run_scores(dev, s, qkv, scores, stats);
  case WS_ATTNGEN_SOFTMAX:
    return ws_nngen_softmax_run(dev, batch_of(s) * s->heads * s->tokens, s->tokens, scores, scores, stats);
  case WS_ATTNGEN_PV: return run_pv(dev, s, qkv, scores, out, stats);
  default: return ws_ctx_fail(ctx, WS_ERR_INVALID, "unknown attention stage %d", (int)stage);
  }
}

ws_status ws_attngen_naive_run(ws_device *dev, const ws_attngen_shape *s, uint64_t qkv, uint64_t scores,
                               uint64_t out, ws_launch_stats stats[WS_ATTNGEN_STAGE_COUNT]) {
  ws_status st = WS_OK;
  for (int k = 0; k < WS_ATTNGEN_STAGE_COUNT && st == WS_OK; k++)
    st = ws_attngen_naive_stage_run(dev, s, (ws_attngen_stage)k, qkv, scores, out, stats ? &stats[k] : NULL);
  return st;
}

/* ---- flash: plan and validation ---------------------------------------------------------- */

/* Where everything lives: 32 scalar registers (indices, pointers, m, l,
 * temporaries: flash_alloc); the q row (dh + 4 registers: q_d is in q+1+d,
 * an odd shift that puts q_d and K[j][d] in different register banks, so an
 * FFMA collects its operands in two cycles rather than three); the output
 * accumulator; `group` K or V rows; and the Bc scores. The group is how many
 * K rows have their dot products interleaved (4 when the registers allow,
 * else 2 or 1): a lone dot product is a chain of dh dependent FFMAs, each
 * waiting out the FP32 latency. */
typedef struct flash_plan {
  uint32_t dh, br, bc;
  uint32_t qs_stride_words; /* Qs rows padded by 4 words: conflict-free LDS.128 of a row per lane */
  uint32_t group;
  bool batched; /* grid z is the image: QKV and O move on by one image's rows */
  /* scalars */
  ws_kreg tid, tile, head, tokens, dim, stride, qkv, out, i0, qcol, scale, j0, m, l;
  ws_kreg e, trow, quad, mrow, idx, addr, ostage, kcol, vcol, qsoff, left;
  ws_kreg q, o, kv, s; /* first register of each array */
  uint32_t regs;
} flash_plan;

/* The scalars, in register order. h*dh is aligned to 4 so that every later
 * register keeps the number, and so the bank (number % 2), it had when the
 * kernel was tuned; the O quad is an LDS.128 target. */
#define FP(field, name, count, align)                                                                        \
  { offsetof(flash_plan, field), name, count, align }
static const ws_kbuild_regspec flash_scalars[] = {
    FP(tid, "r: row in the Q tile", 1, 1),
    FP(tile, "Q tile", 1, 1),
    FP(head, "h", 1, 1),
    FP(tokens, "T", 1, 1),
    FP(dim, "D", 1, 1),
    FP(stride, "3D", 1, 1),
    FP(qkv, "qkv", 2, 2),
    FP(out, "out", 2, 2),
    FP(i0, "i0", 1, 1),
    FP(qcol, "h*dh", 1, 4),
    FP(scale, "scale*log2e", 1, 1),
    FP(j0, "j0", 1, 1),
    FP(m, "m", 1, 1),
    FP(l, "l", 1, 1),
    FP(e, "quad e", 1, 1),
    FP(trow, "tile row", 1, 1),
    FP(quad, "quad in row", 1, 1),
    FP(mrow, "matrix row", 1, 1),
    FP(idx, "index", 1, 1),
    FP(addr, "address", 2, 2),
    FP(ostage, "O quad", 4, 4),
    FP(kcol, "K columns", 1, 1),
    FP(vcol, "V columns", 1, 1),
    FP(qsoff, "Qs row offset", 1, 1),
    FP(left, "keys left", 1, 1),
};
#undef FP

static void flash_alloc(ws_kbuild *k, flash_plan *p) {
  ws_kbuild_reg_table(k, p, flash_scalars, sizeof flash_scalars / sizeof flash_scalars[0]);
  p->q = ws_kbuild_regs(k, "q (q_d at +1+d)", p->dh + 4, 1);
  p->o = ws_kbuild_regs(k, "accumulator", p->dh, 4);
  p->kv = ws_kbuild_regs(k, "K/V rows", p->group * p->dh, 4);
  p->s = ws_kbuild_regs(k, "scores", p->bc, 1);
  p->regs = ws_kbuild_nregs(k);
}

/* The plan's numbers; its registers go into `k` (a scratch builder when
 * only the count is wanted). */
static flash_plan flash_plan_make(ws_kbuild *k, uint32_t head_dim, const ws_attngen_flash_cfg *fc,
                                  bool batched) {
  flash_plan p = {.dh = head_dim,
                  .br = fc->br,
                  .bc = fc->bc,
                  .qs_stride_words = head_dim + 4,
                  .group = 4,
                  .batched = batched};
  while (p.group > 1 && FLASH_FIXED_REGS + 4 + (2 + p.group) * head_dim + fc->bc > ISA_MAX_REGS) p.group /= 2;
  flash_alloc(k, &p);
  return p;
}

uint32_t ws_attngen_flash_regs(uint32_t head_dim, const ws_attngen_flash_cfg *fc) {
  ws_kbuild k;
  ws_kbuild_init(&k);
  uint32_t regs = flash_plan_make(&k, head_dim, fc, false).regs;
  ws_kbuild_free(&k);
  return regs;
}

uint32_t ws_attngen_flash_smem_bytes(uint32_t head_dim, const ws_attngen_flash_cfg *fc) {
  uint64_t q = (uint64_t)fc->br * (head_dim + 4) * 4, kv = 2ull * fc->bc * head_dim * 4;
  return q + kv > UINT32_MAX ? UINT32_MAX : (uint32_t)(q + kv);
}

static ws_status check_flash_code(ws_ctx *ctx, uint32_t dh, const ws_attngen_flash_cfg *fc) {
  if (dh < 4 || dh > 64 || (dh & (dh - 1)))
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "flash attention: head_dim must be a power of two from 4 to 64 (rows move as "
                       "16-byte quads), got %u",
                       dh);
  if (fc->br == 0 || fc->br % 32)
    return ws_ctx_fail(ctx, WS_ERR_INVALID,
                       "flash attention: Br must be a positive multiple of 32 (one thread per Q row, whole "
                       "warps), got %u",
                       fc->br);
  if (fc->bc == 0 || fc->bc > ISA_MAX_REGS)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "flash attention: Bc must be 1..%u, got %u", ISA_MAX_REGS,
                       fc->bc);
  return WS_OK;
}

uint32_t ws_attngen_flash_default_bc(uint32_t head_dim, uint32_t br) {
  if (head_dim < 4 || head_dim > 64 || (head_dim & (head_dim - 1))) return 64;
  uint32_t bc = 64;
  while (bc > 1 && ws_attngen_flash_regs(head_dim, &(ws_attngen_flash_cfg){br, bc}) > ISA_MAX_REGS) bc /= 2;
  return bc;
}

ws_status ws_attngen_flash_validate(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t head_dim,
                                    const ws_attngen_flash_cfg *fc) {
  ws_status st = check_flash_code(ctx, head_dim, fc);
  if (st != WS_OK) return st;
  if (fc->br > cfg->sm.max_threads_per_block)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "flash attention: Br=%u threads per CTA exceeds %s's limit of %u",
                       fc->br, cfg->gpu.name, cfg->sm.max_threads_per_block);
  uint32_t regs = ws_attngen_flash_regs(head_dim, fc);
  uint32_t reg_limit =
      cfg->regfile.max_regs_per_thread < ISA_MAX_REGS ? cfg->regfile.max_regs_per_thread : ISA_MAX_REGS;
  if (regs > reg_limit)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "flash attention: Bc=%u with dh=%u needs %u registers per thread (at least "
                       "36 + 3*dh + Bc); "
                       "%s allows %u",
                       fc->bc, head_dim, regs, cfg->gpu.name, reg_limit);
  uint32_t smem = ws_attngen_flash_smem_bytes(head_dim, fc);
  if (smem > cfg->smem.max_per_block_bytes)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "flash attention: Br=%u, Bc=%u, dh=%u needs %u bytes of shared memory per CTA "
                       "(Q tile Br*(dh+4)*4 + K and V tiles 2*Bc*dh*4); %s allows %u",
                       fc->br, fc->bc, head_dim, smem, cfg->gpu.name, cfg->smem.max_per_block_bytes);
  ws_occupancy occ;
  return ws_occupancy_compute(ctx, cfg, fc->br, regs, smem, &occ);
}

ws_status ws_attngen_flash_geometry(ws_ctx *ctx, const ws_attngen_shape *s, const ws_attngen_flash_cfg *fc,
                                    ws_dim3 *grid, ws_dim3 *block) {
  ws_status st = check_shape(ctx, s);
  if (st == WS_OK) st = check_flash_code(ctx, s->head_dim, fc);
  if (st != WS_OK) return st;
  *grid = (ws_dim3){(s->tokens + fc->br - 1) / fc->br, s->heads, batch_of(s)};
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

static void emit_flash_header(ws_kbuild *k, const flash_plan *p) {
  ws_kbuild_line(k, "// flash_attention.wsa - fused multi-head attention, FlashAttention style, for");
  ws_kbuild_line(k, "// dh = %u, Br = %u query rows per CTA, Bc = %u key/value rows per tile.", p->dh, p->br,
                 p->bc);
  ws_kbuild_line(k, "%s",
                 "// A CTA of Br threads handles one Q tile of one head; thread r owns query row\n"
                 "// i0 + r. The Q tile is staged through shared memory into registers, then K/V\n"
                 "// tiles stream through shared memory; per tile each thread computes its Bc\n"
                 "// scores (in base 2: q is pre-scaled by scale*log2(e)), updates the running max m\n"
                 "// and sum l, rescales its accumulator once, and adds p_j * V[j]. O is written\n"
                 "// once. S never reaches device memory.");
  ws_kbuild_line(k, "// K or V rows are read %u at a time; q_d is in q+1+d, odd, so not in K[j][d]'s",
                 p->group);
  ws_kbuild_line(k, "// register bank. Launch: block %u, grid (ceil(T/%u), H%s).", p->br, p->br,
                 p->batched ? ", images" : "");
  ws_kbuild_reg_map(k);
  ws_kbuild_line(k, "%s",
                 ".kernel flash_attention\n"
                 ".param .ptr qkv                      // [T, 3D]\n"
                 ".param .ptr out                      // [T, D]\n"
                 ".param .u32 tokens                   // T\n"
                 ".param .u32 dim                      // D = H*dh\n"
                 ".param .f32 scale                    // 1/sqrt(dh)");
  ws_kbuild_line(k, ".shared Qs %u 16                     // [Br][dh+4]: rows padded against bank conflicts",
                 p->br * p->qs_stride_words * 4);
  ws_kbuild_line(k, ".shared Ks %u 16                     // [Bc][dh]", p->bc * p->dh * 4);
  ws_kbuild_line(k, ".shared Vs %u 16                     // [Bc][dh]", p->bc * p->dh * 4);
}

/* A batch: image n = ctaid.z starts n*T rows further in QKV ([batch*T, 3D])
 * and in O ([batch*T, D]). The quad registers are free until the first
 * tile copy. */
static void emit_flash_image(ws_kbuild *k, const flash_plan *p) {
  ws_kbuild_ins(k, "S2R %r, SR_CTAID.Z // n: the image", p->e);
  ws_kbuild_ins(k, "IMUL %r, %r, %r // n*T: the image's first row", p->e, p->e, p->tokens);
  ws_kbuild_ins(k, "IMUL %r, %r, %r // its first QKV float", p->trow, p->e, p->stride);
  ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r", p->qkv, p->trow, p->qkv);
  ws_kbuild_ins(k, "IMUL %r, %r, %r // its first output float", p->trow, p->e, p->dim);
  ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r", p->out, p->trow, p->out);
}

static void emit_flash_setup(ws_kbuild *k, const flash_plan *p) {
  ws_kbuild_ins(k, "S2R %r, SR_TID.X // r: this thread's row in the Q tile", p->tid);
  ws_kbuild_ins(k, "S2R %r, SR_CTAID.X // which Q tile", p->tile);
  ws_kbuild_ins(k, "S2R %r, SR_CTAID.Y // head h", p->head);
  ws_kbuild_ins(k, "LDP.32 %r, [tokens] // T", p->tokens);
  ws_kbuild_ins(k, "LDP.32 %r, [dim] // D", p->dim);
  ws_kbuild_ins(k, "IMUL %r, %r, 3 // QKV row stride: 3D floats", p->stride, p->dim);
  ws_kbuild_ins(k, "LDP.64 %r, [qkv]", p->qkv);
  ws_kbuild_ins(k, "LDP.64 %r, [out]", p->out);
  if (p->batched) emit_flash_image(k, p);
  ws_kbuild_ins(k, "IMUL %r, %r, %u // i0: the tile's first query", p->i0, p->tile, p->br);
  ws_kbuild_ins(k, "IMUL %r, %r, %u // h*dh: the head's Q columns", p->qcol, p->head, p->dh);
  ws_kbuild_ins(k, "IADD %r, %r, %r // its K columns: D + h*dh", p->kcol, p->qcol, p->dim);
  ws_kbuild_ins(k, "IADD %r, %r, %r // its V columns: 2D + h*dh", p->vcol, p->kcol, p->dim);
  ws_kbuild_ins(k, "LDP.32 %r, [scale]", p->scale);
  ws_kbuild_ins(k, "FMUL %r, %r, 1.44269504 // scale*log2(e)", p->scale, p->scale);
  ws_kbuild_ins(k, "IMUL %r, %r, %u // byte offset of this thread's Qs row", p->qsoff, p->tid,
                p->qs_stride_words * 4);
}

/* One tile of a cooperative copy from QKV to shared memory: `rows` rows x dh
 * columns, first row in register row0, first column in register col. */
typedef struct tile_copy {
  const char *sym;
  uint32_t stride_words, rows;
  ws_kreg row0, col;
} tile_copy;

/* Quad e = tid + pass*Br of a tile: its row in the tile, its quad within
 * the row, its row of the matrix; P2 = e exists (only the last pass over a
 * tile can be partial). */
static void emit_quad_index(ws_kbuild *k, const flash_plan *p, const tile_copy *c, uint32_t pass) {
  uint32_t qpr = p->dh / 4, total = c->rows * qpr;
  ws_kbuild_ins(k, "IADD %r, %r, %u // %s quad e = tid + %u", p->e, p->tid, pass * p->br, c->sym,
                pass * p->br);
  ws_kbuild_ins(k, "SHR.U32 %r, %r, %u // row of the tile", p->trow, p->e, log2_u32(qpr));
  ws_kbuild_ins(k, "AND %r, %r, %u // quad within the row", p->quad, p->e, qpr - 1);
  ws_kbuild_ins(k, "IADD %r, %r, %r", p->mrow, p->trow, c->row0);
  if ((pass + 1) * p->br > total)
    ws_kbuild_ins(k, "ISETP.LT.U32 P2, %r, %u // a partial last pass", p->e, total);
}

static uint32_t tile_passes(const flash_plan *p, const tile_copy *c) {
  return (c->rows * (p->dh / 4) + p->br - 1) / p->br;
}

static bool pass_partial(const flash_plan *p, const tile_copy *c, uint32_t pass) {
  return (pass + 1) * p->br > c->rows * (p->dh / 4);
}

/* Issues the global loads of `n` quads (pass index and tile of each) into
 * staging quads from register `stage`, then stores them all to shared
 * memory: every load is in flight before the first store waits for one, so
 * the copy costs one memory latency rather than one per quad. Rows past T
 * load as zeros. */
static void emit_copy_batch(ws_kbuild *k, const flash_plan *p, const tile_copy *const *tiles,
                            const uint32_t *pass, uint32_t n, ws_kreg stage) {
  for (uint32_t i = 0; i < n; i++) {
    ws_kreg r = ws_kreg_at(stage, 4 * i);
    emit_quad_index(k, p, tiles[i], pass[i]);
    ws_kbuild_ins(k, "ISETP.LT.U32 P1, %r, %r // a row of the matrix (< T)?", p->mrow, p->tokens);
    if (pass_partial(p, tiles[i], pass[i])) ws_kbuild_ins(k, "@!P2 ISETP.NE.U32 P1, RZ, RZ");
    ws_kbuild_ins(k, "IMAD %r, %r, %r, %r", p->idx, p->mrow, p->stride, tiles[i]->col);
    ws_kbuild_ins(k, "IMAD %r, %r, 4, %r", p->idx, p->quad, p->idx);
    ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r", p->addr, p->idx, p->qkv);
    for (uint32_t j = 0; j < 4; j++) ws_kbuild_ins(k, "MOV %r, 0", ws_kreg_at(r, j));
    ws_kbuild_ins(k, "@P1 LDG.128 %r, [%r]", r, p->addr);
  }
  for (uint32_t i = 0; i < n; i++) {
    emit_quad_index(k, p, tiles[i], pass[i]);
    ws_kbuild_ins(k, "IMUL %r, %r, %u", p->idx, p->trow, tiles[i]->stride_words * 4);
    ws_kbuild_ins(k, "IMAD %r, %r, 16, %r", p->idx, p->quad, p->idx);
    ws_kbuild_ins(k, "%sSTS.128 [%r+%s], %r", pass_partial(p, tiles[i], pass[i]) ? "@P2 " : "", p->idx,
                  tiles[i]->sym, ws_kreg_at(stage, 4 * i));
  }
}

/* Copies the tiles, batching as many quads as the free registers from `kv`
 * up can stage (the kv rows and scores are dead while tiles load). */
static void emit_tile_copy(ws_kbuild *k, const flash_plan *p, const tile_copy *tiles, uint32_t ntiles) {
  uint32_t cap = (p->regs - p->kv.n) / 4, n = 0;
  const tile_copy *batch_tiles[64];
  uint32_t batch_pass[64];
  if (cap > 64) cap = 64;
  for (uint32_t i = 0; i < ntiles; i++)
    for (uint32_t q = 0; q < tile_passes(p, &tiles[i]); q++) {
      batch_tiles[n] = &tiles[i];
      batch_pass[n++] = q;
      if (n == cap) {
        emit_copy_batch(k, p, batch_tiles, batch_pass, n, p->kv);
        n = 0;
      }
    }
  if (n) emit_copy_batch(k, p, batch_tiles, batch_pass, n, p->kv);
}

static void emit_flash_q(ws_kbuild *k, const flash_plan *p) {
  ws_kbuild_line(k, "    // ---- stage the Q tile through shared memory (coalesced 16-byte loads)");
  const tile_copy q = {"Qs", p->qs_stride_words, p->br, p->i0, p->qcol};
  emit_tile_copy(k, p, &q, 1);
  ws_kbuild_ins(k, "BAR.SYNC");
  ws_kbuild_line(k, "    // ---- this thread's q row into registers, pre-scaled");
  for (uint32_t i = 0; i < p->dh / 4; i++)
    ws_kbuild_ins(k, "LDS.128 %r, [%r+Qs+%u]", ws_kreg_at(p->kv, 4 * i), p->qsoff, 16 * i);
  for (uint32_t d = 0; d < p->dh; d++)
    ws_kbuild_ins(k, "FMUL %r, %r, %r", ws_kreg_at(p->q, 1 + d), ws_kreg_at(p->kv, d), p->scale);
  for (uint32_t d = 0; d < p->dh; d++) ws_kbuild_ins(k, "MOV %r, 0", ws_kreg_at(p->o, d));
  ws_kbuild_ins(k, "MOV %r, 0fFF800000 // m = -inf: running max (base 2)", p->m);
  ws_kbuild_ins(k, "MOV %r, 0 // l: running sum of 2^(s - m)", p->l);
  ws_kbuild_ins(k, "MOV %r, 0 // j0: the K/V tile's first row", p->j0);
}

/* Loads rows j .. j+g-1 of a K or V tile into the kv registers: every lane
 * reads the same address, so each LDS.128 is a broadcast. */
static void emit_kv_rows(ws_kbuild *k, const flash_plan *p, const char *sym, uint32_t j, uint32_t g) {
  for (uint32_t r = 0; r < g; r++)
    for (uint32_t i = 0; i < p->dh / 4; i++)
      ws_kbuild_ins(k, "LDS.128 %r, [RZ+%s+%u]", ws_kreg_at(p->kv, r * p->dh + 4 * i), sym,
                    ((j + r) * p->dh + 4 * i) * 4);
}

static uint32_t group_at(const flash_plan *p, uint32_t j) {
  return p->bc - j < p->group ? p->bc - j : p->group;
}

/* s_j .. s_j+g-1 = q . K[j..j+g-1], the g dot products' FFMAs interleaved. */
static void emit_score_group(ws_kbuild *k, const flash_plan *p, uint32_t j, uint32_t g) {
  emit_kv_rows(k, p, "Ks", j, g);
  for (uint32_t r = 0; r < g; r++)
    ws_kbuild_ins(k, "FMUL %r, %r, %r", ws_kreg_at(p->s, j + r), ws_kreg_at(p->q, 1),
                  ws_kreg_at(p->kv, r * p->dh));
  for (uint32_t d = 1; d < p->dh; d++)
    for (uint32_t r = 0; r < g; r++)
      ws_kbuild_ins(k, "FFMA %r, %r, %r, %r", ws_kreg_at(p->s, j + r), ws_kreg_at(p->q, 1 + d),
                    ws_kreg_at(p->kv, r * p->dh + d), ws_kreg_at(p->s, j + r));
}

static void emit_flash_scores(ws_kbuild *k, const flash_plan *p) {
  ws_kbuild_line(k, "    // ---- scores s_j = q . K[j], %u rows at a time, their FFMAs interleaved",
                 p->group);
  for (uint32_t j = 0; j < p->bc; j += p->group) emit_score_group(k, p, j, group_at(p, j));
  ws_klabel masked = ws_kbuild_label(k, "masked");
  ws_kbuild_line(k, "    // keys past T (only in a last, partial tile) get s = -inf, so p = 0");
  ws_kbuild_ins(k, "ISUB %r, %r, %r // keys left: T - j0", p->left, p->tokens, p->j0);
  ws_kbuild_ins(k, "ISETP.GE.U32 P4, %r, %u", p->left, p->bc);
  ws_kbuild_ins(k, "@P4 BRA %l", masked);
  for (uint32_t j = 1; j < p->bc; j++) {
    ws_kbuild_ins(k, "ISETP.LE.U32 P5, %r, %u", p->left, j);
    ws_kbuild_ins(k, "@P5 MOV %r, 0fFF800000", ws_kreg_at(p->s, j));
  }
  ws_kbuild_place(k, masked);
}

static void emit_flash_softmax(ws_kbuild *k, const flash_plan *p) {
  ws_kbuild_line(k, "    // ---- online softmax: new max, rescale l and the accumulator once per tile");
  ws_kbuild_ins(k, "FMAX %r, %r, %r", p->e, p->m, p->s);
  for (uint32_t j = 1; j < p->bc; j++) ws_kbuild_ins(k, "FMAX %r, %r, %r", p->e, p->e, ws_kreg_at(p->s, j));
  ws_kbuild_ins(k, "FADD %r, %r, -%r // m_old - m_new (-inf on the first tile)", p->trow, p->m, p->e);
  ws_kbuild_ins(k, "MUFU.EX2 %r, %r // correction 2^(m_old - m_new)", p->trow, p->trow);
  ws_kbuild_ins(k, "MOV %r, %r", p->m, p->e);
  ws_kbuild_ins(k, "FMUL %r, %r, %r", p->l, p->l, p->trow);
  for (uint32_t d = 0; d < p->dh; d++)
    ws_kbuild_ins(k, "FMUL %r, %r, %r", ws_kreg_at(p->o, d), ws_kreg_at(p->o, d), p->trow);
  ws_kbuild_line(k, "    // p_j = 2^(s_j - m), l += p_j: each step over all j, so no step waits on the last");
  for (uint32_t j = 0; j < p->bc; j++)
    ws_kbuild_ins(k, "FADD %r, %r, -%r", ws_kreg_at(p->s, j), ws_kreg_at(p->s, j), p->m);
  for (uint32_t j = 0; j < p->bc; j++)
    ws_kbuild_ins(k, "MUFU.EX2 %r, %r", ws_kreg_at(p->s, j), ws_kreg_at(p->s, j));
  for (uint32_t j = 0; j < p->bc; j++) ws_kbuild_ins(k, "FADD %r, %r, %r", p->l, p->l, ws_kreg_at(p->s, j));
  ws_kbuild_line(k, "    // ---- accumulator += p_j * V[j]");
  for (uint32_t j = 0; j < p->bc; j += p->group) {
    uint32_t g = group_at(p, j);
    emit_kv_rows(k, p, "Vs", j, g);
    for (uint32_t r = 0; r < g; r++)
      for (uint32_t d = 0; d < p->dh; d++)
        ws_kbuild_ins(k, "FFMA %r, %r, %r, %r", ws_kreg_at(p->o, d), ws_kreg_at(p->s, j + r),
                      ws_kreg_at(p->kv, r * p->dh + d), ws_kreg_at(p->o, d));
  }
}

/* One quad of the output: from its Qs row (rows of qs_stride words) to O. */
static void emit_store_quad(ws_kbuild *k, const flash_plan *p, uint32_t pass) {
  uint32_t qpr = p->dh / 4;
  ws_kbuild_ins(k, "IADD %r, %r, %u // quad e = tid + %u", p->e, p->tid, pass * p->br, pass * p->br);
  ws_kbuild_ins(k, "SHR.U32 %r, %r, %u", p->trow, p->e, log2_u32(qpr));
  ws_kbuild_ins(k, "AND %r, %r, %u", p->quad, p->e, qpr - 1);
  ws_kbuild_ins(k, "IADD %r, %r, %r // the query row", p->mrow, p->trow, p->i0);
  ws_kbuild_ins(k, "ISETP.LT.U32 P1, %r, %r", p->mrow, p->tokens);
  ws_kbuild_ins(k, "IMUL %r, %r, %u", p->idx, p->trow, p->qs_stride_words * 4);
  ws_kbuild_ins(k, "IMAD %r, %r, 16, %r", p->idx, p->quad, p->idx);
  ws_kbuild_ins(k, "LDS.128 %r, [%r+Qs]", p->ostage, p->idx);
  ws_kbuild_ins(k, "IMAD %r, %r, %r, %r // O[row][h*dh + 4*quad]", p->idx, p->mrow, p->dim, p->qcol);
  ws_kbuild_ins(k, "IMAD %r, %r, 4, %r", p->idx, p->quad, p->idx);
  ws_kbuild_ins(k, "IMAD.WIDE.U32 %r, %r, 4, %r", p->addr, p->idx, p->out);
  ws_kbuild_ins(k, "@P1 STG.128 [%r], %r", p->addr, p->ostage);
}

static void emit_flash_store(ws_kbuild *k, const flash_plan *p) {
  ws_kbuild_line(k, "    // ---- O leaves through shared memory: row-per-thread in, coalesced quads out");
  for (uint32_t i = 0; i < p->dh / 4; i++)
    ws_kbuild_ins(k, "STS.128 [%r+Qs+%u], %r", p->qsoff, 16 * i, ws_kreg_at(p->o, 4 * i));
  ws_kbuild_ins(k, "BAR.SYNC");
  for (uint32_t i = 0; i < p->dh / 4; i++) emit_store_quad(k, p, i);
  ws_kbuild_ins(k, "EXIT");
}

static void emit_flash_loop(ws_kbuild *k, const flash_plan *p) {
  ws_klabel top = ws_kbuild_label(k, "kv_loop"), done = ws_kbuild_label(k, "kv_done");
  ws_kbuild_line(k, "    // ---- one K/V tile per trip; uniform: every thread runs every tile");
  ws_kbuild_place(k, top);
  ws_kbuild_ins(k, "ISETP.GE.U32 P3, %r, %r", p->j0, p->tokens);
  ws_kbuild_ins(k, "@P3 BRA %l", done);
  ws_kbuild_ins(k, "BAR.SYNC // the previous K/V tile is no longer read");
  ws_kbuild_line(k, "    // ---- stream the K and V tiles into shared memory");
  const tile_copy kv[2] = {{"Ks", p->dh, p->bc, p->j0, p->kcol}, {"Vs", p->dh, p->bc, p->j0, p->vcol}};
  emit_tile_copy(k, p, kv, 2);
  ws_kbuild_ins(k, "BAR.SYNC");
  emit_flash_scores(k, p);
  emit_flash_softmax(k, p);
  ws_kbuild_ins(k, "IADD %r, %r, %u", p->j0, p->j0, p->bc);
  ws_kbuild_ins(k, "BRA %l", top);
  ws_kbuild_place(k, done);
  ws_kbuild_line(k, "    // ---- O = accumulator / l, written once");
  ws_kbuild_ins(k, "MUFU.RCP %r, %r", p->l, p->l);
  for (uint32_t d = 0; d < p->dh; d++)
    ws_kbuild_ins(k, "FMUL %r, %r, %r", ws_kreg_at(p->o, d), ws_kreg_at(p->o, d), p->l);
  emit_flash_store(k, p);
}

/* The batched text differs only in its setup: its registers are the same. */
static ws_status flash_source(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t head_dim,
                              const ws_attngen_flash_cfg *fc, bool batched, char **out) {
  *out = NULL;
  ws_status st = ws_attngen_flash_validate(ctx, cfg, head_dim, fc);
  if (st != WS_OK) return st;
  ws_kbuild k;
  ws_kbuild_init(&k);
  flash_plan p = flash_plan_make(&k, head_dim, fc, batched);
  emit_flash_header(&k, &p);
  emit_flash_setup(&k, &p);
  emit_flash_q(&k, &p);
  emit_flash_loop(&k, &p);
  return ws_kbuild_take(ctx, &k, out);
}

ws_status ws_attngen_flash_source(ws_ctx *ctx, const ws_gpu_cfg *cfg, uint32_t head_dim,
                                  const ws_attngen_flash_cfg *fc, char **out) {
  return flash_source(ctx, cfg, head_dim, fc, false, out);
}

ws_status ws_attngen_flash_run(ws_device *dev, const ws_attngen_shape *s, const ws_attngen_flash_cfg *fc,
                               uint64_t qkv, uint64_t out, ws_launch_stats *stats) {
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
  st = build(ctx, flash_source(ctx, ws_device_cfg(dev), s->head_dim, fc, batch_of(s) > 1, &src), &src,
             "flash_attention.wsa", &k);
  if (st == WS_OK) st = bind_common(ctx, &k, s, qkv);
  if (st == WS_OK) st = ws_nngen_kernel_ptr(ctx, &k, "out", out);
  if (st == WS_OK) st = ws_nngen_kernel_f32(ctx, &k, "scale", 1.0f / sqrtf((float)s->head_dim));
  if (st == WS_OK) st = ws_nngen_kernel_launch(dev, &k, grid, block, stats);
  ws_nngen_kernel_release(&k);
  return st;
}
