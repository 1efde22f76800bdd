#!/usr/bin/env bash
# The main demo: scenarios/seed-selection.yaml asks the questions every buyer of a multi-GPU
# machine asks, on the four machines that frame them (an NVSwitch DGX H100, a dual-socket
# 8-GPU PCIe server, a dual RTX 4090 desktop, 64 DGX H100 servers on InfiniBand), and answers
# each in a sentence with its numbers; the data files land in linksim-out/seed-selection/.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/linksim
"$cli" run scenarios/seed-selection.yaml --out linksim-out/seed-selection --format table,csv,json,html
echo "report: linksim-out/seed-selection/report.html"

# The buyer's serving question: Llama 3.1 70B, TP=8, on the NVSwitch DGX H100 and on the PCIe
# server: p50/p99 TTFT and TPOT against the request rate, and the highest rate meeting one SLO
# on each (docs/serving.md); report.html draws latency against rate per machine.
"$cli" run scenarios/serving-70b.yaml --out linksim-out/serving-70b --format table,csv,json,html
echo "report: linksim-out/serving-70b/report.html"
