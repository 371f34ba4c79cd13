// Lockstep groups (DESIGN.md §5): the ranks of a tensor-parallel group run the same program on one node and
// move in step, so one actor per stream can stand for the whole group. Its collectives inside the group are
// analytic (intra-node); its flows across nodes carry the whole group's bytes, since all members' flows share
// the node's uplinks. This divides simulated actors and operations by the group size.
#pragma once

#include <string>
#include <vector>

#include "simulator/trace/trace.h"

namespace simtrain::engine {

struct LockstepPlan {
  int group = -1;                   // index of the lockstep group in Trace::groups, -1 when none applies
  int size = 1;                     // ranks per lockstep communicator
  std::vector<int> representative;  // [rank] -> the rank whose actors simulate it (itself when none applies)
  // With replicas folded (fold_replicas): the group whose communicators are folded onto their first member,
  // -1 when none. Its collectives are costed analytically over the platform's routes, without contention.
  int folded_group = -1;

  bool is_representative(int rank) const { return representative[rank] == rank; }
};

// Lockstep over the group named `group_name` when it is safe: every communicator of the group has the same
// size, lies within one node and runs one program, and every other group's communicator that holds a
// representative holds only representatives (so representatives talk only to representatives). Otherwise
// every rank stands for itself.
LockstepPlan plan_lockstep(const trace::Trace& trace, const std::string& group_name, int gpus_per_node);

// `--fidelity fast`: on top of `plan`, every communicator of the group named `group_name` (the data-parallel
// replicas) is simulated by its first member. Applies when every such communicator runs one program and every
// other group's communicator that holds a representative holds only representatives; else returns `plan`
// unchanged (folded_group == -1).
LockstepPlan fold_replicas(const trace::Trace& trace, const std::string& group_name, LockstepPlan plan);

}  // namespace simtrain::engine
