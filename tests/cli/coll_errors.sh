#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bad requests to `linksim coll` exit with status 2 and one exact "linksim: error: ..." line;
# a good one exits 0 with the nccl-tests table.
# Usage: bash coll_errors.sh <linksim-binary> <source-dir>
set -u
cli=$1
topo=$2/topologies
failures=0

expect() {  # expect <status> <first stderr line> <args...>
  local want_status=$1 want=$2
  shift 2
  local err status
  err=$("$cli" coll "$@" 2>&1 >/dev/null)
  status=$?
  err=${err%%$'\n'*}
  if [[ $status -ne $want_status || $err != "$want" ]]; then
    echo "FAIL: linksim coll $*"
    echo "  got status $status: $err"
    echo "  want status $want_status: $want"
    failures=$((failures + 1))
  fi
}

expect 2 'linksim: error: -e: expected a size such as 8, 64K, 1M or 8G, got "8Q"' \
  allreduce --topo "$topo/dgx-h100.yaml" -b 8 -e 8Q
expect 2 'linksim: error: give a message size: --size S, or a sweep -b MIN -e MAX [-f FACTOR]' \
  allreduce --topo "$topo/dgx-h100.yaml"
expect 2 'linksim: error: --gpus: GPU "9" does not exist; host0 has GPUs 0..7' \
  allreduce --topo "$topo/dgx-h100.yaml" --gpus 9 --size 1M
expect 2 'linksim: error: -g: expected 1..2 GPUs, got 4' \
  allreduce --topo "$topo/dual-4090.yaml" -g 4 --size 1M
expect 2 "linksim: error: algorithm 'nvls' is not available for allreduce on these 8 GPUs; expected one of: auto, ring" \
  allreduce --topo "$topo/pcie-8gpu.yaml" --algo nvls --size 1M
expect 2 'linksim: error: --p2p: expected on or off, got "maybe"' \
  allreduce --topo "$topo/dual-4090.yaml" --p2p maybe --size 1M
expect 2 'linksim: error: --p2p-level: expected one of LOC, NVL, PIX, PXB, PHB, SYS (or NCCL'"'"'s old 0-5), got "NODE"' \
  allreduce --topo "$topo/dgx-h100.yaml" --p2p-level NODE --size 1M
expect 2 'linksim: error: --net-gdr-level: expected one of LOC, PIX, PXB, PHB, SYS (or NCCL'"'"'s old 0-5), got "XYZ"' \
  allreduce --topo "$topo/dgx-h100-ib.yaml" --set nodes=2 --net-gdr-level XYZ --size 1M
expect 2 'linksim: error: --net: expected ib or socket, got "tcp"' \
  allreduce --topo "$topo/dgx-h100-ib.yaml" --set nodes=2 --net tcp --size 1M
expect 2 'linksim: error: --ib-hca: expected NCCL_IB_HCA'"'"'s form [^][=]name[:port][,name[:port]]... (a port number >= 1 after '"'"':'"'"'), got "mlx5_0:one"' \
  allreduce --topo "$topo/dgx-h100.yaml" --ib-hca mlx5_0:one --size 1M
expect 2 'linksim: error: no network path from host0:gpu0 to host1:gpu0 (NCCL_IB_HCA leaves its server no NIC)' \
  allreduce --topo "$topo/dgx-h100-ib.yaml" --set nodes=2 --ib-hca =mlx5_1 --size 1M
expect 2 'linksim: error: no path from gpu0 to gpu2 in a server through host memory (P2P level LOC: NCCL_P2P_DISABLE or NCCL_P2P_LEVEL leave its NVLink unused)' \
  allreduce --topo "$topo/gb200-nvl72.yaml" --p2p off --size 1M
expect 2 'linksim: error: --per-node: expected 1..8 GPUs per server, got 9' \
  allreduce --topo "$topo/dgx-h100-ib.yaml" --per-node 9 --size 1M
