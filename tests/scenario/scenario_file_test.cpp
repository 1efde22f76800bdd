// SPDX-License-Identifier: Apache-2.0
// Scenario files: expansion order, ids, parameter columns and the positioned errors.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "scenario/case_naming.hpp"
#include "scenario/scenario_support.hpp"

namespace linksim {
namespace {

using testing::parse_error;
using testing::parse_inline;

const char* const kTwoMachines = R"(machines:
  - topology: dgx-h100.yaml
    set: {gpu: [h100-sxm, h200]}
  - {label: desk, topology: dual-4090.yaml}
collectives:
  - ops: [allreduce, allgather]
    sizes: [1M, 1G]
)";

TEST_CASE("scenario: the cross product is expanded machine by machine, last key fastest") {
  const Scenario s = parse_inline(kTwoMachines);
  std::vector<std::string> ids;
  for (const ScenarioCase& c : s.cases) ids.push_back(c.id);
  CHECK(ids == std::vector<std::string>{
                   "coll/dgx-h100/gpu=h100-sxm,ops=allreduce",
                   "coll/dgx-h100/gpu=h100-sxm,ops=allgather",
                   "coll/dgx-h100/gpu=h200,ops=allreduce",
                   "coll/dgx-h100/gpu=h200,ops=allgather",
                   "coll/desk/ops=allreduce",
                   "coll/desk/ops=allgather"});
  for (size_t i = 0; i < s.cases.size(); ++i) CHECK(s.cases[i].index == static_cast<int>(i));
  CHECK(s.parameter_columns == std::vector<std::string>{"gpu", "ops"});
  CHECK(s.title == "inline-test");
  const ScenarioCase& c = s.cases[2];
  CHECK(c.machine == "dgx-h100");
  CHECK(c.overrides.at("gpu") == "h200");
  CHECK(c.collective->sweep.op == CollectiveOp::kAllReduce);
  CHECK(c.collective->sweep.sizes_bytes == std::vector<double>{1 << 20, 1 << 30});
  CHECK(s.cases[5].collective->sweep.op == CollectiveOp::kAllGather);
  CHECK(s.cases[4].parameters ==
        std::vector<std::pair<std::string, std::string>>{{"ops", "allreduce"}});
}

TEST_CASE("scenario: ids, file names and fingerprints are stable and unique") {
  const Scenario a = parse_inline(kTwoMachines);
  const Scenario b = parse_inline(kTwoMachines);
  for (size_t i = 0; i < a.cases.size(); ++i) {
    CHECK(a.cases[i].fingerprint == b.cases[i].fingerprint);
    CHECK(a.cases[i].file_stem == b.cases[i].file_stem);
  }
  CHECK(a.cases[0].file_stem ==
        "coll_dgx-h100_gpu=h100-sxm,ops=allreduce-" + detail::fnv1a_hex(a.cases[0].id).substr(0, 8));
  // FNV-1a 64 test vectors (http://www.isthe.com/chongo/tech/comp/fnv/): "" and "a".
  CHECK(detail::fnv1a_hex("") == "cbf29ce484222325");
  CHECK(detail::fnv1a_hex("a") == "af63dc4c8601ec8c");
  // Changing a size changes the fingerprint, not the id.
  std::string changed = kTwoMachines;
  changed.replace(changed.find("1G"), 2, "2G");
  const Scenario c = parse_inline(changed);
  CHECK(c.cases[0].id == a.cases[0].id);
  CHECK(c.cases[0].fingerprint != a.cases[0].fingerprint);
}

TEST_CASE("scenario: p2p_level and ib_hca are coll's --p2p-level and --ib-hca, and sweep") {
  const Scenario s = parse_inline(R"(machines: [{topology: dgx-h100.yaml}]
collectives:
  - {name: ar, ops: allreduce, sizes: [1M], p2p_level: [PXB, sys], ib_hca: "^=mlx5_0"}
)");
  REQUIRE(s.cases.size() == 2);
  CHECK(s.cases[0].id == "ar/dgx-h100/p2p_level=PXB");
  CHECK(s.cases[0].collective->comm.p2p_level == PathClass::kPxb);
  CHECK(s.cases[1].collective->comm.p2p_level == PathClass::kSys);
  const IbHcaFilter& hca = s.cases[1].collective->comm.ib_hca;
  CHECK(hca.exclude);
  CHECK(hca.exact);
  CHECK_FALSE(hca.allows("mlx5_0"));
  CHECK(hca.allows("mlx5_3"));
}

TEST_CASE("scenario: sizes from minbytes/maxbytes/stepfactor as nccl-tests' -b/-e/-f") {
  const Scenario s = parse_inline(R"(machines: [{topology: dgx-h100.yaml}]
collectives:
  - {name: ar, ops: allreduce, minbytes: 1K, maxbytes: 64K, stepfactor: 4}
)");
  REQUIRE(s.cases.size() == 1);
  CHECK(s.cases[0].id == "ar/dgx-h100");
  CHECK(s.cases[0].collective->sweep.sizes_bytes == std::vector<double>{1024, 4096, 16384, 65536});
  CHECK(s.parameter_columns.empty());
}

struct ErrorCase {
  const char* name;
  const char* text;
  int line, column;
  std::string message;
};

TEST_CASE("scenario: malformed files give one positioned error naming what was expected") {
  const std::vector<ErrorCase> cases = {
      {"unknown top-level key", "machines: [{topology: dgx-h100.yaml}]\ncolectives:\n  - {ops: allreduce, sizes: [1M]}\n",
       2, 1, "unknown key \"colectives\"; did you mean \"collectives\"?"},
      {"unknown study key",
       "machines: [{topology: dgx-h100.yaml}]\ncollectives:\n  - ops: allreduce\n    sizes: [1M]\n    protoo: ll\n",
       5, 5, "unknown key \"protoo\"; did you mean \"proto\"?"},
      {"bad op name",
       "machines: [{topology: dgx-h100.yaml}]\ncollectives:\n  - ops: allreduse\n    sizes: [1M]\n",
       3, 10,
       "expected one of allreduce, allgather, reducescatter, broadcast, reduce, alltoall, "
       "sendrecv, got \"allreduse\"; did you mean \"allreduce\"?"},
      {"wrong type", "machines: [{topology: dgx-h100.yaml}]\ncollectives:\n  - ops: {a: 1}\n    sizes: [1M]\n",
       3, 10, "expected a value or a list of values, got a mapping"},
      {"empty list", "machines: [{topology: dgx-h100.yaml}]\ncollectives:\n  - ops: []\n    sizes: [1M]\n",
       3, 10, "expected at least one value, got an empty list"},
      {"empty machines", "machines: []\ncollectives:\n  - {ops: allreduce, sizes: [1M]}\n", 1, 11,
       "expected at least one machine, got an empty list"},
      {"machines not a list", "machines: dgx-h100.yaml\ncollectives:\n  - {ops: allreduce, sizes: [1M]}\n",
       1, 11, "expected a sequence, got \"dgx-h100.yaml\""},
      {"bad integer", "machines: [{topology: dgx-h100.yaml}]\ncollectives:\n  - {ops: allreduce, sizes: [1M], g: eight}\n",
       3, 38, "expected an integer, got \"eight\""},
      {"bad size", "machines: [{topology: dgx-h100.yaml}]\ncollectives:\n  - {ops: allreduce, sizes: [1M, 8Q]}\n",
       3, 34, "expected a size such as 8, 64K, 1M or 8G, got \"8Q\""},
      {"no sizes", "machines: [{topology: dgx-h100.yaml}]\ncollectives:\n  - {ops: allreduce}\n", 3, 5,
       "missing the message sizes: give sizes: [...] or minbytes and maxbytes (and optionally "
       "stepfactor)"},
      {"unknown machine label",
       "machines: [{topology: dgx-h100.yaml}]\ncollectives:\n  - {machines: [dgx-h10], ops: allreduce, sizes: [1M]}\n",
       3, 17, "unknown machine \"dgx-h10\"; did you mean \"dgx-h100\"?"},
      {"unknown parameter",
       "machines:\n  - topology: dgx-h100-ib.yaml\n    set: {nodez: 2}\ncollectives:\n  - {ops: allreduce, sizes: [1M]}\n",
       3, 11, "unknown parameter \"nodez\" of dgx-h100-ib.yaml; did you mean \"nodes\"?"},
      {"duplicate value", "machines:\n  - topology: dgx-h100-ib.yaml\n    set: {nodes: [1, 2, 1]}\ncollectives:\n  - {ops: allreduce, sizes: [1M]}\n",
       3, 25, "duplicate value \"1\" in the list of nodes"},
      {"duplicate study", "machines: [{topology: dgx-h100.yaml}]\ncollectives:\n  - {ops: allreduce, sizes: [1M]}\n  - {ops: allreduce, sizes: [1G]}\n",
       4, 5, "duplicate study name \"coll-allreduce\"; give each study its own name"},
      {"no studies", "machines: [{topology: dgx-h100.yaml}]\n", 1, 1,
       "expected collectives: or plans:, found neither"},
      {"bad format", "machines: [{topology: dgx-h100.yaml}]\ncollectives: [{ops: allreduce, sizes: [1M]}]\nreport: {formats: [csv, pdf]}\n",
       3, 25, "expected one of table, csv, json, svg, html, got \"pdf\""},
      {"bad on/off", "machines: [{topology: dgx-h100.yaml}]\ncollectives: [{ops: allreduce, sizes: [1M], p2p: [on, maybe]}]\n",
       2, 55, "expected on or off, got \"maybe\""},
      {"bad p2p level", "machines: [{topology: dgx-h100.yaml}]\ncollectives: [{ops: allreduce, sizes: [1M], p2p_level: [PXB, NODE]}]\n",
       2, 62, "expected one of LOC, NVL, PIX, PXB, PHB, SYS, got \"NODE\""},
      {"bad ib hca", "machines: [{topology: dgx-h100.yaml}]\ncollectives: [{ops: allreduce, sizes: [1M], ib_hca: \"mlx5_0:x\"}]\n",
       2, 53, "expected NCCL_IB_HCA's form [^][=]name[:port][,name[:port]]... (a port number >= 1 "
       "after ':'), got \"mlx5_0:x\""},
      {"bad NCCL version", "machines: [{topology: dgx-h100.yaml}]\ncollectives: [{ops: allreduce, sizes: [1M], nccl_version: [2.29, 2.99]}]\n",
       2, 66, "expected an NCCL release X.Y from 2.0 to 2.32, got \"2.99\""},
  };
  for (const ErrorCase& c : cases) {
    CAPTURE(c.name);
    const ConfigError e = parse_error(c.text);
    CHECK(e.message() == c.message);
    CHECK(e.where().file == testing::inline_scenario_path());
    CHECK(e.where().line == c.line);
    CHECK(e.where().column == c.column);
  }
}

TEST_CASE("scenario: an unknown topology file names where it was looked for") {
  const ConfigError e = parse_error(
      "machines:\n  - topology: dgx-h1000.yaml\ncollectives: [{ops: allreduce, sizes: [1M]}]\n");
  CHECK(e.where().line == 2);
  CHECK(e.where().column == 15);
  const std::string scenarios = std::string(LINKSIM_SOURCE_DIR) + "/scenarios/";
  const std::string topologies = std::string(LINKSIM_SOURCE_DIR) + "/topologies/";
  CHECK(e.message() == "topology file \"dgx-h1000.yaml\" not found (looked in " + scenarios +
                           ", " + topologies + ", topologies/)");
}

TEST_CASE("scenario: the case limit is checked before expanding, at the study that crosses it") {
  const char* text = R"(machines:
  - topology: dgx-h100-ib.yaml
    set: {nodes: [1, 2, 3, 4, 5]}
collectives:
  - {name: small, ops: allreduce, sizes: [1M]}
  - ops: [allreduce, allgather, alltoall]
    sizes: [1M]
)";
  CHECK(parse_inline(text, 20).cases.size() == 20);
  const ConfigError e = parse_error(text, 19);
  CHECK(e.where().line == 6);
  CHECK(e.where().column == 5);
  CHECK(e.message() ==
        "the scenario expands to 20 cases up to this study, more than the limit of 19; sweep "
        "fewer values or raise the limit with --max-cases");

