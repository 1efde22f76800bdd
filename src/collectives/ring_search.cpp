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

}  // namespace

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
