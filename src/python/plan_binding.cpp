// SPDX-License-Identifier: Apache-2.0
// linksim.plan, search, sensitivity and explain (docs/python.md#plan): the planner's answers
// as `linksim plan --json`, `plan --search --json`, `plan --sensitivity --json` and
// `explain plan --json` print them, through the same library calls and renderers.
#include <pybind11/pybind11.h>

#include "linksim/explain_report.hpp"
#include "linksim/plan.hpp"
#include "linksim/plan_explain.hpp"
#include "linksim/plan_report.hpp"
#include "python/bindings.hpp"
#include "python/plan_keywords.hpp"

namespace py = pybind11;

namespace linksim::python {
namespace {

PlanRequest plan_request_arg(const char* call, py::dict kwargs) {
  return plan_request_from(KeywordOptions(kwargs, call, plan_keyword_names()));
}

std::string plan_json(const PyTopology& topo, py::dict kwargs) {
  const PlanRequest request = plan_request_arg("plan", kwargs);
  const std::shared_ptr<const Topology> topology = topo.topology;
  py::gil_scoped_release unlocked;
  return render_plan_json(plan(*topology, request));
}

std::string search_json(const PyTopology& topo, py::dict kwargs) {
  const PlanRequest request = plan_request_arg("search", kwargs);
  const std::shared_ptr<const Topology> topology = topo.topology;
  py::gil_scoped_release unlocked;
  return render_search_json(search_layouts(*topology, request));
}

/// As `plan --sensitivity`: the plan's step time, then each resource `factor` times faster
/// with the baseline search off (the rows compare step times, not speedups).
std::string sensitivity_json(const PyTopology& topo, double factor, py::dict kwargs) {
  PlanRequest request = plan_request_arg("sensitivity", kwargs);
  const std::shared_ptr<const Topology> topology = topo.topology;
  py::gil_scoped_release unlocked;
  const PlanResult result = plan(*topology, request);
  request.compute_baseline = false;
  return render_sensitivity_json(result.step_time_s, sensitivity(*topology, request, factor),
                                 factor);
}

std::string explain_json(const PyTopology& topo, py::dict kwargs) {
  const PlanRequest request = plan_request_arg("explain", kwargs);
  const std::shared_ptr<const Topology> topology = topo.topology;
  py::gil_scoped_release unlocked;
  return render_plan_explain_json(explain_plan(*topology, request));
}

}  // namespace

void bind_plan(py::module_& m) {
  m.def("plan_json", &plan_json, py::arg("topology"), py::arg("options"));
  m.def("search_json", &search_json, py::arg("topology"), py::arg("options"));
  m.def("sensitivity_json", &sensitivity_json, py::arg("topology"), py::arg("factor"),
        py::arg("options"));
  m.def("explain_json", &explain_json, py::arg("topology"), py::arg("options"));
}

}  // namespace linksim::python
