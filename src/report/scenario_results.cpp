// SPDX-License-Identifier: Apache-2.0
// results.json, results.csv and the terminal summary of a scenario run, assembled from the
// case documents alone, so a resumed or merged run renders exactly as a single one
// (columns: docs/scenario-format.md#outputs).
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "linksim/error.hpp"
#include "linksim/scenario_report.hpp"
#include "linksim/units.hpp"
#include "report/data_format.hpp"
#include "report/scenario_documents.hpp"
#include "report/scenario_tables.hpp"
#include "report/text_lines.hpp"

namespace linksim {
namespace {

using Json = nlohmann::ordered_json;
using report_data::csv_field;
using detail::tokens_text;

Json parse_document(std::string_view text, std::string_view what) {
  return detail::parse_scenario_document(text, what);
}

std::vector<Json> parse_cases(const std::vector<std::string>& documents) {
  return detail::parse_case_documents(documents);
}

// A JSON value as one CSV cell: integers as integers, numbers with 10 significant digits,
// booleans as true/false, null and absent as empty.
std::string cell(const Json& value) {
  switch (value.type()) {
    case Json::value_t::number_integer: return std::to_string(value.get<long long>());
    case Json::value_t::number_unsigned: return std::to_string(value.get<unsigned long long>());
    case Json::value_t::number_float: return fmt::format("{:.10g}", value.get<double>());
    case Json::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case Json::value_t::string: return csv_field(value.get<std::string>());
    default: return "";
  }
}

Json field(const Json& object, const char* key) { return detail::json_field(object, key); }

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

  void add_case(const Json& doc) {
    const Json collective = field(doc, "collective");
    const Json plan = field(doc, "plan");
    const Json search = field(doc, "search");
    if (collective.is_object() && !field(collective, "rows").empty()) {
      for (const Json& row : collective["rows"]) add(doc, collective_cells(collective, row), blank(kPlanColumns));
    } else if (plan.is_object()) {
      add(doc, blank(kCollectiveColumns), plan_cells(plan));
    } else if (search.is_array() && !search.empty()) {
      for (const Json& candidate : search) add(doc, blank(kCollectiveColumns), candidate_cells(candidate));
    } else {
      add(doc, blank(kCollectiveColumns), blank(kPlanColumns));
    }
  }

  std::string text() const { return out_; }

 private:
  static std::vector<std::string> blank(const std::vector<std::string>& columns) {
    return std::vector<std::string>(columns.size());
  }

  static std::vector<std::string> collective_cells(const Json& c, const Json& row) {
    return {cell(c["collective"]), cell(c["mode"]),      cell(row["size_bytes"]),
            cell(row["count"]),    cell(row["type"]),    cell(row["time_us"]),
            cell(row["algbw_GBps"]), cell(row["busbw_GBps"]), cell(row["algorithm"]),
            cell(row["protocol"]), cell(row["bottleneck"])};
  }

  static std::vector<std::string> layout_cells(const Json& layout) {
    std::vector<std::string> cells;
    for (const char* key : {"tp", "pp", "dp", "cp", "ep", "sp", "zero", "micro_batch",
                            "global_batch", "seq", "batch", "kv_len"}) {
      cells.push_back(cell(field(layout, key)));
    }
    return cells;
  }

  static std::vector<std::string> plan_cells(const Json& p) {
    std::vector<std::string> cells = {cell(p["model"]), cell(p["mode"]), ""};
    for (std::string& c : layout_cells(p["layout"])) cells.push_back(std::move(c));
    const Json& b = p["breakdown"];
    const Json& m = p["memory"];
    for (const Json* value :
         {&p["step_time_s"], &p["tokens_per_s"], &p["tokens_per_s_per_gpu"], &p["mfu"],
          &p["ttft_s"], &p["tpot_s"], &b["compute_s"], &b["exposed_comm_s"], &b["bubble_s"],
          &p["comm_time_s"], &p["comm_compute_ratio"], &p["speedup"],
          &p["scaling_efficiency"], &m["total_GB"], &m["capacity_GB"], &m["fits"]}) {
      cells.push_back(cell(*value));
    }
    cells.push_back("");  // verdict: search rows only
    return cells;
  }

  static std::vector<std::string> candidate_cells(const Json& c) {
    std::vector<std::string> cells = {"", "", cell(c["rank"])};
    for (std::string& value : layout_cells(c["layout"])) cells.push_back(std::move(value));
    const Json& b = c["breakdown"];
    cells.insert(cells.end(), {cell(c["step_time_s"]), cell(c["tokens_per_s"]), "", "", "", "",
                               cell(b["compute_s"]), cell(b["exposed_comm_s"]),
                               cell(b["bubble_s"]), "", "", "", "", cell(c["memory_GB"]), "",
                               cell(c["fits"]), cell(c["verdict"])});
    return cells;
  }

