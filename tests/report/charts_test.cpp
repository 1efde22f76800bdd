// SPDX-License-Identifier: Apache-2.0
// SVG charts and the HTML report: ticks, labels, escaping, tooltips, determinism, the
// bottleneck mark and self-containment.
#include <doctest/doctest.h>

#include <regex>
#include <stdexcept>
#include <string>

#include "charts/charts.hpp"
#include "linksim/charts.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/mini_topologies.hpp"

namespace linksim {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// busbw against size for two machines, log-2 bytes on x, GB/s on y.
LineChart busbw_chart() {
  LineChart chart;
  chart.title = "AllReduce busbw";
  chart.x = {"message size", AxisScale::kLog2, AxisUnit::kBytes, {}, {}};
  chart.y = {"busbw", AxisScale::kLinear, AxisUnit::kBandwidth, {}, {}};
  chart.series.push_back({"dgx", {{1024, 0.5e9}, {1048576, 120e9}, {1073741824, 371.5e9}}});
  chart.series.push_back({"<a&b>", {{1024, 0.2e9}, {1048576, 9e9}, {1073741824, 21e9}}});
  return chart;
}

StackedBars memory_bars() {
  StackedBars bars;
  bars.title = "Memory per GPU";
  bars.value_axis = {"memory per GPU", AxisScale::kLinear, AxisUnit::kGigabytes, {}, {}};
  bars.bar_labels = {"TP8", "TP4 PP2"};
  bars.segment_names = {"weights", "optimizer"};
  bars.values = {{17.5e9, 30e9}, {35e9, 60e9}};
  bars.capacity = 80e9;
  bars.capacity_label = "H100 capacity";
  return bars;
}

}  // namespace

TEST_SUITE("report") {

TEST_CASE("charts: log-2 ticks over 1 KiB .. 8 GiB are every second power of two") {
  // Exponents 10..33 are 24 powers; step 1 gives 24 > 12 ticks, step 2 gives the 12 even
  // exponents 10, 12, ..., 32.
  const std::vector<double> ticks = axis_ticks(AxisScale::kLog2, 1024, 8589934592.0);
  REQUIRE(ticks.size() == 12);
  CHECK(ticks.front() == 1024);
  CHECK(ticks[1] == 4096);
  CHECK(ticks.back() == 4294967296.0);
  CHECK(format_tick(ticks.front(), AxisUnit::kBytes) == "1K");
  CHECK(format_tick(ticks[5], AxisUnit::kBytes) == "1M");
  CHECK(format_tick(ticks.back(), AxisUnit::kBytes) == "4G");
  CHECK(axis_ticks(AxisScale::kLog2, 1, 8) == std::vector<double>{1, 2, 4, 8});
}

TEST_CASE("charts: log-10 ticks are 1-2-5 per decade, decades only when crowded") {
  CHECK(axis_ticks(AxisScale::kLog10, 1, 1000) ==
        std::vector<double>{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000});
  // 1 .. 1e6: 1-2-5 would give 3 x 6 + 1 = 19 ticks, so one per decade.
  CHECK(axis_ticks(AxisScale::kLog10, 1, 1e6) ==
        std::vector<double>{1, 10, 100, 1000, 10000, 100000, 1e6});
  CHECK(format_tick(1e6, AxisUnit::kNumber) == "1M");
  // A log-10 axis begins and ends on a labelled 1-2-5 tick: 0.07 .. 480 GB/s -> 0.05 .. 500;
  // 1-2-5 ticks would be 13, so the ticks are the decades 0.1 .. 100 and the two ends.
  LineChart chart;
  chart.x = {"x", AxisScale::kLinear, AxisUnit::kNumber, {}, {}};
  chart.y = {"busbw", AxisScale::kLog10, AxisUnit::kBandwidth, {}, {}};
  chart.series.push_back({"s", {{1, 0.07e9}, {2, 480e9}}});
  const std::string svg = svg_line_chart(chart);
  CHECK(svg.find(">0.05</text>") != std::string::npos);
  CHECK(svg.find(">500</text>") != std::string::npos);
  CHECK(svg.find(">0.1</text>") != std::string::npos);
  CHECK(svg.find(">0.2</text>") == std::string::npos);
  CHECK(format_tick(1500, AxisUnit::kNumber) == "1.5K");
}

TEST_CASE("charts: linear ticks use a 1-2-5 step") {
  // 0 .. 450: steps 10 and 20 give more than 10 ticks, 50 gives 0, 50, ..., 450.
  const std::vector<double> ticks = axis_ticks(AxisScale::kLinear, 0, 450);
  REQUIRE(ticks.size() == 10);
  CHECK(ticks[1] == 50);
  CHECK(ticks.back() == 450);
  CHECK(axis_ticks(AxisScale::kLinear, 0, 1) ==
        std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1});
  CHECK(format_tick(450e9, AxisUnit::kBandwidth) == "450");
  CHECK(format_tick(0.25, AxisUnit::kFraction) == "25%");
  CHECK(format_tick(2e-3, AxisUnit::kSeconds, 1e-3) == "2");
  CHECK(format_tick(80e9, AxisUnit::kGigabytes) == "80");
  CHECK_THROWS_AS(axis_ticks(AxisScale::kLog2, 0, 8), std::invalid_argument);
}

