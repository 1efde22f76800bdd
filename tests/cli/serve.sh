#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `linksim serve`: bad input exits with status 2 and one exact "linksim: error: ..." line (or
# file:line:column for a trace); a good run prints the latency table, and --json every key of
# the documented contract (docs/cli.md#linksim-serve); plan --engine names its engine.
# Usage: bash serve.sh <linksim-binary> <source-dir>
set -u
cli=$1
src=$2
topo=$src/topologies
data=$src/tests/data/serve
failures=0

fail() {
  echo "FAIL: $1"
  failures=$((failures + 1))
}

expect() {  # expect <status> <first stderr line> <args...>
  local want_status=$1 want=$2
  shift 2
  local err status
  err=$("$cli" serve "$@" 2>&1 >/dev/null)
  status=$?
  err=${err%%$'\n'*}
  if [[ $status -ne $want_status || $err != "$want" ]]; then
    fail "linksim serve $*"
    echo "  got status $status: $err"
    echo "  want status $want_status: $want"
  fi
}

base=(--topo "$topo/dgx-h100.yaml" --model llama3.1-70b --tp 8)

expect 2 'linksim: error: --rate: expected requests/s > 0, got 0' "${base[@]}" --rate 0
expect 2 'linksim: error: --rate: expected requests/s > 0, got -2' "${base[@]}" --rate=-2
expect 2 'linksim: error: --concurrency: expected at least 1 client, got 0' "${base[@]}" --concurrency 0
expect 2 'linksim: error: --input-len: expected a length from 1 to 131071 tokens (--max-model-len), got "0"' \
  "${base[@]}" --rate 1 --input-len 0
expect 2 'linksim: error: --output-len: expected a length from 1 to 131071 tokens (--max-model-len), got "0"' \
  "${base[@]}" --rate 1 --output-len 0
expect 2 'linksim: error: --input-len: expected a length from 1 to 4095 tokens (--max-model-len), got "5000"' \
  "${base[@]}" --rate 1 --input-len 5000 --max-model-len 4096
expect 2 'linksim: error: --input-len + --output-len: expected at most 4096 tokens (--max-model-len), got 4100' \
  "${base[@]}" --rate 1 --input-len 4000 --output-len 100 --max-model-len 4096
expect 2 'linksim: error: --input-len: expected a number of tokens or uniform:A:B, normal:MEAN:SD, lognormal:MU:SIGMA, got "gauss:5:1"' \
  "${base[@]}" --rate 1 --input-len gauss:5:1
expect 2 'linksim: error: --slo: expected ttft as a duration with a unit such as 500ms, got "500"' \
  "${base[@]}" --rate 1 --slo ttft=500,tpot=50ms
expect 2 'linksim: error: --slo: expected tpot as a duration with a unit such as 500ms, got "50GB"' \
  "${base[@]}" --rate 1 --slo ttft=500ms,tpot=50GB
expect 2 'linksim: error: --slo: expected ttft=DURATION, tpot=DURATION or pct=P, got "tbt=5ms"' \
  "${base[@]}" --rate 1 --slo tbt=5ms
expect 2 'linksim: error: --max-rate: expected an --slo to meet, got none' "${base[@]}" --max-rate
expect 2 'linksim: error: --rate-sweep: expected FROM:TO:STEP in requests/s with 0 < FROM <= TO and STEP > 0, got "5:1:1"' \
  "${base[@]}" --rate-sweep 5:1:1
expect 2 'linksim: error: --engine: expected one of vllm, sglang, trtllm, lmdeploy, hf, llama.cpp, got "tgi"' \
  "${base[@]}" --rate 1 --engine tgi
expect 2 'linksim: error: --engine: expected trtllm@RELEASE with RELEASE one of 0.5.0, 0.6.1, got "trtllm@0.9"' \
  "${base[@]}" --rate 1 --engine trtllm@0.9
expect 2 'linksim: error: --allreduce: expected one of nccl, custom, got "mpi"' \
  "${base[@]}" --rate 1 --allreduce mpi
