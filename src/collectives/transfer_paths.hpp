// SPDX-License-Identifier: Apache-2.0
// A route's paths in the form a flow transfer takes them (TransferSpec::paths), kept in one
// scratch a lowering reuses from transfer to transfer.
#pragma once

#include <cstdint>
#include <vector>

#include "linksim/flowsim.hpp"
#include "linksim/routing.hpp"

namespace linksim::detail {

/// Every path's links as resource ids (a link's id is its resource's), back to back, and per
/// path its span of them and its share. The spans point into `resources`: valid until it
/// changes.
struct TransferPaths {
  std::vector<ResourceId> resources;
  std::vector<PathSpec> paths;

  /// Writes `route`'s paths, `link_offset` added to every link id (a host-0 route moved to
  /// its server: Router::HostRoute), the room of both vectors reused.
  void assign(const Route& route, uint32_t link_offset = 0) {
    size_t total = 0;
    for (const Path& path : route.paths) total += path.links.size();
    resources.resize(total);
    paths.resize(route.paths.size());
    size_t at = 0;
    for (size_t p = 0; p < route.paths.size(); ++p) {
      const std::vector<LinkId>& links = route.paths[p].links;
      for (size_t i = 0; i < links.size(); ++i) resources[at + i] = ResourceId{links[i].value + link_offset};
      paths[p] = {std::span<const ResourceId>(resources.data() + at, links.size()),
                  route.paths[p].share};
      at += links.size();
    }
  }
};

}  // namespace linksim::detail
