#!/usr/bin/env bash
# Prints linksim's headline speed figures (one core, whole process where stated), each the
# median of LINKSIM_BENCH_RUNS runs (default 3) with the largest peak RSS:
#  1. the CLI on DGX H100 clusters: flow-mode AllReduce of 1 GiB, wall and CPU time, peak memory;
#  2. the analytic engine in bulk: a layout search of a 405B model on 16,384 GPUs and the
#     1,000-case scenario sweep;
#  3. the collective engine's Google Benchmark table (analytic estimates/s, flow-mode sweeps);
#  4. topo contingency (N-1) against a 70B plan on dgx-h100-ib and pcie-8gpu;
#  5. the flow simulator's own figures (step-synchronous rings, held at once and as step programs);
#  6. serving: 100,000 requests of 70B TP=8 under continuous batching, and a 40-point rate sweep.
# On a shared machine wall time includes waiting for the core; CPU time (user + sys) does not.
# Usage: scripts/bench.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake --build "$build" --target linksim_cli collectives_perftest flowsim_perftest serve_perftest >/dev/null
source scripts/bench_lib.sh
echo "== linksim coll allreduce --topo topologies/dgx-h100-ib.yaml --set nodes=N -b 1G -e 1G --mode flow"
for nodes in 1 8 64 512 1024 2048 4096 8192 16384; do
  printf '%6d GPUs (%5d servers): %s\n' $((nodes * 8)) "$nodes" "$(median_run taskset -c 0 \
    "$build/linksim" coll allreduce --topo topologies/dgx-h100-ib.yaml --set nodes=$nodes \
    -b 1G -e 1G --mode flow)"
done
echo
echo "== the analytic engine in bulk"
out=$(mktemp -d)
printf 'plan --search, llama3.1-405b on 16384 GPUs (2048 servers): %s\n' "$(median_run taskset -c 0 \
  "$build/linksim" plan --topo topologies/dgx-h100-ib.yaml --set nodes=2048 --model llama3.1-405b \
  --mode train --global-batch 2048 --seq 8192 --search)"
printf 'run scenarios/sweep-1000.yaml (1000 cases, one job): %s\n' "$(median_run taskset -c 0 \
  "$build/linksim" run scenarios/sweep-1000.yaml --jobs 1 --format csv --out "$out/sweep")"
rm -rf "$out"
echo
echo "== topo contingency: every single fault against a 70B plan"
printf 'dgx-h100-ib (32 GPUs), llama3.1-70b train tp8 pp2: %s\n' "$(median_run taskset -c 0 \
  "$build/linksim" topo contingency --topo topologies/dgx-h100-ib.yaml plan --model llama3.1-70b \
  --mode train --tp 8 --pp 2)"
printf 'pcie-8gpu, llama3.1-70b decode tp8: %s\n' "$(median_run taskset -c 0 \
  "$build/linksim" topo contingency --topo topologies/pcie-8gpu.yaml plan --model llama3.1-70b \
  --mode decode --tp 8)"
echo
echo "== collective engine"
taskset -c 0 "$build/bench/collectives_perftest" --benchmark_counters_tabular=true \
  --benchmark_repetitions="${LINKSIM_BENCH_RUNS:-3}" --benchmark_report_aggregates_only=true
echo
echo "== flow simulator"
bash scripts/bench_flowsim.sh "$build"
echo
echo "== serving simulation (docs/serving.md)"
taskset -c 0 "$build/bench/serve_perftest" --standalone
