# SPDX-License-Identifier: Apache-2.0
"""`cmake --install` puts the package where the prefix's Python finds it."""
import os
import subprocess
import sys

from conftest import BINARY_DIR, SOURCE_DIR
from install_check import DONE_MEANS, expected_busbw


def test_cmake_install_into_a_prefix(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BINARY_DIR, "--prefix", prefix, "--component", "python"],
                   check=True, capture_output=True)
    site = subprocess.run([sys.executable, "-c",
                           "import sysconfig; print(sysconfig.get_path('platlib', 'posix_prefix', "
                           f"vars={{'base': '{prefix}', 'platbase': '{prefix}'}}))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    assert os.path.exists(os.path.join(site, "linksim", "__init__.py"))
    assert os.path.exists(os.path.join(site, "linksim", "topologies", "dgx-h100.yaml"))
    env = dict(os.environ, PYTHONPATH=site)
    done = subprocess.run([sys.executable, "-c", DONE_MEANS], cwd=SOURCE_DIR, env=env,
                          capture_output=True, text=True, check=True)
    assert float(done.stdout) == expected_busbw()
    where = subprocess.run([sys.executable, "-c", "import linksim; print(linksim.__file__)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert where.stdout.strip().startswith(site)
