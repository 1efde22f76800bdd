// SPDX-License-Identifier: Apache-2.0
// A result's bottleneck in words: the one place where mechanisms become sentences.
#include <fmt/core.h>

#include <string>

#include "linksim/collective_rows.hpp"
#include "linksim/units.hpp"

namespace linksim {
namespace {

// "gpu1->cpu0 (pcie4 x16)": a link as reports name it.
std::string link_words(const Topology& topology, LinkId id) {
  const Link& link = topology.link(id);
  const bool has_width = link.family == LinkFamily::kPcie || link.family == LinkFamily::kNvlink;
  const std::string width = has_width ? fmt::format(" x{}", link.lanes) : std::string();
  return fmt::format("{}->{} ({}{})", topology.display_name(link.from),
                     topology.display_name(link.to), topology.link_type(link), width);
}

}  // namespace

std::string describe_bottleneck(const Bottleneck& b, const Topology& topology) {
  switch (b.kind) {
    case BottleneckKind::kNone: return "none (a single rank moves no data between GPUs)";
    case BottleneckKind::kLink: {
      std::string words = link_words(topology, b.link);
      if (b.name_family) words += fmt::format(" [{}]", to_string(b.family));
      return words;
    }
    case BottleneckKind::kHostStaging:
      if (topology.device(b.from).host != topology.device(b.to).host) {
        // A network route whose NIC leg is staged (docs/model.md#gdr-off).
        return fmt::format("host-staged network copy {}->{} (no GPUDirect RDMA{})",
                           topology.display_name(b.from), topology.display_name(b.to),
                           b.crosses_socket ? ", across the socket link" : "");
      }
      return fmt::format("host-staged copy {}->{} (SHM{}, no P2P)", topology.display_name(b.from),
                         topology.display_name(b.to),
                         b.crosses_socket ? " across the socket link" : "");
    case BottleneckKind::kNvls:
      return fmt::format("NVLink of each GPU into the NVSwitches ({:.0f} GB/s, NVLS)",
                         b.rate_Bps / kGB);
    case BottleneckKind::kServerNics:
      if (b.rate_Bps > 0) return fmt::format("server NICs ({:.0f} GB/s per server)", b.rate_Bps / kGB);
      return "server NICs (all-to-all across servers)";
    case BottleneckKind::kP2pChannels:
      if (b.family == LinkFamily::kNetwork) {
        return fmt::format("p2p channels NCCL gives a peer on another server ({:.0f} GB/s, "
                           "about 14 GB/s each)",
                           b.rate_Bps / 1e9);
      }
      return fmt::format("channels of a {} send over NVLink (NCCL spreads small sends over few "
                         "channels)",
                         format_size(b.size_bytes));
    case BottleneckKind::kRingChannels:
      return fmt::format("the {} channels NCCL opens for a ring across servers ({:.0f} GB/s, "
                         "each about one NVLink)",
                         b.channels, b.rate_Bps / 1e9);
  }
  return "?";
}

std::string describe_bottleneck(const CollectiveResult& result, const Topology& topology) {
  return describe_bottleneck(result.bottleneck, topology);
}

}  // namespace linksim
