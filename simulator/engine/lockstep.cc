// Implements lockstep.h: which ranks stand for tensor-parallel groups and folded replicas.
#include "simulator/engine/lockstep.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>

namespace simtrain::engine {
namespace {

LockstepPlan none(const trace::Trace& trace) {
  LockstepPlan plan;
  plan.representative.resize(trace.world_size);
  std::iota(plan.representative.begin(), plan.representative.end(), 0);
  return plan;
}

// Whether some communicator of `group` holds both ranks standing for themselves and ranks standing behind
// another.
bool mixes_representatives(const trace::CommunicatorGroup& group, const std::vector<int>& representative) {
  for (const auto& members : group.communicators) {
    bool any = false, all = true;
    for (int rank : members) {
      const bool is = representative[rank] == rank;
      any = any || is;
      all = all && is;
    }
    if (any && !all) return true;
  }
  return false;
}

// Whether each communicator of `group` that holds a simulated rank (every communicator, with
// `every_communicator`) also holds the representative of each of its members, so that the representatives
// can send their members' flows in it (LockstepPlan::carried).
bool holds_representatives(const trace::CommunicatorGroup& group, const std::vector<int>& representative,
                           bool every_communicator) {
  for (const auto& members : group.communicators) {
    const bool simulated =
        std::any_of(members.begin(), members.end(), [&](int rank) { return representative[rank] == rank; });
    if (!simulated && !every_communicator) continue;
    for (int rank : members)
      if (std::find(members.begin(), members.end(), representative[rank]) == members.end()) return false;
  }
  return true;
}

// Whether a representative can send the flows of `group`'s collectives for its members: no point-to-point
// transfer runs in the group (a transfer's receiver must be simulated), and its communicators hold their
// members' representatives.
bool can_carry(const trace::Trace& trace, int group, const std::vector<int>& representative) {
  for (const trace::Program& program : trace.programs)
    for (const trace::Op& op : program.ops)
      if ((op.type == trace::OpType::Send || op.type == trace::OpType::Recv) && op.p2p.group == group)
        return false;
  return holds_representatives(trace.groups[group], representative, true);
}

// Whether `members` is a rail: one GPU on each node it touches, all at the same local index, and its
// image at local index 0 (the nodes' first ranks, which stand for the nodes under node lockstep) is a
// communicator of the group too, so that the representatives' rail runs what every rail of those nodes
// runs (HYBRID_SHARD's replicas: each shard's all-reduce among the GPUs of equal local index).
bool is_mirrored_rail(const std::vector<int>& members, const std::set<std::vector<int>>& communicators,
                      int gpus_per_node) {
  if (members.empty()) return false;
  const int local = members[0] % gpus_per_node;
  std::vector<int> nodes;
  for (int rank : members) {
    if (rank % gpus_per_node != local) return false;
    nodes.push_back(rank / gpus_per_node);
  }
  std::vector<int> sorted = nodes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return false;  // two on one node
  std::vector<int> first_ranks;
  for (int node : nodes) first_ranks.push_back(node * gpus_per_node);
  return communicators.count(first_ranks) > 0;
}

// A group's communicators laid out as replica sampling needs them (sample_replicas): what the sample keeps,
// and each rank's position in its communicator.
struct SampleLayout {
  SampledGroup facts;
  std::vector<int> position;                             // [rank]
  std::vector<const std::vector<int>*> communicator_of;  // [rank]

