// SPDX-License-Identifier: Apache-2.0
// Paths into data/validation/ that fail the test when the data is missing.
#include "support/validation_data.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

namespace linksim::testing {
namespace {

namespace fs = std::filesystem;

const std::string kValidationDir = std::string(LINKSIM_SOURCE_DIR) + "/data/validation/";

}  // namespace

std::string validation_file(const std::string& relative) {
  const std::string path = kValidationDir + relative;
  REQUIRE_MESSAGE(fs::is_regular_file(path), "validation data missing: " << path);
  return path;
}

std::vector<std::string> validation_files(const std::string& folder) {
  const std::string dir = kValidationDir + folder;
  REQUIRE_MESSAGE(fs::is_directory(dir), "validation data folder missing: " << dir);
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  REQUIRE_MESSAGE(!files.empty(), "validation data folder is empty: " << dir);
  return files;
}

}  // namespace linksim::testing
