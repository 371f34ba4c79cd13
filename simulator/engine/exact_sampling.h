// When full fidelity may sample the data-parallel replicas (lockstep.h, sample_replicas) and stay exact: the
// two conditions beyond the layout that sample_replicas() checks itself.
#pragma once

#include "simulator/engine/replay.h"
#include "simulator/engine/replay_state.h"

namespace simtrain::engine {

// Whether every collective of `group` crosses nodes as rings, which load every node alike: reduce-scatters
// and all-gathers always do, an all-reduce when NCCL's choice for its size and placement is the ring rather
// than the double binary tree (or NVLS-tree, whose load differs from node to node). The choice is the same
// on every communicator of the group, which sample_replicas() found laid out alike, so the first member of
// each program's communicator decides.
bool crosses_nodes_in_rings(ReplayState& state, int group);

// Whether no link above the nodes can limit a flow, whatever the traffic: a star, or a fat-tree whose every
// level's uplink carries the sum of the bandwidth below it (oversubscription at most 1). Each flow through
// such a link also crosses one of the links below it, whose capacities add up to the link's own, so the link
// is never a flow's bottleneck. Degraded links void it.
bool fabric_never_binds(const PlatformSource& source, const ReplayOptions& options);

}  // namespace simtrain::engine
