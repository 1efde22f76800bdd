// SPDX-License-Identifier: Apache-2.0
// A real NCCL_DEBUG=INFO log, as people paste it, read into the facts it states: the release,
// ranks and nodes, each rank's GPU, rings, trees, channel counts, each hop's transport and the
// environment variables NCCL reports. Lines it does not know are skipped; nothing is inferred
// that no line says (docs/diagnose.md#reading-a-log).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/catalog.hpp"
#include "linksim/nccl_version.hpp"

namespace linksim {

/// A line of the log that states a fact: its 1-based number and its text as written (with
/// launcher and host prefixes).
struct NcclLogLine {
  int line = 0;
  std::string text;
};

/// The transport NCCL names after "via" in a connection line (src/transport/*.cc).
enum class NcclLogTransport {
  kP2pIpc,       ///< "P2P/IPC": legacy CUDA IPC between processes
  kP2pCumem,     ///< "P2P/CUMEM" (and "P2P/MNNVL"): cuMem handles, NCCL 2.19+
  kP2pDirect,    ///< "P2P/direct pointer": both GPUs in one process
  kP2pIndirect,  ///< "P2P/indirect/r[d]": through an intermediate GPU
  kShm,          ///< "SHM/...": staged through host memory
  kNetIb,        ///< "NET/IB..." (also the IBext plugin): InfiniBand or RoCE verbs
  kNetSocket,    ///< "NET/Socket": TCP sockets
  kNetOfi,       ///< "NET/AWS Libfabric", "NET/Libfabric", "NET/OFI": the aws-ofi-nccl plugin
  kNetOther,     ///< any other network plugin's name
  kCollNet,      ///< "COLLNET/...": in-network reduction (SHARP)
};
/// "P2P/IPC", "P2P/CUMEM", "P2P/direct", "P2P/indirect", "SHM", "NET/IB", "NET/Socket",
/// "NET/OFI", "NET/other", "CollNet".
std::string_view to_string(NcclLogTransport transport);
/// True for the P2P transports (IPC, CUMEM, direct pointer, indirect).
bool is_p2p(NcclLogTransport transport);
/// True for NET/* transports.
bool is_net(NcclLogTransport transport);

/// One connection NCCL set up: rank `from_rank` sends to `to_rank` on `channel`.
struct NcclLogHop {
  int from_rank = 0;
  /// The receiving rank; nullopt for a CollNet connection (the network is the peer).
  std::optional<int> to_rank;
  int channel = 0;
  NcclLogTransport transport = NcclLogTransport::kP2pIpc;
  std::string via;           ///< the text after "via": "NET/IB/0/GDRDMA", "SHM/direct/direct"
  bool gdr = false;          ///< NET and CollNet: "/GDRDMA" (GPUDirect RDMA)
  bool read = false;         ///< P2P: "/read"
  std::optional<int> net_dev;     ///< NET: NCCL's index of the NIC ("NET/IB/3" -> 3)
  std::optional<int> proxy_rank;  ///< NET send through PXN: "NET/IB/0(5)" -> 5
  bool receive = false;      ///< "[receive]": printed by the receiving rank
  NcclLogLine source;
};

/// What the log says about one rank's GPU.
struct NcclLogRank {
  int rank = 0;
  std::optional<int> cuda_dev;    ///< "cudaDev D" (Init COMPLETE line)
  std::optional<int> nvml_dev;    ///< "nvmlDev D", or "r[D]" in a connection line of 2.18+
  std::optional<std::string> bus_id;  ///< "busId 18000", or "r[18000]" before 2.18 (hex)
  std::string host;               ///< the host name of its lines' "host:pid:tid" prefix
  std::optional<long long> pid;
};

/// A ring channel's order as "Channel 00/24 : 0 1 2 3" prints it.
struct NcclLogRing {
  int channel = 0;
  std::vector<int> ranks;
  NcclLogLine source;
};

/// One rank's "Trees [c] d0/d1/d2->rank->up" entry for channel c (-1 = none).
struct NcclLogTreeNode {
  int channel = 0;
  int rank = 0;
  int up = -1;
  std::vector<int> down;  ///< the children, without -1
  NcclLogLine source;
};

/// "NAME set by environment to VALUE" (param.cc, paths.cc and the others).
struct NcclLogEnv {
  std::string name;
  std::string value;
  NcclLogLine source;
};

/// One NIC of NCCL's IB device list ("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ; OOB
/// ..."): the index the connection lines' "NET/IB/<index>" refers to.
struct NcclLogNetDevice {
  int index = 0;
  std::string name;  ///< "mlx5_0"
  int port = 1;
  NcclLogLine source;
};

/// A CPU as NCCL's topology dump prints it ("CPU/0-0 (1/1/2)", src/graph/topo.cc
/// ncclTopoPrintRec): NCCL's own codes (src/graph/topo.h) for its architecture (1 x86, 2 POWER,
/// 3 Arm), vendor (x86: 1 Intel, 2 AMD, 3 Zhaoxin) and model (Intel: 1 Broadwell and older, 2
/// Skylake to Ice Lake, 3 Sapphire Rapids, 4 Emerald Rapids and newer; -1 where NCCL sets none).
struct NcclLogCpu {
  int arch = 0;
  int vendor = 0;
  int model = -1;
  NcclLogLine source;
};

/// A GPU's PCIe link as NCCL's topology dump prints it ("+ PCI[24.0] - GPU/0-4e000 (3)",
/// src/graph/topo.cc ncclTopoPrintRec): the bandwidth NCCL counts for it, GB/s, from the
/// link's speed and width as sysfs reports them (src/graph/xml.cc; topo.h: width x GT/s / 80
/// per lane, 24.0 for Gen4 x16, 12.0 for Gen4 x8 or Gen3 x16), the GPU's PCI bus id and its
/// rank.
struct NcclLogGpuLink {
  std::string bus_id;  ///< "4e000", as the dump prints it (hex, no domain)
  int rank = 0;
  double nccl_bw_GBps = 0;
  NcclLogLine source;
};

/// NCCL's architecture and vendor codes as the catalog's values; nullopt for a code the
/// catalog has none for (vendor: also for an architecture other than x86, which has none).
std::optional<CpuArch> nccl_cpu_arch(const NcclLogCpu& cpu);
std::optional<CpuVendor> nccl_cpu_vendor(const NcclLogCpu& cpu);

/// The catalog host platform (data/catalog/platforms.yaml) NCCL's CPU codes name under the
/// log's `release`, where they name one: the Intel classes (intel-broadwell; intel-skylake for
/// Skylake to Ice Lake; intel-sapphire-rapids, intel-emerald-rapids) and Zhaoxin. NCCL has
/// told Sapphire and Emerald Rapids from Skylake since 2.26 (topo.h SRP_QPI_BW, ERP_QPI_BW):
/// before it, or with no release known, the Skylake code names no platform. "" also for an
/// AMD CPU's generation and an Arm or POWER CPU's maker, which the codes do not carry.
std::string nccl_cpu_platform(const NcclLogCpu& cpu, std::optional<NcclVersion> release);
/// NCCL's CPU codes in words under `release`: "x86 Intel, NCCL's Skylake class (Skylake to Ice
/// Lake)".
std::string describe_nccl_cpu(const NcclLogCpu& cpu, std::optional<NcclVersion> release);

/// A number the log states, with the line that states it.
struct NcclLogCount {
  int value = 0;
  NcclLogLine source;
};

/// Everything one log states. Counts are nullopt when no line states them.
struct NcclLog {
  std::string file;
  std::optional<std::string> version;        ///< "2.18.3+cuda12.2" ("NCCL version ...")
  std::optional<NcclLogLine> version_line;
  std::optional<NcclLogCount> ranks;         ///< "nRanks N" / "nranks N"
  std::optional<NcclLogCount> nodes;         ///< "nNodes N" (2.19+)
  std::vector<NcclLogRank> rank_info;        ///< by rank number, for each rank the log names
  std::vector<NcclLogRing> rings;            ///< one per channel line, in log order
  std::optional<NcclLogCount> ring_channels; ///< "Channel 00/NN :": NN
  std::vector<NcclLogTreeNode> trees;
  std::optional<NcclLogCount> coll_channels;      ///< "N coll channels"
  std::optional<NcclLogCount> nvls_channels;      ///< "N nvls channels" (2.17+)
  std::optional<NcclLogCount> collnet_channels;   ///< "N collnet channels" (2.19+)
  std::optional<NcclLogCount> p2p_channels;       ///< "N p2p channels"
  std::optional<NcclLogCount> p2p_channels_per_peer;
  std::vector<NcclLogHop> hops;              ///< one per connection line (duplicates kept)
  std::vector<NcclLogEnv> env;               ///< in log order; repeats kept
  std::optional<NcclLogLine> network;        ///< "Using network IB"
  std::string network_name;                  ///< "IB", "Socket", "AWS Libfabric"
  std::vector<NcclLogLine> p2p_refused;      ///< "Could not enable P2P between dev ..."
  std::vector<NcclLogLine> gdr_disabled;     ///< "GPU Direct RDMA Disabled for ..."
  std::vector<NcclLogLine> no_ib_device;     ///< "NET/IB : No device found."
  std::vector<NcclLogLine> nvls_unavailable; ///< "NVLS multicast support is not available"
  std::vector<NcclLogLine> nvls_available;   ///< "NVLS multicast support is available"
  std::vector<NcclLogLine> nvls_used;        ///< "NVLS comm ...", "Connected NVLS"
  std::vector<NcclLogLine> ring_pxn;         ///< "Connected all rings, use ring PXN 1 ..."
  std::vector<NcclLogLine> nics;             ///< "NET/IB : Using [0]mlx5_0:1/IB ..."
  std::vector<NcclLogNetDevice> ib_devices;  ///< the first "NET/IB : Using" line's list
  std::optional<NcclLogCpu> cpu;             ///< the topology dump's first CPU node
  std::vector<NcclLogGpuLink> gpu_links;     ///< the dump's GPU links, the first of each rank
  int nccl_lines = 0;                        ///< lines with NCCL's "NCCL INFO" / "NCCL WARN"

