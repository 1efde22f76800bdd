#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `--nccl-debug` on `coll` and `plan`: NCCL's log lines go to stderr and leave stdout as it was;
# each machine shows its real transport (NVLink P2P, SHM, NET/IB with GDRDMA); the choice printed
# per size is the one `coll --json` reports; every Channel line visits every rank once.
# Usage: bash nccl_debug.sh <linksim-binary> <source-dir>
set -u
cli=$1
topo=$2/topologies
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "FAIL: $1"
  failures=$((failures + 1))
}

# The "via ..." part of every transport line.
vias() { grep -o ' via .*$' "$1" | sort | uniq -c; }

# coll_log <name> <args...>: stdout to $tmp/<name>.out, the log to $tmp/<name>.log.
coll_log() {
  local name=$1
  shift
  if ! "$cli" coll "$@" --nccl-debug >"$tmp/$name.out" 2>"$tmp/$name.log"; then
    fail "linksim coll $* --nccl-debug exited with $?"
  fi
}

# Every line carries NCCL's INFO marker after the synthetic host:pid:tid [dev] prefix.
check_prefix() {
  if grep -vqE '^linksim:[0-9]+:[0-9]+ \[[0-9]+\] NCCL INFO ' "$tmp/$1.log"; then
    fail "$1: a log line without the 'linksim:S:R [D] NCCL INFO ' prefix"
  fi
}

# Every "Channel NN/CC :" ring line lists each of the N ranks exactly once.
check_rings() {  # check_rings <name> <ranks>
  local name=$1 n=$2 bad
  bad=$(grep -E 'NCCL INFO Channel [0-9]+/[0-9]+ : ' "$tmp/$name.log" | grep -v ' via ' |
    sed 's/.*NCCL INFO Channel [0-9]*\/[0-9]* ://' |
    awk -v n="$n" '{ if (NF != n) { print; next } delete s; for (i = 1; i <= NF; i++) s[$i] = 1;
                     for (r = 0; r < n; r++) if (!(r in s)) { print; break } }')
  [[ -z $bad ]] || fail "$name: ring lines that do not visit every rank once: $bad"
  grep -qE 'NCCL INFO Channel 00/[0-9]+ : ' "$tmp/$name.log" || fail "$name: no ring line"
}

# DGX H100: every hop P2P over NVLink.
coll_log h100 allreduce --topo "$topo/dgx-h100.yaml" -b 8 -e 1G -f 8 --json
check_prefix h100
grep -q 'NCCL INFO comm dgx-h100 rank 7 nRanks 8 nNodes 1 localRanks 8 localRank 7 MNNVL 0$' \
  "$tmp/h100.log" || fail "dgx-h100: no init line for rank 7"
check_rings h100 8
[[ $(vias "$tmp/h100.log" | awk '{print $3}' | sort -u) == "P2P/CUMEM" ]] ||
  fail "dgx-h100: expected every hop via P2P/CUMEM, got: $(vias "$tmp/h100.log")"
grep -q 'Pattern 4, crossNic 0, nChannels [0-9]*, bw [0-9.]*/[0-9.]*, type NVL/PIX' "$tmp/h100.log" ||
  fail "dgx-h100: no 'type NVL/PIX' ring graph line"

# stdout stays the JSON document alone; and the choice per size in the log is the JSON's.
python3 - "$tmp/h100.out" "$tmp/h100.log" <<'PY' || fail "dgx-h100: log choices differ from --json"
import json, re, sys
doc = json.load(open(sys.argv[1]))
names = {"Ring": "ring", "Tree": "tree", "NVLS": "nvls", "NVLSTree": "nvls_tree", "Direct": "direct"}
logged = {}
for line in open(sys.argv[2]):
    m = re.search(r"AllReduce: (\d+) Bytes -> algorithm (\S+) protocol (\S+) nchannels", line)
    if m:
        logged[int(m.group(1))] = (names[m.group(2)], m.group(3))
rows = {r["size_bytes"]: (r["algorithm"], r["protocol"]) for r in doc["results"]}
if not rows or logged != rows:
    print("json:", rows)
    print("log: ", logged)
    sys.exit(1)
PY

# Without the flag stdout is the same and stderr is empty.
"$cli" coll allreduce --topo "$topo/dgx-h100.yaml" -b 8 -e 1G -f 8 --json >"$tmp/plain.out" \
  2>"$tmp/plain.err"
