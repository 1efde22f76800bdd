# Sourced by scripts/bench*.sh. median_run CMD...: runs CMD LINKSIM_BENCH_RUNS times (default
# 3), output discarded, and prints the median wall and CPU (user + sys) seconds and the
# largest peak RSS, from /usr/bin/time. Fails when CMD fails.
median_run() {
  local runs="${LINKSIM_BENCH_RUNS:-3}" walls=() cpus=() peak=0 i out
  for ((i = 0; i < runs; i++)); do
    out=$( { /usr/bin/time -f "%e %U %S %M" "$@" >/dev/null 2>/dev/null; } 2>&1 | tail -1 )
    read -r wall user sys rss <<<"$out"
    walls+=("$wall")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')")
    ((rss > peak)) && peak=$rss
  done
  local mid=$((runs / 2))
  local wall_median cpu_median
  wall_median=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n "$((mid + 1))p")
  cpu_median=$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n "$((mid + 1))p")
  printf 'cpu %s s, wall %s s (medians of %d), peak RSS %.0f MB\n' "$cpu_median" "$wall_median" \
    "$runs" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')"
}
