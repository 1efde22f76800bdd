#!/usr/bin/env bash
# Configures and builds linksim into build/ (the CLI lands at build/linksim).
# Usage: scripts/build.sh [target...]   no target: everything (library, CLI, tests, benchmarks);
#        e.g. scripts/build.sh linksim_cli builds only the CLI and the library it links.
# A compiler launcher such as ccache is taken from CMAKE_CXX_COMPILER_LAUNCHER in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j "$(nproc)" "${targets[@]}"
