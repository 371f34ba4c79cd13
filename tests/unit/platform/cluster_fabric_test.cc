// Torus and dragonfly fabrics (SimGrid's own cluster zones, a node at every leaf): route latencies follow
// each topology's hop count, and a ring of flows on a uniform torus takes the alpha-beta closed form.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <cstdlib>

#include "simulator/platform/simgrid_platform.h"
#include "tests/support/child_process.h"
#include "tests/support/simgrid_fixtures.h"

using namespace simtrain::platform;
using namespace simtrain::testing;

namespace {

ClusterSpec cluster_of(FabricTopology topology, int nodes) {
  ClusterSpec spec;
  spec.name = "cluster";
  spec.nodes = nodes;
  spec.gpus_per_node = 2;
  spec.intra_node = {IntraNodeFabric::NVSwitch, 300e9, 0.7e-6};
  spec.nics = {2, 25e9, 1.0e-6};  // 50 GB/s per node: the fabric's links are the narrower part
  spec.fabric.topology = topology;
  spec.fabric.link_bandwidth_Bps = 12.5e9;
  spec.fabric.link_latency_s = 0.4e-6;
  return spec;
}

// Hops between two positions of a torus: per dimension, the shorter way round (the first dimension varies
// fastest).
int torus_hops(const std::vector<int>& dimensions, int from, int to) {
  int hops = 0;
  for (const int size : dimensions) {
    const int distance = std::abs(from % size - to % size);
    hops += std::min(distance, size - distance);
    from /= size;
    to /= size;
  }
  return hops;
}

// Links on SimGrid's minimal dragonfly route: node to router and router to node, plus, between routers,
// the green (same chassis) and black (same router index, other chassis) hops; between groups, first to
// router <target group> of chassis 0 of the own group, over the global link to router <own group> of
// chassis 0 of the target group, then on to the target router.
int dragonfly_links(const DragonflySpec& d, int from, int to) {
  struct Coords {
    int group, chassis, router;
  };
  const auto coords = [&](int node) {
    const int router = node / d.nodes_per_router;
    return Coords{router / (d.chassis_per_group * d.routers_per_chassis),
                  router / d.routers_per_chassis % d.chassis_per_group, router % d.routers_per_chassis};
  };
  const Coords a = coords(from), b = coords(to);
  int links = 2;
  if (a.group == b.group) {
    links += (a.router != b.router) + (a.chassis != b.chassis);
  } else {
    links += (a.router != b.group) + (a.chassis != 0) + 1 + (b.router != a.group) + (b.chassis != 0);
  }
  return links;
}

}  // namespace

TEST_CASE("torus routes take the shorter way round in every dimension, through leaves without nodes") {
  ClusterSpec spec = cluster_of(FabricTopology::Torus, 20);  // of 24 positions: 20..23 are bare routers
  spec.fabric.torus_dimensions = {4, 3, 2};
  const std::vector<std::pair<int, int>> pairs = {{0, 1}, {0, 3}, {0, 2}, {0, 5}, {0, 19}, {19, 8}, {6, 17}};
  const auto latencies = run_in_child([&] {
    const BuiltPlatform p = build_exact(spec);
    // Node 0 to node 1: its NIC, the x link, the peer's NIC.
    expect_route(p, 0, 2,
                 "node0-gpu0-link_UP node0-uplink_UP torus_link_from_0_to_1_UP node1-uplink_DOWN "
                 "node1-gpu0-link_DOWN");
    std::vector<double> out{static_cast<double>(p.gpu_hosts.size())};
    for (const auto& [a, b] : pairs) out.push_back(route_latency(p.gpu_hosts[a * 2], p.gpu_hosts[b * 2 + 1]));
    return out;
  });
  REQUIRE(latencies.size() == pairs.size() + 1);
  CHECK(latencies[0] == 40);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto [a, b] = pairs[i];
    const int hops = torus_hops(spec.fabric.torus_dimensions, a, b);
    INFO(a << " -> " << b << ": " << hops << " hops");
    CHECK(latencies[i + 1] == simtrain::testing::Approx(spec.intra_node.latency_s + 2 * spec.nics.latency_s +
                                                        hops * spec.fabric.link_latency_s)
                                  .epsilon(kSimGridTolerance));
  }
  CHECK(torus_hops(spec.fabric.torus_dimensions, 19, 8) == 3);  // passes position 20, a bare router
}

