// SPDX-License-Identifier: Apache-2.0
// Calibration profiles: the YAML round trip, positioned errors, and a profile changing the
// model exactly where its mechanism acts.
#include <doctest/doctest.h>

#include "linksim/calibration.hpp"
#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "support/test_topologies.hpp"

namespace {

using linksim::CalibrationParameter;
using linksim::CalibrationProfile;
using linksim::ConfigError;

std::string error_of(const std::string& text) {
  try {
    linksim::parse_calibration_profile(text, "p.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("calibration") {
  TEST_CASE("calibration: a profile round-trips through its YAML unchanged") {
    CalibrationProfile p;
    p.parameters[CalibrationParameter::kNvlinkEfficiency] = 1.0371234567891234;
    p.parameters[CalibrationParameter::kNvlsEfficiency] = 0.912;
    p.parameters[CalibrationParameter::kHopLatency] = -1.25;
    p.topology = "topologies/dgx-h100.yaml";
    p.measurements = {"a.txt", "b \"quoted\".txt"};
    p.undetermined = {CalibrationParameter::kPcieEfficiency, CalibrationParameter::kHostStagingRate};
    p.rms_log_error_before = 0.123;
    p.rms_log_error_after = 0.0456;
    const CalibrationProfile q =
        linksim::parse_calibration_profile(linksim::render_calibration_profile(p), "p.yaml");
    CHECK(q.parameters == p.parameters);
    CHECK(q.topology == p.topology);
    CHECK(q.measurements == p.measurements);
    CHECK(q.undetermined == p.undetermined);
    CHECK(q.rms_log_error_before == p.rms_log_error_before);
    CHECK(q.rms_log_error_after == p.rms_log_error_after);
  }

  TEST_CASE("calibration: a hand-written profile leaves unnamed parameters neutral") {
    const CalibrationProfile p = linksim::parse_calibration_profile(
        "format: linksim-calibration-1\nparameters:\n  pcie_efficiency: 0.9\n", "p.yaml");
    CHECK(p.parameters[CalibrationParameter::kPcieEfficiency] == 0.9);
    CHECK(p.parameters[CalibrationParameter::kNvlinkEfficiency] == 1.0);
    CHECK(p.parameters[CalibrationParameter::kHopLatency] == 0.0);
  }

  TEST_CASE("calibration: bad profiles name file, line and column") {
    CHECK(error_of("format: linksim-calibration-1\nparameters:\n  nvlink_eficiency: 1.1\n") ==
          "p.yaml:3:3: error: unknown key \"nvlink_eficiency\"; did you mean "
          "\"nvlink_efficiency\"?");
    CHECK(error_of("format: linksim-calibration-1\nparameters:\n  nvls_efficiency: 40\n") ==
          "p.yaml:3:20: error: expected nvls_efficiency between 0.1 and 10, got 40");
    CHECK(error_of("format: linksim-calibration-1\nparameters:\n  hop_latency_us: fast\n") ==
          "p.yaml:3:19: error: expected a number, got \"fast\"");
    CHECK(error_of("format: v0\nparameters: {}\n") ==
          "p.yaml:1:9: error: expected format linksim-calibration-1, got \"v0\"");
    CHECK(error_of("format: linksim-calibration-1\n") ==
          "p.yaml:1:1: error: missing required key \"parameters\"");
    CHECK(error_of("format: linksim-calibration-1\nparameters: {}\nundetermined: [speed]\n") ==
          "p.yaml:3:16: error: expected a parameter name such as nvlink_efficiency, got "
          "\"speed\"");
  }

  TEST_CASE("calibration: each parameter moves only its mechanism") {
    using namespace linksim;
    const Topology t = testing::library_topology("dual-2080ti.yaml");
    auto calibrated = [&](const ModelCalibration& c) {
      CommOptions options;
      options.calibration = c;
      return Communicator(t, t.gpus(), options);
    };
    const Communicator neutral(t, t.gpus());
    const double big = 1 << 30;
    const double base = neutral.run({CollectiveOp::kAllReduce, big}).time_s;
    const double small = neutral.run({CollectiveOp::kAllReduce, 8}).time_s;
    ModelCalibration c;
    c[CalibrationParameter::kNvlinkEfficiency] = 0.5;  // no NVLink on this pair
    CHECK(calibrated(c).run({CollectiveOp::kAllReduce, big}).time_s == base);
    c[CalibrationParameter::kHostStagingRate] = 1.2;  // the pair is host-staged: 1.2x the rate
    const CollectiveResult staged = calibrated(c).run({CollectiveOp::kAllReduce, big});
    CHECK(staged.time_s == doctest::Approx(base / 1.2).epsilon(0.001));
    CHECK(staged.bottleneck.kind == BottleneckKind::kHostStaging);
    // Twice the staging rate would exceed the PCIe switch's uplink: the link binds instead.
    c[CalibrationParameter::kHostStagingRate] = 2.0;
    const CollectiveResult doubled = calibrated(c).run({CollectiveOp::kAllReduce, big});
    CHECK(doubled.bottleneck.kind == BottleneckKind::kLink);
    CHECK(doubled.time_s > base / 2 * 1.1);
    c = ModelCalibration();
    c[CalibrationParameter::kHopLatency] = 5.0;
    const double slower = calibrated(c).run({CollectiveOp::kAllReduce, 8}).time_s;
    CHECK(slower > small + 4e-6);
  }
}
