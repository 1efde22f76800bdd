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

Topology machine_of(const LinkUsageRecord& usage, const std::string& case_id) {
  try {
    return load_topology(usage.topology_file, usage.set);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("the machine of case \"{}\" (\"{}\") does not load for its "
                                  "picture", case_id, usage.topology_file),
                      {e.what()});
  }
}

ScenarioChart machine_chart(const CaseRecord& doc) {
  const CollectiveSweepRecord& collective = *doc.collective();
  const LinkUsageRecord& usage = *collective.link_usage;
  const std::string& id = doc.id;
  const Topology topology = machine_of(usage, id);
  std::vector<double> utilisation(topology.links().size(), 0.0);
  for (const LinkUtilization& entry : usage.links) {
    const size_t link = static_cast<size_t>(entry.link);
    if (entry.link < 0 || link >= utilisation.size()) {
      throw ConfigError(fmt::format("case \"{}\": link {} of its link_usage is not in its machine "
                                    "({} links); was the topology file changed since the run?",
                                    id, entry.link, utilisation.size()));
    }
    utilisation[link] = entry.utilization;
  }
  const std::string op = collective_title(collective.collective);
  const std::string size = format_size(usage.size_bytes);
  MachinePictureOptions options;
  options.title = fmt::format("Link utilisation, {} {} on {} ({} GPUs)", op, size, case_label(doc),
                              doc.gpus);
  const bool flow = usage.mode == "flow" && collective.mode != "flow";
  const std::string caption = fmt::format(
      "Each link coloured by the share of its per-direction rate it used during the {} of {} "
      "(bytes carried / (rate x time)){}; the bottleneck is drawn thick and labelled. Case {}.",
      op, size,
      flow ? ", from the flow simulation of the same query (the analytic model of this "
             "algorithm does not give per-link usage)"
           : "",
      id);
  return {fmt::format("machine-{}-{}", chart_file_part(doc.study), chart_file_part(doc.machine)),
          fmt::format("Machine: {}", case_label(doc)), caption,
          svg_machine_utilisation(topology, utilisation, options)};
}

}  // namespace

std::vector<ScenarioChart> machine_charts(const std::vector<CaseRecord>& cases) {
  std::vector<const CaseRecord*> drawn;
  for (const CaseRecord& doc : cases) {
    if (doc.ok() && doc.collective() != nullptr && doc.collective()->link_usage) {
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
