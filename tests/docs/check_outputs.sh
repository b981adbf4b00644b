#!/usr/bin/env bash
# check_outputs.sh - every example output in README.md and docs/ is what the
# command it shows prints today, so a page cannot drift from the program.
#   check_outputs.sh SOURCE_DIR WARPSCOPE [FILE.md...]
#
# A fenced block is an example when its first line is a command,
# "$ warpscope ARGS" or "$ build/warpscope ARGS" (a line ending in "\" goes
# on to the next); each later line of that form starts the next example. The command runs from SOURCE_DIR with WARPSCOPE in place
# of the program, stdout and stderr together, and the rest of the block must
# match what it printed, line by line, trailing blanks and blank last lines
# aside. Two ways to
# leave things out, so a page can show only what it talks about:
#   a line that is only "..."   stands for any number of lines (none too);
#   "..." inside a line         stands for any text within that line.
# A mismatch prints the page and line, the expected block and the output.
set -u
src=${1:?usage: check_outputs.sh SOURCE_DIR WARPSCOPE [FILE.md...]}
ws=${2:?usage: check_outputs.sh SOURCE_DIR WARPSCOPE [FILE.md...]}
shift 2
case $ws in /*) ;; *) ws=$PWD/$ws ;; esac
cd "$src" || exit 1
pages=("$@")
[ ${#pages[@]} -gt 0 ] || pages=(README.md docs/*.md docs/lessons/*.md)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The examples of one page: for each, a file .cmd with the command's
# arguments and a file .exp with the lines it should print; prints the line
# number of each command. One block may show several commands in turn.
extract() {
  awk -v dir="$tmp" -v page="$1" '
    function finish() { if (id) { close(expf); close(cmdf) } }
    /^```/ {
      if (!inb) { inb = 1; n = 0; isex = 0; cont = 0; next }
      inb = 0; next
    }
    !inb { next }
    {
      n++
      if ((n == 1 || isex) && !cont && $0 ~ /^\$ (build\/)?warpscope( |$)/) {
        finish(); isex = 1; id++; expf = dir "/" id ".exp"; cmdf = dir "/" id ".cmd"
        printf "" > expf; print NR
        line = $0; sub(/^\$ (build\/)?warpscope ?/, "", line)
        cont = sub(/\\[ \t]*$/, "", line); printf "%s", line > cmdf
        if (!cont) printf "\n" > cmdf
        next
      }
      if (!isex) next
      if (cont) { line = $0; cont = sub(/\\[ \t]*$/, "", line); printf " %s", line > cmdf
                  if (!cont) printf "\n" > cmdf; next }
      print > expf
    }
    END { finish() }' "$1"
}

# Does output file $2 match expected file $1 under the two elision rules?
# Each expected line becomes an anchored regular expression; a "..." line
# matches any run of lines (a classic wildcard match, row by row).
matches() {
  awk '
    function pattern(s,   out, i) {
      sub(/[ \t]+$/, "", s); out = ""
      while ((i = index(s, "...")) > 0) { out = out quote(substr(s, 1, i - 1)) ".*"; s = substr(s, i + 3) }
      return "^" out quote(s) "$"
    }
    function quote(s,   out, c, k) {
      out = ""
      for (k = 1; k <= length(s); k++) {
        c = substr(s, k, 1)
        out = out (index("\\^$.[]|()*+?{}", c) ? "\\" c : c)
      }
      return out
    }
    FNR == NR { ne++; t = $0; sub(/[ \t]+$/, "", t); star[ne] = (t ~ /^[ \t]*\.\.\.$/); re[ne] = pattern($0)
                if (t != "") lastne = ne; next }
    { na++; a = $0; sub(/[ \t]+$/, "", a); act[na] = a; if (a != "") lastna = na }
    END {
      ne = lastne; na = lastna   # blank lines at the end do not count
      # ok[i] after row j: expected lines 1..i match actual lines 1..j
      ok[0] = 1
      for (i = 1; i <= ne; i++) ok[i] = ok[i - 1] && star[i]
      for (j = 1; j <= na; j++) {
        prev0 = ok[0]; ok[0] = 0
        for (i = 1; i <= ne; i++) {
          up = ok[i]
          ok[i] = star[i] ? (ok[i - 1] || up) : (prev0 && act[j] ~ re[i])
          prev0 = up
        }
      }
      exit ok[ne] ? 0 : 1
    }' "$1" "$2"
}

failed=0
checked=0
for page in "${pages[@]}"; do
  rm -f "$tmp"/*
  mapfile -t starts < <(extract "$page")
  for k in "${!starts[@]}"; do
    id=$((k + 1))
    args=$(cat "$tmp/$id.cmd")
    (eval "\"\$ws\" $args") > "$tmp/$id.out" 2>&1 < /dev/null
    checked=$((checked + 1))
    if ! matches "$tmp/$id.exp" "$tmp/$id.out"; then
      failed=$((failed + 1))
      echo "docs: $page:${starts[$k]}: the output of 'warpscope $(echo $args)' is not what the page shows" >&2
      echo "--- the page expects:" >&2
      cat "$tmp/$id.exp" >&2
      echo "--- the command printed:" >&2
      cat "$tmp/$id.out" >&2
      echo "---" >&2
    fi
  done
done
if [ "$failed" -gt 0 ]; then
  echo "docs: $failed of $checked example outputs differ from their commands" >&2
  exit 1
fi
echo "docs: $checked example outputs in README.md and docs/ match their commands"
