#!/usr/bin/env bash
# check_paths.sh - every source path the documents and the sources' comments
# name exists: a file that moves or goes cannot leave a page or a comment
# pointing at nothing.
#   check_paths.sh SOURCE_DIR
set -u
src=${1:?usage: check_paths.sh SOURCE_DIR}
cd "$src" || exit 1
missing=0
checked=0
# the extension ends the name: sweep.csv is no sweep.c
pattern='(^|[^A-Za-z0-9_/.-])((base|isa|sim|models|cli|bench|tools|tests|docs|scripts|cmake|traces|viz|plot|charts|explore|ptx)/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(c|h|md|ini|wsa|sh|def|cmake|txt))([^A-Za-z0-9_]|$)'
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
done < <({
  grep -nE "$pattern" README.md docs/*.md docs/lessons/*.md
  # the comments of the C sources (a string may name a missing file on
  # purpose, as a test of the message), as FILE:LINE:TEXT
  git ls-files '*.c' '*.h' '*.def' | xargs awk '
    FNR == 1 { inside = 0 }
    {
      line = $0; text = ""
      while (line != "") {
        if (inside) {
          end = index(line, "*/")
          if (!end) { text = text " " line; line = "" } else { text = text " " substr(line, 1, end - 1); line = substr(line, end + 2); inside = 0 }
        } else {
          open = index(line, "/*"); slash = index(line, "//")
          if (slash && (!open || slash < open)) { text = text " " substr(line, slash + 2); line = "" }
          else if (open) { line = substr(line, open + 2); inside = 1 }
          else line = ""
        }
      }
      if (text ~ /[a-z]\//) print FILENAME ":" FNR ":" text
    }' | grep -E "$pattern"
} | sed -E 's/^([^:]*):([0-9]+):/\1:\2:/')
if [ "$missing" -gt 0 ]; then
  echo "docs: $missing path(s) named in the documents or the sources' comments do not exist" >&2
  exit 1
fi
echo "docs: $checked source paths named in README.md, docs/ and the sources' comments all exist"
