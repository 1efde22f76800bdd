// SPDX-License-Identifier: Apache-2.0
// `linksim accept --topo FILE [COLLECTIVE|SIZE ...]`: the bring-up acceptance sheet;
// `linksim accept --topo FILE --check RESULTS...`: real nccl-tests outputs against it, exit 1
// when a row falls short (docs/cli.md#accept).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>

#include "cli/cli_common.hpp"
#include "cli/coll_args.hpp"
#include "cli/command_table.hpp"
#include "cli/results_args.hpp"
#include "linksim/acceptance.hpp"
#include "linksim/diagnose.hpp"
#include "linksim/error.hpp"
#include "linksim/fault_reports.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_log.hpp"
#include "linksim/units.hpp"

namespace linksim::cli {
namespace {

struct AcceptArgs {
  std::vector<std::string> words;  ///< collectives and sizes, or with --check result files
  bool check = false;
  bool json = false;
  std::string collective;  ///< --collective, for pasted tables that do not name theirs
  std::string log;         ///< --log: the run's NCCL_DEBUG=INFO log, for the mechanisms
  CollArgs coll;
};

AcceptanceRequest sheet_request(const AcceptArgs& a) {
  AcceptanceRequest request;
  for (const std::string& word : a.words) {
    if (const std::optional<CollectiveOp> op = parse_collective(word)) {
      request.collectives.push_back(*op);
    } else if (parse_size_bytes(word)) {
      request.sizes_bytes.push_back(size_arg(word, "SIZE"));
    } else {
      throw ConfigError(fmt::format("expected a collective (allreduce, all_gather, ...) or a "
                                    "size such as 256M or 1G, got \"{}\"",
                                    word));
    }
  }
  request.options = comm_options(a.coll);
  request.type = sweep_options(CollectiveOp::kAllReduce, a.coll).type;
  return request;
}

void run(const AcceptArgs& a) {
  if (a.coll.topos.size() != 1) {
    throw ConfigError(fmt::format("--topo: expected one topology, got {}", a.coll.topos.size()));
  }
  const Topology topology = load_coll_topology(a.coll, a.coll.topos.front());
  if (!a.check && !a.log.empty()) {
    throw ConfigError("--log: expected with --check (the run's log explains its shortfalls), got "
                      "a sheet to write");
  }
  if (!a.check) {
    const AcceptanceSheet sheet =
        acceptance_sheet(topology, select_gpus(topology, a.coll.gpus), sheet_request(a));
    fmt::print("{}", a.json ? render_acceptance_sheet_json(sheet)
                            : render_acceptance_sheet_text(sheet));
    return;
  }
  if (a.words.empty()) throw ConfigError("--check: expected nccl-tests outputs to check, got none");
  std::vector<NcclTestsTable> tables;
  for (const std::string& file : a.words) {
    for (NcclTestsTable& table : load_nccl_tests_outputs(file, read_options(a.collective))) {
      tables.push_back(std::move(table));
    }
  }
  std::vector<LoggedSuspect> logged;
  if (!a.log.empty()) {
    // The faults diagnose finds in the run's log are the mechanisms a shortfall is weighed
    // against (docs/cli.md#accept).
    const NcclLog log = read_nccl_log(a.log);
    DiagnoseRequest request;
    request.topology = &topology;
    try {
      logged = logged_suspects(diagnose(log, request));
    } catch (const ConfigError& e) {
      if (e.where().line > 0) throw;
      throw ConfigError(fmt::format("--log: {}", e.message()));
    }
  }
  const AcceptanceCheck check = check_acceptance(topology, a.coll.gpus, tables,
                                                 calibration_arg(a.coll.calibration), logged);
  fmt::print("{}", a.json ? render_acceptance_check_json(check)
                          : render_acceptance_check_text(check));
  if (check.failed > 0) throw ExitStatus{kExitFindings};
}

const CommandRegistrar kAccept{"", "accept", [](CLI::App& app) {
  auto args = std::make_shared<AcceptArgs>();
  CLI::App* c = app.add_subcommand(
      "accept", "A bring-up acceptance sheet (nccl-tests runs and the busbw each must reach), "
                "or --check real outputs against it");
  c->add_option("words", args->words,
                "Collectives and sizes for the sheet (default: all_reduce all_gather "
                "reduce_scatter alltoall at 64M 256M 1G 4G); with --check, nccl-tests outputs");
  c->add_flag("--check", args->check, "Check nccl-tests outputs; exit 1 if a row falls short");
  add_machine_options(*c, args->coll);
  // One value per --topo, so the positional words may follow it.
  c->get_option("--topo")->expected(1)->allow_extra_args(false);
  c->add_option("-d,--dtype", args->coll.dtype, "Element type of the sheet's runs (float)");
  add_collective_option(*c, args->collective);
  c->add_option("--log", args->log,
                "With --check: the run's NCCL_DEBUG=INFO log; a shortfall is explained by the "
                "faults `diagnose` finds in it")
      ->expected(1)
      ->allow_extra_args(false);
  c->add_flag("--json", args->json, "Print one JSON object");
  c->callback([args] { run(*args); });
}};

}  // namespace
}  // namespace linksim::cli
