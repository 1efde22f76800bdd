// SPDX-License-Identifier: Apache-2.0
// NcclLog's derived facts: rank and channel counts, the node of each rank.
#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <utility>

#include "linksim/nccl_log.hpp"

namespace linksim {

std::string_view to_string(NcclLogTransport transport) {
  switch (transport) {
    case NcclLogTransport::kP2pIpc: return "P2P/IPC";
    case NcclLogTransport::kP2pCumem: return "P2P/CUMEM";
    case NcclLogTransport::kP2pDirect: return "P2P/direct";
    case NcclLogTransport::kP2pIndirect: return "P2P/indirect";
    case NcclLogTransport::kShm: return "SHM";
    case NcclLogTransport::kNetIb: return "NET/IB";
    case NcclLogTransport::kNetSocket: return "NET/Socket";
    case NcclLogTransport::kNetOfi: return "NET/OFI";
    case NcclLogTransport::kNetOther: return "NET/other";
    case NcclLogTransport::kCollNet: return "CollNet";
  }
  return "NET/other";
}

bool is_p2p(NcclLogTransport t) {
  return t == NcclLogTransport::kP2pIpc || t == NcclLogTransport::kP2pCumem ||
         t == NcclLogTransport::kP2pDirect || t == NcclLogTransport::kP2pIndirect;
}

bool is_net(NcclLogTransport t) {
  return t == NcclLogTransport::kNetIb || t == NcclLogTransport::kNetSocket ||
         t == NcclLogTransport::kNetOfi || t == NcclLogTransport::kNetOther;
}

namespace {

constexpr int kArchX86 = 1, kArchPower = 2, kArchArm = 3;
constexpr int kVendorIntel = 1, kVendorAmd = 2, kVendorZhaoxin = 3;

// The first release whose CPU codes tell Sapphire and Emerald Rapids from Skylake.
constexpr NcclVersion kFirstSapphireRapidsCode{2, 26};

bool skylake_code_is_exact(std::optional<NcclVersion> release) {
  return release && *release >= kFirstSapphireRapidsCode;
}

}  // namespace

std::optional<CpuArch> nccl_cpu_arch(const NcclLogCpu& cpu) {
  switch (cpu.arch) {
    case kArchX86: return CpuArch::kX86;
    case kArchPower: return CpuArch::kPower;
    case kArchArm: return CpuArch::kArm;
    default: return std::nullopt;
  }
}

std::optional<CpuVendor> nccl_cpu_vendor(const NcclLogCpu& cpu) {
  if (cpu.arch != kArchX86) return std::nullopt;
  switch (cpu.vendor) {
    case kVendorIntel: return CpuVendor::kIntel;
    case kVendorAmd: return CpuVendor::kAmd;
    case kVendorZhaoxin: return CpuVendor::kZhaoxin;
    default: return std::nullopt;
  }
}

std::string nccl_cpu_platform(const NcclLogCpu& cpu, std::optional<NcclVersion> release) {
  const std::optional<CpuVendor> vendor = nccl_cpu_vendor(cpu);
  if (vendor == CpuVendor::kZhaoxin) return "zhaoxin";
  if (vendor != CpuVendor::kIntel) return "";
  switch (cpu.model) {
    case 1: return "intel-broadwell";
    case 2: return skylake_code_is_exact(release) ? "intel-skylake" : "";
    case 3: return "intel-sapphire-rapids";
    case 4: return "intel-emerald-rapids";
    default: return "";
  }
}

std::string describe_nccl_cpu(const NcclLogCpu& cpu, std::optional<NcclVersion> release) {
  const std::optional<CpuArch> arch = nccl_cpu_arch(cpu);
  if (arch == CpuArch::kPower) return "POWER";
  if (arch == CpuArch::kArm) return "Arm";
  if (!arch) return "architecture code " + std::to_string(cpu.arch);
  const std::optional<CpuVendor> vendor = nccl_cpu_vendor(cpu);
  if (vendor == CpuVendor::kAmd) return "x86 AMD";
  if (vendor == CpuVendor::kZhaoxin) return "x86 Zhaoxin";
  if (!vendor) return "x86, vendor code " + std::to_string(cpu.vendor);
  switch (cpu.model) {
    case 1: return "x86 Intel, NCCL's Broadwell class (Broadwell and older)";
    case 2:
      return skylake_code_is_exact(release)
                 ? "x86 Intel, NCCL's Skylake class (Skylake to Ice Lake)"
                 : "x86 Intel, NCCL's Skylake class (Skylake and newer: releases before 2.26 "
                   "have no later class)";
    case 3: return "x86 Intel, NCCL's Sapphire Rapids class";
    case 4: return "x86 Intel, NCCL's Emerald Rapids class (and newer)";
    default: return "x86 Intel, model code " + std::to_string(cpu.model);
  }
}

std::optional<NcclVersion> NcclLog::release() const {
  if (!version) return std::nullopt;
  const std::string_view v = *version;
  return parse_nccl_version(v.substr(0, v.find_first_of("+-~ ")));
}

const NcclLogRank* NcclLog::rank(int r) const {
  for (const NcclLogRank& entry : rank_info) {
    if (entry.rank == r) return &entry;
  }
  return nullptr;
}

const NcclLogEnv* NcclLog::env_var(std::string_view name) const {
  const NcclLogEnv* found = nullptr;
  for (const NcclLogEnv& e : env) {
    if (e.name == name) found = &e;
  }
  return found;
}

int NcclLog::rank_count() const {
  if (ranks) return ranks->value;
  int highest = -1;
  for (const NcclLogRank& r : rank_info) highest = std::max(highest, r.rank);
  for (const NcclLogHop& h : hops) highest = std::max({highest, h.from_rank, h.to_rank.value_or(-1)});
  for (const NcclLogRing& ring : rings) {
    for (int r : ring.ranks) highest = std::max(highest, r);
  }
  for (const NcclLogTreeNode& n : trees) highest = std::max({highest, n.rank, n.up});
  return highest + 1;
}

std::optional<NcclLogCount> NcclLog::channel_count() const {
  if (coll_channels) return coll_channels;
  return ring_channels;
}

namespace {

struct Components {
  std::vector<int> parent;
  explicit Components(int n) : parent(static_cast<size_t>(n)) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int find(int x) {
    while (parent[static_cast<size_t>(x)] != x) {
      parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
      x = parent[static_cast<size_t>(x)];
    }
    return x;
  }
  void join(int a, int b) { parent[static_cast<size_t>(find(a))] = find(b); }
};

bool in_range(int r, int n) { return r >= 0 && r < n; }

// Joins ranks by process, by intra-node hop and (when `by_host`) by host name.
Components join_ranks(const NcclLog& log, int n, bool by_host) {
  Components c(n);
  std::map<std::pair<std::string, long long>, int> by_process;
  std::map<std::string, int> by_name;
  for (const NcclLogRank& r : log.rank_info) {
    if (!in_range(r.rank, n) || r.host.empty()) continue;
    if (r.pid) {
      const auto [it, fresh] = by_process.emplace(std::pair(r.host, *r.pid), r.rank);
      if (!fresh) c.join(r.rank, it->second);
    }
    if (by_host) {
      const auto [it, fresh] = by_name.emplace(r.host, r.rank);
      if (!fresh) c.join(r.rank, it->second);
    }
  }
  for (const NcclLogHop& h : log.hops) {
    if (!h.to_rank || !in_range(h.from_rank, n) || !in_range(*h.to_rank, n)) continue;
    if (is_p2p(h.transport) || h.transport == NcclLogTransport::kShm) c.join(h.from_rank, *h.to_rank);
  }
  return c;
}

bool net_inside_component(const NcclLog& log, Components& c, int n) {
  for (const NcclLogHop& h : log.hops) {
    if (!h.to_rank || !is_net(h.transport)) continue;
    if (in_range(h.from_rank, n) && in_range(*h.to_rank, n) && c.find(h.from_rank) == c.find(*h.to_rank)) {
      return true;
    }
  }
  return false;
}

}  // namespace

NcclLog::Nodes NcclLog::node_map() const {
  const int n = rank_count();
  Nodes result;
  result.node_of_rank.assign(static_cast<size_t>(n), -1);
  if (n == 0) return result;
  Components c = join_ranks(*this, n, true);
  if (net_inside_component(*this, c, n)) c = join_ranks(*this, n, false);
  // A rank is placed when some line names it with a host or joins it to another rank.
  std::vector<bool> placed(static_cast<size_t>(n), false);
  for (const NcclLogRank& r : rank_info) {
    if (in_range(r.rank, n) && !r.host.empty()) placed[static_cast<size_t>(r.rank)] = true;
  }
  for (const NcclLogHop& h : hops) {
    if (!h.to_rank || !in_range(h.from_rank, n) || !in_range(*h.to_rank, n)) continue;
    placed[static_cast<size_t>(h.from_rank)] = placed[static_cast<size_t>(*h.to_rank)] = true;
  }
  std::map<int, int> index_of_root;
  for (int r = 0; r < n; ++r) {
    if (!placed[static_cast<size_t>(r)]) continue;
    const int root = c.find(r);
    const auto [it, fresh] = index_of_root.emplace(root, static_cast<int>(index_of_root.size()));
    result.node_of_rank[static_cast<size_t>(r)] = it->second;
  }
  result.count = static_cast<int>(index_of_root.size());
  return result;
}

}  // namespace linksim
