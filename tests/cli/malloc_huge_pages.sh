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

[[ $failures -eq 0 ]] && echo "ok: restart with huge-page malloc"
exit $((failures > 0))
