#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A repeatable option (--set, --topo, --format) takes one value per occurrence: a positional
# argument after it stays a positional argument, for every command that has one.
# Usage: bash repeatable_options.sh <linksim-binary> <source-dir>
set -u
cli=$1
src=$2
topo=$src/topologies
measured=$src/data/validation/nccl-tests/02-h100x16-2node-ib-allreduce-bitdeer.txt
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failures=0

expect_ok() {  # expect_ok <what stdout must contain> <args...>
  local want=$1
  shift
  local got status
  got=$("$cli" "$@" 2>&1)
  status=$?
  if [[ $status -ne 0 || $got != *"$want"* ]]; then
    echo "FAIL: linksim $*"
    echo "  got status $status: ${got%%$'\n'*}"
    echo "  want status 0 and output containing: $want"
    failures=$((failures + 1))
  fi
}

expect_ok "host_staging_rate" calibrate --topo "$topo/dgx-h100-ib.yaml" --set nodes=2 "$measured" \
  --out "$out/profile.yaml"
expect_ok "hop_latency" calibrate --topo "$topo/dgx-h100-ib.yaml" --set nodes=2 --set radix=64 \
  "$measured" --out "$out/profile2.yaml"
expect_ok "allreduce over 16 ranks" coll compare --topo "$topo/dgx-h100-ib.yaml" --set nodes=2 \
  "$measured"
expect_ok "servers: 2" topo show --set nodes=2 "$topo/dgx-h100-ib.yaml"
expect_ok "GPU0" topo matrix --set nodes=2 "$topo/dgx-h100-ib.yaml"
expect_ok "graph G" topo dot --set nodes=2 "$topo/dgx-h100-ib.yaml"
expect_ok "allreduce-busbw/dgx-h100" run --format json "$src/scenarios/seed-selection.yaml" --list
expect_ok "mpirun -np 16 -N 8" accept --topo "$topo/dgx-h100-ib.yaml" --set nodes=2 --set radix=64 \
  all_reduce 1G
expect_ok "allreduce over 16 ranks" coll compare --topo "$topo/dgx-h100-ib.yaml" --set nodes=2 \
  --degrade nic0:speed=200Gb/s --degrade nic1:speed=200Gb/s "$measured"

exit $((failures > 0))
