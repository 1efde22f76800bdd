// SPDX-License-Identifier: Apache-2.0
// Sweep axes: reading scalar-or-list values and walking their cross product.
#include "scenario/study_axes.hpp"

#include <set>

#include <fmt/format.h>

namespace linksim::detail {

SweepAxis read_axis(const std::string& key, const YamlValue& value) {
  SweepAxis axis;
  axis.key = key;
  if (value.is_map()) value.fail("expected a value or a list of values, got a mapping");
  axis.swept = value.is_sequence();
  axis.values = value.scalar_or_items();
  if (axis.values.empty()) value.fail("expected at least one value, got an empty list");
  std::set<std::string> seen;
  for (const YamlValue& item : axis.values) {
    if (!item.node().IsScalar()) {
      item.fail(fmt::format("expected a value, got {}", describe(item.node())));
    }
    if (!seen.insert(item.node().Scalar()).second) {
      item.fail(fmt::format("duplicate value \"{}\" in the list of {}", item.node().Scalar(), key));
    }
  }
  return axis;
}

long axes_product(const std::vector<SweepAxis>& axes, long cap) {
  long product = 1;
  for (const SweepAxis& axis : axes) {
    const long n = static_cast<long>(axis.values.size());
    if (product > (cap + 1) / n) return cap + 1;
    product *= n;
  }
  return product;
}

void for_each_point(const std::vector<SweepAxis>& axes,
                    const std::function<void(const std::vector<size_t>&)>& visit) {
  std::vector<size_t> point(axes.size(), 0);
  while (true) {
    visit(point);
    size_t axis = axes.size();
    while (axis > 0) {
      --axis;
      if (++point[axis] < axes[axis].values.size()) break;
      point[axis] = 0;
      if (axis == 0) return;
    }
    if (axes.empty()) return;
  }
}

std::vector<std::string> keys_in_order(const YamlValue& entry) {
  std::vector<std::string> keys;
  for (auto it = entry.node().begin(); it != entry.node().end(); ++it) {
    keys.push_back(it->first.Scalar());
  }
  return keys;
}

}  // namespace linksim::detail
