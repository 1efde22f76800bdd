// SPDX-License-Identifier: Apache-2.0
// The rules about the communicator as a whole: fewer-channels, ring-crosses-socket, nvls-off,
// pxn and version-old (docs/diagnose.md#findings).
#include <fmt/core.h>

#include <algorithm>

#include "diagnose/rules.hpp"

namespace linksim::diagnose_detail {
namespace {

/// NVLS (NVLink SHARP) arrived in NCCL 2.17 (NVIDIA/nccl release notes, v2.17.1-1).
constexpr NcclVersion kFirstNvlsRelease{2, 17};

// Variables that cap the channel count (src/graph/connect.cc, ncclTopoPostset; init.cc).
const std::vector<std::string_view> kChannelCaps = {"NCCL_MAX_NCHANNELS", "NCCL_MAX_NRINGS",
                                                    "NCCL_MAX_CTAS"};

bool any_env(const NcclLog& log, const std::vector<std::string_view>& names) {
  return std::any_of(names.begin(), names.end(),
                     [&](std::string_view n) { return log.env_var(n) != nullptr; });
}

std::optional<RuledFinding> fewer_channels(const RuleContext& ctx) {
  const std::optional<NcclLogCount> logged = ctx.log.channel_count();
  const bool capped = any_env(ctx.log, kChannelCaps);
  RuledFinding out;
  Finding& f = out.finding;
  f.key = std::string(kFindingFewerChannels);
  if (ctx.machine == nullptr) {
    if (!capped || !logged) return std::nullopt;
    f.severity = FindingSeverity::kInfo;
    f.evidence.push_back(logged->source);
    add_env_evidence(f.evidence, ctx.log, kChannelCaps);
    f.message = fmt::format("the channel count ({}) is capped by the environment; give the "
                            "machine (--topo) to compare with what NCCL would choose",
                            logged->value);
    return out;
  }
  const int predicted = static_cast<int>(ctx.machine->predicted.channels.size());
  if (!logged || logged->value >= predicted) return std::nullopt;
  f.evidence.push_back(logged->source);
  add_env_evidence(f.evidence, ctx.log, kChannelCaps);
  if (!capped) {
    // Without a cause in the log, the difference may be the model's: stated, not judged.
    f.severity = FindingSeverity::kInfo;
    f.message = fmt::format("the log shows {} channels where linksim predicts {} for this "
                            "machine; no NCCL variable in the log caps them",
                            logged->value, predicted);
    return out;
  }
  f.severity = FindingSeverity::kFault;
  f.message = fmt::format("{} channels where NCCL would use {} on this machine: the environment "
                          "caps them", logged->value, predicted);
  CostSetting s{.words = fmt::format("{} channels", logged->value), .logged = ctx.machine->options,
                .best = ctx.machine->options, .bound_note = {}};
  s.logged.channels = std::clamp(logged->value, 1, kMaxChannels);
  out.cost = s;
  return out;
}

// Ring neighbours in one server whose GPUs are SYS apart (across the CPU sockets): every ring
// through both sockets of a server crosses twice; a ring that crosses more often than NCCL's
// own rings on this machine puts more of its hops on the socket link.
int socket_crossings(const RuleContext& ctx, const std::vector<int>& ranks) {
  const Topology& t = ctx.machine->topology;
  int crossings = 0;
  const size_t n = ranks.size();
  for (size_t i = 0; n > 1 && i < n; ++i) {
    const auto a = ctx.gpu(ranks[i]);
    const auto b = ctx.gpu(ranks[(i + 1) % n]);
    if (!a || !b || *a == *b || t.device(*a).host != t.device(*b).host) continue;
    crossings += ctx.machine->router.classify(*a, *b) == PathClass::kSys ? 1 : 0;
  }
  return crossings;
}

std::optional<RuledFinding> ring_crosses_socket(const RuleContext& ctx) {
  if (ctx.machine == nullptr) return std::nullopt;
  int predicted = 0;
  for (const NcclRingChannel& ch : ctx.machine->predicted.channels) {
    predicted = std::max(predicted, socket_crossings(ctx, ch.ranks));
  }
  std::vector<NcclLogLine> more, crossing;
  int most = 0;
  for (const NcclLogRing& ring : ctx.log.rings) {
    const int c = socket_crossings(ctx, ring.ranks);
    most = std::max(most, c);
    if (c > predicted) more.push_back(ring.source);
    else if (c > 0) crossing.push_back(ring.source);
  }
  if (more.empty() && crossing.empty()) return std::nullopt;
  RuledFinding out;
  Finding& f = out.finding;
  f.key = std::string(kFindingRingCrossesSocket);
  if (more.empty()) {
    add_evidence(f.evidence, crossing);
    f.severity = FindingSeverity::kExpected;
    f.message = fmt::format("{} ring channels cross the CPU sockets, {} times at most, as NCCL's "
                            "rings must on this machine", crossing.size(), most);
    return out;
  }
  add_evidence(f.evidence, more);
  f.severity = FindingSeverity::kFault;
  f.message = fmt::format("{} ring channels cross the CPU sockets up to {} times where NCCL's "
                          "rings on this machine cross {} times (a rank-to-GPU order or "
                          "NCCL_GRAPH_FILE forcing the ring); the engine does not model a forced "
                          "ring order, so no cost", more.size(), most, predicted);
  return out;
}

std::optional<RuledFinding> nvls_off(const RuleContext& ctx, std::optional<NcclVersion> release) {
  std::vector<NcclLogLine> evidence;
  const bool zero = ctx.log.nvls_channels && ctx.log.nvls_channels->value == 0;
  if (zero) evidence.push_back(ctx.log.nvls_channels->source);
  add_evidence(evidence, ctx.log.nvls_unavailable);
  add_env_evidence(evidence, ctx.log, {"NCCL_NVLS_ENABLE"});
  const NcclLogEnv* env = ctx.log.env_var("NCCL_NVLS_ENABLE");
  const bool disabled = env && env->value == "0";
  if (!zero && ctx.log.nvls_unavailable.empty() && !disabled) return std::nullopt;
  RuledFinding out;
  Finding& f = out.finding;
  f.key = std::string(kFindingNvlsOff);
  std::sort(evidence.begin(), evidence.end(),
            [](const NcclLogLine& a, const NcclLogLine& b) { return a.line < b.line; });
  f.evidence = evidence;
  if (ctx.machine == nullptr || !ctx.machine->nvls_possible ||
      (release && *release < kFirstNvlsRelease)) {
    if (ctx.machine != nullptr && !disabled) return std::nullopt;  // right for this machine
    f.severity = FindingSeverity::kInfo;
    f.message = disabled ? "NVLS (NVLink SHARP) is disabled by NCCL_NVLS_ENABLE=0"
                         : "NCCL did not set up NVLS (NVLink SHARP)";
    return out;
  }
  f.severity = FindingSeverity::kFault;
  f.message = "NVLS (NVLink SHARP) is off although the machine's NVSwitches reduce in the switch "
              "(NCCL_NVLS_ENABLE=0, no IMEX / fabric manager, or a driver without multicast)";
  CostSetting s{.words = "NCCL_NVLS_ENABLE=0", .logged = ctx.machine->options,
                .best = ctx.machine->options, .bound_note = {}};
  s.logged.nvls_enable = false;
  out.cost = s;
  return out;
}

std::optional<RuledFinding> pxn(const RuleContext& ctx) {
  std::vector<NcclLogLine> evidence;
  for (const NcclLogHop& h : ctx.log.hops) {
    if (h.proxy_rank && evidence.size() < kEvidencePerKind) evidence.push_back(h.source);
  }
  add_evidence(evidence, ctx.log.ring_pxn);
  const NcclLogEnv* env = ctx.log.env_var("NCCL_PXN_DISABLE");
  const bool disabled = env && env->value == "1";
  if (evidence.empty() && !disabled) return std::nullopt;
  add_env_evidence(evidence, ctx.log, {"NCCL_PXN_DISABLE", "NCCL_P2P_PXN_LEVEL"});
  std::sort(evidence.begin(), evidence.end(),
            [](const NcclLogLine& a, const NcclLogLine& b) { return a.line < b.line; });
  RuledFinding out;
  Finding& f = out.finding;
  f.key = std::string(kFindingPxn);
  f.evidence = evidence;
  f.severity = FindingSeverity::kInfo;
  if (!disabled) {
    f.message = "NCCL sends through PXN: a GPU hands data over NVLink to the GPU next to the NIC "
                "that carries it";
    return out;
  }
  const bool predicted = ctx.machine != nullptr && ctx.machine->predicted.ring_pxn;
  if (predicted) {
    f.severity = FindingSeverity::kFault;
    f.message = "PXN is disabled (NCCL_PXN_DISABLE=1) where NCCL's rings on this machine would use "
                "it; the engine has no switch to turn PXN off, so no cost";
  } else {
    f.message = "PXN is disabled (NCCL_PXN_DISABLE=1); rings here do not need it, all-to-all and "
                "send/receive may";
  }
  return out;
}

std::optional<RuledFinding> version_old(const RuleContext& ctx, std::optional<NcclVersion> release) {
  if (!release || !ctx.log.version_line) return std::nullopt;
  RuledFinding out;
  Finding& f = out.finding;
  f.key = std::string(kFindingVersionOld);
  f.evidence.push_back(*ctx.log.version_line);
  if (ctx.machine != nullptr && ctx.machine->nvls_possible && *release < kFirstNvlsRelease) {
    f.severity = FindingSeverity::kFault;
    f.message = fmt::format("NCCL {} predates NVLS ({}): this machine's NVSwitches could reduce "
                            "in the switch with a newer release",
                            *ctx.log.version, to_string(kFirstNvlsRelease));
    CostSetting s{.words = "NCCL " + to_string(*release), .logged = ctx.machine->options,
                  .best = ctx.machine->options, .bound_note = {}};
    s.best.nccl_version = kDefaultNcclVersion;
    out.cost = s;
    return out;
  }
  if (*release >= kDefaultNcclVersion) return std::nullopt;
  f.severity = FindingSeverity::kInfo;
  f.message = fmt::format("NCCL {} is older than {}, the release linksim models by default; the "
                          "prediction uses {}", *ctx.log.version, to_string(kDefaultNcclVersion),
                          to_string(*release));
  return out;
}

}  // namespace

std::vector<RuledFinding> graph_findings(const RuleContext& ctx) {
  const std::optional<NcclVersion> release = ctx.log.release();
  std::vector<RuledFinding> out;
  for (auto f : {fewer_channels(ctx), ring_crosses_socket(ctx), nvls_off(ctx, release), pxn(ctx),
                 version_old(ctx, release)}) {
    if (f) out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace linksim::diagnose_detail
