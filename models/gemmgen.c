/* gemmgen.c - emits the SGEMM optimisation ladder as .wsa text.
 *
 * Design: each config is first turned into a `plan` (thread-to-tile maps,
 * load passes, shared-memory strides, and a fixed register for every value
 * the kernel keeps), then the text is written section by section from the
 * plan, with comments for the reader. The same plan gives the register count
 * and shared-memory size ws_gemmgen_check judges, so a checked config always
 * emits a kernel that assembles and launches. Tile sizes are powers of two:
 * the kernels split thread indices with shifts and masks (the ISA has no
 * integer division). Out-of-range elements are loaded as zeros, so the fully
 * unrolled inner products never test bounds; only the epilogue does, and only
 * in CTAs whose tile crosses the edge of C.
 *
 * 128-bit global accesses need 16-byte aligned addresses: a row of A starts
 * aligned when K % 4 == 0, a row of B, C, R when N % 4 == 0 (device buffers
 * are 256-byte aligned). The kernels test this at run time with a branch
 * every thread takes the same way, and otherwise load the same chunks with
 * four predicated 32-bit loads (correct, four times the load instructions).
 *
 * Error bounds (ws_gemmgen_reference), u = 2^-24:
 *  - fp32 product: the kernel and OpenBLAS each carry at most K*u*sum|a*b|
 *    (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 3.1),
 *    so they differ by at most 2*K*u*sum|a_ik*b_kj|.
 *  - mma: a and b are rounded to binary16, |a16 - a| <= max(2^-11|a|, 2^-25)
 *    (unit roundoff 2^-11; half the subnormal spacing 2^-24 below 2^-14);
 *    products of two halves are exact in fp32 and the tensor core sums them
 *    in fp32, one rounding per k. So |mma - exact| <= sum(ea|b| + |a|eb +
 *    ea*eb) + K*u*sum|a16*b16|, and BLAS adds its K*u*sum|a*b|. With inputs
 *    in [-1,1) this is about (2^-10 + 2*K*u) sum|a*b|.
 *  - + bias, + residual: one fp32 rounding each, u times the result.
 *  - GELU is computed as x * 1/(1 + 2^z), z = -2*sqrt(2/pi)*log2(e)*x*(1 +
 *    0.044715x^2), which equals 0.5x(1+tanh(...)). The four roundings that
 *    form z give |dz| <= 6u|z|, so 2^z carries ln2*6u|z| relative error plus
 *    MUFU.EX2's own; 1 + e, MUFU.RCP and the final multiply add u, rcp's
 *    error and u. docs/isa.md states no accuracy for MUFU; the simulator
 *    computes exp2f and 1.0f/x (both within 1 ulp = 2u), so the evaluation
 *    error is at most (4 + s(2 + 4.16|z|)) u |gelu|, s = 2^z/(1+2^z) <= 1,
 *    plus |x| 2^-126 where 2^z overflows or 1/(1+2^z) is subnormal. An input
 *    error dx moves GELU by at most 1.13|dx| (max |gelu'| = 1.129). */
#include "models/gemmgen.h"

#include <cblas.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/f16.h"
#include "isa/asm.h"

#define UNIT_ROUNDOFF_F32 (1.0 / 16777216.0) /* 2^-24 */
#define REG_LIMIT 255u                       /* R0..R254 */
#define DIM_MAX 65536u
#define F16_MAX 65504.0
#define LN2 0.69314718055994530942
#define LOG2E 1.44269504088896340736
#define SQRT_2_OVER_PI 0.79788456080286535588
#define GELU_C 0.044715

/* ---- names, defaults, description ----------------------------------------------- */

static const char *const variant_names[WS_GEMMGEN_VARIANT_COUNT] = {
    "naive", "coalesced", "smem", "blocktile1d", "blocktile2d", "vectorized", "warptile", "async", "mma"};

/* What each step changes, written at the top of its kernel. */
static const char *const variant_notes[WS_GEMMGEN_VARIANT_COUNT] = {
    "One thread per output. Consecutive threads take consecutive ROWS of C, so\n"
    "// a warp's loads of A touch 32 different rows (32 lines per load): uncoalesced.",
    "One thread per output. Consecutive threads take consecutive COLUMNS of C:\n"
    "// a warp reads one value of A (broadcast) and 32 adjacent floats of B.",
    "The CTA stages a bm x bk tile of A and a bk x bn tile of B in shared memory;\n"
    "// each element loaded from global memory is then used by bn (or bm) threads.",
    "Each thread computes tm outputs of one column: one value of B read from\n"
    "// shared memory feeds tm FFMAs (1-D register blocking).",
    "Each thread computes a tm x tn block: tm + tn shared-memory reads feed\n"
    "// tm * tn FFMAs (2-D register blocking, an outer product per k).",
    "As blocktile2d, with 128-bit global loads, A stored transposed in shared\n"
    "// memory (As[k][m]) so fragments of A and B are read with LDS.128.",
    "Warps own wm x wn tiles of C; inside a warp, lanes 8 apart read adjacent\n"
    "// 16-byte chunks of B, so a fragment read needs no extra wavefronts.",
    "As warptile, but tiles are copied with LDGSTS into two shared-memory stages:\n"
    "// the copy of tile k+1 runs while tile k is multiplied (DEPBAR waits).",
    "Tensor cores: A and B are converted to binary16 while staged in shared memory,\n"
    "// stored in fragment order (one LDS.128 / LDS.64 per fragment), and each warp\n"
    "// issues HMMA.16816 (16x8x16) with fp32 accumulators. The next tile is loaded\n"
    "// into registers while the current one is multiplied."};

const char *ws_gemmgen_variant_name(ws_gemmgen_variant v) {
  return (unsigned)v < WS_GEMMGEN_VARIANT_COUNT ? variant_names[v] : "?";
}

ws_status ws_gemmgen_variant_parse(ws_ctx *ctx, const char *name, ws_gemmgen_variant *out) {
  for (unsigned i = 0; i < WS_GEMMGEN_VARIANT_COUNT; i++)
    if (name && strcmp(name, variant_names[i]) == 0) {
      *out = (ws_gemmgen_variant)i;
      return WS_OK;
    }
  return ws_ctx_fail(ctx, WS_ERR_INVALID,
                     "unknown GEMM variant '%s' (expected naive, coalesced, smem, blocktile1d, "
                     "blocktile2d, vectorized, warptile, async or mma)",
                     name ? name : "(null)");
}

ws_gemmgen_cfg ws_gemmgen_defaults(ws_gemmgen_variant v) {
  ws_gemmgen_cfg c = {v, 32, 32, 1, 1, 1, 0, 0, 1024, 0};
  switch (v) {
  case WS_GEMMGEN_SMEM: c.bk = 32; break;
  case WS_GEMMGEN_BLOCKTILE1D: c = (ws_gemmgen_cfg){v, 64, 64, 8, 8, 1, 0, 0, 512, 0}; break;
  case WS_GEMMGEN_BLOCKTILE2D:
  case WS_GEMMGEN_VECTORIZED: c = (ws_gemmgen_cfg){v, 128, 128, 8, 8, 8, 0, 0, 256, 0}; break;
  case WS_GEMMGEN_WARPTILE: c = (ws_gemmgen_cfg){v, 128, 128, 8, 4, 4, 32, 64, 256, 0}; break;
  case WS_GEMMGEN_ASYNC: c = (ws_gemmgen_cfg){v, 128, 128, 16, 4, 4, 32, 64, 256, 0}; break;
  case WS_GEMMGEN_MMA: c = (ws_gemmgen_cfg){v, 64, 64, 32, 1, 1, 32, 32, 128, 0}; break;
  default: break;
  }
  return c;
}

static bool uses_k_tiles(ws_gemmgen_variant v) { return v >= WS_GEMMGEN_SMEM; }
static bool uses_thread_tile(ws_gemmgen_variant v) {
  return v >= WS_GEMMGEN_BLOCKTILE1D && v != WS_GEMMGEN_MMA;
}
static bool uses_warp_tile(ws_gemmgen_variant v) { return v >= WS_GEMMGEN_WARPTILE; }

void ws_gemmgen_describe(const ws_gemmgen_cfg *c, char *buf, size_t buf_bytes) {
  int n = snprintf(buf, buf_bytes, "%s bm=%u bn=%u", ws_gemmgen_variant_name(c->variant), c->bm, c->bn);
  size_t len = n > 0 ? (size_t)n : 0;
#define MORE(...)                                                                   \
  do {                                                                              \
    if (len < buf_bytes) {                                                          \
      int w = snprintf(buf + len, buf_bytes - len, __VA_ARGS__);                    \
      len += w > 0 ? (size_t)w : 0;                                                 \
    }                                                                               \
  } while (0)
  if (uses_k_tiles(c->variant)) MORE(" bk=%u", c->bk);
  if (uses_thread_tile(c->variant)) MORE(" tm=%u tn=%u", c->tm, c->tn);
  if (uses_warp_tile(c->variant)) MORE(" wm=%u wn=%u", c->wm, c->wn);
  MORE(" threads=%u", c->threads);
  if (c->epilogue & WS_GEMMGEN_EPI_BIAS) MORE("+bias");
  if (c->epilogue & WS_GEMMGEN_EPI_GELU) MORE("+gelu");
  if (c->epilogue & WS_GEMMGEN_EPI_RESIDUAL) MORE("+residual");
#undef MORE
}

/* ---- the plan ----------------------------------------------------------------------- */

#define MAX_PASSES 64u

typedef struct plan {
  ws_gemmgen_variant v;
  bool warp_layout; /* warps own wm x wn tiles (warptile, async) */
  bool a_trans;     /* A stored As[k][m] in shared memory */
  bool vec;         /* 128-bit global loads and shared reads */
  bool async;
  uint32_t rg, cg, rstride, cstride; /* per thread: rg x cg blocks of tm x tn, spaced so */
  uint32_t vw;                       /* floats per global-load chunk */
  uint32_t cpr_a, rpp_a, passes_a;   /* A: chunks per tile row, rows per pass, passes */
  uint32_t cpr_b, rpp_b, passes_b;   /* B (mma: k pairs, column chunks per pass, passes) */
  uint32_t lda_s, ldb_s;             /* shared row strides, bytes */
  uint32_t stage_a_bytes, stage_b_bytes, smem_bytes;
  uint32_t miter, niter;             /* mma: 16x8 tiles per warp */
  uint32_t cw;                       /* epilogue chunk width in interior tiles */
  /* registers */
  uint32_t tid, bx, by, m, n, k, pa, pb, pc, pbias, pres, k0, kn;
  uint32_t pat, pbt, inca, incb, stra, strb, nrow, gcolb, colsb;
  uint32_t lima, limb; /* first of passes_a / passes_b limits */
  uint32_t sta, stb, rda, rdb, da, db, rowb, colb, t0, t1, t2, addr, addr2;
  uint32_t stage, pack, acc, fa, fb, eb, er;
  uint32_t nacc, regs;
} plan;

static uint32_t ilog2(uint32_t x) {
  uint32_t r = 0;
  while (x > 1) x >>= 1, r++;
  return r;
}

static bool pow2(uint32_t x) { return x && !(x & (x - 1)); }

static uint32_t ralloc(uint32_t *next, uint32_t count, uint32_t align) {
  uint32_t r = (*next + align - 1) / align * align;
  *next = r + count;
  return r;
}

