#!/usr/bin/env bash
# Runs the whole test suite (doctest cases and CLI checks) through ctest, then the concurrency
# tests under ThreadSanitizer in their own tree, build-tsan (the library and that one binary;
# LINKSIM_SKIP_TSAN=1 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build --output-on-failure -j "$(nproc)" --no-tests=error

if [[ "${LINKSIM_SKIP_TSAN:-0}" != 1 ]]; then
  launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLINKSIM_TSAN=ON \
    -DLINKSIM_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
  cmake --build build-tsan -j "$(nproc)" --target linksim_tsan_tests
  TSAN_OPTIONS="halt_on_error=1" build-tsan/tests/linksim_tsan_tests
fi
