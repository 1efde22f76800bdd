// SPDX-License-Identifier: Apache-2.0
// The positioned XML reader for NCCL topology files, and PCIe speed / CPU mask conversions.
#include "sysimport/nccl_xml.hpp"

#include <fmt/core.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <set>

namespace linksim::sysimport {

const std::string* XmlElement::find(std::string_view key) const {
  for (const auto& [k, v] : attributes) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {

class XmlReader {
 public:
  XmlReader(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  XmlElement read_root() {
    const size_t start = text_.find("<system");
    if (start == std::string_view::npos) {
      throw ConfigError({file_, 1, 1}, "expected an NCCL topology (<system ...>), found none");
    }
    pos_ = start;
    return read_element();
  }

 private:
  SourceLocation here() const {
    int line = 1;
    int column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return {file_, line, column};
  }

  [[noreturn]] void fail(const std::string& message) const { throw ConfigError(here(), message); }

  std::string describe_here() const {
    if (pos_ >= text_.size()) return "end of input";
    return fmt::format("'{}'", text_[pos_]);
  }

  void skip_blanks() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // Skips blanks, text content and comments up to the next tag's '<'.
  void skip_content() {
    while (pos_ < text_.size()) {
      if (text_.substr(pos_, 4) == "<!--") {
        const size_t end = text_.find("-->", pos_);
        if (end == std::string_view::npos) fail("unterminated comment");
        pos_ = end + 3;
      } else if (text_[pos_] == '<') {
        return;
      } else {
        ++pos_;
      }
    }
  }

  std::string read_name() {
    const size_t begin = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '_' || text_[pos_] == '-' ||
                                   text_[pos_] == ':' || text_[pos_] == '.')) {
      ++pos_;
    }
    if (pos_ == begin) fail(fmt::format("expected a name, got {}", describe_here()));
    return std::string(text_.substr(begin, pos_ - begin));
  }

  void expect(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) {
      fail(fmt::format("expected '{}', got {}", c, describe_here()));
    }
    ++pos_;
  }

  std::string read_value() {
    if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\'')) {
      fail(fmt::format("expected a quoted attribute value, got {}", describe_here()));
    }
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) fail("unterminated attribute value");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }

  // Reads attributes up to '>' or "/>"; returns true when the element closed itself.
  bool read_attributes(XmlElement& element) {
    for (;;) {
      skip_blanks();
      if (pos_ >= text_.size()) fail(fmt::format("expected '>', got end of input"));
      if (text_[pos_] == '>') {
        ++pos_;
        return false;
      }
      if (text_.substr(pos_, 2) == "/>") {
        pos_ += 2;
        return true;
      }
      std::string key = read_name();
      skip_blanks();
      expect('=');
      skip_blanks();
      element.attributes.emplace_back(std::move(key), read_value());
    }
  }

  XmlElement read_element() {
    XmlElement element;
    element.where = here();
    expect('<');
    element.name = read_name();
    if (read_attributes(element)) return element;
    for (;;) {
      skip_content();
      if (pos_ >= text_.size()) {
        fail(fmt::format("expected </{}>, got end of input", element.name));
      }
      if (text_.substr(pos_, 2) == "</") {
        const SourceLocation closing = here();
        pos_ += 2;
        std::string name = read_name();
        skip_blanks();
        expect('>');
        if (name != element.name) {
          throw ConfigError(closing,
                            fmt::format("expected </{}>, got </{}>", element.name, name));
        }
        return element;
      }
      element.children.push_back(read_element());
    }
  }

  std::string_view text_;
  std::string file_;
  size_t pos_ = 0;
};

// (GT/s, generation) as PCIe specifies them.
constexpr std::array<std::pair<double, int>, 6> kPcieRates = {
    {{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}}};

}  // namespace

XmlElement parse_nccl_xml(std::string_view text, const std::string& filename) {
  return XmlReader(text, filename).read_root();
}

std::optional<int> parse_xml_int(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  int value = 0;
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, value, base);
  if (text.empty() || ec != std::errc() || stop != end) return std::nullopt;
  return value;
}

std::optional<int> pcie_gen_from_link_speed(std::string_view link_speed) {
  // The leading number of "16.0 GT/s PCIe".
  while (!link_speed.empty() && link_speed.front() == ' ') link_speed.remove_prefix(1);
  double rate = 0;
  if (std::from_chars(link_speed.data(), link_speed.data() + link_speed.size(), rate).ec !=
      std::errc()) {
    return std::nullopt;
  }
  for (const auto& [gts, gen] : kPcieRates) {
    if (rate > gts * 0.99 && rate < gts * 1.01) return gen;
  }
  return std::nullopt;
}

std::string link_speed_for_pcie_gen(int gen) {
  for (const auto& [gts, g] : kPcieRates) {
    if (g == gen) return fmt::format("{:.1f} GT/s PCIe", gts);
  }
  return "";
}

std::optional<std::string> cores_from_affinity_mask(std::string_view mask) {
  // Collect bits, least significant group last in the text: 1 to 8 hex digits per group, at
  // most kMaxMaskGroups groups (4096 CPUs, as affinity_mask_from_cores).
  constexpr size_t kMaxMaskGroups = 128;
  std::vector<uint32_t> groups;
  size_t start = 0;
  while (start <= mask.size()) {
    size_t end = mask.find(',', start);
    if (end == std::string_view::npos) end = mask.size();
    const std::string_view group = mask.substr(start, end - start);
    uint32_t bits = 0;
    auto [stop, ec] = std::from_chars(group.data(), group.data() + group.size(), bits, 16);
    if (group.empty() || group.size() > 8 || ec != std::errc() ||
        stop != group.data() + group.size() || groups.size() == kMaxMaskGroups) {
      return std::nullopt;
    }
    groups.push_back(bits);
    start = end + 1;
  }
  std::string out;
  int run_start = -1;
  const int bits = static_cast<int>(groups.size()) * 32;
  for (int cpu = 0; cpu <= bits; ++cpu) {
    bool set = false;
    if (cpu < bits) {
      const uint32_t group = groups[groups.size() - 1 - size_t(cpu / 32)];
      set = (group >> (cpu % 32)) & 1u;
    }
    if (set && run_start < 0) run_start = cpu;
    if (!set && run_start >= 0) {
      if (!out.empty()) out += ',';
      out += run_start == cpu - 1 ? fmt::format("{}", run_start)
                                  : fmt::format("{}-{}", run_start, cpu - 1);
      run_start = -1;
    }
  }
  return out;
}

std::optional<std::string> affinity_mask_from_cores(std::string_view cores) {
  std::set<int> cpus;
  size_t start = 0;
  while (start < cores.size()) {
    size_t end = cores.find(',', start);
    if (end == std::string_view::npos) end = cores.size();
    const std::string_view part = cores.substr(start, end - start);
    const size_t dash = part.find('-');
    const std::optional<int> lo = parse_xml_int(part.substr(0, dash));
    const std::optional<int> hi =
        dash == std::string_view::npos ? lo : parse_xml_int(part.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo || *hi > 4095) return std::nullopt;
    for (int c = *lo; c <= *hi; ++c) cpus.insert(c);
    start = end + 1;
  }
  if (cpus.empty()) return std::nullopt;
  std::vector<uint32_t> groups(size_t(*cpus.rbegin() / 32 + 1), 0);
  for (int c : cpus) groups[size_t(c / 32)] |= 1u << (c % 32);
  std::string out;
  for (size_t i = groups.size(); i-- > 0;) {
    if (!out.empty()) out += ',';
    out += fmt::format("{:08x}", groups[i]);
  }
  return out;
}

}  // namespace linksim::sysimport
