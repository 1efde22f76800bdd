// SPDX-License-Identifier: Apache-2.0
// The stderr progress bar of `linksim run`.
#include "cli/progress_bar.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

#include <fmt/core.h>

namespace linksim::cli {
namespace {

constexpr auto kQuietFor = std::chrono::seconds(1);
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr int kBarWidth = 30;

std::string duration_text(double seconds) {
  if (seconds < 60) return fmt::format("{:.0f}s", seconds);
  if (seconds < 3600) {
    const int whole = static_cast<int>(seconds);
    return fmt::format("{}m{:02}s", whole / 60, whole % 60);
  }
  return fmt::format("{:.1f}h", seconds / 3600);
}

}  // namespace

ProgressBar::ProgressBar()
    : enabled_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() {
  if (drawn_) fmt::print(stderr, "\n");
}

void ProgressBar::update(int done, int total) {
  if (!enabled_ || total <= 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < kQuietFor) return;
  if (drawn_ && now - last_draw_ < kRedrawEvery && done < total) return;
  last_draw_ = now;
  drawn_ = true;
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  const double rate = done / elapsed_s;
  const int filled = kBarWidth * done / total;
  const std::string bar = std::string(filled, '#') + std::string(kBarWidth - filled, '.');
  const std::string eta = rate > 0 ? duration_text((total - done) / rate) : "?";
  fmt::print(stderr, "\r[{}] {}/{} cases  {:.1f}/s  ETA {}   ", bar, done, total, rate, eta);
  std::fflush(stderr);
}

}  // namespace linksim::cli
