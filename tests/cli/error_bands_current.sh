#!/usr/bin/env bash
# data/validation/error_bands.yaml must be what scripts/error_bands.py computes from the
# shipped real tables with this build's model: bands that follow the model, never stale ones.
# Usage: bash error_bands_current.sh <linksim-binary> <source-dir>
set -u
# scripts/setup.sh installs python3-yaml; without it the check fails rather than passing silently.
python3 -c 'import yaml' 2>/dev/null || { echo "FAIL: python3 with PyYAML is needed (scripts/setup.sh)"; exit 1; }
python3 "$2/scripts/error_bands.py" "$1" --check || exit 1
echo "error bands are current"
