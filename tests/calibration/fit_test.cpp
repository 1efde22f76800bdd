// SPDX-License-Identifier: Apache-2.0
// The calibration fit: synthetic tables made from known parameters give those parameters
// back; parameters no row depends on stay neutral and are named; a real table's error falls.
#include <doctest/doctest.h>

#include <algorithm>
#include <fmt/core.h>

#include "linksim/calibrate.hpp"
#include "linksim/collectives.hpp"
#include "support/test_topologies.hpp"
#include "support/validation_data.hpp"

namespace {

using namespace linksim;

// An nccl-tests table whose times are linksim's own with `truth` applied.
NcclTestsTable synthetic_table(Topology topology, const ModelCalibration& truth, CollectiveOp op,
                               double min_bytes, double max_bytes) {
  CommOptions options;
  options.calibration = truth;
  const Communicator comm(topology, topology.gpus(), options);
  SweepRequest request;
  request.op = op;
  request.sizes_bytes = sweep_sizes(min_bytes, max_bytes, 4);
  const CollectiveSweep sweep = run_sweep(comm, request);
  NcclTestsTable table;
  table.file = "synthetic";
  table.collective = std::string(to_string(op));
  table.ranks = static_cast<int>(topology.gpus().size());
  for (const SweepRow& s : sweep.rows) {
    NcclTestsRow row;
    row.size_bytes = s.size_bytes;
    row.time_us = s.result.time_s * 1e6;
    row.busbw_GBps = s.result.busbw_Bps / 1e9;
    row.algbw_GBps = s.result.algbw_Bps / 1e9;
    table.rows.push_back(row);
  }
  return table;
}

FitCase fit_case(const Topology& topology, NcclTestsTable table) {
  FitCase c;
  c.setup = measured_setup(table);
  c.ranks = topology.gpus();
  c.table = std::move(table);
  return c;
}

bool contains(const std::vector<CalibrationParameter>& list, CalibrationParameter p) {
  return std::find(list.begin(), list.end(), p) != list.end();
}

}  // namespace

TEST_SUITE("calibration") {
  TEST_CASE("calibration: a synthetic NVSwitch table gives back the parameters that made it") {
    const Topology dgx = testing::library_topology("dgx-h100.yaml");
    ModelCalibration truth;
    truth[CalibrationParameter::kNvlsEfficiency] = 0.9;
    truth[CalibrationParameter::kNvlinkEfficiency] = 0.95;
    truth[CalibrationParameter::kHopLatency] = 3.0;
    std::vector<FitCase> cases;
    cases.push_back(fit_case(dgx, synthetic_table(dgx, truth, CollectiveOp::kAllReduce, 8, 8e9)));
    cases.push_back(fit_case(dgx, synthetic_table(dgx, truth, CollectiveOp::kAllToAll, 1 << 20, 8e9)));
    const CalibrationFit fit = fit_calibration(dgx, cases);
    CHECK(fit.parameters[CalibrationParameter::kNvlsEfficiency] == doctest::Approx(0.9).epsilon(1e-3));
    CHECK(fit.parameters[CalibrationParameter::kNvlinkEfficiency] == doctest::Approx(0.95).epsilon(1e-3));
    CHECK(fit.parameters[CalibrationParameter::kHopLatency] == doctest::Approx(3.0).epsilon(1e-2));
    CHECK(fit.rms_after < 1e-4);
    CHECK(fit.rms_before > 0.03);
    // No PCIe, network or host-staged transfer sets a time on one NVSwitch server.
    CHECK(contains(fit.undetermined, CalibrationParameter::kHostStagingRate));
    CHECK(contains(fit.undetermined, CalibrationParameter::kNetworkEfficiency));
    CHECK(fit.parameters[CalibrationParameter::kHostStagingRate] == 1.0);
    CHECK(fit.parameters[CalibrationParameter::kNetworkEfficiency] == 1.0);
  }

  TEST_CASE("calibration: a synthetic host-staged table gives back its staging rate") {
    const Topology pair = testing::library_topology("dual-2080ti.yaml");
    ModelCalibration truth;
    truth[CalibrationParameter::kHostStagingRate] = 1.3;
    std::vector<FitCase> cases;
    cases.push_back(fit_case(pair, synthetic_table(pair, truth, CollectiveOp::kAllReduce, 1 << 20, 1e9)));
    const CalibrationFit fit = fit_calibration(pair, cases);
    CHECK(fit.parameters[CalibrationParameter::kHostStagingRate] == doctest::Approx(1.3).epsilon(1e-3));
    CHECK(contains(fit.undetermined, CalibrationParameter::kNvlsEfficiency));
    CHECK(contains(fit.undetermined, CalibrationParameter::kNvlinkEfficiency));
    CHECK(fit.rms_after < 1e-4);
  }

  TEST_CASE("calibration: fitting a real table reduces its error") {
    const Topology dgx1 = testing::library_topology("dgx1-v100.yaml");
    NcclTestsTable table = load_nccl_tests_output(
        testing::validation_file("nccl-tests/30-v100-sxm2x8-dgx1-cubemesh-allreduce-konnase.txt"));
    std::vector<FitCase> cases{fit_case(dgx1, std::move(table))};
    const CalibrationFit fit = fit_calibration(dgx1, cases);
    MESSAGE(fmt::format("30-v100: RMS ln error {:.4f} -> {:.4f}", fit.rms_before, fit.rms_after));
    CHECK(fit.rms_after < 0.8 * fit.rms_before);
    CHECK(fit.rows.size() == cases[0].table.rows.size());
    CHECK(contains(fit.fitted, CalibrationParameter::kNvlinkEfficiency));
  }
}
