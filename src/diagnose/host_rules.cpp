// SPDX-License-Identifier: Apache-2.0
// host-platform: the CPU NCCL's topology dump names against the topology's
// (docs/diagnose.md#findings).
#include <fmt/core.h>

#include "diagnose/rules.hpp"

namespace linksim::diagnose_detail {
namespace {

// NCCL's codes (src/graph/topo.h NCCL_TOPO_CPU_ARCH_*, NCCL_TOPO_CPU_VENDOR_*) as the catalog's
// enums; nullopt for a code the catalog has no value for.
std::optional<CpuArch> arch_of(int code) {
  switch (code) {
    case 1:
      return CpuArch::kX86;
    case 2:
      return CpuArch::kPower;
    case 3:
      return CpuArch::kArm;
    default:
      return std::nullopt;
  }
}

std::optional<CpuVendor> vendor_of(int code) {
  switch (code) {
    case 1:
      return CpuVendor::kIntel;
    case 2:
      return CpuVendor::kAmd;
    case 3:
      return CpuVendor::kZhaoxin;
    default:
      return std::nullopt;
  }
}

// NCCL's Skylake code: Skylake to Ice Lake from 2.26, Skylake and every later Intel CPU before.
constexpr int kIntelSkylakeCode = 2;

// Whether the log's CPU codes fit `platform`: its architecture, its vendor (x86) and, for
// Intel, NCCL's class, which sets NCCL's figure for the socket link (topo.h *_QPI_BW, the
// catalog's nccl_smp_bw): the platform the codes name must have the same figure; a Skylake
// code from a release before 2.26 fits any Intel platform from Skylake on.
bool fits(const NcclLogCpu& cpu, std::optional<NcclVersion> release, const HostPlatform& platform,
          const Catalog& catalog) {
  const std::optional<CpuArch> arch = arch_of(cpu.arch);
  if (arch && *arch != platform.arch) return false;
  if (arch != CpuArch::kX86) return true;
  const std::optional<CpuVendor> vendor = vendor_of(cpu.vendor);
  if (vendor && *vendor != platform.vendor) return false;
  if (vendor != CpuVendor::kIntel) return true;
  const std::string named = nccl_cpu_platform(cpu, release);
  if (const HostPlatform* p = named.empty() ? nullptr : catalog.find_platform(named)) {
    return p->nccl_smp_bw_Bps == platform.nccl_smp_bw_Bps;
  }
  if (cpu.model == kIntelSkylakeCode) {
    return platform.nccl_smp_bw_Bps >= catalog.find_platform("intel-skylake")->nccl_smp_bw_Bps;
  }
  return true;
}

}  // namespace

std::vector<RuledFinding> host_findings(const RuleContext& ctx) {
  if (!ctx.log.cpu || ctx.machine == nullptr || ctx.machine->gpus.empty()) return {};
  const Topology& t = ctx.machine->topology;
  const std::vector<DeviceId> cpus =
      t.devices_of(t.device(ctx.machine->gpus.front()).host.value_or(0), DeviceKind::kCpu);
  if (cpus.empty()) return {};
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
    return {out};
  }
  if (fits(cpu, release, platform, t.catalog())) return {};
  f.severity = FindingSeverity::kFault;
  f.message = fmt::format(
      "NCCL's topology dump shows {} where the topology '{}' describes {} ({}): NCCL's P2P level, "
      "its figure for the socket link and the host-staged rates follow the CPU{}; the engine "
      "costs no other CPU, so no cost",
      shown, t.name(), platform.name, platform.key,
      named.empty() ? std::string() : fmt::format(" (platform: {})", named));
  return {out};
}

}  // namespace linksim::diagnose_detail
