// SPDX-License-Identifier: Apache-2.0
// A real NCCL log checked against the machine it ran on: what NCCL did (include/linksim/
// nccl_log.hpp) against what linksim predicts NCCL would do there (the engine behind
// `coll --nccl-debug`), as named findings with the log lines that show them and what each
// costs in busbw (docs/diagnose.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/acceptance.hpp"
#include "linksim/collectives.hpp"
#include "linksim/nccl_log.hpp"
#include "linksim/plan.hpp"
#include "linksim/topology.hpp"

namespace linksim {

/// fault: the log shows a configuration worse than the machine allows; expected: the log
/// differs from an ideal machine but is right for this hardware (SHM between GeForce cards);
/// info: a fact worth knowing that the log alone cannot judge.
enum class FindingSeverity { kFault, kExpected, kInfo };
std::string_view to_string(FindingSeverity severity);  ///< "fault", "expected", "info"

/// The finding keys (docs/diagnose.md#findings).
inline constexpr std::string_view kFindingP2pDisabled = "p2p-disabled";
inline constexpr std::string_view kFindingSocketInsteadOfIb = "socket-instead-of-ib";
inline constexpr std::string_view kFindingGdrOff = "gdr-off";
inline constexpr std::string_view kFindingWrongNic = "wrong-nic";
inline constexpr std::string_view kFindingFewerChannels = "fewer-channels";
inline constexpr std::string_view kFindingRingCrossesSocket = "ring-crosses-socket";
inline constexpr std::string_view kFindingNvlsOff = "nvls-off";
inline constexpr std::string_view kFindingPxn = "pxn";
inline constexpr std::string_view kFindingVersionOld = "version-old";
inline constexpr std::string_view kFindingHostPlatform = "host-platform";
inline constexpr std::string_view kFindingPcieLink = "pcie-link";

/// The busbw of one collective size with the log's setting and at the machine's best.
struct CostPoint {
  double size_bytes = 0;
  double logged_busbw_Bps = 0;  ///< the engine run with the setting the log shows
  double best_busbw_Bps = 0;    ///< the engine run as NCCL would set the machine up
};

/// A plan's step with the logged setting against the machine's best (DiagnoseRequest::plan).
struct PlanCost {
  PlanMode mode = PlanMode::kTrain;  ///< train: step time; prefill: TTFT; decode: TPOT
  std::string model;
  std::string layout;                ///< "tp=8 pp=2 dp=1"
  /// The plan's step_time_s with the logged setting; nullopt when the plan cannot run with it
  /// (`error` says why).
  std::optional<double> logged_s;
  double best_s = 0;
  std::string error;
};

/// What a finding costs: `op` at each size, with `setting` (NCCL's own words for what the log
/// shows, "NCCL_P2P_DISABLE=1") against the machine's best.
struct FindingCost {
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::string setting;
  std::vector<CostPoint> points;
  /// What the engine does not model of the setting, so that the logged busbw is an upper
  /// bound ("" when it models all of it).
  std::string bound_note;
  /// The communicator set-up the logged cost ran: NCCL's defaults at the log's release with
  /// the setting the log shows.
  CommOptions logged_options;
  std::optional<PlanCost> plan;  ///< with DiagnoseRequest::plan
};

struct Finding {
  std::string key;  ///< one of the kFinding* keys
  FindingSeverity severity = FindingSeverity::kInfo;
  std::string message;                ///< one sentence: what the log shows, against what
  std::vector<NcclLogLine> evidence;  ///< the log lines that show it, in log order
  std::optional<FindingCost> cost;    ///< faults, with a topology
};

/// One connection, as the JSON lists it.
struct DiagnosisHop {
  int from_rank = 0;
  std::optional<int> to_rank;  ///< nullopt for CollNet
  int channel = 0;
  NcclLogTransport transport = NcclLogTransport::kP2pIpc;
  bool gdr = false;
};

struct Diagnosis {
  std::string log_file;
  std::optional<std::string> nccl_version;
  int ranks = 0;
  int nodes = 0;
  std::optional<int> channels;       ///< coll channels as the log states them
  std::optional<int> nvls_channels;
  std::optional<int> p2p_channels;
  std::vector<DiagnosisHop> hops;    ///< distinct (from, to, channel, transport), log order
  std::vector<std::string> env;      ///< "NAME=value", last value of each, log order
  /// NCCL's CPU codes from its topology dump, in words (describe_nccl_cpu); nullopt without
  /// such a line.
  std::optional<std::string> host_cpu;
  std::string host_cpu_platform;     ///< the catalog platform they name; "" for none
  std::string topology_name;         ///< "" without a topology
  std::optional<int> predicted_channels;  ///< with a topology
  std::vector<Finding> findings;     ///< faults first, then expected, then info; by key
  bool has_fault() const;
};

struct DiagnoseRequest {
  /// The machine the log ran on; nullptr = report what the log alone shows.
  const Topology* topology = nullptr;
  /// The GPU of each rank; empty = from the log (each rank's node and NVML device) when it
  /// places every rank, else the topology's first GPUs server by server.
  std::vector<DeviceId> gpus;
  CollectiveOp op = CollectiveOp::kAllReduce;
  /// The sizes costed (docs/diagnose.md#cost): 1 MiB, 64 MiB, 1 GiB.
  std::vector<double> cost_sizes_bytes{1 << 20, 64 << 20, 1 << 30};
  /// A plan to cost each fault on as well (`diagnose --model ...`): its step time (TPOT for
  /// decode) with the logged setting against the best. Its `comm` is replaced by each side's
  /// set-up; its GPU selection is the plan's own. nullopt = collectives only.
  std::optional<PlanRequest> plan;
};

/// The GPUs the log's ranks ran on: rank r on the GPU of NVML index (else CUDA index) d of
/// server n, where n is the rank's node in log.node_map(); nullopt when the log does not
/// place every rank. Throws ConfigError when it names a server or GPU the topology lacks.
std::optional<std::vector<DeviceId>> log_gpus(const NcclLog& log, const Topology& topology);

/// Throws ConfigError when the topology has fewer GPUs than the log has ranks, or
/// request.gpus has another count than the log's ranks, or the plan cannot run on the
/// machine at its best.
Diagnosis diagnose(const NcclLog& log, const DiagnoseRequest& request);

/// The faults a diagnosis found, as `accept --check --log` weighs them against a shortfall:
/// key, the finding's message with its first evidence line, and the logged set-up when the
/// finding has a cost. Empty when it found no fault.
std::vector<LoggedSuspect> logged_suspects(const Diagnosis& diagnosis);

}  // namespace linksim
