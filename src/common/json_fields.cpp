// SPDX-License-Identifier: Apache-2.0
// The typed field reader of the scenario's JSON files.
#include "common/json_fields.hpp"

#include <cmath>

#include <fmt/format.h>

#include "linksim/error.hpp"

namespace linksim::json_fields {
namespace {

// "a string", "an object", "null": what was found, as the error names it.
std::string kind_of(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_float: return "a number";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    default: return "an unknown value";
  }
}

}  // namespace

Json parse_document(std::string_view text, const std::string& file) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    throw ConfigError(SourceLocation{SourceFile(file)}, fmt::format("not JSON: {}", e.what()));
  }
}

FieldReader::FieldReader(const Json& object, std::string file, std::string path)
    : object_(&object), file_(std::move(file)), path_(std::move(path)) {
  if (!object.is_object()) {
    const std::string where = path_.empty() ? "the document" : "field " + path_;
    throw ConfigError(SourceLocation{SourceFile(file_)},
                      fmt::format("{}: expected an object, found {}", where, kind_of(object)));
  }
}

std::string FieldReader::path_of(const char* key) const {
  return path_.empty() ? std::string(key) : path_ + "." + key;
}

void FieldReader::fail(const char* key, const std::string& what) const {
  throw ConfigError(SourceLocation{SourceFile(file_)},
                    fmt::format("field {}: {}", path_of(key), what));
}

void FieldReader::expected(const char* key, const char* type, const Json& found) const {
  fail(key, fmt::format("expected {}, found {}", type, kind_of(found)));
}

const Json& FieldReader::field(const char* key) const {
  const auto it = object_->find(key);
  if (it == object_->end()) fail(key, "missing");
  return *it;
}

bool FieldReader::has(const char* key) const { return object_->contains(key); }

std::string FieldReader::text(const char* key) const {
  const Json& value = field(key);
  if (!value.is_string()) expected(key, "a string", value);
  return value.get<std::string>();
}

std::string FieldReader::optional_text(const char* key) const {
  const Json& value = field(key);
  if (value.is_null()) return "";
  if (!value.is_string()) expected(key, "a string or null", value);
  return value.get<std::string>();
}

double FieldReader::number(const char* key) const {
  const Json& value = field(key);
  if (value.is_null()) return NAN;
  if (!value.is_number()) expected(key, "a number", value);
  return value.get<double>();
}

std::optional<double> FieldReader::optional_number(const char* key) const {
  const Json& value = field(key);
  if (value.is_null()) return std::nullopt;
  if (!value.is_number()) expected(key, "a number or null", value);
  return value.get<double>();
}

std::int64_t FieldReader::integer(const char* key) const {
  const Json& value = field(key);
  if (!value.is_number_integer()) expected(key, "an integer", value);
  return value.get<std::int64_t>();
}

std::optional<std::int64_t> FieldReader::optional_integer(const char* key) const {
  const Json& value = field(key);
  if (value.is_null()) return std::nullopt;
  if (!value.is_number_integer()) expected(key, "an integer or null", value);
  return value.get<std::int64_t>();
}

bool FieldReader::boolean(const char* key) const {
  const Json& value = field(key);
  if (!value.is_boolean()) expected(key, "a boolean", value);
  return value.get<bool>();
}

std::vector<std::string> FieldReader::texts(const char* key) const {
  const Json& value = field(key);
  if (!value.is_array()) expected(key, "an array of strings", value);
  std::vector<std::string> out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) {
      fail(key, fmt::format("element {}: expected a string, found {}", i, kind_of(value[i])));
    }
    out.push_back(value[i].get<std::string>());
  }
  return out;
}

FieldReader FieldReader::object(const char* key) const {
  const Json& value = field(key);
  if (!value.is_object()) expected(key, "an object", value);
  return FieldReader(value, file_, path_of(key));
}

std::vector<FieldReader> FieldReader::objects(const char* key) const {
  const Json& value = field(key);
  if (!value.is_array()) expected(key, "an array", value);
  std::vector<FieldReader> out;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string path = fmt::format("{}[{}]", path_of(key), i);
    if (!value[i].is_object()) {
      throw ConfigError(
          SourceLocation{SourceFile(file_)},
          fmt::format("field {}: expected an object, found {}", path, kind_of(value[i])));
    }
    out.emplace_back(value[i], file_, path);
  }
  return out;
}

const Json& FieldReader::array(const char* key) const {
  const Json& value = field(key);
  if (!value.is_array()) expected(key, "an array", value);
  return value;
}

std::vector<std::pair<std::string, std::string>> FieldReader::text_map(const char* key) const {
  const FieldReader map = object(key);
  std::vector<std::pair<std::string, std::string>> out;
  for (auto it = map.object_->begin(); it != map.object_->end(); ++it) {
    out.emplace_back(it.key(), map.text(it.key().c_str()));
  }
  return out;
}

}  // namespace linksim::json_fields
