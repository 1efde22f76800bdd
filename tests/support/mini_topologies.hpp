// SPDX-License-Identifier: Apache-2.0
// Tiny machines built in C++ (no YAML) for tests: an NVSwitch box, a PCIe tree, a dual-socket
// consumer box and a multi-server cluster. Every number is fixed here so tests can derive
// their expectations by hand from this header.
#pragma once

#include <string>

#include "linksim/catalog.hpp"
#include "linksim/routing.hpp"
#include "linksim/topology.hpp"
#include "topology/fabric_builder.hpp"

namespace linksim::testing {

/// Link types with round numbers (per direction): NVLink 25 GB/s per lane, 0.5 us;
/// PCIe 2 GB/s per lane (x16 = 32 GB/s), 1 us; UPI 40 GB/s, 0.2 us.
const LinkType& mini_nvlink();
const LinkType& mini_pcie();
const LinkType& mini_upi();

/// 4-GPU NVSwitch box, ids in this order:
///   cpu0 cpu1 psw0 psw1 gpu0 gpu1 gpu2 gpu3 nic0 nic1 nvs0 nvs1
/// cpu0 <-upi-> cpu1; psw0 -> cpu0 (x16, host bridge 0), psw1 -> cpu1 (x16, host bridge 0);
/// gpu0, gpu1, nic0 under psw0; gpu2, gpu3, nic1 under psw1 (all x16);
/// every GPU: 3 NVLink lanes to nvs0 and 2 to nvs1 (NV5: 125 GB/s).
/// GPU model h100-sxm; NICs of type ib_ndr with ports mlx5_0, mlx5_1.
Topology make_nvswitch_box();

/// One CPU with two host bridges and a two-level PCIe tree, ids in this order:
///   cpu0 top psw0 psw1 gpu0 gpu1 gpu2 gpu3 gpu4 nic0
/// top -> cpu0 (bridge 0); psw0 -> top, psw1 -> top; gpu0, gpu1, nic0 -> psw0; gpu2 -> psw1;
/// gpu3 -> cpu0 (bridge 0); gpu4 -> cpu0 (bridge 1). All x16 PCIe. GPU model a40.
/// Classes: gpu0-gpu1 PIX, gpu0-gpu2 PXB, gpu0-gpu3 PHB, gpu0-gpu4 NODE.
Topology make_pcie_tree();

/// Two sockets joined by UPI, one GPU on each (x16 PCIe, own host bridges), ids:
///   cpu0 cpu1 gpu0 gpu1. GPUs are rtx4090 with p2p = `p2p`. Class gpu0-gpu1: SYS.
Topology make_dual_socket(bool p2p);

/// `hosts` copies of the docs' tiny-pair server (docs/topology-format.md#worked-example):
///   cpu0 sw0 gpu0 gpu1 nic0 per host; sw0 -> cpu0 x16, gpu0/gpu1/nic0 -> sw0 x16,
///   gpu0 <-> gpu1 NVLink x4 (NV4); nic0 of type `nic_type` from the builtin catalog;
/// then the fabric from `spec` (its `link` may be null). Models a40.
Topology make_cluster(int hosts, const detail::FabricSpec& spec,
                      const char* nic_type = "ib_hdr", int nics_per_host = 1);

/// A path as its devices joined by '>': "gpu0>psw0>cpu0".
std::string path_text(const Topology& topology, const Path& path);

/// The device named `name` of the topology; fails the test when there is none.
DeviceId named(const Topology& topology, const char* name);

}  // namespace linksim::testing
