// SPDX-License-Identifier: Apache-2.0
// `topo import nccl-xml`: NCCL's topology XML (docs/verify-and-lint.md#nccl-xml) as a topology.
//
// Mapping: <cpu> -> cpu (numaid, affinity mask -> cores); <pci> by class code: 0x0604 bridge
// -> pcie_switch, 0x0300/0x0302 -> the <gpu> inside, 0x0200/0x0207 -> one nic per <net>;
// other classes (storage, ...) are skipped. A bridge below a bridge with the same vendor and
// device ids is another port of the same switch chip (sysfs shows a switch as an upstream-port
// bridge with downstream-port bridges below it) and is merged into it. <nvlink> targets of
// class 0x068000 are NVSwitches (one per target bus id), GPU targets are direct links.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "sysimport/import_defaults.hpp"
#include "sysimport/nccl_xml.hpp"
#include "sysimport/topology_writer.hpp"

namespace linksim {

namespace {

using sysimport::SketchDevice;
using sysimport::SketchLink;
using sysimport::XmlElement;

// PCI class codes (PCI Code and ID Assignment specification; NCCL src/graph/xml.cc).
bool has_class(const std::string& cls, std::string_view prefix) {
  return cls.rfind(prefix, 0) == 0;
}
bool is_bridge(const std::string& cls) { return has_class(cls, "0x0604"); }
bool is_gpu(const std::string& cls) {
  return has_class(cls, "0x0302") || has_class(cls, "0x0300");
}
bool is_nic(const std::string& cls) {
  return has_class(cls, "0x0200") || has_class(cls, "0x0207");
}

// The catalog host platform NCCL's CPU attributes name (ncclTopoAddCpu, src/graph/topo.cc,
// reads arch, vendor, familyid, modelid; topo.h's inter-CPU bandwidths follow them): Intel
// family 6 by model (below 0x55 Broadwell, from 0x55 Skylake, 0x8F Sapphire Rapids, 0xCF
// Emerald Rapids), AMD by family (0x17 Zen 1/2, 0x19 Zen 3/4, 0x1A Zen 5), Zhaoxin; "" when
// the attributes say nothing more (the generic platform).
std::string platform_of(const XmlElement& cpu) {
  const std::string* arch = cpu.find("arch");
  const std::string* vendor = cpu.find("vendor");
  if (arch == nullptr || *arch != "x86_64" || vendor == nullptr) return "";
  const auto number = [&](std::string_view key) -> std::optional<int> {
    const std::string* text = cpu.find(key);
    return text ? sysimport::parse_xml_int(*text) : std::nullopt;
  };
  if (*vendor == "GenuineIntel") {
    const std::optional<int> family = number("familyid");
    const std::optional<int> model = number("modelid");
    if (family != 6 || !model) return "";
    if (*model >= 0xCF) return "intel-emerald-rapids";
    if (*model >= 0x8F) return "intel-sapphire-rapids";
    return *model >= 0x55 ? "intel-skylake" : "intel-broadwell";
  }
  if (*vendor == "AuthenticAMD") {
    const std::optional<int> family = number("familyid");
    if (family == 0x17) return "amd-zen2";
    if (family == 0x19) return "amd-zen3";
    if (family == 0x1A) return "amd-zen5";
    return "";
  }
  if (*vendor == "CentaurHauls" || *vendor == "  Shanghai  ") return "zhaoxin";
  return "";
}

// NIC port rate (Mb/s, NCCL's net speed) -> the standard InfiniBand type nearest on a log
// scale. Rates: EDR 100, HDR 200, NDR 400, XDR 800 Gb/s (hardware.md, links.yaml).
std::string nic_type_for_speed(double mbps) {
  static const std::pair<double, const char*> kTypes[] = {
      {100000, "ib_edr"}, {200000, "ib_hdr"}, {400000, "ib_ndr"}, {800000, "ib_xdr"}};
  const char* best = kTypes[0].second;
  double best_distance = 1e300;
  for (const auto& [rate, name] : kTypes) {
    const double distance = std::fabs(std::log(mbps / rate));
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  return best;
}

class XmlImporter {
 public:
  XmlImporter(const sysimport::ImportDefaults& defaults, const ImportOptions& options,
              const Catalog& catalog, std::string file)
      : defaults_(defaults), options_(options), catalog_(catalog), file_(std::move(file)) {}

  sysimport::TopologySketch run(const XmlElement& system) {
    for (const XmlElement& cpu : system.children) {
      if (cpu.name == "cpu") add_cpu(cpu);
    }
    // A topology needs a GPU to load; without one the YAML written would be refused instead.
    if (gpus_.empty()) {
      fail(system, "expected a <gpu> (inside a <cpu>'s <pci> tree) in <system>, got none");
    }
    add_smp_links();
    add_nvlinks();
    return finish();
  }

 private:
  struct Gpu {
    int dev = 0;
    std::string busid;
    int sm = 0;
    std::vector<const XmlElement*> nvlinks;
  };
  struct Nic {
    int dev = 0;
    std::string port;
    double speed_mbps = 0;
  };

  [[noreturn]] void fail(const XmlElement& e, const std::string& message) const {
    throw ConfigError(e.where, message);
  }

  const std::string& need(const XmlElement& e, std::string_view key) const {
    const std::string* value = e.find(key);
    if (!value) fail(e, fmt::format("expected attribute '{}' on <{}>", key, e.name));
    return *value;
  }

  int need_int(const XmlElement& e, std::string_view key) const {
    const std::string& text = need(e, key);
    if (std::optional<int> value = sysimport::parse_xml_int(text)) return *value;
    fail(e, fmt::format("expected an integer {}, got '{}'", key, text));
  }

  void add_cpu(const XmlElement& cpu) {
    SketchDevice device{fmt::format("cpu{}", cpus_.size()), "cpu", "", "", "", "",
                        std::nullopt, std::nullopt};
    if (cpu.find("numaid")) device.numa = need_int(cpu, "numaid");
    if (const std::string* mask = cpu.find("affinity")) {
      std::optional<std::string> cores = sysimport::cores_from_affinity_mask(*mask);
      if (!cores) {
        fail(cpu, fmt::format("expected a hexadecimal affinity mask such as "
                              "'00000000,ffffffff' (groups of 1 to 8 hex digits, at most 4096 "
                              "CPUs), got '{}'", *mask));
      }
      device.cores = *cores;
    }
    const std::string* vendor = cpu.find("vendor");
    if (vendor && *vendor == "AuthenticAMD") smp_type_ = "xgmi";
    device.platform = platform_of(cpu);
    cpus_.push_back(device);
    visit_pci_tree(cpu, device.name);
  }

  SketchLink pcie_link(const XmlElement& pci, const std::string& from, const std::string& to) {
    int gen = 3;
    if (const std::string* speed = pci.find("link_speed")) {
      auto parsed = sysimport::pcie_gen_from_link_speed(*speed);
      if (!parsed) fail(pci, fmt::format("expected a PCIe link_speed such as \"16.0 GT/s "
                                         "PCIe\", got '{}'", *speed));
      gen = std::max(*parsed, 3);  // the catalog starts at pcie3; older links read as Gen3
    }
    const int width = pci.find("link_width") ? need_int(pci, "link_width") : 16;
    if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16) {
      fail(pci, fmt::format("expected link_width 1, 2, 4, 8 or 16 (a PCIe link width), got {}",
                            width));
    }
    return {from, to, fmt::format("pcie{}", gen), 0, width, -1, "", ""};
  }

  // One <pci> of a tree: its parent device's name and the parent bridge's chip key.
  struct PciVisit {
    const XmlElement* pci;
    std::string parent;
    std::string chip;
  };

  // The <pci> elements below `cpu`, depth first in document order, without recursion.
  void visit_pci_tree(const XmlElement& cpu, const std::string& cpu_name) {
    std::vector<PciVisit> stack;
    const auto push_children = [&](const XmlElement& e, const std::string& parent,
                                    const std::string& chip) {
      for (auto it = e.children.rbegin(); it != e.children.rend(); ++it) {
        if (it->name == "pci") stack.push_back({&*it, parent, chip});
      }
    };
    push_children(cpu, cpu_name, "");
    while (!stack.empty()) {
      const PciVisit visit = std::move(stack.back());
      stack.pop_back();
      if (std::optional<PciVisit> bridge = visit_pci(*visit.pci, visit.parent, visit.chip)) {
        push_children(*visit.pci, bridge->parent, bridge->chip);
      }
    }
  }

  // Adds what one <pci> holds; for a bridge, returns the switch name and chip key its
  // children hang from.
  std::optional<PciVisit> visit_pci(const XmlElement& pci, const std::string& parent,
                                    const std::string& chip) {
    const std::string& cls = need(pci, "class");
    if (is_bridge(cls)) {
      // Without vendor and device ids (hand-written or exported files) nothing is merged.
      const std::string key = pci.find("vendor") && pci.find("device")
                                  ? *pci.find("vendor") + ":" + *pci.find("device")
                                  : "";
      std::string name = parent;
      if (key.empty() || chip != key) {
        name = fmt::format("sw{}", switches_.size());
        switches_.push_back({name, "pcie_switch", "", "", "", "", std::nullopt, std::nullopt});
        uplink_of_[name] = links_.size();
        links_.push_back(pcie_link(pci, name, parent));
      } else {
        // Another port of the same chip: the chip's uplink runs at its fastest port's rate.
        SketchLink& up = links_[uplink_of_[name]];
        const SketchLink port = pcie_link(pci, name, parent);
        if (port.type > up.type) up.type = port.type;
      }
      return PciVisit{&pci, name, key};
    }
    if (is_gpu(cls)) {
      add_gpu(pci, parent);
    } else if (is_nic(cls)) {
      add_nics(pci, parent);
    } else {
      ++skipped_pci_;
    }
    return std::nullopt;
  }

  void add_gpu(const XmlElement& pci, const std::string& parent) {
    for (const XmlElement& child : pci.children) {
      if (child.name != "gpu") continue;
      Gpu gpu{need_int(child, "dev"), need(pci, "busid"), 0, {}};
      for (const Gpu& other : gpus_) {
        if (other.dev == gpu.dev) {
          fail(child, fmt::format("expected a dev no other <gpu> has, got dev {} again", gpu.dev));
        }
      }
      if (child.find("sm")) gpu.sm = need_int(child, "sm");
      for (const XmlElement& link : child.children) {
        if (link.name == "nvlink") gpu.nvlinks.push_back(&link);
      }
      gpu_parent_.push_back(pcie_link(pci, "", parent));
      gpus_.push_back(gpu);
    }
  }

  void add_nics(const XmlElement& pci, const std::string& parent) {
    for (const XmlElement& nic : pci.children) {
      if (nic.name != "nic") continue;
      for (const XmlElement& net : nic.children) {
        if (net.name != "net") continue;
        Nic entry{need_int(net, "dev"), net.find("name") ? *net.find("name") : "", 0};
        // The name becomes the NIC's port, a device-name field of the topology format.
        if (!entry.port.empty() && !sysimport::is_plain_nic_name(entry.port)) {
          fail(net, fmt::format("expected a <net> name of letters, digits, '_', '.' and '-' "
                                "(such as mlx5_0), got \"{}\"", entry.port));
        }
        if (net.find("speed")) {
          entry.speed_mbps = need_int(net, "speed");
          // NCCL divides by it (bw = speed / 8000 GB/s); a port without speed carries nothing.
          if (entry.speed_mbps <= 0) {
            fail(net, fmt::format("expected a <net> speed > 0 (Mb/s), got {}", need(net, "speed")));
          }
        }
        nic_parent_.push_back(pcie_link(pci, "", parent));
        nics_.push_back(entry);
      }
    }
  }

  void add_smp_links() {
    for (size_t a = 0; a < cpus_.size(); ++a) {
      for (size_t b = a + 1; b < cpus_.size(); ++b) {
        links_.push_back({cpus_[a].name, cpus_[b].name, smp_type_, 0, 0, -1, "", ""});
      }
    }
  }

  std::string gpu_name_by_busid(const std::string& busid) const {
    for (const Gpu& g : gpus_) {
      if (g.busid == busid) return fmt::format("gpu{}", g.dev);
    }
    return "";
  }

  void add_nvlinks() {
    std::map<std::string, std::string> nvswitch_by_busid;
    for (const Gpu& gpu : gpus_) {
      const std::string self = fmt::format("gpu{}", gpu.dev);
      for (const XmlElement* link : gpu.nvlinks) {
        const std::string& target = need(*link, "target");
        const int count = need_int(*link, "count");
        if (count < 1) {
          fail(*link, fmt::format("expected an <nvlink> count >= 1 (the links bonded), got {}",
                                  count));
        }
        if (target == gpu.busid) {
          fail(*link, fmt::format("expected an <nvlink> target other than the GPU's own bus id, "
                                  "got {}", target));
        }
        const std::string* tclass = link->find("tclass");
        if (tclass && *tclass == sysimport::kNvswitchClass) {
          auto [it, fresh] = nvswitch_by_busid.try_emplace(
              target, fmt::format("nvswitch{}", nvswitch_by_busid.size()));
          if (fresh) nvswitch_names_.push_back(it->second);
          add_nvlink(self, it->second, count, fmt::format("nvlink target {}", target));
        } else if (const std::string peer = gpu_name_by_busid(target); !peer.empty()) {
          if (peer > self) add_nvlink(self, peer, count, "");
        } else {
          ++skipped_nvlinks_;
        }
      }
    }
  }

  // Several <nvlink> elements to one target are one bonded link of their summed count, as
  // NCCL adds their bandwidth to one link (src/graph/topo.cc, ncclTopoConnectNodes).
  void add_nvlink(const std::string& from, const std::string& to, int count,
                  std::string comment) {
    for (sysimport::SketchLink& link : links_) {
      if (link.from == from && link.to == to && link.type == nvlink_type()) {
        link.lanes += count;
        return;
      }
    }
    links_.push_back({from, to, nvlink_type(), count, 0, -1, "", std::move(comment)});
  }

  std::string nvlink_type() const { return defaults_.nvlink_type; }

  sysimport::TopologySketch finish();

  const sysimport::ImportDefaults& defaults_;
  const ImportOptions& options_;
  const Catalog& catalog_;
  std::string file_;
  std::string smp_type_ = sysimport::kGenericSmpLink;
  std::vector<SketchDevice> cpus_;
  std::vector<SketchDevice> switches_;
  std::vector<std::string> nvswitch_names_;
  std::map<std::string, size_t> uplink_of_;
  std::vector<SketchLink> links_;
  std::vector<Gpu> gpus_;
  std::vector<SketchLink> gpu_parent_;  // parallel to gpus_: the link up, `from` unset
  std::vector<Nic> nics_;
  std::vector<SketchLink> nic_parent_;  // parallel to nics_
  int skipped_pci_ = 0;
  int skipped_nvlinks_ = 0;
};

sysimport::TopologySketch XmlImporter::finish() {
  sysimport::TopologySketch sketch;
  sketch.name = options_.name.empty() ? std::filesystem::path(file_).stem().string()
                                      : options_.name;
  sketch.description = fmt::format("imported from an NCCL topology XML ({} GPUs, {} NICs)",
                                   gpus_.size(), nics_.size());
  sketch.comments = {fmt::format("Imported from {} by `linksim topo import nccl-xml`.", file_)};
  for (const std::string& line : defaults_.comments()) sketch.comments.push_back(line);
  sketch.comments.push_back("NIC types come from each <net> speed (Mb/s, nearest InfiniBand "
                            "rate); the XML does not say InfiniBand or RoCE.");
  if (skipped_pci_ > 0 || skipped_nvlinks_ > 0) {
    sketch.comments.push_back(fmt::format("Skipped {} PCI device(s) that are neither bridges, "
                                          "GPUs nor NICs, and {} NVLink(s) to other targets.",
                                          skipped_pci_, skipped_nvlinks_));
  }
  sketch.devices = cpus_;
  for (const std::string& name : nvswitch_names_) {
    sketch.devices.push_back({name, "nvswitch", "", "", "", "", std::nullopt, std::nullopt});
  }
  sketch.devices.insert(sketch.devices.end(), switches_.begin(), switches_.end());
  // GPUs and NICs in NCCL dev order, which is nvidia-smi's numbering.
  std::vector<size_t> order(gpus_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return gpus_[a].dev < gpus_[b].dev; });
  for (size_t i : order) {
    const std::string name = fmt::format("gpu{}", gpus_[i].dev);
    sketch.devices.push_back({name, "gpu", defaults_.gpu_model, "", "", "", std::nullopt,
                              std::nullopt});
    SketchLink up = gpu_parent_[i];
    up.from = name;
    sketch.links.push_back(up);
  }
  std::vector<size_t> nic_order(nics_.size());
  for (size_t i = 0; i < nic_order.size(); ++i) nic_order[i] = i;
  std::stable_sort(nic_order.begin(), nic_order.end(),
                   [&](size_t a, size_t b) { return nics_[a].dev < nics_[b].dev; });
  for (size_t n = 0; n < nic_order.size(); ++n) {
    const size_t i = nic_order[n];
    const std::string name = fmt::format("nic{}", n);
    sketch.devices.push_back({name, "nic", "", nic_type_for_speed(nics_[i].speed_mbps),
                              nics_[i].port, "", std::nullopt, std::nullopt});
    SketchLink up = nic_parent_[i];
    up.from = name;
    up.comment = fmt::format("net speed {} Mb/s", nics_[i].speed_mbps);
    sketch.links.push_back(up);
  }
  sketch.links.insert(sketch.links.end(), links_.begin(), links_.end());
  (void)catalog_;
  return sketch;
}

// The GPU model: the one named, else the first catalog GPU of the dumped SM version that has
// NVLink when the dump shows NVLinks, else the generic default.
ImportOptions with_model_from_sm(const XmlElement& system, ImportOptions options,
                                 const Catalog& catalog) {
  if (!options.gpu_model.empty()) return options;
  int sm = 0;
  bool nvlink = false;
  std::vector<const XmlElement*> stack{&system};
  while (!stack.empty()) {
    const XmlElement* e = stack.back();
    stack.pop_back();
    if (e->name == "gpu" && e->find("sm")) {
      sm = sysimport::parse_xml_int(*e->find("sm")).value_or(0);
    }
    if (e->name == "nvlink") nvlink = true;
    for (const XmlElement& c : e->children) stack.push_back(&c);
  }
  for (const GpuModel& model : catalog.gpus()) {
    if (model.sm == sm && sm > 0 && (model.nvlink_lanes > 0) == nvlink) {
      options.gpu_model = model.key;
      break;
    }
  }
  return options;
}

}  // namespace

std::string import_nccl_xml(std::string_view xml_text, const std::string& filename,
                            const ImportOptions& options, const Catalog& catalog) {
  const XmlElement system = sysimport::parse_nccl_xml(xml_text, filename);
  const ImportOptions resolved = with_model_from_sm(system, options, catalog);
  sysimport::ImportDefaults defaults = sysimport::resolve_defaults(resolved, catalog);
  if (options.gpu_model.empty() && !resolved.gpu_model.empty()) {
    defaults.origin = "chosen from the dump's sm version";
  }
  const sysimport::TopologySketch sketch =
      XmlImporter(defaults, options, catalog, filename).run(system);
  return sysimport::write_topology_yaml(sketch);
}

}  // namespace linksim
