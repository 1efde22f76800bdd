// SPDX-License-Identifier: Apache-2.0
// Faults of a machine and the machine with them: a link or link class at a lower width or
// speed, a device missing, a GPU at a lower clock, named the way the topology names its
// devices (`--degrade`, `linksim topo contingency`; grammar in docs/cli.md#degrade).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/topology.hpp"
#include "linksim/topology_variants.hpp"

namespace linksim {

/// What a fault acts on.
enum class FaultTargetKind {
  kDevice,     ///< one device ("gpu3", "nic0", "spine1")
  kLink,       ///< the links joining two devices ("gpu0~nvswitch1")
  kLinkClass,  ///< every link of a class ("pcie", "nic", ...; LinkClass)
};

/// What goes wrong.
enum class FaultChange {
  kWidth,    ///< fewer lanes: a PCIe slot trained at x8, NVLink links of a bundle down
  kSpeed,    ///< a lower per-direction rate: a NIC port at 200 instead of 400 Gb/s
  kMissing,  ///< the device is gone with its links (a GPU, NIC, NVSwitch, spine or core switch)
  kClock,    ///< a GPU held at a fraction of its clock
};

/// One fault, resolved against a topology. Server devices are named as in one server
/// ("gpu3"): linksim's servers are identical blocks, so a fault of a server's device or link
/// is applied to that device or link of every server; in a collective or step that waits for
/// its slowest server, one faulty server costs about what faulty servers everywhere cost.
struct Fault {
  FaultTargetKind target = FaultTargetKind::kDevice;
  DeviceId device;  ///< kDevice, kLink: the device (host 0's copy for a server device)
  DeviceId peer;    ///< kLink: the other end
  LinkClass link_class = LinkClass::kPcie;  ///< kLinkClass
  FaultChange change = FaultChange::kMissing;
  int lanes = 0;              ///< kWidth: the lanes left, >= 1
  double rate_Bps = 0;        ///< kSpeed: the rate per direction, bytes/s
  double clock_fraction = 1;  ///< kClock: in (0, 1)
  std::string text;           ///< as written ("nic0:speed=200Gb/s"), for reports
};

/// Parses a fault list: FAULT[,FAULT...], FAULT = TARGET:CHANGE, TARGET = DEVICE |
/// DEVICE~DEVICE | CLASS (nvlink, nvlink-c2c, pcie, socket, nic, fabric), CHANGE = missing |
/// width=N | speed=RATE | clock=PERCENT%. Names are validated like the topology's: an unknown
/// device is a ConfigError naming it, with the closest name of the topology when one is near.
/// Throws ConfigError (no position; callers prefix their flag) for any bad item, naming it.
std::vector<Fault> parse_faults(std::string_view spec, const Topology& topology);

/// A copy of `topology` with `faults` applied (docs/cli.md#degrade). Throws ConfigError when
/// the faults together leave a GPU or NIC cut off from the GPUs, or remove the last GPU.
Topology with_degraded(const Topology& topology, std::span<const Fault> faults);
/// parse_faults() then with_degraded().
Topology with_degraded(const Topology& topology, std::string_view spec);

/// One single fault of a class, as `topo contingency` tries them.
struct FaultCase {
  std::string fault_class;  ///< "pcie-width", "nvlink-lane", "nic-speed", "nic-missing", ...
  Fault fault;
};

/// Every single fault of each class (N-1) on one server and on the fabric, in class order:
/// each PCIe link at half its width, each NVLink bundle one link short, each NIC port at half
/// its rate, each fabric link at half its rate, each NIC, GPU, NVSwitch and spine or core
/// switch missing, each GPU at kContingencyClockFraction of its clock. A fault that would cut
/// a device off is left out.
std::vector<FaultCase> single_faults(const Topology& topology);

/// A GPU held at its base clock instead of its boost clock: H100 SXM5 1,590 of 1,980 MHz
/// (docs/cli.md#contingency).
inline constexpr double kContingencyClockFraction = 1590.0 / 1980.0;

}  // namespace linksim
