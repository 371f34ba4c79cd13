// How a rank takes part in a collective, as coalesced flows (DESIGN.md §4): instead of the 2(N-1) chunked
// steps of a ring, each rank sends ONE flow carrying the whole phase's volume to its ring successor, and the
// per-step latencies that the flow stands for are added analytically. On uniform networks this gives the
// same time as the step-by-step ring, with O(N) instead of O(N^2) simulated transfers.
#pragma once

#include <vector>

#include "calibration/calibration_profile.h"
#include "simulator/trace/trace.h"

namespace simtrain::cost {

// NCCL's LL128 and Simple protocols for ring phases inside a node: each step costs its latency, and LL128
// moves data at a fraction of the bandwidth; the faster of the two is taken. A zero fraction means one
// protocol, priced with the profile's nccl_step_latency_s.
struct RingProtocols {
  double ll128_step_latency_s = 0;
  double ll128_bandwidth_fraction = 0;
  double simple_step_latency_s = 0;
};

// One coalesced flow of a rank's part in a collective.
struct CoalescedFlow {
  int peer = -1;     // world rank at the other end
  double bytes = 0;  // wire bytes, already divided by the achieved-bandwidth efficiency
};

struct RankCollectivePlan {
  // Analytic intra-node phases (reduce-scatter before the inter-node ring, all-gather after it). NCCL
  // pipelines them with the ring, chunk by chunk, so the engine runs them alongside the flows: the slower of
  // the two sets the pace.
  double intra_node_before_s = 0;
  double intra_node_after_s = 0;
  std::vector<CoalescedFlow> sends;     // flows this rank sends
  std::vector<CoalescedFlow> receives;  // flows this rank receives (peer = sender)
  int steps = 0;  // algorithm steps the flows stand for; the engine charges steps - 1 extra route latencies
  double software_latency_s = 0;  // NCCL's per-step overhead, all steps together
};

// How a communicator's ranks sit on nodes, worked out once per communicator (it is O(N log N)).
struct CommunicatorPlacement {
  int nodes = 0;     // nodes holding members
  int per_node = 0;  // members on every node, or 0 when nodes hold different numbers of members
  // For hierarchical rings: the member of equal local index on the next and previous node, by position.
  std::vector<int> inter_node_next;
  std::vector<int> inter_node_prev;
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
  RingProtocols intra_node_protocols;
};

// All-reduce, all-gather and reduce-scatter are hierarchical when every node holds the same number L of
// the communicator's M*L ranks: an analytic intra-node ring phase over NVLink (reduce-scatter before,
// all-gather after), and between them a ring across the M nodes among the ranks of equal local index, each
// carrying 1/L of the buffer (so a node's NICs carry what a flat ring's would, in 2(M-1) instead of 2(ML-1)
// steps). Inside one node (M = 1) the collective is analytic only: NVSwitch traffic does not meet the
// fabric (DESIGN.md §5). Otherwise rings are flat: all-reduce 2(N-1) steps of 2(N-1)/N of the buffer per
// rank, all-gather and reduce-scatter (N-1) steps of (N-1)/N; pipelined broadcast and reduce N-1 steps of the
// whole buffer; all-to-all one flow to every peer of 1/N of the buffer. Flows between GPUs of one node are
// divided by the intra-node NCCL efficiency, flows between nodes by the inter-node one.
// With NVLS (third-generation NVSwitch), an all-reduce's intra-node part runs in the switch instead: the
// whole buffer at the NVLS algorithm bandwidth plus its latency inside one node, and around an inter-node
// ring that time split evenly into its reduce-scatter and all-gather halves.
// A communicator of one rank gives an empty plan.
RankCollectivePlan plan_collective(trace::CollectiveKind kind, double bytes, const CollectiveLayout& layout,
                                   const calibration::Efficiencies& efficiencies);

// nccl-tests' bus-bandwidth factor: busbw = algbw * factor (2(N-1)/N for all-reduce, (N-1)/N for
// all-gather, reduce-scatter and all-to-all, 1 for broadcast and reduce).
double bus_bandwidth_factor(trace::CollectiveKind kind, int ranks);

}  // namespace simtrain::cost
