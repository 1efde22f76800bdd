# SPDX-License-Identifier: Apache-2.0
"""`pip install .` in a fresh virtual environment builds the module with the project's CMake
and installs it; then the issue's one-liner prints what `linksim coll` prints. Offline, as on
our machines: a venv over the system's site-packages (Debian's setuptools and pybind11) and
--no-build-isolation. The venv and setuptools' files go to the test's temporary directory; the
CMake build to a directory of its own, <source>/build-pip-test-<pid>, removed afterwards: at
the depth of build/, so that ccache (CCACHE_BASEDIR rewrites paths relative to the build
directory) reuses build/'s objects and the test takes a minute, not ten. ccache is used when
installed (scripts/build.sh builds build/ through it), with the source tree as its base
directory and the build directory left out of its hash, unless the environment says otherwise."""
import os
import shutil
import subprocess
import sys

from conftest import SOURCE_DIR
from install_check import DONE_MEANS, PIP_FLAGS, VENV_FLAGS, expected_busbw


def test_pip_install_in_a_fresh_venv(tmp_path):
    cmake_build = os.path.join(SOURCE_DIR, f"build-pip-test-{os.getpid()}")
    try:
        install_and_check(tmp_path, cmake_build)
    finally:
        shutil.rmtree(cmake_build, ignore_errors=True)


def install_and_check(tmp_path, cmake_build):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", *VENV_FLAGS, venv], check=True)
    python = str(venv / "bin" / "python")
    env = dict(os.environ,
               LINKSIM_CMAKE_BUILD_DIR=cmake_build,
               LINKSIM_PIP_BUILD_BASE=str(tmp_path / "setuptools-build"),
               PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)  # the fresh venv must find its own installed package
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    if shutil.which("ccache") and "CMAKE_CXX_COMPILER_LAUNCHER" not in env:
        env.update(CMAKE_CXX_COMPILER_LAUNCHER="ccache")
        env.setdefault("CCACHE_BASEDIR", SOURCE_DIR)
        env.setdefault("CCACHE_NOHASHDIR", "1")
    done = subprocess.run([python, "-m", "pip", "install", *PIP_FLAGS, SOURCE_DIR], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    where = subprocess.run([python, "-c", "import linksim; print(linksim.__file__)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert where.stdout.strip().startswith(str(venv))
    printed = subprocess.run([python, "-c", DONE_MEANS], cwd=SOURCE_DIR, env=env,
                             capture_output=True, text=True, check=True).stdout
    assert float(printed) == expected_busbw()
