// SPDX-License-Identifier: Apache-2.0
// Collective studies: operation, sizes, element type, GPU selection and NCCL switches.
#include "scenario/collective_study.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "linksim/nccl_tests.hpp"
#include "linksim/units.hpp"
#include "scenario/value_parsers.hpp"

namespace linksim::detail {
namespace {

double size_value(const YamlValue& value) {
  std::string text = value.text();
  std::optional<double> bytes = parse_size_bytes(text);
  if (!bytes) value.fail(fmt::format("expected a size such as 8, 64K, 1M or 8G, got \"{}\"", text));
  if (*bytes > kMaxSizeBytes) {
    value.fail(fmt::format("expected a size of at most 8 PiB (2^53 bytes), got \"{}\"", text));
  }
  return *bytes;
}

}  // namespace

const std::vector<std::string>& collective_study_keys() {
  static const std::vector<std::string> keys = {
      "name", "machines", "ops", "sizes", "minbytes", "maxbytes", "stepfactor", "dtype", "redop", "g",
      "gpus", "per_node", "algo", "proto", "mode", "p2p", "p2p_level", "ib_hca", "nvls", "channels",
      "gpus_per_thread", "nccl_version"};
  return keys;
}

bool is_fixed_collective_key(const std::string& key) {
  return key == "sizes" || key == "minbytes" || key == "maxbytes" || key == "stepfactor";
}

std::vector<double> read_collective_sizes(const YamlValue& entry) {
  std::optional<YamlValue> list = entry.find("sizes");
  std::optional<YamlValue> lo = entry.find("minbytes");
  std::optional<YamlValue> hi = entry.find("maxbytes");
  std::optional<YamlValue> factor = entry.find("stepfactor");
  if (list) {
    if (lo || hi || factor) {
      list->fail("give either sizes or minbytes/maxbytes/stepfactor, not both");
    }
    std::vector<double> sizes;
    for (const YamlValue& item : list->scalar_or_items()) sizes.push_back(size_value(item));
    if (sizes.empty()) list->fail("expected at least one size, got an empty list");
    return sizes;
  }
  if (!lo || !hi) {
    entry.fail("missing the message sizes: give sizes: [...] or minbytes and maxbytes "
               "(and optionally stepfactor)");
  }
  const double min_bytes = size_value(*lo), max_bytes = size_value(*hi);
  if (min_bytes > max_bytes) {
    hi->fail(fmt::format("expected maxbytes >= minbytes ({}), got \"{}\"", lo->text(), hi->text()));
  }
  // nccl-tests' -f: an integer factor (src/common.cu reads it with strtol).
  SweepSpec spec;
  spec.min_bytes = min_bytes;
  spec.max_bytes = max_bytes;
  if (factor) {
    spec.factor = factor->to_double(1);
    if (spec.factor != std::floor(spec.factor) || (spec.factor < 2 && min_bytes != max_bytes)) {
      factor->fail(
          fmt::format("expected stepfactor to be an integer >= 2, got {}", factor->text()));
    }
  }
  // 0 x stepfactor stays 0: a sweep from 0 would end at one row instead of reaching maxbytes.
  if (spec.factor > 1 && min_bytes == 0 && max_bytes > 0) {
    lo->fail(fmt::format("expected minbytes > 0 to multiply by stepfactor {} up to maxbytes "
                         "(0 x {} stays 0), got \"{}\"",
                         spec.factor, spec.factor, lo->text()));
  }
  try {
    return sweep_sizes(spec);
  } catch (const ConfigError& e) {
    // What the sweep still refuses (the row limit) is about the range as a whole.
    entry.fail(e.message());
  }
}

void apply_collective_key(const std::string& key, const YamlValue& value,
                          CollectiveCaseSpec& spec) {
  if (key == "ops") {
    spec.sweep.op = collective_op_value(value);
  } else if (key == "dtype") {
    spec.sweep.type = data_type_value(value);
  } else if (key == "redop") {
    spec.sweep.redop = reduction_op_value(value);
  } else if (key == "g") {
    spec.gpus.first_n = value.to_int(1);
  } else if (key == "gpus") {
    spec.gpus.list = value.text();
  } else if (key == "per_node") {
    spec.gpus.per_node = value.to_int(1);
  } else if (key == "algo") {
    spec.sweep.algorithm = algorithm_value(value);
  } else if (key == "proto") {
    spec.sweep.protocol = protocol_value(value);
  } else if (key == "mode") {
    spec.sweep.mode = sim_mode_value(value);
  } else if (key == "p2p") {
    spec.comm.p2p_disable = !on_off_value(value);
  } else if (key == "p2p_level") {
    spec.comm.p2p_level = p2p_level_value(value);
  } else if (key == "ib_hca") {
    spec.comm.ib_hca = ib_hca_value(value);
  } else if (key == "nvls") {
    spec.comm.nvls_enable = on_off_value(value);
  } else if (key == "channels") {
    spec.comm.channels = value.to_int(0, kMaxChannels);
  } else if (key == "gpus_per_thread") {
    spec.comm.gpus_per_thread = value.to_int(1);
  } else if (key == "nccl_version") {
    spec.comm.nccl_version = nccl_version_value(value);
  }
}

}  // namespace linksim::detail
