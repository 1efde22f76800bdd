#!/usr/bin/env bash
# topo verify / import / export / lint through the real binary: exit statuses 0, 1 and 2.
# Usage: bash sysimport.sh <linksim-binary> <source-dir>
set -u
linksim=$1
src=$2
topo_m="$src/data/validation/topo-m"
data="$src/tests/data/sysimport"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# The public captures these checks read must be there: a missing one is a failure, not a skip.
for f in 01-oci-bm-gpu-h100-8-nccl-topo-xml.txt 06-v100x8-dgx1-cubemesh-topo-m-konnase.txt \
  07-rtx2080ti-x2-pix-topo-m-autodl.txt 13-rtx4090-x8-pcie-switch-server-topo-m-nccltests307.txt; do
  [ -f "$topo_m/$f" ] || { echo "FAIL: validation data missing: $topo_m/$f"; exit 1; }
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

# verify: same machine 0, different machine 1, bad input 2.
expect 0 "$linksim" topo verify "$src/topologies/dgx1-v100.yaml" \
  --against "$topo_m/06-v100x8-dgx1-cubemesh-topo-m-konnase.txt"
expect 0 "$linksim" topo verify "$src/topologies/rtx4090-8gpu-server.yaml" \
  --against "$topo_m/13-rtx4090-x8-pcie-switch-server-topo-m-nccltests307.txt"
expect 1 "$linksim" topo verify "$src/topologies/dgx-a100.yaml" \
  --against "$topo_m/06-v100x8-dgx1-cubemesh-topo-m-konnase.txt"
grep -q "GPU0-GPU1: expected NV12, found NV1" "$tmp/out" || { echo "FAIL: verify diff"; failures=$((failures + 1)); }
expect 2 "$linksim" topo verify "$src/topologies/dgx-a100.yaml" --against "$data/truncated-topo-m.txt"
grep -q "truncated-topo-m.txt:5:1: error: truncated table" "$tmp/err" || { echo "FAIL: positioned error"; failures=$((failures + 1)); }
expect 2 "$linksim" topo verify "$src/topologies/dgx-a100.yaml" --against "$tmp/missing.txt"

# import then verify round-trips; an unknown GPU model is bad input.
expect 0 "$linksim" topo import nvidia-smi "$topo_m/06-v100x8-dgx1-cubemesh-topo-m-konnase.txt" \
  --gpu v100-sxm -o "$tmp/dgx1.yaml"
expect 0 "$linksim" topo verify "$tmp/dgx1.yaml" --against "$topo_m/06-v100x8-dgx1-cubemesh-topo-m-konnase.txt"
expect 2 "$linksim" topo import nvidia-smi "$topo_m/07-rtx2080ti-x2-pix-topo-m-autodl.txt" --gpu nosuchgpu
expect 0 "$linksim" topo import nccl-xml "$topo_m/01-oci-bm-gpu-h100-8-nccl-topo-xml.txt" -o "$tmp/oci.yaml"
expect 0 "$linksim" topo lint "$tmp/oci.yaml" --json

# export, then import the export.
expect 0 "$linksim" topo export nccl-xml "$src/topologies/dgx-h100.yaml" -o "$tmp/h100.xml"
expect 0 "$linksim" topo import nccl-xml "$tmp/h100.xml" -o "$tmp/h100.yaml"

# lint: DGX clean, the weak machines and every purpose-built file warn, bad input 2.
for f in dgx-a100.yaml dgx-h100.yaml dgx1-v100.yaml; do
  expect 0 "$linksim" topo lint "$src/topologies/$f"
done
for f in pcie-8gpu.yaml dual-4090.yaml "$data"/lint-*.yaml; do
  case $f in /*) path=$f ;; *) path="$src/topologies/$f" ;; esac
  expect 1 "$linksim" topo lint "$path"
done
expect 1 "$linksim" topo lint "$src/topologies/dual-4090.yaml" --json
grep -q '"rule": "p2p-disabled"' "$tmp/out" || { echo "FAIL: lint --json"; failures=$((failures + 1)); }
expect 2 "$linksim" topo lint "$data/truncated-topo-m.txt"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "sysimport CLI checks passed"
