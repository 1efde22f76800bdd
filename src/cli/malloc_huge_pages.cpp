// SPDX-License-Identifier: Apache-2.0
#include "cli/malloc_huge_pages.hpp"

#include <cstdlib>

#if defined(__linux__) && defined(__GLIBC__)
#include <unistd.h>
#endif

namespace linksim::cli {

void restart_with_huge_page_malloc(char** argv) {
#if defined(__linux__) && defined(__GLIBC__)
  if (std::getenv("GLIBC_TUNABLES") != nullptr) return;
  if (setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 0) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("GLIBC_TUNABLES");  // the restart failed: run on, as started
#else
  (void)argv;
#endif
}

}  // namespace linksim::cli
