// The keys of rail-optimized fat-trees, dragonflies, tori and PCIe trees: what they parse to, and each
// impossible or misplaced value reported with file, line and field.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <string>

#include "simulator/platform/cluster_spec.h"
#include "tests/support/spec_text.h"

using namespace simtrain::platform;
using simtrain::testing::check_error;
using simtrain::testing::replace;

namespace {

const std::string kHead = R"(name = "test"
nodes = 4
gpus_per_node = 8
gpu = "a100-sxm4-80gb"
[intra_node]
fabric = "nvswitch"
bandwidth_GBps = 300
latency_us = 0.7
[nics]
count = 4
bandwidth_Gbps = 200
latency_us = 1.0
[fabric]
)";  // [fabric] is line 13

const std::string kRails = kHead + R"(topology = "fat-tree"
levels = 2
rail_optimized = true
nodes_per_leaf = 2
switch_latency_us = 0.3
)";

const std::string kTorus = kHead + R"(topology = "torus"
dimensions = [2, 2, 2]
link_bandwidth_Gbps = 400
link_latency_us = 0.5
)";

const std::string kDragonfly = kHead + R"(topology = "dragonfly"
groups = 2
group_links = 2
chassis_per_group = 2
chassis_links = 1
routers_per_chassis = 2
router_links = 1
nodes_per_router = 1
link_bandwidth_Gbps = 200
link_latency_us = 0.3
)";

const std::string kPcie = R"(name = "test"
nodes = 2
gpus_per_node = 8
gpu = "p100-pcie-16gb"
[intra_node]
fabric = "pcie"
bandwidth_GBps = 16
latency_us = 2
gpus_per_switch = 2
switch_uplink_GBps = 16
sockets = 2
host_bridge_GBps = 40
socket_link_GBps = 38.4
[nics]
count = 1
bandwidth_Gbps = 56
latency_us = 1.5
[fabric]
topology = "star"
switch_latency_us = 0.2
)";

}  // namespace

TEST_CASE("rail-optimized fat-trees, tori, dragonflies and PCIe trees parse to SI units") {
  const ClusterSpec rails = parse_cluster_spec(kRails, "ok.toml");
  CHECK(rails.fabric.rail_optimized);
  CHECK(rails.fabric.capacity() == 0);  // trees grow with the node count

  const ClusterSpec torus = parse_cluster_spec(kTorus, "ok.toml");
  CHECK(torus.fabric.topology == FabricTopology::Torus);
  CHECK(torus.fabric.torus_dimensions == std::vector<int>{2, 2, 2});
  CHECK(torus.fabric.link_bandwidth_Bps == 50e9);
  CHECK(torus.fabric.link_latency_s == simtrain::testing::Approx(0.5e-6).epsilon(1e-12));
  CHECK(torus.fabric.capacity() == 8);
  CHECK(torus.fabric.shape_line == 15);

  const ClusterSpec dragonfly = parse_cluster_spec(kDragonfly, "ok.toml");
  CHECK(dragonfly.fabric.dragonfly.group_links == 2);
  CHECK(dragonfly.fabric.capacity() == 8);

  const ClusterSpec pcie = parse_cluster_spec(kPcie, "ok.toml");
  CHECK(pcie.intra_node.pcie.gpus_per_switch == 2);
  CHECK(pcie.intra_node.pcie.switch_uplink_Bps == 16e9);
  CHECK(pcie.intra_node.pcie.sockets == 2);
  CHECK(pcie.intra_node.pcie.host_bridge_Bps == 40e9);
  CHECK(pcie.intra_node.pcie.socket_link_Bps == 38.4e9);
}

TEST_CASE("keys of another topology are errors naming the key and the topology they need") {
  check_error(kTorus + "levels = 2\n", 18, "fabric.levels", "fat-tree");
  check_error(kTorus + "groups = 2\n", 18, "fabric.groups", "dragonfly");
  check_error(kTorus + "switch_latency_us = 0.3\n", 18, "fabric.switch_latency_us", "link_latency_us");
  check_error(kDragonfly + "dimensions = [2]\n", 24, "fabric.dimensions", "torus");
  check_error(kRails + "link_latency_us = 0.3\n", 19, "fabric.link_latency_us", "dragonfly");
  check_error(kTorus + "radix = 8\n", 18, "fabric.radix", "unknown key");
  check_error(
      replace(kHead, "latency_us = 0.7", "latency_us = 0.7\nsockets = 2") + kRails.substr(kHead.size()), 9,
      "intra_node.sockets", "pcie");
}

