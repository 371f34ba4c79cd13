// Oversubscribed fat-trees under load: when every node sends across the core at once, each node's throughput
// is its NIC bandwidth divided by the oversubscription ratios its traffic climbs through, as real SimGrid
// flows share the links.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "simulator/platform/simgrid_platform.h"
#include "tests/support/child_process.h"
#include "tests/support/simgrid_fixtures.h"

using namespace simtrain::platform;
using namespace simtrain::testing;

namespace {

// 16 nodes x 2 GPUs, one 100 Gb/s NIC each; 2 nodes per leaf, 2 leaves per pod: 4 pods under the core.
ClusterSpec three_level(double leaf_ratio, double spine_ratio) {
  ClusterSpec spec;
  spec.name = "oversubscribed";
  spec.nodes = 16;
  spec.gpus_per_node = 2;
  spec.intra_node = {IntraNodeFabric::NVSwitch, 300e9, 0.7e-6};
  spec.nics = {1, 12.5e9, 1.0e-6};
  spec.fabric.topology = FabricTopology::FatTree;
  spec.fabric.levels = 3;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.leaves_per_pod = 2;
  spec.fabric.leaf_oversubscription = leaf_ratio;
  spec.fabric.spine_oversubscription = spine_ratio;
  spec.fabric.switch_latency_s = 0.3e-6;
  return spec;
}

// Every node's GPU 0 sends to GPU 0 of the node two pods away, all at once: every flow crosses its leaf's
// and its pod's uplink, up and down. Returns the per-node throughput of each flow.
std::vector<double> all_across_the_core(const ClusterSpec& spec, double bytes) {
  const auto durations = run_in_child([&] {
    const BuiltPlatform p = build_exact(spec);
    std::vector<std::pair<int, int>> flows;
    for (int node = 0; node < spec.nodes; ++node) flows.push_back({node * 2, ((node + 8) % 16) * 2});
    return timed_phases(p, {flows}, bytes);
  });
  const double latency_s =
      spec.intra_node.latency_s + 2 * spec.nics.latency_s + 5 * spec.fabric.switch_latency_s;
  std::vector<double> throughput;
  for (const double d : durations) throughput.push_back(bytes / (d - latency_s));
  return throughput;
}

}  // namespace

TEST_CASE("every node sending across the core gets its NIC bandwidth over the oversubscription ratios") {
  const double bytes = 1e9, nic_Bps = 12.5e9;
  // Non-blocking: every node keeps its NIC's rate.
  for (const double rate : all_across_the_core(three_level(1, 1), bytes))
    CHECK(rate == simtrain::testing::Approx(nic_Bps).epsilon(kSimGridTolerance));
  // Leaf 2:1 -> half.
  for (const double rate : all_across_the_core(three_level(2, 1), bytes))
    CHECK(rate == simtrain::testing::Approx(nic_Bps / 2).epsilon(kSimGridTolerance));
  // Leaf 2:1 and spine 3:1 compound: a sixth.
  const std::vector<double> both = all_across_the_core(three_level(2, 3), bytes);
  REQUIRE(both.size() == 16);
  for (const double rate : both)
    CHECK(rate == simtrain::testing::Approx(nic_Bps / 6).epsilon(kSimGridTolerance));
}

TEST_CASE("traffic that stays under its leaf does not feel the leaf's oversubscription") {
  const ClusterSpec spec = three_level(4, 4);
  const double bytes = 1e9;
  const auto durations = run_in_child([&] {
    const BuiltPlatform p = build_exact(spec);
    // Node 2k sends to node 2k+1, its leaf neighbour, all at once.
    std::vector<std::pair<int, int>> flows;
    for (int node = 0; node < spec.nodes; node += 2) flows.push_back({node * 2, (node + 1) * 2});
    return timed_phases(p, {flows}, bytes);
  });
  REQUIRE(durations.size() == 8);
  const double latency_s = spec.intra_node.latency_s + 2 * spec.nics.latency_s + spec.fabric.switch_latency_s;
  for (const double d : durations)
    CHECK(d ==
          simtrain::testing::Approx(latency_s + bytes / spec.nics.bandwidth_Bps).epsilon(kSimGridTolerance));
}
