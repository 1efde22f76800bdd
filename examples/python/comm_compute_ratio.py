# SPDX-License-Identifier: Apache-2.0
# %% [markdown]
# # The communication/compute ratio of one layer as TP grows (docs/python.md#examples)
#
# For teaching: split one transformer layer of Llama 3.1 70B over tp GPUs (Megatron tensor
# parallelism) for the prefill of a 2048-token prompt. Each GPU computes 1/tp of every GEMM,
# and each layer then ends its attention and its MLP with an AllReduce of the activations
# (seq x hidden x 2 bytes) over the tp GPUs. Compute shrinks like 1/tp; the AllReduce does
# not — so the ratio grows with tp, slowly on NVLink, fast on PCIe.
#
# Every number is the planner's: compute per layer is the step's compute over its layers,
# communication per layer the step's TP AllReduces over its layers, and one AllReduce is
# exactly what `linksim.collective` predicts for that size on those GPUs.
#
# `PYTHONPATH=build/python python3 examples/python/comm_compute_ratio.py OUT_DIR`

# %%
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import linksim  # noqa: E402

MACHINES = {"NVLink (dgx-h100)": "dgx-h100", "PCIe (pcie-8gpu)": "pcie-8gpu"}
PREFILL = dict(model="llama3.1-70b", mode="prefill", seq=2048, batch=1)
TP_DEGREES = [1, 2, 4, 8]


# %%
def layer_row(label, topo, tp):
    """One layer at tensor-parallel degree tp, in the planner's terms."""
    plan = linksim.plan(topo, tp=tp, gpus=tp, **PREFILL)
    layers = plan["layers_on_slowest_stage"]
    tp_comms = [c for c in plan["comms"] if c["kind"] == "tp"]
    calls_per_layer = sum(c["count"] for c in tp_comms) / layers
    comm_per_layer_s = sum(c["time_s"] for c in tp_comms) / layers
    compute_per_layer_s = plan["compute"]["total_s"] / layers
    row = {"link": label, "machine": topo.name, "tp": tp,
           "compute_per_layer_us": compute_per_layer_s * 1e6,
           "allreduces_per_layer": calls_per_layer,
           "comm_per_layer_us": comm_per_layer_s * 1e6,
           "layer_ratio": comm_per_layer_s / compute_per_layer_s,
           "planner_comm_compute_ratio": plan["comm_compute_ratio"],
           "allreduce_bytes": tp_comms[0]["bytes"] if tp_comms else 0,
           "allreduce_us": 0.0, "collective_us": 0.0}
    if tp_comms:
        one = tp_comms[0]
        row["allreduce_us"] = one["time_s"] / one["count"] * 1e6
        # The same AllReduce asked of the collective engine directly.
        row["collective_us"] = linksim.collective(topo, "allreduce", sizes=[one["bytes"]],
                                                  gpus=tp)[0]["time_us"]
    return row


def ratio_table():
    rows = []
    for label, name in MACHINES.items():
        topo = linksim.load_topology(name)
        rows.extend(layer_row(label, topo, tp) for tp in TP_DEGREES)
    return pd.DataFrame(rows)


# %%
def draw(table, png_path):
    figure, axis = plt.subplots(figsize=(6.4, 4.2))
    for label, rows in table.groupby("link", sort=False):
        axis.plot(rows["tp"], rows["layer_ratio"], marker="o", label=label)
        for tp, ratio in zip(rows["tp"], rows["layer_ratio"]):
            axis.annotate(f"{ratio:.2f}", (tp, ratio), textcoords="offset points", xytext=(4, 4),
                          fontsize=8)
    axis.set_xscale("log", base=2)
    axis.set_yscale("symlog", linthresh=0.1)  # linear near 0 (tp = 1), logarithmic above
    axis.set_ylim(0, table["layer_ratio"].max() * 3)
    axis.set_xticks(TP_DEGREES, [str(t) for t in TP_DEGREES])
    axis.set_xlabel("tensor-parallel degree")
    axis.set_ylabel("communication / compute, one layer")
    axis.set_title("Llama 3.1 70B layer, prefill of 2048 tokens")
    axis.legend()
    figure.tight_layout()
    figure.savefig(png_path, dpi=110)
    plt.close(figure)


# %%
def main(out_dir="linksim-out/python"):
    os.makedirs(out_dir, exist_ok=True)
    table = ratio_table()
    png_path = os.path.join(out_dir, "comm_compute_ratio.png")
    table.to_csv(os.path.join(out_dir, "comm_compute_ratio.csv"), index=False)
    draw(table, png_path)
    columns = ["link", "tp", "compute_per_layer_us", "allreduces_per_layer", "allreduce_bytes",
               "allreduce_us", "comm_per_layer_us", "layer_ratio"]
    with pd.option_context("display.width", 160, "display.float_format", "{:.4g}".format):
        print(table[columns].to_string(index=False))
    print(f"\nwrote {png_path}")
    return {"table": table, "png": png_path}


if __name__ == "__main__":
    main(*sys.argv[1:2])
