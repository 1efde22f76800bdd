// SPDX-License-Identifier: Apache-2.0
// NCCL's double binary tree over servers (src/graph/trees.cc, ncclGetBtree and ncclGetDtree):
// tree 0 the binary tree rooted at server 0, tree 1 its mirror for an even count of servers
// and its shift by one server for an odd count. Expected edges derived by hand from those two
// functions.
#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "collectives/lowering.hpp"

namespace linksim {
namespace {

using Edges = std::vector<std::pair<int, int>>;  // (child, parent), in visiting order

Edges double_tree_edges(int servers) {
  Edges edges;
  detail::for_each_double_tree_edge(servers, [&](int c, int p) { edges.emplace_back(c, p); });
  return edges;
}

}  // namespace

TEST_SUITE("double_tree") {
  TEST_CASE("double tree: tree 1 mirrors tree 0 on an even count of servers") {
    // Tree 0 on 4: 1->2, 2->0 (2's next bit, 4, is past the end), 3->2. Tree 1: server r
    // plays 3 - r: 2->1, 1->3, 0->1; its root is server 3.
    CHECK(double_tree_edges(4) == Edges{{1, 2}, {2, 0}, {3, 2}, {2, 1}, {1, 3}, {0, 1}});
    CHECK(detail::second_btree_parent(3, 4) == -1);
    CHECK(double_tree_edges(2) == Edges{{1, 0}, {0, 1}});
  }

  TEST_CASE("double tree: tree 1 shifts tree 0 by one server on an odd count") {
    // Tree 0 on 3: 1->2, 2->0. Tree 1: server r plays r - 1, so 2->0 becomes 0->1 and 1->2
    // becomes 2->0; server 1 is its root. A mirror would make it 1->0, 0->2 instead.
    CHECK(double_tree_edges(3) == Edges{{1, 2}, {2, 0}, {2, 0}, {0, 1}});
    CHECK(detail::second_btree_parent(1, 3) == -1);
    // Five: tree 0 1->2, 2->4, 3->2, 4->0; tree 1 (shifted) 2->3, 3->0, 4->3, 0->1.
    CHECK(double_tree_edges(5) ==
          Edges{{1, 2}, {2, 4}, {3, 2}, {4, 0}, {2, 3}, {3, 0}, {4, 3}, {0, 1}});
  }

  TEST_CASE("double tree: each tree spans every server with one root") {
    for (int n = 2; n <= 33; ++n) {
      for (int tree = 0; tree < 2; ++tree) {
        int roots = 0;
        for (int r = 0; r < n; ++r) {
          const int p = tree == 0 ? detail::btree_parent(r, n) : detail::second_btree_parent(r, n);
          if (p < 0) {
            ++roots;
            continue;
          }
          CHECK(p != r);
          CHECK(p < n);
          // Following parents from r reaches the root within n steps (no cycle).
          int steps = 0, at = r;
          while (at >= 0 && steps <= n) {
            at = tree == 0 ? detail::btree_parent(at, n) : detail::second_btree_parent(at, n);
            ++steps;
          }
          CHECK(at == -1);
        }
        CHECK(roots == 1);
      }
    }
  }
}

}  // namespace linksim
