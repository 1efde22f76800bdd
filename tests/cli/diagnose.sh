#!/usr/bin/env bash
# linksim diagnose through the real binary: exit statuses 0 (no fault), 1 (a fault) and 2 (not
# a log, bad flags), the JSON contract's fields, the costs on a plan, the topology skeleton
# loading, and accept --check --log naming the faults diagnose finds in the run's log.
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
assert list(d) == ["nccl_version", "ranks", "nodes", "channels", "host_cpu", "hops", "findings"], list(d)
assert d["ranks"] == 16 and d["nodes"] == 2, d
assert d["host_cpu"] is None, d["host_cpu"]  # the log has no topology dump
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

# Socket and GPUDirect RDMA faults have a cost; with a plan's flags (as `plan` spells them)
# each costed fault gives the plan's step time against the best.
expect 1 "$linksim" diagnose "$log03" --topo "$src/topologies/dgx-a100-ib.yaml" --set nodes=2 \
  --model llama3.1-70b --mode train --tp 8 --pp 2
has out "cost (allreduce, NET/Socket): 1 MiB"
has out "note: the socket transport's TCP copies"
has out "plan (Llama-3.1-70B train, tp=8 pp=2 dp=1, step time): "
expect 1 "$linksim" diagnose "$log03" --topo "$src/topologies/dgx-a100-ib.yaml" --set nodes=2 \
  --model llama3.1-70b --mode decode --tp 8 --pp 2 --json
python3 - "$tmp/out" <<'PY' || failures=$((failures + 1))
import json, sys
d = json.load(open(sys.argv[1]))
for key in ("p2p-disabled", "socket-instead-of-ib"):
    f = next(f for f in d["findings"] if f["key"] == key)
    c = f["cost"]
    assert set(c) == {"collective", "setting", "note", "sizes", "plan"}, c
    p = c["plan"]
    assert p["metric"] == "tpot" and p["mode"] == "decode" and p["layout"] == "tp=8 pp=2 dp=1", p
    assert p["logged_s"] >= p["best_s"] > 0 and p["error"] is None, p
PY
# A plan's flags need the machine and a model; a plan the machine cannot run is refused.
expect 2 "$linksim" diagnose "$log03" --model llama3.1-70b --mode train
has err "error: --model and the plan's flags: expected the machine to plan on, got none (give it with --topo FILE)"
expect 2 "$linksim" diagnose "$log03" --topo "$src/topologies/dgx-a100-ib.yaml" --mode train
has err "expected a model: --model NAME or --arch SPEC"
expect 2 "$linksim" diagnose "$log03" --topo "$src/topologies/dgx-a100-ib.yaml" --model llama3.1-70b --mode train --tp 3
expect 2 "$linksim" diagnose "$log03" --topo "$src/topologies/dgx-a100-ib.yaml" --model llama3.1-70b --mode train --search
has err "--search and --sensitivity: expected a plan to cost the faults on"
expect 2 "$linksim" diagnose "$log03" --topo "$src/topologies/dgx-a100-ib.yaml" --model llama3.1-70b --mode fly
has err "--mode: expected one of train, prefill, decode, got \"fly\""

# accept --check --log: a shortfall's likeliest mechanism is the fault diagnose finds in the
# run's log (the four A40s of table 06, P2P disabled; the log as NCCL 2.16 prints it).
t06="$src/data/validation/nccl-tests/06-a40x4-sys-p2pdisable-allreduce-llminsights.txt"
a40="$src/topologies/a40-8gpu-nvlink-pairs.yaml"
expect 1 "$linksim" accept --topo "$a40" --gpus 0,1,6,7 --check "$t06" --log "$data/a40x4-p2pdisable-sys.log"
has out "likeliest: (from the log) p2p-disabled: "
has out "a40x4-p2pdisable-sys.log line 6: a40:7001:7101 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1."
expect 1 "$linksim" accept --topo "$a40" --gpus 0,1,6,7 --check "$t06" --log "$data/a40x4-p2pdisable-sys.log" --json
python3 - "$tmp/out" <<'PY' || failures=$((failures + 1))
import json, sys
d = json.load(open(sys.argv[1]))
bad = [r for r in d["rows"] if not r["passed"]]
assert bad, d
for r in bad:
    assert r["likeliest"]["key"] == "p2p-disabled" and r["likeliest"]["source"] == "log", r
    assert r["likeliest"]["predicted_busbw_GBps"] > 0, r
PY
# Without the log the modelled suspects answer.
expect 1 "$linksim" accept --topo "$a40" --gpus 0,1,6,7 --check "$t06" --json
python3 - "$tmp/out" <<'PY' || failures=$((failures + 1))
import json, sys
d = json.load(open(sys.argv[1]))
assert all(r["likeliest"]["source"] == "model" for r in d["rows"] if not r["passed"]), d
PY
# Bad --log: not with a sheet, not a log, a log of more ranks than the machine has.
expect 2 "$linksim" accept --topo "$a40" --log "$data/a40x4-p2pdisable-sys.log"
has err "--log: expected with --check (the run's log explains its shortfalls), got a sheet to write"
expect 2 "$linksim" accept --topo "$a40" --gpus 0,1,6,7 --check "$t06" --log "$data/nccl-tests-table.log"
has err "nccl-tests-table.log:1:1: error: expected an NCCL_DEBUG=INFO log"
expect 2 "$linksim" accept --topo "$src/topologies/dual-4090.yaml" --check "$t06" --collective all_reduce --log "$log03"
has err "error: --log: the log puts rank 2 on GPU 2 of node 0; the topology 'dual-4090' has no such GPU"

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
