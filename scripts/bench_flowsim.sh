#!/usr/bin/env bash
# Prints the flow simulator's headline figures: wall time and peak RSS of the 8.4 M-transfer
# step-synchronous ring (N=2048), then the Google Benchmark table.
# Usage: scripts/bench_flowsim.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake --build "$build" --target flowsim_perftest >/dev/null
bin="$build/bench/flowsim_perftest"
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "wall %e s, peak RSS %M KiB (/usr/bin/time)" "$bin" --standalone-ring 2048
else
  "$bin" --standalone-ring 2048
fi
"$bin" --benchmark_counters_tabular=true