  // The member of `rank`'s communicator whose position its own stands behind.
  int stand_in(int rank) const { return (*communicator_of[rank])[position[rank] % facts.members]; }
};

std::optional<SampleLayout> sample_layout(const trace::Trace& trace, int group, int gpus_per_node,
                                          bool rings_only) {
  for (const trace::Program& program : trace.programs)
    for (const trace::Op& op : program.ops) {
      if ((op.type == trace::OpType::Send || op.type == trace::OpType::Recv) && op.p2p.group == group)
        return std::nullopt;
      if (op.type != trace::OpType::Collective || op.collective.group != group) continue;
      if (op.collective.kind == trace::CollectiveKind::ReduceScatter ||
          op.collective.kind == trace::CollectiveKind::AllGather)
        continue;
      if (rings_only || op.collective.kind == trace::CollectiveKind::AllToAll ||
          op.collective.kind == trace::CollectiveKind::SendRecv)
        return std::nullopt;
    }
  const auto& communicators = trace.groups[group].communicators;
  if (communicators.empty()) return std::nullopt;
  const int n = static_cast<int>(communicators[0].size());
  const auto node = [gpus_per_node](int rank) { return rank / gpus_per_node; };
  // Members per node, from the first communicator; every communicator must show the same layout.
  int per_node = 0;
  while (per_node < n && node(communicators[0][per_node]) == node(communicators[0][0])) ++per_node;
  // The sample is two nodes' worth: its ring flows reach at most the third node, which the ring wraps
  // onto the first, so any whole number of nodes beyond the sample will do.
  if (per_node == 0 || n % per_node != 0 || n < 4 * per_node) return std::nullopt;
  SampleLayout layout{{group, 2 * per_node, per_node, n},
                      std::vector<int>(trace.world_size, -1),
                      std::vector<const std::vector<int>*>(trace.world_size, nullptr)};
  for (const auto& members : communicators) {
    if (static_cast<int>(members.size()) != n) return std::nullopt;
    for (int i = 0; i < n; ++i) {
      const int rank = members[i];
      if (trace.rank_program[rank] != trace.rank_program[members[0]]) return std::nullopt;
      // Position i sits on the (i / per_node)-th node of the communicator, and nodes are distinct.
      if (node(rank) != node(members[i - i % per_node])) return std::nullopt;
      if (i % per_node == 0 && i > 0 && node(rank) == node(members[i - per_node])) return std::nullopt;
      layout.position[rank] = i;
      layout.communicator_of[rank] = &members;
    }
  }
  for (int rank = 0; rank < trace.world_size; ++rank)
    if (layout.position[rank] < 0) return std::nullopt;  // a rank outside the group
  return layout;
}

}  // namespace

// True when no communicator of a group other than those in `except` mixes representatives with others.
static bool representatives_talk_among_themselves(const trace::Trace& trace,
                                                  const std::vector<int>& representative,
                                                  const std::vector<int>& except) {
  for (std::size_t g = 0; g < trace.groups.size(); ++g) {
    if (std::find(except.begin(), except.end(), static_cast<int>(g)) != except.end()) continue;
    if (mixes_representatives(trace.groups[g], representative)) return false;
  }
  return true;
}

LockstepPlan plan_lockstep(const trace::Trace& trace, const std::string& group_name, int gpus_per_node) {
  int group = -1;
  for (std::size_t g = 0; g < trace.groups.size(); ++g)
    if (trace.groups[g].name == group_name) group = static_cast<int>(g);
  if (group < 0) return none(trace);

  LockstepPlan plan = none(trace);
  const auto& communicators = trace.groups[group].communicators;
  int size = 0;
  std::size_t covered = 0;
  for (const auto& members : communicators) {
    if (members.empty()) return none(trace);
    if (size == 0) size = static_cast<int>(members.size());
    if (static_cast<int>(members.size()) != size) return none(trace);
    for (int rank : members) {
      if (rank / gpus_per_node != members[0] / gpus_per_node) return none(trace);
      if (trace.rank_program[rank] != trace.rank_program[members[0]]) return none(trace);
      plan.representative[rank] = members[0];
    }
    covered += members.size();
  }
  if (size <= 1 || covered != static_cast<std::size_t>(trace.world_size)) return none(trace);

  plan.carried.assign(trace.groups.size(), 0);
  for (int g = 0; g < static_cast<int>(trace.groups.size()); ++g) {
    if (g == group || !mixes_representatives(trace.groups[g], plan.representative)) continue;
    if (!can_carry(trace, g, plan.representative)) return none(trace);
    plan.carried[g] = 1;
  }
  if (std::find(plan.carried.begin(), plan.carried.end(), 1) == plan.carried.end()) plan.carried.clear();
  plan.group = group;
  plan.size = size;
  return plan;
}

LockstepPlan plan_node_lockstep(const trace::Trace& trace, int gpus_per_node) {
  if (gpus_per_node < 2 || trace.world_size % gpus_per_node != 0) return none(trace);
  for (int rank = 0; rank < trace.world_size; ++rank)
    if (trace.rank_program[rank] != trace.rank_program[rank - rank % gpus_per_node]) return none(trace);
  std::vector<char> used(trace.groups.size(), 0);
  for (const trace::Program& program : trace.programs)
    for (const trace::Op& op : program.ops) {
      if (op.type == trace::OpType::Send || op.type == trace::OpType::Recv) return none(trace);
      if (op.type != trace::OpType::Collective) continue;
      if (op.collective.kind == trace::CollectiveKind::Broadcast ||
          op.collective.kind == trace::CollectiveKind::Reduce ||
          op.collective.kind == trace::CollectiveKind::SendRecv)
        return none(trace);
      used[op.collective.group] = 1;
    }
  for (std::size_t g = 0; g < trace.groups.size(); ++g) {
    if (!used[g]) continue;
    const std::set<std::vector<int>> communicators(trace.groups[g].communicators.begin(),
                                                   trace.groups[g].communicators.end());
    for (const auto& members : trace.groups[g].communicators) {
      std::vector<int> per_node(trace.world_size / gpus_per_node, 0);
      bool one_node = true;
      for (int rank : members) {
        ++per_node[rank / gpus_per_node];
        one_node = one_node && rank / gpus_per_node == members[0] / gpus_per_node;
      }
      if (one_node || is_mirrored_rail(members, communicators, gpus_per_node)) continue;
      for (int count : per_node)
        if (count != 0 && count != gpus_per_node) return none(trace);
    }
  }
  LockstepPlan plan = none(trace);
  for (int rank = 0; rank < trace.world_size; ++rank) plan.representative[rank] = rank - rank % gpus_per_node;
  plan.size = gpus_per_node;
  plan.whole_nodes = true;
  return plan;
}

LockstepPlan fold_replicas(const trace::Trace& trace, const std::string& group_name, LockstepPlan plan) {
  int group = -1;
  for (std::size_t g = 0; g < trace.groups.size(); ++g)
    if (trace.groups[g].name == group_name) group = static_cast<int>(g);
  if (group < 0) return plan;
  std::vector<int> first(trace.world_size, -1);  // [rank] -> first member of its communicator in `group`
  for (const auto& members : trace.groups[group].communicators)
    for (int rank : members) {
      if (trace.rank_program[rank] != trace.rank_program[members[0]]) return plan;
      first[rank] = members[0];
    }
  std::vector<int> folded(trace.world_size);
  for (int rank = 0; rank < trace.world_size; ++rank) {
    if (first[rank] < 0) return plan;  // a rank outside the group
    folded[rank] = plan.representative[first[rank]];
  }
  // Representatives must be their own replica's first member too (true when the folded group and the
  // lockstep group are orthogonal, as data and tensor parallelism are).
  for (int rank = 0; rank < trace.world_size; ++rank)
    if (folded[folded[rank]] != folded[rank]) return plan;
  if (!representatives_talk_among_themselves(trace, folded, {plan.group, group})) return plan;
  plan.representative = std::move(folded);
  plan.folded_group = group;
  return plan;
}

LockstepPlan sample_replicas(const trace::Trace& trace, const std::string& group_name, int gpus_per_node,
                             bool rings_only, LockstepPlan plan) {
  int group = -1;
  for (std::size_t g = 0; g < trace.groups.size(); ++g)
    if (trace.groups[g].name == group_name) group = static_cast<int>(g);
  if (group < 0 || plan.folded_group >= 0 || gpus_per_node < 1) return plan;
  const std::optional<SampleLayout> layout = sample_layout(trace, group, gpus_per_node, rings_only);
  if (!layout) return plan;
  std::vector<int> sampled(trace.world_size);
  for (int rank = 0; rank < trace.world_size; ++rank)
    sampled[rank] = plan.representative[layout->stand_in(rank)];
  for (int rank = 0; rank < trace.world_size; ++rank)
    if (sampled[sampled[rank]] != sampled[rank]) return plan;
  // Node closure: a node's ranks are all in the sample or all outside it.
  std::map<int, int> in_sample_by_node;  // node -> 1 (in the sample) or 0
  for (int rank = 0; rank < trace.world_size; ++rank) {
    const int in = layout->position[rank] < layout->facts.members ? 1 : 0;
    const auto [it, inserted] = in_sample_by_node.emplace(rank / gpus_per_node, in);
    if (!inserted && it->second != in) return plan;
  }
  // Every other group whose communicators mix sampled ranks with left-out ones is sampled along, or nothing
  // is: then the sampled ranks talk only among themselves.
  std::vector<SampledGroup> groups{layout->facts};
  for (int g = 0; g < static_cast<int>(trace.groups.size()); ++g) {
    if (g == group || g == plan.group || !mixes_representatives(trace.groups[g], sampled)) continue;
    if (plan.is_carried(g)) {
      // Its communicators in the sample must hold their members' stand-ins, as they held their
      // representatives; those outside it are not simulated.
      if (!holds_representatives(trace.groups[g], sampled, false)) return plan;
      continue;
    }
    const std::optional<SampleLayout> along = sample_layout(trace, g, gpus_per_node, rings_only);
    if (!along) return plan;
    for (int rank = 0; rank < trace.world_size; ++rank)
      if (plan.representative[along->stand_in(rank)] != sampled[rank]) return plan;
    groups.push_back(along->facts);
  }
  plan.representative = std::move(sampled);
  plan.sampled = std::move(groups);
  return plan;
}

}  // namespace simtrain::engine
