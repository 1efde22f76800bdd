#!/usr/bin/env bash
# Configures and builds the AddressSanitizer + UndefinedBehaviorSanitizer tree, build-asan/:
# clang, -O1, a unity build, every source also instrumented for libFuzzer, so one tree holds
# the instrumented suite (linksim_cli, linksim_tests) and the fuzz targets (tests/fuzz/); no
# benchmarks. docs/testing.md describes it.
# Usage: scripts/build_asan.sh [target...]   default: linksim_cli linksim_tests linksim_fuzzers
# A compiler launcher such as ccache is taken from CMAKE_CXX_COMPILER_LAUNCHER in the environment,
# or ccache when installed.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if [[ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]] && command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build-asan -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_UNITY_BUILD=ON -DLINKSIM_TEST_PCH=ON -DLINKSIM_ASAN_UBSAN=ON -DLINKSIM_FUZZ=ON -DLINKSIM_BUILD_BENCH=OFF \
  "${launcher[@]}" >/dev/null
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(linksim_cli linksim_tests linksim_fuzzers)
args=()
for t in "${targets[@]}"; do args+=(--target "$t"); done
cmake --build build-asan -j "$(nproc)" "${args[@]}"
