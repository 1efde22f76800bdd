// SPDX-License-Identifier: Apache-2.0
// Units: SI inside (bytes, seconds, bytes/s), explicit text at the edges ("450 GB/s").
//
// Conventions (docs/units.md): GB = 1e9 bytes, GiB = 2^30 bytes; "Gb/s" and "Gbps" are bits.
// Every quantity in the library is a double with its unit in the name (`bw_Bps`, `latency_s`,
// `bytes`). Text never reaches the engine without passing through these parsers, so a bare
// number or an unknown unit can never be mistaken for bytes or bits.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace linksim {

inline constexpr double kGB = 1e9;          ///< bytes
inline constexpr double kGiB = 1073741824;  ///< bytes
inline constexpr double kMicrosecond = 1e-6;

/// The largest message size linksim accepts: 2^53 bytes (8 PiB), the largest integer a double
/// holds exactly, so sizes and element counts stay exact integers in every report
/// (docs/units.md#bounds).
inline constexpr double kMaxSizeBytes = 9007199254740992.0;

/// Physical bounds of a link or memory bandwidth given in a file, bytes/s per direction: 1 MB/s
/// (below any interconnect modelled: 1 GbE is 125 MB/s) to 1 PB/s (over 100x the fastest
/// figure in the catalogs, 8 TB/s of HBM3e). Inside them every time stays finite and printable
/// (docs/units.md#bounds).
inline constexpr double kMinBandwidth_Bps = 1e6;
inline constexpr double kMaxBandwidth_Bps = 1e15;
/// The longest one-way latency a link may be given: 1 s, above any network hop (a
/// transcontinental link is ~50 ms); docs/units.md#bounds.
inline constexpr double kMaxLatency_s = 1.0;

/// Parses a bandwidth with an explicit unit: "450 GB/s", "400 Gb/s", "400 Gbps", "25GB/s",
/// "12.5 MB/s", "3.2 TB/s", "800 Mb/s". Returns bytes/s per direction as written.
/// Returns nullopt for a bare number, an unknown unit, or a non-positive/non-finite value
/// (including one that overflows: "1e300 GB/s").
std::optional<double> parse_bandwidth_Bps(std::string_view text);

/// Parses a duration with an explicit unit: "1.2 us", "150 ns", "0.5 ms", "2 s", "1.2 µs".
/// Returns seconds; nullopt for a bare number, an unknown unit or a negative value.
std::optional<double> parse_duration_s(std::string_view text);

/// Parses a byte count: "1073741824", "8", "64K", "1M", "8G", "1 GiB", "512 MB", "4KiB".
/// Bare numbers are bytes (nccl-tests' -b/-e convention); K/M/G/T suffixes are powers of 1024
/// as in nccl-tests; "KB/MB/GB" are powers of 1000, "KiB/MiB/GiB" powers of 1024.
/// Returns nullopt on anything else (negative, fractional byte counts, unknown suffix, a value
/// that overflows a double such as "1e300T").
std::optional<double> parse_size_bytes(std::string_view text);

/// Parses a compute rate: "989.4 TFLOP/s", "989.4 TFLOPS", "1.98 PFLOP/s", "500 GFLOP/s".
/// Returns FLOP/s; nullopt for a bare number, an unknown unit or a non-positive value.
std::optional<double> parse_flops(std::string_view text);

/// The unit forms the parsers accept, for error messages ("expected a bandwidth such as ...").
inline constexpr std::string_view kBandwidthExample = "\"450 GB/s\" or \"400 Gb/s\"";
inline constexpr std::string_view kDurationExample = "\"1.2 us\" or \"150 ns\"";
inline constexpr std::string_view kSizeExample = "\"80 GB\", \"64K\" or \"1 GiB\"";
inline constexpr std::string_view kFlopsExample = "\"989.4 TFLOP/s\"";

/// Formats bytes/s as GB/s with at most 2 decimals: "450 GB/s", "12.5 GB/s", "14.06 GB/s";
/// below 1 GB/s as MB/s ("800 MB/s").
std::string format_bandwidth(double bw_Bps);
/// Formats a byte count in the largest binary unit that keeps the value >= 1, at most 2
/// decimals: "8 B", "1000 B", "64 KiB", "1.5 GiB".
std::string format_size(double bytes);
/// Formats seconds with 3 significant digits in ns, us, ms or s: "150 ns", "1.20 us",
/// "3.40 ms", "2.10 s", "0 s".
std::string format_duration(double seconds);

}  // namespace linksim
