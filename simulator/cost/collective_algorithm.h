// How a rank takes part in a collective, as coalesced flows (DESIGN.md §4): instead of the 2(N-1) chunked
// steps of a ring, each rank sends ONE flow carrying the whole phase's volume to its ring successor, and the
// per-step latencies that the flow stands for are added analytically. On uniform networks this gives the
// same time as the step-by-step ring, with O(N) instead of O(N^2) simulated transfers.
#pragma once

#include <vector>

#include "calibration/calibration_profile.h"
#include "simulator/cost/nccl_choice.h"
#include "simulator/cost/network_protocol.h"
#include "simulator/cost/ofi_tuner_regions.h"
#include "simulator/trace/trace.h"

namespace simtrain::cost {

// NCCL's protocols for ring phases inside a node: each step costs its latency, and LL and LL128 move data
// at a fraction of the bandwidth; the fastest for the size is taken unless one is forced. A zero LL128
// fraction means one protocol, priced with the profile's nccl_step_latency_s; a zero LL fraction, no LL.
struct RingProtocols {
  double ll_step_latency_s = 0;
  double ll_bandwidth_fraction = 0;
  double ll128_step_latency_s = 0;
  double ll128_bandwidth_fraction = 0;
  double simple_step_latency_s = 0;
};

// One coalesced flow of a rank's part in a collective.
struct CoalescedFlow {
  int peer = -1;     // world rank at the other end
  double bytes = 0;  // wire bytes, already divided by the achieved-bandwidth efficiency
  double max_rate_Bps =
      0;  // the most wire bytes per second the flow may move, however idle the links; 0: any
};

struct RankCollectivePlan {
  // Analytic intra-node phases (reduce-scatter before the inter-node ring, all-gather after it), their
  // transfer time only. NCCL pipelines them with the ring, chunk by chunk, so the engine runs them alongside
  // the flows: the slower of the two sets the pace.
  double intra_node_before_s = 0;
  double intra_node_after_s = 0;
  // An analytic intra-node phase that does not pipeline with the flows but adds to them: the flex MoE
  // dispatcher's NVLink share of a dispatch across nodes where its kernels run the phases in series
  // (NodeDedupRouting::phases_in_series). HybridEP's published H100 runs across 2, 4 and 8 nodes take about
  // the sum of their NVLink and network times, not the larger
  // (validation/reference/kernels/moe_flex_dispatch_rdma.csv).
  double intra_node_serial_s = 0;
  // The intra-node phases' step latencies. A pipeline fills hop by hop: the first chunk crosses every
  // NVLink step and every network step one after the other, so these add to the flows' latency instead of
  // hiding behind them (NCCL's own tuner sums intra- and inter-node step latencies the same way).
  double intra_node_latency_s = 0;
  std::vector<CoalescedFlow> sends;     // flows this rank sends
  std::vector<CoalescedFlow> receives;  // flows this rank receives (peer = sender)
  int steps = 0;  // algorithm steps the flows stand for; the engine charges steps - 1 extra route latencies
  double software_latency_s = 0;  // NCCL's per-step overhead, all steps together, and the network protocol's
  NcclAlgorithm algorithm = NcclAlgorithm::Ring;
  // The protocol: the network's where the platform prices NCCL's network protocols (network_protocol.h) and
  // the collective crosses nodes; otherwise that of the intra-node ring phases (Simple when there are none).
  NcclProtocol protocol = NcclProtocol::Simple;
};

// How a communicator's ranks sit on nodes, worked out once per communicator (it is O(N log N)).
struct CommunicatorPlacement {
  int nodes = 0;     // nodes holding members
  int per_node = 0;  // members on every node, or 0 when nodes hold different numbers of members
  // With per_node > 0: the members node by node (nodes ascending, a node's members in communicator order),
  // so that the member of local index j on the i-th node is by_node[i * per_node + j]; and each position's
  // index in by_node.
  std::vector<int> by_node;
  std::vector<int> slot;
  // For hierarchical rings: the member of equal local index on the next and previous node, by position.
  std::vector<int> inter_node_next;
  std::vector<int> inter_node_prev;
  double tree_peak_volume = 0;  // double_binary_tree_peak_volume(nodes)
};
CommunicatorPlacement place_communicator(const std::vector<int>& members, int gpus_per_node);

// Ranks and GPU placement a collective runs on.
struct CollectiveLayout {
  const std::vector<int>* members = nullptr;         // world ranks, in communicator order
  const CommunicatorPlacement* placement = nullptr;  // of members
  int position = 0;                                  // this rank's index in members
  int gpus_per_node = 1;                             // world rank r lives on node r / gpus_per_node
  double intra_node_bandwidth_Bps = 0;               // per GPU, per direction
  double intra_node_latency_s = 0;                   // GPU to GPU inside a node
  double nvls_bandwidth_Bps = 0;                     // NVLS all-reduce algorithm bandwidth; 0 = no NVLS
  double nvls_latency_s = 0;                         // per NVLS all-reduce
  double nvls_step_latency_s = 0;                    // per step of its pipeline (nvls_pipeline.h)
  RingProtocols intra_node_protocols;
  // Between nodes, for choosing an algorithm as NCCL's tuner does: the route latency and the bandwidth one
  // ring (or tree) of GPUs of equal local index gets; 0 = one node only.
  double inter_node_latency_s = 0;
  double inter_node_bandwidth_Bps = 0;
  NetworkTransport network;  // what NCCL's protocols cost on the network
  NcclOverride forced;       // NCCL_ALGO / NCCL_PROTO
  // Reference mode for checking coalescing: all-to-all as one flow per rank pair, not per node pair.
  bool pairwise_all_to_all = false;
  // Node lockstep (engine/lockstep.h): this rank, local index 0, stands for its node, whose flows the
  // engine scales by the GPUs per node; an all-to-all then sends 1/L of each node pair's bytes to every
  // other node's first rank.
  bool node_representative = false;
  // Price collectives across NVLink nodes with NCCL's own tuner terms (nccl_tuner.h): its latency per
  // (algorithm, protocol) and its protocols' bandwidth shares, and choose among ring, tree and NVLS-tree as
  // its tuner does. The engine sets it where the network has no proxy costs of its own (network above).
  bool nccl_tuner = false;
  double nccl_net_overhead_s = 1e-6;  // NCCL's network post overhead (nccl_tuner.h), for nccl_tuner
  // The GPUs' host CPUs are Arm (Grace: GH200, GB200, GB300). NCCL corrects an NVLS-tree's medium-size
  // bandwidth on x86 hosts only (nccl_tuner.h, nccl_tree_correction_factor).
  bool arm_host = false;
  // NCCL's NVLS channels inside one NVLink domain and across several (nvls_pipeline.h: 16 on Hopper; 24 and
  // 32 on Blackwell).
  int nvls_channels = 16;
  int nvls_tree_channels = 16;
  // A node is a multi-node NVLink domain (NCCL's MNNVL: an NVL72 rack's hosts fused into one NVLS group).
  // There an NVLS-tree across nodes runs as its pipeline (nvls_tree_pipeline.h), each step's network leg
  // costing the NVLS-tree network hops of NCCL's tuner; NCCL still chooses it by its tuner's estimate (the
  // NVLS pipeline beside the network part), which is far below what it takes there.
  bool multi_node_nvlink = false;
  // An all-to-all whose dispatcher sends each token once per destination node (trace::NodeDedupRouting).
  trace::NodeDedupRouting node_dedup{};
  // What one GPU's NCCL channels move across the network together at their own rate (its share of the
  // node's channels x nccl_channel_GBps, cost/nccl_channels.h); 0 = not modelled. Where it exceeds the
  // NICs' line share, a ring's channels take turns on the NIC (nccl_tuner, collective_algorithm.cc).
  double channels_Bps = 0;
  // What NCCL's point-to-point operations (all-to-all, sendrecv) reach of the NICs across nodes, where the
  // platform gives it (nics.nccl_p2p_efficiency); 0 = efficiencies.nccl_inter_node, as the rings. A
  // point-to-point channel drives connections to several peers at once, so the rate that caps a ring's
  // channel does not cap it, and many-to-many traffic reaches less of the line than a ring's.
  double point_to_point_inter_node_efficiency = 0;
  // The share of a GPU's NIC line its NCCL proxy's chunk rate sustains for point-to-point traffic
  // (nccl_p2p_proxy.h), which caps the efficiency above; 0 = no cap. Not the flex dispatcher's (node_dedup),
  // whose kernels post their network sends from the GPU.
  double point_to_point_proxy_line_share = 0;
  // The proxy's time per point-to-point chunk (nccl_p2p_proxy_chunk_s), which NCCL's all-to-all across nodes
  // also pays once per peer on another node, however few bytes that peer gets; 0 = not modelled.
  double point_to_point_proxy_chunk_s = 0;
  // The network's switches reduce (InfiniBand SHARP, platform spec nics.sharp). With forced.collnet (NCCL's
  // CollNet enabled) NCCL's tuner also weighs CollNet Direct, CollNet Chain and NVLS across nodes.
  bool network_reduces = false;
  // The tuner plugin the system loads (platform spec nics.nccl_tuner_plugin; forced.tuner_plugin replaces
  // it): where its regions hold a collective, its algorithm and protocol are taken as forced ones; the
  // user's forced ones come first.
  NcclTunerPlugin tuner_plugin = NcclTunerPlugin::None;
};

// All-reduce, all-gather and reduce-scatter are hierarchical when every node holds the same number L of
// the communicator's M*L ranks: an analytic intra-node ring phase over NVLink (reduce-scatter before,
// all-gather after), and between them a ring across the M nodes among the ranks of equal local index, each
// carrying 1/L of the buffer (so a node's NICs carry what a flat ring's would, in 2(M-1) instead of 2(ML-1)
// steps). Inside one node (M = 1) the collective is analytic only: NVSwitch traffic does not meet the
// fabric (DESIGN.md §5). Otherwise rings are flat: all-reduce 2(N-1) steps of 2(N-1)/N of the buffer per
// rank, all-gather and reduce-scatter (N-1) steps of (N-1)/N; pipelined broadcast and reduce N-1 steps of the
// whole buffer. Flows between GPUs of one node are divided by the intra-node NCCL efficiency, flows between
// nodes by the inter-node one.
// An all-reduce's algorithm is the user's, or else the one of least estimated time, as NCCL's tuner picks:
// - NVLS (third-generation NVSwitch) when the node has it and its pipeline (nvls_pipeline.h) takes less
//   than the ring's two intra-node phases: the intra-node part runs in the switch, and around an inter-node
//   phase that time, less its once-paid latency (intra_node_latency_s), is split evenly into its
//   reduce-scatter and all-gather halves;
// - across nodes, the ring or the double binary tree (double_binary_tree.h) among the ranks of equal local
//   index, whichever estimate is less: 2(M-1) or 2 ceil(log2 M) steps of the route latency plus the step
//   latency, plus the busiest node's volume (2(M-1)/M of the rank's 1/L share for the ring, the tree's
//   peak volume for the tree) over inter_node_bandwidth_Bps. Tree flows: one flow of half the share each way
//   along every edge of each tree (up to the parent, down to each child). Being of equal size, they share
//   every link fairly, so that on a uniform network the tree takes exactly 2 ceil(log2 M) route latencies
//   plus its peak volume over the bandwidth, as its pipelined chunks do.
// Across nodes, the network protocol's latency joins software_latency_s and its bandwidth fraction divides
// into the flows' bytes (network_protocol.h; nothing on platforms without network costs); the ring/tree
// estimates include both.
// With nccl_tuner, an all-reduce, all-gather or reduce-scatter over M > 1 nodes of L > 1 GPUs is priced as
// NCCL prices it instead (nccl_tuned_choice.h): every (algorithm, protocol) NCCL would consider (all-reduce:
// ring, tree, and NVLS-tree on NVLS nodes, as NCCL runs NVLS across nodes only through NVLS-tree without
// CollNet; with CollNet (network_reduces and forced.collnet) also CollNet Direct, CollNet Chain and NVLS; the
// others: ring; NVLS-tree, NVLS and CollNet Simple only) costs NCCL's tuner latency plus the slower of its
// intra-node part and its network part, each at the protocol's bandwidth share (LL capped at NCCL's llMaxBw),
// and the least is run: its latency is the plan's software latency (steps = 1: it covers every hop), its
// intra-node part the analytic phases, its network part the ring's or tree's flows as above, divided by the
// share. The algorithms that reduce in the switches send each node's buffer up once and receive the result
// once: one flow of 1/L of the buffer from each rank to its inter-node ring successor stands for the switch,
// beside the intra-node part (NVLS: as NVLS-tree's; CollNet Direct: the ring's two phases, scatter to the NIC
// heads and gather back; CollNet Chain: the whole buffer up and down the chain, 2 buffers); CollNet Direct at
// NCCL's 0.85 of the bandwidth on NVLS (Hopper and later) GPUs. A ring whose channels could move more than
// the NICs' line share (layout.channels_Bps) pays only the latency its channels' turns on the NIC do not
// hide: max(T, L + T_channels) in all.
// All-gather and reduce-scatter over one GPU per node (NCCL 2.23 on, with nccl_tuner) run as PAT where NCCL's
// tuner ranks PAT (nccl_tuner.h) before every ring protocol, or where it is forced: one flow of the ring's
// volume to the ring successor at PAT's share of the bandwidth, NCCL's PAT latency as the software latency.
// All-to-all across nodes is aggregated per node pair (DESIGN.md §4): the analytic exchange among a node's
// GPUs, then one flow from node i to node k of L*L/N of the buffer, sent by local index k mod L and received
// by local index i mod L, so the flows spread over the node's GPUs and NICs (under node lockstep, all from
// the node's first rank); with L >= 2M nodes' pairs split into floor(L/M) flows from further local indices,
// so that no GPU's own link carries more of the node's traffic than the stepwise exchange gives it. On one
// node, with pairwise_all_to_all, or when nodes hold different numbers of members: one flow to every peer of
// 1/N. A token dispatch routed per node (layout.node_dedup) carries node_dedup_fraction of those bytes
// between nodes, and its GPUs also forward over NVLink the remote tokens meant for their node's other GPUs.
// Its bytes across nodes are divided by the point-to-point efficiency
// (layout.point_to_point_inter_node_efficiency), as sendrecv's; its bytes inside a node, on one node or
// many, by the flex dispatcher's own share of the NVLink line (moe_flex_dispatch_intra_node) where the
// profile knows it, otherwise by nccl_intra_node as NCCL's all-to-all's; and where the routing gives a row's
// size, each row crossing NVLink adds the dispatcher's moe_flex_dispatch_row_s. Across nodes HybridEP's
// NVLink phase runs after its network flows, not beside them (node_dedup.phases_in_series,
// intra_node_serial_s); DeepEP's runs beside them. Neither's network sends are held to NCCL's proxy rate.
// Sendrecv (nccl-tests' sendrecv_perf): every rank sends the whole buffer to the next member and receives
// the previous member's at once. A pair on one node is analytic over NVLink (the buffer over the GPU's
// bandwidth times the intra-node NCCL efficiency); a pair across nodes is one flow through the NICs at the
// least of the GPU's NIC share times the point-to-point efficiency and NCCL's point-to-point channels to a
// network peer (nccl_p2p_channels_per_net_peer) at 14 GB/s each. The slowest pair sets everyone's time.
// A communicator of one rank gives an empty plan.
RankCollectivePlan plan_collective(trace::CollectiveKind kind, double bytes, const CollectiveLayout& layout,
                                   const calibration::Efficiencies& efficiencies);

// One NCCL point-to-point transfer of `bytes` from world rank `from` to `to`, both of layout.members (a
// sendrecv pair, or a pipeline stage's ncclSend to the next): its peer `to`, its bytes over the intra-node
// efficiency inside a node or over the point-to-point efficiency across nodes, where it also runs at most at
// the GPU's NIC share and NCCL's point-to-point channels to a network peer (nccl_p2p_channels_per_net_peer
// for the communicator's size, 14 GB/s each).
CoalescedFlow point_to_point_flow(double bytes, int from, int to, const CollectiveLayout& layout,
                                  const calibration::Efficiencies& efficiencies);

// The share of an all-to-all's inter-node bytes left when each token crosses to a node once, however many
// of its top_k experts (of `experts`, spread evenly over `nodes` nodes) that node holds: a token reaches
// another node with probability 1 - C(E - E/M, k) / C(E, k) (uniformly random routing, as Megatron's forced
// load balancing draws it), where NCCL's all-to-all sends it k/M copies on average. 1 on one node.
double node_dedup_fraction(int top_k, int experts, int nodes);

// All-to-all and sendrecv: NCCL's point-to-point operations, for which no algorithm or protocol is chosen.
bool is_point_to_point(trace::CollectiveKind kind);

// NCCL's P2P_PER_CHANNEL_NET_BW (src/graph/paths.cc, 2.19 to 2.29): the bandwidth NCCL assumes one
// point-to-point channel moves over the network, from which it sizes the channels per network peer.
inline constexpr double kNcclP2pChannelNetBandwidth_Bps = 14e9;

// NCCL's point-to-point channels to one peer across nodes (comm->p2pnChannelsPerPeer, NCCL 2.29:
// ncclTopoGetNchannels and ncclTopoComputeP2pChannels in src/graph/paths.cc): max(local NICs, ceil(NIC GB/s
// / 14)) rounded up to a power of two, then halved while that many channels for each of ceil(ranks / 8)
// peers exceed the p2p channels (the collective channels, at most 32, rounded up to a power of two). On
// 10 HGX H100 nodes (80 ranks, 16 channels, one 400G NIC per GPU) it is 4, halved to 1.
int nccl_p2p_channels_per_net_peer(int ranks, int collective_channels, double gpu_net_bandwidth_Bps,
                                   int nics_per_gpu);

// nccl-tests' bus-bandwidth factor: busbw = algbw * factor (2(N-1)/N for all-reduce, (N-1)/N for
// all-gather, reduce-scatter and all-to-all, 1 for broadcast, reduce and sendrecv).
double bus_bandwidth_factor(trace::CollectiveKind kind, int ranks);

}  // namespace simtrain::cost
