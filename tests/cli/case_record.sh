#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Case files are read through their typed record: `linksim run --resume` and `linksim merge`
# refuse a case file whose JSON is valid but whose field has the wrong type, with one error
# naming the file and the field, status 2, and leave the file as it was.
# Usage: bash case_record.sh <linksim-binary> <source-dir>
set -u
cli=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

cat >"$work/s.yaml" <<YAML
machines:
  - topology: $src/topologies/dgx-h100.yaml
collectives:
  - name: allreduce
    ops: allreduce
    sizes: [1M, 64M]
YAML
cd "$work" || exit 1
"$cli" run s.yaml --out s0 --format csv,json >/dev/null || fail "the first run failed"
case_file=$(ls s0/cases/allreduce_dgx-h100-*.json)
[[ -f $case_file ]] || fail "no case file: '$case_file'"

# --- a broken field: refused on --resume, with the file and the field ---
sed -i '0,/"busbw_GBps": [0-9.e+-]*/s//"busbw_GBps": "fast"/' "$case_file"
grep -q '"busbw_GBps": "fast"' "$case_file" || fail "the case file was not broken"
cp "$case_file" "$work/broken.json"
err=$("$cli" run s.yaml --out s0 --resume 2>&1 >/dev/null)
status=$?
want="$case_file: error: field collective.rows[0].busbw_GBps: expected a number, found a string"
[[ $status -eq 2 ]] || fail "resume: status $status, want 2"
[[ $err == "$want" ]] || fail "resume: got '$err', want '$want'"
cmp -s "$case_file" "$work/broken.json" || fail "resume rewrote the refused case file"

# --- the same file refused by merge ---
err=$("$cli" merge s0 --out merged 2>&1 >/dev/null)
status=$?
[[ $status -eq 2 ]] || fail "merge: status $status, want 2"
[[ $err == "$want" ]] || fail "merge: got '$err', want '$want'"

# --- a file cut short (not JSON) is run again, as before ---
printf '{"id": "allre' >"$case_file"
out=$("$cli" run s.yaml --out s0 --resume)
[[ $? -eq 0 ]] || fail "resume after a cut-short file failed"
[[ $(tail -n 1 <<<"$out") == "# 1 cases: 1 run, 0 reused, 0 failed; results in s0/" ]] ||
  fail "resume after a cut-short file: '$(tail -n 1 <<<"$out")'"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "case_record.sh: all checks passed"
