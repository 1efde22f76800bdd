// SPDX-License-Identifier: Apache-2.0
// `topo export nccl-xml`: one server of a topology as NCCL topology XML (version 1), the shape
// NCCL_TOPO_DUMP_FILE writes (reference/nccl-model.md section 1.2).
#include <fmt/core.h>

#include <array>
#include <cmath>
#include <deque>
#include <map>
#include <optional>

#include "linksim/sysimport.hpp"
#include "sysimport/nccl_xml.hpp"

namespace linksim {

namespace {

// PCI class codes NCCL reads (PCI Code and ID Assignment specification).
constexpr std::string_view kBridgeClass = "0x060400";
constexpr std::string_view kGpuClass = "0x030200";
constexpr std::string_view kNicClass = "0x020700";

class XmlExporter {
 public:
  XmlExporter(const Topology& t, int host) : t_(t), host_(host) {
    parent_link_.assign(t.devices().size(), std::nullopt);
    build_tree();
  }

  std::string run() {
    out_ = "<system version=\"1\">\n";
    for (DeviceId cpu : t_.devices_of(host_, DeviceKind::kCpu)) write_cpu(cpu);
    out_ += "</system>\n";
    return out_;
  }

 private:
  // Bus ids are synthetic: one bus per device, numbered by its local id in the server.
  std::string busid(DeviceId id) const {
    const uint32_t local = id.value - t_.host_device_offset(host_) + 0x10;
    return fmt::format("{:04x}:{:02x}:00.0", local / 256, local % 256);
  }

  void build_tree() {
    std::deque<DeviceId> queue;
    visited_.assign(t_.devices().size(), false);
    for (DeviceId cpu : t_.devices_of(host_, DeviceKind::kCpu)) {
      visited_[cpu.value] = true;
      queue.push_back(cpu);
    }
    while (!queue.empty()) {
      const DeviceId at = queue.front();
      queue.pop_front();
      for (LinkId id : t_.out_links(at)) {
        const Link& link = t_.link(id);
        if (link.family != LinkFamily::kPcie || visited_[link.to.value]) continue;
        visited_[link.to.value] = true;
        parent_link_[link.to.value] = id;
        children_[at.value].push_back(link.to);
        queue.push_back(link.to);
      }
    }
  }

  struct CpuId {
    std::string_view platform;
    int family;
    int model;  ///< 0 = not written (AMD: NCCL reads the family)
  };
  // One CPUID per catalog generation: Broadwell-EP 0x4F, Skylake-SP 0x55, Sapphire Rapids
  // 0x8F, Emerald Rapids 0xCF (family 6); AMD families 0x17, 0x19, 0x1A.
  static constexpr std::array<CpuId, 7> kCpuIds = {{{"intel-broadwell", 6, 0x4F},
                                                    {"intel-skylake", 6, 0x55},
                                                    {"intel-sapphire-rapids", 6, 0x8F},
                                                    {"intel-emerald-rapids", 6, 0xCF},
                                                    {"amd-zen2", 0x17, 0},
                                                    {"amd-zen3", 0x19, 0},
                                                    {"amd-zen5", 0x1A, 0}}};

  // NCCL's CPU type attributes (topo.cc, ncclTopoAddCpu: kvDictCpuArch, kvDictCpuVendor); an
  // unknown x86 vendor is written as Intel, as linksim wrote every CPU before platforms.
  static std::string cpu_type_attrs(const HostPlatform& platform) {
    switch (platform.arch) {
      case CpuArch::kArm: return "arch=\"arm64\"";
      case CpuArch::kPower: return "arch=\"ppc64\"";
      case CpuArch::kX86: break;
    }
    const char* vendor = platform.vendor == CpuVendor::kAmd       ? "AuthenticAMD"
                         : platform.vendor == CpuVendor::kZhaoxin ? "CentaurHauls"
                                                                  : "GenuineIntel";
    std::string attrs = fmt::format("arch=\"x86_64\" vendor=\"{}\"", vendor);
    // The CPUID family and model that make NCCL (and the importer) recognise the generation.
    for (const auto& [key, family, model] : kCpuIds) {
      if (key != platform.key) continue;
      attrs += fmt::format(" familyid=\"{}\"", family);
      if (model > 0) attrs += fmt::format(" modelid=\"{}\"", model);
    }
    return attrs;
  }

