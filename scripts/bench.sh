#!/usr/bin/env bash
# Prints linksim's headline speed figures (one core, whole process where stated):
#  1. the CLI on DGX H100 clusters: flow-mode AllReduce of 1 GiB, wall time and peak memory;
#  2. the collective engine's Google Benchmark table (analytic estimates/s, flow-mode sweeps);
#  3. the flow simulator's own figures (8.4 M-transfer step-synchronous ring and more).
# Usage: scripts/bench.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake --build "$build" --target linksim_cli collectives_perftest flowsim_perftest >/dev/null
echo "== linksim coll allreduce --topo topologies/dgx-h100-ib.yaml --set nodes=N --size 1G --mode flow"
for nodes in 1 8 64 512 4096; do
  line=$( { /usr/bin/time -f "%e s wall, %M KiB peak" taskset -c 0 "$build/linksim" coll allreduce \
      --topo topologies/dgx-h100-ib.yaml --set nodes=$nodes --size 1G --mode flow >/dev/null; } 2>&1 )
  printf '%6d GPUs: %s\n' $((nodes * 8)) "$line"
done
echo
echo "== collective engine"
taskset -c 0 "$build/bench/collectives_perftest" --benchmark_counters_tabular=true
echo
echo "== flow simulator"
bash scripts/bench_flowsim.sh "$build"
