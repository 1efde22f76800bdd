# SPDX-License-Identifier: Apache-2.0
"""The check both install tests run in a fresh interpreter: the issue's one-liner, whose
printed busbw must equal what `linksim coll allreduce --size 1G --json` prints."""

#: How docs/python.md#install makes the environment and installs, and test_pip_install does.
VENV_FLAGS = ["--system-site-packages"]
PIP_FLAGS = ["--no-build-isolation", "--no-deps"]

DONE_MEANS = ("import linksim; print(linksim.collective(linksim.load_topology("
              "'topologies/dgx-h100.yaml'), 'allreduce', sizes=[1<<30])[0]['busbw_GBps'])")


def expected_busbw():
    from conftest import cli_json, topology_file
    document = cli_json("coll", "allreduce", "--topo", topology_file("dgx-h100"), "--size", "1G",
                        "--json")
    return document["results"][0]["busbw_GBps"]
