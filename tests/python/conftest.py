# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures of the Python tests (docs/python.md#tests): the CLI to compare with and the
source tree. ctest sets LINKSIM_CLI, LINKSIM_SOURCE_DIR, LINKSIM_BINARY_DIR and PYTHONPATH
(build/python); run by hand:
    PYTHONPATH=build/python LINKSIM_CLI=build/linksim python3 -m pytest tests/python
"""
import json
import os
import subprocess

import pytest

SOURCE_DIR = os.environ.get("LINKSIM_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY_DIR = os.environ.get("LINKSIM_BINARY_DIR") or os.path.join(SOURCE_DIR, "build")
CLI = os.environ.get("LINKSIM_CLI") or os.path.join(BINARY_DIR, "linksim")


def topology_file(name):
    """The path of a shipped topology, "dgx-h100" -> <source>/topologies/dgx-h100.yaml."""
    return os.path.join(SOURCE_DIR, "topologies", name + ".yaml")


def run_cli(*args, ok_statuses=(0,)):
    """Runs build/linksim with `args` from the source directory; returns the completed
    process. Fails the test on an unexpected exit status."""
    done = subprocess.run([CLI, *map(str, args)], cwd=SOURCE_DIR, capture_output=True, text=True)
    assert done.returncode in ok_statuses, (args, done.returncode, done.stderr)
    return done


def cli_json(*args, ok_statuses=(0,)):
    """What `linksim ARGS` prints (with --json among ARGS), parsed."""
    return json.loads(run_cli(*args, ok_statuses=ok_statuses).stdout)


@pytest.fixture(scope="session")
def dgx_h100():
    import linksim
    return linksim.load_topology(topology_file("dgx-h100"))


@pytest.fixture(scope="session")
def pcie_8gpu():
    import linksim
    return linksim.load_topology(topology_file("pcie-8gpu"))
