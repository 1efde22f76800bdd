// SPDX-License-Identifier: Apache-2.0
// `topo matrix` as nvidia-smi prints it (tab-separated), as JSON, and the bandwidth matrix.
#include "linksim/topo_matrix_report.hpp"

#include <fmt/core.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "report/data_format.hpp"

namespace linksim {
namespace {

// nvidia-smi's legend text, verbatim from a real output
// (data/validation/topo-m/07-rtx2080ti-x2-pix-topo-m-autodl.txt).
constexpr const char* kLegend =
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
    "(e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
    "within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
    "Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

std::string without_trailing_blanks(std::string line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
  return line;
}

// Left-aligned columns, two spaces apart, trailing blanks removed.
std::string render_rows(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    out += without_trailing_blanks(std::move(line)) + "\n";
  }
  return out;
}

}  // namespace

std::string render_topo_matrix(const TopoMatrix& matrix) {
  std::string out;
  for (const std::string& name : matrix.names) out += "\t" + name;
  out += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
  for (size_t r = 0; r < matrix.names.size(); ++r) {
    std::string line = matrix.names[r];
    for (const std::string& cell : matrix.cells[r]) line += "\t" + (cell == "X" ? " X " : cell);
    if (int(r) < matrix.gpu_count) {
      // nvidia-smi leaves an empty field between NUMA Affinity and GPU NUMA ID.
      line += fmt::format("\t{}\t{}\t\t{}", matrix.cpu_affinity[r], matrix.numa_affinity[r],
                          matrix.gpu_numa_id[r]);
    }
    out += without_trailing_blanks(std::move(line)) + "\n";
  }
  out += std::string("\n") + kLegend;
  if (!matrix.nic_legend.empty()) {
    out += "\nNIC Legend:\n\n";
    for (const std::string& entry : matrix.nic_legend) out += "  " + entry + "\n";
  }
  return out;
}

std::string render_topo_matrix_json(const std::string& topology, int host,
                                    const TopoMatrix& matrix,
                                    const std::vector<std::vector<double>>& bandwidth_GBps) {
  using Json = nlohmann::ordered_json;
  Json gpus = Json::array();
  for (int g = 0; g < matrix.gpu_count; ++g) {
    gpus.push_back({{"name", matrix.names[size_t(g)]},
                    {"cpu_affinity", matrix.cpu_affinity[size_t(g)]},
                    {"numa_affinity", matrix.numa_affinity[size_t(g)]},
                    {"gpu_numa_id", matrix.gpu_numa_id[size_t(g)]}});
  }
  Json nics = Json::array();
  for (size_t n = 0; n < matrix.nic_ports.size(); ++n) {
    nics.push_back({{"name", matrix.names[size_t(matrix.gpu_count) + n]},
                    {"port", matrix.nic_ports[n]}});
  }
  Json bandwidth = Json::array();
  for (const std::vector<double>& row : bandwidth_GBps) {
    Json cells = Json::array();
    for (double value : row) cells.push_back(report_data::round_to_10_digits(value));
    bandwidth.push_back(std::move(cells));
  }
  const Json doc{{"topology", topology},  {"host", host},   {"devices", matrix.names},
                 {"matrix", matrix.cells}, {"gpus", gpus},  {"nics", nics},
                 {"bandwidth_GBps", bandwidth}};
  return doc.dump(2) + "\n";
}

std::string render_bandwidth_matrix(const std::vector<std::vector<double>>& matrix_GBps) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{""};
  for (size_t i = 0; i < matrix_GBps.size(); ++i) header.push_back(fmt::format("GPU{}", i));
  rows.push_back(std::move(header));
  for (size_t i = 0; i < matrix_GBps.size(); ++i) {
    std::vector<std::string> row{fmt::format("GPU{}", i)};
    for (size_t j = 0; j < matrix_GBps.size(); ++j) {
      row.push_back(i == j ? "X" : fmt::format("{:.1f}", matrix_GBps[i][j]));
    }
    rows.push_back(std::move(row));
  }
  return render_rows(rows);
}

}  // namespace linksim
