// SPDX-License-Identifier: Apache-2.0
// NCCL's default LL128 enablement by the class of its graphs' GPU-NIC legs (tuning.cc
// ncclTopoTuneModel: `typeInter <= PATH_PXB || (minCompCap >= 90 && typeInter <= PATH_PXN)`
// from 2.17, `<= PATH_P2C` from 2.27; paths.cc sets PATH_P2C for a GPU reaching a PHB NIC from
// its CPU over C2C, and PATH_PXN through an NVLink peer within PXB of the NIC).
#include "collectives/ll128_network.hpp"

#include <algorithm>

namespace linksim::detail {
namespace {

bool on_c2c(const Topology& t, DeviceId gpu) {
  const auto links = t.out_links(gpu);
  return std::any_of(links.begin(), links.end(),
                     [&](LinkId id) { return t.link(id).family == LinkFamily::kC2c; });
}

// Within PXB of the NIC it sends through (nvidia-smi PIX or PXB; NCCL's PATH_PIX/PXB).
bool near_nic(const Router& router, DeviceId gpu) {
  const auto nic = router.nearest_nic(gpu);
  return nic && router.classify(gpu, *nic) <= PathClass::kPxb;
}

// NCCL's PXN (paths.cc): an NVLink peer of the same server within PXB of a NIC relays.
bool pxn_peer(const CommGraph& g, DeviceId gpu) {
  const Topology& t = g.topology();
  const Router& router = g.router();
  return std::any_of(g.ranks().begin(), g.ranks().end(), [&](DeviceId peer) {
    return peer != gpu && t.device(peer).host == t.device(gpu).host &&
           router.classify(gpu, peer) == PathClass::kNvlink && near_nic(router, peer);
  });
}

// NCCL's PATH_P2C (2.27): the NIC hangs off the GPU's own CPU (PHB here, or NODE where the
// C2C link and the NIC's root port are different host bridges), reached over NVLink-C2C.
bool p2c(const CommGraph& g, DeviceId gpu) {
  const auto nic = g.router().nearest_nic(gpu);
  if (!nic || !on_c2c(g.topology(), gpu)) return false;
  const PathClass cls = g.router().classify(gpu, *nic);
  return cls == PathClass::kPhb || cls == PathClass::kNode;
}

}  // namespace

bool ll128_network_path_allowed(const CommGraph& g) {
  if (g.node_count() <= 1) return true;
  const NcclVersion v = g.options().nccl_version;
  const bool hopper_on = g.min_sm() >= 90;
  return std::all_of(g.ranks().begin(), g.ranks().end(), [&](DeviceId gpu) {
    if (near_nic(g.router(), gpu)) return true;
    if (!hopper_on) return false;
    if (v.at_least(2, 27) && p2c(g, gpu)) return true;
    return v.at_least(2, 17) && pxn_peer(g, gpu);
  });
}

}  // namespace linksim::detail
