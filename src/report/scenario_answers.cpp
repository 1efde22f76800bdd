// SPDX-License-Identifier: Apache-2.0
// The answers to a scenario's questions (docs/scenario-format.md#questions): for each question,
// one phrase per case of its studies with the compared number and the share of the time the
// interconnect takes, then one sentence that compares them. Assembled from the manifest and
// the case documents alone, like results.csv, so a merged run answers as a single one.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "linksim/error.hpp"
#include "linksim/scenario_report.hpp"
#include "linksim/units.hpp"
#include "report/text_lines.hpp"

namespace linksim {
namespace {


/// Below this share of the time in exposed communication the interconnect is called
/// irrelevant to the question; from the second it is called decisive (it then costs more
/// than all computation). docs/scenario-format.md#questions.
constexpr double kNegligibleCommShare = 0.05;
constexpr double kDecisiveCommShare = 0.5;

// "dgx-h100", or "dgx-h100 g=8" when the case sweeps something.
std::string answer_case_label(const CaseRecord& doc) {
  const std::string& id = doc.id;
  const std::string prefix = doc.study + "/" + doc.machine;
  std::string label = doc.machine;
  if (id.size() > prefix.size() + 1 && id.compare(0, prefix.size(), prefix) == 0) {
    label += " " + id.substr(prefix.size() + 1);
  }
  return label;
}

std::string percent(double share) {
  const double p = 100 * share;
  return p > 0 && p < 0.95 ? fmt::format("{:.1f} %", p) : fmt::format("{:.0f} %", p);
}

std::string ratio_text(double ratio) {
  return ratio >= 10 ? fmt::format("{:.0f}x", ratio) : fmt::format("{:.1f}x", ratio);
}

// One plan case as the question sees it.
struct PlanPoint {
  std::string label;
  double value = NAN;       // the metric (seconds, tokens/s or scaling efficiency)
  double comm_share = NAN;  // exposed communication / step time
  double comm_s = NAN;      // exposed communication (seconds)
  int gpus = 0;
  int baseline_gpus = 0;    // 0 = no baseline
  std::string main_comm;    // "tp allreduce bound by gpu0->nvswitch0 (...)", or empty
  std::string phrase;       // the case's phrase in the answer
  bool answered = false;    // a number that can be compared (the case ran and fits)
};

bool lower_is_better(const std::string& metric) {
  return metric == "tpot" || metric == "ttft" || metric == "step_time";
}

std::string metric_value_text(const std::string& metric, double value) {
  if (metric == "tpot") return format_duration(value) + " per token";
  if (metric == "ttft") return format_duration(value) + " to the first token";
  if (metric == "step_time") return "step " + format_duration(value);
  if (metric == "tokens_per_s") {
    return (value >= 100 ? fmt::format("{:.0f}", value) : fmt::format("{:.3g}", value)) + " tokens/s";
  }
  return percent(value) + " scaling efficiency";
}

// The exposed communication that costs the most time, with the link that bounds it.
std::string main_comm_text(const PlanResult& plan) {
  const PlanComm* worst = nullptr;
  for (const PlanComm& c : plan.comms) {
    if (c.exposed_s > 0 && (worst == nullptr || c.exposed_s > worst->exposed_s)) worst = &c;
  }
  if (worst == nullptr) return "";
  std::string text = fmt::format("{} {}", worst->kind, to_string(worst->collective));
  const std::string& bottleneck = worst->bottleneck;
  if (!bottleneck.empty() && bottleneck != "none") text += " bound by " + bottleneck;
  return text;
}

PlanPoint plan_point(const CaseRecord& doc, const std::string& metric) {
  PlanPoint p;
  p.label = answer_case_label(doc);
  if (!doc.ok()) {
    p.phrase = fmt::format("{}: not answered ({})", p.label, doc.error);
    return p;
  }
  if (doc.plan() == nullptr) {
    p.phrase = fmt::format("{}: not answered (a layout search, not one plan)", p.label);
    return p;
  }
  const PlanResult& plan = *doc.plan();
  const MemoryBreakdown& memory = plan.memory;
  if (!memory.fits) {
    p.phrase = fmt::format("{}: does not fit ({:.0f} GB per GPU needed, {:.0f} GB there)", p.label,
                           file_number(memory.total, kGB), file_number(memory.capacity, kGB));
    return p;
  }
  const double step = plan.step_time_s;
  p.comm_s = plan.breakdown.exposed_comm_s;
  p.comm_share = step > 0 ? p.comm_s / step : 0;
  p.main_comm = main_comm_text(plan);
  p.gpus = doc.gpus;
  if (metric == "scaling") {
    p.value = plan.scaling_efficiency.value_or(NAN);
    const double speedup = plan.speedup.value_or(NAN);
    // The planner's own baseline (PlanResult::baseline_gpus), as the case file holds it.
    p.baseline_gpus = plan.baseline_gpus.value_or(0);
    if (!std::isfinite(p.value) || !std::isfinite(speedup) || p.baseline_gpus == 0) {
      p.phrase = fmt::format("{}: step {}, no baseline to scale against (nothing smaller fits)",
                             p.label, format_duration(step));
      return p;
    }
    if (p.gpus <= p.baseline_gpus) {
      p.phrase = fmt::format("{}: step {} on {} GPU{}, the baseline", p.label,
                             format_duration(step), p.gpus, p.gpus == 1 ? "" : "s");
      return p;
    }
    p.phrase = fmt::format("{}: step {}, {:.2f}x the throughput of {} GPU{} ({} scaling "
                           "efficiency), communication {} ({} of the step)",
                           p.label, format_duration(step), speedup, p.baseline_gpus,
                           p.baseline_gpus == 1 ? "" : "s", percent(p.value),
                           format_duration(p.comm_s), percent(p.comm_share));
  } else {
    p.value = metric == "tpot"        ? plan.tpot_s.value_or(NAN)
              : metric == "ttft"      ? plan.ttft_s.value_or(NAN)
              : metric == "step_time" ? plan.step_time_s
                                      : plan.tokens_per_s;
    if (!std::isfinite(p.value)) {
      p.phrase = fmt::format("{}: no {} for a {} plan", p.label, metric, to_string(plan.mode));
      return p;
    }
    p.phrase = fmt::format("{}: {}, communication {} ({} of it)", p.label,
                           metric_value_text(metric, p.value), format_duration(p.comm_s),
                           percent(p.comm_share));
  }
  if (p.comm_share >= kNegligibleCommShare && !p.main_comm.empty()) {
    p.phrase += " (mostly " + p.main_comm + ")";
  }
  p.answered = true;
  return p;
}

std::string plan_verdict(const std::vector<PlanPoint>& points, const std::string& metric) {
  std::vector<const PlanPoint*> answered;
  for (const PlanPoint& p : points) {
    // A scaling question compares the cases that scale: a baseline against itself says nothing.
    if (p.answered && (metric != "scaling" || p.gpus > p.baseline_gpus)) answered.push_back(&p);
  }
  if (answered.empty()) return "No case of these studies could answer it.";
  auto by_share = [](const PlanPoint* a, const PlanPoint* b) { return a->comm_share < b->comm_share; };
  const PlanPoint* most = *std::max_element(answered.begin(), answered.end(), by_share);
  const PlanPoint* least = *std::min_element(answered.begin(), answered.end(), by_share);
  const bool lower = lower_is_better(metric);
  auto better = [&](const PlanPoint* a, const PlanPoint* b) {
    return lower ? a->value < b->value : a->value > b->value;
  };
  const PlanPoint* best = *std::min_element(answered.begin(), answered.end(), better);
  const PlanPoint* worst = *std::max_element(answered.begin(), answered.end(), better);
  std::string spread;
  if (best != worst && best->value > 0 && worst->value > 0) {
    const double ratio = lower ? worst->value / best->value : best->value / worst->value;
    spread = metric == "scaling"
                 ? fmt::format(" Scaling efficiency is {} on {} and {} on {}.", percent(best->value),
                               best->label, percent(worst->value), worst->label)
                 : fmt::format(" {} is {} {} than {}.", best->label, ratio_text(ratio),
                               metric == "tokens_per_s" ? "faster" : "quicker", worst->label);
  }
  const char* verdict = most->comm_share >= kDecisiveCommShare ? "The interconnect decides"
                                                                : "The interconnect matters";
  if (most->comm_share == 0) {
    return fmt::format("The interconnect plays no part: nothing is communicated{}; what differs "
                       "is the GPUs.{}",
                       answered.size() > 1 ? " on any machine" : "", spread);
  }
  if (most->comm_share < kNegligibleCommShare) {
    return fmt::format("The interconnect hardly matters: communication is at most {} of the time{}; "
                       "what differs is the GPUs.{}",
                       percent(most->comm_share), answered.size() > 1 ? " on every machine" : "",
                       spread);
  }
  if (answered.size() == 1) {
    return fmt::format("{}: communication is {} of the time ({}).", verdict,
                       percent(most->comm_share), most->main_comm);
  }
  return fmt::format("{}: communication takes {} of the time on {} ({}) against {} on {}.{}",
                     verdict, percent(most->comm_share), most->label, most->main_comm,
                     percent(least->comm_share), least->label, spread);
}

// The row of a curve a busbw question reads: the largest size not above `size_bytes`
// (all rows when it is 0); the first row when every size is above it.
const CollectiveRow* busbw_row(const std::vector<CollectiveRow>& rows, double size_bytes) {
  const CollectiveRow* chosen = nullptr;
  for (const CollectiveRow& row : rows) {
    if (size_bytes <= 0 || row.size_bytes <= size_bytes) chosen = &row;
  }
  return chosen != nullptr ? chosen : (rows.empty() ? nullptr : &rows.front());
}

std::vector<std::string> answer_busbw(const std::vector<const CaseRecord*>& docs,
                                      double size_bytes) {
  std::vector<std::string> lines;
  struct Point {
    std::string label, bottleneck;
    double busbw = 0;
  };
  std::vector<Point> points;
  static const std::vector<CollectiveRow> kNoRows;
  for (const CaseRecord* doc : docs) {
    const std::string label = answer_case_label(*doc);
    const CollectiveSweepRecord* collective = doc->collective();
    const CollectiveRow* row =
        busbw_row(collective != nullptr ? collective->rows : kNoRows, size_bytes);
    if (!doc->ok() || row == nullptr) {
      lines.push_back(fmt::format("{}: not answered ({})", label, doc->error));
      continue;
    }
    Point p{label, row->bottleneck, file_number(row->busbw_Bps, kGB)};
    lines.push_back(fmt::format("{}: {} busbw {:.1f} GB/s at {} ({} {}, limited by {})", label,
                                collective->collective, p.busbw, format_size(row->size_bytes),
                                row->algorithm, row->protocol, p.bottleneck));
    points.push_back(std::move(p));
  }
  if (points.size() >= 2) {
    auto by_bw = [](const Point& a, const Point& b) { return a.busbw < b.busbw; };
    const Point& best = *std::max_element(points.begin(), points.end(), by_bw);
    const Point& worst = *std::min_element(points.begin(), points.end(), by_bw);
    if (worst.busbw > 0) {
      lines.push_back(fmt::format("{} moves {} the bus bandwidth of {}, which is limited by {}.",
                                  best.label, ratio_text(best.busbw / worst.busbw), worst.label,
                                  worst.bottleneck));
    }
  } else if (points.size() == 1) {
    lines.push_back(fmt::format("{} is limited by {}.", points.front().label, points.front().bottleneck));
  } else {
    lines.push_back("No case of these studies could answer it.");
  }
  return lines;
}

// One serving case as a question sees it: the metric, at the case's rate, and the share of
// the iteration time in exposed communication.
struct ServePoint {
  std::string label, bound;
  double value = NAN, comm_share = NAN;
};

bool serve_metric(const std::string& metric) {
  return metric == "ttft_p50" || metric == "ttft_p99" || metric == "tpot_p50" ||
         metric == "tpot_p99" || metric == "goodput" || metric == "max_rate";
}

std::string serve_value_text(const std::string& metric, double value) {
  if (metric == "goodput") return fmt::format("goodput {:.3g} requests/s", value);
  if (metric == "max_rate") return fmt::format("max rate {:.3g} requests/s under the SLO", value);
  const std::string what = metric.substr(0, 4) == "ttft" ? "TTFT" : "TPOT";
  return fmt::format("{} {} {}", what, metric.substr(5), format_duration(value));
}

// The latency a serve metric names: "ttft_p99" is the TTFT's p99.
double serve_latency(const ServeResult& run, const std::string& metric) {
  const LatencyStats& stats = metric.substr(0, 4) == "ttft" ? run.ttft_s : run.tpot_s;
  return metric.substr(5) == "p50" ? stats.p50 : stats.p99;
}

std::vector<std::string> answer_serve(const std::vector<const CaseRecord*>& docs,
                                      const std::string& metric) {
  std::vector<std::string> lines;
  std::vector<ServePoint> points;
  for (const CaseRecord* doc : docs) {
    const std::string label = answer_case_label(*doc);
    const ServeCaseResult* serve = doc->serve();
    if (!doc->ok() || serve == nullptr) {
      lines.push_back(fmt::format("{}: not answered ({})", label, doc->error));
      continue;
    }
    const ServeResult& run = serve->run;
    ServePoint p{label, run.bounding_link, NAN, run.comm_share};
    if (metric == "goodput") p.value = run.goodput_requests_per_s.value_or(NAN);
    else if (metric == "max_rate") p.value = serve->max_rate_requests_per_s.value_or(NAN);
    else p.value = serve_latency(run, metric);
    if (!std::isfinite(p.value)) {
      lines.push_back(fmt::format("{}: no {} (goodput needs an SLO, max rate max_rate: true)", label, metric));
      continue;
    }
    lines.push_back(fmt::format("{}: {} at {:g} requests/s, exposed communication {} of the "
                                "iteration time{}",
                                label, serve_value_text(metric, p.value),
                                run.rate_requests_per_s, percent(p.comm_share),
                                p.bound.empty() ? "" : " (bound by " + p.bound + ")"));
    points.push_back(std::move(p));
  }
  if (points.empty()) {
    lines.push_back("No case of these studies could answer it.");
    return lines;
  }
  const bool higher = metric == "goodput" || metric == "max_rate";
  auto better = [&](const ServePoint& a, const ServePoint& b) {
    return higher ? a.value > b.value : a.value < b.value;
  };
  const ServePoint& best = *std::min_element(points.begin(), points.end(), better);
  const ServePoint& worst = *std::max_element(points.begin(), points.end(), better);
  if (points.size() == 1 || best.value == worst.value || !(best.value > 0) || !(worst.value > 0)) {
    lines.push_back(fmt::format("{} gives {}.", best.label, serve_value_text(metric, best.value)));
    return lines;
  }
  const double ratio = higher ? best.value / worst.value : worst.value / best.value;
  lines.push_back(fmt::format("{} does {} better than {} ({} against {}); communication takes {} "
                              "of the iteration time on {}.",
                              best.label, ratio_text(ratio), worst.label,
                              serve_value_text(metric, best.value), serve_value_text(metric, worst.value),
                              percent(worst.comm_share), worst.label));
  return lines;
}

}  // namespace

std::string render_answers(const ScenarioManifest& manifest, const std::vector<CaseRecord>& docs) {
  if (manifest.questions.empty()) return "";
  std::string out;
  int number_of_question = 0;
  for (const ManifestQuestion& q : manifest.questions) {
    const std::string& metric = q.metric;
    std::vector<const CaseRecord*> cases;
    for (const std::string& study : q.studies) {
      for (const CaseRecord& doc : docs) {
        if (doc.study == study) cases.push_back(&doc);
      }
    }
    report_text::append_line(out, fmt::format("Q{}. {}", ++number_of_question, q.ask));
    std::vector<std::string> lines;
    if (metric == "busbw") {
      lines = answer_busbw(cases, q.size_bytes);
    } else if (serve_metric(metric)) {
      lines = answer_serve(cases, metric);
    } else {
      std::vector<PlanPoint> points;
      for (const CaseRecord* doc : cases) points.push_back(plan_point(*doc, metric));
      for (const PlanPoint& p : points) lines.push_back(p.phrase);
      lines.push_back(plan_verdict(points, metric));
    }
    if (cases.empty()) lines = {"No case of these studies is in this run."};
    for (size_t i = 0; i < lines.size(); ++i) {
      const bool verdict = i + 1 == lines.size() && !cases.empty();
      report_text::append_line(out, (verdict ? "  => " : "  - ") + lines[i]);
    }
    out += '\n';
  }
  return out;
}

}  // namespace linksim
