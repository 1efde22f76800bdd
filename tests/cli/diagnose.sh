#!/usr/bin/env bash
# linksim diagnose through the real binary: exit statuses 0 (no fault), 1 (a fault) and 2 (not
# a log, bad flags), the JSON contract's fields, and the topology skeleton loading.
# Usage: bash diagnose.sh <linksim-binary> <source-dir>
set -u
linksim=$1
src=$2
logs="$src/data/validation/nccl-logs"
data="$src/tests/data/nccl_logs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

log03="$logs/03-sxm8x2-2node-p2plevel-shm-socket-nccltests166.log"
for f in "$log03" "$logs/22-v100-1x2-2node-mlx4-ib-no-gdr-horovod-blog.log"; do
  [ -f "$f" ] || { echo "FAIL: validation data missing: $f"; exit 1; }
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
has() {  # has FILE TEXT
  grep -qF -- "$2" "$tmp/$1" || { echo "FAIL: '$2' not in $1"; cat "$tmp/$1"; failures=$((failures + 1)); }
}

# The 8-GPU servers of nccl-tests#166 through SHM: p2p-disabled with evidence and cost.
expect 1 "$linksim" diagnose "$log03" --topo "$src/topologies/dgx-a100-ib.yaml"
has out "fault    p2p-disabled"
has out "cost (allreduce, P2P off (SHM)): 1 MiB"
has out "line 22: ubuntu:39964:40050 [6] NCCL INFO Channel 09 : 6[6] -> 7[7] via SHM/direct/direct"
expect 1 "$linksim" diagnose "$log03" --topo "$src/topologies/dgx-a100-ib.yaml" --json
python3 - "$tmp/out" <<'PY' || failures=$((failures + 1))
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["nccl_version", "ranks", "nodes", "channels", "hops", "findings"], list(d)
assert d["ranks"] == 16 and d["nodes"] == 2, d
assert set(d["hops"][0]) == {"from_rank", "to_rank", "channel", "transport", "gdr"}
f = next(f for f in d["findings"] if f["key"] == "p2p-disabled")
assert f["severity"] == "fault" and f["evidence"] and f["cost"]["sizes"], f
assert set(f) == {"key", "severity", "evidence", "cost"}
PY
# A repeatable --set leaves the positional log alone.
expect 1 "$linksim" diagnose --topo "$src/topologies/dgx-a100-ib.yaml" --set nodes=2 "$log03"

# Without a machine: what the log shows, no fault; the skeleton loads.
expect 0 "$linksim" diagnose "$data/srun-4gpu-shm.log" --emit-topology "$tmp/skeleton.yaml"
has out "info     p2p-disabled"
has out "environment: NCCL_P2P_DISABLE=1"
expect 0 "$linksim" topo show "$tmp/skeleton.yaml"
expect 2 "$linksim" diagnose "$data/srun-4gpu-shm.log" --set nodes=2

# Not a log: exit 2, positioned at the first line that shows it.
expect 2 "$linksim" diagnose "$data/nccl-tests-table.log"
has err "nccl-tests-table.log:1:1: error: expected an NCCL_DEBUG=INFO log (lines with 'NCCL INFO'), got no NCCL line"
expect 2 "$linksim" diagnose "$data/binary.log"
has err "binary.log:2:1: error: expected the text of an NCCL_DEBUG=INFO log, got byte 0x00 (a binary file?)"
expect 2 "$linksim" diagnose "$data/truncated.log"
has err "truncated.log:3:"
has err "error: the log ends in a cut line"
expect 2 "$linksim" diagnose "$src/tests/data/nccl_logs/missing.log"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "diagnose CLI checks passed"
