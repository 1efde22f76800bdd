// SPDX-License-Identifier: Apache-2.0
// results.json, results.csv and the terminal summary of a scenario run, assembled from the
// case records alone, so a resumed or merged run renders exactly as a single one
// (columns: docs/scenario-format.md#outputs).
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/json_numbers.hpp"
#include "linksim/error.hpp"
#include "linksim/scenario_report.hpp"
#include "linksim/units.hpp"
#include "report/data_format.hpp"
#include "report/scenario_tables.hpp"
#include "report/text_lines.hpp"
#include "scenario/case_record_json.hpp"

namespace linksim {
namespace {

using Json = nlohmann::ordered_json;
using report_data::csv_field;
using detail::tokens_text;

// CSV cells as the case file's JSON values print: integers as integers, other numbers with
// 10 significant digits, booleans as true/false, null and absent as empty.
std::string cell(const std::string& text) { return csv_field(text); }
std::string cell(int value) { return std::to_string(value); }
std::string cell(bool value) { return value ? "true" : "false"; }
/// A number the file holds rounded (json_numbers::rounded); "" when it is null there.
std::string number_cell(double value) {
  const Json number = json_numbers::rounded(value);
  return number.is_number() ? fmt::format("{:.10g}", number.get<double>()) : "";
}
std::string number_cell(const std::optional<double>& value) {
  return value ? number_cell(*value) : "";
}
/// A byte or element count (json_numbers::count_value): an integer when it is one.
std::string count_cell(double value) {
  const Json count = json_numbers::count_value(value);
  if (count.is_number_unsigned()) return std::to_string(count.get<unsigned long long>());
  return count.is_number() && std::isfinite(value) ? fmt::format("{:.10g}", value) : "";
}

const std::vector<std::string> kLeadColumns = {"case_id", "case_index", "study", "kind",
                                               "machine", "topology"};
const std::vector<std::string> kCaseColumns = {"gpu_model", "gpus", "servers", "status"};
const std::vector<std::string> kCollectiveColumns = {
    "collective", "sim_mode", "size_bytes", "count", "type", "time_us", "algbw_GBps",
    "busbw_GBps", "algorithm", "protocol", "bottleneck"};
const std::vector<std::string> kPlanColumns = {
    "model", "plan_mode", "rank", "tp", "pp", "dp", "cp", "ep", "sp", "zero", "micro_batch",
    "global_batch", "seq", "batch", "kv_len", "step_time_s", "tokens_per_s",
    "tokens_per_s_per_gpu", "mfu", "ttft_s", "tpot_s", "compute_s", "exposed_comm_s",
    "bubble_s", "comm_time_s", "comm_compute_ratio", "speedup", "scaling_efficiency",
    "memory_total_GB", "memory_capacity_GB", "fits", "verdict"};

// A parameter column is named after its key, or "param_<key>" where a fixed column has it.
std::string parameter_column(const std::string& key) {
  for (const auto* list : {&kLeadColumns, &kCaseColumns, &kCollectiveColumns, &kPlanColumns}) {
    if (std::find(list->begin(), list->end(), key) != list->end()) return "param_" + key;
  }
  return key == "error" ? "param_error" : key;
}

struct CsvRow {
  std::vector<std::string> cells;
};

class CsvWriter {
 public:
  explicit CsvWriter(std::vector<std::string> parameters) : parameters_(std::move(parameters)) {
    std::vector<std::string> header = kLeadColumns;
    for (const std::string& p : parameters_) header.push_back(parameter_column(p));
    for (const auto* list : {&kCaseColumns, &kCollectiveColumns, &kPlanColumns}) {
      header.insert(header.end(), list->begin(), list->end());
    }
    header.push_back("error");
    for (std::string& h : header) h = csv_field(h);
    line(header);
  }

  void add_case(const CaseRecord& doc) {
    const CollectiveSweepRecord* collective = doc.collective();
    const std::vector<SearchCandidate>* search = doc.search();
    if (collective != nullptr && !collective->rows.empty()) {
      for (const CollectiveRow& row : collective->rows) {
        add(doc, collective_cells(*collective, row), blank(kPlanColumns));
      }
    } else if (doc.plan() != nullptr) {
      add(doc, blank(kCollectiveColumns), plan_cells(*doc.plan()));
    } else if (search != nullptr && !search->empty()) {
      for (size_t i = 0; i < search->size(); ++i) {
        add(doc, blank(kCollectiveColumns), candidate_cells((*search)[i], static_cast<int>(i + 1)));
      }
    } else {
      add(doc, blank(kCollectiveColumns), blank(kPlanColumns));
    }
  }

