// SPDX-License-Identifier: Apache-2.0
// KeywordOptions (keyword_options.hpp): Python keyword values read into library values.
#include "python/keyword_options.hpp"

#include <fmt/core.h>

#include <cmath>

#include "linksim/error.hpp"
#include "linksim/units.hpp"

namespace py = pybind11;

namespace linksim::python {
namespace {

/// A Python value as the message shows it: its repr().
std::string keyword_value_repr(const py::handle& value) { return py::repr(value).cast<std::string>(); }

}  // namespace

KeywordOptions::KeywordOptions(py::dict options, std::string call, std::vector<std::string> known)
    : options_(std::move(options)), call_(std::move(call)), known_(std::move(known)) {}

void KeywordOptions::check_known() const {
  for (const auto& item : options_) {
    const std::string key = py::str(item.first).cast<std::string>();
    bool found = false;
    for (const std::string& k : known_) found = found || k == key;
    if (found) continue;
    const std::string near = closest_match(key, known_);
    throw ConfigError(fmt::format("{}: unexpected keyword \"{}\"{}", call_, key,
                                  near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near)));
  }
}

py::object KeywordOptions::value(const char* key) const {
  if (!options_.contains(key)) return py::none();
  return options_[key];
}

bool KeywordOptions::has(const char* key) const { return !value(key).is_none(); }

void KeywordOptions::refuse(const char* key, const std::string& expected) const {
  throw ConfigError(
      fmt::format("{}: expected {}, got {}", key, expected, keyword_value_repr(value(key))));
}

std::optional<std::string> KeywordOptions::text_option(const char* key) const {
  const py::object v = value(key);
  if (v.is_none()) return std::nullopt;
  if (!py::isinstance<py::str>(v)) refuse(key, "text");
  return v.cast<std::string>();
}

std::optional<double> KeywordOptions::real_option(const char* key) const {
  const py::object v = value(key);
  if (v.is_none()) return std::nullopt;
  if (py::isinstance<py::bool_>(v) ||
      !(py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v))) {
    refuse(key, "a number");
  }
  return v.cast<double>();
}

std::optional<int> KeywordOptions::int_option(const char* key) const {
  const py::object v = value(key);
  if (v.is_none()) return std::nullopt;
  if (py::isinstance<py::bool_>(v)) refuse(key, "an integer");
  if (py::isinstance<py::int_>(v)) {
    const long long whole = v.cast<long long>();
    if (whole < -2147483647LL || whole > 2147483647LL) refuse(key, "an integer of at most 2^31 - 1");
    return int(whole);
  }
  if (py::isinstance<py::float_>(v)) {
    const double real = v.cast<double>();
    if (std::floor(real) == real && std::abs(real) < 2147483647.0) return int(real);
  }
  refuse(key, "an integer");
}

std::optional<int> KeywordOptions::positive_int_option(const char* key) const {
  const std::optional<int> v = int_option(key);
  if (v && *v < 1) throw ConfigError(fmt::format("{}: expected a positive integer, got {}", key, *v));
  return v;
}

std::optional<bool> KeywordOptions::switch_option(const char* key) const {
  const py::object v = value(key);
  if (v.is_none()) return std::nullopt;
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
  if (py::isinstance<py::str>(v)) {
    const std::string text = v.cast<std::string>();
    if (text == "on" || text == "1" || text == "true") return true;
    if (text == "off" || text == "0" || text == "false") return false;
  }
  refuse(key, "True or False (or \"on\" / \"off\")");
}

double KeywordOptions::size_value(const py::handle& v, const char* key) const {
  std::optional<double> bytes;
  if (py::isinstance<py::str>(v)) {
    bytes = parse_size_bytes(v.cast<std::string>());
  } else if (!py::isinstance<py::bool_>(v) &&
             (py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v))) {
    bytes = v.cast<double>();
  }
  const std::string got = keyword_value_repr(v);
  if (!bytes || !(*bytes >= 0)) {
    throw ConfigError(fmt::format(
        "{}: expected a size such as 8, 65536, \"64K\", \"1M\" or \"8G\", got {}", key, got));
  }
  if (*bytes > kMaxSizeBytes) {
    throw ConfigError(
        fmt::format("{}: expected a size of at most 8 PiB (2^53 bytes), got {}", key, got));
  }
  return *bytes;
}

std::optional<double> KeywordOptions::size_option(const char* key) const {
  const py::object v = value(key);
  if (v.is_none()) return std::nullopt;
  return size_value(v, key);
}

std::vector<double> KeywordOptions::size_list_option(const char* key) const {
  const py::object v = value(key);
  if (v.is_none()) return {};
  if (py::isinstance<py::str>(v) || !py::isinstance<py::iterable>(v)) return {size_value(v, key)};
  std::vector<double> sizes;
  for (const py::handle item : v) sizes.push_back(size_value(item, key));
  return sizes;
}

GpuSelection KeywordOptions::gpu_selection() const {
  GpuSelection selection;
  const py::object v = value("gpus");
  if (py::isinstance<py::str>(v)) {
    selection.list = v.cast<std::string>();
  } else if (!v.is_none() && py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v)) {
    selection.first_n = int_option("gpus");
  } else if (!v.is_none() && py::isinstance<py::iterable>(v)) {
    std::string list;
    for (const py::handle item : v) {
      if (!py::isinstance<py::int_>(item) || py::isinstance<py::bool_>(item)) {
        refuse("gpus", "a GPU count, a list of GPU indices or text such as \"0,3\" or \"4-7\"");
      }
      list += (list.empty() ? "" : ",") + std::to_string(item.cast<long long>());
    }
    selection.list = list;
  } else if (!v.is_none()) {
    refuse("gpus", "a GPU count, a list of GPU indices or text such as \"0,3\" or \"4-7\"");
  }
  selection.per_node = positive_int_option("per_node");
  return selection;
}

}  // namespace linksim::python
