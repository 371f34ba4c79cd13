// Specification of the run-to-run noise model (simulator/cost/jitter.h).
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <cmath>

#include "common/error.h"
#include "simulator/cost/jitter.h"

using namespace simtrain;

namespace {

cost::ProgramCosts costs_of(std::size_t kernels) {
  cost::ProgramCosts costs;
  costs.duration_s = {std::vector<double>(kernels, 1e-3)};
  costs.duration_s[0][0] = 0;  // a collective's slot: no duration to perturb
  return costs;
}

double total(const cost::ProgramCosts& costs) {
  double sum = 0;
  for (const auto& p : costs.duration_s)
    for (double d : p) sum += d;
  return sum;
}

}  // namespace

TEST_CASE("without a seed nothing changes") {
  cost::ProgramCosts costs = costs_of(100);
  cost::apply_jitter(costs, {});
  CHECK(costs.duration_s == costs_of(100).duration_s);
}

TEST_CASE("the same seed gives the same durations, another seed others") {
  cost::ProgramCosts a = costs_of(1000), b = costs_of(1000), c = costs_of(1000);
  cost::apply_jitter(a, {7, 0.02, 0.05});
  cost::apply_jitter(b, {7, 0.02, 0.05});
  cost::apply_jitter(c, {8, 0.02, 0.05});
  CHECK(a.duration_s == b.duration_s);
  CHECK(a.duration_s != c.duration_s);
  CHECK(a.duration_s[0][0] == 0);  // zero stays zero
}

TEST_CASE("the factors have mean 1 and the configured spread") {
  // Kernel noise alone over 200,000 kernels: the mean factor within 0.1% of 1 (its standard error is
  // 0.05 / sqrt(2e5) = 0.011%), the spread of log factors within 2% of sigma.
  const std::size_t n = 200000;
  cost::ProgramCosts costs = costs_of(n + 1);
  cost::apply_jitter(costs, {3, 0.0, 0.05});
  double sum = 0, sum_log = 0, sum_log2 = 0;
  for (std::size_t i = 1; i <= n; ++i) {
    const double f = costs.duration_s[0][i] / 1e-3;
    sum += f;
    sum_log += std::log(f);
    sum_log2 += std::log(f) * std::log(f);
  }
  CHECK(sum / n == simtrain::testing::Approx(1.0).epsilon(1e-3));
  const double mean_log = sum_log / n;
  CHECK(std::sqrt(sum_log2 / n - mean_log * mean_log) == simtrain::testing::Approx(0.05).epsilon(0.02));

  // Run noise alone scales every kernel by one factor.
  cost::ProgramCosts run = costs_of(100);
  cost::apply_jitter(run, {3, 0.02, 0.0});
  const double factor = run.duration_s[0][1] / 1e-3;
  for (std::size_t i = 1; i < 100; ++i)
    CHECK(run.duration_s[0][i] == simtrain::testing::Approx(1e-3 * factor).epsilon(1e-12));
  CHECK(factor != 1.0);
  CHECK(total(run) == simtrain::testing::Approx(99e-3 * factor).epsilon(1e-12));
}

TEST_CASE("negative sigmas are refused") {
  cost::ProgramCosts costs = costs_of(10);
  CHECK_THROWS_AS(cost::apply_jitter(costs, {1, -0.1, 0.05}), Error);
}
