# Sourced by scripts/bench*.sh. median_run CMD...: runs CMD LINKSIM_BENCH_RUNS times (default
# 3), output discarded, and prints the median wall and CPU (user + sys) seconds and the
# largest peak RSS, from /usr/bin/time. Prints FAILED and returns 1 when CMD fails.
median_run() {
  local runs="${LINKSIM_BENCH_RUNS:-3}" walls=() cpus=() peak=0 i wall user sys rss
  local report
  report=$(mktemp)
  for ((i = 0; i < runs; i++)); do
    if ! /usr/bin/time -o "$report" -f "%e %U %S %M" "$@" >/dev/null 2>&1; then
      echo "FAILED: $*"
      rm -f "$report"
      return 1
    fi
    read -r wall user sys rss <"$report"
    walls+=("$wall")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')")
    ((rss > peak)) && peak=$rss
  done
  rm -f "$report"
  local mid=$((runs / 2))
  local wall_median cpu_median
  wall_median=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n "$((mid + 1))p")
  cpu_median=$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n "$((mid + 1))p")
  printf 'cpu %s s, wall %s s (medians of %d), peak RSS %.0f MiB\n' "$cpu_median" "$wall_median" \
    "$runs" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')"
}
