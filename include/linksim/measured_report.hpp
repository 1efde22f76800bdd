// SPDX-License-Identifier: Apache-2.0
// Rendering of a comparison with a real table (`linksim coll compare`) and of a calibration
// fit (`linksim calibrate`): plain text, one row per size.
#pragma once

#include <string>
#include <vector>

#include "linksim/calibrate.hpp"
#include "linksim/measured.hpp"

namespace linksim {

/// The side-by-side table: measured and predicted time and busbw, the error, the band and its
/// confidence per row, then one verdict line per mechanism.
std::string render_comparison_text(const Comparison& comparison);

/// The comparisons as one JSON document {"comparisons": [...]} (fields in docs/cli.md).
std::string render_comparisons_json(const std::vector<Comparison>& comparisons);

/// The fitted parameters (and those left at their default, with why), then the residuals
/// before and after per table and size.
std::string render_calibration_fit(const CalibrationFit& fit, const std::vector<FitCase>& cases);

}  // namespace linksim
