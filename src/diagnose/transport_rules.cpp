// SPDX-License-Identifier: Apache-2.0
// The rules about each connection's transport: p2p-disabled, socket-instead-of-ib, gdr-off and
// wrong-nic. Each logged hop is set against the route linksim's router gives the same GPU pair
// (or GPU and NIC) under NCCL's default settings (docs/diagnose.md#findings).
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "diagnose/rules.hpp"

namespace linksim::diagnose_detail {
namespace {

std::vector<NcclLogLine> hop_lines(const std::vector<const NcclLogHop*>& hops) {
  std::vector<NcclLogLine> lines;
  for (const NcclLogHop* h : hops) lines.push_back(h->source);
  return lines;
}

std::vector<const NcclLogHop*> hops_where(const NcclLog& log, bool (*keep)(const NcclLogHop&)) {
  std::vector<const NcclLogHop*> out;
  for (const NcclLogHop& h : log.hops) {
    if (keep(h)) out.push_back(&h);
  }
  return out;
}

void sort_evidence(std::vector<NcclLogLine>& evidence) {
  std::sort(evidence.begin(), evidence.end(),
            [](const NcclLogLine& a, const NcclLogLine& b) { return a.line < b.line; });
  evidence.erase(std::unique(evidence.begin(), evidence.end(),
                             [](const NcclLogLine& a, const NcclLogLine& b) { return a.line == b.line; }),
                 evidence.end());
}

// The GPU whose NIC a NET hop uses: the receiver's for a [receive] line, the PXN proxy's or
// the sender's for a send.
std::optional<DeviceId> nic_gpu(const RuleContext& ctx, const NcclLogHop& h) {
  if (h.receive) return h.to_rank ? ctx.gpu(*h.to_rank) : std::nullopt;
  return ctx.gpu(h.proxy_rank.value_or(h.from_rank));
}

// NCCL_P2P_DISABLE=1, or NCCL_P2P_LEVEL=LOC (NCCL 2.11 reports the former as the latter).
const NcclLogEnv* p2p_off_env(const NcclLog& log) {
  const NcclLogEnv* disable = log.env_var("NCCL_P2P_DISABLE");
  if (disable && disable->value == "1") return disable;
  const NcclLogEnv* level = log.env_var("NCCL_P2P_LEVEL");
  if (level && parse_p2p_level(level->value) == PathClass::kSelf) return level;
  return nullptr;
}

// The log turns P2P off but shows no connection: the ranks' GPU pairs of one server that
// would have P2P on the machine.
size_t p2p_pairs(const RuleContext& ctx, std::string* example) {
  size_t pairs = 0;
  const auto& gpus = ctx.machine->gpus;
  for (size_t a = 0; a < gpus.size(); ++a) {
    for (size_t b = a + 1; b < gpus.size(); ++b) {
      const Topology& t = ctx.machine->topology;
      if (t.device(gpus[a]).host != t.device(gpus[b]).host) continue;
      const Route r = ctx.machine->router.route(gpus[a], gpus[b]);
      if (r.transport != Transport::kP2p) continue;
      if (pairs++ == 0) *example = fmt::format("ranks {} and {} are {}", a, b, r.label());
    }
  }
  return pairs;
}

std::optional<RuledFinding> p2p_disabled(const RuleContext& ctx) {
  const auto shm = hops_where(ctx.log, [](const NcclLogHop& h) {
    return h.transport == NcclLogTransport::kShm && h.to_rank.has_value();
  });
  const NcclLogEnv* off = p2p_off_env(ctx.log);
  if (shm.empty() && off == nullptr) return std::nullopt;
  if (shm.empty()) {
    RuledFinding out;
    Finding& f = out.finding;
    f.key = std::string(kFindingP2pDisabled);
    f.evidence.push_back(off->source);
    std::string example;
    const size_t pairs = ctx.machine ? p2p_pairs(ctx, &example) : 0;
    f.severity = ctx.machine == nullptr ? FindingSeverity::kInfo
                 : pairs > 0            ? FindingSeverity::kFault
                                        : FindingSeverity::kExpected;
    f.message = fmt::format("{}={} turns GPU peer to peer off: every pair goes through host memory",
                            off->name, off->value);
    if (f.severity == FindingSeverity::kFault) {
      f.message += fmt::format(" although {} GPU pairs have P2P on this machine ({})", pairs, example);
      CostSetting s{.words = off->name + "=" + off->value, .logged = ctx.machine->options,
                    .best = ctx.machine->options, .bound_note = {}};
      s.logged.p2p_disable = true;
      out.cost = s;
    }
    return out;
  }
  RuledFinding out;
  Finding& f = out.finding;
  f.key = std::string(kFindingP2pDisabled);
  add_evidence(f.evidence, hop_lines(shm));
  add_env_evidence(f.evidence, ctx.log, {"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"});
  add_evidence(f.evidence, ctx.log.p2p_refused);
  sort_evidence(f.evidence);
  if (ctx.machine == nullptr) {
    f.severity = FindingSeverity::kInfo;
    f.message = fmt::format("{} connections go through host memory (SHM) instead of GPU peer "
                            "to peer; give the machine (--topo) to judge whether P2P was possible",
                            shm.size());
    return out;
  }
  size_t could = 0;
  std::string example;
  for (const NcclLogHop* h : shm) {
    const auto a = ctx.gpu(h->from_rank);
    const auto b = ctx.gpu(*h->to_rank);
    if (!a || !b || ctx.machine->topology.device(*a).host != ctx.machine->topology.device(*b).host) {
      continue;
    }
    const Route r = ctx.machine->router.route(*a, *b);
    if (r.transport != Transport::kP2p) continue;
    if (could++ == 0) example = fmt::format("ranks {} and {} are {}", h->from_rank, *h->to_rank, r.label());
  }
  if (could == 0) {
    f.severity = FindingSeverity::kExpected;
    f.message = fmt::format("{} connections go through host memory (SHM), as NCCL would on this "
                            "machine: its GPUs have no P2P path within NCCL's P2P level",
                            shm.size());
    return out;
  }
  f.severity = FindingSeverity::kFault;
  f.message = fmt::format("{} of {} host-memory (SHM) connections join GPUs that have P2P on this "
                          "machine ({}): P2P is disabled (NCCL_P2P_DISABLE or NCCL_P2P_LEVEL, "
                          "ACS/IOMMU redirecting PCIe, or a driver without P2P)",
                          could, shm.size(), example);
  CostSetting s{.words = "P2P off (SHM)", .logged = ctx.machine->options, .best = ctx.machine->options, .bound_note = {}};
  const NcclLogEnv* level = ctx.log.env_var("NCCL_P2P_LEVEL");
  const NcclLogEnv* disable = ctx.log.env_var("NCCL_P2P_DISABLE");
  if (disable && disable->value == "1") {
    s.words = "NCCL_P2P_DISABLE=1";
    s.logged.p2p_disable = true;
  } else if (level && parse_p2p_level(level->value)) {
    s.words = "NCCL_P2P_LEVEL=" + level->value;
    s.logged.p2p_level = parse_p2p_level(level->value);
  } else {
    s.logged.p2p_disable = true;
  }
  out.cost = s;
  return out;
}

std::optional<RuledFinding> socket_instead_of_ib(const RuleContext& ctx) {
  const auto socket = hops_where(ctx.log, [](const NcclLogHop& h) {
    return h.transport == NcclLogTransport::kNetSocket;
  });
  if (socket.empty()) return std::nullopt;
  RuledFinding out;
  Finding& f = out.finding;
  f.key = std::string(kFindingSocketInsteadOfIb);
  add_evidence(f.evidence, hop_lines(socket));
  if (ctx.log.network) f.evidence.push_back(*ctx.log.network);
  add_evidence(f.evidence, ctx.log.no_ib_device);
  add_env_evidence(f.evidence, ctx.log, {"NCCL_IB_DISABLE", "NCCL_NET", "NCCL_IB_HCA"});
  sort_evidence(f.evidence);
  if (ctx.machine == nullptr) {
    f.severity = FindingSeverity::kInfo;
    f.message = fmt::format("{} connections between servers use TCP sockets (NET/Socket); give "
                            "the machine (--topo) to judge whether it has InfiniBand or RoCE NICs",
                            socket.size());
    return out;
  }
  std::optional<DeviceId> nic;
  for (const NcclLogHop* h : socket) {
    if (const auto g = nic_gpu(ctx, *h)) nic = nic ? nic : ctx.machine->router.nearest_nic(*g);
  }
  if (!nic) {
    f.severity = FindingSeverity::kExpected;
    f.message = fmt::format("{} connections use TCP sockets (NET/Socket): the machine has no "
                            "InfiniBand or RoCE NIC for its GPUs", socket.size());
    return out;
  }
  const Device& d = ctx.machine->topology.device(*nic);
  const std::string& port = ctx.machine->topology.details(*nic).port_name;
  f.severity = FindingSeverity::kFault;
  f.message = fmt::format("{} connections use TCP sockets (NET/Socket) although the machine has "
                          "{} NICs ({}): NCCL found no usable IB device (NCCL_IB_DISABLE, "
                          "NCCL_NET=Socket, missing verbs library or driver)",
                          socket.size(), d.model, port.empty() ? d.name.str() : port);
  // The cost: NCCL's socket transport (docs/model.md#net-socket), named by the variable the
  // log shows when it shows one.
  CostSetting s{.words = "NET/Socket", .logged = ctx.machine->options,
                .best = ctx.machine->options,
                .bound_note = "the socket transport's TCP copies and per-connection threads "
                              "(NCCL_SOCKET_NTHREADS, NCCL_NSOCKS_PERTHREAD) are not modelled: "
                              "the logged busbw is an upper bound"};
  s.logged.net_socket = true;
  const NcclLogEnv* ib_disable = ctx.log.env_var("NCCL_IB_DISABLE");
  const NcclLogEnv* net = ctx.log.env_var("NCCL_NET");
  if (ib_disable && ib_disable->value == "1") {
    s.words = "NCCL_IB_DISABLE=1 (NET/Socket)";
  } else if (net) {
    s.words = "NCCL_NET=" + net->value + " (NET/Socket)";
  }
  out.cost = s;
  return out;
}

std::optional<RuledFinding> gdr_off(const RuleContext& ctx) {
  const auto plain = hops_where(ctx.log, [](const NcclLogHop& h) {
    return (h.transport == NcclLogTransport::kNetIb || h.transport == NcclLogTransport::kNetOfi) &&
           !h.gdr;
  });
  if (plain.empty()) return std::nullopt;
  RuledFinding out;
  Finding& f = out.finding;
  f.key = std::string(kFindingGdrOff);
  add_evidence(f.evidence, hop_lines(plain));
  add_evidence(f.evidence, ctx.log.gdr_disabled);
  add_env_evidence(f.evidence, ctx.log, {"NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ"});
  sort_evidence(f.evidence);
  if (ctx.machine == nullptr) {
    f.severity = FindingSeverity::kInfo;
    f.message = fmt::format("{} network connections stage data in host memory (no /GDRDMA); give "
                            "the machine (--topo) to judge whether GPUDirect RDMA was possible",
                            plain.size());
    return out;
  }
  size_t could = 0;
  for (const NcclLogHop* h : plain) {
    const auto g = nic_gpu(ctx, *h);
    const auto nic = g ? ctx.machine->router.nearest_nic(*g) : std::nullopt;
    if (nic && ctx.machine->router.route(*g, *nic).transport == Transport::kP2p) ++could;
  }
  if (could == 0) {
    f.severity = FindingSeverity::kExpected;
    f.message = fmt::format("{} network connections stage data in host memory, as NCCL would "
                            "here: no GPU shares a PCIe switch with its NIC (NCCL_NET_GDR_LEVEL "
                            "PXB)", plain.size());
    return out;
  }
  f.severity = FindingSeverity::kFault;
  f.message = fmt::format("{} of {} network connections stage data in host memory although the "
                          "GPU and its NIC share a PCIe switch: GPUDirect RDMA is off (no "
                          "nvidia-peermem / nv_peer_mem module, NCCL_NET_GDR_LEVEL, ACS)",
                          could, plain.size());
  // The cost: the logged NCCL_NET_GDR_LEVEL when the log shows one NCCL reads, else GPUDirect
  // RDMA off altogether (level LOC: no peer-memory module), docs/model.md#gdr-off.
  CostSetting s{.words = "GPUDirect RDMA off (NCCL_NET_GDR_LEVEL=LOC)",
                .logged = ctx.machine->options, .best = ctx.machine->options, .bound_note = {}};
  s.logged.net_gdr_level = PathClass::kSelf;
  // A logged level below NCCL's default PXB explains the staging; one at or above it does not
  // (the module is missing), so it is not the setting costed.
  const NcclLogEnv* level = ctx.log.env_var("NCCL_NET_GDR_LEVEL");
  const std::optional<PathClass> logged_level =
      level ? parse_p2p_level(level->value) : std::nullopt;
  if (logged_level && *logged_level < PathClass::kPxb) {
    s.words = "NCCL_NET_GDR_LEVEL=" + level->value;
    s.logged.net_gdr_level = logged_level;
  }
  out.cost = s;
  return out;
}

// The NIC name of NCCL's device `index`, from the log's "NET/IB : Using" list.
const NcclLogNetDevice* ib_device(const NcclLog& log, int index) {
  for (const NcclLogNetDevice& d : log.ib_devices) {
    if (d.index == index) return &d;
  }
  return nullptr;
}

std::string nic_name(const Topology& t, const Device& d) {
  const std::string& port = t.details(d).port_name;
  return port.empty() ? d.name.str() : port;
}

// Needs the log's IB device list: NCCL numbers its NICs in that list (one entry per port), so
// an index alone says nothing about which NIC of the topology it is.
std::optional<RuledFinding> wrong_nic(const RuleContext& ctx) {
  if (ctx.machine == nullptr || ctx.log.ib_devices.empty()) return std::nullopt;
  const Topology& t = ctx.machine->topology;
  std::vector<const NcclLogHop*> wrong;
  std::set<std::string> used;
  std::string example;
  for (const NcclLogHop& h : ctx.log.hops) {
    if ((h.transport != NcclLogTransport::kNetIb) || !h.net_dev) continue;
    const NcclLogNetDevice* dev = ib_device(ctx.log, *h.net_dev);
    if (dev == nullptr) continue;
    used.insert(dev->name);
    const auto g = nic_gpu(ctx, h);
    const auto nic = g ? ctx.machine->router.nearest_nic(*g) : std::nullopt;
    if (!nic || nic_name(t, t.device(*nic)) == dev->name) continue;
    if (wrong.empty()) {
      example = fmt::format("{} uses {} where its nearest NIC is {}", t.display_name(*g), dev->name,
                            nic_name(t, t.device(*nic)));
    }
    wrong.push_back(&h);
  }
  if (wrong.empty()) return std::nullopt;
  RuledFinding out;
  Finding& f = out.finding;
  f.key = std::string(kFindingWrongNic);
  f.severity = FindingSeverity::kFault;
  add_evidence(f.evidence, hop_lines(wrong));
  f.evidence.push_back(ctx.log.ib_devices.front().source);
  add_env_evidence(f.evidence, ctx.log, {"NCCL_IB_HCA", "NCCL_CROSS_NIC"});
  sort_evidence(f.evidence);
  f.message = fmt::format("{} network connections use a NIC other than the GPU's nearest ({})",
                          wrong.size(), example);
  // The cost: NCCL restricted to the NICs the log shows (NCCL_IB_HCA with exact names) that
  // the topology has.
  CostSetting s{.words = "", .logged = ctx.machine->options, .best = ctx.machine->options, .bound_note = {}};
  s.logged.ib_hca.exact = true;
  std::vector<std::string> names;
  for (const Device& d : t.devices()) {
    if (d.kind != DeviceKind::kNic || d.host != 0 || !used.count(nic_name(t, d))) continue;
    s.logged.ib_hca.entries.push_back({nic_name(t, d), std::nullopt});
    names.push_back(nic_name(t, d));
  }
  if (names.empty()) return out;
  s.words = "NCCL_IB_HCA==" + fmt::format("{}", fmt::join(names, ","));
  out.cost = s;
  return out;
}

}  // namespace

std::vector<RuledFinding> transport_findings(const RuleContext& ctx) {
  std::vector<RuledFinding> out;
  for (auto rule : {p2p_disabled, socket_instead_of_ib, gdr_off, wrong_nic}) {
    if (auto f = rule(ctx)) out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace linksim::diagnose_detail
