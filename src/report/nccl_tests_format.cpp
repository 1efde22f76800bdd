// SPDX-License-Identifier: Apache-2.0
// A CollectiveReport in nccl-tests' own output format, for tools that parse nccl-tests logs.
// Layout after nccl-tests src/common.cu (github.com/NVIDIA/nccl-tests): the "# nThread" line,
// "#  Rank N ..." device lines, the out-of-place / in-place column groups, "#wrong" printed
// as N/A (nccl-tests' -c 0: no validation), "# Out of bounds values" and "# Avg bus bandwidth".
#include <fmt/core.h>

#include <string>

#include "linksim/nccl_version.hpp"
#include "linksim/report.hpp"
#include "linksim/units.hpp"
#include "report/text_lines.hpp"

namespace linksim {
namespace {

// The name of nccl-tests' binary for a canonical collective name: "all_reduce_perf".
std::string binary_name(const std::string& collective) {
  const std::optional<CollectiveOp> op = parse_collective(collective);
  if (!op) return collective + "_perf";
  for (const CollectiveName& c : collective_names()) {
    if (c.op == *op) return std::string(c.nccl_tests_name) + "_perf";
  }
  return collective + "_perf";
}

void append_preamble(std::string& out, const CollectiveReport& report,
                     const NcclTestsPreamble& preamble) {
  using report_text::append_line;
  append_line(out, fmt::format("# linksim prediction of {} ranks on {}, mode {}; nccl-tests format",
                               report.ranks, report.topology, report.mode));
  // nccl-tests' own version line carries the NCCL_VERSION_CODE (2.29 = 22900), which
  // `coll compare` reads back.
  if (const std::optional<NcclVersion> v = parse_nccl_version(report.nccl_version)) {
    const int code = v->major * 10000 + v->minor * 100;
    append_line(out, fmt::format("# NCCL {} modelled: nccl-headers={} nccl-library={}",
                                 report.nccl_version, code, code));
  }
  append_line(out, "# Collective test starting: " + binary_name(report.collective));
  const std::string step = preamble.step_factor > 1
                               ? fmt::format("{:g}(factor)", preamble.step_factor)
                               : fmt::format("{:.0f}(bytes)", preamble.step_bytes);
  append_line(out, fmt::format("# nThread 1 nGpus {} minBytes {:.0f} maxBytes {:.0f} step: {} "
                               "warmup iters: 0 iters: 1 agg iters: 1 validation: 0 graph: 0",
                               preamble.gpus_per_thread, preamble.min_bytes, preamble.max_bytes,
                               step));
  append_line(out, "#");
  append_line(out, "# Using devices");
  for (const NcclTestsDeviceLine& d : preamble.devices) {
    append_line(out, fmt::format("#  Rank {:>2} Group {:>2} Pid {:>6} on {:>10} device {:>2} "
                                 "[0000:00:00] {}",
                                 d.rank, 0, 0, d.host, d.device, d.gpu_name));
  }
  append_line(out, "#");
}

// nccl-tests' header: "# %10s  %12s  %8s  %6s  %6s" then per group "  %7s  %6s  %6s  %6s".
void append_column_headers(std::string& out) {
  using report_text::append_line;
  const std::string prefix = fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}", "", "", "", "", "");
  append_line(out, prefix + "           out-of-place                       in-place");
  const auto group = [](const char* time, const char* bw, const char* wrong) {
    return fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", time, bw, bw, wrong);
  };
  append_line(out, fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}", "size", "count", "type",
                               "redop", "root") +
                       fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", "time", "algbw", "busbw",
                                   "#wrong") +
                       fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", "time", "algbw", "busbw",
                                   "#wrong"));
  append_line(out, fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}", "(B)", "(elements)", "",
                               "", "") +
                       group("(us)", "(GB/s)", "") + group("(us)", "(GB/s)", ""));
}

void append_row(std::string& out, const CollectiveRow& row) {
  // The model has no in-place term: the in-place group repeats the out-of-place prediction.
  const std::string timing = fmt::format("  {}  {:>6.2f}  {:>6.2f}  {:>6}",
                                         format_nccl_time_us(row.time_s / kMicrosecond),
                                         row.algbw_Bps / kGB, row.busbw_Bps / kGB, "N/A");
  report_text::append_line(out, fmt::format("{:>12.0f}  {:>12.0f}  {:>8}  {:>6}  {:>6}",
                                            row.size_bytes, row.count, row.type, row.redop,
                                            row.root) +
                                    timing + timing);
}

}  // namespace

std::vector<NcclTestsDeviceLine> nccl_tests_devices(const Topology& topology,
                                                    const std::vector<DeviceId>& ranks) {
  std::vector<NcclTestsDeviceLine> lines;
  lines.reserve(ranks.size());
  // A cluster's GPUs share a model or a few: look the catalog up (which ignores case, slowly)
  // once per run of equal model names.
  const std::string* last_model = nullptr;
  const std::string* last_name = nullptr;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const Device& gpu = topology.device(ranks[r]);
    if (last_model == nullptr || *last_model != gpu.model || gpu.kind != DeviceKind::kGpu) {
      last_name = &topology.gpu_model(ranks[r]).name;
      last_model = &gpu.model.str();
    }
    lines.push_back({static_cast<int>(r), fmt::format("host{}", gpu.host.value_or(0)), gpu.index,
                     *last_name});
  }
  return lines;
}

std::string render_nccl_tests(const CollectiveReport& report, const NcclTestsPreamble& preamble) {
  std::string out;
  append_preamble(out, report, preamble);
  append_column_headers(out);
  double busbw_sum_GBps = 0;
  for (const CollectiveRow& row : report.rows) {
    append_row(out, row);
    busbw_sum_GBps += row.busbw_Bps / kGB;
  }
  report_text::append_line(out, "# Out of bounds values : 0 OK");
  const double mean_GBps =
      report.rows.empty() ? 0.0 : busbw_sum_GBps / static_cast<double>(report.rows.size());
  report_text::append_line(out, fmt::format("# Avg bus bandwidth    : {:g}", mean_GBps));
  report_text::append_line(out, "#");
  report_text::append_line(out, "# Collective test concluded: " + binary_name(report.collective));
  return out;
}

}  // namespace linksim