  void write_cpu(DeviceId cpu) {
    const Device& d = t_.device(cpu);
    std::string attrs = fmt::format("numaid=\"{}\"", d.numa >= 0 ? d.numa : d.index);
    if (auto mask = sysimport::affinity_mask_from_cores(d.cpu_affinity)) {
      attrs += fmt::format(" affinity=\"{}\"", *mask);
    }
    out_ += fmt::format("  <cpu {} {}>\n", attrs, cpu_type_attrs(t_.host_platform(cpu)));
    for (DeviceId child : children_[cpu.value]) write_pci(child, 2);
    out_ += "  </cpu>\n";
  }

  std::string pci_open(DeviceId id, std::string_view cls, int depth) const {
    const Link& up = t_.link(*parent_link_[id.value]);
    const int gen = t_.catalog().find_link_type(up.type)
                        ? t_.catalog().find_link_type(up.type)->pcie_gen
                        : 0;
    return fmt::format("{}<pci busid=\"{}\" class=\"{}\" link_speed=\"{}\" link_width=\"{}\">\n",
                       std::string(size_t(depth) * 2, ' '), busid(id), cls,
                       sysimport::link_speed_for_pcie_gen(gen), up.lanes);
  }

  void write_pci(DeviceId id, int depth) {
    const Device& d = t_.device(id);
    const std::string indent(size_t(depth) * 2, ' ');
    switch (d.kind) {
      case DeviceKind::kPcieSwitch:
        out_ += pci_open(id, kBridgeClass, depth);
        for (DeviceId child : children_[id.value]) write_pci(child, depth + 1);
        break;
      case DeviceKind::kGpu:
        out_ += pci_open(id, kGpuClass, depth);
        write_gpu(id, depth + 1);
        break;
      case DeviceKind::kNic:
        out_ += pci_open(id, kNicClass, depth);
        write_nic(id, depth + 1);
        break;
      default:
        return;  // nothing else sits in a PCIe tree NCCL reads
    }
    out_ += indent + "</pci>\n";
  }

  void write_gpu(DeviceId id, int depth) {
    const Device& d = t_.device(id);
    const std::string indent(size_t(depth) * 2, ' ');
    out_ += fmt::format("{}<gpu dev=\"{}\" sm=\"{}\" rank=\"{}\" gdr=\"1\">\n", indent, d.index,
                        t_.gpu_model(id).sm, d.index);
    for (LinkId lid : t_.out_links(id)) {
      const Link& link = t_.link(lid);
      if (link.family != LinkFamily::kNvlink) continue;
      const bool to_switch = t_.device(link.to).kind == DeviceKind::kNvswitch;
      out_ += fmt::format("{}  <nvlink target=\"{}\" count=\"{}\" tclass=\"{}\"/>\n", indent,
                          busid(link.to), link.lanes, to_switch ? sysimport::kNvswitchClass : kGpuClass);
    }
    out_ += indent + "</gpu>\n";
  }

  void write_nic(DeviceId id, int depth) {
    const Device& d = t_.device(id);
    const std::string indent(size_t(depth) * 2, ' ');
    const LinkType* type = t_.catalog().find_link_type(d.model);
    // NCCL's net speed is in Mb/s (reference/nccl-model.md 1.1: bw = speed / 8000 GB/s).
    const long speed_mbps = type ? std::lround(type->lane_bw_Bps * 8 / 1e6) : 0;
    const std::string name = d.port_name.empty() ? fmt::format("mlx5_{}", d.index) : d.port_name;
    out_ += fmt::format("{}<nic>\n{}  <net name=\"{}\" dev=\"{}\" speed=\"{}\" port=\"1\" "
                        "gdr=\"1\"/>\n{}</nic>\n",
                        indent, indent, name, d.index, speed_mbps, indent);
  }

  const Topology& t_;
  int host_;
  std::vector<std::optional<LinkId>> parent_link_;
  std::vector<bool> visited_;
  std::map<uint32_t, std::vector<DeviceId>> children_;
  std::string out_;
};

}  // namespace

std::string export_nccl_xml(const Router& router, int host) {
  const Topology& t = router.topology();
  if (host < 0 || host >= t.host_count()) {
    throw ConfigError(fmt::format("expected a host between 0 and {}, got {}", t.host_count() - 1,
                                  host));
  }
  return XmlExporter(t, host).run();
}

}  // namespace linksim
