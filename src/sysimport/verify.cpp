// SPDX-License-Identifier: Apache-2.0
// `topo verify`: the matrix a topology implies, compared cell by cell with a real one.
#include "sysimport/verify.hpp"

#include "topology/server_tree.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <optional>

namespace linksim {

namespace {

SmiDevice matrix_device(const Topology& topology, DeviceId id) {
  const Device& device = topology.device(id);
  SmiDevice out;
  out.kind = device.kind;
  out.index = device.index;
  out.label = fmt::format("{}{}", device.kind == DeviceKind::kGpu ? "GPU" : "NIC", device.index);
  out.port_name = topology.details(id).port_name;
  out.where = topology.details(id).where;
  if (device.kind == DeviceKind::kGpu) {
    if (auto cpu = detail::find_up_chain(topology, id).cpu()) {
      out.cpu_affinity = topology.details(*cpu).cpu_affinity;
      const int numa = topology.details(*cpu).numa;
      if (numa >= 0) out.numa_affinity = std::to_string(numa);
    }
  }
  return out;
}

// Position of GPU/NIC `index` in `m.devices`, or nullopt.
std::optional<size_t> position(const SmiMatrix& m, DeviceKind kind, int index) {
  for (size_t i = 0; i < m.devices.size(); ++i) {
    if (m.devices[i].kind == kind && m.devices[i].index == index) return i;
  }
  return std::nullopt;
}

std::string_view text_trim_right(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::string plural(int n, std::string_view what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

void compare_counts(const SmiMatrix& claim, const SmiMatrix& real, DeviceKind kind,
                    std::string_view what, VerifyReport& report) {
  const int c = claim.count(kind);
  const int r = real.count(kind);
  if (c == r) return;
  report.count_mismatches.push_back(fmt::format("{} count: the claim has {}, the real output {}",
                                                what, plural(c, what), plural(r, what)));
}

}  // namespace

SmiMatrix implied_matrix(const Router& router, int host) {
  const Topology& topology = router.topology();
  if (host < 0 || host >= topology.host_count()) {
    throw ConfigError(fmt::format("expected a host between 0 and {}, got {}",
                                  topology.host_count() - 1, host));
  }
  SmiMatrix m;
  m.source = topology.source_file().empty() ? topology.name() : topology.source_file();
  std::vector<DeviceId> ids = topology.devices_of(host, DeviceKind::kGpu);
  const std::vector<DeviceId> nics = topology.devices_of(host, DeviceKind::kNic);
  ids.insert(ids.end(), nics.begin(), nics.end());
  m.has_nic_columns = !nics.empty();
  for (DeviceId id : ids) m.devices.push_back(matrix_device(topology, id));
  const size_t n = ids.size();
  m.cells.assign(n, std::vector<SmiCell>(n));
  for (size_t r = 0; r < n; ++r) {
    for (size_t c = r + 1; c < n; ++c) {
      int nvlinks = 0;
      const PathClass cls = router.classify(ids[r], ids[c], &nvlinks);
      m.cells[r][c] = m.cells[c][r] =
          SmiCell{cls, cls == PathClass::kNvlink ? nvlinks : 0};
    }
  }
  return m;
}

VerifyReport compare_matrices(const SmiMatrix& claim, const SmiMatrix& real) {
  VerifyReport report;
  compare_counts(claim, real, DeviceKind::kGpu, "GPU", report);
  const bool compare_nics = real.has_nic_columns;
  if (compare_nics) {
    compare_counts(claim, real, DeviceKind::kNic, "NIC", report);
  } else if (claim.count(DeviceKind::kNic) > 0) {
    report.notes.push_back(fmt::format(
        "the real output shows no NIC columns: the claim's {} not compared",
        plural(claim.count(DeviceKind::kNic), "NIC")));
  }
  // Walk the claim's devices in order (GPUs, then NICs) so the diff reads row by row.
  for (size_t r = 0; r < claim.devices.size(); ++r) {
    const SmiDevice& a = claim.devices[r];
    if (a.kind == DeviceKind::kNic && !compare_nics) continue;
    const auto real_r = position(real, a.kind, a.index);
    if (!real_r) continue;
    for (size_t c = r + 1; c < claim.devices.size(); ++c) {
      const SmiDevice& b = claim.devices[c];
      if (b.kind == DeviceKind::kNic && !compare_nics) continue;
      const auto real_c = position(real, b.kind, b.index);
      if (!real_c) continue;
      ++report.compared_pairs;
      const SmiCell& expected = claim.cells[r][c];
      const SmiCell& found = real.cells[*real_r][*real_c];
      if (expected == found) continue;
      report.mismatches.push_back({a.label, b.label, expected, found});
    }
  }
  return report;
}

std::string render_matrix(const SmiMatrix& m) {
  size_t width = 6;
  for (const SmiDevice& d : m.devices) width = std::max(width, d.label.size() + 2);
  bool cpu = false;
  bool numa = false;
  for (const SmiDevice& d : m.devices) {
    cpu = cpu || !d.cpu_affinity.empty();
    numa = numa || !d.numa_affinity.empty();
  }
  const auto pad = [width](std::string_view s) { return fmt::format("{:<{}}", s, width); };
  std::string out = pad("");
  for (const SmiDevice& d : m.devices) out += pad(d.label);
  if (cpu) out += fmt::format("{:<16}", "CPU Affinity");
  if (numa) out += "NUMA Affinity";
  out = std::string(text_trim_right(out)) + "\n";
  for (size_t r = 0; r < m.devices.size(); ++r) {
    const SmiDevice& d = m.devices[r];
    std::string line = pad(d.label);
    for (const SmiCell& cell : m.cells[r]) line += pad(cell.label() == "X" ? " X" : cell.label());
    if (cpu) line += fmt::format("{:<16}", d.cpu_affinity.empty() ? "N/A" : d.cpu_affinity);
    if (numa) line += d.numa_affinity.empty() ? "N/A" : d.numa_affinity;
    out += std::string(text_trim_right(line)) + "\n";
  }
  std::string legend;
  for (const SmiDevice& d : m.devices) {
    if (d.kind == DeviceKind::kNic && !d.port_name.empty() && d.port_name != d.label) {
      legend += fmt::format("  {}: {}\n", d.label, d.port_name);
    }
  }
  if (!legend.empty()) out += "\nNIC Legend:\n\n" + legend;
  return out;
}

std::string VerifyReport::text() const {
  std::string out;
  for (const std::string& line : count_mismatches) out += line + "\n";
  for (const CellMismatch& m : mismatches) {
    out += fmt::format("{}-{}: expected {}, found {}\n", m.a, m.b, m.expected.label(),
                       m.found.label());
  }
  for (const std::string& note : notes) out += "note: " + note + "\n";
  if (match()) {
    out += fmt::format("match: {} agree\n", plural(compared_pairs, "pair"));
  } else {
    out += fmt::format("mismatch: {} of {} differ", mismatches.size(),
                       plural(compared_pairs, "compared pair"));
    if (!count_mismatches.empty()) out += ", and the device counts differ";
    out += "\n";
  }
  return out;
}

}  // namespace linksim