static void plan_common_regs(const ws_gemmgen_cfg *c, plan *p, uint32_t *nx) {
  p->tid = ralloc(nx, 1, 1);
  p->bx = ralloc(nx, 1, 1);
  p->by = ralloc(nx, 1, 1);
  p->m = ralloc(nx, 1, 1);
  p->n = ralloc(nx, 1, 1);
  p->k = ralloc(nx, 1, 1);
  p->pa = ralloc(nx, 2, 2);
  p->pb = ralloc(nx, 2, 2);
  p->pc = ralloc(nx, 2, 2);
  p->pbias = c->epilogue & WS_GEMMGEN_EPI_BIAS ? ralloc(nx, 2, 2) : 0;
  p->pres = c->epilogue & WS_GEMMGEN_EPI_RESIDUAL ? ralloc(nx, 2, 2) : 0;
  p->k0 = ralloc(nx, 1, 1);
  p->rowb = ralloc(nx, 1, 1);
  p->colb = ralloc(nx, 1, 1);
  p->t0 = ralloc(nx, 1, 1);
  p->t1 = ralloc(nx, 1, 1);
  p->t2 = ralloc(nx, 1, 1);
  p->addr = ralloc(nx, 2, 2);
  p->pat = ralloc(nx, 2, 2);
  p->pbt = ralloc(nx, 2, 2);
}

/* Registers the epilogue needs beside the accumulators (bias and residual chunks). */
static void plan_epilogue_regs(const ws_gemmgen_cfg *c, plan *p, uint32_t *nx) {
  p->eb = c->epilogue & WS_GEMMGEN_EPI_BIAS ? ralloc(nx, p->cw, p->cw) : 0;
  p->er = c->epilogue & WS_GEMMGEN_EPI_RESIDUAL ? ralloc(nx, p->cw, p->cw) : 0;
}

static void plan_simple(const ws_gemmgen_cfg *c, plan *p) {
  uint32_t nx = 0;
  plan_common_regs(c, p, &nx);
  p->inca = ralloc(&nx, 1, 1);
  p->incb = ralloc(&nx, 1, 1);
  p->fa = ralloc(&nx, 1, 1);
  p->fb = ralloc(&nx, 1, 1);
  p->acc = ralloc(&nx, 1, 1);
  p->nacc = 1;
  p->cw = 1;
  plan_epilogue_regs(c, p, &nx);
  p->regs = nx;
}

static void plan_tiled_geometry(const ws_gemmgen_cfg *c, plan *p) {
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

static void plan_tiled(const ws_gemmgen_cfg *c, plan *p) {
  plan_tiled_geometry(c, p);
  uint32_t nx = 0;
  plan_common_regs(c, p, &nx);
  p->inca = ralloc(&nx, 1, 1);
  p->incb = ralloc(&nx, 1, 1);
  p->stra = ralloc(&nx, 1, 1);
  p->strb = ralloc(&nx, 1, 1);
  p->colsb = p->vec ? ralloc(&nx, 1, 1) : 0;
  p->sta = ralloc(&nx, 1, 1);
  p->stb = ralloc(&nx, 1, 1);
  p->rda = ralloc(&nx, 1, 1);
  p->rdb = ralloc(&nx, 1, 1);
  if (p->async) {
    /* registers dead inside the k loop: t1, and the A pointer once pat is set */
    p->kn = p->t1;
    p->da = p->pa;
    p->db = p->pa + 1;
  }
  p->lima = ralloc(&nx, p->passes_a, 1);
  p->limb = ralloc(&nx, p->passes_b, 1);
  if (!p->async) p->stage = ralloc(&nx, (p->passes_a + p->passes_b) * p->vw, 4);
  p->nacc = p->rg * c->tm * p->cg * c->tn;
  p->acc = ralloc(&nx, p->nacc, 4);
  p->fa = ralloc(&nx, p->rg * c->tm * (p->async ? 2 : 1), 4);
  p->fb = ralloc(&nx, p->cg * c->tn, 4);
  plan_epilogue_regs(c, p, &nx);
  p->regs = nx;
}

static void plan_mma(const ws_gemmgen_cfg *c, plan *p) {
  p->warp_layout = true;
  p->vec = true;
  p->vw = 4;
  p->miter = c->wm / 16;
  p->niter = c->wn / 8;
  p->cpr_a = c->bk / 4;
  p->rpp_a = c->threads / p->cpr_a;
  p->passes_a = c->bm / p->rpp_a;
  p->cpr_b = c->bk / 2;                   /* k pairs per tile */
  p->rpp_b = c->threads / p->cpr_b;       /* 4-column chunks per pass */
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
  uint32_t nx = 0;
  plan_common_regs(c, p, &nx);
  p->inca = ralloc(&nx, 1, 1);
  p->incb = ralloc(&nx, 1, 1);
  p->nrow = ralloc(&nx, 2, 2);
  p->addr2 = ralloc(&nx, 2, 2);
  p->stra = ralloc(&nx, 1, 1);
  p->gcolb = ralloc(&nx, 1, 1);
  p->sta = ralloc(&nx, p->passes_a, 1); /* one shared address per pass */
  p->stb = ralloc(&nx, p->passes_b, 1);
  p->rda = ralloc(&nx, 1, 1);
  p->rdb = ralloc(&nx, 1, 1);
  p->kn = ralloc(&nx, 1, 1);
  p->lima = ralloc(&nx, p->passes_a, 1);
  p->limb = ralloc(&nx, p->passes_b, 1);
  p->stage = ralloc(&nx, p->passes_a * 4 + p->passes_b * 8, 4);
  p->pack = ralloc(&nx, 4, 4);
  p->nacc = p->miter * p->niter * 4;
  p->acc = ralloc(&nx, p->nacc, 4);
  p->fa = ralloc(&nx, p->miter * 4, 4);
  p->fb = ralloc(&nx, p->niter * 2, 2);
  plan_epilogue_regs(c, p, &nx);
  p->regs = nx;
}

static void make_plan(const ws_gemmgen_cfg *c, plan *p) {
  memset(p, 0, sizeof *p);
  p->v = c->variant;
  if (c->variant <= WS_GEMMGEN_COALESCED) plan_simple(c, p);
  else if (c->variant == WS_GEMMGEN_MMA) plan_mma(c, p);
  else plan_tiled(c, p);
}

/* ---- checks --------------------------------------------------------------------------- */

#define REFUSE(...) return ws_ctx_fail(ctx, WS_ERR_INVALID, __VA_ARGS__)

static ws_status check_pow2(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  const struct { const char *name; uint32_t v; bool used; } f[] = {
      {"bm", c->bm, true},
      {"bn", c->bn, true},
      {"bk", c->bk, uses_k_tiles(c->variant)},
      {"tm", c->tm, uses_thread_tile(c->variant)},
      {"tn", c->tn, uses_thread_tile(c->variant)},
      {"wm", c->wm, uses_warp_tile(c->variant)},
      {"wn", c->wn, uses_warp_tile(c->variant)},
      {"threads", c->threads, true}};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    if (f[i].used && !pow2(f[i].v))
      REFUSE("%s=%u must be a power of two (the kernel splits thread indices with shifts)",
             f[i].name, f[i].v);
  return WS_OK;
}

static ws_status check_simple(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  if (c->threads != c->bm * c->bn)
    REFUSE("%s computes one output per thread: threads must be bm*bn = %u, got %u",
           ws_gemmgen_variant_name(c->variant), c->bm * c->bn, c->threads);
  return WS_OK;
}

/* Every thread loads the same number of chunks of each tile. */
static ws_status check_loads(ws_ctx *ctx, const ws_gemmgen_cfg *c, const char *what, uint32_t rows,
                             uint32_t cols, uint32_t chunk) {
  uint32_t cpr = cols / chunk;
  if (cpr == 0 || c->threads % cpr || rows % (c->threads / cpr))
    REFUSE("the %s tile (%u x %u floats, in chunks of %u) does not divide evenly among %u threads",
           what, rows, cols, chunk, c->threads);
  if ((rows * cpr) / c->threads > MAX_PASSES)
    REFUSE("the %s tile needs more than %u loads per thread", what, MAX_PASSES);
  return WS_OK;
}

/* mma copies B in chunks of 2 (k) x 4 (n), consecutive threads taking consecutive k pairs. */
static ws_status check_mma_b_loads(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  uint32_t pairs = c->bk / 2, chunks = c->bn / 4;
  if (chunks == 0 || c->threads % pairs || chunks % (c->threads / pairs))
    REFUSE("the B tile (%u x %u floats, in 2x4 chunks) does not divide evenly among %u threads", c->bk,
           c->bn, c->threads);
  return WS_OK;
}

static ws_status check_thread_tile(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  ws_gemmgen_variant v = c->variant;
  if (v == WS_GEMMGEN_SMEM && (c->tm != 1 || c->tn != 1))
    REFUSE("smem computes one output per thread: tm and tn must be 1, got %u and %u", c->tm, c->tn);
  if (v == WS_GEMMGEN_BLOCKTILE1D && c->tn != 1)
    REFUSE("blocktile1d blocks along rows only: tn must be 1, got %u", c->tn);
  if (c->tm > c->bm || c->tn > c->bn)
    REFUSE("the thread tile %ux%u is larger than the CTA tile %ux%u", c->tm, c->tn, c->bm, c->bn);
  if (v >= WS_GEMMGEN_VECTORIZED && (c->tm % 4 || c->tn % 4 || c->bk % 4))
    REFUSE("%s reads 128-bit fragments: tm, tn and bk must be multiples of 4, got %u, %u, %u",
           ws_gemmgen_variant_name(v), c->tm, c->tn, c->bk);
  if (!uses_warp_tile(v) && c->threads != (c->bm / c->tm) * (c->bn / c->tn))
    REFUSE("threads must be (bm/tm)*(bn/tn) = %u (one thread per %ux%u block), got %u",
           (c->bm / c->tm) * (c->bn / c->tn), c->tm, c->tn, c->threads);
  return WS_OK;
}

static ws_status check_warp_tile(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  bool mma = c->variant == WS_GEMMGEN_MMA;
  if (c->bm % c->wm || c->bn % c->wn)
    REFUSE("the warp tile %ux%u does not divide the CTA tile %ux%u", c->wm, c->wn, c->bm, c->bn);
  if (mma && (c->wm % 16 || c->wn % 8))
    REFUSE("mma warp tiles are made of 16x8 HMMA tiles: wm must be a multiple of 16 and wn of 8, "
           "got %ux%u", c->wm, c->wn);
  if (mma && c->bk % 16)
    REFUSE("mma steps k by 16 (HMMA.16816): bk must be a multiple of 16, got %u", c->bk);
  if (!mma && (c->wm % (4 * c->tm) || c->wn % (8 * c->tn)))
    REFUSE("a warp's 4x8 lanes of %ux%u blocks must tile the warp tile: wm must be a multiple of "
           "4*tm = %u and wn of 8*tn = %u, got %ux%u", c->tm, c->tn, 4 * c->tm, 8 * c->tn, c->wm, c->wn);
  uint32_t want = (c->bm / c->wm) * (c->bn / c->wn) * 32;
  if (c->threads != want)
    REFUSE("threads must be 32 per warp tile: (bm/wm)*(bn/wn)*32 = %u, got %u", want, c->threads);
  return WS_OK;
}

static ws_status check_structure(ws_ctx *ctx, const ws_gemmgen_cfg *c) {
  if ((unsigned)c->variant >= WS_GEMMGEN_VARIANT_COUNT) REFUSE("unknown GEMM variant %d", (int)c->variant);
  if (c->epilogue & ~(uint32_t)WS_GEMMGEN_EPI_ALL) REFUSE("unknown epilogue flags 0x%x", c->epilogue);
  ws_status st = check_pow2(ctx, c);
  if (st != WS_OK) return st;
  if (c->bm > 1024 || c->bn > 1024 || c->bk > 1024 || c->threads > 1024)
    REFUSE("bm, bn, bk and threads must be at most 1024, got %u, %u, %u, %u", c->bm, c->bn, c->bk,
           c->threads);
  if (c->variant <= WS_GEMMGEN_COALESCED) return check_simple(ctx, c);
  if (c->variant != WS_GEMMGEN_MMA && (st = check_thread_tile(ctx, c)) != WS_OK) return st;
  if (uses_warp_tile(c->variant) && (st = check_warp_tile(ctx, c)) != WS_OK) return st;
  if (c->variant == WS_GEMMGEN_ASYNC && c->bk % 4)
    REFUSE("async reads A along k with LDS.128: bk must be a multiple of 4, got %u", c->bk);
  uint32_t vw = c->variant >= WS_GEMMGEN_VECTORIZED ? 4 : 1;
  if ((st = check_loads(ctx, c, "A", c->bm, c->bk, vw)) != WS_OK) return st;
  if (c->variant == WS_GEMMGEN_MMA) return check_mma_b_loads(ctx, c);
  return check_loads(ctx, c, "B", c->bk, c->bn, vw);
}

ws_status ws_gemmgen_resources(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, uint32_t *regs_per_thread,
                               uint32_t *smem_bytes) {
  ws_status st = check_structure(ctx, cfg);
  if (st != WS_OK) return st;
  plan p;
  make_plan(cfg, &p);
  *regs_per_thread = p.regs;
  *smem_bytes = p.smem_bytes;
  return WS_OK;
}

ws_status ws_gemmgen_check(ws_ctx *ctx, const ws_gemmgen_cfg *c, const ws_gpu_cfg *gpu) {
  uint32_t regs, smem;
  ws_status st = ws_gemmgen_resources(ctx, c, &regs, &smem);
  if (st != WS_OK) return st;
  uint32_t reg_max = gpu->regfile.max_regs_per_thread < REG_LIMIT ? gpu->regfile.max_regs_per_thread : REG_LIMIT;
  if (regs > reg_max)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "%s needs %u registers per thread, more than the %u allowed",
                       ws_gemmgen_variant_name(c->variant), regs, reg_max);
  if (smem > gpu->smem.max_per_block_bytes)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT,
                       "%s needs %u bytes of shared memory per CTA, more than %s's %u per block",
                       ws_gemmgen_variant_name(c->variant), smem, gpu->gpu.name, gpu->smem.max_per_block_bytes);
  if (c->threads > gpu->sm.max_threads_per_block)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "%u threads per CTA, more than %s's %u", c->threads,
                       gpu->gpu.name, gpu->sm.max_threads_per_block);
  ws_occupancy occ;
  return ws_occupancy_compute(ctx, gpu, c->threads, regs, smem, &occ);
}

