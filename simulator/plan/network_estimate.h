// The time of a collective or a point-to-point transfer on a cluster, worked out without SimGrid: the same
// decomposition the engine replays (cost/collective_algorithm.h: NCCL's algorithm and protocol choice,
// hierarchical rings, analytic intra-node phases, coalesced inter-node flows), with each flow priced at the
// share of its node's NICs that a GPU gets when every GPU of the node communicates at once. What it leaves
// out is what only the simulation sees: contention beyond that fair share and oversubscribed spines.
#pragma once

#include <vector>

#include "calibration/calibration_profile.h"
#include "simulator/cost/collective_algorithm.h"
#include "simulator/platform/cluster_spec.h"
#include "simulator/trace/trace.h"

namespace simtrain::plan {

class NetworkEstimate {
 public:
  // `spec` sized to the job (its node count does not matter beyond which fabric level a route crosses).
  NetworkEstimate(const platform::ClusterSpec& spec, const calibration::Efficiencies& efficiencies);

  // Seconds for one rank's part in `kind` of `bytes` (CollectiveSpec::bytes) over `members` (world ranks in
  // communicator order; rank r sits on node r / gpus_per_node). 0 for a communicator of one rank. A token
  // all-to-all routed per node (`node_dedup`) is priced as the engine replays it.
  double collective_s(trace::CollectiveKind kind, double bytes, const std::vector<int>& members,
                      trace::NodeDedupRouting node_dedup = {}) const;

  // Seconds for a send of `bytes` from world rank `from` to `to`, as the engine replays it: the route's
  // latency plus the bytes at NVLink speed inside a node, at the GPU's share of the NICs across nodes.
  double send_s(double bytes, int from, int to) const;

  // Seconds for one step of a ring of sends of `bytes` over `ring` (each member to the next, all at once,
  // as ring attention's rounds): the slowest hop sets every member's pace. Where a node's GPUs share one
  // uplink (not rail-optimized), the GPUs whose successor is on their own node leave their share of the
  // NICs to those that send off it.
  double ring_step_s(double bytes, const std::vector<int>& ring) const;

  int gpus_per_node() const { return spec_.gpus_per_node; }
  // NCCL's channels across the network (two per NIC; cost/nccl_channels.h), each holding one SM of every
  // GPU while a collective runs.
  int network_channels() const { return spec_.nics.nccl_channels(); }
  // Whether `members` span more than one node: their collectives then run as network flows, which share the
  // links with the flows beside them, where inside a node (an NVLink domain) the engine times them alone.
  bool crosses_nodes(const std::vector<int>& members) const {
    for (int rank : members)
      if (rank / spec_.gpus_per_node != members.front() / spec_.gpus_per_node) return true;
    return false;
  }

 private:
  platform::ClusterSpec spec_;
  calibration::Efficiencies efficiencies_;
  double inter_node_latency_s_ = 0;
  double inter_node_bandwidth_Bps_ = 0;  // per GPU, all GPUs of a node sending at once
};

// `size` world ranks from `first`, `stride` apart: a communicator of Megatron's rank layout
// (workload/megatron_trace.h).
std::vector<int> strided_ranks(int first, int size, int stride);

}  // namespace simtrain::plan
