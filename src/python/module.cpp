// SPDX-License-Identifier: Apache-2.0
// The compiled part of the Python package: `linksim._linksim`. The package's __init__.py
// (src/python/linksim/) gives it Python signatures and result types (docs/python.md).
#include <pybind11/pybind11.h>

#include "python/bindings.hpp"

PYBIND11_MODULE(_linksim, m) {
  m.doc() = "linksim's library, bound for Python; use the `linksim` package (docs/python.md)";
  m.attr("__version__") = LINKSIM_VERSION;
  linksim::python::bind_python_errors(m);
  linksim::python::bind_topology(m);
  linksim::python::bind_collective(m);
  linksim::python::bind_plan(m);
  linksim::python::bind_serve(m);
  linksim::python::bind_scenario(m);
  linksim::python::bind_catalogs(m);
}