/* ---- text output ------------------------------------------------------------------------ */

typedef struct emitter {
  char *text;
  size_t len, cap;
  bool nomem;
  unsigned labels; /* numbers the labels of repeated sections */
  const ws_gemmgen_cfg *c;
  const plan *p;
} emitter;

static void vappend(emitter *e, const char *fmt, va_list ap) {
  if (e->nomem) return;
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return;
  if (e->len + (size_t)n + 2 > e->cap) {
    size_t cap = (e->cap ? e->cap * 2 : 16384) + (size_t)n;
    char *t = realloc(e->text, cap);
    if (!t) {
      e->nomem = true;
      return;
    }
    e->text = t;
    e->cap = cap;
  }
  vsnprintf(e->text + e->len, e->cap - e->len, fmt, ap);
  e->len += (size_t)n;
}

static void newline(emitter *e) {
  if (e->nomem) return;
  if (e->len + 2 > e->cap) {
    size_t cap = e->cap ? e->cap * 2 : 16384;
    char *t = realloc(e->text, cap);
    if (!t) {
      e->nomem = true;
      return;
    }
    e->text = t;
    e->cap = cap;
  }
  e->text[e->len++] = '\n';
  e->text[e->len] = '\0';
}

/* A raw line (directive, label, comment). */
static void line(emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(emitter *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vappend(e, fmt, ap);
  va_end(ap);
  newline(e);
}

/* One instruction; a guarded one starts in column 0 as in the shipped
 * kernels, a comment (when given) is aligned after it. */
static void ins(emitter *e, const char *comment, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ins(emitter *e, const char *comment, const char *fmt, ...) {
  char buf[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  const char *indent = buf[0] == '@' ? "" : "    ";
  if (comment && comment[0])
    line(e, "%s%-*s // %s", indent, 36 - (int)strlen(indent), buf, comment);
  else
    line(e, "%s%s", indent, buf);
}

static const char *width_mod(uint32_t floats) {
  return floats == 4 ? "128" : floats == 2 ? "64" : "32";
}

/* ---- kernel header and common set-up ----------------------------------------------- */

static void emit_header(emitter *e) {
  const ws_gemmgen_cfg *c = e->c;
  const char *name = ws_gemmgen_variant_name(c->variant);
  char desc[200];
  ws_gemmgen_describe(c, desc, sizeof desc);
  line(e, "// gemm_%s.wsa - C[M][N] = %sA[M][K] * B[K][N]%s%s, fp32, row-major, any M, N, K.", name,
       c->epilogue & WS_GEMMGEN_EPI_GELU ? "GELU(" : "", c->epilogue & WS_GEMMGEN_EPI_BIAS ? " + bias[N]" : "",
       c->epilogue & WS_GEMMGEN_EPI_GELU ? ")" : "");
  if (c->epilogue & WS_GEMMGEN_EPI_RESIDUAL) line(e, "// Then C += R[M][N] (residual).");
  line(e, "// Generated by models/gemmgen.c: %s", desc);
  line(e, "// %s", variant_notes[c->variant]);
  line(e, "// Launch: block (%u,1,1), grid (ceil(N/%u), ceil(M/%u), 1).", c->threads, c->bn, c->bm);
  line(e, ".kernel gemm_%s", name);
  line(e, ".param .ptr A");
  line(e, ".param .ptr B");
  line(e, ".param .ptr C");
  if (c->epilogue & WS_GEMMGEN_EPI_BIAS) line(e, ".param .ptr bias");
  if (c->epilogue & WS_GEMMGEN_EPI_RESIDUAL) line(e, ".param .ptr R");
  line(e, ".param .u32 M");
  line(e, ".param .u32 N");
  line(e, ".param .u32 K");
}

static void emit_shared(emitter *e, const char *a_desc, const char *b_desc) {
  const plan *p = e->p;
  uint32_t stages = p->async ? 2 : 1;
  line(e, ".shared As %u 16%*s// %s", stages * p->stage_a_bytes, 18, "", a_desc);
  line(e, ".shared Bs %u 16%*s// %s", stages * p->stage_b_bytes, 18, "", b_desc);
}

static void emit_setup(emitter *e) {
  const plan *p = e->p;
  line(e, "// ---- which tile of C this CTA computes, and the problem");
  ins(e, "thread index in the CTA", "S2R R%u, SR_TID.X", p->tid);
  ins(e, "tile column (along N)", "S2R R%u, SR_CTAID.X", p->bx);
  ins(e, "tile row (along M)", "S2R R%u, SR_CTAID.Y", p->by);
  ins(e, NULL, "LDP.32 R%u, [M]", p->m);
  ins(e, NULL, "LDP.32 R%u, [N]", p->n);
  ins(e, NULL, "LDP.32 R%u, [K]", p->k);
  ins(e, NULL, "LDP.64 R%u, [A]", p->pa);
  ins(e, NULL, "LDP.64 R%u, [B]", p->pb);
  ins(e, NULL, "LDP.64 R%u, [C]", p->pc);
  if (e->c->epilogue & WS_GEMMGEN_EPI_BIAS) ins(e, NULL, "LDP.64 R%u, [bias]", p->pbias);
  if (e->c->epilogue & WS_GEMMGEN_EPI_RESIDUAL) ins(e, NULL, "LDP.64 R%u, [R]", p->pres);
}

/* P5 / P6: rows of A / of B and C start 16-byte aligned, so 128-bit accesses are legal. */
static void emit_alignment_preds(emitter *e) {
  const plan *p = e->p;
  ins(e, NULL, "AND R%u, R%u, 3", p->t0, p->k);
  ins(e, "P5: K % 4 == 0, rows of A are 16-byte aligned", "ISETP.EQ.U32 P5, R%u, 0", p->t0);
  ins(e, NULL, "AND R%u, R%u, 3", p->t0, p->n);
  ins(e, "P6: N % 4 == 0, rows of B are 16-byte aligned", "ISETP.EQ.U32 P6, R%u, 0", p->t0);
}

static void emit_zero_acc(emitter *e) {
  const plan *p = e->p;
  for (uint32_t i = 0; i < p->nacc; i++) ins(e, i == 0 ? "accumulators" : NULL, "MOV R%u, 0", p->acc + i);
}

/* ---- epilogue ---------------------------------------------------------------------------- */

#define EPI_MAX 256u

/* Where the thread's outputs are: row a, segment s, value v is C[rowb +
 * row_off[a]][colb + col_off[s] + v] and lives in acc + acc_row[a] +
 * acc_seg[s] + v. */
typedef struct epi_layout {
  uint32_t nr, ns, vw;
  uint32_t row_off[EPI_MAX], acc_row[EPI_MAX];
  uint32_t col_off[EPI_MAX], acc_seg[EPI_MAX];
} epi_layout;

static void emit_gelu(emitter *e, uint32_t x, uint32_t t) {
  float c = (float)GELU_C, kz = (float)(-2.0 * SQRT_2_OVER_PI * LOG2E);
  ins(e, "GELU: x^2", "FMUL R%u, R%u, R%u", t, x, x);
  ins(e, "1 + 0.044715 x^2", "FFMA R%u, R%u, %.9g, 1", t, t, (double)c);
  ins(e, "y/sqrt(2/pi) = x + 0.044715 x^3", "FMUL R%u, R%u, R%u", t, t, x);
  ins(e, "-2y*log2(e)", "FMUL R%u, R%u, %.9g", t, t, (double)kz);
  ins(e, "exp(-2y)", "MUFU.EX2 R%u, R%u", t, t);
  ins(e, NULL, "FADD R%u, R%u, 1", t, t);
  ins(e, "1/(1+exp(-2y)) = (1 + tanh y)/2", "MUFU.RCP R%u, R%u", t, t);
  ins(e, "0.5x(1 + tanh y)", "FMUL R%u, R%u, R%u", x, x, t);
}

static void emit_epi_values(emitter *e, uint32_t accr, uint32_t cw) {
  const plan *p = e->p;
  uint32_t epi = e->c->epilogue;
  for (uint32_t q = 0; q < cw; q++) {
    if (epi & WS_GEMMGEN_EPI_BIAS) ins(e, q ? NULL : "+ bias", "FADD R%u, R%u, R%u", accr + q, accr + q, p->eb + q);
    if (epi & WS_GEMMGEN_EPI_GELU) emit_gelu(e, accr + q, p->t0);
    if (epi & WS_GEMMGEN_EPI_RESIDUAL)
      ins(e, q ? NULL : "+ residual", "FADD R%u, R%u, R%u", accr + q, accr + q, p->er + q);
  }
}

/* One pass over the thread's outputs: checked = every element tested
 * against M and N (then one float at a time), else cw floats per access. */
static void emit_epi_path(emitter *e, const epi_layout *L, bool checked, uint32_t cw) {
  const plan *p = e->p;
  uint32_t epi = e->c->epilogue;
  const char *w = width_mod(cw);
  if (epi & WS_GEMMGEN_EPI_BIAS) ins(e, "&bias[first column]", "IMAD.WIDE.U32 R%u, R%u, 4, R%u", p->addr, p->colb, p->pbias);
  for (uint32_t a = 0; a < L->nr; a++) {
    uint32_t row = p->rowb;
    if (L->row_off[a]) {
      ins(e, "output row", "IADD R%u, R%u, %u", p->t0, p->rowb, L->row_off[a]);
      row = p->t0;
    }
    if (checked) ins(e, "P1: row < M", "ISETP.LT.U32 P1, R%u, R%u", row, p->m);
    ins(e, "row * N + first column", "IMAD R%u, R%u, R%u, R%u", p->t1, row, p->n, p->colb);
    ins(e, "&C[row][first column]", "IMAD.WIDE.U32 R%u, R%u, 4, R%u", p->pat, p->t1, p->pc);
    if (epi & WS_GEMMGEN_EPI_RESIDUAL) ins(e, "&R[row][first column]", "IMAD.WIDE.U32 R%u, R%u, 4, R%u", p->pbt, p->t1, p->pres);
    for (uint32_t s = 0; s < L->ns; s++)
      for (uint32_t v0 = 0; v0 < L->vw; v0 += cw) {
        uint32_t off = L->col_off[s] + v0, accr = p->acc + L->acc_row[a] + L->acc_seg[s] + v0;
        const char *g = "";
        if (checked) {
          ins(e, NULL, "IADD R%u, R%u, %u", p->t2, p->colb, off);
          ins(e, "P2: column < N", "ISETP.LT.U32 P2, R%u, R%u", p->t2, p->n);
          ins(e, "P2 &= P1", "@!P1 ISETP.NE.U32 P2, RZ, RZ");
          g = "@P2 ";
        }
        if (epi & WS_GEMMGEN_EPI_BIAS) ins(e, NULL, "%sLDG.%s R%u, [R%u+%u]", g, w, p->eb, p->addr, off * 4);
        if (epi & WS_GEMMGEN_EPI_RESIDUAL) ins(e, NULL, "%sLDG.%s R%u, [R%u+%u]", g, w, p->er, p->pbt, off * 4);
        emit_epi_values(e, accr, cw);
        ins(e, NULL, "%sSTG.%s [R%u+%u], R%u", g, w, p->pat, off * 4, accr);
      }
  }
}

static void emit_epilogue(emitter *e, const epi_layout *L) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  line(e, "epilogue:");
  line(e, "// ---- epilogue: tiles wholly inside C store without checks%s;",
       p->cw > 1 ? " and with wide stores" : "");
  line(e, "// tiles crossing the edge test every element against M and N");
  ins(e, NULL, "IADD R%u, R%u, 1", p->t0, p->by);
  ins(e, NULL, "IMUL R%u, R%u, %u", p->t0, p->t0, c->bm);
  ins(e, "P1: (tile row + 1) * bm <= M", "ISETP.LE.U32 P1, R%u, R%u", p->t0, p->m);
  ins(e, NULL, "IADD R%u, R%u, 1", p->t0, p->bx);
  ins(e, NULL, "IMUL R%u, R%u, %u", p->t0, p->t0, c->bn);
  ins(e, "P2: (tile column + 1) * bn <= N", "ISETP.LE.U32 P2, R%u, R%u", p->t0, p->n);
  ins(e, "P2 &= P1", "@!P1 ISETP.NE.U32 P2, RZ, RZ");
  if (p->cw > 1) {
    ins(e, NULL, "AND R%u, R%u, %u", p->t0, p->n, p->cw - 1);
    ins(e, NULL, "ISETP.NE.U32 P1, R%u, 0", p->t0);
    ins(e, "wide stores need N % width == 0 (aligned rows)", "@P1 ISETP.NE.U32 P2, RZ, RZ");
  }
  ins(e, NULL, "@!P2 BRA epilogue_edge");
  emit_epi_path(e, L, false, p->cw);
  ins(e, NULL, "EXIT");
  line(e, "epilogue_edge:");
  emit_epi_path(e, L, true, 1);
  ins(e, NULL, "EXIT");
}

/* ---- naive and coalesced ------------------------------------------------------------------ */

static void emit_simple(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  bool naive = c->variant == WS_GEMMGEN_NAIVE;
  emit_header(e);
  emit_setup(e);
  line(e, "// ---- this thread's output C[row][col]");
  if (naive) {
    ins(e, "consecutive threads take consecutive ROWS", "AND R%u, R%u, %u", p->t0, p->tid, c->bm - 1);
    ins(e, NULL, "SHR.U32 R%u, R%u, %u", p->t1, p->tid, ilog2(c->bm));
  } else {
    ins(e, "consecutive threads take consecutive COLUMNS", "AND R%u, R%u, %u", p->t1, p->tid, c->bn - 1);
    ins(e, NULL, "SHR.U32 R%u, R%u, %u", p->t0, p->tid, ilog2(c->bn));
  }
  ins(e, "row = tile row * bm + ...", "IMAD R%u, R%u, %u, R%u", p->rowb, p->by, c->bm, p->t0);
  ins(e, "col = tile column * bn + ...", "IMAD R%u, R%u, %u, R%u", p->colb, p->bx, c->bn, p->t1);
  ins(e, NULL, "ISETP.GE.U32 P0, R%u, R%u", p->rowb, p->m);
  ins(e, "threads past the edge of C leave", "@P0 EXIT");
  ins(e, NULL, "ISETP.GE.U32 P0, R%u, R%u", p->colb, p->n);
  ins(e, NULL, "@P0 EXIT");
  ins(e, NULL, "IMUL R%u, R%u, R%u", p->t0, p->rowb, p->k);
  ins(e, "&A[row][0]", "IMAD.WIDE.U32 R%u, R%u, 4, R%u", p->pat, p->t0, p->pa);
  ins(e, "&B[0][col]", "IMAD.WIDE.U32 R%u, R%u, 4, R%u", p->pbt, p->colb, p->pb);
  ins(e, "step along a row of A: 4 bytes", "MOV R%u, 4", p->inca);
  ins(e, "step down a column of B: N*4 bytes", "SHL R%u, R%u, 2", p->incb, p->n);
  emit_zero_acc(e);
  ins(e, "k", "MOV R%u, 0", p->k0);
  line(e, "k_loop:");
  ins(e, NULL, "ISETP.GE.U32 P0, R%u, R%u", p->k0, p->k);
  ins(e, NULL, "@P0 BRA epilogue");
  ins(e, "A[row][k]", "LDG.32 R%u, [R%u]", p->fa, p->pat);
  ins(e, "B[k][col]", "LDG.32 R%u, [R%u]", p->fb, p->pbt);
  ins(e, NULL, "FFMA R%u, R%u, R%u, R%u", p->acc, p->fa, p->fb, p->acc);
  ins(e, NULL, "IMAD.WIDE.U32 R%u, R%u, 1, R%u", p->pat, p->inca, p->pat);
  ins(e, NULL, "IMAD.WIDE.U32 R%u, R%u, 1, R%u", p->pbt, p->incb, p->pbt);
  ins(e, NULL, "IADD R%u, R%u, 1", p->k0, p->k0);
  ins(e, NULL, "BRA k_loop");
  line(e, "epilogue:");
  line(e, "// ---- epilogue");
  epi_layout L = {.nr = 1, .ns = 1, .vw = 1};
  emit_epi_path(e, &L, false, 1);
  ins(e, NULL, "EXIT");
}

/* ---- tiled kernels (smem ... async) ---------------------------------------------------- */

static uint32_t row_off(const plan *p, uint32_t tm, uint32_t a) { return (a / tm) * p->rstride + a % tm; }
static uint32_t col_off(const plan *p, uint32_t tn, uint32_t b) { return (b / tn) * p->cstride + b % tn; }

/* The thread's first output row / column in the CTA tile -> t0 / t1. */
static void emit_thread_tile(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  line(e, "// ---- the outputs this thread computes");
  if (!p->warp_layout) {
    line(e, "// a grid of (bm/tm) x (bn/tn) threads, each owning a tm x tn block of the tile");
    ins(e, "thread row", "SHR.U32 R%u, R%u, %u", p->t0, p->tid, ilog2(c->bn / c->tn));
    ins(e, "thread column", "AND R%u, R%u, %u", p->t1, p->tid, c->bn / c->tn - 1);
    if (c->tm > 1) ins(e, NULL, "SHL R%u, R%u, %u", p->t0, p->t0, ilog2(c->tm));
    if (c->tn > 1) ins(e, NULL, "SHL R%u, R%u, %u", p->t1, p->t1, ilog2(c->tn));
    return;
  }
  line(e, "// warps own wm x wn tiles; a warp's lanes form 4 rows x 8 columns, each lane owns");
  line(e, "// %u x %u blocks of %ux%u outputs, %u rows and %u columns apart", p->rg, p->cg, c->tm,
       c->tn, p->rstride, p->cstride);
  ins(e, "warp", "SHR.U32 R%u, R%u, 5", p->t2, p->tid);
  ins(e, "warp row", "SHR.U32 R%u, R%u, %u", p->t0, p->t2, ilog2(c->bn / c->wn));
  ins(e, "warp column", "AND R%u, R%u, %u", p->t1, p->t2, c->bn / c->wn - 1);
  ins(e, NULL, "SHL R%u, R%u, %u", p->t0, p->t0, ilog2(c->wm));
  ins(e, NULL, "SHL R%u, R%u, %u", p->t1, p->t1, ilog2(c->wn));
  ins(e, "lane", "AND R%u, R%u, 31", p->t2, p->tid);
  ins(e, "lane row (0..3)", "SHR.U32 R%u, R%u, 3", p->rowb, p->t2);
  if (c->tm > 1) ins(e, NULL, "SHL R%u, R%u, %u", p->rowb, p->rowb, ilog2(c->tm));
  ins(e, NULL, "IADD R%u, R%u, R%u", p->t0, p->t0, p->rowb);
  ins(e, "lane column (0..7)", "AND R%u, R%u, 7", p->rowb, p->t2);
  if (c->tn > 1) ins(e, NULL, "SHL R%u, R%u, %u", p->rowb, p->rowb, ilog2(c->tn));
  ins(e, NULL, "IADD R%u, R%u, R%u", p->t1, p->t1, p->rowb);
}

static void emit_tiled_coords(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  emit_thread_tile(e);
  if (p->a_trans) ins(e, "reads As[k][row ...]", "SHL R%u, R%u, 2", p->rda, p->t0);
  else ins(e, "reads As[row][k]", "IMUL R%u, R%u, %u", p->rda, p->t0, p->lda_s);
  ins(e, "reads Bs[k][col ...]", "SHL R%u, R%u, 2", p->rdb, p->t1);
  ins(e, "first output row in C", "IMAD R%u, R%u, %u, R%u", p->rowb, p->by, c->bm, p->t0);
  ins(e, "first output column in C", "IMAD R%u, R%u, %u, R%u", p->colb, p->bx, c->bn, p->t1);
}

/* The global side of the A loads, from t0 = row and t1 = k in the tile:
 * the thread's pointer into A, the per-pass limits, the pass stride. */
static void emit_a_global(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  ins(e, "row of A", "IMAD R%u, R%u, %u, R%u", p->t0, p->by, c->bm, p->t0);
  ins(e, NULL, "IMAD R%u, R%u, R%u, R%u", p->t2, p->t0, p->k, p->t1);
  ins(e, "&A[row][k]", "IMAD.WIDE.U32 R%u, R%u, 4, R%u", p->pat, p->t2, p->pa);
  for (uint32_t q = 0; q < p->passes_a; q++) {
    ins(e, NULL, "IADD R%u, R%u, %u", p->t2, p->t0, q * p->rpp_a);
    ins(e, NULL, "ISETP.LT.U32 P0, R%u, R%u", p->t2, p->m);
    ins(e, NULL, "SEL R%u, R%u, RZ, P0", p->t2, p->k);
    ins(e, q ? NULL : "lim: chunk exists iff k0 < lim", "ISUB R%u, R%u, R%u", p->lima + q, p->t2, p->t1);
  }
  ins(e, "bytes between passes", "IMUL R%u, R%u, %u", p->stra, p->k, p->rpp_a * 4);
  ins(e, "next tile: bk floats to the right", "MOV R%u, %u", p->inca, c->bk * 4);
}

/* A loads: thread t copies chunk t % cpr of tile row t / cpr, then rows
 * rpp, 2*rpp, ... further. lim[q] = (row q inside M ? K : 0) - chunk's k,
 * so "k0 < lim[q]" says the chunk exists. */
static void emit_a_setup(emitter *e, bool trans) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  line(e, "// ---- loading A: each pass copies %u rows of the %ux%u tile, %u float%s per thread",
       p->rpp_a, c->bm, c->bk, p->vw, p->vw > 1 ? "s" : "");
  ins(e, "row in the A tile", "SHR.U32 R%u, R%u, %u", p->t0, p->tid, ilog2(p->cpr_a));
  ins(e, "k in the A tile", "AND R%u, R%u, %u", p->t1, p->tid, p->cpr_a - 1);
  if (p->vw > 1) ins(e, NULL, "SHL R%u, R%u, %u", p->t1, p->t1, ilog2(p->vw));
  if (trans) {
    ins(e, NULL, "SHL R%u, R%u, 2", p->t2, p->t0);
    ins(e, "stores As[k][row]", "IMAD R%u, R%u, %u, R%u", p->sta, p->t1, p->lda_s, p->t2);
  } else {
    ins(e, NULL, "SHL R%u, R%u, 2", p->t2, p->t1);
    ins(e, "stores As[row][k]", "IMAD R%u, R%u, %u, R%u", p->sta, p->t0, p->lda_s, p->t2);
  }
  emit_a_global(e);
}

static void emit_b_setup(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  line(e, "// ---- loading B: each pass copies %u rows of the %ux%u tile, %u float%s per thread",
       p->rpp_b, c->bk, c->bn, p->vw, p->vw > 1 ? "s" : "");
  ins(e, "k row in the B tile", "SHR.U32 R%u, R%u, %u", p->t0, p->tid, ilog2(p->cpr_b));
  ins(e, "column in the B tile", "AND R%u, R%u, %u", p->t1, p->tid, p->cpr_b - 1);
  if (p->vw > 1) ins(e, NULL, "SHL R%u, R%u, %u", p->t1, p->t1, ilog2(p->vw));
  ins(e, NULL, "SHL R%u, R%u, 2", p->t2, p->t1);
  ins(e, "stores Bs[k][col]", "IMAD R%u, R%u, %u, R%u", p->stb, p->t0, p->ldb_s, p->t2);
  ins(e, "column of B", "IMAD R%u, R%u, %u, R%u", p->t1, p->bx, c->bn, p->t1);
  ins(e, NULL, "IMAD R%u, R%u, R%u, R%u", p->t2, p->t0, p->n, p->t1);
  ins(e, "&B[k][col]", "IMAD.WIDE.U32 R%u, R%u, 4, R%u", p->pbt, p->t2, p->pb);
  ins(e, NULL, "ISETP.LT.U32 P0, R%u, R%u", p->t1, p->n);
  ins(e, NULL, "SEL R%u, R%u, RZ, P0", p->t2, p->k);
  ins(e, NULL, "ISUB R%u, R%u, R%u", p->t2, p->t2, p->t0);
  for (uint32_t q = 0; q < p->passes_b; q++)
    ins(e, q ? NULL : "lim: chunk exists iff k0 < lim", "IADD R%u, R%u, %d", p->limb + q, p->t2,
        -(int)(q * p->rpp_b));
  if (p->vw > 1) ins(e, "columns left in the row", "ISUB R%u, R%u, R%u", p->colsb, p->n, p->t1);
  ins(e, "bytes between passes", "IMUL R%u, R%u, %u", p->strb, p->n, p->rpp_b * 4);
  ins(e, "next tile: bk rows down", "IMUL R%u, R%u, %u", p->incb, p->n, c->bk * 4);
}

/* Global address of pass q: base + q * stride. */
static uint32_t pass_addr(emitter *e, uint32_t q, uint32_t stride, uint32_t base) {
  if (q == 0) return base;
  ins(e, "pass q: q * rows-per-pass further", "IMAD.WIDE.U32 R%u, R%u, %u, R%u", e->p->addr, stride, q, base);
  return e->p->addr;
}

typedef void (*chunk_fn)(emitter *e, uint32_t kreg);

/* Runs vec() when pred holds (a branch every thread takes the same way),
 * else scalar(): four predicated 32-bit accesses per chunk. */
static void emit_vec_or_scalar(emitter *e, const char *pred, const char *why, chunk_fn vec,
                               chunk_fn scalar, uint32_t kreg) {
  unsigned id = e->labels++;
  ins(e, why, "@!%s BRA scalar%u", pred, id);
  vec(e, kreg);
  ins(e, NULL, "BRA loaded%u", id);
  char label[32];
  snprintf(label, sizeof label, "scalar%u:", id);
  line(e, "%-36s // unaligned rows: the same chunks, 32 bits at a time", label);
  scalar(e, kreg);
  line(e, "loaded%u:", id);
}

static uint32_t stage_a(const plan *p, uint32_t q) { return p->stage + q * p->vw; }
static uint32_t stage_b(const plan *p, uint32_t q) { return p->stage + (p->passes_a + q) * p->vw; }

static void load_a_vec(emitter *e, uint32_t kreg) {
  const plan *p = e->p;
  for (uint32_t q = 0; q < p->passes_a; q++) {
    uint32_t s = stage_a(p, q);
    ins(e, "row inside M and k inside K?", "ISETP.LT.S32 P0, R%u, R%u", kreg, p->lima + q);
    for (uint32_t j = 0; j < p->vw; j++) ins(e, j ? NULL : "zeros past the edge", "MOV R%u, 0", s + j);
    uint32_t a = pass_addr(e, q, p->stra, p->pat);
    ins(e, NULL, "@P0 LDG.%s R%u, [R%u]", width_mod(p->vw), s, a);
  }
}

static void load_a_scalar(emitter *e, uint32_t kreg) {
  const plan *p = e->p;
  for (uint32_t q = 0; q < p->passes_a; q++) {
    uint32_t a = pass_addr(e, q, p->stra, p->pat);
    for (uint32_t j = 0; j < 4; j++) {
      ins(e, NULL, "IADD R%u, R%u, %u", p->t0, kreg, j);
      ins(e, NULL, "ISETP.LT.S32 P0, R%u, R%u", p->t0, p->lima + q);
      ins(e, NULL, "MOV R%u, 0", stage_a(p, q) + j);
      ins(e, NULL, "@P0 LDG.32 R%u, [R%u+%u]", stage_a(p, q) + j, a, j * 4);
    }
  }
}

static void load_b_vec(emitter *e, uint32_t kreg) {
  const plan *p = e->p;
  for (uint32_t q = 0; q < p->passes_b; q++) {
    uint32_t s = stage_b(p, q);
    ins(e, "k inside K and column inside N?", "ISETP.LT.S32 P0, R%u, R%u", kreg, p->limb + q);
    for (uint32_t j = 0; j < p->vw; j++) ins(e, j ? NULL : "zeros past the edge", "MOV R%u, 0", s + j);
    uint32_t a = pass_addr(e, q, p->strb, p->pbt);
    ins(e, NULL, "@P0 LDG.%s R%u, [R%u]", width_mod(p->vw), s, a);
  }
}

/* Column j of the chunk exists: P0 &= j < columns left. */
static void emit_col_check(emitter *e, uint32_t j) {
  ins(e, NULL, "ISETP.GT.S32 P1, R%u, %u", e->p->colsb, j);
  ins(e, NULL, "@!P1 ISETP.NE.U32 P0, RZ, RZ");
}

static void load_b_scalar(emitter *e, uint32_t kreg) {
  const plan *p = e->p;
  for (uint32_t q = 0; q < p->passes_b; q++) {
    uint32_t a = pass_addr(e, q, p->strb, p->pbt);
    for (uint32_t j = 0; j < 4; j++) {
      ins(e, NULL, "ISETP.LT.S32 P0, R%u, R%u", kreg, p->limb + q);
      emit_col_check(e, j);
      ins(e, NULL, "MOV R%u, 0", stage_b(p, q) + j);
      ins(e, NULL, "@P0 LDG.32 R%u, [R%u+%u]", stage_b(p, q) + j, a, j * 4);
    }
  }
}

static void emit_store_tiles(emitter *e) {
  const plan *p = e->p;
  line(e, "    // registers -> shared memory");
  for (uint32_t q = 0; q < p->passes_a; q++) {
    if (!p->a_trans) {
      ins(e, NULL, "STS.%s [R%u+As+%u], R%u", width_mod(p->vw), p->sta, q * p->rpp_a * p->lda_s, stage_a(p, q));
      continue;
    }
    for (uint32_t j = 0; j < p->vw; j++)
      ins(e, j ? NULL : "transposed: As[k+j][row]", "STS.32 [R%u+As+%u], R%u", p->sta,
          j * p->lda_s + q * p->rpp_a * 4, stage_a(p, q) + j);
  }
  for (uint32_t q = 0; q < p->passes_b; q++)
    ins(e, NULL, "STS.%s [R%u+Bs+%u], R%u", width_mod(p->vw), p->stb, q * p->rpp_b * p->ldb_s, stage_b(p, q));
}

/* Async copies: LDGSTS where the chunk exists, a zero store where it does not. */
static void copy_a_vec(emitter *e, uint32_t kreg) {
  const plan *p = e->p;
  for (uint32_t q = 0; q < p->passes_a; q++) {
    uint32_t off = q * p->rpp_a * p->lda_s;
    ins(e, "row inside M and k inside K?", "ISETP.LT.S32 P0, R%u, R%u", kreg, p->lima + q);
    uint32_t a = pass_addr(e, q, p->stra, p->pat);
    ins(e, "global -> shared, no registers", "@P0 LDGSTS.128 [R%u+As+%u], [R%u]", p->sta, off, a);
    ins(e, "zeros past the edge", "@!P0 STS.128 [R%u+As+%u], RZ", p->sta, off);
  }
}

static void copy_a_scalar(emitter *e, uint32_t kreg) {
  const plan *p = e->p;
  for (uint32_t q = 0; q < p->passes_a; q++) {
    uint32_t off = q * p->rpp_a * p->lda_s;
    uint32_t a = pass_addr(e, q, p->stra, p->pat);
    for (uint32_t j = 0; j < 4; j++) {
      ins(e, NULL, "IADD R%u, R%u, %u", p->t0, kreg, j);
      ins(e, NULL, "ISETP.LT.S32 P0, R%u, R%u", p->t0, p->lima + q);
      ins(e, NULL, "@P0 LDGSTS.32 [R%u+As+%u], [R%u+%u]", p->sta, off + j * 4, a, j * 4);
      ins(e, NULL, "@!P0 STS.32 [R%u+As+%u], RZ", p->sta, off + j * 4);
    }
  }
}

static void copy_b_vec(emitter *e, uint32_t kreg) {
  const plan *p = e->p;
  for (uint32_t q = 0; q < p->passes_b; q++) {
    uint32_t off = q * p->rpp_b * p->ldb_s;
    ins(e, "k inside K and column inside N?", "ISETP.LT.S32 P0, R%u, R%u", kreg, p->limb + q);
    uint32_t a = pass_addr(e, q, p->strb, p->pbt);
    ins(e, NULL, "@P0 LDGSTS.128 [R%u+Bs+%u], [R%u]", p->stb, off, a);
    ins(e, NULL, "@!P0 STS.128 [R%u+Bs+%u], RZ", p->stb, off);
  }
}

static void copy_b_scalar(emitter *e, uint32_t kreg) {
  const plan *p = e->p;
  for (uint32_t q = 0; q < p->passes_b; q++) {
    uint32_t off = q * p->rpp_b * p->ldb_s;
    uint32_t a = pass_addr(e, q, p->strb, p->pbt);
    for (uint32_t j = 0; j < 4; j++) {
      ins(e, NULL, "ISETP.LT.S32 P0, R%u, R%u", kreg, p->limb + q);
      emit_col_check(e, j);
      ins(e, NULL, "@P0 LDGSTS.32 [R%u+Bs+%u], [R%u+%u]", p->stb, off + j * 4, a, j * 4);
      ins(e, NULL, "@!P0 STS.32 [R%u+Bs+%u], RZ", p->stb, off + j * 4);
    }
  }
}

static void emit_fragment_b(emitter *e, uint32_t k) {
  const plan *p = e->p;
  uint32_t tn = e->c->tn, nb = p->cg * tn, step = p->vec ? 4 : 1;
  for (uint32_t b = 0; b < nb; b += step)
    ins(e, b ? NULL : "B fragment: Bs[k][col ...]", "LDS.%s R%u, [R%u+Bs+%u]", width_mod(step),
        p->fb + b, p->rdb, k * p->ldb_s + col_off(p, tn, b) * 4);
}

static void emit_outer_product(emitter *e, uint32_t fa_stride, uint32_t fa_add) {
  const plan *p = e->p;
  uint32_t na = p->rg * e->c->tm, nb = p->cg * e->c->tn;
  for (uint32_t a = 0; a < na; a++)
    for (uint32_t b = 0; b < nb; b++)
      ins(e, a == 0 && b == 0 ? "acc[i][j] += a[i] * b[j]" : NULL, "FFMA R%u, R%u, R%u, R%u",
          p->acc + a * nb + b, p->fa + a * fa_stride + fa_add, p->fb + b, p->acc + a * nb + b);
}

/* The inner product over the staged k tile, fully unrolled. */
static void emit_compute(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  uint32_t na = p->rg * c->tm;
  line(e, "    // multiply the staged tiles: for each k, an outer product of a column of As");
  line(e, "    // and a row of Bs into the thread's %u accumulators", p->nacc);
  for (uint32_t k = 0; k < c->bk; k += p->async ? 2 : 1) {
    if (p->async) { /* LDGSTS cannot transpose: A is read along k, two k at a time */
      for (uint32_t a = 0; a < na; a++)
        ins(e, a ? NULL : "As[row][k..k+1] for each of the thread's rows", "LDS.64 R%u, [R%u+As+%u]",
            p->fa + a * 2, p->rda, row_off(p, c->tm, a) * p->lda_s + k * 4);
      for (uint32_t kk = 0; kk < 2; kk++) {
        line(e, "    // k = %u", k + kk);
        emit_fragment_b(e, k + kk);
        emit_outer_product(e, 2, kk);
      }
      continue;
    }
    line(e, "    // k = %u", k);
    if (p->a_trans)
      for (uint32_t a = 0; a < na; a += 4)
        ins(e, a ? NULL : "A fragment: As[k][row ...]", "LDS.128 R%u, [R%u+As+%u]", p->fa + a, p->rda,
            k * p->lda_s + row_off(p, c->tm, a) * 4);
    else
      for (uint32_t a = 0; a < na; a++)
        ins(e, a ? NULL : "A fragment: As[row][k]", "LDS.32 R%u, [R%u+As+%u]", p->fa + a, p->rda,
            row_off(p, c->tm, a) * p->lda_s + k * 4);
    emit_fragment_b(e, k);
    emit_outer_product(e, 1, 0);
  }
}

static void emit_advance(emitter *e) {
  const plan *p = e->p;
  ins(e, "next tile of A", "IMAD.WIDE.U32 R%u, R%u, 1, R%u", p->pat, p->inca, p->pat);
  ins(e, "next tile of B", "IMAD.WIDE.U32 R%u, R%u, 1, R%u", p->pbt, p->incb, p->pbt);
}

static void tiled_layout(const emitter *e, epi_layout *L) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  L->nr = p->rg * c->tm;
  L->ns = p->cg;
  L->vw = c->tn;
  for (uint32_t a = 0; a < L->nr; a++) {
    L->row_off[a] = row_off(p, c->tm, a);
    L->acc_row[a] = a * p->cg * c->tn;
  }
  for (uint32_t s = 0; s < L->ns; s++) {
    L->col_off[s] = s * p->cstride;
    L->acc_seg[s] = s * c->tn;
  }
}

