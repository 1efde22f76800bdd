#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regression checks through the real binary: sweeps that looped or overflowed, out-of-range
# flags, the flag parser's own errors, unreadable inputs and one-rank collectives. Each bad
# request exits 2 with one exact "linksim: error: ..." (or "file: error: ...") first line; every
# input of tests/data/regress/ goes through the commands that read its kind and ends in 0 or 2.
# Usage: bash robustness.sh <linksim-binary> <source-dir>
set -u
cli=$1
src=$2
topo=$src/topologies
regress=$src/tests/data/regress
failures=0

expect() {  # expect <status> <first stderr line> <args...>
  local want_status=$1 want=$2
  shift 2
  local err status
  err=$(timeout 60 "$cli" "$@" 2>&1 >/dev/null)
  status=$?
  err=${err%%$'\n'*}
  if [[ $status -ne $want_status || $err != "$want" ]]; then
    echo "FAIL: linksim $*"
    echo "  got status $status: $err"
    echo "  want status $want_status: $want"
    failures=$((failures + 1))
  fi
}

expect_out() {  # expect_out <glob the stdout must match> <args...>
  local want=$1
  shift
  local out status
  out=$(timeout 60 "$cli" "$@" 2>&1)
  status=$?
  if [[ $status -ne 0 || $out != $want ]]; then
    echo "FAIL: linksim $*"
    echo "  got status $status: $out"
    failures=$((failures + 1))
  fi
}

h100=$topo/dgx-h100.yaml
factor='linksim: error: -f: expected an integer factor >= 2, or 1 to step by -i, got'

# Sweeps: nccl-tests' -f 1 with -b == -e is one size; factors that would loop are refused.
rows=$("$cli" coll allreduce --topo "$h100" -b 1M -e 1M -f 1 --csv | tail -n +2 | wc -l)
if [[ $rows -ne 1 ]]; then
  echo "FAIL: -b 1M -e 1M -f 1 printed $rows rows, want 1"
  failures=$((failures + 1))
fi
expect 2 "$factor -1" coll allreduce --topo "$h100" -b 1M -e 1M -f -1
expect 2 "$factor 0.5" coll allreduce --topo "$h100" -b 1M -e 1M -f 0.5
expect 2 "$factor 1.000001" coll allreduce --topo "$h100" -b 1 -e 1T -f 1.000001
expect 2 'linksim: error: the sweep has 1073741824 sizes; expected at most 10000 (--max-rows raises the limit)' \
  coll allreduce --topo "$h100" -b 1 -e 1G -f 1 -i 1
expect 2 'linksim: error: -b: expected a size such as 8, 64K, 1M or 8G, got "1e300T"' \
  coll allreduce --topo "$h100" -b 1e300T -e 1e300T
expect 2 'linksim: error: --size: expected a size such as 8, 64K, 1M or 8G, got "1e300T"' \
  coll allreduce --topo "$h100" --size 1e300T
expect 2 'linksim: error: --size: expected a size of at most 8 PiB (2^53 bytes), got "9007199254740993"' \
  coll allreduce --topo "$h100" --size 9007199254740993 -d int8
expect 2 'linksim: error: -b: expected a size > 0 to multiply by -f 2 up to -e (0 x 2 stays 0), got 0; -f 1 -i STEP steps from 0' \
  coll allreduce --topo "$h100" -b 0 -e 1G
expect 2 "$h100:50:7: error: expected a GPU model with NVLink at gpu0, got rtx4090 (no NVLink) on an nvlink4 link to nvswitch0" \
  coll allreduce --topo "$h100" --set gpu=rtx4090 --size 1G
expect 2 "$regress/utf8_device_name.yaml:7:18: error: expected UTF-8 text, got byte 0xff" \
  topo show "$regress/utf8_device_name.yaml" --json
expect 2 "$regress/nccl_xml_pci_65_deep.xml:66:1: error: expected elements nested at most 64 deep, got <pci> at depth 65" \
  topo import nccl-xml "$regress/nccl_xml_pci_65_deep.xml"
expect 2 'linksim: error: --size: expected a size of at most 8 PiB (2^53 bytes), got "1e20"' \
  coll allreduce --topo "$h100" --size 1e20

