#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/, in build-asan) and runs each for a bounded time
# with its seeds (tests/fuzz/seeds.txt) and the dictionary (tests/fuzz/linksim.dict). Fails when
# any target reports a crash, an uncaught exception, a sanitizer report, a leak, an input over
# the time limit or one over the memory limit; the input is saved as build-asan/fuzz/NAME-*.
# The corpus grows in build-asan/fuzz/corpus/NAME across runs. docs/testing.md#fuzzing.
#
# Usage: scripts/fuzz.sh [seconds-per-target] [target...]   (default 20 s, every target)
#   LINKSIM_FUZZ_JOBS       targets run at once (default: the number of cores, at most 2)
#   LINKSIM_FUZZ_TIMEOUT    seconds one input may take (default 10)
#   LINKSIM_FUZZ_NO_BUILD=1 use the targets already built
# Prints one line per target: executions, corpus size, and whether it found anything.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
build=build-asan
out=$build/fuzz
jobs=${LINKSIM_FUZZ_JOBS:-$(( $(nproc) < 2 ? $(nproc) : 2 ))}
timeout_s=${LINKSIM_FUZZ_TIMEOUT:-10}

declare -A seed_globs
while read -r name globs; do
  [[ -z $name || $name == \#* ]] && continue
  seed_globs[$name]=$globs
done < tests/fuzz/seeds.txt
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  mapfile -t targets < <(printf '%s\n' "${!seed_globs[@]}" | sort)
fi

if [[ "${LINKSIM_FUZZ_NO_BUILD:-0}" != 1 ]]; then
  bash scripts/build_asan.sh "${targets[@]/#/fuzz_}"
fi

run_target() {  # run_target NAME: fuzzes NAME for $seconds s; its status is the fuzzer's
  local name=$1
  local seeds=$out/seeds/$name corpus=$out/corpus/$name
  rm -rf "$seeds"
  mkdir -p "$seeds" "$corpus"
  local file
  # shellcheck disable=SC2086  # the globs are meant to expand
  for file in ${seed_globs[$name]}; do
    [[ -f $file ]] && cp "$file" "$seeds/${file//\//_}"
  done
  # Coverage instrumentation of the whole library, sanitizers on; leaks are checked per input.
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/tests/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout="$timeout_s" \
      -rss_limit_mb=2048 -dict=tests/fuzz/linksim.dict -print_final_stats=1 \
      -seed="${LINKSIM_FUZZ_SEED:-1}" \
      -artifact_prefix="$out/$name-" "$corpus" "$seeds" >"$out/$name.log" 2>&1
}

summary() {  # summary NAME STATUS: one line from the fuzzer's final statistics
  local name=$1 status=$2 log=$out/$1.log
  local runs corpus verdict=ok
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corpus=$(find "$out/corpus/$name" -type f | wc -l)
  if [[ $status -ne 0 ]]; then
    verdict="FOUND: $(grep -m1 -E '^==[0-9]+== ?ERROR|^SUMMARY|runtime error|linksim fuzz finding|uncaught|Timeout|out-of-memory|deadly signal' "$log" || echo "exit $status") (see $log)"
  fi
  printf '%-16s %12s runs  %6s corpus  %s\n' "$name" "${runs:-?}" "$corpus" "$verdict"
}

mkdir -p "$out"
echo "fuzz: ${#targets[@]} targets, $seconds s each, $jobs at a time"
declare -A pid_of
failed=0
for name in "${targets[@]}"; do
  [[ -n ${seed_globs[$name]:-} ]] || { echo "fuzz: $name is not in tests/fuzz/seeds.txt" >&2; exit 2; }
  while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do wait -n || true; done
  run_target "$name" &
  pid_of[$name]=$!
done
for name in "${targets[@]}"; do
  status=0
  wait "${pid_of[$name]}" || status=$?
  summary "$name" "$status"
  [[ $status -eq 0 ]] || failed=1
done
exit $failed
