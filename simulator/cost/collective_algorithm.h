// How a rank takes part in a collective, as coalesced flows (DESIGN.md §4): instead of the 2(N-1) chunked
// steps of a ring, each rank sends ONE flow carrying the whole phase's volume to its ring successor, and the
// per-step latencies that the flow stands for are added analytically. On uniform networks this gives the
// same time as the step-by-step ring, with O(N) instead of O(N^2) simulated transfers.
#pragma once

#include <vector>

#include "calibration/calibration_profile.h"
#include "simulator/trace/trace.h"

namespace simtrain::cost {

// One coalesced flow of a rank's part in a collective.
struct CoalescedFlow {
  int peer = -1;     // world rank at the other end
  double bytes = 0;  // wire bytes, already divided by the achieved-bandwidth efficiency
};

struct RankCollectivePlan {
  std::vector<CoalescedFlow> sends;     // flows this rank sends
  std::vector<CoalescedFlow> receives;  // flows this rank receives (peer = sender)
  int steps = 0;  // algorithm steps the flows stand for; the engine charges steps - 1 extra route latencies
  double software_latency_s = 0;  // NCCL's per-step overhead, all steps together
};

// Ranks and GPU placement a collective runs on.
struct CollectiveLayout {
  const std::vector<int>* members = nullptr;  // world ranks, in communicator order
  int position = 0;                           // this rank's index in members
  int gpus_per_node = 1;                      // world rank r lives on node r / gpus_per_node
};

// Ring all-reduce (2(N-1) steps, 2(N-1)/N of the buffer per rank), ring all-gather and reduce-scatter
// ((N-1) steps, (N-1)/N of the buffer), pipelined ring broadcast and reduce (N-1 steps, the whole buffer),
// and pairwise all-to-all (one flow to every peer, 1/N of the buffer each). Flows between GPUs of one node
// are divided by the intra-node NCCL efficiency, flows between nodes by the inter-node one.
// A communicator of one rank gives an empty plan.
RankCollectivePlan plan_collective(trace::CollectiveKind kind, double bytes, const CollectiveLayout& layout,
                                   const calibration::Efficiencies& efficiencies);

// nccl-tests' bus-bandwidth factor: busbw = algbw * factor (2(N-1)/N for all-reduce, (N-1)/N for
// all-gather, reduce-scatter and all-to-all, 1 for broadcast and reduce).
double bus_bandwidth_factor(trace::CollectiveKind kind, int ranks);

}  // namespace simtrain::cost
