// SPDX-License-Identifier: Apache-2.0
#include "linksim/plan_nccl_debug.hpp"

#include <algorithm>

namespace linksim {
namespace {

NcclCall plan_call(const PlanComm& c, const DataType& type, int type_index) {
  NcclCall call;
  call.op = c.collective;
  call.size_bytes = c.bytes;
  const int ranks = static_cast<int>(c.group.size());
  call.count = round_message_size(c.collective, c.bytes, type, ranks).count;
  call.datatype = type_index;
  return call;
}

}  // namespace

std::vector<NcclDebugGroup> plan_nccl_debug(const Topology& topology, const PlanRequest& request,
                                            const PlanResult& result) {
  const DataType type = parse_data_type(request.dtype).value_or(kFloat);
  const auto types = data_types();
  const auto found = std::find(types.begin(), types.end(), type);
  const int type_index = static_cast<int>(found - types.begin());
  struct Group {
    const PlanComm* first;
    std::vector<NcclCall> calls;
  };
  std::vector<Group> groups;
  for (const PlanComm& c : result.comms) {
    if (c.group.size() < 2) continue;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) {
      return x.first->kind == c.kind && x.first->group == c.group;
    });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{&c, {}});
    const bool asked = std::any_of(g->calls.begin(), g->calls.end(), [&](const NcclCall& call) {
      return call.op == c.collective && call.size_bytes == c.bytes;
    });
    if (!asked) g->calls.push_back(plan_call(c, type, type_index));
  }
  std::vector<NcclDebugGroup> out;
  for (const Group& g : groups) {
    const Communicator comm(topology, g.first->group, request.comm);
    out.push_back({g.first->kind, g.first->gpus, comm.nccl_debug(g.calls)});
  }
  return out;
}

}  // namespace linksim
