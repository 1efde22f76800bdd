// SPDX-License-Identifier: Apache-2.0
// The built-in catalogs (data/catalog/*.yaml) and the catalog parser's errors.
#include <doctest/doctest.h>

#include <limits>
#include <map>
#include <set>
#include <string>

#include "linksim/catalog.hpp"
#include "linksim/error.hpp"
#include "linksim/units.hpp"

using doctest::Approx;
using linksim::Catalog;
using linksim::ConfigError;
using linksim::LinkFamily;

namespace {

// The smallest valid pair of catalogs; tests break one line at a time.
constexpr const char* kLinks = R"(link_types:
  - key: nvlink4
    family: nvlink
    description: NVLink 4
    lanes_key: lanes
    lane_bw: 25 GB/s
    latency: 100 ns
    nvlink_gen: 4
    source: test
)";

constexpr const char* kGpus = R"(gpus:
  - key: h100-sxm
    aliases: [h100]
    name: H100
    arch: hopper
    sm: 90
    multiprocessors: 132
    nvlink_type: nvlink4
    nvlink_lanes: 18
    pcie_gen: 5
    bf16: 989.4 TFLOP/s
    memory: 80 GiB
    memory_bw: 3350 GB/s
    source: test
)";

constexpr const char* kPlatforms = R"(platforms:
  - key: generic
    name: Unknown
    vendor: unknown
    arch: x86
    host_staging_bw: 4.0 GB/s
    host_staging_cross_socket_bw: 1.44 GB/s
    source: test
  - key: amd-zen2
    aliases: [rome]
    name: EPYC Rome
    vendor: amd
    arch: x86
    nccl_smp_bw: 16 GB/s
    memory_bw: 204.8 GB/s
    source: test
)";

Catalog parse_platforms(const std::string& platforms) {
  return Catalog::parse(kGpus, "gpus.yaml", kLinks, "links.yaml", platforms, "platforms.yaml");
}

Catalog parse_gpus(const std::string& gpus) {
  return Catalog::parse(gpus, "gpus.yaml", kLinks, "links.yaml");
}

