# SPDX-License-Identifier: Apache-2.0
"""linksim in Python: the analytic interconnect simulator's library (docs/python.md).

    import linksim
    topo = linksim.load_topology("topologies/dgx-h100.yaml")
    rows = linksim.collective(topo, "allreduce", sizes=[1 << 30])
    rows[0]["busbw_GBps"]          # what `linksim coll allreduce --size 1G` prints

Every function calls the same library functions as the CLI command it mirrors and returns
what that command's --json prints, as Python values: collective() the rows of
`linksim coll --json`, plan() the object of `linksim plan --json`, serve() the object of
`linksim serve --json`, and so on. Bad input raises
linksim.InputError (a linksim.Error) with the file, line and column; long calls release the
GIL, so threads can run them side by side.
"""

import json
import os

from . import _linksim
from ._linksim import Topology, __version__
from .errors import Error, InputError, InternalError
from .rows import CollectiveRows
from .shipped import shipped_topology_files, topology_description

__all__ = [
    "Topology", "CollectiveRows", "Error", "InputError", "InternalError", "load_topology",
    "collective", "explain_collective", "plan", "search", "sensitivity", "explain", "serve",
    "run_scenario", "compare",
    "models", "gpus", "topologies", "__version__",
]


def _text_arg(name, value):
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise InputError(f"{name}: expected text, got {value!r}")
    return value


def _override_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def load_topology(path_or_yaml_text, set=None):  # noqa: A002 (the CLI's --set)
    """Loads a machine: a topology file, YAML text (anything with a line break), or the name
    of a shipped topology ("dgx-h100", see topologies()). ``set`` overrides its parameters as
    the CLI's ``--set name=value`` does: ``set={"nodes": 4, "gpu": "a40"}``.

    Raises InputError at the file's line and column for any bad input."""
    source = _text_arg("path_or_yaml_text", path_or_yaml_text)
    if "\n" not in source and not os.path.exists(source):
        shipped = shipped_topology_files()
        if source in shipped:
            source = shipped[source]
    if set is not None and not isinstance(set, dict):
        raise InputError(f"set: expected a dict of parameter values, got {set!r}")
    overrides = {str(k): _override_text(v) for k, v in (set or {}).items()}
    return _linksim.load_topology(source, overrides)


def _topology_arg(topo):
    if isinstance(topo, Topology):
        return topo
    return load_topology(topo)


def collective(topo, op, sizes=None, **options):
    """Predicts collective ``op`` ("allreduce", "all_gather", ...) on ``topo`` for every
    message size: ``sizes=[...]`` (bytes, or text such as "1G"), or a sweep
    ``minbytes=, maxbytes=, stepfactor=2`` (``stepbytes=`` with ``stepfactor=1``), as
    ``linksim coll`` with -b/-e/-f/-i.

    Options, as coll's flags: gpus (a count, a list of indices or "0,3" / "4-7"), per_node,
    dtype ("float"), redop, root, algo, proto, mode ("analytic" or "flow"), nccl_version
    ("2.21"), p2p, p2p_level, ib_hca, nvls, channels, gpus_per_thread, calibration (a
    profile file from `linksim calibrate`), max_rows.

    Returns CollectiveRows: the rows of `linksim coll OP --json`, a list of dicts."""
    if sizes is not None:
        options["sizes"] = sizes
    text = _linksim.collective_json(_topology_arg(topo), _text_arg("op", op), options)
    return CollectiveRows(json.loads(text))


def explain_collective(topo, op, size, **options):
    """The derivation of one collective's time, term by term, as
    `linksim explain coll OP --size SIZE --json` (docs/explain.md): the options of
    collective() but one ``size`` (bytes, or text such as "1G"). Returns a dict."""
    options["size"] = size
    text = _linksim.explain_collective_json(_topology_arg(topo), _text_arg("op", op), options)
    return json.loads(text)


def _arch_text(arch):
    if isinstance(arch, dict):
        return ",".join(f"{k}={_override_text(v)}" for k, v in arch.items())
    return _text_arg("arch", arch)


def _plan_options(model, layout):
    if model is not None:
        layout["model"] = _text_arg("model", model)
    if layout.get("arch") is not None:
        layout["arch"] = _arch_text(layout["arch"])
    return layout


def plan(topo, model=None, **layout):
    """Plans one step of an LLM on ``topo``: ``model="llama3.1-70b"`` (models()) or
    ``arch={"layers": 80, "hidden": 8192, ...}``, ``mode="train" | "prefill" | "decode"``, and
    the layout as `linksim plan`'s flags with Python names: tp, pp, dp, cp, ep, etp, vpp, sp,
    zero, micro_batch, global_batch, seq, batch, kv_len, prefill_chunk, dtype, weight_dtype,
    recompute, tp_overlap, gemm_efficiency, hbm_efficiency, baseline, framework, compile,
    shard_group, gpus, per_node, sim ("analytic" or "flow"), engine, engine_overhead and
    allreduce (prefill and decode, as --engine) and NCCL's switches (see
    collective()).

    Returns the object `linksim plan --json` prints, as a dict."""
    options = _plan_options(model, layout)
    return json.loads(_linksim.plan_json(_topology_arg(topo), options))


