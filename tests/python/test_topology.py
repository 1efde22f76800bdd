# SPDX-License-Identifier: Apache-2.0
"""load_topology and Topology against `linksim topo show|matrix|lint --json`."""
import linksim
from conftest import cli_json, run_cli, topology_file


def test_summary_equals_topo_show(dgx_h100):
    summary = dgx_h100.summary()
    assert summary == cli_json("topo", "show", topology_file("dgx-h100"), "--json")
    assert (summary["name"], summary["servers"], len(summary["gpus"])) == ("dgx-h100", 1, 8)
    assert summary["devices"]["nvswitch"] == 4


def test_cluster_summary_equals_topo_show():
    cluster = linksim.load_topology(topology_file("dgx-h100-ib"), set={"nodes": 4})
    shown = cli_json("topo", "show", topology_file("dgx-h100-ib"), "--set", "nodes=4", "--json")
    assert cluster.summary() == shown
    assert shown["fabric"]["tiers"] >= 1 and cluster.servers == 4


def test_parts(dgx_h100):
    shown = cli_json("topo", "show", topology_file("dgx-h100"), "--json")
    assert dgx_h100.name == "dgx-h100"
    assert dgx_h100.servers == 1
    assert [g["name"] for g in dgx_h100.gpus] == [f"gpu{i}" for i in range(8)]
    assert {g["model"] for g in dgx_h100.gpus} == {g["model"] for g in shown["gpus"]}
    assert len(dgx_h100.nics) == shown["devices"]["nic"]
    assert len(dgx_h100.links) == sum(group["count"] for group in shown["links"])
    nvlinks = [link for link in dgx_h100.links if link["family"] == "nvlink"]
    per_gpu = sum(link["bw_GBps"] for link in nvlinks if link["from"] == "gpu0")
    assert per_gpu == shown["gpus"][0]["nvlink_GBps"]


def test_overrides_equal_set_flags():
    topo = linksim.load_topology(topology_file("pcie-8gpu"), set={"gpu": "a40"})
    shown = cli_json("topo", "show", topology_file("pcie-8gpu"), "--set", "gpu=a40", "--json")
    assert {g["model"] for g in topo.gpus} == {g["model"] for g in shown["gpus"]} == {"a40"}


def test_shipped_name_and_yaml_text():
    by_name = linksim.load_topology("dual-4090")
    assert by_name.name == "dual-4090"
    with open(topology_file("dual-4090"), encoding="utf-8") as f:
        text = f.read()
    from_text = linksim.load_topology(text)
    assert from_text.summary() == by_name.summary()


def test_matrix_as_nvidia_smi_prints_it(dgx_h100):
    printed = run_cli("topo", "matrix", topology_file("dgx-h100")).stdout
    matrix = dgx_h100.matrix()
    assert matrix.startswith("\tGPU0\tGPU1\t")
    assert printed.startswith(matrix)
    assert printed[len(matrix):].startswith("\nGPU-to-GPU route bandwidth")


def test_matrix_data_equals_topo_matrix_json(dgx_h100):
    assert dgx_h100.matrix_data() == cli_json("topo", "matrix", topology_file("dgx-h100"), "--json")


def test_lint_equals_topo_lint_json(pcie_8gpu):
    linted = cli_json("topo", "lint", topology_file("pcie-8gpu"), "--json", ok_statuses=(1,))
    findings = pcie_8gpu.lint()
    assert findings == linted["warnings"]
    assert "ring-crosses-socket" in {f["rule"] for f in findings}


def test_with_degraded_equals_degrade_flag(dgx_h100):
    spec = "gpu0~nvswitch0:width=2"
    degraded = dgx_h100.with_degraded(spec)
    rows = linksim.collective(degraded, "all_reduce", sizes=["1G"])
    cli = cli_json("coll", "all_reduce", "--topo", topology_file("dgx-h100"), "--size", "1G",
                   "--degrade", spec, "--json")
    assert list(rows) == cli["results"]
    healthy = linksim.collective(dgx_h100, "all_reduce", sizes=["1G"])
    assert rows[0]["busbw_GBps"] < healthy[0]["busbw_GBps"]
    lanes = {l["lanes"] for l in degraded.links if {l["from"], l["to"]} == {"gpu0", "nvswitch0"}}
    assert lanes == {2}
    assert dgx_h100.with_degraded("nvswitch0:missing").summary()["devices"]["nvswitch"] == 3


def test_several_fault_specs_equal_repeated_degrade(dgx_h100):
    specs = ["gpu0~nvswitch0:width=2", "gpu3:clock=80%"]
    degraded = dgx_h100.with_degraded(specs)
    assert degraded.summary() == dgx_h100.with_degraded(",".join(specs)).summary()
    assert [g["clock_fraction"] for g in degraded.gpus][3] == 0.8
    plan = linksim.plan(degraded, "llama3.1-8b", mode="decode", tp=8)
    cli = cli_json("plan", "--topo", topology_file("dgx-h100"), "--model", "llama3.1-8b", "--mode",
                   "decode", "--tp", "8", "--degrade", specs[0], "--degrade", specs[1], "--json")
    assert plan == cli


def test_nccl_env_of_the_platform_in_the_summary():
    p5 = linksim.load_topology(topology_file("aws-p5-efa"))
    assert p5.summary()["nccl_env"] == {"NCCL_NVLS_CHUNKSIZE": 524288,
                                        "NCCL_NVLSTREE_MAX_CHUNKSIZE": 524288,
                                        "NCCL_BUFFSIZE": 8388608}
    assert linksim.load_topology(topology_file("dgx-h100")).summary()["nccl_env"] == {}
