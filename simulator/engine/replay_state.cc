// Implements replay_state.h.
#include "simulator/engine/replay_state.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "simulator/cost/nccl_channels.h"
#include "simulator/cost/nccl_p2p_proxy.h"

namespace sg4 = simgrid::s4u;

namespace simtrain::engine {

ProgramPlan plan_program(const trace::Program& program) {
  ProgramPlan plan;
  plan.stream_ops.resize(program.streams.size());
  plan.awaited_by_other_stream.assign(program.ops.size(), 0);
  plan.host_stream.assign(program.streams.size(), 0);
  plan.copy_stream.assign(program.streams.size(), 0);
  for (std::uint32_t i = 0; i < program.ops.size(); ++i) {
    const trace::Op& op = program.ops[i];
    plan.stream_ops[op.stream].push_back(i);
    // A stream is of a kind when every op on it is: its first op sets the flag, any other clears it.
    const auto classify = [&](std::vector<char>& kind, bool is) {
      if (plan.stream_ops[op.stream].size() == 1) kind[op.stream] = is;
      if (!is) kind[op.stream] = 0;
    };
    const bool compute = op.type == trace::OpType::Compute;
    classify(plan.host_stream, compute && op.compute.kind == trace::ComputeKind::Host);
    classify(plan.copy_stream, compute && op.compute.host_copy);
    for (std::uint32_t dep : op.deps)
      if (program.ops[dep].stream != op.stream) plan.awaited_by_other_stream[dep] = 1;
  }
  return plan;
}

void RankState::release_sms(double from, double to) {
  sms_open.erase(std::find(sms_open.begin(), sms_open.end(), from));
  sms_held.push_back({from, to});
}

double RankState::sms_held_s(double from, double to) const {
  double held_s = 0;
  // Intervals end in order, so those before the first that ended by `from` ended earlier still.
  for (auto it = sms_held.rbegin(); it != sms_held.rend() && it->end_s > from; ++it)
    held_s += std::max(0.0, std::min(to, it->end_s) - std::max(from, it->begin_s));
  for (double start : sms_open) held_s += std::max(0.0, to - std::max(from, start));
  return held_s;
}

const CommunicatorFacts& ReplayState::facts(const std::vector<int>& members) {
  auto it = communicator_facts.find(&members);
  if (it != communicator_facts.end()) return it->second;
  CommunicatorFacts f{cost::place_communicator(members, platform.gpus_per_node), 0};
  for (int member : members) f.simulated_members += lockstep.is_representative(member) ? 1 : 0;
  return communicator_facts.emplace(&members, std::move(f)).first->second;
}

cost::CollectiveLayout ReplayState::collective_layout(int group, int rank, const std::vector<int>& members,
                                                      const CommunicatorFacts& facts) const {
  cost::CollectiveLayout layout{
      &members,
      &facts.placement,
      communicators.position(group, rank),
      platform.gpus_per_node,
      platform.intra_node_bandwidth_Bps,
      platform.intra_node_latency_s,
      platform.nvls_bandwidth_Bps,
      platform.nvls_latency_s,
      platform.nvls_step_latency_s,
      {platform.ll_step_latency_s, platform.ll_bandwidth_fraction, platform.ll128_step_latency_s,
       platform.ll128_bandwidth_fraction, platform.simple_step_latency_s},
      inter_node_latency_s,
      inter_node_bandwidth_Bps,
      {cost::nccl_collective_channels(platform.nccl_network_channels, nccl.min_channels),
       platform.nccl_chunk_latency_s, platform.nccl_channel_latency_s, nccl.buffer_bytes},
      nccl,
      stepwise,
      lockstep.whole_nodes};
  // NVLink nodes (their specs carry NCCL's ring protocol figures) on a network without proxy costs of its
  // own: NCCL's tuner terms price the collectives across nodes (cost/nccl_tuner.h).
  layout.nccl_tuner = !layout.network.has_costs() && platform.ll128_bandwidth_fraction > 0;
  layout.nccl_net_overhead_s = platform.nccl_net_overhead_s;
  // Grace superchips (gh200, gb200, gb300) put Arm CPUs beside the GPUs.
  layout.arm_host = platform.gpu.starts_with("gh") || platform.gpu.starts_with("gb");
  layout.nvls_channels = platform.nvls_channels;
  layout.nvls_tree_channels = platform.nvls_tree_channels;
  layout.multi_node_nvlink = platform.multi_node_nvlink;
  layout.channels_Bps =
      platform.nccl_channel_bandwidth_Bps * layout.network.channels / platform.gpus_per_node;
  layout.point_to_point_inter_node_efficiency = platform.nccl_p2p_efficiency;
  layout.point_to_point_proxy_line_share = cost::nccl_p2p_proxy_line_share(
      platform.nccl_p2p_chunk_s,
      cost::nccl_p2p_net_chunk_bytes(cost::nccl_doubles_p2p_chunk(platform.gpu), nccl.p2p_net_chunk_bytes,
                                     nccl.buffer_bytes),
      platform.gpu_nic_line_Bps);
  layout.point_to_point_proxy_chunk_s = cost::nccl_p2p_proxy_chunk_s(platform.nccl_p2p_chunk_s);
  layout.network_reduces = platform.sharp;
  layout.tuner_plugin = platform.tuner_plugin;
  return layout;
}

cost::RankCollectivePlan ReplayState::collective_plan(const trace::Op& op, int rank,
                                                      const std::vector<int>& members,
                                                      const CommunicatorFacts& facts) const {
  cost::CollectiveLayout layout = collective_layout(op.collective.group, rank, members, facts);
  layout.node_dedup = op.collective.node_dedup;
  return cost::plan_collective(op.collective.kind, op.collective.bytes, layout, efficiencies);
}

std::uint64_t ReplayState::wire_bytes(double bytes, int from, int to) const {
  return static_cast<std::uint64_t>(std::llround(bytes * wire_scale(from, to)));
}

double ReplayState::wire_scale(int from, int to) const {
  return platform.node_of(from) == platform.node_of(to) ? 1 : node_gpus_share_uplink ? lockstep.size : 1;
}

double ReplayState::route_bandwidth(int from, int to) {
  std::uint64_t key = (static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint32_t>(to);
  auto it = route_bandwidth_Bps.find(key);
  if (it != route_bandwidth_Bps.end()) return it->second;
  double latency = 0, bandwidth = std::numeric_limits<double>::infinity();
  std::vector<sg4::Link*> links;
  platform.gpu_hosts[from]->route_to(platform.gpu_hosts[to], links, &latency);
  for (const sg4::Link* link : links) bandwidth = std::min(bandwidth, link->get_bandwidth());
  route_bandwidth_Bps.emplace(key, bandwidth);
  return bandwidth;
}

double ReplayState::route_latency(int from, int to) {
  std::uint64_t key = (static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint32_t>(to);
  auto it = route_latency_s.find(key);
  if (it != route_latency_s.end()) return it->second;
  double latency = 0;
  std::vector<sg4::Link*> links;
  platform.gpu_hosts[from]->route_to(platform.gpu_hosts[to], links, &latency);
  route_latency_s.emplace(key, latency);
  return latency;
}

InterNodeRoute inter_node_route(const platform::BuiltPlatform& platform) {
  InterNodeRoute route;
  if (platform.nodes < 2) return route;
  const int other = platform.gpus_per_node;
  std::vector<sg4::Link*> links;
  platform.gpu_hosts[0]->route_to(platform.gpu_hosts[other], links, &route.latency_s);
  const sg4::Link* slowest = nullptr;
  for (const sg4::Link* link : links)
    if (!slowest || link->get_bandwidth() < slowest->get_bandwidth()) slowest = link;
  if (!slowest) return route;
  route.ring_bandwidth_Bps = slowest->get_bandwidth();
  if (platform.gpus_per_node < 2) return route;
  std::vector<sg4::Link*> neighbour_links;
  double unused = 0;
  platform.gpu_hosts[1]->route_to(platform.gpu_hosts[other + 1], neighbour_links, &unused);
  // The bottleneck is the link of least bandwidth per GPU crossing it: a link the node's GPUs share (its
  // aggregated uplink) gives each 1/L of itself. On an NVL72 domain the uplink (64 NICs) is faster than one
  // GPU's NVLink link, yet each GPU's share of it is far slower.
  double least_Bps = std::numeric_limits<double>::infinity();
  for (const sg4::Link* link : links) {
    const bool shared =
        std::find(neighbour_links.begin(), neighbour_links.end(), link) != neighbour_links.end();
    const double per_gpu_Bps = link->get_bandwidth() / (shared ? platform.gpus_per_node : 1);
    if (per_gpu_Bps < least_Bps) {
      least_Bps = per_gpu_Bps;
      route.shared_by_node = shared;
    }
  }
  route.ring_bandwidth_Bps = least_Bps;
  // Under node lockstep the first GPU's flows carry the node's (ReplayState::wire_scale): L times the share.
  for (const sg4::Link* link : links) {
    const bool shared =
        std::find(neighbour_links.begin(), neighbour_links.end(), link) != neighbour_links.end();
    if (route.shared_by_node && !shared &&
        link->get_bandwidth() < platform.gpus_per_node * least_Bps * (1 - 1e-9))
      route.first_gpu_carries_node = false;
  }
  return route;
}

}  // namespace simtrain::engine
