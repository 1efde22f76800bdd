// SPDX-License-Identifier: Apache-2.0
// Real machines against descriptions: nvidia-smi `topo -m` and NCCL topology XML in and out,
// `topo verify` (claim vs reality) and `topo lint` (what a buyer should ask the vendor).
// See docs/verify-and-lint.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "linksim/catalog.hpp"
#include "linksim/error.hpp"
#include "linksim/routing.hpp"
#include "linksim/topology.hpp"

namespace linksim {

// ---------------------------------------------------------------------------------------------
// nvidia-smi topo -m
// ---------------------------------------------------------------------------------------------

/// One cell of nvidia-smi's matrix: a path class and, for NV#, the number of bonded NVLinks.
struct SmiCell {
  PathClass cls = PathClass::kSelf;
  int nvlinks = 0;  ///< > 0 exactly when cls == kNvlink
  /// The text nvidia-smi prints: "X", "NV12", "PIX", "PXB", "PHB", "NODE", "SYS".
  std::string label() const;
  friend bool operator==(const SmiCell&, const SmiCell&) = default;
};

/// One GPU or NIC of a matrix (a row and the column of the same index).
struct SmiDevice {
  std::string label;          ///< as printed: "GPU0", "NIC1", or "mlx5_0" (older drivers)
  DeviceKind kind = DeviceKind::kGpu;  ///< kGpu or kNic
  int index = 0;              ///< ordinal among devices of its kind (GPU3 -> 3)
  std::string port_name;      ///< NIC: name from the "NIC Legend" block, "" when absent
  std::string cpu_affinity;   ///< "CPU Affinity" value as printed ("0-35,72-107"), "" if absent
  std::string numa_affinity;  ///< "NUMA Affinity" value as printed ("0", "N/A"), "" if absent
  std::string gpu_numa_id;    ///< "GPU NUMA ID" value as printed, "" if absent
  SourceLocation where;       ///< the row label (or the column header when no row exists)
};

/// A GPU/NIC path-class matrix: what `nvidia-smi topo -m` prints, or what a topology implies.
/// Invariants: cells is devices.size() square, X exactly on the diagonal, symmetric; GPUs
/// come before NICs and each kind is numbered 0.. in order.
struct SmiMatrix {
  std::string source;                        ///< file name, or topology name when implied
  std::vector<SmiDevice> devices;
  std::vector<std::vector<SmiCell>> cells;  ///< cells[row][column]
  /// Where each cell was read (parsed matrices only; empty for implied ones).
  std::vector<std::vector<SourceLocation>> cell_where;
  bool has_nic_columns = false;  ///< false when the output shows GPU columns only

  int count(DeviceKind kind) const;
};

/// Parses the first `nvidia-smi topo -m` table found in `text`: any text around it (headers,
/// prose, shell prompts, code fences, a later `topo -p2p` table) is skipped. Accepts tabs or
/// spaces, CRLF line ends, trailing blanks, with or without the CPU Affinity, NUMA Affinity and
/// GPU NUMA ID columns, NIC rows named NIC# (with the "NIC Legend" block) or by port name.
/// Throws ConfigError at file:line:col for a missing table, a truncated table, ragged rows,
/// unknown cell codes, misplaced X, rows out of order and asymmetric cells.
SmiMatrix parse_nvidia_smi_topo(std::string_view text, const std::string& filename);

/// Reads and parses a file. Throws ConfigError when it cannot be read or parsed.
SmiMatrix read_nvidia_smi_topo(const std::string& path);

/// The matrix a topology implies for server `host`: GPUs then NICs by index, classes from
/// router.classify. CPU and NUMA affinity from the CPU each device hangs from, when known.
/// Throws ConfigError when `host` is out of range.
SmiMatrix implied_matrix(const Router& router, int host);

/// Renders a matrix the way nvidia-smi does (header row, one row per device, NIC legend).
std::string render_matrix(const SmiMatrix& matrix);

// ---------------------------------------------------------------------------------------------
// topo verify
// ---------------------------------------------------------------------------------------------

/// One differing cell: `expected` is the claim's class, `found` the real one.
struct CellMismatch {
  std::string a;  ///< "GPU3" or "NIC2" (the row)
  std::string b;  ///< "GPU5" (the column)
  SmiCell expected;
  SmiCell found;
};

/// The outcome of comparing a claim's matrix with a real one.
struct VerifyReport {
  std::vector<std::string> count_mismatches;  ///< "the claim has 8 GPUs, the real output 2"
  std::vector<CellMismatch> mismatches;       ///< each unordered pair once, GPUs first
  std::vector<std::string> notes;             ///< what was not compared and why
  int compared_pairs = 0;
  bool match() const { return count_mismatches.empty() && mismatches.empty(); }
  /// Human-readable diff, one line each: "GPU3-GPU5: expected NV18, found SYS". Ends with a
  /// summary line ("match: 28 pairs agree" or "mismatch: 3 of 28 pairs differ").
  std::string text() const;
};

/// Compares cell by cell, mapping GPUi to GPUi and NICj to NICj. Devices present on one side
/// only are count mismatches; NIC cells are skipped (with a note) when `real` shows no NIC
/// columns.
VerifyReport compare_matrices(const SmiMatrix& claim, const SmiMatrix& real);

// ---------------------------------------------------------------------------------------------
// import / export
// ---------------------------------------------------------------------------------------------

struct ImportOptions {
  /// Catalog GPU model for every GPU ("a100-sxm"); empty = generic defaults (stated in the
  /// output's comments).
  std::string gpu_model;
  std::string name;  ///< topology name; empty = derived from the input file name
};

/// Topology YAML (docs/topology-format.md) that loads and reproduces `matrix`. What the matrix
/// cannot tell (link speeds, switch counts) comes from the catalog entry of
/// options.gpu_model or from generic defaults; comments in the output say which.
/// Throws ConfigError (at the file, no position) for an unknown GPU model, or when the matrix
/// is contradictory (e.g. PIX between devices that another cell puts on different sockets).
std::string import_nvidia_smi(const SmiMatrix& matrix, const ImportOptions& options,
                              const Catalog& catalog = Catalog::builtin());

/// Topology YAML from an NCCL topology XML (NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE). The XML may
/// be embedded in other text (a calibration file); parsing starts at `<system`.
/// Throws ConfigError at file:line:col for malformed XML or an unsupported element.
std::string import_nccl_xml(std::string_view xml_text, const std::string& filename,
                            const ImportOptions& options,
                            const Catalog& catalog = Catalog::builtin());

/// NCCL topology XML (version 1) for server `host` of a topology: cpu, pci (bridges, GPUs,
/// NICs with link_speed/link_width), gpu with nvlink targets, nic/net with speed in Mb/s.
/// Bus ids are synthetic but stable. Throws ConfigError when `host` is out of range.
std::string export_nccl_xml(const Router& router, int host);

// ---------------------------------------------------------------------------------------------
// topo lint
// ---------------------------------------------------------------------------------------------

/// One finding. `rule` is a stable id (docs/verify-and-lint.md lists them): "gdr-lost",
/// "pcie-oversubscribed", "nvlink-lanes", "p2p-level", "p2p-disabled", "nic-rail",
/// "ring-crosses-socket", "nvlink-asymmetric".
struct LintWarning {
  std::string rule;
  std::vector<std::string> devices;  ///< display names of the devices concerned
  std::string message;               ///< one line: the devices, the fact, the consequence
};

/// Checks server `host` (default 0; all servers are identical) for what NCCL would make of
/// it. Deterministic order: by rule, then by device.
std::vector<LintWarning> lint_topology(const Router& router, int host = 0);

}  // namespace linksim