TEST_CASE("dragonfly routes cross the links of SimGrid's minimal routing") {
  ClusterSpec spec = cluster_of(FabricTopology::Dragonfly, 72);
  spec.fabric.dragonfly = {3, 1, 2, 1, 3, 1, 4};            // 3 groups x 2 chassis x 3 routers x 4 nodes = 72
  const std::vector<std::pair<int, int>> pairs = {{0, 1},   // one router
                                                  {0, 5},   // same chassis, next router
                                                  {0, 13},  // same router index, other chassis
                                                  {5, 21},  // other chassis and router
                                                  {0, 30},  // group 0 -> 1 from router 0: to router 1 first
                                                  {4, 25},  // router 1 of group 0 holds the link to group 1
                                                  {71, 2},  // group 2, chassis 1 -> group 0
                                                  {20, 60}};  // group 0 chassis 1 -> group 2 chassis 1
  const auto latencies = run_in_child([&] {
    const BuiltPlatform p = build_exact(spec);
    std::vector<double> out;
    for (const auto& [a, b] : pairs) out.push_back(route_latency(p.gpu_hosts[a * 2], p.gpu_hosts[b * 2]));
    return out;
  });
  REQUIRE(latencies.size() == pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto [a, b] = pairs[i];
    const int links = dragonfly_links(spec.fabric.dragonfly, a, b);
    INFO(a << " -> " << b << ": " << links << " links");
    CHECK(latencies[i] == simtrain::testing::Approx(spec.intra_node.latency_s + 2 * spec.nics.latency_s +
                                                    links * spec.fabric.link_latency_s)
                              .epsilon(kSimGridTolerance));
  }
  CHECK(dragonfly_links(spec.fabric.dragonfly, 0, 30) == 5);  // local, green, blue, local... hand-checked
  CHECK(dragonfly_links(spec.fabric.dragonfly, 71, 2) == 6);
}

TEST_CASE("a step-by-step ring all-reduce on a uniform torus takes 2(N-1)(alpha + S/(N B))") {
  // 4 x 2 torus, one GPU per node in the ring, in snake order so that every step's 8 flows each take their
  // own one-hop link: 0 1 2 3 7 6 5 4.
  ClusterSpec spec = cluster_of(FabricTopology::Torus, 8);
  spec.fabric.torus_dimensions = {4, 2};
  const std::vector<int> ring = {0, 1, 2, 3, 7, 6, 5, 4};
  const double bytes = 64e6;
  const auto values = run_in_child([&] {
    const BuiltPlatform p = build_exact(spec);
    const int n = static_cast<int>(ring.size());
    double end_s = 0;
    sg4::Actor::create("ring", p.gpu_hosts[0], [&] {
      for (int step = 0; step < 2 * (n - 1); ++step) {
        std::vector<sg4::CommPtr> comms;
        for (int i = 0; i < n; ++i)
          comms.push_back(sg4::Comm::sendto_async(p.gpu_hosts[ring[i] * 2],
                                                  p.gpu_hosts[ring[(i + 1) % n] * 2],
                                                  static_cast<uint64_t>(bytes / n)));
        for (const auto& comm : comms) comm->wait();
      }
      end_s = sg4::Engine::get_clock();
    });
    sg4::Engine::get_instance()->run();
    return std::vector<double>{end_s, route_latency(p.gpu_hosts[6], p.gpu_hosts[14])};
  });
  REQUIRE(values.size() == 2);
  const int n = 8;
  const double alpha = spec.intra_node.latency_s + 2 * spec.nics.latency_s + spec.fabric.link_latency_s;
  CHECK(values[1] == simtrain::testing::Approx(alpha).epsilon(kSimGridTolerance));  // 3 -> 7: one y hop
  const double expected = 2 * (n - 1) * (alpha + bytes / n / spec.fabric.link_bandwidth_Bps);
  CHECK(values[0] == simtrain::testing::Approx(expected).epsilon(kSimGridTolerance));
}
