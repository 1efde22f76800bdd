// SPDX-License-Identifier: Apache-2.0
// The tables of report.html: collective cases, plans, layout searches, serving and cases
// without an answer, each bounded to kMaxHtmlTableRows rows (docs/scenario-format.md#report-html).
#include "report/scenario_tables.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "linksim/units.hpp"

namespace linksim::detail {

std::string tokens_text(double tokens_per_s) {
  return tokens_per_s >= 100 ? fmt::format("{:.0f}", tokens_per_s) : fmt::format("{:.3g}", tokens_per_s);
}

namespace {

// A number as the tables write it; "" when it is not finite (null in the case file).
std::string number(double value, const char* format = "{:.4g}") {
  return std::isfinite(value) ? fmt::format(fmt::runtime(format), value) : "";
}

std::string number(const std::optional<double>& value, const char* format = "{:.4g}") {
  return value ? number(*value, format) : "";
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

std::vector<std::string> collective_row(const CaseRecord& doc) {
  const CollectiveSweepRecord& c = *doc.collective();
  const std::vector<CollectiveRow>& rows = c.rows;
  if (rows.empty()) return {doc.id, std::to_string(doc.gpus)};
  const CollectiveRow* peak = &rows.front();
  for (const CollectiveRow& row : rows) {
    if (file_number(row.busbw_Bps, kGB) > file_number(peak->busbw_Bps, kGB)) peak = &row;
  }
  const CollectiveRow& last = rows.back();
  return {doc.id, std::to_string(doc.gpus), doc.gpu_model, c.collective,
          fmt::format("{:.2f}", file_number(peak->busbw_Bps, kGB)),
          format_size(peak->size_bytes),
          format_size(last.size_bytes),
          fmt::format("{:.2f}", file_number(last.time_s, kMicrosecond)),
          fmt::format("{:.2f}", file_number(last.busbw_Bps, kGB)),
          last.algorithm, last.protocol, last.bottleneck};
}

std::vector<std::string> plan_row(const CaseRecord& doc) {
  const PlanResult& p = *doc.plan();
  const ParallelLayout& l = p.layout;
  const PlanBreakdown& b = p.breakdown;
  const MemoryBreakdown& m = p.memory;
  return {doc.id, std::to_string(doc.gpus), doc.gpu_model, p.model,
          std::string(to_string(p.mode)),
          fmt::format("{}/{}/{}", l.tp, l.pp, l.dp),
          format_duration(p.step_time_s),
          tokens_text(p.tokens_per_s),
          fmt::format("{:.1f}%", 100 * p.mfu),
          format_duration(b.exposed_comm_s),
          format_duration(b.bubble_s),
          fmt::format("{:.1f}", file_number(m.total, kGB)),
          fmt::format("{:.0f}", file_number(m.capacity, kGB)),
          m.fits ? "yes" : "no", number(p.speedup, "{:.2f}x"),
          p.scaling_efficiency ? fmt::format("{:.1f}%", 100 * *p.scaling_efficiency) : ""};
}

std::vector<std::string> search_row(const CaseRecord& doc) {
  const std::vector<SearchCandidate>& ranking = *doc.search();
  if (ranking.empty()) return {doc.id, "0"};
  const SearchCandidate& best = ranking.front();
  const ParallelLayout& l = best.layout;
  return {doc.id, std::to_string(ranking.size()),
          fmt::format("tp={} pp={} dp={} mb={}", l.tp, l.pp, l.dp, l.micro_batch),
          tokens_text(best.tokens_per_s),
          format_duration(best.step_time_s),
          fmt::format("{:.1f}", file_number(best.memory_bytes, kGB)), best.fits ? "yes" : "no",
          best.verdict};
}

std::string serve_ms_cell(double seconds) {
  return std::isfinite(seconds) ? fmt::format("{:.1f}", 1e3 * seconds) : "";
}

std::vector<std::string> serve_row(const CaseRecord& doc) {
  const ServeCaseResult& serve = *doc.serve();
  const ServeResult& s = serve.run;
  return {doc.id, std::to_string(doc.gpus), doc.gpu_model, s.model, s.engine,
          fmt::format("{}/{}/{}", s.layout.tp, s.layout.pp, s.replicas),
          number(s.rate_requests_per_s, "{:.3g}"), serve_ms_cell(s.ttft_s.p50),
          serve_ms_cell(s.ttft_s.p99), serve_ms_cell(s.tpot_s.p50),
          serve_ms_cell(s.tpot_s.p99), number(s.throughput.output_tokens_per_s, "{:.0f}"),
          s.slo_attainment ? number(s.goodput_requests_per_s, "{:.3g}") : "",
          number(serve.max_rate_requests_per_s, "{:.3g}")};
}

}  // namespace

std::vector<HtmlTable> scenario_tables(const std::vector<CaseRecord>& cases) {
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
  for (const CaseRecord& doc : cases) {
    if (!doc.ok()) failed.add({doc.id, doc.error});
    else if (doc.collective() != nullptr) collective.add(collective_row(doc));
    else if (doc.plan() != nullptr) plan.add(plan_row(doc));
    else if (doc.search() != nullptr) search.add(search_row(doc));
    else if (doc.serve() != nullptr) serve.add(serve_row(doc));
  }
  std::vector<HtmlTable> out;
  for (TableBuilder* t : {&collective, &plan, &search, &serve, &failed}) {
    if (std::optional<HtmlTable> table = t->done()) out.push_back(std::move(*table));
  }
  return out;
}

}  // namespace linksim::detail
