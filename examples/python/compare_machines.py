# SPDX-License-Identifier: Apache-2.0
# %% [markdown]
# # Three machines, two questions (docs/python.md#examples)
#
# A capacity planner's notebook: an 8-GPU NVSwitch DGX H100, an 8-GPU PCIe server (L40S,
# two sockets) and a workstation with two RTX 4090s (no NVLink, no P2P).
#
# 1. Serving Llama 3.1 70B with tensor parallelism over all the machine's GPUs: the time per
#    output token, and how much of it is communication.
# 2. Training Llama 3.1 8B on 1, 2, 4, 8 GPUs (data parallel, the same global batch): tokens/s
#    and scaling efficiency against one GPU. One GPU cannot hold the model's training state
#    (the `fits` column): its row is the compute-bound reference the speedup is taken
#    against, as if it fit.
#
# Every number is the planner's (`linksim plan --json` for the same keywords). Run it as a
# script: `PYTHONPATH=build/python python3 examples/python/compare_machines.py OUT_DIR`
# writes OUT_DIR/compare_machines.png and two CSV files.

# %%
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import linksim  # noqa: E402

MACHINES = ["dgx-h100", "pcie-8gpu", "dual-4090"]
DECODE_70B = dict(model="llama3.1-70b", mode="decode", batch=1, kv_len=4096)
TRAIN_8B = dict(model="llama3.1-8b", mode="train", seq=4096, global_batch=64)
GPU_COUNTS = [1, 2, 4, 8]


# %% [markdown]
# ## 70B decode, tensor parallel over the whole machine

# %%
def decode_70b_table(machines=MACHINES):
    """One row per machine: the planner's decode step with tp = the machine's GPUs."""
    rows = []
    for name in machines:
        topo = linksim.load_topology(name)
        tp = len(topo.gpus)
        plan = linksim.plan(topo, tp=tp, **DECODE_70B)
        rows.append({"machine": name, "tp": tp, "tpot_s": plan["tpot_s"],
                     "comm_time_s": plan["comm_time_s"],
                     "comm_compute_ratio": plan["comm_compute_ratio"],
                     "tokens_per_s": plan["tokens_per_s"], "fits": plan["memory"]["fits"],
                     "memory_per_gpu_GB": plan["memory"]["total"] / 1e9})
    return pd.DataFrame(rows)


# %% [markdown]
# ## 8B training from 1 GPU to the whole machine

# %%
def train_8b_table(machines=MACHINES, gpu_counts=GPU_COUNTS):
    """One row per machine and GPU count: data-parallel training, and its speedup over the
    same machine's one-GPU row (scaling efficiency = speedup / GPUs)."""
    rows = []
    for name in machines:
        topo = linksim.load_topology(name)
        for gpus in [g for g in gpu_counts if g <= len(topo.gpus)]:
            plan = linksim.plan(topo, dp=gpus, gpus=gpus, **TRAIN_8B)
            rows.append({"machine": name, "gpus": gpus, "step_time_s": plan["step_time_s"],
                         "tokens_per_s": plan["tokens_per_s"],
                         "exposed_comm_s": plan["breakdown"]["exposed_comm_s"],
                         "fits": plan["memory"]["fits"]})
    frame = pd.DataFrame(rows)
    one_gpu = frame[frame["gpus"] == 1].set_index("machine")["tokens_per_s"]
    frame["speedup"] = frame["tokens_per_s"] / frame["machine"].map(one_gpu)
    frame["scaling_efficiency"] = frame["speedup"] / frame["gpus"]
    return frame


# %% [markdown]
# ## Both in one figure

# %%
def draw(decode, train, png_path):
    """Time per token by machine (left) and training throughput by GPU count (right)."""
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    compute_ms = (decode["tpot_s"] - decode["comm_time_s"]) * 1e3
    left.bar(decode["machine"], compute_ms, label="compute and the rest")
    left.bar(decode["machine"], decode["comm_time_s"] * 1e3, bottom=compute_ms,
             label="communication")
    for x, (tpot, fits) in enumerate(zip(decode["tpot_s"], decode["fits"])):
        left.annotate(f"{tpot * 1e3:.1f} ms" + ("" if fits else "\n(does not fit)"),
                      (x, tpot * 1e3), ha="center", va="bottom", fontsize=8)
    left.set_ylim(0, decode["tpot_s"].max() * 1e3 * 1.2)  # room for the labels
    left.set_ylabel("time per output token (ms)")
    left.set_title("Llama 3.1 70B decode, TP over all GPUs")
    left.legend(fontsize=8)
    for name, rows in train.groupby("machine", sort=False):
        right.plot(rows["gpus"], rows["tokens_per_s"], marker="o", label=name)
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    right.set_xlabel("GPUs (data parallel)")
    right.set_ylabel("training tokens/s")
    right.set_title("Llama 3.1 8B training, seq 4096, global batch 64")
    right.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(png_path, dpi=110)
    plt.close(figure)


# %%
def main(out_dir="linksim-out/python"):
    """Builds both tables, prints them, writes the CSVs and the PNG; returns them all."""
    os.makedirs(out_dir, exist_ok=True)
    decode = decode_70b_table()
    train = train_8b_table()
    png_path = os.path.join(out_dir, "compare_machines.png")
    decode.to_csv(os.path.join(out_dir, "decode_70b.csv"), index=False)
    train.to_csv(os.path.join(out_dir, "train_8b.csv"), index=False)
    draw(decode, train, png_path)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(decode.to_string(index=False))
        print()
        print(train.to_string(index=False))
    print(f"\nwrote {png_path}")
    return {"decode": decode, "train": train, "png": png_path}


if __name__ == "__main__":
    main(*sys.argv[1:2])
