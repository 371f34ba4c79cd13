// Implements collective_algorithm.h: rings (flat or hierarchical), double binary trees and all-to-all as
// coalesced flows, and the choice between them.
#include "simulator/cost/collective_algorithm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "simulator/cost/double_binary_tree.h"
#include "simulator/cost/nccl_tuned_choice.h"
#include "simulator/cost/nccl_tuner.h"
#include "simulator/cost/network_protocol.h"
#include "simulator/cost/nvls_pipeline.h"

namespace simtrain::cost {
namespace {

double wire_bytes(double bytes, int from, int to, const CollectiveLayout& layout,
                  const calibration::Efficiencies& efficiencies) {
  bool same_node = from / layout.gpus_per_node == to / layout.gpus_per_node;
  return bytes / (same_node ? efficiencies.nccl_intra_node : efficiencies.nccl_inter_node);
}

// What a point-to-point transfer's bytes are divided by across nodes (CollectiveLayout above): what the
// transport reaches of the line, or less where the proxy's chunk rate falls short of it.
// The flex dispatcher's kernels post their network sends from the GPU, so NCCL's proxy does not bound them.
double point_to_point_inter_node_efficiency(const CollectiveLayout& layout,
                                            const calibration::Efficiencies& efficiencies) {
  const double line = layout.point_to_point_inter_node_efficiency > 0
                          ? layout.point_to_point_inter_node_efficiency
                          : efficiencies.nccl_inter_node;
  const bool proxied = layout.node_dedup.top_k == 0 && layout.point_to_point_proxy_line_share > 0;
  return proxied ? std::min(line, layout.point_to_point_proxy_line_share) : line;
}

// wire_bytes for a point-to-point transfer (all-to-all, sendrecv).
double point_to_point_wire_bytes(double bytes, int from, int to, const CollectiveLayout& layout,
                                 const calibration::Efficiencies& efficiencies) {
  bool same_node = from / layout.gpus_per_node == to / layout.gpus_per_node;
  return bytes / (same_node ? efficiencies.nccl_intra_node
                            : point_to_point_inter_node_efficiency(layout, efficiencies));
}

// What an all-to-all's bytes between GPUs of one node are divided by: the flex dispatcher's own kernels'
// share of the NVLink line for a token dispatch routed per node, where the profile knows it, else NCCL's.
double intra_node_all_to_all_efficiency(const CollectiveLayout& layout,
                                        const calibration::Efficiencies& efficiencies) {
  const bool flex = layout.node_dedup.top_k > 0;
  return flex && efficiencies.moe_flex_dispatch_intra_node > 0 ? efficiencies.moe_flex_dispatch_intra_node
                                                               : efficiencies.nccl_intra_node;
}

// The share of an all-to-all's top_k token copies that travel over NVLink among `ranks` GPUs. A token
// dispatch routed per node is sent once to each GPU holding any of the token's experts, which copies it to
// its local experts itself (HybridEP's and DeepEP's dispatched rows, whose bytes are also what
// moe_flex_dispatch_intra_node was measured against); NCCL's all-to-all sends every copy.
double intra_node_all_to_all_share(const CollectiveLayout& layout, int ranks) {
  if (layout.node_dedup.top_k == 0) return 1;
  return node_dedup_fraction(layout.node_dedup.top_k, static_cast<int>(layout.node_dedup.experts), ranks);
}

// What the flex dispatcher's kernels spend on the token rows of `nvlink_bytes` beyond the bytes themselves
// (Efficiencies::moe_flex_dispatch_row_s); 0 for NCCL's all-to-all and where the row size or the figure is
// unknown.
double flex_dispatch_rows_s(double nvlink_bytes, const CollectiveLayout& layout,
                            const calibration::Efficiencies& efficiencies) {
  const trace::NodeDedupRouting& routing = layout.node_dedup;
  if (routing.top_k == 0 || routing.row_bytes == 0) return 0;
  return nvlink_bytes / routing.row_bytes * efficiencies.moe_flex_dispatch_row_s;
}

// What NCCL's proxy adds to an all-to-all with `remote_peers` peers on other nodes: an all-to-all is a send
// and a receive per peer, and the proxy posts and completes at least one chunk for each such peer however few
// bytes it gets, a chunk's time per peer that the chunk rate (point_to_point_inter_node_efficiency) does not
// count. None for the flex dispatcher, whose kernels send per node from the GPU without NCCL's proxy.
double all_to_all_proxy_peers_s(int remote_peers, const CollectiveLayout& layout) {
  if (layout.node_dedup.top_k > 0) return 0;
  return remote_peers * layout.point_to_point_proxy_chunk_s;
}

// A ring over the GPUs of one node moving `volume` bytes per rank in `steps` steps, priced analytically
// under the forced protocol or the fastest one the platform has.
struct IntraNodeRing {
  double transfer_s = 0;  // the volume over the protocol's share of the bandwidth
  double latency_s = 0;   // the steps' latencies
  NcclProtocol protocol = NcclProtocol::Simple;

