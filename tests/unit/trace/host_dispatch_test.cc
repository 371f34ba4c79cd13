// Specification of the host-time estimate: self times less the profiler's per-event cost, plus the time no
// event covers, split at launches. Times are multiples of 1 µs, well above kProfilerCostPerEvent_s.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "common/error.h"
#include "simulator/trace/host_dispatch.h"

namespace simtrain::trace {

constexpr double kCost = kProfilerCostPerEvent_s;

TEST_CASE("an event's self time excludes its children; each event pays the profiler's cost once") {
  // Operator [0, 100) holds a runtime call [40, 60): self times 80 and 20 µs, one stretch, no gaps.
  const std::vector<double> work = host_work_per_stretch({{0, 100, 1}, {40, 60, 1}}, {}, 0, 100);
  REQUIRE(work.size() == 1);
  CHECK(work[0] == simtrain::testing::Approx((80e-6 - kCost) + (20e-6 - kCost)));
}

TEST_CASE("events cheaper than the profiler's cost count as nothing") {
  const std::vector<double> work = host_work_per_stretch({{0, 5, 1}}, {}, 0, 5);
  CHECK(work[0] == simtrain::testing::Approx(0.0));
}

TEST_CASE("time no event covers is Python's, and counts in full") {
  // Events [10, 30) and [50, 60) in a window [0, 100): 10 + 20 + 40 µs uncovered.
  const std::vector<double> work = host_work_per_stretch({{10, 30, 1}, {50, 60, 1}}, {}, 0, 100);
  CHECK(work[0] == simtrain::testing::Approx(70e-6 + (20e-6 - kCost) + (10e-6 - kCost)));
}

TEST_CASE("launches split the host timeline: an event belongs to the stretch it starts in") {
  // Boundaries at 25 and 70: events [0, 20) -> stretch 0, [30, 60) -> 1, [80, 100) -> 2.
  const std::vector<double> work =
      host_work_per_stretch({{0, 20, 1}, {30, 60, 1}, {80, 100, 1}}, {25, 70}, 0, 100);
  REQUIRE(work.size() == 3);
  CHECK(work[0] == simtrain::testing::Approx((20e-6 - kCost) + 5e-6));   // gap [20, 25)
  CHECK(work[1] == simtrain::testing::Approx((30e-6 - kCost) + 15e-6));  // gaps [25, 30) and [60, 70)
  CHECK(work[2] == simtrain::testing::Approx((20e-6 - kCost) + 10e-6));  // gap [70, 80)
}

TEST_CASE("two threads nest on their own; their overlap is not a gap") {
  // Main thread [0, 100) waits in backward while the autograd thread runs [10, 90).
  const std::vector<double> work = host_work_per_stretch({{0, 100, 1}, {10, 90, 2}}, {}, 0, 100);
  CHECK(work[0] == simtrain::testing::Approx((100e-6 - kCost) + (80e-6 - kCost)));
}

TEST_CASE("calibration divides the step by the host's work, and refuses a GPU-bound step") {
  CHECK(calibrate_speed_fraction(0.1, 0.01, 0.03) == simtrain::testing::Approx(0.3));
  CHECK_THROWS_WITH_AS(calibrate_speed_fraction(0.1, 0.029, 0.03), doctest::Contains("GPU-bound"), Error);
  CHECK_THROWS_AS(calibrate_speed_fraction(0.1, 0.0, -1), Error);
  CHECK_THROWS_AS(calibrate_speed_fraction(0.0, 0.0, 0.03), Error);
}

}  // namespace simtrain::trace
