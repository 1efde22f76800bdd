// SPDX-License-Identifier: Apache-2.0
// The flow-level simulator: transfers over paths of capacity-limited resources, max-min fair.
//
// FlowSim knows nothing about topologies, YAML or NCCL. It sees resources (directed links)
// with capacities in bytes/s and transfers that move bytes over paths of resources, after
// other transfers. The model, the event loop and the tolerance are described in
// docs/flowsim.md; the solver's math is at the top of src/flowsim/max_min_solver.hpp.
//
// Typical use (a collective algorithm emitting millions of transfers):
//
//   FlowSimulator sim(capacities_Bps);
//   sim.reserve(transfers, transfers * hops, transfers);
//   ResourceId hop[] = {ResourceId{3}, ResourceId{7}};
//   TransferId a = sim.add_transfer({.bytes = 1e6, .path = hop, .latency_s = 2e-6});
//   TransferId deps[] = {a};
//   sim.add_transfer({.bytes = 1e6, .path = hop, .after = deps});
//   FlowResult result = sim.run();
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

namespace linksim {

namespace flowsim_internal {
struct Program;  // src/flowsim/program.hpp
}

/// Dense index of a resource: the position of its capacity in the vector given to
/// FlowSimulator. Callers typically use the topology's LinkId values.
struct ResourceId {
  uint32_t value = 0;
  friend bool operator==(ResourceId, ResourceId) = default;
  friend auto operator<=>(ResourceId, ResourceId) = default;
};

/// Dense index of a transfer, in the order add_transfer was called (0, 1, 2, ...).
struct TransferId {
  uint32_t value = 0;
  friend bool operator==(TransferId, TransferId) = default;
  friend auto operator<=>(TransferId, TransferId) = default;
};

/// "No rate cap" for TransferSpec::rate_cap_Bps.
inline constexpr double kUnlimitedRate = std::numeric_limits<double>::infinity();

/// The simulator's knobs. The tolerance lives here and nowhere else (docs/flowsim.md#tolerance).
struct FlowSimOptions {
  /// Relative floating-point tolerance (dimensionless), used for three things:
  ///  - a resource is "saturated" (counts towards busy time) while its load is at least
  ///    (1 - precision) x capacity;
  ///  - events whose times lie within [t, t + precision x t] are processed together at t
  ///    (so flows that finish "at the same time" up to rounding trigger one re-solve);
  ///  - the shares of a multi-path transfer must sum to 1 within precision.
  /// Smaller is stricter; 1e-9 keeps results within 1e-9 relative of the exact model.
  double precision = 1e-9;
  /// Whether FlowResult::transfers gets each transfer's ready and finish times (16 bytes a
  /// transfer); false leaves it empty, for callers that need the makespan and the resources
  /// alone. Nothing else depends on it.
  bool record_transfer_times = true;
};

/// One of the parallel paths of a transfer (an NVSwitch plane, a rail of a fabric).
struct PathSpec {
  std::span<const ResourceId> resources{};  ///< resources crossed, in order (may repeat: counted twice)
  double share = 1.0;                     ///< fraction of the transfer's bytes on this path, in (0, 1]
};

/// A transfer as given to add_transfer. All spans need only live for the call (they are copied).
struct TransferSpec {
  double bytes = 0;  ///< bytes to move, >= 0. Zero-byte transfers end after their latency.
  /// The single path (fast path for the common case). Used when `paths` is empty.
  /// An empty path with no rate cap moves its bytes instantly (a pure delay of latency_s).
  std::span<const ResourceId> path{};
  /// Parallel paths, each carrying share x bytes as its own sub-flow. Shares sum to 1.
  /// The transfer finishes when all its sub-flows have finished.
  std::span<const PathSpec> paths{};
  /// Time from "ready" to the first byte moving, seconds, >= 0. During it the transfer uses
  /// no bandwidth (SimGrid cm02's latency phase).
  double latency_s = 0;
  /// Upper bound on the transfer's total rate, bytes/s, > 0. Applied per sub-flow as
  /// share x rate_cap_Bps, so all sub-flows together never exceed it.
  double rate_cap_Bps = kUnlimitedRate;
  /// Transfers that must finish before this one becomes ready. REQUIRES: each was added earlier
  /// (so the dependency graph is acyclic by construction).
  std::span<const TransferId> after{};
};

/// When a transfer happened. first byte = ready_s + latency_s.
struct TransferTimes {
  double ready_s = 0;   ///< when its last dependency finished (0 with none), seconds
  double finish_s = 0;  ///< when its last byte arrived, seconds
};

/// What a resource did during the run.
struct ResourceUsage {
  /// Bytes that crossed it: sum over sub-flows crossing it of their bytes (per occurrence).
  double bytes = 0;
  /// Time during which it was saturated, seconds: the measure of {t : load(t) >= (1 -
  /// precision) x capacity}, load being the sum of the rates of the sub-flows crossing it.
  double busy_s = 0;
};

struct FlowResult {
  /// Indexed by TransferId::value; empty unless FlowSimOptions::record_transfer_times.
  std::vector<TransferTimes> transfers;
  std::vector<ResourceUsage> resources;  ///< indexed by ResourceId::value
  /// Resources with busy_s > 0, the longest-saturated first; equal busy times by id.
  std::vector<ResourceId> bottlenecks;
  double makespan_s = 0;  ///< the latest finish time (0 with no transfers), seconds
};

/// An event-driven, flow-level network simulator with max-min fair sharing.
///
/// Build the program with add_transfer, then call run(). Storage is compact (CSR arrays, no
/// per-transfer allocation): 44 bytes per single-path transfer, 4 per resource hop and 4 per
/// dependency; run() adds 24 bytes per transfer (16 of them the result) and 4 per dependency.
/// The 8.4 M-transfer ring of bench/flowsim_perftest.cpp peaks at about 680 MB; a synchronous
/// program run as a StepProgram (linksim/flow_steps.hpp) holds only the steps in flight.
/// Thread-compatible: distinct simulators may be used from distinct threads; run() is const
/// and may be called concurrently on one simulator.
class FlowSimulator {
 public:
  /// REQUIRES: every capacity is finite and > 0 (bytes/s). Throws ConfigError otherwise.
  explicit FlowSimulator(std::vector<double> capacities_Bps, FlowSimOptions options = {});
  ~FlowSimulator();
  FlowSimulator(FlowSimulator&&) noexcept;
  FlowSimulator& operator=(FlowSimulator&&) noexcept;

