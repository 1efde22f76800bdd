// SPDX-License-Identifier: Apache-2.0
// The parameters of one layer split by how tensor parallelism shards them, shared by the
// parameter count (docs/models.md#parameters) and the memory model (docs/planner-memory.md).
#pragma once

#include "linksim/model.hpp"

namespace linksim::detail {

/// One layer's attention block and its two norms, parameters.
struct AttentionParts {
  double tp_split = 0;    ///< Q and output projections (MLA: up-projections too); split tp ways
  double kv_split = 0;    ///< K and V projections; split min(tp, kv_heads) ways
  double replicated = 0;  ///< norms, the output bias, MLA down-projections; on every TP rank
  double total() const { return tp_split + kv_split + replicated; }
};
AttentionParts attention_parts(const ModelSpec& model);

/// One FFN (dense, expert or shared expert) of intermediate size f, parameters.
struct FfnParts {
  double split = 0;       ///< the matrices and their column biases; split by the FFN's TP degree
  double replicated = 0;  ///< the output (row-parallel) bias
  double total() const { return split + replicated; }
};
FfnParts ffn_parts(const ModelSpec& model, int ffn_size);

/// Weights of one norm layer: hidden (RMSNorm) or 2 x hidden (LayerNorm weight and bias).
double norm_params(const ModelSpec& model);

/// The router of one MoE layer: hidden x experts (+ experts biases with linear_bias).
double router_params(const ModelSpec& model);

/// Matrices of one FFN: 3 for SwiGLU (gate, up, down), 2 for GELU and squared ReLU.
int ffn_matrices(FfnType type);

}  // namespace linksim::detail
