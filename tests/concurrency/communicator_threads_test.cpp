// SPDX-License-Identifier: Apache-2.0
// "Queries are const and thread-safe" (include/linksim/collectives.hpp): one communicator,
// queried from many threads at once with a cold route cache, answers exactly as a fresh one
// queried from one thread. Built a second time under ThreadSanitizer (linksim_tsan_tests,
// LINKSIM_TSAN=ON; scripts/test.sh runs it), which reports any data race.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "linksim/collectives.hpp"
#include "linksim/gpu_selection.hpp"
#include "linksim/topology_yaml.hpp"

using namespace linksim;

namespace {

struct Question {
  CollectiveOp op;
  double size_bytes;
  SimMode mode;
};

// Direct patterns and flow mode fill the communicator's route cache as they go.
const Question kQuestions[] = {
    {CollectiveOp::kAllToAll, 64e6, SimMode::kAnalytic},
    {CollectiveOp::kSendRecv, 8e6, SimMode::kAnalytic},
    {CollectiveOp::kAllReduce, 256e6, SimMode::kFlow},
    {CollectiveOp::kAllGather, 32e6, SimMode::kAnalytic},
    {CollectiveOp::kAllToAll, 1e6, SimMode::kFlow},
    {CollectiveOp::kSendRecv, 1e9, SimMode::kFlow},
};

CollectiveResult ask(const Communicator& comm, const Question& q) {
  CollectiveQuery query;
  query.op = q.op;
  query.size_bytes = q.size_bytes;
  query.mode = q.mode;
  return comm.run(query);
}

}  // namespace

TEST_SUITE("concurrency") {

TEST_CASE("communicator: eight threads on one communicator get the single-threaded answers") {
  const Topology t = load_topology(std::string(LINKSIM_SOURCE_DIR) + "/topologies/dgx-h100-ib.yaml",
                                   {{"nodes", "2"}});
  const std::vector<DeviceId> ranks = select_gpus(t, {});
  REQUIRE(ranks.size() == 16);

  std::vector<double> expected;
  {
    const Communicator reference(t, ranks);
    for (const Question& q : kQuestions) expected.push_back(ask(reference, q).time_s);
  }

  const Communicator shared(t, ranks);
  constexpr int kThreads = 8;
  std::vector<std::vector<double>> answers(kThreads);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      // Each thread starts at a different question, so cache fills interleave.
      std::vector<double>& mine = answers[static_cast<size_t>(k)];
      mine.assign(std::size(kQuestions), 0.0);
      for (size_t i = 0; i < std::size(kQuestions); ++i) {
        const size_t j = (i + static_cast<size_t>(k)) % std::size(kQuestions);
        mine[j] = ask(shared, kQuestions[j]).time_s;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int k = 0; k < kThreads; ++k) {
    CAPTURE(k);
    CHECK(answers[static_cast<size_t>(k)] == expected);
  }
}

}  // TEST_SUITE
