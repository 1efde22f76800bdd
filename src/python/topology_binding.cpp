// SPDX-License-Identifier: Apache-2.0
// linksim.load_topology and linksim.Topology (docs/python.md#topology): a machine loaded by
// the library's loader, its GPUs, NICs and links, its summary, `nvidia-smi topo -m` matrix
// and lint findings (as `topo show`, `topo matrix` and `topo lint` print them) and the
// machine with faults (include/linksim/faults.hpp).
#include <fmt/core.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <utility>

#include "linksim/error.hpp"
#include "linksim/faults.hpp"
#include "linksim/routing.hpp"
#include "linksim/sysimport.hpp"
#include "linksim/topo_matrix.hpp"
#include "linksim/topo_matrix_report.hpp"
#include "linksim/topology_summary.hpp"
#include "linksim/topology_summary_report.hpp"
#include "linksim/topology_yaml.hpp"
#include "python/bindings.hpp"
#include "python/source_text_error.hpp"

namespace py = pybind11;

namespace linksim::python {
namespace {

/// The name parse errors give YAML passed as text.
constexpr const char* kYamlTextName = "<yaml text>";

PyTopology load_topology_binding(const std::string& path_or_text,
                                 const std::map<std::string, std::string>& overrides) {
  const ParamOverrides params(overrides.begin(), overrides.end());
  // Text with a line break is YAML; anything else a file name.
  const bool is_text = path_or_text.find('\n') != std::string::npos;
  py::gil_scoped_release unlocked;
  if (!is_text) return {std::make_shared<const Topology>(load_topology(path_or_text, params))};
  try {
    return {std::make_shared<const Topology>(parse_topology(path_or_text, kYamlTextName, params))};
  } catch (const ConfigError& e) {
    // Positions in the text itself show its line; those in a file it includes, the file's.
    if (e.where().file.str() != kYamlTextName) throw;
    throw SourceTextError{e, path_or_text};
  }
}

void check_topology_host(const Topology& topology, int host) {
  if (host < 0 || host >= topology.host_count()) {
    throw ConfigError(fmt::format("host: expected a server between 0 and {}, got {}",
                                  topology.host_count() - 1, host));
  }
}

py::list gpu_dicts(const Topology& t) {
  py::list gpus;
  for (DeviceId id : t.gpus()) {
    const Device& d = t.device(id);
    py::dict gpu;
    gpu["name"] = t.display_name(id);
    gpu["index"] = d.index;
    gpu["host"] = d.host ? py::object(py::int_(*d.host)) : py::object(py::none());
    gpu["model"] = d.model.str();
    gpu["gpu_name"] = t.gpu_model(id).name;
    gpu["p2p"] = d.p2p;
    gpu["clock_fraction"] = d.clock_fraction;
    gpus.append(gpu);
  }
  return gpus;
}

py::list nic_dicts(const Topology& t) {
  py::list nics;
  for (size_t i = 0; i < t.devices().size(); ++i) {
    const Device& d = t.devices()[i];
    if (d.kind != DeviceKind::kNic) continue;
    py::dict nic;
    nic["name"] = t.display_name(DeviceId{uint32_t(i)});
    nic["index"] = d.index;
    nic["host"] = d.host ? py::object(py::int_(*d.host)) : py::object(py::none());
    nic["port"] = t.details(d).port_name;
    nic["link_type"] = d.model.str();
    nics.append(nic);
  }
  return nics;
}

/// One dict per full-duplex link (the direction declared first), rates per direction.
py::list link_dicts(const Topology& t) {
  py::list links;
  for (size_t i = 0; i < t.links().size(); i += 2) {
    const Link& l = t.links()[i];
    py::dict link;
    link["from"] = t.display_name(l.from);
    link["to"] = t.display_name(l.to);
    link["type"] = t.link_type(l).str();
    link["family"] = std::string(to_string(l.family));
    link["lanes"] = l.lanes;
    link["bw_GBps"] = l.bw_Bps / 1e9;
    link["latency_us"] = l.latency_s * 1e6;
    links.append(link);
  }
  return links;
}

/// `linksim topo show --json`'s object.
py::object topology_summary_data(const PyTopology& self) {
  std::string json;
  {
    py::gil_scoped_release unlocked;
    json = render_topology_summary_json(summarize_topology(Router(*self.topology)));
  }
  return python_from_json(json);
}

std::string topology_matrix_text(const PyTopology& self, int host) {
  check_topology_host(*self.topology, host);
  py::gil_scoped_release unlocked;
  const Router router(*self.topology);
  return render_topo_matrix(topo_matrix(router, host));
}

py::object topology_matrix_data(const PyTopology& self, int host) {
  check_topology_host(*self.topology, host);
  std::string json;
  {
    py::gil_scoped_release unlocked;
    const Router router(*self.topology);
    json = render_topo_matrix_json(self.topology->name(), host, topo_matrix(router, host),
                                   gpu_bandwidth_matrix_GBps(router, host));
  }
  return python_from_json(json);
}

py::list lint_findings(const PyTopology& self, int host) {
  check_topology_host(*self.topology, host);
  std::vector<LintWarning> warnings;
  {
    py::gil_scoped_release unlocked;
    const Router router(*self.topology);
    warnings = lint_topology(router, host);
  }
  py::list findings;
  for (const LintWarning& w : warnings) {
    py::dict finding;
    finding["rule"] = w.rule;
    finding["devices"] = w.devices;
    finding["message"] = w.message;
    findings.append(finding);
  }
  return findings;
}

/// The machine with the faults of every spec, applied in order (as repeated --degrade).
PyTopology degraded_topology(const PyTopology& self, const std::vector<std::string>& specs) {
  py::gil_scoped_release unlocked;
  Topology topology = *self.topology;
  for (const std::string& spec : specs) {
    try {
      topology = with_degraded(topology, spec);
    } catch (const ConfigError& e) {
      throw ConfigError(e.where(), "faults: " + e.message(), e.notes());
    }
  }
  return {std::make_shared<const Topology>(std::move(topology))};
}

}  // namespace

py::object python_from_json(const std::string& json_text) {
  return py::module_::import("json").attr("loads")(json_text);
}

void bind_topology(py::module_& m) {
  py::class_<PyTopology>(m, "Topology",
                         "A machine: its devices and links, loaded by load_topology()")
      .def_property_readonly("name", [](const PyTopology& t) { return t.topology->name(); })
      .def_property_readonly("source_file",
                             [](const PyTopology& t) { return t.topology->source_file(); })
      .def_property_readonly("servers",
                             [](const PyTopology& t) { return t.topology->host_count(); })
      .def_property_readonly("gpus", [](const PyTopology& t) { return gpu_dicts(*t.topology); })
      .def_property_readonly("nics", [](const PyTopology& t) { return nic_dicts(*t.topology); })
      .def_property_readonly("links",
                             [](const PyTopology& t) { return link_dicts(*t.topology); })
      .def("summary", &topology_summary_data)
      .def("matrix", &topology_matrix_text, py::arg("host") = 0)
      .def("matrix_data", &topology_matrix_data, py::arg("host") = 0)
      .def("lint", &lint_findings, py::arg("host") = 0)
      .def(
          "with_degraded",
          [](const PyTopology& self, const std::string& spec) {
            return degraded_topology(self, {spec});
          },
          py::arg("faults"),
          "The machine with faults, in --degrade's grammar: \"gpu3:missing,nic0:speed=200Gb/s\"")
      .def("with_degraded", &degraded_topology, py::arg("faults"),
           "The machine with the faults of each spec, applied in order")
      .def("__repr__", [](const PyTopology& t) {
        return fmt::format("<linksim.Topology {} ({} GPUs on {} server{})>", t.topology->name(),
                           t.topology->gpus().size(), t.topology->host_count(),
                           t.topology->host_count() == 1 ? "" : "s");
      });
  m.def("load_topology", &load_topology_binding, py::arg("path_or_yaml_text"),
        py::arg("overrides") = std::map<std::string, std::string>{});
}

}  // namespace linksim::python
