// SPDX-License-Identifier: Apache-2.0
// busbw against message size, one chart per collective study and operation, one line per
// case: the curves nccl-tests users know (docs/scenario-format.md#charts).
#include <fmt/format.h>

#include <set>

#include "charts/charts.hpp"
#include "linksim/units.hpp"
#include "report/scenario_charts.hpp"

namespace linksim::detail {
namespace {

// A case's rows as (size, busbw) points; sizes or bandwidths of zero (a single rank moves no
// data) cannot be drawn on the log axes and are left out.
ChartSeries busbw_series(const CaseRecord& doc) {
  ChartSeries series{case_label(doc), {}};
  for (const CollectiveRow& row : doc.collective()->rows) {
    const double size = row.size_bytes;
    const double busbw_Bps = row.busbw_Bps;
    if (!(size > 0 && busbw_Bps > 0)) continue;
    ChartPoint point{size, busbw_Bps};
    // The time band as a busbw band: a longer time is a lower busbw (times as the file has them).
    const double time_us = file_number(row.time_s, kMicrosecond);
    if (!row.confidence.empty() && time_us > 0) {
      point.y_low = busbw_Bps * time_us / file_number(row.time_high_s, kMicrosecond);
      point.y_high = busbw_Bps * time_us / file_number(row.time_low_s, kMicrosecond);
    }
    series.points.push_back(point);
  }
  return series;
}

std::string collective_key(const CaseRecord& doc) {
  if (!doc.ok() || doc.collective() == nullptr) return "";
  return doc.study + "/" + doc.collective()->collective;
}

ScenarioChart busbw_chart(const CaseGroup& group) {
  std::vector<ChartSeries> drawable;
  std::set<std::string> modes;
  for (const CaseRecord* doc : group.cases) {
    ChartSeries series = busbw_series(*doc);
    if (!series.points.empty()) drawable.push_back(std::move(series));
    modes.insert(doc->collective()->mode);
  }
  const std::string op = group.cases.front()->collective()->collective;
  LineChart chart;
  chart.title = fmt::format("{} bus bandwidth by message size ({})", collective_title(op), group.study);
  chart.x = {"message size (bytes)", AxisScale::kLog2, AxisUnit::kBytes, {}, {}};
  chart.y = {"busbw", AxisScale::kLog10, AxisUnit::kBandwidth, {}, {}};
  for (size_t i : spread_choice(drawable.size(), kMaxChartSeries)) {
    chart.series.push_back(std::move(drawable[i]));
  }
  std::string caption = fmt::format(
      "busbw as nccl-tests reports it (GB/s = 1e9 bytes/s, log scale) against the message size "
      "(log 2), {} mode; one line per case; whiskers: each prediction's error band "
      "(docs/calibration.md#error-bands).", fmt::join(modes, " and "));
  const std::string note = left_out_note(chart.series.size(), drawable.size());
  if (!note.empty()) caption += " " + note;
  return {fmt::format("busbw-{}-{}", chart_file_part(group.study), chart_file_part(op)),
          fmt::format("{} busbw: {}", collective_title(op), group.study), caption,
          svg_line_chart(chart)};
}

}  // namespace

std::vector<ScenarioChart> busbw_charts(const std::vector<CaseRecord>& cases) {
  std::vector<ScenarioChart> charts;
  for (const CaseGroup& group : group_cases(cases, collective_key)) {
    bool drawable = false;
    for (const CaseRecord* doc : group.cases) drawable |= !busbw_series(*doc).points.empty();
    if (drawable) charts.push_back(busbw_chart(group));  // not when every case is one GPU
  }
  return charts;
}

}  // namespace linksim::detail