  /// The rank's entry, or nullptr when the log names no such rank.
  const NcclLogRank* rank(int r) const;
  /// The release as linksim models it ("2.18.3+cuda12.2" -> 2.18), or nullopt when the log
  /// states none or one outside the releases linksim knows.
  std::optional<NcclVersion> release() const;
  /// The last value the log reports for NCCL variable `name`, or nullopt.
  const NcclLogEnv* env_var(std::string_view name) const;
  /// The rank count: "nRanks", else one more than the highest rank a line names (0 if none).
  int rank_count() const;
  /// The coll channel count: "N coll channels", else the ring lines' "/NN", else nullopt.
  std::optional<NcclLogCount> channel_count() const;
  /// The node of each rank, 0-based, by rank (-1 for a rank no line places) and the count.
  /// Ranks share a node when one process holds both (same host:pid), when they are joined
  /// by a P2P or SHM hop, or when their lines carry the same host name, unless the log shows
  /// a network hop between ranks of one host name (clusters whose servers share a name).
  struct Nodes {
    std::vector<int> node_of_rank;
    int count = 0;
  };
  Nodes node_map() const;
};

/// Reads `text` (named `filename` in messages). Launcher prefixes ("[1,0]<stdout>:",
/// "[0]<stdout>:", srun's "0: ", torchrun's "[rank0]:" and "[default0]:") are removed, then
/// NCCL's "host:pid:tid [dev] NCCL INFO" header. Throws ConfigError at file:line:column for:
/// a byte that is not text ("expected text, got byte 0x00"), a file without any NCCL line
/// ("expected an NCCL_DEBUG=INFO log ..., got no NCCL line; line 1 is ..."), and a known
/// line cut short (a connection line without its transport, the last line truncated).
NcclLog parse_nccl_log(std::string_view text, const std::string& filename);

/// Reads the file at `path` (read_input_file) and parses it.
NcclLog read_nccl_log(const std::string& path);

}  // namespace linksim

namespace linksim {

/// A topology skeleton (docs/topology-format.md) of the log's first node that the loader
/// accepts: its GPUs by NVML (else CUDA) index with the generic GPU model, one CPU, the NICs
/// its network connections name, GPUs that NCCL joined by P2P under one PCIe switch (SHM pairs
/// meet at the CPU), a NIC used with GPUDirect RDMA under its GPU's switch; comments list
/// which pairs NCCL reached how. Link speeds and the GPU model are the generic defaults of
/// `topo import` (docs/verify-and-lint.md#import), to be corrected by hand. `name` is the
/// topology's name. Throws ConfigError when the log does not name the GPU of a rank of its
/// first node.
std::string nccl_log_topology(const NcclLog& log, const std::string& name);

}  // namespace linksim
