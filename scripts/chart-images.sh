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
