// SPDX-License-Identifier: Apache-2.0
// Charts as SVG text and the self-contained HTML report (docs/reports.md). Rendering only:
// the callers pass computed values; these functions lay them out, scale them and write text.
//
// Every function here is deterministic: the same input gives the same bytes (numbers are
// written with fixed precision, no clock, no randomness, no ids that depend on memory).
// None of them keeps state, so they may be called from several threads at once.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "linksim/topology.hpp"

namespace linksim {

/// How an axis maps values to pixels.
enum class AxisScale {
  kLinear,
  kLog10,  ///< ticks 1-2-5 per decade (fewer when the range is wide)
  kLog2,   ///< ticks at powers of two (every 1st, 2nd, 5th, ... exponent)
};

/// What an axis' values are, which decides the tick labels and the unit in the axis title.
/// Values are always SI (bytes, bytes/s, seconds); only the labels convert.
enum class AxisUnit {
  kNumber,     ///< plain; 1.5K, 2M, 3G (decimal) from 1000 up: GPUs, tokens/s, speedup
  kBytes,      ///< message sizes: 1K, 64K, 1M, 1G in powers of 1024 (nccl-tests' convention)
  kGB,         ///< memory: bytes shown in GB (1e9), "(GB)" appended to the title
  kBandwidth,  ///< bytes/s shown in GB/s (1e9), "(GB/s)" appended to the title
  kSeconds,    ///< one unit for the whole axis (s, ms, us or ns), appended to the title
  kFraction,   ///< 0..1 shown as percent, "(%)" appended to the title
};

struct Axis {
  std::string title;                 ///< "message size", "busbw"; the unit is appended
  AxisScale scale = AxisScale::kLinear;
  AxisUnit unit = AxisUnit::kNumber;
  std::optional<double> min;         ///< forces the range; default: from the data
  std::optional<double> max;         ///< (linear axes include 0 unless min is given)
};

struct ChartPoint {
  double x = 0;
  double y = 0;
  /// A range around y drawn as a whisker (a prediction's error band); none when unset.
  /// REQUIRES: y_low <= y <= y_high when set.
  std::optional<double> y_low = std::nullopt;
  std::optional<double> y_high = std::nullopt;
};

struct ChartSeries {
  std::string name;                  ///< legend and tooltip text (escaped on output)
  std::vector<ChartPoint> points;    ///< drawn in this order, joined by a line
};

/// Several named series of (x, y) points: busbw against message size, step time or speedup
/// against GPU count. `ideal`, when set, is drawn as a dashed grey line with its own legend
/// entry (its points carry tooltips too).
struct LineChart {
  std::string title;
  Axis x;
  Axis y;
  std::vector<ChartSeries> series;
  std::optional<ChartSeries> ideal;
  int width_px = 880;
  int height_px = 420;
};

/// One bar per label, stacked from segments. values[i][j] = bar i, segment j, in the value
/// axis' unit; REQUIRES values[i].size() == segment_names.size() and every value >= 0.
struct StackedBars {
  std::string title;
  Axis value_axis;                   ///< linear; its min is 0
  std::vector<std::string> bar_labels;
  std::vector<std::string> segment_names;
  std::vector<std::vector<double>> values;
  std::optional<double> capacity;    ///< a dashed red horizontal rule (memory capacity)
  std::string capacity_label;        ///< legend text, "H100 capacity"; the value is appended
  int width_px = 880;
  int height_px = 420;
};

struct MachinePictureOptions {
  std::string title;
  /// The link to highlight and label. Default: the most utilised link.
  std::optional<LinkId> bottleneck;
  /// Hosts drawn as their own summary box besides the detailed one; further hosts share one
  /// "N more servers" box.
  int max_summary_hosts = 11;
  /// A fabric tier with more switches than this is drawn as one box "leaf x64".
  int max_switches_per_tier = 8;
  int width_px = 960;
};

/// The line chart as one <svg> element. Every point is a circle with a <title> tooltip
/// "series: x, y" in the axes' units. Throws std::invalid_argument when a value is not
/// finite or is <= 0 on a log axis, naming the series and the point.
std::string svg_line_chart(const LineChart& chart);

/// The stacked bars as one <svg>: a <title> tooltip on every segment ("bar: segment value
/// (share of the bar)") and the total above each bar. Throws std::invalid_argument on a
/// shape mismatch or a negative or non-finite value.
std::string svg_stacked_bars(const StackedBars& chart);

/// A picture of the machine with every link coloured by its utilisation (0..1, a colour scale
/// with a legend). link_utilisation[l] is the utilisation of directed link l; the two
/// directions of a link are drawn as one line coloured by the larger. The bottleneck is drawn
/// thick, outlined and labelled with its name and utilisation.
/// Big machines are collapsed: the server holding the bottleneck (else host 0) is drawn device
/// by device (a kind with more than 24 devices in it as one box); other servers are boxes
/// coloured by their busiest internal link; a fabric tier with many switches is one box. Lines between collapsed boxes carry the busiest of the links
/// they stand for and say how many in their tooltip.
/// Throws std::invalid_argument unless link_utilisation.size() == topology.links().size() and
/// every value is finite and >= 0 (values above 1 are drawn as 1 and labelled as they are).
std::string svg_machine_utilisation(const Topology& topology,
                                    const std::vector<double>& link_utilisation,
                                    const MachinePictureOptions& options = {});

/// The tick values of an axis over [lo, hi] (exposed for tests). Linear: multiples of a 1-2-5
/// step, 4 to 10 ticks. Log10: 1, 2, 5 per decade, or 1 per decade (every 2nd, 5th, ...
/// decade on wide ranges). Log2: powers of two whose exponent is a multiple of the smallest
/// step in {1, 2, 5, 10, 20} that gives at most 12 ticks. REQUIRES lo <= hi (lo > 0 on log).
std::vector<double> axis_ticks(AxisScale scale, double lo, double hi);

/// The tick label of `value` on an axis of `unit` ("1K", "512M", "450", "20%"). For kSeconds
/// the value is shown in `seconds_unit` (1e-3 for ms, ...).
std::string format_tick(double value, AxisUnit unit, double seconds_unit = 1);

/// How `topo dot` draws a machine.
struct DotOptions {
  /// Above this many devices, the fabric becomes one node per tier ("leaf x64") and only
  /// host 0 is drawn device by device; up to `summary_hosts` further servers are one node
  /// each and the rest one "more servers" node. Edges then stand for all the links between
  /// two nodes and carry their count and summed bandwidth.
  size_t collapse_above_devices = 200;
  int summary_hosts = 3;
};

/// Graphviz DOT (undirected) of the machine: servers as `subgraph cluster_hostN` when there
/// are several, node shape by device kind, one edge per link (collapsed as above) coloured by
/// link family, pen width growing with bandwidth and labelled "type xlanes" and the bandwidth
/// per direction (docs/reports.md#dot). Deterministic.
std::string render_topology_dot(const Topology& topology, const DotOptions& options = {});

/// A table given as text: the header and rows of cells (rows may be shorter than the header).
struct HtmlTable {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

/// A chart with its heading and a sentence on how to read it. svg is the text of one
/// svg_* function above (inserted as is; it is trusted markup, not escaped).
struct HtmlChart {
  std::string title;
  std::string caption;
  std::string svg;
};

/// Everything a report shows. All strings except HtmlChart::svg are escaped on output.
struct HtmlReport {
  std::string title;
  std::vector<std::string> summary;                           ///< one paragraph each
  std::vector<HtmlChart> charts;
  std::vector<HtmlTable> tables;
  std::vector<std::pair<std::string, std::string>> assumptions;  ///< key, value; in order
  std::string command;                                        ///< reproduces the report
  std::string linksim_version;
  /// The only time-dependent text in the page ("2026-12-02 17:40 UTC"); left out when empty.
  std::string generated_at;
};

/// One self-contained HTML5 document: inline CSS and SVG, a few lines of inline script to
/// sort tables by a click on a header (the page is complete without it), no external URL.
std::string render_html_report(const HtmlReport& report);

}  // namespace linksim
