// SPDX-License-Identifier: Apache-2.0
// FlowSimulator: input validation and the compact program it records.
#include <cmath>
#include <fmt/format.h>

#include "common/huge_pages.hpp"
#include "flowsim/event_loop.hpp"
#include "flowsim/program.hpp"
#include "linksim/error.hpp"
#include "linksim/flowsim.hpp"

namespace linksim {

using flowsim_internal::Program;
using flowsim_internal::TransferLabel;

FlowSimulator::FlowSimulator(std::vector<double> capacities_Bps, FlowSimOptions options)
    : program_(std::make_unique<Program>()) {
  flowsim_internal::check_setup(capacities_Bps, options);
  program_->capacities_Bps = std::move(capacities_Bps);
  program_->options = options;
}

FlowSimulator::~FlowSimulator() = default;
FlowSimulator::FlowSimulator(FlowSimulator&&) noexcept = default;
FlowSimulator& FlowSimulator::operator=(FlowSimulator&&) noexcept = default;

void FlowSimulator::reserve(std::size_t transfers, std::size_t path_entries,
                            std::size_t dependencies) {
  reserve(transfers, transfers, path_entries, dependencies);
}

void FlowSimulator::reserve(std::size_t transfers, std::size_t subflows,
                            std::size_t path_entries, std::size_t dependencies) {
  Program& p = *program_;
  p.bytes.reserve(transfers);
  p.latency_s.reserve(transfers);
  p.rate_cap_Bps.reserve(transfers);
  p.subflow_begin.reserve(transfers + 1);
  p.dependency_begin.reserve(transfers + 1);
  p.resource_begin.reserve(subflows + 1);
  p.share.reserve(subflows);
  p.path_resources.reserve(path_entries);
  p.dependencies.reserve(dependencies);
  // A cluster's program is tens of MiB, written once in order: huge pages fault it in.
  advise_huge_pages(p.bytes);
  advise_huge_pages(p.latency_s);
  advise_huge_pages(p.rate_cap_Bps);
  advise_huge_pages(p.subflow_begin);
  advise_huge_pages(p.dependency_begin);
  advise_huge_pages(p.resource_begin);
  advise_huge_pages(p.share);
  advise_huge_pages(p.path_resources);
  advise_huge_pages(p.dependencies);
}

TransferId FlowSimulator::add_transfer(const TransferSpec& spec) {
  Program& p = *program_;
  const uint32_t id = p.transfer_count();
  const TransferLabel label{.index = id, .step = std::nullopt};
  flowsim_internal::check_transfer(spec, label, p.capacities_Bps.size(), p.options.precision);
  for (TransferId dependency : spec.after) {
    if (dependency.value >= id) {
      flowsim_internal::reject(
          label, fmt::format("expected a dependency on an earlier transfer, got {}",
                             dependency.value));
    }
  }
  flowsim_internal::append_transfer(p, spec);
  return TransferId{id};
}

std::size_t FlowSimulator::transfer_count() const { return program_->transfer_count(); }
std::size_t FlowSimulator::resource_count() const { return program_->capacities_Bps.size(); }
const FlowSimOptions& FlowSimulator::options() const { return program_->options; }

FlowResult FlowSimulator::run() const { return flowsim_internal::simulate(*program_); }

}  // namespace linksim
