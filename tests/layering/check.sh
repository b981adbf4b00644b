#!/usr/bin/env bash
# check.sh - the layering rule of cmake/layers.txt, checked on the code, and
# the blocks of docs/architecture.md drawn from it.
#
#   check.sh SOURCE_DIR [LAYER=LIBRARY.a]...
#   check.sh SOURCE_DIR --diagram     print the stack drawn from the table
#   check.sh SOURCE_DIR --update      rewrite docs/architecture.md's LAYERS,
#                                     LAYER DIAGRAM and PUBLIC API blocks
#
# Reads cmake/layers.txt (the table the build reads too), then fails on
#   - a table whose layer may include a layer drawn after it (an upward edge);
#   - a LAYERS, LAYER DIAGRAM or PUBLIC API block of docs/architecture.md
#     that is not what the table gives (--update writes them);
#   - a source file in no layer's folder;
#   - an #include that is not a path from the source root, that goes up a layer
#     or across into a layer the table does not list, that reaches a simulator
#     header outside the public API from above sim/, or that reaches another
#     folder's private header (*_int.h);
#   - given the built libraries: a symbol one object takes from another whose
#     layer it may not use, and any circle of modules calling each other.
# The build already refuses most wrong includes (each layer's include path
# holds only what it may see); this check names the rule and catches what a
# path cannot: private headers, relative paths, a sub-folder's files reached
# through its parent's folder (base/formats/ inside base/), and call circles.
set -u
src=${1:?usage: check.sh SOURCE_DIR [LAYER=LIB.a]... | --diagram | --update}
shift
table_file=$src/cmake/layers.txt
doc=$src/docs/architecture.md
failures=0
fail() { echo "layering: $*" >&2; failures=$((failures + 1)); }

# Rows of one [section] of cmake/layers.txt, cells separated by '|' without
# the blanks around them.
table() {
  awk -v name="$1" '
    /^\[.*\]$/ { inside = ($0 == "[" name "]"); next }
    inside && /^[a-z]/ { gsub(/ *\| */, "|"); print }' "$table_file"
}

