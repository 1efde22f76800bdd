// SPDX-License-Identifier: Apache-2.0
// The explanation renderers on steps written by hand: units as people read them, the step
// layout, and JSON's SI values with infinities as null.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "report/explain_parts.hpp"

namespace linksim {
namespace {

using report_explain::append_step;
using report_explain::step_json;
using report_explain::value_text;

}  // namespace

TEST_SUITE("report") {
  TEST_CASE("explain report: values in the units people read, six significant digits") {
    CHECK(value_text(3.4e-6, "s") == "3.4 us");
    CHECK(value_text(5.12355e-3, "s") == "5.12355 ms");
    CHECK(value_text(1.30498, "s") == "1.30498 s");
    CHECK(value_text(0, "s") == "0 s");
    CHECK(value_text(450e9, "B/s") == "450 GB/s");
    CHECK(value_text(1073741824, "bytes") == "1073741824 bytes (1 GiB)");
    CHECK(value_text(992, "bytes") == "992 bytes");
    CHECK(value_text(989.4e12, "FLOP/s") == "989.4 TFLOP/s");
    CHECK(value_text(1.75, "") == "1.75");
    CHECK(value_text(std::numeric_limits<double>::infinity(), "B/s") == "inf");
  }

  TEST_CASE("explain report: a step is its title, formula, aligned terms, notes and result") {
    // Ring AllReduce on 8 NVLink GPUs, Simple: 8.4 + 14 x 3.4 = 56 us.
    ExplainStep s;
    s.title = "latency term";
    s.formula = "alpha = base + steps x lat";
    s.terms = {{"base", 8.4e-6, "s", "NCCL tuning.cc baseLat[Ring][Simple]"},
               {"steps", 14, "", "2(n-1), n = 8"},
               {"lat", 3.4e-6, "s", "NCCL tuning.cc hwLat[NVLINK][Ring][Simple]"}};
    s.notes = {"one server: no network steps"};
    s.result = {"alpha", 56e-6, "s", ""};
    std::string out;
    append_step(out, 2, s);
    CHECK(out ==
          "2. latency term\n"
          "   alpha = base + steps x lat\n"
          "     base   =  8.4 us  NCCL tuning.cc baseLat[Ring][Simple]\n"
          "     steps  =      14  2(n-1), n = 8\n"
          "     lat    =  3.4 us  NCCL tuning.cc hwLat[NVLINK][Ring][Simple]\n"
          "   one server: no network steps\n"
          "   => alpha = 56 us\n"
          "\n");
  }

  TEST_CASE("explain report: JSON keeps SI values and turns infinities into null") {
    ExplainStep s;
    s.title = "bandwidth term";
    s.formula = "B = T";
    s.terms = {{"T", 370.8e9, "B/s", "rings"}};
    s.result = {"B", std::numeric_limits<double>::infinity(), "B/s", ""};
    const nlohmann::ordered_json j = step_json(s);
    CHECK(j["title"] == "bandwidth term");
    CHECK(j["terms"][0]["value"] == 370.8e9);
    CHECK(j["terms"][0]["unit"] == "B/s");
    CHECK(j["terms"][0]["source"] == "rings");
    CHECK(j["result"]["value"].is_null());
    CHECK_FALSE(j["result"].contains("source"));
    CHECK(j["notes"].empty());
  }
}

}  // namespace linksim
