#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every broken topology in tests/data/errors/ makes `linksim topo show` exit with status 2 and
# print "<file>:<line>:<col>: error: ..." first on stderr (docs/topology-format.md#errors).
# Usage: bash topology_errors.sh <linksim-binary> <source-dir>
set -u
cli=$1
source_dir=$2
failures=0
checked=0

expect_error() {  # expect_error <file> [extra args...]
  local file=$1
  shift
  local stderr status first rest
  stderr=$("$cli" topo show "$file" "$@" 2>&1 >/dev/null)
  status=$?
  first=${stderr%%$'\n'*}
  checked=$((checked + 1))
  if [[ $status -ne 2 ]]; then
    echo "FAIL: $file $*: exit status $status, expected 2; stderr: $first"
    failures=$((failures + 1))
    return
  fi
  if [[ $first != "$file:"* ]]; then
    echo "FAIL: $file $*: stderr does not start with the file name: $first"
    failures=$((failures + 1))
    return
  fi
  rest=${first#"$file:"}
  if ! [[ $rest =~ ^[0-9]+:[0-9]+:\ error:\  ]]; then
    echo "FAIL: $file $*: expected <line>:<col>: error: after the file name: $first"
    failures=$((failures + 1))
  fi
}

for file in "$source_dir"/tests/data/errors/*.yaml; do
  case ${file##*/} in
    unknown_set.yaml) expect_error "$file" --set nodez=2 ;;
    *) expect_error "$file" ;;
  esac
done

if [[ $checked -lt 20 ]]; then
  echo "FAIL: only $checked error files found under $source_dir/tests/data/errors"
  failures=$((failures + 1))
fi
echo "$checked error files checked, $failures failures"
[[ $failures -eq 0 ]]
