// Specification of the interval arithmetic behind time breakdowns. All endpoints are multiples of 0.25, so
// every sum is exact in binary floating point and the checks compare exactly.
#include <doctest/doctest.h>

#include "simulator/engine/busy_intervals.h"

namespace simtrain::engine {

TEST_CASE("the union of no intervals has length 0") {
  CHECK(union_length({}) == 0);
  CHECK(uncovered_length({}, {{0, 1}}) == 0);
}

TEST_CASE("the union of disjoint intervals is the sum of their lengths, in any order") {
  CHECK(union_length({{3, 4}, {0, 1}, {1.5, 2}}) == 2.5);
}

TEST_CASE("overlapping, touching and nested intervals are counted once") {
  CHECK(union_length({{0, 2}, {1, 3}}) == 3);            // overlap [1, 2]
  CHECK(union_length({{0, 1}, {1, 2}}) == 2);            // touching at 1
  CHECK(union_length({{0, 10}, {2, 3}, {4, 5}}) == 10);  // nested in the first
  CHECK(union_length({{2, 3}, {0, 10}}) == 10);
}

TEST_CASE("empty and reversed intervals add nothing") {
  CHECK(union_length({{1, 1}, {3, 2}}) == 0);
  CHECK(union_length({{0, 1}, {5, 5}}) == 1);
}

TEST_CASE("with nothing covering it, all of an interval is uncovered") {
  CHECK(uncovered_length({{1, 2.5}}, {}) == 1.5);
  CHECK(uncovered_length({{1, 2}}, {{3, 4}}) == 1);  // the cover lies elsewhere
}

TEST_CASE("a cover that contains the interval leaves nothing uncovered") {
  CHECK(uncovered_length({{1, 2}}, {{0, 3}}) == 0);
  CHECK(uncovered_length({{1, 2}}, {{1, 2}}) == 0);
}

TEST_CASE("a partial cover leaves the parts before, between and after it") {
  // [0, 10] covered by [1, 2] and [4, 6]: uncovered [0, 1] + [2, 4] + [6, 10] = 7.
  CHECK(uncovered_length({{0, 10}}, {{4, 6}, {1, 2}}) == 7);
  // Cover overlapping only the start or only the end.
  CHECK(uncovered_length({{2, 5}}, {{0, 3}}) == 2);
  CHECK(uncovered_length({{2, 5}}, {{4, 9}}) == 2);
}

TEST_CASE("overlapping covered intervals are merged before the cover is subtracted") {
  // Communication [0, 3] and [2, 5] is in flight over [0, 5]; compute [1, 4] hides 3 of it.
  CHECK(uncovered_length({{0, 3}, {2, 5}}, {{1, 4}}) == 2);
}

TEST_CASE("one cover interval can hide parts of several covered intervals") {
  // Covered [0, 2] and [3, 5]; cover [1, 4] hides [1, 2] and [3, 4]: 2 of 4 remain.
  CHECK(uncovered_length({{0, 2}, {3, 5}}, {{1, 4}}) == 2);
  // Overlapping cover intervals count once.
  CHECK(uncovered_length({{0, 4}}, {{1, 2}, {1.5, 3}, {2.5, 2.75}}) == 2);
}

}  // namespace simtrain::engine
