#!/usr/bin/env bash
# The main demo: the four machines linksim is framed by — an NVSwitch server (DGX H100), a
# dual-socket PCIe server (8x L40S), a consumer pair without NVLink or P2P (2x RTX 4090) and a
# cluster of DGX H100 over InfiniBand — their topologies, then AllReduce side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/linksim
machines=(dgx-h100 pcie-8gpu dual-4090 dgx-h100-ib)
for m in "${machines[@]}"; do
  echo "================================================================ $m"
  "$cli" topo show "topologies/$m.yaml"
  echo
  "$cli" topo matrix "topologies/$m.yaml"
  echo
done
echo "================================================================ AllReduce, all GPUs of each machine"
"$cli" coll allreduce -b 8 -e 8G -f 4 $(printf -- '--topo topologies/%s.yaml ' "${machines[@]}")
