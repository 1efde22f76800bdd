// SPDX-License-Identifier: Apache-2.0
// `linksim coll compare RESULTS --topo FILE`: a real nccl-tests output against the same rows
// predicted, side by side, with a verdict per mechanism (docs/calibration.md#compare).
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <memory>

#include "cli/coll_args.hpp"
#include "cli/command_table.hpp"
#include "cli/results_args.hpp"
#include "linksim/error.hpp"
#include "linksim/measured.hpp"
#include "linksim/measured_report.hpp"

namespace linksim::cli {
namespace {

struct CompareArgs {
  std::string results;
  bool json = false;
  std::string collective;  ///< --collective: for tables whose text names none
  CollArgs coll;
};

void run(const CompareArgs& a) {
  if (a.coll.topos.size() != 1) {
    throw ConfigError(fmt::format("--topo: expected one topology, got {}", a.coll.topos.size()));
  }
  const Topology topology = load_coll_topology(a.coll, a.coll.topos.front());
  const std::vector<NcclTestsTable> tables = load_nccl_tests_outputs(a.results, read_options(a.collective));
  std::vector<Comparison> comparisons;
  for (const NcclTestsTable& table : tables) {
    const MeasuredSetup setup = measured_setup(table);
    const std::vector<DeviceId> ranks = measured_ranks(topology, setup, a.coll.gpus, table.file);
    comparisons.push_back(compare_measurement(topology, ranks, table));
  }
  if (a.json) {
    fmt::print("{}", render_comparisons_json(comparisons));
    return;
  }
  for (size_t i = 0; i < comparisons.size(); ++i) {
    fmt::print("{}{}", i ? "\n" : "", render_comparison_text(comparisons[i]));
  }
}

const CommandRegistrar kCompare{"coll", "compare", [](CLI::App& coll) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* c = coll.add_subcommand(
      "compare", "A real nccl-tests output against linksim's prediction of the same rows");
  c->add_option("results", args->results, "nccl-tests output: text as printed (with or "
                                          "without mpirun/srun prefixes) or its JSON (-J)")
      ->required();
  add_machine_options(*c, args->coll);
  add_collective_option(*c, args->collective);
  // One value per --topo, so the positional RESULTS may follow it.
  c->get_option("--topo")->expected(1)->allow_extra_args(false);
  c->add_flag("--json", args->json, "Print one JSON object");
  c->callback([args] { run(*args); });
}};

}  // namespace
}  // namespace linksim::cli
