// SPDX-License-Identifier: Apache-2.0
// Scenario values with a closed set of spellings: "expected one of ..., got ..." with
// did-you-mean, at the value's position.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/yaml_reader.hpp"
#include "linksim/collectives.hpp"

namespace linksim::detail {

/// An element type of a collective (nccl-tests' -d).
struct DataTypeInfo {
  std::string_view name;       ///< as written: "fp32", "bf16", ...
  std::string_view nccl_name;  ///< as nccl-tests' type column prints it: "float", "bfloat16"
  int bytes;
};

CollectiveOp collective_op_value(const YamlValue& value);
const DataTypeInfo& data_type_value(const YamlValue& value);
Algorithm algorithm_value(const YamlValue& value);
Protocol protocol_value(const YamlValue& value);
SimMode sim_mode_value(const YamlValue& value);
/// on/off, true/false, 1/0.
bool on_off_value(const YamlValue& value);
/// NCCL_P2P_LEVEL: LOC, NVL, PIX, PXB, PHB, SYS (parse_p2p_level).
PathClass p2p_level_value(const YamlValue& value);
/// NCCL_IB_HCA's syntax (parse_ib_hca), the error at the value.
IbHcaFilter ib_hca_value(const YamlValue& value);
/// An NCCL release "X.Y" (nccl_version:), within the releases linksim knows.
NcclVersion nccl_version_value(const YamlValue& value);
/// One of `choices`, else "expected one of a, b, c, got \"x\"" (with did-you-mean).
std::string choice_value(const YamlValue& value, const std::vector<std::string>& choices);

}  // namespace linksim::detail
