// SPDX-License-Identifier: Apache-2.0
// The fidelity target over every shipped real table (issue 20: median |busbw error| within 6 %
// from 64 MiB and within 10 % over all sizes, 90 % of rows within 40 %, no row off by 3x or
// more). The shipped tables meet all of them (docs/validation.md#aggregate lists the figures
// and the rows beyond 50 %): 5.2 % from 64 MiB, 7.4 % over all sizes, 96.1 % within 50 % and
// 94.0 % within 40 % (5.9, 8.9, 95.9 and 93.4 % before the twenty tables of calibrations
// 110-129, 10 servers of 1-8 H100 and 4 H100 of one server with NCCL 2.29.2, and before the
// channels of a ring across servers and of a send, docs/model.md#ring-channels and #p2p). The
// test holds the 6 % from 64 MiB and, a little short of today's figures, 9 % over all
// sizes, 95 % of rows within 50 % and 93 % within 40 % (8.5 % and 94 % until calibration 109,
// a RoCE table whose small messages run at NCCL's own estimate, and one network-step figure
// for InfiniBand and RoCE, docs/model.md#net-steps). A row a case lists under `outliers:` (one
// measurement its own run contradicts, with its why in tests/data/calibration/cases.yaml) is
// left out and named in the test's output.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fmt/core.h>
#include <set>

#include "support/validation_cases.hpp"
#include "support/validation_data.hpp"

namespace {

constexpr double kLargeBytes = 64.0 * 1048576.0;

// The 6 % from 64 MiB; the others tightened to today's figures with a little headroom.
constexpr double kTargetMedianLarge = 0.06;
constexpr double kTargetMedianAll = 0.09;
constexpr double kTargetWithin50 = 0.95;
constexpr double kTargetWithin40 = 0.93;
constexpr int kTargetOff3x = 0;

double median(std::vector<double> v) {
  REQUIRE(!v.empty());
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

TEST_SUITE("calibration") {
  TEST_CASE("fidelity: the aggregate over every shipped real table holds the issue's target") {
    std::vector<double> large, all;
    int off3x = 0;
    for (const std::string& path : linksim::testing::validation_files("nccl-tests")) {
      const std::set<double> outliers = linksim::testing::outlier_sizes(path);
      for (const linksim::Comparison& c : linksim::testing::compare_validation_file(path)) {
        for (const linksim::ComparedRow& r : c.rows) {
          if (outliers.count(r.size_bytes) != 0) {
            MESSAGE(fmt::format("left out, an outlier of its own run (cases.yaml says why): "
                                "{}:{} ({} B)",
                                c.file, r.line, r.size_bytes));
            continue;
          }
          const double error = std::abs(r.busbw_error);
          all.push_back(error);
          if (r.size_bytes >= kLargeBytes) large.push_back(error);
          const double ratio = r.measured_time_s / r.predicted.time_s;
          if (ratio >= 3.0 || ratio <= 1.0 / 3.0) {
            ++off3x;
            MESSAGE(fmt::format("off by 3x or more: {}:{} ({} B): measured/linksim time {:.2f}",
                                c.file, r.line, r.size_bytes, ratio));
          }
        }
      }
    }
    const auto share_within = [&](double bound) {
      return static_cast<double>(
                 std::count_if(all.begin(), all.end(), [&](double e) { return e <= bound; })) /
             static_cast<double>(all.size());
    };
    const double within50 = share_within(0.5), within40 = share_within(0.4);
    const double median_large = median(large), median_all = median(all);
    MESSAGE(fmt::format("{} rows ({} from 64 MiB): median |busbw error| {:.2f} % from 64 MiB "
                        "(target {:.1f} %), {:.2f} % over all sizes (target {:.1f} %); {:.1f} % of "
                        "rows within 50 % (target {:.0f} %), {:.1f} % within 40 % "
                        "(target {:.0f} %); {} rows off by 3x or more (target {})",
                        all.size(), large.size(), 100 * median_large, 100 * kTargetMedianLarge,
                        100 * median_all, 100 * kTargetMedianAll, 100 * within50,
                        100 * kTargetWithin50, 100 * within40, 100 * kTargetWithin40, off3x,
                        kTargetOff3x));
    CHECK(median_large <= kTargetMedianLarge);
    CHECK(median_all <= kTargetMedianAll);
    CHECK(within50 >= kTargetWithin50);
    CHECK(within40 >= kTargetWithin40);
    CHECK(off3x <= kTargetOff3x);
    CHECK(large.size() >= 80);  // the shipped tables: a table lost would loosen the check
  }
}
