// A rail-optimized 2-level fat-tree (DGX SuperPOD wiring): nodes in groups of nodes_per_leaf; in each group,
// NIC i of every node plugs into the group's rail-i leaf, and all leaves meet at the spines (the root). A GPU
// uses the NIC of its rail, i = local GPU / (GPUs per node / NICs), so traffic between GPUs of one rail stays
// under their rail leaf, and traffic between rails crosses a spine.
//
// SimGrid routes between zones through one gateway per zone, but here a node has one way out per rail. So a
// node is split into one zone per rail (node<N>-rail<R>, the GPUs of that rail) under that rail's leaf, and
// the NVSwitch joining the rails of one node is a bypass route between those zones, declared in the root,
// which is their common ancestor.
#include <algorithm>
#include <string>

#include "simulator/platform/fabric_builders.h"
#include "simulator/platform/node_zone.h"

namespace simtrain::platform {
namespace {

namespace sg4 = simgrid::s4u;
using Direction = sg4::LinkInRoute::Direction;

// One rail's part of a node.
struct RailPart {
  sg4::NetZone* zone = nullptr;
  ZoneTree::NetPoint* switch_port = nullptr;  // the zone's centre: where the node's NVSwitch joins it
};

// The GPUs of rail `rail` of node `node` in a zone under `leaf`, with their NIC node<N>-nic<R> (one NIC
// latency plus half the leaf switch's) on the way out. Hosts go to their rank's slot.
RailPart build_rail_part(const ClusterSpec& spec, int node, int rail, sg4::NetZone* leaf, ZoneTree& tree,
                         std::vector<sg4::Host*>& slots) {
  const std::string name = "node" + std::to_string(node) + "-rail" + std::to_string(rail);
  RailPart part;
  part.zone = tree.create_zone(name);
  const int per_rail = spec.gpus_per_node / spec.nics.count;
  for (int gpu = rail * per_rail; gpu < (rail + 1) * per_rail; ++gpu) {
    std::vector<sg4::Host*> made;
    sg4::Link* link = create_gpu(spec, part.zone, node, gpu, made);
    part.zone->add_route(made.back()->get_netpoint(), nullptr, nullptr, nullptr, {{link, Direction::UP}},
                         true);
    slots[static_cast<size_t>(node) * spec.gpus_per_node + gpu] = made.back();
  }
  part.switch_port = part.zone->create_router(name + "-port");
  ZoneTree::NetPoint* nic_end = part.zone->create_router(name + "-nic");
  sg4::Link* nic =
      ZoneTree::duplex_link(part.zone, "node" + std::to_string(node) + "-nic" + std::to_string(rail),
                            spec.nics.bandwidth_Bps, spec.nics.latency_s + spec.fabric.switch_latency_s / 2);
  part.zone->add_route(nic_end, nullptr, nullptr, nullptr, {{nic, Direction::DOWN}}, true);
  tree.connect(leaf, part.zone, nic_end, ZoneTree::Route{});
  return part;
}

// The NVSwitch between a node's rails: GPU to GPU of different rails crosses its two GPU links and this
// link. A bypass route cannot be empty in SimGrid 3.32, so the switch is a fat-pipe link (each flow alone
// limited to a GPU's bandwidth, never shared) without latency: routes keep the intra-node latency and
// bandwidth of GPUs under one rail. Its name contains "-gpu" so that --degrade refuses it with the GPU
// links: intra-node collectives are analytic and would not see it.
void join_rails(const ClusterSpec& spec, int node, const std::vector<RailPart>& parts, sg4::NetZone* root) {
  sg4::Link* nvswitch =
      root->create_link("node" + std::to_string(node) + "-gpu-switch", spec.intra_node.bandwidth_Bps)
          ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
          ->seal();
  for (const RailPart& from : parts)
    for (const RailPart& to : parts)
      if (from.zone != to.zone)
        root->add_bypass_route(from.zone->get_netpoint(), to.zone->get_netpoint(), from.switch_port,
                               to.switch_port, {{nvswitch, Direction::NONE}});
}

}  // namespace

void build_rail_fabric(const ClusterSpec& spec, ZoneTree& tree, std::vector<sg4::Host*>& hosts) {
  const int rails = spec.nics.count;
  const int per_leaf = spec.fabric.nodes_per_leaf;
  // Rails are built one after another, so a node's GPUs are made out of rank order: each goes to its slot.
  std::vector<sg4::Host*> slots(static_cast<size_t>(spec.gpu_count()), nullptr);
  for (int group = 0; group * per_leaf < spec.nodes; ++group) {
    const int first = group * per_leaf, last = std::min(spec.nodes, (group + 1) * per_leaf);
    std::vector<std::vector<RailPart>> parts(static_cast<size_t>(last - first));
    for (int rail = 0; rail < rails; ++rail) {
      const std::string name = "leaf" + std::to_string(group) + "-rail" + std::to_string(rail);
      sg4::NetZone* leaf = tree.create_zone(name);
      for (int node = first; node < last; ++node)
        parts[node - first].push_back(build_rail_part(spec, node, rail, leaf, tree, slots));
      const double uplink_Bps = (last - first) * spec.nics.bandwidth_Bps / spec.fabric.leaf_oversubscription;
      tree.connect(tree.root(), leaf, tree.create_switch(leaf, name + "-switch"), name + "-uplink",
                   uplink_Bps, spec.fabric.switch_latency_s);
    }
    if (rails > 1)
      for (int node = first; node < last; ++node) join_rails(spec, node, parts[node - first], tree.root());
  }
  hosts.insert(hosts.end(), slots.begin(), slots.end());
}

}  // namespace simtrain::platform
