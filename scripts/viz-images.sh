#!/usr/bin/env bash
# viz-images.sh - the pictures of docs/viz.md, drawn from a trace of
# `warpscope run` by `warpscope viz`, and those of docs/lessons/ by
# `warpscope lesson --screenshot` (software rendering: the same bytes on
# every machine with Debian's fonts-dejavu-core).
#   scripts/viz-images.sh WARPSCOPE OUTDIR
# `make viz-images` writes them into docs/img; the `viz_images` test draws
# them into a temporary folder and requires the checked-in ones to match.
set -euo pipefail
ws=${1:?usage: viz-images.sh WARPSCOPE OUTDIR}
out=${2:?usage: viz-images.sh WARPSCOPE OUTDIR}
mkdir -p "$out"
trace=$(mktemp --suffix=.wst)
gemm=$(mktemp --suffix=.wst)
lessons=$(mktemp -d)
trap 'rm -rf "$trace" "$gemm" "$lessons"' EXIT
# every SM busy: the tiled SGEMM example, 512 x 256 x 32, on the a100
"$ws" example sgemm --gpu a100 --m 512 --n 256 --k 32 --trace "$gemm" > /dev/null 2>&1
"$ws" viz "$gemm" --screenshot "$out/viz-gpu.png" --at-cycle 1500
# TinyViT32: one SM of a GEMM, and the shared-memory banks of the fused attention
"$ws" run --gpu a100 --follow-pixel 12,7 --trace "$trace" > /dev/null 2>&1
# packets by tensor: the QKV GEMM reading its activations (crossbar) and weights (DRAM)
"$ws" viz "$trace" --screenshot "$out/viz-tensors.png" --launch 3 --at-cycle 600
"$ws" viz "$trace" --screenshot "$out/viz-sm.png" --launch 3 --at-cycle 1200 --zoom sm:0
"$ws" viz "$trace" --screenshot "$out/viz-smem.png" --kernel flash_attention --at-cycle 460 --zoom smem:0
# pixel mode: three stops of pixel (12,7)'s walk: an HBM bank, an FFMA in SM 0, and the
# probability back in host RAM with every layer's reach
"$ws" viz "$trace" --screenshot "$out/viz-walk-hbm.png" --hop 6
"$ws" viz "$trace" --screenshot "$out/viz-walk-sm.png" --hop 12
"$ws" viz "$trace" --screenshot "$out/viz-walk-end.png" --hop 63
# the lessons' pictures: each lesson's launch at the cycle it points to (docs/lessons/)
for l in threads coalescing bank-conflicts occupancy gemm-ladder attention journey; do
  "$ws" lesson "$l" --screenshot "$lessons" > /dev/null
  cp "$lessons/$l.png" "$out/lesson-$l.png"
done