static void emit_sync_loop(emitter *e) {
  const plan *p = e->p;
  line(e, "k_tile:");
  ins(e, NULL, "ISETP.GE.U32 P0, R%u, R%u", p->k0, p->k);
  ins(e, NULL, "@P0 BRA epilogue");
  line(e, "    // global -> registers (all loads in flight before the first store)");
  if (p->vec) {
    emit_vec_or_scalar(e, "P5", "K % 4 != 0?", load_a_vec, load_a_scalar, p->k0);
    emit_vec_or_scalar(e, "P6", "N % 4 != 0?", load_b_vec, load_b_scalar, p->k0);
  } else {
    load_a_vec(e, p->k0);
    load_b_vec(e, p->k0);
  }
  emit_store_tiles(e);
  ins(e, "both tiles are complete", "BAR.SYNC");
  emit_compute(e);
  ins(e, "nobody overwrites a tile still being read", "BAR.SYNC");
  emit_advance(e);
  ins(e, NULL, "IADD R%u, R%u, %u", p->k0, p->k0, e->c->bk);
  ins(e, NULL, "BRA k_tile");
}

static void emit_copies(emitter *e, uint32_t kreg) {
  emit_vec_or_scalar(e, "P5", "K % 4 != 0?", copy_a_vec, copy_a_scalar, kreg);
  emit_vec_or_scalar(e, "P6", "N % 4 != 0?", copy_b_vec, copy_b_scalar, kreg);
}

