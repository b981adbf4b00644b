/* cudagemm.c - the CUDA C GEMM ladder (see cudagemm.h): the instance's
 * name, the compile through a private temporary folder, the launch.
 *
 * Design: the embedded source is written to a mkdtemp folder and handed to
 * ws_ptx_load_file, which compiles it and reads it again for the params'
 * CUDA names; the folder is removed whatever the outcome, so a run leaves
 * nothing behind. */
#include "explore/cudagemm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/embedded.h"
#include "base/file.h"
#include "ptx/ptx.h"

/* The table cmake/embed.cmake writes from models/cuda/sgemm_ladder.cu. */
extern const ws_embedded_file ws_cuda_ladder_files[];
extern const size_t ws_cuda_ladder_files_count;

#define LADDER_PATH "models/cuda/sgemm_ladder.cu"

ws_status ws_cudagemm_instance(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, char *buf, size_t n) {
  const uint32_t tiles[WS_GEMMGEN_TILE_FIELDS] = {cfg->bm, cfg->bn, cfg->bk, cfg->tm,
                                                  cfg->tn, cfg->wm, cfg->wn, cfg->threads};
  int len = snprintf(buf, n, "sgemm_%s<", ws_gemmgen_variant_name(cfg->variant));
  for (uint32_t i = 0; i < WS_GEMMGEN_TILE_FIELDS && len >= 0 && (size_t)len < n; i++)
    if (ws_gemmgen_uses_tile(cfg->variant, i))
      len += snprintf(buf + len, n - (size_t)len, "%s%u", buf[len - 1] == '<' ? "" : ",", tiles[i]);
  if (len >= 0 && (size_t)len < n) len += snprintf(buf + len, n - (size_t)len, ">");
  if (len < 0 || (size_t)len >= n)
    return ws_ctx_fail(ctx, WS_ERR_LIMIT, "the CUDA GEMM's instance name does not fit in %zu bytes", n);
  return WS_OK;
}

/* The embedded source into dir/sgemm_ladder.cu (path: n bytes). */
static ws_status write_source(ws_ctx *ctx, const char *dir, char *path, size_t n) {
  const ws_embedded_file *f = ws_embedded_find(ws_cuda_ladder_files, ws_cuda_ladder_files_count, LADDER_PATH);
  if (!f) return ws_ctx_fail(ctx, WS_ERR_INVALID, "%s is not embedded in this binary", LADDER_PATH);
  snprintf(path, n, "%s/sgemm_ladder.cu", dir);
  return ws_file_write_atomic(ctx, path, f->text, f->size_bytes);
}

/* The program's one kernel: the instance, named as ws_ptx_kernel_name makes it. */
static ws_status take_kernel(ws_ctx *ctx, ws_ptx_result *res, const char *instance, ws_program **out) {
  char name[WS_NAME_MAX];
  ws_ptx_kernel_name(instance, name, sizeof name);
  if (!ws_program_find_kernel(res->prog, name))
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "the CUDA GEMM ladder has no kernel %s", name);
  *out = ws_ptx_result_take_program(res);
  return WS_OK;
}

ws_status ws_cudagemm_build(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, ws_program **out) {
  *out = NULL;
  if (cfg->epilogue)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "the CUDA GEMM ladder computes C = A * B only (no epilogue)");
  char instance[128];
  ws_status st = ws_cudagemm_instance(ctx, cfg, instance, sizeof instance);
  if (st != WS_OK) return st;
  const char *tmp = getenv("TMPDIR");
  char dir[WS_CUDA_PATH_MAX_BYTES], path[WS_CUDA_PATH_MAX_BYTES + 32];
  snprintf(dir, sizeof dir, "%s/warpscope-gemm-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return ws_ctx_fail(ctx, WS_ERR_IO, "cannot make a temporary folder in %s", dir);
  st = write_source(ctx, dir, path, sizeof path);
  const char *inst[1] = {instance};
  ws_cuda_opts copts = {.instantiate = inst, .ninstantiate = 1};
  ws_ptx_result res;
  memset(&res, 0, sizeof res);
  if (st == WS_OK) st = ws_ptx_load_file(ctx, path, &copts, NULL, &res);
  if (st == WS_OK) st = take_kernel(ctx, &res, instance, out);
  ws_ptx_result_free(&res);
  unlink(path); /* absent when the write failed: nothing to do then */
  rmdir(dir);
  return st;
}

static ws_status set_args(ws_ctx *ctx, ws_args *args, const ws_gemmgen_problem *pr) {
  ws_status st = ws_args_set_ptr(ctx, args, "A", pr->a);
  if (st == WS_OK) st = ws_args_set_ptr(ctx, args, "B", pr->b);
  if (st == WS_OK) st = ws_args_set_ptr(ctx, args, "C", pr->c);
  if (st == WS_OK) st = ws_args_set_u32(ctx, args, "M", pr->m);
  if (st == WS_OK) st = ws_args_set_u32(ctx, args, "N", pr->n);
  if (st == WS_OK) st = ws_args_set_u32(ctx, args, "K", pr->k);
  return st;
}

ws_status ws_cudagemm_run(ws_device *dev, const ws_program *prog, const ws_gemmgen_cfg *cfg,
                          const ws_gemmgen_problem *prob, ws_launch_stats *stats) {
  ws_ctx *ctx = ws_device_ctx(dev);
  if (!prog || prog->nkernels != 1)
    return ws_ctx_fail(ctx, WS_ERR_INVALID, "the CUDA GEMM program must hold one kernel");
  ws_args args;
  ws_args_init(&args, &prog->kernels[0]);
  ws_status st = set_args(ctx, &args, prob);
  if (st != WS_OK) return st;
  ws_dim3 grid, block;
  uint32_t dyn;
  ws_gemmgen_launch_geometry(cfg, prob->m, prob->n, &grid, &block, &dyn);
  return ws_device_launch(dev, &prog->kernels[0], grid, block, dyn, &args, stats);
}