declare -A dir_of deps_of rank_of public
order=()
while IFS='|' read -r name dir deps _; do
  dir=${dir%/}
  dir_of[$name]=$dir
  deps_of[$name]=$deps
  rank_of[$name]=${#order[@]}
  order+=("$name")
done < <(table layers)
while IFS='|' read -r header _; do public[$header]=1; done < <(table api)
[ ${#order[@]} -gt 0 ] || { echo "layering: no [layers] rows in $table_file" >&2; exit 1; }

# The table itself: a layer may only use layers drawn before it (or api,
# which stands for sim/'s public headers, so only layers after host).
for name in "${order[@]}"; do
  for d in ${deps_of[$name]}; do
    if [ "$d" = api ]; then
      [ "${rank_of[$name]}" -gt "${rank_of[host]}" ] || fail "table: $name lists api but sits inside sim/"
    elif [ -z "${rank_of[$d]+x}" ]; then
      fail "table: $name may include '$d', which is no layer"
    elif [ "${rank_of[$d]}" -ge "${rank_of[$name]}" ]; then
      fail "table: $name may include $d, drawn after it (an upward edge)"
    fi
  done
done

# ---- the diagram: the stack drawn from the table --------------------------
# Layers from the top of the stack down (by height: 1 + the highest layer
# they use), each with what it stands on directly: the layers it may use
# minus those it reaches through another of them. api stands for host.
declare -A height
height_of() {
  local name=$1 d h best=0
  [ -n "${height[$name]+x}" ] && { echo "${height[$name]}"; return; }
  for d in ${deps_of[$name]}; do
    [ "$d" = api ] && d=host
    h=$(height_of "$d")
    [ $((h + 1)) -gt $best ] && best=$((h + 1))
  done
  height[$name]=$best
  echo $best
}
reaches() { # reaches FROM TO: TO is among FROM's layers, at any depth
  local d
  for d in ${deps_of[$1]}; do
    [ "$d" = api ] && d=host
    [ "$d" = "$2" ] && return 0
    reaches "$d" "$2" && return 0
  done
  return 1
}
diagram() {
  local name d e direct line
  for name in "${order[@]}"; do printf '%s %s\n' "$(height_of "$name")" "$name"; done |
    sort -k1,1nr -s | while read -r _ name; do
      direct=""
      for d in ${deps_of[$name]}; do
        local via=0 dd=$d
        [ "$d" = api ] && dd=host
        for e in ${deps_of[$name]}; do
          [ "$e" = "$d" ] && continue
          [ "$e" = api ] && e=host
          reaches "$e" "$dd" && via=1
        done
        [ $via = 0 ] && direct+=" $d"
      done
      if [ "$name" = host ]; then
        echo " ---------------- api: the public headers of sim/ (table below) ----------------"
      fi
      line=" $name "
      [ -n "$direct" ] && line=$(printf ' %-10s ─► %s' "$name" "${direct# }")
      echo "$line" | sed 's/ *$//'
    done
}
# The Markdown tables of docs/architecture.md, from the table's rows.
layers_block() {
  echo '| layer | folder | may include | what it holds | what it must not do |'
  echo '|---|---|---|---|---|'
  table layers | awk -F'|' '{ printf "| %s | `%s` | %s | %s | %s |\n", $1, $2, $3, $4, $5 }'
}
api_block() {
  echo '| header | what it offers |'
  echo '|---|---|'
  table api | awk -F'|' '{ printf "| `%s` | %s |\n", $1, $2 }'
}
diagram_block() {
  echo '```'
  diagram
  echo '```'
}
# splice NAME GENERATOR: the document with the block between NAME's markers
# replaced by what GENERATOR prints.
splice() {
  awk -v name="$1" -v body="$($2)" '
    index($0, "<!-- BEGIN " name " -->") { print; print body; skip = 1; next }
    index($0, "<!-- END " name " -->") { skip = 0 }
    !skip' "$doc"
}
blocks=("LAYERS layers_block" "LAYER DIAGRAM diagram_block" "PUBLIC API api_block")
current=$(cat "$doc")
want=$current
for b in "${blocks[@]}"; do
  name=${b% *}
  want=$(doc=<(printf '%s\n' "$want") splice "$name" "${b##* }")
done
case "${1:-}" in
  --diagram) diagram; exit 0 ;;
  --update)
    [ "$want" = "$current" ] && exit 0
    printf '%s\n' "$want" > "$doc.tmp" && mv "$doc.tmp" "$doc"
    echo "layering: docs/architecture.md's blocks rewritten from cmake/layers.txt"
    exit 0 ;;
esac
for b in "${blocks[@]}"; do
  grep -q "<!-- BEGIN ${b% *} -->" "$doc" || fail "docs/architecture.md lacks its <!-- BEGIN ${b% *} --> block"
done
if [ "$want" != "$current" ]; then
  fail "docs/architecture.md's layer blocks are not what cmake/layers.txt gives; write them with:"
  echo "    make docs   (or: bash tests/layering/check.sh . --update)" >&2
fi

# The layer a path (file or header, relative to the root) belongs to.
layer_of() {
  local path=$1 name
  for name in "${order[@]}"; do
    [ "$(dirname "$path")" = "${dir_of[$name]}" ] && { echo "$name"; return; }
  done
}

may_include() { # may_include FROM_LAYER HEADER HEADER_LAYER
  local from=$1 header=$2 to=$3 d
  [ "$from" = "$to" ] && return 0
  for d in ${deps_of[$from]}; do
    [ "$d" = "$to" ] && return 0
    [ "$d" = api ] && [ -n "${public[$header]+x}" ] && return 0
  done
  return 1
}

check_includes() { # check_includes FILE LAYER
  local file=$1 layer=$2 lineno header to
  while IFS=: read -r lineno header; do
    header=${header#*\"}
    header=${header%%\"*}
    if [[ $header == *..* || ! -f $src/$header ]]; then
      fail "$file:$lineno: #include \"$header\" is not a path from the source root"
      continue
    fi
    to=$(layer_of "$header")
    if [ -z "$to" ]; then
      fail "$file:$lineno: #include \"$header\" reaches outside every layer"
    elif [[ $header == *_int.h && $(dirname "$header") != $(dirname "$file") ]]; then
      fail "$file:$lineno: #include \"$header\" is private to $(dirname "$header")/"
    elif ! may_include "$layer" "$header" "$to"; then
      fail "$file:$lineno: #include \"$header\": layer $layer may not include layer $to" \
           "(${deps_of[$layer]:-nothing}${deps_of[$layer]:+ only}; cmake/layers.txt)"
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src/$file")
}

cd "$src" || exit 1
files=0
while IFS= read -r file; do
  file=${file#./}
  layer=$(layer_of "$file")
  if [ -z "$layer" ]; then
    fail "$file is in no layer's folder (cmake/layers.txt)"
    continue
  fi
  check_includes "$file" "$layer"
  files=$((files + 1))
# ptx/include/ holds CUDA headers clang compiles for the device, embedded
# as data (like the .wsa kernels), not C of any layer
done < <(find . \( -path ./tests -o -path './build*' -o -path ./.git -o -path ./ptx/include \) -prune -o \
              -type f \( -name '*.c' -o -name '*.h' \) -print | sort)

# ---- symbols: which object takes what from which --------------------------
declare -A lib_layer
libs=()
for arg in "$@"; do
  lib_layer[${arg#*=}]=${arg%%=*}
  libs+=("${arg#*=}")
done
edges=0
if [ ${#libs[@]} -gt 0 ]; then
  graph=$(nm -A -g "${libs[@]}" 2>/dev/null | awk -v map="$(for l in "${libs[@]}"; do printf '%s=%s\n' "$l" "${lib_layer[$l]}"; done)" '
    BEGIN { n = split(map, m, "\n"); for (i = 1; i <= n; i++) { split(m[i], kv, "="); layer[kv[1]] = kv[2] } }
    {
      split($1, where, ":"); obj = layer[where[1]] "/" where[2]; sub(/\.c\.o$/, "", obj)
      if ($2 == "U") used[obj] = used[obj] " " $3
      else if ($3 != "") owner[$3] = obj
    }
    END {
      for (o in used) {
        k = split(used[o], syms, " ")
        for (i = 1; i <= k; i++) if ((syms[i] in owner) && owner[syms[i]] != o) print o, owner[syms[i]], syms[i]
      }
    }' | sort -u)
  declare -A seen_pair
  while read -r from to sym; do
    [ -n "$from" ] || continue
    edges=$((edges + 1))
    fl=${from%%/*} tl=${to%%/*}
    [ "$fl" = "$tl" ] && continue
    ok=0
    for d in ${deps_of[$fl]}; do [ "$d" = "$tl" ] || { [ "$d" = api ] && [ "${rank_of[$tl]}" -le "${rank_of[host]}" ]; } && ok=1; done
    [ $ok = 1 ] || fail "symbols: $from uses $sym from $to: layer $fl may not use layer $tl"
  done <<< "$graph"
  # a circle of modules: tsort names the loop it finds
  loops=$(awk '{ print $1, $2 }' <<< "$graph" | sort -u | tsort 2>&1 >/dev/null)
  if [ -n "$loops" ]; then
    fail "symbols: modules call each other in a circle:"
    sed 's/^/    /' <<< "$loops" >&2
  fi
fi

if [ "$failures" -gt 0 ]; then
  echo "layering: $failures violation(s) of the rule in cmake/layers.txt" >&2
  exit 1
fi
echo "layering: ${#order[@]} layers, $files files' includes and $edges cross-module symbol uses follow cmake/layers.txt"
