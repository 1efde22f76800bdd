// SPDX-License-Identifier: Apache-2.0
// Formats a TopologySketch as a topology file (docs/topology-format.md).
#include "sysimport/topology_writer.hpp"

#include <fmt/core.h>

namespace linksim::sysimport {

std::string yaml_quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);  // a YAML escape: the text stays one line
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

namespace {

// A comment is one line of text: control characters (a newline in an imported attribute)
// become spaces.
std::string comment_text(std::string text) {
  for (char& c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) c = ' ';
  }
  return text;
}

std::string device_line(const SketchDevice& d) {
  std::string line = fmt::format("    - {{name: {}, kind: {}", d.name, d.kind);
  if (!d.model.empty()) line += ", model: " + d.model;
  if (!d.platform.empty()) line += ", platform: " + d.platform;
  if (d.p2p) line += fmt::format(", p2p: {}", *d.p2p ? "true" : "false");
  if (d.numa) line += fmt::format(", numa: {}", *d.numa);
  if (!d.cores.empty()) line += ", cores: " + yaml_quote(d.cores);
  if (!d.type.empty()) line += ", type: " + d.type;
  if (!d.port.empty()) line += ", port: " + yaml_quote(d.port);
  return line + "}\n";
}

std::string link_line(const SketchLink& l) {
  std::string line = fmt::format("    - {{from: {}, to: {}, type: {}", l.from, l.to, l.type);
  if (l.lanes > 0) line += fmt::format(", lanes: {}", l.lanes);
  if (l.width > 0) line += fmt::format(", width: {}", l.width);
  if (l.host_bridge >= 0) line += fmt::format(", host_bridge: {}", l.host_bridge);
  if (!l.bandwidth.empty()) line += ", bandwidth: " + yaml_quote(l.bandwidth);
  line += "}";
  if (!l.comment.empty()) line += "  # " + comment_text(l.comment);
  return line + "\n";
}

}  // namespace

std::string write_topology_yaml(const TopologySketch& sketch) {
  std::string out;
  for (const std::string& comment : sketch.comments) {
    out += comment.empty() ? "#\n" : "# " + comment_text(comment) + "\n";
  }
  out += "name: " + yaml_quote(sketch.name) + "\n";
  if (!sketch.description.empty()) out += "description: " + yaml_quote(sketch.description) + "\n";
  out += "node:\n  devices:\n";
  for (const SketchDevice& d : sketch.devices) out += device_line(d);
  out += "  links:\n";
  for (const SketchLink& l : sketch.links) out += link_line(l);
  return out;
}

}  // namespace linksim::sysimport
