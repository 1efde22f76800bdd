#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The include check (scripts/check_layering.py, docs/architecture.md#layers): the source tree
# has no include of a module above the includer, and the check does flag one.
# Usage: bash layering.sh <linksim-binary> <source-dir>
set -u
src=$2
command -v python3 >/dev/null || { echo "python3 is needed to run the include check"; exit 77; }
failures=0

if ! out=$(python3 "$src/scripts/check_layering.py" "$src"); then
  echo "FAIL: upward includes in the source tree:"
  echo "$out"
  failures=$((failures + 1))
fi

expect_check() {  # expect_check <what> <tree> <want output>: status 1 and exactly that line
  local got status
  got=$(python3 "$src/scripts/check_layering.py" "$2")
  status=$?
  if [[ $status -ne 1 || $got != "$3" ]]; then
    echo "FAIL: $1: got status $status: $got"
    echo "  want status 1: $3"
    failures=$((failures + 1))
  fi
}

# A planted upward edge (plan includes a report header) and an unplaced public header.
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/src/plan" "$tree/include/linksim"
printf '#include "linksim/report.hpp"\n' > "$tree/src/plan/step.cpp"
printf '#pragma once\n' > "$tree/include/linksim/report.hpp"
expect_check "planted upward include" "$tree" \
  'src/plan/step.cpp:1: plan includes linksim/report.hpp of report (a layer above)'
printf '#pragma once\n' > "$tree/include/linksim/unplaced.hpp"
expect_check "unplaced public header" "$tree" \
  'public header linksim/unplaced.hpp has no module in scripts/check_layering.py'

# The Python bindings (the top layer) reach the library through its public headers only.
rm "$tree/include/linksim/unplaced.hpp" "$tree/src/plan/step.cpp"
mkdir -p "$tree/src/python"
printf '#include "linksim/report.hpp"\n#include "topology/link_graph.hpp"\n' > "$tree/src/python/binding.cpp"
expect_check "internal header in the bindings" "$tree" \
  'src/python/binding.cpp:2: python includes topology/link_graph.hpp, an internal header of topology (use the public headers, include/linksim/)'

exit $((failures > 0))
