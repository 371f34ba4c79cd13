// A relative doctest::Approx. doctest's own compares |a - b| < epsilon * (scale + max(|a|, |b|)) with a scale
// of 1, which makes its epsilon an absolute bound for values far below 1: seconds of microsecond latencies
// would pass within a 100% error. Every tolerance in these tests is meant relative to the value; only a
// comparison with zero keeps doctest's absolute bound (a relative one could only hold exactly).
#pragma once

#include <doctest/doctest.h>

namespace simtrain::testing {

inline doctest::Approx Approx(double value) {
  return value == 0 ? doctest::Approx(value) : doctest::Approx(value).scale(0);
}

}  // namespace simtrain::testing
