#!/usr/bin/env bash
# check.sh - every C source and header is formatted as .clang-format says,
# by Debian 12's clang-format (the version CI installs; others may format
# differently).
#   check.sh SOURCE_DIR          list the files that are not
#   check.sh SOURCE_DIR --fix    rewrite them in place (make format)
set -u
src=${1:?usage: check.sh SOURCE_DIR}
cd "$src" || exit 1
if ! command -v clang-format >/dev/null 2>&1; then
  echo "format: clang-format is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
# every layer's folder (cmake/layers.txt), and the tests
mapfile -t dirs < <(awk '/^\[.*\]$/ { inside = ($0 == "[layers]"); next }
                         inside && /^[a-z]/ { split($0, c, /[ ]*[|][ ]*/); print c[2] }' cmake/layers.txt)
mapfile -t files < <(find "${dirs[@]}" tests -name '*.[ch]' -type f 2>/dev/null | sort -u)
if [ "${2:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  printf 'format: not formatted as .clang-format says (run make format):\n' >&2
  printf '    %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format: ${#files[@]} files formatted as .clang-format says ($(clang-format --version | head -n 1))"
