// Interval arithmetic for time breakdowns: how long communication was in flight while compute was not.
#pragma once

#include <vector>

namespace simtrain::engine {

struct Interval {
  double begin_s = 0;
  double end_s = 0;
};

// Total length of the union of `intervals` (in any order, possibly overlapping).
double union_length(std::vector<Interval> intervals);

// Length of (union of `covered`) minus (union of `cover`): e.g. communication time not hidden by compute.
double uncovered_length(std::vector<Interval> covered, std::vector<Interval> cover);

}  // namespace simtrain::engine
