# SPDX-License-Identifier: Apache-2.0
"""Builds the Python package `linksim` with the project's CMake (pyproject.toml).

The extension `linksim._linksim` is the CMake target linksim_python; CMake assembles the whole
package (the module, src/python/linksim/*.py and the shipped topologies) in
<cmake build>/python/linksim/, which is copied into the wheel. Environment:
  LINKSIM_CMAKE_BUILD_DIR   the CMake build directory (default: under setuptools' build_temp)
  LINKSIM_PIP_BUILD_BASE    setuptools' build and egg-info directory (default build-python/)
  CMAKE_BUILD_PARALLEL_LEVEL, CMAKE_CXX_COMPILER_LAUNCHER (e.g. ccache) as CMake reads them.
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE_DIR = os.path.dirname(os.path.abspath(__file__))
BUILD_BASE = os.environ.get("LINKSIM_PIP_BUILD_BASE") or os.path.join(SOURCE_DIR, "build-python")


class CMakePackage(Extension):
    """The compiled module; its sources are CMake's business."""

    def __init__(self):
        super().__init__("linksim._linksim", sources=[])


class BuildWithCMake(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("LINKSIM_CMAKE_BUILD_DIR") or os.path.join(
            os.path.abspath(self.build_temp), "cmake")
        configure = ["cmake", "-S", SOURCE_DIR, "-B", build_dir,
                     "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DLINKSIM_BUILD_TESTS=OFF",
                     "-DLINKSIM_BUILD_BENCH=OFF", "-DLINKSIM_PYTHON=ON",
                     f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        try:  # pybind11's CMake files: from the pip package, else the system's (pybind11-dev)
            import pybind11
            configure.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", build_dir, "--target", "linksim_python", "-j", jobs],
                       check=True)
        package = os.path.join(build_dir, "python", "linksim")
        destination = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        shutil.copytree(package, destination, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))


os.makedirs(BUILD_BASE, exist_ok=True)
setup(
    packages=["linksim"],
    package_dir={"linksim": "src/python/linksim"},
    ext_modules=[CMakePackage()],
    cmdclass={"build_ext": BuildWithCMake},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
    zip_safe=False,
)
