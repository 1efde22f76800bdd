// SPDX-License-Identifier: Apache-2.0
// Scenario values with a closed set of spellings: "expected one of ..., got ..." with
// did-you-mean, at the value's position.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/yaml_reader.hpp"
#include "linksim/collectives.hpp"
#include "linksim/nccl_tests.hpp"

namespace linksim::detail {

CollectiveOp collective_op_value(const YamlValue& value);
/// An element type as `coll --dtype` takes it (parse_data_type: nccl-tests' names and the
/// aliases fp32, fp16, bf16, fp64, fp8, ...).
DataType data_type_value(const YamlValue& value);
/// A reduction as `coll --op` takes it (parse_reduction_op: sum, prod, max, min, avg).
ReductionOp reduction_op_value(const YamlValue& value);
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
