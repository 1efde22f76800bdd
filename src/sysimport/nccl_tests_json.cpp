// SPDX-License-Identifier: Apache-2.0
// nccl-tests' JSON output (-J FILE, JSON_FILE_VERSION 2; nccl-tests src/util.cu): args,
// env, config, devices and one results entry per size with out_of_place and in_place timings.
#include <fmt/core.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "linksim/error.hpp"
#include "sysimport/nccl_tests_text.hpp"

namespace linksim::nccl_tests {
namespace {

// The 1-based line and column of byte `offset` in `text`.
SourceLocation location_of(std::string_view text, size_t offset, const std::string& file) {
  offset = std::min(offset, text.size());
  int line = 1, column = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {file, line, column};
}

[[noreturn]] void fail(const std::string& file, const std::string& message) {
  throw ConfigError({file, 1, 1}, message);
}

const nlohmann::json& member(const nlohmann::json& object, const char* key, const char* where,
                             const std::string& file) {
  if (!object.is_object() || !object.contains(key)) {
    fail(file, fmt::format("expected nccl-tests JSON with \"{}\" in {}, got none", key, where));
  }
  return object.at(key);
}

double number(const nlohmann::json& value, const char* key, const std::string& file) {
  if (!value.is_number()) {
    fail(file, fmt::format("expected a number for \"{}\" in a result, got {}", key, value.dump()));
  }
  return value.get<double>();
}

NcclTestsTiming timing(const nlohmann::json& group, const std::string& file) {
  const char* time_key = group.contains("cpu_time") ? "cpu_time" : "time";
  return {number(member(group, time_key, "a timing", file), time_key, file),
          number(member(group, "alg_bw", "a timing", file), "alg_bw", file),
          number(member(group, "bus_bw", "a timing", file), "bus_bw", file)};
}

// The collective of args[0], "./build/all_reduce_perf" -> "allreduce".
std::string collective_of(const nlohmann::json& args, const std::string& file) {
  if (!args.is_array() || args.empty() || !args[0].is_string()) {
    fail(file, "expected nccl-tests JSON whose \"args\" start with the test binary, got none");
  }
  std::string binary = args[0].get<std::string>();
  binary = binary.substr(binary.find_last_of('/') + 1);
  const size_t suffix = binary.rfind("_perf");
  if (suffix != std::string::npos) binary.resize(suffix);
  if (auto name = collective_key(binary)) return *name;
  fail(file, fmt::format("expected a collective test binary such as all_reduce_perf in "
                         "\"args\", got '{}'", args[0].get<std::string>()));
}

}  // namespace

NcclTestsTable parse_json_output(std::string_view text, const std::string& filename) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(location_of(text, e.byte == 0 ? 0 : e.byte - 1, filename),
                      "invalid nccl-tests JSON: expected a complete JSON document");
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double (406: "number overflow parsing '6e714'"): at the number.
    const std::string_view what = e.what();
    const size_t open = what.find('\'');
    const size_t close = open == what.npos ? what.npos : what.find('\'', open + 1);
    const std::string_view token =
        close == what.npos ? std::string_view() : what.substr(open + 1, close - open - 1);
    const size_t at = token.empty() ? std::string_view::npos : text.find(token);
    throw ConfigError(location_of(text, at == std::string_view::npos ? 0 : at, filename),
                      fmt::format("invalid nccl-tests JSON: expected a number within a double's "
                                  "range, got {}", token.empty() ? "a larger one" : token));
  }
  NcclTestsTable table;
  table.file = filename;
  table.collective = collective_of(member(document, "args", "the document", filename), filename);
  table.collective_source = "the binary name";
  const nlohmann::json& config = member(document, "config", "the document", filename);
  const nlohmann::json& devices = member(config, "devices", "config", filename);
  if (!devices.is_array() || devices.empty()) {
    fail(filename, "expected nccl-tests JSON listing its devices in config.devices, got none");
  }
  table.ranks = static_cast<int>(devices.size());
  table.ranks_source = "the device list";
  if (config.contains("ngpus") && config["ngpus"].is_number_integer()) {
    table.gpus_per_thread = config["ngpus"].get<int>();
  }
  if (document.contains("env") && document["env"].is_array()) {
    for (const nlohmann::json& entry : document["env"]) {
      if (!entry.is_string()) continue;
      const std::string word = entry.get<std::string>();
      const size_t equals = word.find('=');
      if (word.rfind("NCCL_", 0) == 0 && equals != std::string::npos) {
        table.env.emplace(word.substr(0, equals), word.substr(equals + 1));
      }
    }
  }
  const nlohmann::json& results = member(document, "results", "the document", filename);
  if (!results.is_array()) fail(filename, "expected \"results\" to be a list of rows");
  for (const nlohmann::json& result : results) {
    NcclTestsRow row;
    row.size_bytes = number(member(result, "size", "a result", filename), "size", filename);
    if (result.contains("count")) row.count = number(result["count"], "count", filename);
    if (result.contains("type") && result["type"].is_string()) row.type = result["type"];
    if (result.contains("redop") && result["redop"].is_string()) row.redop = result["redop"];
    if (result.contains("root") && result["root"].is_string()) {
      // nccl-tests writes the root as its padded text, "    -1".
      const std::string root = result["root"].get<std::string>();
      const size_t begin = root.find_first_not_of(' ');
      int value = 0;
      if (begin != std::string::npos &&
          std::from_chars(root.data() + begin, root.data() + root.size(), value).ec == std::errc()) {
        row.root = value;
      }
    }
    const nlohmann::json& out_of_place = member(result, "out_of_place", "a result", filename);
    if (out_of_place.is_null()) continue;  // an in-place-only row (trace replay)
    const NcclTestsTiming t = timing(out_of_place, filename);
    row.time_us = t.time_us;
    row.algbw_GBps = t.algbw_GBps;
    row.busbw_GBps = t.busbw_GBps;
    if (result.contains("in_place") && result["in_place"].is_object()) {
      row.in_place = timing(result["in_place"], filename);
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace linksim::nccl_tests
