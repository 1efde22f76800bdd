// SPDX-License-Identifier: Apache-2.0
// The sweep axes of one scenario entry: every key whose value may be a list, in the order the
// file writes them, and the odometer that walks their cross product (last key fastest).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/yaml_reader.hpp"

namespace linksim::detail {

/// One key and its values. `swept` is true when the file wrote a list (the key then names a
/// column and appears in case ids).
struct SweepAxis {
  std::string key;
  std::vector<YamlValue> values;
  bool swept = false;
};

/// The values under `value`: a scalar is one value, a sequence its items (each a scalar).
/// Throws "expected at least one value, got an empty list" and "expected a value, got a
/// mapping" at the offending node.
SweepAxis read_axis(const std::string& key, const YamlValue& value);

/// Product of the axes' sizes, saturating at `cap` + 1 so huge sweeps do not overflow.
long axes_product(const std::vector<SweepAxis>& axes, long cap);

/// Calls `visit` with one value index per axis for every point of the cross product, the
/// last axis varying fastest. With no axes, calls it once with an empty vector.
void for_each_point(const std::vector<SweepAxis>& axes,
                    const std::function<void(const std::vector<size_t>&)>& visit);

/// Applies one key's value to a study's specification; throws ConfigError at the value.
template <typename Spec>
using KeySetter = std::function<void(const YamlValue&, Spec&)>;

/// The keys of `entry` (a mapping) in file order.
std::vector<std::string> keys_in_order(const YamlValue& entry);

}  // namespace linksim::detail
