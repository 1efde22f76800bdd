// SPDX-License-Identifier: Apache-2.0
// comm_options_from (comm_keywords.hpp).
#include "python/comm_keywords.hpp"

#include <fmt/core.h>

#include "linksim/calibration.hpp"
#include "linksim/error.hpp"
#include "linksim/nccl_version.hpp"
#include "linksim/routing.hpp"

namespace linksim::python {

std::vector<std::string> comm_keyword_names() {
  return {"p2p",      "p2p_level",       "ib_hca",     "nvls",
          "nccl_version", "channels", "gpus_per_thread", "calibration"};
}

CommOptions comm_options_from(const KeywordOptions& options) {
  CommOptions comm;
  if (const auto version = options.text_option("nccl_version")) {
    const std::optional<NcclVersion> parsed = parse_nccl_version(*version);
    if (!parsed) {
      throw ConfigError(fmt::format("nccl_version: expected a release X.Y from {} to {}, got \"{}\"",
                                    to_string(kOldestNcclVersion), to_string(kNewestNcclVersion),
                                    *version));
    }
    comm.nccl_version = *parsed;
  }
  comm.p2p_disable = !options.switch_option("p2p").value_or(true);
  if (const auto level = options.text_option("p2p_level")) {
    const std::optional<PathClass> parsed = parse_p2p_level(*level);
    if (!parsed) {
      throw ConfigError(fmt::format("p2p_level: expected one of LOC, NVL, PIX, PXB, PHB, SYS "
                                    "(or NCCL's old 0-5), got \"{}\"",
                                    *level));
    }
    comm.p2p_level = *parsed;
  }
  if (const auto hca = options.text_option("ib_hca")) {
    try {
      comm.ib_hca = parse_ib_hca(*hca);
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("ib_hca: {}", e.message()));
    }
  }
  comm.nvls_enable = options.switch_option("nvls").value_or(true);
  if (const auto channels = options.int_option("channels")) {
    if (*channels < 0 || *channels > kMaxChannels) {
      throw ConfigError(fmt::format(
          "channels: expected a channel count (NCCL's MAXCHANNELS) between 1 and {}, got {}",
          kMaxChannels, *channels));
    }
    comm.channels = *channels;
  }
  comm.gpus_per_thread = options.positive_int_option("gpus_per_thread").value_or(1);
  if (const auto profile = options.text_option("calibration")) {
    comm.calibration = load_calibration_profile(*profile).parameters;
  }
  return comm;
}

}  // namespace linksim::python
