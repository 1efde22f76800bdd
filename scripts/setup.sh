#!/usr/bin/env bash
# Installs the Debian packages linksim builds with, only those that are missing.
# Non-interactive and idempotent; a no-op (under a second) when everything is present.
set -euo pipefail
packages=(g++ cmake ninja-build pkg-config libyaml-cpp-dev doctest-dev libfmt-dev
  libboost-graph-dev libcli11-dev nlohmann-json3-dev libpugixml-dev libbenchmark-dev libspdlog-dev
  libeigen3-dev python3-yaml
  ccache  # reused objects: the pip-install test and rebuilds (scripts/build.sh, docs/testing.md)
  # the Python module and its tests (docs/python.md): pybind11, the headers, pytest, a venv
  # with pip for `pip install .`, pandas and matplotlib for .to_pandas() and the examples
  python3-dev pybind11-dev python3-pybind11 python3-pytest python3-venv python3-setuptools
  python3-pip python3-pandas python3-matplotlib
  chromium  # chromium: the HTML report's browser test (tests/cli/html_report.sh), ~2 min
  clang libclang-rt-dev llvm)  # the sanitizer and fuzzing tree (scripts/build_asan.sh, docs/testing.md)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
