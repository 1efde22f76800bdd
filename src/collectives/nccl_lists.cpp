// SPDX-License-Identifier: Apache-2.0
// NcclLists (linksim/nccl_lists.hpp): NCCL's parseList (src/graph/tuning.cc) over its names.
#include "linksim/nccl_lists.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "linksim/collectives.hpp"
#include "common/text.hpp"
#include "linksim/error.hpp"

namespace linksim {
namespace {

// NCCL's ncclFuncStr, ncclAlgoStr and ncclProtoStr (src/init.cc), in NCCL's order.
constexpr std::string_view kFunctionNames[] = {"Broadcast", "Reduce", "AllGather",
                                               "ReduceScatter", "AllReduce"};
constexpr std::string_view kAlgorithmNames[] = {"Tree", "Ring", "CollNetDirect", "CollNetChain",
                                                "NVLS", "NVLSTree", "PAT"};
constexpr std::string_view kProtocolNames[] = {"LL", "LL128", "Simple"};

std::optional<int> find_name(std::span<const std::string_view> names, std::string_view text) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (text::iequals(names[i], text)) return static_cast<int>(i);  // strcasecmp
  }
  return std::nullopt;
}

// Splits as strtok does: empty pieces are dropped.
std::vector<std::string> tokens(std::string_view text, char separator) {
  std::vector<std::string> out = text::split(text, separator);
  std::erase_if(out, [](const std::string& piece) { return piece.empty(); });
  return out;
}

std::optional<int> function_index(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kBroadcast: return 0;
    case CollectiveOp::kReduce: return 1;
    case CollectiveOp::kAllGather: return 2;
    case CollectiveOp::kReduceScatter: return 3;
    case CollectiveOp::kAllReduce: return 4;
    case CollectiveOp::kAllToAll:
    case CollectiveOp::kSendRecv: return std::nullopt;
  }
  return std::nullopt;
}

std::optional<int> algorithm_index(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kTree: return 0;
    case Algorithm::kRing: return 1;
    case Algorithm::kNvls: return 4;
    case Algorithm::kNvlsTree: return 5;
    case Algorithm::kAuto:
    case Algorithm::kDirect: return std::nullopt;
  }
  return std::nullopt;
}

std::optional<int> protocol_index(Protocol protocol) {
  switch (protocol) {
    case Protocol::kLL: return 0;
    case Protocol::kLL128: return 1;
    case Protocol::kSimple: return 2;
    case Protocol::kAuto: return std::nullopt;
  }
  return std::nullopt;
}

// A front end's value with NCCL's list syntax rather than one name.
bool has_list_syntax(std::string_view text) {
  return text.find_first_of(",^;:") != std::string_view::npos;
}

// parseList: each `;` entry sets, for its collective (or all five when it has no prefix),
// exactly the listed elements on, or with `^` exactly those off.
template <std::size_t N>
void parse_list(std::string_view text, std::span<const std::string_view> elements,
                std::string_view what, std::array<std::array<bool, N>, 5>& table) {
  const std::vector<std::string> entries = tokens(text, ';');
  for (std::size_t k = 0; k < entries.size(); ++k) {
    std::string_view list = entries[k];
    std::optional<int> only;  // the prefixed collective
    if (const std::size_t colon = list.find(':'); colon != std::string_view::npos) {
      const std::string_view prefix = list.substr(0, colon);
      only = find_name(kFunctionNames, prefix);
      if (!only) {
        throw ConfigError(fmt::format("expected a collective prefix of {} (NCCL's names), got "
                                      "'{}' in \"{}\"",
                                      fmt::join(kFunctionNames, ", "), prefix, text));
      }
      list = list.substr(colon + 1);
    } else if (k > 0) {
      throw ConfigError(fmt::format("expected a 'collective:' prefix on every entry after the "
                                    "first, got '{}' in \"{}\"",
                                    list, text));
    }
    const bool excluding = !list.empty() && list.front() == '^';
    if (excluding) list.remove_prefix(1);
    std::array<bool, N> row{};
    row.fill(excluding);
    for (const std::string& element : tokens(list, ',')) {
      const std::optional<int> e = find_name(elements, element);
      if (!e) {
        throw ConfigError(fmt::format("expected {} of {} (NCCL's names), got '{}' in \"{}\"",
                                      what, fmt::join(elements, ", "), element, text));
      }
      row[static_cast<std::size_t>(*e)] = !excluding;
    }
    for (int f = 0; f < 5; ++f) {
      if (!only || *only == f) table[static_cast<std::size_t>(f)] = row;
    }
  }
}

}  // namespace

void NcclLists::apply_algo(std::string_view text) {
  parse_list(text, kAlgorithmNames, "algorithms", algorithms_);
  algo_text_ = std::string(text);
}

void NcclLists::apply_proto(std::string_view text) {
  parse_list(text, kProtocolNames, "protocols", protocols_);
  proto_text_ = std::string(text);
}

bool NcclLists::allows(CollectiveOp op, Algorithm algorithm) const {
  const std::optional<int> f = function_index(op);
  const std::optional<int> a = algorithm_index(algorithm);
  return !f || !a || algorithms_[static_cast<std::size_t>(*f)][static_cast<std::size_t>(*a)];
}

bool NcclLists::allows(CollectiveOp op, Protocol protocol) const {
  const std::optional<int> f = function_index(op);
  const std::optional<int> p = protocol_index(protocol);
  return !f || !p || protocols_[static_cast<std::size_t>(*f)][static_cast<std::size_t>(*p)];
}

std::string NcclLists::restriction(CollectiveOp op) const {
  const std::optional<int> f = function_index(op);
  if (!f) return "";
  std::vector<std::string> parts;
  const auto& algos = algorithms_[static_cast<std::size_t>(*f)];
  const auto& protos = protocols_[static_cast<std::size_t>(*f)];
  if (std::find(algos.begin(), algos.end(), false) != algos.end()) {
    parts.push_back(fmt::format("NCCL_ALGO={}", algo_text_));
  }
  if (std::find(protos.begin(), protos.end(), false) != protos.end()) {
    parts.push_back(fmt::format("NCCL_PROTO={}", proto_text_));
  }
  return fmt::format("{}", fmt::join(parts, " and "));
}

Algorithm algorithm_or_list(std::string_view text, NcclLists& lists) {
  if (has_list_syntax(text)) {
    lists.apply_algo(text);
    return Algorithm::kAuto;
  }
  if (const std::optional<Algorithm> a = parse_algorithm(text)) return *a;
  throw ConfigError(fmt::format("expected one of {}, or an NCCL_ALGO list (ring,tree | ^nvls), "
                                "got \"{}\"",
                                text::join(algorithm_choices(), ", "), text));
}

Protocol protocol_or_list(std::string_view text, NcclLists& lists) {
  if (has_list_syntax(text)) {
    lists.apply_proto(text);
    return Protocol::kAuto;
  }
  if (const std::optional<Protocol> p = parse_protocol(text)) return *p;
  throw ConfigError(fmt::format("expected one of {}, or an NCCL_PROTO list (^ll128 | ll,simple), "
                                "got \"{}\"",
                                text::join(protocol_choices(), ", "), text));
}

}  // namespace linksim