  std::string text() const { return out_; }

 private:
  static std::vector<std::string> blank(const std::vector<std::string>& columns) {
    return std::vector<std::string>(columns.size());
  }

  static std::vector<std::string> collective_cells(const CollectiveSweepRecord& c,
                                                   const CollectiveRow& row) {
    return {cell(c.collective),   cell(c.mode),
            count_cell(row.size_bytes), count_cell(row.count),
            cell(row.type),        number_cell(row.time_s / kMicrosecond),
            number_cell(row.algbw_Bps / kGB), number_cell(row.busbw_Bps / kGB),
            cell(row.algorithm),   cell(row.protocol),
            cell(row.bottleneck)};
  }

  static std::vector<std::string> layout_cells(const ParallelLayout& l) {
    return {cell(l.tp),          cell(l.pp),           cell(l.dp),  cell(l.cp),
            cell(l.ep),          cell(l.sp),           cell(l.zero), cell(l.micro_batch),
            cell(l.global_batch), cell(l.seq),         cell(l.batch), cell(l.kv_len)};
  }

  static std::vector<std::string> plan_cells(const PlanResult& p) {
    std::vector<std::string> cells = {cell(p.model), cell(std::string(to_string(p.mode))), ""};
    for (std::string& c : layout_cells(p.layout)) cells.push_back(std::move(c));
    const PlanBreakdown& b = p.breakdown;
    const MemoryBreakdown& m = p.memory;
    cells.insert(cells.end(),
                 {number_cell(p.step_time_s), number_cell(p.tokens_per_s),
                  number_cell(p.tokens_per_s_per_gpu), number_cell(p.mfu), number_cell(p.ttft_s),
                  number_cell(p.tpot_s), number_cell(b.compute_s), number_cell(b.exposed_comm_s),
                  number_cell(b.bubble_s), number_cell(p.comm_time_s),
                  number_cell(p.comm_compute_ratio), number_cell(p.speedup),
                  number_cell(p.scaling_efficiency), number_cell(m.total / kGB),
                  number_cell(m.capacity / kGB), cell(m.fits)});
    cells.push_back("");  // verdict: search rows only
    return cells;
  }

  static std::vector<std::string> candidate_cells(const SearchCandidate& c, int rank) {
    std::vector<std::string> cells = {"", "", cell(rank)};
    for (std::string& value : layout_cells(c.layout)) cells.push_back(std::move(value));
    const PlanBreakdown& b = c.breakdown;
    cells.insert(
        cells.end(),
        {number_cell(c.step_time_s), number_cell(c.tokens_per_s), "", "", "", "",
         number_cell(b.compute_s), number_cell(b.exposed_comm_s), number_cell(b.bubble_s), "", "",
         "", "", number_cell(c.memory_bytes / kGB), "", cell(c.fits), cell(c.verdict)});
    return cells;
  }

  void add(const CaseRecord& doc, const std::vector<std::string>& collective,
           const std::vector<std::string>& plan) {
    std::vector<std::string> cells = {cell(doc.id),      cell(doc.index),
                                      cell(doc.study),   cell(doc.kind),
                                      cell(doc.machine), cell(doc.topology)};
    for (const std::string& p : parameters_) cells.push_back(parameter_cell(doc, p));
    cells.insert(cells.end(), {cell(doc.gpu_model), cell(doc.gpus), cell(doc.servers),
                               cell(std::string(doc.ok() ? "ok" : "error"))});
    cells.insert(cells.end(), collective.begin(), collective.end());
    cells.insert(cells.end(), plan.begin(), plan.end());
    cells.push_back(cell(doc.error));
    line(cells);
  }

  // The case's value of a parameter column; empty when the case has no such parameter.
  static std::string parameter_cell(const CaseRecord& doc, const std::string& name) {
    for (const auto& [key, value] : doc.parameters) {
      if (key == name) return cell(value);
    }
    return "";
  }

  void line(const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out_ += ',';
      out_ += cells[i];
    }
    out_ += '\n';
  }

