// SPDX-License-Identifier: Apache-2.0
// Plan studies: model, mode, parallel degrees (or `search`), batch, precision, NCCL switches.
#include "scenario/plan_study.hpp"

#include <fmt/format.h>

#include "common/text.hpp"
#include "linksim/model.hpp"
#include "scenario/value_parsers.hpp"

namespace linksim::detail {
namespace {

const ModelSpec& model_value(const YamlValue& value) {
  std::string text = value.text();
  const ModelCatalog& catalog = ModelCatalog::builtin();
  if (const ModelSpec* model = catalog.find(text)) return *model;
  std::vector<std::string> keys;
  for (const ModelSpec& model : catalog.models()) keys.push_back(model.key);
  std::string close = closest_match(text, keys);
  value.fail(close.empty()
                 ? fmt::format("unknown model \"{}\"; expected one of {}", text, text::join(keys, ", "))
                 : fmt::format("unknown model \"{}\"; did you mean \"{}\"?", text, close));
}

// A parallel degree: a positive integer, or `search` for a layout search.
void degree_value(const YamlValue& value, std::optional<int>& degree, bool& search) {
  if (value.node().IsScalar() && value.node().Scalar() == "search") {
    search = true;
    return;
  }
  std::string text = value.text();
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    value.fail(fmt::format("expected a positive integer or search, got \"{}\"", text));
  }
  degree = value.to_int(1);
}

}  // namespace

const std::vector<std::string>& plan_study_keys() {
  static const std::vector<std::string> keys = {
      "name", "machines", "model", "arch", "mode", "tp", "pp", "dp", "cp", "ep", "etp", "vpp",
      "sp", "zero", "micro_batch", "global_batch", "seq", "batch", "kv_len", "prefill_chunk",
      "dtype", "weight_dtype", "recompute", "tp_overlap", "g", "gpus", "per_node", "p2p", "p2p_level", "ib_hca", "nvls",
      "channels", "comm_mode", "baseline_gpus", "gemm_efficiency", "hbm_efficiency", "search",
      "nccl_version"};
  return keys;
}

void check_plan_entry(const YamlValue& entry) {
  const bool model = entry.find("model").has_value(), arch = entry.find("arch").has_value();
  if (model && arch) entry.key_of("arch").fail("give either model or arch, not both");
  if (!model && !arch) entry.fail("missing required key \"model\" (or \"arch\")");
}

void apply_plan_key(const std::string& key, const YamlValue& value, PlanCaseSpec& spec) {
  PlanRequest& r = spec.request;
  if (key == "model") {
    r.model = model_value(value);
  } else if (key == "arch") {
    std::string text = value.text();
    try {
      r.model = parse_arch(text, "arch");
    } catch (const ConfigError& e) {
      value.fail(e.message());
    }
  } else if (key == "mode") {
    std::string mode = choice_value(value, {"train", "prefill", "decode"});
    r.mode = mode == "train" ? PlanMode::kTrain : mode == "prefill" ? PlanMode::kPrefill
                                                                     : PlanMode::kDecode;
  } else if (key == "tp") {
    degree_value(value, r.tp, spec.search);
  } else if (key == "pp") {
    degree_value(value, r.pp, spec.search);
  } else if (key == "dp") {
    degree_value(value, r.dp, spec.search);
  } else if (key == "cp") {
    degree_value(value, r.cp, spec.search);
  } else if (key == "ep") {
    degree_value(value, r.ep, spec.search);
  } else if (key == "etp") {
    degree_value(value, r.etp, spec.search);
  } else if (key == "vpp") {
    r.vpp = value.to_int(1);
  } else if (key == "sp") {
    r.sp = value.to_bool();
  } else if (key == "zero") {
    r.zero = value.to_int(0);
    if (*r.zero > 3) value.fail(fmt::format("expected zero <= 3, got {}", *r.zero));
  } else if (key == "micro_batch") {
    r.micro_batch = value.to_int(1);
  } else if (key == "global_batch") {
    r.global_batch = value.to_int(1);
  } else if (key == "seq") {
    r.seq = value.to_int(1);
  } else if (key == "batch") {
    r.batch = value.to_int(1);
  } else if (key == "kv_len") {
    r.kv_len = value.to_int(1);
  } else if (key == "prefill_chunk") {
    r.prefill_chunk = value.to_int(1);
  } else if (key == "dtype") {
    r.dtype = choice_value(value, {"bf16", "fp16", "fp8"});
  } else if (key == "weight_dtype") {
    r.weight_dtype = choice_value(value, {"int4", "int8", "fp8", "bf16", "fp16"});
  } else if (key == "recompute") {
    std::string mode = choice_value(value, {"none", "selective", "full"});
    r.recompute = mode == "none" ? Recompute::kNone : mode == "full" ? Recompute::kFull
                                                                     : Recompute::kSelective;
  } else if (key == "tp_overlap") {
    r.tp_overlap_async = choice_value(value, {"off", "async"}) == "async";
  } else if (key == "g") {
    r.gpus.first_n = value.to_int(1);
  } else if (key == "gpus") {
    r.gpus.list = value.text();
  } else if (key == "per_node") {
    r.gpus.per_node = value.to_int(1);
  } else if (key == "p2p") {
    r.comm.p2p_disable = !on_off_value(value);
  } else if (key == "p2p_level") {
    r.comm.p2p_level = p2p_level_value(value);
  } else if (key == "ib_hca") {
    r.comm.ib_hca = ib_hca_value(value);
  } else if (key == "nvls") {
    r.comm.nvls_enable = on_off_value(value);
  } else if (key == "channels") {
    r.comm.channels = value.to_int(0, kMaxChannels);
  } else if (key == "nccl_version") {
    r.comm.nccl_version = nccl_version_value(value);
  } else if (key == "comm_mode") {
    r.sim_mode = sim_mode_value(value);
  } else if (key == "baseline_gpus") {
    r.baseline_gpus = value.to_int(1);
  } else if (key == "gemm_efficiency") {
    r.gemm_efficiency = value.to_double(0);
  } else if (key == "hbm_efficiency") {
    r.hbm_efficiency = value.to_double(0);
  } else if (key == "search") {
    spec.search = value.to_bool();
  }
}

}  // namespace linksim::detail