expect 2 'linksim: error: --engine-overhead: expected a duration such as "2 ms" or "500 us", got "3"' \
  "${base[@]}" --rate 1 --engine-overhead 3
expect 2 'linksim: error: --rate, --concurrency and --trace: expected one of them, got more' \
  "${base[@]}" --rate 1 --concurrency 4
expect 2 'linksim: error: --enable-prefix-caching: prefix caching is not modelled (docs/serving.md#not-modelled)' \
  "${base[@]}" --rate 1 --enable-prefix-caching
expect 2 'linksim: error: --speculative-model: speculative decoding is not modelled (docs/serving.md#not-modelled)' \
  "${base[@]}" --rate 1 --speculative-model llama3.2-1b
expect 2 'linksim: error: --enable-lora: LoRA adapters are not modelled (docs/serving.md#not-modelled)' \
  "${base[@]}" --rate 1 --enable-lora
expect 2 'linksim: error: --mode: serve runs prefill and decode together; expected no --mode' \
  "${base[@]}" --rate 1 --mode decode
expect 2 "$data/trace_malformed.csv:3:5: error: expected input tokens, got 'abc'" \
  "${base[@]}" --trace "$data/trace_malformed.csv"
expect 2 "$data/trace_out_of_order.csv:3:1: error: arrival times out of order: 0.5 s after 0.8 s on the row above" \
  "${base[@]}" --trace "$data/trace_out_of_order.csv"
expect 2 "$data/trace_too_long.csv:3:5: error: 9000 prompt + 10 output tokens exceed the context of 8192 tokens (max_model_len)" \
  "${base[@]}" --trace "$data/trace_too_long.csv" --max-model-len 8192

# A good run: the text blocks, then every key of the JSON contract.
out=$("$cli" serve "${base[@]}" --rate 2 --requests 200 --input-len 512 --output-len 64 2>&1)
if [[ $? -ne 0 ]]; then
  fail "serve on dgx-h100: $out"
else
  for block in 'latency (ms)' TTFT TPOT ITL E2E throughput 'KV cache' 'iteration time'; do
    [[ $out == *"$block"* ]] || fail "text output lacks \"$block\""
  done
fi

json=$("$cli" serve "${base[@]}" --rate 2 --requests 200 --input-len 512 --output-len 64 \
  --slo ttft=500ms,tpot=50ms --rate-sweep 1:3:1 --json 2>&1)
if [[ $? -ne 0 ]]; then
  fail "--json: $json"
else
  check=$(python3 - "$json" <<'PY'
import json, sys
doc = json.loads(sys.argv[1])
stats = ["mean", "p50", "p90", "p99"]
def missing_in(obj, where):
    need = {k: stats for k in ["ttft_s", "tpot_s", "itl_s", "e2e_s"]}
    need["throughput"] = ["requests_per_s", "output_tokens_per_s", "output_tokens_per_s_per_gpu"]
    need["kv"] = ["blocks", "utilization_mean", "preemptions"]
    out = [f"{where}{p}.{k}" for p, keys in need.items() for k in keys
           if p not in obj or k not in obj[p]]
    out += [f"{where}{k}" for k in ["goodput_requests_per_s", "slo_attainment", "requests",
                                     "engine", "rate_requests_per_s"] if k not in obj]
    return out
missing = missing_in(doc, "")
if len(doc.get("sweep", [])) != 3:
    missing.append("sweep (3 rates)")
for i, point in enumerate(doc.get("sweep", [])):
    missing += missing_in(point, f"sweep[{i}].")
if doc.get("engine") != "vllm" or doc.get("requests") != 200:
    missing.append("engine vllm, requests 200")
print(" ".join(missing))
PY
)
  [[ -z $check ]] || fail "--json lacks: $check"
fi

# A trace, the per-request CSV and --max-rate.
csv=$(mktemp)
out=$("$cli" serve "${base[@]}" --trace "$data/trace_good.csv" --requests-csv "$csv" 2>&1) || fail "--trace: $out"
[[ $(wc -l <"$csv") -eq 5 ]] || fail "--requests-csv: expected a header and 4 rows, got $(wc -l <"$csv") lines"
rm -f "$csv"
out=$("$cli" serve "${base[@]}" --max-rate --slo ttft=2s,tpot=100ms,pct=90 --requests 300 2>&1)
[[ $? -eq 0 && $out == *"max rate meeting the SLO"* ]] || fail "--max-rate: $out"

