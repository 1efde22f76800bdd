// SPDX-License-Identifier: Apache-2.0
// The one table of algorithms: lists, parses (names.cpp) and dispatches (analytic.cpp,
// flow_lowering.cpp) them.
#include "collectives/algorithm.hpp"

namespace linksim::detail {

std::span<const AlgorithmOps> algorithm_table() {
  // Function-local: built on first use, after every row's file is initialized.
  static const AlgorithmOps kTable[] = {ring_algorithm(), tree_algorithm(), nvls_algorithm(),
                                        nvls_tree_algorithm(), direct_algorithm()};
  return kTable;
}

const AlgorithmOps* find_algorithm(Algorithm algorithm) {
  for (const AlgorithmOps& ops : algorithm_table()) {
    if (ops.algorithm == algorithm) return &ops;
  }
  return nullptr;
}

}  // namespace linksim::detail
