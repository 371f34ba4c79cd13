// Implements rank_correlation.h.
#include "simulator/plan/rank_correlation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.h"

namespace simtrain::plan {

std::vector<double> fractional_ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) throw Error("spearman: the two orderings have different lengths");
  if (a.size() < 2) throw Error("spearman: needs at least two pairs");
  const std::vector<double> ra = fractional_ranks(a), rb = fractional_ranks(b);
  const double n = static_cast<double>(a.size());
  const double mean_a = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  const double mean_b = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double cov = 0, var_a = 0, var_b = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - mean_a) * (rb[i] - mean_b);
    var_a += (ra[i] - mean_a) * (ra[i] - mean_a);
    var_b += (rb[i] - mean_b) * (rb[i] - mean_b);
  }
  if (var_a == 0 || var_b == 0) return 0;
  return cov / std::sqrt(var_a * var_b);
}

}  // namespace simtrain::plan
