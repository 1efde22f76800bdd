// SPDX-License-Identifier: Apache-2.0
// The tables of report.html: collective cases, plans, layout searches, serving and cases
// without an answer, each bounded to kMaxHtmlTableRows rows (docs/scenario-format.md#report-html).
#include "report/scenario_tables.hpp"

#include <fmt/format.h>

#include <optional>

#include "linksim/units.hpp"

namespace linksim::detail {

std::string tokens_text(double tokens_per_s) {
  return tokens_per_s >= 100 ? fmt::format("{:.0f}", tokens_per_s) : fmt::format("{:.3g}", tokens_per_s);
}

namespace {

using Json = ScenarioJson;

std::string number(const Json& value, const char* format = "{:.4g}") {
  return value.is_number() ? fmt::format(fmt::runtime(format), value.get<double>()) : "";
}

// A table with at most kMaxHtmlTableRows rows; the title says when rows were left out.
struct TableBuilder {
  HtmlTable table;
  size_t total = 0;
  void add(std::vector<std::string> row) {
    if (total++ < static_cast<size_t>(kMaxHtmlTableRows)) table.rows.push_back(std::move(row));
  }
  std::optional<HtmlTable> done() {
    if (total == 0) return std::nullopt;
    if (total > table.rows.size()) {
      table.title += fmt::format(" (first {} of {} cases; all are in results.csv)",
                                 table.rows.size(), total);
    }
    return std::move(table);
  }
};

std::vector<std::string> collective_row(const Json& doc) {
  const Json& c = doc["collective"];
  const Json& rows = c["rows"];
  if (rows.empty()) return {doc["id"].get<std::string>(), std::to_string(doc["gpus"].get<int>())};
  const Json* peak = &rows.front();
  for (const Json& row : rows) {
    if (row["busbw_GBps"].get<double>() > (*peak)["busbw_GBps"].get<double>()) peak = &row;
  }
  const Json& last = rows.back();
  return {doc["id"].get<std::string>(), std::to_string(doc["gpus"].get<int>()),
          doc["gpu_model"].get<std::string>(), c["collective"].get<std::string>(),
          fmt::format("{:.2f}", (*peak)["busbw_GBps"].get<double>()),
          format_size((*peak)["size_bytes"].get<double>()),
          format_size(last["size_bytes"].get<double>()),
          fmt::format("{:.2f}", last["time_us"].get<double>()),
          fmt::format("{:.2f}", last["busbw_GBps"].get<double>()),
          last["algorithm"].get<std::string>(), last["protocol"].get<std::string>(),
          last["bottleneck"].get<std::string>()};
}

std::vector<std::string> plan_row(const Json& doc) {
  const Json& p = doc["plan"];
  const Json& l = p["layout"];
  const Json& b = p["breakdown"];
  const Json& m = p["memory"];
  return {doc["id"].get<std::string>(), std::to_string(doc["gpus"].get<int>()),
          doc["gpu_model"].get<std::string>(), p["model"].get<std::string>(),
          p["mode"].get<std::string>(),
          fmt::format("{}/{}/{}", l["tp"].get<int>(), l["pp"].get<int>(), l["dp"].get<int>()),
          format_duration(p["step_time_s"].get<double>()),
          tokens_text(p["tokens_per_s"].get<double>()),
          fmt::format("{:.1f}%", 100 * p["mfu"].get<double>()),
          format_duration(b["exposed_comm_s"].get<double>()),
          format_duration(b["bubble_s"].get<double>()),
          fmt::format("{:.1f}", m["total_GB"].get<double>()),
          fmt::format("{:.0f}", m["capacity_GB"].get<double>()),
          m["fits"].get<bool>() ? "yes" : "no", number(p["speedup"], "{:.2f}x"),
          p["scaling_efficiency"].is_number()
              ? fmt::format("{:.1f}%", 100 * p["scaling_efficiency"].get<double>())
              : ""};
}

std::vector<std::string> search_row(const Json& doc) {
  const Json& ranking = doc["search"];
  if (ranking.empty()) return {doc["id"].get<std::string>(), "0"};
  const Json& best = ranking.front();
  const Json& l = best["layout"];
  return {doc["id"].get<std::string>(), std::to_string(ranking.size()),
          fmt::format("tp={} pp={} dp={} mb={}", l["tp"].get<int>(), l["pp"].get<int>(),
                      l["dp"].get<int>(), l["micro_batch"].get<int>()),
          tokens_text(best["tokens_per_s"].get<double>()),
          format_duration(best["step_time_s"].get<double>()),
          fmt::format("{:.1f}", best["memory_GB"].get<double>()), best["fits"].get<bool>() ? "yes" : "no",
          best["verdict"].get<std::string>()};
}

std::string serve_ms_cell(const Json& stats, const char* key) {
  return stats.is_object() && stats[key].is_number() ? fmt::format("{:.1f}", 1e3 * stats[key].get<double>()) : "";
}

std::vector<std::string> serve_row(const Json& doc) {
  const Json& s = doc["serve"];
  const Json& l = s["parallel"];
  return {doc["id"].get<std::string>(), std::to_string(doc["gpus"].get<int>()),
          doc["gpu_model"].get<std::string>(), s["model"].get<std::string>(),
          s["engine"].get<std::string>(),
          fmt::format("{}/{}/{}", l["tp"].get<int>(), l["pp"].get<int>(), l["dp"].get<int>()),
          number(s["rate_requests_per_s"], "{:.3g}"), serve_ms_cell(s["ttft_s"], "p50"),
          serve_ms_cell(s["ttft_s"], "p99"), serve_ms_cell(s["tpot_s"], "p50"),
          serve_ms_cell(s["tpot_s"], "p99"), number(s["throughput"]["output_tokens_per_s"], "{:.0f}"),
          number(json_field(s, "goodput_requests_per_s"), "{:.3g}"),
          number(s["max_rate_requests_per_s"], "{:.3g}")};
}

}  // namespace

std::vector<HtmlTable> scenario_tables(const std::vector<Json>& cases) {
  TableBuilder collective{{"Collective cases", {"case", "GPUs", "GPU", "collective", "peak busbw (GB/s)",
      "at", "largest size", "time (us)", "busbw (GB/s)", "algorithm", "protocol", "bottleneck"}, {}}};
  TableBuilder plan{{"Plans", {"case", "GPUs", "GPU", "model", "mode", "tp/pp/dp", "step time",
      "tokens/s", "MFU", "exposed comm", "bubble", "memory (GB)", "capacity (GB)", "fits",
      "speedup", "scaling efficiency"}, {}}};
  TableBuilder search{{"Layout searches (best layout)", {"case", "layouts", "best", "tokens/s",
      "step time", "memory (GB)", "fits", "verdict"}, {}}};
  TableBuilder serve{{"Serving (latencies in ms)", {"case", "GPUs", "GPU", "model", "engine",
      "tp/pp/dp", "rate (req/s)", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "output tok/s",
      "goodput (req/s)", "max rate (req/s)"}, {}}};
  TableBuilder failed{{"Cases without an answer", {"case", "error"}, {}}};
  for (const Json& doc : cases) {
    if (!case_ok(doc)) failed.add({doc["id"].get<std::string>(), json_field(doc, "error").get<std::string>()});
    else if (json_field(doc, "collective").is_object()) collective.add(collective_row(doc));
    else if (json_field(doc, "plan").is_object()) plan.add(plan_row(doc));
    else if (json_field(doc, "search").is_array()) search.add(search_row(doc));
    else if (json_field(doc, "serve").is_object()) serve.add(serve_row(doc));
  }
  std::vector<HtmlTable> out;
  for (TableBuilder* t : {&collective, &plan, &search, &serve, &failed}) {
    if (std::optional<HtmlTable> table = t->done()) out.push_back(std::move(*table));
  }
  return out;
}

}  // namespace linksim::detail
