# SPDX-License-Identifier: Apache-2.0
"""linksim.serve against `linksim serve --json`: the same numbers for the same inputs, and the
CLI's messages for bad input (the keyword named where the CLI names its flag)."""
import os
import re

import pytest

import linksim
from conftest import SOURCE_DIR, cli_json, run_cli, topology_file

TRACE = os.path.join(SOURCE_DIR, "tests", "data", "serve", "trace_good.csv")
LLAMA_70B = dict(model="llama3.1-70b", tp=8)
LLAMA_70B_FLAGS = ["--model", "llama3.1-70b", "--tp", "8"]


def serve_cli(*flags):
    return cli_json("serve", "--topo", topology_file("dgx-h100"), *LLAMA_70B_FLAGS, *flags, "--json")


def test_rate_equals_serve_json(dgx_h100):
    result = linksim.serve(dgx_h100, **LLAMA_70B, rate=4, requests=200)
    assert result == serve_cli("--rate", "4", "--requests", "200")
    assert result["requests"] == 200
    assert result["rate_requests_per_s"] == 4
    assert result["ttft_s"]["p99"] >= result["ttft_s"]["p50"] > 0


def test_concurrency_with_distributions(dgx_h100):
    result = linksim.serve(dgx_h100, **LLAMA_70B, concurrency=16, requests=120,
                           input_len="uniform:128:1024", output_len="lognormal:4.5:0.5",
                           engine="vllm", max_num_seqs=64, chunked_prefill=False, seed=7)
    assert result == serve_cli("--concurrency", "16", "--requests", "120", "--input-len",
                               "uniform:128:1024", "--output-len", "lognormal:4.5:0.5", "--engine",
                               "vllm", "--max-num-seqs", "64", "--chunked-prefill", "off",
                               "--seed", "7")
    assert result["concurrency"] == 16


def test_int_lengths_are_token_counts(dgx_h100):
    result = linksim.serve(dgx_h100, **LLAMA_70B, rate=2, requests=50, input_len=256,
                           output_len=32)
    assert result == serve_cli("--rate", "2", "--requests", "50", "--input-len", "256",
                               "--output-len", "32")


def test_slo_with_max_rate(dgx_h100):
    slo = "ttft=500ms,tpot=50ms,pct=99"
    result = linksim.serve(dgx_h100, **LLAMA_70B, slo=slo, max_rate=True, requests=60,
                           output_len=32)
    assert result == serve_cli("--slo", slo, "--max-rate", "--requests", "60", "--output-len", "32")
    assert result["max_rate_requests_per_s"] > 0


def test_rate_sweep(dgx_h100):
    result = linksim.serve(dgx_h100, **LLAMA_70B, rate_sweep="1:3:1", requests=60, output_len=32,
                           slo="ttft=1s")
    assert result == serve_cli("--rate-sweep", "1:3:1", "--requests", "60", "--output-len", "32",
                               "--slo", "ttft=1s")
    assert [row["rate_requests_per_s"] for row in result["sweep"]] == [1, 2, 3]


def test_trace_file(dgx_h100):
    result = linksim.serve(dgx_h100, **LLAMA_70B, trace=TRACE, routing="shortest-queue")
    assert result == serve_cli("--trace", TRACE, "--routing", "shortest-queue")
    assert result["requests"] == 4


def test_seed_determinism(dgx_h100):
    run = dict(LLAMA_70B, rate=8, requests=100, input_len="normal:512:128")
    first, again = linksim.serve(dgx_h100, **run, seed=3), linksim.serve(dgx_h100, **run, seed=3)
    assert first == again
    assert linksim.serve(dgx_h100, **run, seed=4) != first


def cli_message(*flags):
    """The CLI's diagnostic for `serve FLAGS` with its flags spelled as Python keywords."""
    done = run_cli("serve", "--topo", topology_file("dgx-h100"), *LLAMA_70B_FLAGS, *flags,
                   ok_statuses=(2,))
    first = done.stderr.splitlines()[0]
    return re.sub(r"--([a-z][a-z-]*)", lambda m: m.group(1).replace("-", "_"), first)


@pytest.mark.parametrize("keywords, flags", [
    (dict(rate=0), ["--rate", "0"]),
    (dict(rate=2, slo="ttft=500"), ["--rate", "2", "--slo", "ttft=500"]),
    (dict(rate=2, rate_sweep="3:1:1"), ["--rate", "2", "--rate-sweep", "3:1:1"]),
    (dict(max_rate=True), ["--max-rate"]),
    (dict(rate=1, concurrency=2), ["--rate", "1", "--concurrency", "2"]),
    (dict(rate=1, input_len="uniform:9:3"), ["--rate", "1", "--input-len", "uniform:9:3"]),
    (dict(rate=1, engine="vllm2"), ["--rate", "1", "--engine", "vllm2"]),
])
def test_errors_are_the_cli_messages(dgx_h100, keywords, flags):
    expected = cli_message(*flags)
    with pytest.raises(linksim.InputError) as caught:
        linksim.serve(dgx_h100, **LLAMA_70B, **keywords)
    assert str(caught.value) == expected


def test_keyword_errors(dgx_h100):
    with pytest.raises(linksim.InputError) as caught:
        linksim.serve(dgx_h100, **LLAMA_70B, rate=0)
    assert caught.value.message == "rate: expected requests/s > 0, got 0"
    with pytest.raises(linksim.InputError) as caught:
        linksim.serve(dgx_h100, **LLAMA_70B, rat=1)
    assert caught.value.message == 'serve: unexpected keyword "rat" (did you mean "rate"?)'
    with pytest.raises(linksim.InputError) as caught:
        linksim.serve(dgx_h100, **LLAMA_70B, rate=1, mode="decode")
    assert caught.value.message == "mode: serve runs prefill and decode together; expected no mode"
    with pytest.raises(linksim.InputError) as caught:
        linksim.serve(dgx_h100, **LLAMA_70B)
    assert caught.value.message == ("expected a workload: rate=R, concurrency=C or trace=FILE "
                                    "(or rate_sweep, max_rate)")


def test_threads_share_a_topology(dgx_h100):
    from concurrent.futures import ThreadPoolExecutor
    run = dict(LLAMA_70B, requests=50, output_len=32)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda rate: linksim.serve(dgx_h100, **run, rate=rate), [1, 2, 1]))
    assert results[0] == results[2] == linksim.serve(dgx_h100, **run, rate=1)
    assert results[1]["rate_requests_per_s"] == 2


def test_trace_error_has_the_cli_position(dgx_h100):
    malformed = os.path.join(SOURCE_DIR, "tests", "data", "serve", "trace_malformed.csv")
    first = run_cli("serve", "--topo", topology_file("dgx-h100"), *LLAMA_70B_FLAGS, "--trace",
                    malformed, ok_statuses=(2,)).stderr.splitlines()[0]
    with pytest.raises(linksim.InputError) as caught:
        linksim.serve(dgx_h100, **LLAMA_70B, trace=malformed)
    assert str(caught.value) == first
    assert caught.value.line == 3
