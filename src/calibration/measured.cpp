// SPDX-License-Identifier: Apache-2.0
// A real nccl-tests table as linksim's request, and its rows predicted
// (docs/calibration.md#compare).
#include "linksim/measured.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "linksim/error.hpp"

namespace linksim {
namespace {

[[noreturn]] void fail(const NcclTestsTable& table, const std::string& message) {
  throw ConfigError({table.file, 1, 1}, message);
}

std::optional<int> integer(const std::string& text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The rank count the busbw/algbw ratio implies, for collectives whose factor depends on it.
std::optional<int> ranks_from_ratio(CollectiveOp op, const NcclTestsTable& table) {
  const NcclTestsRow* best = nullptr;
  for (const NcclTestsRow& row : table.rows) {
    if (row.algbw_GBps > 0 && (best == nullptr || row.algbw_GBps > best->algbw_GBps)) best = &row;
  }
  if (best == nullptr || best->algbw_GBps < 1.0) return std::nullopt;  // too few digits
  const double ratio = best->busbw_GBps / best->algbw_GBps;
  double per_rank = 0;  // (n-1)/n
  if (op == CollectiveOp::kAllReduce) per_rank = ratio / 2;
  else if (op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter ||
           op == CollectiveOp::kAllToAll) per_rank = ratio;
  else return std::nullopt;
  if (per_rank <= 0 || per_rank >= 0.999) return std::nullopt;
  return static_cast<int>(std::lround(1.0 / (1.0 - per_rank)));
}

}  // namespace

MeasuredSetup measured_setup(const NcclTestsTable& table) {
  MeasuredSetup s;
  const auto op = parse_collective(table.collective);
  if (!op) fail(table, fmt::format("expected a collective linksim models, got '{}'", table.collective));
  s.op = *op;
  s.ranks = table.ranks;
  s.inferred.push_back(fmt::format("{} over {} ranks (collective from {}, ranks from {})",
                                   table.collective, table.ranks, table.collective_source,
                                   table.ranks_source));
  if (auto implied = ranks_from_ratio(s.op, table); implied && *implied != table.ranks) {
    s.inferred.push_back(fmt::format("note: busbw/algbw implies {} ranks, the output says {}",
                                     *implied, table.ranks));
  }
  for (const NcclTestsRow& row : table.rows) {
    if (row.type.empty()) continue;
    const auto type = parse_data_type(row.type);
    if (!type) {
      throw ConfigError({table.file, row.line, 1},
                        fmt::format("expected a data type such as {}, got '{}'",
                                    data_type_choices(), row.type));
    }
    s.type = *type;
    s.inferred.push_back(fmt::format("data type {} (from the type column)", type->name));
    break;
  }
  s.options.gpus_per_thread = std::max(1, table.gpus_per_thread);
  if (table.gpus_per_thread > 1) {
    s.inferred.push_back(fmt::format("{} GPUs per process: launches serialize (nGpus / -g)",
                                     table.gpus_per_thread));
  }
  if (table.nccl_version_code > 0) {
    // NCCL_VERSION_CODE: major x 10000 + minor x 100 + patch (NCCL 2.9 and later).
    const std::string release = fmt::format("{}.{}", table.nccl_version_code / 10000,
                                            table.nccl_version_code % 10000 / 100);
    if (const std::optional<NcclVersion> v = parse_nccl_version(release)) {
      s.options.nccl_version = *v;
      s.inferred.push_back(fmt::format("NCCL {} ({}): --nccl-version {}", release,
                                       table.nccl_version_source, release));
    } else {
      s.inferred.push_back(fmt::format("note: NCCL {}.{} ({}) is no release linksim models; "
                                       "NCCL {} assumed", table.nccl_version_code / 10000,
                                       table.nccl_version_code % 10000 / 100,
                                       table.nccl_version_source,
                                       to_string(s.options.nccl_version)));
    }
  }
  for (const auto& [name, value] : table.env) {
    if (name == "CUDA_VISIBLE_DEVICES") {
      s.visible_devices = value;
      s.inferred.push_back(fmt::format("CUDA_VISIBLE_DEVICES={}: --gpus {}", value, value));
    } else if (name == "NCCL_P2P_DISABLE") {
      s.options.p2p_disable = value == "1";
      s.inferred.push_back(fmt::format("NCCL_P2P_DISABLE={}: --p2p {}", value,
                                       s.options.p2p_disable ? "off" : "on"));
    } else if (name == "NCCL_NVLS_ENABLE") {
      s.options.nvls_enable = value != "0";
      s.inferred.push_back(fmt::format("NCCL_NVLS_ENABLE={}: --nvls {}", value,
                                       s.options.nvls_enable ? "on" : "off"));
    } else if (name == "NCCL_ALGO" || name == "NCCL_PROTO") {
      // As NCCL reads them: the tuner chooses within the lists (docs/model.md#tuner-lists).
      try {
        if (name == "NCCL_ALGO") s.options.nccl_lists.apply_algo(value);
        else s.options.nccl_lists.apply_proto(value);
      } catch (const ConfigError& e) {
        fail(table, fmt::format("{}={}: {}", name, value, e.message()));
      }
      s.inferred.push_back(fmt::format("{}={}: the tuner chooses within it (--{} {})", name,
                                       value, name == "NCCL_ALGO" ? "algo" : "proto", value));
    } else if (name == "NCCL_MIN_NCHANNELS" || name == "NCCL_MAX_NCHANNELS") {
      const auto channels = integer(value);
      if (!channels || *channels < 1 || *channels > kMaxChannels) {
        fail(table, fmt::format("expected {} between 1 and {}, got '{}'", name, kMaxChannels, value));
      }
      const auto other = table.env.find(name == "NCCL_MIN_NCHANNELS" ? "NCCL_MAX_NCHANNELS"
                                                                      : "NCCL_MIN_NCHANNELS");
      if (other == table.env.end() || other->second == value) {
        s.options.channels = *channels;
        s.inferred.push_back(fmt::format("{}={}: --channels {}", name, value, *channels));
      }
    }
  }
  return s;
}

std::vector<DeviceId> measured_ranks(const Topology& topology, const MeasuredSetup& setup,
                                     const GpuSelection& selection, const std::string& file) {
  GpuSelection chosen = selection;
  const bool selected = selection.first_n || selection.list || selection.per_node;
  const int gpus = static_cast<int>(topology.gpus().size());
  if (!selected) {
    if (setup.ranks > gpus) {
      throw ConfigError({file, 1, 1},
                        fmt::format("expected at most {} ranks, the GPUs of {}; the output has "
                                    "{} (a larger machine: --set nodes=N, or another --topo)",
                                    gpus, topology.name(), setup.ranks));
    }
    if (!setup.visible_devices.empty() && topology.host_count() == 1) {
      chosen.list = setup.visible_devices;
    } else if (setup.ranks < gpus) {
      chosen.first_n = setup.ranks;
    }
  }
  std::vector<DeviceId> ranks = select_gpus(topology, chosen);
  if (static_cast<int>(ranks.size()) != setup.ranks) {
    throw ConfigError({file, 1, 1},
                      fmt::format("expected the GPU selection to give the output's {} ranks, got {}",
                                  setup.ranks, ranks.size()));
  }
  return ranks;
}

CollectiveSweep predict_measured(const Topology& topology, const std::vector<DeviceId>& ranks,
                                 const MeasuredSetup& setup, const NcclTestsTable& table) {
  SweepRequest request;
  request.op = setup.op;
  request.type = setup.type;
  for (const NcclTestsRow& row : table.rows) {
    if (row.size_bytes > 0 && row.time_us > 0) request.sizes_bytes.push_back(row.size_bytes);
  }
  const Communicator comm(topology, ranks, setup.options);
  return run_sweep(comm, request);
}

Comparison compare_measurement(const Topology& topology, const std::vector<DeviceId>& ranks,
                               const NcclTestsTable& table, const ModelCalibration& calibration) {
  Comparison c;
  c.file = table.file;
  c.topology = topology.name();
  c.setup = measured_setup(table);
  c.setup.options.calibration = calibration;
  const CollectiveSweep sweep = predict_measured(topology, ranks, c.setup, table);
  size_t next = 0;
  for (const NcclTestsRow& row : table.rows) {
    if (!(row.size_bytes > 0 && row.time_us > 0)) continue;
    const SweepRow& p = sweep.rows[next++];
    ComparedRow r;
    r.size_bytes = row.size_bytes;
    r.line = row.line;
    r.measured_time_s = row.time_us * 1e-6;
    r.measured_busbw_Bps = row.busbw_GBps * 1e9;
    r.predicted = p.result;
    r.band = error_band(p.result, topology, p.size_bytes);
    r.busbw_error = r.measured_time_s / p.result.time_s - 1.0;
    r.measured_in_band = r.measured_time_s >= p.result.time_s * r.band.low_factor &&
                         r.measured_time_s <= p.result.time_s * r.band.high_factor;
    c.rows.push_back(r);
  }
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ComparedRow*>> groups;
  for (const ComparedRow& r : c.rows) {
    const std::string m(r.band.mechanism);
    if (!groups.count(m)) order.push_back(m);
    groups[m].push_back(&r);
  }
  for (const std::string& m : order) {
    std::vector<const ComparedRow*> rows = groups[m];
    MechanismVerdict v;
    v.mechanism = m;
    v.rows = static_cast<int>(rows.size());
    v.min_size_bytes = rows.front()->size_bytes;
    v.max_size_bytes = rows.back()->size_bytes;
    for (const ComparedRow* r : rows) v.in_band += r->measured_in_band ? 1 : 0;
    std::sort(rows.begin(), rows.end(), [](const ComparedRow* a, const ComparedRow* b) {
      return std::abs(a->busbw_error) < std::abs(b->busbw_error);
    });
    v.median_error = rows[rows.size() / 2]->busbw_error;
    v.worst_error = rows.back()->busbw_error;
    const double median = std::abs(v.median_error);
    v.verdict = median <= kMatchesError ? "matches" : median <= kCloseError ? "close" : "off";
    c.verdicts.push_back(v);
  }
  return c;
}

}  // namespace linksim