Catalog parse_links(const std::string& links) {
  return Catalog::parse(kGpus, "gpus.yaml", links, "links.yaml");
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_SUITE("catalog") {

TEST_CASE("builtin: every contract gpu key is present with sane values") {
  const Catalog& catalog = Catalog::builtin();
  const std::set<std::string> archs = {"volta", "turing", "ampere", "ada", "hopper", "blackwell"};
  for (const char* key : {"v100-sxm", "a100-sxm-40g", "a100-sxm-80g", "a100-pcie", "h100-sxm",
                          "h100-pcie", "h200", "b200", "gb200", "l40s", "a40", "rtx-a6000",
                          "rtx2080ti", "rtx3090", "rtx4090", "rtx5090"}) {
    CAPTURE(key);
    const linksim::GpuModel* gpu = catalog.find_gpu(key);
    REQUIRE(gpu != nullptr);
    CHECK(gpu->key == key);
    CHECK(archs.count(gpu->arch) == 1);
    CHECK(gpu->sm >= 70);
    CHECK(gpu->bf16_flops > 1e13);
    CHECK(gpu->memory_bytes >= 11 * linksim::kGiB);
    CHECK(gpu->memory_bw_Bps > 5e11);
    CHECK(gpu->pcie_gen >= 3);
    CHECK_FALSE(gpu->source.empty());
    if (!gpu->nvlink_type.empty()) {
      CHECK(gpu->nvlink_lanes > 0);
      REQUIRE(catalog.find_link_type(gpu->nvlink_type) != nullptr);
      CHECK(catalog.find_link_type(gpu->nvlink_type)->family == LinkFamily::kNvlink);
    }
  }
}

TEST_CASE("builtin: aliases and reference names resolve, case-insensitively") {
  const Catalog& catalog = Catalog::builtin();
  auto key_of = [&](const char* name) {
    const linksim::GpuModel* gpu = catalog.find_gpu(name);
    return gpu ? gpu->key : std::string("<none>");
  };
  CHECK(key_of("a100") == "a100-sxm-80g");
  CHECK(key_of("a100-sxm") == "a100-sxm-80g");
  CHECK(key_of("A100_SXM4_80GB") == "a100-sxm-80g");
  CHECK(key_of("A100_SXM4_40GB") == "a100-sxm-40g");
  CHECK(key_of("a100-pcie-80g") == "a100-pcie");
  CHECK(key_of("h100") == "h100-sxm");
  CHECK(key_of("h100-sxm5") == "h100-sxm");
  CHECK(key_of("H100_SXM5") == "h100-sxm");
  CHECK(key_of("H100-SXM") == "h100-sxm");
  CHECK(key_of("a6000") == "rtx-a6000");
  CHECK(key_of("RTX_4090") == "rtx4090");
  CHECK(key_of("RTX_3090") == "rtx3090");
  CHECK(key_of("V100_SXM2") == "v100-sxm");
  CHECK(key_of("H200_SXM") == "h200");
  CHECK(key_of("h100-sxn") == "<none>");
}

TEST_CASE("builtin: interconnect facts of representative gpus") {
  const Catalog& catalog = Catalog::builtin();
  const linksim::GpuModel& h100 = *catalog.find_gpu("h100-sxm");
  const linksim::LinkType& nvlink4 = *catalog.find_link_type(h100.nvlink_type);
  // 18 links x 25 GB/s = 450 GB/s per direction (https://glennklockwood.com/garden/NVLink).
  CHECK(h100.nvlink_lanes * nvlink4.lane_bw_Bps == Approx(450e9));
  CHECK(h100.memory_bytes == 80 * linksim::kGiB);
  CHECK(h100.bf16_flops == Approx(989.4e12));
  CHECK(h100.fp8_flops == Approx(1978.9e12));
  // GA102 bridge: 4 links x 14.0625 GB/s = 56.25 GB/s per direction.
  const linksim::GpuModel& a40 = *catalog.find_gpu("a40");
  CHECK(a40.nvlink_lanes * a40.nvlink_lane_bw_Bps == Approx(56.25e9));
  CHECK(catalog.find_gpu("rtx3090")->nvlink_lane_bw_Bps == Approx(14.0625e9));
  CHECK(catalog.find_gpu("v100-sxm")->fp8_flops == 0);
  CHECK_FALSE(catalog.find_gpu("rtx4090")->p2p);
  CHECK_FALSE(catalog.find_gpu("rtx5090")->p2p);
  CHECK_FALSE(catalog.find_gpu("rtx2080ti")->p2p);
  CHECK(catalog.find_gpu("rtx3090")->p2p);
  CHECK(catalog.find_gpu("l40s")->p2p);
  CHECK(catalog.find_gpu("rtx4090")->nvlink_type.empty());
  CHECK(catalog.find_gpu("rtx2080ti")->nvlink_type == "nvlink2");
  CHECK(catalog.find_gpu("rtx2080ti")->sm == 75);
  CHECK(catalog.find_gpu("b200")->nvlink_type == "nvlink5");
}

TEST_CASE("builtin: every contract link type is present with its family and rate") {
  const Catalog& catalog = Catalog::builtin();
  struct Expected {
    const char* key;
    LinkFamily family;
    double lane_bw_Bps;
    const char* lanes_key;
  };
  // NVLink per link per direction; PCIe per lane = x16 raw rate / 16 (15.75, 31.5, 63, 121
  // GB/s per x16); network line rate / 8; upi = 3 x 20.8 GB/s; xgmi = 3 x 16 x 18 Gb/s / 8.
  const Expected expected[] = {
      {"nvlink1", LinkFamily::kNvlink, 20e9, "lanes"},
      {"nvlink2", LinkFamily::kNvlink, 25e9, "lanes"},
      {"nvlink3", LinkFamily::kNvlink, 25e9, "lanes"},
      {"nvlink4", LinkFamily::kNvlink, 25e9, "lanes"},
      {"nvlink5", LinkFamily::kNvlink, 50e9, "lanes"},
      {"pcie3", LinkFamily::kPcie, 15.75e9 / 16, "width"},
      {"pcie4", LinkFamily::kPcie, 31.5e9 / 16, "width"},
      {"pcie5", LinkFamily::kPcie, 63e9 / 16, "width"},
      {"pcie6", LinkFamily::kPcie, 121e9 / 16, "width"},
      {"ib_edr", LinkFamily::kNetwork, 12.5e9, ""},
      {"ib_hdr", LinkFamily::kNetwork, 25e9, ""},
      {"ib_ndr", LinkFamily::kNetwork, 50e9, ""},
      {"ib_xdr", LinkFamily::kNetwork, 100e9, ""},
      {"roce_100", LinkFamily::kNetwork, 12.5e9, ""},
      {"roce_200", LinkFamily::kNetwork, 25e9, ""},
      {"roce_400", LinkFamily::kNetwork, 50e9, ""},
      {"roce_800", LinkFamily::kNetwork, 100e9, ""},
      {"upi", LinkFamily::kSmp, 62.4e9, ""},
      {"xgmi", LinkFamily::kSmp, 108e9, ""},
      {"nvlink_c2c", LinkFamily::kC2c, 450e9, ""},
  };
  for (const Expected& e : expected) {
    CAPTURE(e.key);
    const linksim::LinkType* type = catalog.find_link_type(e.key);
    REQUIRE(type != nullptr);
    CHECK(type->family == e.family);
    CHECK(type->lane_bw_Bps == Approx(e.lane_bw_Bps));
    CHECK(type->lanes_key == e.lanes_key);
    CHECK(type->latency_s > 0);
    CHECK(type->latency_s < 1e-6);
    CHECK_FALSE(type->source.empty());
  }
  CHECK(catalog.find_link_type("pcie4")->default_lanes == 16);
  CHECK(catalog.find_link_type("pcie4")->pcie_gen == 4);
  CHECK(catalog.find_link_type("nvlink4")->default_lanes == 1);
  CHECK(catalog.find_link_type("nvlink4")->nvlink_gen == 4);
  CHECK(catalog.find_link_type("PCIE5") == catalog.find_link_type("pcie5"));
  CHECK(catalog.find_link_type("pcie7") == nullptr);
  CHECK(catalog.link_type_keys().size() == catalog.link_types().size());
  CHECK(to_string(LinkFamily::kSmp) == "smp");
}

TEST_CASE("parse: a minimal catalog") {
  Catalog catalog = parse_gpus(kGpus);
  REQUIRE(catalog.gpus().size() == 1);
  CHECK(catalog.gpu_keys() == std::vector<std::string>{"h100-sxm"});
  CHECK(catalog.gpus()[0].p2p);                 // default
  CHECK(catalog.gpus()[0].fp8_flops == 0);      // absent = unsupported
  CHECK(catalog.link_types()[0].latency_s == Approx(100e-9));
}

TEST_CASE("parse: errors are positioned, expected-vs-got") {
  CHECK_THROWS_WITH_AS(parse_links(replace(kLinks, "25 GB/s", "25 GBs")),
                       "links.yaml:6:14: error: expected a bandwidth such as \"450 GB/s\" or "
                       "\"400 Gb/s\", got \"25 GBs\"",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_links(replace(kLinks, "100 ns", "100")),
                       "links.yaml:7:14: error: expected a duration such as \"1.2 us\" or "
                       "\"150 ns\", got \"100\"",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_links(replace(kLinks, "lane_bw:", "lane_bww:")),
                       "links.yaml:6:5: error: unknown key 'lane_bww' in link type 'nvlink4'; "
                       "did you mean 'lane_bw'?",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_links(replace(kLinks, "family: nvlink", "family: nvlnk")),
                       "links.yaml:3:13: error: unknown link family 'nvlnk'; expected one of: "
                       "nvlink, pcie, smp, c2c, network",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus(replace(kGpus, "    sm: 90\n", "")),
                       "gpus.yaml:2:5: error: missing required key 'sm' in gpu 'h100-sxm'",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus(replace(kGpus, "sm: 90", "sm: ninety")),
                       "gpus.yaml:6:9: error: expected a non-negative integer for 'sm', got "
                       "'ninety'",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus(replace(kGpus, "80 GiB", "80 GiBs")),
                       "gpus.yaml:12:13: error: expected a size such as \"80 GB\", \"64K\" or "
                       "\"1 GiB\", got \"80 GiBs\"",
                       ConfigError);
}

TEST_CASE("parse: a key written twice in one entry is refused at the second") {
  // Two gpu entries merged by a lost "- " would otherwise keep the first value silently.
  CHECK_THROWS_WITH_AS(parse_gpus(replace(kGpus, "    sm: 90\n", "    sm: 90\n    sm: 80\n")),
                       "gpus.yaml:7:5: error: duplicate key 'sm' in one mapping", ConfigError);
  CHECK_THROWS_WITH_AS(parse_links(std::string(kLinks) + "link_types:\n"),
                       "links.yaml:10:1: error: duplicate key 'link_types' in one mapping",
                       ConfigError);
}

TEST_CASE("parse: references, names and structure") {
  CHECK_THROWS_WITH_AS(parse_gpus(replace(kGpus, "nvlink_type: nvlink4", "nvlink_type: nvlink9")),
                       "gpus.yaml:8:18: error: expected an nvlink link type for 'nvlink_type', "
                       "got 'nvlink9'",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus(replace(kGpus, "arch: hopper", "arch: hoper")),
                       "gpus.yaml:5:11: error: unknown architecture 'hoper'; expected one of: "
                       "volta, turing, ampere, ada, hopper, blackwell",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus(replace(kGpus, "aliases: [h100]", "aliases: [H100-SXM]")),
                       "gpus.yaml:3:15: error: duplicate catalog name 'H100-SXM'",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus(std::string(kGpus) + "    p2p: yes\n"),
                       "gpus.yaml:15:10: error: expected true or false for 'p2p', got 'yes'",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus(std::string(kGpus) + "    boost_clock_mhz: 0\n"),
                       "gpus.yaml:15:22: error: expected 'boost_clock_mhz' > 0 (MHz), got 0",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus("gpu:\n  - key: x\n"),
                       "gpus.yaml:1:1: error: unknown key 'gpu' in the catalog; expected 'gpus'",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus("gpus:\n  key: x\n"),
                       "gpus.yaml:2:3: error: expected a sequence for 'gpus', got a mapping",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus("gpus:\n  - h100\n"),
                       "gpus.yaml:2:5: error: expected a mapping for gpus[0], got a scalar",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus(replace(kGpus, "key: h100-sxm", "keys: h100-sxm")),
                       "gpus.yaml:2:5: error: unknown key 'keys' in gpus[0]; did you mean 'key'?",
                       ConfigError);
  // A syntax error: yaml-cpp's own message, at its 0-based mark plus 1.
  CHECK_THROWS_WITH_AS(parse_gpus("gpus: [\n"),
                       "gpus.yaml:2:1: error: end of sequence flow not found", ConfigError);
  CHECK_THROWS_WITH_AS(parse_gpus("- 1\n"),
                       "gpus.yaml:1:1: error: expected a mapping with key 'gpus', got a sequence",
                       ConfigError);
}

TEST_CASE("gpus: every boost clock gives the datasheet FP32 rate") {
  // SMs x boost clock x FP32 lanes per SM x 2 (an FMA) against each datasheet's FP32 TFLOP/s:
  // 64 lanes per SM on Volta, Turing and GA100, 128 on GA10x, Ada, Hopper and Blackwell (CUDA
  // C++ Programming Guide, arithmetic instruction throughput). Sources in docs/catalog.md.
  const std::map<std::string, double> datasheet_tflops = {
      {"v100-sxm", 15.7},   {"a100-sxm-40g", 19.5}, {"a100-sxm-80g", 19.5},
      {"a100-pcie", 19.5},  {"a100-pcie-40g", 19.5}, {"h100-sxm", 67},
      {"h100-sxm-96g-hbm2e", 67}, {"h100-pcie", 51}, {"h200", 67}, {"gh200", 67},
      {"b200", 75},         {"gb200", 80},          {"l40s", 91.6},
      {"l4", 30.3},         {"a40", 37.4},          {"rtx-a6000", 38.7},
      {"rtx2080ti", 13.4},  {"rtx3090", 35.6},      {"rtx4090", 82.6},
      {"rtx5090", 104.8},   {"gb10", 31.0}};
  for (const linksim::GpuModel& gpu : Catalog::builtin().gpus()) {
    CAPTURE(gpu.key);
    REQUIRE(datasheet_tflops.count(gpu.key) == 1);
    REQUIRE(gpu.boost_clock_hz > 0);
    const bool lanes_64 = gpu.arch == "volta" || gpu.arch == "turing" || gpu.sm == 80;
    const double fp32 = gpu.multiprocessors * gpu.boost_clock_hz * (lanes_64 ? 64 : 128) * 2;
    CHECK(fp32 / 1e12 == doctest::Approx(datasheet_tflops.at(gpu.key)).epsilon(0.01));
  }
}

TEST_CASE("platforms: the built-in entries, aliases and the default") {
  const Catalog& c = Catalog::builtin();
  const linksim::HostPlatform& generic = c.default_platform();
  CHECK(generic.key == "generic");
  CHECK(generic.vendor == linksim::CpuVendor::kUnknown);
  // No measured staged rate: a rate measured on one host is not lent to unknown ones.
  CHECK(generic.host_staging_Bps == 0);
  CHECK(generic.host_staging_cross_socket_Bps == 0);
  // NCCL's LOC_BW: no bound on the socket link of an unknown CPU.
  CHECK(generic.nccl_smp_bw_Bps == std::numeric_limits<double>::infinity());
  const linksim::HostPlatform* spr = c.find_platform("Sapphire-Rapids");
  REQUIRE(spr != nullptr);
  CHECK(spr->key == "intel-sapphire-rapids");
  CHECK(spr->vendor == linksim::CpuVendor::kIntel);
  CHECK(spr->nccl_smp_bw_Bps == Approx(22e9));  // topo.h SRP_QPI_BW
  // 8 channels of DDR5-4800 x 8 bytes.
  CHECK(spr->memory_bw_Bps == Approx(8 * 4800e6 * 8));
  // No measurement of its own, and none inherited: the model's terms alone bound it.
  CHECK(spr->host_staging_Bps == 0);
  const linksim::HostPlatform* icx = c.find_platform("ice-lake");
  REQUIRE(icx != nullptr);
  CHECK(icx->key == "intel-ice-lake");
  CHECK(icx->nccl_smp_bw_Bps == Approx(10e9));     // topo.cc counts it as Skylake
  CHECK(icx->memory_bw_Bps == Approx(8 * 3200e6 * 8));
  CHECK(c.find_platform("cascade-lake")->memory_bw_Bps == Approx(140.8e9));  // 6 x DDR4-2933
  CHECK(c.find_platform("genoa")->memory_bw_Bps == Approx(12 * 4800e6 * 8));
  // The default platform gives no memory figure: no bound.
  CHECK(generic.memory_bw_Bps == std::numeric_limits<double>::infinity());
  const linksim::HostPlatform* grace = c.find_platform("grace");
  REQUIRE(grace != nullptr);
  CHECK(grace->arch == linksim::CpuArch::kArm);
  CHECK(c.find_platform("epyc-rome")->key == "amd-zen2");
  CHECK(c.find_platform("pentium") == nullptr);
}

TEST_CASE("platforms: parse keeps measured rates to their entry and rejects bad entries") {
  const Catalog c = parse_platforms(kPlatforms);
  CHECK(c.find_platform("rome")->host_staging_cross_socket_Bps == 0);
  CHECK(c.find_platform("rome")->memory_bw_Bps == Approx(204.8e9));
  CHECK(c.find_platform("rome")->nccl_smp_bw_Bps == Approx(16e9));
  CHECK_THROWS_WITH_AS(parse_platforms(replace(kPlatforms, "vendor: amd", "vendor: amdd")),
                       "platforms.yaml:12:13: error: unknown vendor 'amdd'; expected one of: "
                       "unknown, intel, amd, zhaoxin, nvidia",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_platforms(replace(kPlatforms, "16 GB/s", "16")),
                       "platforms.yaml:14:18: error: expected a bandwidth such as \"450 GB/s\" or "
                       "\"400 Gb/s\", got \"16\"",
                       ConfigError);
  // The default entry may carry measured rates, and need not.
  CHECK(c.default_platform().host_staging_Bps == Approx(4.0e9));
  CHECK(c.default_platform().host_staging_cross_socket_Bps == Approx(1.44e9));
  const Catalog unmeasured = parse_platforms(replace(
      replace(kPlatforms, "    host_staging_bw: 4.0 GB/s\n", ""),
      "    host_staging_cross_socket_bw: 1.44 GB/s\n", ""));
  CHECK(unmeasured.default_platform().host_staging_Bps == 0);
  CHECK(unmeasured.default_platform().host_staging_cross_socket_Bps == 0);
  CHECK_THROWS_WITH_AS(parse_platforms(replace(kPlatforms, "204.8 GB/s", "fast")),
                       "platforms.yaml:15:16: error: expected a bandwidth such as \"450 GB/s\" or "
                       "\"400 Gb/s\", got \"fast\"",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_platforms(replace(kPlatforms, "key: generic", "key: plain")),
                       "platforms.yaml:1:1: error: expected a platform with key 'generic' (the "
                       "default)",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse_platforms(replace(kPlatforms, "[rome]", "[generic]")),
                       "platforms.yaml:10:15: error: duplicate catalog name 'generic'",
                       ConfigError);
}

}  // TEST_SUITE