def search(topo, model=None, **layout):
    """Ranks every valid layout for the GPUs selected, as `linksim plan --search --json`:
    a list of dicts (rank, tp, pp, dp, ..., step_time_s, tokens_per_s, verdict)."""
    options = _plan_options(model, layout)
    return json.loads(_linksim.search_json(_topology_arg(topo), options))


def sensitivity(topo, model=None, factor=2, **layout):
    """The step time with each resource (NVLink, PCIe, NIC, GPU FLOP/s, HBM, ...) ``factor``
    times faster, as `linksim plan --sensitivity --json` (factor 2): a dict with factor,
    base_step_time_s and rows."""
    options = _plan_options(model, layout)
    return json.loads(_linksim.sensitivity_json(_topology_arg(topo), float(factor), options))


def explain(topo, model=None, **layout):
    """A plan's step time term by term, as `linksim explain plan --json`: a dict."""
    options = _plan_options(model, layout)
    return json.loads(_linksim.explain_json(_topology_arg(topo), options))


def serve(topo, model=None, **options):
    """Simulates serving requests on ``topo`` (docs/serving.md), as `linksim serve --json`:
    the model (``model="llama3.1-70b"`` or ``arch={...}``) and the layout and machine keywords
    of plan() (tp, pp, dp = replicas, ..., dtype, weight_dtype, gpus, per_node, sim, NCCL's
    switches; not mode, batch, seq, kv_len, micro_batch, global_batch or baseline: serving
    sizes its own batches), and serve's flags with Python names:

    * the workload, one of ``rate`` (Poisson, requests/s), ``concurrency`` (closed-loop
      clients) or ``trace`` (a CSV file: arrival_s, input_tokens, output_tokens), or only
      ``rate_sweep="FROM:TO:STEP"`` / ``max_rate=True``; ``requests`` (default 1000),
      ``seed`` (default 1), ``input_len`` and ``output_len`` (an int or "uniform:A:B",
      "normal:MEAN:SD", "lognormal:MU:SIGMA"; defaults 512 and 128), ``max_model_len``;
    * ``slo="ttft=500ms,tpot=50ms,pct=99"``, ``rate_sweep``, ``max_rate`` (the highest rate
      meeting the slo);
    * the engine: ``engine`` ("vllm", ...), ``engine_overhead`` ("2ms"), ``allreduce``
      ("nccl" or "custom"), ``max_num_seqs``, ``max_num_batched_tokens``, ``block_size``,
      ``chunked_prefill`` (True/False or "on"/"off"), ``preemption`` ("recompute", "swap",
      "none"), ``kv_blocks``, ``routing`` ("round-robin" or "shortest-queue").

    Returns the object `linksim serve --json` prints, as a dict (its keys: docs/cli.md). Bad
    input raises InputError with the CLI's message, the keyword named where the CLI names its
    flag (``rate: expected requests/s > 0, got 0``)."""
    options = _plan_options(model, options)
    if options.get("trace") is not None:
        options["trace"] = _text_arg("trace", options["trace"])
    return json.loads(_linksim.serve_json(_topology_arg(topo), options))


def run_scenario(path, out=None, jobs=0, formats=("csv", "json"), resume=False, shard="0/1"):
    """Runs a scenario file into the directory ``out`` (default linksim-out/<name>), as
    `linksim run PATH --out OUT --format ...`: the same cases/, manifest.json, results.csv,
    results.json (and charts/, report.html with "svg", "html") files.

    Returns a dict: out, cases_total, cases_selected, cases_run, cases_skipped, cases_failed,
    table and answers (the text `linksim run` prints), and results, the parsed
    results.json (None without "json" in formats)."""
    if isinstance(formats, str):
        formats = formats.split(",")
    outcome = _linksim.run_scenario(_text_arg("path", path), "" if out is None else
                                    _text_arg("out", out), int(jobs), list(formats),
                                    bool(resume), _text_arg("shard", shard))
    results_file = os.path.join(outcome["out"], "results.json")
    outcome["results"] = None
    if "json" in formats and os.path.exists(results_file):
        with open(results_file, encoding="utf-8") as f:
            outcome["results"] = json.load(f)
    return outcome


def compare(results_text, topo, **options):
    """A real nccl-tests output (its text, or a file name) against linksim's prediction of
    the same rows on ``topo``, as `linksim coll compare RESULTS --topo T --json`. Options:
    gpus, per_node, collective (for tables that do not name theirs), calibration."""
    text = _text_arg("results_text", results_text)
    return json.loads(_linksim.compare_json(text, _topology_arg(topo), options))


def models():
    """The built-in model catalog (data/models/models.yaml): one dict per model (key, name,
    aliases, layers, hidden, heads, kv_heads, head_dim, ffn, ffn_type, vocab, experts, topk,
    moe_ffn, params, active_params, published_params, source)."""
    return _linksim.models()


def gpus():
    """The built-in GPU catalog (data/catalog/gpus.yaml): one dict per GPU model (key, name,
    aliases, arch, sm, multiprocessors, nvlink_type, nvlink_lanes, p2p, pcie_gen, bf16_flops,
    fp8_flops in FLOP/s, memory_bytes, memory_bw_Bps, source)."""
    return _linksim.gpus()


def topologies():
    """The shipped machines (topologies/*.yaml): one dict each with name (what
    load_topology() accepts), path and description."""
    return [{"name": name, "path": path, "description": topology_description(path)}
            for name, path in shipped_topology_files().items()]