static void emit_async_loop(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  line(e, "// ---- two stages: copy tile 0 into stage 0, then each step copies tile k+1 into");
  line(e, "// the other stage while tile k is multiplied");
  ins(e, "stage size of As, bytes (in the A pointer's registers, free now)", "MOV R%u, %u", p->da, p->stage_a_bytes);
  ins(e, "stage size of Bs", "MOV R%u, %u", p->db, p->stage_b_bytes);
  emit_copies(e, p->k0);
  ins(e, "group 0: tile 0", "LDGDEPBAR");
  emit_advance(e);
  ins(e, "copies now go to stage 1", "IADD R%u, R%u, R%u", p->sta, p->sta, p->da);
  ins(e, NULL, "IADD R%u, R%u, R%u", p->stb, p->stb, p->db);
  line(e, "k_tile:");
  ins(e, NULL, "ISETP.GE.U32 P0, R%u, R%u", p->k0, p->k);
  ins(e, NULL, "@P0 BRA epilogue");
  ins(e, "k of the next tile", "IADD R%u, R%u, %u", p->kn, p->k0, c->bk);
  ins(e, NULL, "ISETP.GE.U32 P0, R%u, R%u", p->kn, p->k);
  ins(e, "no next tile", "@P0 BRA k_wait");
  emit_copies(e, p->kn);
  emit_advance(e);
  line(e, "k_wait:");
  ins(e, "commit (an empty group on the last tile)", "LDGDEPBAR");
  ins(e, "all but the newest group landed: tile k is in", "DEPBAR 1");
  ins(e, "... for every thread's copies", "BAR.SYNC");
  emit_compute(e);
  ins(e, "the stage just read is the next copy's target", "BAR.SYNC");
  ins(e, "swap stages: reads move one way ...", "IADD R%u, R%u, R%u", p->rda, p->rda, p->da);
  ins(e, "... copies the other", "ISUB R%u, R%u, R%u", p->sta, p->sta, p->da);
  ins(e, NULL, "IADD R%u, R%u, R%u", p->rdb, p->rdb, p->db);
  ins(e, NULL, "ISUB R%u, R%u, R%u", p->stb, p->stb, p->db);
  ins(e, NULL, "ISUB R%u, RZ, R%u", p->da, p->da);
  ins(e, NULL, "ISUB R%u, RZ, R%u", p->db, p->db);
  ins(e, NULL, "IADD R%u, R%u, %u", p->k0, p->k0, c->bk);
  ins(e, NULL, "BRA k_tile");
}

