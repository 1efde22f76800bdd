// SPDX-License-Identifier: Apache-2.0
// The NCCL release a prediction models: features appear with the release that introduced them
// and constants follow it (docs/model.md#nccl-version).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace linksim {

/// An NCCL release, major.minor (the patch level changes no modelled behaviour).
struct NcclVersion {
  int major = 2;
  int minor = 29;

  friend constexpr bool operator==(NcclVersion, NcclVersion) = default;
  friend constexpr auto operator<=>(NcclVersion a, NcclVersion b) {
    return a.major != b.major ? a.major <=> b.major : a.minor <=> b.minor;
  }
  /// Whether this release is `major.minor` or later.
  constexpr bool at_least(int mj, int mn) const { return *this >= NcclVersion{mj, mn}; }
};

/// The default: NCCL 2.29, the release of the newest shipped measurements (calibration 53-57,
/// 66: 2.29.2).
inline constexpr NcclVersion kDefaultNcclVersion{2, 29};
/// The oldest and newest releases linksim knows (NCCL 2.0 through 2.32).
inline constexpr NcclVersion kOldestNcclVersion{2, 0};
inline constexpr NcclVersion kNewestNcclVersion{2, 32};

/// "2.29" (major.minor).
std::string to_string(NcclVersion v);
/// Reads "X.Y" or "X.Y.Z" (the patch is accepted and ignored); nullopt when ill-formed or
/// outside kOldestNcclVersion..kNewestNcclVersion.
std::optional<NcclVersion> parse_nccl_version(std::string_view text);

}  // namespace linksim
