// Spearman's rank correlation: how well one ordering (the analytic estimate) agrees with another (the
// simulation) whatever the scale of either.
#pragma once

#include <vector>

namespace simtrain::plan {

// Ranks 1..n of `values`, ties sharing the mean of the ranks they span.
std::vector<double> fractional_ranks(const std::vector<double>& values);

// Pearson's correlation of the fractional ranks of `a` and `b`, in [-1, 1]. Throws Error when the sizes
// differ or fewer than two pairs are given; 0 when either side is constant.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace simtrain::plan
