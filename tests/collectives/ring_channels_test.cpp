// SPDX-License-Identifier: Apache-2.0
// A ring across servers runs on the channels NCCL's communicator opens, each one thread block
// copying over NVLink at about one lane's realized rate (docs/model.md#ring-channels). Expected
// values are derived by hand from NCCL's search.cc and connect.cc and the H100 lane rate of
// docs/model.md#p2p; calibrations 121-123 (10 x DGX H100, NCCL 2.29.2) measured the result.
#include <doctest/doctest.h>

#include "collectives/comm_graph.hpp"
#include "linksim/collective_rows.hpp"
#include "linksim/collectives.hpp"
#include "linksim/gpu_selection.hpp"
#include "support/test_topologies.hpp"

using namespace linksim;

namespace {

constexpr double kBytes = 68719476736.0;  // 64 GiB: the latency is < 0.2 % of the time
// One H100 channel over NVLink: an NVLink4 lane, 25 GB/s, at H100's measured 0.804133.
constexpr double kChannelBps = 25e9 * 0.804133;

Communicator per_node(const Topology& t, int gpus, CommOptions options = {}) {
  GpuSelection s;
  s.per_node = gpus;
  return Communicator(t, select_gpus(t, s), options);
}

CollectiveResult ring_simple(const Communicator& c, CollectiveOp op) {
  CollectiveQuery q;
  q.op = op;
  q.size_bytes = kBytes;
  q.algorithm = Algorithm::kRing;
  q.protocol = Protocol::kSimple;
  return c.run(q);
}

}  // namespace

TEST_SUITE("collectives") {
  TEST_CASE("ring channels: 10 DGX H100 run their ring on 16 channels of one NVLink each") {
    const Topology t = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "10"}});
    GpuSelection all;
    all.per_node = 8;
    const std::vector<DeviceId> gpus = select_gpus(t, all);
    const Communicator c(t, gpus, CommOptions{});
    // NCCL's search across servers (sm90 inter speeds, maxBw 48 for a 400G NIC, the GPU's 18
    // NVLinks x 20.6 = 370.8): 7 channels at 48 (336) < 8 at 45 (360), one a NIC; no copy
    // below 50 GB/s on SM90 with more than 4 channels; ncclTopoPostset doubles: 16.
    CHECK(detail::CommGraph(t, gpus, CommOptions{}).nccl_comm_channels() == 16);
    // 16 x 20.1 = 321.7 GB/s, below the ring's NVLink rate (361.9): measured 313.9-320.5
    // (AllReduce 4-16 GiB, calibration 121), 324.3 and 323.4 (AllGather, ReduceScatter).
    for (CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kAllGather,
                            CollectiveOp::kReduceScatter}) {
      CAPTURE(to_string(op));
      const CollectiveResult r = ring_simple(c, op);
      CHECK(r.busbw_Bps == doctest::Approx(16 * kChannelBps).epsilon(3e-3));
      CHECK(r.bottleneck.kind == BottleneckKind::kRingChannels);
      CHECK(r.bottleneck.channels == 16);
      CHECK(describe_bottleneck(r, t) ==
            "the 16 channels NCCL opens for a ring across servers (322 GB/s, each about one "
            "NVLink)");
    }
  }

  TEST_CASE("ring channels: where the NICs carry less, or one server, the links bound") {
    const Topology t = testing::library_topology("dgx-h100-ib.yaml", {{"nodes", "10"}});
    // Four GPUs a server: 4 NICs at 48 GB/s (NCCL's search: 4 at 48, copied to 8 at 24;
    // doubled: 16 channels, 321.7 GB/s) carry 192 GB/s x 0.96 less than the channels.
    const CollectiveResult four = ring_simple(per_node(t, 4), CollectiveOp::kAllReduce);
    CHECK(four.bottleneck.kind != BottleneckKind::kRingChannels);
    CHECK(four.busbw_Bps < 16 * kChannelBps * 0.7);
    // One server: NCCL opens 24 channels there and the NVLink binds (361.9 GB/s).
    const Topology one = testing::library_topology("dgx-h100.yaml");
    const CollectiveResult single = ring_simple(per_node(one, 8), CollectiveOp::kAllReduce);
    CHECK(single.bottleneck.kind == BottleneckKind::kLink);
    CHECK(single.busbw_Bps > 16 * kChannelBps * 1.1);
    // NCCL_MIN/MAX_NCHANNELS (--channels) set the channels: 32 carry the ring's NVLink rate.
    CommOptions channels;
    channels.channels = 32;
    const CollectiveResult forced =
        ring_simple(per_node(t, 8, channels), CollectiveOp::kAllReduce);
    CHECK(forced.bottleneck.kind == BottleneckKind::kLink);
    CHECK(forced.busbw_Bps > 16 * kChannelBps * 1.1);
    // LL128 keeps NCCL's own per-channel cap (perChMaxRingLL128Bws), not this one.
    CollectiveQuery q;
    q.size_bytes = kBytes;
    q.algorithm = Algorithm::kRing;
    q.protocol = Protocol::kLL128;
    CHECK(per_node(t, 8).run(q).bottleneck.kind != BottleneckKind::kRingChannels);
  }
}
