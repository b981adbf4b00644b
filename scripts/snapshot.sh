#!/usr/bin/env bash
# snapshot.sh - records every counter the shipped workloads produce, so a
# change meant to keep behaviour can be checked byte for byte:
#   scripts/snapshot.sh build/warpscope before/   (on the old tree)
#   scripts/snapshot.sh build/warpscope after/    (on the new tree)
#   diff -r before/ after/
# Covers every example's stats JSON on every preset, every microbenchmark on
# every preset, and warpscope run with each GEMM variant and both attentions.
set -euo pipefail
ws=${1:?usage: snapshot.sh WARPSCOPE OUTDIR}
out=${2:?usage: snapshot.sh WARPSCOPE OUTDIR}
mkdir -p "$out"
presets=(classroom v100 a100 h100 rtx-a6000)
jobs=()
for g in "${presets[@]}"; do
  for e in saxpy reduce sgemm mma; do
    jobs+=("example $e --gpu $g --stats-json $out/example-$e-$g.json --report > $out/example-$e-$g.txt")
  done
  for b in latency bandwidth smem-banks coalescing; do
    jobs+=("microbench $b --gpu $g > $out/bench-$b-$g.txt")
  done
done
# run's host preprocessing time is measured on the machine: the one line left out
host='| grep -v \"measured on this\"'
for v in naive coalesced smem blocktile1d blocktile2d vectorized warptile async mma; do
  jobs+=("run --gemm $v $host > $out/run-gemm-$v.txt")
done
jobs+=("run --attn naive --gpu h100 --batch 2 $host > $out/run-naive-h100.txt")
jobs+=("run --gpu v100 --batch 3 $host > $out/run-v100.txt")
for j in "${jobs[@]}"; do printf '%s\n' "$j"; done |
  xargs -P "$(nproc)" -I{} bash -c "\"$ws\" {}"
