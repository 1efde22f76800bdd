// SPDX-License-Identifier: Apache-2.0
// `linksim diagnose`'s renderings of a Diagnosis (include/linksim/diagnose.hpp): text for a
// terminal and the JSON contract of docs/cli.md#diagnose.
#pragma once

#include <string>

#include "linksim/diagnose.hpp"

namespace linksim {

/// The facts (release, ranks, nodes, channels, transports, environment), then each finding
/// with its severity, message, cost per size and evidence lines ("line N: ...").
std::string render_diagnosis_text(const Diagnosis& diagnosis);

/// One JSON object with exactly the fields nccl_version, ranks, nodes, channels, hops
/// ([{from_rank, to_rank, channel, transport, gdr}]) and findings ([{key, severity, evidence,
/// cost}]); cost is null or {collective, setting, note, sizes: [{size_bytes,
/// logged_busbw_GBps, best_busbw_GBps}]}. Ends with a newline.
std::string render_diagnosis_json(const Diagnosis& diagnosis);

}  // namespace linksim
