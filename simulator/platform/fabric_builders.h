// The fabrics between nodes, each built into a ZoneTree whose root the caller made: a star or fat-tree of
// aggregated links (tree_fabric.cc), a rail-optimized fat-tree (rail_fabric.cc), SimGrid's dragonfly and
// torus zones (cluster_fabric.cc). Each appends the GPU hosts in rank order. Internal to the platform part.
#pragma once

#include <simgrid/s4u/Host.hpp>
#include <string>
#include <vector>

#include "simulator/platform/cluster_spec.h"
#include "simulator/platform/zone_tree.h"

namespace simtrain::platform {

// The root zone's name for each fabric: the star's switch, the spine of a 2-level tree, the core of a
// 3-level one, the spine joining rails, or the zone holding a dragonfly or torus.
std::string root_zone_name(const FabricSpec& fabric);

void build_tree_fabric(const ClusterSpec& spec, ZoneTree& tree, std::vector<simgrid::s4u::Host*>& hosts);
void build_rail_fabric(const ClusterSpec& spec, ZoneTree& tree, std::vector<simgrid::s4u::Host*>& hosts);
void build_cluster_fabric(const ClusterSpec& spec, ZoneTree& tree, std::vector<simgrid::s4u::Host*>& hosts);

}  // namespace simtrain::platform
