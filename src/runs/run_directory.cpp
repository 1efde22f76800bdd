// SPDX-License-Identifier: Apache-2.0
// The run directory of a scenario: per-case files written as cases finish, then the manifest
// and the data files; every write goes to a temporary file that is renamed, so an interrupted
// run leaves either the old file or the new one, never a truncated one. Case files and the
// manifest are written and read through their typed records (linksim/scenario_results.hpp).
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "linksim/runs.hpp"
#include "linksim/scenario_report.hpp"
#include "linksim/scenario_results.hpp"

namespace linksim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void make_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw ConfigError(RequestField{"out"}, fmt::format("cannot create directory \"{}\": {}", dir.string(),
                                  ec.message()));
  }
}

// A case's file and its record.
struct CaseFile {
  std::string text;
  CaseRecord record;
};

// The case file at `path` read through its record. nullopt when there is none or it is not
// JSON (a write cut short: the case runs again); throws ConfigError naming the file and the
// field for JSON whose fields are not a case record's (never reused, never overwritten).
std::optional<CaseFile> read_case_file(const fs::path& path) {
  std::optional<std::string> text = read_file(path);
  if (!text || !Json::accept(*text)) return std::nullopt;
  CaseRecord record = parse_case_record(*text, path.string());
  return CaseFile{std::move(*text), std::move(record)};
}

// The file of an earlier run of this case, when it is complete and for the same inputs.
std::optional<CaseFile> reusable_case(const fs::path& path, const ScenarioCase& c) {
  std::optional<CaseFile> file = read_case_file(path);
  if (file && file->record.id == c.id && file->record.fingerprint == c.fingerprint &&
      file->record.index == c.index) {
    return file;
  }
  return std::nullopt;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// DIR/charts/*.svg and DIR/report.html. The page's command names the scenario file, never
// the output directory or the shard, so a merged run's page equals a single run's.
void write_pictures(const fs::path& dir, const ScenarioManifest& manifest,
                    const std::vector<CaseRecord>& cases, const RunDirectoryOptions& options,
                    const std::string& scenario_file) {
  if (!options.write_svg && !options.write_html) return;
  const std::vector<ScenarioChart> charts = render_scenario_charts(cases);
  if (options.write_svg) {
    make_directory(dir / "charts");
    for (const ScenarioChart& chart : charts) {
      write_file_atomically((dir / "charts" / (chart.file_stem + ".svg")).string(), chart.svg);
    }
  }
  if (options.write_html) {
    ScenarioReportInfo info;
    const std::string file = !scenario_file.empty() ? scenario_file : manifest.scenario + ".yaml";
    info.command = fmt::format("linksim run {} --format html", file);
    info.version = options.version;
    write_file_atomically((dir / "report.html").string(),
                          render_scenario_html(manifest, cases, charts, info));
  }
}

// Writes the manifest, the data files, the charts and run-info.json; fills the outcome's table.
void write_outputs(const fs::path& dir, const std::string& manifest_text,
                   const std::vector<CaseRecord>& cases, const RunDirectoryOptions& options,
                   RunDirectoryOutcome& outcome, const Json& run_fields) {
  write_file_atomically((dir / "manifest.json").string(), manifest_text);
  const ScenarioManifest manifest = parse_manifest(manifest_text, (dir / "manifest.json").string());
  write_pictures(dir, manifest, cases, options, run_fields.value("scenario_file", ""));
  if (options.write_csv) {
    write_file_atomically((dir / "results.csv").string(), render_results_csv(manifest, cases));
  }
  if (options.write_json) {
    write_file_atomically((dir / "results.json").string(), render_results_json(manifest, cases));
  }
  Json info{{"generated_at", utc_now()},
            {"linksim_version", options.version},
            {"command", options.command_line}};
  for (auto it = run_fields.begin(); it != run_fields.end(); ++it) info[it.key()] = it.value();
  info["cases_total"] = outcome.cases_total;
  info["cases_selected"] = outcome.cases_selected;
  info["cases_run"] = outcome.cases_run;
  info["cases_skipped"] = outcome.cases_skipped;
  info["cases_failed"] = outcome.cases_failed;
  write_file_atomically((dir / "run-info.json").string(), info.dump(2) + "\n");
  outcome.table = render_results_table(manifest, cases);
  outcome.answers = render_answers(manifest, cases);
  if (!outcome.answers.empty()) write_file_atomically((dir / "answers.txt").string(), outcome.answers);
}

int count_failed(const std::vector<CaseRecord>& cases) {
  int failed = 0;
  for (const CaseRecord& c : cases) failed += c.ok() ? 0 : 1;
  return failed;
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      throw ConfigError(fmt::format("cannot write \"{}\": {}", temporary, std::strerror(errno)));
    }
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    fs::remove(temporary, ec);
    throw ConfigError(fmt::format("cannot rename \"{}\" to \"{}\": {}", temporary, path,
                                  ec.message()));
  }
}

