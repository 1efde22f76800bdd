// SPDX-License-Identifier: Apache-2.0
// Transparent huge pages for a large buffer: the kernel then maps its 2 MiB-aligned part
// 2 MiB at a time on first touch instead of 4 KiB at a time, one page fault where there were
// 512 (Linux with transparent_hugepage in madvise mode; elsewhere nothing is done).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace linksim {

/// Buffers smaller than this are left alone: they hold no whole aligned 2 MiB page.
inline constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;

/// Asks for huge pages over the whole 2 MiB-aligned pages inside [data, data + bytes): a hint
/// only, no effect on the contents; ignored where unsupported.
inline void advise_huge_pages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePageBytes - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

/// advise_huge_pages over a vector's reserved capacity.
template <typename T>
void advise_huge_pages(const std::vector<T>& v) {
  const std::size_t bytes = v.capacity() * sizeof(T);
  if (bytes >= 2 * kHugePageBytes) advise_huge_pages(v.data(), bytes);
}

}  // namespace linksim
