// SPDX-License-Identifier: Apache-2.0
// A real nccl-tests table and the prediction that should match it: what the table says about
// the run (collective, ranks, data type, NCCL_* environment, GPUs per process), the same rows
// predicted, and the two side by side with the error per row and a verdict per mechanism
// (`linksim coll compare`, docs/calibration.md#compare).
#pragma once

#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/error_bands.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/nccl_tests_output.hpp"

namespace linksim {

/// The run a table describes, as linksim's request.
struct MeasuredSetup {
  CollectiveOp op = CollectiveOp::kAllReduce;
  int ranks = 0;
  DataType type = kFloat;
  /// NCCL_P2P_DISABLE, NCCL_NVLS_ENABLE, NCCL_ALGO, NCCL_PROTO, NCCL_MIN/MAX_NCHANNELS, nGpus
  CommOptions options;
  std::string visible_devices;  ///< CUDA_VISIBLE_DEVICES ("0,1,6,7"); empty when unset
  /// One line per inference, "ranks 8 (from the header)", for reports.
  std::vector<std::string> inferred;
};

/// Works out the run. Throws ConfigError at the table's file for a data type or an NCCL_*
/// value linksim does not know.
MeasuredSetup measured_setup(const NcclTestsTable& table);

/// The GPUs of `topology` that ran the table: `selection` when it says, else
/// CUDA_VISIBLE_DEVICES on a one-server topology, else all GPUs when their number is the
/// table's, else the first `ranks`. Throws ConfigError when the topology
/// has fewer GPUs than the table has ranks, or the selection a different number.
std::vector<DeviceId> measured_ranks(const Topology& topology, const MeasuredSetup& setup,
                                     const GpuSelection& selection, const std::string& file);

/// The table's sizes (rows with size > 0 and time > 0), predicted on `ranks`.
CollectiveSweep predict_measured(const Topology& topology, const std::vector<DeviceId>& ranks,
                                 const MeasuredSetup& setup, const NcclTestsTable& table);

/// One size, measured and predicted.
struct ComparedRow {
  double size_bytes = 0;
  int line = 0;                  ///< the measured row's line in its file
  double measured_time_s = 0;    ///< out-of-place
  double measured_busbw_Bps = 0;
  CollectiveResult predicted;
  ErrorBand band;
  /// predicted busbw / measured busbw - 1, from the times (nccl-tests rounds busbw to 0.01).
  double busbw_error = 0;
  bool measured_in_band = false;  ///< measured time within the prediction's band
};

/// The rows of one mechanism, judged.
struct MechanismVerdict {
  std::string mechanism;  ///< as prediction_mechanism() names it
  int rows = 0;
  double min_size_bytes = 0, max_size_bytes = 0;
  double median_error = 0;  ///< signed busbw error of the median |error| row
  double worst_error = 0;   ///< signed busbw error of the largest |error| row
  int in_band = 0;          ///< rows whose measurement lies within the band
  std::string verdict;      ///< "matches", "close" or "off"
};
/// |median error| up to 10 % "matches", up to 25 % "close", beyond "off".
inline constexpr double kMatchesError = 0.10;
inline constexpr double kCloseError = 0.25;

struct Comparison {
  std::string file;
  std::string topology;
  MeasuredSetup setup;
  std::vector<ComparedRow> rows;
  std::vector<MechanismVerdict> verdicts;  ///< in the order the mechanisms first appear
};

/// The table against its prediction on `ranks` of `topology`, with the model corrected by
/// `calibration` (neutral: the model as documented).
Comparison compare_measurement(const Topology& topology, const std::vector<DeviceId>& ranks,
                               const NcclTestsTable& table,
                               const ModelCalibration& calibration = {});

}  // namespace linksim
