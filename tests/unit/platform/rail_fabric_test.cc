// Rail-optimized fat-trees: a GPU's traffic to other nodes leaves by the NIC of its rail, stays under that
// rail's leaf when it goes to a GPU of the same rail, and crosses a spine only between rails or units.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "simulator/platform/simgrid_platform.h"
#include "tests/support/child_process.h"
#include "tests/support/simgrid_fixtures.h"

using namespace simtrain::platform;
using namespace simtrain::testing;

namespace {

// 4 nodes x 8 GPUs, 4 NICs of 100 Gb/s (12.5 GB/s) each, so GPUs 2i and 2i+1 use NIC i; 2 nodes per
// scalable unit, so two units of 4 rail leaves each.
ClusterSpec small_rails() {
  ClusterSpec spec;
  spec.name = "rails";
  spec.nodes = 4;
  spec.gpus_per_node = 8;
  spec.intra_node = {IntraNodeFabric::NVSwitch, 300e9, 0.7e-6};
  spec.nics = {4, 12.5e9, 1.0e-6};
  spec.fabric.topology = FabricTopology::FatTree;
  spec.fabric.levels = 2;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.rail_optimized = true;
  spec.fabric.switch_latency_s = 0.3e-6;
  return spec;
}

}  // namespace

TEST_CASE("same-rail traffic crosses only its rail leaf; other rails and other units cross a spine") {
  const ClusterSpec spec = small_rails();
  const auto values = run_in_child([&] {
    const BuiltPlatform p = build_exact(spec);
    // Ranks in order whatever order the rails were built in.
    for (int rank = 0; rank < spec.gpu_count(); ++rank)
      if (p.gpu_hosts[rank]->get_name() !=
          "node" + std::to_string(rank / 8) + "-gpu" + std::to_string(rank % 8))
        throw std::runtime_error("rank " + std::to_string(rank) + " is " + p.gpu_hosts[rank]->get_name());
    // node0-gpu0 -> node1-gpu0 and node0-gpu1 -> node1-gpu1: rail 0, unit 0.
    expect_route(p, 0, 8, "node0-gpu0-link_UP node0-nic0_UP node1-nic0_DOWN node1-gpu0-link_DOWN");
    expect_route(p, 1, 9, "node0-gpu1-link_UP node0-nic0_UP node1-nic0_DOWN node1-gpu1-link_DOWN");
    // GPU 0 to GPU 2 of another node: rail 0 to rail 1 through the spine.
    expect_route(p, 0, 10,
                 "node0-gpu0-link_UP node0-nic0_UP leaf0-rail0-uplink_UP leaf0-rail1-uplink_DOWN "
                 "node1-nic1_DOWN node1-gpu2-link_DOWN");
    // Rail 3 of unit 0 to rail 3 of unit 1: the same rail, but through the spine between units.
    expect_route(p, 7, 23,
                 "node0-gpu7-link_UP node0-nic3_UP leaf0-rail3-uplink_UP leaf1-rail3-uplink_DOWN "
                 "node2-nic3_DOWN node2-gpu7-link_DOWN");
    // Inside a node: NVSwitch, whatever the rails.
    expect_route(p, 0, 1, "node0-gpu0-link_UP node0-gpu1-link_DOWN");
    expect_route(p, 0, 7, "node0-gpu0-link_UP node0-gpu-switch node0-gpu7-link_DOWN");
    return std::vector<double>{route_latency(p.gpu_hosts[0], p.gpu_hosts[8]),
                               route_latency(p.gpu_hosts[0], p.gpu_hosts[10]),
                               route_latency(p.gpu_hosts[0], p.gpu_hosts[7]), p.intra_node_bandwidth_Bps};
  });
  REQUIRE(values.size() == 4);
  const double nvlink = spec.intra_node.latency_s, nic = spec.nics.latency_s,
               sw = spec.fabric.switch_latency_s;
  CHECK(values[0] == simtrain::testing::Approx(nvlink + 2 * nic + sw).epsilon(kSimGridTolerance));
  CHECK(values[1] == simtrain::testing::Approx(nvlink + 2 * nic + 3 * sw).epsilon(kSimGridTolerance));
  CHECK(values[2] == simtrain::testing::Approx(nvlink).epsilon(kSimGridTolerance));
  CHECK(values[3] == 300e9);  // the NVSwitch fat-pipe is not a shared link
}

TEST_CASE("GPUs of different rails send over different NICs at full rate; one rail's GPUs share its NIC") {
  const ClusterSpec spec = small_rails();
  const double bytes = 1e9;
  const auto durations = run_in_child([&] {
    const BuiltPlatform p = build_exact(spec);
    // Phase 1: node0 GPUs 0 and 2 (rails 0 and 1) to node1 GPUs 0 and 2. Phase 2: GPUs 0 and 1 (rail 0).
    return timed_phases(p, {{{0, 8}, {2, 10}}, {{0, 8}, {1, 9}}}, bytes);
  });
  REQUIRE(durations.size() == 4);
  const double latency_s = spec.intra_node.latency_s + 2 * spec.nics.latency_s + spec.fabric.switch_latency_s;
  const double nic_Bps = spec.nics.bandwidth_Bps;
  CHECK(durations[0] == simtrain::testing::Approx(latency_s + bytes / nic_Bps).epsilon(kSimGridTolerance));
  CHECK(durations[1] == simtrain::testing::Approx(latency_s + bytes / nic_Bps).epsilon(kSimGridTolerance));
  CHECK(durations[2] ==
        simtrain::testing::Approx(latency_s + bytes / (nic_Bps / 2)).epsilon(kSimGridTolerance));
  CHECK(durations[3] ==
        simtrain::testing::Approx(latency_s + bytes / (nic_Bps / 2)).epsilon(kSimGridTolerance));
}

TEST_CASE("a rail leaf's spine uplink carries its nodes' NICs over the leaf oversubscription") {
  ClusterSpec spec = small_rails();
  spec.fabric.leaf_oversubscription = 2;  // leaf0-rail0's uplink: 2 NICs x 12.5 GB/s / 2
  const double bytes = 1e9;
  const auto durations = run_in_child([&] {
    const BuiltPlatform p = build_exact(spec);
    // Nodes 0 and 1 send from rail 0 to rail 0 of unit 1: both cross leaf0-rail0's uplink.
    return timed_phases(p, {{{0, 16}, {8, 24}}}, bytes);
  });
  REQUIRE(durations.size() == 2);
  const double latency_s =
      spec.intra_node.latency_s + 2 * spec.nics.latency_s + 3 * spec.fabric.switch_latency_s;
  for (const double d : durations)
    CHECK(d == simtrain::testing::Approx(latency_s + bytes / (spec.nics.bandwidth_Bps / 2))
                   .epsilon(kSimGridTolerance));
}
