// Lockstep groups (DESIGN.md §5): the ranks of a tensor-parallel group run the same program on one node and
// move in step, so one actor per stream can stand for the whole group. Its collectives inside the group are
// analytic (intra-node); its flows across nodes carry the whole group's bytes, since all members' flows share
// the node's uplinks. This divides simulated actors and operations by the group size.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "simulator/trace/trace.h"

namespace simtrain::engine {

// One group whose communicators run on their first `members` members only (sample_replicas), `per_node` of
// them on each node, of `of` members each.
struct SampledGroup {
  int group = -1;  // index in Trace::groups
  int members = 0;
  int per_node = 0;
  int of = 0;
};

struct LockstepPlan {
  int group = -1;                   // index of the lockstep group in Trace::groups, -1 when none applies
  int size = 1;                     // ranks per lockstep communicator
  std::vector<int> representative;  // [rank] -> the rank whose actors simulate it (itself when none applies)
  // With replicas folded (fold_replicas): the group whose communicators are folded onto their first member,
  // -1 when none. Its collectives are costed analytically over the platform's routes, without contention.
  int folded_group = -1;
  bool whole_nodes = false;  // plan_node_lockstep(): each node's ranks stand behind its first
  // With replicas sampled (sample_replicas): the data-parallel group first, then the groups sampled with it;
  // empty when none.
  std::vector<SampledGroup> sampled;
  // [group] -> 1 where a communicator holds both a representative and the members standing behind it (an
  // MoE's expert-parallel group holding both ranks of each tensor-parallel pair): each representative sends
  // its own flows and its members' from their GPUs, so every flow of the whole communicator runs. Empty
  // when no group is carried.
  std::vector<char> carried;

  bool is_representative(int rank) const { return representative[rank] == rank; }
  bool is_carried(int group) const {
    return group >= 0 && static_cast<std::size_t>(group) < carried.size() && carried[group];
  }
  // The sampling of `group`, nullptr when it is not sampled.
  const SampledGroup* sampled_group(int group) const {
    for (const SampledGroup& s : sampled)
      if (s.group == group) return &s;
    return nullptr;
  }
};

// Lockstep over the group named `group_name` when it is safe: every communicator of the group has the same
// size, lies within one node and runs one program, and every other group's communicator that holds a
// representative either holds only representatives (so representatives talk only to representatives) or
// is carried: it holds every member's representative, and its ops are collectives (no point-to-point
// transfer), whose flows the representatives send for their members too (LockstepPlan::carried). Otherwise
// every rank stands for itself.
LockstepPlan plan_lockstep(const trace::Trace& trace, const std::string& group_name, int gpus_per_node);

// Node lockstep, for traces no group's lockstep applies to (a data-parallel job over whole nodes, an
// nccl-tests sweep): each node's first rank stands for the node when every node's ranks run one program, no
// op is a point-to-point transfer or a broadcast or reduce (chains through every rank), and every
// communicator of a group the ops use either lies within one node, holds all GPUs of every node it touches,
// or is a rail whose image on the nodes' first ranks is a communicator too (one GPU per node at one local
// index: HYBRID_SHARD's replicas). Then every collective is analytic inside nodes and, across them, runs
// between ranks of equal local index, so the node's ranks do identical work; the first rank's flows stand for
// the node's (all-to-all: one flow per node pair for all of them). Otherwise every rank stands for itself.
LockstepPlan plan_node_lockstep(const trace::Trace& trace, int gpus_per_node);

// `--fidelity fast`: on top of `plan`, every communicator of the group named `group_name` (the data-parallel
// replicas) is simulated by its first member. Applies when every such communicator runs one program and every
// other group's communicator that holds a representative holds only representatives; else returns `plan`
// unchanged (folded_group == -1).
LockstepPlan fold_replicas(const trace::Trace& trace, const std::string& group_name, LockstepPlan plan);

// Replica sampling (DESIGN.md §5), on top of `plan`: the data-parallel replicas (the communicators of
// `group_name`) whose members sit on the first two nodes of each communicator are simulated; every other
// replica is represented by the simulated one of equal position modulo the sample. This is exact, not an
// approximation, when
//  - every communicator of the group runs one program, has N members, m per node on N/m distinct nodes in
//    position order, with N >= 4m (so the sample is at most half of the replicas);
//  - each node holding a simulated rank holds only simulated ranks, so a node's NICs carry exactly the
//    traffic they carry in the whole job (co-located replicas contend as they do without sampling);
//  - every other group's communicator holding a simulated rank holds only simulated ranks (pipeline and
//    embedding transfers stay inside the sample);
//  - the group's collectives cross nodes as rings (every node sends one flow per ring and receives one,
//    wherever it sits in the ring): with `rings_only`, its ops are reduce-scatters and all-gathers; without
//    it, all-reduces are allowed too, and the caller checks that NCCL runs them as rings, not as the double
//    binary tree, whose load differs from node to node (replay.cc does so for full fidelity; --fidelity fast
//    takes the sample's nodes to stand for all others even for trees). All-to-all reaches every node and is
//    never sampled;
//  and the caller has checked that no link above the nodes can limit a flow (fabric_never_binds): then the
//  replicas left out share no link with the sample that could change a simulated flow's max-min rate, and
//  they run the same program on nodes that see the same traffic, so their timelines equal the sample's.
// A group whose communicators mix sampled ranks with others is sampled along with it when its own layout
// allows it and every rank's stand-in there is its stand-in in the group: an MoE's expert-data-parallel
// group, one member per expert-parallel group, crosses the same nodes as the data-parallel one with fewer
// members on each. Otherwise the sample would wait on ranks not simulated, and nothing is sampled.
// The sampled groups' collectives then run their flows between simulated members (the ring wraps inside the
// sample: each node still sends one ring flow and receives one, as in the whole ring), with the step count,
// algorithm and bytes of the whole communicator. Returns `plan` unchanged (`sampled` empty) otherwise.
LockstepPlan sample_replicas(const trace::Trace& trace, const std::string& group_name, int gpus_per_node,
                             bool rings_only, LockstepPlan plan);

}  // namespace simtrain::engine
