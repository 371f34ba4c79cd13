// Implements the geometry of ofi_tuner_geometry.h; the tables are in ofi_tuner_p5.cc, ofi_tuner_p5en.cc and
// ofi_tuner_p6_b200.cc.
#include "simulator/cost/ofi_tuner_geometry.h"

#include <cmath>

namespace simtrain::cost::ofi_tuner {
namespace {

Log2Point to_log2(Point p) {
  return {std::log2(p.bytes > 0 ? p.bytes : 1e-6), std::log2(p.ranks > 0 ? p.ranks : 1e-6)};
}

Point from_log2(Log2Point p) { return {std::exp2(p.x), std::exp2(p.y)}; }

bool on_segment(Log2Point p, Log2Point a, Log2Point b) {
  constexpr double kEpsilon = 1e-10;
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double length2 = dx * dx + dy * dy;
  const double t = length2 > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2 : 0;
  if (t < -kEpsilon || t > 1 + kEpsilon) return false;
  const double cx = a.x + t * dx - p.x, cy = a.y + t * dy - p.y;
  return std::sqrt(cx * cx + cy * cy) < kEpsilon;
}

}  // namespace

Point extended(Point a_point, Point b_point) {
  const Log2Point a = to_log2(a_point), b = to_log2(b_point);
  const Log2Point far = to_log2({kMaxBytes, kMaxRanks});
  if (a.x == b.x) return from_log2({a.x, far.y});
  if (a.y == b.y) return from_log2({far.x, a.y});
  const double slope = (a.y - b.y) / (a.x - b.x);
  const double offset = b.y - slope * b.x;
  const double y_at_far = slope * far.x + offset;
  if (y_at_far < far.y) return from_log2({far.x, y_at_far});
  return from_log2({(far.y - offset) / slope, far.y});
}

Region::Region(NcclAlgorithm algorithm, NcclProtocol protocol, std::initializer_list<Point> vertices)
    : algorithm(algorithm), protocol(protocol) {
  for (const Point& p : vertices) log2_vertices.push_back(to_log2(p));
}

bool Region::holds(double bytes, double ranks) const {
  const Log2Point p = to_log2({bytes, ranks});
  const std::vector<Log2Point>& v = log2_vertices;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (on_segment(p, v[i], v[(i + 1) % v.size()])) return true;
  bool inside = false;
  for (std::size_t i = 0, j = v.size() - 1; i < v.size(); j = i++) {
    const Log2Point vi = v[i], vj = v[j];
    if ((vi.y > p.y) != (vj.y > p.y) && p.x < (vj.x - vi.x) * (p.y - vi.y) / (vj.y - vi.y) + vi.x)
      inside = !inside;
  }
  return inside;
}

}  // namespace simtrain::cost::ofi_tuner