static void emit_tiled(emitter *e) {
  const plan *p = e->p;
  char adesc[96], bdesc[96];
  snprintf(adesc, sizeof adesc, "%s f32%s", p->a_trans ? "As[bk][bm]: A's tile, transposed" : "As[bm][bk]: A's tile",
           p->async ? ", two stages" : "");
  snprintf(bdesc, sizeof bdesc, "Bs[bk][bn] f32%s", p->async ? ", two stages" : "");
  emit_header(e);
  emit_shared(e, adesc, bdesc);
  emit_setup(e);
  if (p->vec) emit_alignment_preds(e);
  emit_tiled_coords(e);
  emit_a_setup(e, p->a_trans);
  emit_b_setup(e);
  emit_zero_acc(e);
  ins(e, "k0: first k of the current tile", "MOV R%u, 0", p->k0);
  if (p->async) emit_async_loop(e);
  else emit_sync_loop(e);
  epi_layout *L = malloc(sizeof *L);
  if (!L) {
    e->nomem = true;
    return;
  }
  tiled_layout(e, L);
  emit_epilogue(e, L);
  free(L);
}

/* ---- tensor cores --------------------------------------------------------------------- */

static void emit_mma_coords(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  line(e, "// ---- this warp's %ux%u tile of C: %u x %u HMMA tiles of 16x8; lane = 4g + t", c->wm,
       c->wn, p->miter, p->niter);
  ins(e, "warp", "SHR.U32 R%u, R%u, 5", p->t2, p->tid);
  ins(e, "warp row", "SHR.U32 R%u, R%u, %u", p->t0, p->t2, ilog2(c->bn / c->wn));
  ins(e, "warp column", "AND R%u, R%u, %u", p->t1, p->t2, c->bn / c->wn - 1);
  ins(e, "lane", "AND R%u, R%u, 31", p->t2, p->tid);
  ins(e, "lane * 16: its 4 A registers in a 16x16 block", "SHL R%u, R%u, 4", p->rda, p->t2);
  ins(e, "the warp's first 16-row block of As", "IMAD R%u, R%u, %u, R%u", p->rda, p->t0,
      (c->wm / 16) * p->lda_s, p->rda);
  ins(e, "lane * 8: its 2 B registers in an 8x16 block", "SHL R%u, R%u, 3", p->rdb, p->t2);
  ins(e, "the warp's first 8-column block of Bs", "IMAD R%u, R%u, %u, R%u", p->rdb, p->t1,
      (c->wn / 8) * p->ldb_s, p->rdb);
  ins(e, NULL, "SHL R%u, R%u, %u", p->t0, p->t0, ilog2(c->wm));
  ins(e, NULL, "SHL R%u, R%u, %u", p->t1, p->t1, ilog2(c->wn));
  ins(e, "g = lane / 4: C rows g, g+8", "SHR.U32 R%u, R%u, 2", p->kn, p->t2);
  ins(e, NULL, "IADD R%u, R%u, R%u", p->t0, p->t0, p->kn);
  ins(e, "t = lane % 4", "AND R%u, R%u, 3", p->t2, p->t2);
  ins(e, "2t: first C column of this lane", "SHL R%u, R%u, 1", p->t2, p->t2);
  ins(e, NULL, "IADD R%u, R%u, R%u", p->t1, p->t1, p->t2);
  ins(e, "first output row in C", "IMAD R%u, R%u, %u, R%u", p->rowb, p->by, c->bm, p->t0);
  ins(e, "first output column in C", "IMAD R%u, R%u, %u, R%u", p->colb, p->bx, c->bn, p->t1);
}

