// Spearman's rank correlation, on orderings whose value is known by hand.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "common/error.h"
#include "simulator/plan/rank_correlation.h"

using namespace simtrain;
using namespace simtrain::plan;

TEST_CASE("ranks are 1-based and ties share the mean of their ranks") {
  CHECK(fractional_ranks({30, 10, 20}) == std::vector<double>{3, 1, 2});
  CHECK(fractional_ranks({5, 1, 5, 7}) == std::vector<double>{2.5, 1, 2.5, 4});
}

TEST_CASE("the same order correlates 1, the reverse -1, whatever the scale") {
  CHECK(spearman({1, 2, 3, 4}, {10, 200, 3000, 40000}) == simtrain::testing::Approx(1));
  CHECK(spearman({1, 2, 3, 4}, {4, 3, 2, 1}) == simtrain::testing::Approx(-1));
}

TEST_CASE("one swapped neighbour pair of five: 1 - 6 x 2 / (5 x 24) = 0.9") {
  CHECK(spearman({1, 2, 3, 4, 5}, {1, 2, 4, 3, 5}) == simtrain::testing::Approx(0.9));
}

TEST_CASE("a constant side has no correlation; mismatched or too short input is an error") {
  CHECK(spearman({1, 2, 3}, {7, 7, 7}) == 0);
  CHECK_THROWS_AS(spearman({1, 2}, {1, 2, 3}), Error);
  CHECK_THROWS_AS(spearman({1}, {1}), Error);
}
