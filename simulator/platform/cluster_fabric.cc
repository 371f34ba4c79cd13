// Dragonfly and torus fabrics: SimGrid's own cluster zones route between their leaves, and every leaf is a
// node zone (its GPUs and NIC uplink) reached through its NIC end. Leaves beyond the node count are bare
// routers, which a torus still routes through.
//
// SimGrid numbers a cluster's leaves by the order in which they join it and routes by those numbers, so each
// node is attached to the cluster zone as soon as its callback builds it. The cluster zone itself is made
// detached from the root (see ZoneTree) and gets the root's models at its first callback, before SimGrid
// creates any of its links.
#include <simgrid/s4u/NetZone.hpp>
#include <string>

#include "simulator/platform/fabric_builders.h"
#include "simulator/platform/node_zone.h"

namespace simtrain::platform {

namespace sg4 = simgrid::s4u;

void build_cluster_fabric(const ClusterSpec& spec, ZoneTree& tree, std::vector<sg4::Host*>& hosts) {
  const FabricSpec& fabric = spec.fabric;
  const bool torus = fabric.topology == FabricTopology::Torus;
  const std::string name = torus ? "torus" : "dragonfly";
  bool models_set = false;
  // The node's uplink carries one NIC latency; the cluster's links carry the hops.
  const sg4::ClusterCallbacks callbacks(
      [&](sg4::NetZone* cluster, const std::vector<unsigned long>&,
          unsigned long position) -> std::pair<ZoneTree::NetPoint*, ZoneTree::NetPoint*> {
        if (!models_set) tree.adopt_models(cluster), models_set = true;
        if (position >= static_cast<unsigned long>(spec.nodes))
          return {cluster->create_router(name + "-router" + std::to_string(position)), nullptr};
        const NodeZone node = build_node(spec, static_cast<int>(position), spec.nics.latency_s, tree, hosts);
        tree.attach_pending();
        node.zone->set_parent(cluster);
        node.zone->seal();
        return {node.zone->get_netpoint(), node.gateway};
      });
  sg4::NetZone* cluster = nullptr;
  if (torus) {
    const std::vector<unsigned long> dimensions(fabric.torus_dimensions.begin(),
                                                fabric.torus_dimensions.end());
    cluster = sg4::create_torus_zone(name, nullptr, dimensions, callbacks, fabric.link_bandwidth_Bps,
                                     fabric.link_latency_s, sg4::Link::SharingPolicy::SPLITDUPLEX);
  } else {
    const DragonflySpec& d = fabric.dragonfly;
    const auto count = [](int value) { return static_cast<unsigned int>(value); };
    const sg4::DragonflyParams shape(
        {count(d.groups), count(d.group_links)}, {count(d.chassis_per_group), count(d.chassis_links)},
        {count(d.routers_per_chassis), count(d.router_links)}, count(d.nodes_per_router));
    cluster = sg4::create_dragonfly_zone(name, nullptr, shape, callbacks, fabric.link_bandwidth_Bps,
                                         fabric.link_latency_s, sg4::Link::SharingPolicy::SPLITDUPLEX);
  }
  // The root has no other child and needs no route: every route between GPUs ends in the cluster zone.
  cluster->set_parent(tree.root());
  cluster->seal();
}

}  // namespace simtrain::platform
