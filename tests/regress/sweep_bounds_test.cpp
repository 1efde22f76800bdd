// SPDX-License-Identifier: Apache-2.0
// Regression: sweeps that looped, descended or grew without bound (-f 1, -f -1, -f 0.5,
// -f 1.000001, -b 1e300T) are refused or bounded before any work; what nccl-tests accepts
// (-f 1 with -b == -e, -f 1 stepping by -i) stays legal.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "linksim/error.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/units.hpp"

using namespace linksim;

namespace {

std::string error_text(const SweepSpec& spec) {
  try {
    sweep_sizes(spec);
  } catch (const ConfigError& e) {
    return e.field().empty() ? e.message() : e.field() + ": " + e.message();
  }
  return "(no error)";
}

SweepSpec spec_of(double min_bytes, double max_bytes, double factor) {
  SweepSpec spec;
  spec.min_bytes = min_bytes;
  spec.max_bytes = max_bytes;
  spec.factor = factor;
  return spec;
}

}  // namespace

TEST_SUITE("regress") {

TEST_CASE("sweep: -f 1 with -b == -e is one size, as in nccl-tests") {
  const double mib = 1048576;
  CHECK(sweep_sizes(spec_of(mib, mib, 1)) == std::vector<double>{mib});
}

TEST_CASE("sweep: -f 1 steps by -i bytes, as nccl-tests' TimeTest loop") {
  // -b 1M -e 4M -i 1M: 1, 2, 3, 4 MiB.
  const double mib = 1048576;
  SweepSpec spec = spec_of(mib, 4 * mib, 1);
  spec.step_bytes = mib;
  CHECK(sweep_sizes(spec) == std::vector<double>{mib, 2 * mib, 3 * mib, 4 * mib});
}

TEST_CASE("sweep: -b 0 with -f 1 steps from zero, as nccl-tests; with a factor it is refused") {
  const double mib = 1048576;
  CHECK(sweep_sizes(spec_of(0, 2 * mib, 1)) == std::vector<double>{0, mib, 2 * mib});
  // 0 x 2 stays 0: nccl-tests would repeat 0 bytes without end; the sweep once shrank to one
  // row silently.
  CHECK(error_text(spec_of(0, 2 * mib, 2)) ==
        "min_bytes: expected a size > 0 to multiply by -f 2 up to -e (0 x 2 stays 0), got 0; "
        "-f 1 -i STEP steps from 0");
  CHECK(sweep_sizes(spec_of(0, 0, 2)) == std::vector<double>{0});  // -b 0 -e 0: one size
}

TEST_CASE("sweep: factors that are not integers >= 2 (or 1) are refused") {
  const double mib = 1048576;
  CHECK(error_text(spec_of(mib, mib, -1)) ==
        "factor: expected an integer factor >= 2, or 1 to step by -i, got -1");
  CHECK(error_text(spec_of(mib, mib, 0.5)) ==
        "factor: expected an integer factor >= 2, or 1 to step by -i, got 0.5");
  CHECK(error_text(spec_of(1, 1e12, 1.000001)) ==
        "factor: expected an integer factor >= 2, or 1 to step by -i, got 1.000001");
  CHECK(error_text(spec_of(1, 2, 0)) ==
        "factor: expected an integer factor >= 2, or 1 to step by -i, got 0");
}

TEST_CASE("sweep: a step of zero bytes is refused") {
  SweepSpec spec = spec_of(1, 2, 1);
  spec.step_bytes = 0;
  CHECK(error_text(spec) == "step_bytes: expected a step of 1 to 2^53 whole bytes, got 0");
}

TEST_CASE("sweep: the row limit is checked before the sizes are listed") {
  // -b 0... -b 1 -e 1G -i 1: 2^30 sizes, far above the 10000-row limit.
  SweepSpec spec = spec_of(1, 1073741824, 1);
  spec.step_bytes = 1;
  CHECK(error_text(spec) ==
        "the sweep has 1073741824 sizes; expected at most 10000 (--max-rows raises the limit)");
  // -i 1M from 1 MiB to 8 GiB: 8192 rows, within the limit.
  spec = spec_of(1048576, 8589934592, 1);
  CHECK(sweep_sizes(spec).size() == 8192);
  // A raised limit admits what the user means.
  spec = spec_of(1, 20000, 1);
  spec.step_bytes = 1;
  spec.max_rows = 20000;
  CHECK(sweep_sizes(spec).size() == 20000);
}

TEST_CASE("sweep: sizes above 2^53 bytes are refused, not overflowed") {
  CHECK(error_text(spec_of(8, 1e300, 2)) ==
        "max_bytes: expected a size of at most 8 PiB (2^53 bytes), got 1e+300");
  CHECK_FALSE(parse_size_bytes("1e300T").has_value());
  // 2^53 itself is the largest legal size: 1 row.
  CHECK(sweep_sizes(spec_of(kMaxSizeBytes, kMaxSizeBytes, 2)).size() == 1);
}

}  // TEST_SUITE