  double total_s() const { return transfer_s + latency_s; }
};

// `protocol`: the one to take, else the fastest; LL on a node without LL figures takes LL128, its nearest.
IntraNodeRing intra_node_ring(double volume, int steps, const CollectiveLayout& layout,
                              const calibration::Efficiencies& efficiencies,
                              std::optional<NcclProtocol> protocol) {
  if (steps == 0) return {};
  const double bandwidth_Bps = layout.intra_node_bandwidth_Bps * efficiencies.nccl_intra_node;
  const RingProtocols& p = layout.intra_node_protocols;
  auto priced = [&](double step_latency_s, double fraction, NcclProtocol protocol) {
    return IntraNodeRing{volume / (bandwidth_Bps * fraction),
                         steps * (layout.intra_node_latency_s + step_latency_s), protocol};
  };
  if (p.ll128_bandwidth_fraction <= 0)
    return priced(efficiencies.nccl_step_latency_s, 1.0, NcclProtocol::Simple);
  std::vector<IntraNodeRing> options = {
      priced(p.ll128_step_latency_s, p.ll128_bandwidth_fraction, NcclProtocol::LL128),
      priced(p.simple_step_latency_s, 1.0, NcclProtocol::Simple)};
  if (p.ll_bandwidth_fraction > 0)
    options.push_back(priced(p.ll_step_latency_s, p.ll_bandwidth_fraction, NcclProtocol::LL));
  if (protocol == NcclProtocol::LL && p.ll_bandwidth_fraction <= 0) protocol = NcclProtocol::LL128;
  if (protocol) {
    for (const auto& option : options)
      if (option.protocol == *protocol) return option;
  }
  return *std::min_element(
      options.begin(), options.end(),
      [](const IntraNodeRing& a, const IntraNodeRing& b) { return a.total_s() < b.total_s(); });
}

// The network part of an all-reduce, all-gather or reduce-scatter across the nodes as `algorithm` runs it
// under `protocol` (or the faster): the protocol's costs, and the busiest node's volume over its NICs at
// the protocol's share of their bandwidth. A flat ring's chunk pays the network's costs on the steps that
// leave a node, 2(M-1) for an all-reduce (its NVLink hops are the intra-node phases' steps);
// `as_tuner_ranks` counts all 2(N-1) of its steps instead, as NCCL's tuner does when it ranks the ring
// (tuning.cc: nsteps, the NVLink ones at no less than the network overhead under Simple).
struct NetworkEstimate {
  NetworkPhase phase;
  double transfer_s = 0;

