# SPDX-License-Identifier: Apache-2.0
"""models(), gpus() and topologies(): the built-in catalogs and the shipped machines."""
import os

import yaml

import linksim
from conftest import SOURCE_DIR, cli_json, topology_file


def test_models_are_the_catalog():
    with open(os.path.join(SOURCE_DIR, "data/models/models.yaml"), encoding="utf-8") as f:
        catalog = yaml.safe_load(f)
    entries = catalog["models"] if isinstance(catalog, dict) and "models" in catalog else catalog
    models = {m["key"]: m for m in linksim.models()}
    assert len(models) == len(entries)
    llama = models["llama3.1-70b"]
    assert (llama["layers"], llama["hidden"], llama["heads"], llama["kv_heads"]) == (80, 8192, 64, 8)
    planned = cli_json("plan", "--topo", topology_file("dgx-h100"), "--model", "llama3.1-70b",
                       "--mode", "decode", "--tp", "8", "--json")
    assert planned["model"] in (llama["key"], llama["name"])


def test_gpus_are_the_catalog():
    gpus = {g["key"]: g for g in linksim.gpus()}
    h100 = gpus["h100-sxm"]
    assert h100["memory_bytes"] == 80e9 or h100["memory_bytes"] == 80 * 2**30
    assert h100["nvlink_lanes"] == 18
    assert gpus["rtx4090"]["p2p"] is False
    planned = cli_json("plan", "--topo", topology_file("dgx-h100"), "--model", "llama3.1-8b",
                       "--mode", "decode", "--tp", "8", "--json")
    assert planned["gpu_model"] in (h100["key"], h100["name"])


def test_topologies_are_the_shipped_files():
    shipped = {t["name"]: t for t in linksim.topologies()}
    on_disk = {f[:-5] for f in os.listdir(os.path.join(SOURCE_DIR, "topologies")) if f.endswith(".yaml")}
    assert set(shipped) == on_disk
    assert shipped["dual-4090"]["description"].startswith("2x RTX 4090")
    for t in shipped.values():
        assert linksim.load_topology(t["path"]).name == t["name"]
