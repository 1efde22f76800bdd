// SPDX-License-Identifier: Apache-2.0
// FlowSimulator: input validation and the compact program it records.
#include <cmath>
#include <fmt/format.h>

#include "flowsim/event_loop.hpp"
#include "flowsim/program.hpp"
#include "linksim/error.hpp"
#include "linksim/flowsim.hpp"

namespace linksim {
namespace {

using flowsim_internal::Program;

[[noreturn]] void reject(uint32_t transfer, std::string_view what) {
  throw ConfigError(fmt::format("flowsim: transfer {}: {}", transfer, what));
}

void check_scalars(const TransferSpec& spec, uint32_t id) {
  if (!std::isfinite(spec.bytes) || spec.bytes < 0) {
    reject(id, fmt::format("expected bytes >= 0, got {}", spec.bytes));
  }
  if (!std::isfinite(spec.latency_s) || spec.latency_s < 0) {
    reject(id, fmt::format("expected latency >= 0 s, got {}", spec.latency_s));
  }
  if (std::isnan(spec.rate_cap_Bps) || spec.rate_cap_Bps <= 0) {
    reject(id, fmt::format("expected a rate cap > 0 bytes/s, got {}", spec.rate_cap_Bps));
  }
  if (!spec.path.empty() && !spec.paths.empty()) {
    reject(id, "expected either path or paths, got both");
  }
}

void check_paths(const TransferSpec& spec, uint32_t id, std::size_t resources, double precision) {
  double total_share = 0;
  for (const PathSpec& path : spec.paths) {
    if (!(path.share > 0 && path.share <= 1)) {
      reject(id, fmt::format("expected a path share in (0, 1], got {}", path.share));
    }
    total_share += path.share;
  }
  if (!spec.paths.empty() && std::abs(total_share - 1) > precision) {
    reject(id, fmt::format("expected path shares summing to 1, got {}", total_share));
  }
  auto check_resources = [&](std::span<const ResourceId> path) {
    for (ResourceId resource : path) {
      if (resource.value >= resources) {
        reject(id, fmt::format("expected a resource id below {}, got {}", resources,
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

FlowSimulator::FlowSimulator(std::vector<double> capacities_Bps, FlowSimOptions options)
    : program_(std::make_unique<Program>()) {
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
  program_->capacities_Bps = std::move(capacities_Bps);
  program_->options = options;
}

FlowSimulator::~FlowSimulator() = default;
FlowSimulator::FlowSimulator(FlowSimulator&&) noexcept = default;
FlowSimulator& FlowSimulator::operator=(FlowSimulator&&) noexcept = default;

void FlowSimulator::reserve(std::size_t transfers, std::size_t path_entries,
                            std::size_t dependencies) {
  Program& p = *program_;
  p.bytes.reserve(transfers);
  p.latency_s.reserve(transfers);
  p.rate_cap_Bps.reserve(transfers);
  p.subflow_begin.reserve(transfers + 1);
  p.dependency_begin.reserve(transfers + 1);
  p.resource_begin.reserve(transfers + 1);
  p.share.reserve(transfers);
  p.path_resources.reserve(path_entries);
  p.dependencies.reserve(dependencies);
}

TransferId FlowSimulator::add_transfer(const TransferSpec& spec) {
  Program& p = *program_;
  const uint32_t id = p.transfer_count();
  check_scalars(spec, id);
  check_paths(spec, id, p.capacities_Bps.size(), p.options.precision);
  for (TransferId dependency : spec.after) {
    if (dependency.value >= id) {
      reject(id, fmt::format("expected a dependency on an earlier transfer, got {}",
                             dependency.value));
    }
  }
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
  return TransferId{id};
}

std::size_t FlowSimulator::transfer_count() const { return program_->transfer_count(); }
std::size_t FlowSimulator::resource_count() const { return program_->capacities_Bps.size(); }
const FlowSimOptions& FlowSimulator::options() const { return program_->options; }

FlowResult FlowSimulator::run() const { return flowsim_internal::simulate(*program_); }

}  // namespace linksim
