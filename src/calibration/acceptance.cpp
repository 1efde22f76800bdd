// SPDX-License-Identifier: Apache-2.0
// The acceptance sheet and its check (docs/cli.md#accept): thresholds are the slow end of the
// error band of each prediction (error_bands.cpp), so a healthy machine passes as often as the
// shipped real measurements fall inside their bands.
#include "linksim/acceptance.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "linksim/error.hpp"
#include "linksim/faults.hpp"
#include "linksim/measured.hpp"
#include "linksim/units.hpp"

namespace linksim {
namespace {

constexpr CollectiveOp kDefaultCollectives[] = {CollectiveOp::kAllReduce,
                                                CollectiveOp::kAllGather,
                                                CollectiveOp::kReduceScatter,
                                                CollectiveOp::kAllToAll};

// A size as nccl-tests' -b/-e take it: K/M/G are powers of 1024.
std::string size_flag(double bytes) {
  static constexpr std::pair<double, const char*> kUnits[] = {
      {1099511627776.0, "T"}, {1073741824.0, "G"}, {1048576.0, "M"}, {1024.0, "K"}};
  for (const auto& [unit, suffix] : kUnits) {
    const double n = bytes / unit;
    if (n >= 1 && n == std::floor(n)) return fmt::format("{:g}{}", n, suffix);
  }
  return fmt::format("{:.0f}", bytes);
}

// The step factor -f when the sizes go up by one integer factor, else nullopt.
std::optional<int> step_factor(const std::vector<double>& sizes) {
  if (sizes.size() < 2) return 1;
  const double factor = sizes[1] / sizes[0];
  if (factor < 2 || factor != std::floor(factor)) return std::nullopt;
  for (size_t i = 1; i < sizes.size(); ++i) {
    if (sizes[i] != sizes[i - 1] * factor) return std::nullopt;
  }
  return static_cast<int>(factor);
}

std::string binary_name(CollectiveOp op) {
  for (const CollectiveName& name : collective_names()) {
    if (name.op == op) return fmt::format("./build/{}_perf", name.nccl_tests_name);
  }
  return "";
}

// nccl-tests command lines covering `sizes` (sorted): one sweep when they step by one factor,
// else one run per size. One process drives a single server's GPUs (-g); several servers
// run one process per GPU under mpirun (-g 1).
std::string command_line(CollectiveOp op, std::vector<double> sizes, int ranks, int nodes,
                         const DataType& type) {
  std::sort(sizes.begin(), sizes.end());
  const std::string launcher =
      nodes > 1 ? fmt::format("mpirun -np {} -N {} ", ranks, ranks / nodes) : "";
  const int per_process = nodes > 1 ? 1 : ranks;
  const std::string tail =
      fmt::format(" -g {} -d {}", per_process, type.name);
  const auto run = [&](double lo, double hi, int factor) {
    return fmt::format("{}{} -b {} -e {} -f {}{}", launcher, binary_name(op), size_flag(lo),
                       size_flag(hi), factor, tail);
  };
  if (const std::optional<int> factor = step_factor(sizes)) {
    return run(sizes.front(), sizes.back(), std::max(2, *factor));
  }
  std::string lines;
  for (double s : sizes) lines += (lines.empty() ? "" : " && ") + run(s, s, 2);
  return lines;
}

std::vector<AcceptanceSize> predict_sizes(const Communicator& comm, CollectiveOp op,
                                          const std::vector<double>& sizes, const DataType& type) {
  SweepRequest request;
  request.op = op;
  request.type = type;
  request.sizes_bytes = sizes;
  const CollectiveSweep sweep = run_sweep(comm, request);
  std::vector<AcceptanceSize> out;
  for (const SweepRow& row : sweep.rows) {
    AcceptanceSize s;
    s.size_bytes = row.size_bytes;
    s.predicted_busbw_Bps = row.result.busbw_Bps;
    s.band = error_band(row.result, comm.topology(), row.size_bytes);
    s.threshold_busbw_Bps = s.predicted_busbw_Bps / s.band.high_factor;
    out.push_back(s);
  }
  return out;
}

// A way the machine or its software can fall short, as linksim can model it.
struct Suspect {
  std::string key;
  std::string words;
  // The machine with the fault (same device ids: widths and speeds only); nullopt = as is.
  std::optional<Topology> degraded;
  CommOptions options;
};

std::vector<Suspect> suspects(const Topology& topology, const CommOptions& nominal) {
  std::vector<Suspect> list;
  Suspect p2p{"p2p-disabled",
              "GPU peer-to-peer off (NCCL_P2P_DISABLE=1, PCIe ACS or IOMMU, a driver without "
              "P2P): copies staged through host memory",
              std::nullopt, nominal};
  p2p.options.p2p_disable = true;
  list.push_back(std::move(p2p));
  Suspect nvls{"nvls-off", "NVLink SHARP unused (NCCL_NVLS_ENABLE=0, fabric manager or driver)",
               std::nullopt, nominal};
  nvls.options.nvls_enable = false;
  list.push_back(std::move(nvls));
  Suspect channels{"fewer-channels", "fewer NCCL channels (NCCL_MAX_NCHANNELS or an old NCCL)",
                   std::nullopt, nominal};
  channels.options.channels = 2;
  list.push_back(std::move(channels));
  double nic_Bps = 0;
  int pcie_lanes = 0;
  for (const Link& link : topology.links()) {
    if (link_class(topology, link) == LinkClass::kNic) nic_Bps = std::max(nic_Bps, link.bw_Bps);
    if (link.family == LinkFamily::kPcie) pcie_lanes = std::max(pcie_lanes, int(link.lanes));
  }
  const auto degraded = [&](std::string key, std::string words, const std::string& spec) {
    try {
      list.push_back({std::move(key), std::move(words), with_degraded(topology, spec), nominal});
    } catch (const ConfigError&) {
      // No link of the class is faster or wider than the fault: nothing to suspect.
    }
  };
  if (nic_Bps > 0) {
    degraded("nic-speed", "NIC ports at half their rate (ibstat: a link trained down)",
             fmt::format("nic:speed={:g}Gb/s", nic_Bps * 8 / kGB / 2));
  }
  if (pcie_lanes >= 2) {
    degraded("pcie-width", "PCIe links at half width (lspci -vv: LnkSta below LnkCap)",
             fmt::format("pcie:width={}", pcie_lanes / 2));
  }
  return list;
}

double log_distance(double predicted_Bps, double measured_Bps) {
  return predicted_Bps > 0 && measured_Bps > 0 ? std::abs(std::log(predicted_Bps / measured_Bps))
                                               : INFINITY;
}

// With the run's log: the logged fault whose prediction lies nearest the measurement, else
// the first logged fault the engine does not model (the log shows it happened).
Explanation explain_from_log(const AcceptanceRowCheck& row, const std::vector<LoggedSuspect>& logged,
                             const std::vector<DeviceId>& ranks, const DataType& type,
                             const Topology& topology, const CommOptions& nominal) {
  std::optional<Explanation> best;
  double best_distance = INFINITY;
  for (const LoggedSuspect& s : logged) {
    if (!s.options) continue;
    CommOptions options = *s.options;  // the log's release and setting; the run's layout
    options.gpus_per_thread = nominal.gpus_per_thread;
    options.calibration = nominal.calibration;
    try {
      const Communicator comm(topology, ranks, options);
      const double predicted = predict_sizes(comm, row.op, {row.size_bytes}, type).front().predicted_busbw_Bps;
      const double d = log_distance(predicted, row.measured_busbw_Bps);
      if (!best || d < best_distance) {
        best = Explanation{s.key, s.words, predicted, true};
        best_distance = d;
      }
    } catch (const ConfigError&) {
      // A setting the machine cannot run (no path left) predicts nothing.
    }
  }
  if (best) return *best;
  return Explanation{logged.front().key, logged.front().words, std::nullopt, true};
}

// The suspect whose prediction lies nearest the measurement (in log ratio) and nearer than
// the nominal prediction; "unexplained" when none does.
Explanation explain(const AcceptanceRowCheck& row, const std::vector<Suspect>& list,
                    const std::vector<DeviceId>& ranks, const DataType& type,
                    const Topology& topology) {
  const auto distance = [&](double predicted) {
    return log_distance(predicted, row.measured_busbw_Bps);
  };
  Explanation best{"unexplained",
                   fmt::format("below the {} band: the {} path delivers less than linksim "
                               "predicts and no modelled fault accounts for it",
                               row.expected.band.mechanism, row.expected.band.mechanism),
                   row.expected.predicted_busbw_Bps, false};
  double best_distance = distance(row.expected.predicted_busbw_Bps);
  for (const Suspect& s : list) {
    const Topology& machine = s.degraded ? *s.degraded : topology;
    try {
      const Communicator comm(machine, ranks, s.options);
      const std::vector<AcceptanceSize> p = predict_sizes(comm, row.op, {row.size_bytes}, type);
      const double d = distance(p.front().predicted_busbw_Bps);
      if (p.front().predicted_busbw_Bps < row.expected.predicted_busbw_Bps && d < best_distance) {
        best = {s.key, s.words, p.front().predicted_busbw_Bps, false};
        best_distance = d;
      }
    } catch (const ConfigError&) {
      // A suspect the machine cannot have (e.g. NVLS off where there is none) explains nothing.
    }
  }
  return best;
}

}  // namespace

AcceptanceSheet acceptance_sheet(const Topology& topology, const std::vector<DeviceId>& ranks,
                                 const AcceptanceRequest& request) {
  AcceptanceSheet sheet;
  sheet.topology = topology.name();
  const Communicator comm(topology, ranks, request.options);
  sheet.ranks = comm.rank_count();
  sheet.nodes = comm.node_count();
  std::vector<double> sizes = request.sizes_bytes;
  if (sizes.empty()) sizes.assign(std::begin(kAcceptanceSizes), std::end(kAcceptanceSizes));
  std::sort(sizes.begin(), sizes.end());
  std::vector<CollectiveOp> ops = request.collectives;
  if (ops.empty()) ops.assign(std::begin(kDefaultCollectives), std::end(kDefaultCollectives));
  for (const CollectiveOp op : ops) {
    AcceptanceRun run;
    run.op = op;
    run.command = command_line(op, sizes, sheet.ranks, sheet.nodes, request.type);
    run.sizes = predict_sizes(comm, op, sizes, request.type);
    sheet.runs.push_back(std::move(run));
  }
  return sheet;
}

AcceptanceCheck check_acceptance(const Topology& topology, const GpuSelection& selection,
                                 const std::vector<NcclTestsTable>& tables,
                                 const ModelCalibration& calibration,
                                 const std::vector<LoggedSuspect>& logged) {
  AcceptanceCheck check;
  check.topology = topology.name();
  for (const NcclTestsTable& table : tables) {
    std::optional<std::vector<Suspect>> suspect_list;  // built at the table's first shortfall
    const MeasuredSetup setup = measured_setup(table);
    const std::vector<DeviceId> ranks = measured_ranks(topology, setup, selection, table.file);
    CommOptions nominal;  // NCCL's defaults, with the run's release and process layout
    nominal.nccl_version = setup.options.nccl_version;
    nominal.gpus_per_thread = setup.options.gpus_per_thread;
    nominal.calibration = calibration;
    const Communicator comm(topology, ranks, nominal);
    for (const NcclTestsRow& row : table.rows) {
      if (!(row.size_bytes > 0 && row.time_us > 0)) continue;
      if (row.size_bytes < kLatencyRegimeBytes) {
        ++check.skipped_small_rows;
        continue;
      }
      AcceptanceRowCheck r;
      r.file = table.file;
      r.line = row.line;
      r.op = setup.op;
      r.ranks = setup.ranks;
      r.size_bytes = row.size_bytes;
      r.measured_busbw_Bps = row.busbw_GBps * kGB;
      r.expected = predict_sizes(comm, setup.op, {row.size_bytes}, setup.type).front();
      r.passed = r.measured_busbw_Bps >= r.expected.threshold_busbw_Bps;
      if (!r.passed) {
        if (!logged.empty()) {
          r.likeliest = explain_from_log(r, logged, ranks, setup.type, topology, nominal);
        } else {
          if (!suspect_list) suspect_list = suspects(topology, nominal);
          r.likeliest = explain(r, *suspect_list, ranks, setup.type, topology);
        }
        ++check.failed;
      }
      check.rows.push_back(std::move(r));
    }
  }
  return check;
}

}  // namespace linksim
