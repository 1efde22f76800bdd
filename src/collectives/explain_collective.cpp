// SPDX-License-Identifier: Apache-2.0
// explain_collective: the tuner's comparison, the chosen closed form term by term (written by
// the algorithm's own cost function into a CostTrace), nccl-tests' algbw and busbw, and the
// flow simulation of the same query (docs/explain.md).
#include <fmt/core.h>

#include "collectives/communicator_impl.hpp"
#include "collectives/tuner.hpp"
#include "common/check.hpp"
#include "linksim/error.hpp"
#include "linksim/explain.hpp"

namespace linksim {
namespace {

std::string bus_factor_formula(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return "factor = 2(n-1)/n";
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll:
      return "factor = (n-1)/n";
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSendRecv:
      return "factor = 1";
  }
  return "";
}

ExplainStep closed_form_step(const detail::CostModel& m, const CollectiveQuery& q, double time_s) {
  ExplainStep s;
  s.title = "closed form";
  s.formula = m.host_launch_s == 0 ? "t = alpha + fill + w x S / B"
              : m.launches_overlap    ? "t = max(t_host, alpha + fill + w x S / B)"
                                      : "t = t_host + alpha + fill + w x S / B";
  if (m.host_launch_s > 0) {
    s.terms.push_back({"t_host", m.host_launch_s, "s",
                       "one thread's launches for all its GPUs (nccl-tests -g N)"});
  }
  s.terms.insert(s.terms.end(), {{"alpha", m.latency_s, "s", "the latency term"},
             {"fill", m.fill_s, "s", "pipeline fill before the steady state"},
             {"w", m.wire_factor, "", "bytes each rank moves over its bottleneck per byte of S"},
             {"S", q.size_bytes, "bytes", "--size, rounded to whole elements as nccl-tests does"},
             {"B", m.bw_Bps, "B/s", "the bandwidth term"}});
  s.result = {"t", time_s, "s", ""};
  return s;
}

void add_semantics_steps(const CollectiveExplanation& e, std::vector<ExplainStep>& steps) {
  ExplainStep alg;
  alg.title = "algorithm bandwidth (nccl-tests)";
  alg.formula = "algbw = S / t";
  alg.terms = {{"S", e.size_bytes, "bytes", "nccl-tests' size column"},
               {"t", e.analytic.time_s, "s", "the closed form"}};
  alg.result = {"algbw", e.analytic.algbw_Bps, "B/s", ""};
  steps.push_back(alg);
  ExplainStep bus;
  bus.title = "bus bandwidth (nccl-tests)";
  bus.formula = "busbw = algbw x factor, " + bus_factor_formula(e.op);
  bus.terms = {{"algbw", e.analytic.algbw_Bps, "B/s", "above"},
               {"n", double(e.ranks), "", "ranks"},
               {"factor", e.bus_factor, "", "nccl-tests doc/PERFORMANCE.md"}};
  bus.result = {"busbw", e.analytic.busbw_Bps, "B/s", ""};
  bus.notes.push_back(
      "busbw is comparable across collectives and with the links' rate: the "
      "factor turns algbw into the rate a rank's busiest link moves data at");
  steps.push_back(bus);
}

const LinkUsage* usage_of(const CollectiveResult& r, LinkId link) {
  for (const LinkUsage& u : r.link_usage) {
    if (u.link == link) return &u;
  }
  return nullptr;
}

ExplainStep flow_step(const CollectiveExplanation& e) {
  ExplainStep s;
  s.title = "flow simulation";
  s.formula =
      "every transfer of the algorithm at once, max-min fair shares of every directed "
      "link, the same alpha and fill";
  const CollectiveResult& f = *e.flow;
  s.terms = {{"t_closed", e.analytic.time_s, "s", "the closed form"}};
  if (f.bottleneck.kind == BottleneckKind::kLink) {
    if (const LinkUsage* u = usage_of(f, f.bottleneck.link)) {
      s.terms.push_back({"bytes", u->bytes, "bytes", "carried by the flow bottleneck link"});
      s.terms.push_back({"busy", u->busy_s, "s", "time that link was saturated"});
      s.terms.push_back({"U", u->utilization, "", "bytes / (raw rate x t_flow)"});
    }
  }
  s.result = {"t_flow", f.time_s, "s", ""};
  return s;
}

ExplainStep difference_step(const CollectiveExplanation& e) {
  ExplainStep s;
  s.title = "flow against closed form";
  s.formula = "delta = t_flow - t_closed";
  s.terms = {{"t_flow", e.flow->time_s, "s", "the flow simulation"},
             {"t_closed", e.analytic.time_s, "s", "the closed form"}};
  s.result = {"delta", e.flow->time_s - e.analytic.time_s, "s", ""};
  return s;
}

}  // namespace

