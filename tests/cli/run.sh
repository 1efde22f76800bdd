#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `linksim run` and `linksim merge` end to end: positioned errors with status 2, outputs that do
# not depend on --jobs, shards merged equal to a single run, resume, no temporary files left,
# and a quiet stderr when it is not a terminal.
# Usage: bash run.sh <linksim-binary> <source-dir>
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

# --- a malformed scenario: one positioned error, status 2 ---
bad=$work/bad.yaml
cat >"$bad" <<YAML
machines:
  - topology: $src/topologies/dual-4090.yaml
collectives:
  - ops: allreduse
    sizes: [1M]
YAML
err=$("$cli" run "$bad" --out "$work/bad-out" 2>&1 >/dev/null)
status=$?
want="$bad:4:10: error: expected one of allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv, got \"allreduse\"; did you mean \"allreduce\"?"
[[ $status -eq 2 ]] || fail "bad scenario: status $status, want 2"
[[ ${err%%$'\n'*} == "$want" ]] || fail "bad scenario: got '${err%%$'\n'*}'"
[[ ! -e $work/bad-out ]] || fail "bad scenario: created its output directory"

err=$("$cli" run "$src/scenarios/sweep-1000.yaml" --max-cases 999 --list 2>&1 >/dev/null)
status=$?
[[ $status -eq 2 ]] || fail "case limit: status $status, want 2"
[[ ${err%%$'\n'*} == *"sweep-1000.yaml:12:5: error: the scenario expands to 1000 cases up to this study, more than the limit of 999; sweep fewer values or raise the limit with --max-cases" ]] ||
  fail "case limit: got '${err%%$'\n'*}'"

err=$("$cli" run "$src/scenarios/sweep-1000.yaml" --shard 2/2 2>&1 >/dev/null)
[[ $? -eq 2 && $err == 'linksim: error: --shard: expected I/N with 0 <= I < N, such as 0/4, got "2/2"' ]] ||
  fail "bad shard: got '$err'"

# --- --list ---
cases=$("$cli" run "$src/scenarios/allreduce-four-machines.yaml" --list)
[[ $(tail -n 1 <<<"$cases") == "# 4 cases" ]] || fail "--list: got '$cases'"
[[ $(head -n 1 <<<"$cases") == "0 allreduce/dgx-h100" ]] || fail "--list: first case '$(head -n 1 <<<"$cases")'"

# --- the same data whatever --jobs; stderr quiet in a pipe ---
scenario=$src/scenarios/allreduce-four-machines.yaml
all=table,csv,json,svg,html
out1=$("$cli" run "$scenario" --out "$work/j1" --jobs 1 --format $all 2>"$work/j1.err")
[[ $? -eq 0 ]] || fail "run --jobs 1 failed: $(cat "$work/j1.err")"
"$cli" run "$scenario" --out "$work/j2" --jobs 2 --format $all >/dev/null 2>&1 || fail "run --jobs 2 failed"
[[ ! -s $work/j1.err ]] || fail "stderr not quiet without a terminal: $(cat "$work/j1.err")"
for f in results.csv results.json manifest.json report.html; do
  cmp -s "$work/j1/$f" "$work/j2/$f" || fail "$f differs between --jobs 1 and --jobs 2"
done
# One busbw chart and a picture of each of the four machines.
charts=$(cd "$work/j1/charts" 2>/dev/null && LC_ALL=C ls | tr '\n' ' ')
[[ $charts == "busbw-allreduce-allreduce.svg machine-allreduce-dgx-h100-ib-2nodes.svg machine-allreduce-dgx-h100.svg machine-allreduce-dual-4090.svg machine-allreduce-pcie-8gpu.svg " ]] ||
  fail "charts: got '$charts'"
diff -r "$work/j1/charts" "$work/j2/charts" >/dev/null || fail "charts differ between --jobs 1 and --jobs 2"
grep -q 'data-chart-count="5"' "$work/j1/report.html" || fail "report.html does not hold 5 charts"
grep -q "<pre><code>linksim run $scenario --format html</code></pre>" "$work/j1/report.html" ||
  fail "report.html does not give the command that reproduces it"
! grep -qi 'generated' "$work/j1/report.html" || fail "report.html states a generation time"
err=$("$cli" run "$scenario" --out "$work/bad-format" --format csv,pdf 2>&1 >/dev/null)
[[ $? -eq 2 && $err == 'linksim: error: --format: expected table, csv, json, svg or html, got "pdf"' ]] ||
  fail "bad format: got '$err'"
