// SPDX-License-Identifier: Apache-2.0
// host-platform and pcie-link: the CPU and the GPUs' PCIe links of NCCL's topology dump against
// the topology's (docs/diagnose.md#findings).
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "collectives/model_params.hpp"
#include "diagnose/rules.hpp"
#include "linksim/error.hpp"
#include "linksim/faults.hpp"

namespace linksim::diagnose_detail {
namespace {

// NCCL's Skylake code: Skylake to Ice Lake from 2.26, Skylake and every later Intel CPU before.
constexpr int kIntelSkylakeCode = 2;

// Whether the log's CPU codes fit `platform`: its architecture, its vendor (x86) and, for
// Intel, NCCL's class, which sets NCCL's figure for the socket link (topo.h *_QPI_BW, the
// catalog's nccl_smp_bw): the platform the codes name must have the same figure; a Skylake
// code from a release before 2.26 fits any Intel platform from Skylake on.
bool fits(const NcclLogCpu& cpu, std::optional<NcclVersion> release, const HostPlatform& platform,
          const Catalog& catalog) {
  const std::optional<CpuArch> arch = nccl_cpu_arch(cpu);
  if (arch && *arch != platform.arch) return false;
  if (arch != CpuArch::kX86) return true;
  const std::optional<CpuVendor> vendor = nccl_cpu_vendor(cpu);
  if (vendor && *vendor != platform.vendor) return false;
  if (vendor != CpuVendor::kIntel) return true;
  const std::string named = nccl_cpu_platform(cpu, release);
  if (const HostPlatform* p = named.empty() ? nullptr : catalog.find_platform(named)) {
    return p->nccl_smp_bw_Bps == platform.nccl_smp_bw_Bps;
  }
  const HostPlatform* skylake = catalog.find_platform("intel-skylake");
  if (cpu.model == kIntelSkylakeCode && skylake != nullptr) {
    return platform.nccl_smp_bw_Bps >= skylake->nccl_smp_bw_Bps;
  }
  return true;
}

// The topology's PCIe link out of `gpu` (to its switch or CPU), or nullopt.
std::optional<Link> gpu_pcie_link(const Topology& t, DeviceId gpu) {
  for (const LinkId id : t.out_links(gpu)) {
    const Link link = t.link(id);
    if (link.family == LinkFamily::kPcie) return link;
  }
  return std::nullopt;
}

// A logged link counts as the described one within 5 %: the dump prints one decimal.
constexpr double kPcieLinkTolerance = 0.05;

std::optional<RuledFinding> pcie_link(const RuleContext& ctx) {
  const Topology& t = ctx.machine->topology;
  std::vector<std::string> slower, faster;
  std::vector<NcclLogLine> slow_lines, fast_lines;
  // Each slower link at the raw rate of NCCL's logged figure, as --degrade spells it (one per
  // server-block link: the servers' copies of a link are one fault).
  std::vector<std::string> specs;
  for (const NcclLogGpuLink& logged : ctx.log.gpu_links) {
    const std::optional<DeviceId> gpu = ctx.gpu(logged.rank);
    if (!gpu) continue;
    const std::optional<Link> link = gpu_pcie_link(t, *gpu);
    if (!link) continue;
    // NCCL's figure for the described link: its raw rate x 12 / 15.75 (topo.h PCI_BW).
    const double described_GBps = link->bw_Bps * detail::kNcclPcieBwFraction / 1e9;
    const std::string words =
        fmt::format("GPU{} (rank {}, bus {}) {:.1f} GB/s against {:.1f} ({} x{})",
                    t.device(*gpu).index, logged.rank, logged.bus_id, logged.nccl_bw_GBps,
                    described_GBps, t.link_type(*link), link->lanes);
    if (logged.nccl_bw_GBps < described_GBps * (1 - kPcieLinkTolerance)) {
      slower.push_back(words);
      slow_lines.push_back(logged.source);
      const std::string spec =
          fmt::format("{}~{}:speed={:.4g}GB/s", std::string_view(t.device(link->from).name),
                      std::string_view(t.device(link->to).name),
                      logged.nccl_bw_GBps / detail::kNcclPcieBwFraction);
      if (std::find(specs.begin(), specs.end(), spec) == specs.end()) specs.push_back(spec);
    } else if (logged.nccl_bw_GBps > described_GBps * (1 + kPcieLinkTolerance)) {
      faster.push_back(words);
      fast_lines.push_back(logged.source);
    }
  }
  if (slower.empty() && faster.empty()) return std::nullopt;
  RuledFinding out;
  Finding& f = out.finding;
  f.key = std::string(kFindingPcieLink);
  if (!slower.empty()) {
    add_evidence(f.evidence, slow_lines);
    f.severity = FindingSeverity::kFault;
    f.message = fmt::format(
        "NCCL counts {} GPU PCIe link{} slower than the topology describes: {} (a slot or riser "
        "of fewer lanes or an older generation; host-staged copies and GPUDirect RDMA through "
        "it are bounded by it)",
        slower.size(), slower.size() == 1 ? "" : "s", fmt::join(slower, "; "));
    const std::string spec = fmt::format("{}", fmt::join(specs, ","));
    CostSetting s{.words = "--degrade " + spec,
                  .logged = ctx.machine->options,
                  .best = ctx.machine->options,
                  .bound_note =
                      "every server's copy of the link runs at the logged rate "
                      "(servers are identical blocks)",
                  .logged_topology = nullptr};
    try {
      s.logged_topology = std::make_shared<const Topology>(with_degraded(t, spec));
      out.cost = std::move(s);
    } catch (const ConfigError&) {
      // A rate no link can take: the finding stands without a cost.
    }
    return out;
  }
  add_evidence(f.evidence, fast_lines);
  f.severity = FindingSeverity::kInfo;
  f.message = fmt::format("NCCL counts {} GPU PCIe link{} faster than the topology describes: {}",
                          faster.size(), faster.size() == 1 ? "" : "s", fmt::join(faster, "; "));
  return out;
}

}  // namespace

std::vector<RuledFinding> host_findings(const RuleContext& ctx) {
  if (ctx.machine == nullptr || ctx.machine->gpus.empty()) return {};
  std::vector<RuledFinding> found;
  if (auto f = pcie_link(ctx)) found.push_back(std::move(*f));
  if (!ctx.log.cpu) return found;
  const Topology& t = ctx.machine->topology;
  const std::vector<DeviceId> cpus =
      t.devices_of(t.device(ctx.machine->gpus.front()).host.value_or(0), DeviceKind::kCpu);
  if (cpus.empty()) return found;
  const HostPlatform& platform = t.host_platform(cpus.front());
  const NcclLogCpu& cpu = *ctx.log.cpu;
  const std::optional<NcclVersion> release = ctx.log.release();
  const std::string named = nccl_cpu_platform(cpu, release);
  const std::string shown = describe_nccl_cpu(cpu, release);
  RuledFinding out;
  Finding& f = out.finding;
  f.key = std::string(kFindingHostPlatform);
  f.evidence.push_back(cpu.source);
  if (&platform == &t.catalog().default_platform()) {
    f.severity = FindingSeverity::kInfo;
    f.message = fmt::format(
        "NCCL's topology dump shows {}; the topology '{}' does not name its CPU ({}){}", shown,
        t.name(), platform.key,
        named.empty()
            ? std::string()
            : fmt::format(": platform: {} describes it (docs/catalog.md#platforms)", named));
    found.push_back(std::move(out));
    return found;
  }
  if (fits(cpu, release, platform, t.catalog())) return found;
  f.severity = FindingSeverity::kFault;
  f.message = fmt::format(
      "NCCL's topology dump shows {} where the topology '{}' describes {} ({}): NCCL's P2P level, "
      "its figure for the socket link and the host-staged rates follow the CPU{}; the engine "
      "costs no other CPU, so no cost",
      shown, t.name(), platform.name, platform.key,
      named.empty() ? std::string() : fmt::format(" (platform: {})", named));
  found.push_back(std::move(out));
  return found;
}

}  // namespace linksim::diagnose_detail
