// SPDX-License-Identifier: Apache-2.0
// Text and JSON renderings of a Diagnosis.
#include "linksim/diagnose_report.hpp"

#include <fmt/core.h>

#include <map>
#include <nlohmann/json.hpp>

#include "linksim/plan_memory.hpp"
#include "linksim/units.hpp"
#include "common/json_numbers.hpp"

namespace linksim {
namespace {

using nlohmann::ordered_json;

// What a plan's step time is in its mode (PlanResult::step_time_s).
std::string diagnose_plan_metric(PlanMode mode) {
  switch (mode) {
    case PlanMode::kTrain: return "step_time";
    case PlanMode::kPrefill: return "ttft";
    case PlanMode::kDecode: return "tpot";
  }
  return "step_time";
}

ordered_json cost_json(const std::optional<FindingCost>& cost) {
  if (!cost) return nullptr;
  ordered_json sizes = ordered_json::array();
  for (const CostPoint& p : cost->points) {
    sizes.push_back({{"size_bytes", json_numbers::count_value(p.size_bytes)},
                     {"logged_busbw_GBps", json_numbers::rounded(p.logged_busbw_Bps / kGB)},
                     {"best_busbw_GBps", json_numbers::rounded(p.best_busbw_Bps / kGB)}});
  }
  ordered_json plan = nullptr;
  if (cost->plan) {
    const PlanCost& p = *cost->plan;
    plan = {{"model", p.model},
            {"mode", std::string(to_string(p.mode))},
            {"layout", p.layout},
            {"metric", diagnose_plan_metric(p.mode)},
            {"logged_s", p.logged_s ? ordered_json(*p.logged_s) : ordered_json(nullptr)},
            {"best_s", p.best_s},
            {"error", p.error.empty() ? ordered_json(nullptr) : ordered_json(p.error)}};
  }
  return {{"collective", std::string(to_string(cost->op))},
          {"setting", cost->setting},
          {"note", cost->bound_note.empty() ? ordered_json(nullptr) : ordered_json(cost->bound_note)},
          {"sizes", std::move(sizes)},
          {"plan", std::move(plan)}};
}

std::string diagnose_plan_cost_text(const PlanCost& p) {
  const char* metric = p.mode == PlanMode::kTrain     ? "step time"
                       : p.mode == PlanMode::kPrefill ? "time to first token"
                                                      : "time per output token";
  std::string line =
      fmt::format("  plan ({} {}, {}, {}): ", p.model, to_string(p.mode), p.layout, metric);
  if (!p.logged_s) return line + "cannot run with the logged setting: " + p.error + "\n";
  return line + fmt::format("{} against {} ({:+.1f}%)\n", format_duration(*p.logged_s),
                            format_duration(p.best_s), (*p.logged_s / p.best_s - 1) * 100);
}

template <typename T>
ordered_json optional_json(const std::optional<T>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

// NCCL's CPU codes from the log, in words, and the platform they name (null for none).
ordered_json host_cpu_json(const Diagnosis& d) {
  if (!d.host_cpu) return nullptr;
  return {{"description", *d.host_cpu},
          {"platform", d.host_cpu_platform.empty() ? ordered_json(nullptr)
                                                   : ordered_json(d.host_cpu_platform)}};
}

std::string size_words(double bytes) {
  if (bytes >= (1 << 30)) return fmt::format("{:g} GiB", bytes / (1 << 30));
  if (bytes >= (1 << 20)) return fmt::format("{:g} MiB", bytes / (1 << 20));
  return fmt::format("{:g} KiB", bytes / (1 << 10));
}

std::string facts_line(const Diagnosis& d) {
  std::string line = fmt::format("{}: NCCL {}, {} ranks on {} node{}", d.log_file,
                                 d.nccl_version.value_or("(release not in the log)"), d.ranks,
                                 d.nodes, d.nodes == 1 ? "" : "s");
  line += d.channels ? fmt::format(", {} channels", *d.channels) : ", channels not in the log";
  if (d.predicted_channels) {
    line += fmt::format(" (linksim predicts {} on '{}')", *d.predicted_channels, d.topology_name);
  }
  return line + "\n";
}

}  // namespace

std::string render_diagnosis_text(const Diagnosis& d) {
  std::string out = facts_line(d);
  std::map<std::string, int> by_transport;
  for (const DiagnosisHop& h : d.hops) {
    ++by_transport[std::string(to_string(h.transport)) + (h.gdr ? "/GDRDMA" : "")];
  }
  if (!by_transport.empty()) {
    out += "connections:";
    for (const auto& [name, count] : by_transport) out += fmt::format(" {} {},", name, count);
    out.back() = '\n';
  }
  if (d.host_cpu) {
    const std::string named =
        d.host_cpu_platform.empty() ? "" : fmt::format(" (platform {})", d.host_cpu_platform);
    out += fmt::format("host CPU (NCCL's topology dump): {}{}\n", *d.host_cpu, named);
  }
  if (!d.env.empty()) {
    out += "environment:";
    for (const std::string& e : d.env) out += " " + e;
    out += "\n";
  }
  if (d.topology_name.empty()) out += "machine: not given (--topo): findings are what the log alone shows\n";
  int faults = 0;
  for (const Finding& f : d.findings) {
    faults += f.severity == FindingSeverity::kFault ? 1 : 0;
    out += fmt::format("\n{:<8} {}: {}\n", to_string(f.severity), f.key, f.message);
    if (f.cost) {
      out += fmt::format("  cost ({}, {}):", to_string(f.cost->op), f.cost->setting);
      for (const CostPoint& p : f.cost->points) {
        out += fmt::format(" {} {:.1f} GB/s against {:.1f};", size_words(p.size_bytes),
                           p.logged_busbw_Bps / kGB, p.best_busbw_Bps / kGB);
      }
      if (f.cost->points.empty()) out += " none computed;";
      out.back() = '\n';
      if (f.cost->plan) out += diagnose_plan_cost_text(*f.cost->plan);
      if (!f.cost->bound_note.empty()) out += "  note: " + f.cost->bound_note + "\n";
    }
    for (const NcclLogLine& e : f.evidence) out += fmt::format("  line {}: {}\n", e.line, e.text);
  }
  out += faults == 0 ? "\nno fault found\n" : fmt::format("\n{} fault{} found\n", faults, faults == 1 ? "" : "s");
  return out;
}

std::string render_diagnosis_json(const Diagnosis& d) {
  ordered_json hops = ordered_json::array();
  for (const DiagnosisHop& h : d.hops) {
    hops.push_back({{"from_rank", h.from_rank},
                    {"to_rank", optional_json(h.to_rank)},
                    {"channel", h.channel},
                    {"transport", std::string(to_string(h.transport))},
                    {"gdr", h.gdr}});
  }
  ordered_json findings = ordered_json::array();
  for (const Finding& f : d.findings) {
    ordered_json evidence = ordered_json::array();
    for (const NcclLogLine& e : f.evidence) evidence.push_back(e.text);
    findings.push_back({{"key", f.key},
                        {"severity", std::string(to_string(f.severity))},
                        {"evidence", std::move(evidence)},
                        {"cost", cost_json(f.cost)}});
  }
  const ordered_json document = {{"nccl_version", optional_json(d.nccl_version)},
                                 {"ranks", d.ranks},
                                 {"nodes", d.nodes},
                                 {"channels", optional_json(d.channels)},
                                 {"host_cpu", host_cpu_json(d)},
                                 {"hops", std::move(hops)},
                                 {"findings", std::move(findings)}};
  return document.dump(2) + "\n";
}

}  // namespace linksim
