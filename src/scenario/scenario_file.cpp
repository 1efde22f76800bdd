// SPDX-License-Identifier: Apache-2.0
// Scenario files: machines, studies and report settings, checked with positions, then the
// deterministic expansion into cases (docs/scenario-format.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "common/text.hpp"
#include "common/yaml_reader.hpp"
#include "linksim/input_file.hpp"
#include "linksim/scenario.hpp"
#include "scenario/case_naming.hpp"
#include "scenario/collective_study.hpp"
#include "scenario/plan_study.hpp"
#include "scenario/serve_study.hpp"
#include "scenario/questions.hpp"
#include "scenario/study_axes.hpp"
#include "scenario/value_parsers.hpp"

namespace linksim {
namespace {

namespace fs = std::filesystem;
using detail::SweepAxis;
using detail::YamlValue;

// Counting saturates here so products of long lists cannot overflow.
constexpr long kCountCap = 1'000'000'000'000L;

struct Machine {
  std::string label;
  std::string topology_as_written;
  std::string topology_file;
  std::vector<SweepAxis> set;
  SourceLocation where;
};

struct Study {
  std::string kind;  // "collective" | "plan" | "serve"
  std::string name;
  YamlValue entry;
  std::vector<const Machine*> machines;
  std::vector<SweepAxis> axes;
  CollectiveCaseSpec collective;
  PlanCaseSpec plan;
  ServeCaseSpec serve;
  std::string fixed_text;  // the non-swept inputs (sizes) for the fingerprint
};

std::string resolve_topology(const YamlValue& value, const std::string& scenario_file) {
  const std::string written = value.text();
  const fs::path path(written);
  std::vector<fs::path> candidates;
  if (path.is_absolute()) {
    candidates.push_back(path);
  } else {
    const fs::path dir = fs::path(scenario_file).parent_path();
    candidates.push_back(dir / path);
    candidates.push_back(dir / ".." / "topologies" / path);
    candidates.push_back(fs::path("topologies") / path);
  }
  for (const fs::path& candidate : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
  }
  std::vector<std::string> looked;
  for (const fs::path& candidate : candidates) {
    looked.push_back(candidate.parent_path().lexically_normal().string() + "/");
  }
  value.fail(fmt::format("topology file \"{}\" not found (looked in {})", written,
                         text::join(looked, ", ")));
}

std::string stem_of(const std::string& file) { return fs::path(file).stem().string(); }

// Loads the machine once with the first value of every parameter, so a parameter the
// topology does not declare is reported at the scenario's key.
void check_machine_loads(const Machine& machine, const YamlValue& entry) {
  ParamOverrides overrides;
  for (const SweepAxis& axis : machine.set) overrides[axis.key] = axis.values.front().text();
  try {
    load_topology(machine.topology_file, overrides);
  } catch (const ConfigError& e) {
    for (const SweepAxis& axis : machine.set) {
      const std::string prefix = fmt::format("--set of unknown parameter \"{}\"", axis.key);
      if (text::starts_with(e.message(), prefix)) {
        YamlValue set = *entry.find("set");
        set.key_of(axis.key).fail(fmt::format("unknown parameter \"{}\" of {}{}", axis.key,
                                              machine.topology_as_written,
                                              e.message().substr(prefix.size())));
      }
    }
    entry.at("topology").fail(fmt::format("machine \"{}\" does not load", machine.label),
                              {e.what()});
  }
}

std::vector<Machine> read_machines(const YamlValue& list, const std::string& scenario_file) {
  std::vector<YamlValue> items = list.items();
  if (items.empty()) list.fail("expected at least one machine, got an empty list");
  std::vector<Machine> machines;
  std::set<std::string> labels;
  for (const YamlValue& entry : items) {
    entry.check_keys({"label", "topology", "set"});
    Machine machine;
    machine.where = entry.location();
    YamlValue topology = entry.at("topology");
    machine.topology_as_written = topology.text();
    machine.topology_file = resolve_topology(topology, scenario_file);
    machine.label = stem_of(machine.topology_as_written);
    if (auto label = entry.find("label")) {
      machine.label = label->text();
      if (machine.label.empty()) label->fail("expected a label, got an empty string");
    }
    if (!labels.insert(machine.label).second) {
      (entry.find("label") ? *entry.find("label") : topology)
          .fail(fmt::format("duplicate machine label \"{}\"; give each machine its own label",
                            machine.label));
    }
    if (auto set = entry.find("set")) {
      set->expect_map();
      for (const std::string& key : detail::keys_in_order(*set)) {
        machine.set.push_back(detail::read_axis(key, set->at(key)));
      }
    }
    check_machine_loads(machine, entry);
    machines.push_back(std::move(machine));
  }
  return machines;
}

std::vector<const Machine*> study_machines(const YamlValue& entry,
                                           const std::vector<Machine>& machines) {
  std::vector<const Machine*> chosen;
  std::optional<YamlValue> list = entry.find("machines");
  if (!list) {
    for (const Machine& machine : machines) chosen.push_back(&machine);
    return chosen;
  }
  std::vector<std::string> labels;
  for (const Machine& machine : machines) labels.push_back(machine.label);
  std::vector<YamlValue> items = list->scalar_or_items();
  if (items.empty()) list->fail("expected at least one machine label, got an empty list");
  for (const YamlValue& item : items) {
    const std::string label = item.text();
    const Machine* found = nullptr;
    for (const Machine& machine : machines) {
      if (machine.label == label) found = &machine;
    }
    if (found == nullptr) {
      std::string close = closest_match(label, labels);
      item.fail(close.empty() ? fmt::format("unknown machine \"{}\"; expected one of {}", label,
                                            text::join(labels, ", "))
                              : fmt::format("unknown machine \"{}\"; did you mean \"{}\"?",
                                            label, close));
    }
    chosen.push_back(found);
  }
  return chosen;
}


void check_keys(const YamlValue& entry, const std::vector<std::string>& allowed) {
  entry.expect_map();
  for (const std::string& key : detail::keys_in_order(entry)) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string close = closest_match(key, allowed);
    entry.key_of(key).fail(
        close.empty() ? fmt::format("unknown key \"{}\"; expected one of {}", key,
                                    text::join(allowed, ", "))
                      : fmt::format("unknown key \"{}\"; did you mean \"{}\"?", key, close));
  }
}

// A study's name: `name:`, else "coll-<op>" / "plan-<model>" when that is not swept.
std::string study_name(const YamlValue& entry, const std::string& kind) {
  if (auto name = entry.find("name")) {
    std::string text = name->text();
    if (text.empty()) name->fail("expected a name, got an empty string");
    return text;
  }
  const char* key = kind == "collective" ? "ops" : entry.find("model") ? "model" : "arch";
  const char* prefix = kind == "collective" ? "coll" : kind == "serve" ? "serve" : "plan";
  std::optional<YamlValue> value = entry.find(key);
  if (value && value->node().IsScalar() && std::string(key) != "arch") {
    return fmt::format("{}-{}", prefix, value->node().Scalar());
  }
  return prefix;
}

// The defaults of a serving study: `linksim serve`'s (vLLM, 512 + 128 tokens).
ServeCaseSpec default_serve_spec() {
  ServeCaseSpec spec;
  spec.request.engine = *find_engine("vllm");
  spec.request.input.a = 512;
  spec.request.output.a = 128;
  return spec;
}

// One value of a study's key applied to a case's spec of the study's kind.
void apply_study_key(const Study& study, const std::string& key, const YamlValue& value,
                     CollectiveCaseSpec& collective, PlanCaseSpec& plan, ServeCaseSpec& serve) {
  if (study.kind == "collective") detail::apply_collective_key(key, value, collective);
  else if (study.kind == "serve") detail::apply_serve_key(key, value, serve);
  else detail::apply_plan_key(key, value, plan);
}

Study read_study(const YamlValue& entry, const std::string& kind,
                 const std::vector<Machine>& machines) {
  const bool collective = kind == "collective";
  check_keys(entry, collective        ? detail::collective_study_keys()
                    : kind == "serve" ? detail::serve_study_keys()
                                      : detail::plan_study_keys());
  Study study{kind, study_name(entry, kind), entry, study_machines(entry, machines), {}, {}, {}, default_serve_spec(), {}};
  if (collective) {
    study.collective.sweep.sizes_bytes = detail::read_collective_sizes(entry);
    for (double size : study.collective.sweep.sizes_bytes) study.fixed_text += fmt::format("{};", size);
    if (!entry.find("ops")) entry.fail("missing required key \"ops\"");
  } else if (kind == "serve") {
    detail::check_serve_entry(entry);
  } else {
    detail::check_plan_entry(entry);
  }
  if (entry.find("g") && entry.find("gpus")) entry.key_of("gpus").fail("give either g or gpus, not both");
  for (const std::string& key : detail::keys_in_order(entry)) {
    if (key == "name" || key == "machines") continue;
    if (collective && detail::is_fixed_collective_key(key)) continue;
    SweepAxis axis = detail::read_axis(key, entry.at(key));
    for (const YamlValue& value : axis.values) {  // every value checked once, up front
      CollectiveCaseSpec collective_scratch = study.collective;
      PlanCaseSpec plan_scratch = study.plan;
      ServeCaseSpec serve_scratch = study.serve;
      apply_study_key(study, key, value, collective_scratch, plan_scratch, serve_scratch);
    }
    study.axes.push_back(std::move(axis));
  }
  return study;
}

std::vector<Study> read_studies(const YamlValue& root, const std::vector<Machine>& machines) {
  std::vector<Study> studies;
  std::set<std::string> names;
  for (const char* section : {"collectives", "plans", "serving"}) {
    std::optional<YamlValue> list = root.find(section);
    if (!list) continue;
    std::vector<YamlValue> items = list->items();
    if (items.empty()) list->fail("expected at least one study, got an empty list");
    for (const YamlValue& entry : items) {
      const std::string name = section;
      Study study = read_study(
          entry, name == "collectives" ? "collective" : name == "serving" ? "serve" : "plan", machines);
      if (!names.insert(study.name).second) {
        (entry.find("name") ? *entry.find("name") : entry)
            .fail(fmt::format("duplicate study name \"{}\"; give each study its own name",
                              study.name));
      }
      studies.push_back(std::move(study));
    }
  }
  if (studies.empty()) root.fail("expected collectives: or plans:, found neither");
  return studies;
}

// Checks the case count against the limit before anything is expanded.
void check_case_limit(const std::vector<Study>& studies, long max_cases) {
  long total = 0;
  for (const Study& study : studies) {
    long cases = 0;
    const long per_point = detail::axes_product(study.axes, kCountCap);
    for (const Machine* machine : study.machines) {
      const long points = detail::axes_product(machine->set, kCountCap);
      cases += points > kCountCap / per_point ? kCountCap : points * per_point;
      cases = std::min(cases, kCountCap);
    }
    total = std::min(total + cases, kCountCap);
    if (total > max_cases) {
      study.entry.fail(fmt::format(
          "the scenario expands to {} cases up to this study, more than the limit of {}; "
          "sweep fewer values or raise the limit with --max-cases",
          total >= kCountCap ? fmt::format("over {}", kCountCap) : std::to_string(total),
          max_cases));
    }
  }
}

void add_column(std::vector<std::string>& columns, std::set<std::string>& seen,
                const std::string& name) {
  if (seen.insert(name).second) columns.push_back(name);
}

void expand(const std::vector<Study>& studies, Scenario& scenario) {
  std::set<std::string> columns_seen;
  for (const Study& study : studies) {
    for (const Machine* machine : study.machines) {
      detail::for_each_point(machine->set, [&](const std::vector<size_t>& machine_point) {
        detail::for_each_point(study.axes, [&](const std::vector<size_t>& point) {
          ScenarioCase c;
          c.index = static_cast<int>(scenario.cases.size());
          c.study = study.name;
          c.kind = study.kind;
          c.machine = machine->label;
          c.topology_file = machine->topology_file;
          c.machine_where = machine->where;
          std::vector<std::string> swept;
          std::string inputs = fmt::format("{}|{}|{}|{}|", study.kind, study.name,
                                           machine->topology_as_written, study.fixed_text);
          for (size_t i = 0; i < machine->set.size(); ++i) {
            const SweepAxis& axis = machine->set[i];
            const std::string value = axis.values[machine_point[i]].text();
            c.overrides[axis.key] = value;
            c.parameters.emplace_back(axis.key, value);
            add_column(scenario.parameter_columns, columns_seen, axis.key);
            if (axis.swept) swept.push_back(axis.key + "=" + value);
            inputs += fmt::format("set.{}={};", axis.key, value);
          }
          CollectiveCaseSpec collective = study.collective;
          PlanCaseSpec plan = study.plan;
          ServeCaseSpec serve = study.serve;
          for (size_t i = 0; i < study.axes.size(); ++i) {
            const SweepAxis& axis = study.axes[i];
            const YamlValue& value = axis.values[point[i]];
            apply_study_key(study, axis.key, value, collective, plan, serve);
            inputs += fmt::format("{}={};", axis.key, value.text());
            if (!axis.swept) continue;
            c.parameters.emplace_back(axis.key, value.text());
            add_column(scenario.parameter_columns, columns_seen, axis.key);
            swept.push_back(axis.key + "=" + value.text());
          }
          if (study.kind == "collective") c.collective = std::move(collective);
          else if (study.kind == "serve") c.serve = std::move(serve);
          else c.plan = std::move(plan);
          c.id = study.name + "/" + machine->label;
          if (!swept.empty()) c.id += "/" + text::join(swept, ",");
          c.file_stem = detail::case_file_stem(c.id);
          c.fingerprint = detail::fnv1a_hex(c.id + "|" + inputs);
          scenario.cases.push_back(std::move(c));
        });
      });
    }
  }
}

// The reports draw each machine of a collective study once, with the link usage of its last
// case (for a swept machine, the last and usually largest value).
void mark_link_usage_cases(Scenario& scenario) {
  std::set<std::string> seen;
  for (auto it = scenario.cases.rbegin(); it != scenario.cases.rend(); ++it) {
    if (it->collective && seen.insert(it->study + "\n" + it->machine).second) {
      it->record_link_usage = true;
    }
  }
}

void read_report(const YamlValue& report, Scenario& scenario) {
  report.check_keys({"title", "formats"});
  if (auto title = report.find("title")) scenario.title = title->text();
  if (auto formats = report.find("formats")) {
    for (const YamlValue& item : formats->scalar_or_items()) {
      scenario.formats.push_back(
          detail::choice_value(item, {"table", "csv", "json", "svg", "html"}));
    }
    if (scenario.formats.empty()) formats->fail("expected at least one format, got an empty list");
  }
}

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& filename,
                        const ScenarioOptions& options) {
  const detail::YamlFile file{filename, {}};
  YAML::Node node = detail::parse_yaml(text, file);
  YamlValue root(node, &file, "", nullptr);
  // An empty document has no mark: place the error at the file's first character.
  if (node.IsNull() && node.Mark().line < 0) {
    throw ConfigError({filename, 1, 1}, "expected a scenario (a mapping with machines: and "
                                        "collectives: or plans:), got an empty file");
  }
  if (!root.is_map()) {
    root.fail(fmt::format("expected a scenario (a mapping with machines: and collectives: or "
                          "plans:), got {}", detail::describe(node)));
  }
  root.check_keys({"description", "machines", "collectives", "plans", "serving", "questions", "report"});
  Scenario scenario;
  scenario.file = filename;
  scenario.name = stem_of(filename);
  scenario.title = scenario.name;
  if (auto report = root.find("report")) read_report(*report, scenario);
  const std::vector<Machine> machines = read_machines(root.at("machines"), filename);
  const std::vector<Study> studies = read_studies(root, machines);
  check_case_limit(studies, options.max_cases);
  expand(studies, scenario);
  mark_link_usage_cases(scenario);
  if (auto questions = root.find("questions")) {
    std::vector<std::pair<std::string, std::string>> kinds;
    for (const Study& study : studies) kinds.emplace_back(study.name, study.kind);
    scenario.questions = detail::read_questions(*questions, kinds);
  }
  return scenario;
}

Scenario load_scenario(const std::string& path, const ScenarioOptions& options) {
  return parse_scenario(read_input_file(path), path, options);
}

}  // namespace linksim
