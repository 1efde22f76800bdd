// SPDX-License-Identifier: Apache-2.0
// Shared by the model catalog and --arch: the names of the FFN and norm types, the defaults a
// shape may leave out, and the shape rules (docs/models.md#shape-rules).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linksim/model.hpp"

namespace linksim::detail {

std::optional<FfnType> parse_ffn_type(std::string_view text);
std::optional<NormType> parse_norm_type(std::string_view text);
const std::vector<std::string>& ffn_type_names();   ///< "gelu", "swiglu", "squared-relu"
const std::vector<std::string>& norm_type_names();  ///< "layernorm", "rmsnorm"

/// Fills what a shape may omit, when not given: kv_heads = heads (multi-head attention) and
/// head_dim = hidden / heads when heads divides hidden. Leaves anything invalid for check_shape.
void complete_shape(ModelSpec& model, bool kv_heads_given, bool head_dim_given);

/// The first broken shape rule: the key to blame and the message, which names the values, e.g.
/// {"heads", "heads=60 does not divide hidden=8192 (give head_dim=...)"}.
struct ShapeProblem {
  std::string key;
  std::string message;
};
std::optional<ShapeProblem> check_shape(const ModelSpec& model);

/// "gelu, swiglu or squared-relu".
std::string or_list(const std::vector<std::string>& names);

}  // namespace linksim::detail
