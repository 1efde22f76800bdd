// SPDX-License-Identifier: Apache-2.0
// nccl-tests' semantics in the library: type and op tables, the size sweep, per-block count
// rounding, and the sweep call against the CLI's own output.
#include <doctest/doctest.h>

#include <string>

#include "linksim/error.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/nccl_tests.hpp"
#include "linksim/report.hpp"
#include "linksim/topology_yaml.hpp"
#include "support/cli_runner.hpp"

using namespace linksim;

namespace {

const std::string kTopologies = std::string(LINKSIM_SOURCE_DIR) + "/topologies/";

std::string error_text(auto&& call) {
  try {
    call();
  } catch (const ConfigError& e) {
    return e.field().empty() ? e.message() : e.field() + ": " + e.message();
  }
  return "(no error)";
}

// nccl-tests' spelling of a collective ("all_reduce"), which the CLI accepts.
std::string nccl_tests_name(CollectiveOp op) {
  for (const CollectiveName& c : collective_names()) {
    if (c.op == op) return std::string(c.nccl_tests_name);
  }
  return "?";
}

}  // namespace

TEST_SUITE("nccl_tests") {

TEST_CASE("data types: nccl-tests' twelve names with their sizes, and the short aliases") {
  REQUIRE(data_types().size() == 12);
  const std::pair<const char*, int> expected[] = {
      {"int8", 1}, {"uint8", 1}, {"int32", 4}, {"uint32", 4}, {"int64", 8}, {"uint64", 8},
      {"half", 2}, {"float", 4}, {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
  for (const auto& entry : expected) {
    const auto& name = entry.first;  // clang 14: CAPTURE cannot take a structured binding
    const auto& bytes = entry.second;
    CAPTURE(name);
    const auto t = parse_data_type(name);
    REQUIRE(t.has_value());
    CHECK(t->name == name);
    CHECK(t->bytes == bytes);
  }
  CHECK(parse_data_type("bf16")->name == "bfloat16");
  CHECK(parse_data_type("fp16")->name == "half");
  CHECK(parse_data_type("fp32")->name == "float");
  CHECK(parse_data_type("fp64")->name == "double");
  CHECK(parse_data_type("fp8")->name == "f8e4m3");
  CHECK(parse_data_type("fp8_e4m3")->name == "f8e4m3");
  CHECK(parse_data_type("fp8_e5m2")->name == "f8e5m2");
  CHECK_FALSE(parse_data_type("bfloat").has_value());
  CHECK_FALSE(parse_data_type("").has_value());
}

TEST_CASE("reduction ops: nccl-tests' -o names round-trip; only reducing collectives print them") {
  for (ReductionOp op : {ReductionOp::kSum, ReductionOp::kProd, ReductionOp::kMax,
                         ReductionOp::kMin, ReductionOp::kAvg}) {
    CHECK(parse_reduction_op(to_string(op)) == op);
  }
  CHECK(to_string(ReductionOp::kAvg) == "avg");
  CHECK_FALSE(parse_reduction_op("mean").has_value());
  CHECK(prints_redop(CollectiveOp::kAllReduce));
  CHECK(prints_redop(CollectiveOp::kSendRecv));
  CHECK_FALSE(prints_redop(CollectiveOp::kAllGather));
  CHECK(has_root(CollectiveOp::kBroadcast));
  CHECK_FALSE(has_root(CollectiveOp::kAllReduce));
}

TEST_CASE("sweep_sizes: -b 8 -e 64 -f 2 visits 8, 16, 32, 64; errors name the flag") {
  CHECK(sweep_sizes(8, 64, 2) == std::vector<double>{8, 16, 32, 64});
  CHECK(sweep_sizes(8, 100, 4) == std::vector<double>{8, 32});
  CHECK(sweep_sizes(1024, 1024, 1) == std::vector<double>{1024});
  CHECK(sweep_sizes(0, 0, 2) == std::vector<double>{0});
  CHECK(error_text([] { sweep_sizes(65536, 1024, 2); }) == "min_bytes: (64 KiB) is larger than -e (1 KiB)");
  // -f 1 steps by -i, nccl-tests' default 1 MiB: 8 + 1 MiB is past 64, so 8 alone.
  CHECK(sweep_sizes(8, 64, 1) == std::vector<double>{8});
}

TEST_CASE("round_message_size: the size covers every rank's block for allgather, not allreduce") {
  // 8 ranks of float: 1000 B / 4 B / 8 blocks = 31.25 -> 31 elements per block, 992 B.
  const MessageSize ag = round_message_size(CollectiveOp::kAllGather, 1000, kFloat, 8);
  CHECK(ag.count == 31);
  CHECK(ag.size_bytes == 992);
  const MessageSize ata = round_message_size(CollectiveOp::kAllToAll, 1000, kFloat, 8);
  CHECK(ata.size_bytes == 992);
  // AllReduce: 1000 / 4 = 250 elements, the whole 1000 B.
  const MessageSize ar = round_message_size(CollectiveOp::kAllReduce, 1000, kFloat, 8);
  CHECK(ar.count == 250);
  CHECK(ar.size_bytes == 1000);
  const MessageSize bf = round_message_size(CollectiveOp::kAllReduce, 1001, *parse_data_type("bf16"), 8);
  CHECK(bf.count == 500);
  CHECK(bf.size_bytes == 1000);
}

TEST_CASE("run_sweep: a row per size, nccl-tests' prefix, root only where the collective has one") {
  const Topology t = load_topology(kTopologies + "dgx-h100.yaml");
  const Communicator comm(t, select_gpus(t, {}));
  SweepRequest request;
  request.op = CollectiveOp::kBroadcast;
  request.sizes_bytes = {1024, 4096};
  request.type = *parse_data_type("bfloat16");
  request.root = 3;
  const CollectiveSweep sweep = run_sweep(comm, request);
  REQUIRE(sweep.rows.size() == 2);
  CHECK(sweep.ranks == 8);
  CHECK(sweep.rows[1].size_bytes == 4096);
  CHECK(sweep.rows[1].count == 2048);
  CHECK(sweep.rows[1].type == "bfloat16");
  CHECK(sweep.rows[1].redop == "none");
  CHECK(sweep.rows[1].root == 3);
  CollectiveQuery q;
  q.op = CollectiveOp::kBroadcast;
  q.size_bytes = 4096;
  q.root = 3;
  CHECK(sweep.rows[1].result.time_s == comm.run(q).time_s);
}

TEST_CASE("run_sweep: the library's rows are the CLI's --json rows, number for number") {
  struct Case {
    const char* topo;
    CollectiveOp op;
    const char* flags;
    SimMode mode;
    const char* dtype;
    ReductionOp redop;
  };
  const Case cases[] = {
      {"dgx-h100.yaml", CollectiveOp::kAllReduce, "-b 8 -e 1G -f 8", SimMode::kAnalytic,
       "bfloat16", ReductionOp::kSum},
      {"dgx-a100.yaml", CollectiveOp::kAllGather, "-b 1K -e 64M -f 16 --mode flow",
       SimMode::kFlow, "half", ReductionOp::kSum},
      {"dual-4090.yaml", CollectiveOp::kReduceScatter, "-b 1M -e 16M -f 4 -o max", SimMode::kAnalytic,
       "float", ReductionOp::kMax},
  };
  for (const Case& c : cases) {
    CAPTURE(c.topo);
    const Topology t = load_topology(kTopologies + c.topo);
    const Communicator comm(t, select_gpus(t, {}));
    SweepRequest request;
    request.op = c.op;
    request.mode = c.mode;
    request.type = *parse_data_type(c.dtype);
    request.redop = c.redop;
    const std::string flags = c.flags;
    request.sizes_bytes = flags.starts_with("-b 8 ")   ? sweep_sizes(8, 1 << 30, 8)
                          : flags.starts_with("-b 1K") ? sweep_sizes(1024, 64 << 20, 16)
                                                       : sweep_sizes(1 << 20, 16 << 20, 4);
    const std::string library = render_json(to_collective_report(run_sweep(comm, request), t));
    const testing::CliRun cli =
        testing::run_linksim(std::string("coll ") + nccl_tests_name(c.op) +
                             " --topo " + kTopologies + c.topo + " " + flags + " -d " + c.dtype +
                             " --json");
    REQUIRE(cli.status == 0);
    CHECK(cli.out == library);
  }
}

TEST_CASE("cli: coll takes the last of repeated --set values, as the topo commands do") {
  // dgx-h100-ib.yaml: 8 GPUs per server; nodes=2 then nodes=3 means 3 servers, 24 ranks.
  const testing::CliRun cli = testing::run_linksim(
      "coll all-reduce --topo " + kTopologies + "dgx-h100-ib.yaml --set nodes=2 --set nodes=3 "
      "--size 1G --json");
  REQUIRE(cli.status == 0);
  CHECK(cli.out.find("\"ranks\": 24,") != std::string::npos);
}

TEST_CASE("collective names: every nccl-tests spelling reaches the same collective") {
  CHECK(parse_collective("all_reduce") == CollectiveOp::kAllReduce);
  CHECK(parse_collective("all-reduce") == CollectiveOp::kAllReduce);
  CHECK(parse_collective("AllReduce") == CollectiveOp::kAllReduce);
  CHECK(parse_collective("reduce_scatter_perf") == CollectiveOp::kReduceScatter);
  CHECK_FALSE(parse_collective("gather").has_value());
  REQUIRE(collective_names().size() == 7);
  for (const CollectiveName& c : collective_names()) {
    CHECK(parse_collective(c.nccl_tests_name) == c.op);
    CHECK(to_string(c.op) == c.name);
  }
}

}  // TEST_SUITE
