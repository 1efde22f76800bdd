// SPDX-License-Identifier: Apache-2.0
// render_html_report: one self-contained HTML page with the charts, tables, assumptions and
// the command that reproduces it (docs/reports.md#html-report).
#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "linksim/charts.hpp"
#include "charts/svg_text.hpp"

namespace linksim {
namespace {

using detail::xml_escape;

constexpr std::string_view kStyle = R"css(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f5f7fa; color: #1f2933;
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1080px; margin: 0 auto; padding: 28px 32px 40px; background: #ffffff;
  min-height: 100vh; box-shadow: 0 0 0 1px #e4e7eb; }
h1 { font-size: 26px; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 { font-size: 19px; margin: 34px 0 10px; padding-bottom: 6px; border-bottom: 2px solid #e4e7eb; }
h3 { font-size: 15px; margin: 22px 0 6px; }
p { margin: 6px 0 10px; max-width: 78ch; }
.meta { color: #616e7c; font-size: 13px; margin: 0; }
nav { margin: 14px 0 0; font-size: 13px; }
nav a { color: #2f6fad; text-decoration: none; margin-right: 16px; }
nav a:hover { text-decoration: underline; }
figure { margin: 14px 0 26px; padding: 12px; border: 1px solid #e4e7eb; border-radius: 8px; }
figure svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
figcaption { color: #52606d; font-size: 13px; margin-top: 8px; max-width: 90ch; }
.table-wrap { overflow-x: auto; margin: 6px 0 18px; }
table { border-collapse: collapse; font-size: 13px; min-width: 50%; }
th, td { padding: 5px 12px; border-bottom: 1px solid #e4e7eb; text-align: left; white-space: nowrap; }
th { background: #f0f4f8; font-weight: 600; position: sticky; top: 0; }
table.sortable th { cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " \25B2"; font-size: 10px; }
th[aria-sort="descending"]::after { content: " \25BC"; font-size: 10px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafbfc; }
dl.assumptions { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; font-size: 14px; }
dl.assumptions dt { font-weight: 600; color: #3e4c59; }
dl.assumptions dd { margin: 0; }
pre { background: #1f2933; color: #f5f7fa; padding: 12px 14px; border-radius: 6px;
  overflow-x: auto; font-size: 13px; }
footer { margin-top: 36px; color: #7b8794; font-size: 12px; }
)css";

// Sorts a table by the clicked column: numbers numerically, text alphabetically. The page is
// complete without it; it only reorders rows that are already there.
constexpr std::string_view kScript = R"js(
(function () {
  function key(cell) {
    var text = cell ? cell.textContent.trim() : "";
    var number = Number(text.replace(/[, %]/g, ""));
    return text !== "" && !isNaN(number) ? [0, number] : [1, text.toLowerCase()];
  }
  function compare(a, b) {
    if (a[0] !== b[0]) return a[0] - b[0];
    return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    var heads = table.querySelectorAll("th");
    Array.prototype.forEach.call(heads, function (th) {
      th.addEventListener("click", function () {
        var column = th.cellIndex;
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var order = compare(key(r1.cells[column]), key(r2.cells[column]));
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
)js";

// A cell is numeric when it is a number with an optional unit suffix ("371.5", "1.2 ms").
bool looks_numeric(std::string_view text) {
  if (text.empty()) return false;
  const std::string copy(text);
  char* end = nullptr;
  std::strtod(copy.c_str(), &end);
  return end != copy.c_str() && (*end == '\0' || *end == ' ' || *end == '%' || *end == 'x');
}

std::string html_summary(const HtmlReport& report) {
  std::string out = "<section id=\"summary\">\n<h2>Summary</h2>\n";
  for (const std::string& paragraph : report.summary) {
    out += "<p>" + xml_escape(paragraph) + "</p>\n";
  }
  return out + "</section>\n";
}

std::string html_charts(const HtmlReport& report) {
  std::string out = "<section id=\"charts\">\n<h2>Charts</h2>\n";
  for (size_t i = 0; i < report.charts.size(); ++i) {
    const HtmlChart& chart = report.charts[i];
    out += fmt::format("<figure class=\"chart\" id=\"chart-{}\">\n", i + 1);
    if (!chart.title.empty()) out += "<h3>" + xml_escape(chart.title) + "</h3>\n";
    out += chart.svg;
    if (!chart.caption.empty()) out += "<figcaption>" + xml_escape(chart.caption) + "</figcaption>\n";
    out += "</figure>\n";
  }
  return out + "</section>\n";
}

std::string html_table(const HtmlTable& table) {
  const size_t columns = table.header.size();
  // A column whose non-empty cells are all numeric is right-aligned, its header too.
  std::vector<bool> numeric(columns, true);
  for (const auto& row : table.rows) {
    for (size_t c = 0; c < std::min(columns, row.size()); ++c) {
      if (!row[c].empty() && !looks_numeric(row[c])) numeric[c] = false;
    }
  }
  std::string out;
  if (!table.title.empty()) out += "<h3>" + xml_escape(table.title) + "</h3>\n";
  out += "<div class=\"table-wrap\"><table class=\"sortable\">\n<thead><tr>";
  for (size_t c = 0; c < columns; ++c) {
    out += numeric[c] ? "<th class=\"num\">" : "<th>";
    out += xml_escape(table.header[c]) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (size_t c = 0; c < std::max(columns, row.size()); ++c) {
      const std::string cell = c < row.size() ? row[c] : std::string();
      out += c < columns && numeric[c] ? "<td class=\"num\">" : "<td>";
      out += xml_escape(cell) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table></div>\n";
}

std::string html_assumptions(const HtmlReport& report) {
  std::string out = "<section id=\"assumptions\">\n<h2>Assumptions</h2>\n<dl class=\"assumptions\">\n";
  if (!report.linksim_version.empty()) {
    out += "<dt>linksim version</dt><dd>" + xml_escape(report.linksim_version) + "</dd>\n";
  }
  for (const auto& [key, value] : report.assumptions) {
    out += "<dt>" + xml_escape(key) + "</dt><dd>" + xml_escape(value) + "</dd>\n";
  }
  return out + "</dl>\n</section>\n";
}

}  // namespace

std::string render_html_report(const HtmlReport& report) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + xml_escape(report.title) + "</title>\n";
  out += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += fmt::format("<main data-chart-count=\"{}\">\n<header>\n<h1>{}</h1>\n", report.charts.size(),
                     xml_escape(report.title));
  if (!report.linksim_version.empty()) {
    out += "<p class=\"meta\">linksim " + xml_escape(report.linksim_version) + "</p>\n";
  }
  out += "<nav><a href=\"#summary\">Summary</a><a href=\"#charts\">Charts</a>"
         "<a href=\"#tables\">Tables</a><a href=\"#assumptions\">Assumptions</a>"
         "<a href=\"#reproduce\">Reproduce</a></nav>\n</header>\n";
  out += html_summary(report);
  out += html_charts(report);
  out += "<section id=\"tables\">\n<h2>Tables</h2>\n";
  for (const HtmlTable& table : report.tables) out += html_table(table);
  out += "</section>\n";
  out += html_assumptions(report);
  out += "<section id=\"reproduce\">\n<h2>Reproduce</h2>\n<pre><code>" +
         xml_escape(report.command) + "</code></pre>\n</section>\n";
  if (!report.generated_at.empty()) {
    out += "<footer>Generated " + xml_escape(report.generated_at) + ".</footer>\n";
  }
  out += "</main>\n<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace linksim
