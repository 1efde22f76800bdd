#!/usr/bin/env bash
# Installs linksim into a temporary prefix, builds examples/allreduce_sweep against it with
# find_package(linksim), and checks that the example prints the same AllReduce sweep (size,
# time, algbw, busbw, algorithm, protocol) as `linksim coll allreduce` for the same machine.
# Usage: bash install_example.sh <linksim-binary> <source-dir>
set -u
linksim=$1
src=$2
build=$(dirname "$linksim")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; fail "cmake --install"; }
for f in include/linksim/collectives.hpp include/linksim/topology_yaml.hpp \
  include/linksim/gpu_selection.hpp lib/cmake/linksim/linksimConfig.cmake bin/linksim; do
  [ -e "$tmp/prefix/$f" ] || fail "not installed: $f"
done

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$src/examples/allreduce_sweep" -B "$tmp/example" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; fail "configuring the example with find_package(linksim)"; }
cmake --build "$tmp/example" >"$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log"; fail "building the example against the installed library"; }

topo="$src/topologies/dgx-h100.yaml"
"$tmp/example/allreduce_sweep" "$topo" 1M 1G 4 >"$tmp/example.txt" || fail "running the example"
"$linksim" coll allreduce --topo "$topo" -b 1M -e 1G -f 4 >"$tmp/cli.txt" || fail "running the CLI"

# Rows only (comment lines start with '#'): size, time, algbw, busbw, algorithm, protocol.
# CLI columns: size count type redop root time algbw busbw algorithm protocol bottleneck...
# Example columns: size count type time algbw busbw algorithm protocol.
grep -v '^#' "$tmp/cli.txt" | awk 'NF { print $1, $6, $7, $8, $9, $10 }' >"$tmp/cli.cols"
grep -v '^#' "$tmp/example.txt" | awk 'NF { print $1, $4, $5, $6, $7, $8 }' >"$tmp/example.cols"
rows=$(wc -l <"$tmp/cli.cols")
# 1M, 4M, 16M, 64M, 256M, 1G: six sizes.
[ "$rows" -eq 6 ] || { cat "$tmp/cli.txt"; fail "expected 6 CLI rows, got $rows"; }
diff "$tmp/cli.cols" "$tmp/example.cols" >"$tmp/diff" ||
  { cat "$tmp/diff"; fail "the example's sweep differs from linksim coll"; }
grep -q '^# dgx-h100: AllReduce on 8 GPUs over 1 server' "$tmp/example.txt" ||
  { cat "$tmp/example.txt"; fail "example header"; }

# Bad input through the library: one ConfigError line, exit status 2.
"$tmp/example/allreduce_sweep" "$tmp/missing.yaml" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "missing topology: expected exit status 2"
grep -q 'missing.yaml' "$tmp/err" || { cat "$tmp/err"; fail "error does not name the file"; }
echo "install + find_package example checks passed"
