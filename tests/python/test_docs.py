# SPDX-License-Identifier: Apache-2.0
"""docs/python.md stays true: its Python blocks run, in order, as one session; its shell
commands that use the build tree run; its install commands are the ones test_pip_install
runs."""
import os
import re
import subprocess
import sys

from conftest import BINARY_DIR, SOURCE_DIR
from install_check import PIP_FLAGS, VENV_FLAGS

DOC = os.path.join(SOURCE_DIR, "docs", "python.md")
README = os.path.join(SOURCE_DIR, "README.md")


def blocks(language, doc=DOC):
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"^```" + language + r"\n(.*?)^```$", text, flags=re.S | re.M)


def scratch_directory(tmp_path):
    """A directory that sees the repository's inputs and the build, so outputs stay out of
    the tree."""
    for name in ("topologies", "scenarios", "data", "tests", "examples"):
        os.symlink(os.path.join(SOURCE_DIR, name), tmp_path / name)
    os.symlink(BINARY_DIR, tmp_path / "build")
    return tmp_path


def test_python_blocks_run(tmp_path, monkeypatch, capsys):
    code = blocks("python")
    assert len(code) >= 10
    monkeypatch.chdir(scratch_directory(tmp_path))
    session = {}
    for number, block in enumerate(code, 1):
        exec(compile(block, f"{DOC} (python block {number})", "exec"), session)
    printed = capsys.readouterr().out
    assert "<linksim.Topology pcie-8gpu" in printed
    assert "tests/data/errors/bad_unit.yaml 6 54" in printed


def test_readme_python_block_runs(tmp_path, monkeypatch):
    code = blocks("python", README)
    assert len(code) == 1
    monkeypatch.chdir(scratch_directory(tmp_path))
    exec(compile(code[0], f"{README} (python block)", "exec"), {})


def test_shell_commands_run(tmp_path):
    lines = [line for block in blocks("sh") for line in block.splitlines()
             if line.startswith("PYTHONPATH=build/python")]
    assert len(lines) == 2
    cwd = scratch_directory(tmp_path)
    for line in lines:
        command = line.replace(" python3 ", f" {sys.executable} ", 1)
        done = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True)
        assert done.returncode == 0, (line, done.stderr[-3000:])
    assert os.path.exists(cwd / "linksim-out" / "python" / "compare_machines.png")


def test_install_commands_are_the_tested_ones():
    install = [line for block in blocks("sh") for line in block.splitlines()
               if "venv" in line or "pip install" in line]
    assert install == [f"python3 -m venv {' '.join(VENV_FLAGS)} .venv",
                       f".venv/bin/pip install {' '.join(PIP_FLAGS)} ."]
