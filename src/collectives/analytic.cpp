// SPDX-License-Identifier: Apache-2.0
// Cost models of NCCL's algorithms (docs/model.md): which algorithms may run, which protocols
// they allow, and the dispatch to each algorithm's closed form (algorithm.hpp).
#include "collectives/analytic.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/core.h>
#include <limits>

#include "collectives/algorithm.hpp"
#include "collectives/explain_terms.hpp"
#include "collectives/ll128_network.hpp"
#include "collectives/model_common.hpp"
#include "common/check.hpp"

namespace linksim::detail {
namespace {

// nccl-tests -g N: one thread launches N GPUs' kernels per call (docs/model.md#launch-overhead).
double host_launch_s(const CommGraph& g) {
  const int gpus = g.options().gpus_per_thread;
  return gpus > 1 ? gpus * kLaunchPerGpu_s : 0.0;
}

bool protocol_allowed(const CommGraph& g, const AlgorithmOps& a, Protocol p, std::string* why) {
  if (!a.simple_only_because.empty() && p != Protocol::kSimple) {
    *why = std::string(a.simple_only_because);
    return false;
  }
  if (p == Protocol::kLL128 && (!g.ring().uses_p2p_only || g.min_sm() < 70)) {
    *why = "LL128 needs NVLink between the GPUs of a server (NCCL enables it only there)";
    return false;
  }
  if (p == Protocol::kLL128 && !ll128_network_path_allowed(g)) {
    *why = "LL128 across servers needs each GPU within PXB of its NIC, or on SM90+ a PXN proxy "
           "or (NCCL 2.27+) its CPU's NIC over NVLink-C2C (NCCL enables it only there)";
    return false;
  }
  return true;
}

// The steps across servers of the algorithms whose closed forms live elsewhere: NVLSTree's
// tree between the servers (2 log2 N, up and down), a direct pattern's one network hop.
double default_net_steps(const CommGraph& g, Algorithm algo) {
  if (g.node_count() <= 1) return 0;
  if (algo == Algorithm::kNvlsTree) return 2.0 * std::log2(double(g.node_count()));
  if (algo == Algorithm::kDirect) return 1;
  return 0;
}

// What NCCL's latency table leaves out across servers (docs/model.md#net-steps): the ring's
// real crossings (realized_extra_s) and, per step that crosses servers, the network kind's
// excess over NCCL's hwLat[NET].
void add_network_steps(const CommGraph& g, Algorithm algo, CostModel& m, CostTrace* trace) {
  if (g.node_count() <= 1) return;
  if (m.net_steps == 0) m.net_steps = default_net_steps(g, algo);
  const NetworkKind kind = network_kind(g.network_link_type());
  const double excess_us = net_step_excess_us(kind);
  const double added_s = m.realized_extra_s + m.net_steps * excess_us * kUs;
  m.latency_s += added_s;
  if (trace != nullptr && excess_us > 0) {
    trace->latency.formula += " + net_steps x lat_kind";
    trace->latency.terms.push_back(
        count_term("net_steps", m.net_steps, "steps that cross servers, one after another"));
    trace->latency.terms.push_back(
        us_term("lat_kind", excess_us,
                fmt::format("{} ({}): a network step beyond NCCL's hwLat[NET] "
                            "(docs/model.md#net-steps)",
                            to_string(kind), g.network_link_type())));
  }
}

}  // namespace

std::vector<Algorithm> candidate_algorithms(const CommGraph& g, CollectiveOp op) {
  std::vector<Algorithm> out;
  out.reserve(algorithm_table().size());
  for (const AlgorithmOps& a : algorithm_table()) {
    if (a.runs(g, op)) out.push_back(a.algorithm);
  }
  return out;
}

CostModel cost_model(const CommGraph& g, CollectiveOp op, Algorithm algo, Protocol proto,
                     double size_bytes, CostTrace* trace) {
  LINKSIM_CHECK(algo != Algorithm::kAuto && proto != Protocol::kAuto,
                "cost_model needs a resolved algorithm and protocol");
  CostModel m;
  const AlgorithmOps* ops = find_algorithm(algo);
  if (!ops->runs(g, op)) {  // not among candidate_algorithms(g, op)
    m.why_not = fmt::format("{} cannot run {} here", to_string(algo), to_string(op));
    return m;
  }
  if (!protocol_allowed(g, *ops, proto, &m.why_not)) return m;
  m = ops->cost(g, op, proto, size_bytes, trace);
  m.table_latency_s = m.latency_s;
  m.table_fill_s = m.fill_s;
  add_network_steps(g, algo, m, trace);
  if (g.ranks().size() == 1) {
    // A device-memory copy, not the algorithm's traffic (docs/model.md#one-rank).
    const double hbm_Bps = g.topology().gpu_model(g.ranks().front()).memory_bw_Bps;
    m.wire_factor = kOneRankCopyBytesPerByte;
    m.bw_Bps = hbm_Bps > 0 ? hbm_Bps * kOneRankCopyEfficiency
                           : std::numeric_limits<double>::infinity();
    m.fill_s = 0;
    m.link_scale = 1.0;
    m.bottleneck = Bottleneck{};  // kNone: no data crosses a link
  }
  // A file's latency overrides and a calibration's hop latency, per hop the latency formula
  // counts (never below zero).
  const double hop_excess_s = g.hop_latency_excess_s() + g.options().calibration.hop_latency_s();
  m.latency_s = std::max(0.0, m.latency_s + m.latency_hops * hop_excess_s);
  m.host_launch_s = host_launch_s(g);
  m.launches_overlap = g.options().nccl_version.at_least(2, 9);
  if (trace != nullptr) {
    if (m.host_launch_s > 0) {
      const int gpus = g.options().gpus_per_thread;
      trace->latency.notes.push_back(fmt::format(
          "one thread launches the kernels of {} GPUs (nccl-tests -g {}): {} x {:g} us = {:.1f} "
          "us a call, {} (docs/model.md#launch-overhead)",
          gpus, gpus, gpus, kLaunchPerGpu_s * 1e6, m.host_launch_s * 1e6,
          m.launches_overlap ? "overlapping the GPUs' run of the previous call: t = max(that, "
                               "alpha + fill + w x S / B)"
                             : "added to the GPUs' run (GROUP launch mode before NCCL 2.9): "
                               "t = that + alpha + fill + w x S / B"));
    }
    trace->latency.result = {"alpha", m.latency_s, "s", ""};
    trace->bandwidth.result = {"B", m.bw_Bps, "B/s", ""};
    if (g.ranks().size() == 1) trace->bandwidth.notes.push_back("a single rank moves no data");
  }
  return m;
}

}  // namespace linksim::detail
