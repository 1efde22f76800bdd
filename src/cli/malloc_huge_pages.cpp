// SPDX-License-Identifier: Apache-2.0
#include "cli/malloc_huge_pages.hpp"

#include <cstdlib>

#if defined(__linux__) && defined(__GLIBC__)
#include <climits>
#include <unistd.h>
#endif

namespace linksim::cli {

void restart_with_huge_page_malloc(char** argv) {
#if defined(__linux__) && defined(__GLIBC__)
  if (std::getenv("GLIBC_TUNABLES") != nullptr) return;
  // The executable's own path (not /proc/self/exe itself, which would name the process
  // "exe" in ps and top).
  char path[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return;
  path[length] = '\0';
  if (setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 0) != 0) return;
  execv(path, argv);
  unsetenv("GLIBC_TUNABLES");  // the restart failed: run on, as started
#else
  (void)argv;
#endif
}

}  // namespace linksim::cli
