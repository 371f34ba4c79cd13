// Timing statistics and measurement planning of simtrain-calibrate (calibration/tool/timing_stats.h).
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <limits>

#include "calibration/tool/timing_stats.h"
#include "common/error.h"

using namespace simtrain::calibration::tool;

TEST_CASE("the median of an odd number of samples is the middle one, whatever their order") {
  const TimingSummary s = summarize({5e-3, 1e-3, 9e-3, 2e-3, 3e-3});
  CHECK(s.median_s == 3e-3);
  CHECK(s.min_s == 1e-3);
  CHECK(s.max_s == 9e-3);
  CHECK(s.samples == 5);
}

TEST_CASE("the median of an even number of samples is the mean of the middle two") {
  CHECK(summarize({4.0, 1.0, 3.0, 2.0}).median_s == simtrain::testing::Approx(2.5));
}

TEST_CASE("one slow outlier moves the median by at most one rank") {
  // Nine samples at 1 ms and one at 100 ms (a clock drop): the median stays 1 ms, the mean would be 10.9 ms.
  std::vector<double> samples(9, 1e-3);
  samples.push_back(100e-3);
  CHECK(summarize(samples).median_s == 1e-3);
}

TEST_CASE("percentiles interpolate linearly between ranks, as numpy's default does") {
  const std::vector<double> sorted = {10, 20, 30, 40, 50};
  CHECK(percentile(sorted, 0.0) == 10);
  CHECK(percentile(sorted, 1.0) == 50);
  CHECK(percentile(sorted, 0.1) == simtrain::testing::Approx(14));  // position 0.4 between 10 and 20
  CHECK(percentile(sorted, 0.9) == simtrain::testing::Approx(46));
  CHECK(percentile({7}, 0.5) == 7);
}

TEST_CASE("summaries reject empty lists, zero and non-finite samples") {
  CHECK_THROWS_AS(summarize({}), simtrain::Error);
  CHECK_THROWS_AS(summarize({1e-3, 0.0}), simtrain::Error);
  CHECK_THROWS_AS(summarize({1e-3, std::numeric_limits<double>::infinity()}), simtrain::Error);
  CHECK_THROWS_AS(percentile({1, 2}, 1.5), simtrain::Error);
}

TEST_CASE("short kernels are launched back to back until a sample lasts the target time") {
  TimingPlan plan;
  plan.target_sample_s = 1e-3;
  plan.max_launches_per_sample = 256;
  CHECK(launches_per_sample(10e-6, plan) == 100);
  CHECK(launches_per_sample(1e-9, plan) == 256);  // capped
  CHECK(launches_per_sample(5e-3, plan) == 1);    // long kernels run once per sample
}

TEST_CASE("long kernels get fewer samples, but never fewer than the minimum") {
  TimingPlan plan;
  plan.samples = 15;
  plan.min_samples = 5;
  plan.max_seconds_per_measurement = 2.0;
  CHECK(samples_to_take(1e-3, 1, plan) == 15);
  CHECK(samples_to_take(0.2, 1, plan) == 10);
  CHECK(samples_to_take(5.0, 1, plan) == 5);
}

TEST_CASE("operand sets rotate until the others stream twice the L2 cache between two uses of one set") {
  const double l2 = 50e6, budget = 8e9;
  CHECK(rotation_sets(1e6, l2, budget) == 101);  // 1 + 2 x 50 MB / 1 MB
  CHECK(rotation_sets(200e6, l2, budget) == 2);  // one other set already flushes L2
  CHECK(rotation_sets(1e6, l2, 10e6) == 10);     // limited by memory
  CHECK(rotation_sets(20e9, l2, budget) == 1);   // never fewer than one
}
