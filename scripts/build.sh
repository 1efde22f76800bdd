#!/usr/bin/env bash
# Configures and builds linksim into build/ (the CLI lands at build/linksim).
# Usage: scripts/build.sh [target...]   no target: everything (library, CLI, tests, benchmarks);
#        e.g. scripts/build.sh linksim_cli builds only the CLI and the library it links.
# A compiler launcher is taken from CMAKE_CXX_COMPILER_LAUNCHER in the environment, or ccache when
# installed (scripts/setup.sh installs it): the test suite's `pip install .` then rebuilds the
# library from this tree's objects in seconds instead of compiling it a second time (both name
# paths relative to the source tree and leave the build directory out of ccache's hash).
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if [[ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]] && command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j "$(nproc)" "${targets[@]}"
