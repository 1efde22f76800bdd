// SPDX-License-Identifier: Apache-2.0
// Topologies loaded once per (file, parameters) and shared read-only between worker threads.
#pragma once

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "linksim/scenario.hpp"

namespace linksim::detail {

class TopologyCache {
 public:
  /// The case's machine with its parameter values; the first caller loads it, concurrent
  /// callers for the same key wait for that load. Thread-safe. A load failure is a
  /// ConfigError at the case's machine entry, naming the parameter values.
  std::shared_ptr<const Topology> get(const ScenarioCase& scenario_case);

 private:
  using Entry = std::shared_future<std::shared_ptr<const Topology>>;
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

}  // namespace linksim::detail
