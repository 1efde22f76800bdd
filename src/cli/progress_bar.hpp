// SPDX-License-Identifier: Apache-2.0
// A progress bar on stderr (cases done/total, rate, time left), drawn only when stderr is a
// terminal and the run has lasted more than a second, so CI logs and pipes stay quiet.
#pragma once

#include <chrono>

namespace linksim::cli {

class ProgressBar {
 public:
  ProgressBar();
  ~ProgressBar();
  /// Redraws at most every 100 ms. Not thread-safe: callers serialize.
  void update(int done, int total);

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace linksim::cli
