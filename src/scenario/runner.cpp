// SPDX-License-Identifier: Apache-2.0
// The parallel runner: worker threads take cases in order from a shared counter; results
// land in their case's slot, so the output does not depend on the thread count.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <limits>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "linksim/scenario.hpp"
#include "scenario/topology_cache.hpp"

namespace linksim {

Shard parse_shard(const std::string& text, const std::string& flag) {
  const size_t slash = text.find('/');
  auto number = [](const std::string& s, int& out) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) {
      return false;
    }
    return std::from_chars(s.data(), s.data() + s.size(), out).ec == std::errc();
  };
  Shard shard;
  if (slash == std::string::npos || !number(text.substr(0, slash), shard.index) ||
      !number(text.substr(slash + 1), shard.count) || shard.count < 1 ||
      shard.index >= shard.count) {
    throw ConfigError(fmt::format(
        "{}: expected I/N with 0 <= I < N, such as 0/4, got \"{}\"", flag, text));
  }
  return shard;
}

std::vector<CaseResult> run_scenario(const Scenario& scenario, const RunOptions& options) {
  std::vector<int> indices = options.selected;
  if (indices.empty()) {
    for (const ScenarioCase& c : scenario.cases) indices.push_back(c.index);
  }
  std::vector<CaseResult> results(indices.size());
  detail::TopologyCache cache;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  size_t first_error_position = std::numeric_limits<size_t>::max();

  auto work = [&] {
    while (!stop.load()) {
      const size_t position = next.fetch_add(1);
      if (position >= indices.size()) return;
      try {
        const ScenarioCase& c = scenario.cases.at(static_cast<size_t>(indices[position]));
        std::shared_ptr<const Topology> topology = cache.get(c);
        results[position] = run_case(c, *topology);
        if (options.on_done) options.on_done(c.index, results[position]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (position < first_error_position) {
          first_error_position = position;
          first_error = std::current_exception();
        }
        stop.store(true);
      }
    }
  };

  const size_t threads = std::min<size_t>(std::max(1, options.jobs), indices.size());
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> workers;
    workers.reserve(threads);
    for (size_t i = 0; i < threads; ++i) workers.emplace_back(work);
    for (std::thread& worker : workers) worker.join();
  }
  if (first_error) std::rethrow_exception(first_error);
  return results;
}

}  // namespace linksim
