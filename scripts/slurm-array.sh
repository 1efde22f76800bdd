#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Submits a scenario to Slurm as a job array, one shard per array task, then a merge job that
# starts when every shard has succeeded (docs/scenario-format.md#running).
#
# Usage: scripts/slurm-array.sh SCENARIO.yaml SHARDS OUT_DIR [sbatch options...]
#   Task i runs `linksim run SCENARIO --shard i/SHARDS --out OUT_DIR/shard-i --resume`
#   (a requeued task skips the cases it already finished); the merge job runs
#   `linksim merge OUT_DIR/shard-0 ... --out OUT_DIR/merged`.
#   Extra arguments go to both sbatch calls (--partition, --account, --time, ...).
#   LINKSIM names the binary (default: build/linksim of this checkout); it and the scenario
#   must be readable from the compute nodes (a shared file system).
# Prints the two job ids.
set -euo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: $0 SCENARIO.yaml SHARDS OUT_DIR [sbatch options...]" >&2
  exit 2
fi
scenario=$(realpath "$1")
shards=$2
out=$(realpath -m "$3")
shift 3
if ! [[ $shards =~ ^[1-9][0-9]*$ ]]; then
  echo "$0: SHARDS: expected a positive integer, got \"$shards\"" >&2
  exit 2
fi
linksim=$(realpath "${LINKSIM:-$(dirname "$0")/../build/linksim}")
if [[ ! -x $linksim ]]; then
  echo "$0: $linksim is not an executable; build it or set LINKSIM" >&2
  exit 2
fi
command -v sbatch >/dev/null || { echo "$0: sbatch not found (is this a Slurm login node?)" >&2; exit 2; }
mkdir -p "$out/logs"

# Validate the scenario once here, so a typo fails now rather than in every array task.
"$linksim" run "$scenario" --list >/dev/null

run_cmd=$(printf '%q run %q --shard ${SLURM_ARRAY_TASK_ID}/%s --out %q/shard-${SLURM_ARRAY_TASK_ID} --resume --jobs ${SLURM_CPUS_PER_TASK:-1} --format csv,json' \
  "$linksim" "$scenario" "$shards" "$out")
array_id=$(sbatch --parsable --job-name=linksim-run --array="0-$((shards - 1))" \
  --output="$out/logs/shard-%a.out" "$@" --wrap="$run_cmd")
array_id=${array_id%%;*}

merge_cmd=$(printf '%q merge' "$linksim")
for ((i = 0; i < shards; i++)); do merge_cmd+=$(printf ' %q' "$out/shard-$i"); done
merge_cmd+=$(printf ' --out %q' "$out/merged")
merge_id=$(sbatch --parsable --job-name=linksim-merge --dependency="afterok:$array_id" \
  --output="$out/logs/merge.out" "$@" --wrap="$merge_cmd")
merge_id=${merge_id%%;*}

echo "shards: job array $array_id (tasks 0-$((shards - 1)))"
echo "merge:  job $merge_id, after all shards succeed; results in $out/merged/"
