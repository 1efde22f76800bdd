// SPDX-License-Identifier: Apache-2.0
#include "plan/sharded_overheads.hpp"

namespace linksim::plan_detail {

double copy_out_bytes(double gathered_bytes) { return 2 * gathered_bytes; }

double flat_grad_copy_bytes(double grad_bytes) { return 2 * grad_bytes; }

double sm_share_s(double hidden_s, int channels, int multiprocessors) {
  if (channels <= 0 || multiprocessors <= channels || hidden_s <= 0) return 0;
  return hidden_s * double(channels) / multiprocessors;
}

}  // namespace linksim::plan_detail
