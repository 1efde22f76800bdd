// SPDX-License-Identifier: Apache-2.0
// Interned strings: names that many records repeat (an input file's name in every position, a
// link type's key in every link) held once for the life of the process.
#pragma once

#include <fmt/core.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace linksim {

/// A pointer-sized handle on a string stored once per distinct value and never freed; copying
/// allocates nothing and equal values share one string. Thread-safe. Reads as a std::string.
class InternedString {
 public:
  InternedString();
  InternedString(std::string_view text);  // NOLINT(google-explicit-constructor)
  InternedString(const std::string& text) : InternedString(std::string_view(text)) {}  // NOLINT
  InternedString(const char* text) : InternedString(std::string_view(text)) {}         // NOLINT

  const std::string& str() const { return *text_; }
  operator const std::string&() const { return *text_; }  // NOLINT
  operator std::string_view() const { return *text_; }    // NOLINT
  bool empty() const { return text_->empty(); }
  std::size_t size() const { return text_->size(); }
  const char* c_str() const { return text_->c_str(); }
  std::size_t find(std::string_view text) const { return text_->find(text); }

  friend bool operator==(const InternedString& a, std::string_view b) { return *a.text_ == b; }
  friend bool operator==(const InternedString& a, const std::string& b) { return *a.text_ == b; }
  friend bool operator==(const InternedString& a, const char* b) { return *a.text_ == b; }
  friend bool operator==(const InternedString& a, const InternedString& b) {
    return a.text_ == b.text_;  // one string per value
  }

 private:
  const std::string* text_;  ///< never null
};

}  // namespace linksim

/// Formats an InternedString as its text ("{}" only).
template <>
struct fmt::formatter<linksim::InternedString> {
  constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
  template <typename FormatContext>
  auto format(const linksim::InternedString& text, FormatContext& ctx) const {
    return fmt::format_to(ctx.out(), "{}", std::string_view(text));
  }
};
