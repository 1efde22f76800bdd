#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `linksim plan`: bad flags exit with status 2 and one exact "linksim: error: ..." line; a good
# request prints the breakdown, and --json every key of the documented schema (docs/cli.md).
# Usage: bash plan.sh <linksim-binary> <source-dir>
set -u
cli=$1
topo=$2/topologies
failures=0

fail() {
  echo "FAIL: $1"
  failures=$((failures + 1))
}

expect() {  # expect <status> <first stderr line> <args...>
  local want_status=$1 want=$2
  shift 2
  local err status
  err=$("$cli" plan "$@" 2>&1 >/dev/null)
  status=$?
  err=${err%%$'\n'*}
  if [[ $status -ne $want_status || $err != "$want" ]]; then
    fail "linksim plan $*"
    echo "  got status $status: $err"
    echo "  want status $want_status: $want"
  fi
}

h100=(--topo "$topo/dgx-h100.yaml")
m70b=(--model llama3.1-70b)

expect 2 'linksim: error: --tp: expected a positive integer, got 0' \
  "${h100[@]}" "${m70b[@]}" --mode decode --tp 0
expect 2 'linksim: error: --pp: expected a positive integer, got -2' \
  "${h100[@]}" "${m70b[@]}" --mode train --pp=-2
expect 2 'linksim: error: --micro-batch: expected a positive integer, got 0' \
  "${h100[@]}" "${m70b[@]}" --mode train --micro-batch 0
expect 2 'linksim: error: --mode: expected one of train, prefill, decode, got "infer"' \
  "${h100[@]}" "${m70b[@]}" --mode infer
expect 2 'linksim: error: --mode: expected one of train, prefill, decode; none given' \
  "${h100[@]}" "${m70b[@]}"
expect 2 'linksim: error: --dtype: expected one of bf16, fp16, fp8, got "fp32"' \
  "${h100[@]}" "${m70b[@]}" --mode train --dtype fp32
expect 2 'linksim: error: --weight-dtype: expected one of int4, int8, fp8, bf16, fp16, got "int3"' \
  "${h100[@]}" "${m70b[@]}" --mode decode --weight-dtype int3
expect 2 'linksim: error: --recompute: expected one of none, selective, full, got "some"' \
  "${h100[@]}" "${m70b[@]}" --mode train --recompute some
expect 2 'linksim: error: --tp-overlap: expected one of none, async, got "sync"' \
  "${h100[@]}" "${m70b[@]}" --mode train --tp-overlap sync
expect 2 'linksim: error: --zero: expected 0, 1, 2, 3, fsdp or hsdp, got 4' \
  "${h100[@]}" "${m70b[@]}" --mode train --zero 4
expect 2 'linksim: error: --gemm-efficiency: expected a fraction in (0, 1], got 1.5' \
  "${h100[@]}" "${m70b[@]}" --mode train --gemm-efficiency 1.5
expect 2 'linksim: error: --p2p-level: expected one of LOC, NVL, PIX, PXB, PHB, SYS (or NCCL'"'"'s old 0-5), got "ALL"' \
  "${h100[@]}" "${m70b[@]}" --mode train --p2p-level ALL
expect 2 'linksim: error: --ib-hca: expected NCCL_IB_HCA'"'"'s form [^][=]name[:port][,name[:port]]... (at least one NIC name), got "^="' \
  "${h100[@]}" "${m70b[@]}" --mode train --ib-hca ^=
expect 2 'linksim: error: --sim: expected one of analytic, flow, got "exact"' \
  "${h100[@]}" "${m70b[@]}" --mode train --sim exact
expect 2 'linksim: error: --model and --arch: expected one of them, got both' \
  "${h100[@]}" "${m70b[@]}" --arch layers=2,hidden=64,heads=4,kv_heads=4,ffn=256,ffn_type=gelu,vocab=100 --mode train
expect 2 'linksim: error: expected a model: --model NAME or --arch SPEC' \
  "${h100[@]}" --mode train
expect 2 'linksim: error: --search and --sensitivity: expected one of them, got both' \
  "${h100[@]}" "${m70b[@]}" --mode train --search --sensitivity

# A good plan: the breakdown's blocks, then every documented JSON key.
out=$("$cli" plan "${h100[@]}" "${m70b[@]}" --mode decode --tp 8 2>&1)
if [[ $? -ne 0 ]]; then
  fail "decode on dgx-h100: $out"
else
  for block in Configuration 'Memory per GPU' 'Time per step' Results 'Communication per step'; do
    [[ $out == *"$block"* ]] || fail "text output lacks \"$block\""
  done
fi

json=$("$cli" plan "${h100[@]}" "${m70b[@]}" --mode decode --tp 8 --json 2>&1)
if [[ $? -ne 0 ]]; then
  fail "--json: $json"
else
  check=$(python3 - "$json" <<'PY'
import json, sys
doc = json.loads(sys.argv[1])
need = {
    "": ["model", "mode", "gpus", "parallel", "step_time_s", "tokens_per_s",
         "tokens_per_s_per_gpu", "model_tflops_per_gpu", "mfu", "ttft_s", "tpot_s",
         "comm_compute_ratio", "speedup", "scaling_efficiency", "breakdown", "comms", "memory"],
    "parallel": ["tp", "pp", "dp", "cp", "ep", "sp", "zero", "vpp", "micro_batch",
                 "global_batch", "seq", "batch", "kv_len"],
    "breakdown": ["compute_s", "exposed_comm_s", "bubble_s"],
    "memory": ["weights", "gradients", "optimizer", "activations", "kv_cache", "workspace",
               "total", "capacity", "fits"],
}
missing = [f"{p}.{k}" if p else k for p, keys in need.items()
           for k in keys if k not in (doc[p] if p else doc)]
comm_keys = ["kind", "group_size", "collective", "bytes", "count", "algorithm", "time_s",
             "exposed_s", "bottleneck"]
if not doc["comms"]:
    missing.append("comms[0] (TP=8 decode communicates)")
for c in doc["comms"]:
    missing += [f"comms[].{k}" for k in comm_keys if k not in c]
if doc["mode"] != "decode" or doc["parallel"]["tp"] != 8 or doc["tpot_s"] is None:
    missing.append("decode with tp=8 and a tpot_s")
if doc["ttft_s"] is not None:
    missing.append("ttft_s null in decode")
print(" ".join(missing))
PY
)
  [[ -z $check ]] || fail "--json lacks: $check"
fi

# NCCL maps NCCL_P2P_DISABLE=1 to P2P level LOC: --p2p-level LOC plans as --p2p off does, and
# both stage the TP AllReduces through host memory, slower than the default (NVLink).
tpot() { "$cli" plan "${h100[@]}" "${m70b[@]}" --mode decode --tp 8 "$@" 2>&1 | grep 'time per output token'; }
loc=$(tpot --p2p-level LOC)
off=$(tpot --p2p off)
default=$(tpot)
[[ -n $loc && $loc == "$off" ]] || fail "--p2p-level LOC ($loc) differs from --p2p off ($off)"
[[ $loc != "$default" ]] || fail "--p2p-level LOC did not change the plan ($loc)"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "plan: all passed"
