// SPDX-License-Identifier: Apache-2.0
// An AllReduce sweep through linksim's public API: load a topology, put every GPU in one
// communicator, and print time, algbw and busbw per message size, as nccl-tests does.
//
// Usage: allreduce_sweep TOPOLOGY.yaml [MIN_SIZE MAX_SIZE FACTOR]   (default 1M 1G 4)
// Sizes take nccl-tests' suffixes (K, M, G = powers of 1024). The numbers equal those of
// `linksim coll allreduce --topo TOPOLOGY.yaml -b MIN_SIZE -e MAX_SIZE -f FACTOR`.
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/topology_yaml.hpp"
#include "linksim/units.hpp"

namespace {

constexpr int kFloatBytes = 4;  // nccl-tests' default type, float

double size_or_throw(const char* text) {
  const std::optional<double> bytes = linksim::parse_size_bytes(text);
  if (!bytes) {
    throw linksim::ConfigError(std::string("expected a size such as 1M or 8G, got \"") + text +
                               "\"");
  }
  return *bytes;
}

// nccl-tests' time column: microseconds, fewer decimals as the value grows.
std::string time_us_text(double time_s) {
  const double us = time_s / linksim::kMicrosecond;
  const int decimals = us >= 10000.0 ? 0 : us >= 100.0 ? 1 : 2;
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, us);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 5) {
    std::fprintf(stderr, "usage: %s TOPOLOGY.yaml [MIN_SIZE MAX_SIZE FACTOR]\n", argv[0]);
    return 2;
  }
  try {
    const double min_bytes = argc == 5 ? size_or_throw(argv[2]) : 1024.0 * 1024.0;
    const double max_bytes = argc == 5 ? size_or_throw(argv[3]) : 1024.0 * 1024.0 * 1024.0;
    const double factor = argc == 5 ? std::stod(argv[4]) : 4.0;
    if (!(factor > 1)) throw linksim::ConfigError("FACTOR must be larger than 1");

    const linksim::Topology topology = linksim::load_topology(argv[1]);
    const linksim::Communicator comm(topology, linksim::select_gpus(topology, {}));
    std::printf("# %s: AllReduce on %d GPUs over %d server(s)\n", topology.name().c_str(),
                comm.rank_count(), comm.node_count());
    std::printf("# %12s %12s %8s %10s %8s %8s  %-10s %s\n", "size (B)", "count", "type",
                "time (us)", "algbw", "busbw", "algorithm", "protocol");

    linksim::CollectiveQuery query;
    query.op = linksim::CollectiveOp::kAllReduce;
    for (double requested = min_bytes; requested <= max_bytes; requested *= factor) {
      // Whole elements only, as nccl-tests sizes its buffers.
      const double count = std::floor(requested / kFloatBytes);
      query.size_bytes = count * kFloatBytes;
      const linksim::CollectiveResult r = comm.run(query);
      std::printf("%14.0f %12.0f %8s %10s %8.2f %8.2f  %-10s %s\n", query.size_bytes, count,
                  "float", time_us_text(r.time_s).c_str(), r.algbw_Bps / linksim::kGB,
                  r.busbw_Bps / linksim::kGB, std::string(linksim::to_string(r.algorithm)).c_str(),
                  std::string(linksim::to_string(r.protocol)).c_str());
    }
    return 0;
  } catch (const linksim::ConfigError& e) {
    std::fprintf(stderr, "%s\n", linksim::format_diagnostic(e).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "allreduce_sweep: %s\n", e.what());
    return 2;
  }
}
