// A star or a 2- or 3-level fat-tree of aggregated links: a node's NICs are one uplink, a leaf's uplinks to
// the spines are one link, a pod's uplinks to the core are one link. This keeps a route O(depth) long and the
// platform O(GPUs) in size at 16k GPUs, while still capturing contention on a node's NICs and
// oversubscription at leaf and spine. Per-port ECMP (flows of one leaf hashed onto different spines) is left
// for later.
#include <algorithm>

#include "simulator/platform/fabric_builders.h"
#include "simulator/platform/node_zone.h"

namespace simtrain::platform {
namespace {

namespace sg4 = simgrid::s4u;

// Latency conventions, so that every switch on a path is counted exactly once and every NIC once per end:
// a node's uplink carries one NIC traversal plus half of the first switch above it; a leaf's or pod's
// uplink carries half of the switch below and half of the switch above (one switch latency in total).
// Then two GPUs under the same leaf see 2 NIC + 1 switch, under different leaves 2 NIC + 3 switches, in
// different pods 2 NIC + 5 switches.
double node_uplink_latency_s(const ClusterSpec& spec) {
  return spec.nics.latency_s + spec.fabric.switch_latency_s / 2;
}

// Node `node` under `parent`; returns its uplink bandwidth.
double attach_node(const ClusterSpec& spec, int node, sg4::NetZone* parent, ZoneTree& tree,
                   std::vector<sg4::Host*>& hosts) {
  const NodeZone built = build_node(spec, node, node_uplink_latency_s(spec), tree, hosts);
  tree.connect(parent, built.zone, built.gateway, ZoneTree::Route{});
  return built.uplink_Bps;
}

// Leaves [first_leaf, last_leaf) of nodes_per_leaf nodes each under `parent`, each connected by one
// aggregated uplink whose bandwidth is the leaf's node bandwidth over the leaf oversubscription, and one
// switch latency. Returns the sum of those uplinks.
double build_leaves(const ClusterSpec& spec, int first_leaf, int last_leaf, sg4::NetZone* parent,
                    ZoneTree& tree, std::vector<sg4::Host*>& hosts) {
  const int per_leaf = spec.fabric.nodes_per_leaf;
  double total_Bps = 0;
  for (int leaf = first_leaf; leaf < last_leaf; ++leaf) {
    const std::string name = "leaf" + std::to_string(leaf);
    sg4::NetZone* zone = tree.create_zone(name);
    double below_Bps = 0;
    for (int node = leaf * per_leaf; node < std::min(spec.nodes, (leaf + 1) * per_leaf); ++node)
      below_Bps += attach_node(spec, node, zone, tree, hosts);
    const double uplink_Bps = below_Bps / spec.fabric.leaf_oversubscription;
    tree.connect(parent, zone, tree.create_switch(zone, name + "-switch"), name + "-uplink", uplink_Bps,
                 spec.fabric.switch_latency_s);
    total_Bps += uplink_Bps;
  }
  return total_Bps;
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

constexpr int kStarGroupNodes = 64;

}  // namespace

void build_tree_fabric(const ClusterSpec& spec, ZoneTree& tree, std::vector<sg4::Host*>& hosts) {
  const FabricSpec& fabric = spec.fabric;
  if (fabric.topology == FabricTopology::Star) {
    // Nodes go into link-less groups under the switch, which add nothing to any route but keep the root's
    // children few (each one attached to the root costs a scan of every host; see ZoneTree).
    for (int group = 0; group < ceil_div(spec.nodes, kStarGroupNodes); ++group) {
      const std::string name = "group" + std::to_string(group);
      sg4::NetZone* zone = tree.create_zone(name);
      for (int node = group * kStarGroupNodes; node < std::min(spec.nodes, (group + 1) * kStarGroupNodes);
           ++node)
        attach_node(spec, node, zone, tree, hosts);
      tree.connect(tree.root(), zone, tree.create_switch(zone, name + "-port"), "", 0, 0);
    }
    return;
  }
  const int leaves = ceil_div(spec.nodes, fabric.nodes_per_leaf);
  if (fabric.levels == 2) {
    build_leaves(spec, 0, leaves, tree.root(), tree, hosts);
    return;
  }
  for (int pod = 0; pod < ceil_div(leaves, fabric.leaves_per_pod); ++pod) {
    const std::string name = "pod" + std::to_string(pod);
    sg4::NetZone* zone = tree.create_zone(name);
    const int first = pod * fabric.leaves_per_pod;
    const double below_Bps =
        build_leaves(spec, first, std::min(leaves, first + fabric.leaves_per_pod), zone, tree, hosts);
    tree.connect(tree.root(), zone, tree.create_switch(zone, name + "-switch"), name + "-uplink",
                 below_Bps / fabric.spine_oversubscription, fabric.switch_latency_s);
  }
}

}  // namespace simtrain::platform