TEST_CASE("charts: the line chart has a tooltip on every point and its axes") {
  const std::string svg = svg_line_chart(busbw_chart());
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.find("</svg>") == svg.size() - 7);
  CHECK(count(svg, "</title></circle>") == 6);
  CHECK(svg.find("<title>dgx: message size = 1 GiB, busbw (GB/s) = 371.5 GB/s</title>") !=
        std::string::npos);
  CHECK(svg.find(">busbw (GB/s)</text>") != std::string::npos);
  CHECK(svg.find(">1M</text>") != std::string::npos);
  CHECK(count(svg, "<polyline") == 2);
}

TEST_CASE("charts: names are escaped") {
  const std::string svg = svg_line_chart(busbw_chart());
  CHECK(svg.find("<a&b>") == std::string::npos);
  CHECK(svg.find("&lt;a&amp;b&gt;") != std::string::npos);
  HtmlReport report;
  report.title = "x < y & \"z\"";
  report.tables.push_back({"t", {"<th>"}, {{"<td>"}}});
  const std::string html = render_html_report(report);
  CHECK(html.find("<title>x &lt; y &amp; &quot;z&quot;</title>") != std::string::npos);
  CHECK(html.find("<th>&lt;th&gt;</th>") != std::string::npos);
  CHECK(html.find("<td>&lt;td&gt;</td>") != std::string::npos);
}

TEST_CASE("charts: rendering twice gives the same bytes") {
  CHECK(svg_line_chart(busbw_chart()) == svg_line_chart(busbw_chart()));
  CHECK(svg_stacked_bars(memory_bars()) == svg_stacked_bars(memory_bars()));
  const Topology t = testing::make_nvswitch_box();
  const std::vector<double> use(t.links().size(), 0.25);
  CHECK(svg_machine_utilisation(t, use) == svg_machine_utilisation(t, use));
}

TEST_CASE("charts: the ideal series is dashed and in the legend") {
  LineChart chart;
  chart.title = "speedup";
  chart.x = {"GPUs", AxisScale::kLog2, AxisUnit::kNumber, {}, {}};
  chart.y = {"speedup", AxisScale::kLinear, AxisUnit::kNumber, {}, {}};
  chart.series.push_back({"measured", {{1, 1}, {2, 1.9}, {4, 3.5}}});
  chart.ideal = ChartSeries{"ideal", {{1, 1}, {2, 2}, {4, 4}}};
  const std::string svg = svg_line_chart(chart);
  CHECK(count(svg, "stroke-dasharray=\"6 4\"") == 2);  // the line and its legend entry
  CHECK(svg.find("<title>ideal: GPUs = 4, speedup = 4</title>") != std::string::npos);
}

TEST_CASE("charts: bad values are refused with the series and point named") {
  LineChart chart = busbw_chart();
  chart.series[0].points[1].x = 0;
  CHECK_THROWS_WITH_AS(svg_line_chart(chart),
                       "svg_line_chart: series 'dgx' point 1 has x = 0; expected a finite value "
                       "> 0 on a log axis",
                       std::invalid_argument);
  StackedBars bars = memory_bars();
  bars.values[1].pop_back();
  CHECK_THROWS_WITH_AS(svg_stacked_bars(bars),
                       "svg_stacked_bars: bar 'TP4 PP2' has 1 values for 2 segments",
                       std::invalid_argument);
}

TEST_CASE("charts: stacked bars carry shares, totals and the capacity rule") {
  const std::string svg = svg_stacked_bars(memory_bars());
  // TP4 PP2: 35 + 60 = 95 GB; optimizer 60 / 95 = 63.2%.
  CHECK(svg.find("<title>TP4 PP2: optimizer 60 GB (63.2% of 95 GB)</title>") !=
        std::string::npos);
  CHECK(svg.find(">95 GB</text>") != std::string::npos);
  CHECK(svg.find("<title>H100 capacity 80 GB</title>") != std::string::npos);
  CHECK(count(svg, "</title></rect>") == 4);
}

TEST_CASE("charts: the utilisation picture marks and names the bottleneck") {
  const Topology t = testing::make_nvswitch_box();
  std::vector<double> use(t.links().size(), 0.1);
  const LinkId hot = t.out_links(*t.find("gpu2")).front();
  use[hot.value] = 0.97;
  const std::string svg = svg_machine_utilisation(t, use);
  const std::string name = t.display_name(t.link(hot).from) + " \u2192 " +
                           t.display_name(t.link(hot).to);
  CHECK(count(svg, "class=\"link bottleneck\"") == 1);
  CHECK(svg.find(">bottleneck 97%</text>") != std::string::npos);
  CHECK(svg.find("Bottleneck: " + name) != std::string::npos);
  // Every device is drawn once, with a tooltip.
  CHECK(count(svg, "<g class=\"node\"><title>") == t.devices().size());
  CHECK_THROWS_AS(svg_machine_utilisation(t, {0.5}), std::invalid_argument);
}

