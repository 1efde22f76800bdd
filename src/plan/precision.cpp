// SPDX-License-Identifier: Apache-2.0
#include "plan/precision.hpp"

#include <fmt/core.h>

#include "linksim/error.hpp"

namespace linksim::plan_detail {

double bytes_per_element(NumberFormat format) {
  switch (format) {
    case NumberFormat::kFp32: return 4;
    case NumberFormat::kBf16:
    case NumberFormat::kFp16: return 2;
    case NumberFormat::kFp8:
    case NumberFormat::kInt8: return 1;
    case NumberFormat::kInt4: return 0.5;
  }
  return 2;
}

NumberFormat parse_number_format(std::string_view name, const char* field) {
  if (name == "bf16") return NumberFormat::kBf16;
  if (name == "fp16") return NumberFormat::kFp16;
  if (name == "fp8") return NumberFormat::kFp8;
  if (name == "int8") return NumberFormat::kInt8;
  if (name == "int4") return NumberFormat::kInt4;
  if (name == "fp32") return NumberFormat::kFp32;
  throw ConfigError(RequestField{field},
                    fmt::format("expected one of bf16, fp16, fp8, int8, int4, got \"{}\"", name));
}

PrecisionChoice Precision::memory() const {
  PrecisionChoice choice;
  choice.activation_bytes = act_bytes;
  choice.kv_cache_bytes = kv_bytes;
  choice.weight_bytes = weight_bytes;
  return choice;
}

Precision resolve_precision(const PlanRequest& r) {
  Precision p;
  p.compute = parse_number_format(r.dtype, "dtype");
  if (p.compute == NumberFormat::kInt8 || p.compute == NumberFormat::kInt4 ||
      p.compute == NumberFormat::kFp32) {
    throw ConfigError(RequestField{"dtype"}, fmt::format("expected bf16, fp16 or fp8 for computation, got \"{}\" "
                                  "(quantized weights: --weight-dtype)",
                                  r.dtype));
  }
  p.compute_name = r.dtype;
  const bool train = r.mode == PlanMode::kTrain;
  if (r.weight_dtype) {
    const NumberFormat weights = parse_number_format(*r.weight_dtype, "weight_dtype");
    if (train && weights != NumberFormat::kBf16 && weights != NumberFormat::kFp16) {
      throw ConfigError(RequestField{"weight_dtype"},
                        fmt::format("{} applies to inference; training keeps bf16 weights",
                                    *r.weight_dtype));
    }
  }
  const bool fp8_serving = !train && p.fp8_compute();
  // Training keeps 2-byte weights (fp8 GEMMs cast them); serving stores what --weight-dtype
  // names, by default fp8 when computing in fp8.
  const std::string stored = r.weight_dtype.value_or(fp8_serving ? "fp8" : "bf16");
  p.weight_bytes = train ? 2 : bytes_per_element(parse_number_format(stored, "weight_dtype"));
  p.kv_bytes = fp8_serving ? 1 : 2;
  p.weight_name = p.weight_bytes == 2 ? (r.dtype == "fp16" ? "fp16" : "bf16") : stored;
  return p;
}

}  // namespace linksim::plan_detail
