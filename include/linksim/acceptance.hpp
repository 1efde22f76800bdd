// SPDX-License-Identifier: Apache-2.0
// A bring-up acceptance sheet: the nccl-tests runs a machine should pass and, per size, the
// busbw it should reach (the low end of the prediction's error band, error_bands.hpp); and
// the check of real outputs against it, with the likeliest mechanism of each shortfall
// (`linksim accept`, docs/cli.md#accept).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/error_bands.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/nccl_tests_output.hpp"

namespace linksim {

/// Sizes a sheet lists when none are asked for: 64 MiB to 4 GiB by 4, bandwidth-bound on
/// every shipped machine (at or above kLatencyRegimeBytes) and within a 24 GB card's memory.
inline constexpr double kAcceptanceSizes[] = {67108864, 268435456, 1073741824, 4294967296};

struct AcceptanceRequest {
  std::vector<CollectiveOp> collectives;  ///< empty: AllReduce, AllGather, ReduceScatter, AllToAll
  std::vector<double> sizes_bytes;        ///< empty: kAcceptanceSizes
  DataType type = kFloat;
  CommOptions options;  ///< NCCL's defaults: the machine at its best
};

/// One size of one collective on the sheet.
struct AcceptanceSize {
  double size_bytes = 0;
  double predicted_busbw_Bps = 0;
  /// predicted busbw / band.high_factor: a run slower than the band's slow end fails.
  double threshold_busbw_Bps = 0;
  ErrorBand band;
};

struct AcceptanceRun {
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::string command;  ///< the nccl-tests command line to run
  std::vector<AcceptanceSize> sizes;
};

struct AcceptanceSheet {
  std::string topology;
  int ranks = 0;
  int nodes = 0;
  std::vector<AcceptanceRun> runs;
};

/// The sheet for `ranks` of `topology`. Throws ConfigError as Communicator does.
AcceptanceSheet acceptance_sheet(const Topology& topology, const std::vector<DeviceId>& ranks,
                                 const AcceptanceRequest& request);

/// A mechanism that would explain a shortfall, with what linksim predicts under it.
struct Explanation {
  /// "p2p-disabled", "nvls-off", "fewer-channels", "nic-speed", "pcie-width",
  /// "nvlink-lane", or "unexplained" when none comes closer than the nominal prediction; with
  /// a log, a diagnose finding key ("socket-instead-of-ib", ...).
  std::string key;
  std::string words;  ///< one line: what it is and what to look at
  /// linksim's busbw under it; nullopt for a logged fault the engine does not model.
  std::optional<double> predicted_busbw_Bps;
  bool from_log = false;  ///< a fault the run's NCCL log shows (diagnose's finding)
};

/// A fault a real NCCL log of the run shows (`accept --check --log`, from diagnose's findings:
/// logged_suspects in linksim/diagnose.hpp).
struct LoggedSuspect {
  std::string key;    ///< the finding's key: "p2p-disabled"
  std::string words;  ///< the finding's message and the log line that shows it
  /// The set-up the log shows (NCCL's defaults at the log's release but for the fault), when
  /// the engine models it; nullopt = named without a prediction.
  std::optional<CommOptions> options;
};

/// One measured row judged against its threshold.
struct AcceptanceRowCheck {
  std::string file;
  int line = 0;
  CollectiveOp op = CollectiveOp::kAllReduce;
  int ranks = 0;
  double size_bytes = 0;
  double measured_busbw_Bps = 0;  ///< out-of-place
  AcceptanceSize expected;
  bool passed = false;
  Explanation likeliest;  ///< set when !passed
};

struct AcceptanceCheck {
  std::string topology;
  std::vector<AcceptanceRowCheck> rows;  ///< rows of at least kLatencyRegimeBytes, in file order
  int skipped_small_rows = 0;  ///< latency-bound rows (busbw printed to 0.01 GB/s) not judged
  int failed = 0;
};

/// Judges every table's rows of at least kLatencyRegimeBytes against the sheet's threshold for
/// its collective, rank count and size, with NCCL's defaults (an NCCL_* setting in the table's
/// environment is what a shortfall may be explained by, not an excuse). `selection` picks the
/// GPUs as `coll compare` does; `calibration` corrects the model as `--calibration` does.
/// Throws ConfigError as measured_setup and measured_ranks do.
/// With `logged` (the faults the run's NCCL log shows), a failing row's likeliest mechanism is
/// the logged fault whose prediction lies nearest the measurement (one without a prediction
/// when none has one), whatever the modelled suspects predict: the log shows what happened.
AcceptanceCheck check_acceptance(const Topology& topology, const GpuSelection& selection,
                                 const std::vector<NcclTestsTable>& tables,
                                 const ModelCalibration& calibration = {},
                                 const std::vector<LoggedSuspect>& logged = {});

}  // namespace linksim
