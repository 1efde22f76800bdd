// SPDX-License-Identifier: Apache-2.0
// The shipped real nccl-tests tables compared with linksim, each on the topology and settings
// tests/data/calibration/cases.yaml pairs it with (its --set and --per-node; the rest of the
// run is read from the output itself, as `linksim coll compare` reads it).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "linksim/measured.hpp"

namespace linksim::testing {

/// The comparisons of every table in the file at `path` (a file of data/validation/nccl-tests/).
/// REQUIREs that cases.yaml has a case for it.
std::vector<Comparison> compare_validation_file(const std::string& path);

/// The sizes, bytes, of the rows the case of the file at `path` lists under `outliers:` (a
/// single measurement its own run contradicts, each with its `why`): shown in
/// docs/validation.md, left out of the fidelity aggregate, the per-case check and the error
/// bands. Empty when the case lists none.
std::set<double> outlier_sizes(const std::string& path);

}  // namespace linksim::testing
