// SPDX-License-Identifier: Apache-2.0
// The NCCL topology XML reader (pugixml, positions of the input text), and PCIe speed / CPU mask conversions.
#include "sysimport/nccl_xml.hpp"

#include <fmt/core.h>
#include <pugixml.hpp>

#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <set>

#include "common/text_position.hpp"

namespace linksim::sysimport {

const std::string* XmlElement::find(std::string_view key) const {
  for (const auto& [k, v] : attributes) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {

// pugixml's words for a parse status, as "expected ..." where the status says what was due.
std::string describe_status(pugi::xml_parse_status status) {
  switch (status) {
    case pugi::status_unrecognized_tag: return "expected a tag name after '<'";
    case pugi::status_bad_pi: return "expected a well-formed <? ... ?> instruction";
    case pugi::status_bad_comment: return "unterminated comment";
    case pugi::status_bad_cdata: return "unterminated CDATA section";
    case pugi::status_bad_doctype: return "expected a well-formed <!DOCTYPE ...>";
    case pugi::status_bad_pcdata: return "expected text or an element";
    case pugi::status_bad_start_element: return "expected '>' or '/>' to end the start tag";
    case pugi::status_bad_attribute:
      return "expected an attribute as name=\"value\" (a quoted attribute value)";
    case pugi::status_bad_end_element: return "expected '>' to end the closing tag";
    case pugi::status_end_element_mismatch: return "expected the open element's closing tag";
    case pugi::status_no_document_element: return "expected an element";
    default: return "malformed XML";
  }
}

// The text at `offset` for "got ...": one character, or "end of input".
std::string describe_at(std::string_view text, size_t offset) {
  if (offset >= text.size()) return "end of input";
  return fmt::format("'{}'", text[offset]);
}

// The innermost element still open before `offset` (the closing tag pugixml reported as not
// matching): tags are scanned once, linearly, keeping a stack of open names.
std::string open_element_before(std::string_view text, size_t offset) {
  std::vector<std::string_view> open;
  size_t pos = 0;
  while ((pos = text.find('<', pos)) != std::string_view::npos && pos < offset) {
    if (text.substr(pos, 4) == "<!--") {
      pos = text.find("-->", pos);
      if (pos == std::string_view::npos) break;
      continue;
    }
    const bool closing = text.substr(pos, 2) == "</";
    const size_t name_begin = pos + (closing ? 2 : 1);
    const size_t name_end = text.find_first_of(" \t\r\n/>", name_begin);
    if (name_end == std::string_view::npos) break;
    // The end of the tag, skipping quoted attribute values (they may hold '>').
    size_t end = name_end;
    char quote = 0;
    while (end < text.size() && (quote != 0 || text[end] != '>')) {
      if (quote == 0 && (text[end] == '"' || text[end] == '\'')) quote = text[end];
      else if (text[end] == quote) quote = 0;
      ++end;
    }
    const std::string_view name = text.substr(name_begin, name_end - name_begin);
    if (closing && !open.empty()) open.pop_back();
    const bool declaration = text[pos + 1] == '?' || text[pos + 1] == '!';
    if (!closing && !declaration && end < text.size() && text[end - 1] != '/') {
      open.push_back(name);
    }
    pos = end;
  }
  return open.empty() ? std::string() : std::string(open.back());
}

// `text` is the whole input, parsed from `base` on (result.offset counts from there).
[[noreturn]] void fail_parse(const pugi::xml_parse_result& result, std::string_view text,
                             size_t base, const detail::LineIndex& lines,
                             const std::string& file) {
  const size_t offset = base + size_t(std::max<ptrdiff_t>(result.offset, 0));
  if (offset >= text.size()) {
    // Input ended inside an element (pugixml reports several statuses for that).
    const std::string open = open_element_before(text, text.size());
    throw ConfigError(lines.at(text.size(), file),
                      open.empty() ? fmt::format("{}, got end of input",
                                                 describe_status(result.status))
                                   : fmt::format("expected </{}>, got end of input", open));
  }
  if (result.status == pugi::status_end_element_mismatch) {
    // pugixml reports the offset of the closing tag's name; the message names both tags.
    const size_t tag = text.rfind("</", offset);
    const size_t begin = tag == std::string_view::npos || tag < base ? offset : tag;
    if (text.substr(begin, 2) != "</") {  // only blanks were left: the input ended
      throw ConfigError(lines.at(text.size(), file),
                        fmt::format("expected </{}>, got end of input",
                                    open_element_before(text, text.size())));
    }
    const std::string_view rest = text.substr(std::min(begin + 2, text.size()));
    const std::string_view got = rest.substr(0, rest.find_first_of(" \t\r\n>"));
    throw ConfigError(lines.at(begin, file),
                      fmt::format("expected </{}>, got </{}>",
                                  open_element_before(text, begin), got));
  }
  if (result.status == pugi::status_bad_attribute && offset > 0 &&
      (text[offset - 1] == '"' || text[offset - 1] == '\'')) {
    throw ConfigError(lines.at(offset - 1, file), "unterminated attribute value");
  }
  throw ConfigError(lines.at(offset, file), fmt::format("{}, got {}",
                                                        describe_status(result.status),
                                                        describe_at(text, offset)));
}

// The element nested deeper than kMaxNcclXmlDepth, if any: pugixml's traversal is iterative.
class DepthProbe : public pugi::xml_tree_walker {
 public:
  bool for_each(pugi::xml_node& node) override {
    if (node.type() != pugi::node_element || depth() < kMaxNcclXmlDepth) return true;
    too_deep = node;
    depth_found = depth() + 1;
    return false;
  }
  pugi::xml_node too_deep;
  int depth_found = 0;  ///< 1-based: <system> is at depth 1
};

// Converts pugixml's tree into XmlElements without recursion: each element's children are
// sized before any of them is filled, so the pointers on the stack stay valid.
// Attribute values are the text the importer keeps (element and attribute names are only
// compared with ASCII ones): each must be UTF-8, refused at its first bad byte otherwise.
XmlElement to_elements(pugi::xml_node root, size_t base, const detail::LineIndex& lines,
                   const std::string& file) {
  // pugixml parses its copy of the input in place: names and values point into that buffer.
  const char* buffer = root.name() - root.offset_debug();
  XmlElement top;
  std::vector<std::pair<pugi::xml_node, XmlElement*>> stack{{root, &top}};
  while (!stack.empty()) {
    auto [node, element] = stack.back();
    stack.pop_back();
    element->name = node.name();
    element->where = lines.at(base + size_t(node.offset_debug()) - 1, file);
    for (pugi::xml_attribute a : node.attributes()) {
      if (const std::optional<size_t> bad = detail::first_invalid_utf8(a.value())) {
        throw ConfigError(lines.at(base + size_t(a.value() - buffer) + *bad, file),
                          fmt::format("expected UTF-8 text in attribute '{}' of <{}>, got byte "
                                      "0x{:02x}", a.name(), node.name(),
                                      static_cast<unsigned char>(a.value()[*bad])));
      }
      element->attributes.emplace_back(a.name(), a.value());
    }
    size_t count = 0;
    for (pugi::xml_node c : node.children()) count += c.type() == pugi::node_element;
    element->children.resize(count);
    size_t i = 0;
    for (pugi::xml_node c : node.children()) {
      if (c.type() == pugi::node_element) stack.emplace_back(c, &element->children[i++]);
    }
  }
  return top;
}

// (GT/s, generation) as PCIe specifies them.
constexpr std::array<std::pair<double, int>, 6> kPcieRates = {
    {{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}}};

}  // namespace

XmlElement parse_nccl_xml(std::string_view text, const std::string& filename) {
  const size_t start = text.find("<system");
  if (start == std::string_view::npos) {
    throw ConfigError({filename, 1, 1}, "expected an NCCL topology (<system ...>), found none");
  }
  const detail::LineIndex lines(text);
  // Parsed from the <system> to the last </system>: whatever precedes or follows (a
  // calibration file's header and notes) is skipped.
  const size_t close = text.rfind("</system>");
  const std::string_view xml = text.substr(
      start, close == std::string_view::npos || close < start ? std::string_view::npos
                                                               : close + 9 - start);
  pugi::xml_document document;
  const pugi::xml_parse_result result = document.load_buffer(
      xml.data(), xml.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!result) fail_parse(result, text, start, lines, filename);
  DepthProbe probe;
  document.traverse(probe);
  if (probe.too_deep) {
    throw ConfigError(lines.at(start + size_t(probe.too_deep.offset_debug()) - 1, filename),
                      fmt::format("expected elements nested at most {} deep, got <{}> at depth {}",
                                  kMaxNcclXmlDepth, probe.too_deep.name(), probe.depth_found));
  }
  const pugi::xml_node system = document.document_element();
  if (std::string_view(system.name()) != "system") {
    throw ConfigError(lines.at(start, filename),
                      fmt::format("expected an NCCL topology (<system ...>), got <{}>",
                                  system.name()));
  }
  return to_elements(system, start, lines, filename);
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
