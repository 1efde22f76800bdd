// SPDX-License-Identifier: Apache-2.0
// NCCL's switches that decide which paths and NICs it may use: NCCL_P2P_LEVEL (and its
// CPU-dependent default) and NCCL_IB_HCA. See docs/routing.md#p2p-level and #ib-hca.
#include "linksim/routing.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "common/text.hpp"
#include "linksim/error.hpp"

namespace linksim {
namespace {

struct LevelName {
  std::string_view name;
  PathClass level;
};
// topoPathTypeStr's names up to SYS that a GPU pair of linksim can have (src/graph/topo.cc).
constexpr std::array<LevelName, 6> kLevels = {{{"LOC", PathClass::kSelf},
                                                {"NVL", PathClass::kNvlink},
                                                {"PIX", PathClass::kPix},
                                                {"PXB", PathClass::kPxb},
                                                {"PHB", PathClass::kPhb},
                                                {"SYS", PathClass::kSys}}};
// ncclGetLevel's levelsOldToNew: the numeric NCCL_P2P_LEVEL of NCCL before 2.7; above 5, SYS.
constexpr std::array<PathClass, 6> kOldLevels = {PathClass::kSelf, PathClass::kPix,
                                                 PathClass::kPxb,  PathClass::kPhb,
                                                 PathClass::kSys,  PathClass::kSys};

// NCCL's path-type order, in which nvidia-smi's NODE (two host bridges of one CPU) is PHB.
int nccl_rank(PathClass cls) {
  return cls == PathClass::kNode ? static_cast<int>(PathClass::kPhb) : static_cast<int>(cls);
}

constexpr int kMaxGpusForAmdSys = 2;  // paths.cc: "Allow P2P between pairs of GPUs on AMD"

}  // namespace

std::optional<PathClass> parse_p2p_level(std::string_view text) {
  for (const LevelName& entry : kLevels) {
    if (text::iequals(entry.name, text)) return entry.level;
  }
  int old = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), old);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || old < 0) {
    return std::nullopt;
  }
  return kOldLevels[std::min<size_t>(static_cast<size_t>(old), kOldLevels.size() - 1)];
}

std::string_view p2p_level_name(PathClass level) {
  if (level == PathClass::kNode) return "PHB";
  for (const LevelName& entry : kLevels) {
    if (entry.level == level) return entry.name;
  }
  return "SYS";
}

bool within_p2p_level(PathClass cls, PathClass level) {
  return nccl_rank(cls) <= nccl_rank(level);
}

PathClass default_p2p_level(const HostPlatform& platform, int gpus,
                            std::optional<int> nccl_version) {
  if (nccl_version && *nccl_version < kNcclPxbDefaultVersion) {
    // "In general, use P2P whenever we can", except through Arm, Intel and Zhaoxin CPUs.
    const bool pxb = platform.arch == CpuArch::kArm ||
                     (platform.arch == CpuArch::kX86 && (platform.vendor == CpuVendor::kIntel ||
                                                         platform.vendor == CpuVendor::kZhaoxin));
    return pxb ? PathClass::kPxb : PathClass::kSys;
  }
  // "By default don't use P2P across CPU Host Bridges and further apart".
  const bool amd_pair = platform.arch == CpuArch::kX86 && platform.vendor == CpuVendor::kAmd &&
                        gpus <= kMaxGpusForAmdSys;
  return amd_pair ? PathClass::kSys : PathClass::kPxb;
}

bool IbHcaFilter::allows(std::string_view name, int port) const {
  if (entries.empty()) return true;  // matchIfList: no user list matches everything
  bool listed = false;
  for (const Entry& entry : entries) {
    const bool name_matches = exact ? name == entry.prefix : name.starts_with(entry.prefix);
    if (name_matches && (!entry.port || *entry.port == port)) listed = true;
  }
  return listed != exclude;
}

IbHcaFilter parse_ib_hca(std::string_view text) {
  IbHcaFilter filter;
  std::string_view rest = text;
  if (rest.starts_with('^')) {
    filter.exclude = true;
    rest.remove_prefix(1);
  }
  if (rest.starts_with('=')) {
    filter.exact = true;
    rest.remove_prefix(1);
  }
  const auto fail = [&](std::string_view what) -> IbHcaFilter {
    throw ConfigError(fmt::format("expected NCCL_IB_HCA's form [^][=]name[:port][,name[:port]]..."
                                  " ({}), got \"{}\"",
                                  what, text));
  };
  if (rest.empty()) return fail("at least one NIC name");
  for (std::string_view item : text::split(rest, ',')) {
    IbHcaFilter::Entry entry;
    const size_t colon = item.find(':');
    entry.prefix = std::string(item.substr(0, colon));
    if (entry.prefix.empty()) return fail("a NIC name before every ',' and ':'");
    if (colon != std::string_view::npos) {
      const std::string_view digits = item.substr(colon + 1);
      int port = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
      if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
          port < 1) {
        return fail("a port number >= 1 after ':'");
      }
      entry.port = port;
    }
    filter.entries.push_back(std::move(entry));
  }
  return filter;
}

}  // namespace linksim
