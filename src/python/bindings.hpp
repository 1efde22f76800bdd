// SPDX-License-Identifier: Apache-2.0
// The parts of the Python module `linksim._linksim` (docs/python.md), one function per file
// that adds its names to the module. Every binding converts its Python arguments while it
// holds the GIL, releases the GIL for the library call, and returns plain Python values
// (text, dicts, lists); the library's ConfigError and InternalError become
// linksim.InputError and linksim.InternalError (python_errors.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "linksim/topology.hpp"

namespace linksim::python {

/// A loaded machine as Python holds it: shared and immutable, so several threads may run
/// collectives and plans on one Topology at once.
struct PyTopology {
  std::shared_ptr<const Topology> topology;
};

void bind_python_errors(pybind11::module_& m);    // python_errors.cpp
void bind_topology(pybind11::module_& m);         // topology_binding.cpp
void bind_collective(pybind11::module_& m);       // collective_binding.cpp
void bind_plan(pybind11::module_& m);             // plan_binding.cpp
void bind_serve(pybind11::module_& m);            // serve_binding.cpp
void bind_scenario(pybind11::module_& m);         // scenario_binding.cpp
void bind_catalogs(pybind11::module_& m);         // catalog_binding.cpp

/// A JSON document rendered by src/report/ as Python values (json.loads), so the dicts a
/// binding returns have exactly the CLI's --json fields and numbers.
pybind11::object python_from_json(const std::string& json_text);

}  // namespace linksim::python
