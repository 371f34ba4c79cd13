// The engine's collectives against the closed forms of ring and tree all-reduce on a uniform network:
// T = 2(N-1) * (alpha + S / (N * B)) for the ring, with alpha the route latency and B the bottleneck link
// bandwidth; for the tree, 2 ceil(log2 N) alpha plus the busiest node's volume over B.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "simulator/cost/compute_cost.h"
#include "simulator/cost/double_binary_tree.h"
#include "simulator/engine/replay.h"
#include "tests/support/child_process.h"
#include "tests/support/one_collective.h"
#include "tests/support/uniform_cluster.h"

namespace simtrain {
namespace {

constexpr double kNicBandwidth = testing::kUniformNicBandwidth;  // bytes/s: the bottleneck of every route
constexpr double kRouteLatency =
    testing::kUniformRouteLatency;  // seconds: uplink latency, once up, once down

// N nodes of one GPU each (tests/support/uniform_cluster.h), on a star or a two-level fat tree.
platform::ClusterSpec uniform_cluster(int nodes, bool fat_tree) {
  platform::ClusterSpec spec =
      testing::uniform_cluster(nodes, fat_tree ? "uniform-fat-tree" : "uniform-star");
  if (fat_tree) {
    spec.fabric.topology = platform::FabricTopology::FatTree;
    spec.fabric.levels = 2;
    spec.fabric.nodes_per_leaf = 4;
  }
  return spec;
}

trace::Trace one_all_reduce(int ranks, double bytes) {
  trace::CollectiveSpec all_reduce;
  all_reduce.kind = trace::CollectiveKind::AllReduce;
  all_reduce.bytes = bytes;
  return testing::one_collective(ranks, all_reduce);
}

double simulated_all_reduce_s(int ranks, double bytes, bool fat_tree,
                              cost::NcclAlgorithm algorithm = cost::NcclAlgorithm::Ring) {
  return testing::in_child_process([=] {
    trace::Trace t = one_all_reduce(ranks, bytes);
    cost::ProgramCosts costs;
    costs.duration_s = {{0.0}};
    calibration::Efficiencies ideal;  // no NCCL losses: the closed form has none
    ideal.nccl_intra_node = ideal.nccl_inter_node = 1.0;
    ideal.nccl_step_latency_s = 0;
    engine::PlatformSource source;
    source.spec = uniform_cluster(ranks, fat_tree);
    engine::ReplayOptions options;
    options.nccl.algorithm = algorithm;
    return engine::replay(t, costs, ideal, source, options).makespan_s;
  });
}

double closed_form_s(int n, double bytes) {
  return 2.0 * (n - 1) * (kRouteLatency + bytes / (n * kNicBandwidth));
}

}  // namespace

TEST_CASE("ring all-reduce on uniform star and fat-tree networks equals 2(N-1)(alpha + S/(N B))") {
  // The coalesced flows are exact on a uniform network; 1e-9 relative leaves room only for rounding the
  // wire size to whole bytes.
  const double bytes = 64.0 * 1024 * 1024;
  for (int n : {8, 64}) {
    for (bool fat_tree : {false, true}) {
      CAPTURE(n);
      CAPTURE(fat_tree);
      double simulated = simulated_all_reduce_s(n, bytes, fat_tree);
      double expected = closed_form_s(n, bytes);
      CHECK(simulated == simtrain::testing::Approx(expected).epsilon(1e-9));
    }
  }
}

TEST_CASE("tree all-reduce on a uniform star equals 2 ceil(log2 N) alpha + (peak volume) S / B") {
  // The pipelined double binary tree: every edge moves at the pace of the busiest node, which sends and
  // receives double_binary_tree_peak_volume(N) buffers (1 for two nodes, 1.5 for three, 2 from
  // four).
  const double bytes = 64.0 * 1024 * 1024;
  for (int n : {2, 3, 4, 5, 8, 64}) {
    CAPTURE(n);
    const double simulated = simulated_all_reduce_s(n, bytes, false, cost::NcclAlgorithm::Tree);
    const double expected = 2 * cost::binary_tree_depth(n) * kRouteLatency +
                            cost::double_binary_tree_peak_volume(n) * bytes / kNicBandwidth;
    CHECK(simulated == simtrain::testing::Approx(expected).epsilon(1e-9));
  }
}

TEST_CASE("a communicator of one rank finishes its all-reduce at once") {
  CHECK(simulated_all_reduce_s(1, 1e6, false) == 0.0);
}

}  // namespace simtrain
