// SPDX-License-Identifier: Apache-2.0
// What a machine is made of, as `linksim topo show` prints it and Topology.summary() returns
// it in Python: devices by kind, links by type and rate, per-GPU NVLink lanes, PCIe path and
// nearest NIC, the host platform's P2P level and host-staged rates, the fabric and the GPU
// set's bisection bandwidth (docs/routing.md#bisection). Rendered by
// linksim/topology_summary_report.hpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "linksim/catalog.hpp"
#include "linksim/fabric_summary.hpp"
#include "linksim/routing.hpp"
#include "linksim/topology.hpp"

namespace linksim {

/// One GPU of server 0.
struct GpuPathSummary {
  std::string name;         ///< "GPU0"
  std::string device;       ///< "gpu0" / "host1:gpu0"
  std::string model;        ///< catalog key, "h100-sxm"
  int nvlink_lanes = 0;     ///< NVLink links out of the GPU
  double nvlink_bw_Bps = 0; ///< their rates summed, per direction
  std::string pcie_path;    ///< "gpu0 > pciesw0 > cpu0"
  double pcie_bw_Bps = 0;   ///< the path's bottleneck, per direction (0 without a path)
  std::string nic;          ///< "NIC0 (mlx5_0, PIX)" or "none"
};

/// The host platform of server 0's first CPU and what it means for NCCL
/// (docs/catalog.md#platforms).
struct HostPlatformSummary {
  const HostPlatform* platform = nullptr;
  PathClass p2p_level = PathClass::kPxb;  ///< NCCL's default P2P level on it
  double staging_Bps = 0;               ///< host-staged copies within a socket, bytes/s
  double staging_cross_socket_Bps = 0;  ///< and across the sockets
};

/// Links of one type and rate, counted once per full-duplex link.
struct LinkTypeCount {
  std::string type;    ///< catalog link type, "nvlink4"
  double bw_Bps = 0;   ///< per direction
  int lanes = 0;       ///< of the last such link
  int count = 0;
};

struct TopologySummary {
  std::string name;
  std::string source_file;
  int servers = 0;
  HostPlatformSummary host;
  std::optional<FabricSummary> fabric;        ///< with more than one server
  NcclEnv nccl_env;                           ///< what the platform's plugin sets (Topology)
  std::map<std::string, int> devices_by_kind; ///< "gpu" -> 8, ...
  std::vector<LinkTypeCount> links;           ///< by type, then rate
  std::vector<GpuPathSummary> gpus;           ///< server 0's, by index
  /// Max-flow from the first half of the GPUs (rank order) to the second, per direction;
  /// nullopt with fewer than 2 GPUs or more than kMaxLinksForBisection directed links.
  std::optional<double> bisection_Bps;
};

/// Above this many directed links the bisection is not computed (max-flow grows
/// superlinearly).
inline constexpr size_t kMaxLinksForBisection = 200000;

/// Summarizes the topology `router` routes.
TopologySummary summarize_topology(const Router& router);

}  // namespace linksim
