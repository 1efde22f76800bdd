#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Opens the sample HTML report in Debian's headless chromium: the page must load without any
# console message (errors, exceptions), every chart must be drawn (one <svg> per chart, each
# with shapes in the DOM chromium built), and a screenshot is kept as a test artefact in
# <build>/test-artifacts/. Usage: html_report.sh <path to linksim> <source dir>.
# Exits 77 (ctest: skipped) with the reason when chromium is not installed.
set -euo pipefail
cli="$1"
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

open_page "$report" "$out/sample-report.dom.html" "$out/sample-report.chromium.log"
messages="$(console_lines "$out/sample-report.chromium.log")"
[ -z "$messages" ] || fail "console messages while loading the report: $messages"

dom="$out/sample-report.dom.html"
expected="$(grep -o 'data-chart-count="[0-9]*"' "$dom" | head -1 | grep -o '[0-9]\+')"
[ -n "$expected" ] && [ "$expected" -gt 0 ] || fail "no data-chart-count in the rendered DOM"
# Per <svg> element of the DOM: the number of drawn shapes inside it.
shapes="$(awk 'BEGIN { RS = "<svg"; } NR > 1 {
    split($0, parts, "</svg>"); n = gsub(/<(path|circle|rect|polyline|line|text)[ >]/, "", parts[1]);
    print n }' "$dom")"
charts="$(printf '%s\n' "$shapes" | grep -c . || true)"
[ "$charts" -eq "$expected" ] || fail "expected $expected charts in the DOM, found $charts"
while read -r n; do
  [ "$n" -ge 20 ] || fail "a chart has only $n shapes in the DOM: not drawn"
done <<< "$shapes"

screenshot="$out/sample-report.png"
rm -f "$screenshot"
timeout 120 "$browser" --headless --disable-gpu --no-sandbox --no-first-run --hide-scrollbars \
  --user-data-dir="$profile" --window-size=1280,2000 --screenshot="$screenshot" \
  "file://$report" > "$out/screenshot.log" 2>&1 || fail "chromium could not take a screenshot"
[ "$(head -c 8 "$screenshot" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] ||
  fail "the screenshot is not a PNG"
echo "ok: $charts charts drawn, no console messages; screenshot $screenshot"
