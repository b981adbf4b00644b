#!/usr/bin/env bash
# check_viz_images.sh - the pictures docs/viz.md shows are what `warpscope
# viz` draws today, byte for byte (software rendering is deterministic), so
# a change to the visualizer that changes them must come with new pictures
# (make viz-images).
#   check_viz_images.sh SOURCE_DIR WARPSCOPE
set -u
src=${1:?usage: check_viz_images.sh SOURCE_DIR WARPSCOPE}
ws=${2:?usage: check_viz_images.sh SOURCE_DIR WARPSCOPE}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bash "$src/scripts/viz-images.sh" "$ws" "$tmp" || { echo "viz_images: drawing the pictures failed"; exit 1; }
bad=0
for f in "$tmp"/*.png; do
  name=$(basename "$f")
  if ! cmp -s "$f" "$src/docs/img/$name"; then
    echo "viz_images: docs/img/$name is not what warpscope viz draws now (run make viz-images)"
    bad=1
  fi
done
[ "$bad" -eq 0 ] && echo "viz_images: $(ls "$tmp"/*.png | wc -l) pictures match"
exit "$bad"
