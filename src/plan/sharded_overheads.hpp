// SPDX-License-Identifier: Apache-2.0
// What block-by-block parameter sharding (ZeRO-3 / FSDP) costs the compute stream besides its
// collectives: FSDP2's copy-out of every gathered block, and the SMs NCCL's kernels hold while
// a collective hides under compute (docs/planner.md#fsdp-overheads).
#pragma once

namespace linksim::plan_detail {

/// FSDP2's all-gather copy-out (torch/distributed/_composable/fsdp/_fsdp_collectives.py,
/// foreach_all_gather_copy_out): the current (compute) stream waits for the all-gather, then
/// split_with_sizes_copy moves the gathered block from the all-gather buffer into the
/// per-parameter tensors, reading and writing every byte: 2 x `gathered_bytes` per gather.
double copy_out_bytes(double gathered_bytes);

/// FSDP1's flat-gradient copy (torch/distributed/fsdp/_flat_param.py, _get_unflat_views: the
/// parameters are torch.split views of the FlatParameter, whose backward concatenates their
/// gradients into one new flat gradient): 2 x `grad_bytes` per block and backward.
double flat_grad_copy_bytes(double grad_bytes);

/// Compute lost while a collective of `channels` channels runs for `hidden_s` under compute on
/// a GPU of `multiprocessors` SMs: NCCL launches one CTA per channel, each holding an SM for
/// the collective's duration, so the compute kernels run on N - c SMs and fall behind by
/// hidden_s x c / N. 0 when the channels are unknown or fill the GPU.
double sm_share_s(double hidden_s, int channels, int multiprocessors);

}  // namespace linksim::plan_detail
