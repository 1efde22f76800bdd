// SPDX-License-Identifier: Apache-2.0
// Parsing and formatting of quantities with explicit units (docs/units.md).
#include "linksim/units.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "common/text.hpp"

namespace linksim {

namespace {

struct NumberAndUnit {
  double value = 0;
  std::string_view unit;  // trimmed; empty for a bare number
};

// Splits "450 GB/s" / "25GB/s" into 450 and "GB/s". nullopt when there is no leading number or
// the number is not finite.
std::optional<NumberAndUnit> split_number(std::string_view text) {
  text = text::trim(text);
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  return NumberAndUnit{value, text::trim(text.substr(size_t(end - text.data())))};
}

struct UnitScale {
  std::string_view unit;
  double scale;
};

std::optional<double> lookup_scale(std::string_view unit, std::initializer_list<UnitScale> table) {
  for (const UnitScale& entry : table) {
    if (entry.unit == unit) return entry.scale;
  }
  return std::nullopt;
}

// Bytes and bits are told apart by the case of B/b, so the units are matched case-sensitively.
// Decimal prefixes throughout (GB = 1e9), binary ones only when spelled KiB/MiB/GiB/TiB.
std::optional<double> bandwidth_scale(std::string_view unit) {
  return lookup_scale(unit, {
      {"B/s", 1},       {"kB/s", 1e3},    {"KB/s", 1e3},     {"MB/s", 1e6},
      {"GB/s", 1e9},    {"TB/s", 1e12},   {"KiB/s", 1024.0}, {"MiB/s", 1048576.0},
      {"GiB/s", kGiB},  {"TiB/s", kGiB * 1024},
      {"b/s", 1 / 8.0}, {"kb/s", 1e3 / 8}, {"Kb/s", 1e3 / 8}, {"Mb/s", 1e6 / 8},
      {"Gb/s", 1e9 / 8}, {"Tb/s", 1e12 / 8},
      {"bps", 1 / 8.0}, {"kbps", 1e3 / 8}, {"Kbps", 1e3 / 8}, {"Mbps", 1e6 / 8},
      {"Gbps", 1e9 / 8}, {"Tbps", 1e12 / 8},
  });
}

std::optional<double> duration_scale(std::string_view unit) {
  // "\u00b5s" is MICRO SIGN + s, "\u03bcs" GREEK SMALL LETTER MU + s; both appear in datasheets.
  return lookup_scale(unit, {{"s", 1},          {"ms", 1e-3},         {"us", 1e-6},
                             {"\u00b5s", 1e-6}, {"\u03bcs", 1e-6},    {"ns", 1e-9}});
}

// nccl-tests' -b/-e suffixes K, M, G, T are powers of 1024 (nccl-tests src/common.cu
// parsesize); spelled-out units follow docs/units.md.
std::optional<double> size_scale(std::string_view unit) {
  return lookup_scale(unit, {
      {"", 1},          {"B", 1},
      {"K", 1024.0},    {"M", 1048576.0},  {"G", kGiB},      {"T", kGiB * 1024},
      {"KiB", 1024.0},  {"MiB", 1048576.0}, {"GiB", kGiB},   {"TiB", kGiB * 1024},
      {"kB", 1e3},      {"KB", 1e3},       {"MB", 1e6},      {"GB", 1e9},   {"TB", 1e12},
  });
}

std::optional<double> flops_scale(std::string_view unit) {
  return lookup_scale(unit, {
      {"FLOP/s", 1},     {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15},
      {"FLOPS", 1},      {"GFLOPS", 1e9},  {"TFLOPS", 1e12},  {"PFLOPS", 1e15},
  });
}

// Formats with at most `decimals` decimals, dropping trailing zeros: 12.50 -> "12.5".
std::string trimmed_fixed(double value, int decimals) {
  std::string s = fmt::format("{:.{}f}", value, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace

std::optional<double> parse_bandwidth_Bps(std::string_view text) {
  auto parsed = split_number(text);
  if (!parsed) return std::nullopt;
  auto scale = bandwidth_scale(parsed->unit);
  if (!scale || parsed->value <= 0 || !std::isfinite(parsed->value * *scale)) return std::nullopt;
  return parsed->value * *scale;
}

std::optional<double> parse_duration_s(std::string_view text) {
  auto parsed = split_number(text);
  if (!parsed) return std::nullopt;
  auto scale = duration_scale(parsed->unit);
  if (!scale || parsed->value < 0 || !std::isfinite(parsed->value * *scale)) return std::nullopt;
  return parsed->value * *scale;
}

std::optional<double> parse_size_bytes(std::string_view text) {
  auto parsed = split_number(text);
  if (!parsed) return std::nullopt;
  auto scale = size_scale(parsed->unit);
  if (!scale || parsed->value < 0) return std::nullopt;
  double bytes = parsed->value * *scale;
  if (!std::isfinite(bytes) || bytes != std::floor(bytes)) return std::nullopt;
  // A double holds every integer up to 2^53 only. Digits are read exactly: "9007199254740993"
  // (2^53 + 1, which reads as the double 2^53) comes back above kMaxSizeBytes, to be refused.
  const std::string_view number = text::trim(text).substr(
      0, text::trim(text).size() - parsed->unit.size());
  const std::string_view digits = text::trim(number);
  const bool integer_form = digits.find_first_not_of("0123456789") == std::string_view::npos;
  if (integer_form) {
    unsigned long long written = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), written);
    const auto whole_scale = static_cast<unsigned long long>(*scale);
    unsigned long long exact = 0;
    if (ec != std::errc() || __builtin_mul_overflow(written, whole_scale, &exact) ||
        exact > static_cast<unsigned long long>(kMaxSizeBytes)) {
      return std::max(bytes, std::nextafter(kMaxSizeBytes, kMaxSizeBytes * 2));
    }
    return bytes;
  }
  // From 2^52 on a double no longer holds halves: "4503599627370496.5" would read as a whole
  // number of bytes. Decimal forms there are refused unless past the limit anyway.
  if (bytes >= kMaxSizeBytes / 2 && bytes <= kMaxSizeBytes) return std::nullopt;
  return bytes;
}

std::optional<double> parse_flops(std::string_view text) {
  auto parsed = split_number(text);
  if (!parsed) return std::nullopt;
  auto scale = flops_scale(parsed->unit);
  if (!scale || parsed->value <= 0) return std::nullopt;
  const double flops = parsed->value * *scale;
  if (!std::isfinite(flops)) return std::nullopt;  // "1e300 TFLOP/s" overflows
  return flops;
}

std::string format_bandwidth(double bw_Bps) {
  if (bw_Bps != 0 && std::fabs(bw_Bps) < 1e9) return trimmed_fixed(bw_Bps / 1e6, 2) + " MB/s";
  return trimmed_fixed(bw_Bps / 1e9, 2) + " GB/s";
}

std::string format_size(double bytes) {
  static constexpr std::pair<double, std::string_view> kUnits[] = {
      {kGiB * 1024, "TiB"}, {kGiB, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}};
  for (const auto& [scale, unit] : kUnits) {
    if (std::fabs(bytes) >= scale) {
      return fmt::format("{} {}", trimmed_fixed(bytes / scale, 2), unit);
    }
  }
  return fmt::format("{} B", trimmed_fixed(bytes, 2));
}

std::string format_duration(double seconds) {
  if (seconds == 0) return "0 s";
  static constexpr std::pair<double, std::string_view> kUnits[] = {
      {1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
  double magnitude = std::fabs(seconds);
  for (const auto& [scale, unit] : kUnits) {
    if (magnitude >= scale || scale == 1e-9) {
      double value = seconds / scale;
      // Rounding can carry into the next unit (999.6 us -> "1000 us"); accept that rarity.
      int decimals = std::fabs(value) >= 100 ? 0 : std::fabs(value) >= 10 ? 1 : 2;
      return fmt::format("{:.{}f} {}", value, decimals, unit);
    }
  }
  return {};
}

}  // namespace linksim
