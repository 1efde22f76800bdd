// SPDX-License-Identifier: Apache-2.0
// LINKSIM_CHECK and the REQUIRES clauses it guards: a broken contract is an InternalError
// naming its place in the source tree, never a crash or a silently wrong number.
#include <doctest/doctest.h>
#include <fmt/core.h>

#include <string>

#include "common/check.hpp"
#include "linksim/nccl_tests.hpp"

using namespace linksim;

TEST_SUITE("common") {

TEST_CASE("LINKSIM_CHECK: a failed check throws InternalError with file, line and condition") {
  int line = 0;
  try {
    line = __LINE__ + 1;
    LINKSIM_CHECK(1 + 1 == 3, "arithmetic holds");
    FAIL("LINKSIM_CHECK did not throw");
  } catch (const InternalError& e) {
    CHECK(e.file() == "tests/common/check_test.cpp");
    CHECK(e.line() == line);
    CHECK(e.message() == "arithmetic holds (1 + 1 == 3)");
    CHECK(std::string(e.what()) ==
          fmt::format("internal error at tests/common/check_test.cpp:{}: arithmetic holds "
                      "(1 + 1 == 3)",
                      line));
  }
  CHECK_NOTHROW(LINKSIM_CHECK(2 + 2 == 4, "arithmetic holds"));
}

TEST_CASE("REQUIRES: round_message_size refuses a type without bytes and a rankless call") {
  CHECK_THROWS_AS(round_message_size(CollectiveOp::kAllReduce, 1024, DataType{"none", 0}, 8),
                  InternalError);
  CHECK_THROWS_AS(round_message_size(CollectiveOp::kAllGather, 1024, kFloat, 0), InternalError);
  CHECK_THROWS_AS(round_message_size(CollectiveOp::kAllGather, -1, kFloat, 2), InternalError);
}

}  // TEST_SUITE
