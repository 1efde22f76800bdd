// SPDX-License-Identifier: Apache-2.0
// `linksim topo show|matrix|dot` end to end through the real binary (LINKSIM_CLI_PATH).
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

struct CliResult {
  int status = -1;
  std::string out;  ///< stdout and stderr together
};

CliResult run_cli(const std::string& args) {
  const std::string command = std::string(LINKSIM_CLI_PATH) + " " + args + " 2>&1";
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    result.out.append(buffer.data(), n);
  }
  const int raw = pclose(pipe);
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return result;
}

const std::string kDgxH100 = std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml";

}  // namespace

TEST_SUITE("routing") {

TEST_CASE("cli: topo matrix of a DGX H100 shows NV18, PIX to its own NIC, NODE and SYS") {
  const CliResult r = run_cli("topo matrix " + kDgxH100);
  REQUIRE(r.status == 0);
  // GPU0's row: X, then NV18 to the 7 other GPUs; NIC0 (same PCIe switch) PIX; NIC1 on
  // another switch of socket 0 NODE; NIC4 on socket 1 SYS.
  CHECK(r.out.find("GPU0\t X \tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tPIX\tNODE\tNODE\tNODE\t"
                   "SYS\tSYS\tSYS\tSYS\t0-55,112-167") != std::string::npos);
  CHECK(r.out.find("NIC Legend:") != std::string::npos);
  CHECK(r.out.find("NIC1: mlx5_3") != std::string::npos);
  // 18 lanes x 25 GB/s over the four planes: 450 GB/s per direction.
  CHECK(r.out.find("GPU0  X      450.0") != std::string::npos);
}

TEST_CASE("cli: topo matrix rejects a bad --host and a missing file with status 2") {
  const CliResult bad_host = run_cli("topo matrix " + kDgxH100 + " --host 3");
  CHECK(bad_host.status == 2);
  CHECK(bad_host.out == "linksim: error: expected --host between 0 and 0, got 3\n");
  CHECK(run_cli("topo matrix /nonexistent/x.yaml").status == 2);
  CHECK(run_cli("topo show /nonexistent/x.yaml").status == 2);
}

TEST_CASE("cli: topo show and dot") {
  const CliResult show = run_cli("topo show " + kDgxH100);
  REQUIRE(show.status == 0);
  CHECK(show.out.find("GPU0 gpu0 (h100-sxm): NVLink 18 lanes, 450 GB/s; PCIe gpu0 > pciesw0 > "
                      "cpu0") != std::string::npos);
  CHECK(show.out.find("nearest NIC: NIC0 (mlx5_0, PIX)") != std::string::npos);
  CHECK(show.out.find("bisection bandwidth") != std::string::npos);
  // The host platform of the file, NCCL's default P2P level on it (8 GPUs: PXB), and what
  // bounds its host-staged copies (no measurement of its own: PCIe, 8 x DDR5-4800 of memory
  // per socket, NCCL's 22 GB/s for the socket link).
  CHECK(show.out.find("host: intel-sapphire-rapids = Intel Xeon Scalable gen 4 (Sapphire "
                      "Rapids); NCCL's default P2P level PXB; host-staged copies bounded by the "
                      "GPU's PCIe link, memory (307.2 GB/s per socket), the socket link (22 GB/s)\n") !=
        std::string::npos);
  // A machine's own measured staged rate, only the one it has (the A40 server of calibration
  // 06: across its sockets), on a host of unknown platform.
  const CliResult a40 = run_cli("topo show " + std::string(LINKSIM_SOURCE_DIR) +
                                "/topologies/a40-8gpu-nvlink-pairs.yaml");
  REQUIRE(a40.status == 0);
  CHECK(a40.out.find("host: generic = Unknown x86 server CPU (the default); NCCL's default P2P "
                     "level PXB; host-staged copies bounded by the GPU's PCIe link and a "
                     "measurement: 1.44 GB/s across the sockets\n") != std::string::npos);
  // The 2x RTX 2080 Ti's own rate sits on its second socket, below which its GPUs are.
  const CliResult pair = run_cli("topo show " + std::string(LINKSIM_SOURCE_DIR) +
                                 "/topologies/dual-2080ti.yaml");
  REQUIRE(pair.status == 0);
  CHECK(pair.out.find("host-staged copies bounded by the GPU's PCIe link and a measurement: 4 "
                      "GB/s within a socket\n") != std::string::npos);
  const CliResult json = run_cli("topo show --json " + kDgxH100);
  CHECK(json.status == 0);
  CHECK(json.out.find("\"nvlink_lanes\": 18") != std::string::npos);
  CHECK(json.out.find("\"p2p_level\": \"PXB\"") != std::string::npos);
  CHECK(json.out.find("\"platform\": \"intel-sapphire-rapids\"") != std::string::npos);
  const CliResult dot = run_cli("topo dot " + kDgxH100);
  CHECK(dot.status == 0);
  CHECK(dot.out.rfind("graph G {", 0) == 0);
  // 32 DGX H100 (30 devices each) and a 12-switch fabric: 972 devices, collapsed by default;
  // a raised threshold draws every server as a cluster.
  const std::string cluster = std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100-ib.yaml";
  const CliResult big = run_cli("topo dot " + cluster + " --set nodes=32");
  CHECK(big.status == 0);
  CHECK(big.out.find("label=\"dgx-h100-ib (collapsed: 972 devices)\";") != std::string::npos);
  CHECK(big.out.find("more_hosts [label=\"28 more servers\\nhost4..host31\"") != std::string::npos);
  const CliResult full = run_cli("topo dot " + cluster + " --set nodes=32 --collapse-above 1000");
  CHECK(full.status == 0);
  CHECK(full.out.find("subgraph cluster_host31 {") != std::string::npos);
  CHECK(run_cli("topo dot " + kDgxH100 + " --collapse-above x").status == 2);
  CHECK(run_cli("topo show --help").status == 0);
}

}  // TEST_SUITE
