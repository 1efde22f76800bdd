// SPDX-License-Identifier: Apache-2.0
// ConfigError's one-line form, format_diagnostic's excerpt and caret, and did-you-mean.
#include <doctest/doctest.h>

#include <filesystem>
#include <fmt/core.h>
#include <fstream>

#include "linksim/error.hpp"
#include "support/scratch_path.hpp"

using linksim::ConfigError;
using linksim::SourceLocation;

TEST_SUITE("error") {

TEST_CASE("what: file:line:col, partial positions and no file") {
  CHECK(std::string(ConfigError({"t.yaml", 3, 16}, "bad").what()) == "t.yaml:3:16: error: bad");
  CHECK(std::string(ConfigError({"t.yaml", 3, 0}, "bad").what()) == "t.yaml:3: error: bad");
  CHECK(std::string(ConfigError({"t.yaml", 0, 0}, "bad").what()) == "t.yaml: error: bad");
  CHECK(std::string(ConfigError("bad").what()) == "linksim: error: bad");
  ConfigError e({"t.yaml", 1, 2}, "msg", {"a note"});
  CHECK(e.message() == "msg");
  CHECK(e.where().line == 1);
  CHECK(e.notes() == std::vector<std::string>{"a note"});
}

TEST_CASE("a request field error names the field; a front end respells it") {
  const ConfigError e(linksim::RequestField{"micro_batch"}, "expected >= 1, got 0", {"n"});
  CHECK(std::string(e.what()) == "linksim: error: micro_batch: expected >= 1, got 0");
  CHECK(e.field() == "micro_batch");
  CHECK(e.message() == "expected >= 1, got 0");
  const ConfigError shown = e.with_field_spelled("--micro-batch");
  CHECK(std::string(shown.what()) == "linksim: error: --micro-batch: expected >= 1, got 0");
  CHECK(shown.field().empty());
  CHECK(shown.notes() == std::vector<std::string>{"n"});
  // An error without a field is its own spelling.
  CHECK(std::string(ConfigError("bad").with_field_spelled("--x").what()) == "linksim: error: bad");
}

TEST_CASE("format_diagnostic: source line, caret under the column, underline, notes") {
  const std::string source = "links:\n  - from: gpu0\n    bandwidth: 900 GBs\n";
  // "    bandwidth: " is 15 characters, so the value starts at column 16; the excerpt is
  // indented by 2, so the caret follows 17 spaces and '~' covers the rest of "900 GBs".
  ConfigError e({"t.yaml", 3, 16}, "expected a bandwidth, got \"900 GBs\"", {"in links[0]"});
  CHECK(linksim::format_diagnostic(e, source) ==
        "t.yaml:3:16: error: expected a bandwidth, got \"900 GBs\"\n"
        "      bandwidth: 900 GBs\n"
        "                 ^~~~~~~\n"
        "  note: in links[0]");
}

TEST_CASE("format_diagnostic: tokens stop at flow delimiters, comments and closing quotes") {
  const std::string source =
      "  - {from: gpu0, to: gpu9}\n"
      "    type: nvlink9   # typo\n"
      "    name: \"a b\" # quoted\n"
      "    x: 1\n";
  CHECK(linksim::format_diagnostic(ConfigError({"t", 1, 22}, "m"), source) ==
        "t:1:22: error: m\n    - {from: gpu0, to: gpu9}\n                       ^~~~");
  CHECK(linksim::format_diagnostic(ConfigError({"t", 2, 11}, "m"), source) ==
        "t:2:11: error: m\n      type: nvlink9   # typo\n            ^~~~~~~");
  CHECK(linksim::format_diagnostic(ConfigError({"t", 3, 11}, "m"), source) ==
        "t:3:11: error: m\n      name: \"a b\" # quoted\n            ^~~~~");
  // A key: the underline stops before its colon.
  CHECK(linksim::format_diagnostic(ConfigError({"t", 4, 5}, "m"), source) ==
        "t:4:5: error: m\n      x: 1\n      ^");
}

TEST_CASE("format_diagnostic: no excerpt without a line, past the end, or for a missing file") {
  const std::string source = "a: 1\n";
  CHECK(linksim::format_diagnostic(ConfigError({"t", 0, 0}, "m"), source) == "t: error: m");
  CHECK(linksim::format_diagnostic(ConfigError({"t", 9, 1}, "m"), source) == "t:9:1: error: m");
  CHECK(linksim::format_diagnostic(ConfigError({"/nonexistent/linksim.yaml", 1, 1}, "m")) ==
        "/nonexistent/linksim.yaml:1:1: error: m");
  CHECK(linksim::format_diagnostic(ConfigError("m", {"n"})) == "linksim: error: m\n  note: n");
}

TEST_CASE("format_diagnostic: reads the line from the file named in the location") {
  const std::filesystem::path path =
      linksim::testing::scratch_path("linksim_error_test_diagnostic.yaml");
  {
    std::ofstream out(path);
    out << "gpus:\n  - model: h100-sxn\n";
  }
  // "  - model: " is 11 characters: the value is at column 12, caret after 2 + 11 spaces.
  ConfigError e({path.string(), 2, 12}, "unknown gpu model 'h100-sxn'");
  CHECK(linksim::format_diagnostic(e) ==
        path.string() + ":2:12: error: unknown gpu model 'h100-sxn'\n"
                        "    - model: h100-sxn\n"
                        "             ^~~~~~~~");
  std::filesystem::remove(path);
}

TEST_CASE("closest_match: a likely typo or nothing") {
  const std::vector<std::string> keys = {"bandwidth", "latency", "lanes", "width"};
  CHECK(linksim::closest_match("bandwith", keys) == "bandwidth");
  CHECK(linksim::closest_match("latncy", keys) == "latency");
  CHECK(linksim::closest_match("LANES", keys) == "lanes");  // case is not a typo
  CHECK(linksim::closest_match("colour", keys).empty());
  // "lane" is 1 edit from "lanes"; limit for a 4-letter word is max(1, 4/3) = 1.
  CHECK(linksim::closest_match("lane", keys) == "lanes");
  // "wdt" is 2 edits from "width"; limit for 3 letters is 1.
  CHECK(linksim::closest_match("wdt", keys).empty());
  CHECK(linksim::closest_match("h100-sxn", {"h100-sxm", "h100-pcie", "h200"}) == "h100-sxm");
  CHECK(linksim::closest_match("x", {}).empty());
}

}  // TEST_SUITE

namespace linksim {
namespace {

TEST_CASE("source file names are interned: equal names share one string") {
  const SourceFile a(std::string("topologies/a.yaml"));
  const SourceFile b("topologies/a.yaml");
  CHECK(&a.str() == &b.str());
  CHECK(a == "topologies/a.yaml");
  CHECK_FALSE(a == "topologies/b.yaml");
  CHECK(SourceFile().empty());
  CHECK(fmt::format("{}:{}", a, 3) == "topologies/a.yaml:3");
  const SourceLocation where{"x.yaml", 2, 5};
  CHECK(ConfigError(where, "bad").what() == std::string("x.yaml:2:5: error: bad"));
}

}  // namespace
}  // namespace linksim