expect 2 'linksim: error: --proto: expected one of auto, ll, ll128, simple, or an NCCL_PROTO list (^ll128 | ll,simple), got "fast"' \
  allgather --topo "$topo/dgx-h100.yaml" --proto fast --size 1M
# NCCL_ALGO / NCCL_PROTO lists, read as NCCL's parseList reads them (docs/model.md#tuner-lists).
expect 2 'linksim: error: --proto: expected protocols of LL, LL128, Simple (NCCL'"'"'s names), got '"'"'LL256'"'"' in "^LL256"' \
  allreduce --topo "$topo/dgx-h100.yaml" --proto ^LL256 --size 1M
expect 2 'linksim: error: --algo: expected a collective prefix of Broadcast, Reduce, AllGather, ReduceScatter, AllReduce (NCCL'"'"'s names), got '"'"'alltoall'"'"' in "ring;alltoall:tree"' \
  allreduce --topo "$topo/dgx-h100.yaml" --algo "ring;alltoall:tree" --size 1M
expect 2 'linksim: error: --algo: expected a '"'"'collective:'"'"' prefix on every entry after the first, got '"'"'tree'"'"' in "ring;tree"' \
  allreduce --topo "$topo/dgx-h100.yaml" --algo "ring;tree" --size 1M
expect 2 'linksim: error: NCCL_ALGO=PAT,CollNetDirect left allreduce no algorithm and protocol linksim can run on these 8 GPUs (NCCL: "no algorithm/protocol available")' \
  allreduce --topo "$topo/dgx-h100.yaml" --algo PAT,CollNetDirect --size 1M
expect 2 'linksim: error: NCCL_ALGO=nvls,tree and NCCL_PROTO=^simple left allreduce no algorithm and protocol linksim can run on these 8 GPUs (NCCL: "no algorithm/protocol available"); of those it allows: NVLS runs the Simple protocol only' \
  allreduce --topo "$topo/dgx-h100.yaml" --algo nvls,tree --proto ^simple --size 1M
version='linksim: error: --nccl-version: expected a release X.Y from 2.0 to 2.32, got'
expect 2 "$version \"2\"" allreduce --topo "$topo/dgx-h100.yaml" --nccl-version 2 --size 1M
expect 2 "$version \"2.99\"" allreduce --topo "$topo/dgx-h100.yaml" --nccl-version 2.99 --size 1M
expect 2 "$version \"two\"" allreduce --topo "$topo/dgx-h100.yaml" --nccl-version two --size 1M
expect 2 "$version \"3.0\"" allreduce --topo "$topo/dgx-h100.yaml" --nccl-version 3.0 --size 1M

# Every output names the release modelled.
out=$("$cli" coll allreduce --topo "$topo/dgx-h100.yaml" --size 1G --nccl-version 2.16 2>&1)
if [[ $? -ne 0 || $out != *"NCCL 2.16"*"ring"* ]]; then
  echo "FAIL: --nccl-version 2.16 in the text header, ring without NVLS: $out"
  failures=$((failures + 1))
fi
out=$("$cli" coll allreduce --topo "$topo/dgx-h100.yaml" --size 1G --json 2>&1)
if [[ $out != *'"nccl_version": "2.29"'* ]]; then
  echo "FAIL: the JSON names the default release: $out"
  failures=$((failures + 1))
fi
out=$("$cli" coll allreduce --topo "$topo/dgx-h100.yaml" --size 1G --csv --nccl-version 2.18 2>&1)
if [[ $out != *",nccl_version"*",2.18"* ]]; then
  echo "FAIL: the CSV names the release: $out"
  failures=$((failures + 1))
fi

out=$("$cli" coll allreduce --topo "$topo/dual-4090.yaml" --size 64M 2>&1)
if [[ $? -ne 0 || $out != *"67108864"*"host-staged"* ]]; then
  echo "FAIL: a good request: $out"
  failures=$((failures + 1))
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "coll errors: all passed"