  // The default limit is 10,000; 11 x 1000 gpus_per_thread values is over it.
  std::string channels;
  for (int i = 1; i <= 1000; ++i) channels += (i > 1 ? ", " : "") + std::to_string(i);
  const std::string big = "machines:\n  - topology: dgx-h100-ib.yaml\n    set: {nodes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}\n"
                          "collectives:\n  - {ops: allreduce, sizes: [1M], gpus_per_thread: [" + channels + "]}\n";
  CHECK(parse_error(big).message() ==
        "the scenario expands to 11000 cases up to this study, more than the limit of 10000; "
        "sweep fewer values or raise the limit with --max-cases");
  // A product far beyond any limit saturates instead of overflowing: 11 x 65 x 3 x 1000^3.
  std::string all_channels;
  for (int i = 0; i <= 64; ++i) all_channels += (i > 0 ? ", " : "") + std::to_string(i);
  const std::string huge = "machines:\n  - topology: dgx-h100-ib.yaml\n    set: {nodes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}\n"
                           "collectives:\n  - {ops: allreduce, sizes: [1M], channels: [" + all_channels +
                           "], proto: [ll, ll128, simple], gpus_per_thread: [" + channels +
                           "], g: [" + channels + "], per_node: [" + channels + "]}\n";
  CHECK(parse_error(huge).message() ==
        "the scenario expands to over 1000000000000 cases up to this study, more than the limit "
        "of 10000; sweep fewer values or raise the limit with --max-cases");
  // Channels beyond NCCL's MAXCHANNELS are refused where they are written.
  const std::string too_many = "machines:\n  - topology: dgx-h100.yaml\n"
                               "collectives:\n  - {ops: allreduce, sizes: [1M], channels: [8, 65]}\n";
  CHECK(parse_error(too_many).message() == "expected channels between 0 and 64, got 65");
}

}  // namespace
}  // namespace linksim
