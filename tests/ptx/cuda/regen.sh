#!/usr/bin/env bash
# regen.sh - regenerates the committed .ptx beside each .cu of this corpus
# with warpscope's own CUDA driver (ptx/cuda.c: its exact clang command and
# embedded headers), through the corpus test, which writes the PTX it
# compiles into WS_CUDA_REGEN_DIR. A file's "// instantiate:" and
# "// define:" header lines are its template instances and -D values.
# Usage: bash tests/ptx/cuda/regen.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
build="${1:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
cmake --build "$build" --target test_cuda >/dev/null
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
filter='cuda/every_corpus_kernel_compiles_to_its_committed_entries'
# the comparison with the old PTX may fail here; the fresh PTX is written first
WS_CUDA_REGEN_DIR="$out" "$build/test_cuda" --filter "$filter" >/dev/null 2>&1 || true
n=0
for f in "$out"/*.ptx; do
  [ -e "$f" ] || { echo "regen.sh: no PTX was produced" >&2; exit 1; }
  cp "$f" "$root/tests/ptx/cuda/"
  n=$((n + 1))
done
"$build/test_cuda" --filter "$filter" >/dev/null
echo "regen.sh: $n PTX files written to tests/ptx/cuda/"