  std::vector<std::string> parameters_;
  std::string out_;
};

// The key numbers of a case in one phrase.
std::string case_summary(const CaseRecord& doc) {
  if (!doc.ok()) return "error: " + doc.error;
  const CollectiveSweepRecord* collective = doc.collective();
  if (collective != nullptr && !collective->rows.empty()) {
    const std::vector<CollectiveRow>& rows = collective->rows;
    const CollectiveRow* peak = &rows.front();
    for (const CollectiveRow& row : rows) {
      if (file_number(row.busbw_Bps, kGB) > file_number(peak->busbw_Bps, kGB)) peak = &row;
    }
    const CollectiveRow& last = rows.back();
    return fmt::format("{} peak busbw {:.1f} GB/s at {}; at {}: {:.1f} us, {} {}, limited by {}",
                       collective->collective, file_number(peak->busbw_Bps, kGB),
                       format_size(peak->size_bytes), format_size(last.size_bytes),
                       file_number(last.time_s, kMicrosecond), last.algorithm, last.protocol,
                       last.bottleneck);
  }
  if (const PlanResult* plan = doc.plan()) {
    const ParallelLayout& l = plan->layout;
    const MemoryBreakdown& m = plan->memory;
    std::string text = fmt::format(
        "{} {} tp={} pp={} dp={}: step {}, {} tokens/s, MFU {:.1f} %, memory {:.1f}/{:.0f} GB{}",
        plan->model, to_string(plan->mode), l.tp, l.pp, l.dp, format_duration(plan->step_time_s),
        tokens_text(plan->tokens_per_s), 100 * plan->mfu, file_number(m.total, kGB),
        file_number(m.capacity, kGB), m.fits ? "" : " (does not fit)");
    if (plan->speedup) text += fmt::format(", speedup {:.2f}x", *plan->speedup);
    return text;
  }
  if (const ServeCaseResult* serve = doc.serve()) {
    const ServeResult& s = serve->run;
    std::string text = fmt::format(
        "{} {} at {:g} req/s: TTFT p50 {} p99 {}, TPOT p50 {} p99 {}, {:.0f} output tokens/s",
        s.model, s.engine, s.rate_requests_per_s, format_duration(s.ttft_s.p50),
        format_duration(s.ttft_s.p99), format_duration(s.tpot_s.p50),
        format_duration(s.tpot_s.p99), s.throughput.output_tokens_per_s);
    if (serve->max_rate_requests_per_s) {
      text +=
          fmt::format("; max rate meeting the SLO {:.3g} req/s", *serve->max_rate_requests_per_s);
    }
    return text;
  }
  const std::vector<SearchCandidate>* search = doc.search();
  if (search != nullptr && !search->empty()) {
    const SearchCandidate& best = search->front();
    const ParallelLayout& l = best.layout;
    return fmt::format("best of {} layouts: tp={} pp={} dp={} mb={}, {} tokens/s{}",
                       search->size(), l.tp, l.pp, l.dp, l.micro_batch,
                       tokens_text(best.tokens_per_s), best.fits ? "" : " (none fits)");
  }
  return "no result";
}

}  // namespace

std::string render_results_json(const ScenarioManifest& manifest,
                                const std::vector<CaseRecord>& cases) {
  Json documents = Json::array();
  for (const CaseRecord& record : cases) {
    documents.push_back(
        scenario_json::case_record_object(record, scenario_json::CaseFields::kResult));
  }
  const Json out{{"scenario", manifest.scenario},
                 {"title", manifest.title},
                 {"parameters", manifest.parameters},
                 {"cases_total", manifest.cases_total},
                 {"cases_present", cases.size()},
                 {"cases", std::move(documents)}};
  return out.dump(2) + "\n";
}

std::string render_results_csv(const ScenarioManifest& manifest,
                               const std::vector<CaseRecord>& cases) {
  CsvWriter writer(manifest.parameters);
  for (const CaseRecord& doc : cases) writer.add_case(doc);
  return writer.text();
}

std::string render_results_table(const ScenarioManifest& manifest,
                                 const std::vector<CaseRecord>& cases) {
  size_t id_width = 4;
  for (const CaseRecord& doc : cases) id_width = std::max(id_width, doc.id.size());
  std::string out;
  report_text::append_line(out, fmt::format("# {}: {} of {} cases", manifest.title, cases.size(),
                                            manifest.cases_total));
  report_text::append_line(out, fmt::format("{:<{}}  {:>5}  {:<10}  {}", "case", id_width, "GPUs",
                                            "GPU", "result"));
  for (const CaseRecord& doc : cases) {
    report_text::append_line(out, fmt::format("{:<{}}  {:>5}  {:<10}  {}", doc.id, id_width,
                                              doc.gpus, doc.gpu_model, case_summary(doc)));
  }
  return out;
}

}  // namespace linksim
