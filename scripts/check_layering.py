#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a module includes a header of a module above it (docs/architecture.md#layers).

Usage: check_layering.py SOURCE_DIR

Every file under src/<module>/ belongs to <module>; every public header include/linksim/X.hpp
belongs to the module PUBLIC_HEADERS names (a header missing from the table is an error, so a
new one is placed on purpose). A file may include headers of its own module and of modules
on a lower layer only; the Python bindings (src/python/, the top layer) include the library's
public headers only, never a module's internal ones. Prints one line per upward include, "file:line: <module> includes
<header> of <module above>", and exits 1; exits 0 when there are none.
"""
import pathlib
import re
import sys

# Bottom to top. A module may include only its own headers and those of earlier layers.
LAYERS = [
    "common", "catalog", "topology", "routing", "flowsim", "collectives", "sysimport",
    "calibration", "plan", "serve", "diagnose", "scenario", "charts", "report", "runs", "cli",
    "python",
]

PUBLIC_HEADERS = {
    "units": "common", "error": "common", "interned_string": "common", "input_file": "common",
    "catalog": "catalog",
    "topology": "topology", "topology_yaml": "topology", "topology_variants": "topology",
    "gpu_selection": "topology", "fabric_summary": "topology", "faults": "topology",
    "routing": "routing", "topo_matrix": "routing", "topology_summary": "routing",
    "flowsim": "flowsim", "flow_steps": "flowsim",
    "collectives": "collectives", "nccl_version": "collectives", "nccl_lists": "collectives",
    "nccl_tests": "collectives",
    "nccl_debug": "collectives", "explain": "collectives", "model_calibration": "collectives",
    "collective_rows": "collectives", "concurrent_collectives": "collectives",
    "sysimport": "sysimport", "nccl_tests_output": "sysimport", "nccl_log": "sysimport",
    "calibration": "calibration", "calibrate": "calibration", "error_bands": "calibration",
    "measured": "calibration", "acceptance": "calibration",
    "model": "plan", "plan": "plan", "plan_memory": "plan", "plan_explain": "plan",
    "plan_nccl_debug": "plan", "contingency": "plan", "engine": "plan", "engine_release": "plan",
    "serve": "serve", "serve_options": "serve", "diagnose": "diagnose",
    "scenario": "scenario", "scenario_results": "scenario",
    "report": "report", "plan_report": "report", "explain_report": "report",
    "nccl_debug_report": "report", "measured_report": "report", "scenario_report": "report",
    "topo_matrix_report": "report", "fault_reports": "report", "diagnose_report": "report",
    "charts": "report", "topology_summary_report": "report", "serve_report": "report",
    "runs": "runs",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def module_of_include(path):
    parts = path.split("/")
    if len(parts) == 2 and parts[0] == "linksim":
        stem = parts[1].removesuffix(".hpp")
        if stem not in PUBLIC_HEADERS:
            return None, f"public header {path} has no module in scripts/check_layering.py"
        return PUBLIC_HEADERS[stem], None
    if len(parts) >= 2 and parts[0] in LAYERS:
        return parts[0], None
    return "", None  # generated or third-party: not a module


def main():
    root = pathlib.Path(sys.argv[1])
    files = []
    for module in LAYERS:
        for f in sorted((root / "src" / module).glob("**/*")):
            if f.suffix in (".cpp", ".hpp"):
                files.append((f, module))
    for f in sorted((root / "include" / "linksim").glob("*.hpp")):
        module, problem = module_of_include("linksim/" + f.name)
        if problem:
            print(problem)
            return 1
        files.append((f, module))
    rank = {m: i for i, m in enumerate(LAYERS)}
    problems = []
    for f, module in files:
        for number, line in enumerate(f.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target, problem = module_of_include(m.group(1))
            if problem:
                problems.append(f"{f.relative_to(root)}:{number}: {problem}")
            elif target and rank[target] > rank[module]:
                problems.append(f"{f.relative_to(root)}:{number}: {module} includes "
                                f"{m.group(1)} of {target} (a layer above)")
            elif (module == "python" and target not in ("", "python")
                  and not m.group(1).startswith("linksim/")):
                problems.append(f"{f.relative_to(root)}:{number}: python includes "
                                f"{m.group(1)}, an internal header of {target} (use the public "
                                f"headers, include/linksim/)")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
