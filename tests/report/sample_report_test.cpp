// SPDX-License-Identifier: Apache-2.0
// Writes a sample HTML report holding every chart kind, for the browser check
// (tests/cli/html_report.sh) and the screenshot in docs/images/. The busbw curves are computed
// by the collective engine on shipped machines; the plan figures and link utilisations are
// fixed sample values chosen to exercise every drawing path (not results of the planner).
#include <doctest/doctest.h>

#include <fmt/core.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "charts/charts.hpp"
#include "linksim/charts.hpp"
#include "linksim/collectives.hpp"
#include "linksim/topology_yaml.hpp"
#include "linksim/units.hpp"

namespace linksim {
namespace {

const std::string kTopologies = std::string(LINKSIM_SOURCE_DIR) + "/topologies/";

ChartSeries busbw_series(const Topology& topology, std::vector<std::vector<std::string>>& table,
                         size_t column) {
  const Communicator comm(topology, topology.gpus());
  ChartSeries series{fmt::format("{} ({} GPUs)", topology.name(), topology.gpus().size()), {}};
  size_t row = 0;
  for (double size = 1024; size <= 8.0 * kGiB; size *= 4, ++row) {
    CollectiveQuery query;
    query.size_bytes = size;
    const CollectiveResult result = comm.run(query);
    series.points.push_back({size, result.busbw_Bps});
    if (table.size() <= row) table.push_back({format_size(size)});
    table[row].resize(column + 1);
    table[row][column] = fmt::format("{:.2f}", result.busbw_Bps / kGB);
  }
  return series;
}

HtmlChart busbw_chart(HtmlReport& report) {
  LineChart chart;
  chart.title = "AllReduce bus bandwidth by message size";
  chart.x = {"message size (bytes)", AxisScale::kLog2, AxisUnit::kBytes, {}, {}};
  chart.y = {"busbw", AxisScale::kLog10, AxisUnit::kBandwidth, {}, {}};
  HtmlTable table{"AllReduce busbw (GB/s)", {"size"}, {}};
  size_t column = 1;
  for (const char* file : {"dgx-h100.yaml", "pcie-8gpu.yaml", "dual-4090.yaml"}) {
    const Topology topology = load_topology(kTopologies + file);
    table.header.push_back(topology.name());
    chart.series.push_back(busbw_series(topology, table.rows, column++));
  }
  report.tables.push_back(table);
  return {"Bus bandwidth", "busbw as nccl-tests reports it (GB/s = 1e9 bytes/s, log scale), analytic mode.",
          svg_line_chart(chart)};
}

HtmlChart speedup_chart() {
  LineChart chart;
  chart.title = "Speedup against GPU count (sample values)";
  chart.x = {"GPUs", AxisScale::kLog2, AxisUnit::kNumber, {}, {}};
  chart.y = {"speedup", AxisScale::kLinear, AxisUnit::kNumber, {}, {}};
  chart.series.push_back({"NVSwitch server", {{1, 1}, {2, 1.96}, {4, 3.85}, {8, 7.5}}});
  chart.series.push_back({"PCIe server", {{1, 1}, {2, 1.8}, {4, 3.0}, {8, 4.4}}});
  chart.ideal = ChartSeries{"ideal (linear)", {{1, 1}, {2, 2}, {4, 4}, {8, 8}}};
  return {"Scaling", "Dashed: perfect linear scaling.", svg_line_chart(chart)};
}

HtmlChart step_chart() {
  StackedBars bars;
  bars.title = "Step time by part (sample values)";
  bars.value_axis = {"step time", AxisScale::kLinear, AxisUnit::kSeconds, {}, {}};
  bars.bar_labels = {"TP8", "TP4 PP2", "TP2 PP4", "DP8 ZeRO-1"};
  bars.segment_names = {"compute", "exposed TP comm", "exposed PP comm", "exposed DP comm",
                        "pipeline bubble"};
  bars.values = {{1.20, 0.31, 0, 0.02, 0},
                 {1.20, 0.12, 0.03, 0.02, 0.19},
                 {1.20, 0.05, 0.05, 0.02, 0.44},
                 {1.20, 0, 0, 0.52, 0}};
  return {"Step time", "Each bar is one plan; segments add up to the step time.",
          svg_stacked_bars(bars)};
}

HtmlChart memory_chart() {
  StackedBars bars;
  bars.title = "Memory per GPU (sample values)";
  bars.value_axis = {"memory per GPU", AxisScale::kLinear, AxisUnit::kGigabytes, {}, {}};
  bars.bar_labels = {"TP8", "TP4 PP2", "TP2 PP4", "DP8 ZeRO-1"};
  bars.segment_names = {"weights", "gradients", "optimizer states", "activations"};
  bars.values = {{17.5e9, 17.5e9, 26e9, 9e9},
                 {17.5e9, 17.5e9, 26e9, 14e9},
                 {17.5e9, 17.5e9, 26e9, 22e9},
                 {140e9, 140e9, 105e9, 30e9}};
  bars.capacity = 80e9;
  bars.capacity_label = "H100 SXM capacity";
  return {"Memory", "The dashed red rule is the GPU's memory; a bar above it does not fit.",
          svg_stacked_bars(bars)};
}

// Utilisation as a ring AllReduce across servers might leave it: NVLink to the switches
// busy, the NIC-to-leaf links busier, one of them saturated.
HtmlChart cluster_picture() {
  const Topology t = load_topology(kTopologies + "dgx-h100-ib.yaml");
  std::vector<double> use(t.links().size(), 0.0);
  for (uint32_t i = 0; i < t.links().size(); ++i) {
    const Link& link = t.link(LinkId{i});
    if (link.family == LinkFamily::kNvlink) use[i] = 0.35 + 0.05 * double(i % 4);
    if (link.family == LinkFamily::kNetwork) use[i] = 0.55 + 0.1 * double(i % 3);
  }
  for (LinkId l : t.out_links(t.devices_of(2, DeviceKind::kNic)[3])) {
    if (t.link(l).family == LinkFamily::kNetwork) use[l.value] = 0.98;
  }
  MachinePictureOptions options;
  options.title = "Link utilisation, AllReduce 1 GiB on dgx-h100-ib (sample values)";
  return {"Machine: multi-server", "One server in detail; the others as boxes.",
          svg_machine_utilisation(t, use, options)};
}

HtmlChart pcie_picture() {
  const Topology t = load_topology(kTopologies + "pcie-8gpu.yaml");
  std::vector<double> use(t.links().size(), 0.0);
  for (uint32_t i = 0; i < t.links().size(); ++i) {
    const Link& link = t.link(LinkId{i});
    if (link.family == LinkFamily::kPcie) use[i] = 0.3 + 0.1 * double(i % 5);
    if (link.family == LinkFamily::kSmp) use[i] = 1.0;
  }
  MachinePictureOptions options;
  options.title = "Link utilisation, AllReduce 1 GiB on pcie-8gpu (sample values)";
  return {"Machine: one server", "The link between the sockets limits every ring.",
          svg_machine_utilisation(t, use, options)};
}

HtmlReport sample_report() {
  HtmlReport report;
  report.title = "linksim sample report: every chart kind";
  report.summary = {
      "This page shows each chart the reports draw. The busbw curves are computed by the "
      "collective engine on three shipped machines; the other figures are sample values.",
      "Hover over a point, a bar segment or a link to see its values."};
  report.charts.push_back(busbw_chart(report));
  report.charts.push_back(speedup_chart());
  report.charts.push_back(step_chart());
  report.charts.push_back(memory_chart());
  report.charts.push_back(cluster_picture());
  report.charts.push_back(pcie_picture());
  report.assumptions = {{"catalog", "builtin (data/catalog/gpus.yaml, links.yaml)"},
                        {"mode", "analytic"},
                        {"NCCL_NVLS_ENABLE", "1"},
                        {"NCCL_P2P_DISABLE", "0"},
                        {"series name with markup", "<a&b> is escaped"}};
  report.command = "linksim_tests -tc='html report: sample report with every chart kind'";
  report.linksim_version = "test";
  report.generated_at = "at a fixed time (test)";
  return report;
}

}  // namespace

TEST_SUITE("report") {

TEST_CASE("html report: sample report with every chart kind") {
  const std::string html = render_html_report(sample_report());
  CHECK(html == render_html_report(sample_report()));
  CHECK(html.find("data-chart-count=\"6\"") != std::string::npos);
  const char* override_path = std::getenv("LINKSIM_SAMPLE_REPORT");
  const std::filesystem::path path =
      override_path != nullptr
          ? std::filesystem::path(override_path)
          : std::filesystem::path(LINKSIM_BINARY_DIR) / "test-artifacts" / "sample-report.html";
  std::filesystem::create_directories(path.parent_path());
  // Written whole to a temporary name, then renamed, so a reader never sees half a page.
  const std::filesystem::path temporary = path.string() + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary);
    out << html;
    REQUIRE(out.good());
  }
  std::filesystem::rename(temporary, path);
  CHECK(std::filesystem::file_size(path) == html.size());
}

}  // TEST_SUITE

}  // namespace linksim
