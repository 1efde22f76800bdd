# SPDX-License-Identifier: Apache-2.0
"""examples/python/: both scripts run, their PNGs are real images, and their numbers are the
CLI's (`linksim plan --json`, `linksim coll --json`) for the same inputs."""
import importlib.util
import os

import pytest

from conftest import SOURCE_DIR, cli_json, topology_file

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def load_example(name):
    path = os.path.join(SOURCE_DIR, "examples", "python", name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_real_png(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 20000, len(data)  # axes, bars, lines and labels, not an empty canvas


def plan_flags(**keywords):
    flags = []
    for key, value in keywords.items():
        flags += ["--" + key.replace("_", "-"), str(value)]
    return flags


@pytest.fixture(scope="module")
def machines(tmp_path_factory):
    return load_example("compare_machines").main(str(tmp_path_factory.mktemp("machines")))


@pytest.fixture(scope="module")
def ratios(tmp_path_factory):
    return load_example("comm_compute_ratio").main(str(tmp_path_factory.mktemp("ratios")))


def test_compare_machines_decode_is_the_planners(machines):
    decode = machines["decode"].set_index("machine")
    assert list(decode.index) == ["dgx-h100", "pcie-8gpu", "dual-4090"]
    for name, tp in (("dgx-h100", 8), ("pcie-8gpu", 8), ("dual-4090", 2)):
        cli = cli_json("plan", "--topo", topology_file(name), *plan_flags(
            model="llama3.1-70b", mode="decode", batch=1, kv_len=4096, tp=tp), "--json")
        assert decode.loc[name, "tp"] == tp
        assert decode.loc[name, "tpot_s"] == cli["tpot_s"]
        assert decode.loc[name, "comm_compute_ratio"] == cli["comm_compute_ratio"]
        assert bool(decode.loc[name, "fits"]) == cli["memory"]["fits"]
    # NVSwitches beat PCIe; a 70B model in bf16 does not fit in two 24 GB cards.
    assert decode.loc["dgx-h100", "tpot_s"] < decode.loc["pcie-8gpu", "tpot_s"]
    assert not decode.loc["dual-4090", "fits"]


def test_compare_machines_training_is_the_planners(machines):
    train = machines["train"]
    assert list(train.groupby("machine", sort=False).size()) == [4, 4, 2]
    for name, gpus in (("dgx-h100", 8), ("pcie-8gpu", 8), ("dual-4090", 2), ("pcie-8gpu", 1)):
        cli = cli_json("plan", "--topo", topology_file(name), *plan_flags(
            model="llama3.1-8b", mode="train", seq=4096, global_batch=64, dp=gpus),
            "-g", gpus, "--json")
        row = train[(train["machine"] == name) & (train["gpus"] == gpus)].iloc[0]
        assert row["tokens_per_s"] == cli["tokens_per_s"]
        assert row["step_time_s"] == cli["step_time_s"]
        assert row["exposed_comm_s"] == cli["breakdown"]["exposed_comm_s"]
    by_machine = {name: rows.set_index("gpus") for name, rows in train.groupby("machine")}
    for name, rows in by_machine.items():
        assert rows.loc[1, "speedup"] == 1
        for gpus in rows.index:
            assert rows.loc[gpus, "speedup"] == rows.loc[gpus, "tokens_per_s"] / rows.loc[1, "tokens_per_s"]
    # NVSwitches scale almost linearly; host-staged copies across the sockets do not (about
    # 10 GB/s, bounded by the Ice Lake socket link: docs/model.md#shm; 0.71 on this model).
    assert by_machine["dgx-h100"].loc[8, "scaling_efficiency"] > 0.95
    assert by_machine["pcie-8gpu"].loc[8, "scaling_efficiency"] < 0.8
    assert_real_png(machines["png"])


def test_comm_compute_ratio_is_the_planners(ratios):
    table = ratios["table"]
    assert len(table) == 8
    for _, row in table.iterrows():
        cli = cli_json("plan", "--topo", topology_file(row["machine"]), *plan_flags(
            model="llama3.1-70b", mode="prefill", seq=2048, batch=1, tp=row["tp"]),
            "-g", row["tp"], "--json")
        assert row["planner_comm_compute_ratio"] == cli["comm_compute_ratio"]
        assert row["layer_ratio"] == pytest.approx(cli["comm_compute_ratio"], rel=1e-9)
        if row["tp"] == 1:
            assert row["layer_ratio"] == 0
            continue
        assert row["allreduces_per_layer"] == 2  # after attention and after the MLP
        assert row["allreduce_bytes"] == 2048 * 8192 * 2
        coll = cli_json("coll", "allreduce", "--topo", topology_file(row["machine"]), "--size",
                        int(row["allreduce_bytes"]), "-g", row["tp"], "--json")
        assert row["collective_us"] == coll["results"][0]["time_us"]
        assert row["allreduce_us"] == pytest.approx(row["collective_us"], rel=1e-9)
    for link, rows in table.groupby("link", sort=False):
        assert list(rows["layer_ratio"]) == sorted(rows["layer_ratio"]), link
    nvlink = table[table["machine"] == "dgx-h100"].set_index("tp")["layer_ratio"]
    pcie = table[table["machine"] == "pcie-8gpu"].set_index("tp")["layer_ratio"]
    for tp in (2, 4, 8):
        assert pcie[tp] > 2 * nvlink[tp]
    assert_real_png(ratios["png"])
