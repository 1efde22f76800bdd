// SPDX-License-Identifier: Apache-2.0
#include "linksim/gpu_selection.hpp"

#include <charconv>
#include <fmt/core.h>

#include "linksim/error.hpp"

namespace linksim {
namespace {

int parse_index(std::string_view text, std::string_view item) {
  int value = -1;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0) {
    throw ConfigError(RequestField{"gpus"}, fmt::format("expected a GPU index such as 3 or a range such as "
                                  "4-7, got \"{}\"",
                                  item));
  }
  return value;
}

// One --gpus item: [hostH:][gpu]A[-B].
void add_item(const Topology& t, std::string_view item, std::vector<DeviceId>& out) {
  int host = 0;
  std::string_view body = item;
  if (auto colon = item.find(':'); colon != std::string_view::npos) {
    std::string_view h = item.substr(0, colon);
    if (h.substr(0, 4) != "host") {
      throw ConfigError(RequestField{"gpus"}, fmt::format("expected \"hostN:\" before ':', got \"{}\"", item));
    }
    host = parse_index(h.substr(4), item);
    body = item.substr(colon + 1);
  }
  if (body.substr(0, 3) == "gpu") body = body.substr(3);
  int lo, hi;
  if (auto dash = body.find('-'); dash != std::string_view::npos) {
    lo = parse_index(body.substr(0, dash), item);
    hi = parse_index(body.substr(dash + 1), item);
  } else {
    lo = hi = parse_index(body, item);
  }
  if (host >= t.host_count()) {
    throw ConfigError(RequestField{"gpus"}, fmt::format("server host{} does not exist; the topology has {} "
                                  "(host0..host{})",
                                  host, t.host_count(), t.host_count() - 1));
  }
  std::vector<DeviceId> gpus = t.devices_of(host, DeviceKind::kGpu);
  if (lo > hi || hi >= static_cast<int>(gpus.size())) {
    throw ConfigError(RequestField{"gpus"}, fmt::format("GPU \"{}\" does not exist; host{} has GPUs 0..{}",
                                  item, host, gpus.size() - 1));
  }
  for (int i = lo; i <= hi; ++i) out.push_back(gpus[i]);
}

}  // namespace

std::vector<DeviceId> select_gpus(const Topology& topology, const GpuSelection& sel) {
  int given = sel.first_n.has_value() + sel.list.has_value() + sel.per_node.has_value();
  if (given > 1) throw ConfigError(RequestField{"gpus"}, "expected one way of choosing GPUs (a count, a list or a count per server), got several");
  std::vector<DeviceId> ranks;
  if (sel.list) {
    std::string_view rest = *sel.list;
    while (!rest.empty()) {
      auto comma = rest.find(',');
      add_item(topology, rest.substr(0, comma), ranks);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    return ranks;
  }
  const auto& all = topology.gpus();
  if (sel.per_node) {
    for (int h = 0; h < topology.host_count(); ++h) {
      auto gpus = topology.devices_of(h, DeviceKind::kGpu);
      if (*sel.per_node < 1 || *sel.per_node > static_cast<int>(gpus.size())) {
        throw ConfigError(RequestField{"per_node"}, fmt::format("expected 1..{} GPUs per server, got {}",
                                      gpus.size(), *sel.per_node));
      }
      ranks.insert(ranks.end(), gpus.begin(), gpus.begin() + *sel.per_node);
    }
    return ranks;
  }
  if (sel.first_n) {
    if (*sel.first_n < 1 || *sel.first_n > static_cast<int>(all.size())) {
      throw ConfigError(RequestField{"first_n"},
                        fmt::format("expected 1..{} GPUs, got {}", all.size(), *sel.first_n));
    }
    return {all.begin(), all.begin() + *sel.first_n};
  }
  return all;
}

}  // namespace linksim
