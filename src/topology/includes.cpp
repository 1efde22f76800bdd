// SPDX-License-Identifier: Apache-2.0
// Include resolution with cycle detection, and merging of top-level sections.
#include "topology/includes.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "common/text.hpp"
#include "linksim/input_file.hpp"

namespace linksim::detail {
namespace {

namespace fs = std::filesystem;

class DocumentLoader {
 public:
  explicit DocumentLoader(MergedDocument& doc) : doc_(doc) {}

  // Loads one file's text: its includes first (so this file's keys win), then its own keys.
  void load(const std::string& text, YamlFile& file) {
    YAML::Node root = parse_yaml(text, file);
    if (doc_.files.size() == 1) doc_.root = root;
    YamlValue top(root, &file, "", nullptr);
    // An empty document has no mark: place the error at the file's first character.
    if (root.IsNull() && root.Mark().line < 0) {
      throw ConfigError({file.name, 1, 1}, "expected a mapping at the top level, got an empty file",
                        file.notes);
    }
    if (!root.IsMap()) top.fail(fmt::format("expected a mapping at the top level, got {}",
                                            describe(root)));
    // The top-level keys of docs/topology-format.md#top-level-keys.
    top.check_keys({"name", "description", "include", "params", "node", "extend", "nodes",
                    "fabric", "nccl_env"});
    stack_.push_back(canonical(file.name));
    if (std::optional<YamlValue> include = top.find("include")) {
      for (const YamlValue& item : include->scalar_or_items()) load_include(item);
    }
    stack_.pop_back();
    merge(root, file);
  }

 private:
  static std::string canonical(const std::string& path) {
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(fs::path(path), ec);
    return ec ? fs::path(path).lexically_normal().string() : resolved.string();
  }

  void load_include(const YamlValue& item) {
    std::string written = item.text();
    fs::path base = fs::path(item.file().name).parent_path();
    std::string path = (base / written).lexically_normal().string();
    std::string key = canonical(path);
    for (size_t i = 0; i < stack_.size(); ++i) {
      if (stack_[i] != key) continue;
      std::vector<std::string> chain;
      for (size_t j = i; j < stack_.size(); ++j) {
        chain.push_back(fs::path(stack_[j]).filename().string());
      }
      chain.push_back(fs::path(key).filename().string());
      // Reported where the cycle starts: the include of the first repeated file.
      const YamlValue& start = i < including_.size() ? including_[i] : item;
      start.fail(fmt::format("include cycle: {}", text::join(chain, " -> ")));
    }
    // Checked before the file is read: each level copies the notes of the chain above it.
    if (stack_.size() >= size_t(kMaxIncludeDepth)) {
      item.fail(fmt::format("expected includes nested at most {} files deep, got \"{}\" at "
                            "depth {}", kMaxIncludeDepth, written, stack_.size() + 1));
    }
    std::error_code ec;
    if (!fs::exists(path, ec)) item.fail(fmt::format("include file \"{}\" not found", written));
    std::string contents;
    try {
      contents = read_input_file(path);
    } catch (const ConfigError& e) {
      item.fail(fmt::format("include file \"{}\": {}", written, e.message()));
    }
    YamlFile& included = doc_.files.emplace_back();
    included.name = path;
    SourceLocation from = item.location();
    included.notes.push_back(fmt::format("included from {}:{}:{}", from.file, from.line,
                                         from.column));
    included.notes.insert(included.notes.end(), item.file().notes.begin(),
                          item.file().notes.end());
    including_.push_back(item);
    load(contents, included);
    including_.pop_back();
  }

  void merge(const YAML::Node& root, const YamlFile& file) {
    for (auto it = root.begin(); it != root.end(); ++it) {
      const std::string& name = it->first.Scalar();
      if (name == "include") continue;
      if (name != "params") {
        doc_.sections[name] = Section{it->first, it->second, &file};
        continue;
      }
      if (&file == &doc_.files.front() || !doc_.params_key) {
        doc_.params_key = Section{it->first, it->second, &file};
      }
      YamlValue params(it->second, &file, "params", nullptr);
      params.expect_map();
      for (auto p = it->second.begin(); p != it->second.end(); ++p) {
        YamlValue value(p->second, &file, "params." + p->first.Scalar(), nullptr);
        if (!p->second.IsScalar()) {
          value.fail(fmt::format("expected a scalar value, got {}", describe(p->second)));
        }
        doc_.params[p->first.Scalar()] = Section{p->first, p->second, &file};
      }
    }
  }

  MergedDocument& doc_;
  std::vector<std::string> stack_;  // canonical paths of the files being loaded, outermost first
  std::vector<YamlValue> including_;  // including_[i]: the include in stack_[i] being loaded
};

}  // namespace

MergedDocument load_document(const std::string& text, const std::string& filename) {
  MergedDocument doc;
  YamlFile& root = doc.files.emplace_back();
  root.name = filename;
  DocumentLoader(doc).load(text, root);
  return doc;
}

}  // namespace linksim::detail