/* dst = base + ((src >> shift) & mask) * mul, with kn as scratch. */
static void emit_bits_madd(emitter *e, uint32_t dst, uint32_t base, uint32_t src, uint32_t shift,
                           uint32_t mask, uint32_t mul) {
  uint32_t tmp = e->p->kn;
  if (shift) ins(e, NULL, "SHR.U32 R%u, R%u, %u", tmp, src, shift);
  ins(e, NULL, "AND R%u, R%u, %u", tmp, shift ? tmp : src, mask);
  ins(e, NULL, "IMAD R%u, R%u, %u, R%u", dst, tmp, mul, base);
}

/* As holds A in fragment order: 16x16 blocks (block row m/16, block
 * column k/16) of 512 bytes; the half pair A[m][k..k+1] (k even) belongs to
 * lane 4*(m%8) + (k/2)%4, register (m/8)%2 + 2*((k/8)%2), at byte
 * lane*16 + register*4 of its block. So a lane reads its whole A fragment
 * with one LDS.128, and a warp's read covers 512 contiguous bytes. */
static void emit_mma_a_setup(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  line(e, "// ---- loading A: each pass copies %u rows of the %ux%u tile, 4 floats per thread,", p->rpp_a,
       c->bm, c->bk);
  line(e, "// stored as binary16 in HMMA fragment order (16x16 blocks, lane L's registers at L*16)");
  ins(e, "row in the A tile", "SHR.U32 R%u, R%u, %u", p->t0, p->tid, ilog2(p->cpr_a));
  ins(e, "k in the A tile", "AND R%u, R%u, %u", p->t1, p->tid, p->cpr_a - 1);
  ins(e, NULL, "SHL R%u, R%u, 2", p->t1, p->t1);
  ins(e, "k part: block column * 512", "SHR.U32 R%u, R%u, 4", p->t2, p->t1);
  ins(e, NULL, "SHL R%u, R%u, 9", p->t2, p->t2);
  emit_bits_madd(e, p->t2, p->t2, p->t1, 1, 3, 16); /* lane += (k/2)%4 */
  emit_bits_madd(e, p->t2, p->t2, p->t1, 3, 1, 8);  /* register += 2*((k/8)%2) */
  for (uint32_t q = 0; q < p->passes_a; q++) {
    uint32_t m = p->addr, sq = p->sta + q;
    ins(e, q ? NULL : "row m of this pass", "IADD R%u, R%u, %u", m, p->t0, q * p->rpp_a);
    ins(e, NULL, "SHR.U32 R%u, R%u, 4", p->kn, m);
    ins(e, "+ block row * bytes per block row", "IMAD R%u, R%u, %u, R%u", sq, p->kn, p->lda_s, p->t2);
    emit_bits_madd(e, sq, sq, m, 0, 7, 64); /* lane += 4*(m%8) */
    emit_bits_madd(e, sq, sq, m, 3, 1, 4);  /* register += (m/8)%2 */
  }
  emit_a_global(e);
}

/* Bs holds B in fragment order: 8x16 blocks (block row n/8, block column
 * k/16) of 256 bytes; the half pair B[k..k+1][n] (k even) belongs to lane
 * 4*(n%8) + (k/2)%4, register (k/8)%2, at byte lane*8 + register*4. */
static void emit_mma_b_setup(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  line(e, "// ---- loading B: a thread takes rows 2p, 2p+1 of 4 columns and stores four (k, k+1)");
  line(e, "// half pairs, in fragment order (8x16 blocks, lane L's registers at L*8)");
  ins(e, "k pair p", "AND R%u, R%u, %u", p->t1, p->tid, c->bk / 2 - 1);
  ins(e, "4-column chunk", "SHR.U32 R%u, R%u, %u", p->t0, p->tid, ilog2(c->bk / 2));
  ins(e, "first column of the chunk in the tile", "SHL R%u, R%u, 2", p->t0, p->t0);
  ins(e, "k part: block column * 256", "SHR.U32 R%u, R%u, 3", p->t2, p->t1);
  ins(e, NULL, "SHL R%u, R%u, 8", p->t2, p->t2);
  emit_bits_madd(e, p->t2, p->t2, p->t1, 0, 3, 8); /* lane += p%4 */
  emit_bits_madd(e, p->t2, p->t2, p->t1, 2, 1, 4); /* register += (p/4)%2 */
  for (uint32_t q = 0; q < p->passes_b; q++) {
    uint32_t n = p->addr, sq = p->stb + q;
    ins(e, q ? NULL : "column n of this pass", "IADD R%u, R%u, %u", n, p->t0, q * p->rpp_b * 4);
    ins(e, NULL, "SHR.U32 R%u, R%u, 3", p->kn, n);
    ins(e, "+ block row * bytes per block row", "IMAD R%u, R%u, %u, R%u", sq, p->kn, p->ldb_s, p->t2);
    emit_bits_madd(e, sq, sq, n, 0, 7, 32); /* lane += 4*(n%8) */
  }
  ins(e, "column of B", "IMAD R%u, R%u, %u, R%u", p->gcolb, p->bx, c->bn, p->t0);
  ins(e, "k row 2p", "SHL R%u, R%u, 1", p->t1, p->t1);
  ins(e, NULL, "IMAD R%u, R%u, R%u, R%u", p->t2, p->t1, p->n, p->gcolb);
  ins(e, "&B[2p][col]", "IMAD.WIDE.U32 R%u, R%u, 4, R%u", p->pbt, p->t2, p->pb);
  for (uint32_t q = 0; q < p->passes_b; q++) {
    ins(e, NULL, "IADD R%u, R%u, %u", p->t2, p->gcolb, q * p->rpp_b * 4);
    ins(e, NULL, "ISETP.LT.U32 P0, R%u, R%u", p->t2, p->n);
    ins(e, NULL, "SEL R%u, R%u, RZ, P0", p->t2, p->k);
    ins(e, q ? NULL : "lim: row 2p exists iff k0 < lim", "ISUB R%u, R%u, R%u", p->limb + q, p->t2, p->t1);
  }
  ins(e, "one row of B, bytes", "IMAD.WIDE.U32 R%u, R%u, 4, RZ", p->nrow, p->n);
  ins(e, "next tile: bk rows down", "IMUL R%u, R%u, %u", p->incb, p->n, c->bk * 4);
}

static uint32_t mma_stage_b(const plan *p, uint32_t q) { return p->stage + p->passes_a * 4 + q * 8; }

static void mma_load_b_vec(emitter *e, uint32_t kreg) {
  const plan *p = e->p;
  (void)kreg;
  for (uint32_t q = 0; q < p->passes_b; q++) {
    uint32_t s = mma_stage_b(p, q), off = q * p->rpp_b * 16;
    ins(e, "row 2p exists (and the columns)?", "ISETP.LT.S32 P0, R%u, R%u", p->k0, p->limb + q);
    ins(e, "row 2p+1?", "ISETP.LT.S32 P1, R%u, R%u", p->kn, p->limb + q);
    for (uint32_t j = 0; j < 8; j++) ins(e, j ? NULL : "zeros past the edge", "MOV R%u, 0", s + j);
    ins(e, NULL, "@P0 LDG.128 R%u, [R%u+%u]", s, p->pbt, off);
    ins(e, NULL, "@P1 LDG.128 R%u, [R%u+%u]", s + 4, p->addr2, off);
  }
}

static void mma_load_b_scalar(emitter *e, uint32_t kreg) {
  const plan *p = e->p;
  (void)kreg;
  for (uint32_t q = 0; q < p->passes_b; q++)
    for (uint32_t r = 0; r < 2; r++)
      for (uint32_t j = 0; j < 4; j++) {
        uint32_t s = mma_stage_b(p, q) + r * 4 + j, off = q * p->rpp_b * 16 + j * 4;
        ins(e, NULL, "ISETP.LT.S32 P0, R%u, R%u", r ? p->kn : p->k0, p->limb + q);
        ins(e, NULL, "IADD R%u, R%u, %u", p->t0, p->gcolb, off / 4);
        ins(e, NULL, "ISETP.LT.U32 P1, R%u, R%u", p->t0, p->n);
        ins(e, NULL, "@!P1 ISETP.NE.U32 P0, RZ, RZ");
        ins(e, NULL, "MOV R%u, 0", s);
        ins(e, NULL, "@P0 LDG.32 R%u, [R%u+%u]", s, r ? p->addr2 : p->pbt, off);
      }
}

static void emit_mma_stores(emitter *e) {
  const plan *p = e->p;
  line(e, "    // convert to binary16 and store the half pairs in fragment order");
  for (uint32_t q = 0; q < p->passes_a; q++) {
    uint32_t s = stage_a(p, q);
    ins(e, "A[m][k], A[m][k+1] -> one register", "F2FP.PACK R%u, R%u, R%u", p->pack, s, s + 1);
    ins(e, NULL, "F2FP.PACK R%u, R%u, R%u", p->pack + 1, s + 2, s + 3);
    ins(e, NULL, "STS.32 [R%u+As], R%u", p->sta + q, p->pack);
    ins(e, "k+2: the next lane", "STS.32 [R%u+As+16], R%u", p->sta + q, p->pack + 1);
  }
  for (uint32_t q = 0; q < p->passes_b; q++)
    for (uint32_t j = 0; j < 4; j++) {
      uint32_t s = mma_stage_b(p, q);
      ins(e, j ? NULL : "B[2p][n+j], B[2p+1][n+j] -> one register", "F2FP.PACK R%u, R%u, R%u", p->pack,
          s + j, s + 4 + j);
      ins(e, j ? NULL : "column n+j: 4 lanes further", "STS.32 [R%u+Bs+%u], R%u", p->stb + q, j * 32, p->pack);
    }
}

static void emit_mma_compute(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  for (uint32_t ks = 0; ks < c->bk / 16; ks++) {
    line(e, "    // k = %u..%u: each lane reads its fragments (docs/isa.md, m16n8k16) whole, then %u HMMAs",
         ks * 16, ks * 16 + 15, p->miter * p->niter);
    for (uint32_t mi = 0; mi < p->miter; mi++)
      ins(e, mi ? NULL : "A fragment: a0..a7 in 4 registers", "LDS.128 R%u, [R%u+As+%u]", p->fa + mi * 4,
          p->rda, mi * p->lda_s + ks * 512);
    for (uint32_t ni = 0; ni < p->niter; ni++)
      ins(e, ni ? NULL : "B fragment: b0..b3 in 2 registers", "LDS.64 R%u, [R%u+Bs+%u]", p->fb + ni * 2,
          p->rdb, ni * p->ldb_s + ks * 256);
    for (uint32_t mi = 0; mi < p->miter; mi++)
      for (uint32_t ni = 0; ni < p->niter; ni++) {
        uint32_t acc = p->acc + (mi * p->niter + ni) * 4;
        ins(e, NULL, "HMMA.16816.F32 R%u, R%u, R%u, R%u", acc, p->fa + mi * 4, p->fb + ni * 2, acc);
      }
  }
}

static void mma_layout(const plan *p, epi_layout *L) {
  L->nr = p->miter * 2;
  L->ns = p->niter;
  L->vw = 2;
  for (uint32_t a = 0; a < L->nr; a++) {
    L->row_off[a] = (a / 2) * 16 + (a % 2) * 8;
    L->acc_row[a] = (a / 2) * p->niter * 4 + (a % 2) * 2;
  }
  for (uint32_t s = 0; s < L->ns; s++) {
    L->col_off[s] = s * 8;
    L->acc_seg[s] = s * 4;
  }
}

