// SPDX-License-Identifier: Apache-2.0
// Time of one GEMM on one GPU by its shape (M x N x K), element sizes and the GPU's generation:
// the best-shaped GEMM's fraction of peak (the MAMF ceiling) lowered by tile and wave
// quantization, split-K, the memory roofline and the exposed pipeline fill and drain of the
// K loop (docs/planner.md#compute). The published measurements it reproduces are in
// data/gemm/gemm_measurements.yaml.
#pragma once

#include <string_view>

namespace linksim::plan_detail {

/// Output tile of one thread block, elements: 128 x 256 x 64 (M x N x K block), CUTLASS's
/// default Hopper and Ampere tensor-core tile for 16-bit inputs (docs/planner.md#compute).
inline constexpr double kGemmTileM = 128;
inline constexpr double kGemmTileN = 256;
inline constexpr double kGemmTileK = 64;
/// Below kGemmTileM rows the library runs a tile of the rows rounded up to this many: the
/// 16-row granularity of the tensor cores' smallest BF16 MMA (PTX mma.m16n8k16).
inline constexpr double kGemmRowStep = 16;
/// Split-K (stream-K) gives each split at least this many K elements.
inline constexpr double kGemmMinSplitK = 512;

/// Fraction of the dense tensor peak that the best-shaped large GEMM reaches inside a step of
/// a published run on a GPU generation ("hopper", "blackwell", "ampere", "ada", "volta",
/// "turing"; others as Hopper): the planner's default ceiling (docs/planner.md#gemms-by-shape).
double gemm_ceiling(std::string_view arch, bool fp8);
/// The same for one GEMM alone: the Maximum Achievable Matmul FLOPS over the datasheet peak
/// (ml-engineering's MAMF table); 0 where no measurement is published.
double mamf_ceiling(std::string_view arch, bool fp8);

/// What the GEMM model needs of a GPU and a compute format.
struct GemmDevice {
  double peak_flops = 0;  ///< dense tensor FLOP/s of the format
  double ceiling = 0;     ///< fraction of peak_flops the best-shaped GEMM reaches
  int multiprocessors = 1;
  double memory_Bps = 0;  ///< bandwidth a streaming kernel reaches (datasheet x efficiency), B/s
};

/// One GEMM (m x k) x (k x n) -> (m x n), its time and how it was reached.
struct GemmTiming {
  double time_s = 0;     ///< busy time: max(compute_s, memory_s) + edge_s
  double compute_s = 0;  ///< waves x one tile's K loop at the ceiling's per-SM rate
  double memory_s = 0;   ///< every operand read and the output written once, at memory_Bps
  double edge_s = 0;     ///< the first K block loaded and the output tile stored, not overlapped
  double tile_m = 0;     ///< rows of a tile: 128, or m rounded up to 16 when m is smaller
  double tiles = 0;      ///< output tiles: ceil(m / tile_m) x ceil(n / 256)
  double split_k = 1;    ///< K splits per tile
  double waves = 0;      ///< ceil(tiles x split_k / SMs)
  double achieved = 0;   ///< 2 m n k / (peak x time_s), fraction of the dense peak
  bool memory_bound = false;
};

/// Times one GEMM whose A operand and output take `act_bytes` per element and whose B
/// operand takes `weight_bytes`. m, n, k > 0; a zero dimension gives a zero timing.
GemmTiming time_gemm(double m, double n, double k, double act_bytes, double weight_bytes,
                     const GemmDevice& device);

}  // namespace linksim::plan_detail
