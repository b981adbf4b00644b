#!/usr/bin/env bash
# check_viz_images.sh - the pictures the docs show are what warpscope draws
# today, byte for byte (software rendering and cairo are deterministic), so
# a change to the visualizer or the charts that changes them must come with
# new pictures (make viz-images, make chart-images).
#   check_viz_images.sh SOURCE_DIR WARPSCOPE [SCRIPT]
# SCRIPT (in scripts/, default viz-images.sh) draws the pictures.
set -u
src=${1:?usage: check_viz_images.sh SOURCE_DIR WARPSCOPE [SCRIPT]}
ws=${2:?usage: check_viz_images.sh SOURCE_DIR WARPSCOPE [SCRIPT]}
script=${3:-viz-images.sh}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bash "$src/scripts/$script" "$ws" "$tmp" || { echo "$script: drawing the pictures failed"; exit 1; }
bad=0
for f in "$tmp"/*.png; do
  name=$(basename "$f")
  if ! cmp -s "$f" "$src/docs/img/$name"; then
    echo "$script: docs/img/$name is not what warpscope draws now (run make ${script%.sh})"
    bad=1
  fi
done
[ "$bad" -eq 0 ] && echo "$script: $(ls "$tmp"/*.png | wc -l) pictures match"
exit "$bad"
