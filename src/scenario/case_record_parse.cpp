// SPDX-License-Identifier: Apache-2.0
// A case file read back into its record, every field checked for its type
// (docs/scenario-format.md#case-files).
#include <array>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/json_fields.hpp"
#include "linksim/error.hpp"
#include "linksim/scenario_results.hpp"
#include "linksim/units.hpp"
#include "serve/serve_json.hpp"

namespace linksim {
namespace {

using Json = nlohmann::ordered_json;
using json_fields::FieldReader;

int to_int(std::int64_t value) { return static_cast<int>(value); }

// An enumerator spelled as to_string spells it; fails naming the field otherwise.
template <typename Enum, size_t N>
Enum enum_field(const FieldReader& f, const char* key, const std::array<Enum, N>& values) {
  const std::string text = f.text(key);
  std::string names;
  for (Enum value : values) {
    if (to_string(value) == text) return value;
    names += (names.empty() ? "" : ", ") + std::string(to_string(value));
  }
  f.fail(key, fmt::format("expected one of {}, found \"{}\"", names, text));
}

template <typename Enum>
Enum parsed_field(const FieldReader& f, const char* key,
                  std::optional<Enum> (*parse)(std::string_view), const char* what) {
  const std::string text = f.text(key);
  if (std::optional<Enum> value = parse(text)) return *value;
  f.fail(key, fmt::format("expected {}, found \"{}\"", what, text));
}

CollectiveRow row_from(const FieldReader& f) {
  CollectiveRow row;
  row.size_bytes = f.number("size_bytes");
  row.count = f.number("count");
  row.type = f.text("type");
  row.redop = f.text("redop");
  row.root = to_int(f.integer("root"));
  row.time_s = f.number("time_us") * kMicrosecond;
  row.algbw_Bps = f.number("algbw_GBps") * kGB;
  row.busbw_Bps = f.number("busbw_GBps") * kGB;
  row.algorithm = f.text("algorithm");
  row.protocol = f.text("protocol");
  row.bottleneck = f.text("bottleneck");
  if (f.has("confidence")) {  // the error band, written for modelled rows only
    row.time_low_s = f.number("time_low_us") * kMicrosecond;
    row.time_high_s = f.number("time_high_us") * kMicrosecond;
    row.confidence = f.text("confidence");
  }
  return row;
}

LinkUsageRecord link_usage_from(const FieldReader& f) {
  LinkUsageRecord u;
  u.size_bytes = f.number("size_bytes");
  u.mode = f.text("mode");
  u.topology_file = f.text("topology_file");
  for (auto& [name, value] : f.text_map("set")) u.set[name] = value;
  const Json& links = f.array("links");
  for (size_t i = 0; i < links.size(); ++i) {
    const Json& entry = links[i];
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_number_integer() ||
        !entry[1].is_number()) {
      FieldReader(Json::object(), f.file(), "link_usage")
          .fail("links", fmt::format("element {}: expected [link id, utilisation]", i));
    }
    u.links.push_back(LinkUtilization{entry[0].get<int>(), entry[1].get<double>()});
  }
  return u;
}

CollectiveSweepRecord collective_from(const FieldReader& f) {
  CollectiveSweepRecord c;
  c.collective = f.text("collective");
  c.ranks = to_int(f.integer("ranks"));
  c.mode = f.text("mode");
  c.nccl_version = f.text("nccl_version");
  c.algorithm = f.text("algo");
  c.protocol = f.text("proto");
  c.p2p = f.boolean("p2p");
  c.nvls = f.boolean("nvls");
  for (const FieldReader& row : f.objects("rows")) c.rows.push_back(row_from(row));
  return c;
}

ParallelLayout layout_from(const FieldReader& f) {
  ParallelLayout l;
  l.tp = to_int(f.integer("tp"));
  l.pp = to_int(f.integer("pp"));
  l.dp = to_int(f.integer("dp"));
  l.cp = to_int(f.integer("cp"));
  l.ep = to_int(f.integer("ep"));
  l.etp = to_int(f.integer("etp"));
  l.sp = f.boolean("sp");
  l.zero = to_int(f.integer("zero"));
  l.vpp = to_int(f.integer("vpp"));
  l.micro_batch = to_int(f.integer("micro_batch"));
  l.global_batch = to_int(f.integer("global_batch"));
  l.seq = to_int(f.integer("seq"));
  l.batch = to_int(f.integer("batch"));
  l.kv_len = to_int(f.integer("kv_len"));
  return l;
}

PlanBreakdown breakdown_from(const FieldReader& f) {
  PlanBreakdown b;
  b.compute_s = f.number("compute_s");
  b.exposed_comm_s = f.number("exposed_comm_s");
  b.bubble_s = f.number("bubble_s");
  return b;
}

MemoryBreakdown memory_from(const FieldReader& f) {
  MemoryBreakdown m;
  m.weights = f.number("weights_GB") * kGB;
  m.gradients = f.number("gradients_GB") * kGB;
  m.optimizer = f.number("optimizer_GB") * kGB;
  m.activations = f.number("activations_GB") * kGB;
  m.kv_cache = f.number("kv_cache_GB") * kGB;
  m.workspace = f.number("workspace_GB") * kGB;
  m.total = f.number("total_GB") * kGB;
  m.capacity = f.number("capacity_GB") * kGB;
  m.fits = f.boolean("fits");
  return m;
}

PlanComm comm_from(const FieldReader& f) {
  PlanComm c;
  c.kind = f.text("kind");
  c.phase = f.text("phase");
  c.group_size = to_int(f.integer("group_size"));
  c.collective = parsed_field(f, "collective", &parse_collective, "a collective");
  c.bytes = f.number("bytes");
  c.count = f.number("count");
  c.algorithm = parsed_field(f, "algorithm", &parse_algorithm, "an NCCL algorithm");
  c.protocol = parsed_field(f, "protocol", &parse_protocol, "an NCCL protocol");
  c.time_s = f.number("time_s");
  c.exposed_s = f.number("exposed_s");
  c.bottleneck = f.text("bottleneck");
  c.gpus = f.text("gpus");
  return c;
}

PlanResult plan_from(const FieldReader& f) {
  PlanResult p;
  p.model = f.text("model");
  p.mode =
      enum_field(f, "mode", std::array{PlanMode::kTrain, PlanMode::kPrefill, PlanMode::kDecode});
  p.layout = layout_from(f.object("layout"));
  p.recompute = enum_field(f, "recompute",
                           std::array{Recompute::kNone, Recompute::kSelective, Recompute::kFull});
  p.dtype = f.text("dtype");
  p.weight_dtype = f.text("weight_dtype");
  p.step_time_s = f.number("step_time_s");
  p.tokens_per_s = f.number("tokens_per_s");
  p.tokens_per_s_per_gpu = f.number("tokens_per_s_per_gpu");
  p.model_tflops_per_gpu = f.number("model_tflops_per_gpu");
  p.mfu = f.number("mfu");
  p.ttft_s = f.optional_number("ttft_s");
  p.tpot_s = f.optional_number("tpot_s");
  p.comm_time_s = f.number("comm_time_s");
  p.comm_compute_ratio = f.number("comm_compute_ratio");
  p.speedup = f.optional_number("speedup");
  p.scaling_efficiency = f.optional_number("scaling_efficiency");
  p.baseline = f.text("baseline");
  if (auto gpus = f.optional_integer("baseline_gpus")) p.baseline_gpus = to_int(*gpus);
  p.breakdown = breakdown_from(f.object("breakdown"));
  p.memory = memory_from(f.object("memory"));
  p.smallest_fitting = f.text("smallest_fitting");
  for (const FieldReader& comm : f.objects("comms")) p.comms.push_back(comm_from(comm));
  p.assumptions = f.texts("assumptions");
  return p;
}

std::vector<SearchCandidate> search_from(const FieldReader& f) {
  std::vector<SearchCandidate> ranking;
  for (const FieldReader& c : f.objects("search")) {
    SearchCandidate s;
    s.layout = layout_from(c.object("layout"));
    s.fits = c.boolean("fits");
    s.tokens_per_s = c.number("tokens_per_s");
    s.step_time_s = c.number("step_time_s");
    s.memory_bytes = c.number("memory_GB") * kGB;
    s.breakdown = breakdown_from(c.object("breakdown"));
    s.verdict = c.text("verdict");
    ranking.push_back(std::move(s));
  }
  return ranking;
}

ServeCaseResult serve_from(const FieldReader& f) {
  ServeCaseResult s;
  s.run = serve_json::serve_result_from_json(f);
  s.max_rate_requests_per_s = f.optional_number("max_rate_requests_per_s");
  return s;
}

CaseAnswer answer_from(const FieldReader& f) {
  if (f.has("collective")) {
    CollectiveSweepRecord c = collective_from(f.object("collective"));
    if (f.has("link_usage")) c.link_usage = link_usage_from(f.object("link_usage"));
    return c;
  }
  if (f.has("plan") || f.has("search")) {
    PlanCaseRecord p;
    if (f.has("plan")) p.plan = plan_from(f.object("plan"));
    if (f.has("search")) p.search = search_from(f);
    return p;
  }
  if (f.has("serve")) return serve_from(f.object("serve"));
  return std::monostate{};
}

}  // namespace

CaseRecord parse_case_record(std::string_view text, const std::string& file) {
  const Json doc = json_fields::parse_document(text, file);
  const FieldReader f(doc, file);
  CaseRecord r;
  r.id = f.text("id");
  r.index = to_int(f.integer("index"));
  r.fingerprint = f.text("fingerprint");
  r.study = f.text("study");
  r.kind = f.text("kind");
  r.machine = f.text("machine");
  r.topology = f.text("topology");
  r.parameters = f.text_map("parameters");
  r.gpu_model = f.text("gpu_model");
  r.gpus = to_int(f.integer("gpus"));
  r.servers = to_int(f.integer("servers"));
  const std::string status = f.text("status");
  r.error = f.text("error");
  if (status != (r.error.empty() ? "ok" : "error")) {
    f.fail("status", fmt::format("expected \"{}\" with {} error, found \"{}\"",
                                 r.error.empty() ? "ok" : "error",
                                 r.error.empty() ? "an empty" : "an", status));
  }
  r.answer = answer_from(f);
  return r;
}

}  // namespace linksim
