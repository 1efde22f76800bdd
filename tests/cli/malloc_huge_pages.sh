#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The CLI restarts itself once with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 when the variable is
# unset (src/cli/malloc_huge_pages.hpp), and not when the user set it: counted by the dynamic
# loader's start-up statistics (LD_DEBUG=statistics prints them once per program start).
# Usage: bash malloc_huge_pages.sh <linksim-binary> <source-dir>
set -u
cli=$1
ldd --version 2>&1 | grep -qi "glibc\|gnu libc" || { echo "glibc is needed for this check"; exit 77; }
failures=0

expect_starts() {  # expect_starts <what> <want program starts> <env assignments...>
  local what=$1 want=$2 got out status
  shift 2
  out=$(env "$@" LD_DEBUG=statistics "$cli" --version 2>&1)
  status=$?
  got=$(grep -c "total startup time" <<<"$out")
  if [[ $status -ne 0 || $got != "$want" || $out != *"linksim "* ]]; then
    echo "FAIL: $what: status $status, $got program starts (want 0 and $want)"
    failures=$((failures + 1))
  fi
}

expect_starts "GLIBC_TUNABLES unset: one restart" 2 -u GLIBC_TUNABLES
expect_starts "GLIBC_TUNABLES set by the user: kept, no restart" 1 GLIBC_TUNABLES=glibc.malloc.hugetlb=0
expect_starts "GLIBC_TUNABLES empty: kept, no restart" 1 GLIBC_TUNABLES=

# The restarted program answers as the first one would.
a=$(env -u GLIBC_TUNABLES "$cli" coll allreduce --topo "$2/topologies/dgx-h100.yaml" -b 1M -e 1G --json)
b=$(env GLIBC_TUNABLES=glibc.malloc.hugetlb=0 "$cli" coll allreduce --topo "$2/topologies/dgx-h100.yaml" -b 1M -e 1G --json)
if [[ -z $a || $a != "$b" ]]; then
  echo "FAIL: the answer differs with and without the restart"
  failures=$((failures + 1))
fi

# The restarted process keeps its name (ps, top): /proc shows its environment and name while a
# flow run of 65,536 GPUs (a few tenths of a second) is under way.
if [[ -r /proc/self/comm ]]; then
  env -u GLIBC_TUNABLES "$cli" coll allreduce --topo "$2/topologies/dgx-h100-ib.yaml" \
    --set nodes=8192 -b 1G -e 1G --mode flow >/dev/null &
  pid=$!
  seen=""
  while kill -0 "$pid" 2>/dev/null; do
    mapfile -d '' environment <"/proc/$pid/environ" 2>/dev/null
    if [[ " ${environment[*]} " == *" GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "* ]]; then
      read -r seen <"/proc/$pid/comm" 2>/dev/null
      break
    fi
  done
  wait "$pid"
  if [[ -n $seen && $seen != linksim* ]]; then
    echo "FAIL: after the restart the process is named '$seen' (want linksim)"
    failures=$((failures + 1))
  elif [[ -z $seen ]]; then
    echo "FAIL: the restarted process was not seen in /proc"
    failures=$((failures + 1))
  fi
fi

[[ $failures -eq 0 ]] && echo "ok: restart with huge-page malloc"
exit $((failures > 0))
