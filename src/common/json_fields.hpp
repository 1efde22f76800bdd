// SPDX-License-Identifier: Apache-2.0
// A typed reader of one JSON object of an input file: each accessor returns the field as the
// type asked for, or throws ConfigError "<file>: error: field <path>: expected <type>, found
// <type>", the path naming the field from the document's root ("collective.rows[0].size_bytes").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace linksim::json_fields {

using Json = nlohmann::ordered_json;

/// `text` parsed; throws ConfigError "<file>: error: not JSON: ..." when it does not parse.
Json parse_document(std::string_view text, const std::string& file);

class FieldReader {
 public:
  /// Reads `object` (which must outlive the reader), found at `path` ("" for the root) of `file`.
  /// Throws when `object` is not a JSON object.
  FieldReader(const Json& object, std::string file, std::string path = "");

  bool has(const char* key) const;
  std::string text(const char* key) const;
  /// A number; null (how the files spell a non-finite value) reads as NaN.
  double number(const char* key) const;
  /// A number, or nullopt when null.
  std::optional<double> optional_number(const char* key) const;
  std::int64_t integer(const char* key) const;
  std::optional<std::int64_t> optional_integer(const char* key) const;
  bool boolean(const char* key) const;
  /// A string, or "" when null.
  std::string optional_text(const char* key) const;
  std::vector<std::string> texts(const char* key) const;
  FieldReader object(const char* key) const;
  /// Every element of an array of objects, each as a reader ("comms[2]").
  std::vector<FieldReader> objects(const char* key) const;
  /// The array at `key`, each element checked to be an array; returned as is.
  const Json& array(const char* key) const;
  /// Every key of an object of strings, in file order.
  std::vector<std::pair<std::string, std::string>> text_map(const char* key) const;

  /// Throws the error this reader's fields throw, for `key`: "field <path>.<key>: <what>".
  [[noreturn]] void fail(const char* key, const std::string& what) const;
  const std::string& file() const { return file_; }

 private:
  const Json& field(const char* key) const;  // throws when missing
  std::string path_of(const char* key) const;
  [[noreturn]] void expected(const char* key, const char* type, const Json& found) const;

  const Json* object_;
  std::string file_;
  std::string path_;
};

}  // namespace linksim::json_fields
