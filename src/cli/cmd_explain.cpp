// SPDX-License-Identifier: Apache-2.0
// `linksim explain coll OP` and `linksim explain plan`: the derivation behind what `coll` and
// `plan` print for the same flags (include/linksim/explain.hpp), rendered by
// include/linksim/explain_report.hpp.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "cli/coll_args.hpp"
#include "cli/command_table.hpp"
#include "cli/plan_args.hpp"
#include "linksim/error.hpp"
#include "linksim/explain.hpp"
#include "linksim/explain_report.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/plan_explain.hpp"

namespace linksim::cli {
namespace {

struct ExplainCollArgs {
  std::string op;
  CollArgs coll;
};

CollectiveOp op_arg(const std::string& text) {
  if (const std::optional<CollectiveOp> op = parse_collective(text)) return *op;
  std::string names;
  for (const CollectiveName& n : collective_names()) {
    names += (names.empty() ? "" : ", ") + std::string(n.name);
  }
  throw ConfigError(fmt::format("OP: expected one of {}, got \"{}\"", names, text));
}

void run_coll(const ExplainCollArgs& a) {
  const CollectiveOp op = op_arg(a.op);
  if (a.coll.size.empty()) {
    throw ConfigError("--size: expected one message size such as 8, 64K, 1M or 1G, none given");
  }
  if (a.coll.topos.size() != 1) {
    throw ConfigError(fmt::format("--topo: expected one topology, got {}", a.coll.topos.size()));
  }
  const double requested_bytes = size_arg(a.coll.size, "--size");
  const SweepRequest request = sweep_options(op, a.coll);
  const Topology topology = load_coll_topology(a.coll, a.coll.topos.front());
  const Communicator comm(topology, select_gpus(topology, a.coll.gpus), comm_options(a.coll));
  CollectiveQuery query;
  query.op = op;
  query.algorithm = request.algorithm;
  query.protocol = request.protocol;
  query.root = request.root;
  // The size coll's row reports: whole elements (and blocks) of the type, as nccl-tests.
  query.size_bytes =
      round_message_size(op, requested_bytes, request.type, comm.rank_count()).size_bytes;
  const CollectiveExplanation e = explain_collective(comm, query);
  fmt::print("{}",
             a.coll.json ? render_explain_json(e, topology) : render_explain_text(e, topology));
}

void run_plan(const PlanArgs& a) {
  if (a.search || a.sensitivity) {
    throw ConfigError(fmt::format(
        "{}: expected one plan to explain; run `linksim plan {}` for "
        "the table",
        a.search ? "--search" : "--sensitivity", a.search ? "--search" : "--sensitivity"));
  }
  const PlanRequest request = to_request(a);
  const Topology topology = topology_arg(a);
  const PlanExplanation e = explain_plan(topology, request);
  fmt::print("{}", a.json ? render_plan_explain_json(e) : render_plan_explain_text(e));
}

void add_explain(CLI::App& app) {
  CLI::App* explain = app.add_subcommand(
      "explain", "Show the derivation behind a coll or plan prediction, term by term");
  explain->require_subcommand(1);

  auto coll = std::make_shared<ExplainCollArgs>();
  CLI::App* c = explain->add_subcommand(
      "coll",
      "The closed form of a collective, number by number, and what the flow simulation adds");
  c->add_option("op", coll->op,
                "allreduce, allgather, reducescatter, broadcast, reduce, "
                "alltoall, sendrecv (nccl-tests' spellings too)")
      ->required();
  add_machine_options(*c, coll->coll);
  c->add_option("--size", coll->coll.size, "The message size, as coll's --size (K/M/G suffixes)");
  add_nccl_options(*c, coll->coll);
  c->add_flag("--json", coll->coll.json, "Print one JSON object");
  c->callback([coll] { run_coll(*coll); });

  auto plan = std::make_shared<PlanArgs>();
  CLI::App* p = explain->add_subcommand(
      "plan", "A plan's step time term by term, its comm/compute ratio and Amdahl bound");
  add_plan_options(*p, *plan);
  p->callback([plan] { run_plan(*plan); });
}

const CommandRegistrar kExplain{"", "explain", add_explain};

}  // namespace
}  // namespace linksim::cli
