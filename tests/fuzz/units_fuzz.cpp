// SPDX-License-Identifier: Apache-2.0
// Unit and size strings (docs/units.md) and the small CLI value forms (--set k=v, --shard I/N):
// every accepted value is finite, positive where the unit demands it and within its stated
// bounds, and formats back to text.
#include <cmath>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "linksim/scenario.hpp"
#include "linksim/topology_yaml.hpp"
#include "linksim/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linksim;
  const std::string_view text = fuzz::as_text(data, size);
  if (const auto bw = parse_bandwidth_Bps(text)) {
    if (!(std::isfinite(*bw) && *bw > 0)) fuzz::finding("a bandwidth not finite and > 0", text);
    (void)format_bandwidth(*bw);
  }
  if (const auto seconds = parse_duration_s(text)) {
    if (!(std::isfinite(*seconds) && *seconds >= 0)) fuzz::finding("a duration not finite, >= 0", text);
    (void)format_duration(*seconds);
  }
  if (const auto bytes = parse_size_bytes(text)) {
    if (!(std::isfinite(*bytes) && *bytes >= 0)) fuzz::finding("a size not finite and >= 0", text);
    if (*bytes != std::floor(*bytes)) fuzz::finding("a fractional byte count", text);
    (void)format_size(*bytes);
  }
  if (const auto flops = parse_flops(text)) {
    if (!(std::isfinite(*flops) && *flops > 0)) fuzz::finding("a FLOP rate not finite and > 0", text);
  }
  try {
    // The name is the text before the first '=' and the value the text after it, both trimmed.
    const auto [name, value] = parse_override(text);
    const size_t equals = text.find('=');
    if (name.empty() || text.substr(0, equals).find(name) == std::string_view::npos ||
        text.substr(equals + 1).find(value) == std::string_view::npos) {
      fuzz::finding("--set split the text elsewhere than its first '='", text);
    }
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "");
  }
  try {
    const Shard shard = parse_shard(std::string(text));
    if (!(shard.index >= 0 && shard.index < shard.count)) fuzz::finding("a shard out of range", text);
  } catch (const ConfigError& error) {
    fuzz::check_refusal(error, text, "");
  }
  return 0;
}
