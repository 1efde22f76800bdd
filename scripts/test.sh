#!/usr/bin/env bash
# Runs the whole test suite (doctest cases and CLI checks) through ctest; then the concurrency
# tests under ThreadSanitizer in their own tree, build-tsan (the library and that one binary;
# LINKSIM_SKIP_TSAN=1 skips it); then the whole suite again under AddressSanitizer and
# UndefinedBehaviorSanitizer in build-asan, and a short run of every fuzz target from that
# tree (LINKSIM_SKIP_ASAN=1 skips both; LINKSIM_FUZZ_SECONDS sets the seconds per target,
# default 20, 0 skips the fuzzing). docs/testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build --output-on-failure -j "$(nproc)" --no-tests=error

if [[ "${LINKSIM_SKIP_TSAN:-0}" != 1 ]]; then
  launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  # A unity build at -O1 with line tables (enough for the reports), as build-asan.
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLINKSIM_TSAN=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_UNITY_BUILD=ON \
    -DLINKSIM_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
  cmake --build build-tsan -j "$(nproc)" --target linksim_tsan_tests
  TSAN_OPTIONS="halt_on_error=1" build-tsan/tests/linksim_tsan_tests
fi

if [[ "${LINKSIM_SKIP_ASAN:-0}" != 1 ]]; then
  bash scripts/build_asan.sh
  # cli.install_example builds a program against the installed library with the default
  # compiler, which cannot link an instrumented library; the main tree runs it.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j "$(nproc)" --no-tests=error \
      -E '^cli\.install_example$'
  seconds=${LINKSIM_FUZZ_SECONDS:-20}
  if [[ $seconds != 0 ]]; then LINKSIM_FUZZ_NO_BUILD=1 bash scripts/fuzz.sh "$seconds"; fi
fi
