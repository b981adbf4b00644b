#!/usr/bin/env bash
# check_paths.sh - every source path the documents name exists: a file that
# moves or goes cannot leave a page pointing at nothing.
#   check_paths.sh SOURCE_DIR
set -u
src=${1:?usage: check_paths.sh SOURCE_DIR}
cd "$src" || exit 1
missing=0
checked=0
# the extension ends the name: sweep.csv is no sweep.c
pattern='(^|[^A-Za-z0-9_/.-])((base|isa|sim|models|cli|bench|tools|tests|docs|scripts|cmake|traces|viz|plot|charts|explore)/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(c|h|md|ini|wsa|sh|def|cmake))([^A-Za-z0-9_]|$)'
while IFS=: read -r file line text; do
  while [[ $text =~ $pattern ]]; do
    path=${BASH_REMATCH[2]}
    text=${text#*"$path"}
    checked=$((checked + 1))
    if [ ! -e "$path" ]; then
      echo "docs: $file:$line names $path, which does not exist" >&2
      missing=$((missing + 1))
    fi
  done
done < <(grep -nE "$pattern" README.md docs/*.md docs/lessons/*.md | sed -E 's/^([^:]*):([0-9]+):/\1:\2:/')
if [ "$missing" -gt 0 ]; then
  echo "docs: $missing path(s) named in the documents do not exist" >&2
  exit 1
fi
echo "docs: $checked source paths named in README.md and docs/ all exist"
