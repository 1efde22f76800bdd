// SPDX-License-Identifier: Apache-2.0
#include "support/llm_cases.hpp"

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "linksim/engine_release.hpp"
#include "linksim/error.hpp"

namespace linksim::testing {
namespace {

struct ConventionName {
  std::string_view name;
  FlopsConvention convention;
};
constexpr ConventionName kConventions[] = {
    {"megatron2021_hfu", FlopsConvention::kMegatron2021Hfu},
    {"megatron_mfu_2022", FlopsConvention::kMegatronMfu2022},
    {"megatron_core_pre2025", FlopsConvention::kMegatronCorePre2025},
    {"nemo_llama2", FlopsConvention::kNemoLlama2},
    {"palm_6N_12lhst", FlopsConvention::kPalm6N12lhst},
    {"llama3_paper", FlopsConvention::kLlama3Paper},
};

/// Reads one case's fields, reporting problems at their YAML position.
class CaseReader {
 public:
  CaseReader(const YAML::Node& node, std::string file) : node_(node), file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const {
    const YAML::Mark mark = at.IsDefined() && !at.IsNull() ? at.Mark() : node_.Mark();
    throw ConfigError(SourceLocation{file_, mark.line + 1, mark.column + 1}, message);
  }

  bool has(const char* key) const { return node_[key].IsDefined() && !node_[key].IsNull(); }

  YAML::Node required(const char* key) const {
    if (!has(key)) fail(node_, fmt::format("case {}: expected the field '{}'", id(), key));
    return node_[key];
  }

  template <typename T>
  T get(const char* key) const {
    const YAML::Node value = required(key);
    try {
      return value.as<T>();
    } catch (const YAML::Exception&) {
      fail(value, fmt::format("case {}: '{}' has the wrong type: \"{}\"", id(), key,
                              value.IsScalar() ? value.Scalar() : "(not a scalar)"));
    }
  }

  template <typename T>
  std::optional<T> optional(const char* key) const {
    if (!has(key)) return std::nullopt;
    return get<T>(key);
  }

  std::string id() const { return node_["id"].IsDefined() ? node_["id"].Scalar() : "?"; }
  const YAML::Node& node() const { return node_; }

