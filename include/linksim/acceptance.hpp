// SPDX-License-Identifier: Apache-2.0
// A bring-up acceptance sheet: the nccl-tests runs a machine should pass and, per size, the
// busbw it should reach (the low end of the prediction's error band, error_bands.hpp); and
// the check of real outputs against it, with the likeliest mechanism of each shortfall
// (`linksim accept`, docs/cli.md#accept).
#pragma once

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
  /// "nvlink-lane", or "unexplained" when none comes closer than the nominal prediction.
  std::string key;
  std::string words;  ///< one line: what it is and what to look at
  double predicted_busbw_Bps = 0;
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
/// GPUs as `coll compare` does. Throws ConfigError as measured_setup and measured_ranks do.
AcceptanceCheck check_acceptance(const Topology& topology, const GpuSelection& selection,
                                 const std::vector<NcclTestsTable>& tables);

}  // namespace linksim
