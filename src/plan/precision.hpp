// SPDX-License-Identifier: Apache-2.0
// The number formats of a plan, parsed once from the request's dtype names: what the GEMMs
// compute in, how the weights and the KV cache are stored, and the bytes each element takes
// (docs/planner.md#compute).
#pragma once

#include <string>
#include <string_view>

#include "linksim/plan.hpp"

namespace linksim::plan_detail {

enum class NumberFormat { kFp32, kBf16, kFp16, kFp8, kInt8, kInt4 };

/// Bytes per element: fp32 4, bf16/fp16 2, fp8/int8 1, int4 0.5.
double bytes_per_element(NumberFormat format);

/// The format named `name` ("bf16", "fp16", "fp8", "int8", "int4", "fp32"); throws ConfigError
/// naming the request `field` ("dtype") for anything else.
NumberFormat parse_number_format(std::string_view name, const char* field);

struct Precision {
  NumberFormat compute = NumberFormat::kBf16;  ///< GEMM inputs: bf16, fp16 or fp8
  double act_bytes = 2;     ///< activations between kernels (bf16/fp16; fp8 GEMMs cast their own inputs)
  double kv_bytes = 2;      ///< KV-cache element: 1 when serving in fp8 (the KV cache is quantized too)
  double weight_bytes = 2;  ///< stored weight element
  std::string compute_name = "bf16";  ///< as requested, for the result
  std::string weight_name = "bf16";   ///< the stored weights' format, for the result

  bool fp8_compute() const { return compute == NumberFormat::kFp8; }
  /// The KV cache is FP8 or FP16: reading an element into FP32 arithmetic takes a conversion
  /// instruction (BF16 widens to FP32 by a bit move).
  bool kv_converts_to_fp32() const { return kv_bytes == 1 || compute == NumberFormat::kFp16; }
  /// The same precision for the memory estimate.
  PrecisionChoice memory() const;
};

/// Parses and checks the request's --dtype and --weight-dtype once. Training keeps 2-byte
/// weights; serving in fp8 stores fp8 weights and an fp8 KV cache unless --weight-dtype says
/// otherwise. Throws ConfigError naming the request field and the value.
Precision resolve_precision(const PlanRequest& request);

}  // namespace linksim::plan_detail