 private:
  YAML::Node node_;
  std::string file_;
};

// "layers=48,hidden=8192,..." in the file's key order, for parse_arch's checks.
std::string arch_spec(const CaseReader& r) {
  const YAML::Node arch = r.required("arch");
  if (!arch.IsMap()) r.fail(arch, fmt::format("case {}: 'arch' must be a mapping", r.id()));
  std::string spec;
  for (const auto& entry : arch) {
    if (!spec.empty()) spec += ',';
    spec += entry.first.Scalar() + "=" + entry.second.Scalar();
  }
  return spec;
}

ModelSpec case_model(const CaseReader& r) {
  if (r.has("model") == r.has("arch")) {
    r.fail(r.node(), fmt::format("case {}: expected exactly one of 'model' and 'arch'", r.id()));
  }
  if (r.has("model")) return ModelCatalog::builtin().get(r.get<std::string>("model"), "model");
  return parse_arch(arch_spec(r), "arch");
}

PlanMode case_mode(const CaseReader& r) {
  const std::string mode = r.get<std::string>("mode");
  if (mode == "train") return PlanMode::kTrain;
  if (mode == "prefill") return PlanMode::kPrefill;
  if (mode == "decode") return PlanMode::kDecode;
  r.fail(r.node()["mode"], fmt::format("case {}: mode: expected train, prefill or decode, got \"{}\"",
                                       r.id(), mode));
}

Recompute case_recompute(const CaseReader& r) {
  const std::string text = r.get<std::string>("recompute");
  if (text == "none") return Recompute::kNone;
  if (text == "selective") return Recompute::kSelective;
  if (text == "full") return Recompute::kFull;
  r.fail(r.node()["recompute"],
         fmt::format("case {}: recompute: expected none, selective or full, got \"{}\"", r.id(), text));
}

// zero: 0..3, fsdp (= 3), or hsdp (FSDP inside a server, replicas across).
void read_zero(const CaseReader& r, LlmCase& c) {
  if (!r.has("zero")) return;
  const std::string text = r.get<std::string>("zero");
  if (text == "fsdp") {
    c.request.zero = 3;
  } else if (text == "hsdp") {
    c.request.zero = 3;
    c.request.shard_group = PlanRequest::kShardGroupPerServer;
  } else if (text.size() == 1 && text[0] >= '0' && text[0] <= '3') {
    c.request.zero = text[0] - '0';
  } else {
    r.fail(r.node()["zero"],
           fmt::format("case {}: zero: expected 0..3, fsdp or hsdp, got \"{}\"", r.id(), text));
  }
}

// dtype: "bf16", "fp16", "fp8", or weight-only quantization stated as
// "int4 (... fp16 compute ...)": weights int4, compute in the dtype named before "compute".
void read_dtype(const CaseReader& r, LlmCase& c) {
  const std::string text = r.get<std::string>("dtype");
  const std::string first = text.substr(0, text.find(' '));
  if (first == "bf16" || first == "fp16" || first == "fp8") {
    c.request.dtype = first;
    return;
  }
  if (first == "int4" || first == "int8") {
    const size_t compute = text.find(" compute");
    const size_t start = compute == std::string::npos ? compute : text.rfind(' ', compute - 1);
    const std::string compute_dtype =
        start == std::string::npos ? "" : text.substr(start + 1, compute - start - 1);
    if (compute_dtype == "bf16" || compute_dtype == "fp16") {
      c.request.weight_dtype = first;
      c.request.dtype = compute_dtype;
      return;
    }
  }
  r.fail(r.node()["dtype"],
         fmt::format("case {}: dtype: expected bf16, fp16, fp8 or \"int4 (... fp16 compute)\", "
                     "got \"{}\"",
                     r.id(), text));
}

void read_layout(const CaseReader& r, LlmCase& c) {
  PlanRequest& q = c.request;
  q.tp = r.get<int>("tp");
  q.pp = r.get<int>("pp");
  q.dp = r.get<int>("dp");
  q.ep = r.get<int>("ep");
  q.cp = r.get<int>("cp");
  q.sp = r.optional<bool>("sp").value_or(false);
  read_zero(r, c);
  if (r.has("framework")) {
    const std::string name = r.get<std::string>("framework");
    const std::optional<TrainFramework> framework = parse_train_framework(name);
    if (!framework) {
      r.fail(r.node()["framework"],
             fmt::format("case {}: framework: expected megatron, nemo, torchtitan, fsdp, deepspeed "
                         "or llm-foundry, got \"{}\"",
                         r.id(), name));
    }
    q.framework = *framework;
  }
  if (r.has("compile")) q.compile = r.get<bool>("compile");
  const std::string tp_overlap = r.optional<std::string>("tp_overlap").value_or("none");
  if (tp_overlap != "none" && tp_overlap != "async") {
    r.fail(r.node()["tp_overlap"],
           fmt::format("case {}: tp_overlap: expected none or async, got \"{}\"", r.id(), tp_overlap));
  }
  q.tp_overlap_async = tp_overlap == "async";
  const std::string schedule = r.optional<std::string>("pp_schedule").value_or("1f1b");
  if (schedule != "1f1b" && schedule != "interleaved-1f1b") {
    r.fail(r.node()["pp_schedule"],
           fmt::format("case {}: pp_schedule: expected 1f1b or interleaved-1f1b, got \"{}\"",
                       r.id(), schedule));
  }
  if (r.has("vpp")) {
    q.vpp = r.get<int>("vpp");
  } else if (schedule == "interleaved-1f1b") {
    // An interleaved schedule has at least two model chunks per GPU; a source that does not
    // say how many is planned with torchtitan's default for looped schedules, 2
    // (pipelining_utils.py, generate_split_points: num_stages_per_rank = 2).
    q.vpp = 2;
    c.approximations.push_back("vpp 2: interleaved schedule, stages per GPU not stated");
  }
  if (r.has("micro_batch")) q.micro_batch = r.get<int>("micro_batch");
  if (r.has("global_batch")) q.global_batch = r.get<int>("global_batch");
  if (r.has("seq")) q.seq = r.get<int>("seq");
  if (r.has("batch")) q.batch = r.get<int>("batch");
  if (r.has("kv_len")) q.kv_len = r.get<int>("kv_len");
  if (r.has("prefill_chunk")) q.prefill_chunk = r.get<int>("prefill_chunk");
  if (r.has("recompute")) q.recompute = case_recompute(r);
  read_dtype(r, c);
  if (const auto per_node = r.optional<int>("per_node")) {
    q.gpus.per_node = per_node;
  } else {
    q.gpus.first_n = c.gpus;
  }
}

// A static batch is planned as decode at the mean context of its osl steps; the whole-run
// figure is compared against prefill plus the decode steps (docs/validation.md).
void read_static(const CaseReader& r, LlmCase& c) {
  if (!r.has("static")) return;
  const YAML::Node s = r.node()["static"];
  StaticBatch b;
  try {
    b.isl = s["isl"].as<int>();
    b.osl = s["osl"].as<int>();
    b.batch = s["batch"].as<int>();
  } catch (const YAML::Exception&) {
    r.fail(s, fmt::format("case {}: static: expected integers isl, osl and batch", r.id()));
  }
  c.static_batch = b;
  c.request.batch = b.batch;
  c.request.kv_len = b.isl + b.osl / 2;
}

// The serving engine a prefill or decode run was measured on (engine.hpp), as its source names
// it; none given = the kernels and NCCL alone.
void read_engine(const CaseReader& r, LlmCase& c) {
  if (!r.has("engine")) return;
  const std::string name = r.get<std::string>("engine");
  if (c.request.mode == PlanMode::kTrain) {
    r.fail(r.node()["engine"], fmt::format("case {}: engine: expected no engine for a training run, "
                                           "got \"{}\"", r.id(), name));
  }
  const std::optional<EngineModel> engine = find_engine(name);
  if (!engine) {
    r.fail(r.node()["engine"], fmt::format("case {}: engine: expected {}, got \"{}\"", r.id(),
                                           engine_names(), name));
  }
  c.request.engine = *engine;
  // engine_version: the release the source measured on (include/linksim/engine_release.hpp).
  if (!r.has("engine_version")) return;
  const std::string version = r.get<std::string>("engine_version");
  const std::optional<EngineModel> release = find_engine_spec(name + "@" + version);
  if (!release) {
    const std::string known = engine_release_versions(name);
    r.fail(r.node()["engine_version"],
           fmt::format("case {}: engine_version: expected {}, got \"{}\"", r.id(),
                       known.empty() ? "no version (" + name + " has no releases in the table)"
                                     : "one of " + known,
                       version));
  }
  c.request.engine = *release;
}

LlmCase read_case(const YAML::Node& node, const std::string& file, const std::string& topologies) {
  const CaseReader r(node, file);
  LlmCase c;
  c.id = r.get<std::string>("id");
  c.source = r.get<std::string>("source");
  c.request.model = case_model(r);
  c.request.mode = case_mode(r);
  read_engine(r, c);
  c.topology_file = topologies + "/" + r.get<std::string>("topo") + ".yaml";
  if (r.has("set")) {
    for (const auto& entry : r.node()["set"]) c.sets[entry.first.Scalar()] = entry.second.Scalar();
  }
  c.gpus = r.get<int>("gpus");
  read_layout(r, c);
  read_static(r, c);
  c.metric = r.get<std::string>("metric");
  c.value = r.get<double>("value");
  if (r.has("flops_convention")) {
    const std::string text = r.get<std::string>("flops_convention");
    c.convention = parse_flops_convention(text);
    if (!c.convention) {
      r.fail(node["flops_convention"],
             fmt::format("case {}: unknown flops_convention \"{}\"", c.id, text));
    }
  }
  if (r.has("inferred")) c.inferred = node["inferred"].as<std::vector<std::string>>();
  c.caveat = r.optional<std::string>("caveat").value_or("");
  return c;
}

// Tokens a published tokens/s figure counts in one step (see published_step_time_s).
double tokens_per_step(const LlmCase& c) {
  const PlanRequest& q = c.request;
  if (c.static_batch) return static_cast<double>(c.static_batch->batch) * c.static_batch->osl;
  switch (q.mode) {
    case PlanMode::kTrain:
      if (!q.global_batch) {
        throw ConfigError(fmt::format("case {}: tokens/s of a training run needs global_batch", c.id));
      }
      return static_cast<double>(*q.global_batch) * q.seq;
    case PlanMode::kPrefill:
      return static_cast<double>(q.batch) * q.seq;
    case PlanMode::kDecode:
      return q.batch;
  }
  return 0;
}

double case_flops_per_step(const LlmCase& c) {
  if (!c.convention) {
    throw ConfigError(fmt::format("case {}: metric {} needs a flops_convention", c.id, c.metric));
  }
  if (c.request.mode != PlanMode::kTrain || !c.request.global_batch) {
    throw ConfigError(fmt::format("case {}: FLOP conventions count training steps with a "
                                  "global_batch", c.id));
  }
  return convention_flops_per_step(*c.convention, c.request.model, *c.request.global_batch,
                                   c.request.seq);
}

}  // namespace

std::optional<FlopsConvention> parse_flops_convention(std::string_view text) {
  const std::string_view first = text.substr(0, text.find(' '));
  for (const ConventionName& c : kConventions) {
    if (c.name == first) return c.convention;
  }
  return std::nullopt;
}

double convention_flops_per_step(FlopsConvention convention, const ModelSpec& m,
                                 double global_batch, double seq) {
  const double B = global_batch, s = seq, l = m.layers, h = m.hidden, V = m.vocab;
  const double Bslh2 = B * s * l * h * h;
  switch (convention) {
    case FlopsConvention::kMegatron2021Hfu:
      return 96 * Bslh2 * (1 + s / (6 * h) + V / (16 * l * h));
    case FlopsConvention::kMegatronMfu2022:
      return 72 * Bslh2 * (1 + s / (6 * h) + V / (12 * l * h));
    case FlopsConvention::kMegatronCorePre2025: {
      // 12 = 3 (forward, wgrad, dgrad) x 2 (GEMMs in pairs) x 2 (FLOPs per multiply-add).
      const double query_ratio = static_cast<double>(m.heads) * m.head_dim / h;
      const double groups_ratio = static_cast<double>(m.kv_heads) / m.heads;
      const double gated = m.ffn_type == FfnType::kSwiGlu ? 1.5 : 1.0;
      const double ffn = m.is_moe() ? static_cast<double>(m.moe_ffn) * m.topk : m.ffn;
      const double shared = m.is_moe() ? static_cast<double>(m.moe_ffn) * m.shared_experts : 0;
      return 12 * Bslh2 *
             ((1 + groups_ratio + s / h) * query_ratio + ffn / h * gated + shared / h * gated +
              V / (2 * l * h));
    }
    case FlopsConvention::kNemoLlama2:
      return Bslh2 * (12 + 12.0 * m.kv_heads / m.heads + 18.0 * m.ffn / h + 12 * s / h +
                      6 * V / (l * h));
    case FlopsConvention::kPalm6N12lhst:
    case FlopsConvention::kLlama3Paper:
      return B * s * (6 * count_params(m).active_non_embedding + 12 * l * h * s);
  }
  return 0;
}

std::vector<LlmCase> load_llm_cases(const std::string& cases_path,
                                    const std::string& topologies_dir) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(cases_path);
  } catch (const YAML::BadFile&) {
    throw ConfigError(SourceLocation{cases_path, 0, 0}, "cannot read the file");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(SourceLocation{cases_path, e.mark.line + 1, e.mark.column + 1}, e.msg);
  }
  if (!root.IsSequence()) {
    throw ConfigError(SourceLocation{cases_path, 1, 1}, "expected a list of cases");
  }
  std::vector<LlmCase> cases;
  for (const YAML::Node& node : root) cases.push_back(read_case(node, cases_path, topologies_dir));
  return cases;
}

double dense_peak_flops(const GpuModel& gpu, std::string_view dtype) {
  return dtype == "fp8" ? gpu.fp8_flops : gpu.bf16_flops;
}

double published_step_time_s(const LlmCase& c, double peak_flops_per_gpu) {
  if (c.metric == "step_time_s") return c.value;
  if (c.metric == "tpot_ms") return c.value * 1e-3;
  if (c.metric == "tokens_per_s") return tokens_per_step(c) / c.value;
  if (c.metric == "tokens_per_s_per_gpu") return tokens_per_step(c) / (c.value * c.gpus);
  if (c.metric == "tflops_per_gpu") return case_flops_per_step(c) / (c.value * 1e12 * c.gpus);
  if (c.metric == "mfu") {
    if (!(peak_flops_per_gpu > 0)) {
      throw ConfigError(fmt::format("case {}: an mfu figure needs the GPU's peak FLOP/s", c.id));
    }
    return case_flops_per_step(c) / (c.value / 100 * peak_flops_per_gpu * c.gpus);
  }
  throw ConfigError(fmt::format("case {}: unknown metric \"{}\"", c.id, c.metric));
}

}  // namespace linksim::testing
