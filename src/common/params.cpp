// SPDX-License-Identifier: Apache-2.0
// Topology parameters: ${name} substitution and the hints for unknown names.
#include "common/params.hpp"

#include <fmt/format.h>

#include "common/text.hpp"
#include "linksim/error.hpp"

namespace linksim::detail {

std::vector<std::string> Params::names() const {
  std::vector<std::string> names;
  names.reserve(values_.size());
  for (const auto& [name, value] : values_) names.push_back(name);
  return names;
}

std::string Params::unknown_hint(const std::string& name) const {
  if (values_.empty()) return "; no parameters are declared";
  std::vector<std::string> known = names();
  std::string close = closest_match(name, known);
  if (!close.empty()) return fmt::format("; did you mean \"{}\"?", close);
  return fmt::format("; declared: {}", text::join(known, ", "));
}

Params::Substitution Params::substitute(std::string_view text) const {
  Substitution result;
  size_t start = text.find("${");
  if (start == std::string_view::npos) {  // the common case: nothing to copy twice
    result.text = std::string(text);
    return result;
  }
  size_t done = 0;
  while (start != std::string_view::npos) {
    size_t close = text.find('}', start + 2);
    if (close == std::string_view::npos) {
      result.error = fmt::format("expected \"}}\" after \"${{\" in \"{}\"", text);
      return result;
    }
    std::string name(text::trim(text.substr(start + 2, close - start - 2)));
    auto it = values_.find(name);
    if (it == values_.end()) {
      result.error = fmt::format("unknown parameter \"{}\"{}", name, unknown_hint(name));
      return result;
    }
    result.text.append(text.substr(done, start - done));
    result.text.append(it->second);
    done = close + 1;
    start = text.find("${", done);
  }
  result.text.append(text.substr(done));
  return result;
}

}  // namespace linksim::detail
