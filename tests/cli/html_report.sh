#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Opens two HTML reports in Debian's headless chromium, the sample report (every chart kind)
# and the report.html of a scenario run mixing collectives and plans on three machines: each
# page must load without any console message (errors, exceptions), every chart must be drawn
# (one <svg> per chart, each with shapes in the DOM chromium built), and a screenshot of each
# is kept as a test artefact in <build>/test-artifacts/.
# Usage: html_report.sh <path to linksim> <source dir>.
# Exits 77 (ctest: skipped) with the reason when chromium is not installed.
set -euo pipefail
cli="$1"
src="$2"
build="$(cd "$(dirname "$cli")" && pwd)"
tests_binary="$build/tests/linksim_tests"
out="$build/test-artifacts"
mkdir -p "$out"
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -x "$tests_binary" ] || fail "test binary $tests_binary not found (build linksim_tests)"
browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed, so the report cannot be opened in a browser;" \
       "install it with 'apt-get install chromium' (scripts/setup.sh does)" >&2
  exit 77
fi

# A file of its own: the test binary's own run of the same case (under ctest, perhaps at the
# same moment) writes <build>/test-artifacts/sample-report.html.
report="$out/browser-check/sample-report.html"
mkdir -p "$(dirname "$report")"
rm -f "$report"
LINKSIM_SAMPLE_REPORT="$report" "$tests_binary" \
  -tc='html report: sample report with every chart kind' > "$out/sample-report.log" 2>&1 ||
  fail "writing the sample report failed: $(cat "$out/sample-report.log")"
[ -s "$report" ] || fail "the sample report was not written"

profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
# Runs chromium on a page; the DOM after scripts ran goes to $2, the browser's log to $3.
open_page() {
  timeout 120 "$browser" --headless --disable-gpu --no-sandbox --no-first-run \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 --dump-dom "file://$1" \
    > "$2" 2> "$3" || fail "chromium failed on $1 (exit $?): $(tail -5 "$3")"
}
console_lines() { grep -E ':CONSOLE[:(]' "$1" || true; }

# The detector must see a console error in a page that has one, or it proves nothing.
probe="$out/console-probe.html"
printf '<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>\n' > "$probe"
open_page "$probe" "$out/console-probe.dom" "$out/console-probe.log"
[ -n "$(console_lines "$out/console-probe.log")" ] ||
  fail "chromium's log shows no console line for a page with an uncaught error"

# Loads page $1 and checks it; its DOM, logs and screenshot are kept as $out/$2.*.
check_page() {
  local page="$1" name="$2"
  local dom="$out/$name.dom.html"
  open_page "$page" "$dom" "$out/$name.chromium.log"
  local messages
  messages="$(console_lines "$out/$name.chromium.log")"
  [ -z "$messages" ] || fail "$name: console messages while loading the report: $messages"
  local expected
  expected="$(grep -o 'data-chart-count="[0-9]*"' "$dom" | head -1 | grep -o '[0-9]\+')"
  [ -n "$expected" ] && [ "$expected" -gt 0 ] || fail "$name: no data-chart-count in the rendered DOM"
  # Per <svg> element of the DOM: the number of drawn shapes inside it.
  local shapes charts
  shapes="$(awk 'BEGIN { RS = "<svg"; } NR > 1 {
      split($0, parts, "</svg>"); n = gsub(/<(path|circle|rect|polyline|line|text)[ >]/, "", parts[1]);
      print n }' "$dom")"
  charts="$(printf '%s\n' "$shapes" | grep -c . || true)"
  [ "$charts" -eq "$expected" ] || fail "$name: expected $expected charts in the DOM, found $charts"
  while read -r n; do
    [ "$n" -ge 20 ] || fail "$name: a chart has only $n shapes in the DOM: not drawn"
  done <<< "$shapes"

  local screenshot="$out/$name.png"
  rm -f "$screenshot"
  timeout 120 "$browser" --headless --disable-gpu --no-sandbox --no-first-run --hide-scrollbars \
    --user-data-dir="$profile" --window-size=1280,2000 --screenshot="$screenshot" \
    "file://$page" > "$out/$name.screenshot.log" 2>&1 || fail "$name: chromium could not take a screenshot"
  [ "$(head -c 8 "$screenshot" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] ||
    fail "$name: the screenshot is not a PNG"
  echo "ok: $name: $charts charts drawn, no console messages; screenshot $screenshot"
}

check_page "$report" sample-report

# A scenario run's report: busbw curves, scaling with the ideal line, step parts, memory, a
# layout search's ranking and three machine pictures (two from the flow simulation's link
# usage).
scenario_dir="$out/scenario-report"
rm -rf "$scenario_dir"
mkdir -p "$scenario_dir"
cat > "$scenario_dir/mixed.yaml" <<YAML
report:
  title: Scenario report in a browser
machines:
  - topology: $src/topologies/dgx-h100.yaml
  - topology: $src/topologies/pcie-8gpu.yaml
  - label: cluster
    topology: $src/topologies/dgx-h100-ib.yaml
    set: {nodes: [1, 2, 4]}
collectives:
  - name: allreduce
    ops: allreduce
    minbytes: 1K
    maxbytes: 1G
    stepfactor: 4
plans:
  - name: train
    machines: [cluster]
    model: llama3.1-8b
    mode: train
    tp: 8
    global_batch: 64
    seq: 2048
    baseline_gpus: 8
  - {name: best, machines: [dgx-h100], model: llama3.1-8b, mode: train, tp: search, global_batch: 64}
YAML
"$cli" run "$scenario_dir/mixed.yaml" --out "$scenario_dir/out" --format html \
  > "$out/scenario-report.log" 2>&1 || fail "linksim run failed: $(cat "$out/scenario-report.log")"
[ -s "$scenario_dir/out/report.html" ] || fail "the scenario run wrote no report.html"
grep -q 'data-chart-count="10"' "$scenario_dir/out/report.html" ||
  fail "the scenario report does not hold its 10 charts"
check_page "$scenario_dir/out/report.html" scenario-report
