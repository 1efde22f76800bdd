// SPDX-License-Identifier: Apache-2.0
// Reading a topology file and its includes into one merged set of top-level sections
// (docs/topology-format.md#includes).
#pragma once

#include <deque>
#include <map>
#include <string>

#include <yaml-cpp/yaml.h>

#include "common/yaml_reader.hpp"

namespace linksim::detail {

/// One top-level key of some file, e.g. `node:` of base.yaml.
struct Section {
  YAML::Node key;
  YAML::Node value;
  const YamlFile* file = nullptr;
};

/// A file with its includes applied: for every top-level key the winning section (the
/// including file wins over what it includes; later includes win over earlier ones), and the
/// parameters merged name by name. Owns the YamlFile records the sections point to.
struct MergedDocument {
  std::deque<YamlFile> files;            ///< files[0] is the root file; stable addresses
  YAML::Node root;                       ///< the root file's top-level mapping
  std::map<std::string, Section> sections;  ///< top-level keys but `include` and `params`
  std::map<std::string, Section> params;    ///< parameter name -> its declaration
  std::optional<Section> params_key;     ///< the root-most `params:` key, for --set messages
};

/// The longest chain of includes, the root file counted: real descriptions use two or three
/// (a server, a cluster of it, a variant); the bound keeps memory and recursion small.
inline constexpr int kMaxIncludeDepth = 16;

/// Parses `text` (named `filename`) and, recursively, the files it includes, relative to the
/// including file. Throws ConfigError on syntax errors, a non-mapping document, unknown
/// top-level keys, a missing include ("include file \"x.yaml\" not found"), an include
/// cycle ("include cycle: a.yaml -> b.yaml -> a.yaml") or a chain deeper than
/// kMaxIncludeDepth ("expected includes nested at most 16 files deep, got \"x.yaml\" at depth
/// 17", checked before the file is read).
MergedDocument load_document(const std::string& text, const std::string& filename);

}  // namespace linksim::detail