  /// Pre-allocates for `transfers` transfers, `path_entries` resource hops in total and
  /// `dependencies` entries of `after` in total. Optional; avoids regrowth peaks.
  void reserve(std::size_t transfers, std::size_t path_entries, std::size_t dependencies);
  /// The same with room for `subflows` paths in all (transfers over parallel paths have
  /// several each; the three-argument form reserves one per transfer).
  void reserve(std::size_t transfers, std::size_t subflows, std::size_t path_entries,
               std::size_t dependencies);

  /// Adds a transfer and returns its id (the number of transfers added before it).
  /// Throws ConfigError on bad input: negative or non-finite bytes or latency, a non-positive
  /// rate cap, a resource id out of range, shares outside (0, 1] or not summing to 1, both
  /// `path` and `paths` given, a dependency on a transfer not yet added.
  /// Amortized O(path length + dependencies).
  TransferId add_transfer(const TransferSpec& spec);

  std::size_t transfer_count() const;
  std::size_t resource_count() const;
  const FlowSimOptions& options() const;

  /// Simulates every transfer to completion. Deterministic: the same program gives
  /// bit-identical results. Complexity: O(E log E) for E events, plus, per batch of
  /// simultaneous events, the size of the connected component (resources and active
  /// sub-flows) touched by the batch times log of it.
  FlowResult run() const;

 private:
  std::unique_ptr<flowsim_internal::Program> program_;
};

}  // namespace linksim
