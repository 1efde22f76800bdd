#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fabric at cluster scale (docs/fabrics.md#measured): for dgx-h100-ib.yaml at 1 to 16,384
# servers, what the generator built (`topo show`), the time and peak memory of loading it
# with the router's set-up (`topo matrix`: load, fabric routes, one server's matrix), and a
# 1 GiB AllReduce in analytic and flow modes, which must agree within 1 % on the
# non-blocking fabric. Medians of RUNS runs
# (default 3), wall seconds and peak RSS from /usr/bin/time.
# Usage: bash scripts/bench_fabric.sh [build-dir] [sizes...]
set -euo pipefail
build=${1:-build}
shift || true
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1 2 8 64 1024 4096 8192 16384)
runs=${RUNS:-3}
cli=$build/linksim
topo=$(dirname "$0")/../topologies/dgx-h100-ib.yaml
failures=0

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# Runs "$@" RUNS times: $secs and $mb get the medians of wall time and peak RSS (MiB), $out the
# last run's output.
measure() {
  local times=() mems=() stats
  for ((i = 0; i < runs; i++)); do
    out=$(/usr/bin/time -o "$stats_file" -f "%e %M" "$@")
    read -r stats < "$stats_file"
    times+=("${stats% *}")
    mems+=("$(awk -v kb="${stats#* }" 'BEGIN {printf "%.0f", kb / 1024}')")
  done
  secs=$(printf '%s\n' "${times[@]}" | median)
  mb=$(printf '%s\n' "${mems[@]}" | median)
}
stats_file=$(mktemp)
trap 'rm -f "$stats_file"' EXIT

printf '%7s  %-78s  %14s  %20s  %20s  %s\n' servers fabric "load s / MiB" "analytic us (s/MiB)" \
  "flow us (s/MiB)" agree
for n in "${sizes[@]}"; do
  measure "$cli" topo matrix "$topo" --set nodes="$n"
  load_s=$secs load_mb=$mb
  out=$("$cli" topo show "$topo" --set nodes="$n")
  fabric=$(grep '^fabric:' <<<"$out" | sed 's/^fabric: //' || true)
  [[ -n $fabric ]] || fabric="(one server)"
  measure "$cli" coll allreduce --topo "$topo" --set nodes="$n" -b 1G -e 1G
  an_s=$secs an_mb=$mb
  an_us=$(grep ' 1073741824 ' <<<"$out" | awk '{print $6}')
  measure "$cli" coll allreduce --topo "$topo" --set nodes="$n" -b 1G -e 1G --mode flow
  fl_s=$secs fl_mb=$mb
  fl_us=$(grep ' 1073741824 ' <<<"$out" | awk '{print $6}')
  agree=$(awk -v a="$an_us" -v f="$fl_us" 'BEGIN {d = (f - a) / a; if (d < 0) d = -d; print (d <= 0.01 ? "yes" : "NO")}')
  [[ $agree == yes ]] || failures=$((failures + 1))
  printf '%7s  %-78s  %6s / %5s  %8s (%s/%s)  %8s (%s/%s)  %s\n' "$n" "$fabric" "$load_s" \
    "$load_mb" "$an_us" "$an_s" "$an_mb" "$fl_us" "$fl_s" "$fl_mb" "$agree"
done
if [[ $failures -gt 0 ]]; then
  echo "$failures size(s) where flow and analytic differ by more than 1 %"
  exit 1
fi