TEST_CASE("charts: a cluster draws the bottleneck's server in detail, others as boxes") {
  detail::FabricSpec spec;
  spec.kind = detail::FabricKind::kFatTree;
  const Topology t = testing::make_cluster(16, spec);
  std::vector<double> use(t.links().size(), 0.0);
  const LinkId hot = t.out_links(t.devices_of(5, DeviceKind::kGpu)[1]).front();
  use[hot.value] = 0.5;
  MachinePictureOptions options;
  options.max_summary_hosts = 4;
  const std::string svg = svg_machine_utilisation(t, use, options);
  CHECK(svg.find(">host5 (drawn in detail; 16 servers)</text>") != std::string::npos);
  CHECK(svg.find(">host0</text>") != std::string::npos);
  CHECK(svg.find(">host3</text>") != std::string::npos);
  // 16 servers: host5 in detail, host0, 1, 2, 3 in boxes, the other 11 in one box.
  CHECK(svg.find(">11 more servers</text>") != std::string::npos);
  CHECK(svg.find(">host4</text>") == std::string::npos);
  CHECK(count(svg, "class=\"link bottleneck\"") == 1);
}

TEST_CASE("charts: a crowded kind in the detailed server is one box") {
  // GB200 NVL72: 72 GPUs, 72 NICs and 36 Grace CPUs in one server, 18 NVLink-Switch chips.
  const Topology t = load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/gb200-nvl72.yaml");
  std::vector<double> use(t.links().size(), 0.2);
  const std::string svg = svg_machine_utilisation(t, use);
  CHECK(svg.find(">gpu \u00d772</text>") != std::string::npos);
  CHECK(svg.find(">nic \u00d772</text>") != std::string::npos);
  CHECK(svg.find(">cpu \u00d736</text>") != std::string::npos);
  CHECK(svg.find(">nvswitch17</text>") != std::string::npos);
  CHECK(svg.find(">gpu0</text>") == std::string::npos);
  // The 72 GPU links to each switch are one line per switch; so are the 72 GPU-CPU C2C links
  // and the 72 NIC-CPU PCIe links: 20 lines of 72 links.
  CHECK(count(svg, "host0: gpu \u00d772 \u2013 nvswitch") == 18);
  CHECK(count(svg, ": 72 links; busiest 20% (") == 20);
}

TEST_CASE("charts: the HTML report is self-contained and has each part") {
  HtmlReport report;
  report.title = "Sample";
  report.summary = {"One sentence."};
  report.charts.push_back({"busbw", "How to read it.", svg_line_chart(busbw_chart())});
  report.charts.push_back({"memory", "", svg_stacked_bars(memory_bars())});
  report.tables.push_back({"numbers", {"size", "busbw"}, {{"1M", "120.5"}, {"1G"}}});
  report.assumptions = {{"NCCL_NVLS_ENABLE", "1"}};
  report.command = "linksim run scenarios/x.yaml --format html";
  report.linksim_version = "0.1.0";
  report.generated_at = "2026-12-02 17:40 UTC";
  const std::string html = render_html_report(report);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count(html, "<svg ") == 2);
  CHECK(html.find("data-chart-count=\"2\"") != std::string::npos);
  CHECK(count(html, "2026-12-02 17:40 UTC") == 1);
  CHECK(html.find("<dt>linksim version</dt><dd>0.1.0</dd>") != std::string::npos);
  CHECK(html.find("<dt>NCCL_NVLS_ENABLE</dt><dd>1</dd>") != std::string::npos);
  CHECK(html.find("<code>linksim run scenarios/x.yaml --format html</code>") != std::string::npos);
  CHECK(html.find("<td class=\"num\">120.5</td>") != std::string::npos);
  CHECK(html.find("<th>size</th><th class=\"num\">busbw</th>") != std::string::npos);
  CHECK(html.find("<tr><td>1G</td><td class=\"num\"></td></tr>") != std::string::npos);  // padded
  // No resource from elsewhere: no src= at all, every href a fragment, and no URL other than
  // the SVG namespace name (which is an identifier, never fetched).
  CHECK(html.find("src=") == std::string::npos);
  const std::regex external_href("href\\s*=\\s*\"(?!#)");
  CHECK_FALSE(std::regex_search(html, external_href));
  const std::string without_namespace =
      std::regex_replace(html, std::regex("xmlns=\"http://www\\.w3\\.org/2000/svg\""), "");
  CHECK(without_namespace.find("http://") == std::string::npos);
  CHECK(without_namespace.find("https://") == std::string::npos);
  CHECK(without_namespace.find("url(") == std::string::npos);
  // Without the generation time, two renderings are identical and time-free.
  report.generated_at.clear();
  CHECK(render_html_report(report) == render_html_report(report));
  CHECK(render_html_report(report).find("Generated") == std::string::npos);
}

}  // TEST_SUITE

}  // namespace linksim