/* Global -> staging registers for the tile at k0 (zeros past the edges). */
static void emit_mma_loads(emitter *e) {
  const plan *p = e->p;
  ins(e, "k0 + 1", "IADD R%u, R%u, 1", p->kn, p->k0);
  ins(e, "&B[k0 + 2p + 1][col]", "IADD.64 R%u, R%u, R%u", p->addr2, p->pbt, p->nrow);
  emit_vec_or_scalar(e, "P5", "K % 4 != 0?", load_a_vec, load_a_scalar, p->k0);
  emit_vec_or_scalar(e, "P6", "N % 4 != 0?", mma_load_b_vec, mma_load_b_scalar, p->k0);
}

static void emit_mma(emitter *e) {
  const plan *p = e->p;
  const ws_gemmgen_cfg *c = e->c;
  emit_header(e);
  emit_shared(e, "A's tile, f16, in HMMA A-fragment order", "B's tile, f16, in HMMA B-fragment order");
  emit_setup(e);
  emit_alignment_preds(e);
  emit_mma_coords(e);
  emit_mma_a_setup(e);
  emit_mma_b_setup(e);
  emit_zero_acc(e);
  ins(e, "k0: first k of the tile in the staging registers", "MOV R%u, 0", p->k0);
  line(e, "// ---- prefetch: tile k+1 is loaded into registers while tile k is multiplied");
  emit_mma_loads(e);
  line(e, "k_tile:");
  ins(e, NULL, "ISETP.GE.U32 P0, R%u, R%u", p->k0, p->k);
  ins(e, NULL, "@P0 BRA epilogue");
  emit_mma_stores(e);
  ins(e, "both tiles are complete", "BAR.SYNC");
  emit_advance(e);
  ins(e, NULL, "IADD R%u, R%u, %u", p->k0, p->k0, c->bk);
  line(e, "    // global -> registers for the next tile (fp32; zeros past K): in flight during the HMMAs");
  emit_mma_loads(e);
  emit_mma_compute(e);
  ins(e, "nobody overwrites a tile still being read", "BAR.SYNC");
  ins(e, NULL, "BRA k_tile");
  epi_layout *L = malloc(sizeof *L);
  if (!L) {
    e->nomem = true;
    return;
  }
  mma_layout(p, L);
  emit_epilogue(e, L);
  free(L);
}

/* ---- public entry points -------------------------------------------------------------- */

ws_status ws_gemmgen_emit(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, char **wsa_text) {
  *wsa_text = NULL;
  ws_status st = check_structure(ctx, cfg);
  if (st != WS_OK) return st;
  plan p;
  make_plan(cfg, &p);
  emitter e = {.c = cfg, .p = &p};
  if (cfg->variant <= WS_GEMMGEN_COALESCED) emit_simple(&e);
  else if (cfg->variant == WS_GEMMGEN_MMA) emit_mma(&e);
  else emit_tiled(&e);
  if (e.nomem || !e.text) {
    free(e.text);
    return ws_ctx_fail(ctx, WS_ERR_NOMEM, "gemmgen: out of host memory for the kernel text");
  }
  *wsa_text = e.text;
  return WS_OK;
}

ws_status ws_gemmgen_build(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, ws_program **out) {
  *out = NULL;
  char *text = NULL;
  ws_status st = ws_gemmgen_emit(ctx, cfg, &text);
  if (st != WS_OK) return st;
  char name[64];
  snprintf(name, sizeof name, "gemm_%s.wsa", ws_gemmgen_variant_name(cfg->variant));
  st = ws_asm_parse(ctx, text, strlen(text), name, out);
  free(text);
  return st;
}

void ws_gemmgen_launch_geometry(const ws_gemmgen_cfg *cfg, uint32_t m, uint32_t n, ws_dim3 *grid,
                                ws_dim3 *block, uint32_t *dyn_smem_bytes) {
  uint32_t bm = cfg->bm ? cfg->bm : 1, bn = cfg->bn ? cfg->bn : 1;
  *grid = (ws_dim3){(n + bn - 1) / bn, (m + bm - 1) / bm, 1};
  *block = (ws_dim3){cfg->threads, 1, 1};
  *dyn_smem_bytes = 0;
}

static ws_status check_problem(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, const ws_gemmgen_problem *pr) {
  if (pr->m == 0 || pr->n == 0 || pr->k == 0 || pr->m > DIM_MAX || pr->n > DIM_MAX || pr->k > DIM_MAX)
    REFUSE("gemm: M, N and K must be 1..%u, got %ux%ux%u", DIM_MAX, pr->m, pr->n, pr->k);
  uint64_t lim = 1ull << 31;
  if ((uint64_t)pr->m * pr->k >= lim || (uint64_t)pr->k * pr->n >= lim || (uint64_t)pr->m * pr->n >= lim)
    REFUSE("gemm: M*K, K*N and M*N must stay below 2^31 elements (32-bit indices), got %ux%ux%u",
           pr->m, pr->n, pr->k);
  if (!pr->a || !pr->b || !pr->c) REFUSE("gemm: A, B and C must be device buffers");
  if ((cfg->epilogue & WS_GEMMGEN_EPI_BIAS) && !pr->bias) REFUSE("gemm: the bias epilogue needs a bias buffer");
  if ((cfg->epilogue & WS_GEMMGEN_EPI_RESIDUAL) && !pr->res)
    REFUSE("gemm: the residual epilogue needs an R buffer");
  return WS_OK;
}

static ws_status set_args(ws_ctx *ctx, ws_args *args, const ws_gemmgen_cfg *cfg, const ws_gemmgen_problem *pr) {
  ws_status st = ws_args_set_ptr(ctx, args, "A", pr->a);
  if (st == WS_OK) st = ws_args_set_ptr(ctx, args, "B", pr->b);
  if (st == WS_OK) st = ws_args_set_ptr(ctx, args, "C", pr->c);
  if (st == WS_OK && (cfg->epilogue & WS_GEMMGEN_EPI_BIAS)) st = ws_args_set_ptr(ctx, args, "bias", pr->bias);
  if (st == WS_OK && (cfg->epilogue & WS_GEMMGEN_EPI_RESIDUAL)) st = ws_args_set_ptr(ctx, args, "R", pr->res);
  if (st == WS_OK) st = ws_args_set_u32(ctx, args, "M", pr->m);
  if (st == WS_OK) st = ws_args_set_u32(ctx, args, "N", pr->n);
  if (st == WS_OK) st = ws_args_set_u32(ctx, args, "K", pr->k);
  return st;
}

ws_status ws_gemmgen_run(ws_device *dev, const ws_gemmgen_cfg *cfg, const ws_gemmgen_problem *prob,
                         ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  ws_status st = check_problem(ctx, cfg, prob);
  if (st == WS_OK) st = ws_gemmgen_check(ctx, cfg, ws_device_cfg(dev));
  ws_program *prog = NULL;
  if (st == WS_OK) st = ws_gemmgen_build(ctx, cfg, &prog);
  if (st != WS_OK) return st;
  ws_args args;
  ws_args_init(&args, &prog->kernels[0]);
  st = set_args(ctx, &args, cfg, prob);
  if (st == WS_OK) {
    ws_dim3 grid, block;
    uint32_t dyn;
    ws_gemmgen_launch_geometry(cfg, prob->m, prob->n, &grid, &block, &dyn);
    st = ws_device_launch(dev, &prog->kernels[0], grid, block, dyn, &args, stats);
  }
  ws_program_destroy(prog);
  return st;
}

/* ---- host reference and error bounds (derived in the file header) ------------------- */

static double f16_err(double x) {
  double rel = fabs(x) * (1.0 / 2048.0); /* 2^-11 */
  return rel > 0x1p-25 ? rel : 0x1p-25;
}

/* Bound on |kernel - blas| for the plain product at (i, j). */
static double product_bound(const float *a, const float *b, uint32_t n, uint32_t k, uint32_t i,
                            uint32_t j, bool f16) {
  double s = 0, s16 = 0, conv = 0;
  for (uint32_t t = 0; t < k; t++) {
    double x = fabs((double)a[(size_t)i * k + t]), y = fabs((double)b[(size_t)t * n + j]);
    s += x * y;
    if (f16) {
      double ex = f16_err(x), ey = f16_err(y);
      conv += ex * y + x * ey + ex * ey;
      s16 += (x + ex) * (y + ey);
    }
  }
  double ku = (double)k * UNIT_ROUNDOFF_F32;
  return f16 ? conv + ku * s16 + ku * s : 2.0 * ku * s;
}

static double gelu_ref(double x) {
  return 0.5 * x * (1.0 + tanh(SQRT_2_OVER_PI * (x + GELU_C * x * x * x)));
}

/* Evaluation error of the kernel's GELU at x (file header). */
static double gelu_eval_bound(double x, double y) {
  double u = UNIT_ROUNDOFF_F32;
  double z = -2.0 * SQRT_2_OVER_PI * LOG2E * x * (1.0 + GELU_C * x * x);
  double zhi = z + 6.0 * u * fabs(z);
  double s = zhi > 1000 ? 1.0 : 1.0 / (1.0 + exp2(-zhi));
  return (4.0 + s * (2.0 + 6.0 * LN2 * fabs(z))) * u * fabs(y) + fabs(x) * 0x1p-126;
}

static double epilogue_ref(const ws_gemmgen_cfg *cfg, double x, double bias, double res, double *err) {
  double u = UNIT_ROUNDOFF_F32;
  if (cfg->epilogue & WS_GEMMGEN_EPI_BIAS) {
    x += bias;
    *err += u * (fabs(x) + *err);
  }
  if (cfg->epilogue & WS_GEMMGEN_EPI_GELU) {
    double xe = fabs(x) + *err, y = gelu_ref(x);
    double ye = fabs(y) + 1.13 * *err;
    *err = 1.13 * *err + gelu_eval_bound(x < 0 ? -xe : xe, ye);
    x = y;
  }
  if (cfg->epilogue & WS_GEMMGEN_EPI_RESIDUAL) {
    x += res;
    *err += u * (fabs(x) + *err);
  }
  if (cfg->epilogue) *err += u * fabs(x); /* ref itself is rounded to fp32 */
  return x;
}

ws_status ws_gemmgen_reference(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, uint32_t m, uint32_t n,
                               uint32_t k, const float *a, const float *b, const float *bias,
                               const float *res, float *ref, double *bound) {
  if (m == 0 || n == 0 || k == 0 || m > DIM_MAX || n > DIM_MAX || k > DIM_MAX)
    REFUSE("gemm reference: M, N and K must be 1..%u, got %ux%ux%u", DIM_MAX, m, n, k);
  if (!a || !b || !ref || !bound) REFUSE("gemm reference: A, B, ref and bound must not be NULL");
  if (((cfg->epilogue & WS_GEMMGEN_EPI_BIAS) && !bias) || ((cfg->epilogue & WS_GEMMGEN_EPI_RESIDUAL) && !res))
    REFUSE("gemm reference: the epilogue needs its bias / residual inputs");
  bool f16 = cfg->variant == WS_GEMMGEN_MMA;
  if (f16)
    for (size_t i = 0; i < (size_t)m * k + (size_t)k * n; i++)
      if (!(fabs(i < (size_t)m * k ? a[i] : b[i - (size_t)m * k]) < F16_MAX))
        REFUSE("gemm reference: mma rounds A and B to binary16; |values| must stay below %g", F16_MAX);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a, (int)k, b,
              (int)n, 0.0f, ref, (int)n);
  for (uint32_t i = 0; i < m; i++)
    for (uint32_t j = 0; j < n; j++) {
      size_t o = (size_t)i * n + j;
      double err = product_bound(a, b, n, k, i, j, f16);
      double x = epilogue_ref(cfg, ref[o], bias ? bias[j] : 0.0, res ? res[o] : 0.0, &err);
      ref[o] = (float)x;
      bound[o] = err;
    }
  return WS_OK;
}
