// SPDX-License-Identifier: Apache-2.0
// The topology library (topologies/*.yaml): every file loads, has the devices and NVLinks of
// the machine it describes, and implies the nvidia-smi matrix of the real machine where we
// have one (data/validation/topo-m/).
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "linksim/routing.hpp"
#include "linksim/topology.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/validation_data.hpp"

namespace linksim {
namespace {

namespace fs = std::filesystem;

std::string library_path(const std::string& file) {
  return std::string(LINKSIM_SOURCE_DIR) + "/topologies/" + file;
}

std::string calibration_path(const std::string& file) {
  return testing::validation_file("topo-m/" + file);
}

/// What each library file must contain, per server (host 0), read off its sources.
struct Expected {
  std::string file;
  int hosts;
  int gpus_per_host;
  int nics_per_host;
  int nvlinks_per_gpu;  ///< NVLink lanes leaving each GPU (bridges, mesh or switch links)
  std::string gpu_model;
};

// Derivations (comments in each file give the sources):
//   DGX/HGX H100/H200: 5+4+4+5 = 18 lanes; DGX A100 / OCI BM.GPU4.8: 6 chips x 2 = 12;
//   HGX B200: 2 chips x 9 = 18; NVL72: 18 chips x 1 = 18; DGX-1: 2x NV1 + 2x NV2 = 6;
//   A40 bridge pair: 4; A100 PCIe bridges: 12; quad GH200 mesh: 3 peers x 6 = 18;
//   PCIe-only machines: 0.
//   NICs: one per GPU on DGX/HGX, NVL72, GCP A3 Mega and A4; 4 data NICs (one per GPU pair) on
//   GCP A3 High; 8 on AWS p5 (aws-ofi-nccl groups each GPU's 4 EFA devices into one); 4 EFA (one per GPU pair) on p4d; 16 RoCE ports on BM.GPU4.8; 4 (one per switch) on
//   pcie-8gpu and the DGX-1V; 2 ConnectX-7 cards on the Dell R760xa; 4 Slingshot NICs (one
//   per Grace) on the HPE EX254n;
//   2 RDMA devices (one QSFP port's two PCIe x4 functions) on the DGX Spark; the single mlx5_bond_0
//   on the RTX 4090 server; none where topo -m shows none.
const std::vector<Expected>& expectations() {
  static const std::vector<Expected> table = {
      {"a100-pcie-nvlink-pair.yaml", 1, 2, 0, 12, "a100-pcie"},
      {"a40-8gpu-nvlink-pairs.yaml", 1, 8, 0, 4, "a40"},
      {"aws-p4d-efa.yaml", 2, 8, 4, 12, "a100-sxm-40g"},
      {"aws-p5-efa.yaml", 2, 8, 8, 18, "h100-sxm"},
      {"dell-r760xa-l40s-roce.yaml", 2, 4, 2, 0, "l40s"},
      {"dgx-a100-ib.yaml", 2, 8, 8, 12, "a100-sxm-80g"},
      {"dgx-a100.yaml", 1, 8, 8, 12, "a100-sxm-80g"},
      {"dgx-h100-ib.yaml", 4, 8, 8, 18, "h100-sxm"},
      {"dgx-h100.yaml", 1, 8, 8, 18, "h100-sxm"},
      {"dgx-spark.yaml", 2, 1, 2, 0, "gb10"},
      {"dgx1-v100-broadwell.yaml", 1, 8, 4, 6, "v100-sxm"},
      {"dgx1-v100.yaml", 1, 8, 0, 6, "v100-sxm"},
      {"dual-2080ti.yaml", 1, 2, 0, 0, "rtx2080ti"},
      {"dual-4090.yaml", 1, 2, 0, 0, "rtx4090"},
      {"gb200-nvl72.yaml", 1, 72, 72, 18, "gb200"},
      {"gcp-a3high-tcpx.yaml", 2, 8, 4, 18, "h100-sxm"},
      {"gcp-a3mega-tcpxo.yaml", 2, 8, 8, 18, "h100-sxm"},
      {"gcp-a4-roce.yaml", 2, 8, 8, 18, "b200"},
      {"hgx-b200.yaml", 1, 8, 8, 18, "b200"},
      {"hgx-h200.yaml", 1, 8, 8, 18, "h200"},
      {"hpe-gh200-slingshot.yaml", 2, 4, 4, 18, "gh200"},
      {"lambda-b200-ib.yaml", 2, 8, 8, 18, "b200"},
      {"oci-a100-roce.yaml", 2, 8, 16, 12, "a100-sxm-40g"},
      {"pcie-8gpu.yaml", 1, 8, 4, 0, "l40s"},
      {"rtx4090-8gpu-server.yaml", 1, 8, 1, 0, "rtx4090"},
  };
  return table;
}

std::vector<std::string> library_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(std::string(LINKSIM_SOURCE_DIR) + "/topologies")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

int nvlink_lanes_from(const Topology& topo, DeviceId gpu) {
  int lanes = 0;
  for (LinkId id : topo.out_links(gpu)) {
    if (topo.link(id).family == LinkFamily::kNvlink) lanes += topo.link(id).lanes;
  }
  return lanes;
}

/// The CPU a device hangs off: the first CPU reached over PCIe / C2C links (breadth first).
const DeviceDetails* local_cpu(const Topology& topo, DeviceId start) {
  std::deque<DeviceId> queue{start};
  std::set<uint32_t> seen{start.value};
  while (!queue.empty()) {
    DeviceId at = queue.front();
    queue.pop_front();
    if (topo.device(at).kind == DeviceKind::kCpu) return &topo.details(at);
    for (LinkId id : topo.out_links(at)) {
      const Link& link = topo.link(id);
      if (link.family != LinkFamily::kPcie && link.family != LinkFamily::kC2c) continue;
      if (seen.insert(link.to.value).second) queue.push_back(link.to);
    }
  }
  return nullptr;
}

/// nvidia-smi cell text for a pair: "X", "NV12", "PIX", "SYS", ...
std::string cell(const Router& router, DeviceId a, DeviceId b) {
  int nvlinks = 0;
  PathClass cls = router.classify(a, b, &nvlinks);
  if (cls == PathClass::kNvlink) return "NV" + std::to_string(nvlinks);
  return std::string(to_string(cls));
}

/// One row of a real `nvidia-smi topo -m`: its label ("GPU3", "NIC0") and the cells after it.
struct MatrixRow {
  std::string label;
  std::vector<std::string> cells;
};

/// Reads the rows of a calibration topo-m file whose first token is GPU<n> or NIC<n>.
std::vector<MatrixRow> read_real_matrix(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open ", path);
  std::vector<MatrixRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    // Row lines start in column 0; the header line and the legend are indented.
    if (line.empty() || std::isspace(static_cast<unsigned char>(line[0]))) continue;
    std::istringstream tokens(line);
    MatrixRow row;
    tokens >> row.label;
    bool is_row = row.label.size() > 3 &&
                  (row.label.rfind("GPU", 0) == 0 || row.label.rfind("NIC", 0) == 0) &&
                  std::all_of(row.label.begin() + 3, row.label.end(),
                              [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (!is_row) continue;
    for (std::string token; tokens >> token;) row.cells.push_back(token);
    rows.push_back(row);
  }
  return rows;
}

/// Checks every class cell (the first `columns` cells of each row) of a real matrix against
/// what the topology implies, then returns the rows for the caller's affinity checks.
std::vector<MatrixRow> check_matrix_equals(const Topology& topo, const std::string& real_file) {
  Router router(topo);
  std::vector<DeviceId> gpus = topo.devices_of(0, DeviceKind::kGpu);
  std::vector<DeviceId> nics = topo.devices_of(0, DeviceKind::kNic);
  std::vector<DeviceId> columns = gpus;
  columns.insert(columns.end(), nics.begin(), nics.end());
  auto by_label = [&](const std::string& label) {
    int index = std::stoi(label.substr(3));
    return label[0] == 'G' ? gpus.at(size_t(index)) : nics.at(size_t(index));
  };
  std::vector<MatrixRow> rows = read_real_matrix(real_file);
  REQUIRE(rows.size() == columns.size());
  for (const MatrixRow& row : rows) {
    REQUIRE(row.cells.size() >= columns.size());
    for (size_t c = 0; c < columns.size(); ++c) {
      DeviceId a = by_label(row.label);
      std::string expected = row.cells[c];
      std::string got = a == columns[c] ? "X" : cell(router, a, columns[c]);
      INFO(real_file, ": row ", row.label, " column ", c);
      CHECK(got == expected);
    }
  }
  return rows;
}

}  // namespace

TEST_SUITE("topology.library") {

TEST_CASE("every library file is listed in the expectations table") {
  // A new topology file must come with its counts here; a removed one must leave the table.
  std::vector<std::string> listed;
  for (const Expected& e : expectations()) listed.push_back(e.file);
  CHECK(library_files() == listed);
}

TEST_CASE("every library file loads with its defaults") {
  for (const std::string& file : library_files()) {
    INFO("topologies/", file);
    CHECK_NOTHROW(load_topology(library_path(file)));
  }
}

TEST_CASE("library machines have their GPUs, NICs and NVLinks") {
  for (const Expected& e : expectations()) {
    INFO("topologies/", e.file);
    Topology topo = load_topology(library_path(e.file));
    CHECK(topo.host_count() == e.hosts);
    CHECK(topo.gpus().size() == size_t(e.hosts * e.gpus_per_host));
    std::vector<DeviceId> gpus = topo.devices_of(0, DeviceKind::kGpu);
    REQUIRE(gpus.size() == size_t(e.gpus_per_host));
    CHECK(topo.devices_of(0, DeviceKind::kNic).size() == size_t(e.nics_per_host));
    for (DeviceId gpu : gpus) {
      CHECK(topo.device(gpu).model == e.gpu_model);
      CHECK(nvlink_lanes_from(topo, gpu) == e.nvlinks_per_gpu);
    }
  }
}

TEST_CASE("library parameters override the defaults") {
  // dgx-h100-ib declares nodes (default 4): 2 servers of 8 GPUs = 16.
  Topology two = load_topology(library_path("dgx-h100-ib.yaml"), {{"nodes", "2"}});
  CHECK(two.host_count() == 2);
  CHECK(two.gpus().size() == 16);
  // The NIC type flows into every NIC of the included dgx-h100 server.
  Topology roce = load_topology(library_path("dgx-h100.yaml"), {{"nic", "roce_400"}});
  for (DeviceId nic : roce.devices_of(0, DeviceKind::kNic)) CHECK(roce.device(nic).model == "roce_400");
  // gb200-nvl72: `racks` racks of 72 GPUs each.
  Topology racks = load_topology(library_path("gb200-nvl72.yaml"), {{"racks", "2"}});
  CHECK(racks.host_count() == 2);
  CHECK(racks.gpus().size() == 144);
}

TEST_CASE("library NVSwitch machines declare in-switch reduction where the hardware has it") {
  // NVLink SHARP arrived with NVSwitch gen 3 (H100) and stays on the Blackwell switches;
  // the gen-2 switches of A100 systems have none (NVIDIA 3rd-gen NVSwitch blog:
  // https://developer.nvidia.com/blog/upgrading-multi-gpu-interconnectivity-with-the-third-generation-nvidia-nvswitch/).
  const std::map<std::string, bool> reduces = {
      {"dgx-h100.yaml", true}, {"hgx-h200.yaml", true}, {"hgx-b200.yaml", true},
      {"gb200-nvl72.yaml", true}, {"dgx-a100.yaml", false}, {"oci-a100-roce.yaml", false}};
  for (const auto& entry : reduces) {
    const auto& file = entry.first;  // clang 14: CAPTURE cannot take a structured binding
    const auto& expected = entry.second;
    INFO("topologies/", file);
    Topology topo = load_topology(library_path(file));
    int switches = 0;
    for (const Device& device : topo.devices()) {
      if (device.kind != DeviceKind::kNvswitch) continue;
      ++switches;
      CHECK(device.reduction == expected);
    }
    CHECK(switches > 0);
  }
}

TEST_CASE("library CPU affinity follows the real machines") {
  // topo-m/13: GPUs 0-3 (and NIC0) on NUMA 0 "0-35,72-107", GPUs 4-7 on NUMA 1.
  Topology server = load_topology(library_path("rtx4090-8gpu-server.yaml"));
  std::vector<DeviceId> gpus = server.devices_of(0, DeviceKind::kGpu);
  for (size_t i = 0; i < gpus.size(); ++i) {
    const DeviceDetails* cpu = local_cpu(server, gpus[i]);
    REQUIRE(cpu != nullptr);
    CHECK(cpu->cpu_affinity == std::string(i < 4 ? "0-35,72-107" : "36-71,108-143"));
    CHECK(cpu->numa == (i < 4 ? 0 : 1));
  }
  // topo-m/07: both GPUs "24-47,72-95", NUMA 1.
  Topology pair = load_topology(library_path("dual-2080ti.yaml"));
  for (DeviceId gpu : pair.devices_of(0, DeviceKind::kGpu)) {
    const DeviceDetails* cpu = local_cpu(pair, gpu);
    REQUIRE(cpu != nullptr);
    CHECK(cpu->cpu_affinity == "24-47,72-95");
    CHECK(cpu->numa == 1);
  }
  // topo-m/06: "0-95" for every GPU.
  Topology cube = load_topology(library_path("dgx1-v100.yaml"));
  for (DeviceId gpu : cube.devices_of(0, DeviceKind::kGpu)) {
    const DeviceDetails* cpu = local_cpu(cube, gpu);
    REQUIRE(cpu != nullptr);
    CHECK(cpu->cpu_affinity == "0-95");
  }
}

}  // TEST_SUITE("topology.library")

// Path classes need the Router (engineer "routing"); kept apart from the loading checks.
TEST_SUITE("topology.library.matrix") {

TEST_CASE("dgx1-v100 implies the real DGX-1 matrix cell for cell (topo-m/06)") {
  Topology topo = load_topology(library_path("dgx1-v100.yaml"));
  check_matrix_equals(topo, calibration_path("06-v100x8-dgx1-cubemesh-topo-m-konnase.txt"));
}

TEST_CASE("dgx1-v100-broadwell implies the real DGX-1V matrix incl. its NICs (topo-m/14)") {
  Topology topo = load_topology(library_path("dgx1-v100-broadwell.yaml"));
  check_matrix_equals(topo, calibration_path("14-v100x8-dgx1v-topo-m-empovit.txt"));
}

TEST_CASE("rtx4090-8gpu-server implies the real matrix incl. NIC0 (topo-m/13)") {
  Topology topo = load_topology(library_path("rtx4090-8gpu-server.yaml"));
  check_matrix_equals(topo,
                      calibration_path("13-rtx4090-x8-pcie-switch-server-topo-m-nccltests307.txt"));
}

TEST_CASE("dual-2080ti implies the real PIX pair (topo-m/07)") {
  Topology topo = load_topology(library_path("dual-2080ti.yaml"));
  check_matrix_equals(topo, calibration_path("07-rtx2080ti-x2-pix-topo-m-autodl.txt"));
}

TEST_CASE("NVSwitch machines: every GPU pair is one bonded NVLink set") {
  // NV# = lanes per GPU: all switch planes together (DGX H100 5+4+4+5, DGX A100 6x2, ...).
  const std::map<std::string, std::string> label = {
      {"dgx-h100.yaml", "NV18"}, {"hgx-h200.yaml", "NV18"}, {"hgx-b200.yaml", "NV18"},
      {"dgx-a100.yaml", "NV12"}, {"oci-a100-roce.yaml", "NV12"}, {"gb200-nvl72.yaml", "NV18"}};
  for (const auto& entry : label) {
    const auto& file = entry.first;  // clang 14: CAPTURE cannot take a structured binding
    const auto& expected = entry.second;
    INFO("topologies/", file);
    Topology topo = load_topology(library_path(file));
    Router router(topo);
    std::vector<DeviceId> gpus = topo.devices_of(0, DeviceKind::kGpu);
    for (size_t a = 0; a < gpus.size(); ++a) {
      for (size_t b = a + 1; b < gpus.size(); ++b) CHECK(cell(router, gpus[a], gpus[b]) == expected);
    }
  }
}

TEST_CASE("dgx-h100: GPUi-NICi PIX, NODE within a socket, SYS across") {
  // One Gen5 switch per GPU+NIC; switches 0-3 on socket 0 (own root ports), 4-7 on socket 1.
  Topology topo = load_topology(library_path("dgx-h100.yaml"));
  Router router(topo);
  std::vector<DeviceId> gpus = topo.devices_of(0, DeviceKind::kGpu);
  std::vector<DeviceId> nics = topo.devices_of(0, DeviceKind::kNic);
  for (size_t g = 0; g < 8; ++g) {
    for (size_t n = 0; n < 8; ++n) {
      std::string expected = g == n ? "PIX" : (g / 4 == n / 4 ? "NODE" : "SYS");
      INFO("GPU", g, " NIC", n);
      CHECK(cell(router, gpus[g], nics[n]) == expected);
    }
    CHECK(router.nearest_nic(gpus[g]) == nics[g]);
  }
}

TEST_CASE("dgx-a100: two GPUs and two NICs per PCIe switch") {
  Topology topo = load_topology(library_path("dgx-a100.yaml"));
  Router router(topo);
  std::vector<DeviceId> gpus = topo.devices_of(0, DeviceKind::kGpu);
  std::vector<DeviceId> nics = topo.devices_of(0, DeviceKind::kNic);
  // switch s holds GPUs 2s, 2s+1 and NICs 2s, 2s+1; switches 0-1 on socket 0.
  CHECK(cell(router, gpus[0], nics[0]) == "PIX");
  CHECK(cell(router, gpus[0], nics[1]) == "PIX");
  CHECK(cell(router, gpus[0], nics[2]) == "NODE");
  CHECK(cell(router, gpus[0], nics[4]) == "SYS");
}

TEST_CASE("pcie-8gpu: PIX within a switch, NODE across switches, SYS across sockets") {
  Topology topo = load_topology(library_path("pcie-8gpu.yaml"));
  Router router(topo);
  std::vector<DeviceId> gpus = topo.devices_of(0, DeviceKind::kGpu);
  std::vector<DeviceId> nics = topo.devices_of(0, DeviceKind::kNic);
  for (size_t a = 0; a < 8; ++a) {
    for (size_t b = a + 1; b < 8; ++b) {
      // switch = gpu / 2, socket = gpu / 4
      std::string expected = a / 2 == b / 2 ? "PIX" : (a / 4 == b / 4 ? "NODE" : "SYS");
      INFO("GPU", a, " GPU", b);
      CHECK(cell(router, gpus[a], gpus[b]) == expected);
    }
    CHECK(cell(router, gpus[a], nics[a / 2]) == "PIX");
  }
}

TEST_CASE("dual-4090 and the PCIe-only machines show no NVLink") {
  for (std::string file : {"dual-4090.yaml", "dual-2080ti.yaml", "pcie-8gpu.yaml",
                           "rtx4090-8gpu-server.yaml"}) {
    INFO("topologies/", file);
    Topology topo = load_topology(library_path(file));
    Router router(topo);
    std::vector<DeviceId> gpus = topo.devices_of(0, DeviceKind::kGpu);
    for (size_t a = 0; a < gpus.size(); ++a) {
      for (size_t b = a + 1; b < gpus.size(); ++b) {
        CHECK(router.classify(gpus[a], gpus[b]) != PathClass::kNvlink);
      }
    }
  }
  // Both 4090s below one CPU host bridge, and neither allows P2P (catalog default).
  Topology pair = load_topology(library_path("dual-4090.yaml"));
  Router router(pair);
  std::vector<DeviceId> gpus = pair.devices_of(0, DeviceKind::kGpu);
  CHECK(cell(router, gpus[0], gpus[1]) == "PHB");
  CHECK_FALSE(pair.device(gpus[0]).p2p);
}

TEST_CASE("bridged PCIe pairs: A40 NV4 pairs with NODE/SYS, A100 PCIe NV12") {
  // The LLM-Insights matrix: 0-1 NV4, 1-2 NODE, 1-6 SYS.
  Topology a40 = load_topology(library_path("a40-8gpu-nvlink-pairs.yaml"));
  Router router(a40);
  std::vector<DeviceId> gpus = a40.devices_of(0, DeviceKind::kGpu);
  CHECK(cell(router, gpus[0], gpus[1]) == "NV4");
  CHECK(cell(router, gpus[6], gpus[7]) == "NV4");
  CHECK(cell(router, gpus[1], gpus[2]) == "NODE");
  CHECK(cell(router, gpus[1], gpus[6]) == "SYS");
  Topology a100 = load_topology(library_path("a100-pcie-nvlink-pair.yaml"));
  Router pair_router(a100);
  std::vector<DeviceId> pair = a100.devices_of(0, DeviceKind::kGpu);
  CHECK(cell(pair_router, pair[0], pair[1]) == "NV12");
}

}  // TEST_SUITE("topology.library.matrix")

}  // namespace linksim
