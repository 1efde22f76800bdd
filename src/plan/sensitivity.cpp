// SPDX-License-Identifier: Apache-2.0
// sensitivity(): the step time when one resource of the machine gets faster, so a capacity
// planner reads "NIC x2 saves 7 %" (docs/planner.md#sensitivity).
#include <set>

#include "linksim/plan.hpp"
#include "linksim/topology_variants.hpp"

namespace linksim {

std::vector<SensitivityRow> sensitivity(const Topology& topology, const PlanRequest& request,
                                        double factor) {
  PlanRequest base = request;
  base.compute_baseline = false;
  const double base_step_s = plan(topology, base).step_time_s;
  std::vector<SensitivityRow> rows;
  auto add = [&](std::string resource, double step_s) {
    rows.push_back({std::move(resource), step_s, 1 - step_s / base_step_s});
  };

  std::set<LinkClass> present;
  for (const Link& link : topology.links()) present.insert(link_class(topology, link));
  for (LinkClass c : present) {
    const Topology faster = with_faster_links(topology, c, factor);
    add(std::string(to_string(c)), plan(faster, base).step_time_s);
  }
  // A network upgrade changes the NICs and the switches they plug into together: with one of
  // them faster the other is the same bound as before.
  if (present.count(LinkClass::kNic) && present.count(LinkClass::kFabric)) {
    const Topology faster = with_faster_links(
        with_faster_links(topology, LinkClass::kNic, factor), LinkClass::kFabric, factor);
    add("network (NIC and fabric)", plan(faster, base).step_time_s);
  }
  PlanRequest flops = base;
  flops.flops_scale *= factor;
  add("GPU FLOP/s", plan(topology, flops).step_time_s);
  PlanRequest hbm = base;
  hbm.hbm_scale *= factor;
  add("HBM bandwidth", plan(topology, hbm).step_time_s);
  return rows;
}

}  // namespace linksim
