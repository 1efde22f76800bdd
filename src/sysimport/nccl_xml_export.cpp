// SPDX-License-Identifier: Apache-2.0
// `topo export nccl-xml`: one server of a topology as NCCL topology XML (version 1), the shape
// NCCL_TOPO_DUMP_FILE writes (reference/nccl-model.md section 1.2), written with pugixml (which
// escapes every attribute value).
#include <fmt/core.h>

#include <array>
#include <cmath>
#include <optional>
#include <sstream>

#include <pugixml.hpp>

#include "linksim/sysimport.hpp"
#include "sysimport/nccl_xml.hpp"
#include "topology/server_tree.hpp"

namespace linksim {

namespace {

// PCI class codes NCCL reads (PCI Code and ID Assignment specification).
constexpr std::string_view kBridgeClass = "0x060400";
constexpr std::string_view kGpuClass = "0x030200";
constexpr std::string_view kNicClass = "0x020700";

class XmlExporter {
 public:
  XmlExporter(const Topology& t, int host)
      : t_(t), host_(host), tree_(detail::build_server_tree(t, host)) {}

  std::string run() {
    pugi::xml_node system = document_.append_child("system");
    system.append_attribute("version") = 1;
    for (DeviceId cpu : t_.devices_of(host_, DeviceKind::kCpu)) write_cpu(system, cpu);
    std::ostringstream out;
    document_.save(out, "  ", pugi::format_indent | pugi::format_no_declaration,
                   pugi::encoding_utf8);
    return out.str();
  }

 private:
  // Bus ids are synthetic: one bus per device, numbered by its local id in the server.
  std::string busid(DeviceId id) const {
    const uint32_t local = id.value - t_.host_device_offset(host_) + 0x10;
    return fmt::format("{:04x}:{:02x}:00.0", local / 256, local % 256);
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

  static void set(pugi::xml_node node, const char* key, std::string_view value) {
    node.append_attribute(key).set_value(std::string(value).c_str());
  }

  // NCCL's CPU type attributes (topo.cc, ncclTopoAddCpu: kvDictCpuArch, kvDictCpuVendor); an
  // unknown x86 vendor is written as Intel, as linksim wrote every CPU before platforms.
  static void set_cpu_type(pugi::xml_node cpu, const HostPlatform& platform) {
    switch (platform.arch) {
      case CpuArch::kArm: return set(cpu, "arch", "arm64");
      case CpuArch::kPower: return set(cpu, "arch", "ppc64");
      case CpuArch::kX86: break;
    }
    set(cpu, "arch", "x86_64");
    set(cpu, "vendor", platform.vendor == CpuVendor::kAmd       ? "AuthenticAMD"
                       : platform.vendor == CpuVendor::kZhaoxin ? "CentaurHauls"
                                                                : "GenuineIntel");
    // The CPUID family and model that make NCCL (and the importer) recognise the generation.
    for (const auto& [key, family, model] : kCpuIds) {
      if (key != platform.key) continue;
      cpu.append_attribute("familyid") = family;
      if (model > 0) cpu.append_attribute("modelid") = model;
    }
  }

  void write_cpu(pugi::xml_node system, DeviceId id) {
    const Device& d = t_.device(id);
    const DeviceDetails& details = t_.details(id);
    pugi::xml_node cpu = system.append_child("cpu");
    cpu.append_attribute("numaid") = details.numa >= 0 ? details.numa : d.index;
    if (auto mask = sysimport::affinity_mask_from_cores(details.cpu_affinity)) {
      set(cpu, "affinity", *mask);
    }
    set_cpu_type(cpu, t_.host_platform(id));
    write_pci_tree(cpu, id);
  }

  pugi::xml_node append_pci(pugi::xml_node parent, DeviceId id, std::string_view cls) const {
    const Link& up = t_.link(*tree_.down_link[id.value]);
    const int gen = t_.catalog().find_link_type(t_.link_type(up))
                        ? t_.catalog().find_link_type(t_.link_type(up))->pcie_gen
                        : 0;
    pugi::xml_node pci = parent.append_child("pci");
    set(pci, "busid", busid(id));
    set(pci, "class", cls);
    set(pci, "link_speed", sysimport::link_speed_for_pcie_gen(gen));
    pci.append_attribute("link_width") = up.lanes;
    return pci;
  }

  // The PCIe tree below a CPU, depth first in the server tree's child order, without recursion.
  void write_pci_tree(pugi::xml_node cpu, DeviceId root) {
    std::vector<std::pair<DeviceId, pugi::xml_node>> stack;
    const auto push_children = [&](DeviceId parent, pugi::xml_node node) {
      const std::vector<DeviceId>& children = tree_.children[parent.value];
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.emplace_back(*it, node);
    };
    push_children(root, cpu);
    while (!stack.empty()) {
      const auto [id, parent] = stack.back();
      stack.pop_back();
      switch (t_.device(id).kind) {
        case DeviceKind::kPcieSwitch:
          push_children(id, append_pci(parent, id, kBridgeClass));
          break;
        case DeviceKind::kGpu: write_gpu(append_pci(parent, id, kGpuClass), id); break;
        case DeviceKind::kNic: write_nic(append_pci(parent, id, kNicClass), id); break;
        default: break;  // nothing else sits in a PCIe tree NCCL reads
      }
    }
  }

  void write_gpu(pugi::xml_node pci, DeviceId id) {
    const Device& d = t_.device(id);
    pugi::xml_node gpu = pci.append_child("gpu");
    gpu.append_attribute("dev") = d.index;
    gpu.append_attribute("sm") = t_.gpu_model(id).sm;
    gpu.append_attribute("rank") = d.index;
    gpu.append_attribute("gdr") = 1;
    for (LinkId lid : t_.out_links(id)) {
      const Link& link = t_.link(lid);
      if (link.family != LinkFamily::kNvlink) continue;
      const bool to_switch = t_.device(link.to).kind == DeviceKind::kNvswitch;
      pugi::xml_node nvlink = gpu.append_child("nvlink");
      set(nvlink, "target", busid(link.to));
      nvlink.append_attribute("count") = link.lanes;
      set(nvlink, "tclass", to_switch ? sysimport::kNvswitchClass : kGpuClass);
    }
  }

  void write_nic(pugi::xml_node pci, DeviceId id) {
    const Device& d = t_.device(id);
    const LinkType* type = t_.catalog().find_link_type(d.model);
    // NCCL's net speed is in Mb/s (reference/nccl-model.md 1.1: bw = speed / 8000 GB/s).
    const long long speed_mbps = type ? std::llround(type->lane_bw_Bps * 8 / 1e6) : 0;
    pugi::xml_node net = pci.append_child("nic").append_child("net");
    const std::string& port = t_.details(id).port_name;
    set(net, "name", port.empty() ? fmt::format("mlx5_{}", d.index) : port);
    net.append_attribute("dev") = d.index;
    net.append_attribute("speed") = speed_mbps;
    net.append_attribute("port") = 1;
    net.append_attribute("gdr") = 1;
  }

  const Topology& t_;
  int host_;
  detail::ServerTree tree_;
  pugi::xml_document document_;
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
