// One node as a SimGrid zone: its GPU hosts, the intra-node fabric between them (an NVSwitch or NVLink
// star, or a PCIe tree) and its NICs, aggregated into one uplink on the way out. Internal to the platform
// part; the fabric builders place the zone under their switches or at a torus or dragonfly leaf.
#pragma once

#include <simgrid/s4u/Host.hpp>
#include <vector>

#include "simulator/platform/cluster_spec.h"
#include "simulator/platform/zone_tree.h"

namespace simtrain::platform {

struct NodeZone {
  simgrid::s4u::NetZone* zone = nullptr;
  // The outer end of the NIC uplink: traffic to other nodes leaves through it, so a parent connects the
  // zone through this gateway with no link of its own.
  ZoneTree::NetPoint* gateway = nullptr;
  double uplink_Bps = 0;  // the node's NICs together
};

// Builds node `node` (zone node<N>, hosts node<N>-gpu<G> appended to `hosts` in local order, GPU links
// node<N>-gpu<G>-link, NIC uplink node<N>-uplink of `uplink_latency_s`). Every GPU's link carries half of
// intra_node.latency, so a GPU-to-GPU route has exactly the spec's latency whatever it crosses. PCIe nodes
// also have node<N>-pcie<K>-uplink (switch K to its host bridge), node<N>-socket<S>-bridge and
// node<N>-socket-link, all without latency.
NodeZone build_node(const ClusterSpec& spec, int node, double uplink_latency_s, ZoneTree& tree,
                    std::vector<simgrid::s4u::Host*>& hosts);

// A GPU host with its split-duplex link (half the intra-node latency) in `zone`; returns the link, whose
// route to the zone's centre the caller adds (alone, or followed by a shared bridge).
simgrid::s4u::Link* create_gpu(const ClusterSpec& spec, simgrid::s4u::NetZone* zone, int node, int gpu,
                               std::vector<simgrid::s4u::Host*>& hosts);

}  // namespace simtrain::platform
