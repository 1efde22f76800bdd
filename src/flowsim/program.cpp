// SPDX-License-Identifier: Apache-2.0
// Validation of transfer specs and their compact recording (program.hpp).
#include "flowsim/program.hpp"

#include <cmath>
#include <fmt/format.h>

#include "linksim/error.hpp"

namespace linksim::flowsim_internal {
namespace {

void check_scalars(const TransferSpec& spec, const TransferLabel& label) {
  if (!std::isfinite(spec.bytes) || spec.bytes < 0) {
    reject(label, fmt::format("expected bytes >= 0, got {}", spec.bytes));
  }
  if (!std::isfinite(spec.latency_s) || spec.latency_s < 0) {
    reject(label, fmt::format("expected latency >= 0 s, got {}", spec.latency_s));
  }
  if (std::isnan(spec.rate_cap_Bps) || spec.rate_cap_Bps <= 0) {
    reject(label, fmt::format("expected a rate cap > 0 bytes/s, got {}", spec.rate_cap_Bps));
  }
  if (!spec.path.empty() && !spec.paths.empty()) {
    reject(label, "expected either path or paths, got both");
  }
}

void check_paths(const TransferSpec& spec, const TransferLabel& label, std::size_t resources,
                 double precision) {
  double total_share = 0;
  for (const PathSpec& path : spec.paths) {
    if (!(path.share > 0 && path.share <= 1)) {
      reject(label, fmt::format("expected a path share in (0, 1], got {}", path.share));
    }
    total_share += path.share;
  }
  if (!spec.paths.empty() && std::abs(total_share - 1) > precision) {
    reject(label, fmt::format("expected path shares summing to 1, got {}", total_share));
  }
  auto check_resources = [&](std::span<const ResourceId> path) {
    for (ResourceId resource : path) {
      if (resource.value >= resources) {
        reject(label, fmt::format("expected a resource id below {}, got {}", resources,
                                  resource.value));
      }
    }
  };
  check_resources(spec.path);
  for (const PathSpec& path : spec.paths) check_resources(path.resources);
}

void append_path(Program& program, std::span<const ResourceId> resources, double share) {
  for (ResourceId resource : resources) program.path_resources.push_back(resource.value);
  program.resource_begin.push_back(static_cast<uint32_t>(program.path_resources.size()));
  program.share.push_back(share);
}

}  // namespace

void Program::clear_transfers() {
  bytes.clear();
  latency_s.clear();
  rate_cap_Bps.clear();
  subflow_begin.assign(1, 0);
  dependency_begin.assign(1, 0);
  resource_begin.assign(1, 0);
  share.clear();
  path_resources.clear();
  dependencies.clear();
}

void check_setup(const std::vector<double>& capacities_Bps, const FlowSimOptions& options) {
  for (std::size_t r = 0; r < capacities_Bps.size(); ++r) {
    const double capacity = capacities_Bps[r];
    if (!std::isfinite(capacity) || capacity <= 0) {
      throw ConfigError(fmt::format(
          "flowsim: resource {}: expected a finite capacity > 0 bytes/s, got {}", r, capacity));
    }
  }
  if (!(options.precision >= 0 && options.precision < 1)) {
    throw ConfigError(
        fmt::format("flowsim: expected a precision in [0, 1), got {}", options.precision));
  }
}

void reject(const TransferLabel& label, std::string_view what) {
  if (label.step) {
    throw ConfigError(
        fmt::format("flowsim: step {}, transfer {}: {}", *label.step, label.index, what));
  }
  throw ConfigError(fmt::format("flowsim: transfer {}: {}", label.index, what));
}

void check_transfer(const TransferSpec& spec, const TransferLabel& label, std::size_t resources,
                    double precision) {
  check_scalars(spec, label);
  check_paths(spec, label, resources, precision);
}

void append_transfer(Program& p, const TransferSpec& spec) {
  p.bytes.push_back(spec.bytes);
  p.latency_s.push_back(spec.latency_s);
  p.rate_cap_Bps.push_back(spec.rate_cap_Bps);
  if (spec.paths.empty()) {
    append_path(p, spec.path, 1.0);
  } else {
    for (const PathSpec& path : spec.paths) append_path(p, path.resources, path.share);
  }
  p.subflow_begin.push_back(static_cast<uint32_t>(p.share.size()));
  for (TransferId dependency : spec.after) p.dependencies.push_back(dependency.value);
  p.dependency_begin.push_back(static_cast<uint32_t>(p.dependencies.size()));
}

}  // namespace linksim::flowsim_internal
