// SPDX-License-Identifier: Apache-2.0
// The machine of each collective study, its links coloured by their utilisation in the
// study's last case on it (the case document's link_usage; docs/scenario-format.md#charts).
#include <fmt/format.h>

#include "linksim/charts.hpp"
#include "linksim/error.hpp"
#include "linksim/topology_yaml.hpp"
#include "linksim/units.hpp"
#include "report/scenario_charts.hpp"

namespace linksim::detail {
namespace {

// Machines drawn at most: each picture is large, and one per machine says what it has to.
constexpr size_t kMaxMachinePictures = 8;

Topology machine_of(const ScenarioJson& usage, const std::string& case_id) {
  ParamOverrides set;
  for (const auto& item : usage["set"].items()) set[item.key()] = item.value().get<std::string>();
  const std::string file = usage["topology_file"].get<std::string>();
  try {
    return load_topology(file, set);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("the machine of case \"{}\" (\"{}\") does not load for its "
                                  "picture", case_id, file),
                      {e.what()});
  }
}

ScenarioChart machine_chart(const ScenarioJson& doc) {
  const ScenarioJson& usage = doc["link_usage"];
  const std::string id = doc["id"].get<std::string>();
  const Topology topology = machine_of(usage, id);
  std::vector<double> utilisation(topology.links().size(), 0.0);
  for (const ScenarioJson& entry : usage["links"]) {
    const size_t link = entry[0].get<size_t>();
    if (link >= utilisation.size()) {
      throw ConfigError(fmt::format("case \"{}\": link {} of its link_usage is not in its machine "
                                    "({} links); was the topology file changed since the run?",
                                    id, link, utilisation.size()));
    }
    utilisation[link] = entry[1].get<double>();
  }
  const std::string op = collective_title(doc["collective"]["collective"].get<std::string>());
  const std::string size = format_size(usage["size_bytes"].get<double>());
  MachinePictureOptions options;
  options.title = fmt::format("Link utilisation, {} {} on {} ({} GPUs)", op, size, case_label(doc),
                              doc["gpus"].get<int>());
  const bool flow = usage["mode"] == "flow" && doc["collective"]["mode"] != "flow";
  const std::string caption = fmt::format(
      "Each link coloured by the share of its per-direction rate it used during the {} of {} "
      "(bytes carried / (rate x time)){}; the bottleneck is drawn thick and labelled. Case {}.",
      op, size,
      flow ? ", from the flow simulation of the same query (the analytic model of this "
             "algorithm does not give per-link usage)"
           : "",
      id);
  return {fmt::format("machine-{}-{}", chart_file_part(doc["study"].get<std::string>()),
                      chart_file_part(doc["machine"].get<std::string>())),
          fmt::format("Machine: {}", case_label(doc)), caption,
          svg_machine_utilisation(topology, utilisation, options)};
}

}  // namespace

std::vector<ScenarioChart> machine_charts(const std::vector<ScenarioJson>& cases) {
  std::vector<const ScenarioJson*> drawn;
  for (const ScenarioJson& doc : cases) {
    if (case_ok(doc) && json_field(doc, "link_usage").is_object() &&
        json_field(doc, "collective").is_object()) {
      drawn.push_back(&doc);
    }
  }
  std::vector<ScenarioChart> charts;
  for (size_t i : spread_choice(drawn.size(), kMaxMachinePictures)) {
    charts.push_back(machine_chart(*drawn[i]));
  }
  return charts;
}

}  // namespace linksim::detail
