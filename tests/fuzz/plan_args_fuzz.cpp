// SPDX-License-Identifier: Apache-2.0
// The flags of `linksim plan` (docs/planner.md), one argument per input line, parsed as the CLI
// parses them (layouts such as --tp 8 --pp 2, --arch key=value lists, GPU selections) and
// planned on a DGX H100: a plan with a finite positive step time, or a refusal naming the flag.
// --topo and --set are parsed but the machine is fixed.
#include <CLI/CLI.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "cli/plan_args.hpp"
#include "fuzz/fuzz_support.hpp"
#include "linksim/plan.hpp"
#include "linksim/topology_yaml.hpp"

namespace {

// Inputs with more arguments are skipped: the flags are few, repetition adds nothing.
constexpr size_t kMaxArguments = 64;

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size() && lines.size() <= kMaxArguments) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linksim;
  static const Topology machine = load_topology(fuzz::source_path("topologies/dgx-h100.yaml"));
  const std::string_view text = fuzz::as_text(data, size);
  std::vector<std::string> args = split_lines(text);
  if (args.size() > kMaxArguments) return 0;
  args.insert(args.begin(), {"--topo", "machine.yaml"});
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first

  CLI::App app("plan");
  cli::PlanArgs plan_args;
  cli::add_plan_options(app, plan_args);
  try {
    app.parse(args);
  } catch (const CLI::Error&) {
    return 0;  // CLI11's own refusals (unknown flag, not a number); the CLI prefixes them
  }
  try {
    const PlanRequest request = cli::to_request(plan_args);
    const PlanResult result = plan(machine, request);
    if (!(std::isfinite(result.step_time_s) && result.step_time_s > 0)) {
      fuzz::finding("a plan without a finite positive step time", text);
    }
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "");
  }
  return 0;
}
