/* cudagemm.h - the GEMM ladder written in CUDA C: models/cuda/sgemm_ladder.cu,
 * embedded in the binary, one template kernel per step of the generated
 * ladder (docs/cuda.md, "The GEMM ladder in CUDA C").
 *
 * Design: a step's instance is named by its tiles (the ones the variant
 * reads, in the order bm bn bk tm tn wm wn threads), compiled by clang
 * through ptx/ and translated onto the ISA, then launched with the grid,
 * block and params of the generated kernel (ws_gemmgen_launch_geometry), so
 * the two sources of one config compare launch for launch. The source is
 * written to a private temporary folder for the compile, because clang
 * reads files: the binary needs nothing beside it but clang. */
#ifndef WS_EXPLORE_CUDAGEMM_H
#define WS_EXPLORE_CUDAGEMM_H

#include <stddef.h>

#include "base/ctx.h"
#include "isa/program.h"
#include "models/kgen/gemmgen.h"
#include "sim/host/device.h"

/* The template instance of cfg's step: "sgemm_smem<32,32,32,1024>".
 * WS_ERR_LIMIT when it does not fit in n bytes. */
ws_status ws_cudagemm_instance(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, char *buf, size_t n);
/* Compiles and translates cfg's instance; *out is the caller's, holding
 * that one kernel. cfg must have passed ws_gemmgen_check; an epilogue is
 * refused (the CUDA kernels compute C = A * B only). Fails with clang's or
 * the translator's message, or ptx/cuda.h's when clang is missing. */
ws_status ws_cudagemm_build(ws_ctx *ctx, const ws_gemmgen_cfg *cfg, ws_program **out);
/* Launches prog's kernel on prob as ws_gemmgen_run launches the generated
 * one: the same grid, block and params (A, B, C, M, N, K by name). */
ws_status ws_cudagemm_run(ws_device *dev, const ws_program *prog, const ws_gemmgen_cfg *cfg,
                          const ws_gemmgen_problem *prob, ws_launch_stats *stats);

#endif
