// SPDX-License-Identifier: Apache-2.0
#include "support/validation_cases.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <yaml-cpp/yaml.h>

#include "support/test_topologies.hpp"

namespace linksim::testing {

namespace {

YAML::Node case_of(const std::string& path) {
  const YAML::Node cases =
      YAML::LoadFile(std::string(LINKSIM_SOURCE_DIR) + "/tests/data/calibration/cases.yaml")["cases"];
  const std::string name = std::filesystem::path(path).filename().string();
  YAML::Node found;
  for (const YAML::Node& c : cases) {
    if (c["file"].as<std::string>() == name) found = c;
  }
  const std::string missing = name + ": no case in tests/data/calibration/cases.yaml";
  REQUIRE_MESSAGE(found, missing);
  return found;
}

}  // namespace

std::set<double> outlier_sizes(const std::string& path) {
  std::set<double> sizes;
  YAML::Node c = case_of(path);
  if (!c["outliers"]) return sizes;
  for (const YAML::Node& o : c["outliers"]) sizes.insert(o["size"].as<double>());
  return sizes;
}

std::vector<Comparison> compare_validation_file(const std::string& path) {
  YAML::Node found = case_of(path);
  ParamOverrides sets;
  GpuSelection selection;
  for (size_t i = 0; i + 1 < found["args"].size(); ++i) {
    const std::string flag = found["args"][i].as<std::string>();
    const std::string value = found["args"][i + 1].as<std::string>();
    if (flag == "--set") sets[value.substr(0, value.find('='))] = value.substr(value.find('=') + 1);
    if (flag == "--per-node") selection.per_node = std::stoi(value);
    if (flag == "--gpus") selection.list = value;
  }
  const Topology topology = library_topology(found["topology"].as<std::string>(), sets);
  std::vector<Comparison> out;
  for (const NcclTestsTable& table : load_nccl_tests_outputs(path)) {
    const MeasuredSetup setup = measured_setup(table);
    out.push_back(compare_measurement(topology, measured_ranks(topology, setup, selection, path), table));
  }
  return out;
}

}  // namespace linksim::testing