TEST_CASE("impossible rails, tori and dragonflies are errors naming the field") {
  check_error(replace(kRails, "count = 4", "count = 3"), 10, "nics.count", "do not divide");
  check_error(replace(kRails, "levels = 2", "levels = 3\nleaves_per_pod = 2"), 17, "fabric.rail_optimized",
              "2 levels");
  check_error(replace(kRails, "rail_optimized = true", "rail_optimized = 1"), 16, "fabric.rail_optimized",
              "true or false");
  check_error(replace(kTorus, "[2, 2, 2]", "[2, 0, 2]"), 15, "fabric.dimensions", "positive");
  check_error(replace(kTorus, "[2, 2, 2]", "[]"), 15, "fabric.dimensions", "array");
  check_error(replace(kTorus, "link_bandwidth_Gbps = 400", "link_bandwidth_Gbps = 0"), 16,
              "fabric.link_bandwidth_Gbps", "positive");
  check_error(replace(kTorus, "link_bandwidth_Gbps = 400", "link_bandwidth_Gbps = inf"), 16,
              "fabric.link_bandwidth_Gbps", "finite");
  check_error(replace(kTorus, "link_latency_us = 0.5", "link_latency_us = -1"), 17, "fabric.link_latency_us",
              "positive");
  check_error(replace(kDragonfly, "link_latency_us = 0.3\n", ""), 13, "fabric.link_latency_us", "missing");
  check_error(replace(kDragonfly, "group_links = 2", "group_links = 0"), 16, "fabric.group_links",
              "positive");
  // SimGrid wires group j to router j of chassis 0: more groups than routers per chassis cannot be built.
  check_error(replace(kDragonfly, "groups = 2", "groups = 3"), 15, "fabric.groups", "routers_per_chassis");
  // More nodes than the shape holds: the shape's line.
  check_error(replace(kTorus, "nodes = 4", "nodes = 9"), 15, "fabric.dimensions", "9 nodes do not fit");
  check_error(replace(kDragonfly, "nodes = 4", "nodes = 9"), 15, "fabric.groups", "holds 8");
}

TEST_CASE("a node count set after parsing is checked against the shape, naming the spec's file and line") {
  ClusterSpec torus = parse_cluster_spec(kTorus, "torus.toml");
  torus.nodes = 8;
  CHECK_NOTHROW(check_nodes_fit(torus));
  torus.nodes = 64;
  try {
    check_nodes_fit(torus);
    FAIL("expected an Error");
  } catch (const simtrain::Error& error) {
    CHECK(std::string(error.what()) ==
          "torus.toml:15: fabric.dimensions: 64 nodes do not fit: the 2x2x2 torus holds 8");
  }
}

TEST_CASE("impossible PCIe trees are errors naming the field") {
  check_error(replace(kPcie, "gpus_per_switch = 2", "gpus_per_switch = 3"), 9, "intra_node.gpus_per_switch",
              "does not divide");
  check_error(replace(kPcie, "sockets = 2", "sockets = 3"), 11, "intra_node.sockets", "1 or 2");
  check_error(replace(kPcie, "gpus_per_switch = 2", "gpus_per_switch = 8"), 11, "intra_node.sockets",
              "1 PCIe switches do not split evenly");
  check_error(replace(kPcie, "host_bridge_GBps = 40\n", ""), 5, "intra_node.host_bridge_GBps", "missing");
  check_error(replace(kPcie, "host_bridge_GBps = 40", "host_bridge_GBps = 0"), 12,
              "intra_node.host_bridge_GBps", "positive");
  check_error(replace(kPcie, "socket_link_GBps = 38.4", "socket_link_GBps = nan"), 13,
              "intra_node.socket_link_GBps", "finite");
  check_error(replace(kPcie, "sockets = 2", "sockets = 1"), 13, "intra_node.socket_link_GBps", "sockets = 2");
  check_error(replace(kPcie, "gpus_per_switch = 2\n", ""), 9, "intra_node.switch_uplink_GBps",
              "gpus_per_switch");
  check_error(replace(kPcie, "topology = \"star\"",
                      "topology = \"fat-tree\"\nlevels = 2\nnodes_per_leaf = 2\n"
                      "rail_optimized = true"),
              22, "fabric.rail_optimized", "nvswitch");
}
