// SPDX-License-Identifier: Apache-2.0
// The calibration profile's YAML form (docs/calibration.md#profile): written by `linksim
// calibrate`, read by every predicting command's --calibration.
#include <fmt/core.h>

#include <algorithm>

#include "common/yaml_reader.hpp"
#include "linksim/calibration.hpp"
#include "linksim/input_file.hpp"

namespace linksim {
namespace {

constexpr std::string_view kFormat = "linksim-calibration-1";

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

const CalibrationParameterInfo* find_parameter(std::string_view name) {
  for (const CalibrationParameterInfo& info : calibration_parameters()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

double read_value(const detail::YamlValue& value, const CalibrationParameterInfo& info) {
  const double x = value.to_double(-1e300);
  if (x < info.min || x > info.max) {
    value.fail(fmt::format("expected {} between {:g} and {:g}, got {:g}", info.name, info.min,
                           info.max, x));
  }
  return x;
}

}  // namespace

std::string render_calibration_profile(const CalibrationProfile& profile) {
  std::string out = "# linksim calibration profile (docs/calibration.md)\n";
  out += fmt::format("format: {}\n", kFormat);
  out += fmt::format("topology: {}\n", quoted(profile.topology));
  out += "measurements:\n";
  for (const std::string& file : profile.measurements) out += fmt::format("  - {}\n", quoted(file));
  out += "parameters:\n";
  for (const CalibrationParameterInfo& info : calibration_parameters()) {
    out += fmt::format("  {}: {}  # {}\n", info.name, profile.parameters[info.id], info.meaning);
  }
  out += "undetermined: [";
  for (size_t i = 0; i < profile.undetermined.size(); ++i) {
    out += fmt::format("{}{}", i ? ", " : "", parameter_info(profile.undetermined[i]).name);
  }
  out += "]\n";
  out += "rms_log_error:\n";
  out += fmt::format("  before: {}\n  after: {}\n", profile.rms_log_error_before,
                     profile.rms_log_error_after);
  return out;
}

CalibrationProfile parse_calibration_profile(const std::string& text, const std::string& file) {
  const detail::YamlFile yaml_file{file, {}};
  const detail::YamlValue root(detail::parse_yaml(text, yaml_file), &yaml_file, "", nullptr);
  root.expect_map();
  root.check_keys({"format", "topology", "measurements", "parameters", "undetermined",
                   "rms_log_error"});
  const detail::YamlValue format = root.at("format");
  if (format.text() != kFormat) {
    format.fail(fmt::format("expected format {}, got \"{}\"", kFormat, format.text()));
  }
  CalibrationProfile profile;
  if (auto topology = root.find("topology")) profile.topology = topology->text();
  if (auto measurements = root.find("measurements")) {
    for (const detail::YamlValue& item : measurements->items()) {
      profile.measurements.push_back(item.text());
    }
  }
  const detail::YamlValue parameters = root.at("parameters");
  parameters.check_keys({"nvlink_efficiency", "nvls_efficiency", "pcie_efficiency",
                         "network_efficiency", "host_staging_rate", "hop_latency_us"});
  for (const CalibrationParameterInfo& info : calibration_parameters()) {
    if (auto value = parameters.find(info.name)) profile.parameters[info.id] = read_value(*value, info);
  }
  if (auto undetermined = root.find("undetermined")) {
    for (const detail::YamlValue& item : undetermined->items()) {
      const CalibrationParameterInfo* info = find_parameter(item.text());
      if (info == nullptr) {
        item.fail(fmt::format("expected a parameter name such as nvlink_efficiency, got \"{}\"",
                              item.text()));
      }
      profile.undetermined.push_back(info->id);
    }
  }
  if (auto rms = root.find("rms_log_error")) {
    rms->expect_map();
    rms->check_keys({"before", "after"});
    if (auto before = rms->find("before")) profile.rms_log_error_before = before->to_double(0);
    if (auto after = rms->find("after")) profile.rms_log_error_after = after->to_double(0);
  }
  return profile;
}

CalibrationProfile load_calibration_profile(const std::string& path) {
  return parse_calibration_profile(read_input_file(path), path);
}

}  // namespace linksim
