#!/usr/bin/env bash
# install-deps.sh - installs the Debian 12 packages warpscope builds and tests
# with, only those that are missing. Runs apt-get directly as root, through
# sudo otherwise, and says exactly what to run when it can do neither.
set -euo pipefail

packages=(
  build-essential cmake pkg-config       # toolchain
  libcriterion-dev                       # unit tests
  libopenblas-dev                        # reference math (cblas_sgemm)
  libinih-dev                            # GPU preset INI files
  libcjson-dev                           # safetensors headers (JSON)
  zlib1g-dev                             # CRC-32 of .wso object files
  libzstd-dev                            # .wst trace chunks
  libsdl2-dev libsdl2-image-dev          # images (PNG/PPM) and the window
  libsdl2-ttf-dev fonts-dejavu-core      # the visualizer's text, in a font every machine has
  xvfb                                   # a real window in the visualizer's tests
  libcairo2-dev                          # charts (PNG and SVG)
  openmpi-bin libopenmpi-dev             # sweeps across machines (mpirun; optional at build time)
  clang libclang-rt-14-dev               # CUDA C to PTX at run time (ptx/cuda.c); libFuzzer targets
  clang-format                           # the house format, checked by make test
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if [ "$(id -u)" -eq 0 ]; then
  runner=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  runner=(sudo)
else
  echo "warpscope: missing packages: ${missing[*]}" >&2
  echo "warpscope: install them with:  sudo apt-get update && sudo ${cmd[*]}" >&2
  exit 1
fi
echo "warpscope: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${runner[@]}" apt-get update -qq
"${runner[@]}" "${cmd[@]}"
