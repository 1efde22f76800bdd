// SPDX-License-Identifier: Apache-2.0
// Faults (--degrade): the spec grammar and its refusals, what each fault does to the machine,
// and that a degraded link changes exactly the collectives whose routes cross it.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/faults.hpp"
#include "linksim/model.hpp"
#include "linksim/plan.hpp"
#include "linksim/units.hpp"
#include "support/test_topologies.hpp"

namespace {

using linksim::ConfigError;
using linksim::DeviceId;
using linksim::Link;
using linksim::Topology;
using linksim::testing::library_topology;

DeviceId gpu(const Topology& t, const std::string& name) { return *t.find(name); }

std::vector<DeviceId> gpus(const Topology& t, const std::vector<std::string>& names) {
  std::vector<DeviceId> ids;
  for (const std::string& n : names) ids.push_back(gpu(t, n));
  return ids;
}

// Ring AllReduce: one algorithm, so a change of time is the links' and not NCCL's tuner
// choosing another algorithm for the degraded machine.
double allreduce_s(const Topology& t, const std::vector<DeviceId>& ranks, double bytes) {
  const linksim::Communicator comm(t, ranks);
  linksim::CollectiveQuery q;
  q.size_bytes = bytes;
  q.algorithm = linksim::Algorithm::kRing;
  return comm.run(q).time_s;
}

// The links joining two devices, by name.
std::vector<Link> links_between(const Topology& t, const std::string& a, const std::string& b) {
  std::vector<Link> found;
  for (const Link& l : t.links()) {
    if (t.display_name(l.from) == a && t.display_name(l.to) == b) found.push_back(l);
  }
  return found;
}

std::string degrade_error(const Topology& t, const std::string& spec) {
  try {
    (void)linksim::with_degraded(t, spec);
  } catch (const ConfigError& e) {
    return e.message();
  }
  return "(no error)";
}

constexpr double k256MiB = 268435456;

}  // namespace

