#include "simulator/cost/collective_algorithm.h"

namespace simtrain::cost {
namespace {

double wire_bytes(double bytes, int from, int to, const CollectiveLayout& layout,
                  const calibration::Efficiencies& efficiencies) {
  bool same_node = from / layout.gpus_per_node == to / layout.gpus_per_node;
  return bytes / (same_node ? efficiencies.nccl_intra_node : efficiencies.nccl_inter_node);
}

}  // namespace

double bus_bandwidth_factor(trace::CollectiveKind kind, int ranks) {
  double n = ranks;
  switch (kind) {
    case trace::CollectiveKind::AllReduce:
      return 2 * (n - 1) / n;
    case trace::CollectiveKind::AllGather:
    case trace::CollectiveKind::ReduceScatter:
    case trace::CollectiveKind::AllToAll:
      return (n - 1) / n;
    case trace::CollectiveKind::Broadcast:
    case trace::CollectiveKind::Reduce:
      return 1;
  }
  return 1;
}

RankCollectivePlan plan_collective(trace::CollectiveKind kind, double bytes, const CollectiveLayout& layout,
                                   const calibration::Efficiencies& efficiencies) {
  RankCollectivePlan plan;
  const std::vector<int>& members = *layout.members;
  const int n = static_cast<int>(members.size());
  if (n <= 1) return plan;
  const int self = members[layout.position];
  const int next = members[(layout.position + 1) % n];
  const int prev = members[(layout.position + n - 1) % n];

  auto ring = [&](double volume_per_rank, int steps, bool last_sends, bool first_receives) {
    plan.steps = steps;
    if (last_sends || layout.position != n - 1)
      plan.sends.push_back({next, wire_bytes(volume_per_rank, self, next, layout, efficiencies)});
    if (first_receives || layout.position != 0)
      plan.receives.push_back({prev, wire_bytes(volume_per_rank, prev, self, layout, efficiencies)});
  };

  switch (kind) {
    case trace::CollectiveKind::AllReduce:
      ring(2.0 * (n - 1) / n * bytes, 2 * (n - 1), true, true);
      break;
    case trace::CollectiveKind::AllGather:
    case trace::CollectiveKind::ReduceScatter:
      ring(double(n - 1) / n * bytes, n - 1, true, true);
      break;
    // A pipelined chain from position 0 to n-1: every rank but the last forwards the whole buffer.
    case trace::CollectiveKind::Broadcast:
    case trace::CollectiveKind::Reduce:
      ring(bytes, n - 1, false, false);
      break;
    case trace::CollectiveKind::AllToAll:
      plan.steps = 1;
      for (int i = 1; i < n; ++i) {
        int to = members[(layout.position + i) % n];
        int from = members[(layout.position + n - i) % n];
        plan.sends.push_back({to, wire_bytes(bytes / n, self, to, layout, efficiencies)});
        plan.receives.push_back({from, wire_bytes(bytes / n, from, self, layout, efficiencies)});
      }
      break;
  }
  plan.software_latency_s = plan.steps * efficiencies.nccl_step_latency_s;
  return plan;
}

}  // namespace simtrain::cost
