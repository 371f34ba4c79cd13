// The plane aws-ofi-nccl's tuner plugin divides into regions (ofi_tuner_regions.h), and the region tables of
// the instance types simtrain carries. The plugin gives each region's vertices in message bytes and ranks
// and compares points in log2 coordinates; a Region is built from the former and keeps the latter.
#pragma once

#include <initializer_list>
#include <map>
#include <vector>

#include "simulator/cost/nccl_choice.h"
#include "simulator/trace/trace.h"

namespace simtrain::cost::ofi_tuner {

// The plugin's bounds: beyond them it leaves the choice to NCCL.
inline constexpr double kMaxBytes = 100.0 * 1024 * 1024 * 1024;
inline constexpr double kMaxRanks = 1024.0 * 1024;

// A point of the plane in the plugin's units: message bytes (an all-gather's or reduce-scatter's whole
// output) and ranks.
struct Point {
  double bytes, ranks;
};

// Where the line from a through b, drawn in log2 coordinates, meets the plugin's bounds (its extend_region):
// straight up from a vertical line, straight right from a horizontal one, else at the largest size unless
// the line leaves by the largest rank count first. In the plugin's units.
Point extended(Point a, Point b);

// A point in the log2 coordinates the plugin compares in (log2 of bytes, log2 of ranks; 0 stands for 1e-6).
struct Log2Point {
  double x, y;
};

// One region: the (algorithm, protocol) the plugin sets for the points it holds.
struct Region {
  NcclAlgorithm algorithm;
  NcclProtocol protocol;
  std::vector<Log2Point> log2_vertices;  // the polygon

  Region(NcclAlgorithm algorithm, NcclProtocol protocol, std::initializer_list<Point> vertices);
  // Inside or on the edge, as the plugin counts both; a region of collinear vertices holds only its edge.
  bool holds(double bytes, double ranks) const;
};

// The regions of one instance type for communicators of one shape, per collective, each in the plugin's order
// (the first region holding a point wins); empty where the plugin has none.
struct RegionTables {
  std::vector<Region> all_reduce, all_gather, reduce_scatter;
};

// An instance type's tables by GPUs per node: the communicator shapes the plugin has regions for (8 or 2
// GPUs on every node; a communicator of another shape is left to NCCL). Its regions for 1 GPU per node are
// not carried: there its rings run LL128 and its all-gathers PAT, and simtrain's EFA model prices neither
// for communicators of one GPU per node (its flat rings take Simple), so NCCL's own choice is modelled.
using PluginTables = std::map<int, RegionTables>;

// The vertices are aws-ofi-nccl's (src/tuner/nccl_ofi_regions.cpp at its August 2026 head, 2daf7d3:
// region_init_internal_p5_p5e, region_init_internal_p5en, region_init_internal_p6).
PluginTables p5_tables();
PluginTables p5en_tables();
PluginTables p6_b200_tables();

}  // namespace simtrain::cost::ofi_tuner
