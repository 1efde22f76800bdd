// SPDX-License-Identifier: Apache-2.0
// The GEMM model (src/plan/gemm_model.cpp): hand-derived shapes, tile and wave quantization,
// and the published measurements of data/gemm/gemm_measurements.yaml within stated
// tolerances (docs/planner.md#compute).
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "linksim/catalog.hpp"
#include "plan/gemm_model.hpp"

namespace linksim::plan_detail {
namespace {

const std::string kMeasurements =
    std::string(LINKSIM_SOURCE_DIR) + "/data/gemm/gemm_measurements.yaml";

/// A device whose SMs each run 5e12 FLOP/s at the ceiling and whose memory moves 2e12 B/s.
GemmDevice round_device() {
  GemmDevice d;
  d.peak_flops = 1.32e15;
  d.ceiling = 0.5;
  d.multiprocessors = 132;
  d.memory_Bps = 2e12;
  return d;
}

/// The catalog GPU's device for a format, at its generation's MAMF ceiling (one GEMM alone, as
/// the measurements ran) and the planner's streaming efficiency (0.85 of the datasheet
/// bandwidth, docs/planner.md#compute).
GemmDevice catalog_device(const std::string& key, const std::string& dtype) {
  const GpuModel* gpu = Catalog::builtin().find_gpu(key);
  REQUIRE_MESSAGE(gpu != nullptr, "catalog has no GPU " << key);
  const bool fp8 = dtype == "fp8";
  GemmDevice d;
  d.peak_flops = fp8 ? gpu->fp8_flops : gpu->bf16_flops;
  d.ceiling = mamf_ceiling(gpu->arch, fp8);
  REQUIRE(d.ceiling > 0);
  d.multiprocessors = gpu->multiprocessors;
  d.memory_Bps = 0.85 * gpu->memory_bw_Bps;
  return d;
}

double element_bytes(const std::string& dtype) { return dtype == "fp8" ? 1 : 2; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

TEST_SUITE("gemm model") {
  TEST_CASE("gemm model: one wave of split-K tiles, by hand") {
    // 1024 x 1024 x 2048: 8 x 4 = 32 tiles of 128 x 256; 132 SMs allow floor(132 / 32) = 4
    // splits and K allows 2048 / 512 = 4, so 128 units of K 512 in one wave.
    const GemmTiming t = time_gemm(1024, 1024, 2048, 2, 2, round_device());
    CHECK(t.tiles == 32);
    CHECK(t.split_k == 4);
    CHECK(t.waves == 1);
    // One unit: 2 x 128 x 256 x 512 FLOPs at 5e12 FLOP/s per SM.
    CHECK(t.compute_s == doctest::Approx(2.0 * 128 * 256 * 512 / 5e12).epsilon(1e-12));
    // Operands and output once: (1024 x 2048 + 1024 x 1024 + 2048 x 1024) x 2 B at 2e12 B/s.
    CHECK(t.memory_s == doctest::Approx(10485760.0 / 2e12).epsilon(1e-12));
    CHECK_FALSE(t.memory_bound);
    // Fill: 128 units load a 64-deep K block of a 128-row A tile and a 256-column B tile;
    // drain: the 128 units store their 128 x 256 tiles (split-K partials), all at 2e12 B/s.
    const double edge_bytes = 128.0 * 64 * (128 * 2 + 256 * 2) + 128.0 * 128 * 256 * 2;
    CHECK(t.edge_s == doctest::Approx(edge_bytes / 2e12).epsilon(1e-12));
    CHECK(t.time_s == doctest::Approx(t.compute_s + t.edge_s).epsilon(1e-12));
    CHECK(t.achieved == doctest::Approx(2.0 * 1024 * 1024 * 2048 / (1.32e15 * t.time_s)));
  }

  TEST_CASE("gemm model: wave quantization kept: one tile more than the SMs takes a second wave") {
    const GemmDevice d = round_device();
    const GemmTiming full = time_gemm(128 * 132, 256, 4096, 2, 2, d);
    const GemmTiming over = time_gemm(128 * 133, 256, 4096, 2, 2, d);
    CHECK(full.tiles == 132);
    CHECK(full.waves == 1);
    CHECK(over.tiles == 133);
    CHECK(over.waves == 2);
    // The second wave runs one tile but takes as long as the first.
    CHECK(over.compute_s == doctest::Approx(2 * full.compute_s).epsilon(1e-12));
  }

  TEST_CASE("gemm model: tile quantization: a row past a tile costs a whole tile") {
    const GemmDevice d = round_device();
    // 129 rows need two 128-row tiles, as 256 rows do: the same tensor-core time.
    CHECK(time_gemm(129, 256 * 132, 4096, 2, 2, d).compute_s ==
          doctest::Approx(time_gemm(256, 256 * 132, 4096, 2, 2, d).compute_s).epsilon(1e-12));
  }

  TEST_CASE("gemm model: one row is bound by reading the weights") {
    GemmDevice d = round_device();
    const GemmTiming t = time_gemm(1, 8192, 8192, 2, 2, d);
    CHECK(t.memory_bound);
    CHECK(t.memory_s == doctest::Approx((8192.0 + 8192 + 8192.0 * 8192) * 2 / 2e12));
    CHECK(t.time_s == doctest::Approx(t.memory_s + t.edge_s).epsilon(1e-12));
    CHECK(t.achieved < 0.01);
    CHECK(time_gemm(0, 8192, 8192, 2, 2, d).time_s == 0);
  }

  TEST_CASE("gemm model: the MAMF ceilings are the MAMF table's rows") {
    const YAML::Node doc = YAML::LoadFile(kMeasurements);
    int ceilings = 0;
    for (const YAML::Node& row : doc["mamf"]["rows"]) {
      if (!row["ceiling"]) continue;
      const std::string arch = row["ceiling"].as<std::string>();
      const bool fp8 = row["dtype"].as<std::string>() == "fp8";
      CAPTURE(arch);
      CAPTURE(fp8);
      const double mamf = row["tflops"].as<double>() / row["theory"].as<double>();
      CHECK(mamf_ceiling(arch, fp8) == doctest::Approx(mamf).epsilon(1e-12));
      ++ceilings;
    }
    CHECK(ceilings == 5);
  }

  TEST_CASE("gemm model: the MAMF best shapes within 8 %, Hopper FP8's beyond") {
    // At its best shape each GPU should reach about its generation's ceiling. The two Hopper
    // FP8 best shapes leave a partial last wave of 128 x 256 tiles (288 and 160 tiles on 132
    // SMs): the FP8 kernel behind them runs another tile, which the model does not choose, so
    // the model is slower there by the partial wave (the DeepGEMM sweep below holds Hopper FP8).
    const YAML::Node doc = YAML::LoadFile(kMeasurements);
    for (const YAML::Node& row : doc["mamf"]["rows"]) {
      const std::string gpu = row["gpu"].as<std::string>();
      const std::string dtype = row["dtype"].as<std::string>();
      CAPTURE(gpu);
      CAPTURE(dtype);
      const GemmDevice d = catalog_device(gpu, dtype);
      const double m = row["shape"][0].as<double>(), n = row["shape"][1].as<double>(),
                   k = row["shape"][2].as<double>();
      const double b = element_bytes(dtype);
      const double predicted_tflops = 2 * m * n * k / time_gemm(m, n, k, b, b, d).time_s / 1e12;
      const double ratio = row["tflops"].as<double>() / predicted_tflops;
      if (dtype == "fp8" && (gpu == "h100-sxm" || gpu == "h200")) {
        CHECK(ratio > 1.3);
        CHECK(ratio < 1.8);
      } else {
        CHECK(std::abs(ratio - 1) <= 0.08);
      }
    }
  }

  TEST_CASE("gemm model: the published sweeps within 50 % each, 20 % when long, median 12 %") {
    // Points under 10 us are left out: the measurements include a per-call cost the model
    // leaves to the planner's launch floor. Of the rest, those of 15 us and more with K of
    // 1024 or more are held to 20 %. Short-K points run many short K loops, whose fill and
    // drain the model counts once per GEMM; the worst, DeepGEMM's 4096 x 32768 x 512 (31
    // waves of 8 K blocks), is 44 % faster in the model than measured. The smallest split-K
    // shapes (256 x 512 x 4096) are about 40 % faster: the library runs them on other tiles.
    const YAML::Node doc = YAML::LoadFile(kMeasurements);
    std::vector<double> errors;
    int points = 0;
    for (const YAML::Node& sweep : doc["sweeps"]) {
      const std::string gpu = sweep["gpu"].as<std::string>();
      const std::string dtype = sweep["dtype"].as<std::string>();
      const GemmDevice d = catalog_device(gpu, dtype);
      const double b = element_bytes(dtype);
      for (const YAML::Node& p : sweep["points"]) {
        const double m = p[0].as<double>(), n = p[1].as<double>(), k = p[2].as<double>();
        const double measured_s = 2 * m * n * k / (p[3].as<double>() * 1e12);
        ++points;
        if (measured_s < 10e-6) continue;
        const double error = time_gemm(m, n, k, b, b, d).time_s / measured_s - 1;
        CAPTURE(dtype);
        CAPTURE(m);
        CAPTURE(n);
        CAPTURE(k);
        CHECK(std::abs(error) <= 0.5);
        if (measured_s >= 15e-6 && k >= 1024) CHECK(std::abs(error) <= 0.2);
        errors.push_back(std::abs(error));
      }
    }
    CHECK(points == 46);
    CHECK(errors.size() >= 25);
    CHECK(median(errors) <= 0.12);
  }
}

}  // namespace linksim::plan_detail
