// SPDX-License-Identifier: Apache-2.0
// The rules of `diagnose`: each compares one aspect of the log with the prediction for the
// described machine and returns its findings, with the NCCL setting the log shows for the
// cost (docs/diagnose.md#findings).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/diagnose.hpp"
#include "linksim/nccl_debug.hpp"
#include "linksim/nccl_log.hpp"
#include "linksim/routing.hpp"

namespace linksim::diagnose_detail {

/// At most this many lines of one kind (connection lines of a transport, ring lines) are kept
/// as a finding's evidence; the message counts them all.
inline constexpr size_t kEvidencePerKind = 4;

/// The described machine and what NCCL would do on it.
struct Machine {
  const Topology& topology;
  std::vector<DeviceId> gpus;  ///< by rank
  CommOptions options;         ///< NCCL's defaults at the log's release
  Router router;               ///< routes under `options`
  NcclDebugInfo predicted;     ///< channels, hops and tuner table under `options`
  bool nvls_possible = false;  ///< the tuner would offer NVLS for AllReduce
};

/// The configuration a finding's cost runs: `logged` against `best`.
struct CostSetting {
  std::string words;  ///< "NCCL_P2P_DISABLE=1"
  CommOptions logged;
  CommOptions best;
  std::string bound_note;
  /// The machine the logged side runs on when the log shows it differs from the described one
  /// (a link slower than described, docs/diagnose.md#findings); nullptr = the described one.
  std::shared_ptr<const Topology> logged_topology;
};

struct RuledFinding {
  Finding finding;
  std::optional<CostSetting> cost;  ///< faults the engine can model
};

struct RuleContext {
  const NcclLog& log;
  const Machine* machine = nullptr;  ///< nullptr: the log alone
  /// The GPU of a rank, or nullopt without a machine or out of range.
  std::optional<DeviceId> gpu(int rank) const;
};

/// p2p-disabled, socket-instead-of-ib, gdr-off, wrong-nic.
std::vector<RuledFinding> transport_findings(const RuleContext& ctx);
/// fewer-channels, ring-crosses-socket, nvls-off, pxn, version-old.
std::vector<RuledFinding> graph_findings(const RuleContext& ctx);
/// pcie-link and host-platform (with a machine and NCCL's topology dump in the log).
std::vector<RuledFinding> host_findings(const RuleContext& ctx);

/// Appends up to kEvidencePerKind of `lines` to `evidence`.
void add_evidence(std::vector<NcclLogLine>& evidence, const std::vector<NcclLogLine>& lines);
/// Appends the line of each variable in `names` the log reports.
void add_env_evidence(std::vector<NcclLogLine>& evidence, const NcclLog& log,
                      const std::vector<std::string_view>& names);

}  // namespace linksim::diagnose_detail
