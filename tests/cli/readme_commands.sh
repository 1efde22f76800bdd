#!/usr/bin/env bash
# README.md's two set-up commands: the first builds only the CLI and runs the demo, the second
# builds everything and runs the tests, and .ci/run runs exactly the second.
# Usage: bash readme_commands.sh <linksim-binary> <source-dir>
set -u
src=$2
fail() { echo "FAIL: $*"; exit 1; }

# The first two lines that follow a ```sh fence.
mapfile -t commands < <(awk '/^```sh$/ { getline; print }' "$src/README.md" | head -n 2)
[ "${#commands[@]}" -eq 2 ] || fail "README.md: expected two set-up commands"
[ "${commands[0]}" = "bash scripts/setup.sh && bash scripts/build.sh linksim_cli && bash scripts/demo.sh" ] ||
  fail "first command: ${commands[0]}"
[ "${commands[1]}" = "bash scripts/setup.sh && bash scripts/build.sh && bash scripts/test.sh" ] ||
  fail "second command: ${commands[1]}"
ci=$(grep -v '^#' "$src/.ci/run" | grep -v '^set ' | grep -v '^cd ' | grep -v '^$')
[ "$ci" = "${commands[1]}" ] || fail ".ci/run runs \"$ci\", not README's second command"

# The demo needs only build/linksim, the target the first command builds.
grep -q '^cli=build/linksim$' "$src/scripts/demo.sh" || fail "scripts/demo.sh does not run build/linksim"
echo "README command checks passed"