RunDirectoryOutcome run_to_directory(const Scenario& scenario, const RunDirectoryOptions& options) {
  const fs::path dir(options.out_dir);
  const fs::path cases_dir = dir / "cases";
  make_directory(cases_dir);

  RunDirectoryOutcome outcome;
  outcome.cases_total = static_cast<int>(scenario.cases.size());
  std::vector<int> selected;
  // The records of the selected cases, in case order, each as its file reads back, so that a
  // fresh, resumed or merged run renders the same numbers.
  std::vector<CaseRecord> records;
  std::vector<int> to_run;
  std::vector<size_t> slot_of_run;
  for (const ScenarioCase& c : scenario.cases) {
    if (!options.shard.contains(c.index)) continue;
    selected.push_back(c.index);
    records.emplace_back();
    if (options.resume) {
      if (auto file = reusable_case(cases_dir / (c.file_stem + ".json"), c)) {
        records.back() = std::move(file->record);
        ++outcome.cases_skipped;
        continue;
      }
    }
    to_run.push_back(c.index);
    slot_of_run.push_back(records.size() - 1);
  }
  outcome.cases_selected = static_cast<int>(selected.size());

  std::mutex progress_mutex;
  int done = 0;
  RunOptions run;
  run.jobs = options.jobs;
  run.selected = to_run;
  run.on_done = [&](int index, const CaseResult& result) {
    const ScenarioCase& c = scenario.cases[static_cast<size_t>(index)];
    write_file_atomically((cases_dir / (c.file_stem + ".json")).string(),
                          render_case_json(c, result));
    std::lock_guard<std::mutex> lock(progress_mutex);
    ++done;
    if (options.progress) options.progress(done, static_cast<int>(to_run.size()));
  };
  if (!to_run.empty()) {
    std::vector<CaseResult> results = run_scenario(scenario, run);
    for (size_t i = 0; i < results.size(); ++i) {
      const ScenarioCase& c = scenario.cases[static_cast<size_t>(to_run[i])];
      records[slot_of_run[i]] = parse_case_record(render_case_json(c, results[i]),
                                                  (cases_dir / (c.file_stem + ".json")).string());
    }
  }
  outcome.cases_run = static_cast<int>(to_run.size());
  outcome.cases_failed = count_failed(records);
  Json run_fields{{"scenario_file", scenario.file},
                  {"shard", fmt::format("{}/{}", options.shard.index, options.shard.count)},
                  {"jobs", options.jobs},
                  {"resume", options.resume}};
  write_outputs(dir, render_manifest(scenario), records, options, outcome, run_fields);
  return outcome;
}

RunDirectoryOutcome merge_directories(const std::vector<std::string>& dirs,
                                      const RunDirectoryOptions& options) {
  if (dirs.empty()) throw ConfigError("merge: expected at least one shard directory");
  std::string manifest;
  for (const std::string& dir : dirs) {
    std::optional<std::string> text = read_file(fs::path(dir) / "manifest.json");
    if (!text) {
      throw ConfigError(fmt::format("merge: \"{}\" has no manifest.json; is it the --out "
                                    "directory of a linksim run?", dir));
    }
    if (manifest.empty()) manifest = *text;
    else if (*text != manifest) {
      throw ConfigError(fmt::format("merge: \"{}\" was run from a different scenario than \"{}\" "
                                    "(their manifest.json differ)", dir, dirs.front()));
    }
  }
  const ScenarioManifest parsed =
      parse_manifest(manifest, (fs::path(dirs.front()) / "manifest.json").string());
  const fs::path out(options.out_dir);
  make_directory(out / "cases");
  RunDirectoryOutcome outcome;
  outcome.cases_total = static_cast<int>(parsed.cases_total);
  std::vector<CaseRecord> records;
  int missing = 0;
  std::string first_missing;
  for (const ManifestCase& entry : parsed.cases) {
    std::optional<CaseFile> found;
    for (const std::string& dir : dirs) {
      std::optional<CaseFile> file = read_case_file(fs::path(dir) / "cases" / entry.file);
      if (file && file->record.fingerprint == entry.fingerprint) {
        found = std::move(file);
        break;
      }
    }
    if (!found) {
      if (missing++ == 0) first_missing = entry.id;
      continue;
    }
    write_file_atomically((out / "cases" / entry.file).string(), found->text);
    records.push_back(std::move(found->record));
  }
  if (missing > 0) {
    throw ConfigError(fmt::format(
        "merge: {} of {} cases are in none of the directories (first: \"{}\"); run the missing "
        "shards, or `linksim run --resume` into one of them", missing, outcome.cases_total,
        first_missing));
  }
  outcome.cases_selected = static_cast<int>(records.size());
  outcome.cases_skipped = outcome.cases_selected;
  outcome.cases_failed = count_failed(records);
  // The scenario file as the shards' runs named it, for the report's command.
  std::string scenario_file;
  if (std::optional<std::string> info = read_file(fs::path(dirs.front()) / "run-info.json")) {
    try {
      scenario_file = Json::parse(*info).value("scenario_file", "");
    } catch (const Json::exception&) {
    }
  }
  Json run_fields{{"merged_from", dirs}, {"scenario_file", scenario_file}};
  write_outputs(out, manifest, records, options, outcome, run_fields);
  return outcome;
}

}  // namespace linksim