[[ $(tail -n 1 <<<"$out1") == "# 4 cases: 4 run, 0 reused, 0 failed; results in $work/j1/" ]] ||
  fail "summary line: '$(tail -n 1 <<<"$out1")'"
grep -q '^allreduce/dual-4090 ' <<<"$out1" || fail "summary has no line for allreduce/dual-4090"
[[ $(head -n 1 "$work/j1/results.csv") == case_id,case_index,study,kind,machine,topology,nodes,gpu_model,* ]] ||
  fail "CSV header: $(head -n 1 "$work/j1/results.csv")"
# 1K..8G by 2 is 24 sizes, on 4 machines, plus the header.
[[ $(wc -l <"$work/j1/results.csv") -eq 97 ]] || fail "CSV rows: $(wc -l <"$work/j1/results.csv")"

# --- shards merged equal a single run ---
"$cli" run "$scenario" --out "$work/s0" --shard 0/2 --format csv,json >/dev/null || fail "shard 0/2"
"$cli" run "$scenario" --out "$work/s1" --shard 1/2 --format csv,json >/dev/null || fail "shard 1/2"
[[ $(ls "$work/s0/cases" | wc -l) -eq 2 ]] || fail "shard 0/2 ran $(ls "$work/s0/cases" | wc -l) cases"
(cd "$work" && "$cli" merge s0 s1 --out merged --format csv,json,svg,html >/dev/null) || fail "merge failed"
for f in results.csv results.json report.html; do
  cmp -s "$work/j1/$f" "$work/merged/$f" || fail "merged $f differs from a single run's"
done
diff -r "$work/j1/charts" "$work/merged/charts" >/dev/null || fail "merged charts differ from a single run's"
err=$("$cli" merge "$work/s0" --out "$work/partial" 2>&1 >/dev/null)
[[ $? -eq 2 && $err == 'linksim: error: merge: 2 of 4 cases are in none of the directories (first: "allreduce/pcie-8gpu"); run the missing shards, or `linksim run --resume` into one of them' ]] ||
  fail "partial merge: got '$err'"

# --- resume recomputes only what is missing; no temporary file is left ---
rm "$work/j1/cases/"allreduce_dual-4090-*.json
: >"$work/j1/results.csv"   # as if an earlier write had been cut short
out=$("$cli" run "$scenario" --out "$work/j1" --resume --jobs 2)
[[ $(tail -n 1 <<<"$out") == "# 4 cases: 1 run, 3 reused, 0 failed; results in $work/j1/" ]] ||
  fail "resume: '$(tail -n 1 <<<"$out")'"
cmp -s "$work/j1/results.csv" "$work/j2/results.csv" || fail "resumed results.csv differs"
grep -q '"cases_run": 1' "$work/j1/run-info.json" || fail "run-info.json has no cases_run 1"
[[ -z $(find "$work" -name '*.tmp') ]] || fail "temporary files left: $(find "$work" -name '*.tmp')"

# --- the 1000-case sweep runs and is complete ---
out=$("$cli" run "$src/scenarios/sweep-1000.yaml" --out "$work/sweep" --format table,html)
[[ $? -eq 0 ]] || fail "sweep-1000 failed"
[[ $(tail -n 1 <<<"$out") == "# 1000 cases: 1000 run, 0 reused, "*" failed; results in $work/sweep/" ]] ||
  fail "sweep-1000: '$(tail -n 1 <<<"$out")'"
[[ ! -e $work/sweep/results.csv ]] || fail "--format table,html wrote results.csv"
[[ ! -e $work/sweep/charts ]] || fail "--format table,html wrote charts/"
# A bounded page: five busbw charts of at most 12 curves, one machine, tables of 200 rows.
html_bytes=$(wc -c <"$work/sweep/report.html")
[[ $html_bytes -lt 3000000 ]] || fail "sweep-1000 report.html is $html_bytes bytes"
grep -q 'data-chart-count="6"' "$work/sweep/report.html" || fail "sweep-1000 report.html does not hold 6 charts"
grep -q '12 of [0-9]* cases shown' "$work/sweep/report.html" || fail "sweep-1000 charts do not say what they leave out"
grep -q '(first 200 of [0-9]* cases; all are in results.csv)' "$work/sweep/report.html" ||
  fail "sweep-1000 tables are not bounded"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "run.sh: all checks passed"
