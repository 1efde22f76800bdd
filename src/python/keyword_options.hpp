// SPDX-License-Identifier: Apache-2.0
// The keyword arguments of a binding (a Python dict) read into library values. Every reader
// names the keyword in its ConfigError ("tp: expected a positive integer, got -1"), as the
// CLI names its flags; unknown keywords are refused with a did-you-mean. REQUIRES: the GIL is
// held while a KeywordOptions is used.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "linksim/gpu_selection.hpp"

namespace linksim::python {

class KeywordOptions {
 public:
  /// `call` names the function in messages ("plan"); `known` lists every keyword it takes.
  KeywordOptions(pybind11::dict options, std::string call, std::vector<std::string> known);

  /// Throws ConfigError "<call>: unexpected keyword \"x\" (did you mean \"y\"?)" for a key
  /// not in `known`.
  void check_known() const;

  /// Whether `key` is given and not None.
  bool has(const char* key) const;
  std::optional<std::string> text_option(const char* key) const;
  std::optional<double> real_option(const char* key) const;
  /// An integer; a float with a fractional part or a bool is refused.
  std::optional<int> int_option(const char* key) const;
  /// An integer >= 1: "<key>: expected a positive integer, got N".
  std::optional<int> positive_int_option(const char* key) const;
  /// True/False, or the CLI's spellings on/off, 1/0, true/false.
  std::optional<bool> switch_option(const char* key) const;
  /// A size in bytes: a number, or text such as "64K", "1M", "8G" (parse_size_bytes).
  std::optional<double> size_option(const char* key) const;
  /// A list of sizes (one size alone is a list of one).
  std::vector<double> size_list_option(const char* key) const;
  /// gpus= (an int: the first N; text: "0,3", "4-7", "host1:gpu3"; a list of indices) and
  /// per_node=.
  GpuSelection gpu_selection() const;

 private:
  pybind11::object value(const char* key) const;
  /// One size (a number of bytes or text such as "1M"); ConfigError naming `key` otherwise.
  double size_value(const pybind11::handle& v, const char* key) const;
  [[noreturn]] void refuse(const char* key, const std::string& expected) const;

  pybind11::dict options_;
  std::string call_;
  std::vector<std::string> known_;
};

}  // namespace linksim::python
