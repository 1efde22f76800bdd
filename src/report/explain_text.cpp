// SPDX-License-Identifier: Apache-2.0
// The derivations as text (render_explain_text, render_plan_explain_text).
#include <fmt/core.h>

#include <cmath>
#include <string>

#include "linksim/explain_report.hpp"
#include "linksim/report.hpp"
#include "linksim/units.hpp"
#include "report/explain_parts.hpp"
#include "report/text_lines.hpp"
#include "report/text_table.hpp"

namespace linksim {
namespace {

using report_explain::append_step;
using report_explain::value_text;
using report_text::append_line;

std::string pair_name(const TunerCandidate& c) {
  return fmt::format("{}/{}", to_string(c.algorithm), to_string(c.protocol));
}

std::string candidates_table(const CollectiveExplanation& e) {
  report_text::TextTable t(
      {"algorithm", "protocol", "alpha", "fill", "w", "B", "t", "NCCL's estimate", ""},
      {false, false, true, true, true, true, true, true, false});
  for (const TunerCandidate& c : e.candidates) {
    if (!c.eligible) {
      t.add_row({std::string(to_string(c.algorithm)), std::string(to_string(c.protocol)), "-", "-",
                 "-", "-", "-", "-", "not eligible: " + c.why_not});
      continue;
    }
    t.add_row({std::string(to_string(c.algorithm)), std::string(to_string(c.protocol)),
               value_text(c.latency_s, "s"), value_text(c.fill_s, "s"),
               value_text(c.wire_factor, ""), value_text(c.bw_Bps, "B/s"),
               value_text(c.time_s, "s"), value_text(c.nccl_estimate_s, "s"),
               c.chosen ? "<- chosen" : ""});
  }
  return t.render("     ");
}

// The chosen pair and the best of the others, in one sentence.
std::string choice_sentence(const CollectiveExplanation& e) {
  const TunerCandidate* chosen = nullptr;
  const TunerCandidate* next = nullptr;
  for (const TunerCandidate& c : e.candidates) {
    if (c.chosen)
      chosen = &c;
    else if (c.eligible && (next == nullptr || c.nccl_estimate_s < next->nccl_estimate_s))
      next = &c;
  }
  if (chosen == nullptr) return "";
  if (next == nullptr) {
    return fmt::format("NCCL would run {}: the only pair allowed here.", pair_name(*chosen));
  }
  return fmt::format("NCCL would run {}: its tuner estimates {} against {} for {}, the next best.",
                     pair_name(*chosen), value_text(chosen->nccl_estimate_s, "s"),
                     value_text(next->nccl_estimate_s, "s"), pair_name(*next));
}

std::string bound_sentence(const CollectiveExplanation& e, const TunerCandidate& c) {
  if (e.size_bytes <= 0 || !(c.bw_Bps > 0) || std::isinf(c.bw_Bps)) {
    return "Nothing moves over the wire: the time is the latency term alone.";
  }
  const double wire_s = c.wire_factor * e.size_bytes / c.bw_Bps;
  const double share = wire_s / c.time_s;
  return fmt::format(
      "The time is {}: the bandwidth term w x S / B = {} is {:.1f} % of it, "
      "the latency {} and the fill {} the rest.",
      share >= 0.5 ? "bandwidth-bound" : "latency-bound", value_text(wire_s, "s"), 100 * share,
      value_text(c.latency_s, "s"), value_text(c.fill_s, "s"));
}

std::string flow_sentence(const CollectiveExplanation& e, const Topology& topology) {
  if (!e.flow) return "No flow simulation: " + e.flow_skipped + ".";
  const double t_closed = e.analytic.time_s, t_flow = e.flow->time_s;
  const double rel = t_closed > 0 ? (t_flow - t_closed) / t_closed : 0;
  std::string verdict;
  if (std::fabs(rel) < 1e-6) {
    verdict =
        "the same time as the closed form: its streams do not contend beyond what the "
        "closed form already charges";
  } else if (rel > 0) {
    verdict = fmt::format(
        "{:.2f} % slower than the closed form: streams share links the closed "
        "form counts once, and the simulation makes them contend",
        100 * rel);
  } else {
    verdict = fmt::format(
        "{:.2f} % faster than the closed form: the simulation finds spare "
        "capacity the closed form's single bottleneck does not use",
        -100 * rel);
  }
  return fmt::format("The flow simulation takes {}, {}; its bottleneck is {}.",
                     value_text(t_flow, "s"), verdict, describe_bottleneck(*e.flow, topology));
}

}  // namespace

std::string render_explain_text(const CollectiveExplanation& e, const Topology& topology) {
  std::string out;
  append_line(out, fmt::format("linksim explain {}: {} on {} GPUs of {} ({} server{}), NCCL {}",
                               to_string(e.op), value_text(e.size_bytes, "bytes"), e.ranks,
                               topology.name(), e.nodes, e.nodes == 1 ? "" : "s",
                               to_string(e.nccl_version)));
  out += '\n';
  int number = 1;
  for (const ExplainStep& step : e.steps) {
    if (number == 1) {
      append_line(out, fmt::format("{}. {}", number, step.title));
      append_line(out, "   " + step.formula);
      out += candidates_table(e);
      append_line(out, fmt::format("   => {} = {}", step.result.symbol,
                                   value_text(step.result.value, step.result.unit)));
      out += '\n';
      ++number;
      continue;
    }
    append_step(out, number++, step);
  }
  append_line(out, "In plain words");
  append_line(out, "   " + choice_sentence(e));
  for (const TunerCandidate& c : e.candidates) {
    if (c.chosen) append_line(out, "   " + bound_sentence(e, c));
  }
  append_line(out, fmt::format("   The closed form's bottleneck is {}.",
                               describe_bottleneck(e.analytic, topology)));
  append_line(out, "   " + flow_sentence(e, topology));
  return out;
}

std::string render_plan_explain_text(const PlanExplanation& e) {
  const PlanResult& p = e.plan;
  const ParallelLayout& l = p.layout;
  std::string out;
  append_line(out, fmt::format("linksim explain plan: {} {} on {} GPUs of {} (tp={} pp={} dp={} "
                               "cp={} ep={} vpp={})",
                               p.model, to_string(p.mode), p.gpus, p.topology, l.tp, l.pp, l.dp,
                               l.cp, l.ep, l.vpp));
  out += '\n';
  int number = 1;
  for (const ExplainStep& step : e.steps) append_step(out, number++, step);
  append_line(out, "In plain words");
  const double f = e.exposed_fraction;
  if (p.breakdown.exposed_comm_s <= 0) {
    append_line(out,
                "   No communication is exposed: the step is compute and bubble, and only "
                "faster compute makes it shorter.");
    return out;
  }
  append_line(
      out,
      fmt::format(
          "   Exposed communication is {:.1f} % of the step: with compute infinitely fast the step "
          "would still take at least {}, a speedup of at most 1/f = {:.3g}x; hiding all "
          "communication would make it {:.3g}x faster.",
          100 * f, value_text(p.breakdown.exposed_comm_s, "s"), e.compute_speedup_bound,
          e.comm_free_speedup));
  if (e.speedup_comm_hidden) {
    const double linear = double(p.gpus) / p.baseline_gpus.value_or(p.gpus);
    append_line(out, fmt::format("   Over the baseline ({}) this layout reaches {:.3g}x on {} GPUs "
                                 "(linear: {:.3g}x); with "
                                 "its communication hidden it would reach {:.3g}x{}.",
                                 p.baseline, *p.speedup, p.gpus, linear, *e.speedup_comm_hidden,
                                 *e.speedup_comm_hidden > linear
                                     ? ", above linear because the baseline pays exposed "
                                       "communication too"
                                     : ""));
  }
  return out;
}

}  // namespace linksim