TEST_SUITE("topology") {
  TEST_CASE("faults: a PCIe slot at x8 halves exactly that link, both directions") {
    const Topology t = library_topology("pcie-8gpu.yaml");
    const Topology d = linksim::with_degraded(t, "gpu0~pciesw0:width=8");
    const std::vector<Link> before = links_between(t, "gpu0", "pciesw0");
    const std::vector<Link> after = links_between(d, "gpu0", "pciesw0");
    REQUIRE(before.size() == 1);
    REQUIRE(after.size() == 1);
    CHECK(before[0].lanes == 16);
    CHECK(after[0].lanes == 8);
    CHECK(after[0].bw_Bps == before[0].bw_Bps / 2);
    CHECK(links_between(d, "pciesw0", "gpu0")[0].bw_Bps == before[0].bw_Bps / 2);
    CHECK(links_between(d, "gpu1", "pciesw0")[0].bw_Bps == links_between(t, "gpu1", "pciesw0")[0].bw_Bps);
    // The device form names the device's own PCIe link.
    CHECK(links_between(linksim::with_degraded(t, "gpu0:width=8"), "gpu0", "pciesw0")[0].lanes == 8);
  }

  TEST_CASE("faults: a degraded link changes exactly the collectives that cross it") {
    // pcie-8gpu: gpu0 and gpu1 under pciesw0, gpu2 and gpu3 under pciesw1, both on cpu0.
    const Topology t = library_topology("pcie-8gpu.yaml");
    const Topology d = linksim::with_degraded(t, "gpu0~pciesw0:width=8");
    const std::vector<std::vector<std::string>> crossing = {{"gpu0", "gpu1"}};
    const std::vector<std::vector<std::string>> not_crossing = {
        {"gpu2", "gpu3"}, {"gpu1", "gpu2", "gpu3"}, {"gpu4", "gpu5", "gpu6", "gpu7"}};
    for (const auto& names : crossing) {
      CAPTURE(names.size());
      CHECK(allreduce_s(d, gpus(d, names), k256MiB) > allreduce_s(t, gpus(t, names), k256MiB) * 1.2);
    }
    for (const auto& names : not_crossing) {
      CAPTURE(names.front());
      CHECK(allreduce_s(d, gpus(d, names), k256MiB) == allreduce_s(t, gpus(t, names), k256MiB));
    }
    // Across the CPU the ring's copies are staged through host memory at B_copy, 0.47 x NCCL's
    // PCIe bandwidth of the GPU's link (docs/model.md#shm): x8 halves it (0.47 x 12 GB/s
    // against 0.47 x 24), so the staged ring through the degraded link takes twice as long.
    const std::vector<std::string> staged = {"gpu0", "gpu1", "gpu2", "gpu3"};
    CHECK(allreduce_s(d, gpus(d, staged), k256MiB) >
          1.9 * allreduce_s(t, gpus(t, staged), k256MiB));
  }

  TEST_CASE("faults: an NVLink lane down slows the GPU's collectives only") {
    // DGX H100: gpu0 reaches nvswitch0 over 5 of its 18 NVLinks.
    const Topology t = library_topology("dgx-h100.yaml");
    const Topology d = linksim::with_degraded(t, "gpu0~nvswitch0:width=4");
    REQUIRE(links_between(t, "gpu0", "nvswitch0")[0].lanes == 5);
    CHECK(links_between(d, "gpu0", "nvswitch0")[0].lanes == 4);
    const std::vector<std::string> with0 = {"gpu0", "gpu1", "gpu2", "gpu3"};
    const std::vector<std::string> without0 = {"gpu4", "gpu5", "gpu6", "gpu7"};
    CHECK(allreduce_s(d, gpus(d, with0), k256MiB) > allreduce_s(t, gpus(t, with0), k256MiB));
    CHECK(allreduce_s(d, gpus(d, without0), k256MiB) == allreduce_s(t, gpus(t, without0), k256MiB));
  }

  TEST_CASE("faults: a NIC at 200 Gb/s slows its rail in every server, not the others") {
    const Topology t = library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    const Topology d = linksim::with_degraded(t, "nic0:speed=200Gb/s");
    for (const Link& l : d.links()) {
      if (d.device(l.from).name == "nic0" && l.family == linksim::LinkFamily::kNetwork) {
        CHECK(l.bw_Bps == 25e9);
      }
    }
    const std::vector<std::string> rail0 = {"host0:gpu0", "host1:gpu0"};
    const std::vector<std::string> rail1 = {"host0:gpu1", "host1:gpu1"};
    CHECK(allreduce_s(d, gpus(d, rail0), k256MiB) > allreduce_s(t, gpus(t, rail0), k256MiB) * 1.5);
    CHECK(allreduce_s(d, gpus(d, rail1), k256MiB) == allreduce_s(t, gpus(t, rail1), k256MiB));
  }

  TEST_CASE("faults: a missing device leaves every server one short, still one block each") {
    const Topology t = library_topology("dgx-h100-ib.yaml", {{"nodes", "2"}});
    const Topology nic = linksim::with_degraded(t, "nic3:missing");
    CHECK(nic.devices().size() == t.devices().size() - 2);
    CHECK(nic.devices_per_host() == t.devices_per_host() - 1);
    CHECK_FALSE(nic.find("host1:nic3").has_value());
    CHECK(nic.find("host1:nic4").has_value());
    // Rail 3's GPUs now reach the network through another NIC: the collective still runs.
    const std::vector<std::string> rail3 = {"host0:gpu3", "host1:gpu3"};
    CHECK(allreduce_s(nic, gpus(nic, rail3), k256MiB) > 0);
    const Topology gpu3 = linksim::with_degraded(t, "gpu3:missing");
    CHECK(gpu3.gpus().size() == 14);
    const Topology spine = linksim::with_degraded(t, "spine0:missing");
    CHECK_FALSE(spine.find("spine0").has_value());
  }

  TEST_CASE("faults: a GPU at a lower clock is the plan at that fraction of its FLOP/s") {
    const Topology t = library_topology("dgx-h100.yaml");
    const Topology d = linksim::with_degraded(t, "gpu5:clock=50%");
    CHECK(d.device(gpu(d, "gpu5")).clock_fraction == 0.5);
    CHECK(d.device(gpu(d, "gpu4")).clock_fraction == 1);
    linksim::PlanRequest r;
    r.model = linksim::ModelCatalog::builtin().get("llama2-7b", "--model");
    r.mode = linksim::PlanMode::kTrain;
    r.tp = 8;
    r.compute_baseline = false;
    // The step waits for its slowest GPU: gpu5 at half clock is every GPU at half FLOP/s.
    linksim::PlanRequest half = r;
    half.flops_scale = 0.5;
    const double slow_s = linksim::plan(d, r).step_time_s;
    CHECK(slow_s == linksim::plan(t, half).step_time_s);
    CHECK(slow_s > linksim::plan(t, r).step_time_s);
    // A plan on GPUs the fault spares is untouched.
    linksim::PlanRequest four = r;
    four.tp = 4;
    four.gpus.list = "0-3";
    CHECK(linksim::plan(d, four).step_time_s == linksim::plan(t, four).step_time_s);
  }

  TEST_CASE("faults: bad specs name the item and what was expected") {
    const Topology t = library_topology("dgx-h100.yaml");
    CHECK(degrade_error(t, "gpu9:missing") ==
          "'gpu9:missing': expected a device of dgx-h100, got 'gpu9'; did you mean 'gpu0'?");
    CHECK(degrade_error(t, "nvswich0~gpu0:width=4") ==
          "'nvswich0~gpu0:width=4': expected a device of dgx-h100, got 'nvswich0'; did you mean "
          "'nvswitch0'?");
    CHECK(degrade_error(t, "gpu0") ==
          "'gpu0': expected TARGET:CHANGE, such as 'nic0:speed=200Gb/s', "
          "'gpu0~pcie_switch0:width=8' or 'gpu3:missing'");
    CHECK(degrade_error(t, "gpu0:mising") ==
          "'gpu0:mising': expected missing, width=N, speed=RATE or clock=P%, got 'mising'; did "
          "you mean 'missing'?");
    CHECK(degrade_error(t, "nic0:speed=200") ==
          "'nic0:speed=200': expected speed=RATE with a unit, such as speed=200Gb/s, got "
          "'speed=200'");
    CHECK(degrade_error(t, "gpu0:clock=120%") ==
          "'gpu0:clock=120%': expected clock=P% with P between 0 and 100, such as clock=80%, got "
          "'clock=120%'");
    CHECK(degrade_error(t, "nic0:clock=80%") == "'nic0:clock=80%': expected a GPU for clock=, got 'nic0', a nic");
    CHECK(degrade_error(t, "cpu0:missing") ==
          "'cpu0:missing': expected a GPU, NIC, NVSwitch or spine/core switch to be missing, got "
          "'cpu0', a cpu: the devices behind it would be cut off");
    CHECK(degrade_error(t, "gpu0~gpu1:width=1") ==
          "'gpu0~gpu1:width=1': expected two devices joined by a link, got 'gpu0' and 'gpu1', "
          "which no link joins");
    CHECK(degrade_error(t, "gpu0~nvswitch0:width=5") ==
          "'gpu0~nvswitch0:width=5': expected fewer lanes than the link's 5, got 5");
    CHECK(degrade_error(t, "nvlink:speed=900GB/s") ==
          "'nvlink:speed=900GB/s': expected a rate below the link's 1000 Gb/s, got 7200 Gb/s");
    CHECK(degrade_error(t, "host1:gpu0:missing") ==
          "'host1:gpu0:missing': expected a device as one server names it (such as 'gpu3'), got "
          "'host1:gpu0': linksim's servers are identical, so a fault applies to that device of "
          "every server");
    CHECK(degrade_error(t, "gpu0:missing,,gpu1:missing") ==
          "expected a fault such as 'nic0:speed=200Gb/s' or 'gpu3:missing', got an empty item in "
          "'gpu0:missing,,gpu1:missing'");
  }

  TEST_CASE("faults: a fault list that cuts a device off is refused") {
    const Topology t = library_topology("dgx-h100.yaml");
    CHECK(degrade_error(t, "nvswitch0:missing,nvswitch1:missing,nvswitch2:missing,nvswitch3:missing,"
                           "gpu1:missing,gpu2:missing,gpu3:missing,gpu4:missing,gpu5:missing,"
                           "gpu6:missing,gpu7:missing,gpu0:missing") ==
          "'nvswitch0:missing,nvswitch1:missing,nvswitch2:missing,nvswitch3:missing,gpu1:missing,"
          "gpu2:missing,gpu3:missing,gpu4:missing,gpu5:missing,gpu6:missing,gpu7:missing,"
          "gpu0:missing': expected a GPU to be left, got none");
  }

  TEST_CASE("faults: single_faults lists each class on one server and the fabric") {
    const Topology t = library_topology("pcie-8gpu.yaml");
    std::map<std::string, int> per_class;
    for (const linksim::FaultCase& c : linksim::single_faults(t)) {
      ++per_class[c.fault_class];
      // Every listed fault parses back to itself and applies.
      const std::vector<linksim::Fault> parsed = linksim::parse_faults(c.fault.text, t);
      REQUIRE(parsed.size() == 1);
      CHECK(parsed[0].change == c.fault.change);
    }
    // 8 GPU + 4 NIC + 4 switch-to-CPU PCIe links; 4 NICs; 8 GPUs (missing, clock).
    CHECK(per_class["pcie-width"] == 16);
    CHECK(per_class["nic-missing"] == 4);
    CHECK(per_class["gpu-missing"] == 8);
    CHECK(per_class["gpu-clock"] == 8);
    CHECK(per_class.count("nvlink-lane") == 0);
  }
}
