// SPDX-License-Identifier: Apache-2.0
// The one reader of input files (topologies, their includes, scenarios, nvidia-smi captures,
// NCCL XML, nccl-tests logs): regular files only, up to a stated size.
#pragma once

#include <cstdint>
#include <string>

namespace linksim {

/// The largest input file linksim reads: 64 MiB. Real inputs are far smaller (the largest
/// shipped topology, an NVL72 rack, is under 10 KiB; an NCCL topology dump of a 72-GPU rack
/// or a nccl-tests log of a full sweep is under 1 MiB), so anything larger is a wrong path,
/// not a machine; the bound keeps a mistaken `/dev/zero` or a disk image from being read into
/// memory (docs/units.md#bounds).
inline constexpr std::uintmax_t kMaxInputFileBytes = 64ull * 1024 * 1024;

/// The whole content of the regular file at `path`. Throws ConfigError positioned at the file
/// (`PATH: error: ...`): "cannot read file: <reason>" when it does not exist or cannot be
/// opened, "expected a regular file, got a directory" (or "a device", "a pipe or socket")
/// and "expected a file of at most 64 MiB, got N MiB".
std::string read_input_file(const std::string& path);

}  // namespace linksim
