/* analysis.h - static analyses of an assembled kernel.
 *
 * Design: reconvergence points are computed here, not written by hand: each
 * BRA's rpc is its immediate post-dominator in the control-flow graph (the
 * classic SIMT-stack scheme of Fung et al., MICRO 2007, used by GPGPU-Sim),
 * so students write plain branches and divergence still reconverges. */
#ifndef WS_ANALYSIS_H
#define WS_ANALYSIS_H

#include "base/ctx.h"
#include "isa/program.h"

/* Registers per thread the kernel needs: highest register touched + 1 (RZ
 * excluded; register pairs and quads count all their registers). */
uint32_t ws_analysis_regs(const ws_kernel *k);

/* Fills insn.rpc of every BRA with its immediate post-dominator (ninsns when
 * the paths only meet at kernel exit). */
ws_status ws_analysis_reconvergence(ws_ctx *ctx, ws_kernel *k);

#endif
