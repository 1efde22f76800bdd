// SPDX-License-Identifier: Apache-2.0
// NCCL's switches as keywords, shared by collective() and the plan functions: p2p, p2p_level,
// ib_hca, nvls, nccl_version, channels, gpus_per_thread and calibration (a profile written by
// `linksim calibrate`), read into the library's CommOptions (the CLI's --p2p ... flags).
#pragma once

#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "python/keyword_options.hpp"

namespace linksim::python {

/// The keywords comm_options_from reads.
std::vector<std::string> comm_keyword_names();

/// The communicator's set-up. Throws ConfigError naming the keyword; a calibration profile
/// that does not parse throws at its file:line:column. REQUIRES: the GIL is held.
CommOptions comm_options_from(const KeywordOptions& options);

}  // namespace linksim::python
