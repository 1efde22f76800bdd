// SPDX-License-Identifier: Apache-2.0
// TransferPaths: a route's paths as a flow transfer takes them, link ids moved by an offset.
#include <doctest/doctest.h>

#include <vector>

#include "collectives/transfer_paths.hpp"

namespace linksim::detail {
namespace {

std::vector<uint32_t> ids(std::span<const ResourceId> resources) {
  std::vector<uint32_t> out;
  for (ResourceId r : resources) out.push_back(r.value);
  return out;
}

TEST_CASE("transfer paths: every path's links back to back, each path's span and share") {
  Route route;
  route.paths = {Path{{LinkId{4}, LinkId{9}}, 0.25}, Path{{}, 0.25}, Path{{LinkId{2}}, 0.5}};
  TransferPaths paths;
  paths.assign(route);
  CHECK(ids(paths.resources) == std::vector<uint32_t>{4, 9, 2});
  REQUIRE(paths.paths.size() == 3);
  CHECK(ids(paths.paths[0].resources) == std::vector<uint32_t>{4, 9});
  CHECK(paths.paths[0].share == 0.25);
  CHECK(paths.paths[1].resources.empty());
  CHECK(ids(paths.paths[2].resources) == std::vector<uint32_t>{2});
  CHECK(paths.paths[2].share == 0.5);
  // Reused for a shorter route moved to another server block: nothing of the first remains.
  Route one;
  one.paths = {Path{{LinkId{1}, LinkId{3}}, 1.0}};
  paths.assign(one, 100);
  CHECK(ids(paths.resources) == std::vector<uint32_t>{101, 103});
  REQUIRE(paths.paths.size() == 1);
  CHECK(ids(paths.paths[0].resources) == std::vector<uint32_t>{101, 103});
  CHECK(paths.paths[0].resources.data() == paths.resources.data());
  CHECK(paths.paths[0].share == 1.0);
}

}  // namespace
}  // namespace linksim::detail