CollectiveExplanation explain_collective(const Communicator& comm, const CollectiveQuery& query) {
  const detail::CommGraph& g = comm.impl_->graph;
  CollectiveQuery analytic_query = query;
  analytic_query.mode = SimMode::kAnalytic;
  CollectiveExplanation e;
  e.op = query.op;
  e.ranks = comm.rank_count();
  e.nodes = comm.node_count();
  e.nccl_version = comm.nccl_version();
  e.size_bytes = query.size_bytes;
  e.bus_factor = bus_factor(query.op, e.ranks);
  e.analytic = comm.run(analytic_query);  // validates the query as `coll` does

  std::vector<detail::TriedPair> tried;
  const detail::Choice choice = detail::choose(g, analytic_query, &tried);
  for (const detail::TriedPair& t : tried) {
    TunerCandidate c{t.algo, t.proto, t.model.eligible, t.model.why_not};
    if (t.model.eligible) {
      c.latency_s = t.model.latency_s;
      c.fill_s = t.model.fill_s;
      c.wire_factor = t.model.wire_factor;
      c.bw_Bps = t.model.bw_Bps;
      c.time_s = t.model.time_s(query.size_bytes);
      c.nccl_estimate_s = t.estimate.time_s(query.size_bytes);
    }
    c.chosen = t.algo == choice.algo && t.proto == choice.proto;
    e.candidates.push_back(std::move(c));
  }
  detail::CostTrace trace;
  const detail::CostModel model =
      detail::cost_model(g, query.op, choice.algo, choice.proto, query.size_bytes, &trace);
  const double closed_s = model.time_s(query.size_bytes);
  LINKSIM_CHECK(closed_s == e.analytic.time_s && choice.algo == e.analytic.algorithm,
                "the explained closed form is the prediction");

  ExplainStep tuner;
  tuner.title = "algorithm and protocol";
  tuner.formula =
      "NCCL runs the candidate its own estimate t_nccl = lat + S / algbw_nccl makes least "
      "(its search speeds and tuning tables); the prediction is that candidate's "
      "t = alpha + fill + w x S / B";
  tuner.terms = {{"S", query.size_bytes, "bytes", "--size"},
                 {"n", double(e.ranks), "", fmt::format("ranks on {} server(s)", e.nodes)}};
  tuner.result = {"t", closed_s, "s", ""};
  e.steps.push_back(tuner);
  trace.latency.title = "latency term";
  e.steps.push_back(trace.latency);
  trace.bandwidth.title = "bandwidth term";
  e.steps.push_back(trace.bandwidth);
  e.steps.push_back(closed_form_step(model, query, closed_s));
  add_semantics_steps(e, e.steps);

  if (!(query.size_bytes > 0 && e.ranks > 1)) {
    e.flow_skipped = "nothing moves (one rank or an empty message)";
    return e;
  }
  CollectiveQuery flow_query = query;
  flow_query.mode = SimMode::kFlow;
  try {
    e.flow = comm.run(flow_query);
  } catch (const ConfigError& error) {
    e.flow_skipped = error.message();  // too many transfers to simulate; the closed form stands
    return e;
  }
  e.steps.push_back(flow_step(e));
  e.steps.push_back(difference_step(e));
  return e;
}

}  // namespace linksim
