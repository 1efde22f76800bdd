// SPDX-License-Identifier: Apache-2.0
// `linksim diagnose LOG [--topo FILE [--set k=v]... [GPU selection]] [--json]
// [--emit-topology FILE]`: a real NCCL_DEBUG=INFO log against the machine it ran on
// (docs/diagnose.md). Exit status 1 when a finding is a fault.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "cli/cli_common.hpp"
#include "cli/command_table.hpp"
#include "cli/plan_args.hpp"
#include "linksim/diagnose.hpp"
#include "linksim/diagnose_report.hpp"
#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_log.hpp"

namespace linksim::cli {
namespace {

struct DiagnoseArgs {
  std::string log;
  std::string topo;
  std::vector<std::string> sets;
  GpuSelection gpus;
  std::string collective = "allreduce";
  std::string emit_topology;
  bool json = false;
  PlanArgs plan;  ///< the layout flags of `plan`, for a plan's cost
};

// Whether a plan flag was given: then the request is a plan's, and to_request names what is
// missing (--model) or wrong.
bool wants_plan(const PlanArgs& p) {
  return p.model || p.arch || p.mode || p.tp || p.pp || p.dp || p.cp || p.ep || p.etp || p.vpp ||
         p.micro_batch || p.global_batch || p.seq || p.batch || p.kv_len || p.search ||
         p.sensitivity;
}

void write_file(const std::string& path, const std::string& text, const char* flag) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text) || !out.flush()) {
    throw ConfigError(fmt::format("{}: cannot write '{}'", flag, path));
  }
}

bool any_selection(const GpuSelection& s) { return s.first_n || s.list || s.per_node; }

void run(const DiagnoseArgs& a) {
  const NcclLog log = read_nccl_log(a.log);
  if (!a.emit_topology.empty()) {
    const std::string name = std::filesystem::path(a.emit_topology).stem().string();
    write_file(a.emit_topology, nccl_log_topology(log, name.empty() ? "nccl-log" : name),
               "--emit-topology");
  }
  DiagnoseRequest request;
  const std::optional<CollectiveOp> op = parse_collective(a.collective);
  if (!op) {
    throw ConfigError(fmt::format("--collective: expected a collective such as allreduce or "
                                  "all_gather, got \"{}\"", a.collective));
  }
  request.op = *op;
  std::optional<Topology> topology;
  if (!a.topo.empty()) {
    topology.emplace(load_topology_arg({a.topo, a.sets}));
    request.topology = &*topology;
    if (any_selection(a.gpus)) request.gpus = select_gpus(*topology, a.gpus);
  } else if (!a.sets.empty() || any_selection(a.gpus)) {
    throw ConfigError("--set and the GPU selection (-g, --gpus, --per-node) describe the machine: "
                      "give it with --topo FILE");
  }
  if (wants_plan(a.plan)) {
    if (a.plan.search || a.plan.sensitivity) {
      throw ConfigError("--search and --sensitivity: expected a plan to cost the faults on, got a "
                        "question of their own (run them with `linksim plan`)");
    }
    if (!topology) {
      throw ConfigError("--model and the plan's flags: expected the machine to plan on, got "
                        "none (give it with --topo FILE)");
    }
    request.plan = to_request(a.plan);
  }
  const Diagnosis diagnosis = diagnose(log, request);
  fmt::print("{}", a.json ? render_diagnosis_json(diagnosis) : render_diagnosis_text(diagnosis));
  if (diagnosis.has_fault()) throw ExitStatus{kExitFindings};
}

const CommandRegistrar kDiagnose{"", "diagnose", [](CLI::App& app) {
  auto args = std::make_shared<DiagnoseArgs>();
  CLI::App* c = app.add_subcommand(
      "diagnose", "Check a real NCCL_DEBUG=INFO log against the machine it ran on");
  c->add_option("log", args->log, "NCCL_DEBUG=INFO output (any launcher's prefixes)")->required();
  c->add_option("--topo", args->topo, "The machine the log ran on (topologies/*.yaml)");
  // One value per --set, so that `--set a=1 LOG` leaves LOG to the positional.
  c->add_option("--set", args->sets, "Override a topology parameter, k=v (repeatable)")
      ->allow_extra_args(false);
  c->add_option("-g", args->gpus.first_n, "The ranks' GPUs: the first N (default: from the log)");
  c->add_option("--gpus", args->gpus.list, "The ranks' GPUs by nvidia-smi index: 0,3 or host1:gpu3");
  c->add_option("--per-node", args->gpus.per_node, "The ranks' GPUs: the first K of every server");
  c->add_option("--collective", args->collective,
                "The collective a fault's cost is measured on (default allreduce)");
  c->add_option("--emit-topology", args->emit_topology,
                "Write a topology skeleton of the log's first node to FILE");
  c->add_flag("--json", args->json, "Print one JSON object (docs/cli.md#diagnose)");
  // A plan to cost each fault on: the layout flags as `plan` spells them (--model, --mode,
  // --tp, ...), on the machine of --topo and --set.
  add_layout_options(*c, args->plan);
  c->add_option("--sim", args->plan.sim, "analytic|flow: the plan's collectives, as plan --sim");
  c->callback([args] { run(*args); });
}};

}  // namespace
}  // namespace linksim::cli
