#!/usr/bin/env bash
# Prints the flow simulator's headline figures: the step-synchronous ring AllReduce held at once
# (N=2048, 8.4 M transfers) and as a step program (N=2048 and N=8192, 134 M transfers), each the
# median of LINKSIM_BENCH_RUNS runs (default 3) with peak RSS; then the Google Benchmark table.
# Usage: scripts/bench_flowsim.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake --build "$build" --target flowsim_perftest >/dev/null
source scripts/bench_lib.sh
bin="$build/bench/flowsim_perftest"
"$bin" --standalone-step-ring 2048  # the answer against its closed form
for run in "held at once, N=2048:--standalone-ring 2048" \
           "step program, N=2048:--standalone-step-ring 2048" \
           "step program, N=8192:--standalone-step-ring 8192"; do
  # shellcheck disable=SC2086  # the flags split on purpose
  printf 'step-synchronous ring %s: %s\n' "${run%%:*}" "$(median_run taskset -c 0 "$bin" ${run#*:})"
done
taskset -c 0 "$bin" --benchmark_counters_tabular=true
