// SPDX-License-Identifier: Apache-2.0
// The answers to a scenario's questions (docs/scenario-format.md#questions): for each question,
// one phrase per case of its studies with the compared number and the share of the time the
// interconnect takes, then one sentence that compares them. Assembled from the manifest and
// the case documents alone, like results.csv, so a merged run answers as a single one.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "linksim/error.hpp"
#include "linksim/scenario_report.hpp"
#include "linksim/units.hpp"
#include "report/text_lines.hpp"

namespace linksim {
namespace {

using Json = nlohmann::ordered_json;

/// Below this share of the time in exposed communication the interconnect is called
/// irrelevant to the question; from the second it is called decisive (it then costs more
/// than all computation). docs/scenario-format.md#questions.
constexpr double kNegligibleCommShare = 0.05;
constexpr double kDecisiveCommShare = 0.5;

Json parse(std::string_view text, std::string_view what) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    throw ConfigError(fmt::format("{} is not a linksim scenario document: {}", what, e.what()));
  }
}

double number(const Json& object, const char* key) {
  if (!object.is_object()) return NAN;
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : NAN;
}

std::string text_of(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// "dgx-h100", or "dgx-h100 g=8" when the case sweeps something.
std::string answer_case_label(const Json& doc) {
  const std::string id = text_of(doc, "id");
  const std::string prefix = text_of(doc, "study") + "/" + text_of(doc, "machine");
  std::string label = text_of(doc, "machine");
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
std::string main_comm_text(const Json& plan) {
  const auto comms = plan.find("comms");
  if (comms == plan.end() || !comms->is_array()) return "";
  const Json* worst = nullptr;
  for (const Json& c : *comms) {
    if (number(c, "exposed_s") > 0 && (worst == nullptr || number(c, "exposed_s") > number(*worst, "exposed_s"))) {
      worst = &c;
    }
  }
  if (worst == nullptr) return "";
  std::string text = fmt::format("{} {}", text_of(*worst, "kind"), text_of(*worst, "collective"));
  const std::string bottleneck = text_of(*worst, "bottleneck");
  if (!bottleneck.empty() && bottleneck != "none") text += " bound by " + bottleneck;
  return text;
}

PlanPoint plan_point(const Json& doc, const std::string& metric) {
  PlanPoint p;
  p.label = answer_case_label(doc);
  if (text_of(doc, "status") == "error") {
    p.phrase = fmt::format("{}: not answered ({})", p.label, text_of(doc, "error"));
    return p;
  }
  const Json plan = doc.value("plan", Json());
  if (!plan.is_object()) {
    p.phrase = fmt::format("{}: not answered (a layout search, not one plan)", p.label);
    return p;
  }
  const Json memory = plan.value("memory", Json());
  if (!memory.value("fits", true)) {
    p.phrase = fmt::format("{}: does not fit ({:.0f} GB per GPU needed, {:.0f} GB there)", p.label,
                           number(memory, "total_GB"), number(memory, "capacity_GB"));
    return p;
  }
  const double step = number(plan, "step_time_s");
  p.comm_s = number(plan.value("breakdown", Json()), "exposed_comm_s");
  p.comm_share = step > 0 ? p.comm_s / step : 0;
  p.main_comm = main_comm_text(plan);
  p.gpus = doc.value("gpus", 0);
  if (metric == "scaling") {
    p.value = number(plan, "scaling_efficiency");
    const double speedup = number(plan, "speedup");
    // The planner's own baseline (PlanResult::baseline_gpus), as the case document holds it.
    const Json baseline_gpus = plan.value("baseline_gpus", Json());
    if (baseline_gpus.is_number_integer()) p.baseline_gpus = baseline_gpus.get<int>();
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
    const char* key = metric == "tpot"   ? "tpot_s"
                      : metric == "ttft" ? "ttft_s"
                      : metric == "step_time" ? "step_time_s"
                                              : "tokens_per_s";
    p.value = number(plan, key);
    if (!std::isfinite(p.value)) {
      p.phrase = fmt::format("{}: no {} for a {} plan", p.label, metric, text_of(plan, "mode"));
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
const Json* busbw_row(const Json& rows, double size_bytes) {
  const Json* chosen = nullptr;
  for (const Json& row : rows) {
    if (size_bytes <= 0 || number(row, "size_bytes") <= size_bytes) chosen = &row;
  }
  return chosen != nullptr ? chosen : (rows.empty() ? nullptr : &rows.front());
}

std::vector<std::string> answer_busbw(const std::vector<const Json*>& docs, double size_bytes) {
  std::vector<std::string> lines;
  struct Point {
    std::string label, bottleneck;
    double busbw = 0;
  };
  std::vector<Point> points;
  for (const Json* doc : docs) {
    const std::string label = answer_case_label(*doc);
    const Json collective = doc->value("collective", Json());
    const Json rows = collective.is_object() ? collective.value("rows", Json::array()) : Json::array();
    const Json* row = busbw_row(rows, size_bytes);
    if (text_of(*doc, "status") == "error" || row == nullptr) {
      lines.push_back(fmt::format("{}: not answered ({})", label, text_of(*doc, "error")));
      continue;
    }
    Point p{label, text_of(*row, "bottleneck"), number(*row, "busbw_GBps")};
    lines.push_back(fmt::format("{}: {} busbw {:.1f} GB/s at {} ({} {}, limited by {})", label,
                                text_of(collective, "collective"), p.busbw,
                                format_size(number(*row, "size_bytes")), text_of(*row, "algorithm"),
                                text_of(*row, "protocol"), p.bottleneck));
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

std::vector<std::string> answer_serve(const std::vector<const Json*>& docs, const std::string& metric) {
  std::vector<std::string> lines;
  std::vector<ServePoint> points;
  for (const Json* doc : docs) {
    const std::string label = answer_case_label(*doc);
    const Json serve = doc->value("serve", Json());
    if (text_of(*doc, "status") == "error" || !serve.is_object()) {
      lines.push_back(fmt::format("{}: not answered ({})", label, text_of(*doc, "error")));
      continue;
    }
    ServePoint p{label, text_of(serve, "bounding_link"), NAN, number(serve, "comm_share")};
    if (metric == "goodput") p.value = number(serve, "goodput_requests_per_s");
    else if (metric == "max_rate") p.value = number(serve, "max_rate_requests_per_s");
    else p.value = number(serve.value(metric.substr(0, 4) + "_s", Json()), metric.substr(5).c_str());
    if (!std::isfinite(p.value)) {
      lines.push_back(fmt::format("{}: no {} (goodput needs an SLO, max rate max_rate: true)", label, metric));
      continue;
    }
    lines.push_back(fmt::format("{}: {} at {:g} requests/s, exposed communication {} of the "
                                "iteration time{}",
                                label, serve_value_text(metric, p.value),
                                number(serve, "rate_requests_per_s"), percent(p.comm_share),
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

std::string render_answers(std::string_view manifest_text,
                           const std::vector<std::string>& case_documents) {
  const Json manifest = parse(manifest_text, "the manifest");
  const Json questions = manifest.value("questions", Json::array());
  if (questions.empty()) return "";
  std::vector<Json> docs;
  for (const std::string& text : case_documents) docs.push_back(parse(text, "a case file"));
  std::string out;
  int number_of_question = 0;
  for (const Json& q : questions) {
    const std::string metric = text_of(q, "metric");
    std::vector<const Json*> cases;
    for (const Json& study : q.value("studies", Json::array())) {
      for (const Json& doc : docs) {
        if (doc.value("study", "") == study.get<std::string>()) cases.push_back(&doc);
      }
    }
    report_text::append_line(out, fmt::format("Q{}. {}", ++number_of_question, text_of(q, "ask")));
    std::vector<std::string> lines;
    if (metric == "busbw") {
      lines = answer_busbw(cases, number(q, "size_bytes"));
    } else if (serve_metric(metric)) {
      lines = answer_serve(cases, metric);
    } else {
      std::vector<PlanPoint> points;
      for (const Json* doc : cases) points.push_back(plan_point(*doc, metric));
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
