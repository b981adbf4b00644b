/* gemmgen.c - the GEMM generator's public entry: emit, assemble, launch.
 *
 * Design: the steps live in their own files (gemmgen_int.h lists them):
 * config, check, plan, emit, and the host reference. This file strings
 * them together, judges device limits on the plan's own register count and
 * shared-memory size (the numbers the emitted kernel will have), and binds
 * a problem's buffers to the kernel's params.
 *
 * 128-bit global accesses need 16-byte aligned addresses: a row of A starts
 * aligned when K % 4 == 0, a row of B, C, R when N % 4 == 0 (device buffers
 * are 256-byte aligned). The kernels test this at run time with a branch
 * every thread takes the same way, and otherwise load the same chunks with
 * four predicated 32-bit loads (correct, four times the load instructions). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/asm.h"
#include "models/kgen/gemmgen_int.h"

#define REFUSE(...) return ws_ctx_fail(ctx, WS_ERR_INVALID, __VA_ARGS__)

/* Checks cfg's structure and plans it into k. */
static ws_status plan_checked(ws_ctx *ctx, ws_kbuild *k, const ws_gemmgen_cfg *cfg, ws_gemmgen_plan *p) {
  ws_status st = ws_gemmgen_check_structure(ctx, cfg);
  if (st == WS_OK) ws_gemmgen_plan_make(k, cfg, p);
  return st;
}

ws_status ws_gemmgen_resources(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, uint32_t *regs_per_thread,
                               uint32_t *smem_bytes) {
  ws_kbuild k;
  ws_kbuild_init(&k);
  ws_gemmgen_plan p;
  ws_status st = plan_checked(ctx, &k, cfg, &p);
  ws_kbuild_free(&k);
  if (st != WS_OK) return st;
  *regs_per_thread = p.regs;
  *smem_bytes = p.smem_bytes;
  return WS_OK;
}

ws_status ws_gemmgen_check(ws_ctx *ctx, const ws_gemmgen_cfg *c, const ws_gpu_cfg *gpu) {
  uint32_t regs, smem;
  ws_status st = ws_gemmgen_resources(ctx, c, &regs, &smem);
  if (st != WS_OK) return st;
  uint32_t reg_max = gpu->regfile.max_regs_per_thread < WS_GEMMGEN_REG_LIMIT
                         ? gpu->regfile.max_regs_per_thread
                         : WS_GEMMGEN_REG_LIMIT;
  if (regs > reg_max)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "%s needs %u registers per thread, more than the %u allowed",
                       ws_gemmgen_variant_name(c->variant), regs, reg_max);
  if (smem > gpu->smem.max_per_block_bytes)
    return ws_ctx_fail(
        ctx, WS_ERR_LIMIT, "%s needs %u bytes of shared memory per CTA, more than %s's %u per block",
        ws_gemmgen_variant_name(c->variant), smem, gpu->gpu.name, gpu->smem.max_per_block_bytes);
  if (c->threads > gpu->sm.max_threads_per_block)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "%u threads per CTA, more than %s's %u", c->threads, gpu->gpu.name,
                       gpu->sm.max_threads_per_block);
  ws_occupancy occ;
  return ws_occupancy_compute(ctx, gpu, c->threads, regs, smem, &occ);
}

ws_status ws_gemmgen_emit(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, char **wsa_text) {
  *wsa_text = NULL;
  ws_kbuild k;
  ws_kbuild_init(&k);
  ws_gemmgen_plan p;
  ws_status st = plan_checked(ctx, &k, cfg, &p);
  if (st != WS_OK) {
    ws_kbuild_free(&k);
    return st;
  }
  ws_gemmgen_emit_kernel(&k, cfg, &p);
  return ws_kbuild_take(ctx, &k, wsa_text);
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
  if (pr->m == 0 || pr->n == 0 || pr->k == 0 || pr->m > WS_GEMMGEN_DIM_MAX || pr->n > WS_GEMMGEN_DIM_MAX ||
      pr->k > WS_GEMMGEN_DIM_MAX)
    REFUSE("gemm: M, N and K must be 1..%u, got %ux%ux%u", WS_GEMMGEN_DIM_MAX, pr->m, pr->n, pr->k);
  uint64_t lim = 1ull << 31;
  if ((uint64_t)pr->m * pr->k >= lim || (uint64_t)pr->k * pr->n >= lim || (uint64_t)pr->m * pr->n >= lim)
    REFUSE("gemm: M*K, K*N and M*N must stay below 2^31 elements (32-bit indices), got %ux%ux%u", pr->m,
           pr->n, pr->k);
  if (!pr->a || !pr->b || !pr->c) REFUSE("gemm: A, B and C must be device buffers");
  if ((cfg->epilogue & WS_GEMMGEN_EPI_BIAS) && !pr->bias)
    REFUSE("gemm: the bias epilogue needs a bias buffer");
  if ((cfg->epilogue & WS_GEMMGEN_EPI_RESIDUAL) && !pr->res)
    REFUSE("gemm: the residual epilogue needs an R buffer");
  return WS_OK;
}

static ws_status set_args(ws_ctx *ctx, ws_args *args, const ws_gemmgen_cfg *cfg,
                          const ws_gemmgen_problem *pr) {
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
