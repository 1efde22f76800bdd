# SPDX-License-Identifier: Apache-2.0
"""run_scenario against `linksim run`, compare against `linksim coll compare --json`."""
import json
import os

import pytest

import linksim
from conftest import SOURCE_DIR, cli_json, run_cli, topology_file

SCENARIO = os.path.join(SOURCE_DIR, "scenarios", "allreduce-four-machines.yaml")
MEASURED = os.path.join(SOURCE_DIR, "data", "validation", "nccl-tests",
                        "01-h100x8-allreduce-bitdeer.txt")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_run_scenario_writes_what_linksim_run_writes(tmp_path):
    outcome = linksim.run_scenario(SCENARIO, out=str(tmp_path / "py"), jobs=2)
    run_cli("run", SCENARIO, "--out", tmp_path / "cli", "--jobs", "2")
    assert outcome["out"] == str(tmp_path / "py")
    assert outcome["cases_failed"] == 0
    assert outcome["cases_run"] == outcome["cases_total"] == outcome["cases_selected"] > 0
    for name in ("results.json", "results.csv", "manifest.json"):
        assert read(tmp_path / "py" / name) == read(tmp_path / "cli" / name), name
    assert outcome["results"] == json.loads(read(tmp_path / "cli" / "results.json"))
    assert sorted(os.listdir(tmp_path / "py" / "cases")) == sorted(os.listdir(tmp_path / "cli" / "cases"))
    assert outcome["table"].strip()


def test_compare_file_and_text_equal_coll_compare(dgx_h100):
    cli = cli_json("coll", "compare", MEASURED, "--topo", topology_file("dgx-h100"), "--json")
    from_file = linksim.compare(MEASURED, dgx_h100)
    assert from_file == cli
    from_text = linksim.compare(read(MEASURED), dgx_h100)
    # The text has no file name: only the names of the input differ.
    assert json.dumps(from_text).replace("<results text>", MEASURED) == json.dumps(cli)


def test_compare_with_options(dgx_h100):
    cli = cli_json("coll", "compare", MEASURED, "--topo", topology_file("dgx-h100"), "--gpus",
                   "0-7", "--collective", "all_reduce", "--json")
    assert linksim.compare(MEASURED, dgx_h100, gpus="0-7", collective="all_reduce") == cli


def test_scenario_error_is_positioned(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"machines:\n  - topology: {topology_file('dual-4090')}\ncollectives:\n"
                   "  - ops: allreduse\n    sizes: [1M]\n")
    with pytest.raises(linksim.InputError) as caught:
        linksim.run_scenario(str(bad), out=str(tmp_path / "out"))
    assert (caught.value.file, caught.value.line, caught.value.column) == (str(bad), 4, 10)
    assert caught.value.message.startswith('expected one of allreduce, allgather')
