// The communicators and platform figures the collective_algorithm and nccl_tuned_choice tests plan on:
// round efficiencies and NVLink figures, and one rank's layout in a communicator on one or several nodes.
#pragma once

#include <numeric>
#include <vector>

#include "calibration/calibration_profile.h"
#include "simulator/cost/collective_algorithm.h"

namespace simtrain::collective_layouts {

using trace::CollectiveKind;

// Volumes are a few multiplications and divisions of round numbers; 1e-12 relative covers their rounding.
constexpr double kRel = 1e-12;

constexpr double kIntraEff = 0.8;
constexpr double kInterEff = 0.5;
constexpr double kStepLatency = 2e-6;
constexpr double kNvlinkBandwidth = 100e9;
constexpr double kNvlinkLatency = 1e-6;
// LL128 and Simple on that NVLink: 2 us per step at half the bandwidth, or 12 us per step at all of it.
constexpr cost::RingProtocols kNvlinkProtocols = {
    .ll128_step_latency_s = 2e-6, .ll128_bandwidth_fraction = 0.5, .simple_step_latency_s = 12e-6};

inline calibration::Efficiencies efficiencies() {
  calibration::Efficiencies e;
  e.nccl_intra_node = kIntraEff;
  e.nccl_inter_node = kInterEff;
  e.nccl_step_latency_s = kStepLatency;
  return e;
}

inline std::vector<int> ranks(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// One rank's plan in a communicator of `members` on nodes of `gpus_per_node` GPUs.
struct Communicator {
  std::vector<int> members;
  int gpus_per_node;
  cost::CommunicatorPlacement placement = cost::place_communicator(members, gpus_per_node);

  cost::RankCollectivePlan plan(CollectiveKind kind, double bytes, int position) const {
    cost::CollectiveLayout layout{&members,      &placement,       position,
                                  gpus_per_node, kNvlinkBandwidth, kNvlinkLatency};
    return cost::plan_collective(kind, bytes, layout, efficiencies());
  }
};

// A layout across nodes of `per_node` GPUs, with the inter-node figures the algorithm choice uses.
struct MultiNode {
  std::vector<int> members;
  int per_node;
  cost::CommunicatorPlacement placement = cost::place_communicator(members, per_node);

  cost::CollectiveLayout layout(int position) const {
    cost::CollectiveLayout l{&members, &placement, position, per_node, kNvlinkBandwidth, kNvlinkLatency};
    l.inter_node_latency_s = 5e-6;
    l.inter_node_bandwidth_Bps = 10e9;
    return l;
  }

  // The same, priced with NCCL's tuner terms.
  cost::CollectiveLayout tuned_layout(int position) const {
    cost::CollectiveLayout l = layout(position);
    l.nccl_tuner = true;
    return l;
  }
};

}  // namespace simtrain::collective_layouts
