#include "simulator/engine/lockstep.h"

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

  for (std::size_t g = 0; g < trace.groups.size(); ++g) {
    if (static_cast<int>(g) == group) continue;
    for (const auto& members : trace.groups[g].communicators) {
      bool any = false, all = true;
      for (int rank : members) {
        bool representative = plan.representative[rank] == rank;
        any = any || representative;
        all = all && representative;
      }
      if (any && !all) return none(trace);
    }
  }
  plan.group = group;
  plan.size = size;
  return plan;
}

}  // namespace simtrain::engine
