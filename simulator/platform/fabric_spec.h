// Reading a cluster spec's [fabric] table: star, fat-tree (optionally rail-optimized), dragonfly, torus.
// Internal to the platform part (cluster_spec.cc calls it).
#pragma once

#include "simulator/platform/cluster_spec.h"
#include "simulator/platform/spec_section.h"

namespace simtrain::platform {

// `spec` holds the sections read before [fabric] (nodes, intra_node, nics), which some fabrics constrain.
FabricSpec read_fabric(const Section& section, const ClusterSpec& spec);

}  // namespace simtrain::platform
