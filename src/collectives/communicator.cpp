// SPDX-License-Identifier: Apache-2.0
// The public Communicator: NCCL's tuner (tuner.hpp: the algorithm and protocol NCCL's own
// estimate picks for each size) timed by the analytic cost models, and the flow mode on request.
#include <algorithm>
#include <fmt/core.h>
#include <limits>

#include "collectives/analytic.hpp"
#include "collectives/comm_graph.hpp"
#include "collectives/communicator_impl.hpp"
#include "collectives/flow_lowering.hpp"
#include "collectives/tuner.hpp"
#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/units.hpp"

namespace linksim {
namespace {

bool ring_collective(CollectiveOp op) {
  return op == CollectiveOp::kAllReduce || op == CollectiveOp::kAllGather ||
         op == CollectiveOp::kReduceScatter;
}

// A pipelined ring moves wire_factor x S per rank; a link carries its load share of that,
// at the rate the protocol lets the ring run (docs/model.md#flow-mode: link_scale).
std::vector<LinkUsage> ring_link_usage(const detail::CommGraph& g, const detail::CostModel& m,
                                       double size_bytes, double time_s) {
  std::vector<LinkUsage> usage;
  for (const auto& [link, load] : g.ring_link_loads()) {
    const double bytes = load * m.wire_factor * size_bytes;
    if (!(bytes > 0)) continue;
    const double rate_Bps = g.capacities()[link.value] * m.link_scale;
    const double raw_Bps = g.topology().link(link).bw_Bps;
    usage.push_back({link, bytes, bytes / rate_Bps, time_s > 0 ? bytes / (raw_Bps * time_s) : 0});
  }
  std::sort(usage.begin(), usage.end(),
            [](const LinkUsage& a, const LinkUsage& b) { return a.link < b.link; });
  return usage;
}

}  // namespace

Communicator::Communicator(const Topology& topology, std::vector<DeviceId> ranks,
                           CommOptions options)
    : impl_(std::make_unique<Impl>(topology, std::move(ranks), options)) {}
Communicator::Communicator(const Communicator& sibling, std::vector<DeviceId> ranks,
                           CommOptions options)
    : impl_(std::make_unique<Impl>(*sibling.impl_, std::move(ranks), options)) {}
Communicator::~Communicator() = default;
Communicator::Communicator(Communicator&&) noexcept = default;

int Communicator::rank_count() const { return static_cast<int>(impl_->graph.ranks().size()); }
int Communicator::node_count() const { return impl_->graph.node_count(); }
const std::vector<DeviceId>& Communicator::ranks() const { return impl_->graph.ranks(); }
const Topology& Communicator::topology() const { return impl_->graph.topology(); }
NcclVersion Communicator::nccl_version() const { return impl_->graph.options().nccl_version; }

namespace detail {

void check_query(const CommGraph& g, const CollectiveQuery& query) {
  if (!(query.size_bytes >= 0)) throw ConfigError(RequestField{"size_bytes"}, "expected a message size >= 0 bytes");
  if (query.size_bytes > kMaxSizeBytes) {
    throw ConfigError(RequestField{"size_bytes"}, fmt::format("expected a message size of at most 8 PiB (2^53 bytes), got {}",
                                  query.size_bytes));
  }
  const int ranks = static_cast<int>(g.ranks().size());
  if ((query.op == CollectiveOp::kBroadcast || query.op == CollectiveOp::kReduce) &&
      (query.root < 0 || query.root >= ranks)) {
    throw ConfigError(fmt::format("root rank {} does not exist; expected 0..{}", query.root,
                                  ranks - 1));
  }
}

}  // namespace detail

CollectiveResult Communicator::run(const CollectiveQuery& query) const {
  const detail::CommGraph& g = impl_->graph;
  detail::check_query(g, query);
  detail::Choice c = detail::choose(g, query);
  CollectiveResult r;
  r.algorithm = c.algo;
  r.protocol = c.proto;
  r.channels = c.model.channels;
  r.bottleneck = c.model.bottleneck;
  r.time_s = c.model.time_s(query.size_bytes);
  if (query.mode == SimMode::kFlow && query.size_bytes > 0 && rank_count() > 1) {
    detail::FlowOutcome f =
        detail::simulate_flows(g, query.op, c.algo, c.model, query.size_bytes, query.root);
    r.time_s = c.model.launches_overlap ? std::max(c.model.host_launch_s, f.time_s)
                                        : c.model.host_launch_s + f.time_s;
    r.bottleneck = f.bottleneck;
    r.link_usage = std::move(f.link_usage);
  } else if (c.algo == Algorithm::kRing && ring_collective(query.op)) {
    r.link_usage = ring_link_usage(g, c.model, query.size_bytes, r.time_s);
  }
  r.algbw_Bps = r.time_s > 0 ? query.size_bytes / r.time_s : 0;
  r.busbw_Bps = r.algbw_Bps * bus_factor(query.op, rank_count());
  return r;
}

}  // namespace linksim
