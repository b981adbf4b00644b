#!/usr/bin/env bash
# chart-images.sh - the charts of docs/explore.md, drawn by warpscope with
# cairo (the same bytes on every machine with Debian's cairo and
# fonts-dejavu-core).
#   scripts/chart-images.sh WARPSCOPE OUTDIR
# `make chart-images` writes them into docs/img; the `chart_images` test
# draws them into a temporary folder and requires the checked-in ones to
# match.
set -euo pipefail
ws=${1:?usage: chart-images.sh WARPSCOPE OUTDIR}
out=${2:?usage: chart-images.sh WARPSCOPE OUTDIR}
mkdir -p "$out"
# the occupancy calculator's three curves for the register-bound CTA of docs/explore.md
"$ws" occupancy --gpu a100 --threads 256 --regs 64 --smem 16K -o "$out/occupancy-a100.png" > /dev/null 2>&1
# warpscope plot's four kinds, drawn from the small hand-written sweep of tests/plot/data
csv=$(dirname "$0")/../tests/plot/data/sweep.csv
"$ws" plot "$csv" --kind heatmap --x bm --y bn --metric gflops -o "$out/plot-heatmap.png" > /dev/null 2>&1
"$ws" plot "$csv" --kind roofline --label variant -o "$out/plot-roofline.png" > /dev/null 2>&1
"$ws" plot "$csv" --kind occupancy -o "$out/plot-occupancy.png" > /dev/null 2>&1
"$ws" plot "$csv" --kind stalls --size 1000x600 -o "$out/plot-stalls.png" > /dev/null 2>&1
