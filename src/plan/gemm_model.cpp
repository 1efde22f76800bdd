// SPDX-License-Identifier: Apache-2.0
#include "plan/gemm_model.hpp"

#include <algorithm>
#include <cmath>

namespace linksim::plan_detail {
namespace {

/// Per generation: the Maximum Achievable Matmul FLOPS over the datasheet dense peak, from
/// the ml-engineering MAMF comparison table (compute/accelerator/README.md), BF16 and FP8 rows
/// (data/gemm/gemm_measurements.yaml holds the rows; tests/plan/gemm_model_test.cpp checks
/// these ratios against them), and the ceiling of a GEMM inside a published step, the
/// planner's per-generation default (docs/planner.md#gemms-by-shape).
struct Ceiling {
  std::string_view arch;
  double mamf_bf16;  ///< MAMF / peak, BF16 (FP16 where the GPU has no BF16); 0 = not published
  double mamf_fp8;   ///< MAMF / peak, FP8; 0 = not published or no FP8
  double step_bf16;  ///< in a step, BF16
  double step_fp8;   ///< in a step, FP8; 0 where the generation has no FP8
};
constexpr Ceiling kCeilings[] = {
    {"hopper", 794.5 / 989, 1402.6 / 1979, 0.72, 0.60},       // H100 SXM
    {"blackwell", 1745.0 / 2250, 3432.5 / 4500, 0.72, 0.60},  // B200 SXM
    {"ampere", 271.2 / 312, 0, 0.78, 0},                      // A100 SXM
    {"ada", 0, 0, 0.72, 0.60},
    {"volta", 0, 0, 0.80, 0},
    {"turing", 0, 0, 0.80, 0},
};

const Ceiling& ceiling_of(std::string_view arch) {
  for (const Ceiling& g : kCeilings) {
    if (g.arch == arch) return g;
  }
  return kCeilings[0];
}

}  // namespace

double gemm_ceiling(std::string_view arch, bool fp8) {
  const Ceiling& c = ceiling_of(arch);
  return fp8 && c.step_fp8 > 0 ? c.step_fp8 : c.step_bf16;
}

double mamf_ceiling(std::string_view arch, bool fp8) {
  const Ceiling& c = ceiling_of(arch);
  return fp8 ? c.mamf_fp8 : c.mamf_bf16;
}

GemmTiming time_gemm(double m, double n, double k, double act_bytes, double weight_bytes,
                     const GemmDevice& d) {
  GemmTiming t;
  if (m <= 0 || n <= 0 || k <= 0) return t;
  const double sms = std::max(1, d.multiprocessors);
  // Tile quantization: every tile computes a full tile_m x 256 block, padding included; a
  // GEMM of fewer rows than a tile runs a tile of its rows rounded up to the MMA's 16. Wave
  // quantization: the tiles run on the SMs in whole waves. A GEMM with fewer tiles than SMs
  // and a long K is split along K (split-K / stream-K) to fill the machine.
  t.tile_m = m < kGemmTileM ? std::ceil(m / kGemmRowStep) * kGemmRowStep : kGemmTileM;
  t.tiles = std::ceil(m / t.tile_m) * std::ceil(n / kGemmTileN);
  t.split_k = t.tiles < sms ? std::clamp(std::floor(sms / t.tiles), 1.0,
                                         std::max(1.0, std::floor(k / kGemmMinSplitK)))
                            : 1.0;
  const double units = t.tiles * t.split_k;
  t.waves = std::ceil(units / sms);
  const double k_unit = k / t.split_k;
  const double sm_flops = d.peak_flops * d.ceiling / sms;
  t.compute_s = t.waves * 2 * t.tile_m * kGemmTileN * k_unit / sm_flops;
  t.memory_s = ((m * k + m * n) * act_bytes + k * n * weight_bytes) / d.memory_Bps;
  // The K loop's pipeline fill and drain: the first wave waits for its first K block before
  // any tensor-core work, the last wave stores its output tiles after its last one, each SM
  // of the wave sharing the memory bandwidth. Only real rows and columns are moved.
  const double rows = std::min(m, t.tile_m), cols = std::min(n, kGemmTileN);
  const double k_block = std::min(kGemmTileK, k_unit);
  const double first_wave = std::min(units, sms);
  const double last_wave = units - (t.waves - 1) * sms;
  const double load_bytes = first_wave * k_block * (rows * act_bytes + cols * weight_bytes);
  const double store_bytes = last_wave * rows * cols * act_bytes;
  t.edge_s = (load_bytes + store_bytes) / d.memory_Bps;
  t.memory_bound = t.memory_s > t.compute_s;
  t.time_s = std::max(t.compute_s, t.memory_s) + t.edge_s;
  t.achieved = 2 * m * n * k / (d.peak_flops * t.time_s);
  return t;
}

}  // namespace linksim::plan_detail
