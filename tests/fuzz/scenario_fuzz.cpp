// SPDX-License-Identifier: Apache-2.0
// Scenario files (docs/scenario-format.md), read and expanded as `linksim run --list` does:
// cases within the case limit, or one positioned refusal. The input is named inside
// scenarios/, so machine files resolve as for the repository's scenarios.
#include "fuzz/fuzz_support.hpp"
#include "linksim/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linksim;
  const std::string_view text = fuzz::as_text(data, size);
  const std::string file = fuzz::source_path("scenarios/fuzz-input.yaml");
  // A lower case limit than the CLI's keeps one input's work small; the check itself is the
  // same code.
  const ScenarioOptions options{.max_cases = 200};
  try {
    const Scenario scenario = parse_scenario(std::string(text), file, options);
    if (scenario.cases.size() > size_t(options.max_cases)) {
      fuzz::finding("a scenario above the case limit", text);
    }
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, file);
  }
  return 0;
}
