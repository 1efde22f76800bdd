// SPDX-License-Identifier: Apache-2.0
// The CLI's allocator setting: glibc's malloc asked to back its heap with transparent huge
// pages (docs/flowsim.md#measured).
#pragma once

namespace linksim::cli {

/// When GLIBC_TUNABLES is unset, restarts this program (the same arguments and executable)
/// with GLIBC_TUNABLES=glibc.malloc.hugetlb=1, a setting glibc reads only at start-up: the
/// heap is then mapped 2 MiB at a time where the kernel's transparent_hugepage mode is
/// `madvise` or `always`. Returns, changing nothing, when the variable is set (the user's own
/// tunables, or this restart's) or the restart fails; never returns otherwise.
void restart_with_huge_page_malloc(char** argv);

}  // namespace linksim::cli
