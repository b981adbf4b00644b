#!/usr/bin/env bash
# check.sh - every C source and header is formatted as .clang-format says,
# by Debian 12's clang-format (the version CI installs; others may format
# differently). `make format` rewrites the files in place.
#   check.sh SOURCE_DIR
set -u
src=${1:?usage: check.sh SOURCE_DIR}
cd "$src" || exit 1
if ! command -v clang-format >/dev/null 2>&1; then
  echo "format: clang-format is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
mapfile -t files < <(find base isa sim models explore cli bench tools tests traces viz plot \
                          -name '*.[ch]' -type f 2>/dev/null | sort)
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
