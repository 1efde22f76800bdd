# SPDX-License-Identifier: Apache-2.0
"""linksim.plan, search, sensitivity and explain against `linksim plan --json` and friends."""
import linksim
from conftest import cli_json, topology_file

DECODE_70B = dict(model="llama3.1-70b", mode="decode", tp=8, batch=1, kv_len=4096)
DECODE_70B_FLAGS = ["--model", "llama3.1-70b", "--mode", "decode", "--tp", "8", "--batch", "1",
                    "--kv-len", "4096"]


def test_plan_equals_plan_json(dgx_h100):
    result = linksim.plan(dgx_h100, **DECODE_70B)
    assert result == cli_json("plan", "--topo", topology_file("dgx-h100"), *DECODE_70B_FLAGS, "--json")
    assert result["parallel"]["tp"] == 8
    assert result["memory"]["fits"] is True
    assert 0 < result["comm_compute_ratio"]


def test_engine_equals_engine_flag(dgx_h100, pcie_8gpu):
    for topo, name in ((dgx_h100, "dgx-h100"), (pcie_8gpu, "pcie-8gpu")):
        result = linksim.plan(topo, **DECODE_70B, engine="vllm")
        cli = cli_json("plan", "--topo", topology_file(name), *DECODE_70B_FLAGS, "--engine", "vllm",
                       "--json")
        assert result == cli
        assert result["engine"] == "vllm"
        # The engine's host time makes the step slower than kernels and NCCL alone.
        assert result["step_time_s"] > linksim.plan(topo, **DECODE_70B)["step_time_s"]
    overridden = linksim.plan(dgx_h100, **DECODE_70B, engine="sglang", engine_overhead="1ms",
                              allreduce="nccl")
    assert overridden == cli_json("plan", "--topo", topology_file("dgx-h100"), *DECODE_70B_FLAGS,
                                  "--engine", "sglang", "--engine-overhead", "1ms", "--allreduce",
                                  "nccl", "--json")


def test_training_layout_equals_flags(dgx_h100):
    result = linksim.plan(dgx_h100, "llama3.1-8b", mode="train", dp=8, zero="fsdp", seq=8192,
                          global_batch=16, framework="torchtitan")
    cli = cli_json("plan", "--topo", topology_file("dgx-h100"), "--model", "llama3.1-8b", "--mode",
                   "train", "--dp", "8", "--zero", "fsdp", "--seq", "8192", "--global-batch", "16",
                   "--framework", "torchtitan", "--json")
    assert result == cli
    assert result["parallel"]["zero"] == 3


def test_arch_dict_equals_arch_flag(pcie_8gpu):
    arch = dict(layers=32, hidden=4096, heads=32, kv_heads=8, ffn=14336, ffn_type="swiglu",
                vocab=128256)
    result = linksim.plan(pcie_8gpu, arch=arch, mode="prefill", tp=2, seq=4096, gpus=2)
    cli = cli_json("plan", "--topo", topology_file("pcie-8gpu"), "--arch",
                   "layers=32,hidden=4096,heads=32,kv_heads=8,ffn=14336,ffn_type=swiglu,vocab=128256",
                   "--mode", "prefill", "--tp", "2", "--seq", "4096", "-g", "2", "--json")
    assert result == cli


def test_search_equals_plan_search():
    topo = linksim.load_topology(topology_file("dual-4090"))
    ranked = linksim.search(topo, "llama3.1-8b", mode="decode", batch=8)
    cli = cli_json("plan", "--topo", topology_file("dual-4090"), "--model", "llama3.1-8b", "--mode",
                   "decode", "--batch", "8", "--search", "--json")
    assert ranked == cli
    assert ranked[0]["rank"] == 1


def test_sensitivity_equals_plan_sensitivity(dgx_h100):
    rows = linksim.sensitivity(dgx_h100, **DECODE_70B)
    cli = cli_json("plan", "--topo", topology_file("dgx-h100"), *DECODE_70B_FLAGS, "--sensitivity",
                   "--json")
    assert rows == cli
    assert rows["factor"] == 2
    assert rows["base_step_time_s"] == linksim.plan(dgx_h100, **DECODE_70B)["step_time_s"]


def test_explain_equals_explain_plan(dgx_h100):
    explained = linksim.explain(dgx_h100, **DECODE_70B)
    assert explained == cli_json("explain", "plan", "--topo", topology_file("dgx-h100"),
                                 *DECODE_70B_FLAGS, "--json")


def test_comm_options_and_flow(pcie_8gpu):
    result = linksim.plan(pcie_8gpu, "llama3.1-8b", mode="decode", tp=4, gpus="0-3", p2p=False,
                          sim="flow", nccl_version="2.21")
    cli = cli_json("plan", "--topo", topology_file("pcie-8gpu"), "--model", "llama3.1-8b", "--mode",
                   "decode", "--tp", "4", "--gpus", "0-3", "--p2p", "off", "--sim", "flow",
                   "--nccl-version", "2.21", "--json")
    assert result == cli
