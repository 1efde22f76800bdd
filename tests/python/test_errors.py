# SPDX-License-Identifier: Apache-2.0
"""Bad input raises linksim.InputError (a linksim.Error) with the file, line and column the
CLI prints, and the interpreter carries on."""
import os
import re

import pytest

import linksim
from conftest import SOURCE_DIR, run_cli, topology_file

BAD_UNIT = os.path.join(SOURCE_DIR, "tests", "data", "errors", "bad_unit.yaml")


def cli_error(*args):
    """The first line of the CLI's diagnostic and its parts: file, line, column, message."""
    done = run_cli(*args, ok_statuses=(2,))
    first = done.stderr.splitlines()[0]
    match = re.match(r"^(.*):(\d+):(\d+): error: (.*)$", first)
    assert match, first
    return first, match.group(1), int(match.group(2)), int(match.group(3)), match.group(4)


def test_topology_error_has_the_cli_position():
    first, file, line, column, message = cli_error("topo", "show", BAD_UNIT)
    with pytest.raises(linksim.InputError) as caught:
        linksim.load_topology(BAD_UNIT)
    error = caught.value
    assert isinstance(error, linksim.Error)
    assert (error.file, error.line, error.column, error.message) == (file, line, column, message)
    assert str(error) == first
    assert "^" in error.diagnostic and "2 fortnights" in error.diagnostic


def test_yaml_text_error_shows_the_line():
    _, _, line, column, message = cli_error("topo", "show", BAD_UNIT)
    with open(BAD_UNIT, encoding="utf-8") as f:
        text = f.read()
    with pytest.raises(linksim.InputError) as caught:
        linksim.load_topology(text)
    error = caught.value
    assert error.file == "<yaml text>"
    assert (error.line, error.column, error.message) == (line, column, message)
    assert str(error) == f"<yaml text>:{line}:{column}: error: {message}"
    assert "latency: 2 fortnights" in error.diagnostic


def test_missing_file():
    with pytest.raises(linksim.InputError) as caught:
        linksim.load_topology("no-such-machine.yaml")
    assert "no-such-machine.yaml" in str(caught.value)


def test_unknown_model_names_the_keyword(dgx_h100):
    cli = run_cli("plan", "--topo", topology_file("dgx-h100"), "--model", "llama3.1-70c", "--mode",
                  "decode", ok_statuses=(2,)).stderr.splitlines()[0]
    with pytest.raises(linksim.InputError) as caught:
        linksim.plan(dgx_h100, "llama3.1-70c", mode="decode")
    assert caught.value.file is None and caught.value.line == 0
    # The CLI names the flag (--model), Python the keyword (model); the rest is the same.
    assert str(caught.value) == cli.replace("--model", "model")


def test_bad_keyword_values(dgx_h100):
    with pytest.raises(linksim.InputError, match=r'^linksim: error: dtype: expected one of int8'):
        linksim.collective(dgx_h100, "allreduce", sizes=[8], dtype="float33")
    with pytest.raises(linksim.InputError) as caught:
        linksim.collective(dgx_h100, "allreduce", sizes=[8], dtyp="half")
    assert caught.value.message == 'collective: unexpected keyword "dtyp" (did you mean "dtype"?)'
    with pytest.raises(linksim.InputError) as caught:
        linksim.plan(dgx_h100, "llama3.1-8b", mode="decode", tp=-2)
    assert caught.value.message == "tp: expected a positive integer, got -2"
    with pytest.raises(linksim.InputError) as caught:
        linksim.collective(dgx_h100, "allreduse", sizes=[8])
    assert caught.value.message.startswith('op: expected one of allreduce, allgather')
    with pytest.raises(linksim.InputError) as caught:
        linksim.collective(dgx_h100, "allreduce", sizes=["1Q"])
    assert caught.value.message == ("sizes: expected a size such as 8, 65536, \"64K\", \"1M\" or "
                                    "\"8G\", got '1Q'")
    with pytest.raises(linksim.InputError) as caught:
        linksim.collective(dgx_h100, "allreduce")
    assert caught.value.message.startswith("give a message size")


def test_library_errors_keep_their_text(dgx_h100):
    cli = run_cli("coll", "allreduce", "--topo", topology_file("dgx-h100"), "--size", "1G", "-g",
                  "9", ok_statuses=(2,)).stderr.splitlines()[0]
    with pytest.raises(linksim.InputError) as caught:
        linksim.collective(dgx_h100, "allreduce", sizes=["1G"], gpus=9)
    # The library's own message, word for word; it names the field, each front end in its terms.
    assert cli == "linksim: error: -g: expected 1..8 GPUs, got 9"
    assert str(caught.value) == "linksim: error: gpus: expected 1..8 GPUs, got 9"
    assert caught.value.message == "gpus: expected 1..8 GPUs, got 9"
    with pytest.raises(linksim.InputError) as caught:
        dgx_h100.with_degraded("nvlink:width=9")
    assert caught.value.message == ("faults: 'nvlink:width=9': expected fewer lanes than the "
                                    "link's 5, got 9")
    with pytest.raises(linksim.InputError) as caught:
        dgx_h100.with_degraded("nvswich0:missing")
    assert "did you mean" in caught.value.message and "nvswitch0" in caught.value.message


def test_the_interpreter_carries_on(dgx_h100):
    for _ in range(3):
        with pytest.raises(linksim.Error):
            linksim.load_topology(BAD_UNIT)
    assert linksim.collective(dgx_h100, "allreduce", sizes=[8])[0]["size_bytes"] == 8


def test_engine_keywords_need_an_inference_engine(dgx_h100):
    with pytest.raises(linksim.InputError) as caught:
        linksim.plan(dgx_h100, "llama3.1-8b", mode="train", dp=8, engine="vllm")
    assert caught.value.message == 'engine: expected mode="prefill" or "decode", got mode="train"'
    with pytest.raises(linksim.InputError) as caught:
        linksim.plan(dgx_h100, "llama3.1-8b", mode="decode", allreduce="nccl")
    assert caught.value.message == "allreduce: expected an engine to apply to, got engine=none"
