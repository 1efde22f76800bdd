// SPDX-License-Identifier: Apache-2.0
#include "plan/comm_timer.hpp"

#include <fmt/core.h>

#include "linksim/collective_rows.hpp"

namespace linksim::plan_detail {

CommTimer::CommTimer(const Topology& topology, CommOptions options, SimMode mode)
    : topology_(topology), options_(options), mode_(mode) {}

const Communicator& CommTimer::communicator(const std::vector<DeviceId>& gpus) {
  auto it = communicators_.find(gpus);
  if (it == communicators_.end()) {
    // Groups after the first share its topology-wide tables (capacities, fabric routes).
    auto made = communicators_.empty()
                    ? std::make_unique<Communicator>(topology_, gpus, options_)
                    : std::make_unique<Communicator>(*communicators_.begin()->second, gpus, options_);
    it = communicators_.emplace(gpus, std::move(made)).first;
  }
  return *it->second;
}

TimedCollective CommTimer::time(const std::vector<DeviceId>& gpus, CollectiveOp op, double bytes) {
  const Communicator& comm = communicator(gpus);
  const auto key = std::make_tuple(&comm, int(op), bytes);
  if (auto it = answers_.find(key); it != answers_.end()) return it->second;
  CollectiveQuery query;
  query.op = op;
  query.size_bytes = bytes;
  query.mode = mode_;
  const CollectiveResult r = comm.run(query);
  TimedCollective t{r.time_s, r.algorithm, r.protocol, r.bottleneck};
  answers_.emplace(key, t);
  return t;
}

std::string describe_gpus(const Topology& topology, const std::vector<DeviceId>& gpus) {
  if (gpus.empty()) return {};
  const Device& first = topology.device(gpus.front());
  const Device& last = topology.device(gpus.back());
  bool consecutive_in_one_host = first.host == last.host;
  for (size_t i = 1; i < gpus.size() && consecutive_in_one_host; ++i) {
    const Device& d = topology.device(gpus[i]);
    consecutive_in_one_host = d.host == first.host && d.index == first.index + int(i);
  }
  if (consecutive_in_one_host && gpus.size() > 2) {
    std::string prefix = topology.host_count() > 1 ? fmt::format("host{}:", first.host.value_or(0)) : "";
    return fmt::format("{}gpu{}-{}", prefix, first.index, last.index);
  }
  std::string text;
  const size_t shown = std::min<size_t>(gpus.size(), 4);
  for (size_t i = 0; i < shown; ++i) {
    if (i) text += ", ";
    text += topology.display_name(gpus[i]);
  }
  if (gpus.size() > shown) text += fmt::format(", ... ({} GPUs)", gpus.size());
  return text;
}

}  // namespace linksim::plan_detail
