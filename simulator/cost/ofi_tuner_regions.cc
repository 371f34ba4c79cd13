// Implements ofi_tuner_regions.h. The vertices are aws-ofi-nccl's (src/tuner/nccl_ofi_regions.cpp,
// region_init_internal_p5_p5e, v1.16.3), in its units: message bytes and ranks; the geometry is simtrain's.
#include "simulator/cost/ofi_tuner_regions.h"

#include <cmath>
#include <initializer_list>
#include <vector>

namespace simtrain::cost {
namespace {

// The plugin's bounds: beyond them it leaves the choice to NCCL.
constexpr double kMaxBytes = 100.0 * 1024 * 1024 * 1024;
constexpr double kMaxRanks = 1024.0 * 1024;

// A point of the plane in log2 coordinates, as the plugin compares them (0 stands for 1e-6).
struct Point {
  double x, y;
};

Point log2_point(double bytes, double ranks) {
  return {std::log2(bytes > 0 ? bytes : 1e-6), std::log2(ranks > 0 ? ranks : 1e-6)};
}

// Where the line from a through b meets the plugin's bounds (its extend_region): straight up from a vertical
// line, straight right from a horizontal one, else at the largest size unless the line leaves by the largest
// rank count first.
Point extend_to_bounds(Point a, Point b) {
  const Point far = log2_point(kMaxBytes, kMaxRanks);
  if (a.x == b.x) return {a.x, far.y};
  if (a.y == b.y) return {far.x, a.y};
  const double slope = (a.y - b.y) / (a.x - b.x);
  const double offset = b.y - slope * b.x;
  const double y_at_far = slope * far.x + offset;
  if (y_at_far < far.y) return {far.x, y_at_far};
  return {(far.y - offset) / slope, far.y};
}

struct Region {
  NcclAlgorithm algorithm;
  NcclProtocol protocol;
  std::vector<Point> vertices;
};

bool on_segment(Point p, Point a, Point b) {
  constexpr double kEpsilon = 1e-10;
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double length2 = dx * dx + dy * dy;
  const double t = length2 > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2 : 0;
  if (t < -kEpsilon || t > 1 + kEpsilon) return false;
  const double cx = a.x + t * dx - p.x, cy = a.y + t * dy - p.y;
  return std::sqrt(cx * cx + cy * cy) < kEpsilon;
}

// Inside or on the edge, as the plugin counts both; a region of collinear vertices holds only its edge.
bool holds(const Region& region, Point p) {
  const std::vector<Point>& v = region.vertices;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (on_segment(p, v[i], v[(i + 1) % v.size()])) return true;
  bool inside = false;
  for (std::size_t i = 0, j = v.size() - 1; i < v.size(); j = i++) {
    if ((v[i].y > p.y) != (v[j].y > p.y) &&
        p.x < (v[j].x - v[i].x) * (p.y - v[i].y) / (v[j].y - v[i].y) + v[i].x)
      inside = !inside;
  }
  return inside;
}

// The plugin's vertices, given in bytes and ranks, as log2 points.
std::vector<Point> polygon(std::initializer_list<Point> raw) {
  std::vector<Point> points;
  for (const Point& p : raw) points.push_back(log2_point(p.x, p.y));
  return points;
}

// p5/p5e, all-reduce over 8 GPUs per node, in the plugin's order (the first region holding a point wins).
std::vector<Region> p5_all_reduce_8_per_node() {
  const Point tree_ll128_edge = extend_to_bounds(log2_point(402653184, 2048), log2_point(402653184, 4096));
  const Point nvls_tree_edge = extend_to_bounds(log2_point(8053063680, 160), log2_point(9663676416, 192));
  std::vector<Region> regions;
  Region tree{NcclAlgorithm::Tree, NcclProtocol::LL128,
              polygon({{0, 16},
                       {31457280, 16},
                       {37748736, 32},
                       {117440512, 64},
                       {301989888, 128},
                       {301989888, 256},
                       {335544320, 512},
                       {536870912, 1024},
                       {402653184, 2048},
                       {402653184, 4096}})};
  tree.vertices.push_back(tree_ll128_edge);
  tree.vertices.push_back({log2_point(0, 1).x, tree_ll128_edge.y});
  regions.push_back(tree);
  // Two nodes' worth of ranks: NVLS-tree from 30 MiB on (a region of one edge).
  regions.push_back({NcclAlgorithm::NVLSTree, NcclProtocol::Simple,
                     polygon({{31457281, 16}, {kMaxBytes, 16}, {31457281, 16}})});
  regions.push_back({NcclAlgorithm::Ring, NcclProtocol::LL128,
                     polygon({{31457280, 17},
                              {1073741824, 17},
                              {2147483648, 64},
                              {2147483648, 128},
                              {1342177280, 160},
                              {2147483648, 256},
                              {1074790400, 256},
                              {444596224, 160},
                              {301989888, 128},
                              {117440512, 64},
                              {37748736, 32}})});
  Region nvls_tree{NcclAlgorithm::NVLSTree, NcclProtocol::Simple,
                   polygon({{2147483648, 128}, {6442450944, 128}, {8053063680, 160}, {9663676416, 192}})};
  nvls_tree.vertices.push_back(nvls_tree_edge);
  nvls_tree.vertices.push_back(tree_ll128_edge);
  for (const Point& p : polygon({{402653184, 4096},
                                 {402653184, 2048},
                                 {536870912, 1024},
                                 {335544320, 512},
                                 {301989888, 256},
                                 {310378496, 160},
                                 {444596224, 160},
                                 {1074790400, 256},
                                 {2684354560, 256},
                                 {2147483648, 224},
                                 {1342177280, 160}}))
    nvls_tree.vertices.push_back(p);
  regions.push_back(nvls_tree);
  Region ring{NcclAlgorithm::Ring, NcclProtocol::Simple, polygon({{1073741824, 17}})};
  ring.vertices.push_back({nvls_tree_edge.x, log2_point(1, 17).y});
  ring.vertices.push_back(nvls_tree_edge);
  for (const Point& p : polygon({{9663676416, 192}, {8053063680, 160}, {2684354560, 64}, {1610612736, 32}}))
    ring.vertices.push_back(p);
  regions.push_back(ring);
  return regions;
}

}  // namespace

std::optional<TunerPluginChoice> tuner_plugin_choice(NcclTunerPlugin plugin, trace::CollectiveKind kind,
                                                     double bytes, int ranks, int nodes, bool nvls) {
  // The plugin leaves communicators of 2 nodes or fewer to NCCL ("the regions are not well defined").
  if (plugin != NcclTunerPlugin::AwsOfiNcclP5 || nodes <= 2) return std::nullopt;
  if (kind != trace::CollectiveKind::AllReduce || ranks != 8 * nodes) return std::nullopt;
  static const std::vector<Region> regions = p5_all_reduce_8_per_node();
  const Point p = log2_point(bytes, ranks);
  for (const Region& region : regions) {
    // A pair NCCL cannot run here is passed over, as NCCL marks it in the cost table the plugin reads.
    if (region.algorithm == NcclAlgorithm::NVLSTree && !nvls) continue;
    if (holds(region, p)) return TunerPluginChoice{region.algorithm, region.protocol};
  }
  return std::nullopt;
}

}  // namespace simtrain::cost
