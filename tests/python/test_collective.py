# SPDX-License-Identifier: Apache-2.0
"""linksim.collective against `linksim coll OP --json`: the same rows, number for number."""
import os
import subprocess

import pytest

import linksim
from conftest import CLI, SOURCE_DIR, cli_json, run_cli, topology_file


def coll_json(op, topo, *flags):
    return cli_json("coll", op, "--topo", topology_file(topo), *flags, "--json")


def assert_same_document(rows, document):
    assert list(rows) == document["results"]
    assert rows.topology == document["topology"]
    assert rows.collective == document["collective"]
    assert rows.ranks == document["ranks"]
    assert rows.mode == document["mode"]
    assert rows.nccl_version == document["nccl_version"]
    assert rows.notes == document["notes"]


def test_one_size_equals_coll(dgx_h100):
    rows = linksim.collective(dgx_h100, "allreduce", sizes=[1 << 30])
    document = coll_json("allreduce", "dgx-h100", "--size", "1G")
    assert_same_document(rows, document)
    assert len(rows) == 1
    assert rows[0]["size_bytes"] == 1 << 30
    assert rows[0]["busbw_GBps"] > 300  # NVLink 4 through NVSwitches


def test_busbw_equals_the_text_table(dgx_h100):
    busbw = linksim.collective(dgx_h100, "allreduce", sizes=[1 << 30])[0]["busbw_GBps"]
    table = run_cli("coll", "allreduce", "--topo", topology_file("dgx-h100"), "--size", "1G").stdout
    row = [line.split() for line in table.splitlines() if line and not line.startswith("#")][0]
    assert row[7] == f"{busbw:.2f}"  # busbw column, %6.2f


def test_sweep_equals_b_e_f(dgx_h100):
    rows = linksim.collective(dgx_h100, "all_gather", minbytes="1M", maxbytes="1G", stepfactor=4)
    assert_same_document(rows, coll_json("all_gather", "dgx-h100", "-b", "1M", "-e", "1G", "-f", "4"))
    assert [r["size_bytes"] for r in rows] == [1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28, 1 << 30]


def test_options_equal_flags(pcie_8gpu):
    rows = linksim.collective(pcie_8gpu, "reduce_scatter", sizes=[65536, "16M"], gpus=4,
                              dtype="half", algo="ring", proto="simple", nccl_version="2.18",
                              mode="flow")
    document = cli_json("coll", "reduce_scatter", "--topo", topology_file("pcie-8gpu"), "-b", "64K",
                        "-e", "16M", "-f", "256", "-g", "4", "-d", "half", "--algo", "ring",
                        "--proto", "simple", "--nccl-version", "2.18", "--sim", "flow", "--json")
    assert_same_document(rows, document)
    assert rows.ranks == 4 and rows.mode == "flow"


def test_nccl_lists_equal_flags(dgx_h100):
    # NCCL_ALGO / NCCL_PROTO lists (docs/model.md#tuner-lists): the tuner chooses within them.
    rows = linksim.collective(dgx_h100, "allreduce", sizes=["512K", "1G"], algo="^nvls",
                              proto="^ll128")
    document = coll_json("allreduce", "dgx-h100", "-b", "512K", "-e", "1G", "-f", "2048",
                         "--algo", "^nvls", "--proto", "^ll128")
    assert_same_document(rows, document)
    assert all(r["algorithm"] != "nvls" and r["protocol"] != "LL128" for r in rows)
    with pytest.raises(linksim.Error, match=r"^linksim: error: proto: expected protocols of LL, LL128, Simple"):
        linksim.collective(dgx_h100, "allreduce", sizes=["1M"], proto="^LL64")


def test_gpu_list_p2p_and_selection(pcie_8gpu):
    rows = linksim.collective(pcie_8gpu, "allreduce", sizes=["8M"], gpus=[0, 1, 6, 7], p2p=False)
    document = coll_json("allreduce", "pcie-8gpu", "--size", "8M", "--gpus", "0,1,6,7", "--p2p",
                         "off")
    assert_same_document(rows, document)
    assert "host-staged" in rows[0]["bottleneck"]


def test_calibration_profile(dgx_h100, tmp_path):
    profile = tmp_path / "profile.yaml"
    measured = os.path.join(SOURCE_DIR, "data/validation/nccl-tests/01-h100x8-allreduce-bitdeer.txt")
    run_cli("calibrate", "--topo", topology_file("dgx-h100"), measured, "--out", profile)
    rows = linksim.collective(dgx_h100, "allreduce", sizes=["1G"], calibration=str(profile))
    assert_same_document(rows, coll_json("allreduce", "dgx-h100", "--size", "1G", "--calibration",
                                         profile))


def test_to_pandas(dgx_h100):
    rows = linksim.collective(dgx_h100, "allreduce", minbytes="1M", maxbytes="1G", stepfactor=32)
    frame = rows.to_pandas()
    assert list(frame["size_bytes"]) == [r["size_bytes"] for r in rows]
    assert list(frame["busbw_GBps"]) == [r["busbw_GBps"] for r in rows]
    assert set(frame["topology"]) == {"dgx-h100"}
    assert set(frame["ranks"]) == {8}
    assert {"time_us", "algbw_GBps", "algorithm", "protocol", "bottleneck"} <= set(frame.columns)


def test_topology_given_as_a_path():
    rows = linksim.collective(topology_file("dual-4090"), "allgather", sizes=["1M"])
    assert_same_document(rows, coll_json("allgather", "dual-4090", "--size", "1M"))


def test_explain_collective_equals_explain_coll(dgx_h100, pcie_8gpu):
    explained = linksim.explain_collective(dgx_h100, "allreduce", "1G")
    assert explained == cli_json("explain", "coll", "allreduce", "--topo",
                                 topology_file("dgx-h100"), "--size", "1G", "--json")
    rows = linksim.collective(dgx_h100, "allreduce", sizes=["1G"])
    assert explained == cli_json("explain", "coll", "allreduce", "--topo",
                                 topology_file("dgx-h100"), "--size", str(rows[0]["size_bytes"]),
                                 "--json")
    odd = linksim.explain_collective(pcie_8gpu, "all_gather", 1000003, gpus=[0, 1, 2], p2p=False)
    assert odd == cli_json("explain", "coll", "all_gather", "--topo", topology_file("pcie-8gpu"),
                           "--size", "1000003", "--gpus", "0,1,2", "--p2p", "off", "--json")
