// Implements network_estimate.h: a CollectiveLayout from the cluster spec's figures, and the price of the
// plan the engine would replay.
#include "simulator/plan/network_estimate.h"

#include <algorithm>

#include "simulator/cost/nccl_p2p_proxy.h"

namespace simtrain::plan {
namespace {

// Switches a packet crosses between two nodes: one under a star or a common leaf, three across leaves, five
// across pods (platform/simgrid_platform.h); on a dragonfly or torus, about three links.
double route_latency_s(const platform::ClusterSpec& spec) {
  const platform::FabricSpec& f = spec.fabric;
  const double nics = 2 * spec.nics.latency_s;
  switch (f.topology) {
    case platform::FabricTopology::Star:
      return nics + f.switch_latency_s;
    case platform::FabricTopology::FatTree: {
      if (f.nodes_per_leaf <= 0 || spec.nodes <= f.nodes_per_leaf) return nics + f.switch_latency_s;
      const bool across_pods =
          f.levels == 3 && f.leaves_per_pod > 0 && spec.nodes > f.nodes_per_leaf * f.leaves_per_pod;
      return nics + (across_pods ? 5 : 3) * f.switch_latency_s;
    }
    case platform::FabricTopology::Dragonfly:
    case platform::FabricTopology::Torus:
      break;
  }
  return nics + 3 * f.link_latency_s;
}

}  // namespace

NetworkEstimate::NetworkEstimate(const platform::ClusterSpec& spec,
                                 const calibration::Efficiencies& efficiencies)
    : spec_(spec), efficiencies_(efficiencies) {
  inter_node_latency_s_ = route_latency_s(spec);
  double node_Bps = spec.nics.count * spec.nics.bandwidth_Bps;
  if (spec.fabric.topology == platform::FabricTopology::FatTree && spec.fabric.nodes_per_leaf > 0 &&
      spec.nodes > spec.fabric.nodes_per_leaf)
    node_Bps /= std::max(1.0, spec.fabric.leaf_oversubscription);
  inter_node_bandwidth_Bps_ = node_Bps / std::max(1, spec.gpus_per_node);
}

double NetworkEstimate::collective_s(trace::CollectiveKind kind, double bytes,
                                     const std::vector<int>& members,
                                     trace::NodeDedupRouting node_dedup) const {
  if (members.size() < 2 || bytes <= 0) return 0;
  const platform::IntraNodeSpec& intra = spec_.intra_node;
  const cost::CommunicatorPlacement placement = cost::place_communicator(members, spec_.gpus_per_node);
  cost::CollectiveLayout layout;
  layout.members = &members;
  layout.placement = &placement;
  layout.position = 0;
  layout.gpus_per_node = spec_.gpus_per_node;
  layout.intra_node_bandwidth_Bps = intra.bandwidth_Bps;
  layout.intra_node_latency_s = intra.latency_s;
  layout.nvls_bandwidth_Bps = intra.bandwidth_Bps * intra.nvls_efficiency;
  layout.nvls_latency_s = intra.nvls_latency_s;
  layout.nvls_step_latency_s = intra.nvls_step_latency_s;
  layout.nvls_channels = intra.nvls_channels;
  layout.nvls_tree_channels = intra.nvls_tree_channels;
  layout.multi_node_nvlink = intra.multi_node_nvlink;
  layout.intra_node_protocols = {intra.ll_step_latency_s, intra.ll_bandwidth_fraction,
                                 intra.ll128_step_latency_s, intra.ll128_bandwidth_fraction,
                                 intra.simple_step_latency_s};
  if (placement.nodes > 1) {
    layout.inter_node_latency_s = inter_node_latency_s_;
    layout.inter_node_bandwidth_Bps = inter_node_bandwidth_Bps_;
  }
  layout.network = {spec_.nics.nccl_channels(), spec_.nics.nccl_chunk_latency_s,
                    spec_.nics.nccl_channel_latency_s, cost::kNcclDefaultBufferBytes};
  layout.node_dedup = node_dedup;
  layout.point_to_point_inter_node_efficiency = spec_.nics.nccl_p2p_efficiency;
  layout.point_to_point_proxy_line_share = cost::nccl_p2p_proxy_line_share(
      spec_.nics.nccl_p2p_chunk_s, cost::nccl_p2p_net_chunk_bytes(cost::nccl_doubles_p2p_chunk(spec_.gpu)),
      spec_.nics.line_per_gpu_Bps(spec_.gpus_per_node));
  layout.point_to_point_proxy_chunk_s = cost::nccl_p2p_proxy_chunk_s(spec_.nics.nccl_p2p_chunk_s);
  layout.network_reduces = spec_.nics.sharp;
  layout.tuner_plugin = spec_.nics.tuner_plugin;
  if (kind == trace::CollectiveKind::AllToAll && placement.nodes > 1 && placement.per_node > 0) {
    // Across nodes an all-to-all spreads its node-pair flows over the node's GPUs (rank 0 may carry none),
    // which together share the node's NICs: the first node's off-node bytes over its uplink, beside the
    // slowest member's NVLink phase, plus the latencies, as below.
    double off_node_bytes = 0, nvlink_s = 0, serial_s = 0, latency_s = 0;
    for (int local = 0; local < placement.per_node; ++local) {
      layout.position = placement.by_node[local];
      const cost::RankCollectivePlan plan = cost::plan_collective(kind, bytes, layout, efficiencies_);
      for (const cost::CoalescedFlow& flow : plan.sends) off_node_bytes += flow.bytes;
      nvlink_s = std::max(nvlink_s, plan.intra_node_before_s);
      serial_s = std::max(serial_s, plan.intra_node_serial_s);
      latency_s = std::max(latency_s, plan.intra_node_latency_s + plan.steps * inter_node_latency_s_ +
                                          plan.software_latency_s);
    }
    const double uplink_Bps = inter_node_bandwidth_Bps_ * std::max(1, spec_.gpus_per_node);
    return std::max(nvlink_s, off_node_bytes / uplink_Bps) + serial_s + latency_s;
  }
  const cost::RankCollectivePlan plan = cost::plan_collective(kind, bytes, layout, efficiencies_);

  // The engine runs the intra-node phases alongside the flows (the slower sets the pace), a serial one after
  // them, and charges every step's latency on top; flows of one rank share its links, so their bytes add up.
  // A flow capped below its route (max_rate_Bps: NCCL's point-to-point channels) takes as long as the cap.
  double intra_flow_bytes = 0, inter_flow_bytes = 0, inter_flow_s = 0;
  for (const cost::CoalescedFlow& flow : plan.sends) {
    if (flow.peer / spec_.gpus_per_node == members[0] / spec_.gpus_per_node) {
      intra_flow_bytes += flow.bytes;
      continue;
    }
    inter_flow_bytes += flow.bytes;
    inter_flow_s +=
        flow.bytes / (flow.max_rate_Bps > 0 ? std::min(flow.max_rate_Bps, inter_node_bandwidth_Bps_)
                                            : inter_node_bandwidth_Bps_);
  }
  double flows_s = 0;
  if (intra_flow_bytes > 0) flows_s += intra_flow_bytes / intra.bandwidth_Bps;
  flows_s += inter_flow_s;
  const double hop_latency_s = inter_flow_bytes > 0 ? inter_node_latency_s_ : intra.latency_s;
  return std::max(plan.intra_node_before_s + plan.intra_node_after_s, flows_s) + plan.intra_node_serial_s +
         plan.intra_node_latency_s + plan.steps * hop_latency_s + plan.software_latency_s;
}

double NetworkEstimate::send_s(double bytes, int from, int to) const {
  if (from / spec_.gpus_per_node == to / spec_.gpus_per_node)
    return spec_.intra_node.latency_s + bytes / spec_.intra_node.bandwidth_Bps;
  return inter_node_latency_s_ + bytes / inter_node_bandwidth_Bps_;
}

double NetworkEstimate::ring_step_s(double bytes, const std::vector<int>& ring) const {
  const int n = static_cast<int>(ring.size()), g = spec_.gpus_per_node;
  if (n < 2) return 0;
  // On each ring's node of its first member: members, and members whose successor is off the node.
  int on_node = 0, sending_off = 0;
  double slowest_s = 0;
  for (int i = 0; i < n; ++i) {
    const int from = ring[i], to = ring[(i + 1) % n];
    const bool off = from / g != to / g;
    if (from / g == ring[0] / g) ++on_node, sending_off += off ? 1 : 0;
    if (!off) slowest_s = std::max(slowest_s, send_s(bytes, from, to));
  }
  if (sending_off == 0) return slowest_s;
  const double share = spec_.fabric.rail_optimized ? 1.0 : static_cast<double>(on_node) / sending_off;
  return std::max(slowest_s, inter_node_latency_s_ + bytes / (inter_node_bandwidth_Bps_ * share));
}

std::vector<int> strided_ranks(int first, int size, int stride) {
  std::vector<int> ranks(static_cast<std::size_t>(std::max(0, size)));
  for (int i = 0; i < size; ++i) ranks[static_cast<std::size_t>(i)] = first + i * stride;
  return ranks;
}

}  // namespace simtrain::plan
