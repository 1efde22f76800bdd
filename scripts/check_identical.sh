#!/usr/bin/env bash
# Writes the answers a storage or speed change must keep byte-identical into a directory, one
# file per command (stdout, then stderr and the exit status), and compares two such directories.
#   scripts/check_identical.sh save BUILD_DIR OUT_DIR   runs every command with BUILD_DIR/linksim
#   scripts/check_identical.sh diff REF_DIR OUT_DIR     exit 0 when every file is the same
# The commands: coll --json, analytic and flow (six collectives, -b 8 -e 1G -f 8), on every
# topology of topologies/ and on dgx-h100-ib at 2, 16, 256 and 2048 servers (flow AllToAll up to 16
# servers; 16,384: AllReduce of 1 GiB, analytic and flow); plan --json; plan --search --json; explain coll and explain plan;
# and scenario runs (their generated_at stripped).
set -uo pipefail
cd "$(dirname "$0")/.."
mode="${1:?usage: check_identical.sh save BUILD_DIR OUT_DIR | diff REF_DIR OUT_DIR}"
if [[ "$mode" == diff ]]; then
  diff -r "$2" "$3" >/dev/null && { echo "identical: $(ls "$3" | wc -l) answers"; exit 0; }
  diff -rq "$2" "$3"
  exit 1
fi
bin="$2/linksim"
out="$3"
mkdir -p "$out"
rm -f "$out"/*
ops="allreduce allgather reducescatter broadcast reduce alltoall"
# answer NAME CMD...: stdout, stderr and the exit status of CMD into OUT/NAME.
answer() {
  local name="$1" rc
  shift
  "$@" >"$out/$name" 2>"$out/$name.err"
  rc=$?
  echo "exit $rc" >>"$out/$name.err"
}
for topo in topologies/*.yaml; do
  t=$(basename "$topo" .yaml)
  for op in $ops; do
    for sim in analytic flow; do
      answer "coll-$t-$op-$sim" "$bin" coll "$op" --topo "$topo" -b 8 -e 1G -f 8 --sim "$sim" --json
    done
  done
done
for nodes in 2 16 256 2048; do
  for op in $ops; do
    for sim in analytic flow; do
      # A flow-mode AllToAll is N^2 transfers: past 16 servers it needs gigabytes and minutes.
      [[ $op == alltoall && $sim == flow && $nodes -gt 16 ]] && continue
      answer "coll-ib$nodes-$op-$sim" "$bin" coll "$op" --topo topologies/dgx-h100-ib.yaml \
        --set nodes=$nodes -b 8 -e 1G -f 8 --sim "$sim" --json
    done
  done
done
for sim in analytic flow; do
  answer "coll-ib16384-allreduce-$sim" "$bin" coll allreduce --topo topologies/dgx-h100-ib.yaml \
    --set nodes=16384 -b 1G -e 1G --sim "$sim" --json
done
answer plan-70b-decode "$bin" plan --topo topologies/dgx-h100.yaml --model llama3.1-70b \
  --mode decode --tp 8 --batch 1 --kv-len 4096 --json
answer plan-405b-train "$bin" plan --topo topologies/dgx-h100-ib.yaml --set nodes=64 \
  --model llama3.1-405b --mode train --tp 8 --pp 8 --sp --recompute full --global-batch 1024 \
  --seq 8192 --json
answer plan-8b-fsdp "$bin" plan --topo topologies/dgx-h100.yaml --model llama3.1-8b --mode train \
  --dp 8 --zero fsdp --seq 8192 --global-batch 16 --framework torchtitan --json
answer plan-70b-flow "$bin" plan --topo topologies/dgx-h100-ib.yaml --set nodes=4 \
  --model llama3.1-70b --mode train --tp 8 --pp 2 --global-batch 64 --seq 4096 --sim flow --json
answer search-405b "$bin" plan --topo topologies/dgx-h100-ib.yaml --set nodes=2048 \
  --model llama3.1-405b --mode train --global-batch 2048 --seq 8192 --search --json
answer search-70b-a100 "$bin" plan --topo topologies/dgx-a100-ib.yaml --set nodes=16 \
  --model llama3.1-70b --mode train --global-batch 512 --seq 4096 --search --json
answer explain-coll-h100 "$bin" explain coll allreduce --topo topologies/dgx-h100.yaml --size 1G
answer explain-coll-ib "$bin" explain coll allgather --topo topologies/dgx-h100-ib.yaml \
  --set nodes=256 --size 64M
answer explain-coll-pcie "$bin" explain coll allreduce --topo topologies/pcie-8gpu.yaml --size 1M
answer explain-plan-70b "$bin" explain plan --topo topologies/dgx-h100.yaml --model llama3.1-70b \
  --mode decode --tp 8 --batch 1 --kv-len 4096
answer explain-plan-405b "$bin" explain plan --topo topologies/dgx-h100-ib.yaml --set nodes=64 \
  --model llama3.1-405b --mode train --tp 8 --pp 8 --sp --recompute full --global-batch 1024 \
  --seq 8192
for scenario in allreduce-four-machines cluster-scaling; do
  dir=$(mktemp -d)
  answer "run-$scenario" "$bin" run "scenarios/$scenario.yaml" --out "$dir/out"
  (cd "$dir/out" && find . -type f ! -name '*.html' ! -name '*.svg' | sort | while read -r f; do
    echo "== $f"
    grep -v generated_at "$f"
  done) >"$out/run-$scenario-files"
  sed -i "s|$dir|OUT|g" "$out/run-$scenario" "$out/run-$scenario-files"  # the directory's name
  rm -rf "$dir"
done
echo "saved $(ls "$out" | wc -l) files into $out"
