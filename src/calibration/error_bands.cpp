// SPDX-License-Identifier: Apache-2.0
// Error bands from the shipped validation residuals (data/validation/error_bands.yaml,
// compiled into the library; docs/calibration.md#error-bands).
#include "linksim/error_bands.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace linksim {
namespace detail {
extern const char* const kBuiltinErrorBandsYaml;
}  // namespace detail

namespace {

// The spread of measured / predicted time for one (mechanism, machine class) group.
struct Spread {
  double low = 1, high = 1;
  int rows = 0;
};

// Groups with fewer rows than this borrow the mechanism's spread over every machine class.
constexpr int kMinRowsPerGroup = 4;

struct BandTable {
  std::map<std::pair<std::string, std::string>, Spread> groups;  // (mechanism, class)
  std::map<std::string, Spread> by_mechanism;                     // class "any"
  Spread overall;                                                 // mechanism and class "any"
};

const BandTable& band_table() {
  static const BandTable table = [] {
    BandTable t;
    const YAML::Node root = YAML::Load(detail::kBuiltinErrorBandsYaml);
    for (const YAML::Node& band : root["bands"]) {
      const std::string mechanism = band["mechanism"].as<std::string>();
      const std::string cls = band["machine_class"].as<std::string>();
      const Spread s{band["low"].as<double>(), band["high"].as<double>(), band["rows"].as<int>()};
      if (mechanism == "any" && cls == "any") t.overall = s;
      else if (cls == "any") t.by_mechanism[mechanism] = s;
      else t.groups[{mechanism, cls}] = s;
    }
    return t;
  }();
  return table;
}

std::string_view family_mechanism(LinkFamily family) {
  switch (family) {
    case LinkFamily::kNvlink: return "nvlink";
    case LinkFamily::kPcie: return "pcie";
    case LinkFamily::kSmp: return "smp";
    case LinkFamily::kC2c: return "c2c";
    case LinkFamily::kNetwork: return "network";
  }
  return "none";
}

}  // namespace

std::string_view machine_class(const Topology& topology) {
  if (topology.host_count() > 1) return "cluster";
  bool nvlink = false;
  for (const Device& device : topology.devices()) {
    if (device.kind == DeviceKind::kNvswitch) return "nvswitch";
  }
  for (const Link& link : topology.links()) nvlink = nvlink || link.family == LinkFamily::kNvlink;
  return nvlink ? "nvlink" : "pcie";
}

std::string_view prediction_mechanism(const CollectiveResult& result, const Topology&,
                                       double size_bytes) {
  const Bottleneck& b = result.bottleneck;
  if (b.kind == BottleneckKind::kNone) return "none";
  if (size_bytes < kLatencyRegimeBytes) return "latency";
  switch (b.kind) {
    case BottleneckKind::kNone: return "none";
    case BottleneckKind::kLink: return family_mechanism(b.family);
    case BottleneckKind::kHostStaging: return "host_staging";
    case BottleneckKind::kNvls: return "nvls";
    case BottleneckKind::kServerNics: return "network";
    case BottleneckKind::kP2pChannels: return "p2p_channels";
    case BottleneckKind::kRingChannels: return "ring_channels";
  }
  return "none";
}

ErrorBand error_band(const CollectiveResult& result, const Topology& topology, double size_bytes) {
  ErrorBand band;
  band.mechanism = prediction_mechanism(result, topology, size_bytes);
  band.machine_class = machine_class(topology);
  const BandTable& table = band_table();
  Spread spread = table.overall;
  const auto group = table.groups.find({std::string(band.mechanism), std::string(band.machine_class)});
  if (group != table.groups.end() && group->second.rows >= kMinRowsPerGroup) {
    spread = group->second;
    band.validated = true;
  } else if (const auto m = table.by_mechanism.find(std::string(band.mechanism));
             m != table.by_mechanism.end() && m->second.rows >= kMinRowsPerGroup) {
    spread = m->second;
  }
  // The band always contains the prediction itself.
  band.low_factor = std::min(1.0, spread.low);
  band.high_factor = std::max(1.0, spread.high);
  return band;
}

}  // namespace linksim
