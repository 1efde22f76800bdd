// SPDX-License-Identifier: Apache-2.0
#include "collectives/ring_search.hpp"

#include <algorithm>
#include <limits>

namespace linksim::detail {
namespace {

struct Search {
  int n;
  std::vector<std::vector<double>> rate;
  std::vector<int> path;
  std::vector<bool> used;
  std::vector<int> best;
  double best_min = -1;
  double best_sum = -1;

  void visit(double cur_min, double cur_sum) {
    if (cur_min < best_min) return;  // cannot beat the best bottleneck any more
    if (static_cast<int>(path.size()) == n) {
      double close = rate[path.back()][path.front()];
      double m = std::min(cur_min, close);
      double s = cur_sum + close;
      if (m > best_min || (m == best_min && s > best_sum)) {
        best_min = m;
        best_sum = s;
        best = path;
      }
      return;
    }
    for (int next = 1; next < n; ++next) {
      if (used[next]) continue;
      double r = rate[path.back()][next];
      used[next] = true;
      path.push_back(next);
      visit(std::min(cur_min, r), cur_sum + r);
      path.pop_back();
      used[next] = false;
    }
  }
};

std::vector<int> greedy_cycle(int n, const std::vector<std::vector<double>>& rate) {
  std::vector<int> order{0};
  std::vector<bool> used(n, false);
  used[0] = true;
  for (int step = 1; step < n; ++step) {
    int cur = order.back(), pick = -1;
    for (int c = 0; c < n; ++c) {
      if (!used[c] && (pick < 0 || rate[cur][c] > rate[cur][pick])) pick = c;
    }
    used[pick] = true;
    order.push_back(pick);
  }
  return order;
}

// Depth-first over channels: each channel a Hamiltonian cycle from position 0, all of them
// within the ledger; the search returns into earlier channels when later ones do not fit.
struct ChannelSearch {
  int max_channels;
  long budget;
  ChannelLedger ledger;
  std::vector<std::vector<int>> channels;  // completed ones, then the one being built
  std::vector<bool> used;                  // positions on the channel being built
  std::vector<std::vector<int>> best;

  bool finished() const { return static_cast<int>(best.size()) == max_channels || budget < 0; }

  void open_channel() {
    if (channels.size() > best.size()) best = channels;
    if (finished()) return;
    const std::vector<bool> saved = used;
    used.assign(size_t(ledger.n), false);
    used[0] = true;
    channels.push_back({0});
    extend(channels.size() > 1);
    channels.pop_back();
    used = saved;
  }

  // `tied`: the channel so far equals the previous channel's prefix, so it may not go below
  // it (each set of channels is visited in one order only).
  void extend(bool tied) {
    const int n = ledger.n;
    const size_t pos = channels.back().size();
    const int from = channels.back().back();
    if (static_cast<int>(pos) == n) {
      if (!ledger.fits(from, 0)) return;
      ledger.take(from, 0, 1);
      open_channel();
      ledger.take(from, 0, -1);
      return;
    }
    const int floor = tied ? channels[channels.size() - 2][pos] : 1;
    for (int next = floor; next < n && !finished(); ++next) {
      if (used[size_t(next)]) continue;
      if (--budget < 0) return;
      if (!ledger.fits(from, next)) continue;
      ledger.take(from, next, 1);
      used[size_t(next)] = true;
      channels.back().push_back(next);
      extend(tied && next == floor);
      channels.back().pop_back();
      used[size_t(next)] = false;
      ledger.take(from, next, -1);
    }
  }
};

}  // namespace

bool ChannelLedger::fits(int a, int b) const {
  constexpr double kSlack = 1e-9;  // channels: a link filled exactly still fits
  for (const auto& [link, share] : hop_loads[size_t(a * n + b)]) {
    if (free_channels[size_t(link)] < share - kSlack) return false;
  }
  return true;
}

void ChannelLedger::take(int a, int b, double count) {
  for (const auto& [link, share] : hop_loads[size_t(a * n + b)]) {
    free_channels[size_t(link)] -= count * share;
  }
}

std::vector<std::vector<int>> pack_equal_channels(int max_channels, long step_budget,
                                                  ChannelLedger ledger) {
  if (ledger.n < 2 || max_channels < 1) return {};
  ChannelSearch search{max_channels, step_budget, std::move(ledger), {}, {}, {}};
  search.open_channel();
  return search.best;
}

std::vector<int> best_cycle(int n, const HopRate& hop_rate) {
  if (n <= 0) return {};
  std::vector<std::vector<double>> rate(n, std::vector<double>(n, 0.0));
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) rate[a][b] = a == b ? 0.0 : hop_rate(a, b);
  }
  if (n > 9) return greedy_cycle(n, rate);
  Search s{n, rate, {0}, std::vector<bool>(n, false), {}, -1, -1};
  s.used[0] = true;
  s.visit(std::numeric_limits<double>::infinity(), 0.0);
  if (n == 1) return {0};
  return s.best;
}

}  // namespace linksim::detail
