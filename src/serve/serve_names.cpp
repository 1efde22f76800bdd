// SPDX-License-Identifier: Apache-2.0
// Names of the serving inputs, as the results print them.
#include <charconv>
#include <cmath>
#include <fmt/core.h>
#include <optional>
#include <vector>

#include "linksim/serve.hpp"

namespace linksim {

std::string LengthDistribution::describe() const {
  switch (kind) {
    case Kind::kFixed: return fmt::format("{:g}", a);
    case Kind::kUniform: return fmt::format("uniform:{:g}:{:g}", a, b);
    case Kind::kNormal: return fmt::format("normal:{:g}:{:g}", a, b);
    case Kind::kLognormal: return fmt::format("lognormal:{:g}:{:g}", a, b);
  }
  return "unknown";
}

std::optional<LengthDistribution> parse_length_distribution(std::string_view text) {
  using Kind = LengthDistribution::Kind;
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string_view::npos ? text.npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  auto length_number = [](std::string_view t) -> std::optional<double> {
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
    return v;
  };
  LengthDistribution d;
  if (parts.size() == 1) {
    const std::optional<double> v = length_number(parts[0]);
    if (!v) return std::nullopt;
    d.a = *v;
    return d;
  }
  if (parts.size() != 3) return std::nullopt;
  if (parts[0] == "uniform") d.kind = Kind::kUniform;
  else if (parts[0] == "normal") d.kind = Kind::kNormal;
  else if (parts[0] == "lognormal") d.kind = Kind::kLognormal;
  else return std::nullopt;
  const std::optional<double> a = length_number(parts[1]), b = length_number(parts[2]);
  if (!a || !b) return std::nullopt;
  d.a = *a;
  d.b = *b;
  return d;
}

std::string_view to_string(ReplicaRouting routing) {
  return routing == ReplicaRouting::kRoundRobin ? "round-robin" : "shortest-queue";
}

}  // namespace linksim