cmp -s "$tmp/plain.out" "$tmp/h100.out" || fail "--nccl-debug changed coll's stdout"
[[ ! -s $tmp/plain.err ]] || fail "coll without --nccl-debug wrote to stderr"

# pcie-8gpu: GPUs under one PCIe switch use P2P; the socket crossing goes through host memory.
coll_log pcie allgather --topo "$topo/pcie-8gpu.yaml" --size 64M
check_rings pcie 8
grep -q ' via SHM/direct/direct$' "$tmp/pcie.log" || fail "pcie-8gpu: no SHM hop"
grep -q ' via P2P/CUMEM$' "$tmp/pcie.log" || fail "pcie-8gpu: no P2P hop"
grep -q 'type SYS/PIX' "$tmp/pcie.log" || fail "pcie-8gpu: the ring graph is not 'type SYS/PIX'"

# dual-4090 (no P2P): every hop SHM.
coll_log r4090 allreduce --topo "$topo/dual-4090.yaml" --size 1M
check_rings r4090 2
[[ $(vias "$tmp/r4090.log" | awk '{print $3}' | sort -u) == "SHM/direct/direct" ]] ||
  fail "dual-4090: expected every hop via SHM/direct/direct, got: $(vias "$tmp/r4090.log")"

# Two DGX H100 servers: NVLink inside, NET/IB with GPUDirect RDMA between them.
coll_log ib allreduce --topo "$topo/dgx-h100-ib.yaml" --set nodes=2 --size 256M
check_rings ib 16
grep -q '\[send\] via NET/IB/' "$tmp/ib.log" || fail "dgx-h100-ib: no NET send line"
grep -q '\[receive\] via NET/IB/' "$tmp/ib.log" || fail "dgx-h100-ib: no NET receive line"
if grep ' via NET/' "$tmp/ib.log" | grep -qv '/GDRDMA$'; then
  fail "dgx-h100-ib: a NET hop without GDRDMA"
fi
if grep ' via ' "$tmp/ib.log" | grep -v ' via NET/' | grep -qv ' via P2P/CUMEM$'; then
  fail "dgx-h100-ib: an intra-server hop that is not P2P"
fi

# plan: one communicator per group, each with its rings and the plan's own choice.
plan_args=(--topo "$topo/dgx-h100.yaml" --model llama3.1-70b --mode decode --tp 8)
"$cli" plan "${plan_args[@]}" --nccl-debug --json >"$tmp/plan.out" 2>"$tmp/plan.log" ||
  fail "linksim plan --nccl-debug exited with $?"
"$cli" plan "${plan_args[@]}" --json >"$tmp/plan-plain.out" 2>/dev/null
cmp -s "$tmp/plan.out" "$tmp/plan-plain.out" || fail "--nccl-debug changed plan's stdout"
grep -q 'NCCL INFO comm tp (gpu0-7) rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0' \
  "$tmp/plan.log" || fail "plan: no init line for the tp group"
check_rings plan 8
python3 - "$tmp/plan.out" "$tmp/plan.log" <<'PY' || fail "plan: log choice differs from --json"
import json, re, sys
doc = json.load(open(sys.argv[1]))
names = {"Ring": "ring", "Tree": "tree", "NVLS": "nvls", "NVLSTree": "nvls_tree", "Direct": "direct"}
logged = set()
for line in open(sys.argv[2]):
    m = re.search(r"(\w+): (\d+) Bytes -> algorithm (\S+) protocol (\S+) nchannels", line)
    if m:
        logged.add((int(m.group(2)), names[m.group(3)], m.group(4)))
comms = {(round(c["bytes"]), c["algorithm"], c["protocol"]) for c in doc["comms"] if c["kind"] == "tp"}
if not comms or not comms <= logged:
    print("json:", comms)
    print("log: ", logged)
    sys.exit(1)
PY

err=$("$cli" plan "${plan_args[@]}" --search --nccl-debug 2>&1 >/dev/null)
status=$?
want='linksim: error: --search and --nccl-debug: expected one of them, got both'
[[ $status -eq 2 && ${err%%$'\n'*} == "$want" ]] ||
  fail "plan --search --nccl-debug: got status $status: $err"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "nccl-debug: all checks passed"
