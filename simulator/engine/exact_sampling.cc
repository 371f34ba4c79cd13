// Implements exact_sampling.h.
#include "simulator/engine/exact_sampling.h"

#include <vector>

namespace simtrain::engine {

bool crosses_nodes_in_rings(ReplayState& state, int group) {
  std::vector<int> rank_of_program(state.trace.programs.size(), -1);
  for (int rank = state.trace.world_size - 1; rank >= 0; --rank)
    rank_of_program[state.trace.rank_program[rank]] = rank;
  for (std::size_t p = 0; p < state.trace.programs.size(); ++p) {
    const int rank = rank_of_program[p];
    if (rank < 0) continue;
    for (const trace::Op& op : state.trace.programs[p].ops) {
      if (op.type != trace::OpType::Collective || op.collective.group != group) continue;
      if (op.collective.kind == trace::CollectiveKind::ReduceScatter ||
          op.collective.kind == trace::CollectiveKind::AllGather)
        continue;
      if (op.collective.kind != trace::CollectiveKind::AllReduce) return false;
      const auto& members = state.communicators.communicator(op.collective.group, rank);
      const cost::RankCollectivePlan plan = state.collective_plan(op, rank, members, state.facts(members));
      if (plan.algorithm != cost::NcclAlgorithm::Ring) return false;
    }
  }
  return true;
}

bool fabric_never_binds(const PlatformSource& source, const ReplayOptions& options) {
  if (!source.spec || !options.degraded_links.empty()) return false;
  const platform::FabricSpec& fabric = source.spec->fabric;
  if (fabric.topology == platform::FabricTopology::Star) return true;
  if (fabric.topology != platform::FabricTopology::FatTree) return false;
  return fabric.leaf_oversubscription <= 1 && (fabric.levels < 3 || fabric.spine_oversubscription <= 1);
}

}  // namespace simtrain::engine
