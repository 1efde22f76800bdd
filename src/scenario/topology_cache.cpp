// SPDX-License-Identifier: Apache-2.0
// The shared topology cache of a scenario run.
#include "scenario/topology_cache.hpp"

#include <fmt/format.h>

namespace linksim::detail {
namespace {

std::string overrides_text(const ParamOverrides& overrides) {
  std::string text;
  for (const auto& [name, value] : overrides) {
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
  }
  return text;
}

}  // namespace

std::shared_ptr<const Topology> TopologyCache::get(const ScenarioCase& c) {
  const std::string key = c.topology_file + "\n" + overrides_text(c.overrides);
  std::promise<std::shared_ptr<const Topology>> promise;
  Entry entry;
  bool load = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      entry = promise.get_future().share();
      entries_.emplace(key, entry);
      load = true;
    } else {
      entry = it->second;
    }
  }
  if (load) {
    try {
      promise.set_value(std::make_shared<const Topology>(load_topology(c.topology_file, c.overrides)));
    } catch (const ConfigError& e) {
      const std::string values = overrides_text(c.overrides);
      promise.set_exception(std::make_exception_ptr(ConfigError(
          c.machine_where,
          fmt::format("machine \"{}\" does not load{}", c.machine,
                      values.empty() ? "" : " with " + values),
          {e.what()})));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return entry.get();
}

}  // namespace linksim::detail
