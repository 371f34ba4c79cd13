// PCIe nodes: GPUs under PCIe switches under their socket's host bridge, the NIC on socket 0's bridge. Flows
// between switches and flows to the NIC meet on the bridge and share it; flows under one switch do not.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <algorithm>

#include "simulator/platform/simgrid_platform.h"
#include "tests/support/child_process.h"
#include "tests/support/simgrid_fixtures.h"

using namespace simtrain::platform;
using namespace simtrain::testing;

namespace {

// 2 nodes laid out like DeepBench's box: 8 GPUs, 2 per switch, 2 sockets. The host bridges (10 GB/s) are
// the narrowest part, below the GPUs' and switches' 16 GB/s, the NIC's 12.5 and the socket link's 20.
ClusterSpec pcie_box() {
  ClusterSpec spec;
  spec.name = "pcie";
  spec.nodes = 2;
  spec.gpus_per_node = 8;
  spec.intra_node.fabric = IntraNodeFabric::PCIe;
  spec.intra_node.bandwidth_Bps = 16e9;
  spec.intra_node.latency_s = 2e-6;
  spec.intra_node.pcie = {2, 16e9, 2, 10e9, 20e9};
  spec.nics = {1, 12.5e9, 1.5e-6};
  spec.fabric.switch_latency_s = 0.2e-6;
  return spec;
}

}  // namespace

TEST_CASE("PCIe routes climb only as far as the switch, the host bridge or the socket link they need") {
  const ClusterSpec spec = pcie_box();
  const auto values = run_in_child([&] {
    const BuiltPlatform p = build_exact(spec);
    expect_route(p, 0, 1, "node0-gpu0-link_UP node0-gpu1-link_DOWN");  // one PCIe switch
    expect_route(p, 1, 2,
                 "node0-gpu1-link_UP node0-pcie0-uplink_UP node0-socket0-bridge_UP node0-socket0-bridge_DOWN "
                 "node0-pcie1-uplink_DOWN node0-gpu2-link_DOWN");
    expect_route(p, 3, 4,
                 "node0-gpu3-link_UP node0-pcie1-uplink_UP node0-socket0-bridge_UP node0-socket-link_DOWN "
                 "node0-socket1-bridge_DOWN node0-pcie2-uplink_DOWN node0-gpu4-link_DOWN");
    // To the other node: up socket 0's bridge and down again to the NIC, whose uplink leaves the node.
    expect_route(p, 0, 8,
                 "node0-gpu0-link_UP node0-pcie0-uplink_UP node0-socket0-bridge_UP node0-socket0-bridge_DOWN "
                 "node0-uplink_UP node1-uplink_DOWN node1-socket0-bridge_UP node1-socket0-bridge_DOWN "
                 "node1-pcie0-uplink_DOWN node1-gpu0-link_DOWN");
    return std::vector<double>{route_latency(p.gpu_hosts[3], p.gpu_hosts[4]),
                               route_latency(p.gpu_hosts[0], p.gpu_hosts[8]), p.intra_node_bandwidth_Bps};
  });
  REQUIRE(values.size() == 3);
  CHECK(values[0] == simtrain::testing::Approx(spec.intra_node.latency_s).epsilon(kSimGridTolerance));
  CHECK(values[1] == simtrain::testing::Approx(spec.intra_node.latency_s + 2 * spec.nics.latency_s +
                                               spec.fabric.switch_latency_s)
                         .epsilon(kSimGridTolerance));
  // A ring over the 8 GPUs crosses socket 0's bridge twice each way (1 -> 2 and 3 -> 4 up, 1 -> 2 and
  // 7 -> 0 down): analytic collectives get 10 / 2 GB/s per GPU, not the x16 links' 16.
  CHECK(values[2] == 5e9);
}

TEST_CASE("GPU-to-GPU traffic between switches and NIC traffic share the host bridge") {
  const ClusterSpec spec = pcie_box();
  const double bytes = 1e9;
  const auto durations = run_in_child([&] {
    const BuiltPlatform p = build_exact(spec);
    // 1: GPU 1 -> GPU 2 alone. 2: the same while GPU 0 sends to the other node. 3: GPU 0 -> GPU 1 (one
    // switch) while GPU 2 sends to the other node: nothing shared but nothing narrower than 16 GB/s.
    return timed_phases(p, {{{1, 2}}, {{1, 2}, {0, 8}}, {{0, 1}, {2, 9}}}, bytes);
  });
  REQUIRE(durations.size() == 5);
  const double local_s = spec.intra_node.latency_s;
  const double remote_s = local_s + 2 * spec.nics.latency_s + spec.fabric.switch_latency_s;
  const double bridge_Bps = spec.intra_node.pcie.host_bridge_Bps;
  CHECK(durations[0] == simtrain::testing::Approx(local_s + bytes / bridge_Bps).epsilon(kSimGridTolerance));
  // Sharing the bridge, the two keep it busy from the first one's start until both are done. (SimGrid's CM02
  // shares a link in inverse proportion to the flows' route latencies, so they do not finish together.)
  CHECK(std::max(durations[1], durations[2]) ==
        simtrain::testing::Approx(local_s + 2 * bytes / bridge_Bps).epsilon(kSimGridTolerance));
  CHECK(durations[3] == simtrain::testing::Approx(local_s + bytes / 16e9).epsilon(kSimGridTolerance));
  CHECK(durations[4] == simtrain::testing::Approx(remote_s + bytes / bridge_Bps).epsilon(kSimGridTolerance));
}

TEST_CASE("GPUs directly on one host bridge share it in a ring") {
  ClusterSpec spec = pcie_box();
  spec.nodes = 1;
  spec.gpus_per_node = 4;
  spec.intra_node.pcie = {0, 0, 1, 24e9, 0};  // no switches, one socket
  const auto values = run_in_child([&] {
    const BuiltPlatform p = build_exact(spec);
    expect_route(p, 0, 1,
                 "node0-gpu0-link_UP node0-socket0-bridge_UP node0-socket0-bridge_DOWN node0-gpu1-link_DOWN");
    return std::vector<double>{p.intra_node_bandwidth_Bps};
  });
  REQUIRE(values.size() == 1);
  CHECK(values[0] == 6e9);  // 4 ring hops through a 24 GB/s bridge
}
