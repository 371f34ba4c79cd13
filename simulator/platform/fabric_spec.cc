// Implements fabric_spec.h. Each topology takes its own keys and refuses the others' by name, so that a key
// meant for another topology cannot be silently ignored.
#include "simulator/platform/fabric_spec.h"

#include <cstdint>
#include <string>

namespace simtrain::platform {
namespace {

constexpr double kGbToBytes = 1e9 / 8;  // 1 Gb/s = 1e9 bits/s
constexpr double kMicrosecond = 1e-6;
// A dragonfly or torus larger than this would take minutes to build; no machine studied here is near it.
constexpr std::int64_t kMaxClusterNodes = 1'000'000;

const std::vector<std::string_view> kTreeKeys = {
    "levels",        "nodes_per_leaf", "leaves_per_pod", "leaf_oversubscription", "spine_oversubscription",
    "rail_optimized"};
const std::vector<std::string_view> kDragonflyKeys = {
    "groups",       "group_links",     "chassis_per_group", "chassis_links", "routers_per_chassis",
    "router_links", "nodes_per_router"};
const std::vector<std::string_view> kTorusKeys = {"dimensions"};
const std::vector<std::string_view> kClusterLinkKeys = {"link_bandwidth_Gbps", "link_latency_us"};

void read_tree(const Section& section, const ClusterSpec& node_spec, FabricSpec& spec) {
  spec.switch_latency_s = section.number("switch_latency_us") * kMicrosecond;
  if (spec.topology == FabricTopology::Star) {
    section.forbid(kTreeKeys, "topology = \"fat-tree\"");
    return;
  }
  spec.levels = section.positive_int("levels");
  if (spec.levels != 2 && spec.levels != 3) section.fail("levels", "a fat-tree has 2 or 3 levels");
  spec.nodes_per_leaf = section.positive_int("nodes_per_leaf");
  spec.leaf_oversubscription = section.number_or("leaf_oversubscription", 1.0, 1.0);
  if (spec.levels == 3) {
    spec.leaves_per_pod = section.positive_int("leaves_per_pod");
    spec.spine_oversubscription = section.number_or("spine_oversubscription", 1.0, 1.0);
  } else {
    section.forbid({"leaves_per_pod", "spine_oversubscription"}, "levels = 3");
  }
  spec.rail_optimized = section.boolean_or("rail_optimized", false);
  if (spec.rail_optimized && spec.levels != 2)
    section.fail("rail_optimized", "rail-optimized fabrics have 2 levels (rail leaves under spines)");
  // A PCIe node's NICs hang on its host bridge, aggregated; splitting them into rails is not modelled.
  if (spec.rail_optimized && node_spec.intra_node.fabric == IntraNodeFabric::PCIe)
    section.fail("rail_optimized", "rails need intra_node.fabric = \"nvswitch\" or \"nvlink-mesh\"");
  // A rail is one NIC index serving gpus_per_node / count GPUs of every node; more NICs than GPUs would
  // give a GPU several rails, which rail_fabric.cc does not wire.
  if (spec.rail_optimized && node_spec.nics.count > node_spec.gpus_per_node)
    section.fail("rail_optimized",
                 "rails need at most one NIC per GPU (nics.count = " + std::to_string(node_spec.nics.count) +
                     " > gpus_per_node = " + std::to_string(node_spec.gpus_per_node) + ")");
}

void read_dragonfly(const Section& section, FabricSpec& spec) {
  DragonflySpec& d = spec.dragonfly;
  d.groups = section.positive_int("groups");
  d.group_links = section.positive_int("group_links");
  d.chassis_per_group = section.positive_int("chassis_per_group");
  d.chassis_links = section.positive_int("chassis_links");
  d.routers_per_chassis = section.positive_int("routers_per_chassis");
  d.router_links = section.positive_int("router_links");
  d.nodes_per_router = section.positive_int("nodes_per_router");
  // SimGrid plugs group j's global link into router j of chassis 0 of every other group.
  if (d.groups > d.routers_per_chassis)
    section.fail("groups", std::to_string(d.groups) + " groups need at least as many routers_per_chassis (" +
                               std::to_string(d.routers_per_chassis) +
                               "): SimGrid attaches the link to group j to router j of chassis 0");
  const std::int64_t capacity =
      std::int64_t{d.groups} * d.chassis_per_group * d.routers_per_chassis * d.nodes_per_router;
  if (capacity > kMaxClusterNodes)
    section.fail("groups", "the dragonfly holds " + std::to_string(capacity) + " nodes; at most " +
                               std::to_string(kMaxClusterNodes) + " are supported");
  spec.shape_line = section.line("groups");
}

void read_torus(const Section& section, FabricSpec& spec) {
  spec.torus_dimensions = section.positive_ints("dimensions");
  std::int64_t capacity = 1;
  for (const int size : spec.torus_dimensions) {
    capacity *= size;
    if (capacity > kMaxClusterNodes)
      section.fail("dimensions", "the torus holds more than " + std::to_string(kMaxClusterNodes) + " nodes");
  }
  spec.shape_line = section.line("dimensions");
}

}  // namespace

FabricSpec read_fabric(const Section& section, const ClusterSpec& node_spec) {
  section.only_keys({"topology", "levels", "nodes_per_leaf", "leaves_per_pod", "leaf_oversubscription",
                     "spine_oversubscription", "rail_optimized", "switch_latency_us", "groups", "group_links",
                     "chassis_per_group", "chassis_links", "routers_per_chassis", "router_links",
                     "nodes_per_router", "dimensions", "link_bandwidth_Gbps", "link_latency_us"});
  FabricSpec spec;
  spec.topology = section.choice<FabricTopology>("topology", {{"star", FabricTopology::Star},
                                                              {"fat-tree", FabricTopology::FatTree},
                                                              {"dragonfly", FabricTopology::Dragonfly},
                                                              {"torus", FabricTopology::Torus}});
  const bool tree = spec.topology == FabricTopology::Star || spec.topology == FabricTopology::FatTree;
  if (tree) {
    section.forbid(kDragonflyKeys, "topology = \"dragonfly\"");
    section.forbid(kTorusKeys, "topology = \"torus\"");
    section.forbid(kClusterLinkKeys, "topology = \"dragonfly\" or \"torus\"");
    read_tree(section, node_spec, spec);
    return spec;
  }
  // Dragonfly and torus links carry their routers' latency: there is no separate switch figure.
  section.forbid({"switch_latency_us"}, "star and fat-tree (dragonfly and torus take link_latency_us)");
  section.forbid(kTreeKeys, "topology = \"fat-tree\"");
  if (spec.topology == FabricTopology::Dragonfly) {
    section.forbid(kTorusKeys, "topology = \"torus\"");
    read_dragonfly(section, spec);
  } else {
    section.forbid(kDragonflyKeys, "topology = \"dragonfly\"");
    read_torus(section, spec);
  }
  spec.link_bandwidth_Bps = section.number("link_bandwidth_Gbps") * kGbToBytes;
  spec.link_latency_s = section.number("link_latency_us") * kMicrosecond;
  return spec;
}

}  // namespace simtrain::platform
