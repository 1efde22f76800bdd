#!/usr/bin/env bash
# data/validation/error_bands.yaml must be what scripts/error_bands.py computes from the
# shipped real tables with this build's model: bands that follow the model, never stale ones.
# Usage: bash error_bands_current.sh <linksim-binary> <source-dir>
set -u
python3 -c 'import yaml' 2>/dev/null || { echo "SKIP: python3 with PyYAML is needed"; exit 77; }
python3 "$2/scripts/error_bands.py" "$1" --check || exit 1
echo "error bands are current"
