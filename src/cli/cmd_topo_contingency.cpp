// SPDX-License-Identifier: Apache-2.0
// `linksim topo contingency --topo FILE coll OP ... | plan ...`: every single fault of each
// class in turn (N-1), ranked by what it costs the collective or the plan
// (docs/cli.md#contingency).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>

#include "cli/coll_args.hpp"
#include "cli/command_table.hpp"
#include "cli/plan_args.hpp"
#include "linksim/contingency.hpp"
#include "linksim/error.hpp"
#include "linksim/fault_reports.hpp"

namespace linksim::cli {
namespace {

struct ContingencyArgs {
  std::string topo;
  std::vector<std::string> sets;
  bool json = false;
  std::string op;  ///< coll: the collective
  CollArgs coll;
  PlanArgs plan;
};

void print(const ContingencyArgs& a, const ContingencyReport& report) {
  fmt::print("{}", a.json ? render_contingency_json(report) : render_contingency_text(report));
}

void run_coll(const ContingencyArgs& a) {
  const std::optional<CollectiveOp> op = parse_collective(a.op);
  if (!op) {
    throw ConfigError(fmt::format("expected a collective such as allreduce or all_gather, got "
                                  "\"{}\"",
                                  a.op));
  }
  CollArgs coll = a.coll;
  coll.topos = {a.topo};
  coll.sets = a.sets;
  const Topology topology = load_coll_topology(coll, a.topo);
  print(a, collective_contingency(topology, coll.gpus, comm_options(coll), sweep_request(*op, coll)));
}

void run_plan(const ContingencyArgs& a) {
  if (a.plan.search || a.plan.sensitivity) {
    throw ConfigError("--search and --sensitivity: expected a plan to weigh faults against, got "
                      "a question of their own (run them with `linksim plan`)");
  }
  PlanArgs plan = a.plan;
  plan.topo = a.topo;
  plan.sets = a.sets;
  const PlanRequest request = to_request(plan);
  print(a, plan_contingency(topology_arg(plan), request));
}

// The sub-command's own copies of the flags the parent holds are dropped: --topo, --set and
// --json go before or after the sub-command's name alike.
void drop_parent_flags(CLI::App& c) {
  for (const char* name : {"--topo", "--set", "--json"}) {
    if (CLI::Option* option = c.get_option_no_throw(name)) c.remove_option(option);
  }
  c.fallthrough();
}

const CommandRegistrar kContingency{"topo", "contingency", [](CLI::App& topo) {
  auto args = std::make_shared<ContingencyArgs>();
  CLI::App* c = topo.add_subcommand(
      "contingency", "Every single fault (N-1) ranked by what it costs a collective or a plan");
  c->add_option("--topo", args->topo, "Topology file (topologies/*.yaml)")
      ->required()
      ->expected(1)
      ->allow_extra_args(false);
  c->add_option("--set", args->sets, "Override a topology parameter, k=v (repeatable)")
      ->expected(1)
      ->allow_extra_args(false);
  c->add_flag("--json", args->json, "Print one JSON object");
  c->require_subcommand(1);

  CLI::App* coll = c->add_subcommand("coll", "Against a collective: coll OP --size S | -b -e");
  coll->add_option("op", args->op, "allreduce, all_gather, ...")->required();
  add_machine_options(*coll, args->coll);
  coll->add_option("-b,--minbytes", args->coll.min_size, "Smallest size (K/M/G suffixes)");
  coll->add_option("-e,--maxbytes", args->coll.max_size, "Largest size (K/M/G suffixes)");
  coll->add_option("-f,--stepfactor", args->coll.factor, "Size multiplier of the sweep");
  coll->add_option("--size", args->coll.size, "One size instead of a sweep");
  add_nccl_options(*coll, args->coll);
  drop_parent_flags(*coll);
  coll->callback([args] { run_coll(*args); });

  CLI::App* plan = c->add_subcommand("plan", "Against a plan: the flags of `linksim plan`");
  add_plan_options(*plan, args->plan);
  drop_parent_flags(*plan);
  plan->callback([args] { run_plan(*args); });
}};

}  // namespace
}  // namespace linksim::cli
