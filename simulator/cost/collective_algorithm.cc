// Implements collective_algorithm.h: rings (flat or hierarchical) and all-to-all as coalesced flows.
#include "simulator/cost/collective_algorithm.h"

#include <algorithm>
#include <utility>

namespace simtrain::cost {
namespace {

double wire_bytes(double bytes, int from, int to, const CollectiveLayout& layout,
                  const calibration::Efficiencies& efficiencies) {
  bool same_node = from / layout.gpus_per_node == to / layout.gpus_per_node;
  return bytes / (same_node ? efficiencies.nccl_intra_node : efficiencies.nccl_inter_node);
}

// A ring over the `ranks` GPUs of one node moving `volume` bytes per rank in `steps` steps, analytically.
double intra_node_ring_s(double volume, int steps, const CollectiveLayout& layout,
                         const calibration::Efficiencies& efficiencies) {
  if (steps == 0) return 0;
  const double bandwidth_Bps = layout.intra_node_bandwidth_Bps * efficiencies.nccl_intra_node;
  const RingProtocols& p = layout.intra_node_protocols;
  if (p.ll128_bandwidth_fraction <= 0)
    return volume / bandwidth_Bps + steps * (layout.intra_node_latency_s + efficiencies.nccl_step_latency_s);
  const double ll128_s = volume / (bandwidth_Bps * p.ll128_bandwidth_fraction) +
                         steps * (layout.intra_node_latency_s + p.ll128_step_latency_s);
  const double simple_s =
      volume / bandwidth_Bps + steps * (layout.intra_node_latency_s + p.simple_step_latency_s);
  return std::min(ll128_s, simple_s);
}

}  // namespace

CommunicatorPlacement place_communicator(const std::vector<int>& members, int gpus_per_node) {
  CommunicatorPlacement placement;
  const int n = static_cast<int>(members.size());
  std::vector<std::pair<int, int>> by_node;  // (node, position), node by node
  for (int position = 0; position < n; ++position)
    by_node.emplace_back(members[position] / gpus_per_node, position);
  std::sort(by_node.begin(), by_node.end());
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && by_node[j].first == by_node[i].first) ++j;
    if (placement.nodes > 0 && placement.per_node != j - i) placement.per_node = -1;
    if (placement.per_node != -1) placement.per_node = j - i;
    ++placement.nodes;
    i = j;
  }
  if (placement.per_node <= 0) {
    placement.per_node = 0;
    return placement;
  }
  // Members sorted node by node: the next node's member of the same local index is per_node further on.
  placement.inter_node_next.assign(n, 0);
  placement.inter_node_prev.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    int position = by_node[i].second;
    placement.inter_node_next[position] = members[by_node[(i + placement.per_node) % n].second];
    placement.inter_node_prev[position] = members[by_node[(i + n - placement.per_node) % n].second];
  }
  return placement;
}

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

  const int nodes = layout.placement->nodes;
  const int per_node = layout.placement->per_node;
  const bool reduce_scatter_part =
      kind == trace::CollectiveKind::AllReduce || kind == trace::CollectiveKind::ReduceScatter;
  const bool all_gather_part =
      kind == trace::CollectiveKind::AllReduce || kind == trace::CollectiveKind::AllGather;
  if (per_node > 1 && layout.intra_node_bandwidth_Bps > 0 && (reduce_scatter_part || all_gather_part)) {
    const double l = per_node, m = nodes;
    const double intra_s = intra_node_ring_s((l - 1) / l * bytes, per_node - 1, layout, efficiencies);
    if (reduce_scatter_part) plan.intra_node_before_s = intra_s;
    if (all_gather_part) plan.intra_node_after_s = intra_s;
    if (kind == trace::CollectiveKind::AllReduce && layout.nvls_bandwidth_Bps > 0) {
      const double nvls_s = layout.nvls_latency_s + bytes / layout.nvls_bandwidth_Bps;
      plan.intra_node_before_s = plan.intra_node_after_s = nvls_s / 2;
    }
    if (nodes > 1) {
      // The ring across nodes links the members of equal local index.
      const int inter_next = layout.placement->inter_node_next[layout.position];
      const int inter_prev = layout.placement->inter_node_prev[layout.position];
      const int passes = reduce_scatter_part && all_gather_part ? 2 : 1;
      const double volume = passes * (m - 1) / m * bytes / l;
      plan.steps = passes * (nodes - 1);
      plan.sends.push_back({inter_next, wire_bytes(volume, self, inter_next, layout, efficiencies)});
      plan.receives.push_back({inter_prev, wire_bytes(volume, inter_prev, self, layout, efficiencies)});
      plan.software_latency_s = plan.steps * efficiencies.nccl_step_latency_s;
    }
    return plan;
  }

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
