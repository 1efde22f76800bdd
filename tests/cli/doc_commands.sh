#!/usr/bin/env bash
# Every linksim command line in a ```sh block of README.md and docs/*.md runs and exits 0,
# or with the status a trailing "# exit: N" states; a trailing "# expect: TEXT" (after
# "exit: N; " when both) also requires TEXT in its output. Lines continued with a
# backslash are joined. Commands run in a scratch directory that sees the repository's
# topologies/, scenarios/, data/ and tests/, so outputs they write stay out of the tree.
# Usage: bash doc_commands.sh <linksim-binary> <source-dir>
set -u
linksim=$1
src=$2
fail() { echo "FAIL: $*"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for d in topologies scenarios data tests examples; do ln -s "$src/$d" "$work/$d"; done
mkdir -p "$work/build"
ln -s "$linksim" "$work/build/linksim"

# file:line<TAB>command, continuation lines joined.
commands=$(awk '
  FNR == 1 { in_block = 0; pending = "" }
  /^```sh$/ { in_block = 1; next }
  /^```/ { in_block = 0; next }
  in_block {
    line = $0
    if (pending != "") { sub(/^[ \t]+/, "", line); line = pending " " line; pending = "" }
    if (line ~ /\\$/) { sub(/\\$/, "", line); pending = line; next }
    if (line ~ /^(build\/)?linksim /) print FILENAME ":" FNR "\t" line
  }' "$src/README.md" "$src"/docs/*.md)
[ -n "$commands" ] || fail "no linksim command found in README.md or docs/*.md"

count=0
while IFS=$'\t' read -r where line; do
  expect="" want=0
  comment=""
  if [[ "$line" == *"#"* ]]; then comment=${line#*#}; fi
  if [[ "$comment" =~ ^\ exit:\ ([0-9]+) ]]; then want=${BASH_REMATCH[1]}; fi
  if [[ "$comment" == *"expect: "* ]]; then expect=${comment##*expect: }; fi
  command=${line%%#*}
  command=${command/#linksim /build/linksim }
  out=$(cd "$work" && eval "$command" 2>&1)
  status=$?
  [ "$status" -eq "$want" ] || fail "${where#$src/}: exit $status (documented: $want) from: $command"$'\n'"$out"
  if [ -n "$expect" ] && [[ "$out" != *"$expect"* ]]; then
    fail "${where#$src/}: output of \"$command\" lacks \"$expect\""
  fi
  count=$((count + 1))
done <<< "$commands"
echo "$count documented commands ran"