# --degrade (a fault, docs/cli.md#degrade): an NVSwitch missing slows the TP=8 all-reduce, so
# every decode step and the mean TPOT; a device the machine lacks is refused.
tpot() { "$cli" serve --topo "$topo/dgx-h100.yaml" --model llama3.1-70b --tp 8 --rate 2 --requests 200 --json "$@" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["tpot_s"]["mean"])'; }
healthy=$(tpot)
degraded=$(tpot --degrade nvswitch0:missing)
python3 -c "import sys; sys.exit(0 if float('$degraded') > float('$healthy') else 1)" ||
  fail "--degrade nvswitch0:missing: TPOT $degraded s is not above the healthy $healthy s"
expect 2 "linksim: error: --degrade: 'nvswitch9:missing': expected a device of dgx-h100, got 'nvswitch9'; did you mean 'nvswitch0'?" \
  --topo "$topo/dgx-h100.yaml" --model llama3.1-70b --tp 8 --rate 2 --degrade nvswitch9:missing

# plan --engine: named in the output, none by default.
out=$("$cli" plan --topo "$topo/dgx-h100.yaml" --model llama3.1-70b --tp 8 --mode decode 2>&1)
[[ $out == *"engine"*"none"* ]] || fail "plan: default engine none not printed"
out=$("$cli" plan --topo "$topo/dgx-h100.yaml" --model llama3.1-70b --tp 8 --mode decode --engine vllm --json 2>&1)
[[ $out == *'"engine": "vllm"'* ]] || fail "plan --engine vllm --json: $out"

# An engine with no host time and NCCL's all-reduce is the kernels alone: plan's numbers as
# before engines existed (CUDA graphs are the inference default either way).
step() { "$cli" plan --topo "$topo/dgx-h100.yaml" --model llama3.1-70b --tp 8 --mode decode --json "$@" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["step_time_s"])'; }
bare=$(step --engine vllm --engine-overhead 0ms --allreduce nccl)
none=$(step)
[[ -n $none && $bare == "$none" ]] || fail "vllm without overhead and custom all-reduce ($bare) differs from none ($none)"
expect_plan_status=$("$cli" plan --topo "$topo/dgx-h100.yaml" --model llama3.1-70b --tp 8 --mode train --engine vllm 2>&1 >/dev/null)
[[ $expect_plan_status == 'linksim: error: --engine: expected --mode prefill or decode, got --mode train' ]] ||
  fail "plan --mode train --engine vllm: $expect_plan_status"

# plan --engine NAME@RELEASE: the release's mechanisms (eager launches, NCCL, unfused gate/up)
# make TensorRT-LLM 0.6.1's step slower than today's trtllm; an unknown release is refused.
old_step=$(step --engine trtllm@0.6.1)
new_step=$(step --engine trtllm)
python3 -c "import sys; sys.exit(0 if float('$old_step') > float('$new_step') else 1)" ||
  fail "plan --engine trtllm@0.6.1 ($old_step) not slower than trtllm ($new_step)"
out=$("$cli" plan --topo "$topo/dgx-h100.yaml" --model llama3.1-70b --tp 8 --mode decode --engine trtllm@0.6.1 --json 2>&1)
[[ $out == *'"engine": "trtllm@0.6.1"'* ]] || fail "plan --engine trtllm@0.6.1 --json: $out"
bad_release=$("$cli" plan --topo "$topo/dgx-h100.yaml" --model llama3.1-70b --tp 8 --mode decode --engine vllm@0.1 2>&1 >/dev/null)
status=$?
[[ $status -eq 2 && $bad_release == 'linksim: error: --engine: expected vllm@RELEASE with RELEASE one of 0.7.2, got "vllm@0.1"' ]] ||
  fail "plan --engine vllm@0.1: status $status: $bad_release"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "serve: all passed"
