#!/usr/bin/env bash
# Pasted nccl-tests tables (coll compare, calibrate), `accept`, `--degrade` and
# `topo contingency` through the real binary: exit statuses 0, 1 and 2 and the lines that matter.
# Usage: bash tables.sh <linksim-binary> <source-dir>
set -u
linksim=$1
src=$2
tables="$src/data/validation/nccl-tests"
topos="$src/topologies"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

for f in 53-h100x8-1node-all_reduce-xxrjun.txt 54-h100x8-1node-all_gather-xxrjun.txt; do
  [ -f "$tables/$f" ] || { echo "FAIL: validation data missing: $tables/$f"; exit 1; }
done

expect() {  # expect STATUS command...
  local want=$1
  shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL (exit $got, expected $want): $*"
    cat "$tmp/out" "$tmp/err"
    failures=$((failures + 1))
  fi
}
has() {  # has FILE TEXT: the output holds TEXT
  grep -qF -- "$2" "$tmp/$1" || { echo "FAIL: no '$2' in $1:"; cat "$tmp/$1"; failures=$((failures + 1)); }
}

# Only the data rows of a published table, as people paste them.
grep -E '^ *[0-9]' "$tables/53-h100x8-1node-all_reduce-xxrjun.txt" > "$tmp/allreduce-rows.txt"
grep -E '^ *[0-9]' "$tables/54-h100x8-1node-all_gather-xxrjun.txt" > "$tmp/allgather-rows.txt"

expect 0 "$linksim" coll compare "$tmp/allreduce-rows.txt" --topo "$topos/dgx-h100.yaml"
has out "allreduce over 8 ranks (collective from busbw/algbw and redop, ranks from busbw/algbw)"
expect 2 "$linksim" coll compare "$tmp/allgather-rows.txt" --topo "$topos/dgx-h100.yaml"
has err "got allgather (8 ranks) or alltoall (8 ranks)"
expect 0 "$linksim" coll compare "$tmp/allgather-rows.txt" --topo "$topos/dgx-h100.yaml" --collective all_gather
expect 0 "$linksim" coll compare --collective all_gather "$tmp/allgather-rows.txt" --topo "$topos/dgx-h100.yaml" --json
expect 2 "$linksim" coll compare "$tmp/allgather-rows.txt" --topo "$topos/dgx-h100.yaml" --collective gather
has err "--collective: expected one of allreduce"
expect 0 "$linksim" calibrate --topo "$topos/dgx-h100.yaml" "$tmp/allreduce-rows.txt" --out "$tmp/p.yaml"
expect 2 "$linksim" coll compare "$topos/dgx-h100.yaml" --topo "$topos/dgx-h100.yaml"
has err "dgx-h100.yaml:1:1: error: expected nccl-tests output"

# accept: the sheet; a healthy table passes (0), a P2P-disabled one fails (1), bad input 2.
expect 0 "$linksim" accept --topo "$topos/dgx-h100.yaml" all_reduce 256M 1G
has out "./build/all_reduce_perf -b 256M -e 1G -f 4 -g 8 -d float"
expect 0 "$linksim" accept --topo "$topos/dgx-h100.yaml" --json
expect 0 "$linksim" accept --topo "$topos/dgx-h100.yaml" --check "$tables/54-h100x8-1node-all_gather-xxrjun.txt"
has out "10 rows judged on dgx-h100, 0 below threshold"
expect 0 "$linksim" accept --topo "$topos/dgx-h100.yaml" --check "$tables/53-h100x8-1node-all_reduce-xxrjun.txt"
has out "10 rows judged on dgx-h100, 0 below threshold"
expect 1 "$linksim" accept --topo "$topos/dgx-a100.yaml" --gpus 0,1,2,3 --check \
  "$tables/09-a100x4-dgx-p2pdisable-allreduce-llminsights.txt"
# (the threshold follows the regenerated error bands: the row and its measured busbw are fixed)
has out "09-a100x4-dgx-p2pdisable-allreduce-llminsights.txt:22 allreduce 1073741824 B: 5.20 < "
has out "likeliest: p2p-disabled: GPU peer-to-peer off"
expect 1 "$linksim" accept --check --topo "$topos/dgx-a100.yaml" --gpus 0,1,2,3 --json \
  "$tables/09-a100x4-dgx-p2pdisable-allreduce-llminsights.txt"
has out '"passed": false'
expect 0 "$linksim" accept --topo "$topos/dgx-h100.yaml" --check --collective all_gather "$tmp/allgather-rows.txt"
has out "10 rows judged on dgx-h100, 0 below threshold"
expect 2 "$linksim" accept --topo "$topos/dgx-h100.yaml" all_scatter
expect 2 "$linksim" accept --topo "$topos/dgx-h100.yaml" --check

# --degrade on coll and plan; bad specs are bad input naming the flag.
expect 0 "$linksim" coll all_reduce --topo "$topos/pcie-8gpu.yaml" --size 256M --degrade gpu0~pciesw0:width=8
expect 0 "$linksim" plan --topo "$topos/dgx-h100.yaml" --model llama3.1-8b --mode train --tp 8 \
  --degrade nic0:missing --degrade gpu1:clock=80%
expect 2 "$linksim" coll all_reduce --topo "$topos/pcie-8gpu.yaml" --size 256M --degrade gpu9:missing
has err "--degrade: 'gpu9:missing': expected a device of pcie-8gpu, got 'gpu9'; did you mean 'gpu0'?"

# contingency: a collective and a 70B plan, text and JSON.
expect 0 "$linksim" topo contingency --topo "$topos/pcie-8gpu.yaml" coll all_reduce --size 1G
has out "Worst per class:"
has out "pcie-width"
expect 0 "$linksim" topo contingency --topo "$topos/dgx-h100-ib.yaml" --json plan \
  --model llama3.1-70b --mode train --tp 8 --pp 2
has out '"worst_per_class"'
expect 2 "$linksim" topo contingency --topo "$topos/pcie-8gpu.yaml" coll all_scatter --size 1G

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "tables: all checks passed"
