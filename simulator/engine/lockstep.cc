// Implements lockstep.h: which ranks stand for tensor-parallel groups and folded replicas.
#include "simulator/engine/lockstep.h"

#include <map>
#include <numeric>

namespace simtrain::engine {
namespace {

LockstepPlan none(const trace::Trace& trace) {
  LockstepPlan plan;
  plan.representative.resize(trace.world_size);
  std::iota(plan.representative.begin(), plan.representative.end(), 0);
  return plan;
}

}  // namespace

// True when no communicator of a group other than `except_a` / `except_b` mixes representatives with others.
static bool representatives_talk_among_themselves(const trace::Trace& trace,
                                                  const std::vector<int>& representative, int except_a,
                                                  int except_b) {
  for (std::size_t g = 0; g < trace.groups.size(); ++g) {
    if (static_cast<int>(g) == except_a || static_cast<int>(g) == except_b) continue;
    for (const auto& members : trace.groups[g].communicators) {
      bool any = false, all = true;
      for (int rank : members) {
        bool is = representative[rank] == rank;
        any = any || is;
        all = all && is;
      }
      if (any && !all) return false;
    }
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

  if (!representatives_talk_among_themselves(trace, plan.representative, group, -1)) return none(trace);
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
    for (const auto& members : trace.groups[g].communicators) {
      std::vector<int> per_node(trace.world_size / gpus_per_node, 0);
      bool one_node = true;
      for (int rank : members) {
        ++per_node[rank / gpus_per_node];
        one_node = one_node && rank / gpus_per_node == members[0] / gpus_per_node;
      }
      if (one_node) continue;
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
  if (!representatives_talk_among_themselves(trace, folded, plan.group, group)) return plan;
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
  for (const trace::Program& program : trace.programs)
    for (const trace::Op& op : program.ops) {
      if ((op.type == trace::OpType::Send || op.type == trace::OpType::Recv) && op.p2p.group == group)
        return plan;
      if (op.type != trace::OpType::Collective || op.collective.group != group) continue;
      if (op.collective.kind == trace::CollectiveKind::ReduceScatter ||
          op.collective.kind == trace::CollectiveKind::AllGather)
        continue;
      if (rings_only || op.collective.kind == trace::CollectiveKind::AllToAll ||
          op.collective.kind == trace::CollectiveKind::SendRecv)
        return plan;
    }
  const auto& communicators = trace.groups[group].communicators;
  if (communicators.empty()) return plan;
  const int n = static_cast<int>(communicators[0].size());
  const auto node = [gpus_per_node](int rank) { return rank / gpus_per_node; };
  // Members per node, from the first communicator; every communicator must show the same layout.
  int per_node = 0;
  while (per_node < n && node(communicators[0][per_node]) == node(communicators[0][0])) ++per_node;
  // The sample is two nodes' worth: its ring flows reach at most the third node, which the ring wraps
  // onto the first, so any whole number of nodes beyond the sample will do.
  if (per_node == 0 || n % per_node != 0 || n < 4 * per_node) return plan;
  const int kept = 2 * per_node;
  std::vector<int> position(trace.world_size, -1);
  std::vector<const std::vector<int>*> communicator_of(trace.world_size, nullptr);
  for (const auto& members : communicators) {
    if (static_cast<int>(members.size()) != n) return plan;
    for (int i = 0; i < n; ++i) {
      const int rank = members[i];
      if (trace.rank_program[rank] != trace.rank_program[members[0]]) return plan;
      // Position i sits on the (i / per_node)-th node of the communicator, and nodes are distinct.
      if (node(rank) != node(members[i - i % per_node])) return plan;
      if (i % per_node == 0 && i > 0 && node(rank) == node(members[i - per_node])) return plan;
      position[rank] = i;
      communicator_of[rank] = &members;
    }
  }
  std::vector<int> sampled(trace.world_size);
  for (int rank = 0; rank < trace.world_size; ++rank) {
    if (position[rank] < 0) return plan;  // a rank outside the group
    sampled[rank] = plan.representative[(*communicator_of[rank])[position[rank] % kept]];
  }
  for (int rank = 0; rank < trace.world_size; ++rank)
    if (sampled[sampled[rank]] != sampled[rank]) return plan;
  // Node closure: a node's ranks are all in the sample or all outside it.
  std::map<int, int> in_sample_by_node;  // node -> 1 (in the sample) or 0
  for (int rank = 0; rank < trace.world_size; ++rank) {
    const int in = position[rank] < kept ? 1 : 0;
    const auto [it, inserted] = in_sample_by_node.emplace(node(rank), in);
    if (!inserted && it->second != in) return plan;
  }
  if (!representatives_talk_among_themselves(trace, sampled, plan.group, group)) return plan;
  plan.representative = std::move(sampled);
  plan.sampled_group = group;
  plan.sampled_members = kept;
  plan.sampled_per_node = per_node;
  plan.sampled_of = n;
  return plan;
}

}  // namespace simtrain::engine
