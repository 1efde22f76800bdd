// SPDX-License-Identifier: Apache-2.0
// Topology parameters: declared defaults, --set overrides and ${name} substitution.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace linksim::detail {

/// The parameters of one topology (docs/topology-format.md#parameters). Names map to value
/// text; substitution is textual, so a whole-scalar "${nodes}" takes the type of its value
/// when the scalar is read. Not thread-safe to mutate; const use is safe.
class Params {
 public:
  /// Declares `name` with its default, or replaces an earlier declaration (includes merge).
  void set(const std::string& name, std::string value) { values_[name] = std::move(value); }
  bool declared(const std::string& name) const { return values_.count(name) != 0; }
  /// Declared names in sorted order.
  std::vector<std::string> names() const;
  /// "; did you mean \"gpu\"?" or "; declared: gpu, nodes" or "; no parameters are declared",
  /// for messages about an unknown parameter `name`.
  std::string unknown_hint(const std::string& name) const;

  /// Text with every ${name} replaced by its value, or the error that stopped it.
  struct Substitution {
    std::string text;
    std::string error;  ///< "" on success
  };
  /// Replaces every "${name}" in `text`. Unknown names and a "${" without "}" are errors.
  Substitution substitute(std::string_view text) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace linksim::detail