# Flags out of NCCL's range name the flag.
channels='linksim: error: --channels: expected a channel count (NCCL'"'"'s MAXCHANNELS) between 1 and 64, got'
expect 2 "$channels \"0\"" coll allreduce --topo "$h100" --size 1M --channels 0
expect 2 "$channels \"-1\"" coll allreduce --topo "$h100" --size 1M --channels -1
expect 2 "$channels \"2147483647\"" coll allreduce --topo "$h100" --size 1M --channels 2147483647
expect 2 'linksim: error: --gpus-per-thread: expected a GPU count >= 1, got "0"' \
  coll allreduce --topo "$h100" --size 1M --gpus-per-thread 0

# The flag parser's own errors carry the prefix.
expect 2 'linksim: error: The following argument was not expected: --frob' \
  coll allreduce --topo "$h100" --size 1M --frob

# One rank: no link is the bottleneck.
expect_out '*"bottleneck": "none (a single rank moves no data between GPUs)"*' \
  coll alltoall --topo "$h100" -g 1 --size 1M --json

# Inputs: regular files of bounded size, empty files positioned.
expect 2 "$regress/empty.yaml:1:1: error: expected a mapping at the top level, got an empty file" \
  topo show "$regress/empty.yaml"
expect 2 "$regress: error: expected a regular file, got a directory" topo show "$regress"
expect 2 "/dev/zero: error: expected a regular file, got a device" topo show /dev/zero
expect 2 "/dev/zero: error: expected a regular file, got a device" \
  topo verify "$h100" --against /dev/zero
expect 2 "$regress/include_dev_zero.yaml:2:10: error: include file \"/dev/zero\": expected a regular file, got a device" \
  topo show "$regress/include_dev_zero.yaml"
expect 2 "$regress/nccl_xml_no_gpu.xml:1:1: error: expected a <gpu> (inside a <cpu>'s <pci> tree) in <system>, got none" \
  topo import nccl-xml "$regress/nccl_xml_no_gpu.xml"
expect 2 "$regress/nccl_xml_link_width_15.xml:92:5: error: expected link_width 1, 2, 4, 8 or 16 (a PCIe link width), got 15" \
  topo import nccl-xml "$regress/nccl_xml_link_width_15.xml"
expect 2 "$regress/nic_without_links.yaml:16:14: error: nic0 has no path to gpu0 within the server" \
  coll allreduce --topo "$regress/nic_without_links.yaml" --size 1M
expect 2 "$topo/dgx-h100-ib.yaml:30:1: error: expected at most 4096 NICs for radix 8 with four tiers, got 4800" \
  topo show "$topo/dgx-h100-ib.yaml" --set nodes=600 --set radix=8
expect 2 "$topo/dgx-h100-ib.yaml:29:8: error: expected nodes between 1 and 65536, got 100000" \
  topo show "$topo/dgx-h100-ib.yaml" --set nodes=100000

# Every regression input, through each command that reads its kind, ends in an answer (0) or
# one positioned refusal (2): never an internal error, a signal or a timeout.
survives() {  # survives <args...>
  local err status stderr_file
  stderr_file=$(mktemp)
  timeout 60 "$cli" "$@" >/dev/null 2>"$stderr_file"
  status=$?
  err=$(tr -d '\0' <"$stderr_file")
  rm -f "$stderr_file"
  if [[ ($status -ne 0 && $status -ne 2) || $err == *"internal error"* ]]; then
    echo "FAIL: linksim $*"
    echo "  got status $status: ${err%%$'\n'*}"
    failures=$((failures + 1))
  fi
}
checked=0
for file in "$regress"/*; do
  case $file in
    */scenario_*.yaml) survives run "$file" --list ;;
    *.yaml) survives topo show "$file" --json
            survives coll allreduce --topo "$file" --size 1M --json ;;
    *.xml) survives topo import nccl-xml "$file" ;;
    *.log) survives diagnose "$file" --json ;;
    *topo*m*.txt) survives topo import nvidia-smi "$file" ;;
    *nccl_tests*.txt) survives coll compare "$file" --topo "$topo/dgx-h100.yaml" ;;
    *) continue ;;
  esac
  checked=$((checked + 1))
done
[[ $checked -ge 40 ]] || { echo "FAIL: only $checked regression inputs found in $regress"; failures=$((failures + 1)); }

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "robustness: all passed"
