// SPDX-License-Identifier: Apache-2.0
// The positioned reader for NCCL topology dumps (elements and attributes only, read with
// pugixml), and
// the helpers the NCCL XML importer and exporter share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "linksim/error.hpp"

namespace linksim::sysimport {

/// One element: name, attributes in document order, child elements. Text content and
/// comments are dropped (NCCL's XML carries none that matter).
struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<XmlElement> children;
  SourceLocation where;  ///< the '<' that opens the element

  /// The attribute's value, or nullptr when absent.
  const std::string* find(std::string_view key) const;
};

/// The deepest element nesting an NCCL topology file may have: NCCL's own dumps nest about 10
/// deep (system, cpu, a few PCIe switch levels, pci, gpu, nvlink); 64 leaves room for any
/// real PCIe tree and keeps a hostile file from costing memory or time.
inline constexpr int kMaxNcclXmlDepth = 64;

/// Parses the element that starts at the first "<system" in `text` (anything before it, such
/// as a calibration file's header, is skipped) with pugixml, in time and memory linear in the
/// text. Positions are of `text` itself.
/// Throws ConfigError at file:line:col for an attribute value that is not UTF-8, malformed XML ("expected
/// </pci>, got </gpu>", "expected an attribute as name=\"value\" ...", an element not closed),
/// elements nested deeper than kMaxNcclXmlDepth, or when there is no <system> element.
XmlElement parse_nccl_xml(std::string_view text, const std::string& filename);

/// The PCI class code NCCL gives an NVSwitch (PCI Code and ID Assignment specification).
inline constexpr std::string_view kNvswitchClass = "0x068000";

/// "32.0 GT/s PCIe" -> 5 (2.5 GT/s gen1 .. 64 GT/s gen6); nullopt when unrecognised.
std::optional<int> pcie_gen_from_link_speed(std::string_view link_speed);
/// 5 -> "32.0 GT/s PCIe".
std::string link_speed_for_pcie_gen(int gen);

/// An XML attribute's integer: decimal, or hexadecimal after "0x" (NCCL writes both);
/// nullopt for anything else, including a value beyond int.
std::optional<int> parse_xml_int(std::string_view text);

/// NCCL's cpu affinity mask ("0000ffff,ff000000", comma-separated 32-bit groups, most
/// significant first) as an nvidia-smi-style core list ("24-55"); "" for an empty mask.
/// nullopt unless every group is 1 to 8 hex digits and there are at most 128 (4096 CPUs).
std::optional<std::string> cores_from_affinity_mask(std::string_view mask);
/// The inverse: "0-3,8" -> "0000010f". nullopt when `cores` is not a list of ranges.
std::optional<std::string> affinity_mask_from_cores(std::string_view cores);

}  // namespace linksim::sysimport
