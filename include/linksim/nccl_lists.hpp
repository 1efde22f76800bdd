// SPDX-License-Identifier: Apache-2.0
// NCCL_ALGO and NCCL_PROTO as NCCL reads them: which algorithms and protocols its tuner may
// choose, per collective (docs/model.md#tuner-lists).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace linksim {

enum class CollectiveOp;
enum class Algorithm;
enum class Protocol;

/// The pairs NCCL_ALGO and NCCL_PROTO leave to NCCL's tuner, for the five collectives whose
/// algorithm it chooses (Broadcast, Reduce, AllGather, ReduceScatter, AllReduce; AllToAll and
/// SendRecv have none to choose). Default: every one. The syntax is NCCL's (src/graph/tuning.cc
/// parseList, 2.24 and later; a plain list is the whole of the older syntax): a comma list,
/// `^` to name what is left out, and `;`-separated `collective:` prefixes after the first
/// entry: "Ring,Tree", "^LL128", "^NVLS;allreduce:Tree", names matched without regard to case.
/// CollNetDirect, CollNetChain and PAT are NCCL's names too and are accepted; linksim models
/// none of them, so a list that leaves a collective only those is an error where it is used.
class NcclLists {
 public:
  /// Applies an NCCL_ALGO value over the current state, as NCCL does over its defaults.
  /// Throws ConfigError (no position; callers name the flag or the file) on a malformed list,
  /// an unknown algorithm or an unknown collective prefix.
  void apply_algo(std::string_view text);
  /// The same for NCCL_PROTO (LL, LL128, Simple).
  void apply_proto(std::string_view text);

  /// Whether the tuner may choose `algorithm` / `protocol` for `op`; always true for AllToAll
  /// and SendRecv, and for Algorithm::kAuto / kDirect and Protocol::kAuto.
  bool allows(CollectiveOp op, Algorithm algorithm) const;
  bool allows(CollectiveOp op, Protocol protocol) const;

  /// What restricts `op`, in words ("NCCL_ALGO=Ring,Tree"), or "" when nothing does.
  std::string restriction(CollectiveOp op) const;

 private:
  static constexpr int kFunctions = 5;   // NCCL's ncclFuncStr
  static constexpr int kAlgorithms = 7;  // NCCL's ncclAlgoStr
  static constexpr int kProtocols = 3;   // NCCL's ncclProtoStr
  std::array<std::array<bool, kAlgorithms>, kFunctions> algorithms_ = all_on<kAlgorithms>();
  std::array<std::array<bool, kProtocols>, kFunctions> protocols_ = all_on<kProtocols>();
  std::string algo_text_;   // the values applied, as given, for messages
  std::string proto_text_;

  template <int N>
  static constexpr std::array<std::array<bool, N>, kFunctions> all_on() {
    std::array<std::array<bool, N>, kFunctions> out{};
    for (auto& row : out) row.fill(true);
    return out;
  }
};

/// A front end's algorithm value (--algo, algo=): one of parse_algorithm's names forces that
/// algorithm and is returned; a text with NCCL's list syntax (`,` `^` `;` `:`) is applied to
/// `lists` and kAuto returned. Throws ConfigError naming what it expected (no field: callers
/// name their flag or keyword).
Algorithm algorithm_or_list(std::string_view text, NcclLists& lists);
/// The same for a protocol value (--proto, proto=).
Protocol protocol_or_list(std::string_view text, NcclLists& lists);

}  // namespace linksim
