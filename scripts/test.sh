#!/usr/bin/env bash
# Runs the whole test suite (doctest cases and CLI checks) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build --output-on-failure -j "$(nproc)" --no-tests=error
