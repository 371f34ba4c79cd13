// Specification of the plane aws-ofi-nccl's tuner regions live in: lines extended to the plugin's bounds in
// log2 coordinates, and which points a region holds (inside or on its edge).
#include "simulator/cost/ofi_tuner_geometry.h"

#include <doctest/doctest.h>

#include <cmath>

#include "tests/support/approx.h"

namespace simtrain {

using cost::NcclAlgorithm;
using cost::NcclProtocol;
using cost::ofi_tuner::extended;
using cost::ofi_tuner::kMaxBytes;
using cost::ofi_tuner::kMaxRanks;
using cost::ofi_tuner::Point;
using cost::ofi_tuner::Region;
using testing::Approx;

TEST_CASE("a line extends to the plugin's bounds: up, right, or along its slope in log2 coordinates") {
  // Vertical: straight up to the most ranks at the same size.
  const Point up = extended({1 << 20, 16}, {1 << 20, 64});
  CHECK(up.bytes == Approx(1 << 20));
  CHECK(up.ranks == Approx(kMaxRanks));
  // Horizontal: straight right to the largest size.
  const Point right = extended({1 << 20, 16}, {1 << 22, 16});
  CHECK(right.bytes == Approx(kMaxBytes));
  CHECK(right.ranks == Approx(16));
  // Doubling the ranks per quadrupled size (slope 1/2 in log2): it leaves by the largest size.
  const Point shallow = extended({1 << 20, 16}, {1 << 22, 32});
  CHECK(shallow.bytes == Approx(kMaxBytes));
  CHECK(std::log2(shallow.ranks) == Approx(4 + (std::log2(kMaxBytes) - 20) / 2));
  // Ranks growing 4x per doubled size (slope 2): it leaves by the most ranks first.
  const Point steep = extended({1 << 20, 16}, {1 << 21, 64});
  CHECK(steep.ranks == Approx(kMaxRanks));
  CHECK(std::log2(steep.bytes) == Approx(20 + (std::log2(kMaxRanks) - 4) / 2));
}

TEST_CASE("a region holds the points inside it and on its edges, not those outside") {
  // A square from 1 MiB to 1 GiB and 16 to 256 ranks, square in log2 coordinates too.
  const Region square(NcclAlgorithm::Ring, NcclProtocol::LL128,
                      {{1 << 20, 16}, {1 << 30, 16}, {1 << 30, 256}, {1 << 20, 256}});
  CHECK(square.holds(1 << 25, 64));    // inside
  CHECK(square.holds(1 << 20, 64));    // on the left edge
  CHECK(square.holds(1 << 30, 256));   // a corner
  CHECK(!square.holds(1 << 19, 64));   // left of it
  CHECK(!square.holds(1 << 25, 512));  // above it
  // A triangle tells log2 from linear coordinates: its hypotenuse runs from (1 MiB, 16) to (1 GiB, 256) in
  // log2 coordinates, so (32 MiB, 64) lies on it, which in linear units would be far above the line.
  const Region triangle(NcclAlgorithm::Tree, NcclProtocol::LL,
                        {{1 << 20, 16}, {1 << 30, 16}, {1 << 30, 256}});
  CHECK(triangle.holds(1 << 25, 64));
  CHECK(triangle.holds(1 << 28, 64));
  CHECK(!triangle.holds(1 << 22, 64));
  // A region of collinear vertices (the plugin's one-edge regions) holds its edge only.
  const Region edge(NcclAlgorithm::NVLSTree, NcclProtocol::Simple,
                    {{1 << 25, 16}, {kMaxBytes, 16}, {1 << 25, 16}});
  CHECK(edge.holds(1 << 30, 16));
  CHECK(!edge.holds(1 << 30, 17));
  CHECK(!edge.holds(1 << 24, 16));
}

}  // namespace simtrain
