// SPDX-License-Identifier: Apache-2.0
// Pictures of a machine (its links coloured by utilisation, Graphviz DOT) and the
// self-contained HTML report (docs/reports.md). Rendering only: the callers pass computed
// values; these functions lay them out, scale them and write text. The chart kit they draw
// with (axes, line and bar charts) is internal: src/charts/charts.hpp.
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
/// <svg> element (inserted as is; it is trusted markup, not escaped).
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