  double total_s() const { return phase.latency_s + transfer_s; }
};

NetworkEstimate network_part(NcclAlgorithm algorithm, trace::CollectiveKind kind, double bytes,
                             const CollectiveLayout& layout, const calibration::Efficiencies& efficiencies,
                             std::optional<NcclProtocol> protocol, bool as_tuner_ranks = false) {
  const CommunicatorPlacement& placement = *layout.placement;
  const int m = placement.nodes, n = m * placement.per_node;
  NetworkShape shape;
  shape.algorithm = algorithm;
  shape.bytes = bytes;
  shape.ranks = n;
  shape.nodes = m;
  shape.node_bandwidth_Bps =
      layout.inter_node_bandwidth_Bps * efficiencies.nccl_inter_node * placement.per_node;
  if (algorithm == NcclAlgorithm::Tree || algorithm == NcclAlgorithm::NVLSTree) {
    shape.algorithm = NcclAlgorithm::Tree;
    shape.node_volume = placement.tree_peak_volume * bytes;
    shape.network_steps = 2 * binary_tree_depth(m);
    const int chain = algorithm == NcclAlgorithm::NVLSTree ? 0 : placement.per_node - 1;
    shape.tree_depth = chain + static_cast<int>(std::floor(std::log2(m)));
  } else {
    const int passes = kind == trace::CollectiveKind::AllReduce ? 2 : 1;
    shape.node_volume = passes * (n - 1.0) / n * bytes;
    shape.network_steps = passes * ((as_tuner_ranks ? n : m) - 1);
  }
  const NetworkPhase phase = network_phase(shape, layout.network, protocol);
  return {phase, shape.node_volume / (shape.node_bandwidth_Bps * phase.bandwidth_fraction)};
}

// The estimates NCCL's tuner would compare for the part across nodes of an all-reduce: the route and
// software latency of each step, the protocol's costs (a ring's over all its steps) and the busiest node's
// transfer.
bool tree_is_faster(double bytes, bool nvls, const CollectiveLayout& layout,
                    const calibration::Efficiencies& efficiencies) {
  const CommunicatorPlacement& placement = *layout.placement;
  if (layout.inter_node_bandwidth_Bps <= 0) return false;
  const int m = placement.nodes;
  const double step_s = layout.inter_node_latency_s + efficiencies.nccl_step_latency_s;
  const auto kind = trace::CollectiveKind::AllReduce;
  const double ring_s = 2 * (m - 1) * step_s + network_part(NcclAlgorithm::Ring, kind, bytes, layout,
                                                            efficiencies, layout.forced.protocol, true)
                                                   .total_s();
  const double tree_s = 2 * binary_tree_depth(m) * step_s +
                        network_part(nvls ? NcclAlgorithm::NVLSTree : NcclAlgorithm::Tree, kind, bytes,
                                     layout, efficiencies, layout.forced.protocol)
                            .total_s();
  return tree_s < ring_s;
}

// The flows of one rank (local index `local` on the `node`-th node) in both trees over the nodes, each
// tree carrying half of `share` up and down every edge: one flow per edge and direction, all of one size.
void add_tree_flows(RankCollectivePlan& plan, double share, int node, int local, int self,
                    const CollectiveLayout& layout, const calibration::Efficiencies& efficiencies) {
  const CommunicatorPlacement& placement = *layout.placement;
  auto member = [&](int at_node) { return placement.by_node[at_node * placement.per_node + local]; };
  const DoubleBinaryTree tree = double_binary_tree(placement.nodes, node);
  auto edge = [&](int peer) {
    plan.sends.push_back({peer, wire_bytes(share / 2, self, peer, layout, efficiencies)});
    plan.receives.push_back({peer, wire_bytes(share / 2, peer, self, layout, efficiencies)});
  };
  for (const TreeNeighbours& t : tree.trees) {
    if (t.parent >= 0) edge(member(t.parent));
    for (int child : t.children) edge(member(child));
  }
  plan.steps = 2 * binary_tree_depth(placement.nodes);
}

// All-to-all over M > 1 nodes of L members each, aggregated per node pair.
void plan_node_aggregated_all_to_all(RankCollectivePlan& plan, double bytes, const CollectiveLayout& layout,
                                     const calibration::Efficiencies& efficiencies) {
  const CommunicatorPlacement& placement = *layout.placement;
  const int per_node = placement.per_node, nodes = placement.nodes;
  const double n = static_cast<double>(per_node) * nodes;
  const int slot = placement.slot[layout.position];
  const int node = slot / per_node, local = slot % per_node;
  const int self = (*layout.members)[layout.position];
  // Routed per node, the tokens that cross arrive at one GPU of the node, which forwards the (M-1)/M of the
  // buffer that came from other nodes to the node's other L-1 GPUs over NVLink.
  const bool dedup = layout.node_dedup.top_k > 0;
  const double nvlink_bytes = ((per_node - 1) * bytes / n +
                               (dedup ? (nodes - 1.0) / nodes * (per_node - 1.0) / per_node * bytes : 0)) *
                              intra_node_all_to_all_share(layout, per_node * nodes);
  // NCCL's all-to-all and DeepEP's kernels pipeline their NVLink and network transfers; HybridEP's forward
  // over NVLink what came over the network after it came, so their phases add up (RankCollectivePlan).
  if (per_node > 1 && layout.intra_node_bandwidth_Bps > 0)
    (dedup && layout.node_dedup.phases_in_series ? plan.intra_node_serial_s : plan.intra_node_before_s) =
        nvlink_bytes /
            (layout.intra_node_bandwidth_Bps * intra_node_all_to_all_efficiency(layout, efficiencies)) +
        flex_dispatch_rows_s(nvlink_bytes, layout, efficiencies) + layout.intra_node_latency_s +
        efficiencies.nccl_step_latency_s;
  // Node i's flow to node k leaves from local index k mod L and reaches local index i mod L. Where a node
  // has at least twice as many GPUs as there are nodes, each pair's flow is split into c = floor(L / M)
  // pieces, piece j from local index k + jM to local index i + jM, so that the node's traffic leaves
  // through as many GPUs' links as the stepwise exchange uses: one GPU's link must not carry a whole
  // node's share (two NVL72 racks: one GPU's 900 GB/s against the rack's 64 NICs). Under node lockstep the
  // node's first rank carries them all, each at 1/L of the pair's bytes (the engine scales flows of
  // lockstep representatives by L).
  const bool first_carries_all = layout.node_representative;
  const int pieces = first_carries_all ? 1 : std::max(1, per_node / nodes);
  const double crossing =
      dedup ? node_dedup_fraction(layout.node_dedup.top_k, static_cast<int>(layout.node_dedup.experts), nodes)
            : 1;
  const double flow_bytes =
      crossing * per_node * per_node * bytes / n / (first_carries_all ? per_node : 1) / pieces;
  auto carrier = [&](int other_node, int piece) {
    return first_carries_all ? 0 : (other_node + piece * nodes) % per_node;
  };
  for (int i = 1; i < nodes; ++i) {
    const int to = (node + i) % nodes;
    const int from = (node + nodes - i) % nodes;
    for (int piece = 0; piece < pieces; ++piece) {
      if (carrier(to, piece) == local) {
        const int peer = placement.by_node[to * per_node + carrier(node, piece)];
        plan.sends.push_back({peer, point_to_point_wire_bytes(flow_bytes, self, peer, layout, efficiencies)});
      }
      if (carrier(from, piece) == local) {
        const int peer = placement.by_node[from * per_node + carrier(node, piece)];
        plan.receives.push_back(
            {peer, point_to_point_wire_bytes(flow_bytes, peer, self, layout, efficiencies)});
      }
    }
  }
  plan.steps = 1;
  plan.software_latency_s =
      efficiencies.nccl_step_latency_s + all_to_all_proxy_peers_s(static_cast<int>(n) - per_node, layout);
}

}  // namespace

CoalescedFlow point_to_point_flow(double bytes, int from, int to, const CollectiveLayout& layout,
                                  const calibration::Efficiencies& efficiencies) {
  const int gpus = std::max(1, layout.gpus_per_node);
  CoalescedFlow f{to, point_to_point_wire_bytes(bytes, from, to, layout, efficiencies)};
  if (from / gpus == to / gpus || layout.inter_node_bandwidth_Bps <= 0) return f;
  // Its bytes divided by the point-to-point efficiency, it runs at most at the GPU's share of the NICs, even
  // alone on a node's aggregated uplink, and at most at its channels' bandwidth.
  const double channels_Bps =
      nccl_p2p_channels_per_net_peer(static_cast<int>(layout.members->size()), layout.network.channels,
                                     layout.inter_node_bandwidth_Bps,
                                     std::max(1, layout.network.channels / 2 / gpus)) *
      kNcclP2pChannelNetBandwidth_Bps;
  f.max_rate_Bps = std::min(layout.inter_node_bandwidth_Bps,
                            channels_Bps / point_to_point_inter_node_efficiency(layout, efficiencies));
  return f;
}

namespace {

// nccl-tests' sendrecv: this rank sends the whole buffer to the next member and receives the previous
// member's. A pair inside a node moves over NVLink, analytically, both directions at once over the GPU's
// link; a pair across nodes is a flow through the NICs at the least of what NCCL reaches of the GPU's NIC
// share and its point-to-point channels' bandwidth (nccl_p2p_channels_per_net_peer x 14 GB/s). Every member
// ends with the slowest pair: the engine waits for all members (as for every collective).
void plan_sendrecv(RankCollectivePlan& plan, double bytes, const CollectiveLayout& layout,
                   const calibration::Efficiencies& efficiencies) {
  const std::vector<int>& members = *layout.members;
  const int n = static_cast<int>(members.size());
  const int self = members[layout.position];
  const int next = members[(layout.position + 1) % n];
  const int prev = members[(layout.position + n - 1) % n];
  const auto same_node = [&](int a, int b) { return a / layout.gpus_per_node == b / layout.gpus_per_node; };
  const bool analytic = layout.intra_node_bandwidth_Bps > 0;
  const auto flow = [&](int from, int to) {
    CoalescedFlow f = point_to_point_flow(bytes, from, to, layout, efficiencies);
    f.peer = to == self ? from : to;
    return f;
  };
  plan.steps = 1;
  plan.algorithm = NcclAlgorithm::Ring;
  if (analytic && (same_node(self, next) || same_node(prev, self))) {
    plan.intra_node_before_s = bytes / (layout.intra_node_bandwidth_Bps * efficiencies.nccl_intra_node);
    plan.intra_node_latency_s = layout.intra_node_latency_s;
  }
  if (!analytic || !same_node(self, next)) plan.sends.push_back(flow(self, next));
  if (!analytic || !same_node(prev, self)) plan.receives.push_back(flow(prev, self));
  plan.software_latency_s = efficiencies.nccl_step_latency_s;
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
  placement.by_node.resize(n);
  placement.slot.resize(n);
  for (int i = 0; i < n; ++i) {
    placement.by_node[i] = members[by_node[i].second];
    placement.slot[by_node[i].second] = i;
  }
  // Members sorted node by node: the next node's member of the same local index is per_node further on.
  placement.inter_node_next.assign(n, 0);
  placement.inter_node_prev.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    int position = by_node[i].second;
    placement.inter_node_next[position] = placement.by_node[(i + placement.per_node) % n];
    placement.inter_node_prev[position] = placement.by_node[(i + n - placement.per_node) % n];
  }
  placement.tree_peak_volume = double_binary_tree_peak_volume(placement.nodes);
  return placement;
}

bool is_point_to_point(trace::CollectiveKind kind) {
  return kind == trace::CollectiveKind::AllToAll || kind == trace::CollectiveKind::SendRecv;
}

int nccl_p2p_channels_per_net_peer(int ranks, int collective_channels, double gpu_net_bandwidth_Bps,
                                   int nics_per_gpu) {
  const auto pow2_up = [](int v) {
    int p = 1;
    while (p < v) p *= 2;
    return p;
  };
  const auto div_up = [](int a, int b) { return (a + b - 1) / b; };
  // ncclTopoGetNchannels: one channel per local NIC at least, more to reach the NICs' bandwidth (NCCL's
  // GB/s, truncated) at P2P_PER_CHANNEL_NET_BW each.
  const int per_channel_GBps = static_cast<int>(kNcclP2pChannelNetBandwidth_Bps / 1e9);
  int per_peer =
      std::max(nics_per_gpu, div_up(static_cast<int>(gpu_net_bandwidth_Bps / 1e9), per_channel_GBps));
  per_peer = pow2_up(std::max(1, per_peer));
  // ncclTopoComputeP2pChannels: p2p channels are the collective channels (at most MAXCHANNELS) rounded up to
  // a power of two; across nodes the channels per peer halve until the peers of one round fit them, 8 peers
  // (NCCL_MAX_DEV_WORK_P2P_PER_BATCH) per batch.
  const int p2p_channels = pow2_up(std::clamp(collective_channels, 1, 32));
  while (per_peer * div_up(ranks, 8) > p2p_channels && per_peer > 1) per_peer /= 2;
  return per_peer;
}

double node_dedup_fraction(int top_k, int experts, int nodes) {
  if (nodes <= 1 || top_k <= 0 || experts < top_k) return 1;
  // q = C(E - E/M, k) / C(E, k): none of the token's k experts on a given other node.
  const double per_node = static_cast<double>(experts) / nodes;
  double q = 1;
  for (int i = 0; i < top_k; ++i) q *= std::max(0.0, (experts - per_node - i) / (experts - i));
  return std::min(1.0, nodes * (1 - q) / top_k);
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
    case trace::CollectiveKind::SendRecv:
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
  if (kind == trace::CollectiveKind::SendRecv) {
    plan_sendrecv(plan, bytes, layout, efficiencies);
    return plan;
  }
  const int nodes = layout.placement->nodes;
  const int per_node = layout.placement->per_node;
  const NcclTunerPlugin plugin = layout.forced.tuner_plugin.value_or(layout.tuner_plugin);
  if (plugin != NcclTunerPlugin::None && per_node > 0 && !layout.forced.algorithm &&
      !layout.forced.protocol) {
    const auto choice = tuner_plugin_choice(plugin, kind, bytes, n, nodes, layout.nvls_bandwidth_Bps > 0);
    if (choice) {
      CollectiveLayout chosen = layout;
      chosen.forced.algorithm = choice->algorithm;
      chosen.forced.protocol = choice->protocol;
      return plan_collective(kind, bytes, chosen, efficiencies);
    }
  }
  const bool pat_runs = layout.nccl_tuner && per_node == 1 && layout.inter_node_bandwidth_Bps > 0 &&
                        nccl_pat_runs(kind, n, nodes, layout.forced.version_minor);
  if (layout.forced.algorithm == NcclAlgorithm::PAT && !pat_runs) {
    // NCCL_ALGO=PAT names the all-gathers and reduce-scatters PAT runs; the others go as NCCL chooses.
    CollectiveLayout unforced = layout;
    unforced.forced.algorithm.reset();
    return plan_collective(kind, bytes, unforced, efficiencies);
  }

  auto ring = [&](double volume_per_rank, int steps, bool last_sends, bool first_receives) {
    plan.steps = steps;
    if (last_sends || layout.position != n - 1)
      plan.sends.push_back({next, wire_bytes(volume_per_rank, self, next, layout, efficiencies)});
    if (first_receives || layout.position != 0)
      plan.receives.push_back({prev, wire_bytes(volume_per_rank, prev, self, layout, efficiencies)});
  };

  const bool reduce_scatter_part =
      kind == trace::CollectiveKind::AllReduce || kind == trace::CollectiveKind::ReduceScatter;
  const bool all_gather_part =
      kind == trace::CollectiveKind::AllReduce || kind == trace::CollectiveKind::AllGather;
  const bool hierarchical = per_node > 1 && layout.intra_node_bandwidth_Bps > 0;
  if (kind == trace::CollectiveKind::AllToAll && per_node > 0 && nodes > 1 && !layout.pairwise_all_to_all &&
      (per_node == 1 || layout.intra_node_bandwidth_Bps > 0)) {
    plan.algorithm = NcclAlgorithm::Ring;
    plan_node_aggregated_all_to_all(plan, bytes, layout, efficiencies);
    return plan;
  }
  // All-to-all inside one node is analytic, as every other intra-node collective is (DESIGN.md §5): each
  // GPU sends (N-1)/N of its buffer over its own NVLink (or PCIe) link at once.
  if (kind == trace::CollectiveKind::AllToAll && nodes == 1 && layout.intra_node_bandwidth_Bps > 0 &&
      !layout.pairwise_all_to_all) {
    plan.algorithm = NcclAlgorithm::Ring;
    const double nvlink_bytes = (n - 1.0) / n * bytes * intra_node_all_to_all_share(layout, n);
    plan.intra_node_before_s = nvlink_bytes / (layout.intra_node_bandwidth_Bps *
                                               intra_node_all_to_all_efficiency(layout, efficiencies)) +
                               flex_dispatch_rows_s(nvlink_bytes, layout, efficiencies);
    plan.intra_node_latency_s = layout.intra_node_latency_s + efficiencies.nccl_step_latency_s;
    return plan;
  }
  if (layout.nccl_tuner && hierarchical && nodes > 1 && (reduce_scatter_part || all_gather_part)) {
    const TunedOption tuned = choose_tuned(kind, bytes, layout, efficiencies);
    plan.algorithm = tuned.algorithm;
    plan.protocol = tuned.protocol;
    const bool both = reduce_scatter_part && all_gather_part;
    plan.intra_node_before_s = reduce_scatter_part ? tuned.intra_node_s / (both ? 2 : 1) : 0;
    plan.intra_node_after_s = all_gather_part ? tuned.intra_node_s / (both ? 2 : 1) : 0;
    const int slot = layout.placement->slot[layout.position];
    if (tuned.algorithm == NcclAlgorithm::Ring || reduces_in_network(tuned.algorithm)) {
      const int inter_next = layout.placement->inter_node_next[layout.position];
      const int inter_prev = layout.placement->inter_node_prev[layout.position];
      // A ring's flat volume, or the rank's share of the node's buffer sent to the switches and back.
      const double volume = reduces_in_network(tuned.algorithm)
                                ? bytes / per_node
                                : (both ? 2 : 1) * (n - 1.0) / n * bytes / per_node;
      plan.sends.push_back({inter_next, wire_bytes(volume, self, inter_next, layout, efficiencies)});
      plan.receives.push_back({inter_prev, wire_bytes(volume, inter_prev, self, layout, efficiencies)});
    } else {
      add_tree_flows(plan, bytes / per_node, slot / per_node, slot % per_node, self, layout, efficiencies);
    }
    for (auto* flows : {&plan.sends, &plan.receives})
      for (CoalescedFlow& flow : *flows) flow.bytes /= tuned.flow_factor;
    plan.steps = 1;
    plan.software_latency_s = tuned.latency_s;
    return plan;
  }
  if (pat_runs) {
    if (const std::optional<TunedOption> pat = pat_over_ring(kind, bytes, layout, efficiencies)) {
      // PAT's exchanges move the ring's volume; one flow to the ring successor carries it, at PAT's share of
      // the bandwidth, and NCCL's PAT latency stands for all its rounds.
      plan.algorithm = NcclAlgorithm::PAT;
      plan.protocol = NcclProtocol::Simple;
      const double volume = (n - 1.0) / n * bytes;
      plan.sends.push_back({next, wire_bytes(volume, self, next, layout, efficiencies) / pat->flow_factor});
      plan.receives.push_back(
          {prev, wire_bytes(volume, prev, self, layout, efficiencies) / pat->flow_factor});
      plan.steps = 1;
      plan.software_latency_s = pat->latency_s;
      return plan;
    }
  }
  // The intra-node phases, priced once: the ring's (reduce-scatter before, all-gather after) and NVLS's.
  IntraNodeRing intra_ring;
  const double intra_volume = (per_node - 1.0) / per_node * bytes;
  if (hierarchical)
    intra_ring = intra_node_ring(intra_volume, per_node - 1, layout, efficiencies, layout.forced.protocol);
  const bool nvls_available =
      kind == trace::CollectiveKind::AllReduce && hierarchical && layout.nvls_bandwidth_Bps > 0;
  const double nvls_s = nvls_available ? nvls_all_reduce_s(bytes, nvls_figures(layout)) : 0;
  // The all-reduce's algorithm: NVLS inside the node when it has it, ring or tree across nodes.
  bool nvls = false, tree = false;
  if (kind == trace::CollectiveKind::AllReduce && per_node > 0) {
    if (layout.forced.algorithm) {
      const NcclAlgorithm forced = *layout.forced.algorithm;
      nvls = forced == NcclAlgorithm::NVLS || forced == NcclAlgorithm::NVLSTree;
      tree = forced == NcclAlgorithm::Tree || forced == NcclAlgorithm::NVLSTree;
    } else {
      // NVLS when its pipeline beats the ring's two intra-node phases (small buffers go round the ring).
      nvls = nvls_s < 2 * intra_ring.total_s();
      tree = nodes > 1 && tree_is_faster(bytes, nvls && nvls_available, layout, efficiencies);
    }
    nvls = nvls && nvls_available;
    tree = tree && nodes > 1;
    plan.algorithm = nvls ? (tree ? NcclAlgorithm::NVLSTree : NcclAlgorithm::NVLS)
                          : (tree ? NcclAlgorithm::Tree : NcclAlgorithm::Ring);
  }
  if ((hierarchical || (per_node == 1 && tree)) && (reduce_scatter_part || all_gather_part)) {
    const double l = per_node;
    // Where the network's protocols are priced, one protocol runs the whole collective, as in NCCL: the
    // faster of LL and Simple over the intra-node phases and the network part together. LL128 does not
    // cross NCCL's networks: forced, it holds inside the nodes and the network takes the faster of the two.
    const bool priced_network = nodes > 1 && layout.network.has_costs();
    const int phases = (reduce_scatter_part ? 1 : 0) + (all_gather_part ? 1 : 0);
    const NcclAlgorithm across =
        tree ? (nvls ? NcclAlgorithm::NVLSTree : NcclAlgorithm::Tree) : NcclAlgorithm::Ring;
    std::optional<NetworkPhase> network;
    if (priced_network) {
      // A ring across nodes runs its NVLink phases on the channels the NICs give it (32 on AWS p5), not as
      // the rings inside one node the spec's LL128 figure was fitted on: LL128 there moves NCCL's tuner
      // share of the bandwidth (0.92), as the tuner's terms price it on other fabrics.
      CollectiveLayout across_nodes = layout;
      if (layout.intra_node_protocols.ll128_bandwidth_fraction > 0)
        across_nodes.intra_node_protocols.ll128_bandwidth_fraction = nccl_tuner_bandwidth_factor(
            NcclAlgorithm::Ring, NcclProtocol::LL128, kind, nodes, layout.forced.version_minor);
      struct Priced {
        double total_s;
        IntraNodeRing intra;
        NetworkPhase network;
      };
      auto priced = [&](NcclProtocol protocol) {
        const NcclProtocol inside =
            layout.forced.protocol == NcclProtocol::LL128 ? NcclProtocol::LL128 : protocol;
        const IntraNodeRing intra =
            hierarchical && !nvls
                ? intra_node_ring(intra_volume, per_node - 1, across_nodes, efficiencies, inside)
                : IntraNodeRing{};
        const NetworkEstimate net = network_part(across, kind, bytes, layout, efficiencies, protocol);
        return Priced{phases * intra.total_s() + net.total_s(), intra, net.phase};
      };
      Priced choice = priced(NcclProtocol::Simple);
      if (layout.forced.protocol != NcclProtocol::Simple) {
        const Priced ll = priced(NcclProtocol::LL);
        if (layout.forced.protocol == NcclProtocol::LL || ll.total_s < choice.total_s) choice = ll;
      }
      if (hierarchical && !nvls) intra_ring = choice.intra;
      network = choice.network;
      if (layout.forced.protocol == NcclProtocol::LL128) network->protocol = NcclProtocol::LL128;
    }
    if (nvls) {
      // The NVLS latency paid once is a latency like the ring's steps'; the pipeline's rest is split evenly.
      plan.intra_node_latency_s = std::min(nvls_s, layout.nvls_latency_s);
      plan.intra_node_before_s = plan.intra_node_after_s = (nvls_s - plan.intra_node_latency_s) / 2;
    } else {
      plan.protocol = intra_ring.protocol;
      if (reduce_scatter_part) plan.intra_node_before_s = intra_ring.transfer_s;
      if (all_gather_part) plan.intra_node_after_s = intra_ring.transfer_s;
      plan.intra_node_latency_s = phases * intra_ring.latency_s;
    }
    if (nodes > 1 && tree) {
      const int slot = layout.placement->slot[layout.position];
      add_tree_flows(plan, bytes / l, slot / per_node, slot % per_node, self, layout, efficiencies);
    } else if (nodes > 1) {
      // The ring across nodes links the members of equal local index. NCCL's rings are flat: each
      // channel's ring passes through all N ranks, leaving and entering every node once, so a node's NICs
      // carry what one link of a flat ring carries, (N-1)/N of the buffer per pass, not the (M-1)/M a ring
      // over the nodes would; the node's L members share it.
      const int inter_next = layout.placement->inter_node_next[layout.position];
      const int inter_prev = layout.placement->inter_node_prev[layout.position];
      const int passes = reduce_scatter_part && all_gather_part ? 2 : 1;
      const double volume = passes * (n - 1.0) / n * bytes / l;
      plan.steps = passes * (nodes - 1);
      plan.sends.push_back({inter_next, wire_bytes(volume, self, inter_next, layout, efficiencies)});
      plan.receives.push_back({inter_prev, wire_bytes(volume, inter_prev, self, layout, efficiencies)});
    }
    plan.software_latency_s = plan.steps * efficiencies.nccl_step_latency_s;
    if (network) {
      plan.protocol = network->protocol;
      plan.software_latency_s += network->latency_s;
      for (auto* flows : {&plan.sends, &plan.receives})
        for (CoalescedFlow& flow : *flows) flow.bytes /= network->bandwidth_fraction;
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
        plan.sends.push_back({to, point_to_point_wire_bytes(bytes / n, self, to, layout, efficiencies)});
        plan.receives.push_back(
            {from, point_to_point_wire_bytes(bytes / n, from, self, layout, efficiencies)});
      }
      break;
    case trace::CollectiveKind::SendRecv:  // planned above
      break;
  }
  plan.software_latency_s = plan.steps * efficiencies.nccl_step_latency_s;
  if (kind == trace::CollectiveKind::AllToAll && layout.gpus_per_node > 0) {
    const auto remote = std::count_if(members.begin(), members.end(), [&](int member) {
      return member / layout.gpus_per_node != self / layout.gpus_per_node;
    });
    plan.software_latency_s += all_to_all_proxy_peers_s(static_cast<int>(remote), layout);
  }
  return plan;
}

}  // namespace simtrain::cost
