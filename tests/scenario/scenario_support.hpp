// SPDX-License-Identifier: Apache-2.0
// Scenario text for tests, parsed as if it were a file in the repository's scenarios/ (so
// topology names resolve to topologies/), and a scratch directory per test.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "linksim/error.hpp"
#include "linksim/scenario.hpp"
#include "linksim/scenario_results.hpp"

namespace linksim::testing {

/// Where inline scenarios pretend to live: <source>/scenarios/inline-test.yaml.
inline std::string inline_scenario_path() {
  return std::string(LINKSIM_SOURCE_DIR) + "/scenarios/inline-test.yaml";
}

inline Scenario parse_inline(const std::string& text, long max_cases = kDefaultMaxCases) {
  ScenarioOptions options;
  options.max_cases = max_cases;
  return parse_scenario(text, inline_scenario_path(), options);
}

/// The error of parsing `text`, or an empty error with the message "no error".
inline ConfigError parse_error(const std::string& text, long max_cases = kDefaultMaxCases) {
  try {
    parse_inline(text, max_cases);
  } catch (const ConfigError& e) {
    return e;
  }
  return ConfigError("no error");
}

/// Case files' texts read back as the runner reads them ("case file N" in an error).
inline std::vector<CaseRecord> records_of(const std::vector<std::string>& documents) {
  std::vector<CaseRecord> records;
  for (size_t i = 0; i < documents.size(); ++i) {
    records.push_back(parse_case_record(documents[i], fmt::format("case file {}", i + 1)));
  }
  return records;
}

/// A fresh, empty directory under the system's temporary directory, removed on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("linksim-test-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& child) const { return (path_ / child).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace linksim::testing
