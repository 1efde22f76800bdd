// SPDX-License-Identifier: Apache-2.0
// The catalogs of GPU models, link types and host platforms: data, not code
// (data/catalog/*.yaml).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linksim {

/// What kind of wire a link is. Decides routing rules and the nvidia-smi class of a path.
enum class LinkFamily : uint8_t {
  kNvlink,   ///< NVLink, GPU-GPU or GPU-NVSwitch (nvlink1..nvlink5)
  kPcie,     ///< PCIe (pcie3..pcie6)
  kSmp,      ///< inter-socket link between CPUs (upi, xgmi)
  kC2c,      ///< NVLink-C2C between a Grace CPU and its GPUs
  kNetwork,  ///< InfiniBand or Ethernet/RoCE between a NIC and a network switch
};
std::string_view to_string(LinkFamily family);

/// One catalog link type, e.g. nvlink4 or pcie5 or ib_ndr.
/// Bandwidths are per direction (links are full duplex, each direction its own capacity).
struct LinkType {
  std::string key;          ///< the name a topology file uses: "nvlink4", "pcie5", "ib_ndr"
  LinkFamily family;
  std::string description;  ///< "NVLink 4 (H100)", "PCIe Gen5", "InfiniBand NDR 400 Gb/s"
  /// Per-direction bandwidth of one lane (NVLink link, PCIe lane) or of the whole link when
  /// `lanes_key` is empty. bytes/s.
  double lane_bw_Bps = 0;
  /// Which attribute multiplies lane_bw_Bps: "lanes" (NVLink links), "width" (PCIe lanes), or
  /// empty for fixed-rate links (network, upi, xgmi, c2c).
  std::string lanes_key;
  int default_lanes = 1;    ///< used when a link omits its lanes/width
  double latency_s = 0;     ///< one-way latency of one hop over this link type
  int pcie_gen = 0;         ///< PCIe generation for pcie* types, 0 otherwise
  int nvlink_gen = 0;       ///< NVLink generation for nvlink* types, 0 otherwise
  std::string source;       ///< where the numbers come from
};

/// One catalog GPU model, e.g. h100-sxm.
struct GpuModel {
  std::string key;                  ///< short name a user types: "h100-sxm", "rtx4090"
  std::vector<std::string> aliases; ///< other accepted names: "H100_SXM5", "h100"
  std::string name;                 ///< "NVIDIA H100 SXM5 80GB"
  std::string arch;                 ///< "volta" | "ampere" | "ada" | "hopper" | "blackwell" | "turing"
  int sm = 0;                       ///< compute capability x10 (90 for Hopper)
  int multiprocessors = 0;          ///< streaming multiprocessors (SMs): 132 on an H100 SXM
  std::string nvlink_type;          ///< catalog link type of its NVLink ports ("" if none)
  int nvlink_lanes = 0;             ///< NVLink links per GPU on the datasheet (0 if none)
  /// Per-direction rate of one of its NVLink ports when slower than the link type's lane rate
  /// (GA102 cards: 14.0625 GB/s per link); 0 = the link type's rate. bytes/s.
  double nvlink_lane_bw_Bps = 0;
  bool p2p = true;                  ///< whether the driver allows PCIe peer-to-peer
  int pcie_gen = 4;
  double bf16_flops = 0;            ///< dense BF16 (FP16 where no BF16) tensor FLOP/s
  double fp8_flops = 0;             ///< dense FP8 tensor FLOP/s; 0 where unsupported
  double memory_bytes = 0;
  double memory_bw_Bps = 0;
  /// L2 cache read bandwidth, bytes/s, where a public measurement or datasheet gives it; 0 =
  /// not known (the planner then times L2-resident re-reads at the memory bandwidth).
  double l2_bw_Bps = 0;
  /// Datasheet boost clock of the SMs, Hz (catalog boost_clock_mhz); 0 = not given (the
  /// planner then applies no per-clock instruction bound, docs/catalog.md).
  double boost_clock_hz = 0;
  std::string source;
};

/// NCCL's CPU vendor (ncclTopoCpuType, NVIDIA/nccl src/graph/topo.cc): it sets NCCL's default
/// P2P level (docs/routing.md#p2p-level).
enum class CpuVendor { kUnknown, kIntel, kAmd, kZhaoxin, kNvidia };
/// NCCL's CPU architecture.
enum class CpuArch { kX86, kArm, kPower };
std::string_view to_string(CpuVendor vendor);  ///< "unknown", "intel", "amd", "zhaoxin", "nvidia"
std::string_view to_string(CpuArch arch);      ///< "x86", "arm", "power"

/// One catalog host platform (data/catalog/platforms.yaml): the CPU behind a topology's cpu
/// devices. Rates per direction, bytes/s.
struct HostPlatform {
  std::string key;                   ///< "intel-sapphire-rapids", "amd-zen2", "generic"
  std::vector<std::string> aliases;  ///< "sapphire-rapids", "epyc-rome"
  std::string name;
  CpuVendor vendor = CpuVendor::kUnknown;
  CpuArch arch = CpuArch::kX86;
  /// NCCL's bandwidth for the link between two sockets (ncclTopoGetInterCpuBw); +infinity
  /// where NCCL sets none (LOC_BW).
  double nccl_smp_bw_Bps = 0;
  /// Host-staged (SHM) copy between GPUs of one socket, and across two sockets, where a
  /// measurement of this platform bounds it (docs/model.md#shm); 0 = none measured.
  double host_staging_Bps = 0;
  double host_staging_cross_socket_Bps = 0;
  /// One socket's memory bandwidth (channels x transfer rate x 8 bytes); +infinity when the
  /// entry gives none (docs/catalog.md#platforms).
  double memory_bw_Bps = 0;
  std::string source;
};

/// The catalogs, loaded from YAML. Immutable once built; safe to share between threads.
class Catalog {
 public:
  /// The catalogs compiled into the library from data/catalog/*.yaml.
  static const Catalog& builtin();
  /// Parses catalogs from YAML text. `*_name` name the texts in error messages.
  /// Throws ConfigError on malformed or incomplete entries.
  static Catalog parse(std::string_view gpus_yaml, std::string_view gpus_name,
                       std::string_view links_yaml, std::string_view links_name);
  /// As above with a host-platform catalog too (the other overload uses the built-in one).
  /// The platforms must include the default entry, "generic".
  static Catalog parse(std::string_view gpus_yaml, std::string_view gpus_name,
                       std::string_view links_yaml, std::string_view links_name,
                       std::string_view platforms_yaml, std::string_view platforms_name);

  /// Finds a GPU model by key or alias, case-insensitively. nullptr when unknown.
  const GpuModel* find_gpu(std::string_view name) const;
  /// Finds a link type by key, case-insensitively. nullptr when unknown.
  const LinkType* find_link_type(std::string_view key) const;
  /// Finds a host platform by key or alias, case-insensitively. nullptr when unknown.
  const HostPlatform* find_platform(std::string_view name) const;
  /// The platform of a CPU that names none: "generic".
  const HostPlatform& default_platform() const;

  const std::vector<GpuModel>& gpus() const { return gpus_; }
  const std::vector<LinkType>& link_types() const { return link_types_; }
  std::vector<std::string> gpu_keys() const;        ///< keys, for messages and did-you-mean
  std::vector<std::string> link_type_keys() const;
  std::vector<std::string> platform_keys() const;
  const std::vector<HostPlatform>& platforms() const { return platforms_; }

 private:
  std::vector<GpuModel> gpus_;
  std::vector<LinkType> link_types_;
  std::vector<HostPlatform> platforms_;
};

}  // namespace linksim
