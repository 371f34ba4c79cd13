// Implements node_zone.h. NVSwitch and NVLink nodes are a star of GPU links; PCIe nodes a tree of GPU
// links, switch uplinks, host bridges and a socket link, with the NIC on socket 0's bridge.
#include "simulator/platform/node_zone.h"

#include <string>

#include "simulator/platform/simgrid_platform.h"

namespace simtrain::platform {
namespace {

namespace sg4 = simgrid::s4u;
using Direction = sg4::LinkInRoute::Direction;

// The GPUs of one socket of a PCIe node: under PCIe switches (each a zone whose centre is the switch), or
// directly on the host bridge. Either way every route from a GPU to the socket's centre crosses the bridge
// upwards (ports -> CPU) and every route back crosses it downwards, so all traffic between the socket's
// ports shares it: GPU to GPU across switches, GPU to NIC, GPU to the other socket.
void build_pcie_socket(const ClusterSpec& spec, int node, int socket, sg4::NetZone* zone, sg4::Link* bridge,
                       ZoneTree& tree, std::vector<sg4::Host*>& hosts) {
  const PcieTreeSpec& pcie = spec.intra_node.pcie;
  const std::string name = "node" + std::to_string(node);
  const int per_socket = spec.gpus_per_node / pcie.sockets;
  const int first = socket * per_socket;
  if (pcie.gpus_per_switch == 0) {
    for (int gpu = first; gpu < first + per_socket; ++gpu) {
      sg4::Link* link = create_gpu(spec, zone, node, gpu, hosts);
      zone->add_route(hosts.back()->get_netpoint(), nullptr, nullptr, nullptr,
                      {{link, Direction::UP}, {bridge, Direction::UP}}, true);
    }
    return;
  }
  for (int sw = first / pcie.gpus_per_switch; sw < (first + per_socket) / pcie.gpus_per_switch; ++sw) {
    const std::string switch_name = name + "-pcie" + std::to_string(sw);
    sg4::NetZone* switch_zone = tree.create_zone(switch_name);
    for (int gpu = sw * pcie.gpus_per_switch; gpu < (sw + 1) * pcie.gpus_per_switch; ++gpu) {
      sg4::Link* link = create_gpu(spec, switch_zone, node, gpu, hosts);
      switch_zone->add_route(hosts.back()->get_netpoint(), nullptr, nullptr, nullptr, {{link, Direction::UP}},
                             true);
    }
    sg4::Link* uplink = ZoneTree::duplex_link(zone, switch_name + "-uplink", pcie.switch_uplink_Bps, 0);
    tree.connect(zone, switch_zone, switch_zone->create_router(switch_name + "-switch"),
                 {{uplink, Direction::UP}, {bridge, Direction::UP}});
  }
}

NodeZone build_pcie_node(const ClusterSpec& spec, int node, double uplink_latency_s, ZoneTree& tree,
                         std::vector<sg4::Host*>& hosts) {
  const PcieTreeSpec& pcie = spec.intra_node.pcie;
  const std::string name = "node" + std::to_string(node);
  NodeZone out;
  out.zone = tree.create_zone(name);
  out.uplink_Bps = spec.nics.count * spec.nics.bandwidth_Bps;
  sg4::Link* socket_link =
      pcie.sockets == 2 ? ZoneTree::duplex_link(out.zone, name + "-socket-link", pcie.socket_link_Bps, 0)
                        : nullptr;
  for (int socket = 0; socket < pcie.sockets; ++socket) {
    const std::string socket_name = name + "-socket" + std::to_string(socket);
    // One socket: the node zone is the socket's zone.
    sg4::NetZone* zone = pcie.sockets == 1 ? out.zone : tree.create_zone(socket_name);
    sg4::Link* bridge = ZoneTree::duplex_link(zone, socket_name + "-bridge", pcie.host_bridge_Bps, 0);
    build_pcie_socket(spec, node, socket, zone, bridge, tree, hosts);
    if (socket == 0) {
      // The NICs are a PCIe device on socket 0: what they receive crosses the bridge upwards, like a GPU's.
      sg4::NetZone* nic_zone = tree.create_zone(name + "-nic-zone");
      out.gateway = nic_zone->create_router(name + "-nic");
      sg4::Link* uplink = ZoneTree::duplex_link(zone, name + "-uplink", out.uplink_Bps, uplink_latency_s);
      tree.connect(zone, nic_zone, out.gateway, {{uplink, Direction::DOWN}, {bridge, Direction::UP}});
    }
    if (pcie.sockets == 2) {
      ZoneTree::Route route;
      if (socket == 1) route.emplace_back(socket_link, Direction::UP);
      tree.connect(out.zone, zone, tree.create_switch(zone, socket_name + "-root"), route);
    }
  }
  return out;
}

}  // namespace

sg4::Link* create_gpu(const ClusterSpec& spec, sg4::NetZone* zone, int node, int gpu,
                      std::vector<sg4::Host*>& hosts) {
  const std::string host_name = "node" + std::to_string(node) + "-gpu" + std::to_string(gpu);
  hosts.push_back(zone->create_host(host_name, kHostSpeedFlops)->seal());
  return ZoneTree::duplex_link(zone, host_name + "-link", spec.intra_node.bandwidth_Bps,
                               spec.intra_node.latency_s / 2);
}

// NVSwitch (or an NVLink mesh seen as one hop): a star whose centre is the switch. The NIC router's route
// to the centre is the uplink taken inwards (DOWN), so traffic leaving the node runs on its UP side.
NodeZone build_node(const ClusterSpec& spec, int node, double uplink_latency_s, ZoneTree& tree,
                    std::vector<sg4::Host*>& hosts) {
  if (spec.intra_node.fabric == IntraNodeFabric::PCIe)
    return build_pcie_node(spec, node, uplink_latency_s, tree, hosts);
  const std::string name = "node" + std::to_string(node);
  NodeZone out;
  out.zone = tree.create_zone(name);
  for (int gpu = 0; gpu < spec.gpus_per_node; ++gpu) {
    sg4::Link* link = create_gpu(spec, out.zone, node, gpu, hosts);
    out.zone->add_route(hosts.back()->get_netpoint(), nullptr, nullptr, nullptr, {{link, Direction::UP}},
                        true);
  }
  out.uplink_Bps = spec.nics.count * spec.nics.bandwidth_Bps;
  out.gateway = out.zone->create_router(name + "-nic");
  sg4::Link* uplink = ZoneTree::duplex_link(out.zone, name + "-uplink", out.uplink_Bps, uplink_latency_s);
  out.zone->add_route(out.gateway, nullptr, nullptr, nullptr, {{uplink, Direction::DOWN}}, true);
  return out;
}

}  // namespace simtrain::platform
