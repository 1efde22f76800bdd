// SPDX-License-Identifier: Apache-2.0
#include "collectives/joint_flows.hpp"

#include <algorithm>

#include "collectives/lowering.hpp"

namespace linksim::detail {

JointFlows::JointFlows(std::vector<double> link_capacities_Bps, CollectiveOp op)
    : capacities_Bps_(std::move(link_capacities_Bps)), op_(op),
      claimed_(capacities_Bps_.size(), false) {}

void JointFlows::begin_group() { group_first_.push_back(uint32_t(transfers_.size())); }

void JointFlows::record_path(std::span<const ResourceId> resources, double share,
                             const std::vector<double>& capacities_Bps) {
  paths_.push_back({uint32_t(resources_.size()), uint32_t(resources.size()), share});
  for (ResourceId r : resources) {
    resources_.push_back(r);
    double& cap = capacities_Bps_[r.value];
    if (!claimed_[r.value]) {
      cap = capacities_Bps[r.value];
      claimed_[r.value] = true;
    } else {
      cap = std::min(cap, capacities_Bps[r.value]);
    }
  }
}

void JointFlows::add(const TransferSpec& spec, const std::vector<double>& capacities_Bps) {
  check_size(double(transfers_.size()) + 1, op_);
  Transfer t;
  t.bytes = spec.bytes;
  t.latency_s = spec.latency_s;
  t.rate_cap_Bps = spec.rate_cap_Bps;
  t.first_path = uint32_t(paths_.size());
  if (spec.paths.empty()) {
    record_path(spec.path, 1.0, capacities_Bps);
  } else {
    for (const PathSpec& p : spec.paths) record_path(p.resources, p.share, capacities_Bps);
  }
  t.path_count = uint32_t(paths_.size()) - t.first_path;
  transfers_.push_back(t);
}

JointFlows::Outcome JointFlows::run() const {
  FlowSimulator sim(capacities_Bps_, FlowSimOptions{.record_transfer_times = true});
  sim.reserve(transfers_.size(), resources_.size(), 0);
  std::vector<PathSpec> specs;
  for (const Transfer& t : transfers_) {
    specs.clear();
    for (uint32_t p = t.first_path; p < t.first_path + t.path_count; ++p) {
      const Path& path = paths_[p];
      specs.push_back({std::span<const ResourceId>(resources_.data() + path.first, path.count),
                       path.share});
    }
    sim.add_transfer({.bytes = t.bytes,
                      .paths = specs,
                      .latency_s = t.latency_s,
                      .rate_cap_Bps = t.rate_cap_Bps});
  }
  FlowResult result = sim.run();
  Outcome out;
  const size_t groups = group_first_.size();
  out.finish_s.assign(groups, 0.0);
  out.links.resize(groups);
  for (size_t g = 0; g < groups; ++g) {
    const uint32_t end = g + 1 < groups ? group_first_[g + 1] : uint32_t(transfers_.size());
    std::vector<uint32_t>& links = out.links[g];
    for (uint32_t i = group_first_[g]; i < end; ++i) {
      out.finish_s[g] = std::max(out.finish_s[g], result.transfers[i].finish_s);
      const Transfer& t = transfers_[i];
      for (uint32_t p = t.first_path; p < t.first_path + t.path_count; ++p) {
        for (uint32_t k = 0; k < paths_[p].count; ++k) {
          links.push_back(resources_[paths_[p].first + k].value);
        }
      }
    }
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
  }
  out.usage = std::move(result.resources);
  return out;
}

}  // namespace linksim::detail