  void add(const Json& doc, const std::vector<std::string>& collective,
           const std::vector<std::string>& plan) {
    std::vector<std::string> cells = {cell(doc["id"]),      cell(doc["index"]),
                                      cell(doc["study"]),   cell(doc["kind"]),
                                      cell(doc["machine"]), cell(doc["topology"])};
    const Json parameters = field(doc, "parameters");
    for (const std::string& p : parameters_) cells.push_back(cell(field(parameters, p.c_str())));
    for (const char* key : {"gpu_model", "gpus", "servers", "status"}) cells.push_back(cell(doc[key]));
    cells.insert(cells.end(), collective.begin(), collective.end());
    cells.insert(cells.end(), plan.begin(), plan.end());
    cells.push_back(cell(doc["error"]));
    line(cells);
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
std::string case_summary(const Json& doc) {
  if (field(doc, "status") == "error") return "error: " + field(doc, "error").get<std::string>();
  const Json collective = field(doc, "collective");
  if (collective.is_object() && !field(collective, "rows").empty()) {
    const Json& rows = collective["rows"];
    const Json* peak = &rows.front();
    for (const Json& row : rows) {
      if (row["busbw_GBps"].get<double>() > (*peak)["busbw_GBps"].get<double>()) peak = &row;
    }
    const Json& last = rows.back();
    return fmt::format("{} peak busbw {:.1f} GB/s at {}; at {}: {:.1f} us, {} {}, limited by {}",
                       collective["collective"].get<std::string>(),
                       (*peak)["busbw_GBps"].get<double>(),
                       format_size((*peak)["size_bytes"].get<double>()),
                       format_size(last["size_bytes"].get<double>()),
                       last["time_us"].get<double>(), last["algorithm"].get<std::string>(),
                       last["protocol"].get<std::string>(), last["bottleneck"].get<std::string>());
  }
  const Json plan = field(doc, "plan");
  if (plan.is_object()) {
    const Json& l = plan["layout"];
    const Json& m = plan["memory"];
    std::string text = fmt::format(
        "{} {} tp={} pp={} dp={}: step {}, {} tokens/s, MFU {:.1f} %, memory {:.1f}/{:.0f} GB{}",
        plan["model"].get<std::string>(), plan["mode"].get<std::string>(), l["tp"].get<int>(),
        l["pp"].get<int>(), l["dp"].get<int>(), format_duration(plan["step_time_s"].get<double>()),
        tokens_text(plan["tokens_per_s"].get<double>()), 100 * plan["mfu"].get<double>(),
        m["total_GB"].get<double>(), m["capacity_GB"].get<double>(),
        m["fits"].get<bool>() ? "" : " (does not fit)");
    if (plan["speedup"].is_number()) {
      text += fmt::format(", speedup {:.2f}x", plan["speedup"].get<double>());
    }
    return text;
  }
  const Json serve = field(doc, "serve");
  if (serve.is_object()) {
    std::string text = fmt::format(
        "{} {} at {:g} req/s: TTFT p50 {} p99 {}, TPOT p50 {} p99 {}, {:.0f} output tokens/s",
        serve["model"].get<std::string>(), serve["engine"].get<std::string>(),
        serve["rate_requests_per_s"].get<double>(),
        format_duration(serve["ttft_s"]["p50"].get<double>()),
        format_duration(serve["ttft_s"]["p99"].get<double>()),
        format_duration(serve["tpot_s"]["p50"].get<double>()),
        format_duration(serve["tpot_s"]["p99"].get<double>()),
        serve["throughput"]["output_tokens_per_s"].get<double>());
    if (field(serve, "max_rate_requests_per_s").is_number()) {
      text += fmt::format("; max rate meeting the SLO {:.3g} req/s",
                          serve["max_rate_requests_per_s"].get<double>());
    }
    return text;
  }
  const Json search = field(doc, "search");
  if (search.is_array() && !search.empty()) {
    const Json& best = search.front();
    const Json& l = best["layout"];
    return fmt::format("best of {} layouts: tp={} pp={} dp={} mb={}, {} tokens/s{}",
                       search.size(), l["tp"].get<int>(), l["pp"].get<int>(), l["dp"].get<int>(),
                       l["micro_batch"].get<int>(), tokens_text(best["tokens_per_s"].get<double>()),
                       best["fits"].get<bool>() ? "" : " (none fits)");
  }
  return "no result";
}

}  // namespace

std::string render_results_json(std::string_view manifest_text,
                                 const std::vector<std::string>& case_documents) {
  const Json manifest = parse_document(manifest_text, "the manifest");
  Json cases = Json::array();
  for (Json& doc : parse_cases(case_documents)) {
    doc.erase("fingerprint");
    doc.erase("link_usage");  // an input of the machine picture, not a result
    cases.push_back(std::move(doc));
  }
  Json out{{"scenario", manifest["scenario"]},
           {"title", manifest["title"]},
           {"parameters", manifest["parameters"]},
           {"cases_total", manifest["cases_total"]},
           {"cases_present", cases.size()},
           {"cases", std::move(cases)}};
  return out.dump(2) + "\n";
}

std::string render_results_csv(std::string_view manifest_text,
                               const std::vector<std::string>& case_documents) {
  const Json manifest = parse_document(manifest_text, "the manifest");
  CsvWriter writer(manifest["parameters"].get<std::vector<std::string>>());
  for (const Json& doc : parse_cases(case_documents)) writer.add_case(doc);
  return writer.text();
}

std::string render_results_table(std::string_view manifest_text,
                                 const std::vector<std::string>& case_documents) {
  const Json manifest = parse_document(manifest_text, "the manifest");
  const std::vector<Json> cases = parse_cases(case_documents);
  size_t id_width = 4;
  for (const Json& doc : cases) id_width = std::max(id_width, doc["id"].get<std::string>().size());
  std::string out;
  report_text::append_line(out, fmt::format("# {}: {} of {} cases", manifest["title"].get<std::string>(),
                                            cases.size(), manifest["cases_total"].get<size_t>()));
  report_text::append_line(out, fmt::format("{:<{}}  {:>5}  {:<10}  {}", "case", id_width, "GPUs",
                                            "GPU", "result"));
  for (const Json& doc : cases) {
    report_text::append_line(
        out, fmt::format("{:<{}}  {:>5}  {:<10}  {}", doc["id"].get<std::string>(), id_width,
                         doc["gpus"].get<int>(), doc["gpu_model"].get<std::string>(),
                         case_summary(doc)));
  }
  return out;
}

}  // namespace linksim
