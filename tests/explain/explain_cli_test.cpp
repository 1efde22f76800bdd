// SPDX-License-Identifier: Apache-2.0
// `linksim explain` through the real binary: its numbers against `coll` and `plan` for the same
// flags, its text, and its errors (exact text, exit status 2).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_runner.hpp"

namespace linksim {
namespace {

using testing::run_linksim;

std::string topo(const std::string& name) {
  return std::string(LINKSIM_SOURCE_DIR) + "/topologies/" + name + ".yaml";
}

nlohmann::json json_of(const std::string& args) {
  const testing::CliRun run = run_linksim(args);
  REQUIRE_MESSAGE(run.status == 0, args << ": " << run.err);
  return nlohmann::json::parse(run.out);
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

TEST_SUITE("explain") {
  TEST_CASE("explain cli: explain coll prints coll's time, analytic and flow") {
    for (const char* machine : {"dgx-h100", "pcie-8gpu", "dual-4090"}) {
      for (const char* size : {"1G", "64K"}) {
        CAPTURE(machine);
        CAPTURE(size);
        const std::string flags = " --topo " + topo(machine) + " --size " + size + " --json";
        const nlohmann::json e = json_of("explain coll allreduce" + flags);
        const nlohmann::json analytic = json_of("coll allreduce" + flags);
        const nlohmann::json flow = json_of("coll allreduce --mode flow" + flags);
        const nlohmann::json& row = analytic["results"][0];
        CHECK(e["size_bytes"] == row["size_bytes"]);
        CHECK(e["analytic"]["time_us"] == row["time_us"]);
        CHECK(e["analytic"]["busbw_GBps"] == row["busbw_GBps"]);
        CHECK(e["analytic"]["algorithm"] == row["algorithm"]);
        CHECK(e["analytic"]["protocol"] == row["protocol"]);
        CHECK(e["analytic"]["bottleneck"] == row["bottleneck"]);
        CHECK(e["flow"]["time_us"] == flow["results"][0]["time_us"]);
        CHECK(e["flow"]["bottleneck"] == flow["results"][0]["bottleneck"]);
      }
    }
  }

  TEST_CASE("explain cli: the same flags as coll, and the size rounded as coll rounds it") {
    // 1000 bytes of floats over 4 ranks of AllGather: floor(1000 / 4 / 4) = 62 elements per
    // block, 62 x 4 x 4 = 992 bytes, as coll's size column shows.
    const std::string flags =
        " --topo " + topo("dgx-h100") + " -g 4 --algo ring --proto ll" + " --size 1000 --json";
    const nlohmann::json e = json_of("explain coll all_gather" + flags);
    const nlohmann::json c = json_of("coll allgather" + flags);
    CHECK(e["ranks"] == 4);
    CHECK(e["size_bytes"] == c["results"][0]["size_bytes"]);
    CHECK(e["size_bytes"] == 992);
    CHECK(e["analytic"]["time_us"] == c["results"][0]["time_us"]);
    CHECK(e["analytic"]["protocol"] == "LL");
  }

  TEST_CASE("explain cli: explain plan prints plan's step time") {
    const std::string flags = " --topo " + topo("dgx-h100") +
                              " --model llama3.1-8b --mode train --tp 2 --pp 2 --dp 2 "
                              "--global-batch 16 --json";
    const nlohmann::json e = json_of("explain plan" + flags);
    const nlohmann::json p = json_of("plan" + flags);
    CHECK(e["step_time_s"] == p["step_time_s"]);
    CHECK(e["speedup"] == p["speedup"]);
  }

  TEST_CASE("explain cli: the text walks through the derivation and says it plainly") {
    const testing::CliRun run = run_linksim("explain coll allreduce --topo " + topo("dgx-h100") +
                                            " --size 1G --algo ring --proto simple");
    REQUIRE(run.status == 0);
    CHECK(run.out.find("alpha = base + (steps - inter) x lat_intra + inter x lat_net") !=
          std::string::npos);
    CHECK(run.out.find("=> alpha = 56 us") != std::string::npos);  // 8.4 + 14 x 3.4
    CHECK(run.out.find("busbw = algbw x factor, factor = 2(n-1)/n") != std::string::npos);
    const size_t factor_line = run.out.find("nccl-tests doc/PERFORMANCE.md");
    REQUIRE(factor_line != std::string::npos);
    const size_t line_start = run.out.rfind('\n', factor_line);
    CHECK(run.out.substr(line_start, factor_line - line_start).find("factor") != std::string::npos);
    CHECK(run.out.substr(line_start, factor_line - line_start).find(" 1.75 ") != std::string::npos);
    CHECK(run.out.find("In plain words") != std::string::npos);
    CHECK(run.out.find("The flow simulation takes") != std::string::npos);
    const testing::CliRun plan = run_linksim("explain plan --topo " + topo("dgx-h100") +
                                             " --model llama3.1-70b --mode decode --tp 8");
    REQUIRE(plan.status == 0);
    CHECK(plan.out.find("Exposed communication is") != std::string::npos);
    CHECK(plan.out.find("step = compute + exposed + bubble + engine") != std::string::npos);
  }

  TEST_CASE("explain cli: bad requests exit 2 with one exact line") {
    struct Case {
      std::string args, error;
    };
    const Case cases[] = {
        {"explain coll allreduce --topo " + topo("dgx-h100"),
         "linksim: error: --size: expected one message size such as 8, 64K, 1M or 1G, none given"},
        {"explain coll allreduc --topo " + topo("dgx-h100") + " --size 1G",
         "linksim: error: OP: expected one of allreduce, allgather, reducescatter, broadcast, "
         "reduce, alltoall, sendrecv, got \"allreduc\""},
        {"explain coll allreduce --topo " + topo("dgx-h100") + " --size 1Q",
         "linksim: error: --size: expected a size such as 8, 64K, 1M or 8G, got \"1Q\""},
        {"explain coll allreduce --topo " + topo("dgx-h100") + " --topo " + topo("pcie-8gpu") +
             " --size 1G",
         "linksim: error: --topo: expected one topology, got 2"},
        {"explain coll allreduce --topo " + topo("pcie-8gpu") + " --algo nvls --size 1M",
         "linksim: error: algorithm 'nvls' is not available for allreduce on these 8 GPUs; "
         "expected one of: auto, ring"},
        {"explain plan --topo " + topo("dgx-h100") + " --model llama3.1-8b --mode train --search",
         "linksim: error: --search: expected one plan to explain; run `linksim plan --search` "
         "for the table"},
        {"explain plan --topo " + topo("dgx-h100") + " --model llama3.1-8b --mode infer",
         "linksim: error: --mode: expected one of train, prefill, decode, got \"infer\""},
    };
    for (const Case& c : cases) {
      CAPTURE(c.args);
      const testing::CliRun run = run_linksim(c.args);
      CHECK(run.status == 2);
      CHECK(first_line(run.err) == c.error);
      CHECK(run.out.empty());
    }
  }
}

}  // namespace linksim
